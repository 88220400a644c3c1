//! The `http` target: what the streamable HTTP transport makes of any answer to a `POST`
//! (MCP 2025-11-25, "Streamable HTTP"): its status, `Content-Type`, `Content-Encoding`,
//! `Location` and `WWW-Authenticate`, a JSON or SSE body or arbitrary bytes, framed by
//! `Content-Length` (right, short or long), chunked or to the connection's close, and
//! written in pieces.
//!
//! Each case is a real exchange over loopback: a raw HTTP/1.1 server (this module's
//! [`serve`]) answers `initialize` and the `tools/list` of connecting, then the generated
//! answer to a second `tools/list` (`McpClient::list_tools_raw`), then a good answer to a
//! third. The check holds the outcome of the second to a model of the transport's rules
//! ([`expected`]), and for every answer: the request ends (no timeout), its error names no
//! control character and stays short, and the third request succeeds (a bad answer fails its
//! own request, not the session).

use std::sync::{Arc, LazyLock, Mutex};
use std::time::Duration;

use oma_mcp_runtime::error::{ConnectError, RequestError};
use oma_mcp_runtime::{ConnectConfig, Error, Lifecycle, connect_mcp_tools};
use proptest::prelude::*;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::generators;

/// The runtime every case's client and server run on (one for the whole run: building one
/// per case would cost more than the case).
static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("no tokio runtime for the http target: {e}"))
});

/// The request timeout of each case's client: no answer the generator makes leaves a request
/// waiting, so reaching it is a failure, and a loaded machine never comes near it.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// The longest error message the transport may give for one answer (its quotes of a body are
/// cut to 300 chars).
const MAX_ERROR_CHARS: usize = 2_000;

/// The `WWW-Authenticate` challenge of a generated `401` or `403`.
const CHALLENGE: &str = "Bearer realm=\"mcp\", error=\"invalid_token\"";

/// The generator's mark for "the `Content-Type` of the body".
const AUTO: &str = "(the body's type)";

/// The `Location` of a generated redirect: another origin, which the transport never follows.
const ELSEWHERE: &str = "http://elsewhere.invalid/mcp";

// ---------------------------------------------------------------------------------------
// generator

/// One JSON-RPC message (or text that is none) in a body or an SSE event, rendered for the
/// request id the server reads ([`render`]).
fn message() -> BoxedStrategy<Value> {
    let id = prop_oneof![3 => Just("same"), 1 => Just("string"), 1 => Just("other")];
    prop_oneof![
        4 => (id.clone(), 0usize..4)
            .prop_map(|(id, tools)| json!({"kind": "answer", "id": id, "tools": tools})),
        2 => (id, prop_oneof![Just(-32_603i64), Just(-32_602), Just(0), any::<i64>()])
            .prop_map(|(id, code)| json!({"kind": "error", "id": id, "code": code})),
        1 => Just(json!({"kind": "notification"})),
        1 => Just(json!({"kind": "ping"})),
        1 => (150usize..400).prop_map(|size| json!({"kind": "big", "size": size})),
        2 => prop_oneof![
            prop::sample::select(vec!["", " ", "{}", " {} ", "[]", "null", "{\"jsonrpc\":", "[1,2]",
                "{\"id\":1}", "{\"method\":7}", "\u{feff}{}"]).prop_map(str::to_owned),
            generators::text(),
        ]
        .prop_map(|text| json!({"kind": "text", "text": text})),
    ]
    .boxed()
}

/// One SSE event: an optional `id`, event type and comment, and data (a message, split over
/// two `data:` lines or not), or none.
fn event() -> BoxedStrategy<Value> {
    (
        prop::option::of(prop::sample::select(vec!["1", "7", "e-2", ""])),
        prop::option::of(prop::sample::select(vec!["message", "ping", "", "keepalive"])),
        any::<bool>(),
        prop::option::weighted(0.85, message()),
        any::<bool>(),
    )
        .prop_map(|(id, event, comment, data, split)| {
            json!({"id": id, "event": event, "comment": comment, "data": data, "split": split})
        })
        .boxed()
}

