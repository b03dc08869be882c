//! A method's lifecycle as `refserve dev` serves it from a copy of
//! `content/` with marks (`support::mark_lifecycles`): `select` since 1.0,
//! `rand` deprecated in 2.0 for `select`, `last` deprecated then removed
//! for `log`, `info` removed with no successor. A deprecated method says so
//! on its page, in its Markdown, its JSON, every list, MCP and search; a
//! removed one leaves every list, its page answers 410 and its JSON
//! document 404, each naming the successor; `/changes.atom` has an entry
//! per mark. The shipped content's feed is empty, and linked. The feeds
//! (the Chinese one too) are valid Atom (xmllint and an RFC 4287 check, under `tests/tools/full`).

use crate::dev::Dev;
use crate::support::{
    mark_lifecycles, mcp_call as call, python_tool, run, shipped_methods, start_server,
    system_tool, Scratch, Server,
};
use serde_json::{json, Value};

/// The text of `GET path` with `accept`, after checking it is a 200.
async fn text(client: &Server, path: &str, accept: &str) -> String {
    let reply = client.get(path, &[("accept", accept)]).await;
    assert_eq!(reply.status, 200, "{path}");
    String::from_utf8(reply.decoded()).expect("UTF-8")
}

#[tokio::test]
async fn deprecated_methods_say_so_and_removed_ones_are_gone() {
    let dev = Dev::start("lifecycle", mark_lifecycles);
    let client = dev.client();

    // The JSON: removed methods are not listed, the marks are extra fields.
    let all: Value =
        serde_json::from_str(&text(&client, "/api/reference.json", "application/json").await)
            .expect("JSON");
    let keys: Vec<&str> = all["data"]
        .as_array()
        .expect("data")
        .iter()
        .filter_map(|r| r["key"].as_str())
        .collect();
    assert_eq!(all["meta"]["count"], shipped_methods().len() - 2);
    assert!(
        !keys.contains(&"last") && !keys.contains(&"info"),
        "{keys:?}"
    );
    let rand = all["data"]
        .as_array()
        .and_then(|data| data.iter().find(|r| r["key"] == "rand"))
        .expect("rand");
    let deprecated = json!({ "version": "2.0", "date": "2026-03-01", "use": "select" });
    assert_eq!(rand["deprecated"], deprecated);
    let select: Value = client.get("/api/reference/select.json", &[]).await.json();
    assert_eq!(
        select["data"]["since"],
        json!({ "version": "1.0", "date": "2024-01-15" })
    );
    assert!(select["data"].get("deprecated").is_none());

    // The page and its Markdown.
    let markdown = text(&client, "/api/rand.md", "text/markdown").await;
    assert!(
        markdown.contains(
            "> **Deprecated** since version 2.0 (2026-03-01): use [`select`](/en/api/select) instead."
        ),
        "{markdown}"
    );
    let html = text(&client, "/api/rand", "text/html").await;
    assert!(
        html.contains("<strong>Deprecated</strong> since version 2.0 (2026-03-01): use <a href=\"/en/api/select\">"),
        "{html}"
    );
    let select_page = text(&client, "/api/select.md", "text/markdown").await;
    assert!(select_page.contains("Available since version 1.0 (2024-01-15)."));

    // The lists: deprecated marked, removed gone.
    let home = text(&client, "/index.md", "text/markdown").await;
    assert!(
        home.contains("*Deprecated in 2.0: use [`select`](/en/api/select).*"),
        "{home}"
    );
    let llms = text(&client, "/llms.txt", "text/plain").await;
    let sitemap = text(&client, "/sitemap.xml", "application/xml").await;
    let index = text(&client, "/api/", "text/html").await;
    for (name, list) in [
        ("home", &home),
        ("llms.txt", &llms),
        ("sitemap", &sitemap),
        ("index", &index),
    ] {
        for removed in ["/api/last", "/api/info"] {
            assert!(!list.contains(removed), "{name} lists {removed}");
        }
        assert!(list.contains("/api/rand"), "{name} lists rand");
    }

    // A removed method's page: 410, naming its successor, no validators.
    let gone = client.get("/api/last", &[("accept", "text/html")]).await;
    assert_eq!(gone.status, 410);
    let page = String::from_utf8(gone.decoded()).expect("UTF-8");
    assert!(
        page.contains("<p>Go to <a href=\"/en/api/log\"><code>log</code></a>.</p>"),
        "{page}"
    );
    assert!(page.contains("removed in version 3.0"), "{page}");
    assert_eq!(gone.header("etag"), "");
    assert_eq!(gone.header("last-modified"), "");
    for path in ["/api/last", "/api/last.md"] {
        let reply = client.get(path, &[]).await;
        assert_eq!(reply.status, 410, "{path}");
        assert_eq!(reply.error_code(), "method_removed");
        assert!(
            reply.hint().contains("use log instead: /api/log"),
            "{}",
            reply.hint()
        );
    }
    let markdown = client
        .get("/api/last.md", &[("accept", "text/markdown")])
        .await;
    assert_eq!(markdown.status, 410);
    assert!(String::from_utf8_lossy(&markdown.decoded()).contains("[`log`](/en/api/log)"));
    let orphan = client.get("/api/info", &[]).await;
    assert_eq!(orphan.status, 410);
    assert!(
        orphan.hint().contains("has no successor"),
        "{}",
        orphan.hint()
    );
    let spelt = client.get("/API/Last/", &[]).await;
    assert_eq!((spelt.status, spelt.header("location")), (308, "/api/last"));

    // Its JSON document: the specification's 404, the hint naming the successor.
    let document = client.get("/api/reference/last.json", &[]).await;
    assert_eq!(document.status, 404);
    assert_eq!(document.error_code(), "reference_not_found");
    assert!(
        document
            .hint()
            .contains("use log instead: GET /api/reference/log.json"),
        "{}",
        document.hint()
    );
    let document = client.get("/api/reference/info.json", &[]).await;
    assert!(
        document.hint().contains("no successor"),
        "{}",
        document.hint()
    );

    // MCP: listed with the mark, or gone with a word on what to use.
    let list = call(&client, "list_methods", json!({})).await;
    let names: Vec<&str> = list["structuredContent"]["methods"]
        .as_array()
        .expect("methods")
        .iter()
        .filter_map(|m| m["name"].as_str())
        .collect();
    assert!(
        !names.contains(&"last") && !names.contains(&"info"),
        "{names:?}"
    );
    let listed = list["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        listed.contains("*Deprecated in 2.0: use [`select`]("),
        "{listed}"
    );
    let method = call(&client, "get_method", json!({ "name": "rand" })).await;
    assert_eq!(method["structuredContent"]["deprecated"], deprecated);
    let text_of = |result: &Value| {
        result["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    assert!(text_of(&method).contains("**Deprecated** since version 2.0"));
    let removed = call(&client, "get_method", json!({ "name": "last" })).await;
    assert_eq!(removed["isError"], true);
    assert!(text_of(&removed).contains("removed from the library in version 3.0; use `log`"));
    let found = call(
        &client,
        "search",
        json!({ "query": "random order rows", "limit": 3 }),
    )
    .await;
    let rand = found["structuredContent"]["results"]
        .as_array()
        .and_then(|results| results.iter().find(|r| r["name"] == "rand"))
        .unwrap_or_else(|| panic!("rand found: {found}"));
    assert_eq!(rand["deprecated"], deprecated);
}

/// Checks an Atom feed (argv[1]) for what RFC 4287 requires of a feed and
/// its entries, and prints each entry's title and day, in order.
const ATOM_CHECK: &str = r#"
import re, sys, xml.etree.ElementTree as ET
A = "{http://www.w3.org/2005/Atom}"
feed = ET.parse(sys.argv[1]).getroot()
problems = []
day = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
def one(element, name, where):
    found = element.findall(A + name)
    if len(found) != 1:
        problems.append(f"{where}: {len(found)} {name}")
    return found[0].text if found else ""
if feed.tag != A + "feed":
    problems.append(f"the root is {feed.tag}")
for name in ["id", "title", "updated"]:
    one(feed, name, "feed")
if not day.match(one(feed, "updated", "feed") or ""):
    problems.append("feed: updated is not an RFC 3339 date")
if not feed.findall(A + "author/" + A + "name"):
    problems.append("feed: no author")
if not [l for l in feed.findall(A + "link") if l.get("rel") == "self"]:
    problems.append("feed: no self link")
ids = set()
for entry in feed.findall(A + "entry"):
    title = one(entry, "title", "entry")
    ids.add(one(entry, "id", title))
    updated = one(entry, "updated", title)
    if not day.match(updated or ""):
        problems.append(f"{title}: updated {updated}")
    one(entry, "summary", title)
    if not [l for l in entry.findall(A + "link") if l.get("rel") == "alternate" and l.get("href")]:
        problems.append(f"{title}: no alternate link")
    print(f"{updated[:10]} {title}")
if len(ids) != len(feed.findall(A + "entry")):
    problems.append("entry ids repeat")
print("\n".join(problems), file=sys.stderr)
sys.exit(1 if problems else 0)
"#;

/// The entries of the Atom feed `xml` as `day title` lines, in order (the
/// lines [`ATOM_CHECK`] prints, which [`assert_valid_atom`] compares).
fn feed_entries(xml: &str) -> Vec<String> {
    xml.split("<entry>")
        .skip(1)
        .map(|entry| {
            let field = |name: &str| {
                entry
                    .split(&format!("<{name}>"))
                    .nth(1)
                    .and_then(|rest| rest.split(&format!("</{name}>")).next())
                    .unwrap_or_else(|| panic!("an entry without <{name}>: {entry}"))
            };
            let day = field("updated").get(..10).expect("a day");
            format!("{day} {}", field("title"))
        })
        .collect()
}

/// Check the Atom feed `xml` with xmllint and [`ATOM_CHECK`], whose
/// entries must be the ones [`feed_entries`] reads.
async fn assert_valid_atom(xml: &str) {
    let scratch = Scratch::new("feed");
    let file = scratch.write("changes.atom", xml);
    let mut xmllint = std::process::Command::new(system_tool("xmllint"));
    xmllint.arg("--noout").arg(&file);
    run(xmllint).await.assert_success();
    let mut check = python_tool("python");
    check.args(["-c", ATOM_CHECK]).arg(&file);
    let outcome = run(check).await;
    outcome.assert_success();
    let entries: Vec<String> = outcome.stdout.lines().map(str::to_string).collect();
    assert_eq!(entries, feed_entries(xml), "{}", outcome.output);
}

#[tokio::test]
async fn the_feed_has_an_entry_per_mark_newest_first() {
    let dev = Dev::start("feed", mark_lifecycles);
    let client = dev.client();
    let reply = client.get("/changes.atom", &[]).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), "application/atom+xml");
    let xml = String::from_utf8(reply.decoded()).expect("UTF-8");
    assert_eq!(
        feed_entries(&xml),
        [
            "2026-09-01 info removed in 3.0",
            "2026-09-01 last removed in 3.0",
            "2026-03-01 last deprecated in 2.0",
            "2026-03-01 rand deprecated in 2.0",
            "2024-01-15 select available since 1.0",
        ]
    );
    assert!(
        xml.contains("<updated>2026-09-01T00:00:00Z</updated>\n<author>"),
        "{xml}"
    );
    assert!(xml.contains(
        "<summary>The method last was removed in version 3.0 (2026-09-01); use log instead.</summary>"
    ));
    assert!(
        xml.contains(&format!(
            "<id>{}/changes.atom#rand-deprecated</id>",
            dev.origin
        )),
        "{xml}"
    );
}

#[tokio::test]
async fn the_shipped_feed_is_empty_and_linked_from_the_homepage_and_llms_txt() {
    let server = start_server().await;
    let xml = text(&server, "/changes.atom", "application/atom+xml").await;
    assert!(feed_entries(&xml).is_empty(), "{xml}");
    // The homepage (English's, without `Accept-Language`) links its
    // language's feed, the same entries linking its pages.
    let home = server.get("/", &[("accept", "text/html")]).await;
    let html = String::from_utf8(home.decoded()).expect("UTF-8");
    assert!(html.contains(
        "<link rel=\"alternate\" type=\"application/atom+xml\" title=\"Changes\" href=\"/en/changes.atom\">"
    ));
    assert!(
        html.contains("<a href=\"/en/changes.atom\"><code>/en/changes.atom</code></a>"),
        "{html}"
    );
    let links = home.links();
    assert!(
        links.contains(
            &"</en/changes.atom>; rel=\"alternate\"; type=\"application/atom+xml\"".into()
        ),
        "{links:?}"
    );
    let llms = text(&server, "/llms.txt", "text/plain").await;
    assert!(llms.contains("/changes.atom): Atom feed"), "{llms}");
    let sitemap = text(&server, "/sitemap.xml", "application/xml").await;
    assert!(!sitemap.contains("changes.atom"), "a feed is not a page");
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn both_feeds_are_valid_atom() {
    let dev = Dev::start("feed-atom", mark_lifecycles);
    let marked = dev.client().get("/changes.atom", &[]).await;
    assert_eq!(marked.status, 200);
    let marked = String::from_utf8(marked.decoded()).expect("UTF-8");
    assert!(!feed_entries(&marked).is_empty(), "{marked}");
    assert_valid_atom(&marked).await;
    // Each language's, its words its own.
    let chinese = dev.client().get("/zh-hans/changes.atom", &[]).await;
    assert_eq!(chinese.status, 200);
    let chinese = String::from_utf8(chinese.decoded()).expect("UTF-8");
    assert_eq!(feed_entries(&chinese).len(), feed_entries(&marked).len());
    assert_valid_atom(&chinese).await;
    let server = start_server().await;
    assert_valid_atom(&text(&server, "/changes.atom", "application/atom+xml").await).await;
}
