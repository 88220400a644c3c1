//! `oma-mcp-http-faults`: a small MCP server over streamable HTTP (hyper's HTTP/1 server) that
//! fails at the step its [`FaultMode`] says, for the failure tests of an HTTP client.
//!
//! It speaks just enough MCP to reach each fault: `initialize` (answered with the offered
//! protocol version, or 2025-11-25), `server/discover` (a 2026-07-28 result, or -32601 with
//! `--no-discover` and in `expire-session`), `ping`, `tools/list` (one tool, `echo {message}`)
//! and `tools/call` (any name: text `Echo: <message>`); notifications and client responses get
//! 202 (recorded and answered only after `--notification-delay-ms`, when given). Answers are `application/json` unless the mode streams SSE. A GET on `/mcp` opens an
//! SSE stream that stays open and silent; a DELETE gets 200.
//!
//! Every request it receives (on `/mcp` or any other path, on both listeners of
//! `redirect-cross-origin`) is recorded, in order, and `GET /_log` serves the records as a JSON
//! array (`DELETE /_log` empties it):
//!
//! ```json
//! [{"seq": 1, "listener": "main", "method": "POST", "path": "/mcp",
//!   "headers": {"host": "127.0.0.1:41234", "accept": "application/json, text/event-stream",
//!               "content-type": "application/json", "mcp-protocol-version": "2025-11-25"},
//!   "body": "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}",
//!   "json": {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}}]
//! ```
//!
//! `headers` holds every header with its name in lower case, in the order received (a
//! repeated header's values joined with `, `); `body` is the body as text (lossy UTF-8) and
//! `json` the body parsed, or `null`; `listener` is `main`, or `other` for the second
//! listener of `redirect-cross-origin`.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::BodyExt;
use http_body_util::channel::{Channel, Sender};
use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::http::request::Parts;
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{Map, Value, json};

use crate::listen::{self, Body};

/// The bearer token `unauthorized` and `forbidden` accept.
pub const GOOD_TOKEN: &str = "good-token";
/// The `WWW-Authenticate` value of `unauthorized`'s 401.
pub const UNAUTHORIZED_CHALLENGE: &str = r#"Bearer realm="oma-test", error="invalid_token""#;
/// The `WWW-Authenticate` value of `forbidden`'s 403.
pub const FORBIDDEN_CHALLENGE: &str = r#"Bearer realm="oma-test", error="insufficient_scope""#;
/// The id of the answer `unknown-id` sends first (no client sent it).
pub const UNKNOWN_ID: u64 = 987_654_321;
/// The data of `sse-invalid-json`'s first event.
pub const INVALID_JSON_DATA: &str = "this is not JSON {";
/// The default of `--size`: 80 MiB.
pub const DEFAULT_SIZE: usize = 80 * 1024 * 1024;
/// The default of `--delay-ms`.
pub const DEFAULT_DELAY: Duration = Duration::from_millis(2000);
/// The default of `--after`.
pub const DEFAULT_AFTER: u64 = 2;
/// The `serverInfo.name` of the fault server.
pub const SERVER_NAME: &str = "oma-mcp-http-faults";
/// How often `slow-sse` sends its keepalive comment.
pub const KEEPALIVE_EVERY: Duration = Duration::from_millis(200);

/// The page of `html-502` (what nginx sends when its upstream fails).
pub const PAGE_502: &str = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n\
<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";
/// The page of `html-200` (a web server's welcome page, not MCP).
pub const PAGE_200: &str = "<!DOCTYPE html>\n<html><head><title>Welcome</title></head>\n\
<body><h1>It works!</h1><p>This is a web page, not an MCP server.</p></body></html>\n";

