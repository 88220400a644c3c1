//! The request builder of a tool call ([`oma_mcp_runtime::ToolCall`]) against the own test
//! server: each ending (`raw`, `outcome`, `mapped`, `typed`) with exact values, and each
//! setting (`arguments`, `timeout`, `cancel_on`, `progress`, `answering`, `confirmed`) with
//! what it did and, read from the `tee` log of [`crate::tool_layer`], what reached the
//! server.

use std::time::{Duration, Instant};

use oma_mcp_runtime::error::RequestError;
use oma_mcp_runtime::{
    CallError, CallOutcome, CancellationToken, Error, Progress, connect_mcp_tools,
};
use serde_json::{Value, json};

use crate::tool_layer::{calls, calls_through, first_sent, logged, sent};
use crate::typed::own;
use crate::{args, echo, own, server_bin};

/// The raw result of the own server's `echo` with `message` (a 2026-07-28 session).
fn echoed(message: &str) -> Value {
    json!({
        "resultType": "complete",
        "content": [{"type": "text", "text": format!("Echo: {message}")}],
        "isError": false
    })
}

/// The `params` of the `tools/call` requests the client sent with `message` as the
/// `echo` argument.
fn echo_params(log: &std::path::Path, message: &str) -> Vec<Value> {
    sent(log)
        .into_iter()
        .filter(|m| m["method"] == "tools/call" && m["params"]["arguments"]["message"] == message)
        .map(|m| m["params"].clone())
        .collect()
}

#[tokio::test]
async fn the_endings_of_an_untyped_call() {
    let dir = tempfile::tempdir().unwrap();
    let (config, log) = logged(dir.path());
    let client = connect_mcp_tools(config).await.unwrap();
    let call = || {
        client
            .call_tool("echo")
            .arguments(args(json!({"message": "hi"})))
    };
    assert_eq!(call().tool_name(), "echo");
    assert_eq!(call().raw().await.unwrap(), echoed("hi"));
    assert_eq!(
        call().outcome().await.unwrap(),
        CallOutcome::Complete(echoed("hi"))
    );
    assert_eq!(
        call().mapped().await.to_json(),
        json!({"data": "Echo: hi", "isError": false, "modelOutput": null})
    );

    // A JSON-RPC error: `raw` and `outcome` fail with it, `mapped` is the contract's result.
    let err = client.call_tool("no_such_tool").raw().await.unwrap_err();
    assert_eq!(err.to_string(), "MCP error -32602: tool not found");
    let err = client
        .call_tool("no_such_tool")
        .outcome()
        .await
        .unwrap_err();
    assert_eq!(err.rpc_code(), Some(-32602));
    let r = client.call_tool("no_such_tool").mapped().await;
    assert_eq!(
        (r.data.as_str(), r.is_error),
        (
            "MCP tool \"no_such_tool\" failed: MCP error -32602: tool not found",
            true
        )
    );

    // Without `arguments` (or with `None`), the request has no `arguments` member.
    let tiny = client.call_tool("tiny_image").raw().await.unwrap();
    assert_eq!(tiny["content"][0]["type"], "image");
    let again = client
        .call_tool("tiny_image")
        .arguments(None)
        .raw()
        .await
        .unwrap();
    assert_eq!(again, tiny);
    calls_through(&log, ("no_such_tool", Value::Null)).await;
    let deadline = Instant::now() + Duration::from_secs(5);
    let tiny_params = loop {
        let found: Vec<Value> = sent(&log)
            .into_iter()
            .filter(|m| m["method"] == "tools/call" && m["params"]["name"] == "tiny_image")
            .map(|m| m["params"].clone())
            .collect();
        if found.len() == 2 || Instant::now() > deadline {
            break found;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(tiny_params.len(), 2);
    assert!(
        tiny_params.iter().all(|p| p.get("arguments").is_none()),
        "{tiny_params:?}"
    );
    client.disconnect().await;
}

/// A call's own timeout ends it with an error naming the duration and tells the server as the
/// request timeout does; the next call has the session's timeout again.
#[tokio::test]
async fn a_call_s_own_timeout_fires_with_its_duration_and_the_session_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let (config, log) = logged(dir.path());
    // The request timeout is 20 s.
    let client = connect_mcp_tools(config).await.unwrap();
    let start = Instant::now();
    let err = client
        .call_tool("sleep")
        .arguments(args(json!({"ms": 10_000})))
        .timeout(Duration::from_millis(250))
        .raw()
        .await
        .unwrap_err();
    let took = start.elapsed();
    assert!(took < Duration::from_secs(5), "took {took:?}");
    assert_eq!(
        err.to_string(),
        "MCP error -32001: Request timed out after 250ms (the call's own timeout)"
    );
    assert!(
        matches!(&err, Error::Request(RequestError::Timeout { method, timeout, per_call: true, .. })
            if method == "tools/call" && *timeout == Duration::from_millis(250)),
        "{err:?}"
    );
    assert!(err.is_timeout());
    assert_eq!(err.rpc_code(), Some(-32001));
    calls_through(&log, ("sleep", json!({"ms": 10_000}))).await;
    let (id, _, _) = calls(&log).pop().unwrap();
    assert_eq!(
        first_sent(&log, "notifications/cancelled").await["params"],
        json!({"requestId": id, "reason": "McpError: MCP error -32001: Request timed out"})
    );

    // The session goes on, with its own timeout.
    assert_eq!(echo(&client, "after").await.data, "Echo: after");
    let r = client
        .call_tool("sleep")
        .arguments(args(json!({"ms": 10_000})))
        .timeout(Duration::from_millis(100))
        .mapped()
        .await;
    assert_eq!(
        (r.data.as_str(), r.is_error),
        (
            "MCP tool \"sleep\" failed: MCP error -32001: Request timed out after 100ms (the \
             call's own timeout)",
            true
        )
    );

    // A zero timeout fails without sending anything.
    let err = client
        .call_tool("echo")
        .arguments(args(json!({"message": "never sent"})))
        .timeout(Duration::ZERO)
        .raw()
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "MCP error -32001: Request timed out after 0ns (the call's own timeout)"
    );
    assert_eq!(echo(&client, "after zero").await.data, "Echo: after zero");
    calls_through(&log, ("echo", json!({"message": "after zero"}))).await;
    assert_eq!(echo_params(&log, "never sent"), Vec::<Value>::new());
    client.disconnect().await;
}

