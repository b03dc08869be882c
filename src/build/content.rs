//! Build stage 1: load `content/` into a [`Catalog`] and validate it.
//!
//! Compiled into `build.rs` (and into the integration tests, which check
//! that broken content is refused with the right message), never into the
//! server. Every error names the file and the field at fault.

use serde_json::{Map, Value};
use std::fmt;
use std::path::Path;

/// The number of entries the specification's catalog holds (section 2.5).
pub const CATALOG_SIZE: usize = 24;

/// Everything the renderers need: the base URL, the entries in catalog order
/// and the error texts.
#[derive(Debug)]
pub struct Catalog {
    /// The public address, without a trailing slash.
    pub base_url: String,
    /// `Last-Modified` of every resource, as seconds since the Unix epoch.
    pub last_modified: u64,
    /// The entries, in the order of `content/catalog.json`.
    pub entries: Vec<Entry>,
    /// `message` and `hint` for each error code.
    pub errors: Vec<ErrorText>,
    /// The site's own texts and the grouping of methods on the homepage.
    pub site: Site,
}

/// `content/site.json`: what the homepage and the agent index say.
#[derive(Debug, Clone)]
pub struct Site {
    /// The name of the site (the homepage's heading).
    pub title: String,
    /// One or two sentences on what is published here.
    pub summary: String,
    /// What the service is and is not.
    pub about: String,
    /// The methods grouped by purpose; every key in exactly one group.
    pub groups: Vec<Group>,
}

/// A group of methods on the homepage.
#[derive(Debug, Clone)]
pub struct Group {
    /// Its heading.
    pub name: String,
    /// One line on what the methods have in common.
    pub summary: String,
    /// Catalog keys, in the order shown.
    pub keys: Vec<String>,
}

/// One documented method.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Lowercase identifier, `^[a-z]+$`.
    pub key: String,
    /// Method name (equal to the key).
    pub name: String,
    /// One- or two-sentence summary.
    pub description: String,
    /// The call forms; more than one for overloaded methods.
    pub signatures: Vec<String>,
    /// One parameter list per signature (`None` for methods without
    /// parameters); each a list of (label, description) in signature order.
    pub parameters: Option<Vec<Vec<(String, String)>>>,
    /// Return value, starting with `[type]`.
    pub returns: Option<String>,
    /// Additional remark; may hold `<code>` tags.
    pub note: Option<String>,
    /// Short PHP snippets that call the method, each with a title.
    pub examples: Vec<Example>,
}

/// One example of a method's use.
#[derive(Debug, Clone)]
pub struct Example {
    /// One line of plain text saying what the example does.
    pub title: String,
    /// PHP statements (no `<?php` opener) that call the method.
    pub code: String,
}

/// The texts of one error code.
#[derive(Debug, Clone)]
pub struct ErrorText {
    /// The stable code.
    pub code: String,
    /// What went wrong.
    pub message: String,
    /// What to do next.
    pub hint: String,
    /// A hint naming a close catalog key, with `{key}` where it goes.
    pub hint_suggesting: Option<String>,
}

/// A content error: the file, the field and what is wrong with it.
#[derive(Debug, PartialEq, Eq)]
pub struct ContentError {
    /// The file, relative to the crate root.
    pub file: String,
    /// The field, as a JSON path (`parameters[1]`), or empty for the whole file.
    pub field: String,
    /// What is wrong.
    pub problem: String,
}

impl fmt::Display for ContentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}: {}", self.file, self.problem)
        } else {
            write!(f, "{}: field `{}`: {}", self.file, self.field, self.problem)
        }
    }
}

fn fail<T>(file: &str, field: &str, problem: impl Into<String>) -> Result<T, ContentError> {
    Err(ContentError {
        file: file.to_string(),
        field: field.to_string(),
        problem: problem.into(),
    })
}

