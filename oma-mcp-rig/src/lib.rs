//! MCP tools pinned with oma-mcp as tools of a [rig](https://docs.rs/rig-core) agent.
//!
//! open-multi-agent's `connectMCPTools()` exists to give an agent its MCP tools; this crate
//! gives them to rig's agents, with the same rules as oma-mcp's tool layer
//! ([`ToolExecutor`](oma_mcp_runtime::ToolExecutor)): local validation against the tool's
//! `inputSchema`, open-multi-agent's result mapping (and an executor's output cut), grants, and the
//! consequential gate ([`ToolCallGate`]).
//!
//! - [`McpRigTool<T>`]: a tool `oma-mcp-build` generated from a pinned snapshot, as rig's
//!   typed [`Tool`](rig_core::tool::Tool). Its `NAME` is the tool's
//!   [`MODEL_NAME`](oma_mcp_runtime::McpTool::MODEL_NAME) (taken by every provider), its
//!   parameters the tool's `inputSchema` in the chosen [`Provider`]'s JSON Schema subset, its
//!   arguments [`ModelArgs<T>`] (what the model sends, or the generated argument struct for a
//!   direct call). A consequential tool cannot be given to an agent without a gate:
//!   [`McpRigTool::new`] compiles only for tools that are
//!   [`NotConsequential`](oma_mcp_runtime::NotConsequential); [`McpRigTool::gated`] takes the
//!   gate that approves each call.
//! - [`McpDynamicTools`]: the tools an executor grants (for example every tool a server
//!   listed at connect, [`tool_definitions`](oma_mcp_runtime::tool::tool_definitions)) as
//!   rig [`DynamicTool`](rig_core::tool::DynamicTool)s. Consequential tools are refused unless
//!   the caller opts in ([`McpDynamicTools::allow_consequential`]); each call of one then runs
//!   only when the executor's gate approves it.
//!
//! A result with `isError` (and every refusal on the way: invalid input, a gate's denial)
//! reaches the model as rig's tool error ([`ToolExecutionError`](rig_core::tool::ToolExecutionError))
//! whose model-visible text is exactly the contract's [`ToolResult`](oma_mcp_runtime::ToolResult)
//! text; a successful result is that text as the tool's output.
//!
//! ```ignore
//! mod demo { oma_mcp_runtime::include_tools!("demo"); }
//!
//! let client = Arc::new(demo::connect().await?);
//! let gate = gate_fn(|call| { /* ask the user */ async { Ok(ToolCallDecision::Allow) } });
//! let agent = AgentBuilder::new(model)
//!     .tool(McpRigTool::<demo::Echo>::new(&client, Provider::OpenAi)?)
//!     // `McpRigTool::<demo::WriteFile>::new(..)` would not compile: it is consequential.
//!     .tool(McpRigTool::<demo::WriteFile>::gated(&client, Provider::OpenAi, gate)?)
//!     .build();
//! ```
//!
//! rig-core is used for its tool contracts only (not `rig-rmcp`), so a program's `rmcp`
//! version is never tied to rig's.

mod dynamic;
mod typed;

pub use dynamic::{ConsequentialTools, McpDynamicTools};
pub use oma_mcp_runtime::provider::{Provider, Unexpressible};
pub use oma_mcp_runtime::tool::{ToolCallDecision, ToolCallGate, gate_fn};
pub use typed::{McpRigTool, McpToolError, ModelArgs};

/// The agent name a bridge's calls carry ([`ToolContext::agent_name`](oma_mcp_runtime::ToolContext)),
/// which a gate sees, unless set with `with_agent_name`.
pub const DEFAULT_AGENT_NAME: &str = "rig";
