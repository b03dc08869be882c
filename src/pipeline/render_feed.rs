//! Build stage 2 (feed): `/changes.atom`, an Atom feed (RFC 4287) of the
//! methods' lifecycle marks, so that people and agents can follow the
//! reference: each `since`, `deprecated` and `removed` mark of a method
//! file is an entry, dated by its mark, newest first.
//!
//! An entry's id is the feed's address and a fragment naming the method
//! and the mark (`…/changes.atom#rand-deprecated`): it stays when the
//! mark's text is corrected. It links to the method's page, or for a
//! removed method to its successor's (to the index of methods when it has
//! none). The feed is `updated` on its newest mark's day; without marks
//! (an empty feed is valid) on the day of the build.

use crate::address::{Address, View};
use crate::content::{Catalog, Date, Entry, Mark, Stage};
use crate::dates;
use crate::escape::html as escape;
use crate::render_markdown::page_of;
use std::fmt::Write as _;

/// `/changes.atom`: every lifecycle mark of every method, removed ones
/// included, newest first (on one day: removals, then deprecations, then
/// arrivals, each by key).
pub(crate) fn changes(catalog: &Catalog) -> String {
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
    let title = escape(&catalog.site.title);
    let updated = timestamp(changes.first().map_or_else(
        || dates::day(catalog.last_modified),
        |(_, _, mark)| mark.date,
    ));
    let mut xml = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n\
         <feed xmlns=\"http://www.w3.org/2005/Atom\">\n\
         <title>{title}: changes</title>\n\
         <subtitle>The methods that came into the library, were deprecated or were removed, \
         with their versions and days, newest first.</subtitle>\n\
         <id>{feed}</id>\n\
         <link rel=\"self\" type=\"application/atom+xml\" href=\"{feed}\"/>\n\
         <link rel=\"alternate\" type=\"text/html\" href=\"{home}\"/>\n\
         <updated>{updated}</updated>\n\
         <author><name>{title}</name></author>\n",
        feed = Address::Feed.url(&base),
        home = Address::Home(View::Page).url(&base),
    );
    // One `<entry>` a mark: its title, id, link, day and a sentence saying
    // what changed and what to use instead.
    for (entry, stage, mark) in changes {
        let key = &entry.key;
        let version = escape(&mark.version);
        let instead = |text: &str| match &mark.successor {
            Some(successor) => format!("; use {successor} instead"),
            None => text.to_string(),
        };
        let (title, summary, link) = match stage {
            Stage::Since => (
                format!("{key} available since {version}"),
                format!(
                    "The method {key} is available since version {version} of the library ({}).",
                    mark.date
                ),
                page_of(&entry.key),
            ),
            Stage::Deprecated => (
                format!("{key} deprecated in {version}"),
                format!(
                    "The method {key} is deprecated since version {version} ({}){}.",
                    mark.date,
                    instead("")
                ),
                page_of(&entry.key),
            ),
            Stage::Removed => (
                format!("{key} removed in {version}"),
                format!(
                    "The method {key} was removed in version {version} ({}){}.",
                    mark.date,
                    instead("; it has no successor")
                ),
                match &mark.successor {
                    Some(successor) => page_of(successor),
                    None => Address::Methods(View::Page).to_string(),
                },
            ),
        };
        let _ = write!(
            xml,
            "<entry>\n<title>{title}</title>\n<id>{base}{feed}#{key}-{}</id>\n\
             <link rel=\"alternate\" type=\"text/html\" href=\"{base}{link}\"/>\n\
             <updated>{}</updated>\n<summary>{summary}</summary>\n</entry>\n",
            stage.field(),
            timestamp(mark.date),
            feed = Address::Feed,
        );
    }
    xml.push_str("</feed>\n");
    xml
}

/// The start of `day` as an Atom date (RFC 3339, UTC).
fn timestamp(day: Date) -> String {
    format!("{day}T00:00:00Z")
}