/// Validate the base URL: absolute `http` or `https`, with a host, without a
/// trailing slash, query or fragment.
pub fn base_url(value: &str) -> Result<String, ContentError> {
    let file = "REFSERVE_BASE_URL";
    let Some((scheme, rest)) = value.split_once("://") else {
        return fail(
            file,
            "",
            format!("`{value}` is not an absolute URL (http:// or https://)"),
        );
    };
    if scheme != "http" && scheme != "https" {
        return fail(
            file,
            "",
            format!("`{value}`: the scheme must be http or https"),
        );
    }
    let host = rest.split('/').next().unwrap_or_default();
    if host.is_empty() || host.starts_with(':') {
        return fail(file, "", format!("`{value}` has no host"));
    }
    if value.ends_with('/') {
        return fail(file, "", format!("`{value}` must not end with a slash"));
    }
    if value.contains(['?', '#']) || value.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return fail(
            file,
            "",
            format!("`{value}` must not hold a query, a fragment or spaces"),
        );
    }
    Ok(value.to_string())
}

/// Load and validate the whole of `content/` under `root` (the crate root).
/// `last_modified` overrides the date in `catalog.json` (from `SOURCE_DATE_EPOCH`).
pub fn load(
    root: &Path,
    base_url: String,
    last_modified: Option<u64>,
) -> Result<Catalog, ContentError> {
    let catalog_file = "content/catalog.json";
    let catalog = read_json(root, catalog_file)?;
    let catalog = as_object(&catalog, catalog_file, "")?;
    known_fields(catalog, catalog_file, &["last_modified", "entries"])?;
    let date = string(catalog, catalog_file, "last_modified")?;
    let last_modified = match last_modified {
        Some(epoch) => epoch,
        None => parse_date(&date).ok_or_else(|| ContentError {
            file: catalog_file.into(),
            field: "last_modified".into(),
            problem: format!("`{date}` is not an HTTP date (like `Sun, 22 Nov 2026 00:00:00 GMT`)"),
        })?,
    };
    let Some(Value::Array(keys)) = catalog.get("entries") else {
        return fail(catalog_file, "entries", "must be an array of entry keys");
    };
    let mut entries = Vec::with_capacity(keys.len());
    for (i, key) in keys.iter().enumerate() {
        let field = format!("entries[{i}]");
        let Some(key) = key.as_str() else {
            return fail(catalog_file, &field, "must be a string");
        };
        if !is_key(key) {
            return fail(
                catalog_file,
                &field,
                format!("`{key}` does not match ^[a-z]+$"),
            );
        }
        if entries.iter().any(|e: &Entry| e.key == key) {
            return fail(catalog_file, &field, format!("`{key}` is listed twice"));
        }
        let file = format!("content/entries/{key}.json");
        let value = read_json(root, &file)?;
        let entry = parse_entry(&file, &value)?;
        if entry.key != key {
            return fail(
                &file,
                "key",
                format!("`{}` differs from the file name `{key}`", entry.key),
            );
        }
        entries.push(entry);
    }
    if entries.len() != CATALOG_SIZE {
        return fail(
            catalog_file,
            "entries",
            format!(
                "lists {} entries; the catalog has exactly {CATALOG_SIZE}",
                entries.len()
            ),
        );
    }
    unlisted_files(root, &entries)?;
    let errors_file = "content/errors.json";
    let errors = parse_errors(errors_file, &read_json(root, errors_file)?)?;
    let site_file = "content/site.json";
    let site = parse_site(site_file, &read_json(root, site_file)?, &entries)?;
    Ok(Catalog {
        base_url,
        last_modified,
        entries,
        errors,
        site,
    })
}

/// A file in `content/entries/` that `catalog.json` does not list is an error.
fn unlisted_files(root: &Path, entries: &[Entry]) -> Result<(), ContentError> {
    let dir = root.join("content/entries");
    let listing = std::fs::read_dir(&dir).map_err(|e| ContentError {
        file: "content/entries".into(),
        field: String::new(),
        problem: format!("cannot list: {e}"),
    })?;
    let mut names: Vec<String> = listing
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in names {
        let listed = name
            .strip_suffix(".json")
            .is_some_and(|k| entries.iter().any(|e| e.key == k));
        if !listed {
            return fail(
                &format!("content/entries/{name}"),
                "",
                "is not listed in content/catalog.json `entries`",
            );
        }
    }
    Ok(())
}

