//! Renders every response body from `content/`, precompresses each one and
//! writes the response table (`OUT_DIR/table.bin`) with the `phf` index of
//! its paths (`OUT_DIR/table.rs`).
//!
//! The stages are the pipeline crate in `src/pipeline/` (`refserve-pipeline`,
//! speaking the vocabulary of `src/core/`),
//! which `refserve dev` shares; this script reads the settings cargo and
//! the environment give it, runs the pipeline and writes `OUT_DIR`. Errors
//! name the file and field.

use refserve_pipeline::{content, dates, emit, Cache, CDN_MAX_AGE, DEFAULT_BASE_URL};
use std::path::{Path, PathBuf};

/// What the table is made from: this script reruns when one changes, and
/// the newest of them dates every resource.
const INPUTS: [&str; 4] = ["build.rs", "content", "src/pipeline", "src/core"];

fn main() {
    for path in INPUTS {
        println!("cargo::rerun-if-changed={path}");
    }
    for variable in [
        "REFSERVE_BASE_URL",
        "SOURCE_DATE_EPOCH",
        "REFSERVE_BUILD_CACHE",
        "REFSERVE_CDN_MAX_AGE",
    ] {
        println!("cargo::rerun-if-env-changed={variable}");
    }
    if let Err(message) = run() {
        // Content errors come one a line.
        for line in message.lines() {
            eprintln!("error: {line}");
        }
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").map_err(|e| e.to_string())?);
    let base_url =
        std::env::var("REFSERVE_BASE_URL").unwrap_or_else(|_| DEFAULT_BASE_URL.to_string());
    let base_url = content::base_url(&base_url).map_err(|e| e.to_string())?;
    // `Last-Modified`: as reproducible builds ask, or when the newest input
    // last changed (committed, or edited since).
    let last_modified =
        seconds("SOURCE_DATE_EPOCH")?.unwrap_or_else(|| dates::newest(&root, &INPUTS));

    let editions =
        content::load(&root, "content", base_url, last_modified).map_err(|e| e.to_string())?;
    // How long a CDN keeps a document (`CDN-Cache-Control`,
    // `Surrogate-Control`): a deploy purges what it changed.
    let cdn_max_age = seconds("REFSERVE_CDN_MAX_AGE")?.unwrap_or(CDN_MAX_AGE);
    let table = refserve_pipeline::build(&editions, cache(&root, &out_dir), cdn_max_age);
    emit::table(&out_dir, &table)
}

/// The whole number of seconds in the environment's `variable`, if set.
fn seconds(variable: &str) -> Result<Option<u64>, String> {
    let Ok(value) = std::env::var(variable) else {
        return Ok(None);
    };
    let seconds = value.trim().parse::<u64>();
    seconds
        .map(Some)
        .map_err(|_| format!("{variable}: `{value}` is not a whole number of seconds"))
}

/// The cache of compressed bodies: `REFSERVE_BUILD_CACHE` (`off`: none),
/// else `refserve-build-cache/` in the target directory, shared by every
/// profile. Its outputs depend on the encoders' versions, which
/// `Cargo.lock` pins: their entries there are the cache's salt.
fn cache(root: &Path, out_dir: &Path) -> Option<Cache> {
    let dir = match std::env::var_os("REFSERVE_BUILD_CACHE") {
        Some(value) if value == "off" => return None,
        Some(dir) => PathBuf::from(dir),
        // OUT_DIR is <target>/<profile>/build/<package>-<hash>/out.
        None => {
            let build = out_dir.ancestors().nth(2)?;
            if build.file_name()? != "build" {
                return None;
            }
            build.ancestors().nth(2)?.join("refserve-build-cache")
        }
    };
    let lock = std::fs::read_to_string(root.join("Cargo.lock")).unwrap_or_default();
    let salt = lock
        .split("[[package]]")
        .filter(|package| {
            ENCODERS
                .iter()
                .any(|name| package.contains(&format!("name = \"{name}\"\n")))
        })
        .collect::<String>()
        .into_bytes();
    Some(Cache { dir, salt })
}

/// The packages whose versions decide the compressed bytes.
const ENCODERS: [&str; 10] = [
    "alloc-no-stdlib",
    "brotli",
    "brotli-decompressor",
    "flate2",
    "structured-zstd",
    "zlib-rs",
    "zopfli",
    "zstd",
    "zstd-safe",
    "zstd-sys",
];
