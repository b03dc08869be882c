//! What `refserve translations` says and does: per language, the methods
//! translated, outdated (and which fields) and missing; and `--mark`,
//! which writes the source's fingerprints into translation files once
//! they are up to date (`content/fingerprint.rs`).

use crate::content::{self, Editions, Status};
use std::fmt::Write as _;
use std::path::Path;

/// Per language but the source's: a line of counts, then the outdated and
/// the missing methods by key.
pub fn report(editions: &Editions) -> String {
    let mut text = String::new();
    for catalog in &editions.catalogs[1..] {
        let (mut current, mut outdated, mut missing) = (Vec::new(), Vec::new(), Vec::new());
        for entry in &catalog.entries {
            match &entry.translation {
                Status::Current | Status::Source => current.push(entry.key.as_str()),
                Status::Outdated(fields) => {
                    outdated.push(format!("{} ({})", entry.key, fields.join(", ")));
                }
                Status::Untranslated => missing.push(entry.key.as_str()),
            }
        }
        let language = &catalog.language;
        let _ = writeln!(
            text,
            "{} ({}): {} translated, {} outdated, {} missing",
            language.tag,
            language.name,
            current.len(),
            outdated.len(),
            missing.len()
        );
        if !outdated.is_empty() {
            let _ = writeln!(text, "  outdated: {}", outdated.join(", "));
        }
        if !missing.is_empty() {
            let _ = writeln!(text, "  missing: {}", missing.join(", "));
        }
    }
    if editions.catalogs.len() == 1 {
        text.push_str(
            "no translations: a language is a folder content/<tag>/ with a language.json\n",
        );
    }
    text
}

/// Write the source's fingerprints into the translations of `language`
/// (a tag, any case) in `dir` under `root`: those of `keys`, or every
/// translated method without. The files written, as `dir/…`.
pub fn mark(
    root: &Path,
    dir: &str,
    editions: &Editions,
    language: &str,
    keys: &[String],
) -> Result<Vec<String>, String> {
    let catalog = editions
        .catalogs
        .iter()
        .skip(1)
        .find(|c| c.language.tag.eq_ignore_ascii_case(language))
        .ok_or_else(|| {
            let tags: Vec<&str> = editions.catalogs[1..]
                .iter()
                .map(|c| c.language.tag.as_str())
                .collect();
            format!(
                "`{language}` is not a translation; there are: {}",
                tags.join(", ")
            )
        })?;
    let segment = &catalog.language.segment;
    let source = editions.source();
    let chosen: Vec<&str> = if keys.is_empty() {
        catalog
            .entries
            .iter()
            .filter(|e| e.translation != Status::Untranslated)
            .map(|e| e.key.as_str())
            .collect()
    } else {
        keys.iter().map(String::as_str).collect()
    };
    let mut written = Vec::new();
    for key in chosen {
        let entry = source
            .entry(key)
            .ok_or_else(|| format!("`{key}` is not a method"))?;
        let file = format!("{dir}/{segment}/methods/{key}.md");
        let path = root.join(&file);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("{file}: cannot read: {e} (is `{key}` translated?)"))?;
        let marked = content::mark(&file, &text, entry).map_err(|errors| errors.to_string())?;
        if marked != text {
            std::fs::write(&path, marked).map_err(|e| format!("{file}: cannot write: {e}"))?;
            written.push(file);
        }
    }
    Ok(written)
}
