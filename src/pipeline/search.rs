//! Search, ranked at build time: the words of a text as search terms, and
//! the index from every term to the methods it finds, weighted (BM25F).
//!
//! The pipeline indexes each method's fields (name, group, description,
//! signatures, parameters, return value, note, example titles) and the
//! synonyms of `content/search.json`; the server cuts a query into terms
//! with the same [`terms`], looks each up and sums at most
//! [`MAX_QUERY_TERMS`] weights per method. Nothing is scored at run time
//! but that sum.

use crate::content::{Catalog, Entry};
use rust_stemmers::{Algorithm, Stemmer};
use std::collections::BTreeMap;

/// The most terms of a query that are looked up; the rest are ignored.
pub const MAX_QUERY_TERMS: usize = 24;

/// The longest query read, in bytes; the rest is ignored.
pub const MAX_QUERY_BYTES: usize = 500;

/// BM25's saturation of repeated terms.
const K1: f32 = 1.2;
/// BM25's normalisation by the length of a method's text.
const B: f32 = 0.5;

/// Where a term was found in a method, for the line that says why it
/// matched. The weight is how much one occurrence there counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum Field {
    /// The method's name.
    Name,
    /// A word an agent may use for it (`content/search.json`).
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

    /// How much one occurrence of a term here counts.
    fn weight(self) -> f32 {
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
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Posting {
    /// The method's position in the catalog.
    pub method: u8,
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

/// Every term of the catalog with the methods it finds, sorted by term;
/// each term's postings by method.
pub fn index(catalog: &Catalog) -> Vec<(String, Vec<Posting>)> {
    let documents: Vec<Vec<(Field, String)>> = catalog
        .entries
        .iter()
        .map(|entry| fields(catalog, entry))
        .collect();
    // Per method: each term's occurrences per field, and the text's length.
    let mut counts: Vec<BTreeMap<String, [u32; Field::ALL.len()]>> = Vec::new();
    let mut lengths = Vec::new();
    for document in &documents {
        let mut terms_of = BTreeMap::<String, [u32; Field::ALL.len()]>::new();
        let mut length = 0.0;
        for (field, text) in document {
            for (_, stem) in terms(text) {
                terms_of.entry(stem).or_default()[field.index()] += 1;
                length += field.weight();
            }
        }
        counts.push(terms_of);
        lengths.push(length);
    }
    let methods = documents.len() as f32;
    let average = lengths.iter().sum::<f32>() / methods.max(1.0);
    let mut index = BTreeMap::<String, Vec<Posting>>::new();
    for (method, terms_of) in counts.iter().enumerate() {
        for (stem, per_field) in terms_of {
            let frequency: f32 = Field::ALL
                .iter()
                .map(|field| field.weight() * per_field[field.index()] as f32)
                .sum();
            let normalised =
                frequency / (frequency + K1 * (1.0 - B + B * lengths[method] / average.max(1.0)));
            let field = Field::ALL
                .into_iter()
                .filter(|field| per_field[field.index()] > 0)
                .max_by(|a, b| {
                    let weigh = |f: &Field| f.weight() * per_field[f.index()] as f32;
                    weigh(a).total_cmp(&weigh(b)).then(b.cmp(a))
                })
                .expect("a counted term occurs in some field");
            index.entry(stem.clone()).or_default().push(Posting {
                method: u8::try_from(method).expect("the catalog holds 24 methods"),
                field,
                weight: normalised * (K1 + 1.0),
            });
        }
    }
    for postings in index.values_mut() {
        let found = postings.len() as f32;
        let idf = (1.0 + (methods - found + 0.5) / (found + 0.5)).ln();
        for posting in postings.iter_mut() {
            // Rounded, so the table's text (and every platform) gives the same sums.
            posting.weight = (posting.weight * idf * 1000.0).round() / 1000.0;
        }
    }
    index.into_iter().collect()
}

/// The texts of one method, by field.
fn fields(catalog: &Catalog, entry: &Entry) -> Vec<(Field, String)> {
    let mut fields = vec![
        (Field::Name, entry.name.clone()),
        (Field::Description, entry.description.clone()),
    ];
    for group in &catalog.site.groups {
        if group.keys.contains(&entry.key) {
            // Its name only: a summary's words would be every member's.
            fields.push((Field::Group, group.name.clone()));
        }
    }
    for signature in &entry.signatures {
        // The parameters' names, not the method's again.
        let parameters = signature.split_once('(').map_or("", |(_, rest)| rest);
        fields.push((Field::Signature, parameters.to_string()));
    }
    for list in entry.parameters.iter().flatten() {
        for (label, text) in list {
            fields.push((Field::Signature, label.clone()));
            fields.push((Field::Parameter, text.clone()));
        }
    }
    fields.extend(entry.returns.iter().map(|r| (Field::Returns, r.clone())));
    fields.extend(entry.note.iter().map(|n| (Field::Note, n.clone())));
    fields.extend(
        entry
            .examples
            .iter()
            .map(|e| (Field::Example, e.title.clone())),
    );
    for synonym in &catalog.search.synonyms {
        if synonym.keys.contains(&entry.key) {
            fields.push((Field::Synonym, synonym.words.clone()));
        }
    }
    fields
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
