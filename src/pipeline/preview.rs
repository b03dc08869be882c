//! Build stage 2c, for `refserve dev` only: every HTML page loads the
//! script that reloads it after an edit and shows content errors over it,
//! and its `Content-Security-Policy` allows that one script, from the same
//! origin. Production pages have neither: `inject` runs on the preview's
//! resources alone, after they are rendered like any others.

use crate::media::MediaType;
use crate::site::Resource;

/// Text escaped for HTML as the pages escape it: for the page `refserve
/// dev` shows before the content has rendered once.
pub use crate::render_html::escape as escape_html;

/// An ErrorResponse as the table's (`{"error":{"code","message","hint"}}`):
/// for what `refserve dev` answers before the content has rendered once.
pub use crate::render_json::error as error_response;

/// Where `refserve dev` serves the script.
pub const RELOAD_SCRIPT: &str = "/_refserve/reload.js";

/// Where `refserve dev` sends the events the script listens to.
pub const EVENTS: &str = "/_refserve/events";

/// The tag that loads the script, as it ends every preview page's body.
pub fn script_tag() -> String {
    format!("<script src=\"{RELOAD_SCRIPT}\"></script>")
}

/// Load the script on every HTML representation of `resources`, and let
/// their policy allow it.
pub(crate) fn inject<'r>(resources: impl IntoIterator<Item = &'r mut Resource>) {
    let tag = script_tag();
    let html = resources
        .into_iter()
        .flat_map(|resource| &mut resource.representations)
        .filter(|body| body.media == MediaType::HTML);
    for body in html {
        let end = body
            .bytes
            .windows(b"</body>".len())
            .rposition(|window| window == b"</body>")
            .unwrap_or(body.bytes.len());
        body.bytes.splice(end..end, tag.bytes());
        for (name, value) in &mut body.headers {
            if *name == "content-security-policy" {
                *value = value.replacen(
                    "default-src 'none'",
                    "default-src 'none'; script-src 'self'",
                    1,
                );
            }
        }
    }
}
