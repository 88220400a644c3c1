//! The session layer, the same over every transport: JSON-RPC ids, the pending requests and
//! their timeouts, cancellation (`notifications/cancelled`), progress tokens, and the
//! server's requests and notifications (routed by the [`Inbox`]). A session owns its
//! [`Transport`], which only moves messages.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::process::{ChildStderr, ChildStdin, ChildStdout};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::config::Elicitation;
use super::framing;
use super::inbox::{Inbox, Wire};
use super::message::{Outgoing, Params, Reply};
use super::stdio::Stdio;
use super::transport::Transport;
use super::watchers::ResourceFilter;
#[cfg(doc)]
use crate::error::ConnectError;
use crate::error::{DisconnectedError, Error, RequestError};

/// The `reason` of the `notifications/cancelled` sent when a caller cancels a request: what
/// the TypeScript SDK sends for `AbortController.abort()` without a reason
/// (`String(signal.reason)` of a `DOMException` `AbortError`).
pub(crate) const ABORT_REASON: &str = "AbortError: This operation was aborted";

/// The `reason` of the `notifications/cancelled` sent when a request times out: what the
/// TypeScript SDK (1.32, `Protocol.request`'s timeout handler) sends, `String()` of its
/// `McpError(-32001, "Request timed out")`.
pub(crate) const TIMEOUT_REASON: &str = "McpError: MCP error -32001: Request timed out";

/// What bounds one request's wait.
#[derive(Debug, Clone, Copy)]
enum Bound {
    /// The session's request timeout, or what is left of the connect deadline.
    Session(Duration),
    /// The caller's own timeout for this request.
    PerCall(Duration),
    /// No bound: a request that stays open until it is answered, cancelled or dropped
    /// (`subscriptions/listen`).
    Open,
}

/// A running session. Dropping it stops its transport's tasks.
pub(crate) struct Session {
    inbox: Arc<Inbox>,
    transport: Transport,
    next_id: AtomicU64,
    next_progress_token: AtomicU64,
    timeout: Duration,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Session")
    }
}

impl Session {
    /// A session over a child's pipes (see [`Stdio`]), its tasks started on the current Tokio
    /// runtime. `timeout`: the request timeout; `command_line`: the server as messages name
    /// it.
    pub(crate) fn stdio(
        stdin: ChildStdin,
        stdout: ChildStdout,
        stderr: ChildStderr,
        timeout: Duration,
        max_message_size: usize,
        command_line: String,
        elicitation: Option<Elicitation>,
    ) -> Self {
        let inbox = Inbox::new(max_message_size, command_line, elicitation, Wire::Stdout);
        let stdio = Stdio::start(stdin, stdout, stderr, Arc::clone(&inbox));
        Self::new(inbox, Transport::Stdio(stdio), timeout)
    }

    /// A session over streamable HTTP (see [`super::http`]): nothing is sent yet.
    #[cfg(feature = "http-no-provider")]
    pub(crate) fn http(
        http: super::http::Http,
        timeout: Duration,
        max_message_size: usize,
        elicitation: Option<Elicitation>,
    ) -> Self {
        let label = http.label().to_owned();
        let inbox = Inbox::new(max_message_size, label, elicitation, Wire::Http);
        let transport = super::http::HttpTransport::start(http, Arc::clone(&inbox));
        Self::new(inbox, Transport::Http(transport), timeout)
    }

    fn new(inbox: Arc<Inbox>, transport: Transport, timeout: Duration) -> Self {
        Self {
            inbox,
            transport,
            next_id: AtomicU64::new(0),
            next_progress_token: AtomicU64::new(1),
            timeout,
        }
    }

    /// The transport, for what the client tells it beyond messages (the negotiated version,
    /// the tools listed, the end of the session).
    pub(crate) fn transport(&self) -> &Transport {
        &self.transport
    }

