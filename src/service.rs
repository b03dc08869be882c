//! The hyper glue: a request in, [`respond`](crate::respond::respond)'s
//! response out. The request body is never read.

use crate::respond::{respond, Body};
use http::{Request, Response};
use std::convert::Infallible;

/// Answer one request.
pub fn handle<B>(request: &Request<B>) -> Response<Body> {
    respond(request.method(), request.uri().path(), request.headers())
}

/// [`handle`] in the shape `hyper::service::service_fn` wants.
pub async fn serve<B>(request: Request<B>) -> Result<Response<Body>, Infallible> {
    Ok(handle(&request))
}
