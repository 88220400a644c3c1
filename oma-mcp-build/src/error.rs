//! The error type of `oma-mcp-build`.

/// Everything that can go wrong in `oma-mcp-build`.
///
/// Every variant names what it is about (the tool, the pattern, the JSON pointer), so the
/// message alone says where to look and what to change.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A `consequential` entry is not a valid glob.
    #[error(
        "invalid `consequential` pattern \"{pattern}\": {source}; use an exact tool name or a \
         glob such as \"delete_*\""
    )]
    InvalidGlob {
        /// The pattern as given.
        pattern: String,
        /// Why globset rejected it.
        #[source]
        source: globset::Error,
    },

    /// Two MCP tools get the same framework tool name (`<prefix>_<name>`, `/` → `_`).
    #[error(
        "MCP tools \"{first}\" and \"{second}\" both get the tool name \"{normalized}\"; tool \
         names must be unique after the prefix and `/` → `_` rule, so ask the server to rename \
         one"
    )]
    ToolNameCollision {
        /// The framework name both tools map to.
        normalized: String,
        /// The first raw MCP name, in snapshot order.
        first: String,
        /// The second raw MCP name.
        second: String,
    },

    /// The code generated for a tool did not parse as Rust: a bug in oma-mcp-build.
    #[error(
        "internal error: the code generated for tool \"{tool}\" does not parse as Rust \
         ({reason}); please report this with the tool's descriptor"
    )]
    InvalidGeneratedCode {
        /// The raw MCP name of the tool (empty for module-level items).
        tool: String,
        /// The parser's message.
        reason: String,
    },

    /// An identifier computed for a tool is not a valid Rust identifier: a bug in
    /// oma-mcp-build.
    #[error(
        "internal error: \"{ident}\" computed for tool \"{tool}\" at {pointer} is not a valid \
         Rust identifier; please report this with the tool's descriptor"
    )]
    InvalidIdentifier {
        /// The raw MCP name of the tool.
        tool: String,
        /// JSON pointer into the tool descriptor the identifier was made for.
        pointer: String,
        /// The offending identifier.
        ident: String,
    },
}
