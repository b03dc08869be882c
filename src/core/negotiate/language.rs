//! `Accept-Language` (RFC 9110 §12.5.4): which of the server's languages a
//! request gets, by RFC 4647 lookup over what a tag means rather than how
//! it is spelt.
//!
//! A range reaches an offer of its language *and script*, the script filled
//! in by CLDR's likely subtags where the range leaves it out: `zh-CN`,
//! `zh-SG` and `zh` are Simplified Chinese (Hans), `zh-TW`, `zh-HK` and
//! `zh-MO` Traditional (Hant). Lookup truncates a range from its end until
//! it names something served (`zh-Hans-CN`, `zh-Hans`, `zh`); a range is
//! read here as far as it names a language, script and region (variants,
//! extensions and private use dropped, as truncation drops them), and since
//! all its truncations that keep its script mean the same language and
//! script, they are tried at once. The truncation that would change the
//! script (`zh-TW` to `zh`, Traditional to Simplified) is never taken. The
//! region only decides between offers of the same language and script.
//!
//! The pipeline (`refserve-pipeline`'s `languages.rs`) reads and maximizes
//! the server's tags at build time, with ICU4X, and asks it besides the
//! likely script of each offer's language in every region, keeping the
//! regions where it differs from the language's own (for `zh`: TW, HK, MO and a dozen more, Hant). On the
//! request path [`negotiate_language`] only compares bytes: a range's
//! script is the one it names, else its region's among its offers', else
//! its language's. ICU is never asked there.
//!
//! What it costs, measured in a release build with offers `[en, zh-Hans]`
//! (instructions per call counted by callgrind over 10,000 calls:
//! `instructions_per_call` below): `en-US,en;q=0.9` about 320 and
//! `zh-CN,zh;q=0.9,en;q=0.8` about 390 (the scripts of 3 of `zh`'s regions
//! compared), as the first range, read by hand up to its comma, reaches an
//! offer at full weight and the rest of the line is not read;
//! `de-DE,de;q=0.9` about 800, every range read, most of it `list.rs`
//! reading `de;q=0.9` (some 400 instructions a `;q=`);
//! `zh-TW,zh;q=0.8,en-US;q=0.5,en;q=0.3` about 2,200. No call allocates.

use super::list::{members, Quality, DEFAULT_QUALITY};

/// At most this many language ranges of a request are read; later ones
/// are ignored (a browser sends a handful).
pub const MAX_LANGUAGE_RANGES: usize = 16;

/// At most this many offers are negotiated among; later ones are ignored.
pub const MAX_LANGUAGE_OFFERS: usize = 64;

/// A language the server offers, as the pipeline stores it in the table:
/// its tag as written, the language, script and region it means after
/// CLDR's likely subtags (`zh-Hans` is `zh`, `Hans`, `CN`), and the likely
/// script of its language in each region (`zh-TW` is Hant), which is all
/// a range needs of CLDR.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Language {
    /// The BCP 47 tag as written, as `Content-Language` sends it: `en`,
    /// `zh-Hans`.
    pub tag: &'static str,
    /// Its language subtag, lowercase: `en`, `zh`.
    pub language: &'static str,
    /// The script it is written in, explicit or likely: `Latn`, `Hans`.
    pub script: &'static str,
    /// Its region, explicit or likely: `US`, `CN`.
    pub region: &'static str,
    /// The likely script of its language alone, which a range of the
    /// language gets unless it names a script or a region of
    /// `region_scripts`: `Latn`, `Hans` (for a `zh-Hant` offer too).
    pub language_script: &'static str,
    /// The regions where its language is likely written in another script
    /// than `language_script`, each with that script, in order of region:
    /// the region (two uppercase letters and a space, or three digits), a
    /// space and the script, 8 bytes, joined by commas, so that entry `i`
    /// starts at byte `9 * i`. `"AU  Hant,…,HK  Hant,…,TW  Hant,…"` for
    /// `zh`, empty for `en`.
    pub region_scripts: &'static str,
}

impl Language {
    /// The script a range of this offer's language is likely written in,
    /// by CLDR, when it names no script: that of `region` (2 or 3 bytes,
    /// any case) if it names one with a script of its own, else its
    /// language's.
    pub fn likely_script(&self, region: Option<&[u8]>) -> &'static [u8] {
        let language_script = self.language_script.as_bytes();
        let Some(region) = region else {
            return language_script;
        };
        // The region as the entries spell it (a range's is 2 or 3 bytes).
        let mut key = [b' '; 3];
        for (k, b) in key.iter_mut().zip(region) {
            *k = b.to_ascii_uppercase();
        }
        // The entries are in order of region: read up to the key's place.
        let entries = self.region_scripts.as_bytes().chunks(REGION_SCRIPT + 1);
        entries
            .map_while(|entry| Some((entry.get(..3)?, entry.get(4..REGION_SCRIPT)?)))
            .take_while(|&(named, _)| named <= &key[..])
            .find_map(|(named, script)| (named == key).then_some(script))
            .unwrap_or(language_script)
    }
}

