//! [`DisconnectedError`]: the connection to the server is gone.

/// The connection to the server is gone: the server exited or closed its stdout, or the
/// session was closed. Every later request of this client fails with
/// [`NotConnected`](DisconnectedError::NotConnected); connect again (a new
/// [`McpClient`](crate::McpClient)) to go on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DisconnectedError {
    /// The server went away while a request was pending after the lifecycle (it exited or
    /// was killed, or closed its stdout): open-multi-agent's `MCP error -32000: Connection
    /// closed` ([`DisconnectedError::ConnectionClosed`]'s text, first, so the message starts as
    /// the behaviour contract's does), then the server, the request, how the process ended and
    /// its stderr lines, e.g. `MCP error -32000: Connection closed: the MCP server `srv` went
    /// away during `tools/call`; the server exited (exit status: 5); server stderr: error: the
    /// database is gone`. It has no [`source`](std::error::Error::source): the closed
    /// connection is part of the message. Later requests fail with
    /// [`DisconnectedError::NotConnected`]; connect again.
    #[error(
        "MCP error -32000: Connection closed: the MCP server `{command}` went away during \
         `{method}`{exit}{stderr}"
    )]
    #[non_exhaustive]
    ServerExited {
        /// The server's command line.
        command: String,
        /// The pending request's method (`tools/call`, `tools/list`).
        method: String,
        /// `"; the server exited (exit status: 5)"` or `"; the server was killed (signal: 9
        /// (SIGKILL))"` when the process ended within 500 ms of the connection closing; else
        /// empty (it closed its stdout but runs on, until the session stops it).
        exit: String,
        /// The server's stderr lines that matter, as in
        /// [`ConnectError::Handshake`](super::ConnectError::Handshake)'s `stderr_tail`.
        stderr: String,
    },

    /// The server closed its stdout (usually: it exited) while the request was pending.
    /// `Display` is exactly the contract's text.
    #[error("MCP error -32000: Connection closed")]
    ConnectionClosed,

    /// The connection was closed (by the server or by `disconnect()`) before this request.
    /// `Display` is exactly the contract's text.
    #[error("Not connected")]
    NotConnected,
}
