//! What a typed call ([`ToolCall::typed`](crate::ToolCall::typed)) gives: a validated, typed
//! output ([`TypedResult`]) or a [`CallError`].

use serde_json::Value;

use super::McpTool;
#[cfg(feature = "validate")]
use super::output_validator_for;
use crate::validate::{Problem, invalid_input_message};
use crate::{ToolResult, map_call_result};

/// A successful typed call: the typed output and open-multi-agent's mapping of the same result (the
/// text and model-visible parts to show a model).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TypedResult<O> {
    /// `structuredContent` deserialized into the tool's output type (unwrapped from
    /// `{"result": ..}` for FastMCP's wrapped form).
    pub output: O,
    /// The result mapped as open-multi-agent maps it ([`map_call_result`]); `is_error` is `false`.
    pub result: ToolResult,
}

/// Why a typed call ([`ToolCall::typed`](crate::ToolCall::typed)) gave no typed output.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CallError {
    /// The arguments violate the tool's input schema (or do not serialize to a JSON object);
    /// nothing was sent. Displayed as [`invalid_input_message`]:
    /// `Invalid input for tool "<NAME>":` and one `\n- <pointer>: <message>` line per problem.
    #[error("{}", invalid_input_message(tool, problems))]
    #[non_exhaustive]
    InvalidArguments {
        /// The framework tool name ([`McpTool::NAME`]).
        tool: &'static str,
        /// Every violation, sorted by pointer.
        problems: Vec<Problem>,
    },
    /// The tool differs from its snapshot and the connection's
    /// [`DriftPolicy::Quarantine`](crate::DriftPolicy::Quarantine) withholds it: nothing was
    /// validated or sent (see [`crate::drift`]). Displayed as [`ToolWithheld`](crate::ToolWithheld).
    /// Only with cargo feature `drift` (on by default).
    #[cfg(feature = "drift")]
    #[error(transparent)]
    Withheld(oma_mcp_core::drift::ToolWithheld),
    /// The call itself failed (timeout, JSON-RPC error, closed connection); open-multi-agent's
    /// `MCP tool "<MCP_NAME>" failed: <message>`. The runtime error is kept as the source, so
    /// [`CallError::is_timeout`] and the other predicates answer as [`crate::Error`]'s do.
    #[error("MCP tool \"{tool}\" failed: {message}")]
    #[non_exhaustive]
    Failed {
        /// The raw MCP name.
        tool: &'static str,
        /// The runtime error's whole text (`MCP error -32001: Request timed out`, …).
        message: String,
        /// The runtime error itself.
        #[source]
        source: CallFailure,
    },
    /// The server answered with `isError: true`. Displayed as open-multi-agent's mapping of the
    /// result (its `data`); never validated against the output schema.
    #[error("{}", result.data)]
    #[non_exhaustive]
    Tool {
        /// The raw MCP name.
        tool: &'static str,
        /// The mapped error result.
        result: ToolResult,
    },
    /// The tool declares an output schema but its result has no `structuredContent`.
    #[error(
        "MCP tool \"{tool}\" declares an output schema but its result has no structuredContent"
    )]
    #[non_exhaustive]
    MissingStructuredContent {
        /// The raw MCP name.
        tool: &'static str,
        /// The result mapped as open-multi-agent maps it (its text is still usable).
        result: ToolResult,
    },
    /// `structuredContent` violates the tool's output schema.
    #[error("invalid output from MCP tool \"{tool}\":{}", problem_lines(problems))]
    #[non_exhaustive]
    InvalidOutput {
        /// The raw MCP name.
        tool: &'static str,
        /// Every violation, sorted by pointer (into `structuredContent`).
        problems: Vec<Problem>,
    },
    /// `structuredContent` passed the schema (or there is none to check) but does not
    /// deserialize into the generated output type.
    #[error("the output of MCP tool \"{tool}\" does not fit its Rust type: {message}")]
    #[non_exhaustive]
    OutputType {
        /// The raw MCP name.
        tool: &'static str,
        /// serde's message.
        message: String,
    },
}

/// The runtime error of a [`CallError::Failed`], shared so that a [`CallError`] stays cheap to
/// clone: dereferences to the [`crate::Error`]; two are equal when their whole texts are.
#[derive(Debug, Clone)]
pub struct CallFailure(std::sync::Arc<crate::Error>);

impl CallFailure {
    /// Wraps the runtime error of a failed call.
    pub fn new(error: crate::Error) -> Self {
        Self(std::sync::Arc::new(error))
    }
}

impl std::ops::Deref for CallFailure {
    type Target = crate::Error;

    fn deref(&self) -> &crate::Error {
        &self.0
    }
}

impl PartialEq for CallFailure {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
            || self.0.chain().to_string() == other.0.chain().to_string()
    }
}

impl std::fmt::Display for CallFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for CallFailure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

fn problem_lines(problems: &[Problem]) -> String {
    problems
        .iter()
        .map(|p| format!("\n- {}: {}", p.pointer, p.message))
        .collect()
}

impl CallError {
    /// The runtime error of a failed call ([`CallError::Failed`]); `None` for the other
    /// variants, which are about the arguments, the tool's answer or its output.
    pub fn runtime_error(&self) -> Option<&crate::Error> {
        match self {
            Self::Failed { source, .. } => Some(source),
            _ => None,
        }
    }

