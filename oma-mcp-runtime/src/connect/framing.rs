//! JSON-RPC 2.0 framing over a stdio MCP server's pipes: one message per line
//! (MCP spec, "Transports" → "stdio"; messages are newline-delimited and contain no embedded
//! newlines).
//!
//! Everything here is pure or works on any [`AsyncBufRead`], so it is unit-tested without a
//! process. Received messages stay raw [`serde_json::Value`]s (DESIGN.md, "Fidelity rules").

use std::io;

use serde::Serialize;
use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt};

use crate::Error;

/// The outcome of reading one line with [`read_line`].
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum LineRead {
    /// A complete line is in the buffer, without its `\n` (and without a trailing `\r`).
    Line,
    /// The line was longer than the limit; its bytes were read and discarded.
    TooLong {
        /// The length of the discarded line in bytes (without the `\n`).
        len: usize,
    },
    /// End of stream, nothing read.
    Eof,
}

/// Reads one `\n`-terminated line into `buf` (cleared first), keeping at most `limit` bytes.
///
/// A longer line is consumed up to its newline and reported as [`LineRead::TooLong`], so memory
/// stays bounded by `limit` plus the reader's buffer and the stream stays in sync for the next
/// line. A last line without a newline before end of stream counts as a line.
///
/// # Errors
/// The reader's I/O error.
pub(crate) async fn read_line<R>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    limit: usize,
) -> io::Result<LineRead>
where
    R: AsyncBufRead + Unpin,
{
    buf.clear();
    let mut total = 0usize;
    let mut too_long = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            if total == 0 && !too_long {
                return Ok(LineRead::Eof);
            }
            break;
        }
        let newline = available.iter().position(|&b| b == b'\n');
        let take = newline.unwrap_or(available.len());
        total = total.saturating_add(take);
        if !too_long {
            if total > limit {
                too_long = true;
                *buf = Vec::new();
            } else {
                buf.extend_from_slice(&available[..take]);
            }
        }
        let consumed = newline.map_or(take, |i| i + 1);
        reader.consume(consumed);
        if newline.is_some() {
            break;
        }
    }
    if too_long {
        return Ok(LineRead::TooLong { len: total });
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Ok(LineRead::Line)
}

/// The deepest nesting `serde_json` parses (its recursion limit).
pub(crate) const MAX_DEPTH: usize = 128;

/// One message received from the server, classified by its JSON-RPC shape.
#[derive(Debug, PartialEq)]
pub(crate) enum Incoming {
    /// A response to one of our requests: `result` (raw) or the error as [`Error::Rpc`].
    Response {
        /// The `id` as sent.
        id: Value,
        /// `Ok(result)` or `Err(Error::Rpc { .. })`.
        outcome: Result<Value, RpcFailure>,
    },
    /// A request from the server (`ping`, `sampling/createMessage`, …) that needs an answer.
    Request {
        /// The `id` to answer with.
        id: Value,
        /// The method.
        method: String,
    },
    /// A notification from the server (no answer).
    Notification {
        /// The method.
        method: String,
    },
    /// JSON nested deeper than `serde_json`'s recursion limit ([`MAX_DEPTH`]): not parsed.
    TooDeep,
    /// Not a JSON-RPC message: not JSON, not an object, or no recognizable shape.
    Invalid {
        /// Why, for the log.
        reason: String,
    },
}

/// A JSON-RPC error object, leniently read (code `-32603` and the raw error as text when the
/// server sent something malformed; never dropped).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RpcFailure {
    /// `error.code` (integral), else -32603 (internal error).
    pub(crate) code: i64,
    /// `error.message`, else the error value as JSON text.
    pub(crate) message: String,
    /// `error.data`, raw.
    pub(crate) data: Option<Value>,
}

impl From<RpcFailure> for Error {
    fn from(f: RpcFailure) -> Self {
        Error::Rpc {
            code: f.code,
            message: f.message,
            data: f.data,
        }
    }
}

/// Reads a JSON-RPC `error` member.
fn rpc_failure(error: Value) -> RpcFailure {
    let code = error.get("code").and_then(Value::as_i64).unwrap_or(-32603);
    let message = match error.get("message") {
        Some(Value::String(m)) => m.clone(),
        _ => error.to_string(),
    };
    let data = error.get("data").cloned();
    RpcFailure {
        code,
        message,
        data,
    }
}

