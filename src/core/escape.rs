//! Text made safe to put in HTML and in Markdown: the same functions when
//! the pipeline renders the pages and when the server writes a query into
//! `/search`'s answer. Every character escaped is ASCII, so the text is
//! read byte by byte (the bytes of other characters are never ASCII).

/// `text` for HTML content and double-quoted attributes.
pub fn html(text: &str) -> String {
    let mut out = Vec::with_capacity(text.len());
    push_html(&mut out, text);
    String::from_utf8(out).expect("escaping UTF-8 text gives UTF-8 text")
}

/// Append `text` to `out`, escaped for HTML content and double-quoted
/// attributes: `&`, `<`, `>` and `"` as character references. The runs
/// between them are copied whole.
pub fn push_html(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    let mut run = 0;
    for (i, &byte) in bytes.iter().enumerate() {
        let reference: &[u8] = match byte {
            b'&' => b"&amp;",
            b'<' => b"&lt;",
            b'>' => b"&gt;",
            b'"' => b"&quot;",
            _ => continue,
        };
        out.extend_from_slice(&bytes[run..i]);
        out.extend_from_slice(reference);
        run = i + 1;
    }
    out.extend_from_slice(&bytes[run..]);
}

/// `text` as Markdown that reads as the text itself.
pub fn markdown(text: &str) -> String {
    let mut out = Vec::with_capacity(text.len());
    push_markdown(&mut out, text);
    String::from_utf8(out).expect("escaping UTF-8 text gives UTF-8 text")
}

/// Append `text` to `out` with a backslash before each character that would
/// turn plain text into Markdown markup. The runs between them are copied
/// whole.
pub fn push_markdown(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    let mut run = 0;
    for (i, &byte) in bytes.iter().enumerate() {
        if b"\\`*_[]<>|#".contains(&byte) {
            out.extend_from_slice(&bytes[run..i]);
            out.push(b'\\');
            run = i;
        }
    }
    out.extend_from_slice(&bytes[run..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_escapes_markup_and_quotes() {
        assert_eq!(
            html(r#"<a href="x">&</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;"
        );
        assert_eq!(html("é ' plain"), "é ' plain");
    }

    #[test]
    fn markdown_escapes_what_would_be_markup() {
        assert_eq!(
            markdown("a*b_[c]#`d`|<e>\\"),
            "a\\*b\\_\\[c\\]\\#\\`d\\`\\|\\<e\\>\\\\"
        );
        assert_eq!(markdown("plain words."), "plain words.");
    }
}
