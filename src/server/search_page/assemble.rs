//! `/search`'s answers put together: the table's pieces
//! (`refserve_core::search_page`) written in order with the request's
//! holes filled: the query (escaped for the form), the number found, each
//! method found with why it matched, or the names closest to the query's
//! words. The JSON answer is serde's, around each method's stored members.
//! Pure functions: pieces and a query in, bytes out.

use crate::search::Found;
use refserve_core::escape::{push_html, push_markdown};
use refserve_core::mcp::Members;
use refserve_core::search_page::{Form, Layout, Piece, SearchPage};
use serde::Serialize;
use serde_json::value::RawValue;

/// What a search found, for one answer: the normalised query, the methods
/// found (best first) and, when there are none, the catalog keys (their
/// indices) closest to its words.
pub(crate) struct Results<'a> {
    /// The catalog keys, in catalog order.
    pub keys: &'a [String],
    /// The same, as a JSON array.
    pub names: &'a RawValue,
    /// The normalised query.
    pub query: &'a str,
    /// The methods found, best first.
    pub found: &'a [Found<'a>],
    /// When nothing is found: the methods whose names are close to a word
    /// of the query.
    pub suggestions: &'a [usize],
}

/// The body of the answer in `form`.
pub(crate) fn body(page: &SearchPage, form: Form, results: &Results) -> Vec<u8> {
    match form {
        Form::Html => text(page, &page.html, Form::Html, results),
        Form::Markdown => text(page, &page.markdown, Form::Markdown, results),
        Form::Json => json(page, results),
    }
}

/// A text form's answer: its layout's pieces, the holes filled.
fn text(page: &SearchPage, layout: &Layout, form: Form, results: &Results) -> Vec<u8> {
    let escape = match form {
        Form::Html => push_html,
        _ => push_markdown,
    };
    let index = usize::from(form == Form::Markdown);
    let mut out = Vec::with_capacity(capacity(page, layout, index, results));
    let query = results.query;
    let write_query = |out: &mut Vec<u8>, _| escape(out, query);
    around(&mut out, &layout.top, write_query);
    if results.found.is_empty() {
        around(&mut out, &layout.nothing, write_query);
        if !results.suggestions.is_empty() {
            let [first, between, last] = &layout.suggestions;
            out.extend_from_slice(first);
            for (i, &method) in results.suggestions.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(between);
                }
                out.extend_from_slice(&page.methods[method].links[index]);
            }
            out.extend_from_slice(last);
        }
        out.extend_from_slice(&layout.every_method);
    } else {
        let mut count = itoa::Buffer::new();
        let count = count.format(results.found.len()).as_bytes();
        around(&mut out, &layout.found, |out, hole| match hole {
            0 => escape(out, query),
            _ => out.extend_from_slice(count),
        });
        for (rank, found) in results.found.iter().enumerate() {
            let method = &page.methods[found.method];
            if form == Form::Markdown {
                out.extend_from_slice(itoa::Buffer::new().format(rank + 1).as_bytes());
                out.extend_from_slice(b". ");
            }
            let item = [&method.html, &method.markdown][index];
            around(&mut out, item, |out, _| {
                escape(out, &found.why_line(&page.why))
            });
        }
        out.extend_from_slice(&layout.found_end);
    }
    out.extend_from_slice(&layout.end);
    out
}

/// `pieces` written in order, each hole between two filled by `fill`
/// (given the hole's number, from 0).
fn around(out: &mut Vec<u8>, pieces: &[Piece], mut fill: impl FnMut(&mut Vec<u8>, usize)) {
    for (i, piece) in pieces.iter().enumerate() {
        if i > 0 {
            fill(out, i - 1);
        }
        out.extend_from_slice(piece);
    }
}

