//! `GET /search?q=…`: the reference searched, for people (a results page,
//! which every page's search box leads to), agents (Markdown) and programs
//! (JSON), ranked by the index MCP's `search` ranks with (`search.rs`), so
//! both give the same methods in the same order.
//!
//! Like `/mcp`'s, the answer is put together at run time, from the
//! table's pieces (`refserve_core::search_page`, `assemble.rs`): nothing
//! is rendered or compressed (identity only), and the body is held in the
//! memory [`Budget`] until it is sent; an answer the budget cannot take
//! gets `503` with `Retry-After`. Everything else answers from the table:
//!
//! - the query string is read (`query.rs`): no `q`, an empty or overlong
//!   one, another parameter or a second `q` get their `400` page (JSON for
//!   programs, HTML with the search box and a way back for browsers);
//! - `Accept` chooses HTML, Markdown or JSON, in that order of preference
//!   (`406` when it takes none, or when `Accept-Encoding` refuses
//!   identity);
//! - a query that is a method's name, asked for as HTML, is `303` to the
//!   method's page: a person who typed `select` wants its page;
//! - every answer has a strong `ETag` made of the table's content hash,
//!   the representation and the normalised query, `Last-Modified`,
//!   `Vary: Accept` and a `Cache-Control` a CDN keeps it by, and
//!   `X-Robots-Tag: noindex`; `If-Match` that names another tag gives
//!   `412`, `If-None-Match` (then `If-Modified-Since`) `304`, before
//!   anything is searched (negotiation and preconditions read as the
//!   table's routes read them, `fields.rs`);
//! - `HEAD` gets the headers alone, `OPTIONS` a preflight, any other
//!   method the pages' `405`.

mod assemble;
mod query;

use crate::budget::Budget;
use crate::conditional::Precondition;
use crate::errors::ErrorKind;
use crate::fields::Fields;
use crate::negotiate::Coding;
use crate::respond::{self, Body, Selection};
use crate::route::suggest;
use crate::search::{query_terms, rank};
use crate::table::Table;
use assemble::Results;
use http::header::{self, HeaderMap, HeaderName, HeaderValue};
use http::{Method, Response, StatusCode, Uri};
use http_body_util::Full;
use refserve_core::address::{Address, Localized};
use refserve_core::headers::fingerprint;
use refserve_core::search_page::{Form, MEDIA_TYPES};
use std::sync::Arc;

/// The most names a search that finds nothing offers as the ones meant.
const MAX_SUGGESTIONS: usize = 3;

/// The most words of a query that are compared with the names.
const MAX_SUGGESTED_WORDS: usize = 8;

/// `Vary` of an answer at `/search`, which negotiates its language.
const NEGOTIATED_VARY: HeaderValue = HeaderValue::from_static("Accept, Accept-Language");

/// `X-Markdown-Tokens`, as every Markdown body carries it.
const MARKDOWN_TOKENS: HeaderName = HeaderName::from_static("x-markdown-tokens");

