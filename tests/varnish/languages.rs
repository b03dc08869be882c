//! `Accept-Language` through the cache: on the addresses that negotiate
//! it, one object per language, the one refserve chooses, whatever the
//! spelling of the header; the fixed addresses (`/zh-hans/…`) and the JSON
//! API one object whatever it says; and the VCL naming the languages, and
//! the regions where Chinese is Traditional, that refserve serves.

use super::{cache_state, Headers, Varnish};
use crate::support::start_server;
use refserve::table::production;
use std::collections::BTreeSet;

/// A browser's `Accept` for a page.
const BROWSER: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

/// `Accept-Language` headers as browsers send them (Chrome, Firefox,
/// Safari and Edge, set to English, Chinese of the mainland, Taiwan and
/// Hong Kong, German) and as they should not: ties, `*`, `q=0`, malformed,
/// empty, absent, on two lines (long ones: [`long_headers`]). Each with
/// what it is, its lines (none: no header) and the language refserve
/// chooses for it.
const CORPUS: &[(&str, &[&str], &str)] = &[
    ("Chrome en-US", &["en-US,en;q=0.9"], "en"),
    ("Chrome en-GB", &["en-GB,en-US;q=0.9,en;q=0.8"], "en"),
    ("Chrome zh-CN", &["zh-CN,zh;q=0.9"], "zh-Hans"),
    (
        "Chrome zh-CN, English added",
        &["zh-CN,zh;q=0.9,en;q=0.8,en-GB;q=0.7,en-US;q=0.6"],
        "zh-Hans",
    ),
    (
        "Chrome zh-TW",
        &["zh-TW,zh;q=0.9,en-US;q=0.8,en;q=0.7"],
        "zh-Hans",
    ),
    (
        "Chrome zh-HK",
        &["zh-HK,zh-TW;q=0.9,zh;q=0.8,en;q=0.7"],
        "zh-Hans",
    ),
    (
        "Chrome zh-TW, no plain zh",
        &["zh-TW,en-US;q=0.9,en;q=0.8"],
        "en",
    ),
    (
        "Chrome de-DE, English added",
        &["de-DE,de;q=0.9,en-US;q=0.8,en;q=0.7"],
        "en",
    ),
    ("Chrome de-DE", &["de-DE,de;q=0.9"], "en"),
    (
        "Chrome de-DE, Chinese added",
        &["de-DE,de;q=0.9,zh-TW;q=0.8,zh;q=0.7"],
        "zh-Hans",
    ),
    ("Firefox en-US", &["en-US,en;q=0.5"], "en"),
    (
        "Firefox zh-CN",
        &["zh-CN,zh;q=0.8,zh-TW;q=0.7,zh-HK;q=0.5,en-US;q=0.3,en;q=0.2"],
        "zh-Hans",
    ),
    (
        "Firefox zh-TW",
        &["zh-TW,zh;q=0.8,en-US;q=0.5,en;q=0.3"],
        "zh-Hans",
    ),
    (
        "Hong Kong, English second",
        &["zh-HK,en-US;q=0.7,en;q=0.3"],
        "en",
    ),
    ("Firefox de", &["de,en-US;q=0.7,en;q=0.3"], "en"),
    ("Safari en-US", &["en-US,en;q=0.9"], "en"),
    ("Safari zh-CN", &["zh-CN,zh-Hans;q=0.9"], "zh-Hans"),
    (
        "Safari zh-Hans (macOS)",
        &["zh-Hans-CN,zh-Hans;q=0.9"],
        "zh-Hans",
    ),
    ("Safari zh-TW", &["zh-TW"], "en"),
    ("Safari zh-Hant", &["zh-Hant-TW"], "en"),
    ("Safari zh-HK", &["zh-HK"], "en"),
    ("Safari de-DE", &["de-DE,de;q=0.9"], "en"),
    ("Edge en-US", &["en-US,en;q=0.9"], "en"),
    (
        "Edge en-US, Chinese added",
        &["en-US,en;q=0.9,zh-CN;q=0.8"],
        "en",
    ),
    (
        "Edge zh-CN",
        &["zh-CN,zh;q=0.9,en;q=0.8,en-GB;q=0.7,en-US;q=0.6"],
        "zh-Hans",
    ),
    ("Edge zh-HK", &["zh-HK,zh;q=0.9,en;q=0.8"], "zh-Hans"),
    (
        "Edge zh-TW, Japanese added",
        &["zh-TW,zh;q=0.9,ja;q=0.8,en-US;q=0.7,en;q=0.6"],
        "zh-Hans",
    ),
    ("Singapore", &["zh-SG,zh;q=0.9,en;q=0.8"], "zh-Hans"),
    ("Macau", &["zh-MO"], "en"),
    ("Chinese in the US (Traditional by CLDR)", &["zh-US"], "en"),
    ("Simplified in Taiwan", &["zh-Hans-TW"], "zh-Hans"),
    ("Traditional in China", &["zh-Hant-CN"], "en"),
    ("case", &["ZH-cn"], "zh-Hans"),
    ("English in Latin script", &["en-Latn-US"], "en"),
    (
        "MDN's example",
        &["fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5"],
        "en",
    ),
    (
        "spaces",
        &["  de ; q=0.9 ,\tzh-CN ;q=0.95 , en;q=0.9  "],
        "zh-Hans",
    ),
    // Ties go to the range written first.
    ("tie, Chinese first", &["zh;q=0.5, en;q=0.5"], "zh-Hans"),
    ("tie, English first", &["en;q=0.5, zh;q=0.5"], "en"),
    (
        "tie of three",
        &["de;q=0.8, zh-CN;q=0.8, en;q=0.8"],
        "zh-Hans",
    ),
    ("lighter first", &["en;q=0.5, zh"], "zh-Hans"),
    (
        "Chinese twice, English between",
        &["zh-CN,en;q=0.9,zh;q=0.8"],
        "zh-Hans",
    ),
    // `*` is the first language no range of weight 0 rules out.
    ("wildcard", &["*"], "en"),
    (
        "wildcard, English ruled out",
        &["*;q=0.5, en;q=0"],
        "zh-Hans",
    ),
    ("English ruled out, wildcard", &["en;q=0, *"], "zh-Hans"),
    ("Chinese ruled out, wildcard", &["zh;q=0, *"], "en"),
    ("wildcard before Chinese", &["*, zh"], "en"),
    ("Chinese before wildcard", &["zh, *"], "zh-Hans"),
    ("both ruled out, wildcard", &["en;q=0, zh;q=0, *"], "en"),
    // Weight 0 drops a range.
    ("Chinese at weight 0", &["zh-CN;q=0"], "en"),
    ("weight 0, then a range", &["zh;q=0, zh-CN"], "zh-Hans"),
    ("weight 0.000", &["zh;q=0.000, de;q=0.001"], "en"),
    ("weight 0.001", &["de, zh;q=0.001"], "zh-Hans"),
    // Malformed: passed over, or the default.
    ("underscore", &["zh_CN"], "en"),
    ("empty subtag", &["zh-;q=0.5, en"], "en"),
    ("weight above 1", &["zh;q=2"], "en"),
    ("bad weight, then English", &["zh;q=0.5x, en"], "en"),
    ("a parameter", &["zh;level=1"], "en"),
    ("a parameter, then Chinese", &["en;level=1, zh"], "zh-Hans"),
    ("a space inside a range", &["zh CN, en;q=0.1"], "en"),
    ("subtag too long", &["zh-abcdefghi"], "en"),
    ("semicolons", &[";;;"], "en"),
    ("empty members", &[",,zh-CN,,"], "zh-Hans"),
    ("empty", &[""], "en"),
    ("absent", &[], "en"),
    // Two lines are one list.
    ("two lines", &["de-DE", "zh-CN"], "zh-Hans"),
    (
        "two lines, the second lighter",
        &["en;q=0.5", "zh;q=0.4"],
        "en",
    ),
];

