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
//!
//! Chinese is written without spaces, so a run of Han ideographs is cut
//! into its overlapping bigrams (`插入一条记录` → `插入`, `入一`, `一条`,
//! `条记`, `记录`), a run of one ideograph being that one character, and
//! the letters of another script beside it are a word of their own
//! (`select方法` → `select`, `方法`). Full-width punctuation (`，。？、「」`)
//! is not a word's, so it parts words as a space does. Bigrams rather
//! than a dictionary's words: there is no dictionary to keep, nor a
//! segmenter to be wrong where the reference's words are not its words,
//! and every Chinese word of two characters or more is found by its
//! bigrams, in the reference and in a question cut the same way
//! (`如何插入记录` and `向数据表插入一条或多条记录` share `插入` and `记录`).
//! The cost is more terms and postings: a run of n ideographs makes n − 1
//! bigrams, of which those across two words (`入一`, `条记`) are noise
//! that the index's weights (BM25's idf) count little. A word of one
//! character inside a run (`表` of `数据表`) is not found alone. Bigrams
//! are neither stemmed nor stop words, but for those made only of a few
//! function characters (`一个`, `的是`: `FUNCTION_CHARACTERS`); nor are
//! they read as typos ([`typos`]). Japanese kana and Korean Hangul are
//! words as any other script's letters: a run of kana is one word (the
//! Han between kana is cut into bigrams), Hangul is spaced by words.

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
    /// pipeline does): the name 6, a synonym 4, the group and the
    /// description 2, every other field 1.
    pub fn weight(self) -> f32 {
        const WEIGHTS: [f32; Field::ALL.len()] = [6.0, 4.0, 2.0, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
        WEIGHTS[self.index()]
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
        let spellings = words.into_iter().filter_map(|(word, stem, typos)| {
            let term = index.position(&stem)?;
            Some(Spelling {
                typos: typos && typos::may_be_misspelt(&word),
                word,
                term: u32::try_from(term).expect("fewer terms than a u32 numbers"),
            })
        });
        index.spellings = spellings.collect();
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
        stemmed(words(text), |folded| {
            let spelling = self
                .spellings
                .binary_search_by(|spelling| spelling.word.as_str().cmp(folded))
                .ok()?;
            let term = self.terms.get(self.spellings[spelling].term as usize)?;
            Some(term.stem.clone())
        })
    }

    /// The term `stem`, if indexed.
    pub fn term(&self, stem: &str) -> Option<&Term> {
        self.position(stem).map(|i| &self.terms[i])
    }

    /// The position of the term `stem` in [`Index::terms`], if indexed.
    fn position(&self, stem: &str) -> Option<usize> {
        self.terms
            .binary_search_by(|term| term.stem.as_str().cmp(stem))
            .ok()
    }

    /// The terms whose words are nearest `word` (a query word the index
    /// lacks) within `edits` edits: those at the least distance there is,
    /// each term once, in the order of their words. Empty when none is
    /// that near, and for a word of Han ideographs (a bigram is right or
    /// not at all).
    pub fn nearest(&self, word: &str, edits: usize) -> Vec<Near<'_>> {
        // Edits on a bigram of ideographs (bytes of UTF-8) reach only noise.
        if edits == 0 || has_ideograph(word) {
            return Vec::new();
        }
        // The spellings that share a key with the word, each once (one may
        // share several), in the order found.
        let mut shared = Vec::new();
        let mut start = 0;
        for key in typos::deletion_keys(word.as_bytes(), edits) {
            // The keys are sorted: each is looked for after the last.
            start += self.neighbours[start..].partition_point(|n| n.key < key);
            for neighbour in self.neighbours[start..].iter().take_while(|n| n.key == key) {
                if !shared.contains(&neighbour.spelling) {
                    shared.push(neighbour.spelling);
                }
            }
        }
        let measured = shared.iter().filter_map(|&spelling| {
            let spelling = self.spellings.get(spelling as usize)?;
            let term = self.terms.get(spelling.term as usize)?;
            let distance = typos::edit_distance(word.as_bytes(), spelling.word.as_bytes(), edits);
            Some(Near {
                term,
                spelling: &spelling.word,
                edits: distance.filter(|&d| d > 0)?,
            })
        });
        // Each term once, at the least distance of its spellings.
        let mut nearest: Vec<Near> = Vec::new();
        for near in measured {
            match nearest
                .iter_mut()
                .find(|seen| std::ptr::eq(seen.term, near.term))
            {
                Some(seen) if seen.edits > near.edits => *seen = near,
                Some(_) => {}
                None => nearest.push(near),
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

/// The Han characters that, alone or two together, are left out: the
/// particles and the "one" that join the words of nearly every Chinese
/// sentence (`的`, `了`, `是`, `在`, `和`, and `一个`, "a"). A bigram made
/// of them only (`的是`, `是一`, `一个`, `在一`) is no word: it would find
/// every description, count among a query's [`MAX_QUERY_TERMS`], and show
/// in the line that says why a method matched. Any bigram with another
/// character in it is kept (`的数`, `存在`, `一条`). Kept tiny: the index
/// already weighs a common term down (BM25's idf), so this list is only
/// for what is never a word at all.
const FUNCTION_CHARACTERS: [char; 7] = ['的', '了', '是', '在', '和', '一', '个'];

/// The Han characters that make no word of documentation with a
/// neighbour: the particles (`的`, `了`, `吗`, `呢`, `吧`, `么`), the
/// markers of a sentence's object and of "some" (`把`, `被`, `某`, `些`),
/// and the pronouns of a question (`我`, `你`). A bigram with one of them
/// (`用户的`'s `户的`, `某个`, `怎么`) only joins two words of a question,
/// and is left out.
const PARTICLES: [char; 12] = [
    '的', '了', '吗', '呢', '吧', '么', '把', '被', '某', '些', '我', '你',
];

/// Bigrams of a question that are no word of documentation: "how", "can",
/// "need", "want", "what", "which".
const QUESTION_WORDS: [&str; 8] = [
    "如何", "怎样", "可以", "需要", "想要", "什么", "哪个", "一下",
];

/// The search terms of `text`, each with the word it came from: words of
/// letters, digits and underscores (`insert_id` is one word, as
/// `lastInsertId` is), accents folded, lower-cased, stop words left out
/// (unless written in capitals: `LIKE` is SQL's), stemmed (Snowball
/// English), and the library's bracketed operators (`[>]`) as they are;
/// in order, repeats kept. Markup tags (`<code>`) are not words. Han
/// ideographs are cut into bigrams, apart from the letters around them
/// (`PHP的数据库` → `php`, `的数`, `数据`, `据库`; the module's docs say why).
pub fn terms(text: &str) -> Vec<(String, String)> {
    stemmed(words(text), |_| None)
}

/// The search terms of an example's code: its operators (`[>]`, `[+]`)
/// and its words written in capitals (the clause keys `ORDER`, `LIMIT`,
/// `GROUP`, SQL's keywords and functions), as [`terms`] makes them, so
/// that a question finds them as it finds the prose (`LIMIT` as `limit`).
/// The code's other words (variables, tables, columns, values) are the
/// example's own and say nothing of the method.
pub fn code_terms(code: &str) -> Vec<(String, String)> {
    stemmed(
        words(code).filter(|word| is_operator(word) || in_capitals(word)),
        |_| None,
    )
}

/// The terms of `words`, each as [`term`] makes it, its folded form
/// stemmed as `indexed` says, or else by Snowball English.
fn stemmed<'t>(
    words: impl Iterator<Item = &'t str>,
    indexed: impl Fn(&str) -> Option<String>,
) -> Vec<(String, String)> {
    let stemmer = Stemmer::create(Algorithm::English);
    let stem = |folded: &str| indexed(folded).unwrap_or_else(|| stemmer.stem(folded).into_owned());
    words.filter_map(|word| term(word, stem)).collect()
}

/// The term of one word, `(word, stem)`, its folded, lower-cased form
/// stemmed by `stem`; none for a stop word.
fn term(word: &str, stem: impl FnOnce(&str) -> String) -> Option<(String, String)> {
    if is_operator(word) {
        return Some((word.to_string(), word.to_string()));
    }
    let folded = fold(word).to_lowercase();
    // A bigram of ideographs (or one alone), from `pieces`: its own term,
    // neither stemmed nor a stop word, unless made of function characters only.
    if word.starts_with(is_ideograph) {
        if folded.chars().all(|c| FUNCTION_CHARACTERS.contains(&c))
            || folded.chars().any(|c| PARTICLES.contains(&c))
            || QUESTION_WORDS.contains(&folded.as_str())
        {
            return None;
        }
        return Some((folded.clone(), folded));
    }
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

/// Whether `word` is written in capitals: two letters or more, none
/// lower-case, some upper-case (letters without case, such as ideographs,
/// are not capitals).
fn in_capitals(word: &str) -> bool {
    word.chars().filter(|c| c.is_alphabetic()).count() >= 2
        && !word.chars().any(char::is_lowercase)
        && word.chars().any(char::is_uppercase)
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

/// The words of `text` (runs of [`in_word`] characters, each cut into
/// its [`pieces`]) and its operators, tags (`<…>`) skipped.
fn words(text: &str) -> impl Iterator<Item = &str> {
    runs(text).flat_map(pieces)
}

/// The runs of [`in_word`] characters of `text` and its operators, tags
/// (`<…>`) skipped.
fn runs(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || loop {
        let start = rest.find(|c: char| in_word(c) || c == '<' || c == '[')?;
        rest = &rest[start..];
        // How far what starts here goes, and whether it is a word: a tag
        // (`<…>`) or a bracket of no operator is skipped.
        let (end, word) = match rest.as_bytes()[0] {
            b'<' => (rest.find('>').map_or(rest.len(), |end| end + 1), false),
            b'[' => match rest.find(']').filter(|&end| is_operator(&rest[..=end])) {
                Some(end) => (end + 1, true),
                None => (1, false),
            },
            _ => (rest.find(|c: char| !in_word(c)).unwrap_or(rest.len()), true),
        };
        let (run, after) = rest.split_at(end);
        rest = after;
        if word {
            return Some(run);
        }
    })
}

/// Whether `c` is a Han ideograph: of the CJK Unified Ideographs, their
/// Extension A, the Compatibility Ideographs, or the supplementary
/// ideographic planes (Extensions B on, the Compatibility Supplement).
/// Kana, Hangul and the ideographic punctuation are not.
pub(crate) fn is_ideograph(c: char) -> bool {
    matches!(
        c,
        '\u{3400}'..='\u{4DBF}'
            | '\u{4E00}'..='\u{9FFF}'
            | '\u{F900}'..='\u{FAFF}'
            | '\u{20000}'..='\u{3FFFF}'
    )
}

/// Whether `word` has a Han ideograph in it (at once for ASCII).
pub(crate) fn has_ideograph(word: &str) -> bool {
    !word.is_ascii() && word.chars().any(is_ideograph)
}

/// The pieces of one of [`runs`]' words: a word without ideographs as it
/// is; in another, the letters of other scripts apart (`select方法` →
/// `select`, `方法`), and each run of ideographs cut into its overlapping
/// bigrams (`插入记录` → `插入`, `入记`, `记录`), a run of one being that
/// one ideograph. An accent written apart stays with the character before it.
fn pieces(word: &str) -> impl Iterator<Item = &str> {
    // Whether the word is ASCII, so one piece (the common case, found once).
    let plain = word.is_ascii();
    let mut rest = word;
    // Whether the last piece was a bigram whose second ideograph begins `rest`.
    let mut after_bigram = false;
    std::iter::from_fn(move || loop {
        if rest.is_empty() {
            return None;
        }
        let word = rest;
        if plain || !word.starts_with(is_ideograph) {
            let end = if plain {
                word.len()
            } else {
                word.find(is_ideograph).unwrap_or(word.len())
            };
            rest = &word[end..];
            after_bigram = false;
            return Some(&word[..end]);
        }
        let first = character_end(word);
        rest = &word[first..];
        if rest.starts_with(is_ideograph) {
            after_bigram = true;
            return Some(&word[..first + character_end(rest)]);
        }
        // The last ideograph of a run: a piece of its own only if alone.
        if !std::mem::take(&mut after_bigram) {
            return Some(&word[..first]);
        }
    })
}

/// The length of `text`'s first character with the combining marks after it.
fn character_end(text: &str) -> usize {
    text.char_indices()
        .skip(1)
        .find(|&(_, c)| !is_combining_mark(c))
        .map_or(text.len(), |(at, _)| at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

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
    fn a_run_of_ideographs_is_cut_into_overlapping_bigrams() {
        assert_eq!(
            stems(terms("插入一条记录")),
            ["插入", "入一", "一条", "条记", "记录"]
        );
        assert_eq!(stems(terms("插入")), ["插入"]);
        assert_eq!(
            terms("记录"),
            [("记录".to_string(), "记录".to_string())],
            "neither stemmed nor folded away"
        );
    }

    #[test]
    fn a_run_of_one_ideograph_is_that_ideograph() {
        assert_eq!(stems(terms("表")), ["表"]);
        assert_eq!(stems(terms("用 表 查询")), ["用", "表", "查询"]);
        assert_eq!(stems(terms("row表id")), ["row", "表", "id"]);
    }

    #[test]
    fn letters_of_other_scripts_beside_ideographs_are_words_of_their_own() {
        assert_eq!(stems(terms("select方法")), ["select", "方法"]);
        assert_eq!(stems(terms("PHP的数据库")), ["php", "数据", "据库"]);
        assert_eq!(
            stems(terms("用 where 数组过滤记录")),
            ["用", "where", "数组", "组过", "过滤", "滤记", "记录"]
        );
        assert_eq!(
            stems(terms("用insert插入，返回lastInsertId。")),
            ["用", "insert", "插入", "返回", "lastinsertid"]
        );
        assert_eq!(stems(terms("score[>]大于")), ["score", "[>]", "大于"]);
    }

    #[test]
    fn full_width_punctuation_parts_words() {
        assert_eq!(
            stems(terms(
                "如何插入？插入，更新。删除！查询、计数：求和；「数据」（表）《手册》“记录”\u{3000}结束"
            )),
            [
                "何插", "插入", "插入", "更新", "删除", "查询", "计数", "求和", "数据",
                "表", "手册", "记录", "结束"
            ]
        );
        assert!(terms("，。？！、：；「」（）《》“”").is_empty());
    }

    #[test]
    fn bigrams_of_function_characters_only_are_left_out() {
        assert_eq!(stems(terms("这是一个表")), ["这是", "个表"]);
        assert_eq!(stems(terms("的")), Vec::<String>::new());
        assert_eq!(stems(terms("存在的表")), ["存在"]);
        assert!(FUNCTION_CHARACTERS.iter().all(|c| is_ideograph(*c)));
    }

    #[test]
    fn bigrams_that_only_join_the_words_of_a_question_are_left_out() {
        assert_eq!(
            stems(terms("怎么修改某个用户的邮箱")),
            ["修改", "个用", "用户", "邮箱"]
        );
        assert_eq!(
            stems(terms("如何删除记录")),
            ["何删", "删除", "除记", "记录"]
        );
        assert!(PARTICLES.iter().all(|c| is_ideograph(*c)));
        assert!(QUESTION_WORDS
            .iter()
            .all(|w| w.chars().count() == 2 && w.chars().all(is_ideograph)));
    }

    #[test]
    fn every_block_of_ideographs_is_cut_and_compatibility_ones_folded() {
        // Extension A, Extension B, and a compatibility ideograph (U+F900,
        // the same character as U+8C48 by its canonical decomposition).
        assert_eq!(stems(terms("\u{3400}\u{3401}")), ["\u{3400}\u{3401}"]);
        assert_eq!(stems(terms("\u{20000}\u{20001}")), ["\u{20000}\u{20001}"]);
        assert_eq!(stems(terms("\u{F900}语")), ["\u{8C48}语"]);
        // An accent written apart stays with its character and is folded away.
        assert_eq!(stems(terms("插\u{301}入")), ["插入"]);
    }

    #[test]
    fn a_chinese_question_shares_the_bigrams_of_the_words_it_names() {
        let question: BTreeSet<String> = stems(terms("如何插入记录")).into_iter().collect();
        let description: BTreeSet<String> = stems(terms("向数据表插入一条或多条记录"))
            .into_iter()
            .collect();
        let shared: Vec<&String> = question.intersection(&description).collect();
        assert_eq!(shared, ["插入", "记录"]);
    }

    #[test]
    fn kana_and_hangul_are_words_as_before() {
        assert_eq!(
            stems(terms("かな接続するカナ")),
            ["かな", "接続", "するカナ"]
        );
        // Hangul syllables come out decomposed (the folding's NFD), as before.
        let hangul: Vec<String> = stems(terms("데이터베이스 연결"))
            .iter()
            .map(|stem| stem.nfc().collect())
            .collect();
        assert_eq!(hangul, ["데이터베이스", "연결"]);
    }

    #[test]
    fn the_chinese_of_code_is_not_its_terms() {
        let code = "// 插入一条记录\n$db->insert('account', ['ORDER' => '名字']);";
        assert_eq!(stems(code_terms(code)), ["order"]);
    }

    #[test]
    fn ascii_words_have_no_ideograph() {
        assert!(!has_ideograph("select"));
        assert!(!has_ideograph("sélect"));
        assert!(has_ideograph("select方法"));
        assert!(!has_ideograph("データ"));
    }

    #[test]
    fn words_of_ideographs_are_never_read_as_typos() {
        let term = |stem: &str| Term {
            stem: stem.into(),
            postings: Vec::new(),
        };
        // U+6570 数 and U+6571 are one byte apart in UTF-8; U+9C00 and
        // Hangul 가 (U+AC00) too.
        let index = Index::new(
            vec![term("数据"), term("가나")],
            [("数据", "数据", true), ("가나", "가나", true)]
                .map(|(word, stem, typos)| (word.to_string(), stem.to_string(), typos)),
        );
        let spelt: Vec<(&str, bool)> = index
            .spellings
            .iter()
            .map(|s| (s.word.as_str(), s.typos))
            .collect();
        assert_eq!(spelt, [("数据", false), ("가나", true)]);
        assert!(index.nearest("\u{6571}据", 1).is_empty(), "none of 数据");
        assert!(
            index.nearest("\u{9C00}나", 1).is_empty(),
            "a Han query word"
        );
        assert_eq!(index.nearest("\u{AC01}나", 1)[0].spelling, "가나");
        assert_eq!(
            index.query_terms("数据"),
            [("数据".to_string(), "数据".to_string())]
        );
    }

    proptest::proptest! {
        #[test]
        fn pieces_are_bigrams_of_ideographs_or_words_without_any(
            text in "[a-z_1 ，\u{301}一-丑插入记录데のカ\u{3400}\u{F900}\u{20000}]{0,24}"
        ) {
            let mut han = 0;
            for word in words(&text) {
                let ideographs = word.chars().filter(|c| is_ideograph(*c)).count();
                let marks = word.chars().filter(|c| is_combining_mark(*c)).count();
                proptest::prop_assert!(!word.is_empty());
                proptest::prop_assert!(
                    ideographs == 0
                        || (ideographs <= 2 && ideographs + marks == word.chars().count()),
                    "{:?}",
                    word
                );
                han += usize::from(ideographs > 0);
            }
            // A run of n ideographs makes n − 1 bigrams, a run of one itself.
            let expected: usize = ideograph_runs(&text).iter().map(|&n| (n - 1).max(1)).sum();
            proptest::prop_assert_eq!(han, expected, "{:?}", text);
        }
    }

    /// The lengths of `text`'s runs of ideographs (an accent written apart
    /// inside one continuing it).
    fn ideograph_runs(text: &str) -> Vec<usize> {
        let mut runs = Vec::new();
        let mut inside = false;
        for c in text.chars() {
            if is_ideograph(c) {
                if !inside {
                    runs.push(0);
                }
                *runs.last_mut().expect("a run was begun") += 1;
                inside = true;
            } else if !is_combining_mark(c) {
                inside = false;
            }
        }
        runs
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
