//! The Markdown body of a method file, read with pulldown-cmark: its
//! description (the first paragraph), its note (the paragraph under
//! `## Note`) and its examples (under `## Examples`, each a `### title`
//! and one fenced ```` ```php ```` block of plain PHP).
//!
//! Anything else in the body (another heading, a list, a second
//! paragraph…) is an error naming where it is; an error in an example
//! names it by its title. HTML comments are passed over.

use super::fields::Check;
use super::prose::Paragraph;
use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Parser, Tag};
use std::ops::Range;

/// What a method's body may hold, for the message of what it may not.
const SHAPE: &str = "a method's body is its description (one paragraph), then \
    `## Note` (one paragraph, if any), then `## Examples` (each a `### title` and a ```php block)";

/// The parts of a body, as read; what is missing or misplaced is an error
/// of the file.
#[derive(Debug, Default)]
pub(super) struct Body {
    /// The first paragraph.
    pub(super) description: Option<Paragraph>,
    /// The paragraph under `## Note`.
    pub(super) note: Option<Paragraph>,
    /// The examples, in order.
    pub(super) examples: Vec<Example>,
}

/// One example as written.
#[derive(Debug)]
pub(super) struct Example {
    /// Its heading's text.
    pub(super) title: String,
    /// The PHP of its block (without the block's last newline), if it has
    /// one, and the line in the file where the block starts.
    pub(super) code: Option<(String, usize)>,
    /// The line of its heading in the file.
    pub(super) line: usize,
}

/// An example as errors name it: by its title, or by its place (it is
/// the `index`th).
pub(super) fn example_field(title: &str, index: usize) -> String {
    if title.trim().is_empty() {
        format!("examples[{index}]")
    } else {
        format!("example \"{title}\"")
    }
}

/// Where in the body the reader is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    /// Before the description, or after it.
    Top,
    /// Under `## Note`.
    Note,
    /// Under `## Examples`.
    Examples,
}

/// Read `text`, the body, which starts on line `first_line` of the file;
/// its errors are added to `check`.
pub(super) fn read(text: &str, first_line: usize, check: &mut Check) -> Body {
    let events: Vec<(Event, Range<usize>)> = Parser::new(text).into_offset_iter().collect();
    // Where each line after the first starts, to name a block's line.
    let breaks: Vec<usize> = text.match_indices('\n').map(|(at, _)| at).collect();
    let line = |offset: usize| first_line + breaks.partition_point(|&at| at < offset);
    let mut body = Body::default();
    let mut section = Section::Top;
    let mut seen_note = false;
    let mut at = 0;
    while let Some((event, range)) = events.get(at) {
        let end = block_end(&events, at);
        let block = &events[at..=end];
        let inner = &events[(at + 1).min(end)..end];
        let here = line(range.start);
        at = end + 1;
        match event {
            Event::Start(Tag::Paragraph) => match section {
                Section::Top if body.description.is_none() => {
                    body.description = Some(paragraph(check, "description", inner, here));
                }
                Section::Top => check.fail(
                    "description",
                    format!("is one paragraph; another starts at line {here} ({SHAPE})"),
                ),
                Section::Note if body.note.is_none() => {
                    body.note = Some(paragraph(check, "note", inner, here));
                }
                Section::Note => check.fail(
                    "note",
                    format!("is one paragraph; another starts at line {here}"),
                ),
                Section::Examples => misplaced(check, "a paragraph", here),
            },
            Event::Start(Tag::Heading {
                level: HeadingLevel::H2,
                ..
            }) => match text_of(inner).as_str() {
                "Note" if seen_note => {
                    check.fail("note", format!("a second `## Note` at line {here}"))
                }
                "Note" if section == Section::Examples => check.fail(
                    "note",
                    format!("`## Note` (line {here}) must come before `## Examples`"),
                ),
                "Note" => {
                    seen_note = true;
                    section = Section::Note;
                }
                "Examples" if section == Section::Examples => {
                    check.fail("examples", format!("a second `## Examples` at line {here}"))
                }
                "Examples" => section = Section::Examples,
                other => misplaced(check, &format!("the heading `## {other}`"), here),
            },
            Event::Start(Tag::Heading {
                level: HeadingLevel::H3,
                ..
            }) if section == Section::Examples => {
                body.examples.push(Example {
                    title: example_title(check, inner, body.examples.len(), here),
                    code: None,
                    line: here,
                });
            }
            Event::Start(Tag::CodeBlock(kind)) if section == Section::Examples => {
                let index = body.examples.len().saturating_sub(1);
                let Some(example) = body.examples.last_mut() else {
                    misplaced(check, "a code block before any `### title`", here);
                    continue;
                };
                let field = example_field(&example.title, index);
                if example.code.is_some() {
                    check.fail(
                        &field,
                        format!(
                            "has a second code block at line {here}; give each its own `### title`"
                        ),
                    );
                    continue;
                }
                if !matches!(kind, CodeBlockKind::Fenced(info) if info.trim() == "php") {
                    check.fail(
                        &field,
                        format!("the code block at line {here} must be fenced as ```php"),
                    );
                }
                let code = text_of(inner);
                let code = code.strip_suffix('\n').unwrap_or(&code).to_string();
                example.code = Some((code, here));
            }
            Event::Html(_) | Event::Start(Tag::HtmlBlock) if is_comment(&text_of(block)) => {}
            Event::Start(tag) => misplaced(check, &describe(tag), here),
            Event::Rule => misplaced(check, "a thematic break", here),
            other => misplaced(check, &format!("{other:?}"), here),
        }
    }
    if body.description.is_none() {
        check.fail(
            "description",
            "is required: the body opens with a paragraph that says what the method does",
        );
    }
    // Only `## Examples` holds them.
    if body.examples.is_empty() {
        check.fail(
            "examples",
            "is required: every method needs at least one example \
             (`## Examples`, then `### title` and a ```php block)",
        );
    }
    for (index, example) in body.examples.iter().enumerate() {
        if example.code.is_none() {
            check.fail(
                &example_field(&example.title, index),
                format!("has no ```php block (heading at line {})", example.line),
            );
        }
    }
    body
}

