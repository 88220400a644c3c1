//! Where every received message goes, whatever the transport: a transport hands each one to
//! the [`Inbox`] (a stdout line, an HTTP body, an SSE event's data), raw. The inbox routes a
//! response to its pending request by `id`, `notifications/progress` to the call that asked
//! for it, counts `notifications/tools/list_changed` (see [`Inbox::tools_list_changes`]), and
//! answers the server's requests (`ping`, `elicitation/create`, anything else with
//! -32601) with a line the transport sends back.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

use super::config::Elicitation;
use super::framing::{self, Incoming};
use super::message::{Closed, Reply, lock};
use super::stderr;
use super::watchers::{RESOURCE_NOTIFICATIONS, ResourceFilter, Watchers};
use crate::error::{DisconnectedError, Error, ProtocolError, RequestError};
use crate::quote::cut;

/// Where received messages come from, for the words of the logs that skip one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Wire {
    /// Lines on a stdio server's stdout.
    Stdout,
    /// HTTP response bodies and SSE events.
    Http,
}

/// Pending requests, and whether the connection is still open.
#[derive(Default)]
struct Pending {
    waiting: HashMap<u64, oneshot::Sender<Reply>>,
    closed: bool,
}

/// The receiving side of a session, shared by the session and its transport's tasks.
pub(super) struct Inbox {
    pending: Mutex<Pending>,
    /// Set by [`Inbox::close_by_client`]: the client is stopping the server, so what a stdio
    /// server writes on stdout while it shuts down (an npm wrapper's goodbye) is no longer
    /// worth a warning.
    closing: AtomicBool,
    /// The largest message accepted (see [`ConnectConfig::max_message_size`](super::ConnectConfig)).
    pub(super) max_message_size: usize,
    /// The server as messages name it: its command line, or its redacted URL.
    pub(super) server: String,
    /// The `params` of `notifications/progress` go to the call whose `progressToken` they
    /// name (see [`Inbox::watch_progress`]).
    progress: Mutex<HashMap<u64, mpsc::UnboundedSender<Value>>>,
    /// Answers `elicitation/create` ([`ConnectConfig::elicitation`](super::ConnectConfig)).
    elicitation: Option<Elicitation>,
    wire: Wire,
    /// How many `notifications/tools/list_changed` were read (see
    /// [`Inbox::tools_list_changes`]).
    tools_list_changes: AtomicU64,
    /// The receivers of resource notifications, and the URIs held through
    /// `resources/subscribe` (see [`Watchers`]); ended when the connection closes.
    pub(super) watchers: Watchers,
}

impl Inbox {
    /// An open inbox with nothing pending.
    pub(super) fn new(
        max_message_size: usize,
        server: String,
        elicitation: Option<Elicitation>,
        wire: Wire,
    ) -> Arc<Self> {
        Arc::new(Self {
            pending: Mutex::new(Pending::default()),
            closing: AtomicBool::new(false),
            max_message_size,
            server,
            progress: Mutex::new(HashMap::new()),
            elicitation,
            wire,
            tools_list_changes: AtomicU64::new(0),
            watchers: Watchers::default(),
        })
    }

    /// Waits for the answer to request `id` on `tx`; [`Closed`] once the connection is closed.
    pub(super) fn register(&self, id: u64, tx: oneshot::Sender<Reply>) -> Result<(), Closed> {
        let mut pending = lock(&self.pending);
        if pending.closed {
            return Err(Closed);
        }
        pending.waiting.insert(id, tx);
        Ok(())
    }

    /// Stops waiting for request `id`; whether it was still waiting.
    pub(super) fn remove(&self, id: u64) -> bool {
        lock(&self.pending).waiting.remove(&id).is_some()
    }

    /// Whether the request `id` still waits for its answer.
    #[cfg_attr(not(feature = "http-no-provider"), allow(dead_code))]
    pub(super) fn is_pending(&self, id: u64) -> bool {
        lock(&self.pending).waiting.contains_key(&id)
    }

    /// How many requests wait for their answer.
    pub(super) fn pending_count(&self) -> usize {
        lock(&self.pending).waiting.len()
    }

    /// Fails the pending request `id` with `error` (nothing when it is no longer pending).
    pub(super) fn fail(&self, id: u64, error: Error) {
        let tx = lock(&self.pending).waiting.remove(&id);
        if let Some(tx) = tx {
            let _ = tx.send(Err(error));
        }
    }

