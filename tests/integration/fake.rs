//! Generated fakes (`own::fake()`, runtime feature `fake`) as a user's test uses them: the
//! code under test connects to the fake over a real MCP session (loopback streamable HTTP),
//! typed handlers answer, and every call, problem and count is inspected. Also what a fake
//! refuses: arguments outside the pinned `inputSchema`, outputs outside the `outputSchema`,
//! calls without a handler, handlers of another snapshot's tools.

use std::sync::Arc;

use oma_mcp_runtime::cassette::{Cassette, Redaction};
use oma_mcp_runtime::fake::{FakeError, FakeServer, Reply};
use oma_mcp_runtime::{McpClient, McpTool, connect_mcp_tools};
use serde_json::json;

use crate::typed::{everything, own};

// GUIDE: begin agent-under-test (the guide's chapter on fakes shows this region verbatim)
/// A session of `a_users_agent` with the real server, recorded (see below), committed.
const OWN_CASSETTE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/cassettes/own.cassette.json");

/// The code under test: an agent step that calls the server's tools and reports what it saw.
async fn a_users_agent(client: &McpClient) -> Vec<String> {
    let echo = client.call(own::EchoArgs::new("hi")).mapped().await;
    let sum = client.call(own::AddArgs::new(40, 2)).mapped().await;
    let fail = client.call(own::FailArgs::new()).mapped().await;
    let weather = client.call(own::StructuredArgs::new("Oslo")).typed().await;
    vec![
        format!("echo: {}", echo.data),
        format!("add: {}", sum.data),
        format!("fail: {} (error: {})", fail.data, fail.is_error),
        format!("weather: {:?}", weather.map(|w| w.output.temperature_c)),
    ]
}

/// What the agent sees from the server, a fake or a replay of a recorded session.
fn what_the_agent_saw() -> Vec<String> {
    vec![
        "echo: Echo: hi".into(),
        "add: 42".into(),
        "fail: This tool always fails (error: true)".into(),
        "weather: Ok(21)".into(),
    ]
}

#[tokio::test]
async fn the_agent_against_a_fake() {
    let fake = own::fake().await.unwrap();
    fake.on::<own::Echo>(|args| Reply::Text(format!("Echo: {}", args.message)))
        .unwrap();
    fake.on::<own::Add>(|args| Reply::Text((args.a + args.b).to_string()))
        .unwrap();
    fake.on::<own::Fail>(|_| Reply::Error("This tool always fails".into()))
        .unwrap();
    fake.on::<own::Structured>(|args| {
        Reply::Output(own::StructuredOutput::new(args.city, 21, "sunny"))
    })
    .unwrap();
    let client = fake.connect().await.unwrap();

    assert_eq!(a_users_agent(&client).await, what_the_agent_saw());
    assert_eq!(fake.calls_of::<own::Add>(), [own::AddArgs::new(40, 2)]);
    fake.verify().unwrap(); // no call without a handler, nothing outside the schemas
}

#[tokio::test]
async fn the_agent_against_a_recorded_session() {
    let fake = own::fake().await.unwrap();
    fake.replay_file(OWN_CASSETTE).unwrap();
    let client = fake.connect().await.unwrap();

    assert_eq!(a_users_agent(&client).await, what_the_agent_saw());
    fake.verify().unwrap(); // every call was recorded
}
// GUIDE: end

/// The guide shows the region above as it is here.
#[test]
fn the_guide_shows_the_tested_agent() {
    crate::guide::assert_docs_show("tests/integration/fake.rs");
}

