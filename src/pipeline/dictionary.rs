//! Build stage 2b: the compression dictionary (RFC 9842) a browser keeps for
//! the HTML pages, and the pages' link to it.
//!
//! A browser that fetches the dictionary sends its SHA-256 in
//! `Available-Dictionary` on its next navigations, and the server answers
//! with a body compressed against it (`dcb`, `dcz`) when that is smaller.
//!
//! The dictionary is the longest HTML page of each language as served,
//! one after the other. Measured against the alternatives (the numbers are
//! in `benches/README.md`), one method page shares most of what every other
//! page is made of: the stylesheet, the header, the list of methods, the
//! section scaffolding and the markup of highlighted examples. `/` shares
//! less; more pages, or all of them, save a few kilobytes more over a whole
//! visit but cost a short one more than they save. A page of another
//! language shares its markup but not its words, so each language brings
//! its own page.
//!
//! The dictionary is its own resource at `/dictionaries/<name>`, `<name>` being
//! the start of its SHA-256 in hex, so it can be cached for a year: a new
//! build that changes it gives it a new address. Every HTML page names it
//! in a `Link` header (`rel="compression-dictionary"`; Chrome fetches it
//! when idle), so the pages' bodies do not depend on the dictionary's
//! address and the dictionary can be one of them.

use crate::address::{Address, Localized};
use crate::media::MediaType;
use crate::site::{Body, Resource};
use crate::table::ErrorBodies;
use indexmap::IndexMap;
use sha2::{Digest, Sha256};

/// Which requests may use the dictionary: navigations to any page of the site.
const MATCH: &str = "/*";

/// The request destinations the dictionary is for (RFC 9842 §2.1.2).
const MATCH_DEST: &str = "(\"document\")";

/// `Cache-Control` of the dictionary: its address changes with its bytes.
const CACHE_CONTROL: &str = "public, max-age=31536000, immutable";

/// The dictionary the HTML pages are compressed against.
#[derive(Debug)]
pub(crate) struct Dictionary {
    /// Its bytes, as the browser stores them (the identity body).
    pub bytes: Vec<u8>,
    /// SHA-256 of [`Dictionary::bytes`].
    pub hash: [u8; 32],
    /// Where it is served: `/dictionaries/` and the first 8 bytes of the
    /// hash in hex, so a new dictionary gets a new address.
    pub path: String,
}

/// Choose the dictionary among `resources`, serve it, link every HTML page
/// in `resources` and `errors` to it, and mark the 200 pages to be
/// compressed against it. `None` when there is no HTML page.
pub(crate) fn attach(
    resources: &mut Vec<Resource>,
    errors: &mut [ErrorBodies<Resource>],
) -> Option<Dictionary> {
    // The longest page of each language, in the order the languages come.
    let mut longest = IndexMap::<Option<&str>, &[u8]>::new();
    for resource in resources
        .iter()
        .filter(|r| r.error.is_none() && r.languages == 1)
    {
        let Some(body) = resource
            .representations
            .iter()
            .find(|b| b.media == MediaType::HTML)
        else {
            continue;
        };
        let language = Localized::parse(&resource.id).and_then(|l| l.language);
        let page = longest.entry(language).or_default();
        if body.bytes.len() > page.len() {
            *page = &body.bytes;
        }
    }
    if longest.is_empty() {
        return None;
    }
    let bytes = longest.values().copied().collect::<Vec<_>>().concat();
    let hash: [u8; 32] = Sha256::digest(&bytes).into();
    let name: String = hash[..8].iter().map(|b| format!("{b:02x}")).collect();
    let path = Address::Dictionary(&name).to_string();
    let link = format!("<{path}>; rel=\"compression-dictionary\"");
    for resource in resources.iter_mut() {
        // A removed method's page is an error's: it names the dictionary,
        // but is not compressed against it.
        let document = resource.error.is_none();
        if let Some(body) = html(resource) {
            body.headers.push(("link", link.clone()));
            body.with_dictionary = document;
        }
    }
    for error in errors.iter_mut().flat_map(ErrorBodies::iter_mut) {
        if let Some(body) = html(error) {
            body.headers.push(("link", link.clone()));
        }
    }
    // No `id`: the hash names the dictionary, and a browser then sends no
    // `Dictionary-ID` for the server to read and to vary on.
    let use_as_dictionary = format!("match=\"{MATCH}\", match-dest={MATCH_DEST}");
    resources.push(Resource {
        id: path.clone(),
        representations: vec![Body {
            headers: vec![("use-as-dictionary", use_as_dictionary)],
            ..Body::new(MediaType::OCTET_STREAM, bytes.clone())
        }],
        cache_control: CACHE_CONTROL,
        error: None,
        languages: 1,
    });
    Some(Dictionary { bytes, hash, path })
}

/// The HTML representation of `resource`, if it has one, to change.
fn html(resource: &mut Resource) -> Option<&mut Body> {
    resource
        .representations
        .iter_mut()
        .find(|body| body.media == MediaType::HTML)
}
