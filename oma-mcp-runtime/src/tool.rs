//! The tool layer (cargo feature `tools`): MCP tools as ordinary tools of an agent
//! (open-multi-agent's `docs/mcp.md`, its introduction and "Granting MCP tools to an agent").
//!
//! - [`ToolDefinition`]: one tool: name, description, the schema shown to the model, whether
//!   it is consequential, an optional local input validator and its execution
//!   ([`ToolHandler`]). [`tool_definitions`]
//!   builds one per MCP tool.
//! - [`ToolRegistry`]: register / get / list / unregister; a duplicate name is an error.
//! - [`ToolGrants`]: default-deny grants per agent (allowlist minus denylist; runtime-added
//!   tools are granted by registration, still subject to the denylist).
//! - [`ToolExecutor`]: open-multi-agent's pipeline (unknown tool, not granted, aborted before
//!   start,
//!   input validation, the per-call gate with consequential confirmation, execution, output
//!   truncation), every message exactly open-multi-agent's.
//! - [`truncate_tool_output`]: the open-multi-agent's head/tail truncation in UTF-16 units.
//! - [`ProviderToolbox`]: the granted tools in a model provider's own tool format (OpenAI
//!   strict, Anthropic, Gemini; [`provider`](crate::provider)), and the model's calls run back
//!   through the executor, gate included.
//!
//! ```no_run
//! # async fn demo() -> Result<(), oma_mcp_runtime::Error> {
//! use std::sync::Arc;
//! use oma_mcp_runtime::{ConnectConfig, connect_mcp_tools};
//! use oma_mcp_runtime::tool::{
//!     ToolContext, ToolExecutor, ToolGrants, ToolRegistry, tool_definitions,
//! };
//!
//! let client = Arc::new(
//!     connect_mcp_tools(ConnectConfig::new("my-server").with_name_prefix("srv")).await?,
//! );
//! let registry = Arc::new(ToolRegistry::new());
//! let tools = tool_definitions(&client);
//! let names: Vec<String> = tools.iter().map(|t| t.name.clone()).collect();
//! registry.register_all(tools)?;
//! // Registration is not a grant: the agent gets the tools by name.
//! let executor = ToolExecutor::new(Arc::clone(&registry), ToolGrants::new().allow(names));
//! let result = executor
//!     .execute("srv_echo", serde_json::json!({"message": "hi"}), &ToolContext::new("agent"))
//!     .await;
//! println!("{}", result.data);
//! client.disconnect().await;
//! # Ok(()) }
//! ```

mod definition;
mod executor;
mod provider;
mod registry;
mod truncate;

use std::future::Future;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::ToolResult;

pub use definition::{McpToolHandler, ToolDefinition, tool_definitions};
pub use executor::{
    CONSEQUENTIAL_CONFIRMATION_REQUIRED, GateError, GateRequest, ToolCallDecision, ToolCallGate,
    ToolExecutor, gate_fn,
};
/// Re-exported from [`oma_mcp_core::descriptor`], where the contract's rule lives.
pub use oma_mcp_core::descriptor::mcp_llm_input_schema;
pub use provider::{ProviderToolbox, ToolArguments};
pub use registry::{ToolGrants, ToolRegistry};
pub use truncate::{truncate_result, truncate_tool_output};

/// A boxed, sendable future: what [`ToolHandler`] and [`ToolCallGate`] return (the one alias of
/// the crates, defined beside the OAuth traits that return it too).
pub use oma_mcp_core::config::BoxFuture;

