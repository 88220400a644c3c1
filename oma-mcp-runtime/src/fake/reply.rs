//! [`Reply`]: a fake handler's answer, and the `CallToolResult` it becomes.

use serde_json::{Value, json};

use crate::McpTool;

/// What a handler of [`FakeServer::on`](super::FakeServer::on) answers for tool `T`.
///
/// The fake checks the answer against the tool's pinned `outputSchema` before sending it:
/// a tool that declares one must answer with [`Output`](Self::Output) (or a
/// [`Result`](Self::Result) with `structuredContent`) that validates, or with an error.
#[non_exhaustive]
pub enum Reply<T: McpTool> {
    /// The typed output: `structuredContent` and, as servers do, its JSON text as the one text
    /// block. For FastMCP's wrapped form ([`McpTool::OUTPUT_WRAPPED`]) as FastMCP answers:
    /// `structuredContent` is `{"result": …}` and the text block the bare value (a string as
    /// itself, anything else as compact JSON).
    Output(T::Output),
    /// One text block (for a tool without an `outputSchema`).
    Text(String),
    /// An error result: one text block and `isError: true`.
    Error(String),
    /// A whole `CallToolResult` as JSON (content blocks of any kind, `_meta`).
    Result(Value),
}

impl<T: McpTool> std::fmt::Debug for Reply<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Output(_) => f.write_str("Reply::Output(..)"),
            Self::Text(text) => f.debug_tuple("Reply::Text").field(text).finish(),
            Self::Error(text) => f.debug_tuple("Reply::Error").field(text).finish(),
            Self::Result(value) => f.debug_tuple("Reply::Result").field(value).finish(),
        }
    }
}

impl<T> Reply<T>
where
    T: McpTool,
    T::Output: serde::Serialize,
{
    /// The `CallToolResult`, or why the output cannot be one.
    pub(super) fn into_result(self) -> Result<Value, String> {
        match self {
            Self::Output(output) => {
                let value = serde_json::to_value(&output).map_err(|e| {
                    format!(
                        "tool {}: the handler's output does not serialize to JSON: {e}",
                        crate::quote::quoted(T::MCP_NAME)
                    )
                })?;
                // FastMCP answers a wrapped output with the bare value as its text block (a
                // string as itself, anything else as compact JSON) and `{"result": value}`
                // as `structuredContent`; other servers with the JSON text of
                // `structuredContent`. The fake answers as the pinned server's framework
                // does, so a model sees the same `data` from both.
                let (text, structured) = if T::OUTPUT_WRAPPED {
                    let text = match &value {
                        Value::String(text) => text.clone(),
                        other => other.to_string(),
                    };
                    (text, json!({ "result": value }))
                } else {
                    (value.to_string(), value)
                };
                Ok(json!({
                    "content": [{"type": "text", "text": text}],
                    "structuredContent": structured,
                }))
            }
            Self::Text(text) => Ok(json!({"content": [{"type": "text", "text": text}]})),
            Self::Error(text) => Ok(json!({
                "content": [{"type": "text", "text": text}],
                "isError": true,
            })),
            Self::Result(result) => Ok(result),
        }
    }
}
