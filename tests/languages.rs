//! The site in more than one language: every page at a fixed address per
//! language (`/zh-hans/api/select`) and at one that negotiates it from
//! `Accept-Language` (`/api/select`); the JSON Reference in English
//! whatever is asked; translations checked against their source, saying
//! when they fall behind; and a language added as a folder of content.

use crate::support::{content_copy, start_server, Scratch};
use http_body_util::BodyExt;
use refserve_pipeline::content;

/// A browser's `Accept` for a page.
const BROWSER: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

#[tokio::test]
async fn each_language_has_its_own_addresses_and_says_so() {
    let server = start_server().await;
    for (path, language) in [
        ("/zh-hans/", "zh-Hans"),
        ("/zh-hans/api/select", "zh-Hans"),
        ("/en/api/select", "en"),
        ("/zh-hans/api/", "zh-Hans"),
    ] {
        let reply = server.get(path, &[("accept", BROWSER)]).await;
        assert_eq!(reply.status, 200, "{path}");
        assert_eq!(reply.header("content-language"), language, "{path}");
        assert_eq!(
            reply.header("vary"),
            crate::support::FIXED_PAGE_VARY,
            "{path}: a fixed address does not vary on Accept-Language"
        );
        let html = String::from_utf8(reply.decoded()).expect("UTF-8");
        assert!(
            html.contains(&format!("<html lang=\"{language}\">")),
            "{path}"
        );
    }
    let select =
        String::from_utf8(server.get("/zh-hans/api/select", &[]).await.decoded()).expect("UTF-8");
    let base = &refserve::table::production().base_url;
    for link in [
        format!("<link rel=\"canonical\" href=\"{base}/zh-hans/api/select\">"),
        format!("<link rel=\"alternate\" hreflang=\"en\" href=\"{base}/en/api/select\">"),
        format!("<link rel=\"alternate\" hreflang=\"zh-Hans\" href=\"{base}/zh-hans/api/select\">"),
        format!("<link rel=\"alternate\" hreflang=\"x-default\" href=\"{base}/api/select\">"),
    ] {
        assert!(select.contains(&link), "{link}");
    }
    // In Chinese: the chrome, the text, links that stay in the language.
    for text in [
        "从数据表中读取行",
        "<h2 id=\"参数\">",
        "href=\"/zh-hans/api/insert\"",
        "action=\"/zh-hans/search\"",
        "<a href=\"/en/api/select\" hreflang=\"en\" lang=\"en\">English</a>",
    ] {
        assert!(select.contains(text), "{text}");
    }
}

#[tokio::test]
async fn the_unprefixed_address_negotiates_the_language() {
    let server = start_server().await;
    for (accept_language, language) in [
        ("zh-CN,zh;q=0.9", "zh-Hans"),
        ("zh", "zh-Hans"),
        ("zh-SG", "zh-Hans"),
        ("zh-Hans-CN", "zh-Hans"),
        ("en-US,en;q=0.9,zh-CN;q=0.8", "en"),
        ("de", "en"),
        ("zh-TW", "en"),
        ("zh-HK,en;q=0.5", "en"),
        ("*", "en"),
        ("en;q=0, *;q=0.5", "zh-Hans"),
        (";;;", "en"),
        ("", "en"),
    ] {
        for (path, fixed) in [
            ("/api/select", "/api/select"),
            ("/api/select.md", "/api/select.md"),
            ("/", "/"),
        ] {
            let reply = server
                .get(path, &[("accept-language", accept_language)])
                .await;
            let what = format!("{path} {accept_language:?}");
            assert_eq!(reply.status, 200, "{what}");
            assert_eq!(reply.header("content-language"), language, "{what}");
            let prefix = language.to_ascii_lowercase();
            assert_eq!(
                reply.header("content-location"),
                format!("/{prefix}{fixed}"),
                "{what}"
            );
            assert!(reply.header("vary").contains("Accept-Language"), "{what}");
            let own = server.get(&format!("/{prefix}{fixed}"), &[]).await;
            assert_eq!(
                reply.decoded(),
                own.decoded(),
                "{what}: the fixed page's body"
            );
        }
    }
}

#[tokio::test]
async fn the_json_reference_stays_english_whatever_is_asked() {
    let server = start_server().await;
    for path in ["/api/reference.json", "/api/reference/select.json"] {
        let plain = server.get(path, &[]).await;
        assert!(!plain.header("vary").contains("Accept-Language"), "{path}");
        for language in ["zh-CN,zh;q=0.9", "de", "zh-TW"] {
            let asked = server.get(path, &[("accept-language", language)]).await;
            assert_eq!(asked.decoded(), plain.decoded(), "{path} {language}");
            assert_eq!(
                asked.header("etag"),
                plain.header("etag"),
                "{path} {language}"
            );
        }
    }
}

