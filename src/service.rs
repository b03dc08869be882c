//! The bare hyper service: a request in, [`respond`](crate::respond::respond)'s
//! response out; the request body is never read. The fuzz target `service`
//! and `benches/shapes.rs` serve with it. The server answers through
//! `connection::answer`, the same selection plus what a connection adds
//! (HSTS, `Connection: close` in a drain, metrics, the access log).

use crate::respond::{respond, Body};
use crate::table::production;
use http::{Request, Response};
use std::convert::Infallible;

/// Answer one request from the production table.
pub fn handle<B>(request: &Request<B>) -> Response<Body> {
    let table = production();
    respond(
        table,
        request.method(),
        request.uri().path(),
        request.headers(),
    )
}

/// [`handle`] in the shape `hyper::service::service_fn` wants.
pub async fn serve<B>(request: Request<B>) -> Result<Response<Body>, Infallible> {
    Ok(handle(&request))
}
