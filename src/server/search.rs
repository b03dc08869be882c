//! Search at run time: the query cut into terms the way the
//! pipeline cut the reference (`refserve_core::search::Index::query_terms`), at most
//! [`MAX_QUERY_TERMS`] of them looked up, a word the index lacks read as
//! its nearest terms (`refserve_core::search::typos`), and their
//! build-time weights summed per method. Nothing else is scored here.

use refserve_core::search::typos::allowed_edits;
use refserve_core::search::{Field, Index, Near, MAX_QUERY_BYTES, MAX_QUERY_TERMS};
use refserve_core::search_page::{Piece, Why};

/// One method a query found.
#[derive(Debug, Clone, PartialEq)]
pub struct Found<'q> {
    /// Its position in the catalog.
    pub method: usize,
    /// The sum of its terms' weights.
    pub score: f32,
    /// Each query word that found it, and where it counted most.
    pub why: Vec<Matched<'q>>,
}

/// A query word that found a method.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Matched<'q> {
    /// The word, as [`query_terms`] gives it.
    pub word: &'q str,
    /// The indexed word it was read as, when the index lacks it (a typo).
    pub read_as: Option<&'q str>,
    /// Where it counted most.
    pub field: Field,
}

impl Found<'_> {
    /// The line that says why it matched, as MCP's `search` and `/search`
    /// both write it, in the language of `words`: "Matched “rows” in its
    /// description; “selct” (read as “select”) in its name." (plain text:
    /// each form escapes it as it escapes the query).
    pub(crate) fn why_line(&self, words: &Why) -> String {
        let mut line = String::with_capacity(16 + 48 * self.why.len());
        line.push_str(text(&words.start));
        for (i, matched) in self.why.iter().enumerate() {
            if i > 0 {
                line.push_str(text(&words.separator));
            }
            let field = words.fields.get(matched.field.index()).map_or("", text);
            match matched.read_as {
                None => {
                    let [before, between, after] = words.found.each_ref().map(text);
                    line.extend([before, matched.word, between, field, after]);
                }
                Some(read_as) => {
                    let [before, word_read, read_where, after] = words.read_as.each_ref().map(text);
                    line.extend([before, matched.word, word_read, read_as]);
                    line.extend([read_where, field, after]);
                }
            }
        }
        line.push_str(text(&words.end));
        line
    }
}

/// A piece of the table's text, as text (the pipeline writes UTF-8).
fn text(piece: &Piece) -> &str {
    std::str::from_utf8(piece).unwrap_or_default()
}

/// The part of `query` that is read: its first [`MAX_QUERY_BYTES`], cut
/// back to a character boundary.
pub(crate) fn read_part(query: &str) -> &str {
    let mut end = query.len().min(MAX_QUERY_BYTES);
    while !query.is_char_boundary(end) {
        end -= 1;
    }
    &query[..end]
}

/// The terms of `query` that are looked up in `index`: the words of its
/// `read_part` as the pipeline cut the reference
/// ([`Index::query_terms`]), each stem once, at most [`MAX_QUERY_TERMS`].
pub fn query_terms(index: &Index, query: &str) -> Vec<(String, String)> {
    let mut kept: Vec<(String, String)> = Vec::new();
    for (word, stem) in index.query_terms(read_part(query)) {
        if kept.len() == MAX_QUERY_TERMS {
            break;
        }
        if !kept.iter().any(|(_, seen)| *seen == stem) {
            kept.push((word, stem));
        }
    }
    kept
}

/// The methods `terms` (from [`query_terms`]) find in `index`, best
/// first (ties in catalog order), at most `limit`. A word the index lacks
/// counts as the terms nearest it, for less.
pub fn rank<'q>(index: &'q Index, terms: &'q [(String, String)], limit: usize) -> Vec<Found<'q>> {
    let mut found: Vec<Found> = Vec::new();
    for (word, stem) in terms {
        let exact = index.term(stem).map(|term| Near {
            term,
            spelling: word,
            edits: 0,
        });
        let nearest = match exact {
            Some(_) => Vec::new(),
            None => index.nearest(word, allowed_edits(word)),
        };
        for near in exact.iter().chain(&nearest) {
            let read_as = (near.edits > 0).then_some(near.spelling);
            // A term read for a word the index lacks counts for less than
            // an exact match, and less again at two edits.
            let corrected = [1.0, 0.7, 0.4][near.edits.min(2)];
            for posting in &near.term.postings {
                let method = usize::from(posting.method);
                if found.len() <= method {
                    let numbered = found.len()..=method;
                    found.extend(numbered.map(|method| Found {
                        method,
                        score: 0.0,
                        why: Vec::new(),
                    }));
                }
                found[method].score += posting.weight * corrected;
                found[method].why.push(Matched {
                    word,
                    read_as,
                    field: posting.field,
                });
            }
        }
    }
    found.retain(|f| f.score > 0.0);
    // Stable: equal scores keep catalog order.
    found.sort_by(|a, b| b.score.total_cmp(&a.score));
    found.truncate(limit);
    found
}

