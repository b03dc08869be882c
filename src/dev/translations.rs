//! `refserve translations`: the pipeline's report of each translation,
//! printed, or its `--mark` run on the content directory.

use refserve_pipeline::{content, dates, translations};
use refserve_server::config::TranslationsConfig;
use std::path::Path;

/// Load `config.content`, then print what each translation holds, or
/// mark the translations `config.mark` names and print the files written.
pub fn run(config: &TranslationsConfig) -> Result<(), String> {
    let content = std::fs::canonicalize(&config.content)
        .map_err(|e| format!("cannot use {}: {e}", config.content.display()))?;
    let (root, dir) = split(&content)?;
    let date = dates::newest(root, &[dir]);
    let editions = content::load(root, dir, refserve_pipeline::DEFAULT_BASE_URL.into(), date)
        .map_err(|errors| errors.to_string())?;
    match &config.mark {
        None => print!("{}", translations::report(&editions)),
        Some(language) => {
            let written = translations::mark(root, dir, &editions, language, &config.keys)?;
            for file in &written {
                println!("marked {file}");
            }
            if written.is_empty() {
                println!("nothing to mark: the fingerprints were already the source's");
            }
        }
    }
    Ok(())
}

/// The content directory (a canonical path) as a root and a name under
/// it, as the loader takes it.
fn split(content: &Path) -> Result<(&Path, &str), String> {
    match (
        content.parent(),
        content.file_name().and_then(|n| n.to_str()),
    ) {
        (Some(root), Some(name)) => Ok((root, name)),
        _ => Err(format!(
            "cannot use {} as the content directory",
            content.display()
        )),
    }
}