fn read_json(root: &Path, file: &str) -> Result<Value, ContentError> {
    let text = std::fs::read_to_string(root.join(file)).map_err(|e| ContentError {
        file: file.into(),
        field: String::new(),
        problem: format!("cannot read: {e}"),
    })?;
    serde_json::from_str(&text).map_err(|e| ContentError {
        file: file.into(),
        field: String::new(),
        problem: format!("is not valid JSON: {e}"),
    })
}

/// Parse and validate one entry file.
pub fn parse_entry(file: &str, value: &Value) -> Result<Entry, ContentError> {
    let object = as_object(value, file, "")?;
    known_fields(
        object,
        file,
        &[
            "key",
            "name",
            "description",
            "signature",
            "parameters",
            "returns",
            "note",
            "examples",
        ],
    )?;
    let key = string(object, file, "key")?;
    if !is_key(&key) {
        return fail(file, "key", format!("`{key}` does not match ^[a-z]+$"));
    }
    let name = string(object, file, "name")?;
    if name != key {
        return fail(file, "name", format!("`{name}` must equal the key `{key}`"));
    }
    let description = string(object, file, "description")?;
    one_line(file, "description", &description)?;
    plain_text(file, "description", &description)?;
    let signatures = match object.get("signature") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(forms)) if forms.len() >= 2 => forms
            .iter()
            .enumerate()
            .map(|(i, f)| {
                f.as_str().map(str::to_string).ok_or_else(|| ContentError {
                    file: file.into(),
                    field: format!("signature[{i}]"),
                    problem: "must be a string".into(),
                })
            })
            .collect::<Result<_, _>>()?,
        Some(Value::Array(_)) => {
            return fail(
                file,
                "signature",
                "an array needs two or more call forms; write one form as a string",
            )
        }
        Some(_) => return fail(file, "signature", "must be a string or an array of strings"),
        None => return fail(file, "signature", "is required"),
    };
    for (i, signature) in signatures.iter().enumerate() {
        let field = if signatures.len() == 1 {
            "signature".to_string()
        } else {
            format!("signature[{i}]")
        };
        check_signature(file, &field, signature, &key)?;
    }
    let parameters = match object.get("parameters") {
        None => {
            if let Some(i) = signatures
                .iter()
                .position(|s| !signature_params(s).is_empty())
            {
                return fail(
                    file,
                    "parameters",
                    format!("is required: signature `{}` has parameters", signatures[i]),
                );
            }
            None
        }
        Some(Value::Object(labels)) if signatures.len() == 1 => Some(vec![parameter_list(
            file,
            "parameters",
            labels,
            &signatures[0],
        )?]),
        Some(Value::Object(_)) => {
            return fail(
                file,
                "parameters",
                format!(
                    "must be an array of {} objects, one per signature",
                    signatures.len()
                ),
            )
        }
        Some(Value::Array(lists)) if signatures.len() > 1 => {
            if lists.len() != signatures.len() {
                return fail(
                    file,
                    "parameters",
                    format!(
                        "has {} objects for {} signatures; give one per signature",
                        lists.len(),
                        signatures.len()
                    ),
                );
            }
            let mut all = Vec::with_capacity(lists.len());
            for (i, (list, signature)) in lists.iter().zip(&signatures).enumerate() {
                let field = format!("parameters[{i}]");
                all.push(parameter_list(
                    file,
                    &field,
                    as_object(list, file, &field)?,
                    signature,
                )?);
            }
            Some(all)
        }
        Some(Value::Array(_)) => {
            return fail(
                file,
                "parameters",
                "must be an object: the entry has a single signature",
            )
        }
        Some(_) => {
            return fail(
                file,
                "parameters",
                "must be an object or an array of objects",
            )
        }
    };
    let returns = optional_string(object, file, "returns")?;
    if let Some(returns) = &returns {
        one_line(file, "returns", returns)?;
        let typed = returns.strip_prefix('[').and_then(|r| r.split_once(']'));
        match typed {
            Some((ty, _)) if is_type(ty) => {}
            _ => {
                return fail(
                    file,
                    "returns",
                    format!(
                        "`{returns}` must start with the type in square brackets, like `[array] …`"
                    ),
                )
            }
        }
    }
    let note = optional_string(object, file, "note")?;
    if let Some(note) = &note {
        one_line(file, "note", note)?;
        only_code_tags(file, "note", note)?;
    }
    let examples = parse_examples(file, object, &key, &signatures)?;
    Ok(Entry {
        key,
        name,
        description,
        signatures,
        parameters,
        returns,
        note,
        examples,
    })
}

