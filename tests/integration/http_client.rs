//! oma-mcp's client over streamable HTTP against real servers on loopback: the stdio tests
//! that make sense over HTTP, against `oma-mcp-test-server --http` stateful (sessions, SSE
//! answers) and `--stateless` (JSON answers), with each lifecycle where it matters
//! (`Initialize`: a 2025-11-25 session with `Mcp-Session-Id`; `Discover` and `Auto`: a
//! 2026-07-28 conversation without a session), and against server-everything in its
//! `streamableHttp` mode.
//!
//! Where a test must see what the client sent, it runs against `oma-mcp-http-faults` in
//! `normal` or `expire-session` mode and reads its `GET /_log`; the faults themselves are in
//! `http_client_faults`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use oma_mcp_runtime::error::{ConnectError, DisconnectedError, RequestError};
use oma_mcp_runtime::snapshot::SnapshotSource;
use oma_mcp_runtime::{
    CancellationToken, ChangeKind, ConnectConfig, DriftPolicy, DriftReport, Error, Lifecycle,
    McpClient, Progress, Severity, ToolContext, ToolExecutor, ToolGrants, ToolRegistry,
    connect_checked, connect_mcp_tools,
};
use oma_mcp_test_support::HttpServer;
use serde_json::{Value, json};

use crate::raw_http::log;
use crate::typed::{OWN_SNAPSHOT, committed, everything, own};
use crate::{args, echo, everything_config, everything_http, faults, own_http};

/// The request timeout of the tests that wait for one: long enough for connect on a loaded
/// machine (the lifecycle and each `tools/list` page are bounded by it too).
const SHORT: Duration = Duration::from_secs(2);

/// `serverInfo` of the own test server.
fn own_info() -> Value {
    json!({"name": "oma-mcp-test-server", "version": "0.1.0"})
}

/// A config for the server at `url` with the own pin's prefix (`demo`) and a timeout that
/// only a hung test reaches.
fn config(url: &str, lifecycle: Lifecycle) -> ConnectConfig {
    ConnectConfig::http(url)
        .with_name_prefix("demo")
        .with_lifecycle(lifecycle)
        .with_request_timeout(Duration::from_secs(20))
}

/// The protocol version each lifecycle reaches with an rmcp 3.11 server.
fn version_of(lifecycle: Lifecycle) -> &'static str {
    match lifecycle {
        Lifecycle::Initialize => "2025-11-25",
        _ => "2026-07-28",
    }
}

/// The own server's flags for a stateful and a stateless server.
const STATEFUL: &[&str] = &[];
const STATELESS: &[&str] = &["--stateless"];

/// The shapes most tests run in: a session (`initialize`, SSE answers), no session over a
/// stateful server (2026-07-28), and a stateless server (JSON answers).
const SHAPES: [(&[&str], Lifecycle); 3] = [
    (STATEFUL, Lifecycle::Initialize),
    (STATEFUL, Lifecycle::Auto),
    (STATELESS, Lifecycle::Auto),
];

/// Connects to a fresh own server over HTTP (`mode`, `flags`) with `lifecycle`.
async fn own_client(mode: &str, flags: &[&str], lifecycle: Lifecycle) -> (HttpServer, McpClient) {
    let server = own_http(mode, flags);
    let client = connect_mcp_tools(config(server.url(), lifecycle))
        .await
        .unwrap_or_else(|e| panic!("{flags:?} {lifecycle:?}: {}", e.chain()));
    (server, client)
}

/// The `tools/call` requests in a fault server's log: `(arguments, Mcp-Session-Id)`.
fn logged_calls(entries: &[Value]) -> Vec<Value> {
    entries
        .iter()
        .filter(|e| e["json"]["method"] == "tools/call")
        .map(|e| e["json"]["params"]["arguments"].clone())
        .collect()
}

/// What the client sent, as `(HTTP method, JSON-RPC method or null, Mcp-Session-Id or null)`.
fn requests(entries: &[Value]) -> Vec<(String, Value, Value)> {
    entries
        .iter()
        .map(|e| {
            (
                e["method"].as_str().unwrap().to_owned(),
                e["json"]["method"].clone(),
                e["headers"]["mcp-session-id"].clone(),
            )
        })
        .collect()
}

