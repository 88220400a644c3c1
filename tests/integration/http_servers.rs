//! The HTTP servers themselves, over real loopback HTTP with plain requests: the own test
//! server over streamable HTTP (stateful and stateless, expiring sessions, progress,
//! cancellation, every content block type), `spawn_http_server`, and the pinned
//! server-everything in `streamableHttp` mode.

use std::time::{Duration, Instant};

use hyper::Method;
use oma_mcp_runtime::connect_mcp_tools;
use oma_mcp_test_support::{Ready, spawn_http_server};
use serde_json::{Value, json};

use crate::raw_http::{self, Reply, post};
use crate::{everything_http, faults_bin, own, own_http, server_bin};

/// The protocol revision these tests speak (sessions exist before 2026-07-28).
const VERSION: &str = "2025-11-25";

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": VERSION, "capabilities": {},
        "clientInfo": {"name": "oma-mcp-tests", "version": "0"}}})
}

/// One MCP conversation over HTTP: the URL and, when the server opened one, the session id.
struct Conversation {
    url: String,
    session: Option<String>,
    next_id: u64,
}

impl Conversation {
    /// `initialize` (the reply is checked) and `notifications/initialized`.
    async fn open(url: &str) -> (Self, Reply) {
        let reply = post(url, &[], &initialize()).await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        let conversation = Self {
            url: url.to_owned(),
            session: reply.header("mcp-session-id").map(str::to_owned),
            next_id: 2,
        };
        let messages = reply.messages();
        assert_eq!(messages.len(), 1, "{}", reply.body);
        assert_eq!(messages[0]["result"]["protocolVersion"], VERSION);
        let inited = conversation
            .post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        assert_eq!(inited.status, 202, "{}", inited.body);
        (conversation, reply)
    }

    fn headers(&self) -> Vec<(&str, &str)> {
        let mut headers = vec![("mcp-protocol-version", VERSION)];
        if let Some(session) = &self.session {
            headers.push(("mcp-session-id", session));
        }
        headers
    }

    async fn post(&self, message: &Value) -> Reply {
        post(&self.url, &self.headers(), message).await
    }

