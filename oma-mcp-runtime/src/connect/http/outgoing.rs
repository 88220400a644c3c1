//! What the HTTP transport sends: each message as a [`Post`] (its body and what its headers
//! need, taken from the session's [`Outgoing`] message, never parsed back out of the body),
//! and the [`Queue`] of the transport's write loop.

use reqwest::header::{HeaderName, HeaderValue};
use serde_json::Value;
use tokio::sync::mpsc;

use super::super::message::{Closed, Kind, Outgoing};
use super::headers::{
    Annotations, MCP_METHOD, MCP_NAME, MCP_PARAM_PREFIX, STANDARD_HEADERS_VERSION, header_text,
};

/// One message as the transport POSTs it.
#[derive(Debug, Clone)]
pub(super) struct Post {
    /// The JSON-RPC message.
    pub(super) body: Vec<u8>,
    /// Request (with its id), notification or response.
    pub(super) kind: Kind,
    /// The JSON-RPC method; empty for a response.
    pub(super) method: String,
    /// `Mcp-Name` (see [`Outgoing::name`]).
    name: Option<String>,
    /// The protocol version of the request's `_meta` context.
    version: Option<String>,
    /// `(header, text)` of each `Mcp-Param-<header>` the tool's `x-mcp-header` annotations
    /// ask for, from the `tools/call` arguments.
    params: Vec<(String, String)>,
}

impl Post {
    /// `message` ready to POST; `annotations`: the listed tools' `x-mcp-header`s.
    pub(super) fn prepare(message: Outgoing<'_>, annotations: &Annotations) -> Self {
        let params = match (message.method, message.name, message.arguments) {
            ("tools/call", Some(tool), Some(arguments)) => annotations
                .get(tool)
                .into_iter()
                .flatten()
                .filter_map(|(property, header)| {
                    let text = match arguments.get(property)? {
                        Value::String(s) => s.clone(),
                        Value::Bool(b) => b.to_string(),
                        Value::Number(n) => n.to_string(),
                        _ => return None,
                    };
                    Some((header.clone(), text))
                })
                .collect(),
            _ => Vec::new(),
        };
        Self {
            body: message.line,
            kind: message.kind,
            method: message.method.to_owned(),
            name: message.name.map(str::to_owned),
            version: message.version.map(str::to_owned),
            params,
        }
    }

    /// The answer to a server's request, serialized in `line`.
    pub(super) fn response(line: Vec<u8>) -> Self {
        Self {
            body: line,
            kind: Kind::Response,
            method: String::new(),
            name: None,
            version: None,
            params: Vec::new(),
        }
    }

    /// The request's id, for a request.
    pub(super) fn request_id(&self) -> Option<u64> {
        self.kind.request_id()
    }

    /// Whether this is the `initialize` request (it starts a session: never sent with an id).
    pub(super) fn is_initialize(&self) -> bool {
        self.method == "initialize"
    }

    /// Its `MCP-Protocol-Version`: the version of its `_meta` context, else `negotiated`
    /// (none for `initialize`, which negotiates it).
    pub(super) fn protocol_version(&self, negotiated: Option<String>) -> Option<String> {
        self.version
            .clone()
            .or_else(|| negotiated.filter(|_| !self.is_initialize()))
    }

    /// Its standard headers when `version` has them (2026-07-28 and later): `Mcp-Method`,
    /// `Mcp-Name` and each `Mcp-Param-*` (values a header cannot carry as they are travel as
    /// `=?base64?…?=`, see [`header_text`]); none for a response.
    pub(super) fn standard_headers(&self, version: Option<&str>) -> Vec<(HeaderName, HeaderValue)> {
        let mut standard = Vec::new();
        if self.method.is_empty() || version.is_none_or(|v| v < STANDARD_HEADERS_VERSION) {
            return standard;
        }
        let mut push = |name: &str, value: &str| {
            if let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(&header_text(value)),
            ) {
                standard.push((name, value));
            }
        };
        push(MCP_METHOD, &self.method);
        if let Some(name) = &self.name {
            push(MCP_NAME, name);
        }
        for (header, text) in &self.params {
            push(&format!("{MCP_PARAM_PREFIX}{header}"), text);
        }
        standard
    }
}