/// Where the fault server fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FaultMode {
    /// `normal`: no fault; the baseline for asserting what a client sends.
    Normal,
    /// `html-502`: every request on `/mcp` gets a proxy's HTML error page ([`PAGE_502`]) with
    /// status 502.
    Html502,
    /// `html-200`: every request on `/mcp` gets `200 text/html` ([`PAGE_200`]).
    Html200,
    /// `unauthorized`: 401 with `WWW-Authenticate:` [`UNAUTHORIZED_CHALLENGE`] and a JSON
    /// body unless the request has `Authorization: Bearer good-token`; with it, no fault.
    Unauthorized,
    /// `forbidden`: as `unauthorized` with 403 and [`FORBIDDEN_CHALLENGE`].
    Forbidden,
    /// `close-mid-stream`: `tools/call` gets an SSE stream with one notification
    /// (`notifications/progress` for the request's `progressToken`, else a
    /// `notifications/message`), then the connection is closed without the terminating chunk
    /// and without the response.
    CloseMidStream,
    /// `slow-sse`: `tools/call` gets an SSE stream with a comment (`: keepalive`) every 200 ms
    /// and the response only after `--delay-ms`.
    SlowSse,
    /// `sse-no-response`: `tools/call` gets an SSE stream that stays open, silent, forever.
    SseNoResponse,
    /// `sse-invalid-json`: `tools/call` gets an SSE stream whose first event's data is
    /// [`INVALID_JSON_DATA`], then the response.
    SseInvalidJson,
    /// `unknown-id`: `tools/call` gets an SSE stream with a response for id [`UNKNOWN_ID`]
    /// (text `not yours`), then the right response.
    UnknownId,
    /// `huge-body`: `tools/call` gets an `application/json` response of exactly `--size`
    /// bytes (a text block of `x`; `Content-Length` set).
    HugeBody,
    /// `huge-event`: `tools/call` gets an SSE stream with one event whose data is that
    /// `--size`-byte response.
    HugeEvent,
    /// `expire-session`: the `initialize` response carries `Mcp-Session-Id: session-<n>` (`n`
    /// = 1, 2, …); the session answers `--after` JSON-RPC requests carrying its id, then every
    /// request carrying it gets 404 (notifications, GET and DELETE are not counted; a DELETE
    /// ends the session). A request without an id (other than `initialize` and
    /// `server/discover`) gets 400. A new `initialize` gets a new id. `server/discover` gets
    /// -32601: sessions belong to revisions before 2026-07-28.
    ExpireSession,
    /// `redirect-loop`: every request on `/mcp` gets 307 to the same URL.
    RedirectLoop,
    /// `redirect-cross-origin`: every request on `/mcp` gets 307 to `/mcp` on a second
    /// listener (same IP, another port: another origin), which answers normally; its requests
    /// are logged with `"listener": "other"`, so a test sees whether `Authorization` was
    /// forwarded.
    RedirectCrossOrigin,
    /// `resumable`: `tools/call` gets an SSE stream with one event, `id: <n>-1`, `retry: 100`,
    /// data the `notifications/progress` for the request's `progressToken` (empty data, a
    /// priming event, without one), then the stream ends without the response; a GET with
    /// `Last-Event-ID: <n>-1` gets an SSE stream with event `id: <n>-2` carrying the response
    /// (MCP 2025-11-25, "Resumability and Redelivery"). An unknown `Last-Event-ID` gets 400.
    Resumable,
    /// `no-get-stream`: GET and DELETE on `/mcp` get 405 (`Allow: POST`).
    NoGetStream,
}

/// Every mode: its name and one line of help.
pub const MODES: &[(&str, FaultMode, &str)] = &[
    ("normal", FaultMode::Normal, "no fault (JSON answers)"),
    (
        "html-502",
        FaultMode::Html502,
        "502 with a proxy's HTML error page",
    ),
    ("html-200", FaultMode::Html200, "200 text/html, not MCP"),
    (
        "unauthorized",
        FaultMode::Unauthorized,
        "401 + WWW-Authenticate unless `Authorization: Bearer good-token`",
    ),
    (
        "forbidden",
        FaultMode::Forbidden,
        "403 + WWW-Authenticate unless `Authorization: Bearer good-token`",
    ),
    (
        "close-mid-stream",
        FaultMode::CloseMidStream,
        "tools/call: SSE, one notification, then the connection closes",
    ),
    (
        "slow-sse",
        FaultMode::SlowSse,
        "tools/call: SSE keepalive comment every 200 ms, response after --delay-ms",
    ),
    (
        "sse-no-response",
        FaultMode::SseNoResponse,
        "tools/call: SSE stream open forever, no response",
    ),
    (
        "sse-invalid-json",
        FaultMode::SseInvalidJson,
        "tools/call: SSE event with non-JSON data, then the response",
    ),
    (
        "unknown-id",
        FaultMode::UnknownId,
        "tools/call: SSE response for an id never sent, then the right one",
    ),
    (
        "huge-body",
        FaultMode::HugeBody,
        "tools/call: JSON response of --size bytes",
    ),
    (
        "huge-event",
        FaultMode::HugeEvent,
        "tools/call: one SSE event of --size bytes",
    ),
    (
        "expire-session",
        FaultMode::ExpireSession,
        "Mcp-Session-Id on initialize; 404 for it after --after requests",
    ),
    (
        "redirect-loop",
        FaultMode::RedirectLoop,
        "307 to the same URL, forever",
    ),
    (
        "redirect-cross-origin",
        FaultMode::RedirectCrossOrigin,
        "307 to another port, which logs whether Authorization came along",
    ),
    (
        "resumable",
        FaultMode::Resumable,
        "tools/call: SSE with id/retry: 100, dropped after one event; GET + Last-Event-ID resumes",
    ),
    (
        "no-get-stream",
        FaultMode::NoGetStream,
        "GET and DELETE answered 405",
    ),
];

