//! A translation's facts checked against its source's: the parameter
//! tables (the same labels, in the same order, each described) and the
//! examples (the same number, each a title and the source's code, PHP
//! token for PHP token once comments are set aside, with `php-lexer`, the
//! parser's own lexer). Code that differs is replaced by the source's, so
//! a page never shows other code than the English page.

use super::super::body;
use super::super::fields::Check;
use super::super::shape::OneOrMany;
use super::super::{Example, Labels};
use php_lexer::{Lexer, TokenKind};

/// The same tables as the source's, the same labels in the same order,
/// each described.
pub(super) fn check_parameters(
    check: &mut Check,
    original: Option<&OneOrMany<Labels>>,
    ours: Option<&OneOrMany<Labels>>,
) {
    let (Some(original), Some(ours)) = (original, ours) else {
        match (original, ours) {
            (Some(_), None) => check.fail(
                "parameters",
                "is missing: the source describes its parameters",
            ),
            (None, Some(_)) => {
                check.fail("parameters", "is not in the source: it has no parameters")
            }
            _ => {}
        }
        return;
    };
    let many = matches!(original, OneOrMany::Many(_));
    if many != matches!(ours, OneOrMany::Many(_)) || original.len() != ours.len() {
        check.fail(
            "parameters",
            format!(
                "must mirror the source's: {}",
                if many {
                    format!("an array of {} tables ([[parameters]])", original.len())
                } else {
                    "one table ([parameters])".to_string()
                }
            ),
        );
        return;
    }
    for ((table, theirs), ours) in original.named("parameters").zip(ours.iter()) {
        for label in theirs.keys().filter(|label| !ours.contains_key(*label)) {
            check.fail(
                &format!("{table}.\"{label}\""),
                "is described in the source but not here: copy its label as it is",
            );
        }
        for (label, description) in ours {
            let field = format!("{table}.\"{label}\"");
            if !theirs.contains_key(label) {
                check.fail(
                    &field,
                    "is not a label of the source: a label (name, type, optional mark) is copied as it is",
                );
            } else {
                check.line(&field, description);
            }
        }
        let same_order = theirs
            .keys()
            .filter(|l| ours.contains_key(*l))
            .eq(ours.keys().filter(|l| theirs.contains_key(*l)));
        if !same_order {
            check.fail(&table, "lists the labels in another order than the source");
        }
    }
}

/// The source's examples, in its order, in the translation's words: a
/// title each, and code whose PHP tokens are the source's once comments
/// are set aside.
pub(super) fn check_examples(
    check: &mut Check,
    examples: &mut [Example],
    ours: Vec<body::Example>,
) {
    if ours.len() != examples.len() {
        check.fail(
            "examples",
            format!(
                "has {} examples; the source has {}, in the same order",
                ours.len(),
                examples.len()
            ),
        );
    }
    for (i, (ours, example)) in ours.into_iter().zip(examples).enumerate() {
        let field = body::example_field(&ours.title, i);
        check.line(&field, &ours.title);
        match ours.code {
            // Code that is not the source's is the source's (and an
            // error, where the source has not changed).
            Some((code, line)) if tokens(&code) != tokens(&example.code) => check.fail(
                &field,
                format!(
                    "the code (line {line}) differs from the source's example \
                     \"{}\": only its comments may be translated",
                    example.title
                ),
            ),
            Some((code, _)) => example.code = code,
            None => {}
        }
        example.title = ours.title;
    }
}

/// The PHP tokens of `code`, comments and white space left out: what a
/// translation may not change.
fn tokens(code: &str) -> Vec<(TokenKind, String)> {
    let source = format!("<?php {code}");
    let mut lexer = Lexer::new(&source);
    let mut tokens = Vec::new();
    loop {
        let token = lexer.next_token();
        if token.kind == TokenKind::Eof {
            return tokens;
        }
        if !token.kind.is_comment() {
            tokens.push((token.kind, lexer.token_text(&token).to_string()));
        }
    }
}
