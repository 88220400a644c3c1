//! The pure mapping from a raw `tools/call` result to a [`ToolResult`] (seed, "Result
//! mapping" and "Errors"). No I/O in this module.

use serde_json::Value;

/// What a tool call gives the model (seed's `ToolResult`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolResult {
    /// The text form of the result (seed, "Text (`data`)").
    pub data: String,
    /// `true` when the server set `isError: true` or the call failed.
    pub is_error: bool,
    /// Model-visible parts, present only when at least one block converts to media.
    pub model_output: Option<Vec<ModelPart>>,
}

/// One model-visible part (seed, "Model-visible parts").
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ModelPart {
    /// `{"type":"text","text":…}`
    Text {
        /// The text.
        text: String,
    },
}

impl ToolResult {
    /// The seed's failed-call result: `MCP tool "<raw_name>" failed: <message>`, `is_error`.
    pub fn failed(raw_name: &str, message: &str) -> Self {
        Self {
            data: format!("MCP tool \"{raw_name}\" failed: {message}"),
            is_error: true,
            model_output: None,
        }
    }
}

/// Maps a raw `tools/call` result object to a [`ToolResult`].
pub fn map_call_result(result: &Value) -> ToolResult {
    todo!("{result}")
}