impl FaultMode {
    /// The mode called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        MODES.iter().find(|(n, ..)| *n == name).map(|(_, m, _)| *m)
    }

    /// The mode's name.
    pub fn name(self) -> &'static str {
        MODES
            .iter()
            .find(|(_, m, _)| *m == self)
            .map_or("normal", |(n, ..)| n)
    }
}

/// How `oma-mcp-http-faults` serves.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FaultOptions {
    /// `--mode MODE`.
    pub mode: FaultMode,
    /// `--listen ADDR` (default `127.0.0.1:0`).
    pub addr: SocketAddr,
    /// `--delay-ms MS`: `slow-sse`'s delay before the response (default 2000).
    pub delay: Duration,
    /// `--size BYTES`: `huge-body`'s body and `huge-event`'s event data (default 80 MiB).
    pub size: usize,
    /// `--after N`: how many requests an `expire-session` session answers (default 2).
    pub after: u64,
    /// Whether `server/discover` is answered (`--no-discover`, and `expire-session`: -32601).
    pub discover: bool,
    /// `--notification-delay-ms MS`: in every mode, a POSTed notification (or client
    /// response) is recorded and answered only after `MS` (default 0), as over a slow link;
    /// so a test sees whether the client waits for it before its next step.
    pub notification_delay: Duration,
    /// `--initialize-delay-ms MS`: in every mode, `initialize` is answered only after `MS`
    /// (default 0; recorded on arrival), so a test can act while a handshake is under way.
    pub initialize_delay: Duration,
}

impl FaultOptions {
    /// `mode` with every default.
    pub fn new(mode: FaultMode) -> Self {
        Self {
            mode,
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            delay: DEFAULT_DELAY,
            size: DEFAULT_SIZE,
            after: DEFAULT_AFTER,
            discover: mode != FaultMode::ExpireSession,
            notification_delay: Duration::ZERO,
            initialize_delay: Duration::ZERO,
        }
    }

    /// Parses the arguments after the program name; `None` for `--help`.
    ///
    /// # Errors
    /// A missing or unknown mode, an unknown flag, a missing or malformed value.
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Option<Self>, String> {
        let mut args = args.into_iter();
        let mut options = Self::new(FaultMode::Normal);
        let mut mode = None;
        let mut no_discover = false;
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--help" | "-h" => return Ok(None),
                "--mode" => {
                    let name = listen::value_of(&arg, &mut args)?;
                    mode = Some(FaultMode::from_name(&name).ok_or_else(|| {
                        format!("unknown mode `{name}`; the modes are listed by --help")
                    })?);
                }
                "--listen" => {
                    let value = listen::value_of(&arg, &mut args)?;
                    options.addr = listen::parse_addr(&arg, &value)?;
                }
                "--delay-ms" => {
                    let value = listen::value_of(&arg, &mut args)?;
                    options.delay = Duration::from_millis(listen::parse_number(&arg, &value)?);
                }
                "--size" => {
                    let value = listen::value_of(&arg, &mut args)?;
                    options.size = listen::parse_number(&arg, &value)?;
                }
                "--after" => {
                    let value = listen::value_of(&arg, &mut args)?;
                    options.after = listen::parse_number(&arg, &value)?;
                }
                "--no-discover" => no_discover = true,
                "--initialize-delay-ms" => {
                    let value = listen::value_of(&arg, &mut args)?;
                    options.initialize_delay =
                        Duration::from_millis(listen::parse_number(&arg, &value)?);
                }
                "--notification-delay-ms" => {
                    let value = listen::value_of(&arg, &mut args)?;
                    options.notification_delay =
                        Duration::from_millis(listen::parse_number(&arg, &value)?);
                }
                other => return Err(format!("unknown argument `{other}` (see --help)")),
            }
        }
        let mode = mode.ok_or("--mode MODE is required (see --help)")?;
        options.mode = mode;
        options.discover = !no_discover && mode != FaultMode::ExpireSession;
        Ok(Some(options))
    }
}

