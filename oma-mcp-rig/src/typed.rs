//! [`McpRigTool`]: a generated MCP tool as rig's typed [`Tool`].

use std::marker::PhantomData;
use std::sync::Arc;

use oma_mcp_runtime::provider::{Provider, ProviderTool, Unexpressible};
use oma_mcp_runtime::tool::{
    ProviderToolbox, ToolCallGate, ToolDefinition, ToolExecutor, ToolGrants, ToolRegistry,
};
use oma_mcp_runtime::{McpClient, McpTool, NotConsequential, ToolArgs, ToolResult};
use rig_core::tool::{Tool, ToolContext, ToolExecutionError};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use crate::DEFAULT_AGENT_NAME;

/// The generated tool `T` (a marker type `oma-mcp-build` wrote from a pinned snapshot) as
/// rig's typed [`Tool`].
///
/// - `NAME`: [`McpTool::MODEL_NAME`], a name OpenAI, Anthropic and Gemini all take;
/// - `description()`: the tool's description (open-multi-agent's: the server's, else
///   `MCP tool: <raw name>`);
/// - `parameters()`: the tool's `inputSchema` in the [`Provider`]'s JSON Schema subset
///   ([`ProviderTool`]);
/// - `Args`: [`ModelArgs<T>`]: what the model sends (turned back into the server's arguments
///   by the provider form's converter), or `T`'s generated argument struct for a direct call;
/// - `call()`: the tool layer's pipeline ([`ToolExecutor`]: local validation against the
///   exact `inputSchema`, the gate, `tools/call`, open-multi-agent's result mapping); `Ok` is the mapped result's text, and a result with `isError` (or a
///   refusal on the way) is an [`McpToolError`] that rig hands the model with exactly that
///   text.
///
/// A consequential tool ([`McpTool::CONSEQUENTIAL`]) runs only through a gate:
/// [`new`](Self::new) compiles only for [`NotConsequential`] tools, and
/// [`gated`](Self::gated) asks the gate before every call (its decision is the confirmation,
/// as with open-multi-agent's `requireConsequentialConfirmation`).
///
/// ```
/// # use oma_mcp_rig::{McpRigTool, Provider};
/// # mod demo {
/// #     #[derive(serde::Serialize, serde::Deserialize)]
/// #     pub struct EchoArgs { pub message: String }
/// #     pub struct Echo;
/// #     impl oma_mcp_runtime::McpTool for Echo {
/// #         type Args = EchoArgs;
/// #         type Output = Option<serde_json::Value>;
/// #         const MCP_NAME: &'static str = "echo";
/// #         const NAME: &'static str = "demo_echo";
/// #         const DESCRIPTION: Option<&'static str> = Some("Echoes");
/// #         const INPUT_SCHEMA: &'static str = r#"{"properties":{"message":{"type":"string"}},"required":["message"],"type":"object"}"#;
/// #         const DIGEST: &'static str = "sha256:0";
/// #         const CONSEQUENTIAL: bool = false;
/// #         fn validators() -> &'static oma_mcp_runtime::typed::ToolValidators {
/// #             static V: oma_mcp_runtime::typed::ToolValidators = oma_mcp_runtime::typed::ToolValidators::new();
/// #             &V
/// #         }
/// #     }
/// #     impl oma_mcp_runtime::ToolArgs for EchoArgs { type Tool = Echo; }
/// #     impl oma_mcp_runtime::NotConsequential for Echo {}
/// # }
/// # fn demo(client: std::sync::Arc<oma_mcp_runtime::McpClient>) -> Result<(), oma_mcp_rig::Unexpressible> {
/// let echo = McpRigTool::<demo::Echo>::new(&client, Provider::OpenAi)?;
/// // then: AgentBuilder::new(model).tool(echo)
/// # let _ = echo; Ok(())
/// # }
/// ```
///
/// A consequential tool without a gate does not compile:
///
/// ```compile_fail,E0277
/// # use oma_mcp_rig::{McpRigTool, Provider};
/// # mod demo {
/// #     #[derive(serde::Serialize, serde::Deserialize)]
/// #     pub struct WriteArgs { pub path: String }
/// #     pub struct Write;
/// #     impl oma_mcp_runtime::McpTool for Write {
/// #         type Args = WriteArgs;
/// #         type Output = Option<serde_json::Value>;
/// #         const MCP_NAME: &'static str = "write";
/// #         const NAME: &'static str = "demo_write";
/// #         const DESCRIPTION: Option<&'static str> = None;
/// #         const INPUT_SCHEMA: &'static str = r#"{"type":"object"}"#;
/// #         const DIGEST: &'static str = "sha256:0";
/// #         const CONSEQUENTIAL: bool = true;
/// #         fn validators() -> &'static oma_mcp_runtime::typed::ToolValidators {
/// #             static V: oma_mcp_runtime::typed::ToolValidators = oma_mcp_runtime::typed::ToolValidators::new();
/// #             &V
/// #         }
/// #     }
/// #     impl oma_mcp_runtime::ToolArgs for WriteArgs { type Tool = Write; }
/// # }
/// # fn demo(client: std::sync::Arc<oma_mcp_runtime::McpClient>) -> Result<(), oma_mcp_rig::Unexpressible> {
/// // error[E0277]: `Write` is a consequential MCP tool: calling it needs an explicit confirmation
/// let write = McpRigTool::<demo::Write>::new(&client, Provider::OpenAi)?;
/// # let _ = write; Ok(())
/// # }
/// ```
pub struct McpRigTool<T> {
    toolbox: ProviderToolbox,
    agent_name: String,
    tool: PhantomData<fn() -> T>,
}

