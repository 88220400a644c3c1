//! [`ToolDefinition`], and the definitions of an MCP server's tools (open-multi-agent's
//! `docs/mcp.md`: its introduction and "Input validation is delegated to the server").

use std::sync::Arc;

use oma_mcp_core::descriptor::{mcp_description, mcp_llm_input_schema};
use serde_json::{Value, json};

use super::{BoxFuture, ToolContext, ToolHandler};
use crate::connect::DiscoveredTool;
use crate::validate::InputValidator;
use crate::{McpClient, McpTool, ToolResult};

/// One tool as the tool layer sees it (open-multi-agent's `ToolDefinition`).
///
/// Build one with [`ToolDefinition::new`] (a tool written in Rust) or get one per MCP tool
/// from [`tool_definitions`](super::tool_definitions). Cloning is cheap apart from the schema (the handler
/// and validator are shared).
#[derive(Clone)]
#[non_exhaustive]
pub struct ToolDefinition {
    /// The name the model calls the tool by; registry key and grant name.
    pub name: String,
    /// What the model reads about the tool.
    pub description: String,
    /// The JSON Schema of the input shown to the model (open-multi-agent's `llmInputSchema`).
    pub llm_input_schema: Value,
    /// Whether the tool has real side effects; with
    /// [`ToolContext::require_consequential_confirmation`] it runs only when the gate approves.
    pub consequential: bool,
    /// A per-tool output limit in UTF-16 units, taking priority over the executor's
    /// (open-multi-agent's per-tool `maxOutputChars`). `None`: the executor's limit applies.
    pub max_output_chars: Option<usize>,
    /// Local input validation, run by the executor before the gate and the execution; `None`
    /// validates nothing.
    pub input_validator: Option<Arc<InputValidator>>,
    /// The execution.
    pub handler: Arc<dyn ToolHandler>,
}

impl std::fmt::Debug for ToolDefinition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolDefinition")
            .field("name", &self.name)
            .field("description", &self.description)
            .field("llm_input_schema", &self.llm_input_schema)
            .field("consequential", &self.consequential)
            .field("max_output_chars", &self.max_output_chars)
            .field("validates_input", &self.input_validator.is_some())
            .finish_non_exhaustive()
    }
}

impl ToolDefinition {
    /// A tool named `name` that runs `handler`: not consequential, no per-tool output limit,
    /// no local input validation (add it with [`ToolDefinition::with_input_validation`]).
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        llm_input_schema: Value,
        handler: impl ToolHandler + 'static,
    ) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            llm_input_schema,
            consequential: false,
            max_output_chars: None,
            input_validator: None,
            handler: Arc::new(handler),
        }
    }

    /// Marks the tool consequential (or not): open-multi-agent's `consequential` metadata. MCP
    /// tools are not consequential unless the caller says so (open-multi-agent's `docs/mcp.md`,
    /// "Granting MCP tools to an agent").
    #[must_use]
    pub fn with_consequential(mut self, consequential: bool) -> Self {
        self.consequential = consequential;
        self
    }

    /// Sets the per-tool output limit in UTF-16 units. `None`: the executor's limit applies;
    /// `Some(0)`: this tool's output is never cut (as open-multi-agent's `maxOutputChars ?? …`).
    #[must_use]
    pub fn with_max_output_chars(mut self, max: Option<usize>) -> Self {
        self.max_output_chars = max;
        self
    }

    /// Turns local validation of the input against [`ToolDefinition::llm_input_schema`] on
    /// (compiled on first use, see [`crate::validate`]) or off.
    #[must_use]
    pub fn with_input_validation(mut self, validate: bool) -> Self {
        self.input_validator = validate.then(|| {
            Arc::new(InputValidator::new(
                self.name.clone(),
                self.llm_input_schema.clone(),
            ))
        });
        self
    }

    /// Runs the handler alone, without any step of the executor's pipeline (no grant, gate,
    /// validation or truncation).
    pub async fn execute(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        self.handler.call(input, ctx).await
    }

    /// The definition of the discovered MCP tool `tool` of `client` (what
    /// [`tool_definitions`] returns for each tool):
    ///
    /// - `name`: the normalized name ([`DiscoveredTool::name`]);
    /// - `description`: the server's `description` when it is a string, else
    ///   `MCP tool: <raw name>`;
    /// - `llm_input_schema`: the server's `inputSchema` unchanged when it is a JSON object,
    ///   else (missing, `null`, any other JSON) `{"type":"object"}`;
    /// - `consequential`: [`DiscoveredTool::consequential`], the connection's rule (by default a
    ///   tool whose annotations say `destructiveHint: true` without `readOnlyHint: true`, as
    ///   generated code marks it; beyond open-multi-agent, which marks no MCP tool);
    /// - `input_validator`: validation against `llm_input_schema` when `validate` is true;
    /// - `handler`: an [`McpToolHandler`] calling the raw name.
    pub fn from_mcp(client: &Arc<McpClient>, tool: &DiscoveredTool, validate: bool) -> Self {
        let description = mcp_description(&tool.mcp_name, &tool.descriptor);
        let schema = mcp_llm_input_schema(&tool.descriptor);
        let handler = McpToolHandler::new(Arc::clone(client), tool.mcp_name.clone());
        Self::new(tool.name.clone(), description, schema, handler)
            .with_consequential(tool.consequential)
            .with_input_validation(validate)
    }

    /// The definition of the generated tool `T` on `client`: `name` [`McpTool::NAME`],
    /// `description` [`McpTool::DESCRIPTION`] (else `MCP tool: <raw name>`),
    /// `llm_input_schema` [`McpTool::INPUT_SCHEMA`], `consequential`
    /// [`McpTool::CONSEQUENTIAL`] (so the executor's confirmation gate applies), local input
    /// validation on, and an [`McpToolHandler`] calling [`McpTool::MCP_NAME`].
    ///
    /// ```ignore
    /// let write = ToolDefinition::from_typed::<fs::WriteFile>(&client);
    /// assert!(write.consequential);
    /// ```
    pub fn from_typed<T: McpTool>(client: &Arc<McpClient>) -> Self {
        let description = T::DESCRIPTION
            .map_or_else(|| mcp_description(T::MCP_NAME, &Value::Null), str::to_owned);
        let schema = serde_json::from_str::<Value>(T::INPUT_SCHEMA)
            .ok()
            .filter(Value::is_object)
            .unwrap_or_else(|| json!({"type": "object"}));
        let handler = McpToolHandler::new(Arc::clone(client), T::MCP_NAME);
        Self::new(T::NAME, description, schema, handler)
            .with_consequential(T::CONSEQUENTIAL)
            .with_input_validation(true)
    }
}

