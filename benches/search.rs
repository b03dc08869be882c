//! What a search costs by itself: a query cut into terms and ranked over
//! the production index (`refserve_server::search::{query_terms, rank}`),
//! with no HTTP or JSON around it, in nanoseconds per query, the best of
//! five rounds (the others waited on the machine); and the index's size.
//! `benches/mcp.sh` measures the whole request.
//!
//! ```sh
//! cargo run --release --example search
//! ```
//!
//! `search QUERY TIMES` runs the `QUERY`th query (from 0) `TIMES` times and
//! prints nothing: run under cachegrind with two counts, the difference
//! over their difference is the instructions of one search.

use refserve_server::search::{query_terms, rank};
use std::hint::black_box;
use std::time::Instant;

/// Each query, and what it exercises.
const QUERIES: [(&str, &str); 4] = [
    (
        "count the rows that match a condition",
        "six words, found as written",
    ),
    (
        "selct the avarage of a colum",
        "three typos, each read as its nearest words",
    ),
    (
        "ORDER BY created desc LIMIT [>]",
        "clause keys and an operator",
    ),
    ("kubernetes helm chart", "nothing found"),
];

/// Searches per round.
const SEARCHES: u32 = 20_000;

fn main() {
    let index = &refserve::table::production().mcp.index;
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|arg| arg.parse().expect("usage: search [QUERY TIMES]"))
        .collect();
    if let [query, times] = args[..] {
        let (query, _) = QUERIES[query];
        for _ in 0..times {
            let terms = query_terms(index, black_box(query));
            black_box(rank(index, &terms, 5));
        }
        return;
    }
    println!("| Query | what it exercises | ns per search (best of 5) |");
    println!("|---|---|--:|");
    for (query, what) in QUERIES {
        let best = (0..5)
            .map(|_| {
                let start = Instant::now();
                for _ in 0..SEARCHES {
                    let terms = query_terms(index, black_box(query));
                    black_box(rank(index, &terms, 5));
                }
                start.elapsed().as_nanos() / u128::from(SEARCHES)
            })
            .min()
            .expect("five rounds");
        println!("| `{query}` | {what} | {best} |");
    }
    let words: usize = index.spellings.iter().map(|s| s.word.len()).sum();
    let typos = index.spellings.iter().filter(|s| s.typos).count();
    let stems: usize = index.terms.iter().map(|t| t.stem.len()).sum();
    let postings: usize = index.terms.iter().map(|t| t.postings.len()).sum();
    println!(
        "\nThe index: {} terms ({} postings, {} bytes of stems), {} spellings ({} bytes of words; {} a typo may be read as), \
         {} neighbours ({} bytes).",
        index.terms.len(),
        postings,
        stems,
        index.spellings.len(),
        words,
        typos,
        index.neighbours.len(),
        index.neighbours.len() * std::mem::size_of::<refserve_core::search::typos::Neighbour>(),
    );
}
