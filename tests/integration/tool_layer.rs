//! The tool layer against the own test server (open-multi-agent's `docs/mcp.md`: MCP tools are
//! ordinary tools of an agent): tool definitions, local input validation (on and off), cancellation
//! of an in-flight call, consequential confirmation through the executor's gate.
//!
//! The server runs behind `sh -c 'tee <log> | <server>'`, so the tests read every line the
//! client sent and can prove what did (and did not) reach the server.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use oma_mcp_runtime::tool::{ToolCallDecision, gate_fn};
use oma_mcp_runtime::{
    CancellationToken, ConnectConfig, McpClient, ToolContext, ToolExecutor, ToolGrants,
    ToolRegistry, connect_mcp_tools,
};
use serde_json::{Value, json};

use crate::{args, init_tracing, server_bin};

/// A config running the own server (normal mode) behind `tee`, and the log of client lines.
pub(crate) fn logged(dir: &Path) -> (ConnectConfig, PathBuf) {
    let log = dir.join("client-to-server.jsonl");
    let script = format!(
        "tee '{}' | exec '{}'",
        log.display(),
        server_bin().display()
    );
    let config = ConnectConfig::new("sh")
        .with_args(["-c", script.as_str()])
        .with_env(oma_mcp_test_server::MODE_VAR, "normal")
        .with_name_prefix("own")
        .with_request_timeout(Duration::from_secs(20));
    (config, log)
}

/// Every JSON line the client sent so far.
pub(crate) fn sent(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The `tools/call` requests the client sent: (id, raw tool name, arguments).
pub(crate) fn calls(log: &Path) -> Vec<(Value, String, Value)> {
    sent(log)
        .into_iter()
        .filter(|m| m["method"] == "tools/call")
        .map(|m| {
            (
                m["id"].clone(),
                m["params"]["name"].as_str().unwrap_or_default().to_owned(),
                m["params"]["arguments"].clone(),
            )
        })
        .collect()
}

/// The `tools/call` requests as (name, arguments), once the call `last` is in the log: `tee`
/// writes to the server before the log file, so an answer can arrive before its line is logged.
pub(crate) async fn calls_through(log: &Path, last: (&str, Value)) -> Vec<(String, Value)> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let all: Vec<(String, Value)> = calls(log).into_iter().map(|(_, n, a)| (n, a)).collect();
        if all.iter().any(|(n, a)| n == last.0 && *a == last.1) || Instant::now() > deadline {
            return all;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A registry with every tool of `client`, `own_add` marked consequential.
fn registry_with_consequential_add(client: &Arc<McpClient>) -> Arc<ToolRegistry> {
    let registry = Arc::new(ToolRegistry::new());
    for def in oma_mcp_runtime::tool::tool_definitions(client) {
        let consequential = def.name == "own_add";
        registry
            .register(def.with_consequential(consequential))
            .unwrap();
    }
    registry
}

/// A registry with every tool of `client` and an executor granting them all.
fn executor_for(client: &Arc<McpClient>) -> ToolExecutor {
    let registry = Arc::new(ToolRegistry::new());
    let tools = oma_mcp_runtime::tool::tool_definitions(client);
    let names: Vec<String> = tools.iter().map(|t| t.name.clone()).collect();
    registry.register_all(tools).unwrap();
    ToolExecutor::new(registry, ToolGrants::new().allow(names))
}

#[tokio::test]
async fn definitions_of_the_own_server() {
    init_tracing();
    let dir = tempfile::tempdir().unwrap();
    let client = Arc::new(connect_mcp_tools(logged(dir.path()).0).await.unwrap());
    let defs = oma_mcp_runtime::tool::tool_definitions(&client);
    assert_eq!(defs.len(), 13);
    let echo = defs.iter().find(|d| d.name == "own_echo").unwrap();
    assert_eq!(
        echo.description,
        "Echoes the message back as `Echo: <message>`"
    );
    assert_eq!(
        echo.llm_input_schema,
        client.tool("own_echo").unwrap().descriptor["inputSchema"]
    );
    assert!(!echo.consequential);
    assert!(echo.input_validator.is_some());
    assert!(defs.iter().all(|d| !d.consequential));

    let registry = ToolRegistry::new();
    registry
        .register_all(oma_mcp_runtime::tool::tool_definitions(&client))
        .unwrap();
    let e = registry
        .register(oma_mcp_runtime::tool::tool_definitions(&client).remove(0))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "ToolRegistry: a tool named \"own_add\" is already registered. Use a unique name or \
         deregister the existing one first."
    );
    client.disconnect().await;
}

#[tokio::test]
async fn invalid_arguments_never_reach_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let (config, log) = logged(dir.path());
    let client = Arc::new(connect_mcp_tools(config).await.unwrap());
    let executor = executor_for(&client);
    let ctx = ToolContext::new("agent");

    let r = executor
        .execute("own_echo", json!({"message": 5, "extra": [1]}), &ctx)
        .await;
    assert_eq!(
        (r.data.as_str(), r.is_error),
        (
            "Invalid input for tool \"own_echo\":\n- /message: 5 is not of type \"string\"",
            true
        )
    );
    let r = executor
        .execute(
            "own_describe_pet",
            json!({"pet": {"name": "Rex", "kind": "cow"}}),
            &ctx,
        )
        .await;
    assert_eq!(
        r.data,
        "Invalid input for tool \"own_describe_pet\":\n- /pet/kind: \"cow\" is not one of \"cat\" or \"dog\""
    );
    // `exit` would stop the server: with a wrong type it is never sent, the server lives on.
    let r = executor
        .execute("own_exit", json!({"code": "now"}), &ctx)
        .await;
    assert_eq!(
        r.data,
        "Invalid input for tool \"own_exit\":\n- /code: \"now\" is not of type \"integer\""
    );
    let r = executor
        .execute("own_echo", json!({"message": "still here"}), &ctx)
        .await;
    assert_eq!((r.data.as_str(), r.is_error), ("Echo: still here", false));
    let r = executor
        .execute(
            "own_describe_pet",
            json!({"pet": {"name": "Rex", "kind": "dog"}}),
            &ctx,
        )
        .await;
    assert_eq!(r.data, "Rex is a dog");
    // The log holds exactly the two valid calls.
    let names = calls_through(
        &log,
        (
            "describe_pet",
            json!({"pet": {"name": "Rex", "kind": "dog"}}),
        ),
    )
    .await;
    assert_eq!(
        names,
        [
            ("echo".to_owned(), json!({"message": "still here"})),
            (
                "describe_pet".to_owned(),
                json!({"pet": {"name": "Rex", "kind": "dog"}})
            ),
        ]
    );
    // Even with the connection gone, invalid input is answered locally.
    client.disconnect().await;
    let r = executor.execute("own_echo", json!({}), &ctx).await;
    assert_eq!(
        r.data,
        "Invalid input for tool \"own_echo\":\n- /: \"message\" is a required property"
    );
    let r = executor
        .execute("own_echo", json!({"message": "x"}), &ctx)
        .await;
    assert_eq!(r.data, "MCP tool \"echo\" failed: Not connected");
}