/// The bytes of an entry of [`Language::region_scripts`], the comma after
/// it aside.
const REGION_SCRIPT: usize = 8;

/// Choose a language (RFC 9110 §12.5.4, RFC 4647 §3.4 lookup): the index
/// into `offered` of the language the request's `Accept-Language` lines
/// choose.
///
/// `lines` are the values of the request's `Accept-Language` lines (none
/// when the header is absent); `offered` lists the languages available, in
/// the server's order of preference, `offered[0]` the default.
///
/// Ranges are taken by weight, ties in the order written; a range of
/// weight 0 is dropped. The first that reaches an offer wins: `*` the
/// first offer no range of weight 0 reaches, a language range the offers
/// of its language and script (module docs), the first of them unless the
/// range names the region of another. No header, a malformed one, or one
/// whose ranges reach no offer, gets the default: never "not acceptable"
/// (0 also when nothing is offered).
pub fn negotiate_language<F>(lines: F, offered: &[Language]) -> usize
where
    F: IntoIterator,
    F::Item: AsRef<[u8]>,
{
    let offered = &offered[..offered.len().min(MAX_LANGUAGE_OFFERS)];
    // Ranges are weighed as they are read, none sorted or kept: the first
    // of the highest weight that reaches an offer is the one lookup in
    // weight order reaches first. A range no heavier than the best so far
    // is passed over unread.
    let mut chosen: Option<Choice> = None;
    // The heaviest `*`, the first of equals.
    let mut wildcard: Option<Choice> = None;
    // The offers a range of weight 0 reaches, which `*` does not reach.
    let mut excluded: u64 = 0;
    let mut position = 0;
    let mut lines = lines.into_iter();
    let Some(first) = lines.next() else {
        return 0;
    };
    // Most often the first range, of full weight, reaches an offer and
    // nothing else need be read: up to its comma, unless a `;` comes first,
    // it is the first member as `members` reads it (a name followed by
    // anything else is no range). If it reaches none, it is not read again.
    let line = first.as_ref();
    let end = line
        .iter()
        .position(|&b| b == b',' || b == b';')
        .unwrap_or(line.len());
    let mut read_first = false;
    if line.get(end) != Some(&b';') {
        if let Some(range) = line.get(..end).and_then(Range::read) {
            let offers = range.reach(offered);
            if offers != 0 {
                return offers.trailing_zeros() as usize;
            }
            (read_first, position) = (true, 1);
        }
    }
    'lines: for (n, line) in std::iter::once(first).chain(lines).enumerate() {
        let mut line = line.as_ref();
        if n == 0 && read_first {
            line = line.get(end..).unwrap_or_default();
        }
        for member in members(line) {
            if !member.is_bare() {
                continue;
            }
            if position == MAX_LANGUAGE_RANGES {
                break 'lines;
            }
            let (range, quality) = (member.name, member.quality);
            position += 1;
            let heavier = |best: Option<Choice>| best.is_none_or(|b| quality > b.quality);
            if range == b"*" {
                if quality > 0 && heavier(wildcard) {
                    wildcard = Some(Choice {
                        quality,
                        position,
                        offer: 0,
                    });
                }
            } else if quality == 0 {
                excluded |= reach(range, offered);
            } else if heavier(chosen) {
                let offers = reach(range, offered);
                if offers == 0 {
                    continue;
                }
                let offer = offers.trailing_zeros() as usize;
                // Nothing later is heavier; only a `*` as heavy, before
                // it, could come first.
                if quality == DEFAULT_QUALITY && heavier(wildcard) {
                    return offer;
                }
                chosen = Some(Choice {
                    quality,
                    position,
                    offer,
                });
            }
        }
    }
    let fallback = chosen.map_or(0, |c| c.offer);
    match (wildcard, chosen) {
        (Some(w), Some(c)) if (c.quality, w.position) > (w.quality, c.position) => c.offer,
        (Some(_), _) => (0..offered.len())
            .find(|&i| excluded & (1 << i) == 0)
            .unwrap_or(fallback),
        (None, _) => fallback,
    }
}

