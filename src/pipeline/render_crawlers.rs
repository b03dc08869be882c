//! Build stage 2 (crawlers): `/sitemap.xml` (sitemaps.org 0.9) and
//! `/robots.txt` (RFC 9309, with the Content Signals of
//! contentsignals.org).

use crate::address::{Address, View};
use crate::content::{Catalog, ContentSignals, Editions};
use crate::dates;
use std::fmt::Write as _;

/// Every HTML page in each language it is written in, with absolute URLs
/// and the content's date; a page in more than one language lists its
/// versions (`xhtml:link`, hreflang, and `x-default`: the address that
/// negotiates), as Google reads them. A page a translation shows
/// untranslated is left out (its canonical page is the source's).
pub(crate) fn sitemap(editions: &Editions) -> String {
    let source = editions.source();
    let lastmod = dates::day(source.last_modified);
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\" \
         xmlns:xhtml=\"http://www.w3.org/1999/xhtml\">\n",
    );
    let base = &source.base_url;
    let every = editions.languages();
    let mut pages = vec![
        (Address::Home(View::Page), every.clone()),
        (Address::Methods(View::Page), every),
    ];
    for entry in &source.entries {
        pages.push((
            Address::Method(&entry.key, View::Page),
            editions.written_in(&entry.key),
        ));
    }
    for (address, languages) in pages {
        let mut versions = String::new();
        if languages.len() > 1 {
            for language in &languages {
                let _ = write!(
                    versions,
                    "<xhtml:link rel=\"alternate\" hreflang=\"{}\" href=\"{}\"/>",
                    language.tag,
                    escape_xml(&address.localized(Some(&language.segment)).url(base))
                );
            }
            let _ = write!(
                versions,
                "<xhtml:link rel=\"alternate\" hreflang=\"x-default\" href=\"{}\"/>",
                escape_xml(&address.localized(None).url(base))
            );
        }
        for language in &languages {
            let loc = address.localized(Some(&language.segment)).url(base);
            let _ = writeln!(
                xml,
                "  <url><loc>{}</loc><lastmod>{lastmod}</lastmod>{versions}</url>",
                escape_xml(&loc)
            );
        }
    }
    xml.push_str("</urlset>\n");
    xml
}

/// Everything may be crawled, with the content signals `site.json` states
/// (contentsignals.org: a `Content-Signal` line in the group it applies
/// to, each use `yes` or `no`); the sitemap is named.
pub(crate) fn robots(catalog: &Catalog) -> String {
    format!(
        "User-agent: *\n\
         # What may be done with this content once fetched (https://contentsignals.org/):\n\
         # search results, input to AI answers, training AI models.\n\
         Content-Signal: {}\n\
         Allow: /\n\nSitemap: {}/sitemap.xml\n",
        content_signal(&catalog.site.content_signals),
        catalog.base_url
    )
}

/// The value of the `Content-Signal` line: `search=yes, ai-input=yes,
/// ai-train=yes` (the loader refuses a `site.json` that states no use).
fn content_signal(signals: &ContentSignals) -> String {
    let pairs: Vec<String> = signals
        .stated()
        .iter()
        .map(|(label, allowed)| format!("{label}={}", if *allowed { "yes" } else { "no" }))
        .collect();
    pairs.join(", ")
}

fn escape_xml(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_content_signal_names_each_stated_use_in_the_policy_s_order() {
        let signals = |search, ai_input, ai_train| ContentSignals {
            search,
            ai_input,
            ai_train,
        };
        assert_eq!(
            content_signal(&ContentSignals::default()),
            "search=yes, ai-input=yes, ai-train=yes"
        );
        assert_eq!(
            content_signal(&signals(Some(true), None, Some(false))),
            "search=yes, ai-train=no"
        );
    }
}
