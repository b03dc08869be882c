//! `GET /search` over real HTTP: every representation, in the order MCP's
//! `search` ranks; the `303` a browser gets for a method's name; the
//! answer when nothing matches; every bad query string; the search box on
//! every page and the OpenAPI description. `search/served.rs`: validators
//! and `304`, caching, `noindex`, the methods other than `GET`, the memory
//! budget.

mod served;

use crate::support::{mcp_call, percent_encode, shipped_methods, start_server, Reply, Server};
use http::Method;
use serde_json::{json, Value};

/// A browser's navigation `Accept` (Chrome's).
pub(super) const BROWSER: &str =
    "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,\
                       image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7";

#[tokio::test]
async fn a_misspelt_word_is_said_to_be_read_as_the_word_it_found_as_mcp_says() {
    let server = start_server().await;
    let answer = search(&server, "q=upadte", "application/json").await.json();
    let why = answer["data"][0]["why"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert_eq!(why, "Matched “upadte” (read as “update”) in its name.");
    let mcp = mcp_call(&server, "search", json!({ "query": "upadte" })).await;
    assert_eq!(mcp["structuredContent"]["results"][0]["why"], why.as_str());
    let page = text(&search(&server, "q=upadte", BROWSER).await);
    assert!(page.contains("Matched “upadte” (read as “update”) in its name."));
}

/// `GET /search?<query>` asking for `accept`.
pub(super) async fn search(server: &Server, query: &str, accept: &str) -> Reply {
    server
        .get(&format!("/search?{query}"), &[("accept", accept)])
        .await
}

/// The names `/search` finds for `words`, best first (its JSON).
async fn found(server: &Server, words: &str) -> Vec<String> {
    let query = format!("q={}", percent_encode(words));
    let reply = search(server, &query, "application/json").await;
    assert_eq!(reply.status, 200, "{words}");
    names(&reply.json()["data"])
}

/// The names MCP's `search` finds for `words`, best first (all of them).
async fn found_by_mcp(server: &Server, words: &str) -> Vec<String> {
    let arguments = json!({ "query": words, "limit": shipped_methods().len() });
    let result = mcp_call(server, "search", arguments).await;
    names(&result["structuredContent"]["results"])
}

fn names(list: &Value) -> Vec<String> {
    list.as_array()
        .into_iter()
        .flatten()
        .filter_map(|item| item["name"].as_str().map(String::from))
        .collect()
}

pub(super) fn text(reply: &Reply) -> String {
    String::from_utf8(reply.decoded()).expect("UTF-8")
}

/// The methods an HTML results page lists, in order.
fn listed_in_html(page: &str) -> Vec<String> {
    page.split("<li><h2><a href=\"/en/api/")
        .skip(1)
        .filter_map(|item| item.split('"').next().map(String::from))
        .collect()
}

/// The methods a Markdown answer lists, in order, checking their numbers.
fn listed_in_markdown(page: &str) -> Vec<String> {
    let mut listed = Vec::new();
    for line in page.lines() {
        let Some((number, rest)) = line.split_once(". [`") else {
            continue;
        };
        assert_eq!(number, (listed.len() + 1).to_string(), "{line}");
        listed.push(rest.split('`').next().unwrap_or_default().to_string());
    }
    listed
}

#[tokio::test]
async fn every_representation_lists_what_mcp_finds_in_its_order() {
    let server = start_server().await;
    let questions = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/search_questions.tsv"
    ))
    .expect("the question set");
    let mut compared = 0;
    for line in questions.lines().filter(|l| !l.starts_with('#')) {
        let Some((question, _)) = line.split_once('\t') else {
            continue;
        };
        let ours = found(&server, question).await;
        assert_eq!(ours, found_by_mcp(&server, question).await, "{question}");
        compared += usize::from(!ours.is_empty());
    }
    assert!(compared >= 40, "{compared} questions found something");

    let words = "count the rows that match";
    let query = format!("q={}", percent_encode(words));
    let json = search(&server, &query, "application/json").await;
    let answer = json.json();
    let expected = names(&answer["data"]);
    assert!(expected.len() > 1, "{answer}");
    assert_eq!(
        answer["meta"],
        json!({ "query": words, "count": expected.len() })
    );
    let first = &answer["data"][0];
    for member in [
        "key",
        "name",
        "description",
        "signature",
        "documentation_url",
        "url",
        "why",
    ] {
        assert!(!first[member].is_null(), "{member}: {first}");
    }
    assert!(first["documentation_url"].as_str().is_some_and(
        |url| url.ends_with(&format!("/api/{}", first["key"].as_str().unwrap_or("?")))
    ));
    assert!(first["why"]
        .as_str()
        .is_some_and(|why| why.starts_with("Matched “")));

    let html = search(&server, &query, BROWSER).await;
    assert_eq!(html.status, 200);
    assert_eq!(html.header("content-type"), "text/html; charset=utf-8");
    let page = text(&html);
    assert_eq!(listed_in_html(&page), expected);
    assert!(
        page.contains(&format!("value=\"{words}\"")),
        "the box holds the query"
    );
    assert!(page.contains(&format!("<title>Search: {words} · ")));
    assert!(page.contains(&format!(
        "{} of {}",
        expected.len(),
        shipped_methods().len()
    )));
    assert!(page.contains("<p class=\"why\">Matched “"));
    assert!(
        page.contains("<pre><code class=\"language-php\">"),
        "signatures"
    );

    let markdown = search(&server, &query, "text/markdown").await;
    assert_eq!(
        markdown.header("content-type"),
        "text/markdown; charset=utf-8"
    );
    let body = text(&markdown);
    assert!(body.starts_with("# Search results\n"), "{body}");
    assert_eq!(listed_in_markdown(&body), expected);
    assert_eq!(
        markdown.header("x-markdown-tokens"),
        body.len().div_ceil(4).to_string()
    );
}

