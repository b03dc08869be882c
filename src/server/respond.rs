//! The whole request → response selection, without I/O.
//!
//! Two steps, both pure:
//!
//! - [`select`] routes, negotiates and evaluates preconditions, and answers
//!   with a [`Selection`]: references into the table, nothing allocated.
//! - [`Selection::into_response`] assembles the response from it: the body
//!   is `Bytes` over the table's bytes, and every header map was made with
//!   the table and is cloned, so nothing is rendered, compressed or decided
//!   here.
//!
//! [`respond`] does both. The hyper service, the benchmarks and the fuzz
//! targets all go through here.

use crate::conditional::Precondition;
use crate::errors::ErrorKind;
use crate::fields::Fields;
use crate::headers;
use crate::negotiate::{best, Coding, MediaType};
use crate::route::{error_about, error_for, page_error_for, route, Route};
use crate::table::{Representation, Resource, Table, Variant};
use bytes::Bytes;
use http::header::{self, HeaderMap, HeaderValue};
use http::{Method, Response, StatusCode};
use http_body_util::Full;

/// The response body type: a whole body.
pub type Body = Full<Bytes>;

const ALLOW: HeaderValue = HeaderValue::from_static(headers::ALLOW);
const ANY_ORIGIN: HeaderValue = HeaderValue::from_static(headers::ANY_ORIGIN);
const ANY_HEADERS: HeaderValue = HeaderValue::from_static(headers::ANY_HEADERS);
const PREFLIGHT_MAX_AGE: HeaderValue = HeaderValue::from_static(headers::PREFLIGHT_MAX_AGE);
const REDIRECT_CACHE_CONTROL: HeaderValue =
    HeaderValue::from_static(headers::REDIRECT_CACHE_CONTROL);

/// What a request gets, as references into a table that lives for `'t`.
#[derive(Debug, Clone, Copy)]
pub enum Selection<'t> {
    /// A body: the resource's chosen representation in the chosen coding.
    Body {
        /// The status: 200, or the error's.
        status: StatusCode,
        /// The chosen representation.
        representation: &'t Representation,
        /// The chosen variant.
        variant: &'t Variant,
        /// The representation's media type.
        media_type: &'t MediaType,
        /// HEAD: the same headers, no content.
        head: bool,
        /// The error this body explains, if it is one.
        error: Option<ErrorKind>,
    },
    /// 304: the client's copy of `variant` is current.
    NotModified {
        /// The variant the client holds.
        variant: &'t Variant,
        /// Its media type.
        media_type: &'t MediaType,
    },
    /// 308 to this page's canonical path.
    Redirect(&'t Resource),
    /// 204 to `OPTIONS` (and CORS preflights).
    Options,
}

/// Select the response to a request from `table`.
pub fn select<'t>(
    table: &'t Table,
    method: &Method,
    path: &str,
    headers: &HeaderMap,
) -> Selection<'t> {
    let fields = &Fields::of(headers);
    let head = match *method {
        Method::GET => false,
        Method::HEAD => true,
        Method::OPTIONS => return options(table, path, fields),
        _ => {
            let kind = ErrorKind::MethodNotAllowed;
            return failure(table, kind, error_for(table, path, kind), fields, false);
        }
    };
    match route(table, path) {
        Route::Found(resource) => found(table, resource, fields, head),
        Route::Redirect(canonical) => Selection::Redirect(canonical),
        Route::Missing(kind, resource) => failure(table, kind, resource, fields, head),
    }
}

/// The error `kind` as page URLs answer it (JSON, HTML or Markdown), in
/// the language whose pages `path` is among, for a request with
/// `headers`; `head`: without its body.
pub(crate) fn page_error<'t>(
    table: &'t Table,
    kind: ErrorKind,
    path: &str,
    headers: &HeaderMap,
    head: bool,
) -> Selection<'t> {
    let resource = page_error_for(table, path, kind);
    failure(table, kind, resource, &Fields::of(headers), head)
}

/// The error `kind` for a request refused before it is routed
/// (`message.rs`), as its path's other errors are answered: the
/// ErrorResponse on API paths, negotiated elsewhere; without its body to
/// HEAD.
pub(crate) fn refused<'t>(
    table: &'t Table,
    kind: ErrorKind,
    method: &Method,
    path: &str,
    headers: &HeaderMap,
) -> Selection<'t> {
    let resource = error_for(table, path, kind);
    let head = *method == Method::HEAD;
    failure(table, kind, resource, &Fields::of(headers), head)
}

/// Select the response to a request from `table` and assemble it.
pub fn respond(table: &Table, method: &Method, path: &str, headers: &HeaderMap) -> Response<Body> {
    select(table, method, path, headers).into_response()
}

/// 200, 304, 406 or 412 for an existing resource.
fn found<'t>(
    table: &'t Table,
    resource: &'t Resource,
    fields: &Fields,
    head: bool,
) -> Selection<'t> {
    let refuse = |kind| {
        failure(
            table,
            kind,
            error_about(table, resource, kind),
            fields,
            head,
        )
    };
    let Some(chosen) = choose_representation(table, resource, fields) else {
        return refuse(ErrorKind::NotAcceptable);
    };
    let representation = &resource.representations[chosen];
    let media_type = media_type_of(resource, chosen);
    let Some(variant) = choose_variant(table, representation, fields) else {
        return refuse(ErrorKind::NotAcceptable);
    };
    match fields.precondition(variant.etag.as_bytes(), table.last_modified_unix) {
        Precondition::Send => {}
        Precondition::NotModified => {
            return Selection::NotModified {
                variant,
                media_type,
            }
        }
        Precondition::Failed => return refuse(ErrorKind::PreconditionFailed),
    }
    Selection::Body {
        status: StatusCode::OK,
        representation,
        variant,
        media_type,
        head,
        error: None,
    }
}

