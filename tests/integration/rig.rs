//! The rig bridge (`oma-mcp-rig`) in a real rig agent (rig-agent's `Agent`, with rig-core's
//! scripted completion model standing in for a provider): generated tools as rig's typed
//! tools (stdio and streamable HTTP) and discovered tools as `DynamicTool`s (HTTP), each run
//! with a consequential tool that the gate refuses once and then approves. What reached the server
//! is read from its input log (stdio) or its answers (HTTP).

use std::sync::Arc;
use std::time::Duration;

use oma_mcp_rig::{McpDynamicTools, McpRigTool, Provider, ToolCallDecision, gate_fn};
use oma_mcp_runtime::tool::{ProviderToolbox, ToolCallGate, tool_definitions};
use oma_mcp_runtime::{ConnectConfig, ToolExecutor, ToolGrants, ToolRegistry, connect_mcp_tools};
use rig_agent::AgentBuilder;
use rig_core::message::{Message, UserContent};
use rig_core::test_utils::{MockCompletionModel, MockTurn};
use rig_core::tool::Tool;
use serde_json::{Value, json};

use crate::tool_layer::{calls_through, logged};

/// The own server's tools, generated from the pin `agent` (`add` is consequential there).
pub(crate) mod agent {
    oma_mcp_runtime::include_tools!("agent");
}

/// A gate that approves every call of a tool that is not consequential, and a consequential
/// call only when its `a` is 40 (the user said no to anything else).
fn forty_only() -> impl ToolCallGate {
    gate_fn(|call| {
        let approve = !call.consequential || call.input["a"] == 40;
        async move {
            Ok(if approve {
                ToolCallDecision::Allow
            } else {
                ToolCallDecision::deny_because("the user said no")
            })
        }
    })
}

/// The tool results the agent sent back to the model, in order: (tool name, text, isError).
fn tool_results(model: &MockCompletionModel) -> Vec<(String, String, bool)> {
    let requests = model.requests();
    let last = requests.last().expect("the model was asked");
    last.chat_history
        .iter()
        .filter_map(|message| match message {
            Message::User { content } => Some(content.to_vec()),
            _ => None,
        })
        .flatten()
        .filter_map(|content| match content {
            UserContent::ToolResult(result) => Some((
                result.name.as_str().to_owned(),
                result
                    .content
                    .iter()
                    .filter_map(|c| c.as_text())
                    .collect::<Vec<_>>()
                    .join(""),
                result.is_error,
            )),
            _ => None,
        })
        .collect()
}

/// The tool definitions the model was given: (name, description, parameters).
fn definitions(model: &MockCompletionModel) -> Vec<(String, String, Value)> {
    model.requests()[0]
        .tools
        .iter()
        .map(|t| {
            (
                t.name.to_string(),
                t.description.clone(),
                t.parameters.clone(),
            )
        })
        .collect()
}

/// The script: echo, a refused add, an approved add, the answer.
fn script() -> MockCompletionModel {
    MockCompletionModel::from_turns([
        MockTurn::tool_call("c1", "demo_echo", json!({"message": "hi"})),
        MockTurn::tool_call("c2", "demo_add", json!({"a": 1, "b": 2})),
        MockTurn::tool_call("c3", "demo_add", json!({"a": 40, "b": 2})),
        MockTurn::text("done"),
    ])
}

/// What the scripted run gives back to the model, whichever bridge and transport.
fn expected_results() -> Vec<(String, String, bool)> {
    vec![
        ("demo_echo".into(), "Echo: hi".into(), false),
        (
            "demo_add".into(),
            "Tool \"demo_add\" denied by onToolCall: the user said no".into(),
            true,
        ),
        ("demo_add".into(), "42".into(), false),
    ]
}

#[tokio::test]
async fn generated_tools_as_typed_rig_tools_over_stdio() {
    crate::init_tracing();
    let dir = tempfile::tempdir().unwrap();
    let (config, log) = logged(dir.path());
    let client = Arc::new(connect_mcp_tools(config).await.unwrap());

    let echo = McpRigTool::<agent::Echo>::new(&client, Provider::OpenAi).unwrap();
    let add = McpRigTool::<agent::Add>::gated(&client, Provider::OpenAi, forty_only()).unwrap();
    assert_eq!(
        <McpRigTool<agent::Add> as Tool>::NAME,
        "demo_add",
        "a name every provider takes is kept"
    );
    let model = script();
    let agent_ = AgentBuilder::new(model.clone())
        .tool(echo)
        .tool(add)
        .build();
    let answer = agent_.prompt("go").max_turns(6).await.unwrap();
    assert_eq!(answer.output(), "done");

    let defs = definitions(&model);
    assert_eq!(
        defs.iter().map(|d| d.0.as_str()).collect::<Vec<_>>(),
        ["demo_echo", "demo_add"]
    );
    // OpenAI strict form: every property required, no other properties.
    assert_eq!(
        defs[1].2,
        json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer", "description": "Left operand."},
                "b": {"type": "integer", "description": "Right operand."}
            },
            "required": ["a", "b"],
            "additionalProperties": false
        })
    );
    assert_eq!(tool_results(&model), expected_results());
    // The refused call never reached the server.
    let calls = calls_through(&log, ("add", json!({"a": 40, "b": 2}))).await;
    assert_eq!(
        calls,
        [
            ("echo".to_owned(), json!({"message": "hi"})),
            ("add".to_owned(), json!({"a": 40, "b": 2})),
        ]
    );

    // A direct typed call with the generated argument struct, outside any agent.
    let echo = McpRigTool::<agent::Echo>::new(&client, Provider::Anthropic).unwrap();
    let mut context = rig_core::tool::ToolContext::new();
    let out = Tool::call(&echo, &mut context, agent::EchoArgs::new("typed").into()).await;
    assert_eq!(out, Ok("Echo: typed".to_owned()));
    // Invalid arguments are refused locally, with the contract's text, as rig's tool error.
    let err = Tool::call(
        &echo,
        &mut context,
        oma_mcp_rig::ModelArgs::model(json!({"message": 7})),
    )
    .await
    .unwrap_err();
    assert_eq!(
        err.message,
        "Invalid input for tool \"demo_echo\":\n- /message: 7 is not of type \"string\""
    );
    let rig_error = echo.map_error(err);
    assert_eq!(
        rig_error.model_output().as_text(),
        Some("Invalid input for tool \"demo_echo\":\n- /message: 7 is not of type \"string\"")
    );
    // The server's `isError` reaches the model as rig's tool error with the contract's text.
    let fail = McpRigTool::<agent::Fail>::new(&client, Provider::OpenAi).unwrap();
    let err = Tool::call(&fail, &mut context, agent::FailArgs::new().into())
        .await
        .unwrap_err();
    assert_eq!(err.message, "This tool always fails");
    client.disconnect().await;
}