    /// Sends a request and waits for its result, at most the request timeout.
    ///
    /// # Errors
    /// [`DisconnectedError::NotConnected`] when the session is closed;
    /// [`DisconnectedError::ConnectionClosed`] when it closes while waiting; [`RequestError::Rpc`]
    /// for a JSON-RPC error; [`RequestError::Timeout`] (after sending `notifications/cancelled`);
    /// [`RequestError::MessageTooLarge`].
    pub(crate) async fn request(&self, method: &str, params: Value) -> Reply {
        self.send_and_wait(method, &params, None, Bound::Session(self.timeout), true)
            .await
    }

    /// As [`Session::request`], also ending when `cancel` is cancelled (open-multi-agent's abort
    /// signal, as the TypeScript SDK's `RequestOptions.signal`): a token cancelled before the
    /// call sends nothing; one cancelled while waiting sends `notifications/cancelled` with the
    /// request id and the reason [`ABORT_REASON`]. An answer that is already there wins over
    /// a cancellation.
    ///
    /// `params`: anything that serializes to the request's `params` (serialized straight into
    /// the request line, without a `Value` in between) and says what a transport needs of it
    /// ([`Params`]). `timeout`: this request's own bound instead of the request timeout
    /// (a call's [`ToolCall::timeout`](crate::ToolCall::timeout)); when it elapses, the
    /// [`Error::Timeout`] says so (`per_call: true`) and names it. A zero one fails without
    /// sending anything.
    ///
    /// # Errors
    /// As [`Session::request`], plus [`RequestError::Cancelled`].
    pub(crate) async fn request_cancellable<P: Params + ?Sized>(
        &self,
        method: &str,
        params: &P,
        cancel: Option<&CancellationToken>,
        timeout: Option<Duration>,
    ) -> Reply {
        let bound = timeout.map_or(Bound::Session(self.timeout), Bound::PerCall);
        self.send_and_wait(method, params, cancel, bound, true)
            .await
    }