/// `oma-mcp-http-faults --help`.
pub fn usage() -> String {
    let mut text = String::from(
        "oma-mcp-http-faults: an MCP server over streamable HTTP that fails on purpose

Usage:
  oma-mcp-http-faults --mode MODE [--listen ADDR] [--delay-ms MS] [--size BYTES] [--after N]
                      [--no-discover] [--notification-delay-ms MS] [--initialize-delay-ms MS]

Prints one line `listening on http://127.0.0.1:PORT/mcp` to stdout, then serves until killed
or stdin closes. It answers initialize, server/discover, ping, tools/list (one tool, `echo`)
and tools/call (`Echo: <message>`) correctly, except where MODE fails. Every request is
recorded; GET /_log serves the records as JSON (method, path, headers, body), DELETE /_log
empties them.

Modes:
",
    );
    for (name, _, help) in MODES {
        text.push_str(&format!("  {name:<22} {help}\n"));
    }
    text.push_str(
        "
Flags:
  --listen ADDR     address to listen on (default 127.0.0.1:0, a free port)
  --delay-ms MS     slow-sse: delay before the response (default 2000)
  --size BYTES      huge-body, huge-event: size of the body or event data (default 83886080)
  --after N         expire-session: requests a session answers before 404 (default 2)
  --no-discover     answer server/discover with -32601 Method not found (always so in
                    expire-session)
  --notification-delay-ms MS
                    any mode: record and answer each POSTed notification (or client
                    response) only after MS (default 0), as over a slow link
  --initialize-delay-ms MS
                    any mode: answer each initialize only after MS (default 0)
  --help            this text
",
    );
    text
}

/// Which listener a request came in on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Listener {
    Main,
    /// The redirect target of `redirect-cross-origin`.
    Other,
}

/// The server's state: options, URLs, the request log, sessions and resumable streams.
struct State {
    options: FaultOptions,
    url: String,
    other_url: Option<String>,
    log: Mutex<Vec<Value>>,
    seq: AtomicU64,
    calls: AtomicU64,
    sessions: Mutex<Sessions>,
    /// `resumable`: the response each dropped stream owes, by the event id it ended at.
    owed: Mutex<HashMap<String, (String, Value)>>,
}

/// `expire-session`: live sessions and the requests each has answered.
#[derive(Default)]
struct Sessions {
    opened: u64,
    live: HashMap<String, u64>,
}

/// Locks a mutex even when a panicking thread poisoned it (the data stays usable).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs the fault server as `options` say: prints `listening on http://<addr>/mcp`, then
/// serves until the process is killed or its stdin closes.
///
/// # Errors
/// The address (or the second listener's) cannot be bound.
pub async fn serve_faults(
    options: FaultOptions,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let (listener, url) = listen::bind(options.addr).await?;
    let other = if options.mode == FaultMode::RedirectCrossOrigin {
        let addr = SocketAddr::new(options.addr.ip(), 0);
        Some(listen::bind(addr).await?)
    } else {
        None
    };
    let state = Arc::new(State {
        options,
        url: url.clone(),
        other_url: other.as_ref().map(|(_, url)| url.clone()),
        log: Mutex::default(),
        seq: AtomicU64::new(0),
        calls: AtomicU64::new(0),
        sessions: Mutex::default(),
        owed: Mutex::default(),
    });
    if let Some((other, _)) = other {
        let state = state.clone();
        tokio::spawn(listen::serve(other, move |request| {
            handle(state.clone(), Listener::Other, request)
        }));
    }
    listen::announce(&url)?;
    listen::exit_at_stdin_eof();
    listen::serve(listener, move |request| {
        handle(state.clone(), Listener::Main, request)
    })
    .await?;
    Ok(())
}

/// One request: `/_log`, else recorded and answered as the mode says.
async fn handle(
    state: Arc<State>,
    listener: Listener,
    request: Request<Incoming>,
) -> Response<Body> {
    let (parts, body) = request.into_parts();
    if parts.uri.path() == "/_log" {
        return log_endpoint(&state, &parts.method);
    }
    let body = match body.collect().await {
        Ok(body) => body.to_bytes(),
        Err(_) => return text(StatusCode::BAD_REQUEST, "Bad Request: unreadable body"),
    };
    let delay = state.options.notification_delay;
    if !delay.is_zero()
        && parts.method == Method::POST
        && serde_json::from_slice::<Value>(&body)
            .is_ok_and(|m| m.is_object() && (m.get("id").is_none() || m.get("method").is_none()))
    {
        tokio::time::sleep(delay).await;
    }
    state.record(listener, &parts, &body);
    if parts.uri.path() != listen::MCP_PATH {
        return text(StatusCode::NOT_FOUND, "Not Found: MCP is served at /mcp");
    }
    if listener == Listener::Other {
        return mcp(&state, &parts, &body).await;
    }
    let authorized = parts
        .headers
        .get(header::AUTHORIZATION)
        .is_some_and(|v| v.as_bytes() == format!("Bearer {GOOD_TOKEN}").as_bytes());
    match state.options.mode {
        FaultMode::Html502 => html(StatusCode::BAD_GATEWAY, PAGE_502),
        FaultMode::Html200 => html(StatusCode::OK, PAGE_200),
        FaultMode::Unauthorized if !authorized => auth_error(
            StatusCode::UNAUTHORIZED,
            UNAUTHORIZED_CHALLENGE,
            "invalid_token",
            "The access token is missing or invalid",
        ),
        FaultMode::Forbidden if !authorized => auth_error(
            StatusCode::FORBIDDEN,
            FORBIDDEN_CHALLENGE,
            "insufficient_scope",
            "The access token does not grant access to this server",
        ),
        FaultMode::RedirectLoop => redirect(&state.url),
        FaultMode::RedirectCrossOrigin => redirect(state.other_url.as_deref().unwrap_or("/mcp")),
        FaultMode::NoGetStream if parts.method == Method::GET || parts.method == Method::DELETE => {
            let mut response = text(StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed");
            response
                .headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static("POST"));
            response
        }
        _ => mcp(&state, &parts, &body).await,
    }
}