/// The answer to a request for `/search` (its `method`, `uri` and
/// `headers`) from `table`, its body held in `budget`; with the content
/// coding of its body.
pub(crate) fn answer(
    table: &Table,
    budget: &Arc<Budget>,
    method: &Method,
    uri: &Uri,
    headers: &HeaderMap,
) -> (Response<Body>, Coding) {
    let head = match *method {
        Method::GET => false,
        Method::HEAD => true,
        Method::OPTIONS => return sent(Selection::Options),
        _ => {
            let path = Address::Search.to_string();
            return sent(respond::select(table, method, &path, headers));
        }
    };
    let refuse = |kind| sent(respond::page_error(table, kind, uri.path(), headers, head));
    let query = match query::query(uri.query()) {
        Ok(query) => query,
        Err(kind) => return refuse(kind),
    };
    let fields = Fields::of(headers);
    let Some((language, negotiated)) = language(table, uri.path(), &fields) else {
        return refuse(ErrorKind::NotFound);
    };
    let Some(form) = choose_form(&fields) else {
        return refuse(ErrorKind::NotAcceptable);
    };
    // Every answer from here on: in identity, and saying so when it
    // negotiated its language.
    let identity = |mut response: Response<Body>| {
        if negotiated {
            response.headers_mut().insert(header::VARY, NEGOTIATED_VARY);
        }
        (response, Coding::Identity)
    };
    let page = &table.search[language];
    if form == Form::Html {
        if let Some(key) = table
            .keys
            .iter()
            .position(|key| key.eq_ignore_ascii_case(&query))
        {
            // `303` to the method's page, in the page's language.
            let see_other = page.see_other.clone();
            let mut response = respond::response(StatusCode::SEE_OTHER, see_other, Body::default());
            let location = page.methods[key].location.clone();
            response.headers_mut().insert(header::LOCATION, location);
            return identity(response);
        }
    }
    let stored = &page.headers[form as usize];
    let etag = etag(table, form, language, &query);
    match fields.precondition(etag.as_bytes(), table.last_modified_unix) {
        Precondition::Send => {}
        Precondition::NotModified => {
            let not_modified = stored.not_modified.clone();
            let mut response =
                respond::response(StatusCode::NOT_MODIFIED, not_modified, Body::default());
            response.headers_mut().insert(header::ETAG, etag);
            return identity(response);
        }
        Precondition::Failed => return refuse(ErrorKind::PreconditionFailed),
    }
    let terms = query_terms(&table.mcp.index, &query);
    // All of them, in the order MCP's `search` gives its first few.
    let found = rank(&table.mcp.index, &terms, table.keys.len());
    let suggestions = if found.is_empty() {
        suggestions(&query, &table.keys)
    } else {
        Vec::new()
    };
    let results = Results {
        keys: &table.keys,
        names: &table.mcp.methods_json,
        query: &query,
        found: &found,
        suggestions: &suggestions,
    };
    let body = assemble::body(page, form, &results);
    let length = body.len();
    let body = if head {
        Body::default()
    } else {
        // Reserved once written: the answer is put together without a
        // pause, so at most one per thread is ever held unreserved.
        let Some(reservation) = budget.reserve(body.capacity()) else {
            return refuse(ErrorKind::Busy);
        };
        Full::new(reservation.hold(body))
    };
    let mut response = respond::response(StatusCode::OK, stored.ok.clone(), body);
    let sending = response.headers_mut();
    sending.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
    sending.insert(header::ETAG, etag);
    if form == Form::Markdown {
        sending.insert(MARKDOWN_TOKENS, HeaderValue::from(length.div_ceil(4)));
    }
    identity(response)
}

/// The language of the answer to `path`, and whether it was negotiated:
/// the path's own (`/zh-hans/search`), or at `/search` the one
/// `Accept-Language` chooses; `None` for a language the site lacks.
fn language(table: &Table, path: &str, fields: &Fields) -> Option<(usize, bool)> {
    match Localized::parse(path)?.language {
        None => Some((fields.language(&table.languages), true)),
        Some(segment) => table.language(segment).map(|i| (i, false)),
    }
}

/// A selection from the table, as a response and its coding.
fn sent(selection: Selection) -> (Response<Body>, Coding) {
    let coding = selection.coding();
    (selection.into_response(), coding)
}

/// The form `Accept` chooses (HTML, then Markdown, then JSON, on a tie),
/// if it takes one and `Accept-Encoding` takes identity.
fn choose_form(fields: &Fields) -> Option<Form> {
    if fields.accept_encoding().quality(Coding::Identity) == 0 {
        return None;
    }
    let chosen = fields.media_type(&MEDIA_TYPES);
    chosen.and_then(|i| Form::ALL.get(i).copied())
}

/// The `ETag` of the answer in `form` to the normalised `query`: a
/// fingerprint of the table's content, this server's version (which puts
/// the pieces together), the form and the query.
fn etag(table: &Table, form: Form, language: usize, query: &str) -> HeaderValue {
    let hash = fingerprint(&[
        table.content_hash.as_bytes(),
        env!("CARGO_PKG_VERSION").as_bytes(),
        form.token().as_bytes(),
        table
            .languages
            .get(language)
            .map_or("", |l| l.tag)
            .as_bytes(),
        query.as_bytes(),
    ]);
    let tag = format!("\"{hash:016x}-{}\"", form.token());
    HeaderValue::try_from(tag).expect("hex digits and a form's name make a header value")
}

/// The methods whose names are close to a word of `query` (at most
/// [`MAX_SUGGESTIONS`], from its first [`MAX_SUGGESTED_WORDS`] words).
fn suggestions(query: &str, keys: &[String]) -> Vec<usize> {
    let mut close = Vec::new();
    for word in query.split(' ').take(MAX_SUGGESTED_WORDS) {
        if let Some(key) = suggest(word, keys) {
            if !close.contains(&key) {
                close.push(key);
            }
        }
        if close.len() == MAX_SUGGESTIONS {
            break;
        }
    }
    close
}
