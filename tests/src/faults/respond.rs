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
    redirect_with(StatusCode::TEMPORARY_REDIRECT, location)
}

/// A redirect with `status` (307 or 308) to `location`.
pub(super) fn redirect_with(status: StatusCode, location: &str) -> Response<Body> {
    let mut response = text(status, "Redirect");
    if let Ok(location) = HeaderValue::from_str(location) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    response
}

/// `data` as a gzip member (RFC 1952) holding one stored (uncompressed) deflate block
/// (RFC 1951, section 3.2.4): what `gzip-json` sends, a body any gzip decoder reads, made
/// without a compression library. `data` is at most 65,535 bytes (one stored block).
pub(super) fn gzip_stored(data: &[u8]) -> Vec<u8> {
    let len = u16::try_from(data.len()).expect("at most 65,535 bytes");
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    out.push(1); // BFINAL = 1, BTYPE = 00 (stored)
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&(!len).to_le_bytes());
    out.extend_from_slice(data);
    out.extend_from_slice(&crc32(data).to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

/// CRC-32 (ISO-HDLC, the one gzip uses), bit by bit.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in data {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gzip_of_a_stored_block() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(
            gzip_stored(b"ab"),
            [
                0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff, 1, 2, 0, 0xfd, 0xff, b'a', b'b', 0x6d, 0x48,
                0x83, 0x9e, 2, 0, 0, 0
            ]
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