/// A body: one message, an SSE stream of events, or arbitrary bytes.
fn body() -> BoxedStrategy<Value> {
    prop_oneof![
        3 => message().prop_map(|m| json!({"json": m})),
        3 => (
            prop::sample::select(vec!["\n", "\r\n", "\r"]),
            0u64..20,
            prop::collection::vec(event(), 0..6),
        )
            .prop_map(|(eol, retry, events)| {
                json!({"sse": {"eol": eol, "retry": retry, "events": events}})
            }),
        1 => prop::collection::vec(any::<u8>(), 0..300).prop_map(|bytes| json!({"bytes": bytes})),
    ]
    .boxed()
}

/// Any answer to the `POST` of a `tools/list`.
pub fn input() -> BoxedStrategy<Value> {
    let status = prop_oneof![
        8 => Just(200u16),
        1 => prop::sample::select(vec![201u16, 203, 206]),
        2 => prop::sample::select(vec![400u16, 404, 405, 406, 409, 413, 415, 429, 500, 502, 503]),
        1 => prop::sample::select(vec![401u16, 403]),
        1 => prop::sample::select(vec![300u16, 301, 302, 303, 307, 308]),
    ];
    let content_type = prop::option::weighted(
        0.9,
        prop_oneof![
            // The type of the body (`application/json` for one message, `text/event-stream`
            // for events), set below.
            6 => Just(String::new()).prop_map(|_| AUTO.to_owned()),
            2 => prop::sample::select(vec!["application/json", "text/event-stream"])
                .prop_map(str::to_owned),
            2 => prop::sample::select(vec!["application/json; charset=utf-8", "APPLICATION/JSON",
                "application/vnd.mcp+json", "Text/Event-Stream; charset=utf-8", "text/html",
                "text/plain", "application/jsonx", "application/octet-stream", ""])
                .prop_map(str::to_owned),
            1 => "[ -~]{0,30}",
        ],
    );
    let encoding = prop::option::weighted(
        0.1,
        prop::sample::select(vec!["gzip", "br", "identity", " Identity ", ""]),
    );
    let framing = prop_oneof![
        4 => Just("length"),
        2 => Just("chunked"),
        2 => Just("close"),
        1 => prop::sample::select(vec!["short", "long"]),
    ];
    (
        (status, content_type, encoding, any::<bool>(), any::<bool>()),
        body(),
        framing,
        prop::collection::vec(any::<prop::sample::Index>(), 0..6),
        prop_oneof![1 => Just(200usize), 3 => Just(1usize << 20)],
    )
        .prop_map(
            |(
                (status, content_type, encoding, location, challenge),
                body,
                framing,
                cuts,
                limit,
            )| {
                let cuts: Vec<usize> = cuts.iter().map(|i| i.index(4096)).collect();
                let content_type = match content_type.as_deref() {
                    Some(AUTO) if body.get("sse").is_some() => Some("text/event-stream".to_owned()),
                    Some(AUTO) => Some("application/json".to_owned()),
                    _ => content_type,
                };
                json!({
                    "status": status,
                    "content_type": content_type,
                    "content_encoding": encoding,
                    "location": location.then_some(ELSEWHERE),
                    "challenge": challenge.then_some(CHALLENGE),
                    "body": body,
                    "framing": framing,
                    "cuts": cuts,
                    "limit": limit,
                })
            },
        )
        .boxed()
}

// ---------------------------------------------------------------------------------------
// rendering