#[tokio::test]
async fn the_query_is_escaped_wherever_it_is_written() {
    let server = start_server().await;
    let words = "<script>alert(\"rows\")</script> & *rows*";
    let query = format!("q={}", percent_encode(words));
    let page = text(&search(&server, &query, BROWSER).await);
    assert!(!page.contains("<script>"), "{page}");
    assert!(page.contains("&lt;script&gt;alert(&quot;rows&quot;)&lt;/script&gt; &amp; *rows*"));
    let markdown = text(&search(&server, &query, "text/markdown").await);
    assert!(markdown.contains("\\<script\\>alert(\"rows\")\\</script\\> & \\*rows\\*"));
    let json = search(&server, &query, "application/json").await.json();
    assert_eq!(json["meta"]["query"], words);
    // A control character is never echoed.
    let reply = search(&server, "q=rows%00%1B", "application/json").await;
    assert_eq!(reply.json()["meta"]["query"], "rows\u{fffd}\u{fffd}");
}

#[tokio::test]
async fn a_browser_asking_for_a_method_s_name_is_sent_to_its_page() {
    let server = start_server().await;
    for query in ["q=select", "q=Select", "q=+SELECT+", "q=%73elect"] {
        let reply = search(&server, query, BROWSER).await;
        assert_eq!(reply.status, 303, "{query}");
        assert_eq!(reply.header("location"), "/en/api/select");
        assert_eq!(reply.header("vary"), "Accept, Accept-Language");
        assert!(reply
            .header("cache-control")
            .starts_with("public, max-age="));
        let head = server
            .request(
                Method::HEAD,
                &format!("/search?{query}"),
                &[("accept", BROWSER)],
            )
            .await;
        assert_eq!(head.status, 303);
    }
    for accept in ["application/json", "text/markdown"] {
        let reply = search(&server, "q=select", accept).await;
        assert_eq!(reply.status, 200, "{accept}: the results, not a redirect");
    }
    assert_eq!(
        found(&server, "select").await.first().map(String::as_str),
        Some("select")
    );
    // Followed, it lands on the page.
    let page = server.get("/api/select", &[("accept", BROWSER)]).await;
    assert_eq!(page.status, 200);
}

#[tokio::test]
async fn a_search_that_finds_nothing_says_so_offers_close_names_and_lists_every_method() {
    let server = start_server().await;
    let every = shipped_methods();
    let query = "q=slectt+xyzzy";
    let json = search(&server, query, "application/json").await;
    assert_eq!(json.status, 200);
    let answer = json.json();
    assert_eq!(answer["data"], json!([]));
    assert_eq!(answer["meta"]["count"], 0);
    assert_eq!(answer["meta"]["suggestions"], json!(["select"]));
    let mut methods: Vec<String> = answer["meta"]["methods"]
        .as_array()
        .expect("every method")
        .iter()
        .filter_map(|name| name.as_str().map(String::from))
        .collect();
    methods.sort();
    assert_eq!(methods, every);

    let page = text(&search(&server, query, BROWSER).await);
    assert!(page.contains("No method matches “slectt xyzzy”."), "{page}");
    assert!(page.contains("Did you mean <a href=\"/en/api/select\"><code>select</code></a>?"));
    for key in &every {
        assert!(
            page.contains(&format!("href=\"/en/api/{key}\"")),
            "{key} listed"
        );
    }
    let markdown = text(&search(&server, query, "text/markdown").await);
    assert!(markdown.contains("No method matches “slectt xyzzy”."));
    assert!(markdown.contains("Did you mean [`select`](/en/api/select)?"));
    for key in &every {
        assert!(
            markdown.contains(&format!("](/en/api/{key})")),
            "{key} listed"
        );
    }
    // Far from every name: no suggestion, the list still there.
    let far = search(&server, "q=xyzzy", "application/json").await.json();
    assert_eq!(far["meta"]["suggestions"], json!([]));
    let far_page = text(&search(&server, "q=xyzzy", BROWSER).await);
    assert!(!far_page.contains("Did you mean"));
    assert!(far_page.contains("href=\"/en/api/select\""));
}