    /// `true` when the call timed out ([`crate::Error::is_timeout`] of its runtime error).
    pub fn is_timeout(&self) -> bool {
        self.runtime_error().is_some_and(crate::Error::is_timeout)
    }

    /// `true` when the caller cancelled the call ([`crate::Error::is_cancelled`]).
    pub fn is_cancelled(&self) -> bool {
        self.runtime_error().is_some_and(crate::Error::is_cancelled)
    }

    /// `true` when the connection is gone ([`crate::Error::is_connection_lost`]).
    pub fn is_connection_lost(&self) -> bool {
        self.runtime_error()
            .is_some_and(crate::Error::is_connection_lost)
    }

    /// The error as open-multi-agent's [`ToolResult`] (what to show a model): the tool's own error
    /// result for [`CallError::Tool`], else `is_error: true` with this error's text.
    pub fn into_tool_result(self) -> ToolResult {
        match self {
            Self::Tool { result, .. } => result,
            other => ToolResult::error(other.to_string()),
        }
    }
}

/// The typed output of `T` from a raw `tools/call` result object (pure; what
/// [`ToolCall::typed`](crate::ToolCall::typed) does after the call):
///
/// 1. `isError: true` → [`CallError::Tool`] with open-multi-agent's mapping, never validated;
/// 2. with an output schema: no `structuredContent` → [`CallError::MissingStructuredContent`];
///    else (cargo feature `validate`) validated against the schema (dialect from its `$schema`) →
///    [`CallError::InvalidOutput`], except for what the generated output types absorb (a
///    string an `enum` does not list, a property the schema does not allow: see
///    [`Validator::validate_output`](crate::Validator::validate_output)), which is logged as
///    drift (`tracing` target `oma_mcp::drift`, level warn) instead; FastMCP's wrapped form is
///    unwrapped (`result` member);
/// 3. deserialized into [`McpTool::Output`] (without an output schema: the
///    `structuredContent` as sent, or `null` when absent) → [`CallError::OutputType`].
///
/// # Errors
/// As listed above.
pub fn typed_output<T: McpTool>(raw: &Value) -> Result<TypedResult<T::Output>, CallError> {
    let result =
        crate::call_outcome::not_complete(T::MCP_NAME, raw).unwrap_or_else(|| map_call_result(raw));
    if result.is_error {
        return Err(CallError::Tool {
            tool: T::MCP_NAME,
            result,
        });
    }
    let structured = raw.get("structuredContent");
    let value = match (T::OUTPUT_SCHEMA, structured) {
        (Some(_), None) => {
            return Err(CallError::MissingStructuredContent {
                tool: T::MCP_NAME,
                result,
            });
        }
        (Some(_), Some(structured)) => {
            #[cfg(feature = "validate")]
            if let Some(validator) = output_validator_for::<T>() {
                let absorbed = validator.validate_output(structured).map_err(|problems| {
                    CallError::InvalidOutput {
                        tool: T::MCP_NAME,
                        problems,
                    }
                })?;
                if !absorbed.is_empty() {
                    tracing::warn!(
                        target: "oma_mcp::drift",
                        tool = T::MCP_NAME,
                        "the output does not fit the output schema of the snapshot, but the \
                         generated type keeps it (the server changed since the snapshot; run \
                         `oma-mcp check`):{}",
                        problem_lines(&absorbed)
                    );
                }
            }
            if T::OUTPUT_WRAPPED {
                structured.get("result").cloned().unwrap_or(Value::Null)
            } else {
                structured.clone()
            }
        }
        (None, structured) => structured.cloned().unwrap_or(Value::Null),
    };
    let output = match serde_json::from_value(value.clone()) {
        Ok(output) => output,
        // JSON Schema's `integer` admits `3.0` (draft 6 on: "a number with a zero fractional
        // part"), serde's `i64`/`u64` do not: the value is read again with integral floats
        // as integers. The first error is the one reported.
        Err(e) => integral_floats_as_integers(value)
            .and_then(|v| serde_json::from_value(v).ok())
            .ok_or_else(|| CallError::OutputType {
                tool: T::MCP_NAME,
                message: e.to_string(),
            })?,
    };
    Ok(TypedResult { output, result })
}

/// `value` with every float that has a zero fractional part and fits `i64` (or `u64`)
/// turned into that integer, or `None` when there is no such float (nothing to retry).
fn integral_floats_as_integers(value: Value) -> Option<Value> {
    fn walk(value: &mut Value, changed: &mut bool) {
        match value {
            Value::Number(n) if n.is_f64() => {
                let f = n.as_f64().unwrap_or(f64::NAN);
                // The bounds are exact powers of two, so the comparisons are exact.
                let integer = if f.fract() != 0.0 {
                    None
                } else if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f) {
                    #[allow(clippy::cast_possible_truncation)]
                    Some(serde_json::Number::from(f as i64))
                } else if (0.0..18_446_744_073_709_551_616.0).contains(&f) {
                    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                    Some(serde_json::Number::from(f as u64))
                } else {
                    None
                };
                if let Some(integer) = integer {
                    *n = integer;
                    *changed = true;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| walk(v, changed)),
            Value::Object(map) => map.values_mut().for_each(|v| walk(v, changed)),
            _ => {}
        }
    }
    let mut value = value;
    let mut changed = false;
    walk(&mut value, &mut changed);
    changed.then_some(value)
}

/// The typed call's validation paths (arguments, outputs) need the `validate` feature.
#[cfg(all(test, feature = "validate"))]
mod tests;