    /// Fails the pending requests `ids` with [`DisconnectedError::ConnectionClosed`] (their
    /// messages could not be written).
    pub(super) fn fail_all(&self, ids: &[u64]) {
        let failed: Vec<_> = {
            let mut pending = lock(&self.pending);
            ids.iter()
                .filter_map(|id| pending.waiting.remove(id))
                .collect()
        };
        for tx in failed {
            let _ = tx.send(Err(Error::Disconnected(
                DisconnectedError::ConnectionClosed,
            )));
        }
    }

    /// Fails every pending request with `error()` (a message whose request is unknown was lost).
    fn fail_every(&self, error: impl Fn() -> Error) {
        let waiting = std::mem::take(&mut lock(&self.pending).waiting);
        for (_, tx) in waiting {
            let _ = tx.send(Err(error()));
        }
    }

    /// Whether the connection is closed (by the client or because it ended).
    #[cfg_attr(not(feature = "http-no-provider"), allow(dead_code))]
    pub(super) fn is_closed(&self) -> bool {
        lock(&self.pending).closed
    }

    /// Marks the connection closed and fails every pending request with
    /// [`DisconnectedError::ConnectionClosed`].
    pub(super) fn close(&self) {
        let waiting = {
            let mut pending = lock(&self.pending);
            pending.closed = true;
            std::mem::take(&mut pending.waiting)
        };
        for (_, tx) in waiting {
            let _ = tx.send(Err(Error::Disconnected(
                DisconnectedError::ConnectionClosed,
            )));
        }
        // A subscription's receiver ends: nothing more can arrive.
        self.watchers.end_all();
    }

    /// As [`Inbox::close`], by the client (see [`Inbox::closed_by_client`]).
    pub(super) fn close_by_client(&self) {
        self.closing.store(true, Ordering::Relaxed);
        self.close();
    }

    /// Whether [`Inbox::close_by_client`] ran: the client, not the server, ended the session.
    pub(super) fn closed_by_client(&self) -> bool {
        self.closing.load(Ordering::Relaxed)
    }

    /// Sends the `params` of every `notifications/progress` naming `token` to `tx`, until
    /// [`Inbox::unwatch_progress`].
    pub(super) fn watch_progress(&self, token: u64, tx: mpsc::UnboundedSender<Value>) {
        lock(&self.progress).insert(token, tx);
    }

    /// Sends the resource notifications `filter` wants to `tx` as `{"method": …, "params":
    /// …}`, under `key`, until [`Watchers::unwatch`] or the connection closes (then `tx` is
    /// dropped). On a closed inbox `tx` is dropped at once.
    pub(super) fn watch_resources(
        &self,
        key: u64,
        filter: ResourceFilter,
        tx: mpsc::UnboundedSender<Value>,
    ) {
        // Under the lock that `close` marks the inbox closed with, so a watcher is either
        // refused here or ended there.
        let pending = lock(&self.pending);
        if !pending.closed {
            self.watchers.watch(key, filter, tx);
        }
    }

    /// Stops [`Inbox::watch_progress`] for `token`.
    pub(super) fn unwatch_progress(&self, token: u64) {
        lock(&self.progress).remove(&token);
    }

    /// How many `notifications/tools/list_changed` (MCP specification 2025-06-18, "Tools —
    /// List Changed Notification") were read so far. The count goes up as the notification is
    /// read, before any later message of the server is routed, so a request whose answer the
    /// server wrote after the notification finds the count already raised.
    pub(super) fn tools_list_changes(&self) -> u64 {
        self.tools_list_changes.load(Ordering::SeqCst)
    }

    /// Handles one received message (a stdout line, an HTTP body or an SSE event's data):
    /// skips byte-order marks and blank input, then routes it. Returns the answer to a server
    /// request, for the transport to send back.
    pub(super) fn receive(&self, message: &[u8]) -> Option<Vec<u8>> {
        let message = without_bom(message, &self.server);
        if message.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        self.dispatch(framing::classify(message), message)
    }