impl State {
    /// Appends a request to the log.
    fn record(&self, listener: Listener, parts: &Parts, body: &Bytes) {
        let mut headers = Map::new();
        for (name, value) in &parts.headers {
            let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
            match headers.get_mut(name.as_str()) {
                Some(Value::String(previous)) => {
                    previous.push_str(", ");
                    previous.push_str(&value);
                }
                _ => {
                    headers.insert(name.as_str().to_owned(), Value::String(value));
                }
            }
        }
        let entry = json!({
            "seq": self.seq.fetch_add(1, Ordering::SeqCst) + 1,
            "listener": match listener { Listener::Main => "main", Listener::Other => "other" },
            "method": parts.method.as_str(),
            "path": parts.uri.path_and_query().map_or("/", |p| p.as_str()),
            "headers": headers,
            "body": String::from_utf8_lossy(body),
            "json": serde_json::from_slice::<Value>(body).unwrap_or(Value::Null),
        });
        lock(&self.log).push(entry);
    }
}

/// `GET /_log` (the records) and `DELETE /_log` (empties them).
fn log_endpoint(state: &State, method: &Method) -> Response<Body> {
    match *method {
        Method::GET => json_response(StatusCode::OK, &Value::Array(lock(&state.log).clone())),
        Method::DELETE => {
            lock(&state.log).clear();
            json_response(StatusCode::OK, &json!([]))
        }
        _ => text(StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed"),
    }
}

/// The MCP side: GET, DELETE and POST on `/mcp`, faults of the stream modes included.
async fn mcp(state: &State, parts: &Parts, body: &Bytes) -> Response<Body> {
    let message = serde_json::from_slice::<Value>(body).ok();
    let method = message
        .as_ref()
        .and_then(|m| m.get("method"))
        .and_then(Value::as_str);
    let is_request = message.as_ref().is_some_and(|m| m.get("id").is_some()) && method.is_some();
    let mut new_session = None;
    if state.options.mode == FaultMode::ExpireSession {
        let opens = parts.method == Method::POST && method == Some("initialize");
        let exempt = parts.method == Method::POST && method == Some("server/discover");
        let id = parts
            .headers
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok());
        match id {
            _ if opens => {
                let mut sessions = lock(&state.sessions);
                sessions.opened += 1;
                let id = format!("session-{}", sessions.opened);
                sessions.live.insert(id.clone(), 0);
                new_session = Some(id);
            }
            None if exempt => {}
            None => {
                return text(
                    StatusCode::BAD_REQUEST,
                    "Bad Request: the Mcp-Session-Id header is required",
                );
            }
            Some(id) => {
                let mut sessions = lock(&state.sessions);
                let live = match sessions.live.get_mut(id) {
                    Some(n) if is_request && parts.method == Method::POST => {
                        *n += 1;
                        *n <= state.options.after
                    }
                    Some(_) => true,
                    None => false,
                };
                if !live {
                    sessions.live.remove(id);
                    return text(StatusCode::NOT_FOUND, "Not Found: Session not found");
                }
                if parts.method == Method::DELETE {
                    sessions.live.remove(id);
                }
            }
        }
    }
    match parts.method {
        Method::GET => get(state, &parts.headers),
        Method::DELETE => text(StatusCode::OK, ""),
        Method::POST => {
            let Some(message) = message.as_ref().filter(|m| m.is_object()) else {
                return json_response(
                    StatusCode::BAD_REQUEST,
                    &json!({"jsonrpc": "2.0", "id": null,
                            "error": {"code": -32700, "message": "Parse error"}}),
                );
            };
            let (Some(method), true) = (method, is_request) else {
                // A notification or a client's response.
                let mut response = Response::new(listen::full(Bytes::new()));
                *response.status_mut() = StatusCode::ACCEPTED;
                return response;
            };
            let id = message.get("id").cloned().unwrap_or(Value::Null);
            let params = message.get("params").cloned().unwrap_or(Value::Null);
            let mut response = post(state, method, id, &params).await;
            if let Some(session) = new_session
                && let Ok(value) = HeaderValue::from_str(&session)
            {
                response.headers_mut().insert("mcp-session-id", value);
            }
            response
        }
        _ => text(StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed"),
    }
}

/// The `serverInfo` of the fault server.
fn server_info() -> Value {
    json!({"name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION")})
}

