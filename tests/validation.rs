//! The build script's content validation: broken content is refused with a
//! message that names the file and the field.

use crate::support::{content_copy, mkfifo, Scratch};
use refserve_pipeline::content::{self, parse_entry};
use serde_json::{json, Value};

const FILE: &str = "content/entries/select.json";

fn good() -> Value {
    json!({
        "key": "select",
        "name": "select",
        "description": "Reads rows.",
        "signature": ["select($table, $columns)", "select($table, $columns, $where)"],
        "parameters": [
            { "table [string]": "The table.", "columns [array/string]": "The columns." },
            { "table [string]": "The table.", "columns [array/string]": "The columns.", "where [array] (optional)": "The filter." }
        ],
        "returns": "[array] The rows.",
        "note": "Use <code>*</code> for all columns.",
        "examples": [{ "title": "Two columns", "code": "$rows = $database->select('account', ['id', 'email']);" }]
    })
}

/// The message for `good()` changed by `edit`.
fn refused(edit: impl FnOnce(&mut Value)) -> String {
    let mut entry = good();
    edit(&mut entry);
    parse_entry(FILE, &entry).expect_err("refused").to_string()
}

#[test]
fn a_good_entry_passes() {
    let entry = parse_entry(FILE, &good()).expect("valid");
    assert_eq!(entry.signatures.len(), 2);
    assert_eq!(entry.parameters.map(|p| p.len()), Some(2));
}

#[test]
fn broken_entries_name_file_and_field() {
    type Edit = Box<dyn FnOnce(&mut Value)>;
    let cases: Vec<(Edit, &str)> = vec![
        (Box::new(|e| e["key"] = json!("Select")), "content/entries/select.json: field `key`: `Select` does not match ^[a-z]+$"),
        (Box::new(|e| e["name"] = json!("pick")), "field `name`: `pick` must equal the key `select`"),
        (Box::new(|e| e["description"] = json!("")), "field `description`: must not be empty"),
        (Box::new(|e| e["signature"] = json!(["select($table)"])), "field `signature`: an array needs two or more call forms"),
        (Box::new(|e| e["signature"] = json!(42)), "field `signature`: invalid type: integer `42`, expected a string or an array of strings"),
        (Box::new(|e| e["signature"][1] = json!(7)), "field `signature[1]`: invalid type: integer `7`, expected a string"),
        (Box::new(|e| e["parameters"][1]["where [array] (optional)"] = json!(["x"])), "field `parameters[1].where [array] (optional)`: invalid type: sequence, expected a string"),
        (Box::new(|e| e["signature"][0] = json!("choose($table, $columns)")), "field `signature[0]`: `choose($table, $columns)` must read `select($a, $b)`"),
        (
            Box::new(|e| e["parameters"].as_array_mut().map(|p| p.pop()).map(drop).unwrap_or_default()),
            "field `parameters`: has 1 objects for 2 signatures; give one per signature",
        ),
        (Box::new(|e| e["parameters"] = json!({})), "field `parameters`: must be an array of 2 objects, one per signature"),
        (
            Box::new(|e| e["parameters"][0] = json!({ "table": "x", "columns [array/string]": "y" })),
            "field `parameters[0].table`: the label must read `<name> [<type>]`",
        ),
        (
            Box::new(|e| e["parameters"][0] = json!({ "table [string]": "x", "colums [array]": "y" })),
            "field `parameters[0].colums [array]`: names no `$colums` of signature `select($table, $columns)`",
        ),
        (
            Box::new(|e| e["parameters"][1] = json!({ "table [string]": "x", "columns [array]": "y" })),
            "field `parameters[1]`: must describe $table, $columns, $where of `select($table, $columns, $where)`, in that order",
        ),
        (Box::new(|e| e["parameters"][0]["table [string]"] = json!("")), "must describe the parameter"),
        (Box::new(|e| e["returns"] = json!("array of rows")), "field `returns`: `array of rows` must start with the type in square brackets"),
        (Box::new(|e| e["note"] = json!("<b>bold</b>")), "field `note`: may contain only balanced <code>…</code> tags"),
        (Box::new(|e| e["note"] = json!("<code>open")), "field `note`: has an unclosed <code> tag"),
        (Box::new(|e| e["returnz"] = json!("[int] x")), "unknown field `returnz`, expected one of `key`, `name`"),
        (Box::new(|e| e["examples"][0]["titel"] = json!("x")), "field `examples[0].titel`: unknown field `titel`, expected `title` or `code`"),
        (Box::new(|e| drop(e.as_object_mut().map(|o| o.remove("signature")))), "missing field `signature`"),
        (Box::new(|e| drop(e.as_object_mut().map(|o| o.remove("examples")))), "field `examples`: is required: every method needs at least one example"),
        (Box::new(|e| e["examples"] = json!([])), "field `examples`: must be a non-empty array"),
        (Box::new(|e| e["examples"][0]["title"] = json!("Two\ncolumns")), "field `examples[0].title`: must be one line"),
        (Box::new(|e| e["examples"][0]["title"] = json!("<b>Two</b>")), "field `examples[0].title`: must be plain text"),
        (Box::new(|e| drop(e["examples"][0].as_object_mut().map(|o| o.remove("code")))), "field `examples[0]`: missing field `code`"),
        (Box::new(|e| e["examples"][0]["code"] = json!("$rows = $database->get('account', 'id');")), "field `examples[0].code`: must call the method: `->select(`"),
        (Box::new(|e| e["examples"][0]["code"] = json!("<?php $database->select('a', 'b');")), "field `examples[0].code`: must not open with <?php"),
        (Box::new(|e| e["examples"][0]["code"] = json!("$database->select('a', 'b'); ")), "field `examples[0].code`: must have no tabs or trailing spaces"),
    ];
    for (edit, expected) in cases {
        let message = refused(edit);
        assert!(
            message.contains(expected),
            "expected {expected:?}\n     got {message:?}"
        );
        assert!(message.starts_with(FILE), "{message}");
    }
}