/// What the write loop is asked to do.
#[derive(Debug)]
pub(super) enum Queued {
    /// Send this message.
    Post(Post),
    /// The request with this id ended without its answer (timeout, cancellation, dropped):
    /// stop reading its response stream.
    Abandon(u64),
    /// The session closed: stop.
    Close,
}

/// The sending end of the write loop's queue.
#[derive(Debug, Clone)]
pub(super) struct Queue(mpsc::UnboundedSender<Queued>);

impl Queue {
    /// A queue and its receiving end (the write loop's).
    pub(super) fn new() -> (Self, mpsc::UnboundedReceiver<Queued>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Self(tx), rx)
    }

    /// Queues `what`; [`Closed`] once the write loop ended.
    pub(super) fn push(&self, what: Queued) -> Result<(), Closed> {
        self.0.send(what).map_err(|_| Closed)
    }

    /// Queues the answer to a server's request (`line`), for the transport to POST.
    pub(super) fn respond(&self, line: Vec<u8>) {
        let _ = self.push(Queued::Post(Post::response(line)));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn headers(post: &Post, version: Option<&str>) -> Vec<(String, String)> {
        post.standard_headers(version)
            .into_iter()
            .map(|(n, v)| (n.as_str().to_owned(), v.to_str().unwrap().to_owned()))
            .collect()
    }

    #[test]
    fn a_call_carries_its_standard_and_parameter_headers_from_2026_07_28_on() {
        let annotations: Annotations = [(
            "weather".to_owned(),
            vec![
                ("region".to_owned(), "Region".to_owned()),
                ("metric".to_owned(), "Metric".to_owned()),
                ("days".to_owned(), "Days".to_owned()),
                ("missing".to_owned(), "Missing".to_owned()),
                ("nested".to_owned(), "Nested".to_owned()),
            ],
        )]
        .into();
        let params = json!({"name": "weather", "arguments": {
            "region": "Zürich", "metric": true, "days": 3, "nested": {"a": 1}
        }});
        let message = Outgoing::request(7, "tools/call", &params, b"{}\n".to_vec());
        let post = Post::prepare(message, &annotations);
        assert_eq!(post.request_id(), Some(7));
        assert_eq!(
            headers(&post, Some("2026-07-28")),
            [
                ("mcp-method", "tools/call"),
                ("mcp-name", "weather"),
                ("mcp-param-region", "=?base64?WsO8cmljaA==?="),
                ("mcp-param-metric", "true"),
                ("mcp-param-days", "3"),
            ]
            .map(|(n, v)| (n.to_owned(), v.to_owned()))
        );
        assert_eq!(headers(&post, Some("2025-11-25")), []);
        assert_eq!(headers(&post, None), []);
        assert_eq!(headers(&Post::response(Vec::new()), Some("2026-07-28")), []);
    }

    #[test]
    fn the_protocol_version_is_the_contexts_else_the_negotiated_one() {
        let context = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}});
        let none = Annotations::new();
        let list = Post::prepare(
            Outgoing::request(1, "tools/list", &context, Vec::new()),
            &none,
        );
        assert_eq!(
            list.protocol_version(Some("2025-06-18".to_owned()))
                .as_deref(),
            Some("2026-07-28")
        );
        let plain = json!({});
        let list = Post::prepare(
            Outgoing::request(2, "tools/list", &plain, Vec::new()),
            &none,
        );
        assert_eq!(
            list.protocol_version(Some("2025-06-18".to_owned()))
                .as_deref(),
            Some("2025-06-18")
        );
        let initialize = Post::prepare(
            Outgoing::request(0, "initialize", &plain, Vec::new()),
            &none,
        );
        assert!(initialize.is_initialize());
        assert_eq!(
            initialize.protocol_version(Some("2025-06-18".to_owned())),
            None
        );
    }
}
