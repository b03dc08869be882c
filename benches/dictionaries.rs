//! The alternatives for the compression dictionary, measured: for each
//! candidate, the bytes of a reader's visit of `/` and every method page in
//! Chromium (the dictionary's own fetch included) when the method pages are
//! sent in dcb against it, next to the same visit in plain br.
//!
//!     cargo run --release --example dictionaries -- DIR
//!
//! where DIR holds `refserve export` (benches/sizes.sh --alternatives does
//! both). Brotli at quality 11 with one encoder setting (the build tries
//! four and keeps the smallest, so its bytes are a little lower).

use std::path::{Path, PathBuf};

fn main() {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: dictionaries DIR   (DIR: the output of `refserve export`)");
        std::process::exit(2);
    };
    let read = |name: &str| std::fs::read(dir.join(name)).expect("an exported file");
    let mut methods = method_pages(&dir);
    methods.sort_by_key(|(_, bytes)| std::cmp::Reverse(bytes.len()));
    let home = read("index.html");
    let home_br = brotli(&home, &[]).len();
    let plain: usize = home_br
        + methods
            .iter()
            .map(|(_, page)| brotli(page, &[]).len())
            .sum::<usize>();
    let concat = |n: usize| -> Vec<u8> {
        methods
            .iter()
            .take(n)
            .flat_map(|(_, page)| page.clone())
            .collect()
    };
    let candidates: Vec<(String, Vec<u8>, bool)> = vec![
        ("`/` (fetched anyway)".into(), home.clone(), false),
        ("`/api/`".into(), read("api/index.html"), true),
        (
            format!("the longest method page (`{}`)", methods[0].0),
            concat(1),
            true,
        ),
        ("the 3 longest method pages".into(), concat(3), true),
        ("the 6 longest method pages".into(), concat(6), true),
        (
            format!("all {} method pages", methods.len()),
            concat(methods.len()),
            true,
        ),
    ];
    println!("| Dictionary | bytes | br | method pages in dcb | visit | ÷ plain br |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (name, dictionary, fetched) in candidates {
        let dictionary_br = if fetched {
            brotli(&dictionary, &[]).len()
        } else {
            0
        };
        let pages: usize = methods
            .iter()
            .map(|(_, page)| {
                let dcb = 36 + brotli(page, &dictionary).len();
                dcb.min(brotli(page, &[]).len())
            })
            .sum();
        let visit = home_br + dictionary_br + pages;
        println!(
            "| {name} | {} | {dictionary_br} | {pages} | {visit} | {:.1}% |",
            dictionary.len(),
            100.0 * visit as f64 / plain as f64
        );
    }
    println!(
        "\nPlain br: / {home_br} + method pages {} = {plain} bytes.",
        plain - home_br
    );
}

/// Every method page's HTML (`api/<name>.html`), by name.
fn method_pages(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut pages: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.join("api"))
        .expect("an export's api/ directory")
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            path.extension().is_some_and(|e| e == "html") && !path.ends_with("index.html")
        })
        .map(|path| {
            let name = path
                .file_stem()
                .expect("a file name")
                .to_string_lossy()
                .into_owned();
            (name, std::fs::read(&path).expect("an exported page"))
        })
        .collect();
    pages.sort();
    pages
}

/// `body` in brotli at quality 11, with `dictionary` as history.
fn brotli(body: &[u8], dictionary: &[u8]) -> Vec<u8> {
    let params = brotli::enc::BrotliEncoderParams {
        quality: 11,
        lgwin: 22,
        size_hint: body.len(),
        ..Default::default()
    };
    let mut out = Vec::new();
    brotli::enc::BrotliCompressCustomIoCustomDict(
        &mut brotli::IoReaderWrapper(&mut &body[..]),
        &mut brotli::IoWriterWrapper(&mut out),
        &mut [0; 4096],
        &mut [0; 4096],
        &params,
        brotli::enc::StandardAlloc::default(),
        &mut |_, _, _, _| (),
        dictionary,
        std::io::Error::from(std::io::ErrorKind::UnexpectedEof),
    )
    .expect("compressing into memory cannot fail");
    out
}
