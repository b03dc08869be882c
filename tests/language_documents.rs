//! What serves the pages speaks their language too: each language has its
//! own `llms.txt`, `llms-full.txt` and feed, written from its catalog and
//! linking its pages, which `/llms.txt` names; a page's error under
//! `/zh-hans/` (a mistyped method, a removed one, nothing at all) is in
//! Chinese and links Chinese pages, while the ErrorResponse for programs
//! stays the English one, byte for byte.

use crate::dev::Dev;
use crate::support::{mark_lifecycles, start_server, Reply, Server};

/// A browser's `Accept` for a page.
const BROWSER: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

/// The decoded body of `reply`, as text.
fn text(reply: &Reply) -> String {
    String::from_utf8(reply.decoded()).expect("UTF-8")
}

/// `GET path` with `accept`, its status and text.
async fn get(server: &Server, path: &str, accept: &str) -> (u16, String) {
    let reply = server.get(path, &[("accept", accept)]).await;
    (reply.status, text(&reply))
}

#[tokio::test]
async fn each_language_has_its_own_llms_txt_which_llms_txt_names() {
    let server = start_server().await;
    let base = &refserve::table::production().base_url;
    let chinese = server.get("/zh-hans/llms.txt", &[]).await;
    assert_eq!(chinese.status, 200);
    assert_eq!(chinese.header("content-type"), "text/plain; charset=utf-8");
    assert_eq!(chinese.header("content-language"), "zh-Hans");
    let chinese = text(&chinese);
    for said in [
        "阅读方式：",
        "## API\n\n- [OpenAPI 描述]",
        &format!("[select]({base}/zh-hans/api/select.md): "),
        "从数据表中读取行",
        &format!("[完整参考]({base}/zh-hans/llms-full.txt)"),
        &format!("[变更]({base}/zh-hans/changes.atom)"),
        &format!("- [English]({base}/en/llms.txt): 该语言的智能体索引"),
        &format!("[方法索引]({base}/zh-hans/api/index.md)"),
    ] {
        assert!(chinese.contains(said), "{said}\nin\n{chinese}");
    }
    assert!(
        !chinese.contains(&format!("]({base}/api/select.md)")),
        "{chinese}"
    );
    // The one agents look for first names every language's own.
    let english = text(&server.get("/llms.txt", &[]).await);
    for said in [
        "How to read it:",
        &format!("[select]({base}/api/select.md): "),
        "## Languages\n\n",
        &format!("- [简体中文]({base}/zh-hans/llms.txt): the index for agents in this language"),
        &format!("[its index of methods]({base}/zh-hans/api/index.md)"),
        &format!("- [English]({base}/en/llms.txt): "),
    ] {
        assert!(english.contains(said), "{said}\nin\n{english}");
    }
    // At its own address, English links the English pages.
    let own = text(&server.get("/en/llms.txt", &[]).await);
    assert!(own.contains(&format!("[select]({base}/en/api/select.md): ")));
    assert_eq!(
        own.replace("/en/", "/"),
        english.replace("/en/", "/"),
        "the same index but for its links"
    );
    let full = server.get("/zh-hans/llms-full.txt", &[]).await;
    assert_eq!(full.status, 200);
    let full = text(&full);
    assert!(
        full.contains("从数据表中读取行") && full.contains("### select: 参数"),
        "{full}"
    );
    // The Chinese pages point agents at its own.
    let home = server.get("/zh-hans/", &[("accept", BROWSER)]).await;
    assert!(home
        .links()
        .contains(&"</zh-hans/llms.txt>; rel=\"describedby\"; type=\"text/plain\"".into()));
    let html = text(&home);
    for link in [
        "<a href=\"/zh-hans/llms.txt\">llms.txt</a>",
        "<a href=\"/zh-hans/llms.txt\"><code>/zh-hans/llms.txt</code></a>",
    ] {
        assert!(html.contains(link), "{link}");
    }
}

#[tokio::test]
async fn a_mistyped_page_under_a_language_answers_in_it() {
    let server = start_server().await;
    let (status, html) = get(&server, "/zh-hans/api/selec", BROWSER).await;
    assert_eq!(status, 404);
    for said in [
        "<html lang=\"zh-Hans\">",
        "<h1>未找到页面</h1>",
        "此路径下没有发布任何内容。",
        "您要找的是不是 <a href=\"/zh-hans/api/select\"><code>select</code></a>？",
        "<a href=\"/zh-hans/\">返回方法参考</a>",
    ] {
        assert!(html.contains(said), "{said}\nin\n{html}");
    }
    let (status, markdown) = get(&server, "/zh-hans/api/selec.md", "text/markdown").await;
    assert_eq!(status, 404);
    assert!(
        markdown.starts_with("# 未找到页面\n")
            && markdown.contains("您要找的是不是 [`select`](/zh-hans/api/select)？"),
        "{markdown}"
    );
    // Nothing at all under a language: its words too.
    let (status, nothing) = get(&server, "/zh-hans/nothing/here", "text/markdown").await;
    assert_eq!(status, 404);
    assert!(nothing.starts_with("# 未找到页面\n"), "{nothing}");
    // English at English addresses and at those without a language.
    for path in ["/en/api/selec", "/api/selec"] {
        let (status, html) = get(&server, path, BROWSER).await;
        assert_eq!(status, 404, "{path}");
        assert!(html.contains("<html lang=\"en\">"), "{path}");
        assert!(
            html.contains("Did you mean <a href=\"/en/api/select\"><code>select</code></a>?"),
            "{path}: {html}"
        );
    }
    // The ErrorResponse is the English one, wherever and whatever is asked.
    let english = server.get("/api/selec", &[]).await;
    assert_eq!(english.error_code(), "not_found");
    assert_eq!(
        english.json()["error"]["message"],
        "Nothing is published at this path."
    );
    for (path, language) in [
        ("/zh-hans/api/selec", ""),
        ("/zh-hans/api/selec.md", "zh-CN"),
        ("/zh-hans/nothing/here", ""),
    ] {
        let reply = server
            .get(
                path,
                &[
                    ("accept", "application/json"),
                    ("accept-language", language),
                ],
            )
            .await;
        assert_eq!(reply.status, 404, "{path}");
        assert_eq!(reply.decoded(), english.decoded(), "{path}");
    }
}