/// What a tool execution gets besides its input (open-multi-agent's `ToolUseContext`, reduced to
/// what this crate uses).
///
/// ```
/// use oma_mcp_runtime::CancellationToken;
/// use oma_mcp_runtime::tool::ToolContext;
/// let cancel = CancellationToken::new();
/// let ctx = ToolContext::new("researcher")
///     .with_cancel(cancel.clone())
///     .with_run_id("run-1")
///     .with_consequential_confirmation(true);
/// assert_eq!(ctx.agent_name, "researcher");
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ToolContext {
    /// The agent the call is made for (passed to the gate as `agentName`).
    pub agent_name: String,
    /// The run, when the caller has one (passed to the gate as `runId`).
    pub run_id: Option<String>,
    /// The task, when the caller has one (passed to the gate as `taskId`).
    pub task_id: Option<String>,
    /// The `abortSignal` of open-multi-agent's tool context: cancelled before the call, the
    /// executor refuses to start it; cancelled during an MCP call, the request is cancelled
    /// (`notifications/cancelled`) and the result is `MCP tool "<raw>" failed: This operation
    /// was aborted`.
    pub cancel: CancellationToken,
    /// The `requireConsequentialConfirmation` of open-multi-agent: a
    /// [`ToolDefinition::consequential`] tool then runs only when the gate approves it (see
    /// [`ToolExecutor`]).
    pub require_consequential_confirmation: bool,
}

impl ToolContext {
    /// A context for `agent_name` with a fresh (never cancelled) token, no run or task id and
    /// no consequential confirmation.
    pub fn new(agent_name: impl Into<String>) -> Self {
        Self {
            agent_name: agent_name.into(),
            ..Self::default()
        }
    }

    /// Sets the cancellation token (open-multi-agent's abort signal).
    #[must_use]
    pub fn with_cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = cancel;
        self
    }

    /// Sets the run id.
    #[must_use]
    pub fn with_run_id(mut self, run_id: impl Into<String>) -> Self {
        self.run_id = Some(run_id.into());
        self
    }

    /// Sets the task id.
    #[must_use]
    pub fn with_task_id(mut self, task_id: impl Into<String>) -> Self {
        self.task_id = Some(task_id.into());
        self
    }

    /// Requires (or not) the gate's approval before a consequential tool runs.
    #[must_use]
    pub fn with_consequential_confirmation(mut self, required: bool) -> Self {
        self.require_consequential_confirmation = required;
        self
    }
}

/// The execution of a tool: an async function of the input and the context.
///
/// Never fails: a failure is a [`ToolResult`] with `is_error: true` (see
/// [`ToolResult::error`]), which the tool loop hands to the model. Implemented by
/// [`McpToolHandler`] and by every closure `Fn(Value, ToolContext) -> impl Future<Output =
/// ToolResult>` (the context is cloned for it):
///
/// ```
/// use oma_mcp_runtime::ToolResult;
/// use oma_mcp_runtime::tool::{ToolContext, ToolDefinition};
/// let upper = ToolDefinition::new(
///     "upper",
///     "Upper-cases `text`",
///     serde_json::json!({"type": "object", "properties": {"text": {"type": "string"}}}),
///     |input: serde_json::Value, _ctx: ToolContext| async move {
///         ToolResult::text(input["text"].as_str().unwrap_or_default().to_uppercase())
///     },
/// );
/// assert_eq!(upper.name, "upper");
/// ```
pub trait ToolHandler: Send + Sync {
    /// Runs the tool on `input`.
    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult>;

    /// Whether the tool is withheld from models now, as last known (an MCP tool that the
    /// connection's [`DriftPolicy::Quarantine`](crate::DriftPolicy::Quarantine) withholds):
    /// [`ToolExecutor::granted_tools`], and so [`ProviderToolbox`], leave it out. `false` by
    /// default.
    fn is_withheld(&self) -> bool {
        false
    }

    /// The error result that refuses a call of the tool before anything else of the
    /// executor's pipeline runs (validation, the gate), or `None` when it may run: for an MCP
    /// tool that the quarantine withholds (checked after bringing the withheld set up to
    /// date, see [`crate::drift`]), the [`ToolWithheld`](crate::ToolWithheld) text. `None`
    /// by default.
    fn refusal(&self) -> BoxFuture<'_, Option<ToolResult>> {
        Box::pin(async { None })
    }
}

impl<F, Fut> ToolHandler for F
where
    F: Fn(Value, ToolContext) -> Fut + Send + Sync,
    Fut: Future<Output = ToolResult> + Send + 'static,
{
    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        Box::pin(self(input, ctx.clone()))
    }
}
