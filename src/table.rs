//! The production table: the one `include!` of the code build.rs generated
//! from `content/` — the stored table, borrowing every body from the
//! binary, and its `phf` indices — made into the server's
//! [`Table`](refserve_server::table::Table) on first use.
//!
//! The types are the server's (`refserve_server::table`, re-exported here)
//! and the pipeline's (`refserve_core::stored`).

pub use refserve_server::table::*;
use std::sync::LazyLock;

mod generated {
    #![allow(missing_docs, clippy::unreadable_literal)]
    use refserve_core::mcp::{StoredAnswer, StoredHit, StoredMcp};
    use refserve_core::negotiate::{Coding, MediaType};
    use refserve_core::search::{Field, Posting};
    use refserve_core::stored::{
        Header, StoredDictionary, StoredRepresentation, StoredResource, StoredVariant, Table,
    };
    use std::borrow::Cow;
    include!(concat!(env!("OUT_DIR"), "/table.rs"));
}

/// The table build.rs wrote into the binary.
pub fn production() -> &'static Table {
    static TABLE: LazyLock<Table> = LazyLock::new(|| {
        Table::with_perfect_index(&generated::STORED, &generated::PATHS, &generated::ERROR_IDS)
            .expect("build.rs writes valid header values")
    });
    &TABLE
}

#[cfg(test)]
mod tests;