    /// Handles one classified message; the answer to a server request, if it is one.
    fn dispatch(&self, incoming: Incoming, raw: &[u8]) -> Option<Vec<u8>> {
        match incoming {
            Incoming::Response { id, outcome } => {
                let tx = response_id(&id).and_then(|n| lock(&self.pending).waiting.remove(&n));
                match tx {
                    Some(tx) => {
                        let _ = tx.send(outcome.map_err(Error::from));
                    }
                    None => {
                        tracing::debug!(%id, "response to no pending request (timed out or cancelled)")
                    }
                }
                None
            }
            Incoming::Request { id, method, params } => Some(if method == "ping" {
                framing::result_line(&id, json!({}))
            } else if method == "elicitation/create"
                && let Some(handler) = &self.elicitation
            {
                framing::result_line(&id, handler.answer(params.as_ref().unwrap_or(&Value::Null)))
            } else {
                tracing::debug!(%method, "answering an unsupported server request with -32601");
                framing::error_line(&id, -32601, "Method not found")
            }),
            Incoming::Notification { method, params } => {
                if RESOURCE_NOTIFICATIONS.contains(&method.as_str()) {
                    self.watchers.deliver(&method, params.as_ref());
                    return None;
                }
                if method == "notifications/progress"
                    && let Some(params) = params
                    && let Some(token) = params.get("progressToken").and_then(response_id)
                    && let Some(tx) = lock(&self.progress).get(&token)
                {
                    let _ = tx.send(params);
                    return None;
                }
                if method == "notifications/tools/list_changed" {
                    self.tools_list_changes.fetch_add(1, Ordering::SeqCst);
                    tracing::debug!(server = %self.server, "the MCP server's tool list changed");
                    return None;
                }
                tracing::debug!(%method, "notification from the MCP server ignored");
                None
            }
            Incoming::TooDeep => {
                tracing::warn!(
                    server = %self.server,
                    "skipped a message from the MCP server nested deeper than {} levels",
                    framing::MAX_DEPTH
                );
                self.fail_every(|| {
                    Error::Protocol(ProtocolError::MessageTooDeep {
                        limit: framing::MAX_DEPTH,
                    })
                });
                None
            }
            Incoming::Invalid { reason } => {
                self.skip_invalid(&reason, raw);
                None
            }
        }
    }

    /// Logs a message that is no JSON-RPC message (and goes on).
    fn skip_invalid(&self, reason: &str, raw: &[u8]) {
        let text = String::from_utf8_lossy(raw);
        let text = cut(&text, stderr::LINE_CHARS);
        let server = &self.server;
        if self.wire == Wire::Http {
            tracing::warn!(
                %server,
                "skipped a message in an HTTP response of the MCP server that is not a JSON-RPC message ({reason}): {text}"
            );
        } else if self.closed_by_client() {
            // The client stopped the server: a shutdown message is no protocol problem.
            tracing::debug!(
                %server,
                "skipped a line the MCP server wrote on stdout while being stopped: {text}"
            );
        } else {
            tracing::warn!(
                %server,
                "skipped a line on the MCP server's stdout that is not a JSON-RPC message ({reason}): {text}"
            );
        }
    }

    /// Handles a stdout line over the message size limit (`head`: its first bytes, see
    /// [`framing::oversized_head`]): a response whose `id` is in the head fails only that
    /// request with [`RequestError::MessageTooLarge`]; a server request or notification fails none;
    /// a message whose `id` cannot be read from the head fails every pending request (its
    /// answer is lost, and which one it was is unknown).
    pub(super) fn oversized(&self, head: &[u8], len: usize) {
        let limit = self.max_message_size;
        let server = &self.server;
        match framing::oversized_head(head) {
            framing::OversizedHead::Response(id) => {
                let tx = response_id(&id).and_then(|n| lock(&self.pending).waiting.remove(&n));
                tracing::warn!(
                    %server,
                    "skipped a {len}-byte response to request {id} from the MCP server, over the \
                     limit of {limit} bytes"
                );
                if let Some(tx) = tx {
                    let _ = tx.send(Err(Error::Request(RequestError::MessageTooLarge { limit })));
                }
            }
            framing::OversizedHead::ServerMessage => tracing::warn!(
                %server,
                "skipped a {len}-byte request or notification from the MCP server, over the limit \
                 of {limit} bytes"
            ),
            framing::OversizedHead::Unknown => {
                tracing::warn!(
                    %server,
                    "skipped a {len}-byte message from the MCP server, over the limit of {limit} \
                     bytes; its id is not in its first bytes, so every pending request fails"
                );
                self.fail_every(|| Error::Request(RequestError::MessageTooLarge { limit }));
            }
        }
    }
}

