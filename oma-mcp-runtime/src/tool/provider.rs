//! [`ProviderToolbox`]: an agent's granted tools in a model provider's own tool format, and
//! the model's tool calls run back through the [`ToolExecutor`] (grants, validation, the
//! consequential gate, output truncation), for any client that speaks that format
//! (`async-openai`, `genai`, a hand-rolled HTTP client).

use std::collections::BTreeMap;

use oma_mcp_core::provider::{
    Provider, ProviderNameCollision, ProviderTool, Unexpressible, collect_provider_tools,
};
use serde_json::Value;

use super::{ToolContext, ToolExecutor};
use crate::ToolResult;

/// The granted tools of a [`ToolExecutor`] in one provider's form
/// ([`ProviderTool`]: provider-safe names, parameters within the provider's JSON Schema
/// subset), and the way back: [`call`](Self::call) turns the model's arguments into the
/// server's and runs the tool through the executor, so the grants and the consequential gate
/// hold inside whatever agent loop sends the requests.
///
/// ```no_run
/// # async fn demo(executor: oma_mcp_runtime::tool::ToolExecutor) {
/// use oma_mcp_runtime::provider::Provider;
/// use oma_mcp_runtime::tool::{ProviderToolbox, ToolContext};
///
/// let toolbox = ProviderToolbox::new(executor, Provider::OpenAi).unwrap();
/// let tools = toolbox.definitions(); // the request's `tools` array
/// // … the model answers with a tool call (name, arguments as JSON text) …
/// let result = toolbox
///     .call("srv_echo", r#"{"message":"hi"}"#, &ToolContext::new("agent"))
///     .await;
/// println!("{}", result.data); // the tool message for the model
/// # }
/// ```
#[derive(Debug)]
pub struct ProviderToolbox {
    provider: Provider,
    executor: ToolExecutor,
    tools: Vec<ProviderTool>,
    /// Index into `tools` by the provider name.
    by_name: BTreeMap<String, usize>,
    refused: Vec<Unexpressible>,
}

impl ProviderToolbox {
    /// The tools `executor` grants, in `provider`'s form; tools the provider cannot take are
    /// left out and listed by [`refused`](Self::refused).
    ///
    /// # Errors
    /// [`ProviderNameCollision`] when two granted tools get one provider name.
    pub fn new(executor: ToolExecutor, provider: Provider) -> Result<Self, ProviderNameCollision> {
        let (tools, refused) = collect_provider_tools(
            provider,
            executor.granted_tools().iter().map(|definition| {
                ProviderTool::from_schema(
                    &definition.name,
                    &definition.description,
                    &definition.llm_input_schema,
                    provider,
                )
            }),
        )?;
        let by_name = tools
            .iter()
            .enumerate()
            .map(|(i, tool)| (tool.name.clone(), i))
            .collect();
        Ok(Self {
            provider,
            executor,
            tools,
            by_name,
            refused,
        })
    }

    /// The provider.
    pub fn provider(&self) -> Provider {
        self.provider
    }

    /// The executor the calls run through.
    pub fn executor(&self) -> &ToolExecutor {
        &self.executor
    }

    /// The tools in the provider's form, in the executor's order, as granted when the toolbox
    /// was made (a tool withheld at that moment is not among them; one withheld since is, and
    /// its calls are refused: see [`definitions`](Self::definitions)).
    pub fn tools(&self) -> &[ProviderTool] {
        &self.tools
    }

    /// The tool definitions of a request, in the provider's format
    /// ([`ProviderTool::request_json`]), leaving out a tool withheld since the toolbox was
    /// made ([`ToolHandler::is_withheld`](super::ToolHandler::is_withheld): an MCP tool the
    /// server changed during the session under
    /// [`DriftPolicy::Quarantine`](crate::DriftPolicy::Quarantine), see [`crate::drift`]).
    pub fn definitions(&self) -> Vec<Value> {
        let registry = self.executor.registry();
        self.tools
            .iter()
            .filter(|tool| {
                registry
                    .get(&tool.tool_name)
                    .is_none_or(|definition| !definition.handler.is_withheld())
            })
            .map(ProviderTool::request_json)
            .collect()
    }

    /// The granted tools the provider cannot take, each with the JSON pointer and the reason.
    pub fn refused(&self) -> &[Unexpressible] {
        &self.refused
    }

    /// Runs the model's call of the tool it knows as `name` with `arguments` (the JSON text
    /// the provider sends, as OpenAI does, or the JSON value, as Anthropic and Gemini do: a
    /// string is parsed first) through the executor. Every failure is a [`ToolResult`] with
    /// `is_error`, worded for the model: an unknown name, arguments that are not JSON, a
    /// value that is not the JSON text its schema asks for; then the executor's own
    /// (not granted, invalid input, refused by the gate, the server's error).
    pub async fn call(
        &self,
        name: &str,
        arguments: impl Into<ToolArguments>,
        ctx: &ToolContext,
    ) -> ToolResult {
        let Some(tool) = self.by_name.get(name).map(|&i| &self.tools[i]) else {
            return ToolResult::error(format!(
                "Tool \"{name}\" is not one of the tools given to the model."
            ));
        };
        let model = match arguments.into() {
            ToolArguments::Json(value) => value,
            ToolArguments::Text(text) if text.trim().is_empty() => {
                Value::Object(Default::default())
            }
            ToolArguments::Text(text) => match serde_json::from_str(&text) {
                Ok(value) => value,
                Err(e) => {
                    return ToolResult::error(format!(
                        "The arguments of tool \"{name}\" are not JSON: {e}"
                    ));
                }
            },
        };
        let server = match tool.arguments.to_server(&model) {
            Ok(server) => server,
            Err(e) => return ToolResult::error(format!("Tool \"{name}\": {e}")),
        };
        self.executor.execute(&tool.tool_name, server, ctx).await
    }
}

/// A tool call's arguments as a provider sends them: JSON text (OpenAI) or a JSON value
/// (Anthropic's `input`, Gemini's `args`).
#[derive(Debug, Clone)]
pub enum ToolArguments {
    /// JSON text, parsed before the call (empty text is `{}`).
    Text(String),
    /// A JSON value.
    Json(Value),
}

impl From<&str> for ToolArguments {
    fn from(text: &str) -> Self {
        Self::Text(text.to_owned())
    }
}

impl From<String> for ToolArguments {
    fn from(text: String) -> Self {
        Self::Text(text)
    }
}

impl From<Value> for ToolArguments {
    fn from(value: Value) -> Self {
        match value {
            Value::String(text) => Self::Text(text),
            other => Self::Json(other),
        }
    }
}
