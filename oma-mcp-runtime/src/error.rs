//! The one error type of `oma-mcp-runtime`, grouped by what a caller does about it, and
//! [`Chain`] and [`Report`] to print an error with its causes.
//!
//! [`Error`] is one of eight groups; each group's type holds the variants and their fields:
//!
//! | Group | Type | What to do |
//! |---|---|---|
//! | [`Error::Config`] | [`ConfigError`] | fix the configuration; nothing was sent |
//! | [`Error::Connect`] | [`ConnectError`] | check the command or URL, the server, the network, the
//! credentials |
//! | [`Error::Disconnected`] | [`DisconnectedError`] | connect again |
//! | [`Error::Protocol`] | [`ProtocolError`] | the server's bug: report it, or pin another version
//! |
//! | [`Error::Request`] | [`RequestError`] | this request failed; the session goes on |
//! | [`Error::Snapshot`] | [`SnapshotError`](oma_mcp_core::SnapshotError) | fix or take the
//! snapshot file again |
//! | [`Error::Drift`] | [`DriftRefused`](oma_mcp_core::DriftRefused) | review the drift, then take
//! the snapshot again |
//! | [`Error::Withheld`] | [`ToolWithheld`](oma_mcp_core::drift::ToolWithheld) | this tool is
//! quarantined; review its changes, then take the snapshot again |
//!
//! [`Error::kind`] names the group; `is_*` predicates answer the common questions (timed out?
//! cancelled? connection gone?) also through a failed handshake.
//!
//! Each error's `Display` is its own message; its cause is reachable through
//! [`std::error::Error::source`] and is never repeated in the message. Print an error with its
//! causes as `<message>: <cause>: <cause>` with [`Chain`] (or [`Error::chain`]), the way
//! ripgrep prints its errors; `Display` alone shows only the top message. A group is
//! transparent: the `Display` and `source` of [`Error`] are those of the variant inside.

mod config;
mod connect;
mod disconnected;
mod protocol;
mod request;
#[cfg(test)]
mod tests;

pub use config::ConfigError;
#[cfg(feature = "http-no-provider")]
pub(crate) use config::TOKEN_SETTINGS;
pub use connect::ConnectError;
pub use disconnected::DisconnectedError;
pub use oma_mcp_core::error::{Chain, Report};
pub use protocol::ProtocolError;
pub use request::RequestError;

