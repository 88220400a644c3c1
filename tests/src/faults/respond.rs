//! The fault server's responses: whole bodies (text, HTML, JSON), SSE streams written by a
//! task of their own, SSE events, and the `huge-*` messages sent in chunks.

use bytes::Bytes;
use http_body_util::BodyExt;
use http_body_util::channel::{Channel, Sender};
use hyper::header::{self, HeaderValue};
use hyper::{Response, StatusCode};
use serde_json::{Value, json};

use crate::listen::{self, Body};

/// A JSON-RPC result message.
pub(super) fn result_message(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// A 200 `text/event-stream` response whose body `write` streams (chunked) in a task of its
/// own; the stream ends when `write` drops the sender, and the connection is cut when it
/// aborts it.
pub(super) fn sse<W, F>(write: W) -> Response<Body>
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
pub(super) fn event(id: Option<&str>, retry: Option<u64>, data: &str) -> Bytes {
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
pub(super) struct Huge {
    head: Bytes,
    xs: usize,
    tail: Bytes,
}

impl Huge {
    const CHUNK: usize = 1 << 20;

    pub(super) fn new(id: &Value, size: usize) -> Self {
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

    pub(super) fn len(&self) -> usize {
        self.head.len() + self.xs + self.tail.len()
    }

    /// Sends the message; `None` when the client went away.
    pub(super) async fn send(&self, tx: &mut Sender<Bytes, std::io::Error>) -> Option<()> {
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
pub(super) fn with_type(
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

pub(super) fn text(status: StatusCode, body: &'static str) -> Response<Body> {
    with_type(status, "text/plain; charset=utf-8", body)
}

pub(super) fn html(status: StatusCode, page: &'static str) -> Response<Body> {
    with_type(status, "text/html", page)
}

pub(super) fn json_response(status: StatusCode, value: &Value) -> Response<Body> {
    with_type(status, "application/json", value.to_string())
}

pub(super) fn auth_error(
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

pub(super) fn redirect(location: &str) -> Response<Body> {
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