#[tokio::test]
async fn connect_lists_the_stdio_tools_with_every_lifecycle() {
    let stdio = connect_mcp_tools(crate::own("normal").with_name_prefix("demo"))
        .await
        .unwrap();
    assert_eq!(stdio.tools().len(), 13);
    for flags in [STATEFUL, STATELESS] {
        let server = own_http("normal", flags);
        for lifecycle in [Lifecycle::Initialize, Lifecycle::Discover, Lifecycle::Auto] {
            let client = connect_mcp_tools(config(server.url(), lifecycle))
                .await
                .unwrap();
            let shape = format!("{flags:?} {lifecycle:?}");
            assert_eq!(client.tools(), stdio.tools(), "{shape}");
            assert_eq!(client.protocol_version(), version_of(lifecycle), "{shape}");
            assert_eq!(client.server_info(), Some(&own_info()), "{shape}");
            // Over HTTP there is no process.
            assert_eq!(client.pid(), None, "{shape}");
            assert_eq!(client.list_tools_raw().await.unwrap().len(), 13, "{shape}");
            let r = echo(&client, &shape).await;
            assert_eq!((r.data, r.is_error), (format!("Echo: {shape}"), false));
            client.disconnect().await;
        }
    }
    stdio.disconnect().await;
}

/// The generated module's markers (from the committed snapshot) over an HTTP config.
#[tokio::test]
async fn typed_calls_over_http() {
    for (flags, lifecycle) in SHAPES {
        let (_server, client) = own_client("normal", flags, lifecycle).await;
        let shape = format!("{flags:?} {lifecycle:?}");
        let r = client.call(own::EchoArgs::new("typed hi")).mapped().await;
        assert_eq!(
            r.to_json(),
            json!({"data": "Echo: typed hi", "isError": false, "modelOutput": null}),
            "{shape}"
        );
        let r = client.call(own::AddArgs::new(40, -2)).mapped().await;
        assert_eq!((r.data.as_str(), r.is_error), ("38", false), "{shape}");
        let r = client
            .call(
                own::DescribePetArgs::new(own::DescribePetArgsPet::new(
                    "Rex",
                    own::DescribePetArgsPetKind::Dog,
                ))
                .with_tags(vec!["good".into(), "loud".into()]),
            )
            .mapped()
            .await;
        assert_eq!(r.data, "Rex is a dog, tagged: good, loud", "{shape}");
        let typed = client
            .call(own::StructuredArgs::new("Oslo"))
            .typed()
            .await
            .unwrap();
        assert_eq!(
            typed.output,
            own::StructuredOutput::new("Oslo", 21, "sunny"),
            "{shape}"
        );
        let err = client.call(own::FailArgs::new()).typed().await.unwrap_err();
        assert_eq!(err.to_string(), "This tool always fails", "{shape}");
        client.disconnect().await;
    }
}