    /// As [`Session::request`], bounded by `timeout` instead of the request timeout (the rest
    /// of the connect deadline for `initialize`). A zero `timeout` fails with
    /// [`RequestError::Timeout`] without sending anything.
    ///
    /// # Errors
    /// As [`Session::request`].
    pub(crate) async fn request_within(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Reply {
        self.send_and_wait(method, &params, None, Bound::Session(timeout), true)
            .await
    }

    /// A probe: as [`Session::request`], bounded by `timeout` instead of the request timeout,
    /// and abandoned silently when it elapses (no `notifications/cancelled`: the
    /// `server/discover` probe of a server that may not be initialized yet, as rmcp does).
    ///
    /// # Errors
    /// As [`Session::request`].
    pub(crate) async fn probe(&self, method: &str, params: Value, timeout: Duration) -> Reply {
        self.send_and_wait(method, &params, None, Bound::Session(timeout), false)
            .await
    }

    /// A fresh request id, for a request whose id its caller must know before the answer
    /// ([`Session::request_open`]).
    pub(crate) fn next_request_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    /// Sends a request with the id `id` (from [`Session::next_request_id`]) that stays open
    /// without a time bound until the server answers it or the connection closes:
    /// `subscriptions/listen` (MCP 2026-07-28), whose notifications arrive while it is open.
    /// Dropping the future cancels it with `notifications/cancelled`, which is how a listen
    /// ends.
    ///
    /// # Errors
    /// As [`Session::request`], without [`RequestError::Timeout`].
    pub(crate) async fn request_open<P: Params + ?Sized>(
        &self,
        method: &str,
        params: &P,
        id: u64,
    ) -> Reply {
        self.send_and_wait_as(Some(id), method, params, None, Bound::Open, true)
            .await
    }

    /// The request path: `bound` bounds the wait; `notify_cancel` says whether a request
    /// that ends without its answer is announced with `notifications/cancelled`.
    async fn send_and_wait<P: Params + ?Sized>(
        &self,
        method: &str,
        params: &P,
        cancel: Option<&CancellationToken>,
        bound: Bound,
        notify_cancel: bool,
    ) -> Reply {
        self.send_and_wait_as(None, method, params, cancel, bound, notify_cancel)
            .await
    }

    /// [`Session::send_and_wait`] with the request id `id` when given, else a fresh one.
    async fn send_and_wait_as<P: Params + ?Sized>(
        &self,
        id: Option<u64>,
        method: &str,
        params: &P,
        cancel: Option<&CancellationToken>,
        bound: Bound,
        notify_cancel: bool,
    ) -> Reply {
        let cancelled_error = || {
            Error::Request(RequestError::Cancelled {
                method: method.to_owned(),
            })
        };
        let (timeout, per_call) = match bound {
            Bound::Session(timeout) => (timeout, false),
            Bound::PerCall(timeout) => (timeout, true),
            Bound::Open => (Duration::MAX, false),
        };
        if cancel.is_some_and(CancellationToken::is_cancelled) {
            return Err(cancelled_error());
        }
        if timeout.is_zero() {
            // Nothing left of the deadline: sending would only make the server do useless work.
            return Err(Error::Request(RequestError::Timeout {
                method: method.to_owned(),
                timeout,
                per_call,
            }));
        }
        let id = id.unwrap_or_else(|| self.next_id.fetch_add(1, Ordering::Relaxed));
        let line = framing::request_line(id, method, params)?;
        let (tx, rx) = oneshot::channel();
        if self.inbox.register(id, tx).is_err() {
            return Err(Error::Disconnected(DisconnectedError::NotConnected));
        }
        let mut guard = PendingGuard {
            session: self,
            id,
            armed: true,
            notify: notify_cancel,
        };
        // `None`: no deadline (an open request, or one too far ahead to represent).
        let deadline = tokio::time::Instant::now().checked_add(timeout);
        let message = Outgoing::request(id, method, params, line);
        if self.transport.send(message).is_err() {
            guard.disarm();
            return Err(Error::Disconnected(DisconnectedError::NotConnected));
        }
        tracing::debug!(id, method, "request sent");
        // A failed write, like a closed connection, fails the pending entry (the transport,
        // `Inbox::close`), so the answer's channel is all there is to wait for.
        let outcome = async {
            rx.await.unwrap_or(Err(Error::Disconnected(
                DisconnectedError::ConnectionClosed,
            )))
        };
        let cancelled = async {
            match cancel {
                Some(token) => token.cancelled().await,
                None => std::future::pending().await,
            }
        };
        let timed = async {
            match deadline {
                Some(deadline) => tokio::time::timeout_at(deadline, outcome).await.ok(),
                None => Some(outcome.await),
            }
        };
        tokio::select! {
            biased;
            timed = timed => match timed {
                Some(reply) => {
                    guard.disarm();
                    reply
                }
                None => {
                    guard.cancel(TIMEOUT_REASON);
                    Err(Error::Request(RequestError::Timeout {
                        method: method.to_owned(),
                        timeout,
                        per_call,
                    }))
                }
            },
            () = cancelled => {
                tracing::debug!(id, method, "request cancelled by the caller");
                guard.cancel(ABORT_REASON);
                Err(cancelled_error())
            }
        }
    }

    /// Sends a request whose answer nobody waits for (a task's `tasks/cancel` when the call
    /// that drove it ends): its id is not registered, so the answer is dropped at debug
    /// level as one to no pending request. Errors (a closed session, a line that cannot be
    /// serialized) are ignored: the request is a courtesy to a server that may be gone.
    pub(crate) fn request_unanswered(&self, method: &str, params: &Value) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        if let Ok(line) = framing::request_line(id, method, params) {
            let _ = self
                .transport
                .send(Outgoing::request(id, method, params, line));
        }
    }

    /// The request timeout ([`ConnectConfig::request_timeout`](crate::ConnectConfig)).
    pub(crate) fn request_timeout(&self) -> Duration {
        self.timeout
    }

