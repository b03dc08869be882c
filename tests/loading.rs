//! Loading a whole content directory as the build script does: the method
//! files make the catalog's order and the homepage's groups, links between
//! methods are checked, what is not content is refused unread, and every
//! error of every file is reported at once.

use crate::support::{
    content_copy, lifecycle_copy, mark_method, method_renamed, mkfifo, shipped_methods, Scratch,
};
use refserve_pipeline::content;

/// Load the content of a scratch copy, as the build script would.
fn load(scratch: &Scratch) -> Result<content::Catalog, String> {
    content::load(scratch.path(), "content", "http://x".into(), 0)
        .map(|editions| editions.catalogs.into_iter().next().expect("the source"))
        .map_err(|e| e.to_string())
}

/// Replace `from` (which must occur) with `to` in the scratch copy's `file`.
fn edit(scratch: &Scratch, file: &str, from: &str, to: &str) {
    let path = scratch.path().join(file);
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(text.contains(from), "{file} holds {from:?}");
    scratch.write(file, text.replacen(from, to, 1));
}

#[test]
fn the_real_content_loads_in_catalog_order_and_groups() {
    let catalog = load(&content_copy("real")).expect("content/ is valid");
    let keys: Vec<&str> = catalog.entries.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(
        keys,
        [
            "select", "insert", "update", "delete", "replace", "create", "drop", "get", "has",
            "count", "max", "min", "avg", "sum", "rand", "id", "query", "raw", "quote", "action",
            "debug", "log", "last", "info"
        ]
    );
    let queries = &catalog.site.groups[0];
    assert_eq!(queries.name, "Queries");
    assert_eq!(
        queries.keys,
        ["select", "get", "has", "rand", "insert", "update", "delete", "replace", "id"]
    );
}

#[test]
fn equal_weights_are_ordered_by_key() {
    let scratch = content_copy("weights");
    edit(
        &scratch,
        "content/methods/insert.md",
        "weight = 20\n",
        "weight = 10\n",
    );
    edit(
        &scratch,
        "content/methods/get.md",
        "name = \"Queries\", weight = 20",
        "name = \"Queries\", weight = 10",
    );
    let catalog = load(&scratch).expect("valid");
    let keys: Vec<&str> = catalog.entries.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(keys[..3], ["insert", "select", "update"]);
    assert_eq!(catalog.site.groups[0].keys[..3], ["get", "select", "has"]);
}

#[test]
fn a_catalog_needs_one_method_at_least() {
    let scratch = content_copy("none");
    let methods = scratch.path().join("content/methods");
    std::fs::remove_dir_all(&methods).expect("remove");
    std::fs::create_dir(&methods).expect("mkdir");
    let message = load(&scratch).expect_err("refused");
    assert!(
        message.starts_with("content/methods: holds no method: add one as `<key>.md`"),
        "{message}"
    );
}

#[tokio::test]
async fn three_hundred_methods_are_built_and_found() {
    let scratch = content_copy("many");
    let template =
        std::fs::read_to_string(scratch.path().join("content/methods/drop.md")).expect("drop.md");
    let shipped = shipped_methods().len();
    let added: Vec<String> = (0..300 - shipped)
        .map(|i| format!("many{}{}", letter(i / 26), letter(i % 26)))
        .collect();
    for key in &added {
        let text = method_renamed(&template, "drop", key);
        scratch.write(&format!("content/methods/{key}.md"), text);
    }
    let editions = content::load(scratch.path(), "content", "http://x".into(), 0).expect("valid");
    assert_eq!(editions.source().entries.len(), 300);
    let table = refserve_pipeline::preview(&editions);
    let collection = respond(&table, "/api/reference.json").await;
    assert_eq!(collection["meta"]["count"], 300);
    let last = added.last().expect("added");
    let single = respond(&table, &format!("/api/reference/{last}.json")).await;
    assert_eq!(single["data"]["key"], last.as_str());
    // The search index numbers methods past 255.
    let numbered = table.mcp.index.terms.iter().flat_map(|term| &term.postings);
    assert_eq!(
        numbered.map(|posting| posting.method).max(),
        Some(299),
        "the last method is indexed"
    );
}

