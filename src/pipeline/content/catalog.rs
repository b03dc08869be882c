//! The catalog made of the method files: every `methods/<key>.md` read,
//! as many as there are (one at least); the links between them and the
//! methods their lifecycle marks name to use instead checked; their order
//! (`weight`, equal weights by key) and the homepage's groups (each
//! method's `group`, ordered by its weight there) taken from their front
//! matter, so that no other file lists the methods. A method marked
//! `removed` keeps its file, but leaves every list: the catalog holds it
//! apart, and nothing may link to it.

use super::fields::Check;
use super::lifecycle::{Mark, Stage};
use super::method::{self, Method};
use super::prose::Paragraph;
use super::read::Directory;
use super::{is_key, noted, ContentError, Entry, Site, MAX_METHODS};

/// The method files of the content directory.
#[derive(Default)]
pub(super) struct Methods {
    /// Those that could be read, by file name.
    pub(super) read: Vec<Method>,
    /// The key of every method file, read or not, by file name.
    pub(super) keys: Vec<String>,
}

impl Methods {
    /// Whether every method file could be read (else what is said about
    /// the methods as a whole would be said of some only).
    fn complete(&self) -> bool {
        self.read.len() == self.keys.len()
    }

    /// The `removed` mark of the method `key`, if it was read and is removed.
    fn removal(&self, key: &str) -> Option<&Mark> {
        self.read
            .iter()
            .find(|method| method.entry.key == key)
            .and_then(|method| method.entry.removed.as_ref())
    }
}

/// Every method file of `dir/methods`, read and checked, by file name;
/// what is not a method file is an error, but for the hidden and backup
/// files editors leave beside the files they edit.
pub(super) fn read_methods(
    content: &Directory,
    dir: &str,
    errors: &mut Vec<ContentError>,
) -> Methods {
    let listing = format!("{dir}/methods");
    let mut methods = Methods::default();
    let Some(names) = noted(content.names(&listing), errors) else {
        return methods;
    };
    for name in names.into_iter().filter(|name| !is_editor_file(name)) {
        let file = &format!("{listing}/{name}");
        let Some(key) = name.strip_suffix(".md").filter(|key| is_key(key)) else {
            Check::new(file, errors).fail(
                "",
                "is not a method file: a method is `<key>.md`, its key in lowercase letters",
            );
            continue;
        };
        methods.keys.push(key.to_string());
        let Some(text) = noted(content.read_text(file), errors) else {
            continue;
        };
        let Some(method) = method::read(file, &text, errors) else {
            continue;
        };
        if method.entry.key != key {
            let problem = format!("`{}` differs from the file name `{key}`", method.entry.key);
            Check::new(file, errors).fail("key", problem);
        }
        methods.read.push(method);
    }
    let count = methods.keys.len();
    let removed = methods.read.iter().filter(|m| m.entry.removed.is_some());
    if count == 0 {
        Check::new(&listing, errors).fail("", "holds no method: add one as `<key>.md`");
    } else if methods.complete() && removed.count() == count {
        Check::new(&listing, errors).fail(
            "",
            "holds no method that is not removed: the reference needs one to list",
        );
    } else if count > MAX_METHODS {
        Check::new(&listing, errors).fail(
            "",
            format!("holds {count} methods; the search index numbers at most {MAX_METHODS}"),
        );
    }
    methods
}

