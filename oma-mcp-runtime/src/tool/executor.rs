//! [`ToolExecutor`]: open-multi-agent's per-call pipeline, and the per-call gate
//! (open-multi-agent's `onToolCall`) with consequential confirmation (open-multi-agent's
//! `requireConsequentialConfirmation`).

use std::future::Future;
use std::sync::Arc;

use serde_json::Value;

use super::{BoxFuture, ToolContext, ToolGrants, ToolRegistry, truncate_result};
use crate::ToolResult;

/// The reason a consequential tool is denied with when confirmation is required and no gate
/// can approve it (open-multi-agent's text).
pub const CONSEQUENTIAL_CONFIRMATION_REQUIRED: &str =
    "Consequential tool confirmation required before execution.";

/// What the gate sees of a call (open-multi-agent's `onToolCall` context).
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct GateRequest<'a> {
    /// The tool's registered name.
    pub tool_name: &'a str,
    /// The input as the model gave it (after local validation, when that is on; open-multi-agent
    /// passes MCP arguments raw, "there is no parsed shape to narrow them to").
    pub input: &'a Value,
    /// [`ToolContext::agent_name`].
    pub agent_name: &'a str,
    /// [`ToolContext::run_id`].
    pub run_id: Option<&'a str>,
    /// [`ToolContext::task_id`].
    pub task_id: Option<&'a str>,
    /// [`ToolDefinition::consequential`](super::ToolDefinition::consequential).
    pub consequential: bool,
}

/// The gate's answer (open-multi-agent's `{ action: 'allow' }` / `{ action: 'deny', reason? }`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolCallDecision {
    /// Run the tool. For a consequential tool under required confirmation, this is the
    /// explicit approval.
    Allow,
    /// Do not run it; the result is `Tool "<name>" denied by onToolCall: <reason>`, or
    /// `Tool "<name>" denied by onToolCall.` without a reason (or with an empty one).
    Deny {
        /// Why, shown to the model.
        reason: Option<String>,
    },
}

impl ToolCallDecision {
    /// [`ToolCallDecision::Deny`] with a reason.
    pub fn deny_because(reason: impl Into<String>) -> Self {
        Self::Deny {
            reason: Some(reason.into()),
        }
    }
}

/// A gate failure (open-multi-agent's thrown error): the result is
/// `Tool "<name>" onToolCall hook threw an error: <error's Display>`.
pub type GateError = Box<dyn std::error::Error + Send + Sync>;

/// The per-call gate (open-multi-agent's `onToolCall`): decides, after input validation and before
/// execution, whether a call runs. Use [`gate_fn`] for a closure.
pub trait ToolCallGate: Send + Sync {
    /// Decides about `call`.
    ///
    /// # Errors
    /// A [`GateError`] fails the call with open-multi-agent's "hook threw an error" text; so
    /// does a panic while the decision is made (`the gate panicked: <message>`), which ends
    /// neither the call's task nor the agent's.
    fn check<'a>(
        &'a self,
        call: &'a GateRequest<'a>,
    ) -> BoxFuture<'a, Result<ToolCallDecision, GateError>>;
}

struct FnGate<F>(F);

impl<F, Fut> ToolCallGate for FnGate<F>
where
    F: Fn(&GateRequest<'_>) -> Fut + Send + Sync,
    Fut: Future<Output = Result<ToolCallDecision, GateError>> + Send + 'static,
{
    fn check<'a>(
        &'a self,
        call: &'a GateRequest<'a>,
    ) -> BoxFuture<'a, Result<ToolCallDecision, GateError>> {
        Box::pin((self.0)(call))
    }
}

/// A gate from a closure; the future must own what it uses (copy it out of the call first).
///
/// ```
/// use oma_mcp_runtime::tool::{ToolCallDecision, gate_fn};
/// let gate = gate_fn(|call| {
///     let read_only = call.tool_name.starts_with("github_get");
///     async move {
///         Ok(if read_only {
///             ToolCallDecision::Allow
///         } else {
///             ToolCallDecision::deny_because("read-only agent")
///         })
///     }
/// });
/// # let _ = gate;
/// ```
pub fn gate_fn<F, Fut>(f: F) -> impl ToolCallGate
where
    F: Fn(&GateRequest<'_>) -> Fut + Send + Sync,
    Fut: Future<Output = Result<ToolCallDecision, GateError>> + Send + 'static,
{
    FnGate(f)
}

/// Runs registered tools for one agent through open-multi-agent's pipeline (the framework's
/// `ToolExecutor.execute`, which its `docs/mcp.md` applies to MCP tools like any other).
///
/// [`ToolExecutor::execute`] never fails; each step that stops a call returns an error
/// [`ToolResult`] (`is_error: true`) with exactly this text, in this order:
///
/// 1. unknown tool: `Tool "<name>" is not registered in the ToolRegistry.`
/// 2. not granted ([`ToolGrants::check`]): `Tool "<name>" is not granted to this agent.` and a
///    hint on how to grant it;
/// 3. [`ToolContext::cancel`] already cancelled:
///    `Tool "<name>" was aborted before execution began.`; then the tool's own refusal
///    ([`ToolHandler::refusal`](super::ToolHandler::refusal)): an MCP tool that the
///    quarantine withholds ([`crate::drift`]) fails with the
///    [`ToolWithheld`](crate::ToolWithheld) text, also when the definitions were taken before
///    the server changed it;
/// 4. input validation (when the tool has a validator): `Invalid input for tool "<name>":` and
///    one `\n- <pointer>: <message>` line per problem; the tool is never called. Then the
///    abort check again (validation can take a while), as open-multi-agent does.
/// 5. the gate, with consequential confirmation composed in as open-multi-agent composes it: for a
///    [`consequential`](super::ToolDefinition::consequential) tool when
///    [`ToolContext::require_consequential_confirmation`] is set, the gate's decision is the
///    confirmation (only [`ToolCallDecision::Allow`] runs it) and without a gate the call is
///    denied with the reason [`CONSEQUENTIAL_CONFIRMATION_REQUIRED`]; otherwise no gate means
///    allow. A denial is `Tool "<name>" denied by onToolCall: <reason>` (so
///    `Tool "<name>" denied by onToolCall: Consequential tool confirmation required before
///    execution.`) or `Tool "<name>" denied by onToolCall.`; a failing gate is
///    `Tool "<name>" onToolCall hook threw an error: <message>`. After the gate, the abort
///    check again.
/// 6. execution (the handler gets the context, so an MCP call is cancelled by its token);
/// 7. output truncation ([`truncate_result`]) with the tool's own limit, else the executor's.
#[derive(Clone)]
#[must_use]
pub struct ToolExecutor {
    registry: Arc<ToolRegistry>,
    grants: ToolGrants,
    gate: Option<Arc<dyn ToolCallGate>>,
    max_tool_output_chars: Option<usize>,
}

impl std::fmt::Debug for ToolExecutor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolExecutor")
            .field("grants", &self.grants)
            .field("gate", &self.gate.is_some())
            .field("max_tool_output_chars", &self.max_tool_output_chars)
            .finish_non_exhaustive()
    }
}

