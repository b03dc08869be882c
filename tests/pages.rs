//! Pages for people and agents: negotiation of `/` and `/api/<key>`, the
//! Markdown twins, error pages, canonical redirects, CORS and discovery.

use crate::support::{shipped_methods, start_server};
use http::Method;

const BROWSER: &str =
    "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";

#[tokio::test]
async fn pages_negotiate_html_and_markdown() {
    let server = start_server().await;
    for path in ["/", "/api/select", "/api/info"] {
        for (accept, expected) in [
            ("", "text/html; charset=utf-8"),
            ("*/*", "text/html; charset=utf-8"),
            (BROWSER, "text/html; charset=utf-8"),
            ("text/markdown", "text/markdown; charset=utf-8"),
            (
                "text/markdown, text/html;q=0.5",
                "text/markdown; charset=utf-8",
            ),
            ("text/html, text/markdown;q=0.1", "text/html; charset=utf-8"),
            (
                "text/*;q=0.5, text/markdown",
                "text/markdown; charset=utf-8",
            ),
        ] {
            let headers: &[(&str, &str)] = if accept.is_empty() {
                &[]
            } else {
                &[("accept", accept)]
            };
            let reply = server.get(path, headers).await;
            assert_eq!(reply.status, 200, "{path} {accept}");
            assert_eq!(reply.header("content-type"), expected, "{path} {accept:?}");
            assert_eq!(reply.header("vary"), crate::support::PAGE_VARY, "{path}");
        }
    }
}

#[tokio::test]
async fn pages_refuse_what_they_cannot_offer() {
    let server = start_server().await;
    let reply = server.get("/", &[("accept", "image/png")]).await;
    assert_eq!(reply.status, 406);
    assert_eq!(reply.error_code(), "not_acceptable");
}

#[tokio::test]
async fn the_304_of_a_page_varies_on_accept_too() {
    let server = start_server().await;
    let markdown = server.get("/", &[("accept", "text/markdown")]).await;
    let reply = server
        .get(
            "/",
            &[
                ("accept", "text/markdown"),
                ("if-none-match", markdown.header("etag")),
            ],
        )
        .await;
    assert_eq!(reply.status, 304);
    assert_eq!(reply.header("vary"), crate::support::PAGE_VARY);
    let html = server
        .get("/", &[("if-none-match", markdown.header("etag"))])
        .await;
    assert_eq!(
        html.status, 200,
        "the Markdown ETag does not validate the HTML"
    );
}

#[tokio::test]
async fn markdown_twins_equal_the_negotiated_markdown() {
    let server = start_server().await;
    for (page, twin) in [
        ("/", "/index.md"),
        ("/api/select", "/api/select.md"),
        ("/api/raw", "/api/raw.md"),
    ] {
        let negotiated = server.get(page, &[("accept", "text/markdown")]).await;
        let direct = server.get(twin, &[]).await;
        assert_eq!(direct.status, 200, "{twin}");
        assert_eq!(
            direct.header("content-type"),
            "text/markdown; charset=utf-8"
        );
        assert_eq!(direct.decoded(), negotiated.decoded(), "{twin}");
        let tokens: usize = direct
            .header("x-markdown-tokens")
            .parse()
            .expect("a token count");
        assert!(tokens > 0 && tokens < direct.decoded().len(), "{tokens}");
    }
}

#[tokio::test]
async fn html_pages_link_their_markdown_twin_and_carry_security_headers() {
    let server = start_server().await;
    for (page, twin) in [("/", "/en/index.md"), ("/api/update", "/en/api/update.md")] {
        let reply = server.get(page, &[]).await;
        let html = String::from_utf8(reply.decoded()).expect("UTF-8");
        assert!(
            html.contains(&format!(
                "<link rel=\"alternate\" type=\"text/markdown\" href=\"{twin}\">"
            )),
            "{page}"
        );
        assert!(html.starts_with("<!doctype html>") && html.contains("<html lang=\"en\">"));
        assert_eq!(html.matches("<h1>").count(), 1, "{page}: one h1");
        assert!(
            !html.contains("<script") && !html.contains("src=\"http"),
            "{page}: self-contained"
        );
        let csp = reply.header("content-security-policy");
        assert!(
            csp.contains("default-src 'none'") && csp.contains("style-src 'sha256-"),
            "{csp}"
        );
        assert_eq!(reply.header("x-content-type-options"), "nosniff");
        assert_eq!(reply.header("referrer-policy"), "no-referrer");
    }
}