/// Everything that can go wrong in `oma-mcp-runtime`, grouped by what a caller does about it.
///
/// Each variant of a group carries what failed and where (tool name, server command, file
/// path), and its message says what to do about it. The cause of a variant that wraps one (an
/// I/O error, the error inside a failed handshake) is its
/// [`source`](std::error::Error::source) only: print the whole chain with [`Error::chain`].
///
/// ```
/// use oma_mcp_runtime::error::{ConfigError, Error, ErrorKind};
///
/// let err = Error::from(ConfigError::InvalidUrl {
///     url: "ftp://example.com/mcp".to_owned(),
/// });
/// assert_eq!(
///     err.to_string(),
///     "the MCP server URL `ftp://example.com/mcp` is not an absolute http:// or https:// URL"
/// );
/// assert_eq!(err.kind(), ErrorKind::Config);
/// assert!(!err.is_timeout());
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The configuration is wrong (an environment variable, a header, a URL, a cargo feature,
    /// a tool registered twice); nothing was sent. Fix it and try again.
    #[error(transparent)]
    Config(#[from] ConfigError),

    /// The server could not be started, reached, authenticated or brought through the
    /// lifecycle handshake. Check the command or URL, the server, the network and the
    /// credentials.
    #[error(transparent)]
    Connect(#[from] ConnectError),

    /// The connection is gone (the server exited or closed its stdout, or the session was
    /// closed). Connect again.
    #[error(transparent)]
    Disconnected(#[from] DisconnectedError),

    /// The server sent something oma-mcp cannot use (an invalid response, a repeated cursor,
    /// a too deeply nested message, an invalid JSON Schema, two tools with one name). Report
    /// it to the server's authors.
    #[error(transparent)]
    Protocol(#[from] ProtocolError),

    /// This request failed (a JSON-RPC error, a timeout, a cancellation, an answer over the
    /// size limit, a server that does not read); the session goes on.
    #[error(transparent)]
    Request(#[from] RequestError),

    /// A snapshot cannot be read or written, or its text is not a snapshot.
    #[error(transparent)]
    Snapshot(#[from] oma_mcp_core::SnapshotError),

    /// The live server drifted from its snapshot and the [`crate::DriftPolicy`] says to fail
    /// ([`crate::DriftReport::apply`]). Only with cargo feature `drift` (on by default).
    #[cfg(feature = "drift")]
    #[error(transparent)]
    Drift(#[from] oma_mcp_core::DriftRefused),

    /// The tool differs from its snapshot and the connection's
    /// [`DriftPolicy::Quarantine`](crate::DriftPolicy::Quarantine) withholds it: the call was
    /// not sent; the server's other tools keep working (see [`crate::drift`]). Only with cargo
    /// feature `drift` (on by default).
    #[cfg(feature = "drift")]
    #[error(transparent)]
    Withheld(#[from] oma_mcp_core::drift::ToolWithheld),
}

/// Which group an [`Error`] is in ([`Error::kind`]): what a caller does about it. One
/// fieldless variant per variant of [`Error`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// [`Error::Config`]: fix the configuration.
    Config,
    /// [`Error::Connect`]: the server could not be started, reached or authenticated.
    Connect,
    /// [`Error::Disconnected`]: the connection is gone; connect again.
    Disconnected,
    /// [`Error::Protocol`]: the server sent something oma-mcp cannot use.
    Protocol,
    /// [`Error::Request`]: this request failed; the session goes on.
    Request,
    /// [`Error::Snapshot`]: a snapshot file cannot be read, written or parsed.
    Snapshot,
    /// [`Error::Drift`]: the policy refused the server's drift (only raised with cargo
    /// feature `drift`).
    Drift,
    /// [`Error::Withheld`]: the quarantine withholds the tool (only raised with cargo feature
    /// `drift`).
    Withheld,
}

/// A name collision is a [`ProtocolError`], so `?` on [`oma_mcp_core::naming::normalize_all`]
/// gives an [`Error::Protocol`].
impl From<oma_mcp_core::NameCollision> for Error {
    fn from(collision: oma_mcp_core::NameCollision) -> Self {
        Error::Protocol(ProtocolError::NameCollision(collision))
    }
}

impl Error {
    /// The group this error is in, for a `match` on what to do about it. A failed handshake is
    /// [`ErrorKind::Connect`] whatever its cause; ask [`Error::is_timeout`],
    /// [`Error::is_connection_lost`], … about the cause.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Config(_) => ErrorKind::Config,
            Error::Connect(_) => ErrorKind::Connect,
            Error::Disconnected(_) => ErrorKind::Disconnected,
            Error::Protocol(_) => ErrorKind::Protocol,
            Error::Request(_) => ErrorKind::Request,
            Error::Snapshot(_) => ErrorKind::Snapshot,
            #[cfg(feature = "drift")]
            Error::Drift(_) => ErrorKind::Drift,
            #[cfg(feature = "drift")]
            Error::Withheld(_) => ErrorKind::Withheld,
        }
    }

    /// `true` for an [`Error::Config`]: the configuration is wrong and nothing was sent.
    pub fn is_config(&self) -> bool {
        self.kind() == ErrorKind::Config
    }

    /// `true` for an [`Error::Connect`]: the server could not be started, reached,
    /// authenticated or brought through the handshake (whatever the handshake's cause).
    pub fn is_connect(&self) -> bool {
        self.kind() == ErrorKind::Connect
    }

    /// `true` for an [`Error::Protocol`]: the server sent something oma-mcp cannot use (not
    /// when wrapped in a failed handshake, which is [`Error::is_connect`]).
    pub fn is_protocol(&self) -> bool {
        self.kind() == ErrorKind::Protocol
    }

    /// `true` for a JSON-RPC error answer ([`RequestError::Rpc`]), also when wrapped in a
    /// failed handshake ([`ConnectError::Handshake`], [`ConnectError::NotMcpServer`],
    /// [`ConnectError::DiscoverUnsupported`], the fallback of
    /// [`ConnectError::FallbackFailed`]); its code is [`Error::rpc_code`].
    pub fn is_rpc(&self) -> bool {
        matches!(self.root(), Error::Request(RequestError::Rpc { .. }))
    }

    /// `true` for [`RequestError::Timeout`], also when wrapped in a failed handshake.
    pub fn is_timeout(&self) -> bool {
        matches!(self.root(), Error::Request(RequestError::Timeout { .. }))
    }

    /// `true` for [`RequestError::Cancelled`]: the caller cancelled the call.
    pub fn is_cancelled(&self) -> bool {
        matches!(self.root(), Error::Request(RequestError::Cancelled { .. }))
    }

    /// `true` for [`DisconnectedError::ServerExited`], [`DisconnectedError::ConnectionClosed`]
    /// and [`DisconnectedError::NotConnected`] (every [`Error::Disconnected`]), also when
    /// wrapped in a failed handshake: the connection is gone and a new one is needed.
    pub fn is_connection_lost(&self) -> bool {
        matches!(self.root(), Error::Disconnected(_))
    }

    /// The JSON-RPC error code of a [`RequestError::Rpc`] (also inside a failed handshake);
    /// `-32001` for a timeout and `-32000` for a closed connection
    /// ([`DisconnectedError::ConnectionClosed`], [`DisconnectedError::ServerExited`]), as the
    /// contract reports them; `None` otherwise.
    pub fn rpc_code(&self) -> Option<i64> {
        match self.root() {
            Error::Request(RequestError::Rpc { code, .. }) => Some(*code),
            Error::Request(RequestError::Timeout { .. }) => Some(-32001),
            Error::Disconnected(DisconnectedError::ConnectionClosed) => Some(-32000),
            _ => None,
        }
    }

    /// The server command line (or redacted URL) this error names in its message, if it names
    /// one ([`ConnectError::Spawn`], [`ConnectError::Handshake`],
    /// [`ConnectError::NotMcpServer`], the HTTP errors, [`ConfigError::InvalidUrl`],
    /// [`DisconnectedError::ServerExited`], [`ProtocolError::RepeatedCursor`],
    /// [`ProtocolError::InvalidResponse`], and the lifecycle errors wrapping a handshake), so
    /// a caller adding context does not repeat it.
    pub fn command(&self) -> Option<&str> {
        match self {
            Error::Connect(
                ConnectError::Spawn { command, .. }
                | ConnectError::Handshake { command, .. }
                | ConnectError::NotMcpServer { command, .. },
            )
            | Error::Disconnected(DisconnectedError::ServerExited { command, .. })
            | Error::Protocol(
                ProtocolError::RepeatedCursor { command, .. }
                | ProtocolError::InvalidResponse { command, .. },
            ) => Some(command),
            Error::Connect(
                ConnectError::HttpUnreachable { server, .. }
                | ConnectError::Http { server, .. }
                | ConnectError::HttpAuth { server, .. }
                | ConnectError::Authorization { server, .. },
            ) => Some(server),
            Error::Config(ConfigError::InvalidUrl { url }) => Some(url),
            Error::Connect(ConnectError::FallbackFailed { discover, .. }) => discover.command(),
            Error::Connect(ConnectError::DiscoverUnsupported { source }) => source.command(),
            _ => None,
        }
    }

    /// `<message>: <cause>: <cause>`: this error with its whole cause chain (see [`Chain`]).
    ///
    /// ```
    /// use oma_mcp_runtime::error::Error;
    /// use oma_mcp_runtime::snapshot::SnapshotError;
    ///
    /// let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
    /// let err = Error::from(SnapshotError::io("read", "mcp/a.snapshot.json", io));
    /// assert_eq!(
    ///     err.chain().to_string(),
    ///     "cannot read snapshot mcp/a.snapshot.json: no such file"
    /// );
    /// ```
    pub fn chain(&self) -> Chain<'_> {
        Chain(self)
    }

    /// The error inside a failed handshake ([`ConnectError::Handshake`],
    /// [`ConnectError::NotMcpServer`], [`ConnectError::DiscoverUnsupported`]; for a failed
    /// fallback: the `initialize` one), or `self`;
    /// [`DisconnectedError::ConnectionClosed`] for [`DisconnectedError::ServerExited`].
    fn root(&self) -> &Error {
        static CONNECTION_CLOSED: Error = Error::Disconnected(DisconnectedError::ConnectionClosed);
        match self {
            Error::Disconnected(DisconnectedError::ServerExited { .. }) => &CONNECTION_CLOSED,
            Error::Connect(
                ConnectError::Handshake { source, .. }
                | ConnectError::DiscoverUnsupported { source }
                | ConnectError::NotMcpServer { source, .. },
            ) => source.root(),
            Error::Connect(ConnectError::FallbackFailed { fallback, .. }) => fallback.root(),
            other => other,
        }
    }
}
