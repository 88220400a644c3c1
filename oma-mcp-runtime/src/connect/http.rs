//! The streamable HTTP transport (MCP 2025-03-26 and later, "Transports" → "Streamable
//! HTTP"; cargo feature `http`): it only moves messages; the session above it (ids, the
//! pending map, timeouts, cancellation, the lifecycle) is the same as over stdio.
//!
//! Every outgoing message is one `POST` with `Accept: application/json, text/event-stream`.
//! The answer is a JSON body or an SSE stream (`text/event-stream`) of messages: server
//! requests and notifications may come before the response, and each event's `data` goes
//! through the same routing as a stdout line, raw (nothing is lost on unknown fields). A
//! stream is read until the request it carries is answered (or abandoned).
//!
//! - **Concurrency**: each request's `POST` runs in a task of its own. Notifications and
//!   responses are sent concurrently too, each bounded by [`NOTIFICATION_TIMEOUT`], so a
//!   server slow to accept one (`notifications/cancelled` after a timeout) holds up nothing
//!   else; only `notifications/initialized` is sent before the requests that follow it.
//! - **Session**: an `Mcp-Session-Id` response header is kept and sent on every later request.
//!   A `404` to a request that carried it means the session ended: the transport replays the
//!   `initialize` request and `notifications/initialized` once, without the old id, keeps the
//!   new id, and sends the request again (MCP 2025-06-18, "Session Management"). The session
//!   id, the handshake's progress and a new session being started are one state
//!   ([`state`]).
//! - **Headers**: `MCP-Protocol-Version` on every request after the handshake (the negotiated
//!   version; in a 2026-07-28 session the version of the request's `_meta` context).
//!   2026-07-28 requests also carry `Mcp-Method`, `Mcp-Name` (for `tools/call`,
//!   `prompts/get`: `params.name`; `resources/read`, `resources/subscribe`,
//!   `resources/unsubscribe`: `params.uri`) and `Mcp-Param-<Header>` for each `tools/call`
//!   argument whose property declares `x-mcp-header` in the tool's `inputSchema`; a value
//!   that cannot travel as header text is sent as `=?base64?<base64>?=`. The session says
//!   each message's method, name and arguments with it ([`Outgoing`]): no body is parsed
//!   again.
//! - **Server stream**: after an `initialize` handshake with a session (once
//!   `notifications/initialized` went through), a `GET` opens the stream of server messages;
//!   `405` means the server offers none. After a `404` started a new session, the old
//!   session's stream is dropped and the new session's opened.
//! - **Resumption**: when a response stream ends before its response and an event carried an
//!   `id`, the transport waits the stream's `retry` (default 1 s) and sends a `GET` with
//!   `Last-Event-ID` to resume it (MCP 2025-11-25, "Resumability and Redelivery"), up to
//!   [`MAX_RESUMES`](super::MAX_RESUMES) times in a row without a new event.
//! - **End**: [`HttpTransport::end_session`] sends `DELETE` with the session id (`405` is
//!   fine).
//! - **Limits**: a JSON body or one SSE event over
//!   [`ConnectConfig::max_message_size`](crate::ConnectConfig::max_message_size) fails the
//!   request it answers with [`Error::MessageTooLarge`](crate::Error::MessageTooLarge).
//!   Redirects: only `307`/`308` to the same origin, at most
//!   [`MAX_REDIRECTS`](super::MAX_REDIRECTS) (a redirect elsewhere is an
//!   [`Error::Http`](crate::Error::Http) that shows the target, so credentials never follow
//!   to another host). Connecting is bounded by [`CONNECT_TIMEOUT`](super::CONNECT_TIMEOUT)
//!   (or the request timeout when shorter); the request timeout of the session bounds
//!   everything else, and a request that ends without its answer drops its stream.
//! - **Errors** name the redacted URL ([`redact_url`](super::redact_url)), the request's
//!   method, the HTTP status and the first 300 chars of the body; `401`/`403` are
//!   [`Error::HttpAuth`](crate::Error::HttpAuth).
//!
//! Files, each over the ones before it: [`headers`] (MCP's header names and values),
//! [`outgoing`] (a message as POSTed, the write loop's queue), [`state`] (the connection's
//! state), [`body`] and [`sse`] (reading responses), [`endpoint`] (the URL, the configured
//! headers and the requests built from them), [`exchange`] (one message's `POST` and its
//! answer, a new session after a `404`), [`server_stream`] (the `GET` stream), and this one
//! (the transport: its write loop and tasks).

