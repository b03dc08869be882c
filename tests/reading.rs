//! What a reader meets on the pages: examples in every representation (and
//! valid PHP), highlighting with readable colours, navigation between
//! methods, sections that link to themselves, the method index, the icon.

use crate::support::{shipped_methods, start_server, system_tool, Scratch};

/// Every method's key, from the JSON collection.
async fn keys(server: &crate::support::Server) -> Vec<String> {
    let json = server.get("/api/reference.json", &[]).await.json();
    json["data"]
        .as_array()
        .expect("data")
        .iter()
        .map(|e| e["key"].as_str().expect("a key").to_string())
        .collect()
}

#[tokio::test]
async fn every_method_has_examples_in_every_representation() {
    let server = start_server().await;
    let full = String::from_utf8(server.get("/llms-full.txt", &[]).await.decoded()).expect("UTF-8");
    for key in keys(&server).await {
        let json = server
            .get(&format!("/api/reference/{key}.json"), &[])
            .await
            .json();
        let examples = json["data"]["examples"].as_array().expect("examples");
        assert!(!examples.is_empty(), "{key}");
        let html = String::from_utf8(server.get(&format!("/api/{key}"), &[]).await.decoded())
            .expect("UTF-8");
        let markdown =
            String::from_utf8(server.get(&format!("/api/{key}.md"), &[]).await.decoded())
                .expect("UTF-8");
        assert!(html.contains("<h2 id=\"examples\">"), "{key}");
        for example in examples {
            let title = example["title"].as_str().expect("a title");
            let code = example["code"].as_str().expect("code");
            assert!(
                markdown.contains(&format!("### {title}\n\n```php\n{code}\n```")),
                "{key}: {title}"
            );
            assert!(
                full.contains(&format!("```php\n{code}\n```")),
                "{key}: {title}"
            );
            assert!(
                html.contains(&format!(">{title}</a></h3>")),
                "{key}: {title}"
            );
        }
        assert_eq!(
            html.matches("<pre><code class=\"language-php\">").count(),
            examples.len() + 1,
            "{key}: the signatures and each example, highlighted"
        );
    }
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn every_example_is_valid_php() {
    let server = start_server().await;
    let scratch = Scratch::new("php");
    let json = server.get("/api/reference.json", &[]).await.json();
    let mut checked = 0;
    for entry in json["data"].as_array().expect("data") {
        for (i, example) in entry["examples"]
            .as_array()
            .expect("examples")
            .iter()
            .enumerate()
        {
            let code = example["code"].as_str().expect("code");
            let file = scratch.write(
                &format!("{}-{i}.php", entry["key"].as_str().expect("a key")),
                format!("<?php\n{code}\n"),
            );
            let output = std::process::Command::new(system_tool("php"))
                .arg("-l")
                .arg(&file)
                .output()
                .expect("php runs");
            assert!(
                output.status.success(),
                "{}\n{code}\n{}",
                file.display(),
                String::from_utf8_lossy(&output.stdout)
            );
            checked += 1;
        }
    }
    assert!(checked >= shipped_methods().len(), "{checked}");
}

/// The relative luminance of `#rrggbb` (WCAG 2.2).
fn luminance(hex: &str) -> f64 {
    let channel = |i: usize| {
        let c = f64::from(u8::from_str_radix(&hex[i..i + 2], 16).expect("hex")) / 255.0;
        if c <= 0.039_28 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5)
}

/// The value of `--name:#rrggbb` in `css`, from `from` on.
fn colour<'c>(css: &'c str, from: usize, name: &str) -> &'c str {
    let at = css[from..].find(&format!("--{name}:")).expect(name) + from + name.len() + 3;
    &css[at..at + 7]
}

#[tokio::test]
async fn highlighting_colours_meet_wcag_aa_in_both_schemes() {
    let server = start_server().await;
    let html = String::from_utf8(server.get("/api/update", &[]).await.decoded()).expect("UTF-8");
    let dark = html
        .find("prefers-color-scheme:dark")
        .expect("a dark scheme");
    for from in [0, dark] {
        let background = luminance(colour(&html, from, "code"));
        for class in ["c", "s", "n", "v", "f", "k"] {
            let foreground = luminance(colour(&html, from, &format!("hl-{class}")));
            let (light, dark) = if foreground > background {
                (foreground, background)
            } else {
                (background, foreground)
            };
            let ratio = (light + 0.05) / (dark + 0.05);
            assert!(ratio >= 4.5, "hl-{class} at {from}: {ratio:.2}");
        }
    }
    for class in ["v", "f", "s", "k", "n"] {
        assert!(
            html.contains(&format!("<span class=\"{class}\">")),
            "{class} used"
        );
    }
}

