//! The transport against a scripted HTTP/1.1 server on loopback: each test answers the
//! requests the transport must send, records what it sent, and holds both to MCP's
//! streamable HTTP rules (2025-11-25). The request timeout is short, so a transport that stops
//! answering fails a test in seconds.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::connect::config::{AuthFailure, BoxFuture, Refusal, TokenProvider, TokenSource};
use crate::error::{ConnectError, RequestError};
use crate::{ConnectConfig, Error, Lifecycle, McpClient, connect_mcp_tools};

/// One request as the server read it.
#[derive(Debug, Clone)]
struct Request {
    method: String,
    headers: Vec<(String, String)>,
    body: Value,
}

impl Request {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The JSON-RPC method of a `POST`, `-` for a response, and the HTTP method otherwise.
    fn what(&self) -> String {
        match (self.method.as_str(), self.body["method"].as_str()) {
            ("POST", Some(method)) => method.to_owned(),
            ("POST", None) => "-".to_owned(),
            (other, _) => other.to_owned(),
        }
    }

    fn id(&self) -> u64 {
        self.body["id"].as_u64().unwrap_or(0)
    }
}

/// A scripted server: the answer to each request comes from its script, given the request and
/// how many requests of the same [`Request::what`] came before it.
struct Script {
    url: String,
    log: Arc<Mutex<Vec<Request>>>,
    task: tokio::task::JoinHandle<()>,
}

type Answer = dyn Fn(&Request, usize) -> Vec<u8> + Send + Sync;

/// The mark of an answer to hold back until the server saw a request (see [`after`]).
const AFTER: &[u8] = b"after ";

/// `bytes`, written once the server has seen `count` requests of the kind `what` (a
/// [`Request::what`]): an answer on the server's stream to a request sent after it opened.
fn after(what: &str, count: usize, bytes: Vec<u8>) -> Vec<u8> {
    let mut marked = format!("after {what} {count}\n").into_bytes();
    marked.extend(bytes);
    marked
}

impl Script {
    async fn start(answer: impl Fn(&Request, usize) -> Vec<u8> + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let log = Arc::new(Mutex::new(Vec::new()));
        let answer: Arc<Answer> = Arc::new(answer);
        let task = tokio::spawn({
            let log = log.clone();
            async move {
                while let Ok((stream, _)) = listener.accept().await {
                    tokio::spawn(connection(stream, answer.clone(), log.clone()));
                }
            }
        });
        Self { url, log, task }
    }

    /// What came but `GET`s (whose timing is the stream's), in order: each
    /// [`Request::what`], with ` @<session id>` when it carried one.
    fn seen(&self) -> Vec<String> {
        self.requests()
            .iter()
            .filter(|r| r.method != "GET")
            .map(|r| match r.header("mcp-session-id") {
                Some(session) => format!("{} @{session}", r.what()),
                None => r.what(),
            })
            .collect()
    }

    fn requests(&self) -> Vec<Request> {
        self.log.lock().unwrap().clone()
    }

    /// A client of the server with the `initialize` lifecycle and a short request timeout.
    async fn connect(&self) -> Result<McpClient, Error> {
        connect_mcp_tools(
            ConnectConfig::http(&self.url)
                .with_lifecycle(Lifecycle::Initialize)
                .with_request_timeout(Duration::from_secs(3))
                .with_max_message_size(1000),
        )
        .await
    }
}

