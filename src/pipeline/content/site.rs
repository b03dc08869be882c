//! The rules of `content/site.json` (the homepage's texts and its groups
//! of methods) and `content/errors.json` (the texts of each error code).

use super::fields::Check;
use super::{ErrorText, Site};

impl Site {
    /// The site as served: `{count}` in the summary replaced by the
    /// number of methods, which no file states.
    pub(super) fn counting(self, methods: usize) -> Site {
        Site {
            summary: self.summary.replace("{count}", &methods.to_string()),
            ..self
        }
    }

    /// Check the texts; the groups' methods are the method files'
    /// (`content/catalog.rs`).
    pub(super) fn check(&self, check: &mut Check) {
        check.plain_line("title", &self.title);
        check.plain_line("summary", &self.summary);
        check.plain_line("about", &self.about);
        for (i, group) in self.groups.iter().enumerate() {
            let field = format!("groups[{i}]");
            check.filled(&format!("{field}.name"), &group.name);
            check.filled(&format!("{field}.summary"), &group.summary);
            if self.groups[..i].iter().any(|g| g.name == group.name) {
                check.fail(
                    &format!("{field}.name"),
                    format!("`{}` is the name of an earlier group", group.name),
                );
            }
        }
    }
}

impl ErrorText {
    /// Check the texts of the error code `self.code`: one line each, and a
    /// place for the key in `hint_suggesting`.
    pub(super) fn check(&self, check: &mut Check) {
        let code = &self.code;
        check.line(&format!("{code}.message"), &self.message);
        check.line(&format!("{code}.hint"), &self.hint);
        if let Some(hint) = &self.hint_suggesting {
            let field = format!("{code}.hint_suggesting");
            if check.line(&field, hint) && !hint.contains("{key}") {
                check.fail(&field, "must contain `{key}` where the suggested key goes");
            }
        }
    }
}