/// The UTF-8 byte-order mark (U+FEFF).
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// `line` without the byte-order marks (U+FEFF) in front of it, which some servers (a
/// Windows-minded logger, a .NET console) write before a message; each is noted in a
/// `DEBUG` log. JSON does not allow them, so without this the message would be skipped as
/// not JSON and its request would time out.
fn without_bom<'a>(mut line: &'a [u8], server: &str) -> &'a [u8] {
    while let Some(rest) = line.strip_prefix(BOM) {
        tracing::debug!(%server, "skipped a byte-order mark (U+FEFF) before a message on the MCP server's stdout");
        line = rest;
    }
    line
}

/// The request id a response answers. We send integer ids; like the TypeScript SDK, which
/// matches with `Number(id)`, a server that echoes one back as a string (`"7"`) or a float
/// (`7.0`) is still understood.
fn response_id(id: &Value) -> Option<u64> {
    match id {
        Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= u64::MAX as f64)
                .map(|f| f as u64)
        }),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn response_ids_match_as_the_typescript_sdk_does() {
        assert_eq!(response_id(&json!(7)), Some(7));
        assert_eq!(response_id(&json!("7")), Some(7));
        assert_eq!(response_id(&json!(" 7 ")), Some(7));
        assert_eq!(response_id(&json!(7.0)), Some(7));
        assert_eq!(response_id(&json!(7.5)), None);
        assert_eq!(response_id(&json!(-1)), None);
        assert_eq!(response_id(&json!("seven")), None);
        assert_eq!(response_id(&json!(null)), None);
    }

    #[test]
    fn byte_order_marks_before_a_message_are_skipped() {
        assert_eq!(without_bom(b"\xEF\xBB\xBF{}", "srv"), b"{}");
        assert_eq!(without_bom(b"\xEF\xBB\xBF\xEF\xBB\xBF{}", "srv"), b"{}");
        assert_eq!(without_bom(b"{}\xEF\xBB\xBF", "srv"), b"{}\xEF\xBB\xBF");
        assert_eq!(without_bom(b"\xEF\xBB", "srv"), b"\xEF\xBB");
    }

    /// Responses reach their request, server requests get their answer back, and a closed
    /// inbox takes no new request.
    #[test]
    fn routes_responses_and_answers_server_requests() {
        let inbox = Inbox::new(1024, "srv".to_owned(), None, Wire::Stdout);
        let (tx, mut rx) = oneshot::channel();
        inbox.register(7, tx).unwrap();
        assert!(inbox.is_pending(7));
        assert_eq!(
            inbox.receive(br#"{"jsonrpc":"2.0","id":"7","result":{"ok":true}}"#),
            None
        );
        assert_eq!(rx.try_recv().unwrap().unwrap(), json!({"ok": true}));
        assert_eq!(inbox.pending_count(), 0);
        let answer = |message: &[u8]| inbox.receive(message).map(String::from_utf8);
        assert_eq!(
            answer(br#"{"jsonrpc":"2.0","id":"p1","method":"ping"}"#),
            Some(Ok(
                "{\"jsonrpc\":\"2.0\",\"id\":\"p1\",\"result\":{}}\n".to_owned()
            ))
        );
        assert_eq!(
            answer(br#"{"jsonrpc":"2.0","id":2,"method":"roots/list"}"#),
            Some(Ok(
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}\n"
                    .to_owned()
            ))
        );
        assert_eq!(inbox.receive(b" \t "), None);
        let (tx, mut rx) = oneshot::channel();
        inbox.register(8, tx).unwrap();
        inbox.close_by_client();
        assert!(inbox.closed_by_client());
        assert!(matches!(
            rx.try_recv().unwrap(),
            Err(Error::Disconnected(DisconnectedError::ConnectionClosed))
        ));
        let (tx, _rx) = oneshot::channel();
        assert!(inbox.register(9, tx).is_err());
    }

    /// `notifications/tools/list_changed` is counted as it is read (with or without
    /// `params`); other notifications are not.
    #[test]
    fn counts_tool_list_changes() {
        let inbox = Inbox::new(1024, "srv".to_owned(), None, Wire::Stdout);
        assert_eq!(inbox.tools_list_changes(), 0);
        let changed = br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;
        assert_eq!(inbox.receive(changed), None);
        assert_eq!(
            inbox.receive(
                br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}"#
            ),
            None
        );
        assert_eq!(
            inbox.receive(br#"{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}"#),
            None
        );
        assert_eq!(inbox.tools_list_changes(), 2);
    }
}