/// `examples`: at least one, each a titled snippet that calls the method
/// the way its signatures do (`$database->key(` or `Class::key(`).
fn parse_examples(
    file: &str,
    object: &Map<String, Value>,
    key: &str,
    signatures: &[String],
) -> Result<Vec<Example>, ContentError> {
    let Some(value) = object.get("examples") else {
        return fail(
            file,
            "examples",
            "is required: every method needs at least one example",
        );
    };
    let Some(items) = value.as_array().filter(|items| !items.is_empty()) else {
        return fail(
            file,
            "examples",
            "must be a non-empty array of {title, code}",
        );
    };
    let call = match signatures[0].split_once("::") {
        Some((class, _)) => format!("{class}::{key}("),
        None => format!("->{key}("),
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let field = format!("examples[{i}]");
            let example = as_object(item, file, &field)?;
            known_fields(example, file, &["title", "code"])?;
            let text = |name: &str| {
                string(example, file, name).map_err(|error| ContentError {
                    field: format!("{field}.{name}"),
                    ..error
                })
            };
            let title = text("title")?;
            one_line(file, &format!("{field}.title"), &title)?;
            plain_text(file, &format!("{field}.title"), &title)?;
            let code = text("code")?;
            if code.contains('\t') || code.lines().any(|l| l != l.trim_end()) {
                return fail(
                    file,
                    &format!("{field}.code"),
                    "must have no tabs or trailing spaces",
                );
            }
            if code.starts_with("<?") {
                return fail(file, &format!("{field}.code"), "must not open with <?php");
            }
            if !code.contains(&call) {
                return fail(
                    file,
                    &format!("{field}.code"),
                    format!("must call the method: `{call}`"),
                );
            }
            Ok(Example { title, code })
        })
        .collect()
}

/// `<name>(<$a>, <$b>)` or `Class::<name>(…)`, naming this entry.
fn check_signature(
    file: &str,
    field: &str,
    signature: &str,
    key: &str,
) -> Result<(), ContentError> {
    let call = signature.rsplit("::").next().unwrap_or(signature);
    let well_formed = call
        .strip_prefix(key)
        .and_then(|r| r.strip_prefix('('))
        .and_then(|r| r.strip_suffix(')'));
    let Some(arguments) = well_formed else {
        return fail(
            file,
            field,
            format!("`{signature}` must read `{key}($a, $b)`"),
        );
    };
    let names = signature_params(signature);
    let listed = arguments
        .split(',')
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .count();
    if listed != names.len()
        || arguments
            .split(',')
            .map(str::trim)
            .any(|a| !a.is_empty() && !a.starts_with('$'))
    {
        return fail(
            file,
            field,
            format!("`{signature}`: every argument must be a `$name`"),
        );
    }
    Ok(())
}

/// The `$names` of a signature, in order, without the `$`.
pub fn signature_params(signature: &str) -> Vec<&str> {
    signature
        .split('$')
        .skip(1)
        .map(|rest| {
            rest.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .next()
                .unwrap_or_default()
        })
        .collect()
}

