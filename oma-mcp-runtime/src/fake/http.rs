//! The fake's transport: stateless streamable HTTP on a loopback listener (MCP 2025-11-25,
//! "Streamable HTTP"): a `POST` of a request is answered with one JSON body, of a
//! notification or response with `202 Accepted`; `GET` (no server stream) and `DELETE`
//! (no session) are `405 Method Not Allowed`.
//!
//! The fake is as strict as the specification's MUSTs, so a client that a real server would
//! refuse is refused here first, and each refusal is a problem ([`State::problem`]): another
//! path than `/mcp` (`404`), a page from another origin (`403`), a body that is not
//! `application/json` (`415`), an `Accept` that does not list both `application/json` and
//! `text/event-stream` (`406`), an `MCP-Protocol-Version` the fake does not speak (`400`), a
//! body over 64 MiB (`413`), and what is no JSON-RPC message (`400`). One refusal is no
//! problem: the client's `server/discover` probe (MCP 2026-07-28) of a fake pinned at an
//! older revision, which such a server refuses the same way before the client falls back to
//! `initialize`.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{ACCEPT, ALLOW, CONTENT_TYPE, ORIGIN};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{Value, json};
use tokio::net::TcpListener;

use super::dispatch::{Handled, State};
use crate::quote::quoted;

/// The largest request body the fake reads (64 MiB).
const MAX_BODY: usize = 64 * 1024 * 1024;

/// The path the fake serves ([`super::FakeServer::url`]).
pub(super) const PATH: &str = "/mcp";

/// Accepts connections until the task is aborted (which drops, and so aborts, every
/// connection's task too).
pub(super) async fn serve(listener: TcpListener, state: Arc<State>) {
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                tracing::warn!("fake server: accepting a connection failed: {e}");
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let state = Arc::clone(&state);
        connections.spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let state = Arc::clone(&state);
                async move { Ok::<_, Infallible>(handle(&state, request).await) }
            });
            let io = hyper_util::rt::TokioIo::new(stream);
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(io, service)
                .await;
        });
        while connections.try_join_next().is_some() {}
    }
}

async fn handle(state: &State, request: Request<Incoming>) -> Response<Full<Bytes>> {
    let (response, problem) = answer(state, request).await;
    if let Some(problem) = problem {
        state.problem(format!("HTTP {}: {problem}", response.status().as_u16()));
    }
    response
}

/// A response the fake refuses a request with, and the problem it is.
type Refusal = (Response<Full<Bytes>>, Option<String>);

/// A plain-text refusal.
fn refuse(status: StatusCode, text: &str) -> Refusal {
    (plain(status, text), Some(text.to_owned()))
}