impl Drop for Script {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn connection(mut stream: TcpStream, answer: Arc<Answer>, log: Arc<Mutex<Vec<Request>>>) {
    let mut buf = Vec::new();
    while let Some(request) = read_request(&mut stream, &mut buf).await {
        let count = {
            let mut log = log.lock().unwrap();
            let count = log.iter().filter(|r| r.what() == request.what()).count();
            log.push(request.clone());
            count
        };
        let mut bytes = answer(&request, count);
        if let Some(rest) = bytes.strip_prefix(AFTER) {
            let line_end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
            let mark = String::from_utf8_lossy(&rest[..line_end]).into_owned();
            let (what, count) = mark.rsplit_once(' ').unwrap();
            let count: usize = count.parse().unwrap();
            for _ in 0..500 {
                if log
                    .lock()
                    .unwrap()
                    .iter()
                    .filter(|r| r.what() == what)
                    .count()
                    >= count
                {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            bytes = rest[line_end + 1..].to_vec();
        }
        if stream.write_all(&bytes).await.is_err() {
            return;
        }
    }
}

async fn read_request(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Option<Request> {
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = stream.read(&mut chunk).await.ok().filter(|&n| n > 0)?;
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.lines();
    let method = lines.next()?.split(' ').next()?.to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let length = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        let n = stream.read(&mut chunk).await.ok().filter(|&n| n > 0)?;
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = serde_json::from_slice(&buf[head_end..head_end + length]).unwrap_or(Value::Null);
    buf.drain(..head_end + length);
    Some(Request {
        method,
        headers,
        body,
    })
}

/// An HTTP response with `status`, extra `headers` and `body` (with its `Content-Length`).
fn response(status: u16, headers: &[(&str, &str)], body: &str) -> Vec<u8> {
    let mut text = format!("HTTP/1.1 {status} Scripted\r\n");
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    text.into_bytes()
}

fn json_response(status: u16, headers: &[(&str, &str)], body: &Value) -> Vec<u8> {
    let mut all = vec![("Content-Type", "application/json")];
    all.extend_from_slice(headers);
    response(status, &all, &body.to_string())
}

fn sse_response(events: &str) -> Vec<u8> {
    response(200, &[("Content-Type", "text/event-stream")], events)
}

fn accepted() -> Vec<u8> {
    response(202, &[], "")
}

fn not_allowed() -> Vec<u8> {
    response(405, &[("Allow", "POST")], "")
}

/// The answer to `initialize`, with `session` as its `Mcp-Session-Id` when given.
fn initialized(request: &Request, session: Option<&str>) -> Vec<u8> {
    let headers: Vec<(&str, &str)> = session.map(|s| ("Mcp-Session-Id", s)).into_iter().collect();
    json_response(
        200,
        &headers,
        &json!({"jsonrpc": "2.0", "id": request.id(), "result": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "scripted", "version": "1"}
        }}),
    )
}

/// A `tools/list` result of the tools named `names`.
fn tools(request: &Request, names: &[&str]) -> Value {
    let tools: Vec<Value> = names
        .iter()
        .map(|n| json!({"name": n, "inputSchema": {"type": "object"}}))
        .collect();
    json!({"jsonrpc": "2.0", "id": request.id(), "result": {"tools": tools}})
}

fn names(tools: &[Value]) -> Vec<&str> {
    tools.iter().filter_map(|t| t["name"].as_str()).collect()
}

/// Connecting with a session: `initialize` without a session id, every later message with
/// the one the server assigned and the negotiated protocol version, the `GET` of the server's
/// stream (refused: the server offers none), and a `DELETE` of the session at the end.
#[tokio::test]
async fn a_session_from_handshake_to_delete() {
    let script = Script::start(|r, _| match r.what().as_str() {
        "initialize" => initialized(r, Some("s-1")),
        "tools/list" => json_response(200, &[], &tools(r, &["echo"])),
        "DELETE" => response(200, &[], ""),
        "GET" => not_allowed(),
        _ => accepted(),
    })
    .await;
    let client = script.connect().await.unwrap();
    assert_eq!(names(&client.list_tools_raw().await.unwrap()), ["echo"]);
    client.disconnect().await;

    assert_eq!(
        script.seen(),
        [
            "initialize",
            "notifications/initialized @s-1",
            "tools/list @s-1",
            "tools/list @s-1",
            "DELETE @s-1",
        ]
    );
    let requests = script.requests();
    for request in &requests {
        let version = request.header("mcp-protocol-version");
        if request.what() == "initialize" {
            assert_eq!(version, None);
        } else {
            assert_eq!(version, Some("2025-11-25"), "{request:?}");
        }
        if request.method == "POST" {
            assert_eq!(request.header("content-type"), Some("application/json"));
            assert_eq!(
                request.header("accept"),
                Some("application/json, text/event-stream")
            );
        }
    }
    let get = requests.iter().find(|r| r.method == "GET").unwrap();
    assert_eq!(
        (get.header("accept"), get.header("mcp-session-id")),
        (Some("text/event-stream"), Some("s-1"))
    );
}

/// An SSE answer: a server request before the answer is answered with its own `POST`, and the
/// answer after it is the request's.
#[tokio::test]
async fn an_sse_answer_with_a_server_request_first() {
    let script = Script::start(|r, n| match (r.what().as_str(), n) {
        ("initialize", _) => initialized(r, None),
        ("tools/list", 1) => sse_response(&format!(
            "event: message\ndata: {}\n\ndata: {}\n\n",
            json!({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"}),
            tools(r, &["a", "b"])
        )),
        ("tools/list", _) => json_response(200, &[], &tools(r, &[])),
        ("GET", _) => not_allowed(),
        _ => accepted(),
    })
    .await;
    let client = script.connect().await.unwrap();
    assert_eq!(names(&client.list_tools_raw().await.unwrap()), ["a", "b"]);
    // The answer to the ping may still be on its way.
    for _ in 0..50 {
        if script.requests().iter().any(|r| r.what() == "-") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let answer = script
        .requests()
        .into_iter()
        .find(|r| r.what() == "-")
        .unwrap();
    assert_eq!(
        answer.body,
        json!({"jsonrpc": "2.0", "id": "srv-1", "result": {}})
    );
    client.disconnect().await;
}

/// A `404` to a request of a session starts a new one (`initialize` without the old id, then
/// `notifications/initialized` with the new one), and the request goes again with the new id.
#[tokio::test]
async fn an_expired_session_is_started_again() {
    let script = Script::start(|r, n| match (r.what().as_str(), n) {
        ("initialize", 0) => initialized(r, Some("s-1")),
        ("initialize", _) => initialized(r, Some("s-2")),
        ("tools/list", 1) => response(404, &[], "no such session"),
        ("tools/list", _) => json_response(200, &[], &tools(r, &["t"])),
        ("GET" | "DELETE", _) => not_allowed(),
        _ => accepted(),
    })
    .await;
    let client = script.connect().await.unwrap();
    assert_eq!(names(&client.list_tools_raw().await.unwrap()), ["t"]);
    client.disconnect().await;
    assert_eq!(
        script.seen(),
        [
            "initialize",
            "notifications/initialized @s-1",
            "tools/list @s-1",
            "tools/list @s-1",
            "initialize",
            "notifications/initialized @s-2",
            "tools/list @s-2",
            "DELETE @s-2",
        ]
    );
}

/// A stream that ends before the answer, after an event with an id, is resumed with a `GET`
/// that carries `Last-Event-ID`, and the answer on the resumed stream is the request's.
#[tokio::test]
async fn a_dropped_stream_is_resumed_from_its_last_event() {
    let script = answering(
        |_| sse_response("retry: 10\nid: ev-7\ndata: {}\n\n"),
        |r| match r.header("last-event-id") {
            Some("ev-7") => sse_response(&format!(
                "data: {}\n\n",
                json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": [{"name": "resumed",
                    "inputSchema": {"type": "object"}}]}})
            )),
            _ => not_allowed(),
        },
    )
    .await;
    let client = script.connect().await.unwrap();
    let listed = client.list_tools_raw().await;
    let gets: Vec<_> = script
        .requests()
        .into_iter()
        .filter(|r| r.method == "GET")
        .map(|r| r.header("last-event-id").map(str::to_owned))
        .collect();
    assert_eq!(names(&listed.unwrap()), ["resumed"], "GETs: {gets:?}");
    assert!(gets.contains(&Some("ev-7".to_owned())), "{gets:?}");
    client.disconnect().await;
}