/// Long headers, built: refserve reads the first 16 ranges alone.
fn long_headers() -> Vec<(&'static str, String, &'static str)> {
    vec![
        (
            "Chinese as the 16th range",
            format!("{}zh", "de, ".repeat(15)),
            "zh-Hans",
        ),
        (
            "Chinese as the 17th range",
            format!("{}fr, zh", "de, ".repeat(15)),
            "en",
        ),
        (
            "4 KB of German, then Chinese",
            format!("{}zh-CN", "de-DE;q=0.5, ".repeat(300)),
            "en",
        ),
        (
            "Chinese, then 4 KB of German",
            format!("zh-CN, {}de", "de-DE;q=0.5, ".repeat(300)),
            "zh-Hans",
        ),
    ]
}

/// The negotiated addresses the corpus goes through, with their headers
/// besides `Accept-Language`: a method's page, the homepage's Markdown
/// twin, and a search.
const NEGOTIATED: [(&str, Headers); 3] = [
    (
        "/api/select",
        &[("accept", BROWSER), ("accept-encoding", "br")],
    ),
    ("/index.md", &[("accept-encoding", "gzip")]),
    ("/search?q=rows", &[("accept", "text/markdown")]),
];

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn every_spelling_hits_the_object_of_the_language_refserve_chooses() {
    let server = start_server().await;
    let varnish = Varnish::start(&server).await;
    let long = long_headers();
    let corpus: Vec<(&str, Vec<&str>, &str)> = CORPUS
        .iter()
        .map(|&(what, lines, language)| (what, lines.to_vec(), language))
        .chain(
            long.iter()
                .map(|(what, line, language)| (*what, vec![line.as_str()], *language)),
        )
        .collect();
    assert!(corpus.len() >= 30);
    for (path, headers) in NEGOTIATED {
        // One canonical request a language stores its object.
        let mut stored = Vec::new();
        for language in production().languages.iter().map(|l| l.tag) {
            let mut canonical = headers.to_vec();
            canonical.push(("accept-language", language));
            let reply = varnish.get(path, &canonical).await;
            let what = format!("{path} {language}");
            assert_eq!((reply.status, cache_state(&reply)), (200, "MISS"), "{what}");
            assert_eq!(reply.header("content-language"), language, "{what}");
            assert!(reply.header("vary").contains("Accept-Language"), "{what}");
            stored.push(reply);
        }
        assert_ne!(stored[0].decoded(), stored[1].decoded(), "{path}");
        // Then every spelling is one of those objects: a hit, in the
        // language refserve chooses for it when asked directly.
        for (what, lines, language) in &corpus {
            let mut sent = headers.to_vec();
            sent.extend(lines.iter().map(|line| ("accept-language", *line)));
            let direct = server.get(path, &sent).await;
            let reply = varnish.get(path, &sent).await;
            let what = format!("{path} {what} {lines:.60?}");
            assert_eq!(direct.status, 200, "{what}");
            assert_eq!(direct.header("content-language"), *language, "{what}");
            assert_eq!((reply.status, cache_state(&reply)), (200, "HIT"), "{what}");
            assert_eq!(
                reply.header("content-language"),
                direct.header("content-language"),
                "{what}"
            );
            assert_eq!(
                reply.header("content-location"),
                direct.header("content-location"),
                "{what}"
            );
            assert_eq!(reply.decoded(), direct.decoded(), "{what}");
            let object = stored
                .iter()
                .find(|s| s.header("content-language") == *language)
                .expect("a stored language");
            assert_eq!(reply.header("etag"), object.header("etag"), "{what}");
        }
    }
}