/// What a text answer will probably take: its pieces, and room for the
/// query and the lines of why. (A guess: the answer is reserved in the
/// budget once written, whatever it took.)
fn capacity(page: &SearchPage, layout: &Layout, index: usize, results: &Results) -> usize {
    let pieces = |list: &[Piece]| list.iter().map(|piece| piece.len()).sum::<usize>();
    let fixed = pieces(&layout.top) + layout.end.len() + 8 * results.query.len();
    let middle = if results.found.is_empty() {
        pieces(&layout.nothing) + pieces(&layout.suggestions) + layout.every_method.len() + 256
    } else {
        let methods: usize = results
            .found
            .iter()
            .map(|found| {
                let method = &page.methods[found.method];
                let item = if index == 0 {
                    &method.html
                } else {
                    &method.markdown
                };
                pieces(item) + 16 + 64 * found.why.len()
            })
            .sum();
        pieces(&layout.found) + layout.found_end.len() + methods
    };
    fixed + middle
}

/// The JSON answer: `{"data": [method…], "meta": {"query", "count"}}`,
/// best first; when nothing is found, `meta` also names the closest names
/// (`suggestions`) and every method (`methods`).
fn json(page: &SearchPage, results: &Results) -> Vec<u8> {
    let data: Vec<Hit> = results
        .found
        .iter()
        .map(|found| Hit {
            method: &page.methods[found.method].json,
            why: found.why_line(&page.why),
        })
        .collect();
    let nothing = results.found.is_empty();
    let answer = Answer {
        meta: Meta {
            query: results.query,
            count: data.len(),
            suggestions: nothing.then(|| {
                results
                    .suggestions
                    .iter()
                    .map(|&method| results.keys[method].as_str())
                    .collect()
            }),
            methods: nothing.then_some(results.names),
        },
        data,
    };
    let mut out = Vec::with_capacity(512 * (answer.data.len() + 1));
    serde_json::to_writer(&mut out, &answer).expect("the answer serialises into memory");
    out
}

/// `{"data": […], "meta": {…}}`.
#[derive(Serialize)]
struct Answer<'a> {
    data: Vec<Hit<'a>>,
    meta: Meta<'a>,
}

/// One method found: its stored members, then why it matched.
#[derive(Serialize)]
struct Hit<'a> {
    #[serde(flatten)]
    method: &'a Members,
    why: String,
}

