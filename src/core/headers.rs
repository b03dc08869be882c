//! Header values that do not depend on the resource, as text. build.rs
//! writes them into every variant's header list; `respond` sends the
//! redirect and preflight ones itself.

/// `Allow`: the methods every resource allows.
pub const ALLOW: &str = "GET, HEAD, OPTIONS";

/// `X-Content-Type-Options`: take `Content-Type` at its word.
pub const NOSNIFF: &str = "nosniff";

/// CORS (Fetch standard): a public, read-only API, readable from any
/// origin without credentials.
pub const ANY_ORIGIN: &str = "*";
/// The request headers a preflight may announce: any.
pub const ANY_HEADERS: &str = "*";
/// The response headers a cross-origin script may read.
pub const EXPOSED: &str = "ETag, Link, X-Markdown-Tokens";
/// How long a browser may keep a preflight's answer, in seconds.
pub const PREFLIGHT_MAX_AGE: &str = "86400";

/// `Cache-Control` of a redirect to a canonical URL: it changes only with a deploy.
pub const REDIRECT_CACHE_CONTROL: &str = "public, max-age=3600";