/// Every content block type of the own server maps exactly as over stdio.
#[tokio::test]
async fn every_content_block_type_maps_exactly() {
    let expected = [
        (
            "tiny_image",
            json!({
                "data": "[image image/png; base64 length=96]\nA 1x1 PNG.",
                "isError": false,
                "modelOutput": [
                    {"type": "image", "source": {
                        "type": "base64",
                        "media_type": "image/png",
                        "data": oma_mcp_test_server::TINY_PNG_BASE64,
                    }},
                    {"type": "text", "text": "A 1x1 PNG."},
                ],
            }),
        ),
        (
            "resource_links",
            json!({
                "data": "[resource_link name=\"readme.md\" uri=\"https://example.com/docs/readme.md\"]\n\
                         The project readme\n\
                         [resource_link name=\"notes.txt\" uri=\"file:///tmp/oma-mcp/notes.txt\"]",
                "isError": false,
                "modelOutput": [
                    {"type": "text", "text": "The project readme"},
                    {"type": "file", "filename": "readme.md", "source": {
                        "type": "url",
                        "media_type": "text/markdown",
                        "url": "https://example.com/docs/readme.md",
                    }},
                    {"type": "text",
                     "text": "[resource_link name=\"notes.txt\" uri=\"file:///tmp/oma-mcp/notes.txt\"]"},
                ],
            }),
        ),
        (
            "embedded_resource",
            json!({
                "data": "[resource memo://greeting]\nHello from a resource\n\
                         [resource memo://data.bin; mimeType=application/octet-stream; blob base64 length=8]",
                "isError": false,
                "modelOutput": [
                    {"type": "text", "text": "[resource memo://greeting]\nHello from a resource"},
                    {"type": "text", "text": "[resource memo://data.bin]"},
                    {"type": "file", "filename": "mcp-resource", "source": {
                        "type": "base64",
                        "media_type": "application/octet-stream",
                        "data": oma_mcp_test_server::BLOB_BASE64,
                    }},
                ],
            }),
        ),
        (
            "audio",
            json!({"data": "[audio audio/wav; base64 length=16]", "isError": false, "modelOutput": null}),
        ),
        (
            "fail",
            json!({"data": "This tool always fails", "isError": true, "modelOutput": null}),
        ),
    ];
    let stdio = connect_mcp_tools(crate::own("normal")).await.unwrap();
    for (flags, lifecycle) in SHAPES {
        let (_server, client) = own_client("normal", flags, lifecycle).await;
        let shape = format!("{flags:?} {lifecycle:?}");
        for (tool, mapped) in &expected {
            let r = client.call_tool(tool).mapped().await;
            assert_eq!(&r.to_json(), mapped, "{shape} {tool}");
            assert_eq!(r, stdio.call_tool(tool).mapped().await, "{shape} {tool}");
        }
        let r = client
            .call_tool("structured")
            .arguments(args(json!({"city": "Oslo"})))
            .mapped()
            .await;
        assert_eq!(
            r.to_json(),
            json!({"data": r#"{"city":"Oslo","temperature_c":21,"conditions":"sunny"}"#,
                   "isError": false, "modelOutput": null}),
            "{shape}"
        );
        // 3 MiB of text: over several SSE chunks or one large JSON body.
        let raw = client
            .call_tool("big")
            .arguments(args(json!({"bytes": 3 << 20})))
            .raw()
            .await
            .unwrap();
        assert_eq!(
            raw["content"][0]["text"].as_str().map(str::len),
            Some(3 << 20),
            "{shape}"
        );
        // The raw blocks are the stdio ones too (`resultType` is the server's business: rmcp
        // 3.11 sends it over stdio and leaves it out over HTTP).
        let raw = client.call_tool("embedded_resource").raw().await.unwrap();
        let over_stdio = stdio.call_tool("embedded_resource").raw().await.unwrap();
        assert_eq!(
            (&raw["content"], &raw["isError"]),
            (&over_stdio["content"], &over_stdio["isError"]),
            "{shape}"
        );
        client.disconnect().await;
    }
    stdio.disconnect().await;
}

/// The committed snapshot is what the server lists over HTTP too: the live snapshot is byte
/// for byte the committed file, `drift` reports nothing, and `connect_checked` connects
/// under `FailOnAny`. Over `initialize` the protocol version differs from the pin's
/// 2026-07-28, and that is the only change.
#[tokio::test]
async fn drift_against_the_committed_snapshot() {
    let server = own_http("normal", STATEFUL);
    let client = connect_mcp_tools(config(server.url(), Lifecycle::Auto))
        .await
        .unwrap();
    let source = SnapshotSource::new("target/debug/oma-mcp-test-server", Vec::<String>::new());
    let live = crate::typed::whole(&client, source).await;
    assert!(
        live.to_canonical_string() == committed(OWN_SNAPSHOT),
        "the tools over HTTP differ from {OWN_SNAPSHOT}:\n{}",
        live.to_canonical_string()
    );
    let report = own::drift(&client).unwrap();
    assert_eq!(report, DriftReport::new(Vec::new()));
    client.disconnect().await;

    let (client, report) = connect_checked(
        config(server.url(), Lifecycle::Auto),
        own::SNAPSHOT,
        "own",
        DriftPolicy::FailOnAny,
    )
    .await
    .unwrap();
    assert_eq!(report, DriftReport::new(Vec::new()));
    assert_eq!(client.tools().len(), own::TOOL_NAMES.len());
    client.disconnect().await;

    let client = connect_mcp_tools(config(server.url(), Lifecycle::Initialize))
        .await
        .unwrap();
    let report = own::drift(&client).unwrap();
    let changes: Vec<(&str, ChangeKind, Severity, &str)> = report
        .changes
        .iter()
        .map(|c| (c.tool.as_str(), c.kind, c.severity, c.message.as_str()))
        .collect();
    assert_eq!(
        changes,
        [(
            "",
            ChangeKind::ProtocolVersionChanged,
            Severity::Info,
            "protocol version \"2026-07-28\" → \"2025-11-25\""
        )]
    );
    client.disconnect().await;
}