/// The `i`th lowercase letter.
fn letter(i: usize) -> char {
    char::from(b'a' + u8::try_from(i).expect("under 26"))
}

/// The JSON `table` answers `GET path` with.
async fn respond(table: &refserve_pipeline::Table, path: &str) -> serde_json::Value {
    use http_body_util::BodyExt;
    let response =
        refserve::respond::respond(table, &http::Method::GET, path, &http::HeaderMap::new());
    assert_eq!(response.status(), 200, "{path}");
    let body = response.into_body().collect().await.expect("infallible");
    serde_json::from_slice(&body.to_bytes()).expect("JSON")
}

#[test]
fn what_is_not_a_method_file_is_refused_but_editors_files() {
    let scratch = content_copy("not-methods");
    for name in [".select.md.swp", "select.md~", "#select.md#", ".#select.md"] {
        scratch.write(&format!("content/methods/{name}"), "{}");
    }
    assert!(load(&scratch).is_ok(), "editors' files are passed over");
    scratch.write("content/methods/extra.json", "{}");
    scratch.write("content/methods/Extra.md", "");
    let message = load(&scratch).expect_err("refused");
    assert_eq!(
        message,
        "content/methods/Extra.md: is not a method file: a method is `<key>.md`, its key in \
         lowercase letters\n\
         content/methods/extra.json: is not a method file: a method is `<key>.md`, its key in \
         lowercase letters"
    );
}

#[test]
fn a_file_whose_key_differs_from_its_name_is_refused() {
    let scratch = content_copy("mismatch");
    let file = "content/methods/drop.md";
    let text = std::fs::read_to_string(scratch.path().join(file)).expect("read");
    scratch.write(
        file,
        text.replace("\"drop\"", "\"dropp\"")
            .replace("drop(", "dropp("),
    );
    assert_eq!(
        load(&scratch).expect_err("refused"),
        "content/methods/drop.md: field `key`: `dropp` differs from the file name `drop`"
    );
}

#[test]
fn links_between_methods_are_resolved_and_checked() {
    let scratch = content_copy("links");
    edit(
        &scratch,
        "content/methods/last.md",
        "Works like `log()`",
        "Works like [`log()`](log.md)",
    );
    let catalog = load(&scratch).expect("a link to a method");
    let last = catalog
        .entries
        .iter()
        .find(|e| e.key == "last")
        .expect("last");
    assert!(
        last.note
            .as_deref()
            .is_some_and(|note| note.starts_with("Works like <code>log()</code>, except")),
        "the JSON note keeps the contract's form: {:?}",
        last.note
    );
    edit(&scratch, "content/methods/last.md", "(log.md)", "(logs.md)");
    edit(
        &scratch,
        "content/methods/log.md",
        "Returns the SQL queries",
        "Returns the [SQL](https://en.wikipedia.org/wiki/SQL) queries, unlike [last](lst.md),",
    );
    assert_eq!(
        load(&scratch).expect_err("refused"),
        "content/methods/last.md: field `note`: links to `logs.md`, but there is no method \
         `logs` (content/methods/logs.md)\n\
         content/methods/log.md: field `description`: links to `lst.md`, but there is no method \
         `lst` (content/methods/lst.md)"
    );
}

