//! The streamable HTTP transport (MCP 2025-03-26 and later, "Transports" → "Streamable
//! HTTP"; cargo feature `http`): a `POST` per message, a JSON or SSE answer routed into the
//! session's [`Inbox`] raw, `Mcp-Session-Id` with one new session after a `404`, the
//! `MCP-Protocol-Version` and 2026-07-28 standard headers, the `GET` stream of server
//! messages, `Last-Event-ID` resumption and `DELETE` at the end. The user-facing rules and
//! limits are in the [`connect`](crate::connect) docs, "Streamable HTTP".
//!
//! This file is the transport: its write loop sends each request's `POST` in a task of its
//! own, and each notification's or response's too, bounded by [`NOTIFICATION_TIMEOUT`];
//! only `notifications/initialized` goes before the requests queued after it. Below it, each
//! file over the ones before: [`headers`] (MCP's header names and values), [`outgoing`] (a
//! message as POSTed, the write loop's queue), [`state`] (the connection's state machine),
//! [`body`] and [`sse`] (reading responses), [`endpoint`] (the URL, the configured headers
//! and the requests built from them), [`exchange`] (one message's `POST` and its answer, a
//! new session after a `404`) and [`server_stream`] (the `GET` stream).

mod body;
mod endpoint;
mod exchange;
mod headers;
mod outgoing;
mod refused;
mod server_stream;
pub(crate) mod sse;
mod state;
#[cfg(test)]
mod tests;
pub(crate) mod tls;

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

    /// The lifecycle negotiated `version`: `MCP-Protocol-Version` on every later request.
    pub(super) fn negotiated(&self, version: &str) {
        self.http.set_protocol_version(version);
    }

    /// The lifecycle is through. After an `initialize` handshake (`handshake`), the stream of
    /// server messages opens when the server keeps a session; this waits (up to 2 s) for the
    /// server to answer its `GET`, so the stream is open before a request whose server
    /// requests would travel on it.
    pub(super) async fn established(&self, handshake: bool) {
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

    /// Every credential the endpoint has sent (`bearer-env` and `header-env` values, each
    /// access token).
    pub(super) fn sent_credentials(&self) -> Vec<String> {
        self.http.sent_credentials()
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
