//! The production table, tested whole: every resource, every variant,
//! every header list, the choices the pipeline made ahead of time, and the
//! file names an export gives them.

/// The stored table and the server's reading of it.
mod stored {
    use super::super::*;
    use crate::errors::ErrorKind;
    use crate::negotiate::Coding;
    use http::HeaderName;
    use refserve_core::address::{Address, View};
    use std::sync::{Arc, RwLock};

    fn table() -> &'static Table {
        production()
    }

    #[test]
    fn every_error_kind_has_a_page_in_three_representations() {
        for kind in ErrorKind::ALL {
            let resource = table().error(ErrorKey::page(kind));
            let types: Vec<&str> = resource.media_types.iter().map(|m| m.subtype).collect();
            assert_eq!(types, ["json", "html", "markdown"], "{kind:?}");
            for representation in &resource.representations {
                let body = std::str::from_utf8(&representation.identity().body).expect("UTF-8");
                assert!(body.contains(kind.code()), "{kind:?}: {body}");
            }
        }
    }

    #[test]
    fn every_error_kind_has_a_json_body() {
        for kind in ErrorKind::ALL {
            let resource = table().error(ErrorKey::program(kind));
            assert_eq!(resource.representations.len(), 1);
            let body = &resource.representations[0].identity().body;
            let text = std::str::from_utf8(body).expect("UTF-8");
            assert!(
                text.contains(&format!("\"code\":\"{}\"", kind.code())),
                "{text}"
            );
        }
    }

    #[test]
    fn suggestions_exist_for_every_key() {
        let table = table();
        for (i, key) in table.keys.iter().enumerate() {
            for kind in [ErrorKind::ReferenceNotFound, ErrorKind::InvalidName] {
                let plain = ErrorKey::program(kind);
                let resource = table.error(plain.suggesting(i));
                assert!(
                    !std::ptr::eq(resource, table.error(plain)),
                    "{kind:?} {key}"
                );
                let body = &resource.representations[0].identity().body;
                let text = std::str::from_utf8(body).expect("UTF-8");
                assert!(text.contains(&Address::Document(key).to_string()), "{text}");
            }
        }
        // A kind that suggests nothing, or a key out of range, is the plain body.
        let not_found = ErrorKey::program(ErrorKind::NotFound);
        assert!(std::ptr::eq(
            table.error(not_found.suggesting(0)),
            table.error(not_found)
        ));
        let unknown = ErrorKey::program(ErrorKind::ReferenceNotFound);
        assert!(std::ptr::eq(
            table.error(unknown.suggesting(table.keys.len())),
            table.error(unknown)
        ));
        // A mistyped page links the method meant.
        let page = ErrorKey::page(ErrorKind::NotFound);
        for (i, key) in table.keys.iter().enumerate() {
            let resource = table.error(page.suggesting(i));
            let html = &resource.representations[1].identity().body;
            let html = std::str::from_utf8(html).expect("UTF-8");
            assert!(
                html.contains(&Address::Method(key, View::Page).to_string()),
                "{key}"
            );
        }
    }

    #[test]
    fn pages_are_the_resources_people_and_agents_read() {
        // Every method page and its Markdown, the homepage and the index
        // are pages; no document for programs is.
        let pages: Vec<&str> = table()
            .resources
            .iter()
            .filter(|r| r.is_page())
            .map(|r| r.id.as_str())
            .collect();
        for address in [
            Address::Home(View::Page),
            Address::Methods(View::Page),
            Address::Method("select", View::Page),
            Address::Method("select", View::Markdown),
        ] {
            let path = address.to_string();
            assert!(pages.contains(&path.as_str()), "{path} is a page");
        }
        for address in [
            Address::Collection,
            Address::Document("select"),
            Address::OpenApi,
        ] {
            let path = address.to_string();
            assert!(!pages.contains(&path.as_str()), "{path} is a document");
        }
    }

    #[test]
    fn every_variant_is_consistent() {
        let table = table();
        let all = table
            .resources
            .iter()
            .chain(ErrorKind::ALL.map(|kind| table.error(ErrorKey::program(kind))));
        for resource in all {
            for representation in &resource.representations {
                let identity = representation.identity();
                let mut sizes = representation.variants.iter().map(|v| v.body.len());
                let mut previous = 0;
                assert!(
                    sizes.all(|s| std::mem::replace(&mut previous, s) <= s),
                    "smallest first"
                );
                for variant in &representation.variants {
                    assert!(
                        variant.coding == Coding::Identity
                            || variant.body.len() < identity.body.len()
                    );
                    let etag = variant.etag.to_str().expect("ASCII");
                    assert!(
                        etag.starts_with('"') && etag.ends_with('"') && !etag.starts_with("W/")
                    );
                }
            }
        }
    }

    /// The names in every response header list of `resource`.
    fn names(resource: &Resource) -> Vec<Vec<&str>> {
        let variants = resource.representations.iter().flat_map(|r| &r.variants);
        variants
            .map(|v| v.headers.keys().map(HeaderName::as_str).collect())
            .collect()
    }

    #[test]
    fn documents_carry_validators_and_errors_do_not() {
        let table = table();
        for resource in table.resources.iter() {
            for names in names(resource) {
                assert!(
                    names.contains(&"etag") && names.contains(&"last-modified"),
                    "{}",
                    resource.id
                );
                assert!(!names.contains(&"allow"), "{}", resource.id);
            }
        }
        for resource in table.errors() {
            // The bodies of a 405, in every language.
            let kind = ErrorKind::MethodNotAllowed;
            let at = ErrorKind::ALL.iter().position(|k| *k == kind);
            let allowed = at.is_some_and(|at| {
                table.errors[at]
                    .iter()
                    .any(|body| std::ptr::eq(resource, body))
            });
            for names in names(resource) {
                assert!(!names.contains(&"etag") && !names.contains(&"last-modified"));
                assert_eq!(names.contains(&"allow"), allowed, "{names:?}");
            }
        }
    }

    #[test]
    fn header_lists_agree_with_the_variant() {
        let table = table();
        for resource in table.resources.iter().chain(table.errors()) {
            for (representation, media) in
                resource.representations.iter().zip(&resource.media_types)
            {
                for variant in &representation.variants {
                    let map = &variant.headers;
                    let length = variant.body.len().to_string();
                    assert_eq!(map[http::header::CONTENT_LENGTH], length.as_str());
                    let content_type = map[http::header::CONTENT_TYPE].to_str().expect("ASCII");
                    assert!(content_type.starts_with(&format!("{}/{}", media.kind, media.subtype)));
                    let vary = map[http::header::VARY].to_str().expect("ASCII");
                    assert_eq!(vary.contains("Accept,"), resource.media_types.len() > 1);
                    assert_eq!(
                        map.get(http::header::CONTENT_ENCODING).is_some(),
                        variant.coding != Coding::Identity
                    );
                    assert_eq!(variant.not_modified[http::header::ETAG], variant.etag);
                }
            }
        }
    }

    #[test]
    fn etags_differ_between_the_variants_of_a_resource() {
        for resource in table().resources.iter() {
            let mut seen = std::collections::HashSet::new();
            for representation in &resource.representations {
                for variant in &representation.variants {
                    assert!(
                        seen.insert(variant.etag.clone()),
                        "{}: {:?}",
                        resource.id,
                        variant.etag
                    );
                }
            }
        }
    }

    #[test]
    fn a_table_read_with_a_hashed_index_answers_like_the_perfect_one() {
        let production = table();
        let made = Table::from_static(super::super::STORED, None).expect("a valid table");
        assert!(matches!(production.paths, Index::Perfect(_)));
        for resource in &production.resources {
            let found = made.resource(&resource.id).expect("every path");
            let perfect = production.resource(&resource.id).expect("every path");
            assert!(std::ptr::eq(perfect, resource), "{}", resource.id);
            assert_eq!(found.id, resource.id);
            assert_eq!(found.representations.len(), resource.representations.len());
            assert_eq!(
                found.representations[0].identity().body,
                resource.representations[0].identity().body
            );
        }
        assert!(made.resource("/nowhere").is_none());
        assert!(production.resource("/nowhere").is_none());
        assert_eq!(made.keys, production.keys);
        let tables = Tables::Swappable(Arc::new(RwLock::new(Arc::new(made))));
        let before = tables.current();
        tables.replace(Table::from_static(super::super::STORED, None).expect("a valid table"));
        let after = tables.current();
        assert!(!std::ptr::eq::<Table>(&*before, &*after), "a new table");
        assert!(before.resource("/").is_some(), "the old one lives on");
    }

    #[test]
    fn bodies_are_stored_once_after_the_table() {
        let stored = super::super::STORED;
        let length = u32::from_le_bytes(stored[..4].try_into().expect("a length")) as usize;
        let bodies = &stored[4 + length..];
        let within = |body: &bytes::Bytes| {
            let start = bodies.as_ptr() as usize;
            let at = body.as_ptr() as usize;
            at >= start && at + body.len() <= start + bodies.len()
        };
        // A page and the address that negotiates it send one body.
        let fixed = table()
            .resource("/en/api/select")
            .expect("the English page");
        let negotiated = table()
            .resource("/api/select")
            .expect("the negotiated page");
        let (fixed, negotiated) = (
            &fixed.representations[0].identity().body,
            &negotiated.representations[0].identity().body,
        );
        assert_eq!(fixed, negotiated);
        assert_eq!(fixed.as_ptr(), negotiated.as_ptr(), "stored once");
        // Every body lies among the bodies, none in the table's own bytes.
        for resource in &table().resources {
            for representation in &resource.representations {
                for variant in &representation.variants {
                    assert!(within(&variant.body), "{}", resource.id);
                }
            }
        }
    }

    #[test]
    fn the_stored_form_reads_back_to_the_same_bytes() {
        let stored = table().to_bytes().expect("a table stores");
        assert_eq!(stored, super::super::STORED);
    }
}

