//! The production table: the stored form build.rs wrote from `content/`,
//! included in the binary and read back on first use, every body borrowed
//! from the binary, with the `phf` perfect hash of its paths.
//!
//! The types are the vocabulary crate's (`refserve_core::table`, with the
//! server's handle on them, re-exported here).

pub use refserve_server::table::*;
use std::sync::LazyLock;

/// The table's stored form ([`Table::to_bytes`]).
static STORED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/table.bin"));

mod generated {
    #![allow(clippy::unreadable_literal)]
    include!(concat!(env!("OUT_DIR"), "/table.rs"));
}

/// The table build.rs wrote into the binary.
pub fn production() -> &'static Table {
    static TABLE: LazyLock<Table> = LazyLock::new(|| {
        Table::from_static(STORED, Some(&generated::PATHS))
            .expect("build.rs stores a valid table (emit.rs checks it)")
    });
    &TABLE
}

#[cfg(test)]
mod tests;
