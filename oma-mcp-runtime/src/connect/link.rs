//! What ties a client to one server: its [`Session`] (which owns the transport) and, over
//! stdio, the server process. [`Link::open`] spawns the command or reaches the URL and runs
//! the lifecycle; [`Link::close`] ends it (the session, `DELETE` over HTTP, stdin EOF →
//! SIGTERM → SIGKILL to the process group over stdio), and so, at once, does dropping it.

use std::time::Duration;

use tokio::time::Instant;

use super::config::{ConnectConfig, Lifecycle};
use super::lifecycle::{self, Negotiated};
use super::process;
use super::session::Session;
use crate::error::{ConnectError, DisconnectedError, Error};

/// How long a failed connect or a close waits for the server's last stderr lines after the
/// process is gone.
const STDERR_DRAIN: Duration = Duration::from_millis(500);

/// How long a failed handshake waits for a server whose connection closed to exit, to report
/// its exit status (the pipes close a moment before the process is gone).
const EXIT_STATUS_WAIT: Duration = Duration::from_millis(500);

/// How long the session stays open after the server process exited, for the reader to
/// deliver what the server wrote before it exited (it reaches EOF at once unless something
/// outside the server's process group still holds its stdout).
const EXIT_DRAIN: Duration = Duration::from_millis(500);

/// A session with one server, and its process when it is a child.
#[derive(Debug)]
pub(crate) struct Link {
    /// The session, which owns the transport (stdio or streamable HTTP).
    pub(crate) session: Session,
    /// The server process, owned by its exit watcher (`None` over HTTP).
    process: Option<process::Watched>,
    /// Set by the first [`Link::close`]; a second one waits for the first.
    stopped: tokio::sync::Mutex<bool>,
    /// The server's OS process id, when known.
    pub(crate) pid: Option<u32>,
    /// The server as messages name it: its command line, or its redacted URL.
    pub(crate) command_line: String,
}

/// Why [`Link::open`] returned no link.
pub(crate) enum Started {
    /// The connect failed; the server is stopped.
    Failed(Error),
    /// [`Lifecycle::Auto`]: the server went away after `server/discover` without answering,
    /// in a way that looks like a refusal of it (see [`refused_discover`]); it is stopped.
    ExitedAfterDiscover {
        /// The server as messages name it.
        command_line: String,
        /// How it ended (`"; the server exited (exit status: 1)"`), or empty.
        exit: String,
        /// Its stderr lines that matter (`"; server stderr: …"`), or empty.
        stderr: String,
    },
}

impl Link {
    /// Spawns the server (or reaches its URL) and runs `lifecycle` before `deadline`; on
    /// failure the server is stopped.
    pub(crate) async fn open(
        config: &ConnectConfig,
        lifecycle: Lifecycle,
        deadline: Instant,
    ) -> Result<(Link, Negotiated), Started> {
        let link = match &config.url {
            Some(url) => Self::http(config, url).map_err(Started::Failed)?,
            None => Self::stdio(config).map_err(Started::Failed)?,
        };
        match lifecycle::establish(
            &link.session,
            config,
            lifecycle,
            deadline,
            &link.command_line,
        )
        .await
        {
            Ok(negotiated) => {
                tracing::debug!(
                    server = %link.command_line,
                    protocol_version = %negotiated.protocol_version,
                    "MCP lifecycle established"
                );
                // Over HTTP: `MCP-Protocol-Version` on every later request, also those
                // without a `_meta` context of their own in a 2026-07-28 session
                // (notifications, responses, `GET`); after an `initialize` handshake, the
                // stream of server messages.
                let transport = link.session.transport();
                transport.negotiated(&negotiated.protocol_version);
                transport
                    .established(negotiated.client_context.is_none())
                    .await;
                Ok((link, negotiated))
            }
            Err(failure) => {
                // A server that went away: say how it ended (an exit code often says why).
                let exit = if failure.error.is_connection_lost() {
                    link.exit_status().await
                } else {
                    String::new()
                };
                link.close(process::EOF_GRACE).await;
                let stderr = link.session.stderr_tail();
                if failure.restart_with_initialize && refused_discover(&stderr) {
                    return Err(Started::ExitedAfterDiscover {
                        command_line: link.command_line.clone(),
                        exit,
                        stderr,
                    });
                }
                Err(Started::Failed(Error::Connect(ConnectError::Handshake {
                    command: link.command_line.clone(),
                    method: failure.method.to_owned(),
                    source: Box::new(failure.error),
                    exit,
                    stderr_tail: stderr,
                })))
            }
        }
    }

    /// Spawns the stdio server of `config` and starts its session.
    fn stdio(config: &ConnectConfig) -> Result<Link, Error> {
        let command_line = process::command_line(&config.command, &config.args);
        let spawned = process::spawn(config)?;
        tracing::debug!(server = %command_line, pid = ?spawned.pid, "spawned MCP server");
        let session = Session::stdio(
            spawned.stdin,
            spawned.stdout,
            spawned.stderr,
            config.request_timeout,
            config.max_message_size,
            command_line.clone(),
            config.elicitation.clone(),
        );
        // The server's exit closes the session even when no EOF arrives on its stdout.
        let process = process::watch(
            spawned.child,
            spawned.pid,
            session.close_after_exit(EXIT_DRAIN),
        );
        Ok(Self::new(session, Some(process), spawned.pid, command_line))
    }