/// A call past the request timeout is the contract's timeout, raw and mapped; the next call
/// works. (The shapes run at once: each waits out its timeouts.)
#[tokio::test]
async fn a_call_past_the_request_timeout_times_out_and_the_session_goes_on() {
    async fn check(flags: &[&str], lifecycle: Lifecycle) {
        let server = own_http("normal", flags);
        let shape = format!("{flags:?} {lifecycle:?}");
        let client = connect_mcp_tools(config(server.url(), lifecycle).with_request_timeout(SHORT))
            .await
            .unwrap();
        let start = Instant::now();
        let (raw, mapped) = tokio::join!(
            client
                .call_tool("sleep")
                .arguments(args(json!({"ms": 10_000})))
                .raw(),
            client.call(own::SleepArgs::new(10_000)).mapped(),
        );
        let elapsed = start.elapsed();
        let err = raw.unwrap_err();
        assert!(
            matches!(&err, Error::Request(RequestError::Timeout { method, timeout, .. })
                if method == "tools/call" && *timeout == SHORT),
            "{shape}: {err:?}"
        );
        assert_eq!(
            err.chain().to_string(),
            "MCP error -32001: Request timed out"
        );
        assert_eq!(
            mapped.to_json(),
            json!({
                "data": "MCP tool \"sleep\" failed: MCP error -32001: Request timed out",
                "isError": true,
                "modelOutput": null,
            }),
            "{shape}"
        );
        assert!(
            elapsed >= SHORT && elapsed < SHORT + Duration::from_secs(4),
            "{shape}: {elapsed:?}"
        );
        let r = client.call(own::SleepArgs::new(1)).mapped().await;
        assert_eq!(
            (r.data.as_str(), r.is_error),
            ("Slept 1 ms", false),
            "{shape}"
        );
        client.disconnect().await;
    }
    let [a, b, c] = SHAPES;
    tokio::join!(check(a.0, a.1), check(b.0, b.1), check(c.0, c.1));
}

/// A cancelled call fails at once with the abort error; the session goes on.
#[tokio::test]
async fn cancelling_an_in_flight_call() {
    for (flags, lifecycle) in SHAPES {
        let (_server, client) = own_client("normal", flags, lifecycle).await;
        let shape = format!("{flags:?} {lifecycle:?}");
        let cancel = CancellationToken::new();
        let trigger = {
            let cancel = cancel.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(200)).await;
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
        assert!(
            matches!(&err, Error::Request(RequestError::Cancelled { method, .. }) if method == "tools/call"),
            "{shape}: {err:?}"
        );
        assert_eq!(err.chain().to_string(), "This operation was aborted");
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{shape}: {:?}",
            start.elapsed()
        );
        let r = echo(&client, "after").await;
        assert_eq!(
            (r.data.as_str(), r.is_error),
            ("Echo: after", false),
            "{shape}"
        );
        // Cancelled before the start: nothing is sent.
        let err = client
            .call_tool("echo")
            .arguments(args(json!({"message": "x"})))
            .cancel_on(&cancel)
            .raw()
            .await
            .unwrap_err();
        assert!(err.is_cancelled(), "{shape}");
        client.disconnect().await;
    }
}

/// Progress notifications travel on the call's SSE stream and reach the caller in order.
#[tokio::test]
async fn progress_of_a_long_call_reaches_the_caller() {
    for (flags, lifecycle) in SHAPES {
        let (_server, client) = own_client("progress", flags, lifecycle).await;
        let shape = format!("{flags:?} {lifecycle:?}");
        let mut seen = Vec::new();
        let result = client
            .call_tool("slow_count")
            .arguments(args(json!({"steps": 4, "ms": 20})))
            .progress(|p: Progress| seen.push((p.progress, p.total, p.message)))
            .raw()
            .await
            .unwrap();
        assert_eq!(result["content"][0]["text"], "Counted to 4", "{shape}");
        let expected: Vec<(f64, Option<f64>, Option<String>)> = (1..=4)
            .map(|n| (f64::from(n), Some(4.0), Some(format!("step {n} of 4"))))
            .collect();
        assert_eq!(seen, expected, "{shape}");

        // Two calls at once: each gets only its own progress.
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let (ra, rb) = tokio::join!(
            client
                .call_tool("slow_count")
                .arguments(args(json!({"steps": 2, "ms": 10})))
                .progress(|p| a.push(p.progress))
                .raw(),
            client
                .call_tool("slow_count")
                .arguments(args(json!({"steps": 3, "ms": 10})))
                .progress(|p| b.push(p.progress))
                .raw(),
        );
        assert_eq!(ra.unwrap()["content"][0]["text"], "Counted to 2");
        assert_eq!(rb.unwrap()["content"][0]["text"], "Counted to 3");
        assert_eq!((a, b), (vec![1.0, 2.0], vec![1.0, 2.0, 3.0]), "{shape}");
        // A plain call sends no token and gets no progress.
        let plain = client
            .call_tool("slow_count")
            .arguments(args(json!({"steps": 2, "ms": 1})))
            .mapped()
            .await;
        assert_eq!(plain.data, "Counted to 2");
        client.disconnect().await;
    }
}