/// A request accepted with `202` is answered on the server's stream: the request waits for
/// that answer rather than failing.
#[tokio::test]
async fn a_request_accepted_with_202_is_answered_on_the_server_stream() {
    let script = Script::start(|r, n| match (r.what().as_str(), n) {
        ("initialize", _) => initialized(r, Some("s-1")),
        ("tools/list", 0) => json_response(200, &[], &tools(r, &[])),
        ("tools/list", _) => accepted(),
        // Held until the request came (connect waits for the stream briefly, then goes on
        // and opens it again later).
        ("GET", _) => after(
            "tools/list",
            2,
            sse_response(&format!(
                "data: {}\n\n",
                json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": [{"name": "streamed",
                    "inputSchema": {"type": "object"}}]}})
            )),
        ),
        ("DELETE", _) => not_allowed(),
        _ => accepted(),
    })
    .await;
    let client = script.connect().await.unwrap();
    assert_eq!(names(&client.list_tools_raw().await.unwrap()), ["streamed"]);
    client.disconnect().await;
}

/// A JSON answer of exactly the message size limit is read, whether its length is declared
/// (`Content-Length`) or not (chunked); the limit is in bytes of the body.
#[tokio::test]
async fn an_answer_of_exactly_the_limit_is_read() {
    let script = Script::start(|r, n| {
        let exact = || {
            let short = tools(r, &["t"]).to_string().len();
            let body = tools(r, &[&format!("t{}", "x".repeat(1000 - short))]).to_string();
            assert_eq!(body.len(), 1000);
            body
        };
        match (r.what().as_str(), n) {
            ("initialize", _) => initialized(r, None),
            ("tools/list", 0) => json_response(200, &[], &tools(r, &[])),
            ("tools/list", 1) => response(200, &[("Content-Type", "application/json")], &exact()),
            ("tools/list", _) => {
                let body = exact();
                let (a, b) = body.split_at(600);
                format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\
                     Transfer-Encoding: chunked\r\n\r\n{:x}\r\n{a}\r\n{:x}\r\n{b}\r\n0\r\n\r\n",
                    a.len(),
                    b.len()
                )
                .into_bytes()
            }
            ("GET", _) => not_allowed(),
            _ => accepted(),
        }
    })
    .await;
    let client = script.connect().await.unwrap();
    for framing in ["Content-Length", "chunked"] {
        let listed = client.list_tools_raw().await.unwrap();
        let name = listed[0]["name"].as_str().unwrap();
        assert!(
            name.starts_with("tx") && name.len() > 800,
            "{framing}: {name}"
        );
    }
    client.disconnect().await;
}