/// Records `a_users_agent` against the real own server through a recording proxy; the
/// cassette must equal the committed one byte for byte (`OMA_MCP_BLESS=1` rewrites it).
#[tokio::test]
async fn recording_a_session_gives_the_committed_cassette() {
    let server = Arc::new(
        connect_mcp_tools(crate::own("normal").with_name_prefix("demo"))
            .await
            .unwrap(),
    );
    let proxy = FakeServer::record(Arc::clone(&server), Redaction::default(), Some("demo"))
        .await
        .unwrap();
    let client = proxy.connect().await.unwrap();
    assert_eq!(a_users_agent(&client).await, what_the_agent_saw());
    proxy.verify().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let recorded = dir.path().join("own.cassette.json");
    proxy.save_cassette(&recorded).unwrap();
    let recorded = std::fs::read_to_string(&recorded).unwrap();
    if std::env::var_os("OMA_MCP_BLESS").is_some() {
        std::fs::write(OWN_CASSETTE, &recorded).unwrap();
    }
    assert_eq!(
        recorded,
        std::fs::read_to_string(OWN_CASSETTE).unwrap(),
        "the own server answers differently from {OWN_CASSETTE}: record it again with \
         OMA_MCP_BLESS=1"
    );
    client.disconnect().await;
    server.disconnect().await;
}

/// The same code under test against a replay of the committed cassette, without the server.
#[tokio::test]
async fn a_replayed_cassette_refuses_an_unrecorded_call() {
    let fake = own::fake().await.unwrap();
    fake.replay_file(OWN_CASSETTE).unwrap();
    let client = fake.connect().await.unwrap();
    // A call the cassette has not recorded fails loudly.
    let r = client.call(own::EchoArgs::new("bye")).mapped().await;
    assert_eq!(
        r.data,
        format!(
            "MCP tool \"echo\" failed: MCP error -32603: tool \"echo\" was called with \
             arguments {{\"message\":\"bye\"}} that the cassette {} has not recorded \
             (recorded for it: {{\"message\":\"hi\"}}); record the session again, or add a \
             handler",
            OWN_CASSETTE
        )
    );
    assert_eq!(fake.problems().len(), 1);
    client.disconnect().await;
}

/// Cassettes edited by hand into something else are refused with file and pointer.
#[tokio::test]
async fn broken_and_stale_cassettes_are_refused() {
    let fake = own::fake().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.cassette.json");
    std::fs::write(&path, "{\"format\": \"oma-mcp-cassette/1\", \"calls\": [").unwrap();
    let err = fake.replay_file(&path).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "cassette {} is not valid: at /: not JSON: EOF while parsing a list at line 1 \
             column 43; fix it or record it again",
            path.display()
        )
    );
    let mut stale: Cassette = Cassette::read(std::path::Path::new(OWN_CASSETTE)).unwrap();
    stale.calls[0].tool = "shout".into();
    stale.calls[1].arguments = json!({"a": "forty", "b": 2});
    let err = fake.replay(stale, "stale.cassette.json").unwrap_err();
    assert_eq!(
        err.to_string(),
        "the cassette stale.cassette.json no longer fits the pinned snapshot; record it again:\n\
         - call 0 of tool \"shout\" (at /calls/0/tool): the snapshot has no tool \"shout\"\n\
         - call 1 of tool \"add\" (at /calls/1/arguments/a): \"forty\" is not of type \
         \"integer\" (the tool's inputSchema)"
    );
}

#[tokio::test]
async fn a_fake_serves_the_pinned_tools_and_counts_calls() {
    let fake = own::fake().await.unwrap();
    fake.on::<own::Echo>(|args| Reply::Text(format!("Echo: {}", args.message)))
        .unwrap();
    fake.on::<own::Add>(|args| Reply::Text((args.a + args.b).to_string()))
        .unwrap();
    fake.on::<own::Structured>(|args| {
        Reply::Output(own::StructuredOutput::new(args.city, 21, "sunny"))
    })
    .unwrap();

    let client = fake.connect().await.unwrap();
    // The fake serves the pinned tools exactly: no drift against the snapshot.
    let drift = own::drift(&client).unwrap();
    assert!(drift.is_empty(), "{drift:?}");
    assert_eq!(client.tools()[0].name, "demo_add");

    let r = client.call(own::EchoArgs::new("hi")).mapped().await;
    assert_eq!((r.data.as_str(), r.is_error), ("Echo: hi", false));
    let r = client.call(own::AddArgs::new(40, 2)).mapped().await;
    assert_eq!(r.data, "42");
    let weather = client
        .call(own::StructuredArgs::new("Oslo"))
        .typed()
        .await
        .unwrap();
    assert_eq!(weather.output.city, "Oslo");
    assert_eq!(weather.output.temperature_c, 21);

    assert_eq!(fake.calls_of::<own::Add>(), [own::AddArgs::new(40, 2)]);
    assert_eq!(
        fake.call_counts().into_iter().collect::<Vec<_>>(),
        [
            ("add".to_owned(), 1),
            ("echo".to_owned(), 1),
            ("structured".to_owned(), 1)
        ]
    );
    fake.verify().unwrap();
    client.disconnect().await;
}

