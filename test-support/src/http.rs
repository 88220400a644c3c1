//! Starting an MCP server that listens on loopback HTTP, for a test.
//!
//! [`spawn_http_server`] starts a server command, waits until it is ready (the server's
//! `listening on <url>` line on stdout, or its port accepting connections) within a timeout,
//! and returns an [`HttpServer`] that holds the child and its URL and kills the child when
//! dropped. The child's stdin is a pipe held open until then (oma-mcp's own servers exit when
//! their stdin closes); its stdout and stderr are read to the end by two threads, so a chatty
//! server never blocks on a full pipe, and their last lines are kept for error messages
//! ([`HttpServer::output`]).
//!
//! - oma-mcp's servers (`oma-mcp-test-server --http 127.0.0.1:0`,
//!   `oma-mcp-http-faults --mode MODE`) print `listening on http://127.0.0.1:PORT/mcp`: use
//!   [`Ready::ListeningLine`].
//! - `@modelcontextprotocol/server-everything streamableHttp` listens on the port in its `PORT`
//!   variable and prints the port it was given (0 stays 0), so pick one with [`free_port`],
//!   pass it, and use [`Ready::Port`] with the path `/mcp`.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The prefix of the line that tells the URL.
pub const LISTENING_PREFIX: &str = "listening on ";

/// How many lines of the child's output [`HttpServer::output`] keeps.
const KEPT_LINES: usize = 200;

/// How [`spawn_http_server`] knows the server is ready, and its URL.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Ready {
    /// The server prints a line `listening on <url>` to stdout; the URL is the rest of it.
    ListeningLine,
    /// The server listens on 127.0.0.1 at `port`, chosen beforehand: ready once a TCP
    /// connection is accepted there; the URL is `http://127.0.0.1:<port><path>`.
    Port {
        /// The port the server was told to use.
        port: u16,
        /// The MCP endpoint's path, such as `/mcp`.
        path: String,
    },
}

/// A running server that listens on HTTP: killed (and reaped) when dropped.
#[derive(Debug)]
pub struct HttpServer {
    child: Child,
    stdin: Option<ChildStdin>,
    url: String,
    output: Arc<Mutex<VecDeque<String>>>,
}

impl HttpServer {
    /// The server's MCP URL, such as `http://127.0.0.1:41234/mcp`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The child's process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// The child, to wait for it or check its status.
    pub fn child_mut(&mut self) -> &mut Child {
        &mut self.child
    }

    /// Closes the child's stdin (oma-mcp's servers then exit).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The last lines the child wrote so far, each prefixed `stdout: ` or `stderr: `.
    pub fn output(&self) -> String {
        joined(&self.output)
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.stdin = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A free TCP port on 127.0.0.1 (bound and released at once: another process may take it
/// before the server does, which is unlikely on a test machine).
///
/// # Errors
/// The loopback interface cannot be bound.
pub fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?
        .local_addr()?
        .port())
}

/// Starts `command` (its stdin, stdout and stderr are replaced by pipes) and waits up to
/// `timeout` until it is ready as `ready` says.
///
/// # Errors
/// The command cannot be started, exits before it is ready, or is not ready in time; the
/// message names the program and quotes the last lines it wrote (the child is killed).
pub fn spawn_http_server(
    mut command: Command,
    ready: Ready,
    timeout: Duration,
) -> std::io::Result<HttpServer> {
    let program = command.get_program().to_string_lossy().into_owned();
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| std::io::Error::new(e.kind(), format!("cannot start `{program}`: {e}")))?;
    let output = Arc::new(Mutex::new(VecDeque::new()));
    let (url_tx, url_rx) = mpsc::channel();
    if let Some(stdout) = child.stdout.take() {
        let listening = (ready == Ready::ListeningLine).then_some(url_tx);
        drain(stdout, "stdout", output.clone(), listening);
    }
    if let Some(stderr) = child.stderr.take() {
        drain(stderr, "stderr", output.clone(), None);
    }
    let mut server = HttpServer {
        stdin: child.stdin.take(),
        child,
        url: String::new(),
        output,
    };
    let deadline = Instant::now() + timeout;
    let waiting_for = match &ready {
        Ready::ListeningLine => format!("a `{LISTENING_PREFIX}<url>` line on stdout"),
        Ready::Port { port, .. } => format!("connections on 127.0.0.1:{port}"),
    };
    loop {
        let url = match &ready {
            Ready::ListeningLine => url_rx.recv_timeout(Duration::from_millis(20)).ok(),
            Ready::Port { port, path } => {
                let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, *port));
                match TcpStream::connect_timeout(&addr, Duration::from_millis(100)) {
                    Ok(_) => Some(format!("http://127.0.0.1:{port}{path}")),
                    Err(_) => {
                        std::thread::sleep(Duration::from_millis(20));
                        None
                    }
                }
            }
        };
        if let Some(url) = url {
            server.url = url;
            return Ok(server);
        }
        if let Some(status) = server.child.try_wait()? {
            return Err(not_ready(&program, &server, &exited(status)));
        }
        if Instant::now() >= deadline {
            let why = format!("was not ready within {timeout:?} (waited for {waiting_for})");
            return Err(not_ready(&program, &server, &why));
        }
    }
}