/// A refusal with a JSON-RPC error `error` (a message with `error.message`).
fn refuse_rpc(error: &Value) -> Refusal {
    let message = error["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    (json_response(StatusCode::BAD_REQUEST, error), Some(message))
}

/// The header `name` of `request` as text (`""` when absent or not text).
fn header(request: &Request<Incoming>, name: impl hyper::header::AsHeaderName) -> &str {
    request
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
}

/// Whether the `Accept` header `accept` lists the media type `media` (parameters ignored).
fn lists(accept: &str, media: &str) -> bool {
    accept.split(',').any(|item| {
        item.split(';')
            .next()
            .is_some_and(|m| m.trim().eq_ignore_ascii_case(media))
    })
}

/// The response to `request`, and the problem it is when the fake refuses it (any `4xx` but
/// `405`, which a client probing for a server stream is expected to get).
async fn answer(state: &State, request: Request<Incoming>) -> Refusal {
    if let Some(origin) = request.headers().get(ORIGIN)
        && !loopback_origin(origin.to_str().unwrap_or_default())
    {
        return refuse(
            StatusCode::FORBIDDEN,
            "the fake only answers requests from loopback origins (MCP 2025-11-25, \
             \"Security Warning\": DNS rebinding)",
        );
    }
    if request.uri().path() != PATH {
        return refuse(
            StatusCode::NOT_FOUND,
            &format!(
                "the fake serves MCP at {PATH} only, not at {}",
                quoted(request.uri().path())
            ),
        );
    }
    if request.method() != Method::POST {
        let mut response = plain(
            StatusCode::METHOD_NOT_ALLOWED,
            "the fake answers POST only: it has no server stream and no session",
        );
        response
            .headers_mut()
            .insert(ALLOW, hyper::header::HeaderValue::from_static("POST"));
        return (response, None);
    }
    let content_type = header(&request, CONTENT_TYPE);
    if !lists(content_type, "application/json") {
        return refuse(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            &format!(
                "a POST body must be `Content-Type: application/json`, not {} (MCP 2025-11-25, \
                 \"Sending Messages to the Server\")",
                quoted(content_type)
            ),
        );
    }
    let accept = header(&request, ACCEPT);
    if !(lists(accept, "application/json") && lists(accept, "text/event-stream")) {
        return refuse(
            StatusCode::NOT_ACCEPTABLE,
            &format!(
                "the `Accept` header must list both application/json and text/event-stream, \
                 not {} (MCP 2025-11-25, \"Sending Messages to the Server\")",
                quoted(accept)
            ),
        );
    }
    let unspoken = request
        .headers()
        .get("mcp-protocol-version")
        .map(|v| v.to_str().unwrap_or_default().to_owned())
        .filter(|version| !state.speaks(version));
    let body = match Limited::new(request.into_body(), MAX_BODY).collect().await {
        Ok(body) => body.to_bytes(),
        Err(e) => {
            if e.is::<http_body_util::LengthLimitError>() {
                return refuse(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "the request body is over the fake's limit of 64 MiB",
                );
            }
            return refuse(
                StatusCode::BAD_REQUEST,
                &format!("the request body could not be read: {e}"),
            );
        }
    };
    let parsed = serde_json::from_slice::<Value>(&body);
    if let Some(version) = unspoken {
        let (response, problem) = refuse(
            StatusCode::BAD_REQUEST,
            &format!(
                "the fake does not speak MCP-Protocol-Version {} (it speaks {}; MCP \
                 2025-11-25, \"Protocol Version Header\")",
                quoted(&version),
                state.revisions().join(", ")
            ),
        );
        // A client's `server/discover` probe (MCP 2026-07-28) of a server pinned at an older
        // revision: refused as that server refuses it, and the client falls back to
        // `initialize`. Expected, so no problem.
        let probe = parsed
            .as_ref()
            .ok()
            .and_then(|m| m.get("method"))
            .and_then(Value::as_str)
            == Some("server/discover");
        return (response, if probe { None } else { problem });
    }
    let message = match parsed {
        Ok(message) => message,
        Err(e) => {
            return refuse_rpc(&json!({"jsonrpc": "2.0", "id": null, "error": {
                "code": -32700, "message": format!("Parse error: {e}")
            }}));
        }
    };
    match state.handle(&message).await {
        Handled::Answer(answer) => (json_response(StatusCode::OK, &answer), None),
        Handled::Invalid(error) => refuse_rpc(&error),
        Handled::Accepted => (
            Response::builder()
                .status(StatusCode::ACCEPTED)
                .body(Full::new(Bytes::new()))
                .unwrap_or_default(),
            None,
        ),
    }
}

fn json_response(status: StatusCode, body: &Value) -> Response<Full<Bytes>> {
    Response::builder()
        .status(status)
        .header(CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap_or_default()
}

fn plain(status: StatusCode, text: &str) -> Response<Full<Bytes>> {
    Response::builder()
        .status(status)
        .header(CONTENT_TYPE, "text/plain; charset=utf-8")
        .body(Full::new(Bytes::from(text.to_owned())))
        .unwrap_or_default()
}

/// Whether an `Origin` header names a loopback host (`http://127.0.0.1:…`, `http://[::1]`,
/// `http://localhost…`); a browser page elsewhere must not reach the fake (or the server a
/// recording proxy stands in front of).
fn loopback_origin(origin: &str) -> bool {
    let host = origin
        .split_once("://")
        .map_or(origin, |(_, rest)| rest)
        .trim_end_matches('/');
    let host = if let Some(v6) = host.strip_prefix('[') {
        v6.split(']').next().unwrap_or_default()
    } else {
        host.split(':').next().unwrap_or_default()
    };
    host == "localhost"
        || host == "::1"
        || host
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}
