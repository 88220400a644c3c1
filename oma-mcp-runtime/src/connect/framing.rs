//! JSON-RPC 2.0 framing: the lines the session writes (one message per line, MCP spec,
//! "Transports" → "stdio": newline-delimited, no embedded newlines; the same bytes are the
//! body of an HTTP `POST`), reading lines from a stdio server's stdout, and classifying a
//! received message.
//!
//! Everything here is pure or works on any [`AsyncBufRead`], so it is unit-tested without a
//! process. Received messages stay raw [`serde_json::Value`]s: nothing a server sends is
//! lost to a typed parse.

use std::io;

use serde::Serialize;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt};

use crate::error::{Error, RequestError};

/// The outcome of reading one line with [`read_line`].
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum LineRead {
    /// A complete line is in the buffer, without its `\n` (and without a trailing `\r`).
    Line,
    /// The line was longer than the limit; it was read to its end and discarded except for
    /// its first [`OVERSIZED_HEAD`] bytes, which are in the buffer (see [`oversized_head`]).
    TooLong {
        /// The length of the discarded line in bytes (without the `\n`).
        len: usize,
    },
    /// End of stream, nothing read.
    Eof,
}

/// How many bytes of an over-long line [`read_line`] keeps: enough for the `jsonrpc`, `id`
/// and the start of `result` of a response that lists them first (as rmcp and the Python SDK
/// serialize), so [`oversized_head`] can tell which request the lost answer was for.
pub(crate) const OVERSIZED_HEAD: usize = 4096;

/// Reads one `\n`-terminated line into `buf` (cleared first), keeping at most `limit` bytes.
///
/// A longer line is consumed up to its newline and reported as [`LineRead::TooLong`], with
/// only its first [`OVERSIZED_HEAD`] bytes left in `buf`, so memory stays bounded by the larger
/// of `limit` and [`OVERSIZED_HEAD`] plus the reader's buffer, and the stream stays in sync for
/// the next line. A last line without a newline before end of stream counts as a line.
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
        if !too_long && total > limit {
            too_long = true;
            // Keep the head only (and drop the large allocation).
            *buf = buf[..buf.len().min(OVERSIZED_HEAD)].to_vec();
        }
        if too_long {
            let room = OVERSIZED_HEAD.saturating_sub(buf.len());
            buf.extend_from_slice(&available[..take.min(room)]);
        } else {
            buf.extend_from_slice(&available[..take]);
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

/// What the first bytes of a message too large to parse (see [`read_line`]) say about it.
#[derive(Debug, PartialEq)]
pub(crate) enum OversizedHead {
    /// A response to the request with this `id` (as sent): the head holds a top-level `id`
    /// and a top-level `result` or `error` key, and no `method`.
    Response(Value),
    /// A request or notification from the server (a top-level `method` key): none of our
    /// requests lost its answer.
    ServerMessage,
    /// Not readable from the head (e.g. the TypeScript SDK's order, `{"result": …, "jsonrpc":
    /// "2.0", "id": 7}`, has the `id` after the large part; or not a JSON object).
    Unknown,
}

/// Reads the top-level keys of a JSON object from the head of a message (a prefix of the
/// line) as far as they are complete, to find which request an oversized answer is for.
///
/// `serde_json` parses the prefix member by member and stops with an error where it is cut;
/// what was read before counts. A `result` or `error` key marks a response whatever its
/// value; an `id` that is a number counts only once a delimiter follows it (the head may end
/// inside it: `12` could be `123`). Values other than the `id` are skipped, not built.
pub(crate) fn oversized_head(head: &[u8]) -> OversizedHead {
    use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};

    #[derive(Default)]
    struct Seen {
        id: Option<Value>,
        response: bool,
        server_message: bool,
    }
    struct Members<'s>(&'s mut Seen);
    impl<'de> DeserializeSeed<'de> for Members<'_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_map(self)
        }
    }
    impl<'de> Visitor<'de> for Members<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON-RPC message object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            // A number `id` waits for the next key (or the object's end) to be complete.
            let mut number_id = None;
            while let Some(key) = map.next_key::<String>()? {
                if let Some(id) = number_id.take() {
                    self.0.id = Some(id);
                }
                match key.as_str() {
                    "method" => {
                        self.0.server_message = true;
                        return Ok(());
                    }
                    "result" | "error" => self.0.response = true,
                    _ => {}
                }
                if key == "id" {
                    match map.next_value::<Value>()? {
                        id @ Value::Number(_) => number_id = Some(id),
                        id => self.0.id = Some(id),
                    }
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            if let Some(id) = number_id {
                self.0.id = Some(id);
            }
            Ok(())
        }
    }

    let mut seen = Seen::default();
    // The error is where the head ends (or what is not an object); what was read stands.
    let _ = Members(&mut seen).deserialize(&mut serde_json::Deserializer::from_slice(head));
    match seen {
        Seen {
            server_message: true,
            ..
        } => OversizedHead::ServerMessage,
        Seen {
            id: Some(id),
            response: true,
            ..
        } if !id.is_null() => OversizedHead::Response(id),
        _ => OversizedHead::Unknown,
    }
}