    /// Starts a session with the streamable HTTP server at `url` (nothing is sent yet).
    #[cfg(feature = "http-no-provider")]
    fn http(config: &ConnectConfig, url: &str) -> Result<Link, Error> {
        let http = super::http::Http::new(config, url)?;
        let label = http.label().to_owned();
        let session = Session::http(
            http,
            config.request_timeout,
            config.max_message_size,
            config.elicitation.clone(),
        );
        Ok(Self::new(session, None, None, label))
    }

    /// Without the `http` feature, a URL pin is an error.
    #[cfg(not(feature = "http-no-provider"))]
    fn http(_config: &ConnectConfig, url: &str) -> Result<Link, Error> {
        Err(Error::Config(
            crate::error::ConfigError::HttpFeatureDisabled {
                server: super::config::redact_url(url),
            },
        ))
    }

    fn new(
        session: Session,
        process: Option<process::Watched>,
        pid: Option<u32>,
        command_line: String,
    ) -> Self {
        Self {
            session,
            process,
            stopped: tokio::sync::Mutex::new(false),
            pid,
            command_line,
        }
    }

    /// Stops the server; idempotent, never fails (see
    /// [`McpClient::disconnect_within`](crate::McpClient::disconnect_within)): the session
    /// closes, an HTTP session ends with `DELETE`, a stdio server's stdin is closed and it
    /// gets `eof_grace` to exit, then SIGTERM and SIGKILL to its process group.
    pub(crate) async fn close(&self, eof_grace: Duration) {
        let mut stopped = self.stopped.lock().await;
        if *stopped {
            return;
        }
        *stopped = true;
        self.session.close();
        self.session.transport().end().await;
        if let Some(process) = &self.process {
            process.shutdown(eof_grace).await;
        }
        self.session.stop_tasks(STDERR_DRAIN).await;
        tracing::debug!(server = %self.command_line, "MCP server stopped");
    }

    /// How the server process ended, for messages (`"; the server exited (exit status: 3)"`),
    /// when it ends within [`EXIT_STATUS_WAIT`]; else empty.
    async fn exit_status(&self) -> String {
        let Some(process) = &self.process else {
            return String::new();
        };
        process
            .exited_within(EXIT_STATUS_WAIT)
            .await
            .flatten()
            .map(|status| format!("; {}", ended(status)))
            .unwrap_or_default()
    }

    /// A request's error, with the server's exit status and stderr lines when the server
    /// went away while it was pending ([`DisconnectedError::ServerExited`]); other errors
    /// unchanged.
    pub(crate) async fn explain(&self, method: &str, error: Error) -> Error {
        if !matches!(
            error,
            Error::Disconnected(DisconnectedError::ConnectionClosed)
        ) || self.session.closed_by_client()
            || self.process.is_none()
        {
            return error;
        }
        let exit = self.exit_status().await;
        // The stderr reader may still hold the last lines the server wrote before exiting.
        self.session.stderr_drained(STDERR_DRAIN).await;
        Error::Disconnected(DisconnectedError::ServerExited {
            command: self.command_line.clone(),
            method: method.to_owned(),
            exit,
            stderr: self.session.stderr_tail(),
        })
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        if !*self.stopped.get_mut() {
            // The whole process group, and the server itself through its watcher (or, when the
            // runtime is already gone, `kill_on_drop` of the dropped watcher's `Child`).
            if let Some(process) = &self.process {
                process.kill_now();
            }
            // Over HTTP: end the session with `DELETE` in the background, when a Tokio
            // runtime is still there to run it (the task is bounded by 2 s).
            self.session.transport().end_in_background();
        }
    }
}

/// How a server process ended, for messages: `the server exited (exit status: 3)`, or
/// `the server was killed (signal: 9 (SIGKILL))`.
fn ended(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if status.signal().is_some() {
            return format!("the server was killed ({status})");
        }
    }
    format!("the server exited ({status})")
}

/// Whether a server that went away after `server/discover` without answering refused it (a
/// server before 2026-07-28 that accepts only `initialize` first, worth starting again with
/// it) rather than failed to start (a missing variable, a traceback: starting it again only
/// repeats the failure and hides its cause). `stderr`, its rendered lines: empty (it left
/// without a word), or naming the lifecycle (`discover`, `initialize`, `initialization`,
/// any case), as such servers' complaints do.
fn refused_discover(stderr: &str) -> bool {
    let stderr = stderr.to_ascii_lowercase();
    stderr.is_empty() || stderr.contains("discover") || stderr.contains("initializ")
}

#[cfg(test)]
mod tests {
    use super::refused_discover;

    #[test]
    fn a_refusal_of_server_discover_is_silent_or_names_the_lifecycle() {
        assert!(refused_discover(""));
        assert!(refused_discover(
            "; server stderr: error: expected `initialize` as the first message"
        ));
        assert!(refused_discover(
            "; server stderr: Received request before Initialization was complete"
        ));
        assert!(refused_discover(
            "; server stderr: unknown method server/discover"
        ));
        assert!(!refused_discover(
            "; server stderr: KeyError: 'GITHUB_TOKEN' | Traceback (most recent call last):"
        ));
        assert!(!refused_discover(
            "; server stderr: Error: unknown flag: --bogus"
        ));
    }
}