#[tokio::test]
async fn the_fake_refuses_what_the_server_would_not_take() {
    let fake = own::fake().await.unwrap();
    // A handler whose output breaks the pinned outputSchema.
    fake.on::<own::Structured>(|args| {
        Reply::Result(json!({
            "content": [{"type": "text", "text": "{}"}],
            "structuredContent": {"city": args.city, "temperature_c": "warm", "conditions": "sunny"}
        }))
    })
    .unwrap();
    fake.on::<own::Echo>(|_| Reply::Text("never".into()))
        .unwrap();
    fake.on::<own::Add>(|_| panic!("not implemented in this test"))
        .unwrap();
    let client = fake.connect().await.unwrap();

    let r = client.call(own::StructuredArgs::new("Oslo")).mapped().await;
    assert!(r.is_error);
    assert_eq!(
        r.data,
        "MCP tool \"structured\" failed: MCP error -32603: tool \"structured\": the handler's output does not \
         match its pinned outputSchema: /temperature_c: \"warm\" is not of type \"integer\""
    );
    // Arguments outside the pinned inputSchema never reach the handler.
    let r = client
        .call_tool("echo")
        .arguments(json!({"message": 7}).as_object().cloned())
        .mapped()
        .await;
    assert_eq!(
        r.data,
        "MCP tool \"echo\" failed: MCP error -32602: tool \"echo\": the arguments do not match its pinned \
         inputSchema: /message: 7 is not of type \"string\""
    );
    // A handler that panics is a problem too; the fake goes on serving.
    let r = client.call(own::AddArgs::new(1, 2)).mapped().await;
    assert_eq!(
        r.data,
        "MCP tool \"add\" failed: MCP error -32603: tool \"add\": the handler panicked: not \
         implemented in this test"
    );
    // A tool without a handler, and a tool the snapshot lacks.
    let r = client.call(own::FailArgs::new()).mapped().await;
    assert_eq!(
        r.data,
        "MCP tool \"fail\" failed: MCP error -32603: tool \"fail\" was called, but the fake has no handler for it \
         (register one with `on::<Tool>` or `on_raw`)"
    );
    let r = client.call_tool("nope").mapped().await;
    assert!(r.data.starts_with(
        "MCP tool \"nope\" failed: MCP error -32602: Unknown tool \"nope\": the snapshot of \
         \"oma-mcp-test-server\" has \"add\", \"audio\""
    ));

    assert_eq!(fake.calls().len(), 5);
    assert!(fake.calls_of::<own::Echo>().is_empty());
    let problems = fake.verify().unwrap_err();
    assert_eq!(problems.problems.len(), 5);
    assert!(problems.to_string().starts_with(
        "the fake of \"oma-mcp-test-server\" saw 5 problem(s):\n- tool \"structured\": "
    ));

    // Handlers of a tool generated from another server's snapshot are refused.
    let err = fake
        .on::<everything::Echo>(|_| Reply::Text(String::new()))
        .unwrap_err();
    assert!(matches!(err, FakeError::DigestMismatch { .. }));
    assert_eq!(
        err.to_string(),
        format!(
            "the tool \"echo\" of the fake's snapshot is not the one the marker type was \
             generated from (digest {} in the snapshot, {} in the code): regenerate the code \
             from this snapshot",
            own::Echo::DIGEST,
            everything::Echo::DIGEST
        )
    );
    let err = fake
        .on::<everything::GetSum>(|_| Reply::Text(String::new()))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the fake's snapshot has no tool \"get-sum\": the marker type was generated from \
         another snapshot (regenerate, or use the generated module of this server's pin)"
    );
    client.disconnect().await;
}