#[tokio::test]
async fn method_pages_show_every_fact() {
    let server = start_server().await;
    for fact in &crate::catalog_facts::FACTS {
        let reply = server.get(&format!("/api/{}.md", fact.key), &[]).await;
        let markdown = String::from_utf8(reply.decoded()).expect("UTF-8");
        assert!(markdown.starts_with(&format!("# {}\n", fact.key)));
        for signature in fact.signatures {
            assert!(markdown.contains(signature), "{}: {signature}", fact.key);
        }
        for label in fact.labels.iter().flat_map(|l| l.iter()) {
            let name = label.split(' ').next().unwrap_or_default();
            assert!(
                markdown.contains(&format!("| `${name}` |")),
                "{}: {label}",
                fact.key
            );
        }
        if let Some(ty) = fact.returns_type {
            let ty = ty.trim_matches(['[', ']']);
            assert!(
                markdown.contains(&format!("## Returns\n\n`{ty}`:")),
                "{}",
                fact.key
            );
        }
        assert_eq!(markdown.contains("## Note"), fact.has_note, "{}", fact.key);
        assert!(markdown.contains(&format!("(/api/reference/{}.json)", fact.key)));
    }
}

#[tokio::test]
async fn errors_on_page_urls_negotiate_like_the_page() {
    let server = start_server().await;
    let browser = server.get("/api/nope", &[("accept", BROWSER)]).await;
    assert_eq!(browser.status, 404);
    assert_eq!(browser.header("content-type"), "text/html; charset=utf-8");
    let html = String::from_utf8(browser.decoded()).expect("UTF-8");
    assert!(
        html.contains("not_found") && html.contains("href=\"/en/\""),
        "{html}"
    );

    let agent = server
        .get("/api/nope", &[("accept", "text/markdown")])
        .await;
    assert_eq!(agent.header("content-type"), "text/markdown; charset=utf-8");
    assert!(String::from_utf8(agent.decoded())
        .expect("UTF-8")
        .contains("`not_found`"));

    for accept in [None, Some("*/*")] {
        let headers: Vec<(&str, &str)> = accept.map(|a| ("accept", a)).into_iter().collect();
        let program = server.get("/api/nope", &headers).await;
        assert_eq!(program.error_code(), "not_found");
    }
    let json_url = server
        .get("/api/reference/nope.json", &[("accept", BROWSER)])
        .await;
    assert_eq!(
        json_url.error_code(),
        "reference_not_found",
        "JSON URLs keep JSON errors"
    );
}

#[tokio::test]
async fn page_urls_redirect_to_their_canonical_form() {
    let server = start_server().await;
    for (path, location) in [
        ("/api/select/", "/api/select"),
        ("/API/Select", "/api/select"),
        ("/Api/Update.MD", "/api/update.md"),
        ("/INDEX.md", "/index.md"),
        ("//", "/"),
    ] {
        let reply = server.get(path, &[]).await;
        assert_eq!(reply.status, 308, "{path}");
        assert_eq!(reply.header("location"), location, "{path}");
    }
    let reply = server.get("/API/reference.json", &[]).await;
    assert_eq!(reply.status, 404, "JSON documents are not redirected");
    let reply = server.get("/Robots.txt", &[]).await;
    assert_eq!(reply.status, 404, "only pages are redirected");
}