/// Classifies one received line (already without its newline).
///
/// A line that is not valid UTF-8 is decoded with U+FFFD for each invalid sequence, as Node's
/// UTF-8 decoding of a stdio server's output does in the TypeScript SDK, so a stray byte in a
/// tool's text does not drop the whole response (and time the request out).
pub(crate) fn classify(line: &[u8]) -> Incoming {
    let parsed = match serde_json::from_slice(line) {
        Err(_) if std::str::from_utf8(line).is_err() => {
            serde_json::from_str(&String::from_utf8_lossy(line))
        }
        parsed => parsed,
    };
    let value: Value = match parsed {
        Ok(v) => v,
        // serde_json has no error category for this; its message is stable ("recursion limit
        // exceeded at line L column C").
        Err(e) if e.to_string().starts_with("recursion limit exceeded") => {
            return Incoming::TooDeep;
        }
        Err(e) => {
            return Incoming::Invalid {
                reason: format!("not JSON ({e})"),
            };
        }
    };
    let Value::Object(mut obj) = value else {
        return Incoming::Invalid {
            reason: "not a JSON object".to_owned(),
        };
    };
    let method = match obj.remove("method") {
        Some(Value::String(m)) => Some(m),
        Some(other) => {
            return Incoming::Invalid {
                reason: format!("`method` is not a string: {other}"),
            };
        }
        None => None,
    };
    let id = obj.remove("id").filter(|id| !id.is_null());
    match (method, id) {
        (Some(method), Some(id)) => Incoming::Request { id, method },
        (Some(method), None) => Incoming::Notification { method },
        (None, Some(id)) => {
            if let Some(error) = obj.remove("error") {
                Incoming::Response {
                    id,
                    outcome: Err(rpc_failure(error)),
                }
            } else if let Some(result) = obj.remove("result") {
                Incoming::Response {
                    id,
                    outcome: Ok(result),
                }
            } else {
                Incoming::Invalid {
                    reason: "a response with neither `result` nor `error`".to_owned(),
                }
            }
        }
        (None, None) => Incoming::Invalid {
            reason: "neither `method` nor `id`".to_owned(),
        },
    }
}

/// Serializes request parameters built with rmcp's model types.
///
/// # Errors
/// [`Error::Rpc`] with code -32602 (invalid params) in the unlikely case that serde fails.
pub(crate) fn to_params<T: Serialize>(params: &T) -> Result<Value, Error> {
    serde_json::to_value(params).map_err(|e| Error::Rpc {
        code: -32602,
        message: format!("cannot serialize the request parameters: {e}"),
        data: None,
    })
}

/// The line (with `\n`) of the request `id` / `method` / `params`.
///
/// Serialized straight from borrowed fields (the hot path of every call): no intermediate
/// `Value` map, and `serde_json::to_writer` rather than `Display`.
pub(crate) fn request_line(id: u64, method: &str, params: Value) -> Vec<u8> {
    #[derive(Serialize)]
    struct Request<'a> {
        jsonrpc: &'static str,
        id: u64,
        method: &'a str,
        params: &'a Value,
    }
    let request = Request {
        jsonrpc: "2.0",
        id,
        method,
        params: &params,
    };
    let mut out = Vec::with_capacity(128);
    match serde_json::to_writer(&mut out, &request) {
        Ok(()) => {
            out.push(b'\n');
            out
        }
        // Unreachable (a `Value` always serializes); the general path then.
        Err(_) => line(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })),
    }
}

/// The line of a notification, with `params` when given.
pub(crate) fn notification_line(method: &str, params: Option<Value>) -> Vec<u8> {
    match params {
        Some(params) => line(&json!({ "jsonrpc": "2.0", "method": method, "params": params })),
        None => line(&json!({ "jsonrpc": "2.0", "method": method })),
    }
}

/// The line of a successful response to a server request.
pub(crate) fn result_line(id: &Value, result: Value) -> Vec<u8> {
    line(&json!({ "jsonrpc": "2.0", "id": id, "result": result }))
}

/// The line of an error response to a server request.
pub(crate) fn error_line(id: &Value, code: i64, message: &str) -> Vec<u8> {
    line(&json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } }))
}

/// Compact JSON plus `\n`. `Value`'s `Display` is infallible and never emits a raw newline
/// (newlines inside strings are escaped).
fn line(value: &Value) -> Vec<u8> {
    let mut out = value.to_string().into_bytes();
    out.push(b'\n');
    out
}

#[cfg(test)]
mod tests {