#[test]
fn removed_methods_leave_every_list_and_deprecated_ones_stay() {
    let catalog = load(&lifecycle_copy("lifecycle")).expect("valid");
    let keys: Vec<&str> = catalog.entries.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(keys.len(), shipped_methods().len() - 2);
    assert!(
        !keys.contains(&"last") && !keys.contains(&"info"),
        "{keys:?}"
    );
    let removed: Vec<&str> = catalog.removed.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(removed, ["info", "last"]);
    let last = &catalog.removed[1];
    let gone = last.removed.as_ref().expect("removed");
    assert_eq!(
        (
            gone.version.as_str(),
            gone.date.to_string(),
            gone.successor.as_deref()
        ),
        ("3.0", "2026-09-01".to_string(), Some("log"))
    );
    assert!(last.deprecated.is_some(), "its earlier marks are kept");
    let debugging = catalog.site.groups.last().expect("a group");
    assert_eq!(debugging.keys, ["debug", "log"]);
    assert!(catalog
        .site
        .summary
        .contains(&format!("The {} documented", keys.len())));
    let rand = catalog
        .entries
        .iter()
        .find(|e| e.key == "rand")
        .expect("rand");
    let deprecated = rand.deprecated.as_ref().expect("deprecated");
    assert_eq!(deprecated.successor.as_deref(), Some("select"));
}

#[test]
fn a_mark_names_a_method_there_is_and_not_a_removed_one() {
    let scratch = lifecycle_copy("successors");
    // A removed method may link to another removed one: no list shows it.
    edit(
        &scratch,
        "content/methods/last.md",
        "Works like `log()`",
        "Works like [`info`](info.md)",
    );
    assert!(load(&scratch).is_ok());
    mark_method(
        &scratch,
        "quote",
        "deprecated = { version = \"2.0\", date = 2026-03-01, use = \"qoute\" }",
    );
    mark_method(
        &scratch,
        "debug",
        "removed = { version = \"3.0\", date = 2026-09-01, use = \"info\" }",
    );
    edit(
        &scratch,
        "content/methods/log.md",
        "Returns the SQL queries",
        "Returns the SQL queries, unlike [last](last.md),",
    );
    edit(
        &scratch,
        "content/methods/get.md",
        "Fetches a single record",
        "Fetches, unlike [info](info.md), a single record",
    );
    assert_eq!(
        load(&scratch).expect_err("refused"),
        "content/methods/debug.md: field `removed.use`: names `info`, but `info` is removed in \
         3.0: it has no successor to name instead\n\
         content/methods/get.md: field `description`: links to `info.md`, but `info` is removed \
         in 3.0: it has no successor to name instead\n\
         content/methods/log.md: field `description`: links to `last.md`, but `last` is removed \
         in 3.0: name its successor `log` instead\n\
         content/methods/quote.md: field `deprecated.use`: names `qoute`, but there is no method \
         `qoute` (content/methods/qoute.md)"
    );
}

#[test]
fn a_catalog_needs_a_method_that_is_not_removed() {
    let scratch = content_copy("all-removed");
    let methods = scratch.path().join("content/methods");
    for key in shipped_methods() {
        if key != "drop" {
            std::fs::remove_file(methods.join(format!("{key}.md"))).expect("remove");
        }
    }
    // Every group but drop's would be empty: one group is left.
    let site = std::fs::read_to_string(scratch.path().join("content/site.json")).expect("site");
    let mut site: serde_json::Value = serde_json::from_str(&site).expect("JSON");
    site["groups"]
        .as_array_mut()
        .expect("groups")
        .retain(|group| group["name"] == "Schema");
    scratch.write("content/site.json", site.to_string());
    assert!(load(&scratch).is_ok(), "{:?}", load(&scratch).err());
    mark_method(
        &scratch,
        "drop",
        "removed = { version = \"3.0\", date = 2026-09-01 }",
    );
    let message = load(&scratch).expect_err("refused");
    assert!(
        message.starts_with(
            "content/methods: holds no method that is not removed: the reference needs one to list"
        ),
        "{message}"
    );
}

#[test]
fn a_method_that_does_not_read_is_still_there_for_the_others() {
    let scratch = content_copy("unread");
    edit(
        &scratch,
        "content/methods/action.md",
        "name = \"action\"",
        "name = 7",
    );
    edit(
        &scratch,
        "content/methods/last.md",
        "Works like `log()`",
        "Works like [`action()`](action.md)",
    );
    // Not a broken link, a short count or an empty group: the one error.
    assert_eq!(
        load(&scratch).expect_err("refused"),
        "content/methods/action.md: field `name`: invalid type: integer `7`, expected a string \
         at line 3 column 8"
    );
}

