//! Search's terms and index: the words of a text as search terms, the
//! fields a term is found in, and the index the pipeline fills at build
//! time (BM25F weights, `src/pipeline/search.rs`) and the server reads.
//!
//! The pipeline indexes each method's fields (name, group, description,
//! signatures, parameters, return value, note, example titles and code)
//! and the synonyms of its file's front matter; the server cuts a query
//! into terms with the same [`terms`], looks each up (a word the index
//! lacks by its [`typos`] neighbours) and sums at most [`MAX_QUERY_TERMS`]
//! weights per method. Nothing is scored at run time but that sum.
//!
//! A term is a word's stem, lower-cased with its accents folded (`Sélect`
//! → `select`), or one of the library's bracketed operators as written
//! (`[>]`, `[+]`, `[<>]`): the keys of a `where` or `data` array that
//! people type as they are.

pub mod typos;

use rust_stemmers::{Algorithm, Stemmer};
use std::borrow::Cow;
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// The most terms of a query that are looked up; the rest are ignored.
pub const MAX_QUERY_TERMS: usize = 24;

/// The longest query read, in bytes; the rest is ignored.
pub const MAX_QUERY_BYTES: usize = 500;

/// Where a term was found in a method, for the line that says why it
/// matched. The weight is how much one occurrence there counts.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[repr(u8)]
pub enum Field {
    /// The method's name.
    Name,
    /// A word an agent may use for it (`synonyms` in its file's front matter).
    Synonym,
    /// The name of its group on the homepage.
    Group,
    /// Its description.
    Description,
    /// A signature or a parameter's name and type.
    Signature,
    /// A parameter's description.
    Parameter,
    /// Its return value.
    Returns,
    /// Its note.
    Note,
    /// The title of one of its examples.
    Example,
    /// The code of one of its examples: its operators and the words written
    /// in capitals (clause keys such as `ORDER`, SQL), by [`code_terms`].
    Code,
}

impl Field {
    /// Every field, in the order of [`Field::index`].
    pub const ALL: [Field; 10] = [
        Field::Name,
        Field::Synonym,
        Field::Group,
        Field::Description,
        Field::Signature,
        Field::Parameter,
        Field::Returns,
        Field::Note,
        Field::Example,
        Field::Code,
    ];

    /// How much one occurrence of a term here counts (in the ranking the
    /// pipeline does).
    pub fn weight(self) -> f32 {
        match self {
            Field::Name => 6.0,
            Field::Synonym => 4.0,
            Field::Group | Field::Description => 2.0,
            Field::Signature
            | Field::Parameter
            | Field::Returns
            | Field::Note
            | Field::Example
            | Field::Code => 1.0,
        }
    }

    /// Where it was found, as the line that says why a method matched names it.
    pub fn label(self) -> &'static str {
        match self {
            Field::Name => "its name",
            Field::Synonym => "a word for what it does",
            Field::Group => "its group",
            Field::Description => "its description",
            Field::Signature => "its signature",
            Field::Parameter => "a parameter",
            Field::Returns => "its return value",
            Field::Note => "its note",
            Field::Example => "an example's title",
            Field::Code => "an example's code",
        }
    }

    /// Its position in [`Field::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// One method a term finds.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Posting {
    /// The method's position in the catalog.
    pub method: u16,
    /// Where the term counts most in it.
    pub field: Field,
    /// The term's BM25F weight for the method.
    pub weight: f32,
}

/// A search term and the methods it finds.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Term {
    /// The stem (or the operator).
    pub stem: String,
    /// The methods it finds, with their weights, by method.
    pub postings: Vec<Posting>,
}

/// A word the reference writes, and the term it makes: a query word
/// the reference writes takes its stem from here, and one it does not
/// write is measured against those a typo may be read as ([`typos`]).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct Spelling {
    /// The word, as [`terms`] gives it (folded, lower-cased).
    pub word: String,
    /// Its term's position in [`Index::terms`].
    pub term: u32,
    /// Whether a typo may be read as it.
    pub typos: bool,
}

/// A term near a query word the index lacks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Near<'i> {
    /// The term.
    pub term: &'i Term,
    /// The word of the reference the query word was measured against.
    pub spelling: &'i str,
    /// How many edits apart they are.
    pub edits: usize,
}

/// The index: every term, the words they come from, and the typo
/// neighbourhood of those words ([`typos`]).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Index {
    /// Every term, sorted by stem, each once.
    pub terms: Vec<Term>,
    /// The words the terms come from, sorted, each once.
    pub spellings: Vec<Spelling>,
    /// The deletion keys of the spellings a typo may be read as
    /// (`typos::neighbourhood`), sorted.
    pub neighbours: Vec<typos::Neighbour>,
}

