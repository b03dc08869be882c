//! The rules of `content/site.json` (the homepage's texts, its groups of
//! methods and the content signals of robots.txt) and `content/errors.json` (the texts of each error code).

use super::fields::Check;
use super::read::Directory;
use super::{noted, ContentError, Entry, ErrorText, Site};
use indexmap::IndexMap;

impl Site {
    /// Check the texts; the groups' methods are the method files'
    /// (`content/catalog.rs`).
    pub(super) fn check(&self, check: &mut Check) {
        check.plain_line("title", &self.title);
        check.plain_line("summary", &self.summary);
        check.plain_line("about", &self.about);
        if self.content_signals.stated().is_empty() {
            check.fail(
                "content_signals",
                "must state at least one of `search`, `ai-input` and `ai-train` \
                 (true or false); leave the field out to allow all three",
            );
        }
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

/// The optional hints of an error code, by field, each with the places
/// it must hold (`{key}` in `hint_suggesting`…).
const HINTS: [(&str, &[&str]); 3] = [
    ("hint_suggesting", &["{key}"]),
    ("hint_removed", &["{key}", "{version}"]),
    ("hint_replaced", &["{key}", "{version}", "{successor}"]),
];

impl ErrorText {
    /// `errors.json` of `file`, each text with its code (the member's name).
    pub(super) fn read_all(
        content: &Directory,
        file: &str,
        errors: &mut Vec<ContentError>,
    ) -> Option<Vec<ErrorText>> {
        let texts = noted(
            content.read_json::<IndexMap<String, ErrorText>>(file),
            errors,
        )?;
        let texts = texts
            .into_iter()
            .map(|(code, text)| ErrorText { code, ..text });
        Some(texts.collect())
    }

    /// Its optional hints, by field, each with the places it must hold
    /// ([`HINTS`]).
    pub(super) fn hints(&self) -> impl Iterator<Item = (&'static str, &[&str], Option<&str>)> {
        let hints = [
            &self.hint_suggesting,
            &self.hint_removed,
            &self.hint_replaced,
        ];
        let hints = HINTS.into_iter().zip(hints);
        hints.map(|((name, places), hint)| (name, places, hint.as_deref()))
    }

    /// Check the texts of the error code `self.code`: one line each, and a
    /// place for what each hint names.
    pub(super) fn check(&self, check: &mut Check) {
        let code = &self.code;
        check.line(&format!("{code}.message"), &self.message);
        check.line(&format!("{code}.hint"), &self.hint);
        for (name, places, hint) in self.hints() {
            let Some(hint) = hint else {
                continue;
            };
            let field = format!("{code}.{name}");
            if !check.line(&field, hint) {
                continue;
            }
            for place in places.iter().filter(|place| !hint.contains(**place)) {
                check.fail(&field, format!("must contain `{place}` where it goes"));
            }
        }
    }

    /// The hint at an address of the removed method `entry`: naming its
    /// successor, if it has one, and the version it was removed in.
    pub(crate) fn hint_for_removed(&self, entry: &Entry) -> String {
        let mark = (entry.removed.as_ref()).expect("asked only for methods marked removed");
        let template = match &mark.successor {
            Some(_) => &self.hint_replaced,
            None => &self.hint_removed,
        };
        let hint = template.as_deref().unwrap_or(&self.hint);
        hint.replace("{key}", &entry.key)
            .replace("{version}", &mark.version)
            .replace("{successor}", mark.successor.as_deref().unwrap_or_default())
    }
}