/// The deepest nesting `serde_json` parses (its recursion limit).
pub(crate) const MAX_DEPTH: usize = 128;

/// One message received from the server, classified by its JSON-RPC shape.
#[derive(Debug, PartialEq)]
pub(crate) enum Incoming {
    /// A response to one of our requests: `result` (raw) or the error as [`RequestError::Rpc`].
    Response {
        /// The `id` as sent.
        id: Value,
        /// `Ok(result)` or `Err(RequestError::Rpc { .. })`.
        outcome: Result<Value, RpcFailure>,
    },
    /// A request from the server (`ping`, `sampling/createMessage`, …) that needs an answer.
    Request {
        /// The `id` to answer with.
        id: Value,
        /// The method.
        method: String,
        /// Its `params`, raw, when present.
        params: Option<Value>,
    },
    /// A notification from the server (no answer).
    Notification {
        /// The method.
        method: String,
        /// Its `params`, raw, when present.
        params: Option<Value>,
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
        Error::Request(RequestError::Rpc {
            code: f.code,
            message: f.message,
            data: f.data,
        })
    }
}

/// Reads a JSON-RPC `error` member (also a failed task's `error`, MCP 2026-07-28 tasks
/// extension).
pub(crate) fn rpc_failure(error: Value) -> RpcFailure {
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
        (Some(method), Some(id)) => Incoming::Request {
            id,
            method,
            params: obj.remove("params"),
        },
        (Some(method), None) => Incoming::Notification {
            method,
            params: obj.remove("params"),
        },
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
/// [`RequestError::Rpc`] with code -32602 (invalid params) in the unlikely case that serde fails.
pub(crate) fn to_params<T: Serialize>(params: &T) -> Result<Value, Error> {
    serde_json::to_value(params).map_err(|e| {
        Error::Request(RequestError::Rpc {
            code: -32602,
            message: format!("cannot serialize the request parameters: {e}"),
            data: None,
        })
    })
}

/// The line (with `\n`) of the request `id` / `method` / `params`.
///
/// Serialized straight from borrowed fields (the hot path of every call): no intermediate
/// `Value` map, and `serde_json::to_writer` rather than `Display`. `params` is anything that
/// serializes to a JSON object (a `Value`, or the `tools/call` parameters borrowed from the
/// caller's arguments).
///
/// # Errors
/// [`RequestError::Rpc`] with code -32602 (invalid params) when `params` does not serialize (never
/// for a `Value`).
pub(crate) fn request_line<P: Serialize + ?Sized>(
    id: u64,
    method: &str,
    params: &P,
) -> Result<Vec<u8>, Error> {
    #[derive(Serialize)]
    struct Request<'a, P: ?Sized> {
        jsonrpc: &'static str,
        id: u64,
        method: &'a str,
        params: &'a P,
    }
    let request = Request {
        jsonrpc: "2.0",
        id,
        method,
        params,
    };
    let mut out = Vec::with_capacity(128);
    serde_json::to_writer(&mut out, &request).map_err(|e| {
        Error::Request(RequestError::Rpc {
            code: -32602,
            message: format!("cannot serialize the request parameters: {e}"),
            data: None,
        })
    })?;
    out.push(b'\n');
    Ok(out)
}

/// `params` with `context` merged into its `_meta` (SEP-2575: every request of a 2026-07-28
/// session carries it). The caller's other `_meta` keys stay; the three context keys are the
/// session's, as rmcp sets them over a request's own `_meta`. `params` that is not an object
/// (never built here) is returned unchanged.
pub(crate) fn with_client_context(mut params: Value, context: &Map<String, Value>) -> Value {
    if let Value::Object(object) = &mut params {
        match object.get_mut("_meta") {
            Some(Value::Object(meta)) => {
                for (key, value) in context {
                    meta.insert(key.clone(), value.clone());
                }
            }
            _ => {
                object.insert("_meta".to_owned(), Value::Object(context.clone()));
            }
        }
    }
    params
}

