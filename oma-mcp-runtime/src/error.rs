//! The one error type of `oma-mcp-runtime`.

use std::path::PathBuf;

/// Everything that can go wrong in `oma-mcp-runtime`.
///
/// Each variant carries what failed and where (tool name, server command, file path), and its
/// message says what to do about it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Two tools of one server normalize to the same name (seed, "Tool names").
    #[error(
        "MCP tools \"{first}\" and \"{second}\" both normalize to the tool name \"{normalized}\"; \
         tool names must be unique after the prefix and `/` → `_` rule, so ask the server to rename one"
    )]
    NameCollision {
        /// The normalized name both tools map to.
        normalized: String,
        /// The raw MCP name of the first tool (in list order).
        first: String,
        /// The raw MCP name of the second tool (in list order).
        second: String,
    },

    /// A snapshot file could not be read or written.
    #[error("cannot {action} snapshot {path}: {source}")]
    SnapshotIo {
        /// `read` or `write`.
        action: &'static str,
        /// The snapshot file.
        path: PathBuf,
        /// The underlying I/O error.
        #[source]
        source: std::io::Error,
    },

    /// A snapshot file is not valid JSON or not in a known shape.
    #[error("snapshot {path} is not valid: {reason}; regenerate it with `oma-mcp snapshot`")]
    SnapshotFormat {
        /// The snapshot file (or `<memory>` for in-memory input).
        path: PathBuf,
        /// What is wrong, with the JSON pointer where there is one.
        reason: String,
    },
}