/// What the answer is about.
#[derive(Serialize)]
struct Meta<'a> {
    query: &'a str,
    count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    suggestions: Option<Vec<&'a str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    methods: Option<&'a RawValue>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Matched;
    use bytes::Bytes;
    use http::{HeaderMap, HeaderValue};
    use refserve_core::address::{Address, View};
    use refserve_core::search::Field;
    use refserve_core::search_page::{Headers, Method};
    use refserve_core::table::Resource;

    fn cut<const N: usize>(texts: [&'static str; N]) -> [Piece; N] {
        texts.map(|t| Piece(Bytes::from_static(t.as_bytes())))
    }

    fn piece(text: String) -> Piece {
        Piece(Bytes::from(text))
    }

    fn layout(top: &[&'static str], form: &'static str) -> Layout {
        Layout {
            top: top
                .iter()
                .map(|t| Piece(Bytes::from_static(t.as_bytes())))
                .collect(),
            found: cut(["<found ", "|", "> "]),
            found_end: cut(["</found>"])[0].clone(),
            nothing: cut(["<none ", "> "]),
            suggestions: cut(["<meant ", " or ", "> "]),
            every_method: cut(["<every>"])[0].clone(),
            end: cut([form])[0].clone(),
        }
    }

    fn method(key: &'static str) -> Method {
        let json = format!(r#"{{"key":"{key}","name":"{key}"}}"#);
        Method {
            html: [piece(format!("<li {key} ")), piece("/li>".into())],
            markdown: [piece(format!("{key} ")), piece("\n".into())],
            links: [piece(format!("<a {key}>")), piece(format!("[{key}]"))],
            json: serde_json::from_str(&json).expect("an object"),
            location: HeaderValue::try_from(Address::Method(key, View::Page).to_string())
                .expect("a path"),
        }
    }

    fn page() -> SearchPage {
        SearchPage {
            html: layout(&["<title ", " input ", " main> "], "</html>"),
            markdown: layout(&["# Search\n"], "[end]"),
            headers: Form::ALL.map(|_| Headers {
                ok: HeaderMap::new(),
                not_modified: HeaderMap::new(),
            }),
            see_other: HeaderMap::new(),
            methods: vec![method("select"), method("count")],
            why: crate::search::tests::english(),
            exported: Resource {
                id: Address::Search.to_string(),
                location: HeaderValue::from_static("/search"),
                media_types: Vec::new(),
                representations: Vec::new(),
                error: None,
                negotiates_language: false,
            },
        }
    }

    fn keys() -> Vec<String> {
        vec!["select".into(), "count".into()]
    }

    fn written(form: Form, query: &str, found: &[Found], suggestions: &[usize]) -> String {
        let keys = keys();
        let names = serde_json::value::to_raw_value(&keys).expect("names");
        let results = Results {
            keys: &keys,
            names: &names,
            query,
            found,
            suggestions,
        };
        String::from_utf8(body(&page(), form, &results)).expect("UTF-8")
    }

    fn found<'q>(method: usize, why: &[(&'q str, Field)]) -> Found<'q> {
        Found {
            method,
            score: 1.0,
            why: why
                .iter()
                .map(|&(word, field)| Matched {
                    word,
                    read_as: None,
                    field,
                })
                .collect(),
        }
    }

    #[test]
    fn methods_found_are_written_in_rank_order_around_why_they_matched() {
        let hits = [
            found(1, &[("rows", Field::Name), ("<b>", Field::Note)]),
            found(0, &[("rows", Field::Synonym)]),
        ];
        assert_eq!(
            written(Form::Html, "a<b>\"", &hits, &[]),
            "<title a&lt;b&gt;&quot; input a&lt;b&gt;&quot; main> <found a&lt;b&gt;&quot;|2> \
             <li count Matched “rows” in its name; “&lt;b&gt;” in its note./li>\
             <li select Matched “rows” in a word for what it does./li></found></html>"
        );
        assert_eq!(
            written(Form::Markdown, "a*b", &hits, &[]),
            "# Search\n<found a\\*b|2> 1. count Matched “rows” in its name; “\\<b\\>” in its note.\n\
             2. select Matched “rows” in a word for what it does.\n</found>[end]"
        );
    }

    #[test]
    fn nothing_found_offers_the_names_meant_and_every_method() {
        assert_eq!(
            written(Form::Html, "selct cuont", &[], &[0, 1]),
            "<title selct cuont input selct cuont main> <none selct cuont> \
             <meant <a select> or <a count>> <every></html>"
        );
        assert_eq!(
            written(Form::Markdown, "zzz", &[], &[]),
            "# Search\n<none zzz> <every>[end]"
        );
    }

    #[test]
    fn the_json_answer_is_each_method_s_members_with_why_then_meta() {
        let hits = [found(1, &[("rows", Field::Name)])];
        let answer: serde_json::Value =
            serde_json::from_str(&written(Form::Json, "a \"b\"", &hits, &[])).expect("JSON");
        assert_eq!(
            answer,
            serde_json::json!({
                "data": [{ "key": "count", "name": "count", "why": "Matched “rows” in its name." }],
                "meta": { "query": "a \"b\"", "count": 1 },
            })
        );
        let nothing: serde_json::Value =
            serde_json::from_str(&written(Form::Json, "selct", &[], &[0])).expect("JSON");
        assert_eq!(
            nothing["meta"],
            serde_json::json!({
                "query": "selct", "count": 0, "suggestions": ["select"],
                "methods": ["select", "count"],
            })
        );
    }
}
