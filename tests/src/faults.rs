//! `oma-mcp-http-faults`: a small MCP server over streamable HTTP (hyper's HTTP/1 server) that
//! fails at the step its [`FaultMode`] says, for the failure tests of an HTTP client.
//!
//! It speaks just enough MCP to reach each fault: `initialize` (answered with the offered
//! protocol version, or 2025-11-25), `server/discover` (a 2026-07-28 result, or -32601 with
//! `--no-discover` and in `expire-session` and `legacy-session`), `ping`, `tools/list` (one
//! tool, `echo {message}`) and `tools/call` (any name: text `Echo: <message>`); notifications
//! and client responses get 202 (recorded and answered only after `--notification-delay-ms`,
//! when given). Answers are `application/json` unless the mode streams SSE. A GET on `/mcp`
//! opens an SSE stream that stays open and silent; a DELETE gets 200. The modes and flags are
//! in [`modes`](FaultMode) ([`MODES`], [`usage`]).
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
//! listener of `redirect-cross-origin`. In the `oauth*` modes, the entries of the
//! authorization server's endpoints (metadata, `/register`, `/authorize`, `/token`) also hold
//! `answer`: `{"status": 201, "json": {…}}` (the JSON sent, tokens and secrets included, so a
//! test can look for them elsewhere), `{"status": 302, "location": "…"}`, `{"status": 404}`,
//! or `{"status": 200, "body": "…"}` for a body that is not JSON (the faults' pages and
//! malformed metadata). The MCP endpoint's 401s are not annotated.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::http::request::Parts;
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{Map, Value, json};

use crate::listen::{self, Body};

mod authz;
mod modes;
mod respond;

pub use authz::{
    AUTHORIZATION_PATH, AUTHORIZATION_SERVER_METADATA_PATH, CLIENT_FORGOTTEN,
    DEFAULT_TOKEN_LIFETIME, DENIED_DESCRIPTION, MACHINE_CLIENT_ID, MACHINE_CLIENT_SECRET,
    MALFORMED_METADATA, OAUTH_SCOPE, OTHER_STATE, REFRESH_REFUSED, REGISTRATION_PATH,
    REGISTRATION_REFUSED, RESOURCE_METADATA_PATH, TOKEN_PAGE, TOKEN_PATH, form, pkce_challenge,
};