#[tokio::test]
async fn method_pages_list_every_method_and_mark_their_own() {
    let server = start_server().await;
    let keys = keys(&server).await;
    for key in ["select", "info"] {
        let html = String::from_utf8(server.get(&format!("/api/{key}"), &[]).await.decoded())
            .expect("UTF-8");
        let nav = &html[html.find("<nav class=\"methods\"").expect("a methods nav")..];
        let nav = &nav[..nav.find("</nav>").expect("closed")];
        for other in &keys {
            assert!(
                nav.contains(&format!("href=\"/en/api/{other}\"")),
                "{key}: {other}"
            );
        }
        assert_eq!(nav.matches("aria-current").count(), 1);
        assert!(nav.contains(&format!("href=\"/en/api/{key}\" aria-current=\"page\"")));
        // The list comes after the content, so a phone shows the content first.
        assert!(
            html.find("<main").expect("main") < html.find("<nav class=\"methods\"").expect("nav")
        );
    }
}

#[tokio::test]
async fn every_section_heading_links_to_itself() {
    let server = start_server().await;
    for path in ["/", "/api/", "/api/select"] {
        let html = String::from_utf8(server.get(path, &[]).await.decoded()).expect("UTF-8");
        let mut ids = Vec::new();
        for level in ["<h2", "<h3"] {
            for (at, _) in html.match_indices(level) {
                let tag = &html[at..];
                let id = tag
                    .strip_prefix(&format!("{level} id=\""))
                    .and_then(|rest| rest.split('"').next())
                    .unwrap_or_else(|| panic!("{path}: a heading without an id: {}", &tag[..40]));
                let end = tag.find("</h").expect("closed");
                assert!(
                    tag[..end].contains(&format!("<a class=\"here\" href=\"#{id}\">")),
                    "{path}: {id}"
                );
                ids.push(id.to_string());
            }
        }
        let count = ids.len();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), count, "{path}: ids are unique");
        assert!(count >= 3, "{path}");
    }
}

#[tokio::test]
async fn the_method_index_lists_every_method() {
    let server = start_server().await;
    let redirect = server.get("/api", &[]).await;
    assert_eq!(redirect.status, 308);
    assert_eq!(redirect.header("location"), "/api/");
    let html = String::from_utf8(server.get("/api/", &[]).await.decoded()).expect("UTF-8");
    let markdown =
        String::from_utf8(server.get("/api/index.md", &[]).await.decoded()).expect("UTF-8");
    for key in keys(&server).await {
        assert!(
            html.contains(&format!(
                "<a href=\"/en/api/{key}\"><code>{key}</code></a>: "
            )),
            "{key}"
        );
        assert!(
            markdown.contains(&format!("- [`{key}`](/en/api/{key}): ")),
            "{key}"
        );
    }
    assert!(
        html.contains("<link rel=\"alternate\" type=\"text/markdown\" href=\"/en/api/index.md\">")
    );
}

#[tokio::test]
async fn the_icon_is_served_and_declared() {
    let server = start_server().await;
    let ico = server.get("/favicon.ico", &[]).await;
    assert_eq!(ico.status, 200);
    assert_eq!(ico.header("content-type"), "image/vnd.microsoft.icon");
    let bytes = ico.decoded();
    assert_eq!(&bytes[..6], &[0, 0, 1, 0, 1, 0], "an ICO with one image");
    assert_eq!(bytes.len(), 22 + 40 + 32 * 32 * 4 + 32 * 4);
    let svg = server.get("/favicon.svg", &[]).await;
    assert_eq!(svg.header("content-type"), "image/svg+xml");
    assert!(String::from_utf8(svg.decoded())
        .expect("UTF-8")
        .starts_with("<svg "));
    for path in ["/", "/api/", "/api/select", "/nope"] {
        let html = String::from_utf8(server.get(path, &[("accept", "text/html")]).await.decoded())
            .expect("UTF-8");
        assert!(
            html.contains("<link rel=\"icon\" href=\"/favicon.svg\" type=\"image/svg+xml\">"),
            "{path}"
        );
    }
}

#[tokio::test]
async fn a_mistyped_method_page_links_the_method_meant() {
    let server = start_server().await;
    let html = server.get("/api/selct", &[("accept", "text/html")]).await;
    assert_eq!(html.status, 404);
    let text = String::from_utf8(html.decoded()).expect("UTF-8");
    assert!(
        text.contains("Did you mean <a href=\"/en/api/select\"><code>select</code></a>?"),
        "{text}"
    );
    let markdown = server
        .get("/API/Updte.md", &[("accept", "text/markdown")])
        .await;
    assert_eq!(markdown.status, 404);
    let text = String::from_utf8(markdown.decoded()).expect("UTF-8");
    assert!(
        text.contains("Did you mean [`update`](/en/api/update)?"),
        "{text}"
    );
    // Programs get the ErrorResponse, its hint as for any unknown path.
    let json = server.get("/api/selct", &[]).await;
    assert_eq!(json.error_code(), "not_found");
    assert_eq!(json.hint(), server.get("/nope", &[]).await.hint());
    // Nothing close: no suggestion.
    let far = server.get("/api/zzzzzz", &[("accept", "text/html")]).await;
    assert!(!String::from_utf8(far.decoded())
        .expect("UTF-8")
        .contains("Did you mean"));
}