/// The index of the event that ends the block starting at `start` (the
/// block's own index, for an event that is not a start).
fn block_end(events: &[(Event, Range<usize>)], start: usize) -> usize {
    if !matches!(events[start].0, Event::Start(_)) {
        return start;
    }
    let mut depth = 0usize;
    for (i, (event, _)) in events.iter().enumerate().skip(start) {
        match event {
            Event::Start(_) => depth += 1,
            Event::End(_) => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    events.len() - 1
}

/// A paragraph of `field`, read; its problems are errors of that field.
fn paragraph(
    check: &mut Check,
    field: &str,
    inner: &[(Event, Range<usize>)],
    line: usize,
) -> Paragraph {
    let events: Vec<Event> = inner.iter().map(|(event, _)| event.clone()).collect();
    let (paragraph, problems) = Paragraph::read(&events);
    for problem in problems {
        check.fail(field, format!("{problem} (line {line})"));
    }
    paragraph
}

/// The text of `events`, their markup left out: a heading's, a code
/// block's, an HTML block's.
fn text_of(events: &[(Event, Range<usize>)]) -> String {
    events
        .iter()
        .filter_map(|(event, _)| match event {
            Event::Text(text) | Event::Code(text) | Event::Html(text) => Some(text.as_ref()),
            _ => None,
        })
        .collect()
}

/// An example's title: its heading's text, which must be plain (no code,
/// emphasis or links: it is the JSON `title` as well).
fn example_title(
    check: &mut Check,
    inner: &[(Event, Range<usize>)],
    index: usize,
    line: usize,
) -> String {
    let title = text_of(inner);
    let plain = inner
        .iter()
        .all(|(event, _)| matches!(event, Event::Text(_)));
    let field = example_field(&title, index);
    if !plain {
        check.fail(
            &field,
            format!("the title at line {line} must be plain text (no code, emphasis or links)"),
        );
    } else {
        check.plain_line(&field, &title);
    }
    title
}

/// Whether `html` is one HTML comment or more, which the body (and a
/// paragraph) may hold.
pub(super) fn is_comment(html: &str) -> bool {
    let html = html.trim();
    html.starts_with("<!--") && html.ends_with("-->")
}

/// What a block that may not be written is, in the author's words.
fn describe(tag: &Tag) -> String {
    match tag {
        Tag::Heading { level, .. } => format!("a level-{} heading", *level as usize),
        Tag::CodeBlock(_) => "a code block outside `## Examples`".into(),
        Tag::List(_) => "a list".into(),
        Tag::BlockQuote(_) => "a block quote".into(),
        Tag::HtmlBlock => "HTML".into(),
        other => format!("{other:?}"),
    }
}

/// `what`, at `line`, has no place in a method's body.
fn misplaced(check: &mut Check, what: &str, line: usize) {
    check.fail("", format!("{what} at line {line}: {SHAPE}"));
}
