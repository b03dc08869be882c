//! Prose as authors write it in a method file's body: one paragraph of
//! text with inline code, emphasis, strong emphasis and links (to another
//! method as `[select](select.md)`, the file beside it, or to another site
//! as `https://…`), read from pulldown-cmark's events into a [`Paragraph`].
//!
//! A paragraph has three readings: as written (the pages' Markdown, which
//! `render_markdown.rs` writes with the links resolved), as plain text (the
//! JSON `description`) and as text with `<code>` tags (the JSON `note`, in
//! the form the specification gives it). This file reads the paragraph and
//! gives the two JSON forms; what the Markdown may not hold (images, HTML,
//! line breaks, links elsewhere) is a problem named here.

use super::body::is_comment;
use pulldown_cmark::{Event, Tag};

/// One paragraph of prose, as written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Paragraph(pub Vec<Inline>);

/// A piece of a paragraph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inline {
    /// Text, as read (Markdown escapes resolved, a line break a space).
    Text(String),
    /// Inline code.
    Code(String),
    /// `*emphasis*`.
    Emphasis(Vec<Inline>),
    /// `**strong emphasis**`.
    Strong(Vec<Inline>),
    /// A link to another method's page: `[text](<key>.md)`.
    Method {
        /// The method's key (checked to be one once every file is read).
        key: String,
        /// What the link says.
        text: Vec<Inline>,
    },
    /// A link to another site: `[text](https://…)`.
    Web {
        /// The absolute `http` or `https` URL.
        url: String,
        /// What the link says.
        text: Vec<Inline>,
    },
}

