//! What the session hands its transport, below both: one [`Outgoing`] message at a time, with
//! what it is (a request and its id, a notification, a response) and what its `params` say
//! that a transport may need (the method, the name `Mcp-Name` carries, the protocol version of
//! its `_meta` context, the `tools/call` arguments), so no transport parses a line it is given.

use std::sync::{Mutex, MutexGuard, PoisonError};

use serde::Serialize;
use serde_json::{Map, Value};

use super::framing::CallParams;
use crate::Error;

/// What a request gets back: its result, raw, or why it has none.
pub(super) type Reply = Result<Value, Error>;

/// The transport no longer sends anything (the session closed, or the transport ended).
#[derive(Debug)]
pub(super) struct Closed;

/// What an [`Outgoing`] message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// A request with this id: when its message cannot be sent, the transport fails it (the
    /// session waits for its answer only, not for a write acknowledgement too).
    Request(u64),
    /// A notification.
    Notification,
    /// The answer to a server's request (`ping`, `elicitation/create`; over stdio the reader
    /// writes these lines itself).
    #[cfg_attr(not(feature = "http-no-provider"), allow(dead_code))]
    Response,
}

impl Kind {
    /// The id of a request; `None` for a notification or a response.
    pub(super) fn request_id(self) -> Option<u64> {
        match self {
            Kind::Request(id) => Some(id),
            Kind::Notification | Kind::Response => None,
        }
    }
}

/// One message for the server: the line the session serialized (compact JSON and `\n`) and
/// what it knows about it (the stdio transport needs only the line and the kind).
#[derive(Debug)]
#[cfg_attr(not(feature = "http-no-provider"), allow(dead_code))]
pub(super) struct Outgoing<'a> {
    /// The message, one line with its `\n`.
    pub(super) line: Vec<u8>,
    /// Request, notification or response.
    pub(super) kind: Kind,
    /// The JSON-RPC method; empty for a response.
    pub(super) method: &'a str,
    /// What `Mcp-Name` names (MCP 2026-07-28, "Standard headers"): `params.name` of
    /// `tools/call` and `prompts/get`, `params.uri` of `resources/read`,
    /// `resources/subscribe` and `resources/unsubscribe` (see [`name_member`]).
    pub(super) name: Option<&'a str>,
    /// The protocol version of the request's `_meta` client context
    /// (`io.modelcontextprotocol/protocolVersion`, every request of a 2026-07-28 session).
    pub(super) version: Option<&'a str>,
    /// The arguments of a `tools/call` (for the `Mcp-Param-*` headers).
    pub(super) arguments: Option<&'a Map<String, Value>>,
}

impl<'a> Outgoing<'a> {
    /// The request `id`: `line` is `method` with `params`, serialized.
    pub(super) fn request<P: Params + ?Sized>(
        id: u64,
        method: &'a str,
        params: &'a P,
        line: Vec<u8>,
    ) -> Self {
        Self {
            line,
            kind: Kind::Request(id),
            method,
            name: name_member(method).and_then(|key| params.member(key)),
            version: params.meta_version(),
            arguments: params.arguments(),
        }
    }

    /// A notification: `line` is `method` with `params`, serialized.
    pub(super) fn notification(method: &'a str, params: Option<&'a Value>, line: Vec<u8>) -> Self {
        Self {
            line,
            kind: Kind::Notification,
            method,
            name: params.and_then(|p| name_member(method).and_then(|key| p.member(key))),
            version: params.and_then(Params::meta_version),
            arguments: None,
        }
    }

    /// The request's id, for a request.
    pub(super) fn request_id(&self) -> Option<u64> {
        self.kind.request_id()
    }
}

