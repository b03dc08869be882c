//! Build stage 4: the table as the server stores it — every resource with
//! every body in every coding, and the complete header lists of its 200 and
//! its 304 — as plain data. The types are the vocabulary crate's
//! (`refserve_core::stored`); the stage that fills them is `stored/stage.rs`.

pub use refserve_core::stored::*;

mod stage;
pub use stage::table;
