//! Build stage 2 (assembly): which resources exist, at which paths, in which
//! representations — the site map of the server, before compression.
//!
//! The renderers produce text; this stage names the path and media type of
//! each text and the caching policy of each resource, and pairs every
//! [`ErrorKind`] with its texts from `content/errors.json`.

use crate::content::{Catalog, ContentError};
use crate::errors::ErrorKind;
use crate::render_json;

/// `Cache-Control` of every successful response. Documentation changes only
/// when a new build is deployed: a CDN may serve it for an hour and keep
/// serving it for a day while it revalidates (a cheap 304 thanks to ETag).
pub const CACHE_CONTROL: &str = "public, max-age=3600, stale-while-revalidate=86400";

/// A media type as the table stores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Media {
    /// Top-level type, lowercase.
    pub kind: &'static str,
    /// Subtype, lowercase.
    pub subtype: &'static str,
    /// `charset` parameter, if sent.
    pub charset: Option<&'static str>,
}

impl Media {
    /// `application/json` (UTF-8 by definition, RFC 8259: no charset parameter).
    pub const JSON: Media = Media {
        kind: "application",
        subtype: "json",
        charset: None,
    };

    /// The `Content-Type` value.
    pub fn content_type(&self) -> String {
        match self.charset {
            Some(charset) => format!("{}/{}; charset={charset}", self.kind, self.subtype),
            None => format!("{}/{}", self.kind, self.subtype),
        }
    }
}

/// One resource before compression: its representations in the server's
/// order of preference, and its caching policy.
#[derive(Debug)]
pub struct Resource {
    /// The table key: a path for pages, an error id for errors.
    pub id: String,
    /// (media type, identity body), in order of preference.
    pub representations: Vec<(Media, String)>,
    /// `Cache-Control`.
    pub cache_control: &'static str,
}

/// Every resource served with 200, keyed by path.
pub fn resources(catalog: &Catalog) -> Vec<Resource> {
    let json = |id: String, body: String| Resource {
        id,
        representations: vec![(Media::JSON, body)],
        cache_control: CACHE_CONTROL,
    };
    let mut all = vec![json(
        "/api/reference.json".into(),
        render_json::collection(catalog),
    )];
    for entry in &catalog.entries {
        all.push(json(
            format!("/api/reference/{}.json", entry.key),
            render_json::single(catalog, entry),
        ));
    }
    all
}

/// Every ErrorResponse, keyed by code, plus one per catalog key for the
/// codes whose hint can suggest a close key (`reference_not_found/select`).
pub fn errors(catalog: &Catalog) -> Result<Vec<Resource>, ContentError> {
    let file = "content/errors.json";
    if let Some(extra) = catalog
        .errors
        .iter()
        .find(|t| !ErrorKind::ALL.iter().any(|k| k.code() == t.code))
    {
        return Err(ContentError {
            file: file.into(),
            field: extra.code.clone(),
            problem: "is not an error code the server uses".into(),
        });
    }
    let mut all = Vec::new();
    for kind in ErrorKind::ALL {
        let Some(text) = catalog.errors.iter().find(|t| t.code == kind.code()) else {
            return Err(ContentError {
                file: file.into(),
                field: kind.code().into(),
                problem: "is missing: every error code needs a message and a hint".into(),
            });
        };
        let error = |id: String, hint: &str| Resource {
            id,
            representations: vec![(
                Media::JSON,
                render_json::error(kind.code(), &text.message, hint),
            )],
            cache_control: kind.cache_control(),
        };
        all.push(error(kind.code().into(), &text.hint));
        if let Some(template) = &text.hint_suggesting {
            for entry in &catalog.entries {
                all.push(error(
                    format!("{}/{}", kind.code(), entry.key),
                    &template.replace("{key}", &entry.key),
                ));
            }
        }
    }
    Ok(all)
}
