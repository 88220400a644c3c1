//! The fake's transport: stateless streamable HTTP on a loopback listener (MCP 2025-11-25,
//! "Streamable HTTP"): a `POST` of a request is answered with one JSON body, of a
//! notification or response with `202 Accepted`; `GET` (no server stream) and `DELETE`
//! (no session) are `405 Method Not Allowed`.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{ALLOW, CONTENT_TYPE, ORIGIN};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{Value, json};
use tokio::net::TcpListener;

use super::dispatch::{Handled, State};

/// The largest request body the fake reads (64 MiB).
const MAX_BODY: usize = 64 * 1024 * 1024;

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
    if let Some(origin) = request.headers().get(ORIGIN)
        && !loopback_origin(origin.to_str().unwrap_or_default())
    {
        return plain(
            StatusCode::FORBIDDEN,
            "the fake only answers requests from loopback origins (MCP 2025-11-25, \
             \"Security Warning\": DNS rebinding)",
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
        return response;
    }
    let body = match Limited::new(request.into_body(), MAX_BODY).collect().await {
        Ok(body) => body.to_bytes(),
        Err(e) => {
            let status = if e.is::<http_body_util::LengthLimitError>() {
                StatusCode::PAYLOAD_TOO_LARGE
            } else {
                StatusCode::BAD_REQUEST
            };
            return plain(status, &format!("the request body could not be read: {e}"));
        }
    };
    let message: Value = match serde_json::from_slice(&body) {
        Ok(message) => message,
        Err(e) => {
            return json_response(
                StatusCode::BAD_REQUEST,
                &json!({"jsonrpc": "2.0", "id": null, "error": {
                    "code": -32700, "message": format!("Parse error: {e}")
                }}),
            );
        }
    };
    match state.handle(&message).await {
        Handled::Answer(answer) => json_response(StatusCode::OK, &answer),
        Handled::Invalid(error) => json_response(StatusCode::BAD_REQUEST, &error),
        Handled::Accepted => Response::builder()
            .status(StatusCode::ACCEPTED)
            .body(Full::new(Bytes::new()))
            .unwrap_or_default(),
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