/// The `_meta` key of the protocol version in a 2026-07-28 request's client context (SEP-2575).
pub(super) const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// The member of `params` that `Mcp-Name` carries for `method` (MCP 2026-07-28, "Standard
/// headers"): `name` for `tools/call` and `prompts/get`, `uri` for `resources/read`,
/// `resources/subscribe` and `resources/unsubscribe`, `taskId` for `tasks/get`,
/// `tasks/update` and `tasks/cancel` (the tasks extension, "HTTP headers"); `None` for other
/// methods.
pub(super) fn name_member(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => Some("uri"),
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    }
}

/// Request parameters, and what a transport reads of them without parsing the serialized
/// line (see [`Outgoing`]).
pub(crate) trait Params: Serialize {
    /// The member `key` of the parameters, when it is a string.
    fn member(&self, key: &str) -> Option<&str>;
    /// `_meta["io.modelcontextprotocol/protocolVersion"]`, when it is a string.
    fn meta_version(&self) -> Option<&str>;
    /// `arguments`, when it is an object.
    fn arguments(&self) -> Option<&Map<String, Value>>;
}

impl Params for Value {
    fn member(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Value::as_str)
    }

    fn meta_version(&self) -> Option<&str> {
        self.get("_meta")
            .and_then(|meta| meta.get(META_PROTOCOL_VERSION))
            .and_then(Value::as_str)
    }

    fn arguments(&self) -> Option<&Map<String, Value>> {
        self.get("arguments").and_then(Value::as_object)
    }
}

impl Params for CallParams<'_> {
    fn member(&self, key: &str) -> Option<&str> {
        match key {
            "name" => Some(self.name),
            _ => self.extra.get(key).and_then(Value::as_str),
        }
    }

    fn meta_version(&self) -> Option<&str> {
        self.context
            .and_then(|context| context.get(META_PROTOCOL_VERSION))
            .and_then(Value::as_str)
    }

    fn arguments(&self) -> Option<&Map<String, Value>> {
        self.arguments
    }
}

/// Locks ignoring poisoning (the data stays consistent: every critical section here is a few
/// map or queue operations that do not panic).
pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_request_says_its_method_name_version_and_arguments() {
        let params = json!({
            "name": "echo", "arguments": {"message": "hi"},
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
        });
        let message = Outgoing::request(3, "tools/call", &params, b"{}\n".to_vec());
        assert_eq!(message.kind, Kind::Request(3));
        assert_eq!(message.request_id(), Some(3));
        assert_eq!(
            (message.method, message.name, message.version),
            ("tools/call", Some("echo"), Some("2026-07-28"))
        );
        assert_eq!(message.arguments, params["arguments"].as_object());

        let read = json!({"uri": "file:///a", "name": "not this"});
        let message = Outgoing::request(4, "resources/read", &read, Vec::new());
        assert_eq!((message.name, message.version), (Some("file:///a"), None));
        let message = Outgoing::request(5, "tools/list", &read, Vec::new());
        assert_eq!(message.name, None);
    }

    #[test]
    fn call_params_say_the_same_as_their_json() {
        let arguments = json!({"message": "hi"});
        let context = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
        let extra = Map::new();
        let params = CallParams {
            name: "echo",
            arguments: arguments.as_object(),
            context: context.as_object(),
            progress_token: Some(1),
            extra: &extra,
        };
        let value = serde_json::to_value(&params).unwrap();
        assert_eq!(params.member("name"), value.member("name"));
        assert_eq!(params.meta_version(), value.meta_version());
        assert_eq!(params.arguments(), value.arguments());
        assert_eq!(params.meta_version(), Some("2026-07-28"));
        let plain = CallParams {
            context: None,
            ..params
        };
        assert_eq!(plain.meta_version(), None);
    }

    #[test]
    fn notifications_say_their_method() {
        let cancelled = json!({"requestId": 3, "reason": "r"});
        let message =
            Outgoing::notification("notifications/cancelled", Some(&cancelled), Vec::new());
        assert_eq!(
            (message.kind, message.method, message.name, message.version),
            (Kind::Notification, "notifications/cancelled", None, None)
        );
        assert_eq!(message.request_id(), None);
    }
}
