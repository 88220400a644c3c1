//! Reading what an HTTP response is and what its body says, for routing and for error
//! messages: the content type, a bounded prefix of an error body, and the excerpt errors
//! quote.

use reqwest::Response;
use reqwest::header;

use crate::quote::cut;

/// The most chars of a response body an error quotes.
pub(super) const BODY_EXCERPT: usize = 300;

/// The most bytes of an error response's body read for its message.
pub(super) const ERROR_BODY_LIMIT: usize = 64 * 1024;

/// The `Content-Type` of `response`, or empty.
pub(super) fn content_type(response: &Response) -> &str {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

/// The `Content-Encoding` of `response` when it is anything but `identity` (oma-mcp sends no
/// `Accept-Encoding`, so a server should never compress; reqwest decodes nothing without its
/// compression features).
pub(super) fn content_encoding(response: &Response) -> Option<String> {
    let value = response.headers().get(header::CONTENT_ENCODING)?;
    let value = String::from_utf8_lossy(value.as_bytes());
    let value = value.trim();
    (!value.is_empty() && !value.eq_ignore_ascii_case("identity")).then(|| cut(value, 40))
}

/// Whether `response` is an SSE stream (`text/event-stream`).
pub(super) fn is_event_stream(response: &Response) -> bool {
    content_type(response)
        .to_ascii_lowercase()
        .starts_with("text/event-stream")
}

/// Whether `response` is JSON (`application/json` or `application/…+json`).
pub(super) fn is_json(response: &Response) -> bool {
    let ct = content_type(response).to_ascii_lowercase();
    ct.starts_with("application/json") || (ct.starts_with("application/") && ct.contains("+json"))
}

/// At most `limit` bytes of a body (an error page), ignoring read errors.
pub(super) async fn read_prefix(mut response: Response, limit: usize) -> Vec<u8> {
    let mut body = Vec::new();
    while body.len() < limit {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                body.extend_from_slice(&chunk[..chunk.len().min(limit - body.len())])
            }
            _ => break,
        }
    }
    body
}

/// The first chars of a body, for messages: `body: "<first 300 chars>"` or `empty body`.
pub(super) async fn read_excerpt(response: Response) -> String {
    let bytes = read_prefix(response, ERROR_BODY_LIMIT).await;
    excerpt_text(&String::from_utf8_lossy(&bytes))
}

/// `body: "<first 300 chars, control characters as spaces>"`, or `empty body`.
pub(super) fn excerpt_text(text: &str) -> String {
    let text = text.trim();
    if text.is_empty() {
        "empty body".to_owned()
    } else {
        let flat: String = text
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        format!("body: \"{}\"", cut(&flat, BODY_EXCERPT))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_flat_and_bounded() {
        assert_eq!(excerpt_text("  \n "), "empty body");
        assert_eq!(excerpt_text("a\r\nb\tc"), "body: \"a  b c\"");
        let long = "x".repeat(400);
        assert_eq!(
            excerpt_text(&long),
            format!("body: \"{}\"", cut(&long, BODY_EXCERPT))
        );
    }
}