/// A registry with every tool of `client` and an executor granting them all.
fn executor_for(client: &Arc<McpClient>) -> ToolExecutor {
    let registry = Arc::new(ToolRegistry::new());
    let tools = oma_mcp_runtime::tool::tool_definitions(client);
    let names: Vec<String> = tools.iter().map(|t| t.name.clone()).collect();
    registry.register_all(tools).unwrap();
    ToolExecutor::new(registry, ToolGrants::new().allow(names))
}

/// The tool layer over HTTP: definitions, local validation, cancellation through the
/// executor's context.
#[tokio::test]
async fn the_tool_layer_over_http() {
    for (flags, lifecycle) in SHAPES {
        let (_server, client) = own_client("normal", flags, lifecycle).await;
        let shape = format!("{flags:?} {lifecycle:?}");
        let client = Arc::new(client);
        let defs = oma_mcp_runtime::tool::tool_definitions(&client);
        assert_eq!(defs.len(), 13);
        let echo_def = defs.iter().find(|d| d.name == "demo_echo").unwrap();
        assert_eq!(
            echo_def.description,
            "Echoes the message back as `Echo: <message>`"
        );
        let executor = executor_for(&client);
        let ctx = ToolContext::new("agent");
        let r = executor
            .execute("demo_echo", json!({"message": "layer"}), &ctx)
            .await;
        assert_eq!(
            (r.data.as_str(), r.is_error),
            ("Echo: layer", false),
            "{shape}"
        );
        let r = executor
            .execute("demo_echo", json!({"message": 5}), &ctx)
            .await;
        assert_eq!(
            (r.data.as_str(), r.is_error),
            (
                "Invalid input for tool \"demo_echo\":\n- /message: 5 is not of type \"string\"",
                true
            ),
            "{shape}"
        );

        let cancel = CancellationToken::new();
        let trigger = {
            let cancel = cancel.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(200)).await;
                cancel.cancel();
            })
        };
        let r = executor
            .execute(
                "demo_sleep",
                json!({"ms": 10_000}),
                &ToolContext::new("agent").with_cancel(cancel),
            )
            .await;
        trigger.await.unwrap();
        assert_eq!(
            (r.data.as_str(), r.is_error),
            (
                "MCP tool \"sleep\" failed: This operation was aborted",
                true
            ),
            "{shape}"
        );
        let r = executor
            .execute("demo_add", json!({"a": 2, "b": 3}), &ctx)
            .await;
        assert_eq!(r.data, "5", "{shape}");
        client.disconnect().await;
        let r = executor
            .execute("demo_echo", json!({"message": "x"}), &ctx)
            .await;
        assert_eq!(r.data, "MCP tool \"echo\" failed: Not connected", "{shape}");
    }
}

/// Arguments the tool's schema rejects never reach the server: the fault server's log holds
/// only the valid call.
#[tokio::test]
async fn invalid_arguments_never_reach_the_server() {
    let server = faults("normal", &[]);
    let client = Arc::new(
        connect_mcp_tools(
            ConnectConfig::http(server.url())
                .with_name_prefix("f")
                .with_request_timeout(Duration::from_secs(20)),
        )
        .await
        .unwrap(),
    );
    let executor = executor_for(&client);
    let ctx = ToolContext::new("agent");
    let r = executor
        .execute("f_echo", json!({"message": 5}), &ctx)
        .await;
    assert_eq!(
        r.data,
        "Invalid input for tool \"f_echo\":\n- /message: 5 is not of type \"string\""
    );
    let r = executor.execute("f_echo", json!({}), &ctx).await;
    assert_eq!(
        r.data,
        "Invalid input for tool \"f_echo\":\n- /: \"message\" is a required property"
    );
    let r = executor
        .execute("f_echo", json!({"message": "valid"}), &ctx)
        .await;
    assert_eq!((r.data.as_str(), r.is_error), ("Echo: valid", false));
    assert_eq!(
        logged_calls(&log(server.url()).await),
        [json!({"message": "valid"})]
    );
    client.disconnect().await;
}

