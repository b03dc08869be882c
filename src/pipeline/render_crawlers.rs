//! Build stage 2 (crawlers): `/sitemap.xml` (sitemaps.org 0.9) and
//! `/robots.txt` (RFC 9309, with the Content Signals of
//! contentsignals.org).

use crate::content::{Catalog, ContentSignals};
use crate::dates;
use crate::render_json::documentation_url;
use std::fmt::Write as _;

/// Every HTML page, with absolute URLs and the content's date.
pub(crate) fn sitemap(catalog: &Catalog) -> String {
    let lastmod = dates::day(catalog.last_modified);
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    let base = &catalog.base_url;
    let methods = catalog
        .entries
        .iter()
        .map(|e| documentation_url(catalog, e));
    let pages = [format!("{base}/"), format!("{base}/api/")];
    for loc in pages.into_iter().chain(methods) {
        let _ = writeln!(
            xml,
            "  <url><loc>{}</loc><lastmod>{lastmod}</lastmod></url>",
            escape_xml(&loc)
        );
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
