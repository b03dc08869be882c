//! The table a server answers from: one for its life in production, the
//! latest render in `refserve dev` ([`Tables`]).
//!
//! The table's types are the vocabulary crate's (`refserve_core::table`,
//! re-exported here): the pipeline fills them, the server reads them as
//! they are.

pub use refserve_core::table::*;
use std::sync::{Arc, PoisonError, RwLock};

/// The table a server answers from: fixed for its life in production,
/// replaced whole by `refserve dev` after every render.
#[derive(Debug, Clone)]
pub enum Tables {
    /// One table for ever.
    Fixed(&'static Table),
    /// The latest table; a request keeps the one it began with.
    Swappable(Arc<RwLock<Arc<Table>>>),
}

/// The table one request is answered from.
#[derive(Debug)]
pub enum Current {
    /// A fixed table.
    Fixed(&'static Table),
    /// A swappable table as it was when the request began.
    Shared(Arc<Table>),
}

impl Tables {
    /// The table to answer a request from.
    pub fn current(&self) -> Current {
        match self {
            Tables::Fixed(table) => Current::Fixed(table),
            Tables::Swappable(latest) => Current::Shared(Arc::clone(
                &latest.read().unwrap_or_else(PoisonError::into_inner),
            )),
        }
    }

    /// Serve `table` from now on (a fixed table stays as it is).
    pub fn replace(&self, table: Table) {
        if let Tables::Swappable(latest) = self {
            *latest.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(table);
        }
    }
}

impl std::ops::Deref for Current {
    type Target = Table;

    fn deref(&self) -> &Table {
        match self {
            Current::Fixed(table) => table,
            Current::Shared(table) => table,
        }
    }
}