/// Concurrent calls each get their own answer (a POST per request, answered in any order).
#[tokio::test]
async fn concurrent_calls_are_routed_by_id() {
    for (flags, lifecycle) in SHAPES {
        let (_server, client) = own_client("normal", flags, lifecycle).await;
        let shape = format!("{flags:?} {lifecycle:?}");
        let start = Instant::now();
        let (slow, fast, sum) = tokio::join!(
            client
                .call_tool("sleep")
                .arguments(args(json!({"ms": 500})))
                .mapped(),
            client
                .call_tool("echo")
                .arguments(args(json!({"message": "fast"})))
                .mapped(),
            client
                .call_tool("add")
                .arguments(args(json!({"a": 1, "b": 2})))
                .mapped(),
        );
        assert_eq!(
            (slow.data.as_str(), fast.data.as_str(), sum.data.as_str()),
            ("Slept 500 ms", "Echo: fast", "3"),
            "{shape}"
        );
        // The sleep did not hold the others back: all ran at once.
        assert!(start.elapsed() < Duration::from_secs(5), "{shape}");
        // 16 at once, each on its own task.
        let client = Arc::new(client);
        let tasks: Vec<_> = (0..16)
            .map(|n| {
                let client = Arc::clone(&client);
                tokio::spawn(async move { echo(&client, &format!("m{n}")).await })
            })
            .collect();
        for (n, task) in tasks.into_iter().enumerate() {
            assert_eq!(task.await.unwrap().data, format!("Echo: m{n}"), "{shape}");
        }
        client.disconnect().await;
    }
}

/// `disconnect` ends a session with `DELETE` carrying its id; without a session (a 2026-07-28
/// conversation) nothing is sent. Later calls are `Not connected`.
#[tokio::test]
async fn disconnect_sends_delete_with_the_session_id() {
    let server = faults("expire-session", &["--after", "100"]);
    let client = connect_mcp_tools(config(server.url(), Lifecycle::Initialize))
        .await
        .unwrap();
    let r = echo(&client, "in session").await;
    assert_eq!(r.data, "Echo: in session");
    client.disconnect().await;
    client.disconnect().await;
    let r = echo(&client, "after").await;
    assert_eq!(r.data, "MCP tool \"echo\" failed: Not connected");
    let entries = log(server.url()).await;
    let s1 = json!("session-1");
    assert_eq!(
        requests(&entries),
        [
            ("POST".into(), json!("initialize"), Value::Null),
            (
                "POST".into(),
                json!("notifications/initialized"),
                s1.clone()
            ),
            ("GET".into(), Value::Null, s1.clone()),
            ("POST".into(), json!("tools/list"), s1.clone()),
            ("POST".into(), json!("tools/call"), s1.clone()),
            ("DELETE".into(), Value::Null, s1),
        ]
    );
    let delete = entries.last().unwrap();
    assert_eq!(delete["headers"]["mcp-protocol-version"], "2025-11-25");
    assert_eq!(delete["body"], "");

    // A 2026-07-28 conversation has no session: no DELETE.
    let server = faults("normal", &[]);
    let client = connect_mcp_tools(config(server.url(), Lifecycle::Auto))
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), "2026-07-28");
    client.disconnect().await;
    let methods: Vec<(String, Value, Value)> = requests(&log(server.url()).await);
    assert_eq!(
        methods,
        [
            ("POST".into(), json!("server/discover"), Value::Null),
            ("POST".into(), json!("tools/list"), Value::Null),
        ]
    );
}

