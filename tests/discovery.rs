//! Discovery for agents: the Agent Skills index and the skill it lists
//! (Cloudflare's discovery RFC v0.2.0), the MCP server card (SEP-2127's
//! experimental extension), both linked from the RFC 9727 api-catalog, and
//! robots.txt's `Content-Signal` line, which `site.json` changes.
//!
//! Each document is fetched in every representation and coding the table
//! holds; the index's digest must be the SHA-256 of the skill's bytes as
//! served; the skill is checked by the Agent Skills reference validator
//! (`skills-ref`, PyPI) and markdownlint; the card by the JSON Schema its
//! draft publishes, `tests/data/server-card.schema.json`: `schema.json` of
//! modelcontextprotocol/experimental-ext-server-card at commit `8924e08`
//! (2026-07-24), unchanged (Apache-2.0).

use crate::dev::Dev;
use crate::support::{node_tool, python_tool, run, sha256_hex, start_server, Scratch, Server};
use refserve_pipeline::content;
use serde_json::{json, Value};

const INDEX: &str = "/.well-known/agent-skills/index.json";
const CARD: &str = "/mcp/server-card";
const CARD_TYPE: &str = "application/mcp-server-card+json";

/// `sha256:` and the lowercase hex SHA-256 of `bytes`.
fn digest(bytes: &[u8]) -> String {
    format!("sha256:{}", sha256_hex(bytes))
}

/// The index, after checking how it is served.
async fn index(server: &Server) -> Value {
    let reply = server.get(INDEX, &[]).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), "application/json");
    reply.json()
}

/// Every representation the table holds for `path`, in every coding: each
/// is what refserve sends for its media type and coding, with its ETag,
/// and a 304 for that ETag. Returns the media types, in order.
async fn every_representation(server: &Server, path: &str) -> Vec<String> {
    let table = refserve::table::production();
    let resource = table
        .resources
        .iter()
        .find(|resource| resource.id == path)
        .unwrap_or_else(|| panic!("{path} is a resource"));
    let mut types = Vec::new();
    for (index, representation) in resource.representations.iter().enumerate() {
        let media = resource.media_types[index];
        let accept = format!("{}/{}", media.kind, media.subtype);
        for variant in &representation.variants {
            let coding = variant.coding.token();
            if variant.coding.needs_dictionary() {
                continue;
            }
            let headers = [("accept", accept.as_str()), ("accept-encoding", coding)];
            let reply = server.get(path, &headers).await;
            let what = format!("{path} {accept} {coding}");
            assert_eq!(reply.status, 200, "{what}");
            assert!(reply.header("content-type").starts_with(&accept), "{what}");
            assert_eq!(reply.body, variant.body, "{what}");
            let etag = reply.header("etag");
            assert_eq!(etag, variant.etag.to_str().expect("ASCII"), "{what}");
            assert!(etag.starts_with('"'), "{what}: a strong ETag");
            assert_eq!(reply.header("access-control-allow-origin"), "*", "{what}");
            assert!(reply
                .header("cache-control")
                .starts_with("public, max-age=3600"));
            let again = [
                ("accept", accept.as_str()),
                ("accept-encoding", coding),
                ("if-none-match", etag),
            ];
            assert_eq!(server.get(path, &again).await.status, 304, "{what}");
        }
        types.push(accept);
    }
    types
}

