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
    /// block. A wrapped output (a Python tool that returns no object) as its framework answers:
    /// for FastMCP's ([`McpTool::OUTPUT_WRAPPED`]) `structuredContent` is `{"result": …}` and
    /// the text block the bare value (a string as itself, anything else as compact JSON); for
    /// the official Python SDK's (an output schema titled `<tool>Output` with the one required
    /// property `result`) the value of `result` as a string, each item of a list as a block of
    /// its own, anything else as JSON indented by 2 spaces.
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
                let (content, structured) = if T::OUTPUT_WRAPPED {
                    (fastmcp_content(&value), json!({ "result": value }))
                } else if let Some(result) = T::OUTPUT_SCHEMA
                    .filter(|schema| is_python_sdk_wrapper(schema, T::MCP_NAME))
                    .and_then(|_| value.get("result"))
                {
                    (python_sdk_content(result), value)
                } else {
                    (vec![text_block(value.to_string())], value)
                };
                Ok(json!({"content": content, "structuredContent": structured}))
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

/// A text content block.
fn text_block(text: String) -> Value {
    json!({"type": "text", "text": text})
}

/// The content FastMCP sends for the wrapped output `value` (its tool's return value): none
/// for `None`, a string as itself, anything else (lists too) as one block of compact JSON.
fn fastmcp_content(value: &Value) -> Vec<Value> {
    match value {
        Value::Null => Vec::new(),
        Value::String(text) => vec![text_block(text.clone())],
        other => vec![text_block(other.to_string())],
    }
}

/// Whether `schema` (an output schema's JSON text) is the wrapper the official Python SDK's
/// `MCPServer` writes for a tool `tool` that returns no object: `{"title": "<tool>Output",
/// "type": "object", "properties": {"result": …}, "required": ["result"]}`, without
/// FastMCP's `x-fastmcp-wrap-result` mark.
fn is_python_sdk_wrapper(schema: &str, tool: &str) -> bool {
    let Ok(schema) = serde_json::from_str::<Value>(schema) else {
        return false;
    };
    let one_result = schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| p.len() == 1 && p.contains_key("result"));
    one_result
        && schema.get("required") == Some(&json!(["result"]))
        && schema.get("title").and_then(Value::as_str) == Some(&format!("{tool}Output"))
}

/// The content the official Python SDK's `MCPServer` sends for the wrapped return value
/// `value`: none for `None`, a string as itself, each item of a list in turn, anything else
/// as JSON indented by 2 spaces.
fn python_sdk_content(value: &Value) -> Vec<Value> {
    match value {
        Value::Null => Vec::new(),
        Value::String(text) => vec![text_block(text.clone())],
        Value::Array(items) => items.iter().flat_map(python_sdk_content).collect(),
        other => vec![text_block(
            serde_json::to_string_pretty(other).unwrap_or_else(|_| other.to_string()),
        )],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fastmcp_sends_the_bare_value() {
        assert_eq!(fastmcp_content(&json!("HI")), [text_block("HI".into())]);
        assert_eq!(
            fastmcp_content(&json!([1, "a"])),
            [text_block(r#"[1,"a"]"#.into())]
        );
        assert_eq!(
            fastmcp_content(&json!({"a": 1})),
            [text_block(r#"{"a":1}"#.into())]
        );
        assert!(fastmcp_content(&Value::Null).is_empty());
    }

    #[test]
    fn the_python_sdk_sends_each_item_and_indented_json() {
        assert_eq!(
            python_sdk_content(&json!(["a", 2, {"k": [1]}])),
            [
                text_block("a".into()),
                text_block("2".into()),
                text_block("{\n  \"k\": [\n    1\n  ]\n}".into())
            ]
        );
        assert!(python_sdk_content(&Value::Null).is_empty());
    }

    #[test]
    fn the_python_sdk_wrapper_is_told_by_its_title_and_one_result() {
        let wrapper = r#"{"properties":{"result":{"title":"Result","type":"string"}},"required":["result"],"title":"shoutOutput","type":"object"}"#;
        assert!(is_python_sdk_wrapper(wrapper, "shout"));
        assert!(!is_python_sdk_wrapper(wrapper, "other"));
        let two =
            r#"{"properties":{"result":{},"n":{}},"required":["result"],"title":"shoutOutput"}"#;
        assert!(!is_python_sdk_wrapper(two, "shout"));
        let optional = r#"{"properties":{"result":{}},"title":"shoutOutput"}"#;
        assert!(!is_python_sdk_wrapper(optional, "shout"));
    }
}