/// A stream resumed again and again without a new event gives up after
/// [`MAX_RESUMES`](crate::connect::config::MAX_RESUMES) quiet resumptions, each from the last
/// event id, and says so.
#[tokio::test]
async fn quiet_resumptions_give_up_after_the_bound() {
    let script = answering(
        |_| sse_response("retry: 1\nid: ev-1\ndata: {}\n\n"),
        |_| sse_response(""),
    )
    .await;
    let client = script.connect().await.unwrap();
    let error = client.list_tools_raw().await.unwrap_err();
    assert_eq!(
        http(&error),
        (
            Some(200),
            "the SSE stream was resumed 5 times without a new event, and still no response"
                .to_owned()
        )
    );
    let resumed: Vec<_> = script
        .requests()
        .into_iter()
        .filter_map(|r| r.header("last-event-id").map(str::to_owned))
        .collect();
    assert_eq!(resumed, vec!["ev-1".to_owned(); 6]);
    client.disconnect().await;
}

/// A resumption answered with anything but an SSE stream fails the request, quoting it.
#[tokio::test]
async fn a_resumption_that_is_no_stream_fails() {
    let script = answering(
        |_| sse_response("retry: 1\nid: ev-1\ndata: {}\n\n"),
        |r| match r.header("last-event-id") {
            Some(_) => json_response(200, &[], &json!({"not": "a stream"})),
            None => not_allowed(),
        },
    )
    .await;
    let client = script.connect().await.unwrap();
    let error = client.list_tools_raw().await.unwrap_err();
    assert_eq!(
        http(&error),
        (
            Some(200),
            "the SSE stream ended before the response and resuming it (GET with Last-Event-ID) \
             failed: body: \"{\"not\":\"a stream\"}\""
                .to_owned()
        )
    );
    client.disconnect().await;
}