/// The `params` of a `tools/call` request, serialized from borrowed parts straight into the
/// request line (the caller's arguments are not copied into a new `Value`).
///
/// Members in the order the request always had (rmcp's `CallToolRequestParams`, then the
/// SEP-2575 context merged into `_meta`, then the extra members, then a progress token):
/// `name`; `arguments` when given; in a 2026-07-28 session `_meta` = the client context's
/// members, then `progressToken` when given; the `extra` members (`inputResponses`,
/// `requestState`; never `name`, `arguments` or `_meta`); without a context,
/// `_meta` = `{"progressToken": …}` when a token is given.
pub(crate) struct CallParams<'a> {
    /// The tool's raw MCP name.
    pub(crate) name: &'a str,
    /// The tool's arguments (`None`: no `arguments` member).
    pub(crate) arguments: Option<&'a Map<String, Value>>,
    /// The client context of a 2026-07-28 session.
    pub(crate) context: Option<&'a Map<String, Value>>,
    /// `_meta.progressToken`.
    pub(crate) progress_token: Option<u64>,
    /// Further members.
    pub(crate) extra: &'a Map<String, Value>,
}

impl Serialize for CallParams<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;

        /// `_meta`: the context's members (a `progressToken` among them replaced in place),
        /// then the token.
        struct Meta<'a>(Option<&'a Map<String, Value>>, Option<u64>);
        impl Serialize for Meta<'_> {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let Meta(context, token) = *self;
                let mut map = serializer.serialize_map(None)?;
                let mut token_sent = false;
                for (key, value) in context.into_iter().flatten() {
                    match token {
                        Some(token) if key == "progressToken" => {
                            map.serialize_entry(key, &token)?;
                            token_sent = true;
                        }
                        _ => map.serialize_entry(key, value)?,
                    }
                }
                if let Some(token) = token.filter(|_| !token_sent) {
                    map.serialize_entry("progressToken", &token)?;
                }
                map.end()
            }
        }

        let meta = Meta(self.context, self.progress_token);
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("name", self.name)?;
        if let Some(arguments) = self.arguments {
            map.serialize_entry("arguments", arguments)?;
        }
        if self.context.is_some() {
            map.serialize_entry("_meta", &meta)?;
        }
        for (key, value) in self.extra {
            map.serialize_entry(key, value)?;
        }
        if self.context.is_none() && self.progress_token.is_some() {
            map.serialize_entry("_meta", &meta)?;
        }
        map.end()
    }
}