    /// Sends a notification; errors (a closed session) are ignored as the server is gone.
    pub(crate) fn notify(&self, method: &str, params: Option<Value>) {
        let line = framing::notification_line(method, params.as_ref());
        let _ = self
            .transport
            .send(Outgoing::notification(method, params.as_ref(), line));
    }

    /// Marks the session closed (later requests fail with [`DisconnectedError::NotConnected`],
    /// pending ones with [`DisconnectedError::ConnectionClosed`]) and closes the transport after
    /// queued messages (a stdio server's stdin, so it sees EOF).
    pub(crate) fn close(&self) {
        self.inbox.close_by_client();
        self.transport.close();
    }

    /// What the server-exit watcher runs once the server process has exited (and the rest of
    /// its process group was killed): waits up to `drain` for the reader to reach EOF, so the
    /// answers the server wrote before exiting are still delivered, then closes the session
    /// as [`Session::close`] does: pending requests fail with
    /// [`DisconnectedError::ConnectionClosed`], later ones with
    /// [`DisconnectedError::NotConnected`]. `drain` only matters when something outside the process
    /// group still holds the server's stdout open.
    pub(crate) fn close_after_exit(
        &self,
        drain: Duration,
    ) -> impl Future<Output = ()> + Send + 'static + use<> {
        self.transport
            .close_after_exit(Arc::clone(&self.inbox), drain)
    }

    /// A new progress token and the receiver of the `params` of every
    /// `notifications/progress` that names it, until the returned [`ProgressToken`] is
    /// dropped.
    pub(crate) fn progress(&self) -> (ProgressToken, mpsc::UnboundedReceiver<Value>) {
        let token = self.next_progress_token.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::unbounded_channel();
        self.inbox.watch_progress(token, tx);
        (
            ProgressToken {
                inbox: Arc::clone(&self.inbox),
                token,
            },
            rx,
        )
    }

    /// A new key and the receiver of the resource notifications `filter` wants
    /// (`notifications/resources/updated`, `notifications/subscriptions/acknowledged`, each as
    /// `{"method": …, "params": …}`), until the returned [`ResourceWatch`] is dropped or the
    /// connection closes (then the receiver ends).
    pub(crate) fn watch_resources(
        &self,
        filter: ResourceFilter,
    ) -> (ResourceWatch, mpsc::UnboundedReceiver<Value>) {
        let key = self.next_progress_token.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::unbounded_channel();
        self.inbox.watch_resources(key, filter, tx);
        (
            ResourceWatch {
                inbox: Arc::clone(&self.inbox),
                key,
            },
            rx,
        )
    }

    /// Counts one more subscription holding `uri` through `resources/subscribe`; `true` when
    /// it is the first.
    pub(crate) fn hold_resource(&self, uri: &str) -> bool {
        self.inbox.watchers.hold(uri)
    }

    /// Counts one subscription fewer holding `uri`; `true` when it was the last.
    pub(crate) fn release_resource(&self, uri: &str) -> bool {
        self.inbox.watchers.release(uri)
    }

    /// How many requests wait for their answer now (see
    /// [`McpClient::pending_requests`](crate::McpClient::pending_requests)).
    pub(crate) fn pending_requests(&self) -> usize {
        self.inbox.pending_count()
    }

    /// How many `notifications/tools/list_changed` the server sent so far (see
    /// [`Inbox::tools_list_changes`]).
    #[cfg_attr(not(feature = "drift"), allow(dead_code))]
    pub(crate) fn tools_list_changes(&self) -> u64 {
        self.inbox.tools_list_changes()
    }

    /// Whether [`Session::close`] ran: the client, not the server, ended the session.
    pub(crate) fn closed_by_client(&self) -> bool {
        self.inbox.closed_by_client()
    }

    /// Waits up to `bound` for the server's stderr to reach its end (after the server
    /// exited), so [`Session::stderr_tail`] holds its last lines.
    pub(crate) async fn stderr_drained(&self, bound: Duration) {
        self.transport.stderr_drained(bound).await;
    }

    /// Stops the transport's tasks (a stdio server's stdin is closed now, also when lines are
    /// still queued), giving a stdio server's stderr up to `bound` to drain what the (now
    /// dead) server wrote.
    pub(crate) async fn stop_tasks(&self, bound: Duration) {
        self.transport.stop(bound).await;
    }

    /// The server's stderr lines that matter, formatted for [`ConnectError::Handshake`] and
    /// [`DisconnectedError::ServerExited`]: `"; server stderr: a | b"`, or a bounded selection of
    /// the first lines, the error-looking lines and the last lines (see
    /// [`StderrLines::render`](super::stderr::StderrLines::render)); empty when the server
    /// wrote nothing, and over HTTP.
    pub(crate) fn stderr_tail(&self) -> String {
        self.transport.stderr_tail()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.inbox.close();
        self.transport.abort();
    }
}