/// The fake's streamable HTTP side with plain HTTP: a request gets its answer, a notification
/// and a response `202`, a batch and a message that is none `400` with `-32600`, `GET` `405`,
/// a page from another origin `403`; what a server must refuse is refused and kept as a
/// problem.
#[tokio::test]
async fn the_fakes_http_side() {
    use crate::raw_http::{post, request};
    use hyper::Method;

    let fake = own::fake().await.unwrap();
    let url = fake.url();
    let r = post(
        &url,
        &[],
        &json!({"jsonrpc": "2.0", "id": 7, "method": "ping"}),
    )
    .await;
    assert_eq!(
        (r.status, r.json()),
        (200, json!({"jsonrpc": "2.0", "id": 7, "result": {}}))
    );
    let r = post(
        &url,
        &[],
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    assert_eq!((r.status, r.body.as_str()), (202, ""));
    let r = post(&url, &[], &json!({"jsonrpc": "2.0", "id": 1, "result": {}})).await;
    assert_eq!(r.status, 202);
    let r = post(
        &url,
        &[],
        &json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]),
    )
    .await;
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json()["error"],
        json!({"code": -32600, "message": "Invalid Request: JSON-RPC batches are not supported \
               (MCP 2025-06-18 removed them): send one message at a time"})
    );
    let r = post(
        &url,
        &[],
        &json!({"jsonrpc": "2.0", "id": null, "method": "ping"}),
    )
    .await;
    assert_eq!(
        (r.status, r.json()["error"]["message"].clone()),
        (
            400,
            json!("Invalid Request: a request `id` must be a string or an integer")
        )
    );
    let r = request(&url, Method::GET, &[("accept", "text/event-stream")], None).await;
    assert_eq!((r.status, r.header("allow")), (405, Some("POST")));
    let evil = [("origin", "http://evil.example")];
    let r = post(
        &url,
        &evil,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}),
    )
    .await;
    assert_eq!(r.status, 403);
    let local = [("origin", "http://localhost:3000")];
    let r = post(
        &url,
        &local,
        &json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}),
    )
    .await;
    assert_eq!(r.status, 200);

    // What a real server must refuse, the fake refuses, each a problem.
    let ping = json!({"jsonrpc": "2.0", "id": 4, "method": "ping"});
    let other_path = url.replace("/mcp", "/other");
    assert_eq!(post(&other_path, &[], &ping).await.status, 404);
    let only_json = [("accept", "application/json")];
    let r = request(&url, Method::POST, &only_json, Some(&ping)).await;
    assert_eq!(r.status, 406);
    let xml = [("content-type", "text/xml")];
    assert_eq!(post(&url, &xml, &ping).await.status, 415);
    let future = [("mcp-protocol-version", "2099-01-01")];
    assert_eq!(post(&url, &future, &ping).await.status, 400);
    let old = json!({"jsonrpc": "1.0", "id": 5, "method": "ping"});
    assert_eq!(post(&url, &[], &old).await.status, 400);
    let known = [("mcp-protocol-version", "2025-06-18")];
    assert_eq!(post(&url, &known, &ping).await.status, 200);
    assert_eq!(
        fake.problems(),
        [
            "HTTP 400: Invalid Request: JSON-RPC batches are not supported (MCP 2025-06-18 \
             removed them): send one message at a time",
            "HTTP 400: Invalid Request: a request `id` must be a string or an integer",
            "HTTP 403: the fake only answers requests from loopback origins (MCP 2025-11-25, \
             \"Security Warning\": DNS rebinding)",
            "HTTP 404: the fake serves MCP at /mcp only, not at \"/other\"",
            "HTTP 406: the `Accept` header must list both application/json and \
             text/event-stream, not \"application/json\" (MCP 2025-11-25, \"Sending Messages \
             to the Server\")",
            "HTTP 415: a POST body must be `Content-Type: application/json`, not \"text/xml\" \
             (MCP 2025-11-25, \"Sending Messages to the Server\")",
            "HTTP 400: the fake does not speak MCP-Protocol-Version \"2099-01-01\" (it speaks \
             2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28; MCP 2025-11-25, \
             \"Protocol Version Header\")",
            "HTTP 400: Invalid Request: `jsonrpc` must be \"2.0\"",
        ]
    );
}