#[tokio::test]
async fn validation_off_sends_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let (config, log) = logged(dir.path());
    let client = Arc::new(
        connect_mcp_tools(config.with_validate_input(false))
            .await
            .unwrap(),
    );
    assert!(!client.validates_input());
    assert!(
        oma_mcp_runtime::tool::tool_definitions(&client)
            .iter()
            .all(|d| d.input_validator.is_none())
    );
    let executor = executor_for(&client);
    let r = executor
        .execute(
            "own_echo",
            json!({"message": 5}),
            &ToolContext::new("agent"),
        )
        .await;
    // rmcp's server answers a bad argument type with an `isError` result.
    assert_eq!(
        (r.data.as_str(), r.is_error),
        (
            "failed to deserialize parameters: invalid type: integer `5`, expected a string",
            true
        )
    );
    let sent = calls_through(&log, ("echo", json!({"message": 5}))).await;
    assert_eq!(sent, [("echo".to_owned(), json!({"message": 5}))]);
    client.disconnect().await;
}

/// The first message the client sent with `method`, waiting up to 5 s for `tee` to log it.
pub(crate) async fn first_sent(log: &Path, method: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match sent(log).into_iter().find(|m| m["method"] == method) {
            Some(m) => return m,
            None if Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            None => panic!("no {method} was sent"),
        }
    }
}

