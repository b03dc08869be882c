//! The build script's validation of one method file (`content/methods/<key>.md`):
//! broken content is refused with a message that names the file and the
//! field (a front matter field's path, or the part of the body: the
//! description, the note, an example by its title). `tests/loading.rs`
//! loads whole content directories.

use refserve_pipeline::content::{self, parse_method};

const FILE: &str = "content/methods/select.md";

/// A valid method file with two signatures, a note and two examples.
const GOOD: &str = r#"+++
key = "select"
name = "select"
weight = 10
group = { name = "Queries", weight = 10 }
synonyms = ["fetch", "read"]
signature = ["select($table, $columns)", "select($table, $columns, $where)"]
returns = "[array] The rows."

[[parameters]]
"table [string]" = "The table."
"columns [array/string]" = "The columns."

[[parameters]]
"table [string]" = "The table."
"columns [array/string]" = "The columns."
"where [array] (optional)" = "The filter."
+++

Reads *rows* of a table.

## Note

Use `*` for all columns.

## Examples

### Two columns

```php
$rows = $database->select('account', ['id', 'email']);
```

### Filtered

```php
$rows = $database->select('account', 'id', ['status' => 'active']);
```
"#;

/// The message for `GOOD` with `from` replaced by `to` (which must occur).
fn refused(from: &str, to: &str) -> String {
    assert!(GOOD.contains(from), "GOOD holds {from:?}");
    parse_method(FILE, &GOOD.replacen(from, to, 1))
        .expect_err("refused")
        .to_string()
}

/// Each `((from, to), expected)`: GOOD with `from` made `to` is refused
/// with a message naming FILE and holding `expected`.
fn refuses_each(cases: &[((&str, &str), &str)]) {
    for &((from, to), expected) in cases {
        let message = refused(from, to);
        assert!(
            message.contains(expected),
            "expected {expected:?}\n     got {message:?}"
        );
        assert!(message.starts_with(FILE), "{message}");
    }
}

#[test]
fn a_good_method_file_passes() {
    let entry = parse_method(FILE, GOOD).expect("valid");
    assert_eq!(entry.signatures.len(), 2);
    assert_eq!(entry.parameters.map(|p| p.len()), Some(2));
    assert_eq!(entry.description, "Reads rows of a table.");
    assert_eq!(
        entry.note.as_deref(),
        Some("Use <code>*</code> for all columns.")
    );
    assert_eq!(entry.examples.len(), 2);
    assert_eq!(entry.examples[1].title, "Filtered");
    assert_eq!(
        entry.examples[0].code,
        "$rows = $database->select('account', ['id', 'email']);"
    );
    assert_eq!(entry.synonyms, ["fetch", "read"]);
}

#[test]
fn broken_front_matter_names_file_and_field() {
    let cases = [
        (("key = \"select\"", "key = \"Select\""), "content/methods/select.md: field `key`: `Select` does not match ^[a-z]+$"),
        (("name = \"select\"", "name = \"pick\""), "field `name`: `pick` must equal the key `select`"),
        (
            ("signature = [\"select($table, $columns)\", \"select($table, $columns, $where)\"]", "signature = [\"select($table)\"]"),
            "field `signature`: an array needs two or more call forms",
        ),
        (("signature = [", "signature = 42 #"), "field `signature`: invalid type: integer `42`, expected a string or an array of strings at line 7 column 13"),
        (("\"select($table, $columns, $where)\"]", "7]"), "field `signature[1]`: invalid type: integer `7`, expected a string"),
        (("\"The filter.\"", "[\"x\"]"), "field `parameters[1].where [array] (optional)`: invalid type: sequence, expected a string at line 17 column 30"),
        (("[\"select($table, $columns)\"", "[\"choose($table, $columns)\""), "field `signature[0]`: `choose($table, $columns)` must read `select($a, $b)`"),
        (
            ("[[parameters]]\n\"table [string]\" = \"The table.\"\n\"columns [array/string]\" = \"The columns.\"\n\n", ""),
            "field `parameters`: has 1 objects for 2 signatures; give one per signature",
        ),
        (("\"table [string]\" = \"The table.\"\n\"columns [array/string]\" = \"The columns.\"\n\n[[", "\"table\" = \"x\"\n\"columns [array/string]\" = \"y\"\n\n[["), "field `parameters[0].table`: the label must read `<name> [<type>]`"),
        (("\"columns [array/string]\" = \"The columns.\"\n\n", "\"colums [array]\" = \"y\"\n\n"), "field `parameters[0].colums [array]`: names no `$colums` of signature `select($table, $columns)`"),
        (("\"where [array] (optional)\" = \"The filter.\"\n", ""), "field `parameters[1]`: must describe $table, $columns, $where of `select($table, $columns, $where)`, in that order"),
        (("\"table [string]\" = \"The table.\"", "\"table [string]\" = \"\""), "must describe the parameter"),
        (("\"[array] The rows.\"", "\"array of rows\""), "field `returns`: `array of rows` must start with the type in square brackets"),
        (("returns =", "returnz ="), "unknown field `returnz`, expected one of `key`, `name`, `weight`"),
        (("signature = [\"select($table, $columns)\", \"select($table, $columns, $where)\"]\n", ""), "missing field `signature`"),
        (("weight = 10\n", "weight = -1\n"), "field `weight`: invalid value: integer `-1`, expected u32"),
        (("group = { name = \"Queries\", weight = 10 }", "group = \"Queries\""), "field `group`: invalid type: string \"Queries\", expected a table like { name = \"Queries\", weight = 10 }"),
        (("name = \"Queries\",", "name = \"\","), "field `group.name`: must not be empty"),
        (("synonyms = [\"fetch\", \"read\"]", "synonyms = [\"the\", \"read\", \"read\"]"), "field `synonyms[0]`: holds no word to search with"),
        (("synonyms = [\"fetch\", \"read\"]", "synonyms = [\"fetch\", \"read\", \"read\"]"), "field `synonyms[2]`: `read` is given twice"),
        (("key = \"select\"\n", "key = \"select\"\nkey = \"x\"\n"), "the front matter is not valid TOML: "),
    ];
    refuses_each(&cases);
}