/// A JSON-RPC result message.
fn result_message(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// The `echo` result for a `tools/call`'s params.
fn echo_result(params: &Value) -> Value {
    let message = params
        .pointer("/arguments/message")
        .and_then(Value::as_str)
        .unwrap_or("");
    json!({"content": [{"type": "text", "text": format!("Echo: {message}")}]})
}

/// The notification `close-mid-stream` and `resumable` send before failing: progress for the
/// call's `progressToken`, else a log message.
fn first_notification(params: &Value) -> Value {
    match params.pointer("/_meta/progressToken") {
        Some(token) => json!({"jsonrpc": "2.0", "method": "notifications/progress",
                              "params": {"progressToken": token, "progress": 1, "total": 2,
                                         "message": "halfway"}}),
        None => json!({"jsonrpc": "2.0", "method": "notifications/message",
                       "params": {"level": "info", "data": "halfway"}}),
    }
}

/// A request POST: the handshake, `tools/list`, `ping`, and `tools/call` as the mode says.
async fn post(state: &State, method: &str, id: Value, params: &Value) -> Response<Body> {
    let result = match method {
        "initialize" => {
            tokio::time::sleep(state.options.initialize_delay).await;
            json!({
            "protocolVersion": params.get("protocolVersion").cloned()
                .unwrap_or(json!("2025-11-25")),
            "capabilities": {"tools": {}},
            "serverInfo": server_info()
            })
        }
        "server/discover" if state.options.discover => json!({
            "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
            "_meta": {"io.modelcontextprotocol/serverInfo": server_info()}
        }),
        "ping" => json!({}),
        "tools/list" => json!({"tools": [{
            "name": "echo",
            "description": "Echoes the message back as `Echo: <message>`",
            "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}},
                            "required": ["message"]}
        }]}),
        "tools/call" => return call(state, id, params),
        _ => {
            return json_response(
                StatusCode::OK,
                &json!({"jsonrpc": "2.0", "id": id,
                        "error": {"code": -32601, "message": "Method not found"}}),
            );
        }
    };
    json_response(StatusCode::OK, &result_message(&id, result))
}

/// A `tools/call`, where most faults happen.
fn call(state: &State, id: Value, params: &Value) -> Response<Body> {
    let response = result_message(&id, echo_result(params));
    match state.options.mode {
        FaultMode::CloseMidStream => {
            let first = event(None, None, &first_notification(params).to_string());
            sse(move |mut tx| async move {
                if tx.send_data(first).await.is_ok() {
                    // Let the event reach the client before the connection goes.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    tx.abort(std::io::Error::other("closed mid-stream on purpose"));
                }
            })
        }
        FaultMode::SlowSse => {
            let delay = state.options.delay;
            sse(move |mut tx| async move {
                let deadline = tokio::time::Instant::now() + delay;
                loop {
                    let now = tokio::time::Instant::now();
                    if now >= deadline {
                        break;
                    }
                    tokio::time::sleep(KEEPALIVE_EVERY.min(deadline - now)).await;
                    if tokio::time::Instant::now() < deadline
                        && tx
                            .send_data(Bytes::from_static(b": keepalive\n\n"))
                            .await
                            .is_err()
                    {
                        return;
                    }
                }
                let _ = tx.send_data(event(None, None, &response.to_string())).await;
            })
        }
        FaultMode::SseNoResponse => sse(|tx| async move {
            // Hold the stream open, silent, until the process ends.
            let _tx = tx;
            std::future::pending::<()>().await;
        }),
        FaultMode::SseInvalidJson => sse(move |mut tx| async move {
            if tx
                .send_data(event(None, None, INVALID_JSON_DATA))
                .await
                .is_ok()
            {
                let _ = tx.send_data(event(None, None, &response.to_string())).await;
            }
        }),
        FaultMode::UnknownId => {
            let stray = result_message(
                &json!(UNKNOWN_ID),
                json!({"content": [{"type": "text", "text": "not yours"}]}),
            );
            sse(move |mut tx| async move {
                if tx
                    .send_data(event(None, None, &stray.to_string()))
                    .await
                    .is_ok()
                {
                    let _ = tx.send_data(event(None, None, &response.to_string())).await;
                }
            })
        }
        FaultMode::HugeBody => {
            let huge = Huge::new(&id, state.options.size);
            let length = huge.len();
            let mut reply = sse(move |mut tx| async move {
                let _ = huge.send(&mut tx).await;
            });
            let headers = reply.headers_mut();
            headers.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            headers.remove(header::CACHE_CONTROL);
            headers.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
            reply
        }
        FaultMode::HugeEvent => {
            let huge = Huge::new(&id, state.options.size);
            sse(move |mut tx| async move {
                if tx.send_data(Bytes::from_static(b"data: ")).await.is_ok()
                    && huge.send(&mut tx).await.is_some()
                {
                    let _ = tx.send_data(Bytes::from_static(b"\n\n")).await;
                }
            })
        }
        FaultMode::Resumable => {
            let n = state.calls.fetch_add(1, Ordering::SeqCst) + 1;
            let first_id = format!("{n}-1");
            let data = match params.pointer("/_meta/progressToken") {
                Some(_) => first_notification(params).to_string(),
                None => String::new(),
            };
            lock(&state.owed).insert(first_id.clone(), (format!("{n}-2"), response));
            let first = event(Some(&first_id), Some(100), &data);
            // The stream ends cleanly after the first event, without the response.
            sse(move |mut tx| async move {
                let _ = tx.send_data(first).await;
            })
        }
        _ => json_response(StatusCode::OK, &response),
    }
}