/// A call that times out tells the server with `notifications/cancelled` for its request id,
/// with the reason the TypeScript SDK sends.
#[tokio::test]
async fn a_timed_out_call_sends_notifications_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let (config, log) = logged(dir.path());
    let client = connect_mcp_tools(config.with_request_timeout(Duration::from_secs(2)))
        .await
        .unwrap();
    let err = client
        .call_tool("sleep")
        .arguments(args(json!({"ms": 10_000})))
        .raw()
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "MCP error -32001: Request timed out");
    calls_through(&log, ("sleep", json!({"ms": 10_000}))).await;
    let (id, name, _) = calls(&log).pop().unwrap();
    assert_eq!(name, "sleep");
    let cancelled = first_sent(&log, "notifications/cancelled").await;
    assert_eq!(
        cancelled,
        json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {
                "requestId": id,
                "reason": "McpError: MCP error -32001: Request timed out"
            }
        })
    );
    client.disconnect().await;
}

#[tokio::test]
async fn cancelling_an_in_flight_call() {
    let dir = tempfile::tempdir().unwrap();
    let (config, log) = logged(dir.path());
    let client = Arc::new(connect_mcp_tools(config).await.unwrap());
    let executor = executor_for(&client);

    let cancel = CancellationToken::new();
    let ctx = ToolContext::new("agent").with_cancel(cancel.clone());
    let trigger = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        cancel.cancel();
    });
    let start = Instant::now();
    let r = executor
        .execute("own_sleep", json!({"ms": 10_000}), &ctx)
        .await;
    let elapsed = start.elapsed();
    trigger.await.unwrap();
    assert_eq!(
        (r.data.as_str(), r.is_error),
        (
            "MCP tool \"sleep\" failed: This operation was aborted",
            true
        )
    );
    assert!(elapsed < Duration::from_secs(3), "took {elapsed:?}");

    // The server was told, with the request's id.
    calls_through(&log, ("sleep", json!({"ms": 10_000}))).await;
    let (id, name, _) = calls(&log).pop().unwrap();
    assert_eq!(name, "sleep");
    let deadline = Instant::now() + Duration::from_secs(5);
    let cancelled = loop {
        let found = sent(&log)
            .into_iter()
            .find(|m| m["method"] == "notifications/cancelled");
        match found {
            Some(m) => break m,
            None if Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            None => panic!("no notifications/cancelled was sent"),
        }
    };
    assert_eq!(
        cancelled["params"],
        json!({"requestId": id, "reason": "AbortError: This operation was aborted"})
    );

    // The session goes on.
    let ctx = ToolContext::new("agent");
    let r = executor
        .execute("own_echo", json!({"message": "after"}), &ctx)
        .await;
    assert_eq!((r.data.as_str(), r.is_error), ("Echo: after", false));

    // Cancelled before the start: nothing is sent, by the executor or by the client.
    let gone = CancellationToken::new();
    gone.cancel();
    let r = executor
        .execute(
            "own_echo",
            json!({"message": "x"}),
            &ToolContext::new("agent").with_cancel(gone.clone()),
        )
        .await;
    assert_eq!(
        r.data,
        "Tool \"own_echo\" was aborted before execution began."
    );
    let e = client
        .call_tool("echo")
        .arguments(args(json!({"message": "x"})))
        .cancel_on(&gone)
        .raw()
        .await
        .unwrap_err();
    assert!(e.is_cancelled());
    assert_eq!(e.to_string(), "This operation was aborted");
    let r = client
        .call_tool("echo")
        .arguments(args(json!({"message": "y"})))
        .cancel_on(&CancellationToken::new())
        .mapped()
        .await;
    assert_eq!(r.data, "Echo: y");
    let sent = calls_through(&log, ("echo", json!({"message": "y"}))).await;
    assert_eq!(
        sent,
        [
            ("sleep".to_owned(), json!({"ms": 10_000})),
            ("echo".to_owned(), json!({"message": "after"})),
            ("echo".to_owned(), json!({"message": "y"})),
        ]
    );
    client.disconnect().await;
}

