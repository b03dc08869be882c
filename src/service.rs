//! The bare hyper service: a request in, the one handler's response out
//! ([`Handler::answer`](refserve_server::handler::Handler::answer)), from
//! the production table, `/mcp` included. The fuzz target `service` and
//! `benches/shapes.rs` serve with it. The server answers through the same
//! handler, plus what a connection adds (HSTS, `Connection: close` in a
//! drain, metrics, the access log, timeouts).

use crate::respond::Body;
use crate::table::{production, Tables};
use bytes::Bytes;
use http::{Request, Response};
use refserve_server::activity::Activity;
use refserve_server::config::Config;
use refserve_server::handler::Handler;
use refserve_server::mcp::{Origins, Policy};
use std::convert::Infallible;
use std::sync::{Arc, LazyLock};

/// Answer one request from the production table, under the default
/// limits.
pub async fn serve<B>(request: Request<B>) -> Result<Response<Body>, Infallible>
where
    B: http_body::Body<Data = Bytes> + Send + Unpin + 'static,
    B::Error: std::error::Error + Send + Sync + 'static,
{
    static HANDLER: LazyLock<Handler> = LazyLock::new(|| Handler {
        tables: Tables::Fixed(production()),
        mcp: Policy::new(&Config::default(), Origins::default()),
    });
    // One for every request: this service tracks no connection.
    static ACTIVITY: LazyLock<Arc<Activity>> =
        LazyLock::new(|| Arc::new(Activity::new(None, false)));
    let answered = HANDLER.answer(request, &ACTIVITY).answered().await;
    Ok(answered.response)
}
