//! The part of the table `/mcp` answers from: the pipeline's fixed results
//! by key, the search index by term, and each method as a search result.

use refserve_core::mcp::{StoredAnswer, StoredHit, StoredMcp};
use refserve_core::search::Posting;
use std::borrow::Cow;
use std::collections::HashMap;

/// `/mcp`'s share of a [`Table`](crate::table::Table).
#[derive(Debug)]
pub struct Answers {
    stored: StoredMcp<'static>,
    by_key: HashMap<Cow<'static, str>, usize>,
    by_term: HashMap<Cow<'static, str>, usize>,
}

impl Answers {
    /// Index `stored` (borrowed from the binary in production, owned in `dev`).
    pub fn new(stored: &StoredMcp<'static>) -> Self {
        let stored = stored.clone();
        let by_key = stored
            .answers
            .iter()
            .enumerate()
            .map(|(i, answer)| (answer.key.clone(), i))
            .collect();
        let by_term = stored
            .terms
            .iter()
            .enumerate()
            .map(|(i, (term, _))| (term.clone(), i))
            .collect();
        Answers {
            stored,
            by_key,
            by_term,
        }
    }

    /// The fixed answer stored as `key` (`refserve_core::mcp::answer_key`).
    pub fn answer(&self, key: &str) -> Option<&StoredAnswer<'static>> {
        self.by_key.get(key).map(|&i| &self.stored.answers[i])
    }

    /// The methods `term` (a stem) finds, with their weights.
    pub fn postings(&self, term: &str) -> &[Posting] {
        self.by_term
            .get(term)
            .map_or(&[], |&i| &self.stored.terms[i].1)
    }

    /// What a modern result adds before its closing brace
    /// (`,"resultType":…,"_meta":…`).
    pub fn modern_members(&self) -> &str {
        &self.stored.modern_members
    }

    /// What a search that finds nothing says, escaped for a JSON string.
    pub fn no_match_text(&self) -> &str {
        &self.stored.no_match_text
    }

    /// Every method's name, as a JSON array.
    pub fn methods_json(&self) -> &str {
        &self.stored.methods_json
    }

    /// Every method as a search result, in catalog order.
    pub fn hits(&self) -> &[StoredHit<'static>] {
        &self.stored.hits
    }
}