/// A registered progress token (see [`Session::progress`]); unregistered when dropped.
pub(crate) struct ProgressToken {
    inbox: Arc<Inbox>,
    token: u64,
}

impl ProgressToken {
    /// The token, as sent in `_meta.progressToken`.
    pub(crate) fn value(&self) -> u64 {
        self.token
    }
}

impl Drop for ProgressToken {
    fn drop(&mut self) {
        self.inbox.unwatch_progress(self.token);
    }
}

/// A registered watcher of resource notifications (see [`Session::watch_resources`]);
/// unregistered when dropped.
pub(crate) struct ResourceWatch {
    inbox: Arc<Inbox>,
    key: u64,
}

impl Drop for ResourceWatch {
    fn drop(&mut self) {
        self.inbox.watchers.unwatch(self.key);
    }
}

/// Removes a pending request when its future ends without an answer (timeout or dropped by
/// the caller) and, when `notify`, tells the server with `notifications/cancelled`.
struct PendingGuard<'a> {
    session: &'a Session,
    id: u64,
    armed: bool,
    notify: bool,
}

impl PendingGuard<'_> {
    fn disarm(&mut self) {
        if self.armed {
            self.armed = false;
            self.session.inbox.remove(self.id);
        }
    }

    fn cancel(&mut self, reason: &str) {
        if !self.armed {
            return;
        }
        self.armed = false;
        let was_pending = self.session.inbox.remove(self.id);
        if was_pending {
            self.session.transport.abandon(self.id);
        }
        if was_pending && self.notify {
            self.session.notify(
                "notifications/cancelled",
                Some(json!({ "requestId": self.id, "reason": reason })),
            );
        }
    }
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        self.cancel("The request was dropped by the client");
    }
}

#[cfg(test)]
mod tests {
    /// The writer fails a request whose line cannot be written (the server closed its stdin
    /// but lives on) at once, not after the request timeout.
    #[cfg(unix)]
    #[tokio::test]
    async fn a_failed_write_fails_the_request_at_once() {
        use std::process::Stdio;
        use tokio::io::AsyncReadExt;

        let mut child = tokio::process::Command::new("sh")
            .args(["-c", "exec 0<&-; echo closed; sleep 30"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let stderr = child.stderr.take().unwrap();
        let mut marker = [0u8; 7];
        stdout.read_exact(&mut marker).await.unwrap();
        assert_eq!(&marker, b"closed\n");
        let session = super::Session::stdio(
            stdin,
            stdout,
            stderr,
            std::time::Duration::from_secs(60),
            1024,
            "sh".to_owned(),
            None,
        );
        let started = std::time::Instant::now();
        let reply = session.request("tools/list", serde_json::json!({})).await;
        assert!(
            matches!(
                reply,
                Err(crate::Error::Disconnected(
                    crate::error::DisconnectedError::ConnectionClosed
                ))
            ),
            "{reply:?}"
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
    }
}
