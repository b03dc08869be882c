//! Renders every response body from `content/`, precompresses each one and
//! emits the `phf` table the server looks responses up in.
//!
//! The stages live in `src/build/`, one file each: load and validate
//! (`content.rs`), render (`render_json.rs`) and assemble (`site.rs`),
//! choose the compression dictionary (`dictionary.rs`), compress
//! (`compress.rs`), emit (`emit.rs`). Errors name the file and field.

#[path = "src/build/compress.rs"]
mod compress;
#[path = "src/build/content.rs"]
mod content;
#[path = "src/build/dictionary.rs"]
mod dictionary;
#[path = "src/build/emit.rs"]
mod emit;
#[path = "src/errors.rs"]
#[allow(dead_code)]
mod errors;
#[path = "src/headers.rs"]
#[allow(dead_code)]
mod headers;
#[path = "src/build/highlight.rs"]
mod highlight;
#[path = "src/negotiate/mod.rs"]
#[allow(dead_code)]
mod negotiate;
#[path = "src/build/render_crawlers.rs"]
mod render_crawlers;
#[path = "src/build/render_html.rs"]
mod render_html;
#[path = "src/build/render_icon.rs"]
mod render_icon;
#[path = "src/build/render_json.rs"]
mod render_json;
#[path = "src/build/render_markdown.rs"]
mod render_markdown;
#[path = "src/build/render_openapi.rs"]
mod render_openapi;
#[path = "src/build/site.rs"]
mod site;

use std::path::PathBuf;

/// Where the server links to when `REFSERVE_BASE_URL` is not set: itself.
const DEFAULT_BASE_URL: &str = "http://127.0.0.1:8080";

fn main() {
    for path in [
        "build.rs",
        "content",
        "src/build",
        "src/errors.rs",
        "src/negotiate",
    ] {
        println!("cargo::rerun-if-changed={path}");
    }
    println!("cargo::rerun-if-env-changed=REFSERVE_BASE_URL");
    println!("cargo::rerun-if-env-changed=SOURCE_DATE_EPOCH");
    if let Err(message) = run() {
        eprintln!("error: {message}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").map_err(|e| e.to_string())?);
    let base_url =
        std::env::var("REFSERVE_BASE_URL").unwrap_or_else(|_| DEFAULT_BASE_URL.to_string());
    let base_url = content::base_url(&base_url).map_err(|e| e.to_string())?;
    let epoch = match std::env::var("SOURCE_DATE_EPOCH") {
        Ok(value) => Some(value.trim().parse::<u64>().map_err(|_| {
            format!("SOURCE_DATE_EPOCH: `{value}` is not a whole number of seconds")
        })?),
        Err(_) => None,
    };

    let catalog = content::load(&root, base_url, epoch).map_err(|e| e.to_string())?;
    let mut pages = site::resources(&catalog);
    let mut errors = site::errors(&catalog).map_err(|e| e.to_string())?;
    let dictionary = dictionary::attach(&mut pages, &mut errors);
    let code = emit::table(&out_dir, &catalog, &pages, &errors, dictionary.as_ref())
        .map_err(|e| format!("writing OUT_DIR: {e}"))?;
    std::fs::write(out_dir.join("table.rs"), code)
        .map_err(|e| format!("writing OUT_DIR/table.rs: {e}"))?;
    Ok(())
}