/// Every link from a method's description or note, and the method a
/// `deprecated` or `removed` mark names to use instead (its `use`), is a
/// method file there is; and not a removed one (its page is gone), but
/// for a link from a method removed itself.
pub(super) fn check_links(methods: &Methods, dir: &str, errors: &mut Vec<ContentError>) {
    for method in &methods.read {
        let entry = &method.entry;
        // Each link: its field, how messages name it, its key, and whether
        // it may lead to a removed method.
        let mut links = Vec::new();
        let prose = [
            ("description", Some(&entry.description_md)),
            ("note", entry.note_md.as_ref()),
        ];
        for (field, paragraph) in prose {
            for key in paragraph.map(Paragraph::linked_methods).unwrap_or_default() {
                let link = format!("links to `{key}.md`");
                links.push((field.to_string(), link, key, entry.removed.is_some()));
            }
        }
        for (stage, mark) in entry.marks() {
            if let Some(key) = &mark.successor {
                let field = format!("{}.use", stage.field());
                links.push((field, format!("names `{key}`"), key, false));
            }
        }
        let mut check = Check::new(&method.file, errors);
        for (field, link, key, may_be_removed) in links {
            if !methods.keys.iter().any(|k| k == key) {
                check.fail(
                    &field,
                    format!("{link}, but there is no method `{key}` ({dir}/methods/{key}.md)"),
                );
            } else if let Some(removal) = methods.removal(key).filter(|_| !may_be_removed) {
                let instead = match &removal.successor {
                    Some(successor) => format!("name its successor `{successor}` instead"),
                    None => "it has no successor to name instead".to_string(),
                };
                let (removed, version) = (Stage::Removed.field(), &removal.version);
                check.fail(
                    &field,
                    format!("{link}, but `{key}` is {removed} in {version}: {instead}"),
                );
            }
        }
    }
}

/// Fill the groups of `site` (read from `dir/site.json`) with the methods
/// that name them, by their weight there; a method naming no group of the
/// file, or a group no method names, is an error.
pub(super) fn group(site: &mut Site, dir: &str, methods: &Methods, errors: &mut Vec<ContentError>) {
    let site_file = &format!("{dir}/site.json");
    let names: Vec<&str> = site.groups.iter().map(|g| g.name.as_str()).collect();
    for method in &methods.read {
        let name = &method.entry.group.name;
        if !name.trim().is_empty() && !names.contains(&name.as_str()) {
            Check::new(&method.file, errors).fail(
                "group.name",
                format!(
                    "`{name}` is not a group of {site_file}; its groups are `{}`",
                    names.join("`, `")
                ),
            );
        }
    }
    let mut check = Check::new(site_file, errors);
    for (i, group) in site.groups.iter_mut().enumerate() {
        let mut members: Vec<&Method> = methods
            .read
            .iter()
            .filter(|m| m.entry.group.name == group.name && m.entry.removed.is_none())
            .collect();
        members.sort_by(|a, b| {
            (a.entry.group.weight, &a.entry.key).cmp(&(b.entry.group.weight, &b.entry.key))
        });
        group.keys = members.iter().map(|m| m.entry.key.clone()).collect();
        // A method that could not be read may be the group's.
        if group.keys.is_empty() && methods.complete() {
            check.fail(
                &format!("groups[{i}]"),
                format!(
                    "no method is in `{}`: a method joins a group with `group = {{ name = \"{}\", weight = … }}`",
                    group.name, group.name
                ),
            );
        }
    }
}

/// The entries in catalog order (by weight, equal weights by key), and
/// apart from them the removed methods, by key.
pub(super) fn in_order(methods: Methods) -> (Vec<Entry>, Vec<Entry>) {
    let mut methods = methods.read;
    methods.sort_by(|a, b| (a.entry.weight, &a.entry.key).cmp(&(b.entry.weight, &b.entry.key)));
    let (mut removed, entries): (Vec<Entry>, Vec<Entry>) = methods
        .into_iter()
        .map(|method| method.entry)
        .partition(|entry| entry.removed.is_some());
    removed.sort_by(|a, b| a.key.cmp(&b.key));
    (entries, removed)
}

/// Whether `name` is a file an editor keeps beside the one edited (a swap,
/// lock or backup file: Vim's `.x.swp` and `x~`, Emacs's `#x#` and `.#x`):
/// not a method, and no error either.
pub(super) fn is_editor_file(name: &str) -> bool {
    name.starts_with('.') || name.ends_with('~') || (name.starts_with('#') && name.ends_with('#'))
}