impl Paragraph {
    /// Read the inline events of one paragraph (between its start and end);
    /// what cannot be kept is a problem, each one said once.
    pub(crate) fn read(events: &[Event<'_>]) -> (Paragraph, Vec<String>) {
        let mut reader = Reader {
            problems: Vec::new(),
            html: false,
        };
        let (inlines, _) = reader.inlines(events);
        (Paragraph(inlines), reader.problems)
    }

    /// The text alone: no code marks, emphasis or links (the JSON
    /// `description`).
    pub(crate) fn plain(&self) -> String {
        self.text(false)
    }

    /// The text with its code as `<code>…</code>`, and nothing else marked
    /// (the JSON `note`).
    pub(crate) fn with_code_tags(&self) -> String {
        self.text(true)
    }

    /// The text, its code marked with `<code>` tags or not.
    fn text(&self, code_tags: bool) -> String {
        let mut text = String::new();
        walk(&self.0, &mut |inline| match inline {
            Inline::Text(words) => text.push_str(words),
            Inline::Code(code) if code_tags => text.push_str(&format!("<code>{code}</code>")),
            Inline::Code(code) => text.push_str(code),
            _ => {}
        });
        text
    }

    /// Whether its text with `<code>` tags holds no other `<`, and `>`
    /// only in code (`a => b`), as the JSON `note` may.
    pub(crate) fn fits_code_tags(&self) -> bool {
        let mut fits = true;
        walk(&self.0, &mut |inline| match inline {
            Inline::Text(text) => fits &= !text.contains(['<', '>']),
            Inline::Code(code) => fits &= !code.contains('<'),
            _ => {}
        });
        fits
    }

    /// The keys of the methods it links to, in order.
    pub(crate) fn linked_methods(&self) -> Vec<&str> {
        let mut keys = Vec::new();
        walk(&self.0, &mut |inline| {
            if let Inline::Method { key, .. } = inline {
                keys.push(key.as_str());
            }
        });
        keys
    }
}

/// Each of `inlines` in order, and after each the inlines it holds.
fn walk<'a>(inlines: &'a [Inline], visit: &mut impl FnMut(&'a Inline)) {
    for inline in inlines {
        visit(inline);
        if let Inline::Emphasis(inner)
        | Inline::Strong(inner)
        | Inline::Method { text: inner, .. }
        | Inline::Web { text: inner, .. } = inline
        {
            walk(inner, visit);
        }
    }
}

/// The events of a paragraph read into inlines, with the problems found.
struct Reader {
    problems: Vec<String>,
    /// Whether HTML was found (and said) already.
    html: bool,
}

impl Reader {
    /// Inlines until the end of the enclosing element (or of `events`);
    /// also how many events were read, that end included.
    fn inlines(&mut self, events: &[Event<'_>]) -> (Vec<Inline>, usize) {
        let mut inlines: Vec<Inline> = Vec::new();
        let mut at = 0;
        while let Some(event) = events.get(at) {
            at += 1;
            match event {
                Event::End(_) => return (inlines, at),
                Event::Text(text) => push_text(&mut inlines, text),
                Event::SoftBreak => push_text(&mut inlines, " "),
                Event::Code(code) => inlines.push(Inline::Code(code.to_string())),
                Event::Start(tag) => {
                    let (inner, read) = self.inlines(&events[at..]);
                    at += read;
                    if let Some(inline) = self.element(tag, inner) {
                        inlines.push(inline);
                    }
                }
                Event::HardBreak => self.problem(
                    "holds a hard line break (two spaces or `\\` at a line's end); \
                     a paragraph here is one run of text",
                ),
                // A comment is the author's, for no reader.
                Event::Html(html) | Event::InlineHtml(html) if is_comment(html) => {}
                // The first tag alone: its closing tag is the same mistake.
                Event::Html(html) | Event::InlineHtml(html) if !self.html => {
                    self.html = true;
                    self.problem(format!(
                        "holds HTML (`{}`); write Markdown: `code`, *emphasis*, [links](select.md)",
                        html.trim()
                    ));
                }
                Event::Html(_) | Event::InlineHtml(_) => {}
                other => self.problem(format!("holds {other:?}, which is not kept")),
            }
        }
        (inlines, at)
    }

    /// The inline an element `tag` holding `inner` is, if it may be written.
    fn element(&mut self, tag: &Tag<'_>, inner: Vec<Inline>) -> Option<Inline> {
        match tag {
            Tag::Emphasis => Some(Inline::Emphasis(inner)),
            Tag::Strong => Some(Inline::Strong(inner)),
            Tag::Link {
                dest_url, title, ..
            } => {
                if !title.is_empty() {
                    self.problem(format!(
                        "the link to `{dest_url}` has a title (\"{title}\"), which is not kept"
                    ));
                }
                let url = dest_url.to_string();
                if let Some(key) = url.strip_suffix(".md").filter(|k| super::is_key(k)) {
                    return Some(Inline::Method {
                        key: key.to_string(),
                        text: inner,
                    });
                }
                if url.starts_with("https://") || url.starts_with("http://") {
                    return Some(Inline::Web { url, text: inner });
                }
                self.problem(format!(
                    "links to `{url}`: link to a method by its file, as `[select](select.md)`, \
                     or to another site by an absolute `https://` URL"
                ));
                None
            }
            Tag::Image { dest_url, .. } => {
                self.problem(format!(
                    "holds an image (`{dest_url}`); pages show no images"
                ));
                None
            }
            other => {
                self.problem(format!("holds {other:?}, which is not kept"));
                None
            }
        }
    }

    fn problem(&mut self, problem: impl Into<String>) {
        let problem = problem.into();
        if !self.problems.contains(&problem) {
            self.problems.push(problem);
        }
    }
}

/// `text` added to the inlines, joined to text just before it (the parser
/// cuts text at every character that might have been markup).
fn push_text(inlines: &mut Vec<Inline>, text: &str) {
    if let Some(Inline::Text(last)) = inlines.last_mut() {
        last.push_str(text);
    } else {
        inlines.push(Inline::Text(text.to_string()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pulldown_cmark::Parser;

    fn read(markdown: &str) -> (Paragraph, Vec<String>) {
        let events: Vec<Event> = Parser::new(markdown).collect();
        // Without the paragraph's own start and end.
        Paragraph::read(&events[1..events.len() - 1])
    }

    #[test]
    fn text_code_emphasis_and_links_are_read() {
        let (paragraph, problems) = read(
            "Like [`log()`](log.md), but *only* the **last**\nquery; see [the guide](https://example.com/guide).",
        );
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            paragraph.plain(),
            "Like log(), but only the last query; see the guide."
        );
        assert_eq!(
            paragraph.with_code_tags(),
            "Like <code>log()</code>, but only the last query; see the guide."
        );
        assert_eq!(paragraph.linked_methods(), ["log"]);
    }

    #[test]
    fn escapes_are_resolved_and_text_joined() {
        let (paragraph, _) = read("Use \\*, \\[x\\] and a\\_b.");
        assert_eq!(
            paragraph.0,
            [Inline::Text("Use *, [x] and a_b.".to_string())]
        );
    }

    #[test]
    fn comments_are_passed_over() {
        let (paragraph, problems) = read("Text <!-- a remark --> goes on.");
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(paragraph.plain(), "Text  goes on.");
    }

    #[test]
    fn what_cannot_be_kept_is_named() {
        for (markdown, expected) in [
            ("See [select](/api/select).", "links to `/api/select`"),
            ("See [select](select).", "links to `select`"),
            ("A <b>bold</b> word.", "holds HTML (`<b>`)"),
            ("An ![image](x.png).", "holds an image (`x.png`)"),
            ("Two  \nlines.", "hard line break"),
            ("[t](select.md \"title\")", "has a title (\"title\")"),
        ] {
            let (_, problems) = read(markdown);
            assert!(
                problems.iter().any(|p| p.contains(expected)),
                "{markdown}: {problems:?}"
            );
        }
    }
}