/// What the selection makes of the table.
mod selection {
    use super::super::production;
    use crate::respond::{select, Selection};
    use http::header::{self, HeaderMap, HeaderValue};
    use http::Method;
    use refserve_core::address::Address;

    /// `Accept` values browsers and tools send.
    const ACCEPTS: [&str; 5] = [
        "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7",
        "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
        "*/*",
        "application/json",
        "text/markdown",
    ];

    /// `Accept-Encoding` values browsers and caches send.
    const ACCEPT_ENCODINGS: [&str; 4] = [
        "gzip, deflate, br, zstd",
        "gzip, deflate, br, zstd, dcb, dcz",
        "gzip, deflate",
        "br",
    ];

    fn value(text: &str) -> HeaderValue {
        HeaderValue::from_str(text).expect("a valid field value")
    }

    fn request(accept: HeaderValue, accept_encoding: HeaderValue) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT, accept);
        headers.insert(header::ACCEPT_ENCODING, accept_encoding);
        headers
    }

    /// What a selection chose, comparable.
    fn chosen(selection: Selection<'_>) -> Option<(u16, &str)> {
        match selection {
            Selection::Body {
                status, variant, ..
            } => Some((status.as_u16(), variant.etag.to_str().expect("ASCII"))),
            _ => None,
        }
    }

    /// A request without `Accept` gets what `*/*` chooses.
    #[test]
    fn no_accept_chooses_what_any_type_chooses() {
        let table = production();
        for path in table.resources.iter().map(|r| &r.id) {
            let mut absent = HeaderMap::new();
            absent.insert(header::ACCEPT_ENCODING, value("gzip"));
            let any = request(value("*/*"), value("gzip"));
            let chosen_absent = chosen(select(table, &Method::GET, path, &absent));
            assert!(chosen_absent.is_some(), "{path}");
            assert_eq!(
                chosen_absent,
                chosen(select(table, &Method::GET, path, &any)),
                "{path}"
            );
        }
    }

    /// A field split over several lines means its members on one line
    /// (RFC 9110 §5.3): the selection reads it from the map whole.
    #[test]
    fn fields_on_several_lines_choose_what_one_line_chooses() {
        let table = production();
        let lines = |name: header::HeaderName, value: &str, headers: &mut HeaderMap| {
            for member in value.split(',') {
                let member = HeaderValue::from_str(member.trim()).expect("a valid field value");
                headers.append(name.clone(), member);
            }
        };
        for path in table.resources.iter().map(|r| &r.id) {
            for accept in ACCEPTS {
                for accept_encoding in ACCEPT_ENCODINGS {
                    let mut split = HeaderMap::new();
                    lines(header::ACCEPT, accept, &mut split);
                    lines(header::ACCEPT_ENCODING, accept_encoding, &mut split);
                    let one = request(value(accept), value(accept_encoding));
                    assert_eq!(
                        chosen(select(table, &Method::GET, path, &split)),
                        chosen(select(table, &Method::GET, path, &one)),
                        "{path} {accept} {accept_encoding}"
                    );
                }
            }
        }
    }

    /// `If-None-Match` on any of its lines; without it, the first line of
    /// `If-Modified-Since` (RFC 9110 §13.2.2).
    #[test]
    fn preconditions_on_several_lines() {
        let table = production();
        let path = &Address::Collection.to_string();
        let fresh = |fields: &[(header::HeaderName, &str)]| {
            let mut headers = HeaderMap::new();
            for (name, value) in fields {
                headers.append(name.clone(), HeaderValue::from_str(value).expect("valid"));
            }
            matches!(
                select(table, &Method::GET, path, &headers),
                Selection::NotModified { .. }
            )
        };
        let etag = match select(table, &Method::GET, path, &HeaderMap::new()) {
            Selection::Body { variant, .. } => variant.etag.to_str().expect("ASCII").to_string(),
            _ => panic!("{path} has a body"),
        };
        let (later, earlier) = (
            "Fri, 01 Jan 2100 00:00:00 GMT",
            "Mon, 01 Jan 1990 00:00:00 GMT",
        );
        use header::{IF_MODIFIED_SINCE as SINCE, IF_NONE_MATCH as MATCH};
        assert!(fresh(&[(MATCH, "\"other\""), (MATCH, &etag)]));
        assert!(!fresh(&[
            (MATCH, "\"other\""),
            (MATCH, "\"another\""),
            (SINCE, later)
        ]));
        assert!(fresh(&[(SINCE, later), (SINCE, earlier)]));
        assert!(!fresh(&[(SINCE, earlier), (SINCE, later)]));
    }
}