/// A GET on `/mcp`: `resumable`'s replay for a `Last-Event-ID`, else a silent stream.
fn get(state: &State, headers: &HeaderMap) -> Response<Body> {
    if let Some(last) = headers.get("last-event-id") {
        let owed = last
            .to_str()
            .ok()
            .and_then(|last| lock(&state.owed).remove(last));
        let Some((next_id, response)) = owed else {
            return text(
                StatusCode::BAD_REQUEST,
                "Bad Request: unknown Last-Event-ID",
            );
        };
        let replay = event(Some(&next_id), None, &response.to_string());
        return sse(move |mut tx| async move {
            let _ = tx.send_data(replay).await;
        });
    }
    sse(|tx| async move {
        let _tx = tx;
        std::future::pending::<()>().await;
    })
}

/// A 200 `text/event-stream` response whose body `write` streams (chunked) in a task of its
/// own; the stream ends when `write` drops the sender, and the connection is cut when it
/// aborts it.
fn sse<W, F>(write: W) -> Response<Body>
where
    W: FnOnce(Sender<Bytes, std::io::Error>) -> F,
    F: std::future::Future<Output = ()> + Send + 'static,
{
    let (tx, body) = Channel::<Bytes, std::io::Error>::new(4);
    tokio::spawn(write(tx));
    let mut response = Response::new(body.boxed());
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// One SSE event: optional `id:` and `retry:` fields, then `data` (one `data:` line per line).
fn event(id: Option<&str>, retry: Option<u64>, data: &str) -> Bytes {
    let mut text = String::new();
    if let Some(id) = id {
        text.push_str(&format!("id: {id}\n"));
    }
    if let Some(retry) = retry {
        text.push_str(&format!("retry: {retry}\n"));
    }
    for line in data.split('\n') {
        if line.is_empty() {
            text.push_str("data:\n");
        } else {
            text.push_str(&format!("data: {line}\n"));
        }
    }
    text.push('\n');
    Bytes::from(text)
}

/// A response message of (at least) `size` bytes, exactly `size` when that is over its
/// envelope: a text block of `x`, sent in 1 MiB chunks.
struct Huge {
    head: Bytes,
    xs: usize,
    tail: Bytes,
}

impl Huge {
    const CHUNK: usize = 1 << 20;

    fn new(id: &Value, size: usize) -> Self {
        let head = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":""#
        );
        let tail = r#""}]}}"#;
        Self {
            xs: size.saturating_sub(head.len() + tail.len()),
            head: Bytes::from(head),
            tail: Bytes::from_static(tail.as_bytes()),
        }
    }

    fn len(&self) -> usize {
        self.head.len() + self.xs + self.tail.len()
    }

    /// Sends the message; `None` when the client went away.
    async fn send(&self, tx: &mut Sender<Bytes, std::io::Error>) -> Option<()> {
        let chunk = Bytes::from(vec![b'x'; Self::CHUNK.min(self.xs)]);
        tx.send_data(self.head.clone()).await.ok()?;
        let mut left = self.xs;
        while left > 0 {
            let n = left.min(Self::CHUNK);
            tx.send_data(chunk.slice(..n)).await.ok()?;
            left -= n;
        }
        tx.send_data(self.tail.clone()).await.ok()
    }
}