impl Index {
    /// The index of `terms` (sorted by stem, each once) and of the words
    /// they come from (`(word, stem, typos)`: as [`terms`] gives them, and
    /// whether a typo may be read as the word, which it may only if it is
    /// letters, four to `typos::MAX_TYPO_BYTES` bytes), with the
    /// neighbourhood of those words.
    pub fn new(terms: Vec<Term>, words: impl IntoIterator<Item = (String, String, bool)>) -> Index {
        let mut index = Index {
            terms,
            ..Index::default()
        };
        for (word, stem, typos) in words {
            let Ok(term) = index
                .terms
                .binary_search_by(|term| term.stem.as_str().cmp(&stem))
            else {
                continue;
            };
            index.spellings.push(Spelling {
                typos: typos && typos::may_be_misspelt(&word),
                word,
                term: u32::try_from(term).expect("fewer terms than a u32 numbers"),
            });
        }
        index.spellings.sort();
        // Of a word given twice, one kept, typos allowed if either allows them.
        index.spellings.dedup_by(|later, kept| {
            let same = later.word == kept.word;
            kept.typos |= same && later.typos;
            same
        });
        index.neighbours = typos::neighbourhood(&index.spellings);
        index
    }

    /// The search terms of a query `text`, as [`terms`] makes them; a word
    /// the reference writes takes its stem from the index, where the
    /// stemmer put it (the same stem, without stemming it again).
    pub fn query_terms(&self, text: &str) -> Vec<(String, String)> {
        let stemmer = Stemmer::create(Algorithm::English);
        words(text)
            .filter_map(|word| {
                term(word, |folded| {
                    let indexed = self
                        .spellings
                        .binary_search_by(|spelling| spelling.word.as_str().cmp(folded));
                    let spelling = indexed.ok().map(|i| self.spellings[i].term as usize);
                    match spelling.and_then(|term| self.terms.get(term)) {
                        Some(term) => term.stem.clone(),
                        None => stemmer.stem(folded).into_owned(),
                    }
                })
            })
            .collect()
    }

    /// The term `stem`, if indexed.
    pub fn term(&self, stem: &str) -> Option<&Term> {
        self.terms
            .binary_search_by(|term| term.stem.as_str().cmp(stem))
            .ok()
            .map(|i| &self.terms[i])
    }

    /// The terms whose words are nearest `word` (a query word the index
    /// lacks) within `edits` edits: those at the least distance there is,
    /// each term once, in the order of their words. Empty when none is
    /// that near.
    pub fn nearest(&self, word: &str, edits: usize) -> Vec<Near<'_>> {
        let mut nearest: Vec<Near> = Vec::new();
        if edits == 0 {
            return nearest;
        }
        // The spellings measured: one shares several keys with the word.
        let mut measured = Vec::new();
        let mut start = 0;
        for key in typos::deletion_keys(word.as_bytes(), edits) {
            // The keys are sorted: each is looked for after the last.
            start += self.neighbours[start..].partition_point(|n| n.key < key);
            for neighbour in self.neighbours[start..].iter().take_while(|n| n.key == key) {
                if measured.contains(&neighbour.spelling) {
                    continue;
                }
                measured.push(neighbour.spelling);
                let Some(spelling) = self.spellings.get(neighbour.spelling as usize) else {
                    continue;
                };
                let Some(term) = self.terms.get(spelling.term as usize) else {
                    continue;
                };
                let distance =
                    typos::edit_distance(word.as_bytes(), spelling.word.as_bytes(), edits);
                let Some(distance) = distance.filter(|&d| d > 0) else {
                    continue;
                };
                let near = Near {
                    term,
                    spelling: &spelling.word,
                    edits: distance,
                };
                match nearest
                    .iter_mut()
                    .find(|seen| std::ptr::eq(seen.term, term))
                {
                    Some(seen) if seen.edits > distance => *seen = near,
                    Some(_) => {}
                    None => nearest.push(near),
                }
            }
        }
        let least = nearest.iter().map(|near| near.edits).min().unwrap_or(0);
        nearest.retain(|near| near.edits == least);
        nearest.sort_by(|a, b| a.spelling.cmp(b.spelling));
        nearest
    }
}

