//! The PHP of an example, parsed (`php-rs-parser`): a syntax error is an
//! error of the example, at its line in the file; and the example must
//! call the method it documents as its signatures do, on `$database`
//! (`$database->select(…)`) or on the class of a static form
//! (`Library::raw(…)`), each call with as many arguments as one of the
//! signatures takes: its required parameters at least, and at most all of
//! them (optional parameters may be left out).
//!
//! A spread (`...$args`) may stand for any number of arguments: a call
//! with one passes when the arguments before it are not too many. A named
//! argument (`table: 'account'`) is refused: the signatures name their
//! parameters for the reader, and an overloaded method's forms
//! (`select($table, $columns)`, `select($table, $join, $columns, $where)`)
//! do not say which PHP parameter a name binds to.

use super::entry::Labels;
use super::fields::Check;
use php_ast::ast::{Arg, ArgKind, Expr, ExprKind};
use php_ast::visitor::{walk_expr, Visitor};
use php_rs_parser::bumpalo::Bump;
use std::ops::{ControlFlow, RangeInclusive};

/// How a method may be called: by each of its signatures.
pub(super) struct Calls {
    key: String,
    forms: Vec<Form>,
}

/// One signature's call form.
struct Form {
    /// What the method is called on, as a call writes it before the
    /// method's name: `$database->`, or `Class::` for a static form.
    receiver: String,
    /// How many arguments it takes, if its parameters could be read.
    arguments: Option<RangeInclusive<usize>>,
}

/// One call of the documented method, as written.
struct Call {
    /// As a [`Form`]'s.
    receiver: String,
    /// The arguments passed by position, not counting a spread.
    positional: usize,
    /// Whether a `...$spread` follows them.
    spread: bool,
    /// The name of the first named argument, if any.
    named: Option<String>,
    /// Where it starts in the parsed source.
    offset: usize,
}

impl Calls {
    /// The call forms of the method `key`: its `signatures`, and the
    /// `parameters` of each (labels, `(optional)` marked) as read, `None`
    /// for a method without parameters.
    pub(super) fn new(key: &str, signatures: &[String], parameters: Option<&[Labels]>) -> Self {
        let forms = signatures
            .iter()
            .enumerate()
            .map(|(i, signature)| Form {
                receiver: match signature.split_once("::") {
                    Some((class, _)) => format!("{class}::"),
                    None => "$database->".to_string(),
                },
                arguments: match parameters {
                    Some(lists) => lists.get(i).map(|labels| {
                        let optional = labels
                            .iter()
                            .filter(|(label, _)| label.ends_with(" (optional)"))
                            .count();
                        labels.len() - optional..=labels.len()
                    }),
                    // Parameters the fields refused: unknown.
                    None if signature.contains('$') => None,
                    None => Some(0..=0),
                },
            })
            .collect();
        Calls {
            key: key.to_string(),
            forms,
        }
    }

    /// Check the example `field`, whose `code` starts on the line after
    /// `line` of the file: it parses as PHP and calls the method as one of
    /// its forms takes.
    pub(super) fn check(&self, check: &mut Check, field: &str, code: &str, line: usize) {
        // `<?php` and a space, so that the source's lines are the code's.
        let source = format!("<?php {code}");
        let line_of = |offset: usize| {
            let before = source.get(..offset).unwrap_or(&source);
            line + 1 + before.matches('\n').count()
        };
        let arena = Bump::new();
        let parsed = php_rs_parser::parse_arena(&arena, &source);
        // The first: those after it may only follow from it, as `php -l`
        // says only the first.
        if let Some(error) = parsed.errors.first() {
            let at = line_of(error.span().start as usize);
            check.fail(field, format!("PHP syntax error at line {at}: {error}"));
            return;
        }
        let mut finder = Finder {
            key: &self.key,
            receivers: self.receivers(),
            calls: Vec::new(),
        };
        let _ = finder.visit_program(&parsed.program);
        if finder.calls.is_empty() {
            let calls: Vec<String> = finder
                .receivers
                .iter()
                .map(|receiver| format!("`{receiver}{}(…)`", self.key))
                .collect();
            check.fail(
                field,
                format!(
                    "the code (line {line}) must call the method as its signatures do: {}",
                    calls.join(" or ")
                ),
            );
        }
        for call in &finder.calls {
            if let Some(problem) = self.problem(call, line_of(call.offset)) {
                check.fail(field, problem);
            }
        }
    }

    /// What the signatures call the method on, each once.
    fn receivers(&self) -> Vec<&str> {
        let mut receivers: Vec<&str> = Vec::new();
        for form in &self.forms {
            if !receivers.contains(&form.receiver.as_str()) {
                receivers.push(&form.receiver);
            }
        }
        receivers
    }