#[test]
fn groups_are_those_of_site_json_and_each_has_a_method() {
    let scratch = content_copy("groups");
    edit(
        &scratch,
        "content/methods/action.md",
        "name = \"Transactions\"",
        "name = \"Transaction\"",
    );
    assert_eq!(
        load(&scratch).expect_err("refused"),
        "content/methods/action.md: field `group.name`: `Transaction` is not a group of \
         content/site.json; its groups are `Queries`, `Aggregates`, `Schema`, `Raw SQL`, \
         `Transactions`, `Debugging and connection info`\n\
         content/site.json: field `groups[4]`: no method is in `Transactions`: a method joins a \
         group with `group = { name = \"Transactions\", weight = … }`"
    );
    let scratch = content_copy("old-groups");
    edit(
        &scratch,
        "content/site.json",
        "\"summary\": \"Read, write and remove records.\"",
        "\"summary\": \"Read, write and remove records.\", \"keys\": [\"select\"]",
    );
    let message = load(&scratch).expect_err("refused");
    assert!(
        message.starts_with(
            "content/site.json: field `groups[0].keys`: unknown field `keys`, expected `name` or \
             `summary`"
        ),
        "{message}"
    );
}

#[test]
fn error_texts_are_checked() {
    let scratch = content_copy("errors");
    scratch.write(
        "content/errors.json",
        r#"{ "not_found": { "message": "m" } }"#,
    );
    let message = load(&scratch).expect_err("refused");
    assert_eq!(
        message,
        "content/errors.json: field `not_found`: missing field `hint` at line 1 column 33"
    );
}

#[test]
fn error_texts_cover_exactly_the_server_s_codes() {
    let scratch = content_copy("codes");
    let file = scratch.path().join("content/errors.json");
    let texts = std::fs::read_to_string(&file).expect("errors.json");
    let texts = texts.replacen("\"not_found\"", "\"not_there\"", 1);
    scratch.write("content/errors.json", &texts);
    let message = load(&scratch).expect_err("refused");
    assert_eq!(
        message,
        "content/errors.json: field `not_there`: is not an error code the server uses\n\
         content/errors.json: field `not_found`: is missing: every error code needs a message and a hint"
    );
}

#[test]
fn content_files_are_regular_files_inside_the_directory() {
    let scratch = content_copy("odd-files");
    let file = scratch.path().join("content/methods/select.md");
    let inside = scratch.path().join("content/select.md");
    std::fs::rename(&file, &inside).expect("move within content");
    std::os::unix::fs::symlink(&inside, &file).expect("symlink");
    assert!(
        load(&scratch).is_ok(),
        "a link within the directory is followed"
    );

    let outside = scratch.path().join("select.md");
    std::fs::copy(&inside, &outside).expect("copy");
    std::fs::remove_file(&file).expect("remove");
    std::os::unix::fs::symlink(&outside, &file).expect("symlink");
    assert_eq!(
        load(&scratch).expect_err("refused"),
        "content/methods/select.md: leads outside the content directory (a symbolic link); \
         content files must be inside it"
    );

    std::fs::remove_file(&file).expect("remove");
    mkfifo(&file);
    assert_eq!(
        load(&scratch).expect_err("refused"),
        "content/methods/select.md: is a FIFO; content files must be regular files"
    );

    std::fs::remove_file(&file).expect("remove");
    std::fs::create_dir(&file).expect("mkdir");
    assert_eq!(
        load(&scratch).expect_err("refused"),
        "content/methods/select.md: is a directory; content files must be regular files"
    );
}