/// The execution of one MCP tool: `tools/call` to its raw name on a shared client, with the
/// context's cancellation token as the abort signal, the result mapped as open-multi-agent maps it.
#[derive(Debug, Clone)]
pub struct McpToolHandler {
    client: Arc<McpClient>,
    mcp_name: String,
}

impl McpToolHandler {
    /// The handler calling the raw MCP name `mcp_name` on `client`.
    pub fn new(client: Arc<McpClient>, mcp_name: impl Into<String>) -> Self {
        Self {
            client,
            mcp_name: mcp_name.into(),
        }
    }

    /// The raw MCP name called.
    pub fn mcp_name(&self) -> &str {
        &self.mcp_name
    }
}

impl ToolHandler for McpToolHandler {
    /// An object `input` is sent as `arguments`; `null` sends none. Anything else cannot be
    /// MCP arguments and gives `MCP tool "<raw>" failed: arguments must be a JSON object, not
    /// <json>` without a call. Otherwise an untyped [`McpClient::call_tool`] with
    /// [`cancel_on`](crate::ToolCall::cancel_on)([`ToolContext::cancel`]), ended with
    /// [`mapped`](crate::ToolCall::mapped): failures are `MCP tool "<raw>" failed: <message>`
    /// results.
    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let arguments = match input {
                Value::Object(map) => Some(map),
                Value::Null => None,
                other => {
                    return ToolResult::failed(
                        &self.mcp_name,
                        &format!("arguments must be a JSON object, not {other}"),
                    );
                }
            };
            self.client
                .call_tool(&self.mcp_name)
                .arguments(arguments)
                .cancel_on(&ctx.cancel)
                .mapped()
                .await
        })
    }

    /// [`McpClient::is_withheld`] of the raw name (cargo feature `drift`; without it, the
    /// default `false`).
    #[cfg(feature = "drift")]
    fn is_withheld(&self) -> bool {
        self.client.is_withheld(&self.mcp_name)
    }

    /// The quarantine's check of the raw name (cargo feature `drift`; without it, the default
    /// `None`): a withheld tool's result is the [`ToolWithheld`](crate::ToolWithheld) text;
    /// when the tools cannot be listed again to check, `MCP tool "<raw>" failed: <message>`.
    #[cfg(feature = "drift")]
    fn refusal(&self) -> BoxFuture<'_, Option<ToolResult>> {
        Box::pin(async move {
            match self.client.admit(&self.mcp_name).await {
                Ok(()) => None,
                Err(crate::Error::Withheld(withheld)) => {
                    Some(ToolResult::error(withheld.to_string()))
                }
                Err(e) => Some(ToolResult::failed(&self.mcp_name, &e.chain().to_string())),
            }
        })
    }
}

