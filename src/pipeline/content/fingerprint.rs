//! What a translation records of its source: a fingerprint of each text
//! field it translates (the first 12 hexadecimal digits of the SHA-256 of
//! the source's text), in the `[source]` table of its front matter. When
//! the source's field changes, its fingerprint no longer matches and every
//! page made from the translation says it may be out of date; `refserve
//! translations --mark` writes the fingerprints of the source as it is,
//! once the translation has caught up.

use super::Entry;
use indexmap::IndexMap;
use sha2::{Digest, Sha256};
use std::fmt::Write as _;

/// The text fields a translation translates, as `[source]` names them.
pub(crate) const FIELDS: [&str; 5] = ["description", "note", "returns", "parameters", "examples"];

/// The fingerprint of each text field `entry` has, in [`FIELDS`] order.
pub(crate) fn of(entry: &Entry) -> Vec<(&'static str, String)> {
    let mut parameters = String::new();
    for list in entry.parameters.iter().flat_map(|lists| lists.iter()) {
        for (label, description) in list {
            let _ = writeln!(parameters, "{label}\t{description}");
        }
        parameters.push('\n');
    }
    let mut examples = String::new();
    for example in &entry.examples {
        let _ = write!(examples, "{}\n{}\n\n", example.title, example.code);
    }
    let texts = [
        Some(entry.description.clone()),
        entry.note.clone(),
        entry.returns.clone(),
        entry.parameters.as_ref().map(|_| parameters),
        (!entry.examples.is_empty()).then_some(examples),
    ];
    FIELDS
        .into_iter()
        .zip(texts)
        .filter_map(|(field, text)| Some((field, hash(&text?))))
        .collect()
}

/// The fields of `entry` whose fingerprint differs from the one `recorded`
/// (or that were never recorded).
pub(crate) fn changed(entry: &Entry, recorded: &IndexMap<String, String>) -> Vec<&'static str> {
    of(entry)
        .into_iter()
        .filter(|(field, print)| recorded.get(*field) != Some(print))
        .map(|(field, _)| field)
        .collect()
}

/// The first 12 hexadecimal digits of the SHA-256 of `text`.
fn hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    digest[..6].iter().map(|b| format!("{b:02x}")).collect()
}

/// `text`, a translated method file, with its `[source]` table written
/// anew from `prints`: the table is the front matter's last, so whatever
/// stands from its line to the closing `+++` is replaced.
pub(crate) fn mark(text: &str, prints: &[(&'static str, String)]) -> Option<String> {
    let mut lines = text.split_inclusive('\n');
    let opening = lines.next()?;
    let mut front = String::from(opening);
    let mut rest = String::new();
    let mut in_source = false;
    let mut closed = false;
    for line in lines {
        if closed {
            rest.push_str(line);
        } else if line.trim_end() == "+++" {
            closed = true;
            let trimmed = front.trim_end_matches('\n').len();
            front.truncate(trimmed);
            front.push_str("\n\n[source]\n");
            for (field, print) in prints {
                let _ = writeln!(front, "{field} = \"{print}\"");
            }
            front.push_str(line);
        } else if line.trim_end() == "[source]" {
            in_source = true;
        } else if in_source && line.trim_start().starts_with('[') {
            in_source = false;
            front.push_str(line);
        } else if !in_source {
            front.push_str(line);
        }
    }
    closed.then(|| front + &rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marking_replaces_the_source_table_and_keeps_the_rest() {
        let text = "+++\nsynonyms = [\"查找\"]\n\n[source]\ndescription = \"old\"\n+++\n\n正文。\n";
        let prints = [
            ("description", "abc".to_string()),
            ("note", "def".to_string()),
        ];
        let marked = mark(text, &prints).expect("a front matter");
        assert_eq!(
            marked,
            "+++\nsynonyms = [\"查找\"]\n\n[source]\ndescription = \"abc\"\nnote = \"def\"\n+++\n\n正文。\n"
        );
        assert_eq!(mark(&marked, &prints).as_deref(), Some(marked.as_str()));
        let unmarked = "+++\nreturns = \"行。\"\n+++\nBody\n";
        assert_eq!(
            mark(unmarked, &prints[..1]).as_deref(),
            Some("+++\nreturns = \"行。\"\n\n[source]\ndescription = \"abc\"\n+++\nBody\n")
        );
        assert_eq!(mark("no front matter", &prints), None);
    }

    #[test]
    fn a_fingerprint_is_twelve_hex_digits_of_the_text() {
        assert_eq!(hash("a").len(), 12);
        assert_ne!(hash("a"), hash("b"));
    }
}