/// The error for a server that did not get ready (the output threads get a moment to catch
/// up with what it wrote last).
fn not_ready(program: &str, server: &HttpServer, why: &str) -> std::io::Error {
    std::thread::sleep(Duration::from_millis(50));
    let output = server.output();
    let output = if output.is_empty() {
        "it wrote nothing".to_owned()
    } else {
        format!("its last output:\n{output}")
    };
    std::io::Error::new(
        std::io::ErrorKind::TimedOut,
        format!("`{program}` {why}; {output}"),
    )
}

fn exited(status: ExitStatus) -> String {
    format!("exited ({status}) before it was ready")
}

/// Reads `stream` to its end on a thread of its own, keeping the last lines; the first
/// `listening on <url>` line's URL goes to `listening`.
fn drain(
    stream: impl Read + Send + 'static,
    name: &'static str,
    output: Arc<Mutex<VecDeque<String>>>,
    mut listening: Option<mpsc::Sender<String>>,
) {
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stream);
        let mut line = Vec::new();
        while reader.read_until(b'\n', &mut line).is_ok_and(|n| n > 0) {
            let text = String::from_utf8_lossy(&line);
            let text = text.trim_end_matches(['\n', '\r']);
            if let Some(url) = text.strip_prefix(LISTENING_PREFIX)
                && let Some(tx) = listening.take()
            {
                let _ = tx.send(url.trim().to_owned());
            }
            let mut kept = output.lock().unwrap_or_else(|e| e.into_inner());
            if kept.len() == KEPT_LINES {
                kept.pop_front();
            }
            kept.push_back(format!("{name}: {text}"));
            drop(kept);
            line.clear();
        }
    });
}

fn joined(output: &Mutex<VecDeque<String>>) -> String {
    let kept = output.lock().unwrap_or_else(|e| e.into_inner());
    kept.iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut command = Command::new("sh");
        command.args(["-c", script]);
        command
    }

    #[test]
    fn reads_the_url_from_the_listening_line_and_kills_on_drop() {
        let server = spawn_http_server(
            sh("echo starting; echo 'listening on http://127.0.0.1:9/mcp'; exec sleep 30"),
            Ready::ListeningLine,
            Duration::from_secs(10),
        )
        .expect("ready");
        assert_eq!(server.url(), "http://127.0.0.1:9/mcp");
        let pid = server.id();
        drop(server);
        if cfg!(target_os = "linux") {
            let proc = format!("/proc/{pid}");
            assert!(!std::path::Path::new(&proc).exists(), "the child is gone");
        }
    }

    #[test]
    fn a_server_that_exits_first_is_an_error_with_its_output() {
        let err = spawn_http_server(
            sh("echo 'Error: port in use' >&2; exit 3"),
            Ready::ListeningLine,
            Duration::from_secs(10),
        )
        .expect_err("exits");
        let message = err.to_string();
        assert!(
            message.starts_with("`sh` exited (exit status: 3) before it was ready"),
            "{message}"
        );
        assert!(
            message.ends_with("its last output:\nstderr: Error: port in use"),
            "{message}"
        );
    }

    #[test]
    fn a_server_that_never_gets_ready_times_out() {
        let start = Instant::now();
        let err = spawn_http_server(
            sh("exec sleep 30"),
            Ready::ListeningLine,
            Duration::from_millis(300),
        )
        .expect_err("times out");
        assert!(start.elapsed() < Duration::from_secs(5));
        assert_eq!(
            err.to_string(),
            "`sh` was not ready within 300ms (waited for a `listening on <url>` line on \
             stdout); it wrote nothing"
        );
    }

    #[test]
    fn polls_a_port() {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind");
        let port = listener.local_addr().expect("address").port();
        let server = spawn_http_server(
            sh("exec sleep 30"),
            Ready::Port {
                port,
                path: "/mcp".to_owned(),
            },
            Duration::from_secs(10),
        )
        .expect("ready");
        assert_eq!(server.url(), format!("http://127.0.0.1:{port}/mcp"));
        drop(listener);
        let free = free_port().expect("a port");
        let err = spawn_http_server(
            sh("exec sleep 30"),
            Ready::Port {
                port: free,
                path: "/mcp".to_owned(),
            },
            Duration::from_millis(300),
        )
        .expect_err("nobody listens");
        assert!(
            err.to_string()
                .contains(&format!("connections on 127.0.0.1:{free}"))
        );
    }
}
