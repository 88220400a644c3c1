//! The setting and endings of a typed [`ToolCall`] ([`McpClient::call`](crate::McpClient::call)):
//! [`confirmed`](ToolCall::confirmed), [`mapped`](ToolCall::mapped) and
//! [`typed`](ToolCall::typed).

use std::marker::PhantomData;

use serde_json::Value;

use super::{Confirmed, Permit, ToolCall, Typed, mapped_reply};
use crate::typed::{check_args, typed_output};
use crate::{CallError, McpTool, ToolArgs, ToolResult, TypedResult};

/// The confirmation and endings of a typed call.
impl<'c, A: ToolArgs, C> ToolCall<'c, Typed<A>, C> {
    /// The caller's explicit confirmation that the call may run: the endings of a call of a
    /// consequential tool ([`McpTool::CONSEQUENTIAL`]) compile only after it.
    ///
    /// Writing it is the confirmation: add it only after whatever your program requires
    /// before a tool with real side effects runs (a person approved it, a policy allowed it).
    /// The dynamic tool layer has its own gate for the same flag (the executor's confirmation
    /// gate). On a call of a tool that is not consequential it changes nothing.
    #[must_use]
    pub fn confirmed(self) -> ToolCall<'c, Typed<A>, Confirmed> {
        ToolCall {
            parts: self.parts,
            kind: self.kind,
            confirmation: PhantomData,
        }
    }

    /// Sends the call and maps the result as open-multi-agent maps it; never fails.
    ///
    /// The arguments are serialized to a JSON object and sent as `tools/call` to
    /// [`McpTool::MCP_NAME`]; nothing is validated locally (see [`typed`](ToolCall::typed)).
    /// Like open-multi-agent, a failed call (timeout, JSON-RPC error, closed connection,
    /// arguments that do not serialize to an object) is a [`ToolResult`] with
    /// `is_error: true` and `data` = `MCP tool "<MCP_NAME>" failed: <message>`; a result that
    /// is not complete is explained as [`crate::call_outcome::not_complete`] says.
    ///
    /// Compiles for a consequential tool only after [`confirmed`](ToolCall::confirmed).
    pub async fn mapped(self) -> ToolResult
    where
        C: Permit<A::Tool>,
    {
        const { permitted::<C, A::Tool>() };
        let name = <A::Tool as McpTool>::MCP_NAME;
        let arguments = match serde_json::to_value(&self.kind.args) {
            Ok(Value::Object(map)) => Some(map),
            Ok(Value::Null) => None,
            Ok(other) => {
                return ToolResult::failed(
                    name,
                    &format!("arguments must serialize to a JSON object, not {other}"),
                );
            }
            Err(e) => {
                return ToolResult::failed(
                    name,
                    &format!("arguments could not be serialized: {e}"),
                );
            }
        };
        mapped_reply(name, self.parts.send(arguments.as_ref()).await)
    }

    /// Sends the call with validated arguments and returns the tool's typed output.
    ///
    /// The arguments are checked against the tool's exact input schema first
    /// ([`check_args`]: with the cargo feature `validate`, compiled once per tool, dialect
    /// from `$schema`); a violation is [`CallError::InvalidArguments`] with JSON pointers and
    /// nothing is sent. The result is then read as [`typed_output`] says.
    ///
    /// Compiles for a consequential tool only after [`confirmed`](ToolCall::confirmed).
    ///
    /// # Errors
    /// Every [`CallError`] variant ([`CallError::Withheld`] first, before the arguments are
    /// checked); a failed call (timeout, cancel, JSON-RPC error, closed
    /// connection) is [`CallError::Failed`] with the runtime error's whole text and the error
    /// itself ([`CallError::is_timeout`] and the other predicates read it).
    /// [`CallError::into_tool_result`] turns one into open-multi-agent's error result.
    pub async fn typed(self) -> Result<TypedResult<<A::Tool as McpTool>::Output>, CallError>
    where
        C: Permit<A::Tool>,
    {
        const { permitted::<C, A::Tool>() };
        let name = <A::Tool as McpTool>::MCP_NAME;
        let failed = |e: crate::Error| match e {
            #[cfg(feature = "drift")]
            crate::Error::Withheld(withheld) => CallError::Withheld(withheld),
            e => CallError::Failed {
                tool: name,
                message: e.chain().to_string(),
                source: crate::typed::CallFailure::new(e),
            },
        };
        // A withheld tool fails before its arguments are checked.
        super::admit(
            self.parts.client,
            self.parts.name,
            self.parts.cancel.as_ref(),
        )
        .await
        .map_err(failed)?;
        let arguments = check_args::<A::Tool>(&self.kind.args)?;
        let raw = self.parts.send(arguments.as_ref()).await.map_err(failed)?;
        typed_output::<A::Tool>(&raw)
    }
}

/// The second line of defence behind the [`Permit`] bound, checked when an ending is
/// instantiated: an unconfirmed call reaches a consequential tool only if that tool wrongly
/// implements [`NotConsequential`](crate::NotConsequential) (a compile error then).
const fn permitted<C: Permit<T>, T: McpTool>() {
    assert!(
        C::CONFIRMED || !T::CONSEQUENTIAL,
        "a consequential tool implements NotConsequential"
    )
}
