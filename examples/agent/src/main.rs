//! An agent loop over an MCP server, with oma-mcp's tool layer between the model and the
//! server, and no network: the model is scripted.
//!
//! 1. The binary starts the project's own MCP server as a child process of itself
//!    (`oma-mcp-agent serve`) and connects over stdio.
//! 2. Its tools go into a `ToolRegistry`; the agent is granted two of them, and `demo_add` is
//!    marked consequential (a manifest's `consequential` list does this for generated code).
//! 3. A gate stands for the user: it approves a consequential call only when the user says
//!    yes (here: only sums whose first term is 40).
//! 4. `ProviderToolbox` gives the model the tools in OpenAI's strict function-calling format
//!    and runs each tool call the model makes back through the executor (grants, validation,
//!    the gate, output truncation).
//! 5. `ScriptedModel` answers like a chat-completions endpoint, with tool calls in a fixed
//!    order, then a final text built from the tool results it was sent.
//!
//! Run: `cargo run -p oma-mcp-agent-example`.
//!
//! To talk to a real model instead, replace the scripted turn with a request to the provider;
//! with `async-openai` (its `chat().create` takes the same `tools` array and returns the same
//! `tool_calls`), the three lines are:
//!
//! ```text
//! let request = serde_json::from_value(json!({"model": "gpt-4.1", "messages": messages, "tools": tools}))?;
//! let response = async_openai::Client::new().chat().create(request).await?;
//! let turn = serde_json::to_value(&response.choices[0].message)?; // {"content", "tool_calls"}
//! ```

use std::collections::VecDeque;
use std::process::ExitCode;
use std::sync::Arc;

use oma_mcp_runtime::provider::Provider;
use oma_mcp_runtime::tool::{
    ProviderToolbox, ToolCallDecision, ToolContext, ToolExecutor, ToolGrants, ToolRegistry,
    gate_fn, tool_definitions,
};
use oma_mcp_runtime::{ConnectConfig, connect_mcp_tools};
use serde_json::{Value, json};

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    if std::env::args().nth(1).as_deref() == Some("serve") {
        return match oma_mcp_test_server::serve_stdio().await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("oma-mcp-agent serve: {e}");
                ExitCode::FAILURE
            }
        };
    }
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("oma-mcp-agent: {e}");
            ExitCode::from(2)
        }
    }
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let exe = std::env::current_exe()?;
    let config = ConnectConfig::new(exe.to_string_lossy())
        .with_args(["serve"])
        .with_name_prefix("demo");
    let client = Arc::new(connect_mcp_tools(config).await?);

    let registry = Arc::new(ToolRegistry::new());
    for tool in tool_definitions(&client) {
        let consequential = tool.name == "demo_add";
        registry.register(tool.with_consequential(consequential))?;
    }
    // The user, asked before each consequential call.
    let gate = gate_fn(|call| {
        let yes = !call.consequential || call.input["a"] == 40;
        if call.consequential {
            println!(
                "gate: {} {} → {}",
                call.tool_name,
                call.input,
                if yes { "approved" } else { "refused" }
            );
        }
        async move {
            Ok(if yes {
                ToolCallDecision::Allow
            } else {
                ToolCallDecision::deny_because("the user said no")
            })
        }
    });
    let executor = ToolExecutor::new(registry, ToolGrants::new().allow(["demo_echo", "demo_add"]))
        .with_gate(gate);
    let toolbox = ProviderToolbox::new(executor, Provider::OpenAi)?;
    let tools = toolbox.definitions();
    let ctx = ToolContext::new("agent").with_consequential_confirmation(true);

    let mut model = ScriptedModel::new();
    let mut messages =
        vec![json!({"role": "user", "content": "Say hi, then add 1 and 2, or else 40 and 2."})];
    loop {
        // A real provider gets `messages` and `tools` here (see the module docs).
        let turn = model.respond(&messages, &tools);
        let Some(calls) = turn["tool_calls"]
            .as_array()
            .filter(|c| !c.is_empty())
            .cloned()
        else {
            println!("model: {}", turn["content"].as_str().unwrap_or_default());
            break;
        };
        messages.push(turn.clone());
        for call in calls {
            let name = call["function"]["name"].as_str().unwrap_or_default();
            let arguments = call["function"]["arguments"].as_str().unwrap_or("{}");
            println!("model calls {name} {arguments}");
            let result = toolbox.call(name, arguments, &ctx).await;
            println!(
                "  {}: {}",
                if result.is_error { "error" } else { "result" },
                result.data
            );
            messages
                .push(json!({"role": "tool", "tool_call_id": call["id"], "content": result.data}));
        }
    }
    client.disconnect().await;
    Ok(())
}

/// A model that answers in OpenAI's chat-completions shape (`{"role", "content",
/// "tool_calls"}`), with tool calls in a fixed order, then a final text from the tool
/// results it was sent. It checks that it was given the tools it calls.
struct ScriptedModel {
    turns: VecDeque<Vec<(&'static str, Value)>>,
}

impl ScriptedModel {
    fn new() -> Self {
        Self {
            turns: VecDeque::from([
                vec![("demo_echo", json!({"message": "hi"}))],
                vec![("demo_add", json!({"a": 1, "b": 2}))],
                vec![("demo_add", json!({"a": 40, "b": 2}))],
            ]),
        }
    }

    fn respond(&mut self, messages: &[Value], tools: &[Value]) -> Value {
        let Some(calls) = self.turns.pop_front() else {
            let results: Vec<&str> = messages
                .iter()
                .filter(|m| m["role"] == "tool")
                .filter_map(|m| m["content"].as_str())
                .collect();
            return json!({"role": "assistant", "content": format!("Done: {}", results.join(" | "))});
        };
        let tool_calls: Vec<Value> = calls
            .into_iter()
            .enumerate()
            .map(|(i, (name, arguments))| {
                assert!(
                    tools.iter().any(|t| t["function"]["name"] == name),
                    "the model was not given {name}"
                );
                json!({
                    "id": format!("call_{}_{i}", messages.len()),
                    "type": "function",
                    "function": {"name": name, "arguments": arguments.to_string()},
                })
            })
            .collect();
        json!({"role": "assistant", "content": null, "tool_calls": tool_calls})
    }
}
