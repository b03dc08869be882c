//! Search at run time: the query cut into terms the way the
//! pipeline cut the reference (`refserve_core::search::terms`), at most
//! [`MAX_QUERY_TERMS`] of them looked up, and their build-time weights
//! summed per method. Nothing else is scored here.

use refserve_core::mcp::Mcp;
use refserve_core::search::{terms, Field, MAX_QUERY_BYTES, MAX_QUERY_TERMS};

/// One method a query found.
#[derive(Debug, Clone, PartialEq)]
pub struct Found<'q> {
    /// Its position in the catalog.
    pub method: usize,
    /// The sum of its terms' weights.
    pub score: f32,
    /// Each query word that found it, and where it counted most.
    pub why: Vec<(&'q str, Field)>,
}

/// The terms of `query` that are looked up: its words (the first
/// [`MAX_QUERY_BYTES`]) as the pipeline cut the reference, each stem
/// once, at most [`MAX_QUERY_TERMS`].
pub fn query_terms(query: &str) -> Vec<(String, String)> {
    let mut kept: Vec<(String, String)> = Vec::new();
    for (word, stem) in terms(head(query, MAX_QUERY_BYTES)) {
        if kept.len() == MAX_QUERY_TERMS {
            break;
        }
        if !kept.iter().any(|(_, seen)| *seen == stem) {
            kept.push((word, stem));
        }
    }
    kept
}

/// The methods `terms` (from [`query_terms`]) find, best first (ties in
/// catalog order), at most `limit`.
pub fn rank<'q>(answers: &Mcp, terms: &'q [(String, String)], limit: usize) -> Vec<Found<'q>> {
    let mut found: Vec<Found> = (0..answers.hits.len())
        .map(|method| Found {
            method,
            score: 0.0,
            why: Vec::new(),
        })
        .collect();
    for (word, stem) in terms {
        for posting in answers.postings(stem) {
            if let Some(method) = found.get_mut(usize::from(posting.method)) {
                method.score += posting.weight;
                method.why.push((word, posting.field));
            }
        }
    }
    found.retain(|f| f.score > 0.0);
    // Stable: equal scores keep catalog order.
    found.sort_by(|a, b| b.score.total_cmp(&a.score));
    found.truncate(limit);
    found
}

/// The first `max` bytes of `text`, cut back to a character boundary.
fn head(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::{head, query_terms, MAX_QUERY_TERMS};

    #[test]
    fn a_query_looks_up_each_stem_once_and_at_most_the_limit() {
        let terms = query_terms("rows Rows row counting counted");
        let stems: Vec<&str> = terms.iter().map(|(_, stem)| stem.as_str()).collect();
        assert_eq!(stems, ["row", "count"]);
        let many: String = (0..100).map(|i| format!("word{i} ")).collect();
        assert_eq!(query_terms(&many).len(), MAX_QUERY_TERMS);
    }

    #[test]
    fn a_long_query_is_cut_at_a_character_boundary() {
        assert_eq!(head("abc", 10), "abc");
        assert_eq!(head("aé", 2), "a");
        assert_eq!(head("aé", 3), "aé");
        assert_eq!(head("", 0), "");
    }
}
