//! What kind of result a `tools/call` answered with (MCP 2026-07-28, `resultType`): a
//! complete result (mapped as open-multi-agent maps it), a multi-round-trip request for input
//! (SEP-2322, `"input_required"`), or a task (`"task"`) the call did not ask for.
//!
//! A result without `resultType` (every revision before 2026-07-28) or with `"complete"` is
//! complete. A task the call asked for never reaches this classification: oma-mcp-runtime
//! drives it to its result first ([`crate::task`]). In oma-mcp-runtime, a call ended with
//! `ToolCall::outcome` returns a [`CallOutcome`], and `ToolCall::answering` sends the same call again with the caller's
//! `inputResponses` and the exact `requestState`. The mapped calls (`ToolCall::mapped`,
//! the tool layer, typed calls) report the two other kinds as an error result that says what
//! the server wants, instead of mapping them as if they were content ([`not_complete`]).

use serde_json::{Map, Value};

use crate::ToolResult;
use crate::quote::cut;

/// A `tools/call` result, by its `resultType`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum CallOutcome {
    /// A complete result (no `resultType`, or `"complete"`), raw; map it with
    /// [`map_call_result`](crate::map_call_result).
    Complete(Value),
    /// The server needs input before it can finish (`"input_required"`, SEP-2322): answer
    /// with oma-mcp-runtime's `ToolCall::answering`.
    InputRequired(InputRequired),
    /// The server started a task (`"task"`) the call did not ask for (a server may only answer
    /// a call that declares the tasks extension so, MCP 2026-07-28; the tasks a call asks for
    /// are driven to their result, see [`crate::task`]). The raw result.
    Task(Value),
}

impl CallOutcome {
    /// Classifies a raw `tools/call` result by its `resultType`. An unknown `resultType` is
    /// treated as complete (the result is kept raw either way).
    pub fn from_result(result: Value) -> Self {
        match result.get("resultType").and_then(Value::as_str) {
            Some("input_required") => {
                CallOutcome::InputRequired(InputRequired::from_result(result))
            }
            Some("task") => CallOutcome::Task(result),
            _ => CallOutcome::Complete(result),
        }
    }

    /// The raw result, whatever its kind (for [`not_complete`] and
    /// [`map_call_result`](crate::map_call_result)).
    pub fn into_result(self) -> Value {
        match self {
            CallOutcome::Complete(result) | CallOutcome::Task(result) => result,
            CallOutcome::InputRequired(required) => required.result,
        }
    }
}

/// An `"input_required"` result (SEP-2322): the requests the client must fulfil, keyed by the
/// server's names, and the opaque state to send back unchanged.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct InputRequired {
    /// `inputRequests`: name → `{ "method": …, "params": … }` (e.g. `elicitation/create`
    /// with its `message` and `requestedSchema`), raw; empty when absent.
    pub input_requests: Map<String, Value>,
    /// `requestState`, exactly as sent (never inspected), when the server sent one.
    pub request_state: Option<Value>,
    /// The whole raw result.
    pub result: Value,
}

impl InputRequired {
    fn from_result(result: Value) -> Self {
        let input_requests = match result.get("inputRequests") {
            Some(Value::Object(requests)) => requests.clone(),
            _ => Map::new(),
        };
        let request_state = result.get("requestState").cloned();
        Self {
            input_requests,
            request_state,
            result,
        }
    }

    /// One line per request: `<name>: <method> "<message>"` (the message when the params have
    /// one, cut to 200 chars), in the server's order.
    pub fn describe(&self) -> Vec<String> {
        self.input_requests
            .iter()
            .map(|(name, request)| {
                let method = request
                    .get("method")
                    .and_then(Value::as_str)
                    .unwrap_or("(no method)");
                match request.pointer("/params/message").and_then(Value::as_str) {
                    Some(message) => format!("{name}: {method} \"{}\"", cut(message, 200)),
                    None => format!("{name}: {method}"),
                }
            })
            .collect()
    }
}

