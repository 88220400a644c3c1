//! [`ProtocolError`]: the server sent something oma-mcp cannot use.

/// The server sent something oma-mcp cannot use: a response of the wrong shape, a `tools/list`
/// cursor seen before, a message nested too deep to parse, a tool's JSON Schema that does not
/// compile, or two tools that get one name. This is the server's bug: retrying the same
/// request against the same server fails the same way; report it to the server's authors, or
/// pin another version of the server.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProtocolError {
    /// A response had the wrong shape for its method (for example a `tools/list` result
    /// without a `tools` array; a single entry of it that is not a tool object is only left
    /// out, see [`McpClient::invalid_tools`](crate::McpClient::invalid_tools)).
    #[error("the MCP server `{command}` sent an invalid `{method}` response: {reason}")]
    #[non_exhaustive]
    InvalidResponse {
        /// The server's command line.
        command: String,
        /// The JSON-RPC method whose response is invalid.
        method: String,
        /// What is wrong, with the JSON pointer where there is one.
        reason: String,
    },

    /// Paging a list (`tools/list`, `prompts/list`, `resources/list`,
    /// `resources/templates/list`) returned a cursor it had returned before; stopped instead
    /// of looping.
    #[error(
        "the MCP server `{command}` repeated the {method} cursor \"{cursor}\"; stopped paging \
         instead of looping forever (this is a server bug)"
    )]
    #[non_exhaustive]
    RepeatedCursor {
        /// The list method.
        method: String,
        /// The cursor seen twice.
        cursor: String,
        /// The server's command line.
        command: String,
    },

    /// The server sent a JSON message nested deeper than `serde_json`'s recursion limit
    /// (128 levels), which is not parsed (a deeper parse could exhaust the stack). Like
    /// [`RequestError::MessageTooLarge`](super::RequestError::MessageTooLarge) when the `id`
    /// cannot be read, every request pending at that moment fails with this error (the
    /// message's `id` cannot be read); the session goes on with the next line.
    #[error(
        "the MCP server sent a message nested deeper than {limit} levels, which oma-mcp does \
         not parse; the answer is lost (report the server's deeply nested output to its authors)"
    )]
    #[non_exhaustive]
    MessageTooDeep {
        /// The nesting limit (128, `serde_json`'s).
        limit: usize,
    },

    /// A tool's JSON Schema cannot be compiled for validation (see [`crate::validate`]): it is
    /// not valid for its dialect's meta-schema (e.g. a property named `type`
    /// declared as `"type": "object"`), or a `$ref` does not resolve locally.
    #[error(
        "the JSON Schema of tool \"{tool}\" is invalid at {pointer}: {reason}; local validation \
         is skipped for it"
    )]
    #[non_exhaustive]
    InvalidSchema {
        /// The tool whose schema it is.
        tool: String,
        /// The JSON pointer of the offending part in the schema, `/` for the root.
        pointer: String,
        /// What is wrong, as the `jsonschema` crate words it.
        reason: String,
    },

    /// Two tools of one server normalize to the same name (open-multi-agent's `docs/mcp.md`,
    /// "Tool names"): the reference implementation's message, character for character.
    #[error(transparent)]
    NameCollision(#[from] oma_mcp_core::NameCollision),
}