impl ToolExecutor {
    /// An executor over `registry` for an agent with `grants`, no gate, no output limit.
    pub fn new(registry: Arc<ToolRegistry>, grants: ToolGrants) -> Self {
        Self {
            registry,
            grants,
            gate: None,
            max_tool_output_chars: None,
        }
    }

    /// Sets the per-call gate (open-multi-agent's `onToolCall`).
    pub fn with_gate(mut self, gate: impl ToolCallGate + 'static) -> Self {
        self.gate = Some(Arc::new(gate));
        self
    }

    /// Sets the agent-level output limit in UTF-16 units (open-multi-agent's `maxToolOutputChars`);
    /// a tool's own [`max_output_chars`](super::ToolDefinition::max_output_chars) wins.
    pub fn with_max_tool_output_chars(mut self, max: Option<usize>) -> Self {
        self.max_tool_output_chars = max;
        self
    }

    /// The registry.
    pub fn registry(&self) -> &Arc<ToolRegistry> {
        &self.registry
    }

    /// The grants.
    pub fn grants(&self) -> &ToolGrants {
        &self.grants
    }

    /// The registered tools this agent may run, in registration order: what to show the
    /// model. A tool withheld now ([`ToolHandler::is_withheld`](super::ToolHandler::is_withheld):
    /// an MCP tool that the quarantine withholds, [`crate::drift`]) is left out.
    pub fn granted_tools(&self) -> Vec<Arc<super::ToolDefinition>> {
        self.registry
            .list()
            .into_iter()
            .filter(|t| {
                self.grants
                    .allows(&t.name, self.registry.is_runtime_added(&t.name))
                    && !t.handler.is_withheld()
            })
            .collect()
    }

    /// Runs the tool `name` on `input` through the pipeline described on [`ToolExecutor`].
    pub async fn execute(&self, name: &str, input: Value, ctx: &ToolContext) -> ToolResult {
        let Some(tool) = self.registry.get(name) else {
            return ToolResult::error(format!(
                "Tool \"{name}\" is not registered in the ToolRegistry."
            ));
        };
        if let Err(refusal) = self
            .grants
            .check(name, self.registry.is_runtime_added(name))
        {
            return ToolResult::error(refusal);
        }
        let aborted = || {
            ToolResult::error(format!(
                "Tool \"{}\" was aborted before execution began.",
                tool.name
            ))
        };
        if ctx.cancel.is_cancelled() {
            return aborted();
        }
        if let Some(refusal) = tool.handler.refusal().await {
            return refusal;
        }
        if let Some(validator) = &tool.input_validator
            && let Err(message) = validator.check(&input)
        {
            return ToolResult::error(message);
        }
        if ctx.cancel.is_cancelled() {
            return aborted();
        }
        let call = GateRequest {
            tool_name: &tool.name,
            input: &input,
            agent_name: &ctx.agent_name,
            run_id: ctx.run_id.as_deref(),
            task_id: ctx.task_id.as_deref(),
            consequential: tool.consequential,
        };
        let confirm = tool.consequential && ctx.require_consequential_confirmation;
        let decision = match (&self.gate, confirm) {
            (Some(gate), _) => crate::unwind::caught(gate.check(&call))
                .await
                .unwrap_or_else(|panic| Err(format!("the gate panicked: {panic}").into())),
            (None, true) => Ok(ToolCallDecision::deny_because(
                CONSEQUENTIAL_CONFIRMATION_REQUIRED,
            )),
            (None, false) => Ok(ToolCallDecision::Allow),
        };
        match decision {
            Err(e) => {
                return ToolResult::error(format!(
                    "Tool \"{}\" onToolCall hook threw an error: {e}",
                    tool.name
                ));
            }
            Ok(_) if ctx.cancel.is_cancelled() => return aborted(),
            Ok(ToolCallDecision::Deny { reason }) => {
                return ToolResult::error(match reason.as_deref() {
                    Some(reason) if !reason.is_empty() => {
                        format!("Tool \"{}\" denied by onToolCall: {reason}", tool.name)
                    }
                    _ => format!("Tool \"{}\" denied by onToolCall.", tool.name),
                });
            }
            Ok(ToolCallDecision::Allow) => {}
        }
        let result = tool.handler.call(input, ctx).await;
        truncate_result(result, tool.max_output_chars.or(self.max_tool_output_chars))
    }
}

#[cfg(test)]
mod tests;