#[cfg(test)]
pub(crate) mod tests {

    /// The English line, as the table's English search page stores it.
    pub(crate) fn english() -> Why {
        let piece = |text: &'static str| Piece(bytes::Bytes::from_static(text.as_bytes()));
        Why {
            start: piece("Matched "),
            found: ["“", "” in ", ""].map(piece),
            read_as: ["“", "” (read as “", "”) in ", ""].map(piece),
            separator: piece("; "),
            end: piece("."),
            fields: [
                "its name",
                "a word for what it does",
                "its group",
                "its description",
                "its signature",
                "a parameter",
                "its return value",
                "its note",
                "an example's title",
                "an example's code",
            ]
            .map(piece)
            .to_vec(),
        }
    }

    #[test]
    fn why_names_each_word_where_it_counted_and_what_a_typo_was_read_as() {
        let found = Found {
            method: 0,
            score: 1.0,
            why: vec![
                Matched {
                    word: "rows",
                    read_as: None,
                    field: Field::Description,
                },
                Matched {
                    word: "selct",
                    read_as: Some("select"),
                    field: Field::Name,
                },
            ],
        };
        assert_eq!(
            found.why_line(&english()),
            "Matched “rows” in its description; “selct” (read as “select”) in its name."
        );
    }
    use super::*;
    use refserve_core::search::{Posting, Term};

    /// Three methods: `select` (0), `update` (1) and `sum` (2), and `row`
    /// in the first two.
    fn index() -> Index {
        let term = |stem: &str, postings: &[(u16, Field, f32)]| Term {
            stem: stem.into(),
            postings: postings
                .iter()
                .map(|&(method, field, weight)| Posting {
                    method,
                    field,
                    weight,
                })
                .collect(),
        };
        let terms = vec![
            term("row", &[(0, Field::Synonym, 1.0), (1, Field::Synonym, 2.0)]),
            term("select", &[(0, Field::Name, 5.0)]),
            term("sum", &[(2, Field::Name, 5.0)]),
            term("updat", &[(1, Field::Name, 5.0)]),
        ];
        let words = [
            ("rows", "row"),
            ("select", "select"),
            ("sum", "sum"),
            ("update", "updat"),
        ];
        Index::new(
            terms,
            words.map(|(word, stem)| (word.to_string(), stem.to_string(), true)),
        )
    }

    fn ranked(query: &str) -> Vec<(usize, f32)> {
        let index = index();
        let terms = query_terms(&index, query);
        rank(&index, &terms, 10)
            .iter()
            .map(|found| (found.method, found.score))
            .collect()
    }

    #[test]
    fn weights_are_summed_best_first() {
        assert_eq!(ranked("select rows"), [(0, 6.0), (1, 2.0)]);
        assert_eq!(ranked("update rows"), [(1, 7.0), (0, 1.0)]);
        assert_eq!(ranked("kubernetes"), []);
        let index = index();
        let terms = query_terms(&index, "rows");
        assert_eq!(rank(&index, &terms, 1).len(), 1);
    }

    #[test]
    fn a_word_the_index_lacks_is_read_as_its_nearest_terms_for_less() {
        assert_eq!(ranked("selct"), [(0, 3.5)]);
        assert_eq!(ranked("upadte rows"), [(1, 5.5), (0, 1.0)]);
        let index = index();
        let terms = query_terms(&index, "Upadte");
        let found = rank(&index, &terms, 10);
        assert_eq!(
            found[0].why,
            [Matched {
                word: "upadte",
                read_as: Some("update"),
                field: Field::Name
            }]
        );
        // Under five letters, a word is read as it is or not at all.
        assert_eq!(ranked("summ"), []);
        assert_eq!(ranked("roows"), [(1, 1.4), (0, 0.7)]);
    }

    #[test]
    fn a_query_looks_up_each_stem_once_and_at_most_the_limit() {
        let index = index();
        let terms = query_terms(&index, "rows Rows row counting counted");
        let stems: Vec<&str> = terms.iter().map(|(_, stem)| stem.as_str()).collect();
        assert_eq!(stems, ["row", "count"]);
        let many: String = (0..100).map(|i| format!("word{i} ")).collect();
        assert_eq!(query_terms(&index, &many).len(), MAX_QUERY_TERMS);
    }

    #[test]
    fn a_long_query_is_cut_at_a_character_boundary() {
        let long = "é".repeat(MAX_QUERY_BYTES);
        assert_eq!(read_part(&long).len(), MAX_QUERY_BYTES);
        let odd = format!("a{long}");
        assert_eq!(read_part(&odd).len(), MAX_QUERY_BYTES - 1);
        assert_eq!(read_part("abc"), "abc");
        assert_eq!(read_part(""), "");
    }
}
