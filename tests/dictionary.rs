//! Compression dictionary transport (RFC 9842) over real HTTP: the
//! dictionary and its headers, the pages that name it, and the `dcb` and
//! `dcz` bodies a client holding it is sent, decoded and compared with the
//! identity body.

use crate::support::{available_dictionary, served_dictionary, start_server, Reply, Server};

/// What Chromium sends on a navigation once it holds a dictionary.
const ACCEPT: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7";
const ACCEPT_ENCODING: &str = "gzip, deflate, br, zstd, dcb, dcz";

/// Every page compressed against the dictionary: `/`, `/api/` and the
/// method pages.
fn pages() -> Vec<String> {
    let mut pages = vec!["/".to_string(), "/api/".to_string()];
    pages.extend(
        refserve::table::production()
            .keys
            .iter()
            .map(|key| format!("/api/{key}")),
    );
    pages
}

fn dictionary() -> &'static refserve::table::Dictionary {
    &refserve::table::production().dictionaries[0]
}

/// A navigation to `path` from a client holding the dictionary, with
/// `accept_encoding` and the extra headers.
async fn navigate(
    server: &Server,
    path: &str,
    accept_encoding: &str,
    extra: &[(&str, &str)],
) -> Reply {
    let available = available_dictionary();
    let mut headers = vec![
        ("accept", ACCEPT),
        ("accept-encoding", accept_encoding),
        ("available-dictionary", available.as_str()),
    ];
    headers.extend_from_slice(extra);
    server.get(path, &headers).await
}

#[tokio::test]
async fn the_dictionary_is_served_with_its_matching_rules() {
    let server = start_server().await;
    let reply = server
        .get(&dictionary().path, &[("accept-encoding", "br")])
        .await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.decoded(), served_dictionary());
    assert_eq!(
        reply.header("use-as-dictionary"),
        "match=\"/*\", match-dest=(\"document\")",
        "no id: the hash alone names the dictionary"
    );
    assert_eq!(
        reply.header("cache-control"),
        "public, max-age=31536000, immutable"
    );
    assert_eq!(reply.header("content-type"), "application/octet-stream");
    // The table's hash is that of the bytes served, and the address starts
    // with it, so a new dictionary gets a new address.
    use sha2::Digest;
    assert_eq!(sha2::Sha256::digest(reply.decoded())[..], dictionary().hash);
    let hex: String = dictionary().hash[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(dictionary().path, format!("/dictionaries/{hex}"));
}

#[tokio::test]
async fn every_html_page_names_the_dictionary() {
    let server = start_server().await;
    let link = format!("<{}>; rel=\"compression-dictionary\"", dictionary().path);
    for path in pages().iter().map(String::as_str).chain(["/api/selct"]) {
        let reply = server.get(path, &[("accept", ACCEPT)]).await;
        let links = reply.links();
        assert!(links.contains(&link), "{path}: {links:?}");
    }
    let json = server
        .get("/api/select", &[("accept", "application/json")])
        .await;
    assert!(!json.header("link").contains("compression-dictionary"));
}

#[tokio::test]
async fn a_client_holding_the_dictionary_gets_every_page_dictionary_compressed() {
    let server = start_server().await;
    for path in pages() {
        let plain = server.get(&path, &[("accept", ACCEPT)]).await;
        let br = server
            .get(
                &path,
                &[("accept", ACCEPT), ("accept-encoding", ACCEPT_ENCODING)],
            )
            .await;
        let reply = navigate(&server, &path, ACCEPT_ENCODING, &[]).await;
        assert_eq!(reply.status, 200, "{path}");
        let coding = reply.header("content-encoding");
        assert!(matches!(coding, "dcb" | "dcz"), "{path}: {coding}");
        assert!(reply.body.len() < br.body.len(), "{path}: smaller than br");
        assert_eq!(reply.decoded(), plain.body, "{path}");
        assert_eq!(reply.header("vary"), crate::support::PAGE_VARY, "{path}");
        assert_eq!(br.header("vary"), reply.header("vary"), "one Vary per URL");
        assert_ne!(reply.header("etag"), br.header("etag"), "{path}");
        assert!(reply.header("etag").ends_with(&format!("-{coding}\"")));
    }
}

#[tokio::test]
async fn each_dictionary_coding_decodes_to_the_identity_body() {
    let server = start_server().await;
    for path in ["/", "/api/select", "/api/info"] {
        let plain = server.get(path, &[("accept", ACCEPT)]).await;
        for coding in ["dcb", "dcz"] {
            let reply = navigate(&server, path, coding, &[]).await;
            assert_eq!(reply.header("content-encoding"), coding, "{path}");
            assert_eq!(reply.decoded(), plain.body, "{path} {coding}");
        }
    }
}

