//! The HTTP/1 request message's own rules (RFC 9112) that hyper lets
//! through, checked before a request is routed, whatever its path (`/mcp`,
//! whose bodies are read, above all):
//!
//! - **`Transfer-Encoding`** (§6.1). hyper reads a body as chunked when the
//!   field's last coding is `chunked` and refuses (400) one whose last
//!   coding is another; the codings before it (`gzip, chunked`) it passes
//!   over, so such a body would be read as if they were not there.
//!   refserve decodes no transfer coding but `chunked`, applied once: a
//!   request that names anything else gets 501.
//! - **`Host`** (§3.2). hyper takes a request without one, or with
//!   several. An HTTP/1.1 request must carry exactly one; an HTTP/1.0
//!   request may carry none, but not several. Otherwise 400.
//!
//! Both answers close the connection ([`ErrorKind::closes_connection`]):
//! what follows such a request cannot be told apart from its body, or
//! comes from a client that does not speak HTTP/1.1.
//!
//! HTTP/2 requests pass: h2 refuses `Transfer-Encoding` itself (a
//! malformed request, RFC 9113 §8.2.2), and a request names its authority
//! in `:authority`, so hyper hands the handler none in `Host`.
//!
//! A common request pays one pass over its fields, no lookup: cheaper
//! than the two hashed lookups it replaced (`benches/README.md`, issue 40).

use crate::errors::ErrorKind;
use http::header::{HeaderMap, HeaderValue, HOST, TRANSFER_ENCODING};
use http::Version;

/// Why a request with `version` and `headers` is answered with an error
/// before it is routed; `None` for a request that may be.
#[inline(always)]
pub(crate) fn refusal(version: Version, headers: &HeaderMap) -> Option<ErrorKind> {
    if version >= Version::HTTP_2 {
        return None;
    }
    // Whether `Transfer-Encoding` is there, and how many `Host` lines.
    let (mut codings, mut hosts) = (false, 0u8);
    for (name, _) in headers {
        if name == HOST {
            hosts = hosts.saturating_add(1);
        } else if name == TRANSFER_ENCODING {
            codings = true;
        }
    }
    if codings && !chunked_once(headers.get_all(TRANSFER_ENCODING).iter()) {
        return Some(ErrorKind::UnsupportedTransferCoding);
    }
    match hosts {
        1 => None,
        0 if version < Version::HTTP_11 => None,
        _ => Some(ErrorKind::BadHost),
    }
}

/// Whether the `Transfer-Encoding` lines name one coding, `chunked` (any
/// case, RFC 9112 §7), and nothing else. Empty list members are passed
/// over (RFC 9110 §5.6.1); a coding with parameters is another coding.
fn chunked_once<'a>(lines: impl Iterator<Item = &'a HeaderValue>) -> bool {
    let mut codings = lines
        .flat_map(|line| line.as_bytes().split(|&b| b == b','))
        .map(<[u8]>::trim_ascii)
        .filter(|coding| !coding.is_empty());
    matches!(
        (codings.next(), codings.next()),
        (Some(coding), None) if coding.eq_ignore_ascii_case(b"chunked")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(version: Version, headers: &[(&str, &str)]) -> Option<ErrorKind> {
        let mut map = HeaderMap::new();
        for (name, value) in headers {
            let name = http::header::HeaderName::from_bytes(name.as_bytes()).expect("a name");
            map.append(name, HeaderValue::from_str(value).expect("a value"));
        }
        refusal(version, &map)
    }

    #[test]
    fn chunked_alone_is_read_and_any_other_coding_is_not() {
        for codings in [
            &["chunked"][..],
            &["Chunked"],
            &[" chunked , "],
            &["", "chunked"],
        ] {
            let mut headers: Vec<(&str, &str)> = vec![("host", "x")];
            headers.extend(codings.iter().map(|coding| ("transfer-encoding", *coding)));
            assert_eq!(refused(Version::HTTP_11, &headers), None, "{codings:?}");
        }
        for codings in [
            &["gzip, chunked"][..],
            &["gzip", "chunked"],
            &["chunked, chunked"],
            &["chunked;x=1"],
            &["identity"],
            &[""],
        ] {
            let mut headers: Vec<(&str, &str)> = vec![("host", "x")];
            headers.extend(codings.iter().map(|coding| ("transfer-encoding", *coding)));
            assert_eq!(
                refused(Version::HTTP_11, &headers),
                Some(ErrorKind::UnsupportedTransferCoding),
                "{codings:?}"
            );
        }
    }

    #[test]
    fn http_1_1_needs_one_host_and_http_1_0_at_most_one() {
        let one: &[(&str, &str)] = &[("host", "x")];
        let two: &[(&str, &str)] = &[("host", "x"), ("host", "y")];
        assert_eq!(refused(Version::HTTP_11, one), None);
        assert_eq!(refused(Version::HTTP_11, &[]), Some(ErrorKind::BadHost));
        assert_eq!(refused(Version::HTTP_11, two), Some(ErrorKind::BadHost));
        assert_eq!(refused(Version::HTTP_10, &[]), None);
        assert_eq!(refused(Version::HTTP_10, one), None);
        assert_eq!(refused(Version::HTTP_10, two), Some(ErrorKind::BadHost));
    }

    #[test]
    fn http_2_requests_pass() {
        assert_eq!(refused(Version::HTTP_2, &[]), None);
    }
}