/// The SSE answer to a notification is read and ends there: an event id in it starts no
/// resumption (nothing waits for an answer).
#[tokio::test]
async fn a_notifications_stream_is_not_resumed() {
    let script = Script::start(|r, _| match r.what().as_str() {
        "initialize" => initialized(r, None),
        "notifications/initialized" => sse_response("retry: 1\nid: n-1\ndata: {}\n\n"),
        "tools/list" => json_response(200, &[], &tools(r, &[])),
        "GET" => not_allowed(),
        _ => accepted(),
    })
    .await;
    let client = script.connect().await.unwrap();
    client.list_tools_raw().await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let resumptions = script
        .requests()
        .iter()
        .filter(|r| r.header("last-event-id").is_some())
        .count();
    assert_eq!(resumptions, 0);
    client.disconnect().await;
}

/// `application/json` in any case and with parameters, any `application/…+json`, and
/// `Content-Encoding: identity` make a JSON answer.
#[tokio::test]
async fn what_counts_as_a_json_answer() {
    let script = Script::start(|r, n| {
        let answer = |content_type: &str, encoding: &str, name: &str| {
            let mut headers = vec![("Content-Type", content_type)];
            if !encoding.is_empty() {
                headers.push(("Content-Encoding", encoding));
            }
            response(200, &headers, &tools(r, &[name]).to_string())
        };
        match (r.what().as_str(), n) {
            ("initialize", _) => initialized(r, None),
            ("tools/list", 1) => answer("Application/JSON; charset=utf-8", "", "a"),
            ("tools/list", 2) => answer("application/vnd.example+json", "", "b"),
            ("tools/list", 3) => answer("application/json", "Identity", "c"),
            ("tools/list", _) => json_response(200, &[], &tools(r, &[])),
            ("GET", _) => not_allowed(),
            _ => accepted(),
        }
    })
    .await;
    let client = script.connect().await.unwrap();
    for expected in ["a", "b", "c"] {
        assert_eq!(names(&client.list_tools_raw().await.unwrap()), [expected]);
    }
    client.disconnect().await;
}

/// From MCP 2026-07-28 on, a call carries its method and tool name as headers, and each
/// argument whose property the listed tool annotates with `x-mcp-header` as an
/// `Mcp-Param-<name>` header.
#[tokio::test]
async fn annotated_arguments_travel_as_headers_from_2026_07_28_on() {
    let script = Script::start(|r, _| match r.what().as_str() {
        "initialize" => json_response(
            200,
            &[],
            &json!({"jsonrpc": "2.0", "id": r.id(), "result": {
                "protocolVersion": "2026-07-28",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "scripted", "version": "1"}
            }}),
        ),
        "tools/list" => json_response(
            200,
            &[],
            &json!({"jsonrpc": "2.0", "id": r.id(), "result": {"tools": [{
                "name": "weather",
                "inputSchema": {"type": "object", "properties": {
                    "region": {"type": "string", "x-mcp-header": "Region"},
                    "days": {"type": "integer"}
                }}
            }]}}),
        ),
        "tools/call" => json_response(
            200,
            &[],
            &json!({"jsonrpc": "2.0", "id": r.id(), "result": {"content": []}}),
        ),
        "GET" | "DELETE" => not_allowed(),
        _ => accepted(),
    })
    .await;
    let client = script.connect().await.unwrap();
    let arguments = json!({"region": "north", "days": 3});
    client
        .call_tool("weather")
        .arguments(arguments.as_object().cloned())
        .raw()
        .await
        .unwrap();
    let call = script
        .requests()
        .into_iter()
        .find(|r| r.what() == "tools/call")
        .unwrap();
    let headers: Vec<_> = [
        "mcp-method",
        "mcp-name",
        "mcp-param-region",
        "mcp-param-days",
    ]
    .map(|name| call.header(name))
    .to_vec();
    assert_eq!(
        headers,
        [Some("tools/call"), Some("weather"), Some("north"), None]
    );
    client.disconnect().await;
}

/// A token provider that hands out `token-1`, `token-2`, …: a new one after each refusal,
/// which it records.
#[derive(Default)]
struct Tokens {
    issued: Mutex<usize>,
    refusals: Mutex<Vec<Refusal>>,
}