/// GOOD with `marks` (front matter lines) added after its `returns`.
fn marked(marks: &str) -> String {
    GOOD.replacen(
        "returns = \"[array] The rows.\"\n",
        &format!("returns = \"[array] The rows.\"\n{marks}"),
        1,
    )
}

#[test]
fn lifecycle_marks_are_read_with_their_dates() {
    let entry = parse_method(
        FILE,
        &marked(
            "since = { version = \"1.2\", date = 2025-03-01 }\n\
             deprecated = { version = \"2.0-beta.1\", date = \"2026-11-01\", use = \"get\" }\n\
             removed = { version = \"3.0\", date = 2026-11-20 }\n",
        ),
    )
    .expect("valid");
    let since = entry.since.as_ref().expect("since");
    assert_eq!(
        (since.version.as_str(), since.date.to_string()),
        ("1.2", "2025-03-01".to_string())
    );
    let deprecated = entry.deprecated.as_ref().expect("deprecated");
    assert_eq!(deprecated.date.to_string(), "2026-11-01");
    assert_eq!(deprecated.successor.as_deref(), Some("get"));
    let removed = entry.removed.as_ref().expect("removed");
    assert_eq!(
        (removed.version.as_str(), removed.successor.as_deref()),
        ("3.0", None)
    );
    let unmarked = parse_method(FILE, GOOD).expect("valid");
    assert_eq!(
        (unmarked.since, unmarked.deprecated, unmarked.removed),
        (None, None, None)
    );
}

#[test]
fn broken_lifecycle_marks_name_file_and_field() {
    let cases = [
        ("since = { version = \"1.2\", date = \"2025-02-30\" }\n", "content/methods/select.md: field `since.date`: `2025-02-30` is not a day: expected a date like 2026-11-01 (a TOML date or a string YYYY-MM-DD)"),
        ("since = { version = \"1.2\", date = 2025-02-30 }\n", "the front matter is not valid TOML: invalid date, expected day between 01 and 28 at line 9"),
        ("since = { version = \"1.2\", date = \"1 March 2025\" }\n", "field `since.date`: `1 March 2025` is not a day"),
        ("since = { version = \"1.2\", date = 2025-03-01T10:00:00 }\n", "field `since.date`: `2025-03-01T10:00:00` has a time"),
        ("since = { version = \"1.2\", date = 20250301 }\n", "field `since.date`: invalid type: integer `20250301`, expected a date like 2026-11-01"),
        ("since = { version = \"1.2\" }\n", "field `since`: missing field `date`"),
        ("since = { version = \"1.2\", date = 2025-03-01, use = \"get\" }\n", "field `since.use`: unknown field `use`, expected `version` or `date`"),
        ("deprecated = { version = \"2.0\", date = 2026-11-01, instead = \"get\" }\n", "field `deprecated.instead`: unknown field `instead`, expected one of `version`, `date`, `use`"),
        ("deprecated = \"2.0\"\n", "field `deprecated`: invalid type: string \"2.0\", expected a table like { version = \"2.0\", date = 2026-11-01, use = \"select\" }"),
        ("removed = { version = \"v3\", date = 2026-11-20 }\n", "field `removed.version`: `v3` is not a version like `2.0` or `3.0-beta.1`"),
        ("deprecated = { version = \"2.0\", date = 2026-11-01, use = \"Get\" }\n", "field `deprecated.use`: `Get` is not a method's key (^[a-z]+$)"),
        ("removed = { version = \"3.0\", date = 2026-11-20, use = \"select\" }\n", "field `removed.use`: names the method itself"),
        (
            "deprecated = { version = \"2.0\", date = 2026-11-01 }\nremoved = { version = \"3.0\", date = 2026-10-01 }\n",
            "field `removed.date`: 2026-10-01 is before the date of `deprecated` (2026-11-01)",
        ),
    ];
    for (marks, expected) in cases {
        let message = parse_method(FILE, &marked(marks))
            .expect_err(marks)
            .to_string();
        assert!(
            message.contains(expected),
            "expected {expected:?}\n     got {message:?}"
        );
        assert!(message.starts_with(FILE), "{message}");
    }
}

