//! The seam between the session and the wire: a [`Transport`] only moves messages. The
//! session owns one and hands it each [`Outgoing`] message; what the server sends reaches the
//! session's [`Inbox`] from the transport's tasks. Everything that is not moving messages
//! (ids, the pending requests, timeouts, cancellation, the lifecycle) is the session's.

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

#[cfg(feature = "http-no-provider")]
use super::http::HttpTransport;
use super::inbox::Inbox;
use super::message::{Closed, Outgoing};
use super::stdio::Stdio;

/// How messages travel: a child's pipes, or streamable HTTP (cargo feature `http`).
pub(crate) enum Transport {
    /// Newline-delimited JSON over a child's stdin and stdout ([`super::stdio`]).
    Stdio(Stdio),
    /// A `POST` per message to a URL ([`super::http`]).
    #[cfg(feature = "http-no-provider")]
    Http(HttpTransport),
}

impl Transport {
    /// Sends (or queues) `message`; [`Closed`] once the transport no longer sends. When a
    /// request's message cannot be sent, the transport fails that request in the inbox.
    pub(super) fn send(&self, message: Outgoing<'_>) -> Result<(), Closed> {
        match self {
            Self::Stdio(stdio) => stdio.send(message),
            #[cfg(feature = "http-no-provider")]
            Self::Http(http) => http.send(message),
        }
    }

    /// The request `id` ended without its answer (timeout, cancellation, dropped): over HTTP
    /// its response stream is no longer read; over stdio there is nothing to stop.
    pub(super) fn abandon(&self, id: u64) {
        match self {
            Self::Stdio(_) => {
                let _ = id;
            }
            #[cfg(feature = "http-no-provider")]
            Self::Http(http) => http.abandon(id),
        }
    }

    /// The session closed: stdin is closed after the queued lines (the server sees EOF), or
    /// the HTTP write loop ends.
    pub(super) fn close(&self) {
        match self {
            Self::Stdio(stdio) => stdio.close(),
            #[cfg(feature = "http-no-provider")]
            Self::Http(http) => http.close(),
        }
    }

    /// What runs once the server process exited: a stdio reader gets up to `drain` to reach
    /// the end of stdout (so the answers the server wrote before exiting are still
    /// delivered), then `inbox` and the transport close.
    pub(super) fn close_after_exit(
        &self,
        inbox: Arc<Inbox>,
        drain: Duration,
    ) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        match self {
            Self::Stdio(stdio) => Box::pin(stdio.close_after_exit(inbox, drain)),
            #[cfg(feature = "http-no-provider")]
            Self::Http(http) => Box::pin(http.close_after_exit(inbox)),
        }
    }

    /// Stops the transport's tasks; a stdio server's stderr gets up to `bound` to drain what
    /// the (now dead) server wrote first.
    pub(super) async fn stop(&self, bound: Duration) {
        match self {
            Self::Stdio(stdio) => stdio.stop(bound).await,
            #[cfg(feature = "http-no-provider")]
            Self::Http(http) => http.abort(),
        }
    }

    /// Stops every task now (the session is dropped).
    pub(super) fn abort(&self) {
        match self {
            Self::Stdio(stdio) => stdio.abort(),
            #[cfg(feature = "http-no-provider")]
            Self::Http(http) => http.abort(),
        }
    }

    /// A stdio server's stderr lines that matter, formatted for errors (see
    /// [`StderrLines::render`](super::stderr::StderrLines::render)); empty over HTTP.
    pub(super) fn stderr_tail(&self) -> String {
        match self {
            Self::Stdio(stdio) => stdio.stderr().render(),
            #[cfg(feature = "http-no-provider")]
            Self::Http(_) => String::new(),
        }
    }

    /// Waits up to `bound` for a stdio server's stderr to reach its end (after the server
    /// exited); at once over HTTP.
    pub(super) async fn stderr_drained(&self, bound: Duration) {
        match self {
            Self::Stdio(stdio) => stdio.stderr().drained(bound).await,
            #[cfg(feature = "http-no-provider")]
            Self::Http(_) => {}
        }
    }

    /// The lifecycle negotiated `version`: over HTTP it goes on every later request as
    /// `MCP-Protocol-Version` (MCP 2025-06-18, "Protocol Version Header"); nothing over stdio.
    /// Synchronous, so it is in place before `notifications/initialized` is queued.
    pub(crate) fn negotiated(&self, version: &str) {
        match self {
            Self::Stdio(_) => {
                let _ = version;
            }
            #[cfg(feature = "http-no-provider")]
            Self::Http(http) => http.negotiated(version),
        }
    }

    /// The lifecycle is through (`handshake`: with `initialize`): over HTTP the stream of
    /// server messages opens (waited for up to 2 s); nothing over stdio, nor after
    /// `server/discover`.
    pub(crate) async fn established(&self, handshake: bool) {
        match self {
            Self::Stdio(_) => {
                let _ = handshake;
            }
            #[cfg(feature = "http-no-provider")]
            Self::Http(http) => http.established(handshake).await,
        }
    }

    /// The tools listed: over HTTP their `x-mcp-header` annotations are learned for the
    /// `Mcp-Param-*` headers of later calls; nothing over stdio.
    pub(crate) fn learn_tools(&self, tools: &[Value]) {
        match self {
            Self::Stdio(_) => {
                let _ = tools;
            }
            #[cfg(feature = "http-no-provider")]
            Self::Http(http) => http.learn_tools(tools),
        }
    }

    /// Ends the server's session: over HTTP `DELETE` with the session id (bounded by 2 s);
    /// nothing over stdio (the process is stopped by its owner).
    pub(crate) async fn end(&self) {
        match self {
            Self::Stdio(_) => {}
            #[cfg(feature = "http-no-provider")]
            Self::Http(http) => http.end_session().await,
        }
    }

    /// [`Transport::end`] in the background, when a Tokio runtime is there to run it (the
    /// client is dropped without disconnecting).
    pub(crate) fn end_in_background(&self) {
        match self {
            Self::Stdio(_) => {}
            #[cfg(feature = "http-no-provider")]
            Self::Http(http) => http.end_session_in_background(),
        }
    }

    /// Every credential the transport has sent (HTTP: `bearer-env` and `header-env` values,
    /// each OAuth access token); none over stdio.
    pub(crate) fn sent_credentials(&self) -> Vec<String> {
        match self {
            Self::Stdio(_) => Vec::new(),
            #[cfg(feature = "http-no-provider")]
            Self::Http(http) => http.sent_credentials(),
        }
    }

    /// Whether messages travel over streamable HTTP.
    #[cfg(feature = "http-no-provider")]
    pub(crate) fn is_http(&self) -> bool {
        matches!(self, Self::Http(_))
    }
}
