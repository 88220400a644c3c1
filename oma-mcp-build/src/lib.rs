//! Build-time side of oma-mcp: snapshot a pinned MCP server and generate typed Rust tools,
//! the way `prost-build` does for protobuf.
//!
//! 1. `oma-mcp.toml` pins each server ([`manifest`]).
//! 2. Its `tools/list` is kept in a committed, canonical snapshot
//!    ([`oma_mcp_runtime::snapshot`]).
//! 3. `build.rs` generates an argument struct and an [`oma_mcp_runtime::McpTool`] marker
//!    type per tool from the snapshot, offline and deterministically ([`builder`],
//!    [`codegen`]).
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), oma_mcp_build::Report> {
//!     oma_mcp_build::configure().compile()?;
//!     Ok(())
//! }
//! ```
//!
//! The `oma-mcp` command-line tool (feature `cli`) takes snapshots, generates code, lists and
//! calls tools.

pub mod builder;
pub mod codegen;
pub mod error;
pub mod manifest;
#[cfg(feature = "cli")]
pub mod snapshot_format;
pub mod write;

pub use builder::{Builder, Compiled, compile_manifest, configure};
pub use codegen::{
    ConsequentialMatcher, ConsequentialPolicy, GenerateOptions, Generated, PinnedConnection,
    Warning, generate,
};
pub use error::Error;
pub use manifest::{Manifest, ServerPin};
/// An error to return from a build script's `main`: its `Debug` prints the error and its
/// causes on one line (`Error: <message>: <cause>: …`), where [`Error`]'s derived `Debug`
/// would print the variant's fields. Re-exported from [`oma_mcp_runtime::error::Report`].
pub use oma_mcp_runtime::error::Report;
pub use write::{WriteSnapshot, write_if_changed};
