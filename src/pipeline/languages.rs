//! The languages the site offers, as the server negotiates among them
//! (`refserve_core::negotiate::Language`): each tag read and maximized with
//! CLDR's likely subtags, and its language's likely script in every region,
//! by ICU4X, at build time. The server's request path only compares the
//! bytes stored here; ICU is a dependency of the pipeline alone.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Mutex, PoisonError};

use icu_locale::subtags::{self, Region, Variants};
use icu_locale::{LanguageIdentifier, LocaleExpander};
use refserve_core::negotiate::Language;

/// The offer `tag` names, with its likely script and region filled in,
/// and its language's likely script by region (at build time, with
/// ICU4X); the error names the tag, which must be a Unicode language
/// identifier whose script and region CLDR knows.
pub(crate) fn offered(tag: &str) -> Result<Language, String> {
    let mut id = LanguageIdentifier::try_from_str(tag)
        .map_err(|e| format!("language tag {tag:?} is not a language identifier: {e}"))?;
    LocaleExpander::new_common().maximize(&mut id);
    let (Some(script), Some(region)) = (id.script, id.region) else {
        return Err(format!(
            "language tag {tag:?}: CLDR's likely subtags give it no script and region"
        ));
    };
    let (language_script, region_scripts) = scripts_by_region(id.language).ok_or_else(|| {
        format!("language tag {tag:?}: CLDR's likely subtags give its language no script")
    })?;
    Ok(Language {
        tag: interned(tag),
        language: interned(id.language.as_str()),
        script: interned(script.as_str()),
        region: interned(region.as_str()),
        language_script,
        region_scripts,
    })
}

/// The likely script of `language` (`Language::language_script`) and the
/// regions where it differs (`Language::region_scripts`), from ICU4X's
/// compiled CLDR data: every region asked about, each two letters `AA` to
/// `ZZ` and each three digits `000` to `999` (those CLDR does not know
/// give the language's script). Worked out once per language and kept, so
/// a pipeline run again leaks nothing more; `None` if CLDR gives the
/// language no script.
fn scripts_by_region(language: subtags::Language) -> Option<(&'static str, &'static str)> {
    static KNOWN: Mutex<BTreeMap<subtags::Language, (&'static str, &'static str)>> =
        Mutex::new(BTreeMap::new());
    if let Some(&known) = KNOWN
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&language)
    {
        return Some(known);
    }
    let expander = LocaleExpander::new_common();
    let script = |region: Option<Region>| {
        let mut id = LanguageIdentifier {
            language,
            script: None,
            region,
            variants: Variants::new(),
        };
        expander.maximize(&mut id);
        id.script
    };
    let language_script = script(None)?;
    let letters = (b'A'..=b'Z').flat_map(|a| (b'A'..=b'Z').map(move |b| vec![a, b]));
    let digits = (0..1000).map(|n: u32| format!("{n:03}").into_bytes());
    let mut region_scripts = Vec::new();
    for code in letters.chain(digits) {
        let Ok(region) = Region::try_from_utf8(&code) else {
            continue;
        };
        if let Some(script) = script(Some(region)).filter(|&s| s != language_script) {
            region_scripts.push(format!("{:3} {}", region.as_str(), script.as_str()));
        }
    }
    region_scripts.sort();
    let known = (
        interned(language_script.as_str()),
        interned(&region_scripts.join(",")),
    );
    KNOWN
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(language, known);
    Some(known)
}