/// The text of `message` as an answer to request `id`.
fn render(message: &Value, id: u64) -> String {
    let id_of = |m: &Value| match m["id"].as_str() {
        Some("string") => json!(format!(" {id} ")),
        Some("other") => json!(id + 1000),
        _ => json!(id),
    };
    let tools = |count: usize, description: &str| -> Vec<Value> {
        (0..count)
            .map(|i| {
                json!({"name": format!("t{i}"), "description": description,
                    "inputSchema": {"type": "object"}})
            })
            .collect()
    };
    match message["kind"].as_str().unwrap_or_default() {
        "answer" => {
            let count = message["tools"].as_u64().unwrap_or(0) as usize;
            json!({"jsonrpc": "2.0", "id": id_of(message), "result": {"tools": tools(count, "d")}})
                .to_string()
        }
        "error" => json!({"jsonrpc": "2.0", "id": id_of(message),
            "error": {"code": message["code"].as_i64().unwrap_or(0), "message": "refused"}})
        .to_string(),
        "notification" => json!({"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "info", "data": "working"}})
        .to_string(),
        "ping" => json!({"jsonrpc": "2.0", "id": "server-1", "method": "ping"}).to_string(),
        "big" => {
            let size = message["size"].as_u64().unwrap_or(0) as usize;
            json!({"jsonrpc": "2.0", "id": id, "result": {"tools": tools(1, &"x".repeat(size))}})
                .to_string()
        }
        _ => message["text"].as_str().unwrap_or_default().to_owned(),
    }
}

/// The bytes of `body` for request `id`.
fn body_bytes(body: &Value, id: u64) -> Vec<u8> {
    if let Some(message) = body.get("json") {
        return render(message, id).into_bytes();
    }
    if let Some(sse) = body.get("sse") {
        let eol = sse["eol"].as_str().unwrap_or("\n");
        let mut out = format!("retry: {}{eol}", sse["retry"].as_u64().unwrap_or(0));
        for event in sse["events"].as_array().map_or(&[][..], Vec::as_slice) {
            if event["comment"].as_bool() == Some(true) {
                out.push_str(&format!(": keep going{eol}"));
            }
            if let Some(event_id) = event["id"].as_str() {
                out.push_str(&format!("id: {event_id}{eol}"));
            }
            if let Some(kind) = event["event"].as_str() {
                out.push_str(&format!("event: {kind}{eol}"));
            }
            if !event["data"].is_null() {
                let data = render(&event["data"], id);
                let lines = data_lines(&data, event["split"].as_bool() == Some(true));
                for line in lines {
                    out.push_str(&format!("data: {line}{eol}"));
                }
            }
            out.push_str(eol);
        }
        return out.into_bytes();
    }
    body["bytes"]
        .as_array()
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .filter_map(|b| b.as_u64().and_then(|b| u8::try_from(b).ok()))
        .collect()
}

/// The `data:` lines that carry `data` (no line of an event may hold a line end, so data
/// with one is cut there; `split` cuts it once more after its first char: after the `{` of
/// a JSON message, where a line end is whitespace, so the message stays the same JSON).
fn data_lines(data: &str, split: bool) -> Vec<String> {
    let mut lines: Vec<String> = data.split(['\r', '\n']).map(str::to_owned).collect();
    if split && lines.len() == 1 {
        let at = data.chars().next().map_or(0, char::len_utf8);
        lines = vec![data[..at].to_owned(), data[at..].to_owned()];
    }
    lines
}

/// The data of an SSE event as the WHATWG interpretation delivers it: its lines joined by
/// `\n`, one space after `data:` dropped.
fn event_data(event: &Value, id: u64) -> Option<String> {
    if event["data"].is_null() {
        return None;
    }
    let data = render(&event["data"], id);
    let lines = data_lines(&data, event["split"].as_bool() == Some(true));
    Some(lines.join("\n"))
}

// ---------------------------------------------------------------------------------------
// the model

/// What the transport must make of an answer.
#[derive(Debug, Clone, PartialEq)]
enum Expected {
    /// The tools, by name.
    Tools(Vec<String>),
    /// `RequestError::Rpc` with this code.
    Rpc(i64),
    /// `RequestError::MessageTooLarge`.
    TooLarge,
    /// `ConnectError::HttpAuth` with this status.
    Auth(u16),
    /// `ConnectError::Http` with this status and a reason that contains the text.
    Http(u16, &'static str),
    /// Any outcome that keeps the invariants (a body whose framing lies).
    Any,
}

/// What `message` settles when it is a response to the request (`id` `same`, or the same
/// number as a string, which the transport matches as the TypeScript SDK does): the tools
/// of a result, or the code of an error; `None` for any other message.
fn settles(message: &Value) -> Option<Expected> {
    let kind = message["kind"].as_str().unwrap_or_default();
    let ours = message["id"].as_str() != Some("other");
    match kind {
        "answer" if ours => {
            let count = message["tools"].as_u64().unwrap_or(0);
            Some(Expected::Tools(
                (0..count).map(|i| format!("t{i}")).collect(),
            ))
        }
        "error" if ours => Some(Expected::Rpc(message["code"].as_i64().unwrap_or(0))),
        "big" => Some(Expected::Tools(vec!["t0".to_owned()])),
        _ => None,
    }
}

/// Whether SSE `data` of an event of type `kind` is a keep-alive, never routed.
fn is_keep_alive(kind: Option<&str>, data: &str) -> bool {
    matches!(kind, Some(k) if !k.is_empty() && k != "message") || matches!(data.trim(), "" | "{}")
}

/// The outcome the transport's rules give `input` for request `id`.
fn expected(input: &Value, id: u64) -> Expected {
    let status = input["status"].as_u64().unwrap_or(200) as u16;
    let limit = input["limit"].as_u64().unwrap_or(1 << 20) as usize;
    let body = &input["body"];
    if matches!(input["framing"].as_str(), Some("short" | "long")) {
        return Expected::Any;
    }
    // An HTTP parser drops the whitespace around a field value.
    let content_type = input["content_type"]
        .as_str()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    let is_json = content_type.starts_with("application/json")
        || (content_type.starts_with("application/") && content_type.contains("+json"));
    if (200..300).contains(&status) {
        let encoding = input["content_encoding"]
            .as_str()
            .unwrap_or_default()
            .trim();
        if !encoding.is_empty() && !encoding.eq_ignore_ascii_case("identity") {
            return Expected::Http(status, "compressed");
        }
        if content_type.starts_with("text/event-stream") {
            return expected_stream(body, id, limit, status);
        }
        if is_json {
            if body_bytes(body, id).len() > limit {
                return Expected::TooLarge;
            }
            return body
                .get("json")
                .and_then(settles)
                .unwrap_or(Expected::Http(status, "holds no response"));
        }
        return Expected::Http(status, "not an MCP response");
    }
    if status == 401 || status == 403 {
        return Expected::Auth(status);
    }
    if (300..400).contains(&status) {
        return Expected::Http(status, "does not follow");
    }
    match body.get("json") {
        Some(m) if is_json && m["kind"] == "error" => {
            Expected::Rpc(m["code"].as_i64().unwrap_or(0))
        }
        _ => Expected::Http(status, ""),
    }
}

/// The outcome of an SSE body: the first routed message that answers the request, unless an
/// event's data is over the limit first; when none answers, a stream with an event id is
/// resumed (the server refuses the `GET` with `405`), one without fails.
fn expected_stream(body: &Value, id: u64, limit: usize, status: u16) -> Expected {
    let Some(sse) = body.get("sse") else {
        // One message read as SSE: without a line end it holds no complete line, so no event
        // (the unfinished last line is dropped). Random bytes may make any events.
        return if body
            .get("json")
            .is_some_and(|m| !render(m, id).contains(['\r', '\n']))
        {
            Expected::Http(status, "no event had an id")
        } else {
            Expected::Any
        };
    };
    let mut last_id = None;
    for event in sse["events"].as_array().map_or(&[][..], Vec::as_slice) {
        if let Some(event_id) = event["id"].as_str() {
            last_id = Some(event_id);
        }
        let Some(data) = event_data(event, id) else {
            continue;
        };
        if data.len() > limit {
            return Expected::TooLarge;
        }
        if is_keep_alive(event["event"].as_str(), &data) {
            continue;
        }
        if let Some(outcome) = settles(&event["data"]) {
            return outcome;
        }
    }
    match last_id {
        // An empty `id:` sets the last event id to empty, which is still an id to resume from.
        Some(_) => Expected::Http(405, "resuming it"),
        None => Expected::Http(status, "no event had an id"),
    }
}

/// Whether `outcome` is `expected`.
fn matches(outcome: &Result<Vec<Value>, Error>, expected: &Expected) -> bool {
    match (expected, outcome) {
        (Expected::Any, _) => true,
        (Expected::Tools(names), Ok(tools)) => tools
            .iter()
            .map(|t| t["name"].as_str().unwrap_or_default())
            .eq(names.iter().map(String::as_str)),
        (Expected::Rpc(code), Err(Error::Request(RequestError::Rpc { code: got, .. }))) => {
            got == code
        }
        (Expected::TooLarge, Err(Error::Request(RequestError::MessageTooLarge { .. }))) => true,
        (
            Expected::Auth(status),
            Err(Error::Connect(ConnectError::HttpAuth { status: got, .. })),
        ) => got == status,
        (
            Expected::Http(status, text),
            Err(Error::Connect(ConnectError::Http {
                status: Some(got),
                reason,
                ..
            })),
        ) => got == status && reason.contains(text),
        _ => false,
    }
}

// ---------------------------------------------------------------------------------------
// the server

/// What the server saw: the id of the generated answer's request, and what went wrong on
/// its side.
#[derive(Debug, Default)]
struct Seen {
    lists: u32,
    answered_id: Option<u64>,
    problems: Vec<String>,
}

/// One HTTP request as the server reads it: method, and its JSON body.
async fn read_request(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Option<(String, Value)> {
    let head_end = loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let method = head.split(' ').next().unwrap_or_default().to_owned();
    let length = head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())
                .flatten()
        })
        .unwrap_or(0);
    while buf.len() < head_end + length {
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = serde_json::from_slice(&buf[head_end..head_end + length]).unwrap_or(Value::Null);
    buf.drain(..head_end + length);
    Some((method, body))
}

/// A `200` with a JSON body and `Content-Length`.
fn json_response(body: &Value) -> Vec<u8> {
    let body = body.to_string();
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// The generated answer's head and body pieces (chunk-encoded when `chunked`), ready to write.
fn generated_response(input: &Value, id: u64) -> Vec<Vec<u8>> {
    let body = body_bytes(&input["body"], id);
    let mut head = format!(
        "HTTP/1.1 {} Fuzzed\r\nConnection: close\r\n",
        input["status"]
    );
    for (name, key) in [
        ("Content-Type", "content_type"),
        ("Content-Encoding", "content_encoding"),
        ("Location", "location"),
        ("WWW-Authenticate", "challenge"),
    ] {
        if let Some(value) = input[key].as_str() {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
    }
    let framing = input["framing"].as_str().unwrap_or("length");
    match framing {
        "chunked" => head.push_str("Transfer-Encoding: chunked\r\n"),
        "close" => {}
        "short" => head.push_str(&format!("Content-Length: {}\r\n", body.len() / 2)),
        "long" => head.push_str(&format!("Content-Length: {}\r\n", body.len() + 7)),
        _ => head.push_str(&format!("Content-Length: {}\r\n", body.len())),
    }
    head.push_str("\r\n");
    let mut cuts: Vec<usize> = input["cuts"]
        .as_array()
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .filter_map(|c| c.as_u64().map(|c| c as usize % (body.len() + 1)))
        .collect();
    cuts.sort_unstable();
    let mut pieces = vec![head.into_bytes()];
    for piece in crate::targets::chunks(&body, &cuts) {
        if framing != "chunked" {
            pieces.push(piece);
        } else if !piece.is_empty() {
            let mut chunk = format!("{:x}\r\n", piece.len()).into_bytes();
            chunk.extend_from_slice(&piece);
            chunk.extend_from_slice(b"\r\n");
            pieces.push(chunk);
        }
    }
    if framing == "chunked" {
        pieces.push(b"0\r\n\r\n".to_vec());
    }
    pieces
}

/// Serves one connection: `initialize`, the first and third `tools/list` answered well, the
/// second with `input`, every notification and response `202`, every `GET` and `DELETE`
/// `405`.
async fn connection(mut stream: TcpStream, input: Arc<Value>, seen: Arc<Mutex<Seen>>) {
    let _ = stream.set_nodelay(true);
    let mut buf = Vec::new();
    while let Some((method, body)) = read_request(&mut stream, &mut buf).await {
        let id = body["id"].as_u64();
        let response = match (method.as_str(), body["method"].as_str(), id) {
            ("POST", Some("initialize"), Some(id)) => json_response(&json!({
                "jsonrpc": "2.0", "id": id, "result": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "fuzz", "version": "0"}
                }
            })),
            ("POST", Some("tools/list"), Some(id)) => {
                let lists = {
                    let mut seen = seen.lock().unwrap_or_else(|e| e.into_inner());
                    seen.lists += 1;
                    if seen.lists == 2 {
                        seen.answered_id = Some(id);
                    }
                    seen.lists
                };
                if lists == 2 {
                    for piece in generated_response(&input, id) {
                        if stream.write_all(&piece).await.is_err() {
                            break;
                        }
                        let _ = stream.flush().await;
                    }
                    let _ = stream.shutdown().await;
                    return;
                }
                let tools = if lists == 1 {
                    json!([])
                } else {
                    json!([{"name": "probe", "inputSchema": {"type": "object"}}])
                };
                json_response(&json!({"jsonrpc": "2.0", "id": id, "result": {"tools": tools}}))
            }
            ("POST", Some(other), Some(_)) => {
                seen.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .problems
                    .push(format!("unexpected request `{other}`"));
                return;
            }
            ("POST", _, _) => b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n".to_vec(),
            _ => b"HTTP/1.1 405 Method Not Allowed\r\nAllow: POST\r\nContent-Length: 0\r\n\r\n"
                .to_vec(),
        };
        if stream.write_all(&response).await.is_err() {
            return;
        }
    }
}

/// Accepts connections on `listener` until the task is aborted.
async fn serve(listener: TcpListener, input: Arc<Value>, seen: Arc<Mutex<Seen>>) {
    while let Ok((stream, _)) = listener.accept().await {
        tokio::spawn(connection(stream, input.clone(), seen.clone()));
    }
}

// ---------------------------------------------------------------------------------------
// the check

/// What one case's exchange gave: the second request's outcome and the third's.
async fn exchange(input: Value) -> Result<(Result<Vec<Value>, Error>, Seen), String> {
    let limit = input["limit"].as_u64().unwrap_or(1 << 20) as usize;
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| format!("no loopback listener: {e}"))?;
    let url = format!(
        "http://{}/mcp",
        listener.local_addr().map_err(|e| e.to_string())?
    );
    let seen = Arc::new(Mutex::new(Seen::default()));
    let server = tokio::spawn(serve(listener, Arc::new(input), seen.clone()));
    let config = ConnectConfig::http(&url)
        .with_lifecycle(Lifecycle::Initialize)
        .with_request_timeout(REQUEST_TIMEOUT)
        .with_max_message_size(limit);
    let result = async {
        let client = connect_mcp_tools(config)
            .await
            .map_err(|e| format!("connecting failed: {}", e.chain()))?;
        let outcome = client.list_tools_raw().await;
        let probe = client.list_tools_raw().await;
        client.disconnect().await;
        match probe {
            Ok(tools) if tools.len() == 1 && tools[0]["name"] == "probe" => Ok(outcome),
            Ok(tools) => Err(format!("the next request's answer came out as {tools:?}")),
            Err(e) => Err(format!(
                "after that answer ({}), the next request failed: {}",
                describe(&outcome),
                e.chain()
            )),
        }
    }
    .await;
    server.abort();
    let seen = std::mem::take(&mut *seen.lock().unwrap_or_else(|e| e.into_inner()));
    result.map(|outcome| (outcome, seen))
}

/// An outcome for a failure message.
fn describe(outcome: &Result<Vec<Value>, Error>) -> String {
    match outcome {
        Ok(tools) => format!("Ok({} tools)", tools.len()),
        Err(e) => format!("Err({e:?})"),
    }
}

/// The streamable HTTP transport on any answer: the request ends with the outcome the model
/// gives (exactly, unless the body's framing lies), its error is short and free of control
/// characters, and the next request on the session succeeds.
pub fn check(input: &Value) -> Result<(), String> {
    let (outcome, seen) = RUNTIME.block_on(exchange(input.clone()))?;
    if !seen.problems.is_empty() {
        return Err(seen.problems.join("; "));
    }
    let id = seen
        .answered_id
        .ok_or("the server never got the second `tools/list`")?;
    let expected = expected(input, id);
    if !matches(&outcome, &expected) {
        return Err(format!(
            "the answer came out as {}; the transport's rules give {expected:?}",
            describe(&outcome)
        ));
    }
    if let Err(error) = &outcome {
        if matches!(error, Error::Request(RequestError::Timeout { .. })) {
            return Err("the request waited for its timeout".to_owned());
        }
        let text = error.chain().to_string();
        if text.chars().count() > MAX_ERROR_CHARS {
            return Err(format!("an error of {} chars", text.chars().count()));
        }
        if let Some(c) = text.chars().find(|c| c.is_control()) {
            return Err(format!(
                "the error holds the control character {c:?}: {text:?}"
            ));
        }
    }
    Ok(())
}