/// Words too common in questions to tell methods apart (and particles,
/// such as the `up` of "sign up" and "add up"). Written in capitals
/// (`LIKE`, `IN`, `AND`), they are SQL, and kept. Sorted.
const STOP_WORDS: [&str; 52] = [
    "a", "about", "also", "am", "an", "and", "are", "as", "at", "be", "but", "by", "can", "do",
    "does", "for", "from", "how", "i", "if", "in", "into", "is", "it", "its", "just", "like", "me",
    "method", "my", "of", "on", "or", "out", "php", "so", "than", "that", "the", "then", "there",
    "this", "to", "up", "use", "want", "was", "what", "which", "with", "you", "your",
];

/// The search terms of `text`, each with the word it came from: words of
/// letters, digits and underscores (`insert_id` is one word, as
/// `lastInsertId` is), accents folded, lower-cased, stop words left out
/// (unless written in capitals: `LIKE` is SQL's), stemmed (Snowball
/// English), and the library's bracketed operators (`[>]`) as they are;
/// in order, repeats kept. Markup tags (`<code>`) are not words.
pub fn terms(text: &str) -> Vec<(String, String)> {
    let stemmer = Stemmer::create(Algorithm::English);
    words(text)
        .filter_map(|word| term(word, |folded| stemmer.stem(folded).into_owned()))
        .collect()
}

/// The search terms of an example's code: its operators (`[>]`, `[+]`)
/// and its words written in capitals (the clause keys `ORDER`, `LIMIT`,
/// `GROUP`, SQL's keywords and functions), as [`terms`] makes them, so
/// that a question finds them as it finds the prose (`LIMIT` as `limit`).
/// The code's other words (variables, tables, columns, values) are the
/// example's own and say nothing of the method.
pub fn code_terms(code: &str) -> Vec<(String, String)> {
    let stemmer = Stemmer::create(Algorithm::English);
    words(code)
        .filter(|word| is_operator(word) || in_capitals(word))
        .filter_map(|word| term(word, |folded| stemmer.stem(folded).into_owned()))
        .collect()
}

/// The term of one word, `(word, stem)`, its folded, lower-cased form
/// stemmed by `stem`; none for a stop word.
fn term(word: &str, stem: impl FnOnce(&str) -> String) -> Option<(String, String)> {
    if is_operator(word) {
        return Some((word.to_string(), word.to_string()));
    }
    let folded = fold(word).to_lowercase();
    if !in_capitals(word) && STOP_WORDS.binary_search(&folded.as_str()).is_ok() {
        return None;
    }
    let stem = stem(&folded);
    Some((folded, stem))
}

/// `word` without its accents: each character decomposed (NFD) and its
/// combining marks dropped; other text as it is.
fn fold(word: &str) -> Cow<'_, str> {
    if word.is_ascii() {
        Cow::Borrowed(word)
    } else {
        Cow::Owned(word.nfd().filter(|c| !is_combining_mark(*c)).collect())
    }
}

/// Whether `word` is written in capitals: two letters or more, none lower-case.
fn in_capitals(word: &str) -> bool {
    word.chars().filter(|c| c.is_alphabetic()).count() >= 2 && !word.chars().any(char::is_lowercase)
}

/// The characters of the library's bracketed operators (`[>]`, `[!~]`, `[+]`).
const OPERATOR_SIGNS: &str = "<>!~+-*/=";

/// Whether `word` is one of the library's operators: one to three of
/// [`OPERATOR_SIGNS`] in square brackets.
fn is_operator(word: &str) -> bool {
    word.strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
        .is_some_and(|signs| {
            (1..=3).contains(&signs.len()) && signs.chars().all(|c| OPERATOR_SIGNS.contains(c))
        })
}

/// Whether `c` belongs to a word: a letter, a digit, an underscore, or an
/// accent written apart from its letter.
fn in_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || is_combining_mark(c)
}