    /// A request; its reply and the JSON-RPC messages in it.
    async fn request(&mut self, method: &str, params: Value) -> (Reply, Vec<Value>) {
        let id = self.next_id;
        self.next_id += 1;
        let reply = self
            .post(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        let messages = reply.messages();
        assert_eq!(messages.last().unwrap()["id"], id, "{}", reply.body);
        (reply, messages)
    }

    /// A request's `result`.
    async fn result(&mut self, method: &str, params: Value) -> Value {
        let (_, mut messages) = self.request(method, params).await;
        messages.pop().unwrap()["result"].take()
    }

    async fn call(&mut self, name: &str, arguments: Value) -> Value {
        self.result("tools/call", json!({"name": name, "arguments": arguments}))
            .await
    }

    async fn send(&self, method: Method) -> Reply {
        raw_http::request(&self.url, method, &self.headers(), None).await
    }
}

#[tokio::test]
async fn over_http_the_tools_are_the_stdio_tools() {
    let client = connect_mcp_tools(own("normal")).await.unwrap();
    let stdio: Vec<Value> = client
        .tools()
        .iter()
        .map(|t| t.descriptor.clone())
        .collect();
    assert_eq!(stdio.len(), 13);
    for flags in [&[][..], &["--stateless"]] {
        let server = own_http("normal", flags);
        let (mut conversation, reply) = Conversation::open(server.url()).await;
        assert_eq!(
            reply.messages()[0]["result"]["serverInfo"],
            json!({"name": "oma-mcp-test-server", "version": "0.1.0"})
        );
        let result = conversation.result("tools/list", json!({})).await;
        assert_eq!(result["tools"], Value::Array(stdio.clone()), "{flags:?}");
        assert!(result.get("nextCursor").is_none());
    }
    client.disconnect().await;
}

#[tokio::test]
async fn stateful_sessions_stream_sse_and_end_with_delete() {
    let server = own_http("normal", &[]);
    assert!(server.url().starts_with("http://127.0.0.1:"));
    assert!(server.url().ends_with("/mcp"));
    let (mut conversation, reply) = Conversation::open(server.url()).await;
    assert_eq!(reply.content_type(), "text/event-stream");
    let session = conversation.session.clone().expect("an Mcp-Session-Id");
    // rmcp primes the stream: an event with an id, `retry` and empty data.
    let priming = &reply.events()[0];
    assert_eq!(
        (priming.id.as_deref(), priming.retry, priming.data.as_str()),
        (Some("0"), Some(3000), "")
    );

    let (reply, messages) = conversation
        .request(
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
        )
        .await;
    assert_eq!(reply.content_type(), "text/event-stream");
    assert_eq!(
        messages[0]["result"]["content"],
        json!([{"type": "text", "text": "5"}])
    );

    // The server's own stream.
    let get = raw_http::open(
        server.url(),
        Method::GET,
        &[
            ("accept", "text/event-stream"),
            ("mcp-session-id", &session),
        ],
        None,
    )
    .await;
    assert_eq!(get.status(), 200);
    assert_eq!(get.headers()["content-type"], "text/event-stream");

    // No session id: 400; an unknown one: 404.
    let anonymous = post(
        server.url(),
        &[],
        &json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}),
    )
    .await;
    assert_eq!(
        (anonymous.status, anonymous.body.as_str()),
        (400, "Bad Request: Session ID is required")
    );
    let stranger = post(
        server.url(),
        &[("mcp-session-id", "no-such-session")],
        &json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}),
    )
    .await;
    assert_eq!(
        (stranger.status, stranger.body.as_str()),
        (404, "Not Found: Session not found")
    );

    assert_eq!(conversation.send(Method::DELETE).await.status, 202);
    let after = conversation
        .post(&json!({"jsonrpc": "2.0", "id": 10, "method": "tools/list"}))
        .await;
    assert_eq!(after.status, 404);
}

#[tokio::test]
async fn stateless_answers_json_without_a_session() {
    let server = own_http("normal", &["--stateless"]);
    let (mut conversation, reply) = Conversation::open(server.url()).await;
    assert_eq!(reply.content_type(), "application/json");
    assert_eq!(conversation.session, None);
    let (reply, _) = conversation
        .request(
            "tools/call",
            json!({"name": "echo", "arguments": {"message": "hi"}}),
        )
        .await;
    assert_eq!(reply.content_type(), "application/json");
    assert_eq!(reply.header("mcp-session-id"), None);
    assert_eq!(conversation.send(Method::GET).await.status, 405);
    assert_eq!(conversation.send(Method::DELETE).await.status, 405);
    assert_eq!(
        conversation.call("add", json!({"a": 1, "b": 1})).await["content"][0]["text"],
        "2"
    );
}

#[tokio::test]
async fn every_content_block_type_over_http() {
    for flags in [&[][..], &["--stateless"]] {
        let server = own_http("normal", flags);
        let (mut c, _) = Conversation::open(server.url()).await;
        let image = c.call("tiny_image", json!({})).await;
        assert_eq!(image["content"][0]["type"], "image");
        assert_eq!(
            image["content"][0]["data"],
            oma_mcp_test_server::TINY_PNG_BASE64
        );
        assert_eq!(image["content"][1]["text"], "A 1x1 PNG.");
        let links = c.call("resource_links", json!({})).await;
        assert_eq!(links["content"][0]["type"], "resource_link");
        assert_eq!(links["content"][1]["uri"], "file:///tmp/oma-mcp/notes.txt");
        let embedded = c.call("embedded_resource", json!({})).await;
        assert_eq!(
            embedded["content"][0]["resource"]["text"],
            "Hello from a resource"
        );
        assert_eq!(
            embedded["content"][1]["resource"]["blob"],
            oma_mcp_test_server::BLOB_BASE64
        );
        let audio = c.call("audio", json!({})).await;
        assert_eq!(audio["content"][0]["mimeType"], "audio/wav");
        let weather = c.call("structured", json!({"city": "Oslo"})).await;
        assert_eq!(
            weather["structuredContent"],
            json!({"city": "Oslo", "temperature_c": 21, "conditions": "sunny"})
        );
        let fail = c.call("fail", json!({})).await;
        assert_eq!(fail["isError"], true);
        let big = c.call("big", json!({"bytes": 3 << 20})).await;
        assert_eq!(big["content"][0]["text"].as_str().unwrap().len(), 3 << 20);
        let slept = c.call("sleep", json!({"ms": 30})).await;
        assert_eq!(slept["content"][0]["text"], "Slept 30 ms");
    }
}