#[tokio::test]
async fn discovered_tools_as_dynamic_tools_over_http() {
    let server = crate::own_http("normal", &[]);
    let client = Arc::new(
        connect_mcp_tools(
            ConnectConfig::http(server.url())
                .with_name_prefix("demo")
                .with_request_timeout(Duration::from_secs(20)),
        )
        .await
        .unwrap(),
    );
    let executor = |gate: bool| {
        let registry = Arc::new(ToolRegistry::new());
        for def in tool_definitions(&client) {
            let consequential = def.name == "demo_add";
            registry
                .register(def.with_consequential(consequential))
                .unwrap();
        }
        let executor =
            ToolExecutor::new(registry, ToolGrants::new().allow(["demo_echo", "demo_add"]));
        if gate {
            executor.with_gate(forty_only())
        } else {
            executor
        }
    };

    // A consequential tool needs the explicit opt-in.
    let toolbox = ProviderToolbox::new(executor(true), Provider::Gemini).unwrap();
    let refused = McpDynamicTools::new(toolbox).into_tools().unwrap_err();
    assert_eq!(
        refused.to_string(),
        "the tool \"demo_add\" is consequential: call `allow_consequential()` to give it to the \
         agent (each call then runs only when the executor's gate approves it), or leave it out \
         of the grants"
    );

    let toolbox = ProviderToolbox::new(executor(true), Provider::Gemini).unwrap();
    let tools = McpDynamicTools::new(toolbox)
        .allow_consequential()
        .into_tools()
        .unwrap();
    let model = script();
    let agent_ = AgentBuilder::new(model.clone())
        .dynamic_tools(tools)
        .build();
    let answer = agent_.prompt("go").max_turns(6).await.unwrap();
    assert_eq!(answer.output(), "done");
    let defs = definitions(&model);
    assert_eq!(defs[0].0, "demo_add");
    // Gemini's form: its own type names, no `additionalProperties`.
    assert_eq!(
        defs[0].2,
        json!({
            "type": "OBJECT",
            "properties": {
                "a": {"type": "INTEGER", "description": "Left operand."},
                "b": {"type": "INTEGER", "description": "Right operand."}
            },
            "required": ["a", "b"]
        })
    );
    assert_eq!(tool_results(&model), expected_results());

    // The generated tools over the same HTTP connection, in Anthropic's form.
    let model = script();
    let agent_ = AgentBuilder::new(model.clone())
        .tool(McpRigTool::<agent::Echo>::new(&client, Provider::Anthropic).unwrap())
        .tool(McpRigTool::<agent::Add>::gated(&client, Provider::Anthropic, forty_only()).unwrap())
        .build();
    let answer = agent_.prompt("go").max_turns(6).await.unwrap();
    assert_eq!(answer.output(), "done");
    assert_eq!(tool_results(&model), expected_results());

    // Without a gate, the opted-in consequential tool is denied: confirmation is required.
    let toolbox = ProviderToolbox::new(executor(false), Provider::Gemini).unwrap();
    let tools = McpDynamicTools::new(toolbox)
        .allow_consequential()
        .into_tools()
        .unwrap();
    let add = tools
        .iter()
        .find(|t| t.name().as_str() == "demo_add")
        .unwrap();
    let err = add.execute(json!({"a": 40, "b": 2})).await.unwrap_err();
    assert_eq!(
        err.model_output().as_text(),
        Some(
            "Tool \"demo_add\" denied by onToolCall: Consequential tool confirmation required \
             before execution."
        )
    );
    client.disconnect().await;
}

/// The pin `agent` is the own server with other settings: its snapshot is `own`'s, byte for byte.
#[test]
fn the_agent_pins_snapshot_is_the_own_servers() {
    assert_eq!(
        crate::typed::committed("tests/servers/agent.snapshot.json"),
        crate::typed::committed(crate::typed::OWN_SNAPSHOT)
    );
}