/// Labels must be `<name> [<type>]( (optional))?` and describe exactly the
/// `$parameters` of the signature, in order.
fn parameter_list(
    file: &str,
    field: &str,
    labels: &Map<String, Value>,
    signature: &str,
) -> Result<Vec<(String, String)>, ContentError> {
    let expected = signature_params(signature);
    let mut list = Vec::with_capacity(labels.len());
    for (label, description) in labels {
        let here = format!("{field}.{label}");
        let Some(name) = label_name(label) else {
            return fail(
                file,
                &here,
                "the label must read `<name> [<type>]`, optionally followed by ` (optional)`",
            );
        };
        if !expected.contains(&name) {
            return fail(
                file,
                &here,
                format!("names no `${name}` of signature `{signature}`"),
            );
        }
        let Some(description) = description.as_str() else {
            return fail(file, &here, "must be a string");
        };
        if description.trim().is_empty() {
            return fail(file, &here, "must describe the parameter");
        }
        one_line(file, &here, description)?;
        plain_text(file, &here, description)?;
        list.push((label.clone(), description.to_string()));
    }
    let names: Vec<&str> = list.iter().filter_map(|(l, _)| label_name(l)).collect();
    if names != expected {
        let expected = expected
            .iter()
            .map(|n| format!("${n}"))
            .collect::<Vec<_>>()
            .join(", ");
        return fail(
            file,
            field,
            format!("must describe {expected} of `{signature}`, in that order"),
        );
    }
    Ok(list)
}

/// The parameter name of a well-formed label.
fn label_name(label: &str) -> Option<&str> {
    let rest = label.strip_suffix(" (optional)").unwrap_or(label);
    let (name, ty) = rest.split_once(" [")?;
    let ty = ty.strip_suffix(']')?;
    let name_ok = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    (name_ok && is_type(ty)).then_some(name)
}

/// `type` or `type/type/…`, each a word.
fn is_type(ty: &str) -> bool {
    ty.split('/')
        .all(|t| !t.is_empty() && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

/// `^[a-z]+$`.
pub fn is_key(key: &str) -> bool {
    !key.is_empty() && key.bytes().all(|b| b.is_ascii_lowercase())
}

fn parse_site(file: &str, value: &Value, entries: &[Entry]) -> Result<Site, ContentError> {
    let object = as_object(value, file, "")?;
    known_fields(object, file, &["title", "summary", "about", "groups"])?;
    let text = |field: &str| -> Result<String, ContentError> {
        let text = string(object, file, field)?;
        one_line(file, field, &text)?;
        plain_text(file, field, &text)?;
        Ok(text)
    };
    let (title, summary, about) = (text("title")?, text("summary")?, text("about")?);
    let Some(Value::Array(list)) = object.get("groups") else {
        return fail(file, "groups", "must be an array of groups");
    };
    let mut groups = Vec::with_capacity(list.len());
    let mut seen: Vec<&str> = Vec::new();
    for (i, group) in list.iter().enumerate() {
        let field = format!("groups[{i}]");
        let group = as_object(group, file, &field)?;
        known_fields(group, file, &["name", "summary", "keys"]).map_err(|e| ContentError {
            field: format!("{field}.{}", e.field),
            ..e
        })?;
        let name = string(group, file, "name").map_err(|e| ContentError {
            field: format!("{field}.name"),
            ..e
        })?;
        let summary = string(group, file, "summary").map_err(|e| ContentError {
            field: format!("{field}.summary"),
            ..e
        })?;
        let Some(Value::Array(keys)) = group.get("keys") else {
            return fail(
                file,
                &format!("{field}.keys"),
                "must be an array of entry keys",
            );
        };
        let mut group_keys = Vec::with_capacity(keys.len());
        for (j, key) in keys.iter().enumerate() {
            let here = format!("{field}.keys[{j}]");
            let Some(entry) = key
                .as_str()
                .and_then(|k| entries.iter().find(|e| e.key == k))
            else {
                return fail(
                    file,
                    &here,
                    format!("{key} is not a key of content/catalog.json"),
                );
            };
            if seen.contains(&entry.key.as_str()) {
                return fail(
                    file,
                    &here,
                    format!("`{}` is in more than one group", entry.key),
                );
            }
            seen.push(&entry.key);
            group_keys.push(entry.key.clone());
        }
        groups.push(Group {
            name,
            summary,
            keys: group_keys,
        });
    }
    if let Some(missing) = entries.iter().find(|e| !seen.contains(&e.key.as_str())) {
        return fail(
            file,
            "groups",
            format!(
                "`{}` is in no group; every method belongs to one",
                missing.key
            ),
        );
    }
    Ok(Site {
        title,
        summary,
        about,
        groups,
    })
}

fn parse_errors(file: &str, value: &Value) -> Result<Vec<ErrorText>, ContentError> {
    let object = as_object(value, file, "")?;
    let mut texts = Vec::with_capacity(object.len());
    for (code, text) in object {
        let text = as_object(text, file, code)?;
        known_fields(text, file, &["message", "hint", "hint_suggesting"]).map_err(|e| {
            ContentError {
                field: format!("{code}.{}", e.field),
                ..e
            }
        })?;
        let field = |name: &str| format!("{code}.{name}");
        let get = |name: &str| -> Result<Option<String>, ContentError> {
            match text.get(name) {
                None => Ok(None),
                Some(Value::String(s)) if !s.trim().is_empty() => {
                    one_line(file, &field(name), s)?;
                    Ok(Some(s.clone()))
                }
                Some(_) => fail(file, &field(name), "must be a non-empty string"),
            }
        };
        let required = |name: &str| {
            get(name)?.ok_or_else(|| ContentError {
                file: file.into(),
                field: field(name),
                problem: "is required".into(),
            })
        };
        let hint_suggesting = get("hint_suggesting")?;
        if hint_suggesting
            .as_ref()
            .is_some_and(|h| !h.contains("{key}"))
        {
            return fail(
                file,
                &field("hint_suggesting"),
                "must contain `{key}` where the suggested key goes",
            );
        }
        texts.push(ErrorText {
            code: code.clone(),
            message: required("message")?,
            hint: required("hint")?,
            hint_suggesting,
        });
    }
    Ok(texts)
}

fn as_object<'v>(
    value: &'v Value,
    file: &str,
    field: &str,
) -> Result<&'v Map<String, Value>, ContentError> {
    value.as_object().ok_or_else(|| ContentError {
        file: file.into(),
        field: field.into(),
        problem: "must be a JSON object".into(),
    })
}