impl<T> std::fmt::Debug for McpRigTool<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpRigTool")
            .field("tool", &self.provider_tool().tool_name)
            .field("provider", &self.toolbox.provider())
            .field("agent_name", &self.agent_name)
            .finish_non_exhaustive()
    }
}

impl<T: McpTool> McpRigTool<T> {
    /// The tool `T` of `client` for an agent whose model is `provider`'s. Compiles only for
    /// a tool that is not consequential (the bound is on the function, so a consequential
    /// `T` is error E0277 with `NotConsequential`'s message, "`T` is a consequential MCP
    /// tool: calling it needs an explicit confirmation"); use [`gated`](Self::gated) for one.
    ///
    /// # Errors
    /// [`Unexpressible`] (tool and JSON pointer) when `provider` cannot take the tool's
    /// `inputSchema` (for Gemini, a recursive schema).
    pub fn new(client: &Arc<McpClient>, provider: Provider) -> Result<Self, Unexpressible>
    where
        T: NotConsequential,
    {
        Self::build(client, provider, |executor| executor)
    }

    /// The tool `T` of `client`, consequential or not, whose every call runs only when `gate`
    /// approves it ([`ToolCallDecision::Allow`](crate::ToolCallDecision::Allow)); a denial
    /// reaches the model as `Tool "<name>" denied by onToolCall: <reason>`.
    ///
    /// # Errors
    /// As [`new`](Self::new).
    pub fn gated(
        client: &Arc<McpClient>,
        provider: Provider,
        gate: impl ToolCallGate + 'static,
    ) -> Result<Self, Unexpressible> {
        Self::build(client, provider, |executor| executor.with_gate(gate))
    }

    fn build(
        client: &Arc<McpClient>,
        provider: Provider,
        gated: impl FnOnce(ToolExecutor) -> ToolExecutor,
    ) -> Result<Self, Unexpressible> {
        let registry = Arc::new(ToolRegistry::new());
        registry
            .register(ToolDefinition::from_typed::<T>(client))
            .expect("an empty registry takes any tool");
        let executor = gated(ToolExecutor::new(
            registry,
            ToolGrants::new().allow([T::NAME]),
        ));
        let toolbox =
            ProviderToolbox::new(executor, provider).expect("one tool cannot collide with another");
        if let Some(refused) = toolbox.refused().first() {
            return Err(refused.clone());
        }
        Ok(Self {
            toolbox,
            agent_name: DEFAULT_AGENT_NAME.to_owned(),
            tool: PhantomData,
        })
    }
}

impl<T> McpRigTool<T> {
    /// Sets the agent name the calls carry (what a gate sees as
    /// [`agent_name`](oma_mcp_runtime::tool::GateRequest::agent_name));
    /// [`DEFAULT_AGENT_NAME`] until then.
    #[must_use]
    pub fn with_agent_name(mut self, name: impl Into<String>) -> Self {
        self.agent_name = name.into();
        self
    }

    /// The tool in the provider's form: the name the provider would be given on its own,
    /// the description, the parameters and the argument converter.
    pub fn provider_tool(&self) -> &ProviderTool {
        &self.toolbox.tools()[0]
    }
}

