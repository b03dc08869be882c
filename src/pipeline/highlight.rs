//! Build stage 2 (HTML, code): PHP highlighted at build time. syntect parses
//! the code with Sublime Text's PHP grammar; each run of text gets one of a
//! few token classes from its innermost scope that names one, so a page
//! carries short `<span class="…">` runs and no script. The classes' colours
//! are part of the page stylesheet (`render_html.rs`), for the light and the
//! dark scheme.

use crate::render_html::escape;
use std::collections::BTreeMap;
use std::sync::{LazyLock, Mutex, PoisonError};
use syntect::easy::ScopeRangeIterator;
use syntect::parsing::{ParseState, Scope, ScopeStack, SyntaxSet};
use syntect::util::LinesWithEndings;

/// The token classes, each with the scopes that select it (by prefix), in
/// the order they are tried on a scope.
const CLASSES: [(&str, &[&str]); 6] = [
    ("c", &["comment"]),
    ("s", &["string"]),
    ("n", &["constant.numeric", "constant.language"]),
    (
        "v",
        &["variable.other", "variable.parameter", "variable.language"],
    ),
    (
        "f",
        &[
            "entity.name",
            "support.function",
            "support.class",
            "variable.function",
            "meta.function-call.identifier",
        ],
    ),
    ("k", &["keyword", "storage"]),
];

/// The grammars, loaded once per build.
static SYNTAXES: LazyLock<SyntaxSet> = LazyLock::new(SyntaxSet::load_defaults_newlines);

/// Each token class with the scopes that select it, parsed once per build.
static CLASS_SCOPES: LazyLock<[(&str, Vec<Scope>); CLASSES.len()]> = LazyLock::new(|| {
    CLASSES.map(|(class, scopes)| {
        let scopes = scopes.iter().map(|s| Scope::new(s).expect("a valid scope"));
        (class, scopes.collect())
    })
});

/// `code` (PHP statements, no `<?php` opener) as escaped HTML with token
/// spans; adjacent text of one class shares one span. Each text is
/// highlighted once per process: `refserve dev` renders again on every
/// edit, and examples seldom change.
pub(crate) fn php(code: &str) -> String {
    static DONE: Mutex<BTreeMap<String, String>> = Mutex::new(BTreeMap::new());
    let done = || DONE.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(html) = done().get(code) {
        return html.clone();
    }
    let (set, classes) = (&*SYNTAXES, &*CLASS_SCOPES);
    let php = set
        .find_syntax_by_scope(Scope::new("source.php").expect("a valid scope"))
        .expect("syntect's default grammars include PHP source");
    let mut state = ParseState::new(php);
    let mut stack = ScopeStack::new();
    let mut html = String::with_capacity(code.len() * 2);
    let mut open: Option<&str> = None;
    for line in LinesWithEndings::from(code) {
        let ops = state
            .parse_line(line, set)
            .expect("the PHP grammar parses any text");
        for (range, op) in ScopeRangeIterator::new(&ops, line) {
            stack.apply(op).expect("the parser's own operations apply");
            let text = &line[range];
            if text.is_empty() {
                continue;
            }
            let class = if text.trim().is_empty() {
                open // whitespace joins the run it is in
            } else {
                // The class of the innermost scope that selects one.
                stack.as_slice().iter().rev().find_map(|scope| {
                    (classes.iter())
                        .find(|(_, prefixes)| prefixes.iter().any(|p| p.is_prefix_of(*scope)))
                        .map(|(class, _)| *class)
                })
            };
            if class != open {
                if open.is_some() {
                    html.push_str("</span>");
                }
                if let Some(class) = class {
                    html.push_str(&format!("<span class=\"{class}\">"));
                }
                open = class;
            }
            html.push_str(&escape(text));
        }
    }
    if open.is_some() {
        html.push_str("</span>");
    }
    done().insert(code.to_string(), html.clone());
    html
}