#[tokio::test]
async fn the_skills_index_lists_one_skill_whose_digest_is_its_served_bytes() {
    let server = start_server().await;
    assert_eq!(
        every_representation(&server, INDEX).await,
        ["application/json"]
    );
    let index = index(&server).await;
    assert_eq!(
        index["$schema"],
        "https://schemas.agentskills.io/discovery/0.2.0/schema.json"
    );
    let skills = index["skills"].as_array().expect("skills");
    assert_eq!(skills.len(), 1, "{index}");
    let skill = &skills[0];
    let fields: Vec<&String> = skill.as_object().expect("an entry").keys().collect();
    assert_eq!(fields, ["name", "type", "description", "url", "digest"]);
    let name = skill["name"].as_str().expect("name");
    let well_formed = !name.is_empty()
        && name.len() <= 64
        && name.split('-').all(|word| {
            !word.is_empty()
                && word
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        });
    assert!(well_formed, "the RFC's name rule: {name}");
    assert_eq!(skill["type"], "skill-md");
    let description = skill["description"].as_str().expect("description");
    assert!(
        (1..=1024).contains(&description.chars().count()),
        "{description}"
    );
    let digest_field = skill["digest"].as_str().expect("digest");
    let hex = digest_field.strip_prefix("sha256:").expect("sha256:");
    assert!(hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')));

    // The url is path-absolute: resolved against the index's origin.
    let url = skill["url"].as_str().expect("url");
    assert_eq!(url, format!("/.well-known/agent-skills/{name}/SKILL.md"));
    let types = every_representation(&server, url).await;
    assert_eq!(types, ["text/markdown"]);
    // Whatever the coding, the bytes after decoding are the ones digested.
    for coding in ["identity", "gzip", "br"] {
        let reply = server.get(url, &[("accept-encoding", coding)]).await;
        assert_eq!(reply.header("content-type"), "text/markdown; charset=utf-8");
        assert_eq!(digest(&reply.decoded()), digest_field, "{coding}");
    }
    let head = server.request(http::Method::HEAD, url, &[]).await;
    assert_eq!((head.status, head.body.len()), (200, 0));

    // Front matter first, with the index's name and description.
    let text = String::from_utf8(server.get(url, &[]).await.decoded()).expect("UTF-8");
    let front = text
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n"))
        .map(|(front, _)| front)
        .expect("YAML front matter");
    let field = |key: &str| {
        front
            .lines()
            .find_map(|line| line.strip_prefix(&format!("{key}: ")))
            .unwrap_or_else(|| panic!("`{key}` in {front}"))
    };
    assert_eq!(field("name"), name);
    let quoted: String = serde_json::from_str(field("description")).expect("a quoted string");
    assert_eq!(quoted, description);
    // How to reach the reference, over HTTP and over MCP.
    let base = &refserve::table::production().base_url;
    for needle in [
        format!("{base}/llms.txt"),
        format!("{base}/api/reference.json"),
        format!("{base}/mcp"),
        "`search`".to_string(),
        "`get_method`".to_string(),
    ] {
        assert!(text.contains(&needle), "SKILL.md names {needle}");
    }
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn the_skill_passes_the_agent_skills_validator_and_markdownlint() {
    let server = start_server().await;
    let index = index(&server).await;
    let skill = &index["skills"][0];
    let name = skill["name"].as_str().expect("name");
    let url = skill["url"].as_str().expect("url");
    let dir = Scratch::new("skill");
    // The validator wants the skill's directory, named as the skill.
    std::fs::create_dir_all(dir.path().join(name)).expect("the skill's directory");
    let file = dir.write(
        &format!("{name}/SKILL.md"),
        server.get(url, &[]).await.decoded(),
    );
    let folder = file.parent().expect("the skill's directory").to_path_buf();
    let mut validate = python_tool("agentskills");
    validate.arg("validate").arg(&folder);
    run(validate).await.assert_success();
    let mut read = python_tool("agentskills");
    read.arg("read-properties").arg(&folder);
    let properties = run(read).await;
    properties.assert_success();
    let properties: Value = serde_json::from_str(&properties.stdout).expect("JSON");
    assert_eq!(properties["name"], skill["name"]);
    assert_eq!(properties["description"], skill["description"]);

    let mut lint = node_tool("markdownlint-cli2");
    let config = dir.write(
        ".markdownlint.json",
        br#"{"default": true, "MD013": false}"#,
    );
    lint.current_dir(dir.path())
        .arg("--config")
        .arg(config)
        .arg(format!(":{name}/SKILL.md"));
    run(lint).await.assert_success();
}

/// Checks argv[2] (a server card) against argv[1], the draft's schema
/// (whose documents are the `ServerCard` of its `$defs`), formats included.
const CARD_CHECK: &str = r##"
import json, sys
from jsonschema import Draft202012Validator
schema = json.load(open(sys.argv[1]))
Draft202012Validator.check_schema(schema)
card_schema = {**schema, "$ref": "#/$defs/ServerCard"}
validator = Draft202012Validator(card_schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
card = json.load(open(sys.argv[2]))
problems = [f"{e.json_path}: {e.message}" for e in validator.iter_errors(card)]
for change in [{"name": "no-slash"}, {"description": "x" * 101}, {"$schema": "https://example.com/s.json"}]:
    if validator.is_valid({**card, **change}):
        problems.append(f"the schema accepts {change}")
print("\n".join(problems) or "the card meets the schema")
sys.exit(1 if problems else 0)
"##;

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn the_server_card_meets_its_schema() {
    let server = start_server().await;
    let card = server.get(CARD, &[("accept", CARD_TYPE)]).await;
    assert_eq!(card.status, 200);
    let dir = Scratch::new("server-card");
    let card_file = dir.write("server-card.json", card.decoded());
    let schema = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/server-card.schema.json"
    );
    let mut check = python_tool("python");
    check.args(["-c", CARD_CHECK]).arg(schema).arg(card_file);
    let outcome = run(check).await;
    outcome.assert_success();
    assert!(
        outcome.stdout.contains("the card meets the schema"),
        "{}",
        outcome.output
    );
}

#[tokio::test]
async fn the_server_card_is_negotiated_and_agrees_with_the_server_it_describes() {
    let server = start_server().await;
    assert_eq!(
        every_representation(&server, CARD).await,
        [CARD_TYPE, "application/json"]
    );
    // Its own type by default and when asked; JSON for a JSON client; the
    // same bytes either way.
    let default = server.get(CARD, &[]).await;
    assert_eq!(default.header("content-type"), CARD_TYPE);
    assert!(default.header("vary").contains("Accept"));
    let asked = server.get(CARD, &[("accept", CARD_TYPE)]).await;
    assert_eq!(asked.header("content-type"), CARD_TYPE);
    let json_only = server.get(CARD, &[("accept", "application/json")]).await;
    assert_eq!(json_only.header("content-type"), "application/json");
    assert_eq!(json_only.decoded(), asked.decoded());
    let html = server.get(CARD, &[("accept", "text/html")]).await;
    assert_eq!(html.status, 406);

    // What it says agrees with the server it describes.
    let card = asked.json();
    let base = &refserve::table::production().base_url;
    let remotes = card["remotes"].as_array().expect("remotes");
    assert_eq!(remotes.len(), 1);
    assert_eq!(remotes[0]["type"], "streamable-http");
    assert_eq!(remotes[0]["url"], format!("{base}/mcp"));
    let versions: Vec<&str> = remotes[0]["supportedProtocolVersions"]
        .as_array()
        .expect("versions")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(versions, ["2026-07-28", "2025-11-25", "2025-06-18"]);
    let json_headers = [
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
    ];
    for version in &versions[1..] {
        let initialize = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": { "name": "t", "version": "1" } } });
        let result = server
            .post("/mcp", &json_headers, initialize.to_string())
            .await
            .json()["result"]
            .clone();
        assert_eq!(
            result["protocolVersion"], *version,
            "served as the card says"
        );
        assert_eq!(result["serverInfo"]["version"], card["version"]);
        let short_name = card["name"]
            .as_str()
            .and_then(|name| name.split('/').nth(1));
        assert_eq!(short_name, result["serverInfo"]["name"].as_str());
        assert_eq!(result["serverInfo"]["title"], card["title"]);
    }
}

#[tokio::test]
async fn the_api_catalog_links_the_mcp_endpoint_its_card_and_the_skills_index() {
    let server = start_server().await;
    let base = &refserve::table::production().base_url;
    let catalog = server.get("/.well-known/api-catalog", &[]).await.json();
    let linkset = catalog["linkset"].as_array().expect("linkset");
    let context = |anchor: String| {
        linkset
            .iter()
            .find(|context| context["anchor"] == anchor)
            .unwrap_or_else(|| panic!("a context anchored at {anchor}: {catalog}"))
    };
    let items = &context(format!("{base}/.well-known/api-catalog"))["item"];
    assert_eq!(
        items,
        &json!([{ "href": format!("{base}/api/reference.json") }, { "href": format!("{base}/mcp") }])
    );
    let mcp = context(format!("{base}/mcp"));
    assert_eq!(
        mcp["service-desc"],
        json!([{ "href": format!("{base}{CARD}"), "type": CARD_TYPE }])
    );
    let skills = json!([{ "href": format!("{base}{INDEX}"), "type": "application/json" }]);
    assert_eq!(mcp["service-meta"], skills);
    assert_eq!(
        context(format!("{base}/api/reference.json"))["service-meta"],
        skills
    );
    // Every link but the endpoint itself (POST only) is a document served
    // with the type it is linked with.
    for context in linkset {
        for relation in ["service-desc", "service-doc", "service-meta"] {
            for link in context[relation].as_array().into_iter().flatten() {
                let href = link["href"].as_str().expect("href");
                let path = href.strip_prefix(base.as_str()).expect("a link of ours");
                let kind = link["type"].as_str().expect("type");
                let reply = server.get(path, &[("accept", kind)]).await;
                assert_eq!(reply.status, 200, "{href}");
                assert!(reply.header("content-type").starts_with(kind), "{href}");
            }
        }
    }
}

/// The `Content-Signal` lines of robots.txt's `User-agent: *` group.
fn content_signals(robots: &str) -> Vec<String> {
    let group = robots
        .split("User-agent: *\n")
        .nth(1)
        .expect("a User-agent: * group");
    let group = group.split("\n\n").next().unwrap_or_default();
    group
        .lines()
        .filter_map(|line| line.strip_prefix("Content-Signal: "))
        .map(String::from)
        .collect()
}

#[tokio::test]
async fn robots_txt_allows_search_ai_input_and_ai_training_by_default() {
    let server = start_server().await;
    let robots = String::from_utf8(server.get("/robots.txt", &[]).await.decoded()).expect("UTF-8");
    assert_eq!(
        content_signals(&robots),
        ["search=yes, ai-input=yes, ai-train=yes"],
        "{robots}"
    );
}

#[tokio::test]
async fn site_json_changes_the_content_signals() {
    let dev = Dev::start("content-signals", |scratch| {
        let path = scratch.path().join("content/site.json");
        let site = std::fs::read_to_string(&path).expect("site.json");
        let mut site: Value = serde_json::from_str(&site).expect("JSON");
        site["content_signals"] = json!({ "search": true, "ai-train": false });
        scratch.write("content/site.json", site.to_string());
    });
    let robots = dev.client().get("/robots.txt", &[]).await;
    assert_eq!(robots.status, 200);
    let robots = String::from_utf8(robots.decoded()).expect("UTF-8");
    assert_eq!(
        content_signals(&robots),
        ["search=yes, ai-train=no"],
        "ai-input left out is neither granted nor refused: {robots}"
    );
}

#[test]
fn content_signals_that_say_nothing_or_something_else_are_refused() {
    for (signals, error) in [
        (
            json!({}),
            "content/site.json: field `content_signals`: must state at least one of `search`, \
             `ai-input` and `ai-train` (true or false); leave the field out to allow all three",
        ),
        (
            json!({ "search": "yes" }),
            "content/site.json: field `content_signals.search`: invalid type: string \"yes\", \
             expected a boolean",
        ),
        (
            json!({ "ai_train": true }),
            "content/site.json: field `content_signals.ai_train`: unknown field `ai_train`, \
             expected one of `search`, `ai-input`, `ai-train`",
        ),
    ] {
        let scratch = crate::support::content_copy("signals");
        let path = scratch.path().join("content/site.json");
        let mut site: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("site.json"))
                .expect("JSON");
        site["content_signals"] = signals.clone();
        scratch.write(
            "content/site.json",
            serde_json::to_string_pretty(&site).expect("JSON"),
        );
        let message = content::load(scratch.path(), "content", "http://x".into(), 0)
            .map(|_| ())
            .expect_err("refused")
            .to_string();
        assert!(message.starts_with(error), "{signals}: {message}");
    }
}