#[test]
fn a_broken_body_names_the_part_and_the_example_by_its_title() {
    let cases = [
        (("Reads *rows* of a table.\n\n", ""), "field `description`: is required: the body opens with a paragraph"),
        (("Reads *rows* of a table.\n", "Reads *rows* of a table.\n\nAnd more.\n"), "field `description`: is one paragraph; another starts at line 22"),
        (("Reads *rows*", "Reads <b>rows</b>"), "field `description`: holds HTML (`<b>`)"),
        (("Reads *rows*", "Reads [rows](/api/select)"), "field `description`: links to `/api/select`: link to a method by its file, as `[select](select.md)`"),
        (("Reads *rows* of a table.", "Reads rows where a > b."), "field `description`: holds `<` or `>`"),
        (("Use `*` for all", "Use <b>*</b> for all"), "field `note`: holds HTML (`<b>`)"),
        (("Use `*` for all", "Use `<*>` for all"), "field `note`: holds `<`, or `>` outside code"),
        (("## Note", "## Usage"), "content/methods/select.md: the heading `## Usage` at line 22: a method's body is its description"),
        (("Use `*` for all columns.", "- a list"), "content/methods/select.md: a list at line 24"),
        (("## Examples\n", "## Examples\n\n## Note\n\nAgain.\n"), "field `note`: a second `## Note` at line"),
        (("### Two columns", "### Two `columns`"), "field `example \"Two columns\"`: the title at line 28 must be plain text"),
        (("```php\n$rows = $database->select('account', ['id', 'email']);\n```\n", ""), "field `example \"Two columns\"`: has no ```php block (heading at line 28)"),
        (("```php\n$rows = $database->select('account', ['id', 'email'])", "```js\n$rows = $database->select('account', ['id', 'email'])"), "field `example \"Two columns\"`: the code block at line 30 must be fenced as ```php"),
        (("$database->select('account', 'id'", "$database->get('account', 'id'"), "field `example \"Filtered\"`: the code (line 36) must call the method as its signatures do: `$database->select(…)`"),
        (("```php\n$rows = $database->select('account', 'id'", "```php\n<?php $database->select('account', 'id'"), "field `example \"Filtered\"`: the code (line 36) must not open with <?php"),
        (("['id', 'email']);\n", "['id', 'email']); \n"), "field `example \"Two columns\"`: the code (line 30) must have no tabs or trailing spaces"),
        (("### Two columns", "###"), "field `examples[0]`: must not be empty"),
    ];
    refuses_each(&cases);
    let without_examples = &GOOD[..GOOD.find("## Examples").expect("examples")];
    let message = parse_method(FILE, without_examples)
        .expect_err("refused")
        .to_string();
    assert_eq!(
        message,
        "content/methods/select.md: field `examples`: is required: every method needs at least one \
         example (`## Examples`, then `### title` and a ```php block)"
    );
}