impl<T> Tool for McpRigTool<T>
where
    T: McpTool + 'static,
    T::Args: Send + Sync,
{
    const NAME: &'static str = T::MODEL_NAME;
    type Args = ModelArgs<T>;
    type Output = String;
    type Error = McpToolError;

    fn description(&self) -> String {
        self.provider_tool().description.clone()
    }

    fn parameters(&self) -> Value {
        self.provider_tool().parameters.clone()
    }

    /// rig's tool error with the contract's text as what the model reads.
    fn map_error(&self, error: McpToolError) -> ToolExecutionError {
        ToolExecutionError::other(error.message.clone()).with_source(error)
    }

    async fn call(
        &self,
        _context: &mut ToolContext,
        args: ModelArgs<T>,
    ) -> Result<String, McpToolError> {
        let ctx = call_context(&self.agent_name);
        let result = match args.0 {
            Inner::Model(value) => {
                self.toolbox
                    .call(&self.provider_tool().name, value, &ctx)
                    .await
            }
            Inner::Typed(args) => match serde_json::to_value(&args) {
                Ok(value) => self.toolbox.executor().execute(T::NAME, value, &ctx).await,
                Err(e) => ToolResult::error(format!(
                    "The arguments of tool \"{}\" do not serialize to JSON: {e}",
                    T::NAME
                )),
            },
        };
        outcome(result)
    }
}

/// The context of one call from a rig agent: `agent_name`, and consequential confirmation
/// required (a consequential tool runs only on the gate's approval).
pub(crate) fn call_context(agent_name: &str) -> oma_mcp_runtime::ToolContext {
    oma_mcp_runtime::ToolContext::new(agent_name).with_consequential_confirmation(true)
}

/// The mapped result as rig's tool outcome: its text, or an [`McpToolError`] with it.
pub(crate) fn outcome(result: ToolResult) -> Result<String, McpToolError> {
    if result.is_error {
        Err(McpToolError {
            message: result.data,
        })
    } else {
        Ok(result.data)
    }
}

/// A call that ended with an error result: the server's `isError`, a failed call, or a
/// refusal of the tool layer (invalid input, not granted, a gate's denial). `message` is
/// open-multi-agent's text for it, which the model reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
#[non_exhaustive]
pub struct McpToolError {
    /// The error result's text (open-multi-agent's `docs/mcp.md`, "Errors").
    pub message: String,
}

/// The arguments of a call of [`McpRigTool<T>`]: what the model sent (any JSON, in the
/// provider form of the tool's parameters; rig deserializes it), or `T`'s generated argument
/// struct for a direct typed call (`From`: `tool.call(&mut ctx, EchoArgs::new("hi").into())`).
///
/// Not the generated struct itself: what a model sends follows the provider's form of the
/// schema (for OpenAI strict mode a `null` for an absent property, for Gemini renamed
/// properties and numbers as strings in enums, values of any shape as JSON text), which only
/// the provider form's converter turns back into the server's arguments.
pub struct ModelArgs<T: McpTool>(Inner<T>);

enum Inner<T: McpTool> {
    Model(Value),
    Typed(T::Args),
}

impl<T: McpTool> ModelArgs<T> {
    /// Arguments as the model sent them (the provider's form).
    pub fn model(value: Value) -> Self {
        Self(Inner::Model(value))
    }

    /// The tool's generated argument struct: sent as it serializes.
    pub fn typed(args: T::Args) -> Self {
        Self(Inner::Typed(args))
    }
}

impl<A: ToolArgs> From<A> for ModelArgs<A::Tool> {
    fn from(args: A) -> Self {
        Self::typed(args)
    }
}

impl<T: McpTool> std::fmt::Debug for ModelArgs<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Inner::Model(value) => f.debug_tuple("ModelArgs::model").field(value).finish(),
            Inner::Typed(_) => f.debug_tuple("ModelArgs::typed").field(&T::NAME).finish(),
        }
    }
}

impl<'de, T: McpTool> Deserialize<'de> for ModelArgs<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // rig reads a `null` from the model as no arguments (`{}`); so does this.
        Value::deserialize(deserializer).map(|value| match value {
            Value::Null => Self::model(Value::Object(Default::default())),
            other => Self::model(other),
        })
    }
}
