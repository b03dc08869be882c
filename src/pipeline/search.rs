//! Search, ranked at build time: the index from every term to the methods
//! it finds, weighted (BM25F), a deprecated method's a little less. The terms are the vocabulary crate's
//! (`refserve_core::search`), which the server cuts queries with.

pub use refserve_core::search::*;

use crate::content::{Catalog, Entry};
use std::collections::BTreeMap;

/// BM25's saturation of repeated terms.
const K1: f32 = 1.2;
/// BM25's normalisation by the length of a method's text.
const B: f32 = 0.5;
/// What a deprecated method's weights count for: a little less, so that
/// of two methods a query finds as well, the one to use comes first.
const DEPRECATED: f32 = 0.8;

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
                .lifecycle
                .deprecated
                .is_some();
            let weight = if deprecated { DEPRECATED } else { 1.0 };
            // Rounded, so the table's text (and every platform) gives the same sums.
            posting.weight = (posting.weight * idf * weight * 1000.0).round() / 1000.0;
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
    fields.extend(
        entry
            .synonyms
            .iter()
            .map(|words| (Field::Synonym, words.clone())),
    );
    fields
}
