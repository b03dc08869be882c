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

use crate::conditional;
use crate::errors::ErrorKind;
use crate::headers;
use crate::negotiate::{
    best, common_index, held_dictionary, negotiate_media_type, AcceptEncoding, Coding,
    ACCEPT_ABSENT, COMMON_ACCEPTS, COMMON_ACCEPT_ENCODINGS,
};
use crate::route::{error_about, error_for, route, Route};
use crate::table::{Dictionary, ErrorKey, Representation, Resource, Table, Variant};
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
        /// HEAD: the same headers, no content.
        head: bool,
        /// The error this body explains, if it is one.
        error: Option<ErrorKind>,
    },
    /// 304: the client's copy of `variant` is current.
    NotModified {
        /// The variant the client holds.
        variant: &'t Variant,
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

/// The error `kind` as page URLs answer it (JSON, HTML or Markdown), for a
/// request with `headers`; `head`: without its body.
pub fn page_error<'t>(
    table: &'t Table,
    kind: ErrorKind,
    headers: &HeaderMap,
    head: bool,
) -> Selection<'t> {
    let resource = table.error(ErrorKey::page(kind));
    failure(table, kind, resource, &Fields::of(headers), head)
}

/// Select the response to a request from `table` and assemble it.
pub fn respond(table: &Table, method: &Method, path: &str, headers: &HeaderMap) -> Response<Body> {
    select(table, method, path, headers).into_response()
}

/// 200, 304 or 406 for an existing resource.
fn found<'t>(
    table: &'t Table,
    resource: &'t Resource,
    fields: &Fields,
    head: bool,
) -> Selection<'t> {
    let not_acceptable = || {
        let kind = ErrorKind::NotAcceptable;
        failure(
            table,
            kind,
            error_about(table, resource, kind),
            fields,
            head,
        )
    };
    let Some(chosen) = choose_media_type(resource, fields) else {
        return not_acceptable();
    };
    let representation = &resource.representations[chosen];
    let Some(variant) = choose_variant(table, representation, fields) else {
        return not_acceptable();
    };
    if is_fresh(table, variant, fields) {
        return Selection::NotModified { variant };
    }
    Selection::Body {
        status: StatusCode::OK,
        representation,
        variant,
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
    let chosen = choose_media_type(resource, fields).unwrap_or(0);
    let representation = &resource.representations[chosen];
    let variant =
        choose_variant(table, representation, fields).unwrap_or_else(|| representation.identity());
    let status =
        StatusCode::from_u16(kind.status()).expect("ErrorKind statuses are valid status codes");
    Selection::Body {
        status,
        representation,
        variant,
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

/// The request's header fields the selection reads, found in one pass over
/// its headers, which costs less than the lookups it replaces (a browser's
/// fourteen headers included): a field on one line, the common case, is
/// read as found, one on several lines from the map again, and a field the
/// request lacks costs no lookup.
struct Fields<'h> {
    headers: &'h HeaderMap,
    accept: Field<'h>,
    accept_encoding: Field<'h>,
    if_none_match: Field<'h>,
    if_modified_since: Field<'h>,
    available_dictionary: Field<'h>,
}

/// What the pass found of one field.
#[derive(Clone, Copy)]
enum Field<'h> {
    Absent,
    /// One line, with this value.
    One(&'h HeaderValue),
    /// Several lines, the first with this value.
    Several(&'h HeaderValue),
}

impl<'h> Fields<'h> {
    fn of(headers: &'h HeaderMap) -> Self {
        let mut fields = Fields {
            headers,
            accept: Field::Absent,
            accept_encoding: Field::Absent,
            if_none_match: Field::Absent,
            if_modified_since: Field::Absent,
            available_dictionary: Field::Absent,
        };
        for (name, value) in headers {
            let field = if name == header::ACCEPT {
                &mut fields.accept
            } else if name == header::ACCEPT_ENCODING {
                &mut fields.accept_encoding
            } else if name == header::IF_NONE_MATCH {
                &mut fields.if_none_match
            } else if name == header::IF_MODIFIED_SINCE {
                &mut fields.if_modified_since
            } else if name == AVAILABLE_DICTIONARY {
                &mut fields.available_dictionary
            } else {
                continue;
            };
            *field = match *field {
                Field::Absent => Field::One(value),
                Field::One(first) | Field::Several(first) => Field::Several(first),
            };
        }
        fields
    }

    /// The field values of every line of header `name`.
    fn values(&self, name: header::HeaderName) -> impl Iterator<Item = &'h [u8]> {
        self.headers
            .get_all(name)
            .into_iter()
            .map(HeaderValue::as_bytes)
    }
}

/// The representation `Accept` chooses, `None` if it accepts none. For a
/// common value, and for none, build.rs has negotiated it already.
fn choose_media_type(resource: &Resource, fields: &Fields) -> Option<usize> {
    match fields.accept {
        Field::Absent => resource.common_choices[ACCEPT_ABSENT],
        Field::One(accept) => match common_index([accept], &COMMON_ACCEPTS, None) {
            Some(i) => resource.common_choices[i],
            None => negotiate_media_type([accept], &resource.media_types),
        },
        Field::Several(_) => negotiate_media_type(
            &fields.headers.get_all(header::ACCEPT),
            &resource.media_types,
        ),
    }
}

/// `Available-Dictionary` (RFC 9842 §2.2).
const AVAILABLE_DICTIONARY: header::HeaderName =
    header::HeaderName::from_static("available-dictionary");

/// The variant `Accept-Encoding` weighs highest (the smallest of equal
/// weight). A body compressed against a dictionary counts only when the
/// request holds that dictionary.
fn choose_variant<'t>(
    table: &'t Table,
    representation: &'t Representation,
    fields: &Fields,
) -> Option<&'t Variant> {
    let weights = match fields.accept_encoding {
        Field::One(value) => match common_index([value], &COMMON_ACCEPT_ENCODINGS, None) {
            Some(i) => table.common_encoding_weights[i],
            None => AcceptEncoding::parse([value]).weights(),
        },
        _ => AcceptEncoding::parse(&fields.headers.get_all(header::ACCEPT_ENCODING)).weights(),
    };
    let quality = |coding: Coding| weights[coding.index()];
    // The dictionary headers are read only when they can matter: the
    // request accepts a coding that needs a dictionary (the table's).
    let held = (quality(Coding::Dcb) > 0 || quality(Coding::Dcz) > 0)
        && !matches!(fields.available_dictionary, Field::Absent)
        && held_by(table, fields).is_some();
    let weights = representation.variants.iter().map(|variant| {
        if variant.coding.needs_dictionary() && !held {
            0
        } else {
            quality(variant.coding)
        }
    });
    best(weights).map(|i| &representation.variants[i])
}