#[tokio::test]
async fn revalidating_a_dictionary_compressed_body_gives_304() {
    let server = start_server().await;
    let first = navigate(&server, "/api/select", ACCEPT_ENCODING, &[]).await;
    let etag = first.header("etag").to_string();
    let again = navigate(
        &server,
        "/api/select",
        ACCEPT_ENCODING,
        &[("if-none-match", &etag)],
    )
    .await;
    assert_eq!(again.status, 304);
    assert_eq!(again.header("etag"), etag);
    assert_eq!(again.header("vary"), first.header("vary"));
    // Without the dictionary the same tag names nothing the client can get.
    let other = server
        .get(
            "/api/select",
            &[
                ("accept", ACCEPT),
                ("accept-encoding", ACCEPT_ENCODING),
                ("if-none-match", &etag),
            ],
        )
        .await;
    assert_eq!(other.status, 200);
    assert_eq!(other.header("content-encoding"), "br");
}

#[tokio::test]
async fn dictionary_codings_need_their_name_and_the_dictionary() {
    let server = start_server().await;
    let available = available_dictionary();
    let other_hash = format!(":{}:", crate::support::base64(&[7; 32]));
    let any_id = "\"some-id\"".to_string();
    for (accept_encoding, available, dictionary_id, expected) in [
        // The codings must be named; `*` does not name them.
        ("gzip, deflate, br, zstd", Some(&available), None, "br"),
        ("*", Some(&available), None, "br"),
        ("br, dcb;q=0, dcz", Some(&available), None, "dcz"),
        ("br, dcb, dcz;q=0", Some(&available), None, "dcb"),
        ("dcb;q=0.5, br", Some(&available), None, "br"),
        // The dictionary must be the one held, by hash.
        (ACCEPT_ENCODING, None, None, "br"),
        (ACCEPT_ENCODING, Some(&other_hash), None, "br"),
        (ACCEPT_ENCODING, Some(&available), None, "dc"),
        // A `Dictionary-ID` changes nothing: the server gave no id.
        (ACCEPT_ENCODING, Some(&available), Some(&any_id), "dc"),
        (ACCEPT_ENCODING, Some(&other_hash), Some(&any_id), "br"),
    ] {
        let mut headers = vec![("accept", ACCEPT), ("accept-encoding", accept_encoding)];
        if let Some(value) = available {
            headers.push(("available-dictionary", value.as_str()));
        }
        if let Some(value) = dictionary_id {
            headers.push(("dictionary-id", value.as_str()));
        }
        let reply = server.get("/api/select", &headers).await;
        assert_eq!(reply.status, 200);
        assert!(
            reply.header("content-encoding").starts_with(expected),
            "{accept_encoding} {available:?} {dictionary_id:?}: {}",
            reply.header("content-encoding")
        );
        reply.decoded();
    }
}

#[tokio::test]
async fn a_malformed_available_dictionary_is_ignored() {
    let server = start_server().await;
    let available = available_dictionary();
    let unpadded = available.replace('=', "");
    for value in [
        "",
        ":",
        "::",
        "not a byte sequence",
        ":!!!!:",
        &available[1..],
        &available[..available.len() - 1],
        ":AAAA:",
        "?1",
        "\"a string\"",
    ] {
        let reply = navigate_with(&server, value).await;
        assert_eq!(reply.status, 200, "{value:?}");
        assert_eq!(reply.header("content-encoding"), "br", "{value:?}");
    }
    // Two lines of it make no single byte sequence either.
    let reply = server
        .get(
            "/api/select",
            &[
                ("accept", ACCEPT),
                ("accept-encoding", ACCEPT_ENCODING),
                ("available-dictionary", &available),
                ("available-dictionary", &available),
            ],
        )
        .await;
    assert_eq!(reply.header("content-encoding"), "br");
    // RFC 8941 lets a parser accept a byte sequence without its padding.
    let reply = navigate_with(&server, &unpadded).await;
    assert!(reply.header("content-encoding").starts_with("dc"));
}

async fn navigate_with(server: &Server, available: &str) -> Reply {
    server
        .get(
            "/api/select",
            &[
                ("accept", ACCEPT),
                ("accept-encoding", ACCEPT_ENCODING),
                ("available-dictionary", available),
            ],
        )
        .await
}

#[tokio::test]
async fn other_representations_and_resources_are_not_dictionary_compressed() {
    let server = start_server().await;
    let available = available_dictionary();
    for (path, accept) in [
        ("/api/select", "text/markdown"),
        ("/api/reference/select.json", ACCEPT),
        ("/api/select.md", ACCEPT),
        ("/llms.txt", ACCEPT),
        ("/api/reference.json", ACCEPT),
    ] {
        let reply = server
            .get(
                path,
                &[
                    ("accept", accept),
                    ("accept-encoding", ACCEPT_ENCODING),
                    ("available-dictionary", &available),
                ],
            )
            .await;
        assert_eq!(reply.status, 200, "{path} {accept}");
        assert_eq!(reply.header("content-encoding"), "br", "{path} {accept}");
        // One Vary per URL: `/api/select` has dictionary-compressed HTML.
        assert_eq!(
            reply.header("vary").contains("Available-Dictionary"),
            path == "/api/select",
            "{path} {accept}"
        );
    }
}