#[test]
fn an_example_must_parse_as_php_and_call_its_method_as_a_signature_does() {
    // GOOD's signatures take 2 arguments, or 2 to 3: `$where` is optional.
    let cases = [
        (("['id', 'email']);", "['id', 'email'];"), "content/methods/select.md: field `example \"Two columns\"`: PHP syntax error at line 31: expected ')', found ';'"),
        (("['id', 'email']);\n", "['id', 'email'])\necho $rows;\n"), "field `example \"Two columns\"`: PHP syntax error at line 32: expected ';' after expression"),
        (("['status' => 'active']);", "['status' => \"active]);"), "field `example \"Filtered\"`: PHP syntax error at line 37: unterminated string literal"),
        (("$database->select('account', 'id'", "$db->select('account', 'id'"), "field `example \"Filtered\"`: the code (line 36) must call the method as its signatures do: `$database->select(…)`"),
        (("$rows = $database->select('account', 'id'", "$rows = $database->get('account', 'id'"), "field `example \"Filtered\"`: the code (line 36) must call the method as its signatures do: `$database->select(…)`"),
        (("['status' => 'active']);", "['status' => 'active'], 'id', 'desc');"), "field `example \"Filtered\"`: calls `$database->select()` with 5 arguments at line 37; `select` takes 2 to 3 arguments"),
        (("$database->select('account', ['id', 'email']);", "$database->select('account');"), "field `example \"Two columns\"`: calls `$database->select()` with 1 argument at line 31; `select` takes 2 to 3 arguments"),
        (("$database->select('account', ['id', 'email']);", "$database->select(...$a, ...$b);\n$database->select('account', 'id', [], 'x', ...$rest);"), "field `example \"Two columns\"`: calls `$database->select()` with 4 arguments and a spread at line 32; `select` takes 2 to 3 arguments"),
        (("$database->select('account', ['id', 'email']);", "$database->select(table: 'account', columns: 'id');"), "field `example \"Two columns\"`: passes `table:` to `$database->select()` by name at line 31; pass arguments by position"),
    ];
    refuses_each(&cases);
    // Every call is checked, inside closures too; a spread may stand for
    // the arguments after those written; first-class callables and other
    // objects' methods are not calls of the method.
    let good = GOOD.replace(
        "$rows = $database->select('account', ['id', 'email']);",
        "$pick = $database->select(...);\n$other->select('x');\n\
         $rows = array_map(fn ($t) => $database->select($t, ...$columns), $tables);",
    );
    assert!(parse_method(FILE, &good).is_ok(), "{good}");
    let bad = good.replace(
        "$database->select($t, ...$columns)",
        "$database?->select($t)",
    );
    assert!(
        parse_method(FILE, &bad)
            .expect_err("refused")
            .to_string()
            .contains("calls `$database->select()` with 1 argument at line 33"),
        "{bad}"
    );
}

#[test]
fn a_static_form_is_called_on_its_class_and_a_method_without_parameters_with_none() {
    let raw = r#"+++
key = "raw"
name = "raw"
weight = 180
group = { name = "Raw SQL", weight = 20 }
signature = "Library::raw($query, $map)"

[parameters]
"query [string]" = "The fragment."
"map [array] (optional)" = "Its values."
+++

A raw fragment.

## Examples

### Now

```php
$now = Library::raw('NOW()');
```
"#;
    let file = "content/methods/raw.md";
    assert!(parse_method(file, raw).is_ok());
    for (call, expected) in [
        (
            "$database->raw('NOW()')",
            "the code (line 19) must call the method as its signatures do: `Library::raw(…)`",
        ),
        (
            "Library::raw('NOW()', [], 1)",
            "calls `Library::raw()` with 3 arguments at line 20; `raw` takes 1 to 2 arguments",
        ),
        (
            "Library::raw()",
            "calls `Library::raw()` with no arguments at line 20; `raw` takes 1 to 2 arguments",
        ),
    ] {
        let message = parse_method(file, &raw.replace("Library::raw('NOW()')", call))
            .expect_err(call)
            .to_string();
        assert_eq!(
            message,
            format!("{file}: field `example \"Now\"`: {expected}"),
            "{call}"
        );
    }
    let info = raw
        .replace("\"raw\"", "\"info\"")
        .replace("Library::raw($query, $map)", "info()")
        .replace(
            "\n[parameters]\n\"query [string]\" = \"The fragment.\"\n\"map [array] (optional)\" = \"Its values.\"\n",
            "",
        );
    let file = "content/methods/info.md";
    let call = info.replace("Library::raw('NOW()')", "$database->info()");
    assert!(parse_method(file, &call).is_ok(), "{call}");
    let message = parse_method(
        file,
        &call.replace("$database->info()", "$database->info('x')"),
    )
    .expect_err("refused")
    .to_string();
    assert!(
        message.ends_with(
            "calls `$database->info()` with 1 argument at line 16; `info` takes no arguments"
        ),
        "{message}"
    );
}

#[test]
fn a_file_without_front_matter_is_refused() {
    let body = &GOOD[GOOD.find("Reads").expect("body")..];
    assert_eq!(
        parse_method(FILE, body).expect_err("refused").to_string(),
        "content/methods/select.md: must open with its front matter: a `+++` line, the TOML \
         fields, a `+++` line"
    );
}

