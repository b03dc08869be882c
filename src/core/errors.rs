//! The error vocabulary: every way a request can fail, with its HTTP status,
//! its stable `error.code`, how long caches may keep the answer, when to
//! ask again and whether the connection stays open after it.
//!
//! The texts (`message`, `hint`) live in `content/errors.json`; the pipeline
//! (`src/pipeline/`) checks that every kind has its text and renders each ErrorResponse body (section 2.4
//! of the specification) ahead of time, so a failing request costs a table
//! lookup like any other. Nothing here depends on other modules.
//!
//! A removed method's addresses are resources of the table that answer
//! with an error ([`crate::table::Resource::error`]): its page with
//! [`ErrorKind::MethodRemoved`], its JSON document with
//! [`ErrorKind::ReferenceNotFound`], each naming its successor.

use serde::{Deserialize, Serialize};

/// Why a request could not be answered with the resource it asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ErrorKind {
    /// The path names no resource.
    NotFound,
    /// `/api/reference/{name}.json` with a well-formed name that is not in
    /// the catalog (or is a removed method's).
    ReferenceNotFound,
    /// The page of a method removed from the library (410 Gone).
    MethodRemoved,
    /// `/api/reference/{name}.json` with a name that does not match `^[a-z]+$`.
    InvalidName,
    /// `/api/reference/{name}.json` with a name longer than [`MAX_NAME_LEN`].
    NameTooLong,
    /// The request target is longer than the server reads ([`MAX_PATH_LEN`]).
    UriTooLong,
    /// A method other than GET, HEAD or OPTIONS.
    MethodNotAllowed,
    /// `Accept` or `Accept-Encoding` rules out every representation.
    NotAcceptable,
    /// `If-Match` names no current entity tag of the representation
    /// (RFC 9110 §13.1.1): 412.
    PreconditionFailed,
    /// `/search` without a query: no `q`, or one of spaces alone.
    QueryMissing,
    /// `/search` with a query longer than the server reads
    /// (`search_page::MAX_QUERY_CHARS`).
    QueryTooLong,
    /// `/search` with a query string it does not take: another parameter,
    /// `q` twice, or a `q` that is not percent-encoded UTF-8.
    QueryInvalid,
    /// An HTTP/1.1 request without `Host`, or an HTTP/1 request with more
    /// than one (RFC 9112 §3.2): 400, and the connection closed.
    BadHost,
    /// A request whose `Transfer-Encoding` names a coding other than one
    /// `chunked` (RFC 9112 §6.1): 501, and the connection closed, as the
    /// body's framing cannot be read.
    UnsupportedTransferCoding,
    /// `/search` when the memory budget cannot hold its answer (503, with
    /// `Retry-After`).
    Busy,
}

/// The longest method name accepted in `/api/reference/{name}.json`.
pub const MAX_NAME_LEN: usize = 64;

/// The longest (percent-decoded) path the router looks at.
pub const MAX_PATH_LEN: usize = 2048;

/// `Cache-Control` of an answer that depends only on the URL: cached
/// briefly, so a burst of requests for a dead link is absorbed by the CDN.
const BRIEFLY: &str = "public, max-age=60";
/// `Cache-Control` of an answer that depends on the method, on request
/// headers or on the server's load: not stored at all.
const NOT_STORED: &str = "no-store";

/// Each kind's `error.code`, HTTP status and `Cache-Control`, in the order
/// of [`ErrorKind::ALL`].
const FACTS: [(&str, u16, &str); 15] = [
    ("not_found", 404, BRIEFLY),
    ("reference_not_found", 404, BRIEFLY),
    ("method_removed", 410, BRIEFLY),
    ("invalid_name", 400, BRIEFLY),
    ("name_too_long", 400, BRIEFLY),
    ("uri_too_long", 414, BRIEFLY),
    ("method_not_allowed", 405, NOT_STORED),
    ("not_acceptable", 406, NOT_STORED),
    ("precondition_failed", 412, NOT_STORED),
    ("query_missing", 400, BRIEFLY),
    ("query_too_long", 400, BRIEFLY),
    ("query_invalid", 400, BRIEFLY),
    ("bad_host", 400, NOT_STORED),
    ("unsupported_transfer_coding", 501, NOT_STORED),
    ("busy", 503, NOT_STORED),
];

impl ErrorKind {
    /// Every kind, in documentation order.
    pub const ALL: [ErrorKind; 15] = [
        ErrorKind::NotFound,
        ErrorKind::ReferenceNotFound,
        ErrorKind::MethodRemoved,
        ErrorKind::InvalidName,
        ErrorKind::NameTooLong,
        ErrorKind::UriTooLong,
        ErrorKind::MethodNotAllowed,
        ErrorKind::NotAcceptable,
        ErrorKind::PreconditionFailed,
        ErrorKind::QueryMissing,
        ErrorKind::QueryTooLong,
        ErrorKind::QueryInvalid,
        ErrorKind::BadHost,
        ErrorKind::UnsupportedTransferCoding,
        ErrorKind::Busy,
    ];

    /// Its place in [`ErrorKind::ALL`].
    pub(crate) const fn index(self) -> usize {
        self as usize
    }

    /// The stable `error.code`.
    pub const fn code(self) -> &'static str {
        FACTS[self.index()].0
    }

    /// The HTTP status code.
    pub const fn status(self) -> u16 {
        FACTS[self.index()].1
    }

    /// The status's reason phrase (RFC 9110's), the title of the error's
    /// pages.
    pub fn reason(self) -> &'static str {
        http::StatusCode::from_u16(self.status())
            .ok()
            .and_then(|status| status.canonical_reason())
            .unwrap_or("Error")
    }

    /// `Cache-Control` for the error: [`BRIEFLY`] or [`NOT_STORED`].
    pub const fn cache_control(self) -> &'static str {
        FACTS[self.index()].2
    }

    /// Whether the answer closes its HTTP/1 connection (`Connection:
    /// close`): the request's framing or its `Host` cannot be trusted, so
    /// nothing the client sends after it is read as a request (RFC 9112
    /// §6.1, §3.2). Both are refused on HTTP/1 alone: HTTP/2 has no
    /// `Transfer-Encoding` and names the authority in `:authority`.
    pub const fn closes_connection(self) -> bool {
        matches!(
            self,
            ErrorKind::BadHost | ErrorKind::UnsupportedTransferCoding
        )
    }

    /// `Retry-After` for the error, in seconds: when asking again may
    /// succeed. Only a full memory budget passes.
    pub const fn retry_after(self) -> Option<&'static str> {
        match self {
            ErrorKind::Busy => Some("1"),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_at_its_index() {
        for (i, kind) in ErrorKind::ALL.into_iter().enumerate() {
            assert_eq!(kind.index(), i, "{kind:?}");
        }
    }

    #[test]
    fn every_code_is_its_kinds_name_in_snake_case() {
        for kind in ErrorKind::ALL {
            let mut name = String::new();
            for c in format!("{kind:?}").chars() {
                if c.is_ascii_uppercase() && !name.is_empty() {
                    name.push('_');
                }
                name.push(c.to_ascii_lowercase());
            }
            assert_eq!(kind.code(), name);
        }
    }

    #[test]
    fn a_503_says_when_to_retry_in_seconds_and_no_other_error_does() {
        for kind in ErrorKind::ALL {
            let retry_after = kind.retry_after();
            assert_eq!(retry_after.is_some(), kind.status() == 503, "{kind:?}");
            assert!(
                retry_after.is_none_or(|seconds| seconds.parse::<u32>().is_ok()),
                "{kind:?}: {retry_after:?}"
            );
        }
    }
}
