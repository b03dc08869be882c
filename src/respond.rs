//! The whole request → response selection, without I/O.
//!
//! Given the method, the path and the request headers, [`respond`] routes,
//! negotiates, evaluates preconditions and assembles the response from the
//! table: every body is `'static` and every header value prebuilt, so no
//! body is rendered, compressed or allocated here. The hyper service, the
//! benchmarks and the fuzz targets all call this one function.

use crate::conditional;
use crate::errors::ErrorKind;
use crate::negotiate::{negotiate_encoding, negotiate_media_type, Coding};
use crate::route::{error_for, route, Route};
use crate::table::{self, Representation, Resource, Variant};
use bytes::Bytes;
use http::header::{self, HeaderMap, HeaderValue};
use http::{Method, Response, StatusCode};
use http_body_util::Full;

/// The response body type: a whole, `'static` body.
pub type Body = Full<Bytes>;

/// The methods every resource allows.
pub const ALLOW: HeaderValue = HeaderValue::from_static("GET, HEAD, OPTIONS");

const NOSNIFF: HeaderValue = HeaderValue::from_static("nosniff");

/// CORS (Fetch standard): a public, read-only API, readable from any origin
/// without credentials.
const ANY_ORIGIN: HeaderValue = HeaderValue::from_static("*");
const ANY_HEADERS: HeaderValue = HeaderValue::from_static("*");
const EXPOSED: HeaderValue = HeaderValue::from_static("ETag, Link, X-Markdown-Tokens");
const PREFLIGHT_MAX_AGE: HeaderValue = HeaderValue::from_static("86400");

/// A redirect to a canonical URL changes only with a deploy.
const REDIRECT_CACHE_CONTROL: HeaderValue = HeaderValue::from_static("public, max-age=3600");

/// Select the response to a request.
pub fn respond(method: &Method, path: &str, headers: &HeaderMap) -> Response<Body> {
    let head = match *method {
        Method::GET => false,
        Method::HEAD => true,
        Method::OPTIONS => return options(path, headers),
        _ => {
            let kind = ErrorKind::MethodNotAllowed;
            return failure(kind, error_for(path, kind), headers, false);
        }
    };
    match route(path) {
        Route::Found(resource) => found(resource, headers, head),
        Route::Redirect(canonical) => redirect(canonical),
        Route::Missing(kind, resource) => failure(kind, resource, headers, head),
    }
}

/// 200, 304 or 406 for an existing resource.
fn found(resource: &'static Resource, headers: &HeaderMap, head: bool) -> Response<Body> {
    let not_acceptable = || {
        let kind = ErrorKind::NotAcceptable;
        let error = if resource.is_page() {
            table::page_error(kind)
        } else {
            table::error(kind)
        };
        failure(kind, error, headers, head)
    };
    let accept = headers
        .get_all(header::ACCEPT)
        .into_iter()
        .map(HeaderValue::as_bytes);
    let Some(chosen) = negotiate_media_type(accept, resource.media_types) else {
        return not_acceptable();
    };
    let representation = resource.representations[chosen];
    let Some(variant) = choose_variant(representation, headers) else {
        return not_acceptable();
    };
    if is_fresh(variant, headers) {
        return not_modified(resource, variant);
    }
    let mut response = assemble(StatusCode::OK, resource, representation, variant, head);
    let response_headers = response.headers_mut();
    response_headers.insert(header::ETAG, variant.etag.clone());
    response_headers.insert(header::LAST_MODIFIED, table::LAST_MODIFIED.clone());
    response
}

/// An error. Its media type and coding are negotiated, but a client that
/// accepts none gets the first representation (the ErrorResponse) in
/// identity rather than a second error.
fn failure(
    kind: ErrorKind,
    resource: &'static Resource,
    headers: &HeaderMap,
    head: bool,
) -> Response<Body> {
    let accept = headers
        .get_all(header::ACCEPT)
        .into_iter()
        .map(HeaderValue::as_bytes);
    let chosen = negotiate_media_type(accept, resource.media_types).unwrap_or(0);
    let representation = resource.representations[chosen];
    let variant =
        choose_variant(representation, headers).unwrap_or_else(|| representation.identity());
    let status =
        StatusCode::from_u16(kind.status()).expect("ErrorKind statuses are valid status codes");
    let mut response = assemble(status, resource, representation, variant, head);
    if kind == ErrorKind::MethodNotAllowed {
        response.headers_mut().insert(header::ALLOW, ALLOW);
    }
    response
}