impl TokenProvider for Tokens {
    fn access_token(&self) -> BoxFuture<'_, Result<Option<String>, AuthFailure>> {
        let token = format!("token-{}", *self.issued.lock().unwrap() + 1);
        Box::pin(async move { Ok(Some(token)) })
    }

    fn refused<'a>(&'a self, refusal: &'a Refusal) -> BoxFuture<'a, Result<(), AuthFailure>> {
        self.refusals.lock().unwrap().push(refusal.clone());
        *self.issued.lock().unwrap() += 1;
        Box::pin(async { Ok(()) })
    }
}

/// A `401` to a request with the provider's token: the provider hears of it (status,
/// challenge, the refused token), and the request goes again with the new token, once per
/// token; the endpoint remembers each token it sent (for a recording to redact).
#[tokio::test]
async fn a_refused_token_is_replaced_and_the_request_sent_again() {
    let script = Script::start(|r, _| match r.what().as_str() {
        "initialize" => initialized(r, None),
        "tools/list" if r.header("authorization") == Some("Bearer token-2") => {
            json_response(200, &[], &tools(r, &["ok"]))
        }
        "tools/list" if r.body["params"].is_object() && r.id() == 2 => response(
            401,
            &[("WWW-Authenticate", "Bearer error=\"invalid_token\"")],
            "",
        ),
        "tools/list" => json_response(200, &[], &tools(r, &[])),
        "GET" => not_allowed(),
        _ => accepted(),
    })
    .await;
    let tokens = Arc::new(Tokens::default());
    let client = connect_mcp_tools(
        ConnectConfig::http(&script.url)
            .with_lifecycle(Lifecycle::Initialize)
            .with_request_timeout(Duration::from_secs(3))
            .with_token_provider(TokenSource(tokens.clone())),
    )
    .await
    .unwrap();
    assert_eq!(names(&client.list_tools_raw().await.unwrap()), ["ok"]);
    let refusals = tokens.refusals.lock().unwrap().clone();
    assert_eq!(
        refusals,
        [Refusal::new(
            401,
            Some("Bearer error=\"invalid_token\"".to_owned()),
            Some("token-1".to_owned())
        )]
    );
    let lists: Vec<_> = script
        .requests()
        .into_iter()
        .filter(|r| r.what() == "tools/list")
        .map(|r| r.header("authorization").map(str::to_owned))
        .collect();
    assert_eq!(
        lists,
        ["Bearer token-1", "Bearer token-1", "Bearer token-2"].map(|t| Some(t.to_owned()))
    );
    assert_eq!(client.sent_credentials(), ["token-1", "token-2"]);
    client.disconnect().await;
}

/// A server that refuses every token: the request goes again after each of three refusals,
/// then fails with the refusal.
#[tokio::test]
async fn refusals_in_a_row_end_after_three() {
    let script = Script::start(|r, n| match (r.what().as_str(), n) {
        ("initialize", _) => initialized(r, None),
        ("tools/list", 0) => json_response(200, &[], &tools(r, &[])),
        ("tools/list", _) => response(401, &[], ""),
        ("GET", _) => not_allowed(),
        _ => accepted(),
    })
    .await;
    let tokens = Arc::new(Tokens::default());
    let client = connect_mcp_tools(
        ConnectConfig::http(&script.url)
            .with_lifecycle(Lifecycle::Initialize)
            .with_request_timeout(Duration::from_secs(3))
            .with_token_provider(TokenSource(tokens.clone())),
    )
    .await
    .unwrap();
    let error = client.list_tools_raw().await.unwrap_err();
    assert!(
        matches!(
            error,
            Error::Connect(ConnectError::HttpAuth { status: 401, .. })
        ),
        "{error:?}"
    );
    assert_eq!(tokens.refusals.lock().unwrap().len(), 3);
    let sent = script
        .requests()
        .iter()
        .filter(|r| r.what() == "tools/list")
        .count();
    assert_eq!(sent, 1 + 4);
    client.disconnect().await;
}

