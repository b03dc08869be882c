//! The rules of `content/search.json`: words an agent may search with that
//! the entries do not use, each with the methods it should find.

use super::fields::Check;
use super::Search;

impl Search {
    /// Check that every synonym holds a word to search with and names
    /// methods among the catalog's `keys`.
    pub(super) fn check(&self, check: &mut Check, keys: &[String]) {
        check.filled("about", &self.about);
        for (i, synonym) in self.synonyms.iter().enumerate() {
            let field = format!("synonyms[{i}]");
            let words = format!("{field}.words");
            if check.plain_line(&words, &synonym.words)
                && crate::search::terms(&synonym.words).is_empty()
            {
                check.fail(&words, "holds no word to search with (only stop words?)");
            }
            if synonym.keys.is_empty() {
                check.fail(&format!("{field}.keys"), "must name a method");
            }
            for (j, key) in synonym.keys.iter().enumerate() {
                if !keys.contains(key) {
                    check.fail(
                        &format!("{field}.keys[{j}]"),
                        format!("`{key}` is not a key the catalog lists"),
                    );
                }
            }
        }
    }
}
