//! The one handler: a request in, its response out, from a table — the
//! table's routes (documents, pages, `/healthz`, with every error they
//! explain), `/search` and `/mcp`, as the router names them
//! (`route::endpoint`).
//!
//! Before it is routed, a request is held to the HTTP/1 message's rules
//! hyper lets through (`message.rs`): a transfer coding refserve cannot
//! read gets 501, a missing or repeated `Host` 400, each from the table and
//! closing the connection.
//!
//! Every way of serving answers through [`Handler::answer`]: the
//! connection layer (`connection.rs`, which adds HSTS, the drain's
//! `Connection: close`, metrics and the access log), `refserve dev` (which
//! adds its reload script and event stream) and the bare service the fuzz
//! targets and benches use.
//!
//! A request is counted open on its connection's [`Activity`] from its
//! head: sending at once when the table answers it, receiving while the
//! body of an `/mcp` request arrives (`--body-timeout` is then its clock).
//! The table's answer, and `/search`'s, is ready at once ([`Answer::Now`]); `/mcp`'s comes
//! once the body has arrived ([`Answer::Later`]), in a boxed future of its
//! own, so that the common request's answer stays small.

use crate::activity::{Activity, Open};
use crate::client_class::Read;
use crate::errors::ErrorKind;
use crate::mcp::{self, Policy};
use crate::message;
use crate::negotiate::Coding;
use crate::respond::{self, Body, Selection};
use crate::route::{self, Endpoint};
use crate::search_page;
use crate::table::{Table, Tables};
use bytes::Bytes;
use http::request::Parts;
use http::{Request, Response};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// Answers requests from a table.
#[derive(Debug, Clone)]
pub struct Handler {
    /// The table answered from.
    pub tables: Tables,
    /// What `/mcp` is held to.
    pub mcp: Arc<Policy>,
}

/// A request answered.
pub struct Answered {
    /// The response.
    pub response: Response<Body>,
    /// The content coding of its body (identity when it has none).
    pub coding: Coding,
    /// What it is, as the metrics count what clients read.
    pub read: Read,
    /// The request, open until its response body is dropped.
    pub open: Open,
}

/// What [`Handler::answer`] gives.
pub enum Answer<L> {
    /// The answer, made at once.
    Now(Answered),
    /// `/mcp`: the answer once the request's body has arrived, boxed so
    /// that every answer stays as small as the common one: an answer is
    /// moved several times on its way to hyper, and a large one costs
    /// every request data-cache lines (`benches/README.md`, "The stack").
    Later(Pin<Box<L>>),
}

impl Handler {
    /// Answer `request`, counted open on `activity`.
    #[inline(always)]
    pub fn answer<B>(
        &self,
        request: Request<B>,
        activity: &Arc<Activity>,
    ) -> Answer<impl Future<Output = Answered> + Send + 'static>
    where
        B: http_body::Body<Data = Bytes> + Send + Unpin + 'static,
        B::Error: std::error::Error + Send + Sync + 'static,
    {
        let (request, body) = request.into_parts();
        let table = self.tables.current();
        if let Some(kind) = message::refusal(request.version, &request.headers) {
            return Answer::Now(refused(&table, kind, &request, activity));
        }
        let endpoint = route::endpoint(request.uri.path());
        if endpoint == Endpoint::Mcp {
            let mut open = Open::receiving(activity);
            let policy = Arc::clone(&self.mcp);
            return Answer::Later(Box::pin(async move {
                let response = mcp::serve(&table, &policy, &request, body, &mut open).await;
                Answered {
                    response,
                    coding: Coding::Identity,
                    read: Read::Mcp,
                    open,
                }
            }));
        }
        let open = Open::begin(activity);
        let (response, coding, read) = if endpoint == Endpoint::Search {
            // The one budget `/mcp` and `/search` hold their answers in.
            let (response, coding) = search_page::answer(
                &table,
                &self.mcp.budget,
                &request.method,
                &request.uri,
                &request.headers,
            );
            (response, coding, Read::Search)
        } else {
            let path = request.uri.path();
            let selection = respond::select(&table, &request.method, path, &request.headers);
            let read = what_was_read(path, &selection);
            (selection.into_response(), selection.coding(), read)
        };
        Answer::Now(Answered {
            response,
            coding,
            read,
            open,
        })
    }
}

/// The answer to a request refused before it is routed: the error `kind`
/// from the table. Out of line, as it is rare: [`Handler::answer`], inlined
/// into every connection's service, stays small.
#[cold]
#[inline(never)]
fn refused(table: &Table, kind: ErrorKind, request: &Parts, activity: &Arc<Activity>) -> Answered {
    let path = request.uri.path();
    let selection = respond::refused(table, kind, &request.method, path, &request.headers);
    Answered {
        coding: selection.coding(),
        read: what_was_read(path, &selection),
        response: selection.into_response(),
        open: Open::begin(activity),
    }
}

/// What a request for `path` answered with `selection` read.
fn what_was_read(path: &str, selection: &Selection) -> Read {
    selection
        .media_type()
        .map_or(Read::Other, |media_type| Read::of(path, media_type))
}

impl<L: Future<Output = Answered>> Answer<L> {
    /// The answer, waited for if it comes later.
    pub async fn answered(self) -> Answered {
        match self {
            Answer::Now(answered) => answered,
            Answer::Later(answering) => answering.await,
        }
    }
}