#[tokio::test]
async fn search_answers_in_the_page_s_language_and_reads_chinese() {
    let server = start_server().await;
    let query = "q=%E6%8F%92%E5%85%A5%E4%B8%80%E6%9D%A1%E8%AE%B0%E5%BD%95"; // 插入一条记录
    let chinese = server
        .get(
            &format!("/zh-hans/search?{query}"),
            &[("accept", "text/markdown")],
        )
        .await;
    assert_eq!(chinese.status, 200);
    assert_eq!(chinese.header("vary"), "Accept");
    let text = String::from_utf8(chinese.decoded()).expect("UTF-8");
    assert!(text.starts_with("# 搜索结果"), "{text}");
    assert!(
        text.contains("1. [`insert`](/zh-hans/api/insert)"),
        "{text}"
    );
    let negotiated = server
        .get(
            &format!("/search?{query}"),
            &[("accept", "text/markdown"), ("accept-language", "zh-CN")],
        )
        .await;
    assert_eq!(negotiated.header("vary"), "Accept, Accept-Language");
    assert_eq!(negotiated.decoded(), chinese.decoded());
    let missing = server.get(&format!("/xx/search?{query}"), &[]).await;
    assert_eq!(missing.status, 404);
}

/// The page at `path` of the content in `scratch`, rendered as `refserve
/// dev` renders it, as text.
async fn page(scratch: &Scratch, path: &str, headers: &[(&str, &str)]) -> (u16, String) {
    let editions =
        content::load(scratch.path(), "content", "http://x".into(), 0).expect("valid content");
    let table = refserve_pipeline::preview(&editions);
    let mut map = http::HeaderMap::new();
    for (name, value) in headers {
        map.insert(
            http::HeaderName::from_bytes(name.as_bytes()).expect("a name"),
            http::HeaderValue::from_str(value).expect("a value"),
        );
    }
    let response = refserve::respond::respond(&table, &http::Method::GET, path, &map);
    let status = response.status().as_u16();
    let body = response.into_body().collect().await.expect("infallible");
    (
        status,
        String::from_utf8(body.to_bytes().to_vec()).expect("UTF-8"),
    )
}

/// Replace `from` (which must occur) with `to` in the scratch copy's `file`.
fn edit(scratch: &Scratch, file: &str, from: &str, to: &str) {
    let path = scratch.path().join(file);
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(text.contains(from), "{file} holds {from:?}");
    scratch.write(file, text.replacen(from, to, 1));
}

/// The load's errors, one a line.
fn errors(scratch: &Scratch) -> String {
    content::load(scratch.path(), "content", "http://x".into(), 0)
        .map(|_| ())
        .expect_err("refused")
        .to_string()
}

#[tokio::test]
async fn an_english_edit_makes_the_translation_say_it_may_be_out_of_date() {
    let scratch = content_copy("outdated");
    let markdown = [("accept", "text/markdown")];
    let (_, before) = page(&scratch, "/zh-hans/api/select", &markdown).await;
    assert!(!before.contains("此译文可能已过时"), "{before}");
    edit(
        &scratch,
        "content/methods/select.md",
        "Retrieves rows from a table",
        "Retrieves the rows of a table",
    );
    let (status, after) = page(&scratch, "/zh-hans/api/select", &markdown).await;
    assert_eq!(status, 200);
    assert!(
        after.contains("> 此译文可能已过时") && after.contains("[阅读英文页面](/en/api/select)"),
        "{after}"
    );
    // The translation's text stays; the English page says nothing of it.
    assert!(after.contains("从数据表中读取行"), "{after}");
    let (_, english) = page(&scratch, "/en/api/select", &markdown).await;
    assert!(english.contains("Retrieves the rows of a table") && !english.contains("out of date"));
    // A method without a translation is the English text, saying so, its
    // content marked as English and its canonical page the English one.
    std::fs::remove_file(scratch.path().join("content/zh-hans/methods/count.md")).expect("rm");
    let (_, count) = page(&scratch, "/zh-hans/api/count", &[("accept", BROWSER)]).await;
    assert!(count.contains("<main id=\"main\" lang=\"en\">"), "{count}");
    assert!(count.contains("此方法尚未翻译"), "{count}");
    assert!(count.contains("<link rel=\"canonical\" href=\"http://x/en/api/count\">"));
    assert!(
        !count.contains("hreflang=\"zh-Hans\" href"),
        "left out of hreflang"
    );
}

#[test]
fn a_translation_may_not_restate_a_fact_otherwise() {
    let scratch = content_copy("facts");
    edit(
        &scratch,
        "content/zh-hans/methods/select.md",
        "\"where [array] (optional)\"",
        "\"where [string] (optional)\"",
    );
    edit(
        &scratch,
        "content/zh-hans/methods/insert.md",
        "$database->insert(",
        "$db->insert(",
    );
    edit(
        &scratch,
        "content/zh-hans/methods/count.md",
        "+++\n",
        "+++\nsignature = \"count($table)\"\n",
    );
    let message = errors(&scratch);
    for expected in [
        "content/zh-hans/methods/select.md: field `parameters[1].\"where [string] (optional)\"`: is not a label of the source",
        "content/zh-hans/methods/select.md: field `parameters[1].\"where [array] (optional)\"`: is described in the source but not here",
        "content/zh-hans/methods/insert.md: field `example \"",
        "differs from the source's example",
        "content/zh-hans/methods/count.md: field `signature`: unknown field",
    ] {
        assert!(message.contains(expected), "{expected}\nin\n{message}");
    }
}