/// The dictionary the request says it holds, if the server has it.
fn held_by<'t>(table: &'t Table, fields: &Fields) -> Option<&'t Dictionary> {
    let dictionaries = &table.dictionaries;
    held_dictionary(fields.values(AVAILABLE_DICTIONARY), dictionaries).map(|i| &dictionaries[i])
}

/// RFC 9110 §13.2.2: `If-None-Match` decides when present; otherwise
/// `If-Modified-Since` (its first line) does.
fn is_fresh(table: &Table, variant: &Variant, fields: &Fields) -> bool {
    let etag = variant.etag.as_bytes();
    match (fields.if_none_match, fields.if_modified_since) {
        (Field::One(tags), _) => conditional::none_match([tags.as_bytes()], etag),
        (Field::Several(_), _) => {
            conditional::none_match(fields.values(header::IF_NONE_MATCH), etag)
        }
        (Field::Absent, Field::One(since) | Field::Several(since)) => {
            conditional::not_modified_since(since.as_bytes(), table.last_modified_unix)
        }
        (Field::Absent, Field::Absent) => false,
    }
}

impl Selection<'_> {
    /// The content coding of the body sent: the variant's, identity when
    /// there is no body (HEAD keeps its variant's, as it describes it).
    pub fn coding(&self) -> Coding {
        match self {
            Selection::Body { variant, .. } => variant.coding,
            _ => Coding::Identity,
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
                let mut response = Response::new(body);
                *response.status_mut() = status;
                *response.headers_mut() = variant.headers.clone();
                response
            }
            Selection::NotModified { variant } => {
                let mut response = Response::new(Body::default());
                *response.status_mut() = StatusCode::NOT_MODIFIED;
                *response.headers_mut() = variant.not_modified.clone();
                response
            }
            Selection::Redirect(canonical) => redirect(canonical),
            Selection::Options => preflight(),
        }
    }
}

/// 308 to the canonical spelling of a page URL.
fn redirect(canonical: &Resource) -> Response<Body> {
    let mut response = Response::new(Body::default());
    *response.status_mut() = StatusCode::PERMANENT_REDIRECT;
    let headers = response.headers_mut();
    headers.insert(header::LOCATION, canonical.location.clone());
    headers.insert(header::CACHE_CONTROL, REDIRECT_CACHE_CONTROL);
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, ANY_ORIGIN);
    response
}

/// 204 with `Allow` and what a CORS preflight needs.
fn preflight() -> Response<Body> {
    let mut response = Response::new(Body::default());
    *response.status_mut() = StatusCode::NO_CONTENT;
    let headers = response.headers_mut();
    headers.insert(header::ALLOW, ALLOW);
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, ANY_ORIGIN);
    headers.insert(header::ACCESS_CONTROL_ALLOW_METHODS, ALLOW);
    headers.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, ANY_HEADERS);
    headers.insert(header::ACCESS_CONTROL_MAX_AGE, PREFLIGHT_MAX_AGE);
    response
}
