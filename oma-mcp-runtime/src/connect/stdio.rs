//! The stdio transport (MCP "Transports" → "stdio"): newline-delimited JSON over a child's
//! pipes. Callers write their lines into the server's stdin themselves while the pipe takes
//! them (a writer task takes over when it is full), a reader task hands every stdout line to
//! the [`Inbox`], and the server's stderr is drained into `tracing` ([`Stderr`]).

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use tokio::io::{AsyncWrite, BufReader};
use tokio::process::{ChildStderr, ChildStdin, ChildStdout};
use tokio::sync::Notify;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::framing::{self, LineRead};
use super::inbox::Inbox;
use super::message::{Closed, Outgoing, lock};
use super::stderr::Stderr;
#[cfg(doc)]
use crate::error::DisconnectedError;
use crate::error::{Error, RequestError};

/// The most bytes waiting for a stdio server's stdin (64 MiB): while the server does not read
/// (it is stuck, or busy without reading), a line that would queue past this is not queued.
/// A request's line fails that request with [`RequestError::ServerNotReading`]; a line the client
/// owes the server (an answer to its `ping` or `elicitation/create`, `notifications/cancelled`)
/// is dropped with a warning. A single line is always taken when nothing waits, whatever its
/// size, so a large argument still reaches a server that reads.
pub const MAX_STDIN_BACKLOG: usize = 64 * 1024 * 1024;

/// The largest queue buffer capacity the stdin writer keeps once its lines are written
/// (64 KiB, a pipe's default capacity); a buffer that grew past it is freed.
const RETAINED_QUEUE_CAPACITY: usize = 64 * 1024;

/// The largest line buffer capacity the reader keeps between messages (1 MiB): a buffer that
/// grew past it for a large message is freed once that message is handed over, so an idle
/// connection holds at most this much (plus the 64 KiB read buffer) for its next line.
const RETAINED_LINE_CAPACITY: usize = 1024 * 1024;

/// A stdio server's pipes and the tasks that serve them.
pub(super) struct Stdio {
    pipe: Arc<Pipe>,
    stderr: Stderr,
    /// Cancelled when the reader task ends (EOF, a read error, or aborted).
    reader_done: CancellationToken,
    /// The writer and reader tasks.
    tasks: Mutex<Vec<JoinHandle<()>>>,
}

impl Stdio {
    /// Starts the reader, writer and stderr tasks of a child's pipes on the current Tokio
    /// runtime (the writer task only writes what the pipe did not take at once, see
    /// [`Pipe`]); what the server writes goes to `inbox`.
    pub(super) fn start(
        stdin: ChildStdin,
        stdout: ChildStdout,
        stderr: ChildStderr,
        inbox: Arc<Inbox>,
    ) -> Self {
        let pipe = Pipe::new(stdin, Arc::clone(&inbox));
        let reader_done = CancellationToken::new();
        let stderr = Stderr::drain(stderr, inbox.server.clone());
        let writer = tokio::spawn(write_loop(Arc::clone(&pipe)));
        let reader = tokio::spawn(read_loop(
            stdout,
            inbox,
            Arc::clone(&pipe),
            reader_done.clone(),
        ));
        Self {
            pipe,
            stderr,
            reader_done,
            tasks: Mutex::new(vec![writer, reader]),
        }
    }

    /// Writes (or queues) `message`; [`Closed`] once stdin is closing.
    pub(super) fn send(&self, message: Outgoing<'_>) -> Result<(), Closed> {
        let id = message.request_id();
        self.pipe.send_line(message.line, id)
    }

    /// Closes stdin after the queued lines (the server sees EOF) and ends the writer task.
    pub(super) fn close(&self) {
        self.pipe.close();
    }

    /// What runs once the server process exited: waits up to `drain` for the reader to reach
    /// the end of stdout, so the answers the server wrote before exiting are still delivered,
    /// then closes `inbox` and stdin. `drain` only matters when something outside the
    /// server's process group still holds its stdout open.
    pub(super) fn close_after_exit(
        &self,
        inbox: Arc<Inbox>,
        drain: Duration,
    ) -> impl Future<Output = ()> + Send + 'static + use<> {
        let reader_done = self.reader_done.clone();
        let pipe = Arc::clone(&self.pipe);
        async move {
            if tokio::time::timeout(drain, reader_done.cancelled())
                .await
                .is_err()
            {
                tracing::debug!(
                    server = %inbox.server,
                    "the MCP server exited but its stdout is still open; closing the session"
                );
            }
            inbox.close();
            pipe.close();
        }
    }

    /// The server's stderr.
    pub(super) fn stderr(&self) -> &Stderr {
        &self.stderr
    }

    /// Stops the reader and writer tasks and closes stdin, then gives the stderr task up to
    /// `bound` to drain what the (now dead) server wrote before stopping it too.
    pub(super) async fn stop(&self, bound: Duration) {
        self.abort_io();
        self.stderr.finish(bound).await;
    }

    /// Stops every task and closes stdin now.
    pub(super) fn abort(&self) {
        self.abort_io();
        self.stderr.abort();
    }

    fn abort_io(&self) {
        for task in std::mem::take(&mut *lock(&self.tasks)) {
            task.abort();
        }
        self.pipe.shut();
    }
}