/// An error. Its media type and coding are negotiated, but a client that
/// accepts none gets the first representation (the ErrorResponse) in
/// identity rather than a second error.
fn failure<'t>(
    table: &'t Table,
    kind: ErrorKind,
    resource: &'t Resource,
    fields: &Fields,
    head: bool,
) -> Selection<'t> {
    let chosen = choose_representation(table, resource, fields).unwrap_or(0);
    let representation = &resource.representations[chosen];
    let variant =
        choose_variant(table, representation, fields).unwrap_or_else(|| representation.identity());
    let status =
        StatusCode::from_u16(kind.status()).expect("ErrorKind statuses are valid status codes");
    Selection::Body {
        status,
        representation,
        variant,
        media_type: media_type_of(resource, chosen),
        head,
        error: Some(kind),
    }
}

/// `OPTIONS`: 204 for anything that exists (and for `*`).
fn options<'t>(table: &'t Table, path: &str, fields: &Fields) -> Selection<'t> {
    if path != "*" {
        if let Route::Missing(kind, resource) = route(table, path) {
            return failure(table, kind, resource, fields, false);
        }
    }
    Selection::Options
}

/// The representation `Accept` chooses, in the language `Accept-Language`
/// chooses when the resource negotiates it; `None` if `Accept` accepts no
/// media type.
fn choose_representation(table: &Table, resource: &Resource, fields: &Fields) -> Option<usize> {
    let media_type = fields.media_type(&resource.media_types)?;
    if !resource.negotiates_language {
        return Some(media_type);
    }
    let language = fields.language(&table.languages);
    Some(language * resource.media_types.len() + media_type)
}

/// The media type of `resource`'s representation `chosen`.
fn media_type_of(resource: &Resource, chosen: usize) -> &MediaType {
    &resource.media_types[chosen % resource.media_types.len()]
}

/// The variant `Accept-Encoding` weighs highest (the smallest of equal
/// weight). A body compressed against a dictionary counts only when the
/// request holds that dictionary.
fn choose_variant<'t>(
    table: &'t Table,
    representation: &'t Representation,
    fields: &Fields,
) -> Option<&'t Variant> {
    let accepted = fields.accept_encoding();
    let quality = |coding: Coding| accepted.quality(coding);
    // The dictionary headers are read only when they can matter: the
    // request accepts a coding that needs a dictionary (the table's).
    let held = (quality(Coding::Dcb) > 0 || quality(Coding::Dcz) > 0)
        && fields.held_dictionary(table).is_some();
    let weights = representation.variants.iter().map(|variant| {
        if variant.coding.needs_dictionary() && !held {
            0
        } else {
            quality(variant.coding)
        }
    });
    best(weights).map(|i| &representation.variants[i])
}

impl Selection<'_> {
    /// The content coding of the body sent: the variant's, identity when
    /// there is no body (HEAD keeps its variant's, as it describes it).
    pub(crate) fn coding(&self) -> Coding {
        match self {
            Selection::Body { variant, .. } => variant.coding,
            _ => Coding::Identity,
        }
    }

    /// The media type of the body sent, or described by a HEAD or a 304;
    /// `None` for a redirect or `OPTIONS`.
    pub(crate) fn media_type(&self) -> Option<&MediaType> {
        match self {
            Selection::Body { media_type, .. } | Selection::NotModified { media_type, .. } => {
                Some(media_type)
            }
            _ => None,
        }
    }

    /// The response: status, headers and the body.
    pub fn into_response(self) -> Response<Body> {
        match self {
            Selection::Body {
                status,
                variant,
                head,
                ..
            } => {
                let body = if head {
                    Body::default()
                } else {
                    Full::new(variant.body.clone())
                };
                response(status, variant.headers.clone(), body)
            }
            Selection::NotModified { variant, .. } => response(
                StatusCode::NOT_MODIFIED,
                variant.not_modified.clone(),
                Body::default(),
            ),
            Selection::Redirect(canonical) => redirect(canonical),
            Selection::Options => preflight(),
        }
    }
}

/// A response: `status`, `headers` (complete) and `body` (inlined: out of
/// line, moving the map and the response cost about 25 instructions a
/// request, `benches/observing.sh`).
#[inline]
pub(crate) fn response(status: StatusCode, headers: HeaderMap, body: Body) -> Response<Body> {
    let mut response = Response::new(body);
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    response
}

/// 308 to the canonical spelling of a page URL.
fn redirect(canonical: &Resource) -> Response<Body> {
    let mut response = response(
        StatusCode::PERMANENT_REDIRECT,
        HeaderMap::new(),
        Body::default(),
    );
    let headers = response.headers_mut();
    headers.insert(header::LOCATION, canonical.location.clone());
    headers.insert(header::CACHE_CONTROL, REDIRECT_CACHE_CONTROL);
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, ANY_ORIGIN);
    response
}

/// 204 with `Allow` and what a CORS preflight needs.
fn preflight() -> Response<Body> {
    let mut response = response(StatusCode::NO_CONTENT, HeaderMap::new(), Body::default());
    let headers = response.headers_mut();
    headers.insert(header::ALLOW, ALLOW);
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, ANY_ORIGIN);
    headers.insert(header::ACCESS_CONTROL_ALLOW_METHODS, ALLOW);
    headers.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, ANY_HEADERS);
    headers.insert(header::ACCESS_CONTROL_MAX_AGE, PREFLIGHT_MAX_AGE);
    response
}
