//! A method file cut in two at its `+++` lines, as Zola writes a page:
//! the front matter (TOML) and the Markdown body; and the front matter
//! read into `serde` types, a value of the wrong shape being an error that
//! names its field's path and its line in the file.

use super::{fail, ContentError};
use serde::de::DeserializeOwned;

/// The line that opens and closes the front matter.
const FENCE: &str = "+++";

/// A method file, cut at its `+++` lines.
pub(super) struct Parts<'a> {
    /// The TOML between the two lines.
    pub(super) front: &'a str,
    /// Everything after the closing line.
    pub(super) body: &'a str,
    /// The line of the file the body starts on.
    pub(super) body_line: usize,
}

/// `text`, the whole of `file`, cut into front matter and body.
pub(super) fn split<'a>(file: &str, text: &'a str) -> Result<Parts<'a>, ContentError> {
    let mut lines = text.split_inclusive('\n');
    let opening = lines.next().unwrap_or_default();
    if opening.trim_end() != FENCE {
        return fail(
            file,
            "must open with its front matter: a `+++` line, the TOML fields, a `+++` line",
        );
    }
    let start = opening.len();
    let mut offset = start;
    for (number, line) in lines.enumerate() {
        if line.trim_end() == FENCE {
            return Ok(Parts {
                front: &text[start..offset],
                body: &text[offset + line.len()..],
                // Line 1 opens; this line is `number + 2`; the body follows.
                body_line: number + 3,
            });
        }
        offset += line.len();
    }
    fail(
        file,
        "the front matter opened on line 1 has no closing `+++` line",
    )
}

/// `T` read from `front`, the front matter of `file`; an error names the
/// field whose value does not fit, and where it is in the file.
pub(super) fn read<T: DeserializeOwned>(file: &str, front: &str) -> Result<T, ContentError> {
    let document = toml::Deserializer::parse(front).map_err(|error| {
        let at = position(front, error.span());
        let problem = error.message().trim_end();
        ContentError::new(file, "", format!("the front matter is not valid TOML: {problem}{at}"))
    })?;
    serde_path_to_error::deserialize(document).map_err(|error| {
        let path = error.path().to_string();
        let error = error.into_inner();
        let problem = error.message().trim_end();
        ContentError::new(file, &path, format!("{problem}{}", position(front, error.span())))
    })
}

/// ` at line L column C` of the file, for a span of its front matter
/// (which starts on line 2); nothing without a span.
fn position(front: &str, span: Option<std::ops::Range<usize>>) -> String {
    let Some(at) = span.map(|span| span.start.min(front.len())) else {
        return String::new();
    };
    let before = front.get(..at).unwrap_or(front);
    let line = 2 + before.matches('\n').count();
    let column = 1 + before.rsplit('\n').next().unwrap_or("").chars().count();
    format!(" at line {line} column {column}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_cut_at_its_fences() {
        let parts = split("f.md", "+++\nkey = \"x\"\n+++\n\nText.\n").expect("split");
        assert_eq!(parts.front, "key = \"x\"\n");
        assert_eq!(parts.body, "\nText.\n");
        assert_eq!(parts.body_line, 4);
        let parts = split("f.md", "+++\r\na = 1\r\n+++\r\nBody").expect("CRLF");
        assert_eq!(parts.front, "a = 1\r\n");
        assert_eq!(parts.body, "Body");
    }

    #[test]
    fn a_file_without_front_matter_is_refused() {
        for text in ["", "Text.\n", "---\nkey: x\n---\n", "+++\nkey = 1\n"] {
            let error = split("f.md", text).err().expect(text);
            assert_eq!(error.file, "f.md");
        }
    }

    #[test]
    fn errors_name_the_line_in_the_file() {
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct T {
            a: u32,
        }
        let error = read::<T>("f.md", "\na = \"x\"\n").expect_err("a string");
        assert_eq!(error.field, "a");
        assert!(error.problem.ends_with(" at line 3 column 5"), "{error:?}");
        let error = read::<T>("f.md", "a = = 1\n").expect_err("not TOML");
        assert!(
            error
                .problem
                .starts_with("the front matter is not valid TOML: "),
            "{error:?}"
        );
        assert!(error.problem.contains(" at line 2 column "), "{error:?}");
    }
}