#[test]
fn every_error_of_a_file_comes_at_once() {
    let broken = GOOD
        .replace("name = \"select\"", "name = \"pick\"")
        .replace("Use `*` for all", "Use <b>*</b> for all")
        .replace(
            "$database->select('account', 'id'",
            "$database->get('account', 'id'",
        );
    let message = parse_method(FILE, &broken)
        .expect_err("refused")
        .to_string();
    let lines: Vec<&str> = message.lines().collect();
    assert_eq!(
        lines,
        [
            "content/methods/select.md: field `note`: holds HTML (`<b>`); write Markdown: `code`, \
             *emphasis*, [links](select.md) (line 24)",
            "content/methods/select.md: field `name`: `pick` must equal the key `select`",
            "content/methods/select.md: field `example \"Filtered\"`: the code (line 36) must \
             call the method as its signatures do: `$database->select(…)`",
        ],
        "{message}"
    );
    // A front matter that does not fit its type leaves the rules that need
    // it unchecked, but not the body's shape.
    let message = parse_method(FILE, &broken.replace("name = \"pick\"", "name = 7"))
        .expect_err("refused")
        .to_string();
    let lines: Vec<&str> = message.lines().collect();
    assert_eq!(
        lines,
        [
            "content/methods/select.md: field `name`: invalid type: integer `7`, expected a \
             string at line 3 column 8",
            "content/methods/select.md: field `note`: holds HTML (`<b>`); write Markdown: `code`, \
             *emphasis*, [links](select.md) (line 24)",
        ],
        "{message}"
    );
}

#[test]
fn single_signature_methods_take_one_parameter_table() {
    let drop = r#"+++
key = "drop"
name = "drop"
weight = 70
group = { name = "Schema", weight = 20 }
signature = "drop($table)"
returns = "[handle] The statement handle."

[[parameters]]
"table [string]" = "The table."
+++

Drops a table.

## Examples

### Drop it

```php
$database->drop('log');
```
"#;
    let message = parse_method("content/methods/drop.md", drop)
        .expect_err("refused")
        .to_string();
    assert!(
        message.contains("field `parameters`: must be an object: the entry has a single signature"),
        "{message}"
    );
    let drop = drop.replace("[[parameters]]", "[parameters]");
    assert!(parse_method("content/methods/drop.md", &drop).is_ok());
}

#[test]
fn parameters_may_be_absent_only_without_parameters() {
    let info = r#"+++
key = "info"
name = "info"
weight = 240
group = { name = "Debugging", weight = 40 }
signature = "info()"
+++

Connection facts.

## Examples

### Facts

```php
$facts = $database->info();
```
"#;
    assert!(parse_method("content/methods/info.md", info).is_ok());
    let quote = info
        .replace("info", "quote")
        .replace("quote()\"", "quote($string)\"");
    let message = parse_method("content/methods/quote.md", &quote)
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

#[test]
fn the_front_matter_schema_names_the_fields_the_build_reads() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/content/method.schema.json");
    let text = std::fs::read_to_string(path).expect("the schema");
    let schema: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let properties: Vec<&str> = schema["properties"]
        .as_object()
        .expect("properties")
        .keys()
        .map(String::as_str)
        .collect();
    // The build's fields, as its message for an unknown one lists them.
    let message = refused("key = \"select\"\n", "key = \"select\"\nzz = 1\n");
    let listed = message
        .split("expected one of ")
        .nth(1)
        .and_then(|rest| rest.split(" at line").next())
        .expect("the fields the build reads");
    let read: Vec<&str> = listed.split(", ").map(|f| f.trim_matches('`')).collect();
    assert_eq!(properties, read, "{message}");
    // Required: those whose absence the build refuses as a missing field.
    let required: Vec<&str> = schema["required"]
        .as_array()
        .expect("required")
        .iter()
        .filter_map(|field| field.as_str())
        .collect();
    for field in &read {
        let line = GOOD
            .lines()
            .find(|line| line.starts_with(&format!("{field} =")))
            .map(|line| format!("{line}\n"));
        let Some(line) = line else {
            continue; // `parameters`: tables, whose absence a rule refuses
        };
        let message = parse_method(FILE, &GOOD.replacen(&line, "", 1))
            .err()
            .map(|errors| errors.to_string())
            .unwrap_or_default();
        assert_eq!(
            message.contains(&format!("missing field `{field}`")),
            required.contains(field),
            "{field}: {message}"
        );
    }
}