/// `OPTIONS`: 204 with `Allow` for anything that exists (and for `*`).
fn options(path: &str, headers: &HeaderMap) -> Response<Body> {
    if path != "*" {
        if let Route::Missing(kind, resource) = route(path) {
            return failure(kind, resource, headers, false);
        }
    }
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

/// 308 to the canonical spelling of a page URL.
fn redirect(canonical: &'static str) -> Response<Body> {
    let mut response = Response::new(Body::default());
    *response.status_mut() = StatusCode::PERMANENT_REDIRECT;
    let headers = response.headers_mut();
    headers.insert(header::LOCATION, HeaderValue::from_static(canonical));
    headers.insert(header::CACHE_CONTROL, REDIRECT_CACHE_CONTROL);
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, ANY_ORIGIN);
    response
}

fn choose_variant(
    representation: &'static Representation,
    headers: &HeaderMap,
) -> Option<&'static Variant> {
    let accept_encoding = headers
        .get_all(header::ACCEPT_ENCODING)
        .into_iter()
        .map(HeaderValue::as_bytes);
    negotiate_encoding(
        accept_encoding,
        representation.variants.iter().map(|v| v.coding),
    )
    .map(|i| representation.variants[i])
}

/// RFC 9110 §13.2.2: `If-None-Match` decides when present; otherwise
/// `If-Modified-Since` does.
fn is_fresh(variant: &Variant, headers: &HeaderMap) -> bool {
    let if_none_match = headers.get_all(header::IF_NONE_MATCH);
    if if_none_match.iter().next().is_some() {
        return conditional::none_match(
            if_none_match.iter().map(HeaderValue::as_bytes),
            variant.etag.as_bytes(),
        );
    }
    headers.get(header::IF_MODIFIED_SINCE).is_some_and(|since| {
        conditional::not_modified_since(since.as_bytes(), table::LAST_MODIFIED_UNIX)
    })
}

/// 304: the headers a 200 would carry that caches need (RFC 9110 §15.4.5), no content.
fn not_modified(resource: &Resource, variant: &Variant) -> Response<Body> {
    let mut response = Response::new(Body::default());
    *response.status_mut() = StatusCode::NOT_MODIFIED;
    let headers = response.headers_mut();
    headers.insert(header::ETAG, variant.etag.clone());
    headers.insert(header::VARY, resource.vary.clone());
    headers.insert(header::CACHE_CONTROL, resource.cache_control.clone());
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, ANY_ORIGIN);
    headers.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, EXPOSED);
    response
}

/// The response carrying `variant`, with its representation metadata. A
/// HEAD response has the same headers and no content.
fn assemble(
    status: StatusCode,
    resource: &Resource,
    representation: &Representation,
    variant: &'static Variant,
    head: bool,
) -> Response<Body> {
    let body = if head {
        Body::default()
    } else {
        Full::new(Bytes::from_static(variant.body))
    };
    let mut response = Response::new(body);
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, representation.content_type.clone());
    headers.insert(header::CONTENT_LENGTH, variant.content_length.clone());
    if let Some(coding) = content_encoding(variant.coding) {
        headers.insert(header::CONTENT_ENCODING, coding);
    }
    headers.insert(header::VARY, resource.vary.clone());
    headers.insert(header::CACHE_CONTROL, resource.cache_control.clone());
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, NOSNIFF);
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, ANY_ORIGIN);
    headers.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, EXPOSED);
    for (name, value) in representation.headers {
        headers.append(name.clone(), value.clone());
    }
    response
}

/// The `Content-Encoding` value of a coding; identity is never labelled.
const fn content_encoding(coding: Coding) -> Option<HeaderValue> {
    match coding {
        Coding::Identity => None,
        Coding::Gzip => Some(HeaderValue::from_static("gzip")),
        Coding::Br => Some(HeaderValue::from_static("br")),
    }
}