#[test]
fn a_change_to_the_source_never_fails_the_build() {
    let scratch = content_copy("source-changes");
    // A label changed in English: the translation is outdated, not wrong.
    edit(
        &scratch,
        "content/methods/select.md",
        "\"where [array] (optional)\"",
        "\"where [array/null] (optional)\"",
    );
    assert!(
        content::load(scratch.path(), "content", "http://x".into(), 0).is_ok(),
        "{}",
        errors_or_nothing(&scratch)
    );
}

fn errors_or_nothing(scratch: &Scratch) -> String {
    content::load(scratch.path(), "content", "http://x".into(), 0)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default()
}

#[tokio::test]
async fn a_third_language_is_a_folder_of_content() {
    let scratch = content_copy("third-language");
    std::fs::create_dir_all(scratch.path().join("content/fr")).expect("a folder");
    let english = std::fs::read_to_string(scratch.path().join("content/language.json"))
        .expect("language.json")
        .replace("\"tag\": \"en\"", "\"tag\": \"fr\"")
        .replace("\"name\": \"English\"", "\"name\": \"Français\"")
        .replace("\"Methods\"", "\"Méthodes\"");
    scratch.write("content/fr/language.json", english);
    for file in ["site.json", "errors.json"] {
        let text = std::fs::read_to_string(scratch.path().join("content").join(file))
            .expect("the source's");
        let text = match file {
            "site.json" => {
                let site: serde_json::Value = serde_json::from_str(&text).expect("JSON");
                let groups: serde_json::Map<String, serde_json::Value> = site["groups"]
                    .as_array()
                    .expect("groups")
                    .iter()
                    .map(|g| {
                        let name = g["name"].as_str().expect("a name").to_string();
                        (
                            name,
                            serde_json::json!({ "name": g["name"], "summary": g["summary"] }),
                        )
                    })
                    .collect();
                serde_json::json!({
                    "title": "Référence des méthodes",
                    "summary": site["summary"],
                    "about": site["about"],
                    "groups": groups,
                })
                .to_string()
            }
            _ => text,
        };
        scratch.write(&format!("content/fr/{file}"), text);
    }
    let (status, page_fr) = page(&scratch, "/fr/api/", &[("accept", BROWSER)]).await;
    assert_eq!(status, 200, "{page_fr}");
    assert!(page_fr.contains("<html lang=\"fr\">") && page_fr.contains("Méthodes"));
    let (_, negotiated) = page(
        &scratch,
        "/api/select",
        &[("accept", BROWSER), ("accept-language", "fr-CA,fr;q=0.9")],
    )
    .await;
    assert!(negotiated.contains("<html lang=\"fr\">"), "{negotiated}");
    for language in ["English", "简体中文", "Français"] {
        assert!(
            negotiated.contains(&format!(">{language}</a>")),
            "{language}"
        );
    }
}

#[tokio::test]
async fn get_method_answers_in_the_locale_asked() {
    use crate::support::mcp_call as call;
    use serde_json::json;
    let server = start_server().await;
    let english = call(&server, "get_method", json!({ "name": "select" })).await;
    for locale in ["zh-Hans", "zh-CN", "zh"] {
        let chinese = call(
            &server,
            "get_method",
            json!({ "name": "select", "locale": locale }),
        )
        .await;
        let page = server.get("/zh-hans/api/select.md", &[]).await;
        assert_eq!(
            chinese["content"][0]["text"].as_str().map(str::as_bytes),
            Some(page.decoded().as_slice()),
            "{locale}"
        );
        assert_eq!(chinese["_meta"]["locale"], "zh-Hans", "{locale}");
        assert_eq!(chinese["_meta"]["translation"], "current", "{locale}");
        // The facts are the Reference's, in English, whatever the locale.
        assert_eq!(chinese["structuredContent"], english["structuredContent"]);
    }
    for locale in ["en", "zh-TW", "de", "", "x-?"] {
        let answer = call(
            &server,
            "get_method",
            json!({ "name": "select", "locale": locale }),
        )
        .await;
        assert_eq!(answer["content"], english["content"], "{locale}");
    }
    let tools = call_list(&server).await;
    let get_method = tools
        .iter()
        .find(|t| t["name"] == "get_method")
        .expect("get_method");
    assert_eq!(
        get_method["inputSchema"]["properties"]["locale"]["type"],
        "string"
    );
    assert!(get_method["description"]
        .as_str()
        .is_some_and(|d| d.contains("zh-Hans")));
}

/// The tools `tools/list` gives.
async fn call_list(server: &crate::support::Server) -> Vec<serde_json::Value> {
    let body = serde_json::json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list" });
    let headers = [
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let reply = server.post("/mcp", &headers, body.to_string()).await;
    reply.json()["result"]["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}