/// The export's file names for the table's resources.
mod export {
    use super::super::production;
    use crate::export::file_name;
    use refserve_core::address::{Address, View};

    fn name(path: &str, index: usize) -> Option<String> {
        let resource = production().resource(path).expect("a resource");
        file_name(path, resource, index)
    }

    #[test]
    fn file_names_follow_static_host_conventions() {
        assert_eq!(name("/", 0).as_deref(), Some("index.html"));
        assert_eq!(name("/", 1), None, "the Markdown of / is /index.md");
        assert_eq!(name("/index.md", 0).as_deref(), Some("index.md"));
        let select = &Address::Method("select", View::Page).to_string();
        assert_eq!(name(select, 0).as_deref(), Some("api/select.html"));
        assert_eq!(name(select, 1), None);
        assert_eq!(
            name(&Address::Collection.to_string(), 0).as_deref(),
            Some("api/reference.json")
        );
        assert_eq!(
            name("/.well-known/api-catalog", 0).as_deref(),
            Some(".well-known/api-catalog")
        );
        assert_eq!(
            name("/mcp/server-card", 0).as_deref(),
            Some("mcp/server-card")
        );
        assert_eq!(
            name("/mcp/server-card", 1),
            None,
            "the card as application/json is the same file"
        );
    }

    #[test]
    fn file_names_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for resource in production().resources.iter() {
            for index in 0..resource.representations.len() {
                if let Some(name) = file_name(&resource.id, resource, index) {
                    assert!(seen.insert(name.clone()), "{name}");
                }
            }
        }
    }
}

