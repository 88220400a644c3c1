//! Cassettes (oma-mcp-core's [`cassette`](oma_mcp_core::cassette) format), and the check
//! that a cassette still fits the snapshot of its server (cargo feature `validate`): a replay
//! of a call the server would now refuse proves nothing.

pub use oma_mcp_core::cassette::*;

use serde_json::Value;

use crate::Snapshot;
use crate::quote::quoted;
use crate::validate::Validator;

/// A recorded call that no longer fits the snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StaleCall {
    /// The call's index in the cassette.
    pub index: usize,
    /// The raw MCP tool name.
    pub tool: String,
    /// Where in the cassette file (a JSON pointer, e.g. `/calls/2/arguments/message`).
    pub pointer: String,
    /// What no longer fits.
    pub why: String,
}

impl std::fmt::Display for StaleCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "call {} of tool {} (at {}): {}",
            self.index,
            quoted(&self.tool),
            self.pointer,
            self.why
        )
    }
}

/// The calls of `cassette` that no longer fit `snapshot`, in cassette order: a tool the
/// snapshot lacks; arguments that fail the tool's `inputSchema`; a result that is no
/// `CallToolResult` (no `content` array); a result's
/// `structuredContent` that fails its `outputSchema` (or is missing though the tool declares
/// one). A problem at a value the cassette redacted is not reported.
pub fn stale_calls(cassette: &Cassette, snapshot: &Snapshot) -> Vec<StaleCall> {
    let mut stale = Vec::new();
    for (index, call) in cassette.calls.iter().enumerate() {
        let at = |pointer: String, why: String| StaleCall {
            index,
            tool: call.tool.clone(),
            pointer: format!("/calls/{index}{pointer}"),
            why,
        };
        let Some(tool) = snapshot.tools.iter().find(|t| t.name() == call.tool) else {
            stale.push(at(
                "/tool".into(),
                format!("the snapshot has no tool {}", quoted(&call.tool)),
            ));
            continue;
        };
        let arguments = match &call.arguments {
            Value::Null => Value::Object(Default::default()),
            other => other.clone(),
        };
        for (pointer, why) in problems(&call.tool, tool.input_schema(), &arguments) {
            stale.push(at(
                format!("/arguments{}", sub(&pointer)),
                format!("{why} (the tool's inputSchema)"),
            ));
        }
        let RecordedAnswer::Result(result) = &call.answer else {
            continue;
        };
        if !result.get("content").is_some_and(Value::is_array) {
            stale.push(at(
                "/result".into(),
                "no `content` array, so it is no CallToolResult (MCP 2025-11-25, \"Calling \
                 Tools\")"
                    .into(),
            ));
            continue;
        }
        if result.get("isError").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        let Some(schema) = tool.output_schema() else {
            continue;
        };
        match result.get("structuredContent") {
            None => stale.push(at(
                "/result".into(),
                "no `structuredContent`, but the tool now declares an outputSchema".into(),
            )),
            Some(structured) => {
                for (pointer, why) in problems(&call.tool, Some(schema), structured) {
                    stale.push(at(
                        format!("/result/structuredContent{}", sub(&pointer)),
                        format!("{why} (the tool's outputSchema)"),
                    ));
                }
            }
        }
    }
    stale
}

/// `pointer` below a member: `/` (the root) is empty.
fn sub(pointer: &str) -> &str {
    if pointer == "/" { "" } else { pointer }
}

/// The problems of `instance` against `schema` (nothing when it is no object or does not
/// compile), except those at a redacted value.
fn problems(tool: &str, schema: Option<&Value>, instance: &Value) -> Vec<(String, String)> {
    let Some(validator) = schema
        .filter(|s| s.is_object())
        .and_then(|s| Validator::new(tool, s).ok())
    else {
        return Vec::new();
    };
    match validator.validate(instance) {
        Ok(()) => Vec::new(),
        Err(problems) => problems
            .into_iter()
            .filter(|p| instance.pointer(sub(&p.pointer)) != Some(&Value::from(REDACTED)))
            .map(|p| (p.pointer, p.message))
            .collect(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn reports_what_no_longer_fits() {
        let snapshot = Snapshot::from_descriptors(
            None,
            None,
            None,
            [
                json!({"name": "echo", "inputSchema": {"type": "object",
                    "properties": {"message": {"type": "string"}}, "required": ["message"]}}),
                json!({"name": "weather", "inputSchema": {"type": "object"},
                    "outputSchema": {"type": "object", "properties": {"t": {"type": "integer"}}}}),
            ],
        )
        .unwrap();
        let mut cassette = Cassette::new(None, Redaction::default());
        let ok = RecordedAnswer::Result(json!({"content": []}));
        cassette.record("echo", &json!({"message": "hi"}), ok.clone());
        cassette.record("echo", &json!({"message": 7}), ok.clone());
        cassette.record("echo", &json!({"token": 7}), ok.clone());
        cassette.record("gone", &Value::Null, ok.clone());
        cassette.record(
            "weather",
            &Value::Null,
            RecordedAnswer::Result(json!({"content": [], "structuredContent": {"t": "warm"}})),
        );
        cassette.record("weather", &Value::Null, ok);
        cassette.record(
            "echo\u{1b}[2J",
            &Value::Null,
            RecordedAnswer::Result(json!({"text": "hi"})),
        );
        cassette.record(
            "echo",
            &json!({"message": "hi"}),
            RecordedAnswer::Result(json!({"text": "hi"})),
        );
        let stale: Vec<String> = stale_calls(&cassette, &snapshot)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            stale,
            [
                "call 1 of tool \"echo\" (at /calls/1/arguments/message): 7 is not of type \
                 \"string\" (the tool's inputSchema)",
                "call 2 of tool \"echo\" (at /calls/2/arguments): \"message\" is a required \
                 property (the tool's inputSchema)",
                "call 3 of tool \"gone\" (at /calls/3/tool): the snapshot has no tool \"gone\"",
                "call 4 of tool \"weather\" (at /calls/4/result/structuredContent/t): \"warm\" \
                 is not of type \"integer\" (the tool's outputSchema)",
                "call 5 of tool \"weather\" (at /calls/5/result): no `structuredContent`, but \
                 the tool now declares an outputSchema",
                "call 6 of tool \"echo\\u001b[2J\" (at /calls/6/tool): the snapshot has no tool \
                 \"echo\\u001b[2J\"",
                "call 7 of tool \"echo\" (at /calls/7/result): no `content` array, so it is no \
                 CallToolResult (MCP 2025-11-25, \"Calling Tools\")",
            ]
        );
    }
}