/// A call's own timeout may be longer than the request timeout; without one, the request
/// timeout holds, with the contract's text alone.
#[tokio::test]
async fn a_call_s_own_timeout_can_be_longer_than_the_request_timeout() {
    let client = connect_mcp_tools(own("normal").with_request_timeout(Duration::from_secs(2)))
        .await
        .unwrap();
    let slept = client
        .call_tool("sleep")
        .arguments(args(json!({"ms": 2_500})))
        .timeout(Duration::from_secs(20))
        .mapped()
        .await;
    assert_eq!(
        (slept.data.as_str(), slept.is_error),
        ("Slept 2500 ms", false)
    );
    let err = client
        .call_tool("sleep")
        .arguments(args(json!({"ms": 2_500})))
        .raw()
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "MCP error -32001: Request timed out");
    assert!(
        matches!(&err, Error::Request(RequestError::Timeout { method, timeout, per_call: false, .. })
            if method == "tools/call" && *timeout == Duration::from_secs(2)),
        "{err:?}"
    );
    client.disconnect().await;
}

/// `cancel_on`: cancelling the token ends the call at once and tells the server; a token
/// cancelled before the ending sends nothing; the session goes on.
#[tokio::test]
async fn cancel_on_ends_the_call_and_tells_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let (config, log) = logged(dir.path());
    let client = connect_mcp_tools(config).await.unwrap();
    let cancel = CancellationToken::new();
    let trigger = {
        let cancel = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            cancel.cancel();
        })
    };
    let start = Instant::now();
    let err = client
        .call_tool("sleep")
        .arguments(args(json!({"ms": 10_000})))
        .cancel_on(&cancel)
        .raw()
        .await
        .unwrap_err();
    trigger.await.unwrap();
    let took = start.elapsed();
    assert!(took < Duration::from_secs(5), "took {took:?}");
    assert_eq!(err.to_string(), "This operation was aborted");
    assert!(
        matches!(&err, Error::Request(RequestError::Cancelled { method, .. }) if method == "tools/call"),
        "{err:?}"
    );
    assert!(err.is_cancelled());
    calls_through(&log, ("sleep", json!({"ms": 10_000}))).await;
    let (id, _, _) = calls(&log).pop().unwrap();
    assert_eq!(
        first_sent(&log, "notifications/cancelled").await["params"],
        json!({"requestId": id, "reason": "AbortError: This operation was aborted"})
    );

    // Already cancelled: the contract's error result, and no request.
    let r = client
        .call_tool("echo")
        .arguments(args(json!({"message": "never sent"})))
        .cancel_on(&cancel)
        .mapped()
        .await;
    assert_eq!(
        (r.data.as_str(), r.is_error),
        ("MCP tool \"echo\" failed: This operation was aborted", true)
    );
    // A token that is never cancelled changes nothing.
    let r = client
        .call_tool("echo")
        .arguments(args(json!({"message": "after"})))
        .cancel_on(&CancellationToken::new())
        .mapped()
        .await;
    assert_eq!((r.data.as_str(), r.is_error), ("Echo: after", false));
    calls_through(&log, ("echo", json!({"message": "after"}))).await;
    assert_eq!(echo_params(&log, "never sent"), Vec::<Value>::new());
    client.disconnect().await;
}