#[tokio::test]
async fn a_query_string_that_is_not_one_query_gets_a_clear_error() {
    let server = start_server().await;
    let long = format!("q={}", "a".repeat(201));
    let cases = [
        ("", "query_missing"),
        ("q=", "query_missing"),
        ("q=+++%20", "query_missing"),
        (long.as_str(), "query_too_long"),
        ("q=rows&page=2", "query_invalid"),
        ("q=rows&q=count", "query_invalid"),
        ("q=%zz", "query_invalid"),
        ("q=%FF", "query_invalid"),
    ];
    for (query, code) in cases {
        let path = format!("/search?{query}");
        let path = path.trim_end_matches('?');
        // A program (no Accept, or JSON): the ErrorResponse.
        for accept in [None, Some("application/json")] {
            let headers: Vec<(&str, &str)> = accept.map(|a| ("accept", a)).into_iter().collect();
            let reply = server.get(path, &headers).await;
            assert_eq!(reply.status, 400, "{path}");
            assert_eq!(reply.error_code(), code, "{path}");
            assert_eq!(reply.header("cache-control"), "public, max-age=60");
        }
        // A browser: a page with the search box and a way back.
        let page = server.get(path, &[("accept", BROWSER)]).await;
        assert_eq!(page.status, 400);
        let html = text(&page);
        assert!(
            html.contains(&format!("<code>{code}</code>")),
            "{path}: {html}"
        );
        assert!(html.contains("<form class=\"search\""), "{path}");
        assert!(html.contains("href=\"/en/\">Back to the method reference</a>"));
        let markdown = server.get(path, &[("accept", "text/markdown")]).await;
        assert!(text(&markdown).contains(&format!("`{code}`")));
    }
    // The limit the message names is the server's.
    let reply = server.get(&format!("/search?{long}"), &[]).await;
    let limit = refserve_core::search_page::MAX_QUERY_CHARS;
    assert!(reply.json()["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains(&format!("longer than {limit} characters"))));
    let most = format!("q={}", "a".repeat(limit));
    assert_eq!(
        server.get(&format!("/search?{most}"), &[]).await.status,
        200
    );
}

#[tokio::test]
async fn every_page_has_the_search_box() {
    let server = start_server().await;
    let pages = ["/", "/api/", "/api/select", "/nope", "/search?q=rows"];
    for path in pages {
        let reply = server.get(path, &[("accept", BROWSER)]).await;
        let html = text(&reply);
        let form = html
            .split("<form class=\"search\" role=\"search\" method=\"get\" action=\"/en/search\">")
            .nth(1)
            .and_then(|rest| rest.split("</form>").next())
            .unwrap_or_else(|| panic!("{path}: no search form in\n{html}"));
        assert!(
            form.contains("<label class=\"hidden\" for=\"search-query\">"),
            "{form}"
        );
        assert!(form.contains("<input id=\"search-query\" type=\"search\" name=\"q\""));
        assert!(form.contains("<button type=\"submit\">Search</button>"));
        assert!(!html.contains("<script"), "{path}: no script");
        assert!(
            reply
                .header("content-security-policy")
                .contains("form-action 'self'"),
            "{path}: the form may be sent to this origin"
        );
    }
}

#[tokio::test]
async fn the_openapi_description_has_the_search() {
    let server = start_server().await;
    let openapi = server.get("/openapi.json", &[]).await.json();
    let operation = &openapi["paths"]["/search"]["get"];
    assert_eq!(operation["operationId"], "searchMethods");
    assert_eq!(operation["parameters"][0]["name"], "q");
    assert_eq!(operation["parameters"][0]["required"], true);
    for status in ["200", "303", "304", "400", "406", "503"] {
        assert!(!operation["responses"][status].is_null(), "{status}");
    }
    let content = &operation["responses"]["200"]["content"];
    for media in ["application/json", "text/html", "text/markdown"] {
        assert!(!content[media].is_null(), "{media}");
    }
    // The example of the empty answer is the answer served.
    let example = &content["application/json"]["examples"]["nothing"]["value"];
    let query = example["meta"]["query"].as_str().expect("a query");
    let served = search(&server, &format!("q={query}"), "application/json").await;
    assert_eq!(&served.json(), example);
}