/// `/mcp`'s stored answers and search index.
mod mcp {
    use super::super::production;
    use refserve_core::mcp::{answer_key, HANDSHAKE_VERSIONS, TOOLS};
    use serde_json::Value;

    fn parsed(bytes: &[u8], key: &str) -> serde_json::Map<String, Value> {
        match serde_json::from_slice(bytes) {
            Ok(Value::Object(object)) => object,
            other => panic!("{key}: not a JSON object: {other:?}"),
        }
    }

    #[test]
    fn every_answer_is_an_object_in_its_era_s_form() {
        let answers = &production().mcp.answers;
        assert!(
            answers.windows(2).all(|w| w[0].key < w[1].key),
            "sorted, unique keys"
        );
        for answer in answers.iter() {
            assert!(
                !answer.legacy.is_empty() || !answer.modern.is_empty(),
                "{}",
                answer.key
            );
            if !answer.legacy.is_empty() {
                let legacy = parsed(&answer.legacy, &answer.key);
                assert!(!legacy.contains_key("resultType"), "{}", answer.key);
            }
            if !answer.modern.is_empty() {
                let modern = parsed(&answer.modern, &answer.key);
                assert_eq!(modern["resultType"], "complete", "{}", answer.key);
                let listed = answer.key.ends_with("/list")
                    || answer.key.starts_with("resources/read ")
                    || answer.key == "server/discover";
                assert_eq!(modern.contains_key("ttlMs"), listed, "{}", answer.key);
            }
        }
    }