/// The endpoint's `Debug` names its URL, redacted, and nothing else (no header, no token).
#[test]
fn the_endpoint_shows_its_url_redacted() {
    let url = "http://127.0.0.1:1/mcp?key=k1";
    let config = ConnectConfig::http(url).with_header("X-Api-Key", "SECRET");
    let http = super::Http::new(&config, url).unwrap();
    assert_eq!(
        format!("{http:?}"),
        "Http { url: \"http://127.0.0.1:1/mcp?key=***\" }"
    );
}

/// A server without sessions that answers the second `tools/list` (the first after
/// connecting) with `second` and every `GET` with `get`; the other `tools/list`s list no
/// tools.
async fn answering(
    second: impl Fn(&Request) -> Vec<u8> + Send + Sync + 'static,
    get: impl Fn(&Request) -> Vec<u8> + Send + Sync + 'static,
) -> Script {
    Script::start(move |r, n| match (r.what().as_str(), n) {
        ("initialize", _) => initialized(r, None),
        ("tools/list", 1) => second(r),
        ("tools/list", _) => json_response(200, &[], &tools(r, &[])),
        ("GET", _) => get(r),
        _ => accepted(),
    })
    .await
}

/// What the second `tools/list` fails with, when `answer` answers it.
async fn failure(answer: impl Fn(&Request) -> Vec<u8> + Send + Sync + 'static) -> Error {
    let script = answering(answer, |_| not_allowed()).await;
    let client = script.connect().await.unwrap();
    let error = client.list_tools_raw().await.unwrap_err();
    // A bad answer fails its request, not the session.
    assert_eq!(
        names(&client.list_tools_raw().await.unwrap()),
        [] as [&str; 0]
    );
    client.disconnect().await;
    error
}

/// The status and reason of a [`ConnectError::Http`].
fn http(error: &Error) -> (Option<u16>, String) {
    match error {
        Error::Connect(ConnectError::Http { status, reason, .. }) => (*status, reason.clone()),
        other => panic!("not an HTTP error: {other:?}"),
    }
}

#[tokio::test]
async fn an_error_status_quotes_the_body() {
    let error =
        failure(|_| response(500, &[("Content-Type", "text/plain")], "boom\r\nagain")).await;
    assert_eq!(
        http(&error),
        (Some(500), "body: \"boom  again\"".to_owned())
    );
    let error = failure(|_| response(404, &[], "")).await;
    assert_eq!(
        http(&error),
        (
            Some(404),
            "empty body (check the URL's path: many servers serve MCP at /mcp)".to_owned()
        )
    );
}

#[tokio::test]
async fn a_json_rpc_error_in_an_error_status_is_the_servers_answer() {
    let error = failure(|r| {
        json_response(
            400,
            &[],
            &json!({"jsonrpc": "2.0", "id": r.id(), "error": {"code": -32600, "message": "bad"}}),
        )
    })
    .await;
    let Error::Request(RequestError::Rpc { code, message, .. }) = error else {
        panic!("{error:?}");
    };
    assert_eq!((code, message.as_str()), (-32600, "bad"));
}

/// Of an error status's body the first 64 KiB are read: a JSON-RPC error of exactly that
/// size is the server's answer; one byte more is cut, no JSON, and quoted.
#[tokio::test]
async fn an_error_body_is_read_up_to_64_kib() {
    fn error_body(r: &Request, size: usize) -> String {
        let error = |data: &str| {
            json!({"jsonrpc": "2.0", "id": r.id(), "error": {"code": -32000, "message": "m",
                "data": data}})
            .to_string()
        };
        let body = error(&"d".repeat(size - error("").len()));
        assert_eq!(body.len(), size);
        body
    }
    let error = failure(|r| {
        response(
            500,
            &[("Content-Type", "application/json")],
            &error_body(r, 64 * 1024),
        )
    })
    .await;
    let Error::Request(RequestError::Rpc { code, data, .. }) = error else {
        panic!("{error:?}");
    };
    assert_eq!(
        (code, data.and_then(|d| d.as_str().map(str::len))),
        (-32000, Some(64 * 1024 - 72))
    );
    let error = failure(|r| {
        response(
            500,
            &[("Content-Type", "application/json")],
            &error_body(r, 64 * 1024 + 1),
        )
    })
    .await;
    let (status, reason) = http(&error);
    assert_eq!(status, Some(500));
    assert!(
        reason.starts_with("body: \"{\"jsonrpc\":\"2.0\""),
        "{reason}"
    );
}