pub use modes::{
    DEFAULT_AFTER, DEFAULT_DELAY, DEFAULT_REJECT_STATUS, DEFAULT_SIZE, FaultMode, FaultOptions,
    HANG_MESSAGE, MODES, NOT_JSON_RPC, REJECT_HTML, REJECT_JSON, REJECT_TEXT, RejectBody,
    UNSUPPORTED_VERSION, usage,
};
use respond::{
    Huge, auth_error, event, gzip_stored, html, json_response, redirect, redirect_with,
    result_message, sse, text, with_type,
};

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
    /// The `oauth*` modes: the origin (`http://<addr>`, the issuer), the closed port's origin
    /// that `oauth-as-unreachable` names, and the authorization server's records.
    origin: String,
    unreachable: String,
    authz: Mutex<authz::Authz>,
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
    let origin = url.trim_end_matches(listen::MCP_PATH).to_owned();
    let unreachable = if options.mode == FaultMode::OAuthAsUnreachable {
        closed_origin(options.addr)?
    } else {
        String::new()
    };
    let state = Arc::new(State {
        options,
        origin,
        unreachable,
        authz: Mutex::default(),
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
    let seq = state.record(listener, &parts, &body);
    if state.options.mode.is_oauth() {
        let site = state.site();
        if let Some((response, answer)) = site.answer(&mut lock(&state.authz), &parts, &body) {
            state.annotate(seq, answer);
            return response;
        }
        if parts.uri.path() == listen::MCP_PATH
            && let Some(refusal) = site.refuse(&mut lock(&state.authz), &parts)
        {
            return refusal;
        }
    }
    let slash = match state.options.mode {
        FaultMode::RedirectSlash307 => Some(StatusCode::TEMPORARY_REDIRECT),
        FaultMode::RedirectSlash308 => Some(StatusCode::PERMANENT_REDIRECT),
        _ => None,
    };
    if let Some(status) = slash {
        let slashed = format!("{}/", listen::MCP_PATH);
        if parts.uri.path() == listen::MCP_PATH {
            return redirect_with(status, &slashed);
        }
        if parts.uri.path() == slashed {
            return mcp(&state, &parts, &body).await;
        }
    }
    if state.options.mode == FaultMode::UnauthorizedMetadataDown
        && parts.uri.path().starts_with("/.well-known/")
    {
        return text(StatusCode::SERVICE_UNAVAILABLE, "Service Unavailable");
    }
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
        FaultMode::Unauthorized | FaultMode::UnauthorizedMetadataDown if !authorized => auth_error(
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
        FaultMode::StrictVersion
            if !parts.headers.contains_key("mcp-protocol-version")
                && !is_handshake(&parts.method, &body) =>
        {
            text(StatusCode::BAD_REQUEST, UNSUPPORTED_VERSION)
        }
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

/// The origin of a loopback port nothing listens on (bound, then let go): the authorization
/// server `oauth-as-unreachable` names.
fn closed_origin(addr: SocketAddr) -> std::io::Result<String> {
    let probe = std::net::TcpListener::bind(SocketAddr::new(addr.ip(), 0))?;
    let closed = probe.local_addr()?;
    drop(probe);
    Ok(format!("http://{closed}"))
}

impl State {
    /// What the authorization server of the `oauth*` modes needs.
    fn site(&self) -> authz::Site<'_> {
        authz::Site {
            mode: self.options.mode,
            url: &self.url,
            origin: &self.origin,
            unreachable: &self.unreachable,
            lifetime: self.options.token_lifetime,
        }
    }

    /// Adds what the server answered to the log entry `seq`.
    fn annotate(&self, seq: u64, answer: Value) {
        if let Some(entry) = lock(&self.log).iter_mut().rev().find(|e| e["seq"] == seq) {
            entry["answer"] = answer;
        }
    }

    /// Appends a request to the log; its `seq`.
    fn record(&self, listener: Listener, parts: &Parts, body: &Bytes) -> u64 {
        let seq = self.seq.fetch_add(1, Ordering::SeqCst) + 1;
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
            "seq": seq,
            "listener": match listener { Listener::Main => "main", Listener::Other => "other" },
            "method": parts.method.as_str(),
            "path": parts.uri.path_and_query().map_or("/", |p| p.as_str()),
            "headers": headers,
            "body": String::from_utf8_lossy(body),
            "json": serde_json::from_slice::<Value>(body).unwrap_or(Value::Null),
        });
        lock(&self.log).push(entry);
        seq
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
    if state.options.mode == FaultMode::LegacySession {
        let opens = parts.method == Method::POST && method == Some("initialize");
        let id = parts
            .headers
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok());
        let mut sessions = lock(&state.sessions);
        match id {
            _ if opens => {
                sessions.opened += 1;
                let id = format!("session-{}", sessions.opened);
                sessions.live.insert(id.clone(), 0);
                new_session = Some(id);
            }
            None => {
                let status = StatusCode::from_u16(state.options.reject_status)
                    .unwrap_or(StatusCode::BAD_REQUEST);
                let (content_type, body) = state.options.reject_body.content();
                return with_type(status, content_type, body);
            }
            Some(id) if !sessions.live.contains_key(id) => {
                return text(StatusCode::NOT_FOUND, "Not Found: Session not found");
            }
            Some(id) => {
                if parts.method == Method::DELETE {
                    sessions.live.remove(id);
                }
            }
        }
    }
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
                *response.status_mut() = if state.options.mode == FaultMode::Empty200 {
                    StatusCode::OK
                } else {
                    StatusCode::ACCEPTED
                };
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
        FaultMode::HangCall
            if params.pointer("/arguments/message").and_then(Value::as_str)
                == Some(HANG_MESSAGE) =>
        {
            sse(|tx| async move {
                // Hold the stream open, silent, until the client drops it.
                let _tx = tx;
                std::future::pending::<()>().await;
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
        FaultMode::JsonOtherId => json_response(
            StatusCode::OK,
            &result_message(
                &json!(UNKNOWN_ID),
                json!({"content": [{"type": "text", "text": "not yours"}]}),
            ),
        ),
        FaultMode::JsonNotJsonRpc => with_type(StatusCode::OK, "application/json", NOT_JSON_RPC),
        FaultMode::GzipJson => {
            let mut reply = with_type(
                StatusCode::OK,
                "application/json",
                gzip_stored(response.to_string().as_bytes()),
            );
            reply
                .headers_mut()
                .insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
            reply
        }
        FaultMode::SseKeepalive => sse(move |mut tx| async move {
            let keep_alives = b": keepalive\n\nretry: 1000\n\nevent: ping\ndata: {}\n\n\
                event: keepalive\ndata: {}\n\ndata: {}\n\n";
            if tx.send_data(Bytes::from_static(keep_alives)).await.is_ok() {
                let _ = tx.send_data(event(None, None, &response.to_string())).await;
            }
        }),
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

/// Whether a request is a handshake `POST` (`initialize` or `server/discover`), which comes
/// before any protocol version is agreed.
fn is_handshake(method: &Method, body: &Bytes) -> bool {
    *method == Method::POST
        && serde_json::from_slice::<Value>(body).is_ok_and(|m| {
            matches!(
                m.get("method").and_then(Value::as_str),
                Some("initialize" | "server/discover")
            )
        })
}