/// A stdio server's stdin, written by the callers themselves: a line goes into the pipe at
/// once from the task that sends it (no hand-off to another task, one wake-up less per
/// call). Only when the pipe is full (the server does not read) is the rest queued for the
/// writer task ([`write_loop`]), which writes it as the pipe drains; until the queue is
/// empty, later lines join the queue, so lines always reach the server in the order sent.
struct Pipe {
    state: Mutex<PipeState>,
    /// Wakes the writer task when a queue is handed over (or stdin is to be closed).
    wake: Notify,
    inbox: Arc<Inbox>,
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
    /// [`Pipe::close`] ran: stdin closes once `queue` is written.
    closing: bool,
}

impl Pipe {
    fn new(stdin: ChildStdin, inbox: Arc<Inbox>) -> Arc<Self> {
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
            inbox,
        })
    }

    /// Closes stdin after the queued lines; the writer task ends.
    fn close(&self) {
        let mut st = lock(&self.state);
        if st.closing {
            return;
        }
        st.closing = true;
        if !st.handed_over {
            st.stdin = None;
        }
        drop(st);
        // The writer task ends (after the queue, when there is one).
        self.wake.notify_one();
    }

    /// Writes one line (`id`: its request's); when the line cannot be written, the request
    /// fails with [`DisconnectedError::ConnectionClosed`].
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
                    self.inbox.fail_all(id.as_slice());
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
        let command = &self.inbox.server;
        match id {
            Some(id) => self.inbox.fail(
                id,
                Error::Request(RequestError::ServerNotReading {
                    command: command.clone(),
                    waiting,
                    limit: MAX_STDIN_BACKLOG,
                }),
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
                    self.inbox.fail_all(&st.ids);
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

    /// Closes stdin at once, whatever is queued (the transport's tasks are stopping).
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

/// The writer task of a [`Pipe`]: writes what the pipe did not take at once, as it drains;
/// closes stdin after the queued lines once [`Pipe::close`] ran, and then ends. When a write
/// fails, the requests whose lines it held fail with [`DisconnectedError::ConnectionClosed`].
async fn write_loop(pipe: Arc<Pipe>) {
    loop {
        pipe.wake.notified().await;
        if std::future::poll_fn(|cx| pipe.poll_queue(cx)).await {
            break;
        }
    }
}

/// Reads stdout line by line into `inbox` (answers to the server's requests go back through
/// `pipe`) until it closes, then closes the inbox.
async fn read_loop(
    stdout: ChildStdout,
    inbox: Arc<Inbox>,
    pipe: Arc<Pipe>,
    done: CancellationToken,
) {
    let _done = done.drop_guard();
    let mut reader = BufReader::with_capacity(64 * 1024, stdout);
    let mut buf = Vec::new();
    loop {
        match framing::read_line(&mut reader, &mut buf, inbox.max_message_size).await {
            Ok(LineRead::Eof) => break,
            Err(e) => {
                tracing::warn!(server = %inbox.server, "cannot read the MCP server's stdout: {e}");
                break;
            }
            Ok(LineRead::TooLong { len }) => inbox.oversized(&buf, len),
            Ok(LineRead::Line) => {
                if let Some(answer) = inbox.receive(&buf) {
                    let _ = pipe.send_line(answer, None);
                }
            }
        }
        // The message is handed over (parsed into its own `Value`): do not keep a 20 MiB
        // buffer on every idle connection.
        recycle_line_buffer(&mut buf);
    }
    inbox.close();
    tracing::debug!(server = %inbox.server, "MCP server closed stdout");
}

/// Empties `buf` for the next line; frees it when its capacity is over
/// [`RETAINED_LINE_CAPACITY`] (smaller buffers are kept, to avoid reallocating per message).
fn recycle_line_buffer(buf: &mut Vec<u8>) {
    buf.clear();
    if buf.capacity() > RETAINED_LINE_CAPACITY {
        *buf = Vec::new();
    }
}

#[cfg(test)]
mod tests {
    use super::super::inbox::Wire;
    use super::*;

    /// After a large message the reader's line buffer is freed; a small one is kept as is.
    #[tokio::test]
    async fn the_line_buffer_does_not_stay_large_after_a_large_message() {
        use super::super::framing::{LineRead, read_line};

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

    /// Lines the pipe does not take at once (the server does not read yet) are queued for the
    /// writer task and reach the server complete and in order; stdin closes after them.
    #[cfg(unix)]
    #[tokio::test]
    async fn lines_queued_while_the_pipe_is_full_arrive_in_order() {
        use std::process::Stdio as Piped;

        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("received");
        let mut child = tokio::process::Command::new("sh")
            .arg("-c")
            .arg("sleep 0.5; exec cat > \"$0\"")
            .arg(&file)
            .stdin(Piped::piped())
            .stdout(Piped::piped())
            .stderr(Piped::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let inbox = Inbox::new(1024, "sh".to_owned(), None, Wire::Stdout);
        let stdio = Stdio::start(
            child.stdin.take().unwrap(),
            child.stdout.take().unwrap(),
            child.stderr.take().unwrap(),
            inbox,
        );
        let text = "x".repeat(4000);
        for i in 0..100 {
            let params = serde_json::json!({"i": i, "text": text});
            let line = framing::notification_line("notifications/message", Some(&params));
            let message = Outgoing::notification("notifications/message", Some(&params), line);
            stdio.send(message).unwrap();
        }
        // 400 KB cannot fit in the pipe while the server sleeps: the rest is queued.
        assert!(lock(&stdio.pipe.state).handed_over);
        stdio.close();
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
}