#[tokio::test]
async fn cors_allows_any_origin_to_read() {
    let server = start_server().await;
    for path in ["/api/reference.json", "/", "/nope", "/openapi.json"] {
        let reply = server.get(path, &[("origin", "https://example.org")]).await;
        assert_eq!(reply.header("access-control-allow-origin"), "*", "{path}");
    }
    let preflight = server
        .request(
            Method::OPTIONS,
            "/api/reference/select.json",
            &[
                ("origin", "https://example.org"),
                ("access-control-request-method", "GET"),
            ],
        )
        .await;
    assert_eq!(preflight.status, 204);
    assert_eq!(preflight.header("access-control-allow-origin"), "*");
    assert!(preflight
        .header("access-control-allow-methods")
        .contains("GET"));
    assert!(!preflight.header("access-control-max-age").is_empty());
}

#[tokio::test]
async fn discovery_links() {
    let server = start_server().await;
    let base = &refserve::table::production().base_url;
    let json = server.get("/api/reference/select.json", &[]).await;
    assert_eq!(
        json.header("link"),
        format!("<{base}/openapi.json>; rel=\"service-desc\"")
    );
    let home = server.get("/", &[]).await;
    let links = home.links();
    // Its language's own (the homepage without a language is English's).
    assert!(
        links.iter().any(|l| l.contains("</en/llms.txt>")),
        "{links:?}"
    );

    let catalog = server.get("/.well-known/api-catalog", &[]).await;
    assert!(catalog
        .header("content-type")
        .starts_with("application/linkset+json"));
    let linkset = catalog.json();
    let text = linkset.to_string();
    assert!(
        text.contains("service-desc") && text.contains(&format!("{base}/openapi.json")),
        "{text}"
    );
    assert!(text.contains("service-doc"), "{text}");
}

#[tokio::test]
async fn robots_and_sitemap() {
    let server = start_server().await;
    let base = &refserve::table::production().base_url;
    let robots = String::from_utf8(server.get("/robots.txt", &[]).await.decoded()).expect("UTF-8");
    assert!(
        robots.contains("User-agent: *")
            && robots.contains(&format!("Sitemap: {base}/sitemap.xml"))
    );
    let sitemap = server.get("/sitemap.xml", &[]).await;
    assert_eq!(sitemap.header("content-type"), "application/xml");
    let xml = String::from_utf8(sitemap.decoded()).expect("UTF-8");
    let languages = refserve::table::production().languages.len();
    assert_eq!(
        xml.matches("<loc>").count(),
        languages * (2 + shipped_methods().len()),
        "the homepage, the method index and every method page, in each language"
    );
    assert!(xml.contains(&format!("<loc>{base}/en/api/</loc>")));
    assert!(xml.contains(&format!(
        "<url><loc>{base}/zh-hans/api/select</loc><lastmod>"
    )));
    assert!(xml.contains(&format!(
        "<xhtml:link rel=\"alternate\" hreflang=\"zh-Hans\" href=\"{base}/zh-hans/api/select\"/>\
         <xhtml:link rel=\"alternate\" hreflang=\"x-default\" href=\"{base}/api/select\"/></url>"
    )));
}

#[tokio::test]
async fn llms_txt_lists_every_markdown_page() {
    let server = start_server().await;
    let base = &refserve::table::production().base_url;
    let llms = String::from_utf8(server.get("/llms.txt", &[]).await.decoded()).expect("UTF-8");
    assert!(
        llms.starts_with("# ") && llms.contains("\n> "),
        "H1 and a blockquote summary"
    );
    for key in refserve::table::production().keys.iter() {
        assert!(llms.contains(&format!("]({base}/api/{key}.md)")), "{key}");
    }
    assert!(
        llms.contains(&format!("{base}/openapi.json"))
            && llms.contains(&format!("{base}/llms-full.txt"))
    );
    let full = String::from_utf8(server.get("/llms-full.txt", &[]).await.decoded()).expect("UTF-8");
    for key in refserve::table::production().keys.iter() {
        assert!(full.contains(&format!("\n## {key}\n")), "{key}");
    }
}
