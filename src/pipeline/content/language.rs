//! A language the site is written in, from its `language.json`: the
//! source's in `content/`, each translation's in its folder
//! (`translation.rs`). Its tag (BCP 47, as `Content-Language`, `lang` and
//! hreflang write it), its name in itself (the language switcher's), and
//! its page chrome (`chrome.rs`).

use super::chrome::Chrome;
use super::fields::Check;
use serde::Deserialize;

/// A language of the site.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Language {
    /// Its BCP 47 tag, as written (`zh-Hans`).
    pub tag: String,
    /// Its name, in itself (`简体中文`).
    pub name: String,
    /// The labels of its pages.
    pub chrome: Chrome,
    /// Its tag in lowercase: the folder of its translation and the first
    /// segment of its addresses (`zh-hans`).
    #[serde(skip)]
    pub segment: String,
}

impl Language {
    /// The language as read, its segment filled in.
    pub(super) fn with_segment(self) -> Language {
        Language {
            segment: self.tag.to_ascii_lowercase(),
            ..self
        }
    }

    /// The rules of any language's file: a well-formed tag, a name, every
    /// label filled.
    pub(super) fn check_own(&self, check: &mut Check) {
        if check.line("tag", &self.tag) {
            if !is_tag(&self.tag) {
                check.fail(
                    "tag",
                    format!(
                        "`{}` is not a language tag such as `en` or `zh-Hans` (BCP 47)",
                        self.tag
                    ),
                );
            } else if let Err(problem) = crate::languages::offered(&self.tag) {
                check.fail("tag", problem);
            }
        }
        check.plain_line("name", &self.name);
        self.chrome.check(check);
    }
}

/// Whether `tag` has the shape of a BCP 47 tag: a language of two or
/// three letters, then subtags of two to eight letters or digits.
fn is_tag(tag: &str) -> bool {
    let mut subtags = tag.split('-');
    let language = subtags.next().unwrap_or_default();
    (2..=3).contains(&language.len())
        && language.chars().all(|c| c.is_ascii_alphabetic())
        && subtags
            .all(|s| (2..=8).contains(&s.len()) && s.chars().all(|c| c.is_ascii_alphanumeric()))
}

#[cfg(test)]
mod tests {
    use super::is_tag;

    #[test]
    fn tags_are_recognised() {
        for tag in ["en", "zh-Hans", "pt-BR", "ast", "zh-Hans-CN"] {
            assert!(is_tag(tag), "{tag}");
        }
        for tag in [
            "", "e", "english", "zh_Hans", "zh-", "-en", "zh-H", "en/x", "日本",
        ] {
            assert!(!is_tag(tag), "{tag}");
        }
    }
}