#[tokio::test]
async fn consequential_confirmation_with_a_gate() {
    let dir = tempfile::tempdir().unwrap();
    let (config, log) = logged(dir.path());
    let client = Arc::new(connect_mcp_tools(config).await.unwrap());
    let registry = registry_with_consequential_add(&client);
    let grants = ToolGrants::new().allow(["own_add", "own_echo"]);
    let confirm = ToolContext::new("agent").with_consequential_confirmation(true);
    let add = || json!({"a": 40, "b": -2});

    // No gate: a consequential tool is not run.
    let plain = ToolExecutor::new(Arc::clone(&registry), grants.clone());
    let r = plain.execute("own_add", add(), &confirm).await;
    assert_eq!(
        (r.data.as_str(), r.is_error),
        (
            "Tool \"own_add\" denied by onToolCall: Consequential tool confirmation required \
             before execution.",
            true
        )
    );
    // Other tools are not affected.
    let r = plain
        .execute("own_echo", json!({"message": "hi"}), &confirm)
        .await;
    assert_eq!(r.data, "Echo: hi");

    // A gate that approves only sums it has seen the arguments of.
    let gate = gate_fn(|call| {
        let approve = !call.consequential || call.input["a"] == 40;
        async move {
            Ok(if approve {
                ToolCallDecision::Allow
            } else {
                ToolCallDecision::deny_because("the user said no")
            })
        }
    });
    let gated = ToolExecutor::new(Arc::clone(&registry), grants).with_gate(gate);
    let r = gated.execute("own_add", add(), &confirm).await;
    assert_eq!((r.data.as_str(), r.is_error), ("38", false));
    let r = gated
        .execute("own_add", json!({"a": 1, "b": 2}), &confirm)
        .await;
    assert_eq!(
        r.data,
        "Tool \"own_add\" denied by onToolCall: the user said no"
    );

    let sent = calls_through(&log, ("add", add())).await;
    assert_eq!(
        sent,
        [
            ("echo".to_owned(), json!({"message": "hi"})),
            ("add".to_owned(), add()),
        ]
    );
    client.disconnect().await;
}

