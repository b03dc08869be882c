//! Search, ranked at build time: the index from every term to the methods
//! it finds, weighted (BM25F), a deprecated method's a little less, with
//! the typo neighbourhood of its terms. The terms are the vocabulary
//! crate's (`refserve_core::search`), which the server cuts queries with.

pub(crate) use refserve_core::search::*;

use crate::content::{Catalog, Editions, Entry, Status};
use std::collections::{BTreeMap, BTreeSet};

/// BM25's saturation of repeated terms.
const K1: f32 = 1.2;
/// BM25's normalisation by the length of a method's text.
const B: f32 = 0.5;
/// What a term that is a method's name adds to its weight for that
/// method, whatever else finds it: a query that names a method (or
/// misspells it) wants that method, however common its name is elsewhere
/// (`update` is in other methods' examples, `select` in raw SQL).
const NAME: f32 = 3.0;
/// What a deprecated method's weights count for: a little less, so that
/// of two methods a query finds as well, the one to use comes first.
const DEPRECATED: f32 = 0.8;

/// The index of the catalog: every term with the methods it finds, sorted
/// by term, each term's postings by method.
pub(crate) fn index(editions: &Editions) -> Index {
    let catalog = editions.source();
    // Per method: each term's occurrences per field, and the text's length.
    let mut counts: Vec<BTreeMap<String, [u32; Field::ALL.len()]>> = Vec::new();
    let mut lengths = Vec::new();
    // Every word, and whether a typo may be read as it (`misspelt`).
    let mut words = BTreeSet::<(String, String, bool)>::new();
    for entry in &catalog.entries {
        let mut terms_of = BTreeMap::<String, [u32; Field::ALL.len()]>::new();
        let mut length = 0.0;
        for (field, text) in every_language(editions, entry) {
            let cut = match field {
                Field::Code => code_terms(&text),
                _ => terms(&text),
            };
            for (word, stem) in cut {
                words.insert((word, stem.clone(), misspelt(field)));
                terms_of.entry(stem).or_default()[field.index()] += 1;
                length += field.weight();
            }
        }
        counts.push(terms_of);
        lengths.push(length);
    }
    let methods = catalog.entries.len() as f32;
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
            // Its name when it is the method's name, else where it counts most.
            let field = Field::ALL
                .into_iter()
                .filter(|field| per_field[field.index()] > 0)
                .max_by(|a, b| {
                    let named = |f: &Field| *f == Field::Name;
                    let weigh = |f: &Field| f.weight() * per_field[f.index()] as f32;
                    named(a)
                        .cmp(&named(b))
                        .then(weigh(a).total_cmp(&weigh(b)))
                        .then(b.cmp(a))
                })
                .expect("a counted term occurs in some field");
            index.entry(stem.clone()).or_default().push(Posting {
                method: u16::try_from(method)
                    .expect("the loader refuses more methods than a u16 numbers"),
                field,
                weight: normalised * (K1 + 1.0),
            });
        }
    }
    for postings in index.values_mut() {
        let found = postings.len() as f32;
        let idf = (1.0 + (methods - found + 0.5) / (found + 0.5)).ln();
        for posting in postings.iter_mut() {
            let deprecated = catalog.entries[usize::from(posting.method)]
                .deprecated
                .is_some();
            let weight = if deprecated { DEPRECATED } else { 1.0 };
            let named = if posting.field == Field::Name {
                NAME
            } else {
                0.0
            };
            let weighed = (posting.weight * idf + named) * weight;
            // Rounded, so the table's text (and every platform) gives the same sums.
            posting.weight = (weighed * 1000.0).round() / 1000.0;
        }
    }
    let terms = index
        .into_iter()
        .map(|(stem, postings)| Term { stem, postings })
        .collect();
    Index::new(terms, words)
}

/// Whether a typo may be read as a word of `field`: of the fields that
/// say what a method is for (its name, synonyms, group and description).
/// The words of its prose and examples are found as written: read as
/// typos, the words of a question the reference does not use would find
/// them (`older` would be `order`, `counter` `counted`).
fn misspelt(field: Field) -> bool {
    matches!(
        field,
        Field::Name | Field::Synonym | Field::Group | Field::Description
    )
}

/// The texts of one method, by field.
/// The fields of `entry` in the source's language, then the texts of
/// each translation of it that the source's do not already hold (its
/// description, parameters, note, examples, group and synonyms in that
/// language): one method, found by its words in any language.
fn every_language(editions: &Editions, entry: &Entry) -> Vec<(Field, String)> {
    let source = fields(editions.source(), entry);
    let translations = editions.catalogs[1..].iter().filter_map(|catalog| {
        let translated = catalog.entry(&entry.key)?;
        (translated.translation != Status::Untranslated).then(|| fields(catalog, translated))
    });
    let mut all = source.clone();
    all.extend(translations.flatten().filter(|f| !source.contains(f)));
    all
}

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
    for (label, text) in entry.parameters.iter().flatten().flatten() {
        fields.push((Field::Signature, label.clone()));
        fields.push((Field::Parameter, text.clone()));
    }
    fields.extend(entry.returns.iter().map(|r| (Field::Returns, r.clone())));
    fields.extend(entry.note.iter().map(|n| (Field::Note, n.clone())));
    for example in &entry.examples {
        fields.push((Field::Example, example.title.clone()));
        fields.push((Field::Code, example.code.clone()));
    }
    fields.extend(entry.synonyms.iter().map(|s| (Field::Synonym, s.clone())));
    fields
}