/// `text` as a `&'static str`: each distinct one is leaked once, so a
/// pipeline run again (`refserve dev`) leaks nothing more.
fn interned(text: &str) -> &'static str {
    static INTERNED: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let mut interned = INTERNED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(&known) = interned.get(text) {
        return known;
    }
    let leaked: &'static str = Box::leak(text.into());
    interned.insert(leaked);
    leaked
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn offers_are_maximized() {
        let [en, hans, hant] = [offered("en"), offered("zh-Hans"), offered("ZH-tw")];
        let text = |l: Result<Language, String>| l.map(|l| [l.tag, l.language, l.script, l.region]);
        assert_eq!(text(en), Ok(["en", "en", "Latn", "US"]));
        assert_eq!(text(hans), Ok(["zh-Hans", "zh", "Hans", "CN"]));
        assert_eq!(text(hant), Ok(["ZH-tw", "zh", "Hant", "TW"]));
        for bad in ["", "e", "en_US", "en-US-u-ca-gregory", "zh-", "*"] {
            let error = offered(bad).expect_err(bad);
            assert!(error.contains(&format!("{bad:?}")), "{error}");
        }
    }

    #[test]
    fn scripts_by_region_are_worked_out_when_offered() {
        let [hans, hant] = ["zh-Hans", "zh-Hant"].map(|tag| offered(tag).expect("a known tag"));
        for chinese in [hans, hant] {
            assert_eq!(chinese.language_script, "Hans");
            let regions: Vec<&str> = chinese.region_scripts.split(',').collect();
            for traditional in ["HK  Hant", "MO  Hant", "TW  Hant"] {
                assert!(regions.contains(&traditional), "{regions:?}");
            }
            for simplified in ["CN", "SG", "MY"] {
                assert!(!regions.iter().any(|r| r.starts_with(simplified)));
            }
        }
        assert_eq!((hans.script, hant.script), ("Hans", "Hant"));
        let [en, en_gb, ja, sr] =
            ["en", "en-GB", "ja", "sr-Latn"].map(|tag| offered(tag).expect("a known tag"));
        assert_eq!((en.language_script, en.region_scripts), ("Latn", ""));
        assert_eq!(en_gb.region_scripts, "");
        assert_eq!((ja.language_script, ja.region_scripts), ("Jpan", ""));
        assert_eq!(sr.language_script, "Cyrl");
        assert!(
            sr.region_scripts.contains("ME  Latn"),
            "{}",
            sr.region_scripts
        );
        assert_eq!(hans.likely_script(Some(b"tw")), b"Hant");
        assert_eq!(hans.likely_script(Some(b"CN")), b"Hans");
        assert_eq!(hans.likely_script(Some(b"419")), b"Hans");
        assert_eq!(hans.likely_script(Some(b"ZZ")), b"Hans");
        assert_eq!(hans.likely_script(None), b"Hans");
        // Entries of 8 bytes, in order; three digits read as two letters are.
        for offer in [hans, sr] {
            let entries: Vec<&str> = offer.region_scripts.split(',').collect();
            assert!(entries.iter().all(|e| e.len() == 8));
            assert!(entries.windows(2).all(|pair| pair[0] < pair[1]));
        }
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
        // A language CLDR gives no script is not offered.
        assert!(offered("und").is_err());
    }

    /// The likely script of `language` in `region` (if any), as ICU4X
    /// gives it.
    fn icu_script(language: &str, region: Option<&str>) -> String {
        let tag = match region {
            Some(region) => format!("{language}-{region}"),
            None => language.to_string(),
        };
        let mut id = LanguageIdentifier::try_from_str(&tag).expect("a language identifier");
        LocaleExpander::new_common().maximize(&mut id);
        id.script.expect("a known language").as_str().to_string()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        #[test]
        fn offers_know_the_script_of_each_region_as_icu_does(
            tag in prop::sample::select(&[
                "en", "zh-Hans", "zh-Hant", "ja", "sr", "sr-Latn", "pa", "uz", "az",
                "ku", "yue", "ms", "ha", "es-419", "pt-PT",
            ][..]),
            region in prop_oneof![
                "[A-Za-z]{2}|[0-9]{3}|",
                prop::sample::select(&["TW", "hk", "ME", "PK", "IQ", "CN", "AF", "RU", "US", "419"][..])
                    .prop_map(String::from),
            ],
        ) {
            let offer = offered(tag).expect("a known tag");
            let region = (!region.is_empty()).then_some(region.as_str());
            let icu = icu_script(offer.language, region);
            prop_assert_eq!(
                offer.likely_script(region.map(str::as_bytes)),
                icu.as_bytes(),
                "{:?} in {:?}", tag, region
            );
        }
    }
}
