//! [`ConnectError`]: the server could not be started, reached or authenticated.

use super::Error;

/// The server could not be started, reached, authenticated or brought through the lifecycle
/// handshake. Check the command or URL, that the server is installed and running, the network
/// and the credentials; the message says which. Over HTTP a request of an open session can fail
/// this way too ([`HttpUnreachable`](ConnectError::HttpUnreachable),
/// [`Http`](ConnectError::Http), [`HttpAuth`](ConnectError::HttpAuth)): the server stopped
/// answering as an MCP server, and retrying helps only once it does again.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConnectError {
    /// The MCP server process could not be started (open-multi-agent's `docs/mcp.md`, "Connecting
    /// to a server").
    #[error(
        "cannot start the MCP server `{command}` (check that the command path is right and that \
         the server is installed; a pinned npm server: run `npm ci` where its package-lock.json is)"
    )]
    #[non_exhaustive]
    Spawn {
        /// The command line (command and arguments) that failed to start.
        command: String,
        /// The OS error from spawning.
        #[source]
        source: std::io::Error,
    },

    /// The lifecycle handshake with the server failed (`initialize`, or the 2026-07-28
    /// `server/discover` of SEP-2575): it exited, did not answer within the request timeout,
    /// answered with an error, or sent an unusable result.
    ///
    /// `Display`: ``the MCP <method> handshake with `<command>` failed``, then how the server
    /// ended and its stderr in parentheses when known (`… failed (the server exited (exit
    /// status: 3); server stderr: fatal: …)`); the reason is the
    /// [`source`](std::error::Error::source).
    #[error(
        "the MCP {method} handshake with `{command}` failed{}",
        details(exit, stderr_tail)
    )]
    #[non_exhaustive]
    Handshake {
        /// The server's command line.
        command: String,
        /// The request that started the failed handshake: `initialize` or `server/discover`
        /// (also when [`Lifecycle::Auto`](crate::connect::Lifecycle::Auto) then fell back to
        /// `initialize`: the source is then a [`ConnectError::FallbackFailed`]).
        method: String,
        /// What went wrong ([`RequestError::Timeout`](super::RequestError::Timeout),
        /// [`DisconnectedError::ConnectionClosed`](super::DisconnectedError::ConnectionClosed),
        /// [`RequestError::Rpc`](super::RequestError::Rpc),
        /// [`ProtocolError::InvalidResponse`](super::ProtocolError::InvalidResponse), …).
        #[source]
        source: Box<Error>,
        /// When the server went away during the handshake and its exit was seen:
        /// `"; the server exited (exit status: 3)"` or `"; the server was killed (signal: 9
        /// (SIGKILL))"`; else empty.
        exit: String,
        /// The server's stderr lines that matter, formatted as `"; server stderr: …"` (every
        /// line) or `"; server stderr (K of N lines: the first 5, those that look like errors,
        /// the last 10): …"` (`…` for left-out lines; each line cut to 300 chars), or empty
        /// when it wrote none.
        stderr_tail: String,
    },

    /// The program answered the lifecycle request with -32601 Method not found: whatever it
    /// is (`cat`, a shell, another JSON-RPC service), it does not seem to be an MCP server.
    #[error(
        "`{command}` does not seem to be an MCP server (it does not know `{method}`; check the \
         command and its arguments)"
    )]
    #[non_exhaustive]
    NotMcpServer {
        /// The program's command line.
        command: String,
        /// The request it did not know (`initialize`).
        method: String,
        /// Its answer ([`RequestError::Rpc`](super::RequestError::Rpc) -32601).
        #[source]
        source: Box<Error>,
    },

    /// [`Lifecycle::Auto`](crate::connect::Lifecycle::Auto): `server/discover` showed a server
    /// without the 2026-07-28 lifecycle (a JSON-RPC error, or no answer before the connect
    /// deadline), and the `initialize` handshake on the same connection failed too.
    ///
    /// `Display`: what `server/discover` got, then `; the fallback `initialize` handshake
    /// failed too`; why it failed is the [`source`](std::error::Error::source).
    #[error("{discover}; the fallback `initialize` handshake failed too")]
    #[non_exhaustive]
    FallbackFailed {
        /// What `server/discover` got ([`RequestError::Rpc`](super::RequestError::Rpc) or
        /// [`RequestError::Timeout`](super::RequestError::Timeout)).
        discover: Box<Error>,
        /// Why `initialize` failed.
        #[source]
        fallback: Box<Error>,
    },

    /// [`Lifecycle::Discover`](crate::connect::Lifecycle::Discover): the server answered
    /// `server/discover` with a JSON-RPC error that marks a server without the 2026-07-28
    /// lifecycle (protocol revision 2026-07-28, SEP-2575), and this lifecycle does not fall back.
    #[error(
        "the server does not speak the 2026-07-28 lifecycle (connect with \
         `ConnectConfig::with_lifecycle(Lifecycle::Auto)` or `Lifecycle::Initialize`; manifest \
         key `lifecycle`)"
    )]
    #[non_exhaustive]
    DiscoverUnsupported {
        /// The server's answer ([`RequestError::Rpc`](super::RequestError::Rpc)).
        #[source]
        source: Box<Error>,
    },

    /// The server could not be reached over HTTP: connection refused, DNS failure, TLS
    /// failure, a redirect loop, or the connection broke while the response was read. The
    /// cause (from `reqwest`, without the URL) is the [`source`](std::error::Error::source).
    #[error(
        "cannot reach the MCP server `{server}` for `{method}` (check the URL, that the server \
         is running, and the network)"
    )]
    #[non_exhaustive]
    HttpUnreachable {
        /// The server's URL, redacted.
        server: String,
        /// The JSON-RPC method of the request (`initialize`, `tools/call`, …).
        method: String,
        /// What failed.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },

    /// The server answered an HTTP request with a status or a body that is not an MCP
    /// response (a proxy's `502` page, `200 text/html`, an SSE stream that ended before the
    /// response, a redirect to another origin). Says the status, the redacted URL and the
    /// first 300 chars of the body.
    #[error(
        "the MCP server `{server}` answered `{method}` with {}: {reason}",
        status_text(*status)
    )]
    #[non_exhaustive]
    Http {
        /// The server's URL, redacted.
        server: String,
        /// The JSON-RPC method of the request.
        method: String,
        /// The HTTP status, when a response arrived.
        status: Option<u16>,
        /// What was wrong, with an excerpt of the body and what to do.
        reason: String,
    },

    /// The server answered `401 Unauthorized` or `403 Forbidden`. The message quotes the
    /// server's `WWW-Authenticate` challenge (cut to 300 chars) and says what to do: check
    /// the variables that were used, or supply what fits the server (a token, with the
    /// manifest keys `bearer-env` / `header-env` or `ConnectConfig::with_bearer_env` /
    /// `with_header_env`; OAuth, with `oma-mcp login` and `ConnectConfig::with_oauth`, when its
    /// challenge names protected resource metadata; both when that cannot be told), or enable
    /// OAuth for a URL whose login is stored. A connection with OAuth
    /// reports a refusal it could not cure as [`ConnectError::Authorization`] or, after
    /// repeated refusals of fresh tokens, as this error with a hint about permissions.
    #[error(
        "the MCP server `{server}` answered `{method}` with HTTP {status} ({}){}; {hint}",
        if *status == 401 { "unauthorized" } else { "forbidden" },
        challenge.as_ref().map(|c| format!(", challenge: {c}")).unwrap_or_default()
    )]
    #[non_exhaustive]
    HttpAuth {
        /// The server's URL, redacted.
        server: String,
        /// The JSON-RPC method of the request.
        method: String,
        /// 401 or 403.
        status: u16,
        /// The `WWW-Authenticate` header, when sent.
        challenge: Option<String>,
        /// What to do: which variables were used, or how to pass credentials.
        hint: String,
    },

    /// Obtaining an OAuth access token for a server failed (cargo feature `oauth`, or a
    /// program's own [`TokenProvider`](crate::connect::TokenProvider)): discovery, registration,
    /// the user's approval, the token exchange, a refresh or a step-up. The message says which
    /// step failed, why, and what to do (often: which command logs in); it never holds a
    /// secret.
    #[error("OAuth authorization for the MCP server `{server}` (`{method}`): {reason}{}", if hint.is_empty() { String::new() } else { format!("; {hint}") })]
    #[non_exhaustive]
    Authorization {
        /// The server's URL, redacted.
        server: String,
        /// The JSON-RPC method of the request that needed the token.
        method: String,
        /// What failed.
        reason: String,
        /// What to do.
        hint: String,
    },
}

/// `HTTP 502`, or `no HTTP response` when none arrived, for [`ConnectError::Http`].
fn status_text(status: Option<u16>) -> String {
    status.map_or_else(|| "no HTTP response".to_owned(), |s| format!("HTTP {s}"))
}

/// How the server ended and its stderr, for [`ConnectError::Handshake`]: `" (<exit>;
/// <stderr>)"` without the fields' leading `"; "`, or empty when neither is known.
pub(super) fn details(exit: &str, stderr: &str) -> String {
    let parts: Vec<&str> = [exit, stderr]
        .into_iter()
        .map(|part| part.strip_prefix("; ").unwrap_or(part))
        .filter(|part| !part.is_empty())
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join("; "))
    }
}