/// A range that reaches an offer, or a `*`.
#[derive(Clone, Copy)]
struct Choice {
    /// Its weight.
    quality: Quality,
    /// Its place among the ranges read, from 1.
    position: usize,
    /// The offer it reaches (for `*`, found once every range is read).
    offer: usize,
}

/// The offers `range` reaches, as bits (bit `i` is `offered[i]`): those of
/// its language and script, only those of its region if it names one that
/// some of them have. A range that is not one (RFC 4647 §2.1: letters,
/// then `-` and letters or digits, 1 to 8 each) reaches none.
fn reach(range: &[u8], offered: &[Language]) -> u64 {
    Range::read(range).map_or(0, |range| range.reach(offered))
}

impl Range<'_> {
    /// The offers this range reaches, as [`reach`] gives them.
    fn reach(&self, offered: &[Language]) -> u64 {
        // The range's script, once an offer of its language gives the likely
        // one (every offer of a language has its scripts by region).
        let mut script = self.script;
        let (mut offers, mut in_region): (u64, u64) = (0, 0);
        for (i, offer) in offered.iter().enumerate() {
            if !is_subtag(self.language, offer.language) {
                continue;
            }
            let written = *script.get_or_insert_with(|| offer.likely_script(self.region));
            if !is_subtag(written, offer.script) {
                continue;
            }
            offers |= 1 << i;
            if self.region.is_some_and(|r| is_subtag(r, offer.region)) {
                in_region |= 1 << i;
            }
        }
        if in_region != 0 {
            in_region
        } else {
            offers
        }
    }
}

/// Whether `bytes`, of a range, are `subtag`, an offer's, ignoring case.
/// An offer's subtags are letters and digits: setting bit 5 lowercases a
/// letter and leaves a digit, and only the same letter in either case, or
/// the same digit, sets to the same byte (besides control bytes, which a
/// range never has).
fn is_subtag(bytes: &[u8], subtag: &str) -> bool {
    let subtag = subtag.as_bytes();
    bytes.len() == subtag.len() && bytes.iter().zip(subtag).all(|(a, b)| a | 0x20 == b | 0x20)
}

/// A language range read as far as it names a language, a script and a
/// region, in that order (Unicode language identifier syntax, UTS #35):
/// the variants, extensions or private use after them do not change which
/// offer it reaches.
struct Range<'a> {
    /// 2 or 3 letters (the only language subtags CLDR has data for).
    language: &'a [u8],
    /// 4 letters, if named (`Zzzz`, the unknown script, is not one).
    script: Option<&'a [u8]>,
    /// 2 letters or 3 digits, if named.
    region: Option<&'a [u8]>,
}