#[test]
fn content_files_over_the_cap_are_refused() {
    let scratch = content_copy("cap");
    let cap = usize::try_from(content::MAX_FILE_BYTES).expect("a small cap");
    scratch.write("content/site.json", " ".repeat(cap + 1));
    assert_eq!(
        load(&scratch).expect_err("refused"),
        "content/site.json: is larger than 1 MiB (1048576 bytes), the most a content file may hold"
    );
    scratch.write("content/site.json", " ".repeat(cap));
    let message = load(&scratch).expect_err("read, and refused");
    assert!(
        message.starts_with("content/site.json: is not valid JSON"),
        "{message}"
    );
}

#[test]
fn one_load_reports_the_errors_of_every_file() {
    let scratch = content_copy("several");
    edit(
        &scratch,
        "content/methods/select.md",
        "name = \"select\"",
        "name = 7",
    );
    edit(
        &scratch,
        "content/methods/drop.md",
        "Drops a table",
        "<b>Drops</b> a table",
    );
    edit(&scratch, "content/site.json", "\"title\":", "\"titel\":");
    let message = load(&scratch).expect_err("refused");
    let lines: Vec<&str> = message.lines().collect();
    assert_eq!(
        lines,
        [
            "content/methods/drop.md: field `description`: holds HTML (`<b>`); write Markdown: \
             `code`, *emphasis*, [links](select.md) (line 14)",
            "content/methods/select.md: field `name`: invalid type: integer `7`, \
             expected a string at line 3 column 8",
            "content/site.json: field `titel`: unknown field `titel`, expected one of \
             `title`, `summary`, `about`, `groups`, `content_signals` at line 2 column 9",
        ],
        "{message}"
    );
}

#[test]
fn one_load_reports_every_broken_example_and_link_at_once() {
    let scratch = content_copy("examples");
    edit(
        &scratch,
        "content/methods/select.md",
        "$rows = $database->select('account', ['id', 'email']);",
        "$rows = $database->select('account', ['id', 'email'];",
    );
    edit(
        &scratch,
        "content/methods/raw.md",
        "Library::raw('NOW() - INTERVAL 7 DAY')",
        "Library::raw('NOW() - INTERVAL :days DAY', [':days' => 7], true)",
    );
    edit(
        &scratch,
        "content/methods/count.md",
        "$total = $database->count('account');",
        "$total = $db->count('account');",
    );
    edit(
        &scratch,
        "content/methods/last.md",
        "Works like `log()`",
        "Works like [`log()`](logs.md)",
    );
    let message = load(&scratch).expect_err("refused");
    let lines: Vec<&str> = message.lines().collect();
    assert_eq!(
        lines,
        [
            "content/methods/count.md: field `example \"Every row of a table\"`: the code \
             (line 34) must call the method as its signatures do: `$database->count(…)`",
            "content/methods/last.md: field `note`: links to `logs.md`, but there is no method \
             `logs` (content/methods/logs.md)",
            "content/methods/raw.md: field `example \"Compare a column with an SQL function\"`: \
             calls `Library::raw()` with 3 arguments at line 36; `raw` takes 1 to 2 arguments",
            "content/methods/select.md: field `example \"Two columns of every account\"`: PHP \
             syntax error at line 46: expected ')', found ';'",
        ],
        "{message}"
    );
}

#[test]
fn a_removed_method_s_hints_are_in_errors_json() {
    let scratch = content_copy("removed-hints");
    edit(
        &scratch,
        "content/errors.json",
        "use {successor} instead: /api/{successor}.",
        "use it instead.",
    );
    let errors = scratch.path().join("content/errors.json");
    let text = std::fs::read_to_string(&errors).expect("errors.json");
    let mut texts: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    texts["reference_not_found"]
        .as_object_mut()
        .expect("an object")
        .remove("hint_removed");
    scratch.write("content/errors.json", texts.to_string());
    assert_eq!(
        load(&scratch).expect_err("refused"),
        "content/errors.json: field `method_removed.hint_replaced`: must contain `{successor}` \
         where it goes\n\
         content/errors.json: field `reference_not_found.hint_removed`: is missing: it is the \
         hint at a removed method's address"
    );
}