mod body;
mod endpoint;
mod exchange;
mod headers;
mod outgoing;
mod server_stream;
mod sse;
mod state;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::{AbortHandle, JoinHandle, JoinSet};

use super::config::NOTIFICATION_TIMEOUT;
use super::inbox::Inbox;
use super::message::{Closed, Kind, Outgoing, lock};
pub(crate) use endpoint::Http;
pub(crate) use headers::header_annotation_problem;
use outgoing::{Post, Queue, Queued};

/// How long connect waits for the server to answer the `GET` of its stream of server
/// messages (after an `initialize` handshake); the stream opens later if it is slower.
const SERVER_STREAM_WAIT: Duration = Duration::from_secs(2);

/// The streamable HTTP transport of one session: the endpoint, the queue of its write loop,
/// and its tasks.
pub(crate) struct HttpTransport {
    http: Arc<Http>,
    queue: Queue,
    inbox: Arc<Inbox>,
    /// The write loop, and the stream of server messages once opened.
    tasks: Mutex<Vec<JoinHandle<()>>>,
}

impl HttpTransport {
    /// Starts the write loop on the current Tokio runtime; what the server sends goes to
    /// `inbox` (nothing is sent yet).
    pub(super) fn start(http: Http, inbox: Arc<Inbox>) -> Self {
        let http = Arc::new(http);
        let (queue, rx) = Queue::new();
        let writer = tokio::spawn(write_loop(
            Arc::clone(&http),
            rx,
            Arc::clone(&inbox),
            queue.clone(),
        ));
        Self {
            http,
            queue,
            inbox,
            tasks: Mutex::new(vec![writer]),
        }
    }

    /// Queues `message` for its `POST`; [`Closed`] once the write loop ended.
    pub(super) fn send(&self, message: Outgoing<'_>) -> Result<(), Closed> {
        self.queue.push(Queued::Post(self.http.prepare(message)))
    }

    /// Stops reading the response stream of request `id` (it ended without its answer).
    pub(super) fn abandon(&self, id: u64) {
        let _ = self.queue.push(Queued::Abandon(id));
    }

    /// Ends the write loop (the session closed).
    pub(super) fn close(&self) {
        let _ = self.queue.push(Queued::Close);
    }

    /// Closes `inbox` and the write loop (there is no process whose exit to wait for).
    pub(super) fn close_after_exit(
        &self,
        inbox: Arc<Inbox>,
    ) -> impl Future<Output = ()> + Send + 'static + use<> {
        let queue = self.queue.clone();
        async move {
            inbox.close();
            let _ = queue.push(Queued::Close);
        }
    }

    /// The lifecycle negotiated `version`: `MCP-Protocol-Version` from now on. After an
    /// `initialize` handshake (`handshake`), the stream of server messages opens when the
    /// server keeps a session; this waits (up to 2 s) for the server to answer its `GET`, so
    /// the stream is open before a request whose server requests would travel on it.
    pub(super) async fn established(&self, version: &str, handshake: bool) {
        self.http.set_protocol_version(version);
        if !handshake {
            return;
        }
        let (opened, answered) = tokio::sync::oneshot::channel();
        let task = tokio::spawn(Arc::clone(&self.http).server_stream(
            Arc::clone(&self.inbox),
            self.queue.clone(),
            opened,
        ));
        lock(&self.tasks).push(task);
        let _ = tokio::time::timeout(SERVER_STREAM_WAIT, answered).await;
    }

    /// Learns the `x-mcp-header` annotations of the listed tools (MCP 2026-07-28, "Standard
    /// headers"): top-level properties of `inputSchema` whose `x-mcp-header` is a non-empty
    /// string.
    pub(super) fn learn_tools(&self, tools: &[Value]) {
        self.http.learn_tools(tools);
    }

    /// Ends the session with `DELETE` (MCP 2025-03-26, "Session Management"), when there is
    /// one; bounded by 2 s; `405` (the server does not let clients end sessions) is fine.
    pub(super) async fn end_session(&self) {
        self.http.end_session().await;
    }

    /// [`HttpTransport::end_session`] in a task of its own, when a Tokio runtime is there to
    /// run it (a client dropped without disconnecting).
    pub(super) fn end_session_in_background(&self) {
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let http = Arc::clone(&self.http);
            runtime.spawn(async move { http.end_session().await });
        }
    }

    /// Stops the write loop and the stream of server messages (and so every `POST` in flight).
    pub(super) fn abort(&self) {
        for task in std::mem::take(&mut *lock(&self.tasks)) {
            task.abort();
        }
    }
}

