//! Search's terms: the words of a text as search terms, the fields a term
//! is found in and the postings of the index the pipeline ranks at build
//! time (BM25F, `src/pipeline/search.rs`).
//!
//! The pipeline indexes each method's fields (name, group, description,
//! signatures, parameters, return value, note, example titles) and the
//! synonyms of its file's front matter; the server cuts a query into terms
//! with the same [`terms`], looks each up and sums at most
//! [`MAX_QUERY_TERMS`] weights per method. Nothing is scored at run time
//! but that sum.

use rust_stemmers::{Algorithm, Stemmer};

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
}

impl Field {
    /// Every field, in the order of [`Field::index`].
    pub const ALL: [Field; 9] = [
        Field::Name,
        Field::Synonym,
        Field::Group,
        Field::Description,
        Field::Signature,
        Field::Parameter,
        Field::Returns,
        Field::Note,
        Field::Example,
    ];

    /// How much one occurrence of a term here counts (in the ranking the
    /// pipeline does).
    pub fn weight(self) -> f32 {
        match self {
            Field::Name => 6.0,
            Field::Synonym => 4.0,
            Field::Group | Field::Description => 2.0,
            Field::Signature | Field::Parameter | Field::Returns | Field::Note | Field::Example => {
                1.0
            }
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

/// Words too common in questions to tell methods apart.
const STOP_WORDS: [&str; 44] = [
    "a", "am", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from",
    "how", "i", "if", "in", "into", "is", "it", "its", "like", "me", "method", "my", "of", "on",
    "or", "php", "so", "that", "the", "there", "this", "to", "use", "want", "was", "what", "which",
    "with", "you", "your",
];

/// The search terms of `text`, each with the word it came from: words of
/// letters and digits, lower-cased, stop words left out, stemmed (Snowball
/// English), in order, repeats kept. Markup tags (`<code>`) are not words.
pub fn terms(text: &str) -> Vec<(String, String)> {
    let stemmer = Stemmer::create(Algorithm::English);
    let mut terms = Vec::new();
    for word in words(text) {
        let word = word.to_lowercase();
        if STOP_WORDS.contains(&word.as_str()) {
            continue;
        }
        let stem = stemmer.stem(&word).into_owned();
        terms.push((word, stem));
    }
    terms
}

/// The runs of letters and digits of `text`, tags (`<…>`) skipped.
fn words(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || loop {
        let start = rest.find(|c: char| c.is_alphanumeric() || c == '<')?;
        rest = &rest[start..];
        if rest.starts_with('<') {
            rest = rest.find('>').map_or("", |end| &rest[end + 1..]);
            continue;
        }
        let end = rest
            .find(|c: char| !c.is_alphanumeric())
            .unwrap_or(rest.len());
        let (word, after) = rest.split_at(end);
        rest = after;
        return Some(word);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_are_lowercased_stemmed_words_without_markup_or_stop_words() {
        let stems: Vec<String> =
            terms("How do I roll back the <code>Transactions</code>, counting rows?")
                .into_iter()
                .map(|(_, stem)| stem)
                .collect();
        assert_eq!(stems, ["roll", "back", "transact", "count", "row"]);
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
    fn text_without_words_has_no_terms() {
        assert!(terms("  ?! <b> -- ").is_empty());
        assert!(terms("").is_empty());
    }
}