#[test]
fn single_signature_entries_take_an_object() {
    let drop_entry = json!({
        "key": "drop", "name": "drop", "description": "Drops a table.",
        "signature": "drop($table)",
        "parameters": [{ "table [string]": "The table." }],
        "returns": "[handle] The statement handle."
    });
    let message = parse_entry("content/entries/drop.json", &drop_entry)
        .expect_err("refused")
        .to_string();
    assert!(
        message.contains("field `parameters`: must be an object: the entry has a single signature"),
        "{message}"
    );
}

#[test]
fn parameters_may_be_absent_only_without_parameters() {
    let info = json!({
        "key": "info", "name": "info", "description": "Connection facts.", "signature": "info()",
        "examples": [{ "title": "Facts", "code": "$facts = $database->info();" }]
    });
    assert!(parse_entry("content/entries/info.json", &info).is_ok());
    let quote = json!({ "key": "quote", "name": "quote", "description": "Quotes.", "signature": "quote($string)" });
    let message = parse_entry("content/entries/quote.json", &quote)
        .expect_err("refused")
        .to_string();
    assert!(
        message.contains("field `parameters`: is required"),
        "{message}"
    );
}

#[test]
fn base_urls_are_checked() {
    assert_eq!(
        content::base_url("https://docs.example.com")
            .as_deref()
            .ok(),
        Some("https://docs.example.com")
    );
    assert!(content::base_url("http://127.0.0.1:8080/docs").is_ok());
    for bad in [
        "docs.example.com",
        "ftp://x",
        "https://x/",
        "https://",
        "https://x?y",
        "https://x y",
    ] {
        let message = content::base_url(bad).expect_err(bad).to_string();
        assert!(message.starts_with("REFSERVE_BASE_URL: "), "{message}");
    }
}

/// Load the content of a scratch copy, as the build script would.
fn load(scratch: &Scratch) -> Result<content::Catalog, String> {
    content::load(scratch.path(), "content", "http://x".into(), None).map_err(|e| e.to_string())
}

#[test]
fn the_real_content_loads() {
    let catalog = load(&content_copy("real")).expect("content/ is valid");
    assert_eq!(catalog.entries.len(), 24);
}

#[test]
fn the_catalog_must_hold_exactly_the_24_keys() {
    let scratch = content_copy("count");
    let text = std::fs::read_to_string(scratch.path().join("content/catalog.json")).expect("read");
    scratch.write(
        "content/catalog.json",
        text.replace("    \"info\"\n", "")
            .replace("\"last\",", "\"last\""),
    );
    let message = load(&scratch).expect_err("refused");
    assert_eq!(
        message.lines().next(),
        Some("content/catalog.json: field `entries`: lists 23 entries; the catalog has exactly 24"),
        "{message}"
    );
    // Every error of the load, not only the first.
    assert!(
        message.contains(
            "\ncontent/entries/info.json: is not listed in content/catalog.json `entries`\n"
        ),
        "{message}"
    );
}