fn known_fields(
    object: &Map<String, Value>,
    file: &str,
    known: &[&str],
) -> Result<(), ContentError> {
    match object.keys().find(|k| !known.contains(&k.as_str())) {
        Some(unknown) => fail(
            file,
            unknown,
            format!("is not a known field (known: {})", known.join(", ")),
        ),
        None => Ok(()),
    }
}

fn string(object: &Map<String, Value>, file: &str, field: &str) -> Result<String, ContentError> {
    optional_string(object, file, field)?.map_or_else(|| fail(file, field, "is required"), Ok)
}

fn optional_string(
    object: &Map<String, Value>,
    file: &str,
    field: &str,
) -> Result<Option<String>, ContentError> {
    match object.get(field) {
        None => Ok(None),
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.clone())),
        Some(Value::String(_)) => fail(file, field, "must not be empty"),
        Some(_) => fail(file, field, "must be a string"),
    }
}

fn one_line(file: &str, field: &str, text: &str) -> Result<(), ContentError> {
    if text.contains(['\n', '\r']) || text != text.trim() {
        return fail(
            file,
            field,
            "must be one line without leading or trailing spaces",
        );
    }
    Ok(())
}

fn plain_text(file: &str, field: &str, text: &str) -> Result<(), ContentError> {
    if text.contains(['<', '>', '`']) {
        return fail(file, field, "must be plain text (no HTML or Markdown)");
    }
    Ok(())
}

/// Notes may use `<code>…</code>` and no other markup.
fn only_code_tags(file: &str, field: &str, text: &str) -> Result<(), ContentError> {
    let mut rest = text;
    let mut open = false;
    while let Some(at) = rest.find(['<', '>']) {
        let tail = &rest[at..];
        let tag = if !open && tail.starts_with("<code>") {
            "<code>"
        } else if open && tail.starts_with("</code>") {
            "</code>"
        } else if open && tail.starts_with('>') {
            // `=>` inside code is text, escaped when rendered.
            ">"
        } else {
            return fail(file, field, "may contain only balanced <code>…</code> tags");
        };
        if tag != ">" {
            open = !open;
        }
        rest = &tail[tag.len()..];
    }
    if open {
        return fail(file, field, "has an unclosed <code> tag");
    }
    Ok(())
}

fn parse_date(date: &str) -> Option<u64> {
    let time = httpdate::parse_http_date(date).ok()?;
    Some(time.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs())
}