/// A client dropped without `disconnect` still ends its session: `DELETE` goes out in the
/// background while the Tokio runtime runs.
#[tokio::test]
async fn dropping_the_client_sends_delete() {
    let server = faults("expire-session", &["--after", "100"]);
    let client = connect_mcp_tools(config(server.url(), Lifecycle::Initialize))
        .await
        .unwrap();
    drop(client);
    // Before the DELETE: initialize, notifications/initialized, the GET stream, tools/list.
    let mut methods = Vec::new();
    for _ in 0..250 {
        methods = requests(&log(server.url()).await);
        if methods.len() == 5 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(methods.len(), 5, "{methods:?}");
    assert_eq!(
        methods.last(),
        Some(&("DELETE".into(), Value::Null, json!("session-1")))
    );
}

/// A session that expires (404) is started again once, transparently: every call succeeds,
/// however often the server ends the session.
#[tokio::test]
async fn an_expired_session_is_initialized_again() {
    let server = own_http("normal", &["--session-ttl-requests", "2"]);
    let client = connect_mcp_tools(config(server.url(), Lifecycle::Initialize))
        .await
        .unwrap();
    // `tools/list` at connect was the session's first request: every second call below
    // meets an expired session.
    for n in 0..6 {
        let r = echo(&client, &format!("call {n}")).await;
        assert_eq!(
            (r.data, r.is_error),
            (format!("Echo: call {n}"), false),
            "call {n}"
        );
    }
    assert_eq!(client.list_tools_raw().await.unwrap().len(), 13);
    client.disconnect().await;

    // By time, too.
    // 1.5 s: the connect and the one re-initialization each fit in it on a loaded machine.
    let server = own_http("normal", &["--session-ttl-ms", "1500"]);
    let client = connect_mcp_tools(config(server.url(), Lifecycle::Initialize))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(1600)).await;
    let r = echo(&client, "late").await;
    assert_eq!((r.data.as_str(), r.is_error), ("Echo: late", false));
    client.disconnect().await;
}

// ---------------------------------------------------------------------------------------------
// server-everything over streamable HTTP
// ---------------------------------------------------------------------------------------------

/// `text` with the time after each `created at ` (server-everything's dynamic resources say
/// the local time they were made at) written `<time>`.
fn timeless(text: &str) -> String {
    const MARK: &str = "created at ";
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(MARK) {
        out.push_str(&rest[..at + MARK.len()]);
        out.push_str("<time>");
        rest = rest[at + MARK.len()..]
            .trim_start_matches(|c: char| c.is_ascii_digit() || ": APM".contains(c));
    }
    out.push_str(rest);
    out
}

#[test]
fn timeless_hides_the_times() {
    assert_eq!(
        timeless("a resource created at 7:10:37 PM\nb created at 12:00:00 AM."),
        "a resource created at <time>\nb created at <time>."
    );
}

/// server-everything in `streamableHttp` mode: `Lifecycle::Auto` falls back to `initialize`
/// (it answers `server/discover` with a 400), the tools are the committed pin's, and every
/// block type it returns maps as over stdio.
#[tokio::test]
async fn everything_over_http() {
    let test = "everything_over_http";
    let (Some(server), Some(stdio_config)) = (everything_http(test), everything_config(test))
    else {
        return;
    };
    let client = connect_mcp_tools(
        ConnectConfig::http(server.url())
            .with_name_prefix("everything")
            .with_request_timeout(Duration::from_secs(20)),
    )
    .await
    .unwrap();
    assert_eq!(client.protocol_version(), "2025-11-25");
    assert_eq!(
        client.server_info().unwrap()["name"],
        "mcp-servers/everything"
    );
    let report = everything::drift(&client).unwrap();
    assert_eq!(report, DriftReport::new(Vec::new()));
    let r = client
        .call(everything::EchoArgs::new("over HTTP"))
        .mapped()
        .await;
    assert_eq!(
        r.to_json(),
        json!({"data": "Echo: over HTTP", "isError": false, "modelOutput": null})
    );

    let stdio = connect_mcp_tools(stdio_config).await.unwrap();
    let calls = [
        ("get-sum", json!({"a": 2, "b": 3})),
        ("get-tiny-image", json!({})),
        ("get-resource-links", json!({"count": 2})),
        (
            "get-resource-reference",
            json!({"resourceType": "Text", "resourceId": 1}),
        ),
        (
            "get-annotated-message",
            json!({"messageType": "success", "includeImage": true}),
        ),
        ("get-structured-content", json!({"location": "Chicago"})),
    ];
    for (tool, arguments) in calls {
        let over_http = client
            .call_tool(tool)
            .arguments(args(arguments.clone()))
            .mapped()
            .await;
        let over_stdio = stdio
            .call_tool(tool)
            .arguments(args(arguments.clone()))
            .mapped()
            .await;
        assert!(!over_http.is_error, "{tool}: {}", over_http.data);
        assert_eq!(
            timeless(&over_http.to_json().to_string()),
            timeless(&over_stdio.to_json().to_string()),
            "{tool} {arguments}"
        );
    }
    let image = client.call_tool("get-tiny-image").mapped().await;
    assert_eq!(
        image.data,
        "Here's the image you requested:\n\
         [image image/png; base64 length=5380]\n\
         The image above is the MCP logo."
    );
    stdio.disconnect().await;
    client.disconnect().await;

    // Its 400 to `server/discover` carries a JSON-RPC error: the server's answer.
    let err = connect_mcp_tools(
        ConnectConfig::http(server.url())
            .with_lifecycle(Lifecycle::Discover)
            .with_request_timeout(Duration::from_secs(20)),
    )
    .await
    .unwrap_err();
    assert_eq!(
        err.chain().to_string(),
        format!(
            "the MCP server/discover handshake with `{}` failed: the server does not speak the \
             2026-07-28 lifecycle (connect with `ConnectConfig::with_lifecycle(Lifecycle::Auto)` \
             or `Lifecycle::Initialize`; manifest key `lifecycle`): MCP error -32000: Bad \
             Request: Server not initialized",
            server.url()
        )
    );
}