/// A JSON-RPC error the server answered is recorded (redacted) and replayed as it was sent.
#[tokio::test]
async fn a_recorded_json_rpc_error_is_replayed_as_sent() {
    use oma_mcp_runtime::cassette::RecordedAnswer;

    let mut cassette = Cassette::new(None, Redaction::default());
    cassette.record(
        "echo",
        &json!({"message": "hush-hush-token"}),
        RecordedAnswer::Error {
            code: -32602,
            message: "Rejected: hush-hush-token".into(),
            data: Some(json!({"api_key": "k-123456"})),
        },
    );
    let fake = own::fake().await.unwrap();
    fake.replay(cassette, "errors.cassette.json").unwrap();
    let client = fake.connect().await.unwrap();
    let r = client
        .call(own::EchoArgs::new("hush-hush-token"))
        .mapped()
        .await;
    assert_eq!(
        (r.data.as_str(), r.is_error),
        (
            "MCP tool \"echo\" failed: MCP error -32602: Rejected: hush-hush-token",
            true
        )
    );
    fake.verify().unwrap();
    let answer = fake.calls()[0].answer.clone().unwrap_err();
    assert_eq!(answer.data, Some(json!({"api_key": "<redacted>"})));
    client.disconnect().await;
}

/// A replay answers identical calls in recorded order, then the last answer again (a client
/// that polls sees the recorded sequence end); the fake's messages list at most 5 recorded
/// calls, quote hostile names escaped and never quote a secret; a `tools/call` without a name
/// is a `-32602` problem.
#[tokio::test]
async fn replays_in_order_and_messages_stay_safe() {
    use oma_mcp_runtime::cassette::RecordedAnswer;

    let text = |t: &str| RecordedAnswer::Result(json!({"content": [{"type": "text", "text": t}]}));
    let mut cassette = Cassette::new(None, Redaction::default());
    cassette.record("echo", &json!({"message": "poll"}), text("pending"));
    cassette.record("echo", &json!({"message": "poll"}), text("done"));
    for i in 0..7 {
        cassette.record("add", &json!({"a": i, "b": 0}), text(&i.to_string()));
    }
    let fake = own::fake().await.unwrap();
    fake.replay(cassette, "poll.cassette.json").unwrap();
    let client = fake.connect().await.unwrap();
    let mut seen = Vec::new();
    for _ in 0..3 {
        seen.push(client.call(own::EchoArgs::new("poll")).mapped().await.data);
    }
    assert_eq!(seen, ["pending", "done", "done"]);

    let r = client.call(own::AddArgs::new(1, 1)).mapped().await;
    assert_eq!(
        r.data,
        "MCP tool \"add\" failed: MCP error -32603: tool \"add\" was called with arguments \
         {\"a\":1,\"b\":1} that the cassette poll.cassette.json has not recorded (recorded for \
         it: {\"a\":0,\"b\":0}, {\"a\":1,\"b\":0}, {\"a\":2,\"b\":0}, {\"a\":3,\"b\":0}, \
         {\"a\":4,\"b\":0} and 2 more); record the session again, or add a handler"
    );
    let r = client
        .call_tool("echo")
        .arguments(
            json!({"message": {"token": "sk-live-999"}})
                .as_object()
                .cloned(),
        )
        .mapped()
        .await;
    assert_eq!(
        r.data,
        "MCP tool \"echo\" failed: MCP error -32602: tool \"echo\": the arguments do not match \
         its pinned inputSchema: /message: {\"token\":\"<redacted>\"} is not of type \"string\""
    );
    let r = client.call_tool("nope\u{1b}[2J\u{202e}").mapped().await;
    assert!(r.is_error);
    let shown = r.data.split_once("Unknown tool ").unwrap().1;
    assert!(
        shown.starts_with(
            "\"nope\\u001b[2J\\u202e\": the snapshot of \"oma-mcp-test-server\" has \"add\", \
             \"audio\", "
        ),
        "{shown}"
    );
    assert!(shown.ends_with(" more"), "{shown}");

    let r = crate::raw_http::post(
        &fake.url(),
        &[],
        &json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {}}),
    )
    .await;
    assert_eq!(
        r.json()["error"],
        json!({"code": -32602, "message": "tools/call without a tool: `params.name` is missing \
               or not a string (MCP 2025-11-25, \"Calling Tools\")"})
    );
    assert_eq!(fake.problems().len(), 4);
    client.disconnect().await;
}