/// The error result a mapped call gives for a result that is not complete, or `None` for a
/// complete one: `MCP tool "<name>" failed: the server needs input before the tool can
/// finish (resultType "input_required", MCP 2026-07-28): confirm: elicitation/create
/// "Please confirm"; answer it with ToolCall::outcome and ToolCall::answering, or
/// `oma-mcp call --input`` — or, for a task, that tasks are not supported yet.
pub fn not_complete(raw_name: &str, result: &Value) -> Option<ToolResult> {
    match result.get("resultType").and_then(Value::as_str) {
        Some("input_required") => {
            let required = InputRequired::from_result(result.clone());
            let requests = required.describe();
            let requests = if requests.is_empty() {
                "no inputRequests".to_owned()
            } else {
                requests.join("; ")
            };
            Some(ToolResult::failed(
                raw_name,
                &format!(
                    "the server needs input before the tool can finish (resultType \
                     \"input_required\", MCP 2026-07-28): {requests}; answer it with \
                     ToolCall::outcome and ToolCall::answering, or `oma-mcp call --input \
                     NAME=JSON`"
                ),
            ))
        }
        Some("task") => {
            let task = ["/taskId", "/task/taskId"]
                .iter()
                .find_map(|pointer| result.pointer(pointer).and_then(Value::as_str))
                .map(|id| format!(" {}", cut(id, 100)))
                .unwrap_or_default();
            Some(ToolResult::failed(
                raw_name,
                &format!(
                    "the server answered with a task{task} (resultType \"task\") this call did \
                     not ask for; a server may answer so only a call that declares the tasks \
                     extension (MCP 2026-07-28), which oma-mcp does where the server advertises it"
                ),
            ))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn classifies_results_by_result_type() {
        assert_eq!(
            CallOutcome::from_result(json!({"content": []})),
            CallOutcome::Complete(json!({"content": []}))
        );
        assert_eq!(
            CallOutcome::from_result(json!({"resultType": "complete"})),
            CallOutcome::Complete(json!({"resultType": "complete"}))
        );
        assert_eq!(
            CallOutcome::from_result(json!({"resultType": "task", "task": {}})),
            CallOutcome::Task(json!({"resultType": "task", "task": {}}))
        );
        let raw = json!({
            "resultType": "input_required",
            "inputRequests": {"confirm": {"method": "elicitation/create", "params": {"message": "Sure?"}}},
            "requestState": "{\"nonce\":1}"
        });
        let CallOutcome::InputRequired(required) = CallOutcome::from_result(raw.clone()) else {
            panic!("not input_required");
        };
        assert_eq!(required.request_state, Some(json!("{\"nonce\":1}")));
        assert_eq!(
            required.describe(),
            ["confirm: elicitation/create \"Sure?\""]
        );
        assert_eq!(required.result, raw);
        assert_eq!(CallOutcome::InputRequired(required).into_result(), raw);
    }

    #[test]
    fn mapped_calls_explain_results_that_are_not_complete() {
        assert_eq!(not_complete("t", &json!({"content": []})), None);
        let input = not_complete(
            "t",
            &json!({"resultType": "input_required", "inputRequests": {"a": {"method": "elicitation/create"}}}),
        )
        .map(|r| (r.data, r.is_error));
        assert_eq!(
            input,
            Some((
                "MCP tool \"t\" failed: the server needs input before the tool can finish \
                 (resultType \"input_required\", MCP 2026-07-28): a: elicitation/create; answer \
                 it with ToolCall::outcome and ToolCall::answering, or `oma-mcp call --input \
                 NAME=JSON`"
                    .to_owned(),
                true
            ))
        );
        let task = not_complete(
            "t",
            &json!({"resultType": "task", "taskId": "t-1", "status": "working"}),
        )
        .map(|r| r.data);
        assert_eq!(
            task.as_deref(),
            Some(
                "MCP tool \"t\" failed: the server answered with a task t-1 (resultType \
                 \"task\") this call did not ask for; a server may answer so only a call that \
                 declares the tasks extension (MCP 2026-07-28), which oma-mcp does where the \
                 server advertises it"
            )
        );
    }
}