    #[test]
    fn json_nested_deeper_than_the_limit_is_classified_too_deep() {
        let deep = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}1{}}}",
            "[".repeat(MAX_DEPTH + 1),
            "]".repeat(MAX_DEPTH + 1)
        );
        assert_eq!(classify(deep.as_bytes()), Incoming::TooDeep);
        let fine = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}1{}}}",
            "[".repeat(100),
            "]".repeat(100)
        );
        assert!(matches!(
            classify(fine.as_bytes()),
            Incoming::Response { .. }
        ));
    }
    use super::*;

    async fn lines(input: &[u8], limit: usize) -> Vec<(LineRead, String)> {
        let mut reader = tokio::io::BufReader::with_capacity(4, input);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        loop {
            let r = read_line(&mut reader, &mut buf, limit).await.unwrap();
            if r == LineRead::Eof {
                return out;
            }
            out.push((r, String::from_utf8(buf.clone()).unwrap()));
        }
    }

    #[tokio::test]
    async fn reads_lines_across_buffer_boundaries() {
        let got = lines(b"hello world\r\n\nlast", 100).await;
        assert_eq!(
            got,
            vec![
                (LineRead::Line, "hello world".to_owned()),
                (LineRead::Line, String::new()),
                (LineRead::Line, "last".to_owned()),
            ]
        );
    }

    #[tokio::test]
    async fn too_long_line_is_skipped_and_stream_stays_in_sync() {
        let got = lines(b"0123456789\nabc\n12345\n", 5).await;
        assert_eq!(
            got,
            vec![
                (LineRead::TooLong { len: 10 }, String::new()),
                (LineRead::Line, "abc".to_owned()),
                (LineRead::Line, "12345".to_owned()),
            ]
        );
        let got = lines(b"0123456789", 5).await;
        assert_eq!(got, vec![(LineRead::TooLong { len: 10 }, String::new())]);
    }

    #[test]
    fn classifies_messages() {
        assert_eq!(
            classify(br#"{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}"#),
            Incoming::Response {
                id: json!(3),
                outcome: Ok(json!({"tools": []}))
            }
        );
        assert_eq!(
            classify(
                br#"{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"bad","data":[1]}}"#
            ),
            Incoming::Response {
                id: json!(4),
                outcome: Err(RpcFailure {
                    code: -32602,
                    message: "bad".to_owned(),
                    data: Some(json!([1]))
                })
            }
        );
        assert_eq!(
            classify(br#"{"jsonrpc":"2.0","id":"s1","method":"ping"}"#),
            Incoming::Request {
                id: json!("s1"),
                method: "ping".to_owned()
            }
        );
        assert_eq!(
            classify(br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#),
            Incoming::Notification {
                method: "notifications/tools/list_changed".to_owned()
            }
        );
        assert!(matches!(
            classify(b"Server started"),
            Incoming::Invalid { .. }
        ));
        assert!(matches!(classify(b"[1,2]"), Incoming::Invalid { .. }));
        assert!(matches!(classify(br#"{"id":1}"#), Incoming::Invalid { .. }));
    }

    #[test]
    fn invalid_utf8_is_decoded_lossily_as_node_does() {
        assert_eq!(
            classify(b"{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"text\":\"caf\xe9 ok\"}}"),
            Incoming::Response {
                id: json!(5),
                outcome: Ok(json!({"text": "caf\u{fffd} ok"}))
            }
        );
        assert_eq!(
            classify(b"\xff\xfe not json"),
            Incoming::Invalid {
                reason: "not JSON (expected value at line 1 column 1)".to_owned()
            }
        );
    }

    #[test]
    fn malformed_error_objects_are_kept() {
        let Incoming::Response { outcome, .. } = classify(br#"{"id":1,"error":"boom"}"#) else {
            panic!("not a response");
        };
        let err: Error = outcome.unwrap_err().into();
        assert_eq!(err.to_string(), "MCP error -32603: \"boom\"");
    }

    #[test]
    fn builds_lines() {
        assert_eq!(
            request_line(7, "tools/list", json!({})),
            b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\",\"params\":{}}\n".to_vec()
        );
        assert_eq!(
            notification_line("notifications/initialized", None),
            b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n".to_vec()
        );
        assert_eq!(
            result_line(&json!("p"), json!({})),
            b"{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"result\":{}}\n".to_vec()
        );
        assert_eq!(
            error_line(&json!(1), -32601, "Method not found"),
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}\n"
                .to_vec()
        );
        assert_eq!(
            request_line(1, "x", json!({"t": "a\nb"}))
                .iter()
                .filter(|&&b| b == b'\n')
                .count(),
            1
        );
    }
}
