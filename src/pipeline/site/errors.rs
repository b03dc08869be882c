//! The error bodies, and a removed method's addresses, which answer with
//! one: each [`ErrorKind`] paired with its texts from `errors.json`.
//!
//! The ErrorResponse (JSON, for programs) is the source language's, as
//! the JSON Reference is, whatever the path. The error pages (HTML and
//! Markdown) are in each language, from its `errors.json`, linking its
//! pages: the router answers a page's error under `/zh-hans/` with the
//! Chinese one, and a removed method's page at each language's address
//! says it is gone in that language.

use super::{page_pair, Body, Resource};
use crate::address::{Address, View};
use crate::content::{Catalog, Editions, ErrorText};
use crate::errors::ErrorKind;
use crate::media::MediaType;
use crate::render_html::Page;
use crate::render_json;
use crate::render_markdown::{self, Pointer};
use crate::table::{ErrorBodies, ErrorSet};

/// The texts of `kind` in `catalog`'s `errors.json`.
fn text(catalog: &Catalog, kind: ErrorKind) -> &ErrorText {
    catalog
        .errors
        .iter()
        .find(|t| t.code == kind.code())
        .expect("content::load checks that errors.json has every code")
}

/// The ErrorResponse of `kind` saying `message` and `hint`.
fn error_json(kind: ErrorKind, message: &str, hint: &str) -> Body {
    Body::new(
        MediaType::JSON,
        render_json::error(kind.code(), message, hint),
    )
}

/// The resource at `id` that explains `kind` in `representations`.
fn error_resource(id: String, kind: ErrorKind, representations: Vec<Body>) -> Resource {
    Resource {
        id,
        representations,
        cache_control: kind.cache_control(),
        error: Some(kind),
        languages: 1,
    }
}

/// The error bodies of every kind, in [`ErrorKind::ALL`] order: the
/// ErrorResponse, one per catalog key for the kinds whose hint suggests a
/// close key (`reference_not_found/select`), and in each language the
/// page and one per catalog key for the kinds that link a close key
/// (`page/not_found/select`, `zh-hans/page/not_found/select`).
pub(crate) fn errors(editions: &Editions) -> Vec<ErrorBodies<Resource>> {
    let source = editions.source();
    let mut all = Vec::new();
    for kind in ErrorKind::ALL {
        let text = text(source, kind);
        let error = |id: String, hint: &str| {
            error_resource(id, kind, vec![error_json(kind, &text.message, hint)])
        };
        let program_suggesting = match &text.hint_suggesting {
            Some(template) => source
                .entries
                .iter()
                .map(|entry| {
                    let hint = template.replace("{key}", &entry.key);
                    error(format!("{}/{}", kind.code(), entry.key), &hint)
                })
                .collect(),
            None => Vec::new(),
        };
        let pages = editions
            .catalogs
            .iter()
            .map(|catalog| page_errors(source, catalog, kind))
            .collect();
        let program = ErrorSet {
            plain: error(kind.code().into(), &text.hint),
            suggesting: program_suggesting,
        };
        all.push(ErrorBodies { program, pages });
    }
    all
}

/// The pages of `kind` in `catalog`'s language: the plain page and, for a
/// mistyped method page (`/api/selct`), one linking each method meant.
fn page_errors(source: &Catalog, catalog: &Catalog, kind: ErrorKind) -> ErrorSet<Resource> {
    let hint = |text: &ErrorText| text.hint.clone();
    let id = |rest: String| {
        if catalog.is_source() {
            rest
        } else {
            format!("{}/{rest}", catalog.language.segment)
        }
    };
    let plain = format!("page/{}", kind.code());
    let suggesting = match kind {
        ErrorKind::NotFound => catalog
            .entries
            .iter()
            .map(|e| {
                let pointer = Some(Pointer::Meant(&e.key));
                let at = id(format!("{plain}/{}", e.key));
                page_error((source, catalog), kind, hint, pointer, at)
            })
            .collect(),
        _ => Vec::new(),
    };
    ErrorSet {
        plain: page_error((source, catalog), kind, hint, None, id(plain)),
        suggesting,
    }
}

/// The addresses of the methods removed from the library, each answering
/// with its error: the page and its Markdown twin 410 (`method_removed`),
/// at the address without a language (in the source's) and at each
/// language's (in it), the JSON document 404 (`reference_not_found`),
/// each hint naming the successor, if any, and the pages linking it.
pub(crate) fn removed(editions: &Editions) -> Vec<Resource> {
    let source = editions.source();
    let (gone, unknown) = (ErrorKind::MethodRemoved, ErrorKind::ReferenceNotFound);
    let mut all = Vec::new();
    for entry in &source.removed {
        let hint = |text: &ErrorText| text.hint_for_removed(entry);
        let successor = entry.removed.as_ref().and_then(|m| m.successor.as_deref());
        let pointer = successor.map(Pointer::Successor);
        for form in [View::Markdown, View::Page] {
            let address = Address::Method(&entry.key, form);
            let id = address.to_string();
            all.push(page_error((source, source), gone, hint, pointer, id));
            for catalog in &editions.catalogs {
                let id = catalog.at(address).to_string();
                all.push(page_error((source, catalog), gone, hint, pointer, id));
            }
        }
        let text = text(source, unknown);
        let json = error_json(unknown, &text.message, &text.hint_for_removed(entry));
        let id = Address::Document(&entry.key).to_string();
        all.push(error_resource(id, unknown, vec![json]));
    }
    all
}

/// The error as page URLs answer it, at `id` (`page/<code>`, or
/// `page/<code>/<key>` when it suggests the method `key`, or a removed
/// method's path), in `catalog`'s language: the ErrorResponse first (for
/// clients that state no preference), in `source`'s, then HTML and
/// Markdown. `hint` is the hint of a text of the kind.
fn page_error(
    (source, catalog): (&Catalog, &Catalog),
    kind: ErrorKind,
    hint: impl Fn(&ErrorText) -> String,
    pointer: Option<Pointer>,
    id: String,
) -> Resource {
    let english = text(source, kind);
    let own = text(catalog, kind);
    let title = own.title.as_deref().unwrap_or(kind.reason());
    let own_hint = hint(own);
    let markdown = render_markdown::error(
        catalog,
        title,
        kind.code(),
        (own.message.as_str(), own_hint.as_str()),
        pointer,
    );
    let page = Page {
        title,
        description: &own.message,
        ..Page::default()
    };
    let mut representations = vec![error_json(kind, &english.message, &hint(english))];
    representations.extend(page_pair(catalog, &page, markdown, &[]));
    error_resource(id, kind, representations)
}
