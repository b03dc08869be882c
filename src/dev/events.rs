//! The open pages' event streams (Server-Sent Events): `reload` after a
//! good render, `invalid` with a content error, and a keep-alive comment
//! that finds the pages that have gone. Each page's stream is a channel
//! the preview tells (`Preview::subscribe`).

use crate::Preview;
use bytes::Bytes;
use std::sync::Arc;
use std::time::Duration;

/// How often every open page's event stream is written to, to notice
/// the closed ones (more often with a `--send-timeout` under twice it).
const KEEP_ALIVE: Duration = Duration::from_secs(5);

/// Every [`KEEP_ALIVE`], a comment to every open page: a page closed
/// without a word (a tab killed) is noticed when the write fails, and the
/// count of pages a change reaches stays true. The writes are the event
/// streams' progress, so they come at least twice per send timeout.
pub(crate) async fn keep_alive(preview: Arc<Preview>) {
    let mut ticks = tokio::time::interval(KEEP_ALIVE.min(preview.limits.send_timeout / 2));
    loop {
        ticks.tick().await;
        preview.tell(&Bytes::from_static(b": keep-alive\n\n"));
    }
}

/// A Server-Sent Event named `name` carrying `data`, one `data:` line per
/// line of it.
pub(crate) fn event(name: &str, data: &str) -> Bytes {
    let mut text = format!("event: {name}\n");
    for line in data.split('\n') {
        text.push_str("data: ");
        text.push_str(line);
        text.push('\n');
    }
    text.push('\n');
    text.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_carry_every_line() {
        assert_eq!(event("reload", ""), "event: reload\ndata: \n\n");
        assert_eq!(
            event("invalid", "a.json: field `x`:\nbad"),
            "event: invalid\ndata: a.json: field `x`:\ndata: bad\n\n"
        );
    }
}