/// The object a hit was served from: the transaction that stored it, the
/// second id of `X-Varnish`.
#[track_caller]
fn stored_by(reply: &crate::support::Reply) -> String {
    let ids = reply.header("x-varnish");
    assert_eq!(cache_state(reply), "HIT", "X-Varnish: {ids}");
    ids.split_whitespace().nth(1).expect("two ids").to_string()
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn two_readers_of_one_language_share_one_object() {
    let server = start_server().await;
    let varnish = Varnish::start(&server).await;
    let page = |language: &'static str| -> Vec<(&'static str, &'static str)> {
        vec![
            ("accept", BROWSER),
            ("accept-encoding", "gzip, deflate, br, zstd"),
            ("accept-language", language),
        ]
    };
    for path in ["/", "/api/select"] {
        let mut objects = Vec::new();
        for (first, second, language) in [
            ("zh-CN,zh;q=0.9", "zh-Hans-CN", "zh-Hans"),
            ("de-DE", "en-US,en;q=0.9", "en"),
        ] {
            let what = format!("{path} {first} / {second}");
            let stored = varnish.get(path, &page(first)).await;
            assert_eq!(cache_state(&stored), "MISS", "{what}");
            let shared = varnish.get(path, &page(second)).await;
            let again = varnish.get(path, &page(first)).await;
            let object = stored_by(&shared);
            assert_eq!(stored_by(&again), object, "{what}");
            for reply in [&stored, &shared, &again] {
                assert_eq!(reply.status, 200, "{what}");
                assert_eq!(reply.header("content-language"), language, "{what}");
                assert_eq!(reply.header("etag"), stored.header("etag"), "{what}");
            }
            objects.push((object, stored));
        }
        // Two objects, not one: other ids, other tags, other pages.
        let [(zh, chinese), (en, english)] = &objects[..] else {
            panic!("two languages");
        };
        assert_ne!(zh, en, "{path}");
        assert_ne!(chinese.header("etag"), english.header("etag"), "{path}");
        assert_ne!(chinese.decoded(), english.decoded(), "{path}");
    }
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn fixed_addresses_and_the_json_api_are_one_object_whatever_the_language() {
    let server = start_server().await;
    let varnish = Varnish::start(&server).await;
    let languages = [
        None,
        Some("zh-CN,zh;q=0.9"),
        Some("en-US,en;q=0.9"),
        Some("de-DE"),
        Some("zh-TW"),
        Some("*"),
        Some("nonsense;q=x"),
    ];
    for (path, language) in [
        ("/zh-hans/api/select", "zh-Hans"),
        ("/en/api/select", "en"),
        ("/zh-hans/", "zh-Hans"),
        ("/zh-hans/api/select.md", "zh-Hans"),
        // The JSON Reference is English whatever is asked, and says so.
        ("/api/reference.json", "en"),
        ("/api/reference/select.json", "en"),
    ] {
        let mut first = None;
        for (n, accept_language) in languages.iter().enumerate() {
            let mut headers = vec![("accept", BROWSER), ("accept-encoding", "br")];
            headers.extend(accept_language.map(|l| ("accept-language", l)));
            let reply = varnish.get(path, &headers).await;
            let what = format!("{path} {accept_language:?}");
            assert_eq!(reply.status, 200, "{what}");
            let expected = if n == 0 { "MISS" } else { "HIT" };
            assert_eq!(cache_state(&reply), expected, "{what}");
            assert!(!reply.header("vary").contains("Accept-Language"), "{what}");
            assert_eq!(reply.header("content-language"), language, "{what}");
            let direct = server.get(path, &headers).await;
            assert_eq!(reply.decoded(), direct.decoded(), "{what}");
            let tag = first.get_or_insert_with(|| reply.header("etag").to_string());
            assert_eq!(reply.header("etag"), tag, "{what}");
        }
    }
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn each_address_speaks_the_language_refserve_would() {
    let server = start_server().await;
    let varnish = Varnish::start(&server).await;
    // Every kind of address, negotiated or not: one that comes to
    // negotiate its language, unknown to the VCL, would answer a Chinese
    // reader in English through the cache.
    for path in [
        "/",
        "/index.md",
        "/api/",
        "/api/index.md",
        "/api/select",
        "/api/select.md",
        "/search?q=rows",
        "/search?q=count",
        "/zh-hans/search?q=rows",
        "/en/api/select",
        "/zh-hans/api/",
        "/api/reference.json",
        "/api/reference/select.json",
        "/llms.txt",
        "/llms-full.txt",
        "/sitemap.xml",
        "/robots.txt",
        "/openapi.json",
        "/api/nope",
    ] {
        for language in ["zh-CN,zh;q=0.9", "en-US,en;q=0.9"] {
            let headers = [
                ("accept", "text/html, */*;q=0.1"),
                ("accept-language", language),
            ];
            let direct = server.get(path, &headers).await;
            let reply = varnish.get(path, &headers).await;
            let what = format!("{path} {language}");
            assert_eq!(reply.status, direct.status, "{what}");
            assert_eq!(
                reply.header("content-language"),
                direct.header("content-language"),
                "{what}"
            );
            assert_eq!(reply.decoded(), direct.decoded(), "{what}");
        }
    }
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn a_languages_search_keeps_its_query() {
    let server = start_server().await;
    let varnish = Varnish::start(&server).await;
    let json = [("accept", "application/json")];
    let path = "/zh-hans/search?q=Count+Rows";
    let direct = server.get(path, &json).await;
    assert_eq!(direct.status, 200, "{direct:?}");
    let first = varnish.get(path, &json).await;
    assert_eq!((first.status, cache_state(&first)), (200, "MISS"));
    assert_eq!(first.body, direct.body);
    for respelled in [
        "/zh-hans/search?q=Count%20%20Rows",
        "/zh-hans/search?utm_source=mail&q=+Count+Rows+",
    ] {
        let reply = varnish.get(respelled, &json).await;
        assert_eq!(
            (reply.status, cache_state(&reply)),
            (200, "HIT"),
            "{respelled}"
        );
        assert_eq!(reply.body, first.body, "{respelled}");
    }
    // Another query is another object; no query is refserve's 400.
    let other = varnish.get("/zh-hans/search?q=select", &json).await;
    assert_eq!((other.status, cache_state(&other)), (200, "MISS"));
    assert_ne!(other.body, first.body);
    let none = varnish.get("/zh-hans/search?x=1", &json).await;
    assert_eq!(none.status, 400);
}

/// The VCL names the languages the site serves (`Accept-Language` is set
/// to each tag) and, for each, the regions where CLDR writes its language
/// in another script, as refserve's offers know them: a language added, or
/// CLDR's data moved, fails here until `deploy/varnish.vcl` follows.
#[test]
fn the_vcl_names_the_languages_and_regions_refserve_serves() {
    let vcl = include_str!("../../deploy/varnish.vcl");
    let start = vcl
        .find("sub refserve_accept_language {")
        .expect("the subroutine");
    let sub = &vcl[start..];
    let sub = &sub[..sub.find("\n}\n").expect("its end")];
    let set = "set req.http.Accept-Language = \"";
    let named: BTreeSet<&str> = sub
        .match_indices(set)
        .filter_map(|(at, _)| sub[at + set.len()..].split('"').next())
        .collect();
    let languages = &production().languages;
    let served: BTreeSet<&str> = languages.iter().map(|l| l.tag).collect();
    assert_eq!(named, served, "the tags the VCL chooses among");
    // The default, without a header, is the site's first language.
    let default = sub.rsplit(set).next().expect("the last one");
    assert!(default.starts_with(&format!("{}\";", languages[0].tag)));
    for language in languages {
        // The line that classifies its ranges: language, its script, the
        // regions where the language is written in another script.
        let prefix = format!("\"(?<=^|,){}(?!", language.language);
        let line = sub
            .lines()
            .find(|line| line.contains(&prefix))
            .unwrap_or_else(|| panic!("no line classifies {}", language.tag));
        let script = format!("(?:{}|zzzz)", language.script.to_ascii_lowercase());
        assert!(line.contains(&script), "{}: {script}", language.tag);
        let mut regions: Vec<String> = line
            .split_once("(?:-zzzz)?-(?:")
            .and_then(|(_, rest)| rest.split(')').next())
            .map(|list| list.split('|').map(str::to_string).collect())
            .unwrap_or_default();
        regions.sort();
        let mut expected: Vec<String> = language
            .region_scripts
            .split(',')
            .filter(|entry| !entry.is_empty() && !entry.ends_with(language.script))
            .map(|entry| entry[..3].trim().to_ascii_lowercase())
            .collect();
        expected.sort();
        assert_eq!(regions, expected, "{}", language.tag);
    }
}