/// `progress`: every `notifications/progress` of the call reaches the callback, in order,
/// before the ending returns, whichever the ending; a call's own timeout still ends a call
/// that keeps reporting progress.
#[tokio::test]
async fn progress_reports_each_notification_in_order() {
    let client = connect_mcp_tools(own("progress")).await.unwrap();
    let mut seen: Vec<Progress> = Vec::new();
    let r = client
        .call_tool("slow_count")
        .arguments(args(json!({"steps": 3, "ms": 10})))
        .progress(|p| seen.push(p))
        .mapped()
        .await;
    assert_eq!((r.data.as_str(), r.is_error), ("Counted to 3", false));
    let got: Vec<(f64, Option<f64>, Option<String>)> = seen
        .into_iter()
        .map(|p| (p.progress, p.total, p.message))
        .collect();
    assert_eq!(
        got,
        [
            (1.0, Some(3.0), Some("step 1 of 3".to_owned())),
            (2.0, Some(3.0), Some("step 2 of 3".to_owned())),
            (3.0, Some(3.0), Some("step 3 of 3".to_owned())),
        ]
    );

    let mut steps = Vec::new();
    let outcome = client
        .call_tool("slow_count")
        .arguments(args(json!({"steps": 2, "ms": 1})))
        .progress(|p| steps.push(p.progress))
        .outcome()
        .await
        .unwrap();
    let CallOutcome::Complete(result) = outcome else {
        panic!("not complete: {outcome:?}");
    };
    assert_eq!(result["content"][0]["text"], "Counted to 2");
    assert_eq!(steps, [1.0, 2.0]);

    let mut steps = Vec::new();
    let err = client
        .call_tool("slow_count")
        .arguments(args(json!({"steps": 1000, "ms": 10})))
        .progress(|p| steps.push(p.progress))
        .timeout(Duration::from_millis(300))
        .raw()
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "MCP error -32001: Request timed out after 300ms (the call's own timeout)"
    );
    // What arrived before the timeout, in order, and far from all of it.
    let expected: Vec<f64> = (1..=steps.len()).map(|n| n as f64).collect();
    assert_eq!(steps, expected);
    assert!(steps.len() < 1000, "{}", steps.len());
    client.disconnect().await;
}