#[tokio::test]
async fn the_json_reference_s_errors_stay_english() {
    let server = start_server().await;
    let plain = server.get("/api/reference/selec.json", &[]).await;
    assert_eq!(plain.status, 404);
    assert_eq!(plain.error_code(), "reference_not_found");
    assert_eq!(
        plain.json()["error"]["message"],
        "No method reference has that name."
    );
    assert!(
        plain.hint().contains("Did you mean select?"),
        "{}",
        plain.hint()
    );
    for language in ["zh-CN,zh;q=0.9", "zh-Hans"] {
        let asked = server
            .get(
                "/api/reference/selec.json",
                &[("accept-language", language), ("accept", BROWSER)],
            )
            .await;
        assert_eq!(asked.status, 404);
        assert_eq!(asked.body, plain.body, "{language}");
    }
    let document = server.get("/api/reference/select.json", &[]).await;
    assert_eq!(document.header("content-language"), "en");
}

#[tokio::test]
async fn a_removed_method_is_gone_in_each_language() {
    let dev = Dev::start("removed-in-languages", mark_lifecycles);
    let client = dev.client();
    let (status, html) = get(&client, "/zh-hans/api/last", BROWSER).await;
    assert_eq!(status, 410);
    for said in [
        "<html lang=\"zh-Hans\">",
        "<h1>方法已移除</h1>",
        "方法 last 已在 3.0 版中移除，请改用 log",
        "请前往 <a href=\"/zh-hans/api/log\"><code>log</code></a>。",
    ] {
        assert!(html.contains(said), "{said}\nin\n{html}");
    }
    let (status, markdown) = get(&client, "/zh-hans/api/last.md", "text/markdown").await;
    assert_eq!(status, 410);
    assert!(
        markdown.contains("请前往 [`log`](/zh-hans/api/log)。"),
        "{markdown}"
    );
    let (status, english) = get(&client, "/en/api/last", BROWSER).await;
    assert_eq!(status, 410);
    assert!(
        english.contains("<p>Go to <a href=\"/en/api/log\"><code>log</code></a>.</p>"),
        "{english}"
    );
    // Its ErrorResponse is the English one at every address.
    let plain = client.get("/api/last", &[]).await;
    for path in ["/zh-hans/api/last", "/zh-hans/api/last.md", "/en/api/info"] {
        let reply = client.get(path, &[("accept", "application/json")]).await;
        assert_eq!(reply.status, 410, "{path}");
        assert_eq!(reply.error_code(), "method_removed", "{path}");
        if path != "/en/api/info" {
            assert_eq!(reply.decoded(), plain.decoded(), "{path}");
        }
    }
}

#[tokio::test]
async fn each_language_has_its_feed_linking_its_pages() {
    let dev = Dev::start("feed-in-languages", mark_lifecycles);
    let client = dev.client();
    let origin = &dev.origin;
    let chinese = client.get("/zh-hans/changes.atom", &[]).await;
    assert_eq!(chinese.status, 200);
    assert_eq!(chinese.header("content-type"), "application/atom+xml");
    let chinese = text(&chinese);
    for said in [
        "<title>数据库访问库方法参考：变更</title>",
        &format!("<id>{origin}/zh-hans/changes.atom</id>"),
        "<title>select 自 1.0 版起可用</title>",
        &format!(
            "<link rel=\"alternate\" type=\"text/html\" href=\"{origin}/zh-hans/api/select\"/>"
        ),
        "<summary>方法 last 已在 3.0 版（2026-09-01）中移除，请改用 log。</summary>",
        "<summary>方法 info 已在 3.0 版（2026-09-01）中移除，且没有替代方法。</summary>",
        &format!("<link rel=\"alternate\" type=\"text/html\" href=\"{origin}/zh-hans/api/\"/>"),
    ] {
        assert!(chinese.contains(said), "{said}\nin\n{chinese}");
    }
    let english = text(&client.get("/en/changes.atom", &[]).await);
    assert!(english.contains(&format!(
        "<link rel=\"alternate\" type=\"text/html\" href=\"{origin}/en/api/select\"/>"
    )));
    // The feed without a language links the pages without one.
    let plain = text(&client.get("/changes.atom", &[]).await);
    assert!(plain.contains(&format!(
        "<link rel=\"alternate\" type=\"text/html\" href=\"{origin}/api/select\"/>"
    )));
    assert_eq!(
        plain.replace(&format!("{origin}/"), ""),
        english.replace(&format!("{origin}/en/"), ""),
        "the same entries but for their links"
    );
    // Each language's pages point at its feed.
    for (path, title, feed) in [
        ("/zh-hans/", "变更", "/zh-hans/changes.atom"),
        ("/en/", "Changes", "/en/changes.atom"),
    ] {
        let (_, html) = get(&client, path, BROWSER).await;
        let link = format!(
            "<link rel=\"alternate\" type=\"application/atom+xml\" title=\"{title}\" href=\"{feed}\">"
        );
        assert!(html.contains(&link), "{path}: {link}");
    }
}