/// `disconnect` during a call fails the call with the contract's `Connection closed` at once.
#[tokio::test]
async fn disconnect_during_a_call_fails_it() {
    for (flags, lifecycle) in SHAPES {
        let (_server, client) = own_client("normal", flags, lifecycle).await;
        let shape = format!("{flags:?} {lifecycle:?}");
        let start = Instant::now();
        let (result, ()) = tokio::join!(
            client
                .call_tool("sleep")
                .arguments(args(json!({"ms": 10_000})))
                .raw(),
            async {
                tokio::time::sleep(Duration::from_millis(200)).await;
                client.disconnect().await;
            }
        );
        let err = result.unwrap_err();
        assert!(
            matches!(
                err,
                Error::Disconnected(DisconnectedError::ConnectionClosed)
            ),
            "{shape}: {err:?}"
        );
        assert_eq!(
            err.chain().to_string(),
            "MCP error -32000: Connection closed"
        );
        assert!(start.elapsed() < Duration::from_secs(5), "{shape}");
    }
}

/// A server that goes away mid-call: the call fails at once with what HTTP saw (no wait
/// for a resumption, no hang), and later calls cannot reach it. (The causes come from the
/// OS and the connection pool, so only the messages are compared.)
#[tokio::test]
async fn a_server_that_exits_during_a_call() {
    for (flags, lifecycle) in SHAPES {
        let (server, client) = own_client("normal", flags, lifecycle).await;
        let url = server.url();
        let shape = format!("{flags:?} {lifecycle:?}");
        let start = Instant::now();
        let err = client
            .call_tool("exit")
            .arguments(args(json!({"code": 0})))
            .raw()
            .await
            .unwrap_err();
        assert!(start.elapsed() < Duration::from_secs(5), "{shape}");
        let unreachable = format!(
            "cannot reach the MCP server `{url}` for `tools/call` (check the URL, that the \
             server is running, and the network)"
        );
        match lifecycle {
            // The server ran the tool before its response head went out (the session's server
            // answers with SSE while it starts the call): no head came, as without a session.
            Lifecycle::Initialize
                if matches!(&err, Error::Connect(ConnectError::HttpUnreachable { .. })) =>
            {
                assert_eq!(err.to_string(), unreachable, "{shape}");
            }
            // A session answers with SSE at once: the stream breaks.
            Lifecycle::Initialize => {
                assert!(
                    matches!(
                        &err,
                        Error::Connect(ConnectError::Http {
                            status: Some(200),
                            ..
                        })
                    ),
                    "{shape}: {err:?}"
                );
                let text = err.to_string();
                assert!(
                    text.starts_with(&format!(
                        "the MCP server `{url}` answered `tools/call` with HTTP 200: the SSE \
                         stream broke before the response: error decoding response body: error \
                         reading a body from connection: "
                    )),
                    "{text}"
                );
            }
            // Without a session the answer's head never came.
            _ => {
                assert!(
                    matches!(&err, Error::Connect(ConnectError::HttpUnreachable { .. })),
                    "{shape}: {err:?}"
                );
                assert_eq!(err.to_string(), unreachable, "{shape}");
            }
        }
        let err = client
            .call_tool("echo")
            .arguments(args(json!({"message": "anyone?"})))
            .raw()
            .await
            .unwrap_err();
        assert!(
            matches!(&err, Error::Connect(ConnectError::HttpUnreachable { .. })),
            "{shape}: {err:?}"
        );
        assert_eq!(err.to_string(), unreachable, "{shape}");
        client.disconnect().await;
    }
}