#[tokio::test]
async fn sessions_expire_after_n_requests_then_a_new_one_works() {
    let server = own_http("normal", &["--session-ttl-requests", "2"]);
    let (mut c, _) = Conversation::open(server.url()).await;
    let first = c.session.clone().unwrap();
    c.result("tools/list", json!({})).await;
    c.call("echo", json!({"message": "two"})).await;
    let third = c
        .post(&json!({"jsonrpc": "2.0", "id": 99, "method": "tools/list"}))
        .await;
    assert_eq!(
        (third.status, third.body.as_str()),
        (404, "Not Found: Session not found")
    );
    // Expired for good, notifications included.
    let note = c
        .post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    assert_eq!(note.status, 404);
    let (mut again, _) = Conversation::open(server.url()).await;
    assert_ne!(again.session.as_deref(), Some(first.as_str()));
    again.call("echo", json!({"message": "new"})).await;
}

#[tokio::test]
async fn sessions_expire_after_a_time() {
    let server = own_http("normal", &["--session-ttl-ms", "1500"]);
    let (mut c, _) = Conversation::open(server.url()).await;
    c.call("echo", json!({"message": "in time"})).await;
    tokio::time::sleep(Duration::from_millis(1600)).await;
    let late = c
        .post(&json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}))
        .await;
    assert_eq!(late.status, 404);
}

#[tokio::test]
async fn progress_notifications_come_before_the_result() {
    for flags in [&[][..], &["--stateless"]] {
        let server = own_http("progress", flags);
        let (mut c, _) = Conversation::open(server.url()).await;
        let tools = c.result("tools/list", json!({})).await;
        assert_eq!(tools["tools"][0]["name"], "slow_count");
        let (reply, messages) = c
            .request(
                "tools/call",
                json!({"name": "slow_count", "arguments": {"steps": 3, "ms": 10},
                       "_meta": {"progressToken": "p"}}),
            )
            .await;
        assert_eq!(reply.content_type(), "text/event-stream", "{flags:?}");
        let progress: Vec<(f64, String)> = messages[..3]
            .iter()
            .map(|m| {
                assert_eq!(m["method"], "notifications/progress");
                assert_eq!(m["params"]["progressToken"], "p");
                assert_eq!(m["params"]["total"], 3.0);
                let p = &m["params"];
                (
                    p["progress"].as_f64().unwrap(),
                    p["message"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        assert_eq!(
            progress,
            [
                (1.0, "step 1 of 3".into()),
                (2.0, "step 2 of 3".into()),
                (3.0, "step 3 of 3".into())
            ]
        );
        assert_eq!(messages[3]["result"]["content"][0]["text"], "Counted to 3");
        // No token, no progress.
        let (_, messages) = c
            .request(
                "tools/call",
                json!({"name": "slow_count", "arguments": {"steps": 2, "ms": 1}}),
            )
            .await;
        assert_eq!(messages.len(), 1);
    }
}

/// In a session, `notifications/cancelled` stops the call: its stream ends without a response.
#[tokio::test]
async fn a_cancelled_call_ends_its_stream_without_a_response() {
    let server = own_http("normal", &[]);
    let (c, _) = Conversation::open(server.url()).await;
    let mut headers: Vec<(&str, &str)> = c.headers();
    headers.push(("accept", raw_http::ACCEPT_BOTH));
    let sleep = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                       "params": {"name": "sleep", "arguments": {"ms": 10_000}}});
    let start = Instant::now();
    // The response head comes once the server has taken the call, so the cancel finds it.
    let call = raw_http::open(&c.url, Method::POST, &headers, Some(&sleep)).await;
    let cancel = c
        .post(
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                      "params": {"requestId": 7, "reason": "test"}}),
        )
        .await;
    assert_eq!(cancel.status, 202);
    let reply = raw_http::read(call).await;
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(reply.status, 200);
    assert_eq!(reply.messages(), Vec::<Value>::new(), "{}", reply.body);
}