/// Sends each queued message as a `POST` until the session closes: each request in a task of
/// its own (abandoned requests are aborted); `notifications/initialized` in order, before
/// the requests queued after it (bounded by the request timeout, so a server that never
/// answers cannot stall them); every other notification and response in a task of its own,
/// bounded by [`NOTIFICATION_TIMEOUT`]. Answers to the server's requests found in responses
/// are queued again through `queue`.
async fn write_loop(
    http: Arc<Http>,
    mut rx: mpsc::UnboundedReceiver<Queued>,
    inbox: Arc<Inbox>,
    queue: Queue,
) {
    let mut requests: HashMap<u64, AbortHandle> = HashMap::new();
    let mut notices = JoinSet::new();
    while let Some(queued) = rx.recv().await {
        match queued {
            Queued::Post(post) => match post.kind {
                Kind::Request(id) => {
                    let task = tokio::spawn(post_one(&http, &inbox, &queue, post));
                    if requests.len() >= 64 {
                        requests.retain(|_, task| !task.is_finished());
                    }
                    requests.insert(id, task.abort_handle());
                }
                Kind::Notification if post.method == "notifications/initialized" => {
                    let sent = post_one(&http, &inbox, &queue, post);
                    bounded(
                        sent,
                        &http.label,
                        "`notifications/initialized`",
                        http.request_timeout,
                    )
                    .await;
                }
                Kind::Notification | Kind::Response => {
                    let what = if post.kind == Kind::Response {
                        "a response".to_owned()
                    } else {
                        format!("`{}`", post.method)
                    };
                    let sent = post_one(&http, &inbox, &queue, post);
                    let label = http.label.clone();
                    notices.spawn(async move {
                        bounded(sent, &label, &what, NOTIFICATION_TIMEOUT).await;
                    });
                }
            },
            Queued::Abandon(id) => {
                if let Some(task) = requests.remove(&id) {
                    task.abort();
                }
            }
            Queued::Close => break,
        }
        while notices.try_join_next().is_some() {}
    }
    for (_, task) in requests {
        task.abort();
    }
    // Notifications already sent finish (each bounded), unless the transport is stopped.
    while notices.join_next().await.is_some() {}
}

/// The `POST` of `post` (see [`Http::post`]).
fn post_one(
    http: &Arc<Http>,
    inbox: &Arc<Inbox>,
    queue: &Queue,
    post: Post,
) -> impl Future<Output = ()> + Send + 'static {
    Arc::clone(http).post(Arc::clone(inbox), queue.clone(), post)
}

/// Runs `sent` for at most `limit`; past it, warns that the server did not accept `what`.
async fn bounded(sent: impl Future<Output = ()>, server: &str, what: &str, limit: Duration) {
    if tokio::time::timeout(limit, sent).await.is_err() {
        tracing::warn!(
            %server,
            "the MCP server did not accept {what} within {limit:?}"
        );
    }
}