#[tokio::test]
async fn a_refusal_names_the_status_and_the_challenge() {
    let error = failure(|_| {
        response(
            401,
            &[("WWW-Authenticate", "Bearer realm=\"mcp\"")],
            "no token",
        )
    })
    .await;
    let Error::Connect(ConnectError::HttpAuth {
        status, challenge, ..
    }) = error
    else {
        panic!("{error:?}");
    };
    assert_eq!(
        (status, challenge.as_deref()),
        (401, Some("Bearer realm=\"mcp\""))
    );
}

#[tokio::test]
async fn a_redirect_elsewhere_is_not_followed() {
    let error = failure(|_| response(302, &[("Location", "http://elsewhere.invalid/x")], "")).await;
    let (status, reason) = http(&error);
    assert_eq!(status, Some(302));
    assert!(
        reason
            .starts_with("a redirect to http://elsewhere.invalid/x, which oma-mcp does not follow"),
        "{reason}"
    );
}

#[tokio::test]
async fn a_success_that_is_no_mcp_answer_says_what_it_was() {
    let error = failure(|_| response(200, &[("Content-Type", "text/html")], "<html>")).await;
    assert_eq!(
        http(&error),
        (
            Some(200),
            "not an MCP response (Content-Type `text/html`; an MCP server answers with \
             application/json or text/event-stream; is the URL the server's MCP endpoint?): \
             body: \"<html>\""
                .to_owned()
        )
    );
    let error = failure(|r| {
        response(
            200,
            &[("Content-Type", "application/octet-stream")],
            &tools(r, &[]).to_string(),
        )
    })
    .await;
    let (status, reason) = http(&error);
    assert_eq!(status, Some(200));
    assert!(
        reason.starts_with("not an MCP response (Content-Type `application/octet-stream`;"),
        "{reason}"
    );
    let error =
        failure(|r| json_response(200, &[("Content-Encoding", "gzip")], &tools(r, &[]))).await;
    let (status, reason) = http(&error);
    assert_eq!(status, Some(200));
    assert!(
        reason.starts_with("the body is compressed (`Content-Encoding: gzip`)"),
        "{reason}"
    );
    let error = failure(|r| {
        let mut other = tools(r, &[]);
        other["id"] = json!(r.id() + 100);
        json_response(200, &[], &other)
    })
    .await;
    let (status, reason) = http(&error);
    assert_eq!(status, Some(200));
    assert!(
        reason.starts_with(
            "the JSON body holds no response to this request (id 2), and a JSON body is the \
             whole answer to its POST: body: \"{"
        ),
        "{reason}"
    );
}

#[tokio::test]
async fn a_stream_without_the_answer_fails() {
    let error = failure(|_| sse_response("data: {}\n\n")).await;
    assert_eq!(
        http(&error),
        (
            Some(200),
            "the SSE stream ended before the response, and no event had an id to resume it \
             with"
                .to_owned()
        )
    );
    let error = failure(|_| sse_response("retry: 1\nid: 3\ndata: {}\n\n")).await;
    let (status, reason) = http(&error);
    assert_eq!(status, Some(405));
    assert!(
        reason.starts_with(
            "the SSE stream ended before the response and resuming it (GET with Last-Event-ID) \
             failed"
        ),
        "{reason}"
    );
}

#[tokio::test]
async fn an_answer_over_the_size_limit_is_too_large() {
    let error = failure(|r| json_response(200, &[], &tools(r, &[&"x".repeat(1000)]))).await;
    assert!(
        matches!(
            error,
            Error::Request(RequestError::MessageTooLarge { limit: 1000 })
        ),
        "{error:?}"
    );
    let error =
        failure(|r| sse_response(&format!("data: {}\n\n", tools(r, &[&"x".repeat(1000)])))).await;
    assert!(
        matches!(
            error,
            Error::Request(RequestError::MessageTooLarge { limit: 1000 })
        ),
        "{error:?}"
    );
}