#[tokio::test]
async fn stdio_only_modes_are_refused_over_http() {
    let mut command = std::process::Command::new(server_bin());
    command
        .args(["--http", "127.0.0.1:0"])
        .env(oma_mcp_test_server::MODE_VAR, "never-answer");
    let err = spawn_http_server(command, Ready::ListeningLine, crate::HTTP_READY).unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("exited (exit status: 1) before it was ready"),
        "{message}"
    );
    assert!(
        message.contains("stderr: oma-mcp-test-server: OMA_TEST_SERVER_MODE=never-answer is served over stdio only"),
        "{message}"
    );
}

#[tokio::test]
async fn a_bad_flag_is_a_usage_error() {
    for (bin, args) in [
        (server_bin(), &["--http", "localhost"][..]),
        (server_bin(), &["--stateless"]),
        (faults_bin(), &["--mode", "bogus"]),
        (faults_bin(), &[]),
    ] {
        let output = std::process::Command::new(&bin)
            .args(args)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&output.stderr).contains("--"),
            "{args:?}"
        );
    }
    for bin in [server_bin(), faults_bin()] {
        let output = std::process::Command::new(&bin)
            .arg("--help")
            .output()
            .unwrap();
        assert!(output.status.success());
        assert!(
            String::from_utf8_lossy(&output.stdout)
                .contains("listening on http://127.0.0.1:PORT/mcp")
        );
    }
}

#[tokio::test]
async fn closing_stdin_stops_the_servers() {
    for mut server in [own_http("normal", &[]), crate::faults("normal", &[])] {
        server.close_stdin();
        let start = Instant::now();
        let status = loop {
            if let Some(status) = server.child_mut().try_wait().unwrap() {
                break status;
            }
            assert!(start.elapsed() < Duration::from_secs(5), "still running");
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        assert!(status.success());
    }
}

#[tokio::test]
async fn dropping_the_server_kills_it() {
    let server = own_http("stderr-flood", &[]);
    let pid = server.id();
    assert!(crate::alive(pid));
    drop(server);
    assert!(crate::gone_within_5s(pid).await);
}

/// The pinned server-everything in `streamableHttp` mode: `PORT` chooses the port, `/mcp` the
/// path; sessions, SSE answers; `server/discover` and stale session ids get 400.
#[tokio::test]
async fn everything_over_streamable_http() {
    let Some(server) = everything_http("everything_over_streamable_http") else {
        return;
    };
    let discover = post(
        server.url(),
        &[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "server/discover"),
        ],
        &json!({"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "oma-mcp-tests", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {}}}}),
    )
    .await;
    assert_eq!(discover.status, 400, "{}", discover.body);
    assert_eq!(
        discover.json()["error"]["message"],
        "Bad Request: Server not initialized"
    );

    let (mut c, reply) = Conversation::open(server.url()).await;
    assert_eq!(reply.content_type(), "text/event-stream");
    assert!(c.session.is_some());
    let tools = c.result("tools/list", json!({})).await;
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"echo"), "{names:?}");
    let echo = c.call("echo", json!({"message": "over HTTP"})).await;
    assert_eq!(echo["content"][0]["text"], "Echo: over HTTP");
    assert_eq!(c.send(Method::DELETE).await.status, 200);
    let stale = c
        .post(&json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}))
        .await;
    assert_eq!(
        stale.status, 400,
        "server-everything answers a stale session 400, not 404"
    );
}
