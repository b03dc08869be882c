//! The rules of `content/site.json` (the homepage's texts and groups of
//! methods) and `content/errors.json` (the texts of each error code).

use super::fields::Check;
use super::{ErrorText, Site};

impl Site {
    /// Check the texts, and that the groups hold each of the catalog's
    /// `keys` exactly once.
    pub(super) fn check(&self, check: &mut Check, keys: &[String]) {
        check.plain_line("title", &self.title);
        check.plain_line("summary", &self.summary);
        check.plain_line("about", &self.about);
        let mut seen: Vec<&str> = Vec::new();
        for (i, group) in self.groups.iter().enumerate() {
            let field = format!("groups[{i}]");
            check.filled(&format!("{field}.name"), &group.name);
            check.filled(&format!("{field}.summary"), &group.summary);
            for (j, key) in group.keys.iter().enumerate() {
                let here = format!("{field}.keys[{j}]");
                if !keys.contains(key) {
                    check.fail(&here, format!("`{key}` is not a key the catalog lists"));
                } else if seen.contains(&key.as_str()) {
                    check.fail(&here, format!("`{key}` is in more than one group"));
                } else {
                    seen.push(key);
                }
            }
        }
        for missing in keys.iter().filter(|k| !seen.contains(&k.as_str())) {
            check.fail(
                "groups",
                format!("`{missing}` is in no group; every method belongs to one"),
            );
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
