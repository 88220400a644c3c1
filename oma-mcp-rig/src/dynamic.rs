//! [`McpDynamicTools`]: the tools of a [`ProviderToolbox`] as rig [`DynamicTool`]s.

use std::sync::Arc;

use oma_mcp_runtime::provider::Unexpressible;
use oma_mcp_runtime::tool::ProviderToolbox;
use rig_core::message::ToolName;
use rig_core::tool::{DynamicTool, ToolExecutionError, ToolOutput};

use crate::DEFAULT_AGENT_NAME;
use crate::typed::{call_context, outcome};

/// The granted tools of a [`ProviderToolbox`] (an executor's tools in one provider's form) as
/// rig [`DynamicTool`]s, for tools known only at run time: every tool a server listed at
/// connect ([`tool_definitions`](oma_mcp_runtime::tool::tool_definitions)), tools written in
/// Rust ([`ToolDefinition::new`](oma_mcp_runtime::ToolDefinition::new)).
///
/// Each tool's name, description and parameters are the provider form's; a call turns the
/// model's arguments back into the server's and runs through the toolbox's executor (grants,
/// local validation, the gate, result mapping, output cut). The result's text is the tool's
/// output; an error result is rig's tool error with exactly that text.
///
/// Consequential tools ([`ToolDefinition::consequential`](oma_mcp_runtime::ToolDefinition))
/// are refused ([`ConsequentialTools`]) unless [`allow_consequential`](Self::allow_consequential)
/// opts in; each of their calls then needs the executor's gate to approve it (without a gate
/// the call is denied with open-multi-agent's "Consequential tool confirmation required before
/// execution.").
///
/// ```no_run
/// # fn demo(executor: oma_mcp_runtime::ToolExecutor) -> Result<(), Box<dyn std::error::Error>> {
/// use oma_mcp_rig::{McpDynamicTools, Provider};
/// use oma_mcp_runtime::tool::ProviderToolbox;
///
/// let toolbox = ProviderToolbox::new(executor, Provider::Anthropic)?;
/// let tools = McpDynamicTools::new(toolbox).into_tools()?;
/// // then: AgentBuilder::new(model).dynamic_tools(tools)
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct McpDynamicTools {
    toolbox: Arc<ProviderToolbox>,
    agent_name: String,
    allow_consequential: bool,
}

impl McpDynamicTools {
    /// The tools of `toolbox`; consequential ones refused until
    /// [`allow_consequential`](Self::allow_consequential).
    pub fn new(toolbox: ProviderToolbox) -> Self {
        Self {
            toolbox: Arc::new(toolbox),
            agent_name: DEFAULT_AGENT_NAME.to_owned(),
            allow_consequential: false,
        }
    }

    /// Gives the agent the consequential tools too: each of their calls runs only when the
    /// executor's gate approves it.
    #[must_use]
    pub fn allow_consequential(mut self) -> Self {
        self.allow_consequential = true;
        self
    }

    /// Sets the agent name the calls carry (what a gate sees);
    /// [`DEFAULT_AGENT_NAME`] until then.
    #[must_use]
    pub fn with_agent_name(mut self, name: impl Into<String>) -> Self {
        self.agent_name = name.into();
        self
    }

    /// The granted tools the provider cannot take (left out), each with the JSON pointer and
    /// the reason.
    pub fn refused(&self) -> &[Unexpressible] {
        self.toolbox.refused()
    }

    /// The tools, in the executor's order.
    ///
    /// # Errors
    /// [`ConsequentialTools`] naming every consequential tool when
    /// [`allow_consequential`](Self::allow_consequential) was not called.
    pub fn into_tools(self) -> Result<Vec<DynamicTool>, ConsequentialTools> {
        let registry = self.toolbox.executor().registry();
        let consequential: Vec<String> = self
            .toolbox
            .tools()
            .iter()
            .filter(|tool| {
                registry
                    .get(&tool.tool_name)
                    .is_some_and(|t| t.consequential)
            })
            .map(|tool| tool.tool_name.clone())
            .collect();
        if !consequential.is_empty() && !self.allow_consequential {
            return Err(ConsequentialTools {
                tools: consequential,
            });
        }
        let mut tools = Vec::with_capacity(self.toolbox.tools().len());
        for tool in self.toolbox.tools() {
            // Provider names are never empty (`Provider::fit_name`).
            let Ok(name) = ToolName::new(tool.name.clone()) else {
                continue;
            };
            let toolbox = Arc::clone(&self.toolbox);
            let agent_name = self.agent_name.clone();
            let provider_name = tool.name.clone();
            tools.push(DynamicTool::new(
                name,
                tool.description.clone(),
                tool.parameters.clone(),
                move |arguments| {
                    let toolbox = Arc::clone(&toolbox);
                    let agent_name = agent_name.clone();
                    let provider_name = provider_name.clone();
                    Box::pin(async move {
                        let result = toolbox
                            .call(&provider_name, arguments, &call_context(&agent_name))
                            .await;
                        outcome(result).map(ToolOutput::text).map_err(|error| {
                            ToolExecutionError::other(error.message.clone()).with_source(error)
                        })
                    })
                },
            ));
        }
        Ok(tools)
    }
}

/// Consequential tools were about to be given to an agent without
/// [`McpDynamicTools::allow_consequential`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{} consequential: call `allow_consequential()` to give {} to the agent (each call then runs \
     only when the executor's gate approves it), or leave {} out of the grants",
    if tools.len() == 1 { format!("the tool \"{}\" is", tools[0]) } else {
        format!("the tools {} are", tools.iter().map(|t| format!("\"{t}\"")).collect::<Vec<_>>().join(", "))
    },
    if tools.len() == 1 { "it" } else { "them" },
    if tools.len() == 1 { "it" } else { "them" }
)]
#[non_exhaustive]
pub struct ConsequentialTools {
    /// The consequential tools' registered names, in the executor's order.
    pub tools: Vec<String>,
}