/// The words of `text` (runs of [`in_word`] characters) and its operators,
/// tags (`<…>`) skipped.
fn words(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || loop {
        let start = rest.find(|c: char| in_word(c) || c == '<' || c == '[')?;
        rest = &rest[start..];
        if rest.starts_with('[') {
            let operator = rest
                .find(']')
                .map(|end| &rest[..=end])
                .filter(|candidate| is_operator(candidate));
            match operator {
                Some(operator) => {
                    rest = &rest[operator.len()..];
                    return Some(operator);
                }
                None => {
                    rest = &rest[1..];
                    continue;
                }
            }
        }
        if rest.starts_with('<') {
            rest = rest.find('>').map_or("", |end| &rest[end + 1..]);
            continue;
        }
        let end = rest.find(|c: char| !in_word(c)).unwrap_or(rest.len());
        let (word, after) = rest.split_at(end);
        rest = after;
        return Some(word);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stems(terms: Vec<(String, String)>) -> Vec<String> {
        terms.into_iter().map(|(_, stem)| stem).collect()
    }

    #[test]
    fn terms_are_lowercased_stemmed_words_without_markup_or_stop_words() {
        assert_eq!(
            stems(terms(
                "How do I roll back the <code>Transactions</code>, counting rows?"
            )),
            ["roll", "back", "transact", "count", "row"]
        );
    }

    #[test]
    fn each_term_keeps_the_word_it_came_from() {
        assert_eq!(
            terms("Inserted IDs"),
            [
                ("inserted".to_string(), "insert".to_string()),
                ("ids".to_string(), "id".to_string())
            ]
        );
    }

    #[test]
    fn stop_words_are_sorted_for_their_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn text_without_words_has_no_terms() {
        assert!(terms("  ?! <b> -- [ ] [] [>>>>] [?] ").is_empty());
        assert!(terms("").is_empty());
    }

    #[test]
    fn accents_are_folded_composed_or_not() {
        assert_eq!(stems(terms("Sélect")), ["select"]);
        assert_eq!(stems(terms("se\u{301}lect")), ["select"]);
        assert_eq!(
            stems(terms("AVERAGE moyenne âgée")),
            ["averag", "moyenn", "age"]
        );
    }

    #[test]
    fn operators_are_terms_as_written() {
        assert_eq!(
            stems(terms("score[>] and `[+]`, [<>] or [!~]: [x] [<=>]")),
            ["score", "[>]", "[+]", "[<>]", "[!~]", "x", "[<=>]"]
        );
        assert_eq!(stems(terms("[>]account")), ["[>]", "account"]);
    }

    #[test]
    fn identifiers_are_one_word_and_capitals_are_never_stop_words() {
        assert_eq!(
            stems(terms("insert_id lastInsertId")),
            ["insert_id", "lastinsertid"]
        );
        assert_eq!(
            stems(terms("like LIKE, is IS NULL, I")),
            ["like", "is", "null"]
        );
    }

    #[test]
    fn code_gives_its_operators_and_capitals_only() {
        let code = "$rows = $db->select('account', ['id'], [\n    'score[>]' => 10,\n    \
                    'ORDER' => ['created_at' => 'DESC'],\n    'LIMIT' => [20, 10]\n]);";
        assert_eq!(stems(code_terms(code)), ["[>]", "order", "desc", "limit"]);
    }

    #[test]
    fn the_nearest_terms_are_those_at_the_least_distance_each_once() {
        let term = |stem: &str| Term {
            stem: stem.into(),
            postings: Vec::new(),
        };
        let words = [
            ("count", "count", true),
            ("counts", "count", true),
            ("counted", "count", false),
            ("counted", "count", true),
            ("select", "select", true),
            ("selected", "select", false),
            ("sum", "sum", true),
            ("not_a_term", "nothing", true),
        ];
        let index = Index::new(
            vec![term("count"), term("select"), term("sum")],
            words.map(|(word, stem, typos)| (word.to_string(), stem.to_string(), typos)),
        );
        // Each word once; none of no term; typos not read as the short.
        let spelt: Vec<(&str, bool)> = index
            .spellings
            .iter()
            .map(|s| (s.word.as_str(), s.typos))
            .collect();
        assert_eq!(
            spelt,
            [
                ("count", true),
                ("counted", true),
                ("counts", true),
                ("select", true),
                ("selected", false),
                ("sum", false)
            ]
        );
        assert!(
            index.nearest("selectde", 1).is_empty(),
            "not read as `selected`"
        );
        assert_eq!(
            index.query_terms("Counted sums"),
            [
                ("counted".to_string(), "count".to_string()),
                ("sums".to_string(), "sum".to_string())
            ]
        );
        let near = index.nearest("cuont", 1);
        assert_eq!(near.len(), 1);
        assert_eq!(
            (near[0].term.stem.as_str(), near[0].spelling, near[0].edits),
            ("count", "count", 1)
        );
        let near = index.nearest("countes", 1);
        let stems: Vec<&str> = near.iter().map(|n| n.term.stem.as_str()).collect();
        assert_eq!(stems, ["count"], "two spellings one edit away, one term");
        assert_eq!(index.nearest("seelctt", 2)[0].edits, 2);
        assert!(index.nearest("seelctt", 1).is_empty());
        assert!(index.nearest("selct", 0).is_empty());
        assert!(index.nearest("zzzzz", 2).is_empty());
    }
}