#[test]
fn entry_files_must_be_listed() {
    let scratch = content_copy("unlisted");
    scratch.write("content/entries/extra.json", "{}");
    let message = load(&scratch).expect_err("refused");
    assert_eq!(
        message,
        "content/entries/extra.json: is not listed in content/catalog.json `entries`"
    );
}

#[test]
fn duplicate_keys_are_refused() {
    let scratch = content_copy("duplicate");
    let text = std::fs::read_to_string(scratch.path().join("content/catalog.json")).expect("read");
    scratch.write(
        "content/catalog.json",
        text.replace("\"insert\"", "\"select\""),
    );
    let message = load(&scratch).expect_err("refused");
    assert_eq!(
        message.lines().next(),
        Some("content/catalog.json: field `entries[1]`: `select` is listed twice"),
        "{message}"
    );
    // The files that name the key dropped are errors of the same load.
    let site = message
        .lines()
        .find(|line| line.starts_with("content/site.json: "))
        .unwrap_or_default();
    assert!(
        site.ends_with(": `insert` is not a key the catalog lists"),
        "{message}"
    );
}

#[test]
fn a_file_whose_key_differs_from_its_name_is_refused() {
    let scratch = content_copy("mismatch");
    let text =
        std::fs::read_to_string(scratch.path().join("content/entries/drop.json")).expect("read");
    scratch.write(
        "content/entries/drop.json",
        text.replace("\"drop\"", "\"dropp\"")
            .replace("drop(", "dropp("),
    );
    let message = load(&scratch).expect_err("refused");
    assert_eq!(
        message,
        "content/entries/drop.json: field `key`: `dropp` differs from the file name `drop`"
    );
}

#[test]
fn invalid_json_is_reported_with_its_position() {
    let scratch = content_copy("json");
    scratch.write("content/entries/max.json", "{ \"key\": ");
    let message = load(&scratch).expect_err("refused");
    assert!(
        message.starts_with("content/entries/max.json: is not valid JSON"),
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
    let file = scratch.path().join("content/entries/select.json");
    let inside = scratch.path().join("content/select.json");
    std::fs::rename(&file, &inside).expect("move within content");
    std::os::unix::fs::symlink(&inside, &file).expect("symlink");
    assert!(
        load(&scratch).is_ok(),
        "a link within the directory is followed"
    );

    let outside = scratch.path().join("select.json");
    std::fs::copy(&inside, &outside).expect("copy");
    std::fs::remove_file(&file).expect("remove");
    std::os::unix::fs::symlink(&outside, &file).expect("symlink");
    assert_eq!(
        load(&scratch).expect_err("refused"),
        "content/entries/select.json: leads outside the content directory (a symbolic link); \
         content files must be inside it"
    );

    std::fs::remove_file(&file).expect("remove");
    mkfifo(&file);
    assert_eq!(
        load(&scratch).expect_err("refused"),
        "content/entries/select.json: is a FIFO; content files must be regular files"
    );

    std::fs::remove_file(&file).expect("remove");
    std::fs::create_dir(&file).expect("mkdir");
    assert_eq!(
        load(&scratch).expect_err("refused"),
        "content/entries/select.json: is a directory; content files must be regular files"
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
    let edit = |file: &str, from: &str, to: &str| {
        let path = scratch.path().join(file);
        let text = std::fs::read_to_string(&path).expect("read");
        assert!(text.contains(from), "{file} holds {from}");
        scratch.write(file, text.replace(from, to));
    };
    edit(
        "content/entries/select.json",
        "\"name\": \"select\"",
        "\"name\": 7",
    );
    edit(
        "content/entries/drop.json",
        "\"Drops a table",
        "\"<b>Drops</b> a table",
    );
    edit("content/site.json", "\"title\":", "\"titel\":");
    let message = load(&scratch).expect_err("refused");
    let lines: Vec<&str> = message.lines().collect();
    assert_eq!(
        lines,
        [
            "content/entries/select.json: field `name`: invalid type: integer `7`, \
             expected a string at line 3 column 11",
            "content/entries/drop.json: field `description`: must be plain text (no HTML or Markdown)",
            "content/site.json: field `titel`: unknown field `titel`, expected one of \
             `title`, `summary`, `about`, `groups` at line 2 column 9",
        ],
        "{message}"
    );
}
