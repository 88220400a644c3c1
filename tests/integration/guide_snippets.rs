//! The Rust examples of the guide (`docs/guide/src/`) that need a module generated here: each
//! region between a `// GUIDE: begin <name>` line and the next `// GUIDE: end` line is shown
//! verbatim (less its common indentation) in a chapter, and this test target compiles it, so an
//! example that no longer compiles fails the build (`guide::rust_blocks_are_compiled_regions`
//! checks that every Rust block of the guide and the README is such a region). They are not
//! run: each needs a server, a login or a model that the tests elsewhere provide (`typed`,
//! `filesystem`, `quarantine`, `oauth`, `rig`).

// The functions are only compiled, and the examples bind values a reader would use next
// (`agent`, `raw`).
#![allow(dead_code, unused_variables)]

use oma_mcp_runtime::McpClient;
use oma_mcp_runtime::descriptor::ToolDescriptor;
use oma_mcp_runtime::error::Report;
use oma_mcp_runtime::tool::ToolCallGate;
use rig_core::test_utils::MockCompletionModel;
use serde_json::Value;

use crate::filesystem::fs;
use crate::rig::agent as demo;
use crate::typed::everything;

/// `typed-calls.md`, "The call builder".
async fn typed_and_raw_calls(client: &McpClient) -> Result<(), Report> {
    // GUIDE: begin typed-and-raw
    let sum = client
        .call(everything::GetSumArgs::new(2.0, 40.5))
        .typed()
        .await?;
    let raw = client
        .call_tool("get-sum")
        .arguments(serde_json::json!({"a": 2, "b": 3}).as_object().cloned())
        .timeout(std::time::Duration::from_secs(5))
        .raw()
        .await?;
    // GUIDE: end
    Ok(())
}

/// `typed-calls.md`, "Building arguments".
fn building_arguments() -> fs::SearchFilesArgs {
    // GUIDE: begin search-files-args
    let args = fs::SearchFilesArgs::new("src", "*.rs")
        .with_exclude_patterns(vec!["target".to_owned(), "*.generated.rs".to_owned()]);
    // GUIDE: end
    args
}

/// `typed-calls.md`, "Consequential tools".
async fn confirmed_call(client: &McpClient, path: String) -> Result<(), Report> {
    // GUIDE: begin confirmed-write
    // client.call(args).typed() does not compile: `WriteFile` is a consequential MCP tool.
    let written = client
        .call(fs::WriteFileArgs::new(path, "text"))
        .confirmed()
        .typed()
        .await?;
    // GUIDE: end
    Ok(())
}

/// `three-ways.md`, "The runtime alone".
async fn runtime_only() -> Result<(), Report> {
    // GUIDE: begin runtime-only
    use oma_mcp_runtime::{ConnectConfig, connect_mcp_tools};

    // Any server, no manifest, no snapshot: its tools are whatever it lists now.
    let config = ConnectConfig::new("node_modules/.bin/mcp-server-everything")
        .with_args(["stdio"])
        .with_name_prefix("everything");
    let client = connect_mcp_tools(config).await?;
    for tool in client.tools() {
        println!("{} (MCP name {})", tool.name, tool.mcp_name);
    }
    let result = client
        .call_tool("echo")
        .arguments(serde_json::json!({"message": "hi"}).as_object().cloned())
        .mapped()
        .await;
    println!("{} (isError: {})", result.data, result.is_error);
    client.disconnect().await;
    // GUIDE: end
    Ok(())
}

/// `drift.md`, "Drift at run time".
async fn quarantine() -> Result<(), Report> {
    // GUIDE: begin quarantine
    use oma_mcp_runtime::DriftPolicy;

    let (client, _report) = everything::connect(DriftPolicy::Quarantine).await?;
    for (tool, withheld) in client.withheld() {
        eprintln!("{tool}: withheld for {} changes", withheld.changes.len());
    }
    // A call of a withheld tool: Error::Withheld (CallError::Withheld for a typed call), e.g.
    // the tool `echo` of MCP server `own` differs from its snapshot, so it is withheld (1 change:
    // /description: tool description changed: "…" → "…"); review the changes with `oma-mcp
    // check`, then take a new snapshot with `oma-mcp snapshot` and rebuild to regenerate the code
    // GUIDE: end
    Ok(())
}