/// A response with a whole body and a content type.
fn with_type(
    status: StatusCode,
    content_type: &'static str,
    body: impl Into<Bytes>,
) -> Response<Body> {
    let mut response = Response::new(listen::full(body));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

fn text(status: StatusCode, body: &'static str) -> Response<Body> {
    with_type(status, "text/plain; charset=utf-8", body)
}

fn html(status: StatusCode, page: &'static str) -> Response<Body> {
    with_type(status, "text/html", page)
}

fn json_response(status: StatusCode, value: &Value) -> Response<Body> {
    with_type(status, "application/json", value.to_string())
}

fn auth_error(
    status: StatusCode,
    challenge: &'static str,
    error: &str,
    description: &str,
) -> Response<Body> {
    let body = json!({"error": error, "error_description": description});
    let mut response = json_response(status, &body);
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static(challenge),
    );
    response
}

fn redirect(location: &str) -> Response<Body> {
    let mut response = text(StatusCode::TEMPORARY_REDIRECT, "Temporary Redirect");
    if let Ok(location) = HeaderValue::from_str(location) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mode_has_a_name_and_parses() {
        for (name, mode, help) in MODES {
            assert_eq!(FaultMode::from_name(name), Some(*mode));
            assert_eq!(mode.name(), *name);
            assert!(usage().contains(&format!("  {name:<22} {help}\n")));
        }
        assert_eq!(FaultMode::from_name("bogus"), None);
    }

    #[test]
    fn command_lines() {
        let parse = |args: &[&str]| FaultOptions::parse(args.iter().map(|a| (*a).to_owned()));
        assert_eq!(parse(&["--help"]), Ok(None));
        assert!(parse(&[]).is_err(), "the mode is required");
        assert!(parse(&["--mode", "bogus"]).is_err());
        assert!(parse(&["--mode", "normal", "--size", "-1"]).is_err());
        let options = parse(&[
            "--mode",
            "slow-sse",
            "--delay-ms",
            "300",
            "--listen",
            "[::1]:0",
        ])
        .expect("parses")
        .expect("not help");
        assert_eq!(options.mode, FaultMode::SlowSse);
        assert_eq!(options.delay, Duration::from_millis(300));
        assert_eq!(options.addr, "[::1]:0".parse().expect("address"));
        assert!(options.discover);
        let options = parse(&["--mode", "expire-session", "--after", "5"])
            .expect("parses")
            .expect("not help");
        assert_eq!((options.after, options.discover), (5, false));
        let options = parse(&["--mode", "normal", "--no-discover", "--size", "1000"])
            .expect("parses")
            .expect("not help");
        assert_eq!((options.size, options.discover), (1000, false));
        assert_eq!(options.notification_delay, Duration::ZERO);
        let options = parse(&["--mode", "normal", "--notification-delay-ms", "250"])
            .expect("parses")
            .expect("not help");
        assert_eq!(options.notification_delay, Duration::from_millis(250));
        let options = parse(&["--mode", "expire-session", "--initialize-delay-ms", "40"])
            .expect("parses")
            .expect("not help");
        assert_eq!(
            (options.initialize_delay, options.notification_delay),
            (Duration::from_millis(40), Duration::ZERO)
        );
    }

    #[test]
    fn sse_events() {
        assert_eq!(event(None, None, "{}"), "data: {}\n\n");
        assert_eq!(
            event(Some("3-1"), Some(100), ""),
            "id: 3-1\nretry: 100\ndata:\n\n"
        );
        assert_eq!(event(None, None, "a\nb"), "data: a\ndata: b\n\n");
    }

    #[tokio::test]
    async fn huge_messages_have_the_size_asked_for() {
        for size in [0, 10, 100, 3 * Huge::CHUNK + 7] {
            let huge = Huge::new(&json!(7), size);
            assert_eq!(huge.len(), size.max(huge.head.len() + huge.tail.len()));
            let (mut tx, body) = Channel::<Bytes, std::io::Error>::new(1);
            let sent = tokio::spawn(async move { huge.send(&mut tx).await });
            let bytes = body.collect().await.expect("body").to_bytes();
            assert_eq!(sent.await.expect("task"), Some(()));
            let message: Value = serde_json::from_slice(&bytes).expect("JSON");
            assert_eq!(message["id"], 7);
            if size > 100 {
                assert_eq!(bytes.len(), size);
            }
        }
    }
}
