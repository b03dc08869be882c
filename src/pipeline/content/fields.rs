//! The rules a field's type does not say, checked on what was read: text
//! that is not empty, one line, plain. A [`Check`] collects the errors of one file, so that a load reports all
//! of them.

use super::ContentError;

/// The errors of one content file, added to those of the load.
pub(super) struct Check<'a> {
    file: &'a str,
    errors: &'a mut Vec<ContentError>,
    /// Whether errors found are kept (`keep_if`).
    keep: bool,
}

impl<'a> Check<'a> {
    /// Errors of `file`, added to `errors`.
    pub(super) fn new(file: &'a str, errors: &'a mut Vec<ContentError>) -> Self {
        Check {
            file,
            errors,
            keep: true,
        }
    }

    /// Keep the errors found from here on only if `keep`: a translation's
    /// errors about a fact its source has changed since are set aside.
    pub(super) fn keep_if(&mut self, keep: bool) {
        self.keep = keep;
    }

    /// `field` is at fault: `problem`.
    pub(super) fn fail(&mut self, field: &str, problem: impl Into<String>) {
        if self.keep {
            self.errors
                .push(ContentError::new(self.file, field, problem));
        }
    }

    /// `holds`, failing `field` with `problem` when it does not.
    fn require(&mut self, field: &str, holds: bool, problem: &str) -> bool {
        if !holds {
            self.fail(field, problem);
        }
        holds
    }

    /// Whether `text` holds more than spaces (else an error).
    pub(super) fn filled(&mut self, field: &str, text: &str) -> bool {
        self.require(field, !text.trim().is_empty(), "must not be empty")
    }

    /// Whether `text` is filled and one line, without leading or trailing
    /// spaces.
    pub(super) fn line(&mut self, field: &str, text: &str) -> bool {
        if !self.filled(field, text) {
            return false;
        }
        let one = !text.contains(['\n', '\r']) && text == text.trim();
        self.require(
            field,
            one,
            "must be one line without leading or trailing spaces",
        )
    }

    /// Whether `text` is one line of plain text (no HTML or Markdown).
    pub(super) fn plain_line(&mut self, field: &str, text: &str) -> bool {
        if !self.line(field, text) {
            return false;
        }
        let plain = !text.contains(['<', '>', '`']);
        self.require(field, plain, "must be plain text (no HTML or Markdown)")
    }
}