/// A fake answers the pinned prompts and resources too: `on_prompt` per prompt (a request
/// without a required argument refused before the handler runs, as a server does), `on_read`
/// for every URI; a request without a handler is a problem; a marker of another snapshot's
/// prompt is refused.
#[tokio::test]
async fn a_fake_answers_prompts_and_reads() {
    use oma_mcp_runtime::content::{ResourceBody, Role};
    use oma_mcp_runtime::error::RequestError;
    let fake = own::fake().await.unwrap();
    let client = fake.connect().await.unwrap();
    let unhandled = client
        .prompt(own::prompts::GreetArgs::new("Ada"))
        .await
        .unwrap_err();
    assert_eq!(
        unhandled.to_string(),
        "MCP error -32603: the fake has no handler for the prompt \"greet\": register one with \
         `FakeServer::on_prompt`"
    );
    assert_eq!(fake.problems().len(), 1);

    fake.on_prompt::<own::prompts::ReviewCode>(|arguments| {
        let style = arguments.get("style").map_or("none", String::as_str);
        vec![(
            Role::User,
            format!("Review {} ({style})", arguments["code"]),
        )]
    })
    .unwrap();
    let args = own::prompts::ReviewCodeArgs::new("fn main() {}").with_style("rustfmt");
    let prompt = client.prompt(args).await.unwrap();
    assert_eq!(
        prompt.description.as_deref(),
        Some("Asks for a review of a piece of code")
    );
    assert_eq!(prompt.messages.len(), 1);
    assert_eq!(prompt.messages[0].role, Role::User);
    assert_eq!(prompt.messages[0].text, "Review fn main() {} (rustfmt)");
    let missing = client
        .get_prompt("review_code", &Default::default())
        .await
        .unwrap_err();
    assert!(
        matches!(&missing, oma_mcp_runtime::Error::Request(RequestError::Rpc { code: -32602, message, .. })
            if message == "prompt \"review_code\": missing required argument \"code\""),
        "{missing:?}"
    );

    fake.on_read(|uri| match uri {
        "memo://readme" => Some(ResourceBody::Text("# fake\n".into())),
        _ if uri.starts_with("memo://notes/") => Some(ResourceBody::Blob(vec![1, 2])),
        _ => None,
    });
    let readme = client.read(own::resources::README).await.unwrap();
    assert_eq!(readme[0].mime_type.as_deref(), Some("text/markdown"));
    assert_eq!(readme[0].text(), Some("# fake\n"));
    let note = client.read(own::resources::Note::new("7")).await.unwrap();
    assert_eq!(note[0].uri, "memo://notes/7");
    assert_eq!(note[0].body, ResourceBody::Blob(vec![1, 2]));
    let gone = client.read("memo://gone").await.unwrap_err();
    assert_eq!(
        gone.to_string(),
        "MCP error -32602: no resource \"memo://gone\""
    );
    assert_eq!(fake.problems().len(), 1);

    let other = fake
        .on_prompt::<everything::prompts::SimplePrompt>(|_| Vec::new())
        .unwrap_err();
    assert!(matches!(
        &other,
        FakeError::UnknownPrompt { snapshot: None, .. }
    ));
    assert_eq!(
        other.to_string(),
        "the fake's snapshot has no prompt \"simple-prompt\": the marker type was generated \
         from another snapshot (regenerate, or use the generated module of this server's pin)"
    );
    client.disconnect().await;
}