/// `remote.md`, "In your program".
fn oauth_by_hand() -> Result<(), Report> {
    // GUIDE: begin oauth-by-hand
    use oma_mcp_runtime::ConnectConfig;
    use oma_mcp_runtime::connect::{OAuthConfig, TokenSource};
    use oma_mcp_runtime::oauth::{LoginStore, OAuthClient};

    let url = "https://mcp.linear.app/mcp";
    // The stored login of `oma-mcp login`, refreshed as needed:
    let config = ConnectConfig::http(url).with_oauth(OAuthConfig::authorization_code());
    // Client credentials from the environment:
    let ci = ConnectConfig::http(url).with_oauth(OAuthConfig::client_credentials(
        "MCP_CLIENT_ID",
        "MCP_CLIENT_SECRET",
    ));
    // Your own store or flow: implement `TokenProvider` (an access token per request, new
    // credentials when the server refuses them), or configure the runtime's client yourself:
    let client = OAuthClient::new(url, &OAuthConfig::authorization_code(), "my-agent")?
        .with_store(LoginStore::new("/var/lib/my-agent/oauth"));
    let config = ConnectConfig::http(url).with_token_provider(TokenSource::new(client));
    // GUIDE: end
    Ok(())
}

/// `agents.md`, "Tools for a model provider".
fn provider_forms(descriptor: ToolDescriptor, from_the_model: Value) -> Result<(), Report> {
    // GUIDE: begin provider
    use oma_mcp_runtime::provider::{Provider, ProviderTool};

    let tool = ProviderTool::new(&descriptor, Provider::OpenAi)?; // or Anthropic, Gemini
    let definition = tool.request_json(); // {"type":"function","function":{…,"strict":true}}
    // … the model answers with arguments for `tool.name` …
    let arguments = tool.arguments.to_server(&from_the_model)?; // what the MCP server expects
    // GUIDE: end
    Ok(())
}

/// `agents.md`, "rig agents".
async fn rig_agents(
    model: MockCompletionModel,
    your_gate: impl ToolCallGate + 'static,
) -> Result<(), Report> {
    // GUIDE: begin rig
    use std::sync::Arc;

    use oma_mcp_rig::{McpDynamicTools, McpRigTool, Provider, ToolCallDecision, gate_fn};
    use oma_mcp_runtime::tool::{ProviderToolbox, tool_definitions};
    use oma_mcp_runtime::{ToolExecutor, ToolGrants, ToolRegistry, connect_mcp_tools};
    use rig_agent::AgentBuilder;

    let client = Arc::new(connect_mcp_tools(demo::connect_config()).await?);
    let ask_the_user = gate_fn(|call| {
        let ok = call.input["a"] == 40; // your confirmation UI here
        async move {
            Ok(if ok {
                ToolCallDecision::Allow
            } else {
                ToolCallDecision::deny_because("the user said no")
            })
        }
    });
    let agent = AgentBuilder::new(model.clone())
        // A generated tool as rig's typed `Tool` (`NAME` "demo_echo", parameters in OpenAI's strict form).
        .tool(McpRigTool::<demo::Echo>::new(&client, Provider::OpenAi)?)
        // `add` is consequential: `McpRigTool::<demo::Add>::new(..)` does not compile (error
        // E0277: "`Add` is a consequential MCP tool: calling it needs an explicit confirmation").
        .tool(McpRigTool::<demo::Add>::gated(
            &client,
            Provider::OpenAi,
            ask_the_user,
        )?)
        .build();

    // Tools known only at run time (every tool the server listed), as rig `DynamicTool`s: a
    // consequential one (a manifest entry, or `destructiveHint: true`) only with the explicit
    // opt-in, and then only through the executor's gate.
    let registry = Arc::new(ToolRegistry::new());
    registry.register_all(tool_definitions(&client))?;
    let executor = ToolExecutor::new(registry, ToolGrants::new().allow(["demo_echo", "demo_add"]))
        .with_gate(your_gate); // a gate as `ask_the_user` above
    let toolbox = ProviderToolbox::new(executor, Provider::Anthropic)?;
    let tools = McpDynamicTools::new(toolbox)
        .allow_consequential()
        .into_tools()?;
    let agent = AgentBuilder::new(model).dynamic_tools(tools).build();
    // GUIDE: end
    Ok(())
}