/// The line of a notification, with `params` when given.
pub(crate) fn notification_line(method: &str, params: Option<&Value>) -> Vec<u8> {
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
                (LineRead::TooLong { len: 10 }, "0123456789".to_owned()),
                (LineRead::Line, "abc".to_owned()),
                (LineRead::Line, "12345".to_owned()),
            ]
        );
        let got = lines(b"0123456789", 5).await;
        assert_eq!(
            got,
            vec![(LineRead::TooLong { len: 10 }, "0123456789".to_owned())]
        );
    }

    #[tokio::test]
    async fn too_long_line_keeps_only_its_head() {
        let mut input = b"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":\"".to_vec();
        input.extend(std::iter::repeat_n(b'x', 100_000));
        input.extend_from_slice(b"\"}\nnext\n");
        let mut reader = tokio::io::BufReader::with_capacity(1000, input.as_slice());
        let mut buf = Vec::new();
        let r = read_line(&mut reader, &mut buf, 50_000).await.unwrap();
        assert_eq!(r, LineRead::TooLong { len: 100_036 });
        assert_eq!(buf.len(), OVERSIZED_HEAD);
        assert_eq!(&buf[..35], b"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":\"x");
        assert!(buf.capacity() < 50_000, "{}", buf.capacity());
        assert_eq!(oversized_head(&buf), OversizedHead::Response(json!(7)));
        let r = read_line(&mut reader, &mut buf, 50_000).await.unwrap();
        assert_eq!((r, buf.as_slice()), (LineRead::Line, b"next".as_slice()));
    }

    #[test]
    fn reads_the_id_of_an_oversized_message_from_its_head() {
        let response = |head: &str| oversized_head(head.as_bytes());
        assert_eq!(
            response(r#"{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"xx"#),
            OversizedHead::Response(json!(12))
        );
        assert_eq!(
            response(r#" { "id" : "s-1" , "error" : {"code": -1, "message": "xx"#),
            OversizedHead::Response(json!("s-1"))
        );
        // Keys with escapes, nested values and strings with brackets before the `id`.
        assert_eq!(
            response(r#"{"x\"y":{"a":["]}",{"b":1}]},"jsonrpc":"2.0","id":3,"result":"#),
            OversizedHead::Response(json!(3))
        );
        // The TypeScript SDK's order: the `id` comes after the large `result`.
        assert_eq!(
            response(r#"{"result":{"content":[{"type":"text","text":"xxxx"#),
            OversizedHead::Unknown
        );
        // A number cut by the head's end is not read (`1` could be `12`).
        assert_eq!(response(r#"{"result":{},"id":1"#), OversizedHead::Unknown);
        assert_eq!(
            response(r#"{"result":{},"id":1}"#),
            OversizedHead::Response(json!(1))
        );
        // An `id` without `result`/`error` yet, a null id, not an object.
        assert_eq!(
            response(r#"{"jsonrpc":"2.0","id":4,"#),
            OversizedHead::Unknown
        );
        assert_eq!(
            response(r#"{"id":null,"error":{"code":-32700,"message":"xx"#),
            OversizedHead::Unknown
        );
        assert_eq!(response("[1,2,3"), OversizedHead::Unknown);
        assert_eq!(response("xxxx"), OversizedHead::Unknown);
        // A server request or notification: no answer of ours was lost.
        assert_eq!(
            response(r#"{"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{"#),
            OversizedHead::ServerMessage
        );
        assert_eq!(
            response(r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"x"#),
            OversizedHead::ServerMessage
        );
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
                method: "ping".to_owned(),
                params: None
            }
        );
        assert_eq!(
            classify(br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#),
            Incoming::Notification {
                method: "notifications/tools/list_changed".to_owned(),
                params: None
            }
        );
        assert_eq!(
            classify(br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":2}}"#),
            Incoming::Notification {
                method: "notifications/progress".to_owned(),
                params: Some(json!({"progressToken": 1, "progress": 2}))
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

    /// `CallParams` serializes exactly as the `Value` the request used to be built as (rmcp's
    /// `CallToolRequestParams`, the context merged into `_meta`, the extra members, then the
    /// progress token), member order included.
    #[test]
    fn call_params_serialize_as_the_value_they_replace() {
        use rmcp::model::CallToolRequestParams;

        let context = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
        });
        let context = context.as_object().unwrap();
        let arguments = json!({"message": "hi", "n": [1, 2.5, {"x": null}]});
        let arguments = arguments.as_object().unwrap();
        let extra = json!({"inputResponses": {"a": {"action": "accept"}}, "requestState": "s"});
        let extra = extra.as_object().unwrap();
        let empty = Map::new();
        let mut cases = 0;
        for with_arguments in [false, true] {
            for with_context in [false, true] {
                for token in [None, Some(7)] {
                    for extra in [&empty, extra] {
                        let mut old = CallToolRequestParams::new("echo".to_owned());
                        if with_arguments {
                            old = old.with_arguments(arguments.clone());
                        }
                        let mut old = to_params(&old).unwrap();
                        if with_context {
                            old = with_client_context(old, context);
                        }
                        let object = old.as_object_mut().unwrap();
                        object.extend(extra.clone());
                        if let Some(token) = token {
                            let meta = object.entry("_meta").or_insert_with(|| json!({}));
                            meta.as_object_mut()
                                .unwrap()
                                .insert("progressToken".to_owned(), json!(token));
                        }
                        let new = CallParams {
                            name: "echo",
                            arguments: with_arguments.then_some(arguments),
                            context: with_context.then_some(context),
                            progress_token: token,
                            extra,
                        };
                        assert_eq!(
                            String::from_utf8(request_line(3, "tools/call", &new).unwrap()),
                            String::from_utf8(request_line(3, "tools/call", &old).unwrap()),
                            "arguments {with_arguments}, context {with_context}, token {token:?}, \
                             extra {extra:?}"
                        );
                        cases += 1;
                    }
                }
            }
        }
        assert_eq!(cases, 16);
        assert_eq!(
            String::from_utf8(
                request_line(
                    4,
                    "tools/call",
                    &CallParams {
                        name: "echo",
                        arguments: Some(arguments),
                        context: None,
                        progress_token: Some(9),
                        extra: &empty,
                    }
                )
                .unwrap()
            )
            .unwrap(),
            "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\
             \"arguments\":{\"message\":\"hi\",\"n\":[1,2.5,{\"x\":null}]},\"_meta\":{\"progressToken\":9}}}\n"
        );
    }

    #[test]
    fn builds_lines() {
        assert_eq!(
            request_line(7, "tools/list", &json!({})).unwrap(),
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
            request_line(1, "x", &json!({"t": "a\nb"}))
                .unwrap()
                .iter()
                .filter(|&&b| b == b'\n')
                .count(),
            1
        );
    }
}
