//! What `/mcp` answers from, as the pipeline stores it: the types and
//! constants are the vocabulary crate's (`refserve_core::mcp`), filled by
//! `render_mcp.rs`.

pub use refserve_core::mcp::*;