    #[test]
    fn every_request_the_server_answers_from_the_table_is_there() {
        let has = |key: &str| production().mcp.answers.iter().any(|a| a.key == key);
        for version in HANDSHAKE_VERSIONS {
            assert!(has(&answer_key("initialize", version)), "{version}");
        }
        for key in [
            "server/discover",
            "ping",
            "tools/list",
            "resources/list",
            "resources/templates/list",
        ] {
            assert!(has(key), "{key}");
        }
        assert!(has(&answer_key("tools/call", "list_methods")));
        for key in production().keys.iter() {
            assert!(
                has(&answer_key("tools/call", &format!("get_method {key}"))),
                "{key}"
            );
            let uri = format!("{}/api/{key}.md", production().base_url);
            assert!(has(&answer_key("resources/read", &uri)), "{uri}");
        }
        for document in ["llms.txt", "llms-full.txt"] {
            let uri = format!("{}/{document}", production().base_url);
            assert!(has(&answer_key("resources/read", &uri)), "{uri}");
        }
        let listed = production()
            .mcp
            .answers
            .iter()
            .find(|a| a.key == "tools/list");
        let tools = parsed(&listed.expect("tools/list").legacy, "tools/list");
        let names: Vec<&str> = tools["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|tool| tool["name"].as_str())
            .collect();
        assert_eq!(names, TOOLS);
    }

    #[test]
    fn the_search_index_is_sorted_and_weighs_every_method() {
        let terms = &production().mcp.index.terms;
        assert!(
            terms.windows(2).all(|w| w[0].stem < w[1].stem),
            "sorted, unique terms"
        );
        let mut found = vec![false; production().keys.len()];
        for term in terms {
            assert!(!term.postings.is_empty(), "{}", term.stem);
            for posting in &term.postings {
                assert!(
                    posting.weight > 0.0 && posting.weight.is_finite(),
                    "{}",
                    term.stem
                );
                found[usize::from(posting.method)] = true;
            }
        }
        assert!(
            found.iter().all(|&f| f),
            "every method is found by some term"
        );
        // Each method is found by its own name, there most of all.
        for (method, key) in production().keys.iter().enumerate() {
            let stem = &refserve_core::search::terms(key)[0].1;
            let term = production().mcp.index.term(stem);
            let postings = term.map_or(&[][..], |term| &term.postings);
            assert!(!postings.is_empty(), "a name is a term: {key}");
            let best = postings
                .iter()
                .max_by(|a, b| a.weight.total_cmp(&b.weight))
                .expect("postings");
            assert_eq!(usize::from(best.method), method, "{key}");
        }
    }
}