/// One [`ToolDefinition`] per tool `client` discovered at connect, in the server's order (see
/// [`ToolDefinition::from_mcp`] for each field). They share the client, so it lives as long as
/// any definition; call [`McpClient::disconnect`] when done.
///
/// Arguments are validated locally unless the connection was made with
/// [`ConnectConfig::with_validate_input(false)`](crate::ConnectConfig::with_validate_input).
///
/// A tool is [`consequential`](ToolDefinition::consequential) by the rule generated code
/// follows ([`crate::consequential`]): by default when its annotations say
/// `destructiveHint: true` without `readOnlyHint: true`; the connection's
/// [`ConnectConfig::with_consequential`](crate::ConnectConfig::with_consequential),
/// [`with_not_consequential`](crate::ConnectConfig::with_not_consequential) and
/// [`with_consequential_annotations`](crate::ConnectConfig::with_consequential_annotations)
/// (a generated `connect_config()` carries the manifest's) change it. So no discovered
/// destructive tool reaches a model ungated unless the program says so in code.
///
/// A tool that the connection's [`DriftPolicy::Quarantine`](crate::DriftPolicy::Quarantine)
/// withholds now ([`McpClient::withheld`], cargo feature `drift`) is left out (see
/// [`crate::drift`]).
pub fn tool_definitions(client: &Arc<McpClient>) -> Vec<ToolDefinition> {
    let validate = client.validates_input();
    client
        .tools()
        .iter()
        .filter(|tool| !withheld(client, &tool.mcp_name))
        .map(|tool| ToolDefinition::from_mcp(client, tool, validate))
        .collect()
}

/// Whether the quarantine withholds `mcp_name` now.
#[cfg(feature = "drift")]
fn withheld(client: &McpClient, mcp_name: &str) -> bool {
    client.is_withheld(mcp_name)
}

/// Without cargo feature `drift` there is no quarantine: nothing is withheld.
#[cfg(not(feature = "drift"))]
fn withheld(_client: &McpClient, _mcp_name: &str) -> bool {
    false
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn description_falls_back_to_the_raw_name() {
        let d = |v: Value| mcp_description("a/b", &v);
        assert_eq!(d(json!({"description": "Does it"})), "Does it");
        assert_eq!(d(json!({"description": ""})), "");
        assert_eq!(d(json!({})), "MCP tool: a/b");
        assert_eq!(d(json!({"description": null})), "MCP tool: a/b");
        assert_eq!(d(json!({"description": 7})), "MCP tool: a/b");
    }

    #[test]
    fn schema_is_the_servers_object_or_type_object() {
        let s = |v: Value| mcp_llm_input_schema(&v);
        let own = json!({"type": "object", "properties": {"x": {"type": "string"}}, "x-v": 1});
        assert_eq!(s(json!({ "inputSchema": own.clone() })), own);
        assert_eq!(s(json!({"inputSchema": {}})), json!({}));
        for missing in [
            json!({}),
            json!({"inputSchema": null}),
            json!({"inputSchema": "object"}),
            json!({"inputSchema": [1]}),
            json!({"inputSchema": true}),
        ] {
            assert_eq!(s(missing), json!({"type": "object"}));
        }
    }

    #[tokio::test]
    async fn rust_tools_and_options() {
        let def = ToolDefinition::new(
            "echo",
            "Echoes",
            json!({"type": "object", "required": ["m"]}),
            |input: Value, ctx: ToolContext| async move {
                ToolResult::text(format!("{}:{}", ctx.agent_name, input["m"]))
            },
        );
        assert!(!def.consequential && def.input_validator.is_none());
        assert_eq!(def.max_output_chars, None);
        let def = def
            .with_consequential(true)
            .with_max_output_chars(Some(5))
            .with_input_validation(true);
        assert!(def.consequential);
        assert_eq!(def.max_output_chars, Some(5));
        let validator = def.input_validator.clone().unwrap();
        assert_eq!(validator.tool(), "echo");
        assert_eq!(
            validator.check(&json!({})),
            Err("Invalid input for tool \"echo\":\n- /: \"m\" is a required property".to_owned())
        );
        let r = def.execute(json!({"m": 1}), &ToolContext::new("a")).await;
        assert_eq!(r, ToolResult::text("a:1"));
        assert!(def.with_input_validation(false).input_validator.is_none());
    }
}