/// `answering`: the call carries `inputResponses` and the `requestState` exactly as the
/// server sent it (none when it sent none), beside the arguments.
#[tokio::test]
async fn answering_sends_the_responses_and_the_exact_request_state() {
    let dir = tempfile::tempdir().unwrap();
    let (config, log) = logged(dir.path());
    let client = connect_mcp_tools(config).await.unwrap();
    let required = |state: Option<Value>| {
        let mut result = json!({
            "resultType": "input_required",
            "inputRequests": {
                "confirm": {"method": "elicitation/create", "params": {"message": "Sure?"}}
            }
        });
        if let Some(state) = state {
            result["requestState"] = state;
        }
        match CallOutcome::from_result(result) {
            CallOutcome::InputRequired(required) => required,
            other => panic!("not input_required: {other:?}"),
        }
    };
    let responses = json!({"confirm": {"action": "accept", "content": {"ok": true}}});
    let responses = responses.as_object().unwrap();

    let outcome = client
        .call_tool("echo")
        .arguments(args(json!({"message": "answered"})))
        .answering(
            &required(Some(json!("{\"nonce\":7,\"step\":\"confirm\"}"))),
            responses.clone(),
        )
        .outcome()
        .await
        .unwrap();
    assert_eq!(outcome, CallOutcome::Complete(echoed("answered")));
    let r = client
        .call_tool("echo")
        .arguments(args(json!({"message": "stateless"})))
        .answering(&required(None), responses.clone())
        .mapped()
        .await;
    assert_eq!((r.data.as_str(), r.is_error), ("Echo: stateless", false));

    calls_through(&log, ("echo", json!({"message": "stateless"}))).await;
    let answered = echo_params(&log, "answered");
    assert_eq!(answered.len(), 1);
    assert_eq!(
        answered[0]["inputResponses"],
        Value::Object(responses.clone())
    );
    assert_eq!(
        answered[0]["requestState"],
        "{\"nonce\":7,\"step\":\"confirm\"}"
    );
    let stateless = echo_params(&log, "stateless");
    assert_eq!(stateless.len(), 1);
    assert_eq!(
        stateless[0]["inputResponses"],
        Value::Object(responses.clone())
    );
    assert_eq!(stateless[0].get("requestState"), None);
    // A plain call carries neither.
    assert_eq!(echo(&client, "plain").await.data, "Echo: plain");
    calls_through(&log, ("echo", json!({"message": "plain"}))).await;
    let plain = echo_params(&log, "plain");
    assert_eq!(
        (plain[0].get("inputResponses"), plain[0].get("requestState")),
        (None, None)
    );
    client.disconnect().await;
}

/// The settings on typed calls, and `confirmed` on a consequential tool (`exit`, listed as
/// consequential in `tests/oma-mcp.toml`) and on one that is not.
#[tokio::test]
async fn the_settings_of_a_typed_call() {
    let client = connect_mcp_tools(own("normal")).await.unwrap();
    let err = client
        .call(own::SleepArgs::new(10_000))
        .timeout(Duration::from_millis(250))
        .typed()
        .await
        .unwrap_err();
    let CallError::Failed {
        tool,
        message,
        source,
        ..
    } = &err
    else {
        panic!("not a failed call: {err:?}")
    };
    assert_eq!(
        (*tool, message.as_str()),
        (
            "sleep",
            "MCP error -32001: Request timed out after 250ms (the call's own timeout)"
        )
    );
    // The runtime error is kept: the predicates answer after `.typed()`.
    assert!(source.is_timeout());
    assert!(err.is_timeout() && !err.is_cancelled() && !err.is_connection_lost());
    assert_eq!(
        err.runtime_error().map(|e| e.kind()),
        Some(oma_mcp_runtime::error::ErrorKind::Request)
    );
    assert_eq!(err.clone(), err);
    assert!(std::error::Error::source(&err).is_some());
    let cancel = CancellationToken::new();
    cancel.cancel();
    let r = client
        .call(own::EchoArgs::new("never sent"))
        .cancel_on(&cancel)
        .mapped()
        .await;
    assert_eq!(
        (r.data.as_str(), r.is_error),
        ("MCP tool \"echo\" failed: This operation was aborted", true)
    );
    let typed = client
        .call(own::EchoArgs::new("typed"))
        .timeout(Duration::from_secs(10))
        .progress(|p| panic!("echo sends no progress: {p:?}"))
        .typed()
        .await
        .unwrap();
    assert_eq!(
        (typed.output, typed.result.data.as_str()),
        (None, "Echo: typed")
    );
    // `confirmed` on a tool that is not consequential changes nothing.
    let r = client
        .call(own::AddArgs::new(40, -2))
        .confirmed()
        .mapped()
        .await;
    assert_eq!(
        r.to_json(),
        json!({"data": "38", "isError": false, "modelOutput": null})
    );
    // `exit` is consequential: it compiles only confirmed, and then runs.
    const { assert!(<own::Exit as oma_mcp_runtime::McpTool>::CONSEQUENTIAL) };
    let r = client.call(own::ExitArgs::new()).confirmed().mapped().await;
    assert_eq!(
        (r.data, r.is_error),
        (
            format!(
                "MCP tool \"exit\" failed: MCP error -32000: Connection closed: the MCP server \
                 `{}` went away during `tools/call`; the server exited (exit status: 0)",
                server_bin().display()
            ),
            true
        )
    );
    client.disconnect().await;
}
