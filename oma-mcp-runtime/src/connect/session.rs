//! One JSON-RPC session over a child's pipes: callers write their lines to stdin themselves
//! while the pipe takes them (a writer task takes over when it is full), a reader task routes
//! stdout lines to pending requests by `id`, and a task draining stderr into `tracing`
//! (target `oma_mcp::server_stderr`) so a chatty server never blocks.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use serde::Serialize;
use serde_json::{Value, json};
use tokio::io::{AsyncWrite, BufReader};
use tokio::process::{ChildStderr, ChildStdin, ChildStdout};
use tokio::sync::{Notify, mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::MAX_STDIN_BACKLOG;
use super::framing::{self, Incoming, LineRead};
use super::stderr::{self, StderrLines};
use crate::Error;
use crate::text::cut;

/// The longest stderr line logged whole; longer ones are logged as their length only.
const STDERR_MAX_LINE: usize = 64 * 1024;

/// The `reason` of the `notifications/cancelled` sent when a caller cancels a request: what
/// the TypeScript SDK sends for `AbortController.abort()` without a reason
/// (`String(signal.reason)` of a `DOMException` `AbortError`).
pub(crate) const ABORT_REASON: &str = "AbortError: This operation was aborted";

/// The `reason` of the `notifications/cancelled` sent when a request times out: what the
/// TypeScript SDK (1.32, `Protocol.request`'s timeout handler) sends, `String()` of its
/// `McpError(-32001, "Request timed out")`.
pub(crate) const TIMEOUT_REASON: &str = "McpError: MCP error -32001: Request timed out";

/// The largest queue buffer capacity the stdin writer keeps once its lines are written
/// (64 KiB, a pipe's default capacity); a buffer that grew past it is freed.
const RETAINED_QUEUE_CAPACITY: usize = 64 * 1024;

/// What is sent to the server: over stdio written to its stdin ([`Out::Pipe`]), over HTTP
/// handed to the transport's task ([`Out::Channel`]).
pub(super) enum Outgoing {
    /// One line; for a request, its id: when the line cannot be written, the writer fails that
    /// pending request with [`Error::ConnectionClosed`]. (A request thus waits for its answer
    /// only, not for a write acknowledgement too: one task wake-up less per call.)
    Line(Vec<u8>, Option<u64>),
    /// The request with this id ended without its answer (timeout, cancellation, dropped):
    /// the HTTP transport stops reading its response stream; stdio ignores it.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    Abandon(u64),
    /// Close stdin (the server sees EOF) and stop.
    Close,
}

pub(super) type Reply = Result<Value, Error>;

/// Where [`Outgoing`] messages go.
#[derive(Clone)]
pub(super) enum Out {
    /// The HTTP transport's task ([`super::http`]).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    Channel(mpsc::UnboundedSender<Outgoing>),
    /// A stdio server's stdin.
    Pipe(Arc<Pipe>),
}

/// The session no longer sends anything (closed, or its transport task ended).
#[derive(Debug)]
pub(super) struct Closed;

impl Out {
    /// Sends (or queues) `message`; [`Closed`] when the session no longer sends.
    pub(super) fn send(&self, message: Outgoing) -> Result<(), Closed> {
        match self {
            Self::Channel(tx) => tx.send(message).map_err(|_| Closed),
            Self::Pipe(pipe) => pipe.send(message),
        }
    }
}

/// A stdio server's stdin, written by the callers themselves: a line goes into the pipe at
/// once from the task that sends it (no hand-off to another task, one wake-up less per
/// call). Only when the pipe is full (the server does not read) is the rest queued for the
/// writer task ([`write_loop`]), which writes it as the pipe drains; until the queue is
/// empty, later lines join the queue, so lines always reach the server in the order sent.
pub(super) struct Pipe {
    state: Mutex<PipeState>,
    /// Wakes the writer task when a queue is handed over (or stdin is to be closed).
    wake: Notify,
    shared: Arc<Shared>,
}

struct PipeState {
    /// `None` once closed (the server has seen EOF).
    stdin: Option<ChildStdin>,
    /// Bytes not written yet; only while `handed_over`.
    queue: Vec<u8>,
    /// How much of `queue` is written.
    written: usize,
    /// The requests whose lines are (partly) in `queue`: failed when it cannot be written.
    ids: Vec<u64>,
    /// The writer task owns the writing until `queue` is empty.
    handed_over: bool,
    /// [`Outgoing::Close`] was sent: stdin closes once `queue` is written.
    closing: bool,
}

impl Pipe {
    fn new(stdin: ChildStdin, shared: Arc<Shared>) -> Arc<Self> {
        Arc::new(Self {
            state: Mutex::new(PipeState {
                stdin: Some(stdin),
                queue: Vec::new(),
                written: 0,
                ids: Vec::new(),
                handed_over: false,
                closing: false,
            }),
            wake: Notify::new(),
            shared,
        })
    }

    fn send(&self, message: Outgoing) -> Result<(), Closed> {
        match message {
            Outgoing::Line(bytes, id) => self.send_line(bytes, id),
            Outgoing::Abandon(_) => Ok(()),
            Outgoing::Close => {
                let mut st = lock(&self.state);
                if st.closing {
                    return Err(Closed);
                }
                st.closing = true;
                if !st.handed_over {
                    st.stdin = None;
                }
                drop(st);
                // The writer task ends (after the queue, when there is one).
                self.wake.notify_one();
                Ok(())
            }
        }
    }

    fn send_line(&self, bytes: Vec<u8>, id: Option<u64>) -> Result<(), Closed> {
        let mut st = lock(&self.state);
        if st.closing {
            return Err(Closed);
        }
        if st.handed_over {
            let waiting = st.queue.len() - st.written;
            if waiting + bytes.len() > MAX_STDIN_BACKLOG {
                drop(st);
                self.refuse(id, waiting);
                return Ok(());
            }
            // The written part is dropped once it is at least half of the buffer, so a server
            // that reads slowly but never catches up does not grow it past twice the backlog.
            if st.written >= st.queue.len() / 2 {
                let written = st.written;
                st.queue.drain(..written);
                st.written = 0;
            }
            st.queue.extend_from_slice(&bytes);
            st.ids.extend(id);
            return Ok(());
        }
        let Some(stdin) = st.stdin.as_mut() else {
            return Err(Closed);
        };
        // A poll without a waker: when the pipe is full it registers none that matters, and
        // the writer task then polls with its own (nothing else polls stdin meanwhile).
        let mut cx = Context::from_waker(Waker::noop());
        let mut written = 0;
        while written < bytes.len() {
            match poll_write(stdin, &mut cx, &bytes[written..]) {
                Poll::Ready(Ok(n)) => written += n,
                Poll::Ready(Err(e)) => {
                    drop(st);
                    tracing::debug!("cannot write to the MCP server's stdin: {e}");
                    self.shared.fail_all(id.as_slice());
                    return Ok(());
                }
                Poll::Pending => {
                    st.queue.extend_from_slice(&bytes[written..]);
                    st.ids.extend(id);
                    st.handed_over = true;
                    drop(st);
                    self.wake.notify_one();
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// A line that would pass [`MAX_STDIN_BACKLOG`] while `waiting` bytes wait: fails its
    /// request, or is dropped when it is not one.
    fn refuse(&self, id: Option<u64>, waiting: usize) {
        let command = &self.shared.command_line;
        match id {
            Some(id) => self.shared.fail(
                id,
                Error::ServerNotReading {
                    command: command.clone(),
                    waiting,
                    limit: MAX_STDIN_BACKLOG,
                },
            ),
            None => tracing::warn!(
                "the MCP server `{command}` does not read its stdin ({waiting} bytes wait): a \
                 message to it is dropped"
            ),
        }
    }

    /// The writer task's step: writes the queue as far as the pipe takes it. `Ready(true)`
    /// once stdin is closed (the task ends), `Ready(false)` once the queue is written.
    fn poll_queue(&self, cx: &mut Context<'_>) -> Poll<bool> {
        let mut st = lock(&self.state);
        let st = &mut *st;
        while st.written < st.queue.len() {
            let Some(stdin) = st.stdin.as_mut() else {
                break;
            };
            match poll_write(stdin, cx, &st.queue[st.written..]) {
                Poll::Ready(Ok(n)) => st.written += n,
                Poll::Ready(Err(e)) => {
                    tracing::debug!("cannot write to the MCP server's stdin: {e}");
                    self.shared.fail_all(&st.ids);
                    break;
                }
                Poll::Pending => return Poll::Pending,
            }
        }
        st.queue.clear();
        if st.queue.capacity() > RETAINED_QUEUE_CAPACITY {
            st.queue = Vec::new();
        }
        st.written = 0;
        st.ids.clear();
        st.handed_over = false;
        if st.closing {
            st.stdin = None;
        }
        Poll::Ready(st.stdin.is_none())
    }

    /// Closes stdin at once, whatever is queued (the session's tasks are stopping).
    fn shut(&self) {
        let mut st = lock(&self.state);
        st.closing = true;
        st.stdin = None;
    }
}

/// One non-blocking write attempt; a write of zero bytes is an error (as in `write_all`).
fn poll_write(
    stdin: &mut ChildStdin,
    cx: &mut Context<'_>,
    buf: &[u8],
) -> Poll<std::io::Result<usize>> {
    loop {
        return match Pin::new(&mut *stdin).poll_write(cx, buf) {
            Poll::Ready(Ok(0)) => Poll::Ready(Err(std::io::ErrorKind::WriteZero.into())),
            Poll::Ready(Err(e)) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            other => other,
        };
    }
}

/// Pending requests, and whether the connection is still open.
#[derive(Default)]
struct State {
    pending: HashMap<u64, oneshot::Sender<Reply>>,
    closed: bool,
}

/// State shared with the tasks.
pub(super) struct Shared {
    state: Mutex<State>,
    stderr_lines: Mutex<StderrLines>,
    /// Set by [`Session::close`]: the client is stopping the server, so what it writes on
    /// stdout while it shuts down (an npm wrapper's goodbye) is no longer worth a warning.
    closing: AtomicBool,
    pub(super) max_message_size: usize,
    /// The server as messages name it: its command line, or its redacted URL.
    pub(super) command_line: String,
    /// Cancelled when the reader task ends (EOF, a read error, or aborted).
    reader_done: CancellationToken,
    /// Cancelled when the stderr task ends (EOF, a read error, or aborted).
    stderr_done: CancellationToken,
    /// The `params` of `notifications/progress` go to the call whose `progressToken` they
    /// name (see [`Session::progress`]).
    progress: Mutex<HashMap<u64, mpsc::UnboundedSender<Value>>>,
    /// Answers `elicitation/create` ([`ConnectConfig::elicitation`](super::ConnectConfig)).
    elicitation: Option<super::Elicitation>,
    /// Whether messages arrive in HTTP responses (else as lines on the server's stdout), for
    /// the words of the logs that skip one.
    over_http: bool,
}

impl Shared {
    fn new(
        max_message_size: usize,
        command_line: String,
        elicitation: Option<super::Elicitation>,
        over_http: bool,
    ) -> Arc<Self> {
        Arc::new(Shared {
            state: Mutex::new(State::default()),
            stderr_lines: Mutex::new(StderrLines::default()),
            closing: AtomicBool::new(false),
            max_message_size,
            command_line,
            reader_done: CancellationToken::new(),
            stderr_done: CancellationToken::new(),
            progress: Mutex::new(HashMap::new()),
            elicitation,
            over_http,
        })
    }
}

/// Locks ignoring poisoning (the data stays consistent: every critical section is a few map
/// operations that do not panic).
pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    /// Fails the pending request `id` with `error` (nothing when it is no longer pending).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(super) fn fail(&self, id: u64, error: Error) {
        let tx = lock(&self.state).pending.remove(&id);
        if let Some(tx) = tx {
            let _ = tx.send(Err(error));
        }
    }

    /// Whether the request `id` still waits for its answer.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(super) fn is_pending(&self, id: u64) -> bool {
        lock(&self.state).pending.contains_key(&id)
    }

    /// Fails the pending requests `ids` with [`Error::ConnectionClosed`] (their lines could
    /// not be written).
    fn fail_all(&self, ids: &[u64]) {
        let failed: Vec<_> = {
            let mut st = lock(&self.state);
            ids.iter().filter_map(|id| st.pending.remove(id)).collect()
        };
        for tx in failed {
            let _ = tx.send(Err(Error::ConnectionClosed));
        }
    }

    /// Whether the session is closed (by the client or because the connection ended).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(super) fn is_closed(&self) -> bool {
        lock(&self.state).closed
    }

    /// Handles one received message (a stdout line, an HTTP body or an SSE event's data):
    /// skips byte-order marks and blank input, then routes it (see [`dispatch`]).
    pub(super) fn receive(&self, message: &[u8], out: &Out) {
        let message = without_bom(message, &self.command_line);
        if !message.iter().all(u8::is_ascii_whitespace) {
            dispatch(framing::classify(message), message, self, out);
        }
    }

    /// Marks the connection closed and fails every pending request with
    /// [`Error::ConnectionClosed`].
    pub(super) fn close(&self) {
        let pending = {
            let mut st = lock(&self.state);
            st.closed = true;
            std::mem::take(&mut st.pending)
        };
        for (_, tx) in pending {
            let _ = tx.send(Err(Error::ConnectionClosed));
        }
    }
}

/// A running session. Dropping it aborts its tasks.
pub(crate) struct Session {
    shared: Arc<Shared>,
    out: Out,
    next_id: AtomicU64,
    next_progress_token: AtomicU64,
    timeout: Duration,
    io_tasks: Mutex<Vec<JoinHandle<()>>>,
    stderr_task: Mutex<Option<JoinHandle<()>>>,
}

impl Session {
    /// Starts the reader, writer and stderr tasks of a child's pipes on the current Tokio
    /// runtime (the writer task only writes what the pipe did not take at once, see
    /// [`Pipe`]).
    pub(crate) fn start(
        stdin: ChildStdin,
        stdout: ChildStdout,
        stderr: ChildStderr,
        timeout: Duration,
        max_message_size: usize,
        command_line: String,
        elicitation: Option<super::Elicitation>,
    ) -> Self {
        let shared = Shared::new(max_message_size, command_line, elicitation, false);
        let pipe = Pipe::new(stdin, Arc::clone(&shared));
        let writer = tokio::spawn(write_loop(Arc::clone(&pipe)));
        let out = Out::Pipe(pipe);
        let reader = tokio::spawn(read_loop(stdout, Arc::clone(&shared), out.clone()));
        let stderr_task = tokio::spawn(drain_stderr(stderr, Arc::clone(&shared)));
        Self::with_tasks(
            shared,
            out,
            timeout,
            vec![writer, reader],
            Some(stderr_task),
        )
    }

    /// Starts a session over streamable HTTP: one task sends each outgoing message as a POST
    /// and routes what comes back (see [`super::http`]).
    #[cfg(feature = "http")]
    pub(crate) fn start_http(
        http: Arc<super::http::Http>,
        timeout: Duration,
        max_message_size: usize,
        elicitation: Option<super::Elicitation>,
    ) -> Self {
        let shared = Shared::new(max_message_size, http.label().to_owned(), elicitation, true);
        // No stderr: its end is reached at once.
        shared.stderr_done.cancel();
        let (tx, rx) = mpsc::unbounded_channel();
        let out = Out::Channel(tx);
        let writer = tokio::spawn(super::http::write_loop(
            http,
            rx,
            Arc::clone(&shared),
            out.clone(),
        ));
        Self::with_tasks(shared, out, timeout, vec![writer], None)
    }

    fn with_tasks(
        shared: Arc<Shared>,
        out: Out,
        timeout: Duration,
        io_tasks: Vec<JoinHandle<()>>,
        stderr_task: Option<JoinHandle<()>>,
    ) -> Self {
        Self {
            shared,
            out,
            next_id: AtomicU64::new(0),
            next_progress_token: AtomicU64::new(1),
            timeout,
            io_tasks: Mutex::new(io_tasks),
            stderr_task: Mutex::new(stderr_task),
        }
    }

    /// The sender of outgoing messages and the shared state, for the HTTP transport's
    /// server stream.
    #[cfg(feature = "http")]
    pub(super) fn parts(&self) -> (Arc<Shared>, Out) {
        (Arc::clone(&self.shared), self.out.clone())
    }

    /// Adds a task that ends with the session (the HTTP transport's server stream).
    #[cfg(feature = "http")]
    pub(super) fn add_task(&self, task: JoinHandle<()>) {
        lock(&self.io_tasks).push(task);
    }

    /// Sends a request and waits for its result, at most the request timeout.
    ///
    /// # Errors
    /// [`Error::NotConnected`] when the session is closed; [`Error::ConnectionClosed`] when it
    /// closes while waiting; [`Error::Rpc`] for a JSON-RPC error; [`Error::Timeout`] (after
    /// sending `notifications/cancelled`); [`Error::MessageTooLarge`].
    pub(crate) async fn request(&self, method: &str, params: Value) -> Reply {
        self.send_and_wait(method, &params, None, self.timeout, true)
            .await
    }

    /// As [`Session::request`], also ending when `cancel` is cancelled (open-multi-agent's abort
    /// signal, as the TypeScript SDK's `RequestOptions.signal`): a token cancelled before the
    /// call sends nothing; one cancelled while waiting sends `notifications/cancelled` with the
    /// request id and the reason [`ABORT_REASON`]. An answer that is already there wins over
    /// a cancellation.
    ///
    /// `params`: anything that serializes to the request's `params` (serialized straight into
    /// the request line, without a `Value` in between).
    ///
    /// # Errors
    /// As [`Session::request`], plus [`Error::Cancelled`].
    pub(crate) async fn request_cancellable<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
        cancel: Option<&CancellationToken>,
    ) -> Reply {
        self.send_and_wait(method, params, cancel, self.timeout, true)
            .await
    }

    /// As [`Session::request`], bounded by `timeout` instead of the request timeout (the rest
    /// of the connect deadline for `initialize`). A zero `timeout` fails with
    /// [`Error::Timeout`] without sending anything.
    ///
    /// # Errors
    /// As [`Session::request`].
    pub(crate) async fn request_within(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Reply {
        self.send_and_wait(method, &params, None, timeout, true)
            .await
    }

    /// A probe: as [`Session::request`], bounded by `timeout` instead of the request timeout,
    /// and abandoned silently when it elapses (no `notifications/cancelled`: the
    /// `server/discover` probe of a server that may not be initialized yet, as rmcp does).
    ///
    /// # Errors
    /// As [`Session::request`].
    pub(crate) async fn probe(&self, method: &str, params: Value, timeout: Duration) -> Reply {
        self.send_and_wait(method, &params, None, timeout, false)
            .await
    }

    /// The request path: `timeout` bounds the wait; `notify_cancel` says whether a request
    /// that ends without its answer is announced with `notifications/cancelled`.
    async fn send_and_wait<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
        cancel: Option<&CancellationToken>,
        timeout: Duration,
        notify_cancel: bool,
    ) -> Reply {
        let cancelled_error = || Error::Cancelled {
            method: method.to_owned(),
        };
        if cancel.is_some_and(CancellationToken::is_cancelled) {
            return Err(cancelled_error());
        }
        if timeout.is_zero() {
            // Nothing left of the deadline: sending would only make the server do useless work.
            return Err(Error::Timeout {
                method: method.to_owned(),
                timeout,
            });
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let line = framing::request_line(id, method, params)?;
        let (tx, rx) = oneshot::channel();
        {
            let mut st = lock(&self.shared.state);
            if st.closed {
                return Err(Error::NotConnected);
            }
            st.pending.insert(id, tx);
        }
        let mut guard = PendingGuard {
            session: self,
            id,
            armed: true,
            notify: notify_cancel,
        };
        let deadline = tokio::time::Instant::now() + timeout;
        if self.out.send(Outgoing::Line(line, Some(id))).is_err() {
            guard.disarm();
            return Err(Error::NotConnected);
        }
        tracing::debug!(id, method, "request sent");
        // A failed write, like a closed connection, fails the pending entry (`write_loop`,
        // `Shared::close`), so the answer's channel is all there is to wait for.
        let outcome = async { rx.await.unwrap_or(Err(Error::ConnectionClosed)) };
        let cancelled = async {
            match cancel {
                Some(token) => token.cancelled().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            biased;
            timed = tokio::time::timeout_at(deadline, outcome) => match timed {
                Ok(reply) => {
                    guard.disarm();
                    reply
                }
                Err(_) => {
                    guard.cancel(TIMEOUT_REASON);
                    Err(Error::Timeout {
                        method: method.to_owned(),
                        timeout,
                    })
                }
            },
            () = cancelled => {
                tracing::debug!(id, method, "request cancelled by the caller");
                guard.cancel(ABORT_REASON);
                Err(cancelled_error())
            }
        }
    }

    /// Sends a notification; errors (a closed session) are ignored as the server is gone.
    pub(crate) fn notify(&self, method: &str, params: Option<Value>) {
        let _ = self.out.send(Outgoing::Line(
            framing::notification_line(method, params),
            None,
        ));
    }

    /// Marks the session closed (later requests fail with [`Error::NotConnected`], pending ones
    /// with [`Error::ConnectionClosed`]) and closes the server's stdin after queued lines.
    pub(crate) fn close(&self) {
        self.shared.closing.store(true, Ordering::Relaxed);
        self.shared.close();
        let _ = self.out.send(Outgoing::Close);
    }

    /// What the server-exit watcher runs once the server process has exited (and the rest of
    /// its process group was killed): waits up to `drain` for the reader to reach EOF, so the
    /// answers the server wrote before exiting are still delivered, then closes the session
    /// as [`Session::close`] does: pending requests fail with [`Error::ConnectionClosed`],
    /// later ones with [`Error::NotConnected`]. `drain` only matters when something outside
    /// the process group still holds the server's stdout open.
    pub(crate) fn close_after_exit(&self, drain: Duration) -> impl Future<Output = ()> + use<> {
        let shared = Arc::clone(&self.shared);
        let out = self.out.clone();
        async move {
            if tokio::time::timeout(drain, shared.reader_done.cancelled())
                .await
                .is_err()
            {
                tracing::debug!(
                    server = %shared.command_line,
                    "the MCP server exited but its stdout is still open; closing the session"
                );
            }
            shared.close();
            let _ = out.send(Outgoing::Close);
        }
    }

    /// A new progress token and the receiver of the `params` of every
    /// `notifications/progress` that names it, until the returned [`ProgressToken`] is
    /// dropped.
    pub(crate) fn progress(&self) -> (ProgressToken, mpsc::UnboundedReceiver<Value>) {
        let token = self.next_progress_token.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::unbounded_channel();
        lock(&self.shared.progress).insert(token, tx);
        (
            ProgressToken {
                shared: Arc::clone(&self.shared),
                token,
            },
            rx,
        )
    }

    /// How many requests wait for their answer now (see
    /// [`McpClient::pending_requests`](crate::McpClient::pending_requests)).
    pub(crate) fn pending_requests(&self) -> usize {
        lock(&self.shared.state).pending.len()
    }

    /// Whether [`Session::close`] ran: the client, not the server, ended the session.
    pub(crate) fn closed_by_client(&self) -> bool {
        self.shared.closing.load(Ordering::Relaxed)
    }

    /// Waits up to `bound` for the server's stderr to reach its end (after the server
    /// exited), so [`Session::stderr_tail`] holds its last lines.
    pub(crate) async fn stderr_drained(&self, bound: Duration) {
        let _ = tokio::time::timeout(bound, self.shared.stderr_done.cancelled()).await;
    }

    /// Stops the reader and writer tasks, then gives the stderr task up to `bound` to drain
    /// what the (now dead) server wrote before stopping it too.
    pub(crate) async fn stop_tasks(&self, bound: Duration) {
        for task in std::mem::take(&mut *lock(&self.io_tasks)) {
            task.abort();
        }
        self.shut_stdin();
        let stderr_task = lock(&self.stderr_task).take();
        if let Some(mut task) = stderr_task
            && tokio::time::timeout(bound, &mut task).await.is_err()
        {
            task.abort();
        }
    }

    /// Closes a stdio server's stdin now, also when lines are still queued: the writer task is
    /// stopped.
    fn shut_stdin(&self) {
        if let Out::Pipe(pipe) = &self.out {
            pipe.shut();
        }
    }

    /// The server's stderr lines that matter, formatted for [`Error::Handshake`] and
    /// [`Error::ServerExited`]: `"; server stderr: a | b"`, or a bounded selection of the
    /// first lines, the error-looking lines and the last lines (see [`StderrLines::render`]);
    /// empty when the server wrote nothing.
    pub(crate) fn stderr_tail(&self) -> String {
        lock(&self.shared.stderr_lines).render()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.shared.close();
        for task in lock(&self.io_tasks).drain(..) {
            task.abort();
        }
        self.shut_stdin();
        if let Some(task) = lock(&self.stderr_task).take() {
            task.abort();
        }
    }
}

/// A registered progress token (see [`Session::progress`]); unregistered when dropped.
pub(crate) struct ProgressToken {
    shared: Arc<Shared>,
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
        lock(&self.shared.progress).remove(&self.token);
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
            lock(&self.session.shared.state).pending.remove(&self.id);
        }
    }

    fn cancel(&mut self, reason: &str) {
        if !self.armed {
            return;
        }
        self.armed = false;
        let was_pending = lock(&self.session.shared.state)
            .pending
            .remove(&self.id)
            .is_some();
        if was_pending {
            let _ = self.session.out.send(Outgoing::Abandon(self.id));
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

/// The writer task of a [`Pipe`]: writes what the pipe did not take at once, as it drains;
/// closes stdin after the queued lines on [`Outgoing::Close`] and then ends. When a write
/// fails, the requests whose lines it held fail with [`Error::ConnectionClosed`].
async fn write_loop(pipe: Arc<Pipe>) {
    loop {
        pipe.wake.notified().await;
        if std::future::poll_fn(|cx| pipe.poll_queue(cx)).await {
            break;
        }
    }
}

/// Reads stdout line by line until it closes, then closes the session.
async fn read_loop(stdout: ChildStdout, shared: Arc<Shared>, out: Out) {
    let _done = shared.reader_done.clone().drop_guard();
    let mut reader = BufReader::with_capacity(64 * 1024, stdout);
    let mut buf = Vec::new();
    loop {
        match framing::read_line(&mut reader, &mut buf, shared.max_message_size).await {
            Ok(LineRead::Eof) => break,
            Err(e) => {
                tracing::warn!(server = %shared.command_line, "cannot read the MCP server's stdout: {e}");
                break;
            }
            Ok(LineRead::TooLong { len }) => oversized(&buf, len, &shared),
            Ok(LineRead::Line) => shared.receive(&buf, &out),
        }
        // The message is handed over (parsed into its own `Value`): do not keep a 20 MiB
        // buffer on every idle connection.
        recycle_line_buffer(&mut buf);
    }
    shared.close();
    tracing::debug!(server = %shared.command_line, "MCP server closed stdout");
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

/// The largest line buffer capacity the reader keeps between messages (1 MiB): a buffer that
/// grew past it for a large message is freed once that message is handed over, so an idle
/// connection holds at most this much (plus the 64 KiB read buffer) for its next line.
const RETAINED_LINE_CAPACITY: usize = 1024 * 1024;

/// Empties `buf` for the next line; frees it when its capacity is over
/// [`RETAINED_LINE_CAPACITY`] (smaller buffers are kept, to avoid reallocating per message).
fn recycle_line_buffer(buf: &mut Vec<u8>) {
    buf.clear();
    if buf.capacity() > RETAINED_LINE_CAPACITY {
        *buf = Vec::new();
    }
}

/// Handles a stdout line over the message size limit (`head`: its first bytes, see
/// [`framing::oversized_head`]): a response whose `id` is in the head fails only that request
/// with [`Error::MessageTooLarge`]; a server request or notification fails none; a message
/// whose `id` cannot be read from the head fails every pending request (its answer is lost,
/// and which one it was is unknown).
fn oversized(head: &[u8], len: usize, shared: &Shared) {
    let limit = shared.max_message_size;
    let server = &shared.command_line;
    match framing::oversized_head(head) {
        framing::OversizedHead::Response(id) => {
            let tx = response_id(&id).and_then(|n| lock(&shared.state).pending.remove(&n));
            tracing::warn!(
                %server,
                "skipped a {len}-byte response to request {id} from the MCP server, over the \
                 limit of {limit} bytes"
            );
            if let Some(tx) = tx {
                let _ = tx.send(Err(Error::MessageTooLarge { limit }));
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
            let pending = std::mem::take(&mut lock(&shared.state).pending);
            for (_, tx) in pending {
                let _ = tx.send(Err(Error::MessageTooLarge { limit }));
            }
        }
    }
}

/// Handles one classified stdout line.
fn dispatch(incoming: Incoming, raw: &[u8], shared: &Shared, out: &Out) {
    match incoming {
        Incoming::Response { id, outcome } => {
            let tx = response_id(&id).and_then(|n| lock(&shared.state).pending.remove(&n));
            match tx {
                Some(tx) => {
                    let _ = tx.send(outcome.map_err(Error::from));
                }
                None => {
                    tracing::debug!(%id, "response to no pending request (timed out or cancelled)")
                }
            }
        }
        Incoming::Request { id, method, params } => {
            let line = if method == "ping" {
                framing::result_line(&id, json!({}))
            } else if method == "elicitation/create"
                && let Some(handler) = &shared.elicitation
            {
                framing::result_line(&id, handler.answer(params.as_ref().unwrap_or(&Value::Null)))
            } else {
                tracing::debug!(%method, "answering an unsupported server request with -32601");
                framing::error_line(&id, -32601, "Method not found")
            };
            let _ = out.send(Outgoing::Line(line, None));
        }
        Incoming::Notification { method, params } => {
            if method == "notifications/progress"
                && let Some(params) = params
                && let Some(token) = params.get("progressToken").and_then(response_id)
                && let Some(tx) = lock(&shared.progress).get(&token)
            {
                let _ = tx.send(params);
                return;
            }
            tracing::debug!(%method, "notification from the MCP server ignored");
        }
        Incoming::TooDeep => {
            tracing::warn!(
                server = %shared.command_line,
                "skipped a message from the MCP server nested deeper than {} levels",
                framing::MAX_DEPTH
            );
            let pending = std::mem::take(&mut lock(&shared.state).pending);
            for (_, tx) in pending {
                let _ = tx.send(Err(Error::MessageTooDeep {
                    limit: framing::MAX_DEPTH,
                }));
            }
        }
        Incoming::Invalid { reason } => {
            let text = String::from_utf8_lossy(raw);
            let text = cut(&text, stderr::LINE_CHARS);
            let server = &shared.command_line;
            if shared.over_http {
                tracing::warn!(
                    %server,
                    "skipped a message in an HTTP response of the MCP server that is not a JSON-RPC message ({reason}): {text}"
                );
            } else if shared.closing.load(Ordering::Relaxed) {
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
    }
}

/// Logs every stderr line (target `oma_mcp::server_stderr`) and keeps those errors quote
/// ([`StderrLines`]).
async fn drain_stderr(stderr: ChildStderr, shared: Arc<Shared>) {
    let _done = shared.stderr_done.clone().drop_guard();
    let mut reader = BufReader::new(stderr);
    let mut buf = Vec::new();
    loop {
        match framing::read_line(&mut reader, &mut buf, STDERR_MAX_LINE).await {
            Ok(LineRead::Eof) | Err(_) => break,
            Ok(LineRead::TooLong { len }) => {
                tracing::info!(target: "oma_mcp::server_stderr", server = %shared.command_line, "<{len}-byte line>");
            }
            Ok(LineRead::Line) => {
                let text = String::from_utf8_lossy(&buf);
                tracing::info!(target: "oma_mcp::server_stderr", server = %shared.command_line, "{text}");
                lock(&shared.stderr_lines).push(&text);
            }
        }
    }
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
    use super::{response_id, without_bom};
    use serde_json::json;

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

    /// After a large message the reader's line buffer is freed; a small one is kept as is.
    #[tokio::test]
    async fn the_line_buffer_does_not_stay_large_after_a_large_message() {
        use super::super::framing::{LineRead, read_line};
        use super::{RETAINED_LINE_CAPACITY, recycle_line_buffer};

        let big = 20 * 1024 * 1024;
        let mut input = vec![b'x'; big];
        input.extend_from_slice(b"\nsmall line\n");
        let mut reader = tokio::io::BufReader::with_capacity(64 * 1024, input.as_slice());
        let mut buf = Vec::new();
        assert_eq!(
            read_line(&mut reader, &mut buf, 64 * 1024 * 1024)
                .await
                .unwrap(),
            LineRead::Line
        );
        assert_eq!(buf.len(), big);
        assert!(buf.capacity() >= big);
        recycle_line_buffer(&mut buf);
        assert_eq!((buf.len(), buf.capacity()), (0, 0));

        assert_eq!(
            read_line(&mut reader, &mut buf, 64 * 1024 * 1024)
                .await
                .unwrap(),
            LineRead::Line
        );
        assert_eq!(buf, b"small line");
        let small_capacity = buf.capacity();
        assert!(small_capacity <= RETAINED_LINE_CAPACITY);
        recycle_line_buffer(&mut buf);
        assert_eq!((buf.len(), buf.capacity()), (0, small_capacity));

        // Exactly at the bound is kept; one byte over is freed.
        let mut at_bound = Vec::with_capacity(RETAINED_LINE_CAPACITY);
        at_bound.push(1);
        let kept = at_bound.capacity();
        recycle_line_buffer(&mut at_bound);
        assert_eq!((at_bound.len(), at_bound.capacity()), (0, kept));
        let mut over = Vec::with_capacity(RETAINED_LINE_CAPACITY + 1);
        over.push(1);
        recycle_line_buffer(&mut over);
        assert_eq!(over.capacity(), 0);
    }

    #[test]
    fn byte_order_marks_before_a_message_are_skipped() {
        assert_eq!(without_bom(b"\xEF\xBB\xBF{}", "srv"), b"{}");
        assert_eq!(without_bom(b"\xEF\xBB\xBF\xEF\xBB\xBF{}", "srv"), b"{}");
        assert_eq!(without_bom(b"{}\xEF\xBB\xBF", "srv"), b"{}\xEF\xBB\xBF");
        assert_eq!(without_bom(b"\xEF\xBB", "srv"), b"\xEF\xBB");
    }

    /// Lines the pipe does not take at once (the server does not read yet) are queued for the
    /// writer task and reach the server complete and in order; stdin closes after them.
    #[cfg(unix)]
    #[tokio::test]
    async fn lines_queued_while_the_pipe_is_full_arrive_in_order() {
        use std::process::Stdio;

        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("received");
        let mut child = tokio::process::Command::new("sh")
            .arg("-c")
            .arg("sleep 0.5; exec cat > \"$0\"")
            .arg(&file)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let session = super::Session::start(
            child.stdin.take().unwrap(),
            child.stdout.take().unwrap(),
            child.stderr.take().unwrap(),
            std::time::Duration::from_secs(60),
            1024,
            "sh".to_owned(),
            None,
        );
        let text = "x".repeat(4000);
        for i in 0..100 {
            session.notify(
                "notifications/message",
                Some(serde_json::json!({"i": i, "text": text})),
            );
        }
        // 400 KB cannot fit in the pipe while the server sleeps: the rest is queued.
        let super::Out::Pipe(pipe) = &session.out else {
            panic!("a stdio session writes to a pipe");
        };
        assert!(super::lock(&pipe.state).handed_over);
        session.close();
        let status = tokio::time::timeout(std::time::Duration::from_secs(20), child.wait())
            .await
            .unwrap()
            .unwrap();
        assert!(status.success());
        let received = std::fs::read_to_string(&file).unwrap();
        let lines: Vec<serde_json::Value> = received
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(lines.len(), 100);
        for (i, line) in lines.iter().enumerate() {
            assert_eq!(line["method"], "notifications/message");
            assert_eq!(line["params"]["i"], i);
            assert_eq!(line["params"]["text"].as_str().map(str::len), Some(4000));
        }
    }

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
        let session = super::Session::start(
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
            matches!(reply, Err(crate::Error::ConnectionClosed)),
            "{reply:?}"
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
    }
}