impl<'a> Range<'a> {
    /// `range` read, if it is a language range (RFC 4647 §2.1: letters,
    /// then any number of `-` and letters or digits, 1 to 8 each) of such
    /// a language.
    fn read(range: &'a [u8]) -> Option<Range<'a>> {
        // The commonest shapes, `en` and `en-US`, at a glance.
        let letter = |b: u8| b.is_ascii_alphabetic();
        match *range {
            [a, b] if letter(a) && letter(b) => {
                return Some(Range {
                    language: range,
                    script: None,
                    region: None,
                })
            }
            [a, b, b'-', c, d] if letter(a) && letter(b) && letter(c) && letter(d) => {
                return Some(Range {
                    language: range.get(..2)?,
                    script: None,
                    region: range.get(3..),
                })
            }
            _ => {}
        }
        let mut subtags = range.split(|&b| b == b'-');
        let language = subtags.next().unwrap_or_default();
        if !(2..=3).contains(&language.len()) || !language.iter().all(u8::is_ascii_alphabetic) {
            return None;
        }
        let mut read = Range {
            language,
            script: None,
            region: None,
        };
        // Whether the subtags read so far are a language, script and region.
        let mut reading = true;
        for (i, text) in subtags.enumerate() {
            let length = text.len();
            if !(1..=8).contains(&length) || !text.iter().all(u8::is_ascii_alphanumeric) {
                return None;
            }
            let letters = text.iter().all(u8::is_ascii_alphabetic);
            if !reading {
            } else if i == 0 && length == 4 && letters {
                read.script = (!text.eq_ignore_ascii_case(b"Zzzz")).then_some(text);
            } else if read.region.is_none()
                && ((length == 2 && letters)
                    || (length == 3 && text.iter().all(u8::is_ascii_digit)))
            {
                read.region = Some(text);
            } else {
                reading = false;
            }
        }
        Some(read)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The offers of `tags`, as the pipeline makes them (`KNOWN`).
    fn offers(tags: &[&'static str]) -> Vec<Language> {
        tags.iter()
            .map(|tag| {
                *KNOWN
                    .iter()
                    .find(|known| known.tag == *tag)
                    .expect("an offer of KNOWN")
            })
            .collect()
    }

    /// What the pipeline's `languages::offered` makes of the tags the tests
    /// offer, written out (CLDR's likely subtags, as ICU4X 2 gives them).
    const KNOWN: &[Language] = &[
        offer("en", "en", "Latn", "US", "Latn", ""),
        offer("en-GB", "en", "Latn", "GB", "Latn", ""),
        offer("en-US", "en", "Latn", "US", "Latn", ""),
        offer("ja", "ja", "Jpan", "JP", "Jpan", ""),
        offer(
            "sr",
            "sr",
            "Cyrl",
            "RS",
            "Cyrl",
            "ME  Latn,RO  Latn,TR  Latn",
        ),
        offer("zh-Hans", "zh", "Hans", "CN", "Hans", ZH),
        offer("zh-Hans-CN", "zh", "Hans", "CN", "Hans", ZH),
        offer("zh-Hans-SG", "zh", "Hans", "SG", "Hans", ZH),
        offer("zh-Hant", "zh", "Hant", "TW", "Hans", ZH),
    ];

    /// The regions where Chinese is likely written in Traditional.
    const ZH: &str = "AU  Hant,BN  Hant,GB  Hant,GF  Hant,HK  Hant,ID  Hant,MO  Hant,\
        PA  Hant,PF  Hant,PH  Hant,SR  Hant,TH  Hant,TW  Hant,US  Hant,VN  Hant";

    const fn offer(
        tag: &'static str,
        language: &'static str,
        script: &'static str,
        region: &'static str,
        language_script: &'static str,
        region_scripts: &'static str,
    ) -> Language {
        Language {
            tag,
            language,
            script,
            region,
            language_script,
            region_scripts,
        }
    }

    /// The tag `header`, one line, chooses among `tags`.
    fn choose(header: &str, tags: &[&'static str]) -> &'static str {
        let offered = offers(tags);
        offered[negotiate_language([header.as_bytes()], &offered)].tag
    }

    const EN_ZH: &[&str] = &["en", "zh-Hans"];
    const EN_ZH_JA: &[&str] = &["en", "zh-Hans", "ja"];
    const EN_HANS_HANT: &[&str] = &["en", "zh-Hans", "zh-Hant"];

    #[test]
    fn simplified_chinese_is_reached_by_its_regions_and_scripts() {
        for header in [
            "zh-CN",
            "zh-SG",
            "zh-Hans-CN",
            "zh-Hans",
            "zh",
            "ZH-cn",
            "zh-hans-cn",
        ] {
            assert_eq!(choose(header, EN_ZH), "zh-Hans", "{header}");
            assert_eq!(choose(header, EN_ZH_JA), "zh-Hans", "{header}");
            assert_eq!(choose(header, EN_HANS_HANT), "zh-Hans", "{header}");
        }
    }

    #[test]
    fn traditional_chinese_is_not_simplified() {
        for header in [
            "zh-TW",
            "zh-HK",
            "zh-MO",
            "zh-Hant",
            "zh-Hant-TW",
            "zh-hant-hk",
        ] {
            assert_eq!(choose(header, EN_ZH), "en", "{header}");
            assert_eq!(choose(header, EN_ZH_JA), "en", "{header}");
            assert_eq!(choose(header, EN_HANS_HANT), "zh-Hant", "{header}");
        }
    }

    #[test]
    fn english_is_reached_by_any_region() {
        for header in [
            "en-US",
            "en-GB",
            "en",
            "EN-us",
            "en-Latn-US",
            "en-US-x-twain",
        ] {
            assert_eq!(choose(header, &["zh-Hans", "en"]), "en", "{header}");
        }
    }

    #[test]
    fn the_region_decides_between_offers_of_one_script() {
        let english = &["en-US", "en-GB"];
        assert_eq!(choose("en-GB", english), "en-GB");
        assert_eq!(choose("en-US", english), "en-US");
        assert_eq!(choose("en-AU", english), "en-US");
        assert_eq!(choose("en", english), "en-US");
        assert_eq!(choose("en", &["en-GB", "en-US"]), "en-GB");
        assert_eq!(
            choose("zh-SG", &["en", "zh-Hans-CN", "zh-Hans-SG"]),
            "zh-Hans-SG"
        );
    }

    #[test]
    fn the_script_a_range_names_outweighs_its_region() {
        assert_eq!(choose("zh-Hant-CN", EN_HANS_HANT), "zh-Hant");
        assert_eq!(choose("zh-Hans-TW", EN_HANS_HANT), "zh-Hans");
        assert_eq!(choose("sr-Latn", &["en", "sr"]), "en");
        assert_eq!(choose("sr-RS", &["en", "sr"]), "sr");
    }

    #[test]
    fn the_likely_script_is_read_from_region_scripts() {
        let [hans, sr] = ["zh-Hans", "sr"].map(|tag| offers(&[tag])[0]);
        assert_eq!(hans.likely_script(Some(b"tw")), b"Hant");
        assert_eq!(hans.likely_script(Some(b"CN")), b"Hans");
        assert_eq!(hans.likely_script(Some(b"419")), b"Hans");
        assert_eq!(hans.likely_script(Some(b"ZZ")), b"Hans");
        assert_eq!(hans.likely_script(None), b"Hans");
        assert_eq!(sr.likely_script(Some(b"ME")), b"Latn");
        // Entries of 8 bytes, in order.
        for offer in KNOWN.iter().filter(|o| !o.region_scripts.is_empty()) {
            let entries: Vec<&str> = offer.region_scripts.split(',').collect();
            assert!(entries.iter().all(|e| e.len() == REGION_SCRIPT));
            assert!(entries.windows(2).all(|pair| pair[0] < pair[1]));
        }
        // Three digits are read as two letters are.
        let made_up = Language {
            region_scripts: "001 Latn,419 Cyrl,AU  Hant,TW  Hant",
            ..hans
        };
        let scripts = [&b"001"[..], b"419", b"au", b"TW", b"AA", b"999", b"ZZ"]
            .map(|region| made_up.likely_script(Some(region)));
        let expected = [
            &b"Latn"[..],
            b"Cyrl",
            b"Hant",
            b"Hant",
            b"Hans",
            b"Hans",
            b"Hans",
        ];
        assert_eq!(scripts, expected);
    }

    #[test]
    fn chinese_ranges_reach_the_offer_of_their_script() {
        let offered = ["en", "zh-Hans", "ja", "zh-Hant"];
        for (range, expected) in [
            ("zh-CN", "zh-Hans"),
            ("zh-TW", "zh-Hant"),
            ("ZH-sg", "zh-Hans"),
            ("zh-HK", "zh-Hant"),
            ("zh-hk", "zh-Hant"),
            ("zh-MY", "zh-Hans"),
            ("zh-MO", "zh-Hant"),
            ("zh", "zh-Hans"),
            ("zh-US", "zh-Hant"),
            ("zh-419", "zh-Hans"),
            ("zh-Hant-CN", "zh-Hant"),
            ("zh-Hans-TW", "zh-Hans"),
            ("zh-Hans-HK-x-private", "zh-Hans"),
        ] {
            assert_eq!(choose(range, &offered), expected, "{range}");
        }
        for range in ["zh-TW", "zh-HK", "zh-MO", "zh-Hant-CN"] {
            assert_eq!(choose(range, EN_ZH), "en", "{range}");
        }
        for range in ["zh-SG", "zh-CN", "zh", "zh-Hans-TW"] {
            assert_eq!(choose(range, EN_ZH), "zh-Hans", "{range}");
        }
        // Only Chinese offered, Traditional first: `zh` is Simplified all the same.
        assert_eq!(choose("zh", &["zh-Hant", "zh-Hans"]), "zh-Hans");
        assert_eq!(choose("zh-TW", &["zh-Hans", "zh-Hant"]), "zh-Hant");
    }

    #[test]
    fn weights_order_ranges_and_ties_keep_their_place() {
        // A lighter exact match does not beat a heavier range (Werkzeug's bug).
        assert_eq!(choose("zh;q=0.9, en;q=0.8", &["en", "zh-Hans"]), "zh-Hans");
        assert_eq!(choose("en;q=0.5, zh", EN_ZH), "zh-Hans");
        assert_eq!(choose("zh;q=0.5, en;q=0.5", EN_ZH), "zh-Hans");
        assert_eq!(choose("ja;q=0.5, zh;q=0.5", EN_ZH_JA), "ja");
        assert_eq!(choose("ja, zh", EN_ZH_JA), "ja");
        assert_eq!(choose("de, ja;q=0.2, zh;q=0.3", EN_ZH_JA), "zh-Hans");
        // The whole tag is compared, not only its first subtag (negotiator's).
        assert_eq!(choose("zh-TW, zh-CN;q=0.5", EN_HANS_HANT), "zh-Hant");
        assert_eq!(choose("zh-TW;q=0.5, zh-CN", EN_HANS_HANT), "zh-Hans");
    }

    #[test]
    fn the_first_range_is_read_as_any_other() {
        for header in [
            "zh,en",
            "zh;q=0.5,en",
            "zh;q=1,en",
            " zh,en",
            "zh ,en",
            "zh\t, en",
            "zh;,en",
            "zh=1,en",
            "zh-TW,,zh",
            ",zh",
            "*,zh",
            "de,zh",
            "zh-;q=0.5,en",
        ] {
            for tags in [EN_ZH, &["zh-Hant", "zh-Hans"][..]] {
                let offered = offers(tags);
                assert_eq!(
                    negotiate_language([header.as_bytes()], &offered),
                    oracle_language(header, &offered),
                    "{header:?} for {tags:?}"
                );
            }
        }
    }

    #[test]
    fn weight_zero_drops_a_range() {
        assert_eq!(choose("zh;q=0", EN_ZH), "en");
        assert_eq!(choose("zh-CN;q=0, ja", EN_ZH_JA), "ja");
        assert_eq!(choose("en;q=0", EN_ZH), "en");
        assert_eq!(choose("zh;q=0.000, ja;q=0.001", EN_ZH_JA), "ja");
    }

    #[test]
    fn the_wildcard_is_the_first_offer_not_ruled_out() {
        assert_eq!(choose("*", EN_ZH), "en");
        assert_eq!(choose("*;q=0.5, en;q=0", EN_ZH), "zh-Hans");
        assert_eq!(choose("en;q=0, *", EN_ZH), "zh-Hans");
        assert_eq!(choose("en;q=0, zh;q=0, *", EN_ZH_JA), "ja");
        assert_eq!(choose("en;q=0, zh;q=0, *", EN_ZH), "en");
        assert_eq!(choose("en;q=0, zh;q=0, *, ja;q=0.1", EN_ZH), "en");
        assert_eq!(choose("*, zh", EN_ZH), "en");
        assert_eq!(choose("zh, *", EN_ZH), "zh-Hans");
        assert_eq!(choose("*;q=0.5, zh", EN_ZH), "zh-Hans");
        assert_eq!(choose("*, zh;q=0.5", &["zh-Hans", "en"]), "zh-Hans");
        assert_eq!(choose("*;q=0", &["zh-Hans", "en"]), "zh-Hans");
        assert_eq!(choose("zh-TW;q=0, *", EN_ZH), "en");
        assert_eq!(choose("en-GB;q=0, *", &["en-GB", "en-US"]), "en-US");
        // Ruled out by a range of weight 0, the wildcard leaves the next range.
        assert_eq!(choose("*, ja;q=0.5, en;q=0, zh;q=0", EN_ZH_JA), "ja");
        assert_eq!(choose("*, en;q=0, zh;q=0", EN_ZH), "en");
    }

    #[test]
    fn malformed_headers_get_the_default() {
        let commas = ",".repeat(10 * 1024);
        let ranges = "de-DE, ".repeat(2000);
        for header in [
            "",
            " ",
            ";;;",
            "zh-;q=x",
            "zh-",
            "zh--CN",
            "-zh",
            "zh;q=2",
            "zh;q=0.5x",
            "zh;level=1",
            "zh;q=1;ext",
            "zh_CN",
            "zh-CN\u{e9}",
            "\u{4e2d}\u{6587}",
            "zh-abcdefghi",
            "abcdefghi",
            "zh-*-CN",
            "*-CN",
            "x-zh",
            "i-klingon",
            commas.as_str(),
            ranges.as_str(),
        ] {
            for tags in [EN_ZH, EN_ZH_JA, EN_HANS_HANT] {
                assert_eq!(choose(header, tags), "en", "{header:.40}");
            }
        }
        assert_eq!(choose(&"zh-TW;q=0.5, ".repeat(2000), EN_ZH), "en");
        let offered = offers(EN_ZH);
        assert_eq!(negotiate_language(None::<&[u8]>, &offered), 0);
        assert_eq!(negotiate_language([&[0xff, 0xfe][..]], &offered), 0);
        assert_eq!(negotiate_language([b"zh"], &[]), 0);
    }

    #[test]
    fn ranges_past_the_limit_are_ignored() {
        let mut header = "de, ".repeat(MAX_LANGUAGE_RANGES - 1);
        assert_eq!(choose(&format!("{header}zh"), EN_ZH), "zh-Hans");
        header.push_str("fr, ");
        assert_eq!(choose(&format!("{header}zh"), EN_ZH), "en");
    }

    #[test]
    fn the_lines_of_a_field_are_one_list() {
        let offered = offers(EN_ZH_JA);
        let choose = |lines: &[&str]| {
            offered[negotiate_language(lines.iter().map(|l| l.as_bytes()), &offered)].tag
        };
        assert_eq!(choose(&["de-DE", "zh-CN"]), "zh-Hans");
        assert_eq!(choose(&["en;q=0.5", "ja"]), "ja");
        assert_eq!(choose(&["ja;q=0.5", "", "zh;q=0.6"]), "zh-Hans");
        assert_eq!(choose(&["*;q=0.5", "en;q=0, zh;q=0"]), "ja");
        assert_eq!(choose(&[";;;", "zh-TW", "ja;q=0.1"]), "ja");
        // Owned lines, as a header map's values are read.
        let owned = vec![b"de".to_vec(), b"ja;q=0.1".to_vec()];
        assert_eq!(negotiate_language(owned, &offered), 2);
    }

    #[test]
    fn browsers_get_their_language() {
        for (browser, header, en_zh, with_hant) in [
            ("Chrome", "en-US,en;q=0.9", "en", "en"),
            ("Chrome zh-CN", "zh-CN,zh;q=0.9", "zh-Hans", "zh-Hans"),
            (
                "Chrome zh-CN, English added",
                "zh-CN,zh;q=0.9,en;q=0.8,en-GB;q=0.7,en-US;q=0.6",
                "zh-Hans",
                "zh-Hans",
            ),
            ("Chrome de-DE", "de-DE,de;q=0.9", "en", "en"),
            (
                "Chrome de-DE, Chinese added",
                "de-DE,de;q=0.9,zh-TW;q=0.8,zh;q=0.7",
                "zh-Hans",
                "zh-Hant",
            ),
            ("Firefox", "en-US,en;q=0.5", "en", "en"),
            (
                "Firefox zh-CN",
                "zh-CN,zh;q=0.8,zh-TW;q=0.7,zh-HK;q=0.5,en-US;q=0.3,en;q=0.2",
                "zh-Hans",
                "zh-Hans",
            ),
            (
                "Firefox zh-TW",
                "zh-TW,zh;q=0.8,en-US;q=0.5,en;q=0.3",
                "zh-Hans",
                "zh-Hant",
            ),
            ("Safari zh-CN", "zh-CN,zh-Hans;q=0.9", "zh-Hans", "zh-Hans"),
            ("Safari zh-TW", "zh-TW", "en", "zh-Hant"),
            ("Safari en-GB", "en-GB,en;q=0.9", "en", "en"),
            ("Safari zh-Hant", "zh-Hant-TW", "en", "zh-Hant"),
            ("Edge", "en-US,en;q=0.9,zh-CN;q=0.8", "en", "en"),
            (
                "Edge zh-HK",
                "zh-HK,zh;q=0.9,en;q=0.8",
                "zh-Hans",
                "zh-Hant",
            ),
            ("Edge ja", "ja,en-US;q=0.9,en;q=0.8", "en", "en"),
        ] {
            assert_eq!(choose(header, EN_ZH), en_zh, "{browser}: {header}");
            assert_eq!(
                choose(header, EN_HANS_HANT),
                with_hant,
                "{browser}: {header}"
            );
        }
        assert_eq!(choose("ja,en-US;q=0.9,en;q=0.8", EN_ZH_JA), "ja");
        assert_eq!(choose("en-US,en;q=0.9,ja;q=0.8", EN_ZH_JA), "en");
    }

    #[test]
    fn offers_survive_the_stored_form() {
        let offered = offers(EN_HANS_HANT);
        let stored = postcard::to_stdvec(&offered).expect("serializable");
        let stored: &'static [u8] = Box::leak(stored.into_boxed_slice());
        let read: Vec<Language> = postcard::from_bytes(stored).expect("deserializable");
        assert_eq!(read, offered);
    }

    /// Lookup as RFC 4647 §3.4 states it, allocation and all: the ranges
    /// sorted by weight (stably), weight 0 dropped, the first that reaches
    /// an offer winning; what a range reaches is `reach`'s.
    fn oracle_language(header: &str, offered: &[Language]) -> usize {
        let mut ranges: Vec<(&[u8], Quality)> = header
            .split(',')
            .flat_map(|m| members(m.as_bytes()))
            .filter(|m| m.is_bare())
            .map(|m| (m.name, m.quality))
            .take(MAX_LANGUAGE_RANGES)
            .collect();
        let excluded = ranges
            .iter()
            .filter(|&&(range, q)| q == 0 && range != b"*")
            .fold(0, |excluded, &(range, _)| excluded | reach(range, offered));
        ranges.sort_by_key(|&(_, q)| std::cmp::Reverse(q));
        ranges
            .iter()
            .filter(|&&(_, q)| q > 0)
            .find_map(|&(range, _)| {
                let offers = match range {
                    b"*" => (0..offered.len()).fold(0u64, |o, i| o | 1 << i) & !excluded,
                    _ => reach(range, offered),
                };
                (offers != 0).then_some(offers.trailing_zeros() as usize)
            })
            .unwrap_or(0)
    }

    fn header_strategy() -> impl Strategy<Value = String> {
        let range = prop_oneof![
            Just("en"),
            Just("en-US"),
            Just("EN-gb"),
            Just("zh"),
            Just("zh-CN"),
            Just("zh-TW"),
            Just("zh-HK"),
            Just("zh-Hans"),
            Just("zh-Hant-TW"),
            Just("ja"),
            Just("ja-JP"),
            Just("de-DE"),
            Just("*"),
            Just("zh-"),
            Just(""),
        ];
        let weight = prop_oneof![
            Just(""),
            Just(";q=1"),
            Just(";q=0.9"),
            Just(";q=0.5"),
            Just(";q=0.5"),
            Just(";q=0.1"),
            Just(";q=0"),
            Just(";q=x"),
            Just(";a=b"),
        ];
        let member = (range, weight, "[ ]{0,1}").prop_map(|(r, w, ows)| format!("{ows}{r}{w}"));
        prop::collection::vec(member, 0..20).prop_map(|members| members.join(","))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        #[test]
        fn languages_agree_with_lookup_in_weight_order(header in header_strategy()) {
            for tags in [EN_ZH, EN_ZH_JA, EN_HANS_HANT] {
                let offered = offers(tags);
                prop_assert_eq!(
                    negotiate_language([header.as_bytes()], &offered),
                    oracle_language(&header, &offered),
                    "{:?} for {:?}", header, tags
                );
            }
        }

        #[test]
        fn any_bytes_choose_an_offer(bytes in prop::collection::vec(any::<u8>(), 0..96)) {
            for tags in [EN_ZH, EN_ZH_JA, EN_HANS_HANT] {
                let offered = offers(tags);
                prop_assert!(negotiate_language([bytes.as_slice()], &offered) < offered.len());
            }
        }
    }

    /// What a call costs in instructions, in a release build: its test
    /// binary run under `valgrind --tool=callgrind
    /// --toggle-collect='*language*calls_of*'` with `--ignored --exact
    /// negotiate::language::tests::instructions_per_call` and the header in
    /// `LANGUAGE_HEADER`; the instructions collected, over 10,000.
    #[test]
    #[ignore = "a measurement: run it under callgrind"]
    fn instructions_per_call() {
        let header = std::env::var("LANGUAGE_HEADER").unwrap_or_else(|_| "en-US,en;q=0.9".into());
        let offered = offers(EN_ZH);
        let chosen = calls_of(header.as_bytes(), &offered, 10_000);
        println!("{header}: {}", offered[chosen].tag);
    }

    /// `negotiate_language` called `calls` times over `header`.
    #[inline(never)]
    fn calls_of(header: &[u8], offered: &[Language], calls: u32) -> usize {
        let mut chosen = 0;
        for _ in 0..calls {
            let line = std::hint::black_box(header);
            chosen = negotiate_language([line], std::hint::black_box(offered));
        }
        chosen
    }

    /// What a call costs, in a release build: `cargo test --release -p
    /// refserve-core -- --ignored --nocapture cost_per_call`. Printed, not
    /// asserted.
    #[test]
    #[ignore = "a measurement: run it in a release build"]
    fn cost_per_call() {
        let offered = offers(EN_ZH);
        for header in [
            "en-US,en;q=0.9",
            "zh-CN,zh;q=0.9,en;q=0.8",
            "de-DE,de;q=0.9",
            "zh-TW,zh;q=0.8,en-US;q=0.5,en;q=0.3",
        ] {
            const CALLS: u32 = 1_000_000;
            let start = std::time::Instant::now();
            let mut sum = 0;
            for _ in 0..CALLS {
                let line = std::hint::black_box(header.as_bytes());
                sum += negotiate_language([line], std::hint::black_box(&offered));
            }
            let elapsed = start.elapsed();
            std::hint::black_box(sum);
            println!(
                "{header:40} {:6.1} ns",
                elapsed.as_nanos() as f64 / f64::from(CALLS)
            );
        }
    }
}