    /// What is wrong with `call`, at `line` of the file, if anything.
    fn problem(&self, call: &Call, line: usize) -> Option<String> {
        let name = format!("`{}{}()`", call.receiver, self.key);
        if let Some(argument) = &call.named {
            return Some(format!(
                "passes `{argument}:` to {name} by name at line {line}; pass arguments by \
                 position, as the signatures list them"
            ));
        }
        let mut counts = Vec::new();
        for form in self.forms.iter().filter(|f| f.receiver == call.receiver) {
            // Unknown for one form: nothing to hold the call to.
            counts.extend(form.arguments.clone()?);
        }
        // A spread may pass any number of arguments, none included.
        let fits = if call.spread {
            counts.iter().any(|&n| n >= call.positional)
        } else {
            counts.contains(&call.positional)
        };
        if fits {
            return None;
        }
        let passed = if call.spread {
            format!("{} arguments and a spread", call.positional)
        } else {
            takes(vec![call.positional])
        };
        Some(format!(
            "calls {name} with {passed} at line {line}; `{}` takes {}",
            self.key,
            takes(counts)
        ))
    }
}

/// The argument counts a method takes, in words: `no arguments`, `1
/// argument`, `2 to 4 arguments`, `1 or 3 arguments`.
fn takes(mut counts: Vec<usize>) -> String {
    counts.sort_unstable();
    counts.dedup();
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    for n in counts {
        match ranges.last_mut() {
            Some((_, last)) if *last + 1 == n => *last = n,
            _ => ranges.push((n, n)),
        }
    }
    match ranges.as_slice() {
        [] | [(0, 0)] => return "no arguments".to_string(),
        [(1, 1)] => return "1 argument".to_string(),
        _ => {}
    }
    let mut words: Vec<String> = ranges
        .iter()
        .map(|&(first, last)| {
            if first == last {
                first.to_string()
            } else {
                format!("{first} to {last}")
            }
        })
        .collect();
    let last = words.pop().unwrap_or_default();
    if words.is_empty() {
        format!("{last} arguments")
    } else {
        format!("{} or {last} arguments", words.join(", "))
    }
}

/// The calls of the method `key` on one of its `receivers` in a program,
/// in the order written.
struct Finder<'a> {
    key: &'a str,
    receivers: Vec<&'a str>,
    calls: Vec<Call>,
}

impl<'arena, 'src> Visitor<'arena, 'src> for Finder<'_> {
    type Break = ();

    fn visit_expr(&mut self, expr: &Expr<'arena, 'src>) -> ControlFlow<()> {
        if let Some((receiver, args)) = self.call(expr) {
            self.calls.push(Call {
                receiver,
                positional: args.iter().take_while(|arg| !is_spread(arg)).count(),
                spread: args.iter().any(is_spread),
                named: args
                    .iter()
                    .find_map(|arg| arg.name.as_ref().map(|n| n.to_string_repr().into_owned())),
                offset: expr.span.start as usize,
            });
        }
        walk_expr(self, expr)
    }
}

impl Finder<'_> {
    /// What `expr` calls the method on, and with what, if it calls it.
    fn call<'e, 'arena, 'src>(
        &self,
        expr: &'e Expr<'arena, 'src>,
    ) -> Option<(String, &'e [Arg<'arena, 'src>])> {
        let (receiver, method, args) = match &expr.kind {
            ExprKind::MethodCall(call) | ExprKind::NullsafeMethodCall(call) => {
                let ExprKind::Variable(name) = &call.object.kind else {
                    return None;
                };
                if name.as_str() != "database" {
                    return None;
                }
                ("$database->".to_string(), call.method, &call.args)
            }
            ExprKind::StaticMethodCall(call) => {
                let ExprKind::Name(class) = &call.class.kind else {
                    return None;
                };
                let class = class.join_parts();
                (format!("{class}::"), call.method, &call.args)
            }
            _ => return None,
        };
        let ours = method.name_str() == Some(self.key) && self.receivers.contains(&&*receiver);
        ours.then_some((receiver, args))
    }
}

/// Whether `arg` is `...$spread`.
fn is_spread(arg: &Arg) -> bool {
    matches!(arg.kind, ArgKind::Spread(_))
}

#[cfg(test)]
mod tests {
    use super::takes;

    #[test]
    fn the_counts_a_method_takes_read_as_words() {
        assert_eq!(takes(vec![0]), "no arguments");
        assert_eq!(takes(vec![1, 1]), "1 argument");
        assert_eq!(takes(vec![2, 2, 3, 3, 4]), "2 to 4 arguments");
        assert_eq!(takes(vec![3, 1]), "1 or 3 arguments");
        assert_eq!(takes(vec![0, 2, 3, 5]), "0, 2 to 3 or 5 arguments");
    }
}