/// The granted tools in a provider's form (`ProviderToolbox`), with a scripted model's tool
/// calls in that form: the model's arguments are turned back into the server's, and the gate
/// holds for a consequential tool (refused, then approved).
#[tokio::test]
async fn provider_toolbox_runs_a_scripted_models_calls_through_the_gate() {
    use oma_mcp_runtime::provider::Provider;
    use oma_mcp_runtime::tool::ProviderToolbox;

    let dir = tempfile::tempdir().unwrap();
    let (config, log) = logged(dir.path());
    let client = Arc::new(connect_mcp_tools(config).await.unwrap());
    let registry = registry_with_consequential_add(&client);
    let grants = ToolGrants::new().allow(["own_add", "own_echo"]);
    let confirm = ToolContext::new("agent").with_consequential_confirmation(true);
    let gate = gate_fn(|call| {
        let approve = !call.consequential || call.input["a"] == 40;
        async move {
            Ok(if approve {
                ToolCallDecision::Allow
            } else {
                ToolCallDecision::deny_because("the user said no")
            })
        }
    });
    let executor = ToolExecutor::new(Arc::clone(&registry), grants).with_gate(gate);

    let openai = ProviderToolbox::new(executor.clone(), Provider::OpenAi).unwrap();
    assert!(openai.refused().is_empty());
    let names: Vec<&str> = openai.tools().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["own_add", "own_echo"]);
    let echo = openai
        .definitions()
        .into_iter()
        .find(|d| d["function"]["name"] == "own_echo")
        .unwrap();
    assert_eq!(echo["function"]["strict"], true);
    assert_eq!(
        echo["function"]["parameters"]["additionalProperties"],
        false
    );

    // The scripted model: OpenAI sends arguments as JSON text.
    let r = openai
        .call("own_echo", r#"{"message":"hi"}"#, &confirm)
        .await;
    assert_eq!((r.data.as_str(), r.is_error), ("Echo: hi", false));
    let r = openai.call("own_add", r#"{"a":1,"b":2}"#, &confirm).await;
    assert_eq!(
        (r.data.as_str(), r.is_error),
        (
            "Tool \"own_add\" denied by onToolCall: the user said no",
            true
        )
    );
    let r = openai.call("own_add", r#"{"a":40,"b":-2}"#, &confirm).await;
    assert_eq!((r.data.as_str(), r.is_error), ("38", false));
    let r = openai.call("own_sub", "{}", &confirm).await;
    assert_eq!(
        r.data,
        "Tool \"own_sub\" is not one of the tools given to the model."
    );
    let r = openai.call("own_echo", "{\"message\":", &confirm).await;
    assert_eq!(
        r.data,
        "The arguments of tool \"own_echo\" are not JSON: EOF while parsing a value at line 1 \
         column 11"
    );

    // Anthropic sends a JSON value.
    let anthropic = ProviderToolbox::new(executor, Provider::Anthropic).unwrap();
    let r = anthropic
        .call("own_echo", json!({"message": "from claude"}), &confirm)
        .await;
    assert_eq!(r.data, "Echo: from claude");

    let sent = calls_through(&log, ("echo", json!({"message": "from claude"}))).await;
    assert_eq!(
        sent,
        [
            ("echo".to_owned(), json!({"message": "hi"})),
            ("add".to_owned(), json!({"a": 40, "b": -2})),
            ("echo".to_owned(), json!({"message": "from claude"})),
        ]
    );
    client.disconnect().await;
}

/// The same over streamable HTTP: Gemini's form of the own server's tools, its calls (JSON
/// values, an integer as `40.0`) run through the executor and its gate.
#[tokio::test]
async fn provider_toolbox_over_http() {
    use oma_mcp_runtime::provider::Provider;
    use oma_mcp_runtime::tool::ProviderToolbox;

    let server = crate::own_http("normal", &[]);
    let client = Arc::new(
        connect_mcp_tools(
            ConnectConfig::http(server.url())
                .with_name_prefix("own")
                .with_request_timeout(Duration::from_secs(20)),
        )
        .await
        .unwrap(),
    );
    let registry = registry_with_consequential_add(&client);
    let gate = gate_fn(|call| {
        let approve = call.input["a"] == 40;
        async move {
            Ok(if approve {
                ToolCallDecision::Allow
            } else {
                ToolCallDecision::deny_because("not that sum")
            })
        }
    });
    let executor =
        ToolExecutor::new(registry, ToolGrants::new().allow(["own_add"])).with_gate(gate);
    let gemini = ProviderToolbox::new(executor, Provider::Gemini).unwrap();
    assert_eq!(
        gemini.definitions()[0]["parameters"]["properties"]["a"]["type"],
        "INTEGER"
    );
    let confirm = ToolContext::new("agent").with_consequential_confirmation(true);
    let r = gemini
        .call("own_add", json!({"a": 40.0, "b": -2}), &confirm)
        .await;
    assert_eq!((r.data.as_str(), r.is_error), ("38", false));
    let r = gemini
        .call("own_add", json!({"a": 1, "b": 2}), &confirm)
        .await;
    assert_eq!(
        r.data,
        "Tool \"own_add\" denied by onToolCall: not that sum"
    );
    client.disconnect().await;
}

/// A connection with `tools` and `exclude-tools`: only the selected tools are discovered and
/// reach the tool layer; the drift check at run time compares only them (a full pin of the
/// server shows no change, although the connection sees ten tools fewer); an entry matching
/// no tool is kept (a warning) and a raw call still reaches a tool left out.
#[tokio::test]
async fn only_the_selected_tools_reach_the_tool_layer() {
    init_tracing();
    let dir = tempfile::tempdir().unwrap();
    let (config, log) = logged(dir.path());
    let full = connect_mcp_tools(config.clone()).await.unwrap();
    let pin = full.snapshot().unwrap();
    full.disconnect().await;
    assert_eq!(pin.tools.len(), 13);

    let config = config
        .with_tools(["echo", "s*", "no_such_tool"])
        .with_exclude_tools(["sleep"]);
    let client = Arc::new(connect_mcp_tools(config).await.unwrap());
    let names: Vec<&str> = client.tools().iter().map(|t| t.mcp_name.as_str()).collect();
    assert_eq!(names, ["echo", "structured"]);
    let defs: Vec<String> = oma_mcp_runtime::tool::tool_definitions(&client)
        .into_iter()
        .map(|d| d.name)
        .collect();
    assert_eq!(defs, ["own_echo", "own_structured"]);
    assert_eq!(
        client.tool_selection().tools(),
        ["echo", "s*", "no_such_tool"]
    );
    assert!(client.drift_against(&pin).is_empty());
    let result = client
        .call_tool("add")
        .arguments(args(json!({"a": 1, "b": 2})))
        .mapped()
        .await;
    assert_eq!(result.data, "3");
    assert_eq!(calls(&log).last().unwrap().1, "add");
    client.disconnect().await;

    let bad = logged(dir.path()).0.with_exclude_tools(["a[b"]);
    let err = connect_mcp_tools(bad).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid `exclude-tools` pattern \"a[b\" at character 1: invalid range pattern (use \
         an exact tool name or a glob such as \"delete_*\"; an entry is read as a glob, so a \
         name holding `*`, `?`, `[`, `]`, `{` or `}` puts each such character in brackets: \
         \"a[[]b\" is the name a[b)"
    );
}
