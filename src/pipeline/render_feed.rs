//! Build stage 2 (feed): `/changes.atom`, an Atom feed (RFC 4287) of the
//! methods' lifecycle marks, so that people and agents can follow the
//! reference: each `since`, `deprecated` and `removed` mark of a method
//! file is an entry, dated by its mark, newest first. Each language has
//! its own (`/zh-hans/changes.atom`), in the words of its chrome
//! (`feed_*`), linking its pages; the one at `/changes.atom` is the
//! source language's, linking the addresses without a language.
//!
//! An entry's id is the feed's address and a fragment naming the method
//! and the mark (`…/changes.atom#rand-deprecated`): it stays when the
//! mark's text is corrected. It links to the method's page, or for a
//! removed method to its successor's (to the index of methods when it has
//! none). The feed is `updated` on its newest mark's day; without marks
//! (an empty feed is valid) on the day of the build.

use crate::address::{Address, View};
use crate::content::{fill, Catalog, Date, Entry, Mark, Stage};
use crate::dates;
use crate::escape::html as escape;
use std::fmt::Write as _;

/// The feed in `catalog`'s language: every lifecycle mark of every
/// method, removed ones included, newest first (on one day: removals,
/// then deprecations, then arrivals, each by key); its addresses in the
/// pages of `links_in` (a language's segment), or without a language for
/// `None` (the feed at `/changes.atom`).
pub(crate) fn changes(catalog: &Catalog, links_in: Option<&str>) -> String {
    let words = &catalog.language.chrome;
    let at = |address: Address<'_>| address.localized(links_in).to_string();
    // Each entry of the feed: a method's mark.
    let mut changes: Vec<(&Entry, Stage, &Mark)> = (catalog.entries.iter())
        .chain(&catalog.removed)
        .flat_map(|entry| entry.marks().map(move |(stage, mark)| (entry, stage, mark)))
        .collect();
    changes.sort_by(|(a, a_stage, a_mark), (b, b_stage, b_mark)| {
        let order = |stage: &Stage| Stage::ALL.iter().position(|s| s == stage);
        (b_mark.date, order(b_stage))
            .cmp(&(a_mark.date, order(a_stage)))
            .then_with(|| a.key.cmp(&b.key))
    });
    let base = escape(&catalog.base_url);
    let title = escape(&fill(&words.feed_name, &[("title", &catalog.site.title)]));
    let author = escape(&catalog.site.title);
    let feed = at(Address::Feed);
    let updated = timestamp(changes.first().map_or_else(
        || dates::day(catalog.last_modified),
        |(_, _, mark)| mark.date,
    ));
    let mut xml = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n\
         <feed xmlns=\"http://www.w3.org/2005/Atom\">\n\
         <title>{title}</title>\n\
         <subtitle>{subtitle}</subtitle>\n\
         <id>{base}{feed}</id>\n\
         <link rel=\"self\" type=\"application/atom+xml\" href=\"{base}{feed}\"/>\n\
         <link rel=\"alternate\" type=\"text/html\" href=\"{base}{home}\"/>\n\
         <updated>{updated}</updated>\n\
         <author><name>{author}</name></author>\n",
        subtitle = escape(&words.feed_subtitle),
        home = at(Address::Home(View::Page)),
    );
    // One `<entry>` a mark: its title, id, link, day and a sentence saying
    // what changed and what to use instead.
    for (entry, stage, mark) in changes {
        let key = entry.key.as_str();
        let date = mark.date.to_string();
        let instead = |otherwise: &str| match &mark.successor {
            Some(successor) => fill(&words.feed_instead, &[("successor", successor)]),
            None => otherwise.to_string(),
        };
        let page_of = |key: &str| at(Address::Method(key, View::Page));
        let (title, summary, link) = match stage {
            Stage::Since => (
                &words.feed_since_title,
                fill(&words.feed_since, &[]),
                page_of(key),
            ),
            Stage::Deprecated => (
                &words.feed_deprecated_title,
                fill(&words.feed_deprecated, &[("instead", &instead(""))]),
                page_of(key),
            ),
            Stage::Removed => (
                &words.feed_removed_title,
                fill(
                    &words.feed_removed,
                    &[("instead", &instead(&words.feed_no_successor))],
                ),
                match &mark.successor {
                    Some(successor) => page_of(successor.as_str()),
                    None => at(Address::Methods(View::Page)),
                },
            ),
        };
        let said = |text: &str| {
            escape(&fill(
                text,
                &[("key", key), ("version", &mark.version), ("date", &date)],
            ))
        };
        let _ = write!(
            xml,
            "<entry>\n<title>{}</title>\n<id>{base}{feed}#{key}-{}</id>\n\
             <link rel=\"alternate\" type=\"text/html\" href=\"{base}{link}\"/>\n\
             <updated>{}</updated>\n<summary>{}</summary>\n</entry>\n",
            said(title),
            stage.field(),
            timestamp(mark.date),
            said(&summary),
        );
    }
    xml.push_str("</feed>\n");
    xml
}

/// The start of `day` as an Atom date (RFC 3339, UTC).
fn timestamp(day: Date) -> String {
    format!("{day}T00:00:00Z")
}
