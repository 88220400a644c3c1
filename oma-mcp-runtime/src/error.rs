//! The one error type of `oma-mcp-runtime`, and [`Chain`] and [`Report`] to print an error
//! with its causes.
//!
//! Each error's `Display` is its own message; its cause is reachable through
//! [`std::error::Error::source`] and is never repeated in the message. Print an error with its
//! causes as `<message>: <cause>: <cause>` with [`Chain`] (or [`Error::chain`]), the way
//! ripgrep prints its errors; `Display` alone shows only the top message.

pub use oma_mcp_core::error::{Chain, Report};

/// Everything that can go wrong in `oma-mcp-runtime`.
///
/// Each variant carries what failed and where (tool name, server command, file path), and its
/// message says what to do about it. The cause of a variant that wraps one (an I/O error, the
/// error inside a failed handshake) is its [`source`](std::error::Error::source) only: print
/// the whole chain with [`Error::chain`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The MCP server process could not be started (open-multi-agent's `docs/mcp.md`, "Connecting
    /// to a server").
    #[error(
        "cannot start the MCP server `{command}` (check that the command path is right and that \
         the server is installed; a pinned npm server: run `npm ci` where its package-lock.json is)"
    )]
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
    Handshake {
        /// The server's command line.
        command: String,
        /// The request that started the failed handshake: `initialize` or `server/discover`
        /// (also when [`Lifecycle::Auto`](crate::connect::Lifecycle::Auto) then fell back to
        /// `initialize`: the source is then an [`Error::FallbackFailed`]).
        method: String,
        /// What went wrong ([`Error::Timeout`], [`Error::ConnectionClosed`], [`Error::Rpc`],
        /// [`Error::InvalidResponse`], …).
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

    /// The server went away while a request was pending after the lifecycle (it exited or
    /// was killed, or closed its stdout): open-multi-agent's `MCP error -32000: Connection
    /// closed` ([`Error::ConnectionClosed`]'s text, first, so the message starts as the
    /// behaviour contract's does), then the server, the request, how the process ended and its
    /// stderr lines, e.g. `MCP error -32000: Connection closed: the MCP server `srv` went away
    /// during `tools/call`; the server exited (exit status: 5); server stderr: error: the
    /// database is gone`. It has no [`source`](std::error::Error::source): the closed
    /// connection is part of the message. Later requests fail with [`Error::NotConnected`];
    /// connect again.
    #[error(
        "MCP error -32000: Connection closed: the MCP server `{command}` went away during \
         `{method}`{exit}{stderr}"
    )]
    ServerExited {
        /// The server's command line.
        command: String,
        /// The pending request's method (`tools/call`, `tools/list`).
        method: String,
        /// `"; the server exited (exit status: 5)"` or `"; the server was killed (signal: 9
        /// (SIGKILL))"` when the process ended within 500 ms of the connection closing; else
        /// empty (it closed its stdout but runs on, until the session stops it).
        exit: String,
        /// The server's stderr lines that matter, as in [`Error::Handshake`]'s `stderr_tail`.
        stderr: String,
    },

    /// The program answered the lifecycle request with -32601 Method not found: whatever it
    /// is (`cat`, a shell, another JSON-RPC service), it does not seem to be an MCP server.
    #[error(
        "`{command}` does not seem to be an MCP server (it does not know `{method}`; check the \
         command and its arguments)"
    )]
    NotMcpServer {
        /// The program's command line.
        command: String,
        /// The request it did not know (`initialize`).
        method: String,
        /// Its answer ([`Error::Rpc`] -32601).
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
    FallbackFailed {
        /// What `server/discover` got ([`Error::Rpc`] or [`Error::Timeout`]).
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
    DiscoverUnsupported {
        /// The server's answer ([`Error::Rpc`]).
        #[source]
        source: Box<Error>,
    },

    /// An environment variable that an HTTP pin takes a credential from
    /// ([`ConnectConfig::bearer_env`](crate::ConnectConfig::bearer_env),
    /// [`ConnectConfig::header_env`](crate::ConnectConfig::header_env); manifest keys
    /// `bearer-env`, `header-env`; CLI `--bearer-env`, `--header-env`) is not set or not UTF-8.
    /// Checked before anything is sent; the message names the variable, never a value.
    #[error(
        "the environment variable `{var}` (for the HTTP header `{header}`) is not set or not \
         UTF-8; set it (in CI: from the secret store) before connecting"
    )]
    MissingEnv {
        /// The variable's name.
        var: String,
        /// The header it is for (`Authorization`).
        header: String,
    },

    /// A literal or environment header of an HTTP pin is not a valid HTTP header (RFC 9110
    /// field name or value), or is one the transport sets itself (`Accept`, `Content-Type`,
    /// `Mcp-Session-Id`, `MCP-Protocol-Version`, `Last-Event-ID`). The value is never shown.
    #[error("invalid HTTP header `{name}` for the MCP server `{server}`: {reason}")]
    InvalidHeader {
        /// The header name, as configured (cut to 100 chars).
        name: String,
        /// The server's URL, redacted ([`crate::connect::redact_url`]).
        server: String,
        /// What is wrong.
        reason: String,
    },

    /// [`ConnectConfig::url`](crate::ConnectConfig::url) is not an absolute `http://` or
    /// `https://` URL with a host; nothing was sent.
    #[error("the MCP server URL `{url}` is not an absolute http:// or https:// URL")]
    InvalidUrl {
        /// The URL, redacted ([`crate::connect::redact_url`]; text that does not parse as a
        /// URL at all is `<invalid URL>`).
        url: String,
    },

    /// [`ConnectConfig::url`](crate::ConnectConfig::url) is set but `oma-mcp-runtime` was
    /// compiled without its cargo feature `http`.
    #[error(
        "cannot connect to the MCP server `{server}` over streamable HTTP: oma-mcp-runtime was \
         built without its cargo feature `http` (add `features = [\"http\"]` to its dependency)"
    )]
    HttpFeatureDisabled {
        /// The server's URL, redacted.
        server: String,
    },

    /// The server could not be reached over HTTP: connection refused, DNS failure, TLS
    /// failure, a redirect loop, or the connection broke while the response was read. The
    /// cause (from `reqwest`, without the URL) is the [`source`](std::error::Error::source).
    #[error(
        "cannot reach the MCP server `{server}` for `{method}` (check the URL, that the server \
         is running, and the network)"
    )]
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

    /// The server answered `401 Unauthorized` or `403 Forbidden`. The message says how to
    /// supply credentials (`--bearer-env` / `--header-env`, or the manifest keys
    /// `bearer-env` / `header-env`), names the variables that were used, and quotes the
    /// server's `WWW-Authenticate` challenge (cut to 300 chars). OAuth is not supported yet.
    #[error(
        "the MCP server `{server}` answered `{method}` with HTTP {status} ({}){}; {hint}",
        if *status == 401 { "unauthorized" } else { "forbidden" },
        challenge.as_ref().map(|c| format!(", challenge: {c}")).unwrap_or_default()
    )]
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

    /// The server answered a request with a JSON-RPC error. `Display` is exactly the contract's
    /// `MCP error <code>: <message>`.
    #[error("MCP error {code}: {message}")]
    Rpc {
        /// The JSON-RPC error code.
        code: i64,
        /// The JSON-RPC error message.
        message: String,
        /// The error's `data` member, raw, when present.
        data: Option<serde_json::Value>,
    },

    /// A request got no answer within the request timeout (open-multi-agent's `requestTimeoutMs`,
    /// default 60 s) or within its call's own timeout
    /// ([`ToolCall::timeout`](crate::ToolCall::timeout)). `Display` is exactly the contract's
    /// text, `MCP error -32001: Request timed out`; for a call's own timeout it goes on with
    /// the duration used: `MCP error -32001: Request timed out after 250ms (the call's own
    /// timeout)` (the duration as `Duration`'s `Debug` writes it). A
    /// `notifications/cancelled` was sent (except for
    /// [`Lifecycle::Auto`](crate::connect::Lifecycle::Auto)'s `server/discover` and the
    /// `initialize` sent beside it, which are abandoned silently, as rmcp does).
    #[error("MCP error -32001: Request timed out{}", per_call_suffix(*per_call, *timeout))]
    Timeout {
        /// The JSON-RPC method that timed out (`server/discover`, `initialize`, `tools/list`,
        /// `tools/call`).
        method: String,
        /// The timeout that elapsed: the call's own timeout when `per_call`, else the request
        /// timeout; for the lifecycle requests (`server/discover`, `initialize`) the request
        /// timeout too, the one deadline of the whole lifecycle.
        timeout: std::time::Duration,
        /// `true` when `timeout` is the call's own ([`ToolCall::timeout`](crate::ToolCall::timeout)),
        /// `false` for the request timeout.
        per_call: bool,
    },

    /// The server closed its stdout (usually: it exited) while the request was pending.
    /// `Display` is exactly the contract's text.
    #[error("MCP error -32000: Connection closed")]
    ConnectionClosed,

    /// The connection was closed (by the server or by `disconnect()`) before this request.
    /// `Display` is exactly the contract's text.
    #[error("Not connected")]
    NotConnected,

    /// `tools/list` paging returned a cursor it had returned before; stopped instead of looping.
    #[error(
        "the MCP server `{command}` repeated the tools/list cursor \"{cursor}\"; stopped paging \
         instead of looping forever (this is a server bug)"
    )]
    RepeatedCursor {
        /// The cursor seen twice.
        cursor: String,
        /// The server's command line.
        command: String,
    },

    /// The server sent a message (one line) larger than the configured limit; the session goes
    /// on with the next line. When the message's first 4 KiB show a response with an `id`
    /// (`{"jsonrpc":"2.0","id":7,"result":…`, the order rmcp and the Python SDK write), only
    /// that request fails with this error; an oversized server request or notification fails
    /// none. When the `id` cannot be read there (the TypeScript SDK writes it after `result`),
    /// every request pending at that moment fails with this error, as the lost answer may be
    /// any of theirs.
    #[error(
        "the MCP server sent a message larger than the limit of {limit} bytes; raise it with \
         `ConnectConfig::with_max_message_size` (manifest key `max-message-bytes`)"
    )]
    MessageTooLarge {
        /// The limit in bytes ([`crate::ConnectConfig::max_message_size`]).
        limit: usize,
    },

    /// A stdio server does not read its stdin: with this request's line, more than
    /// [`MAX_STDIN_BACKLOG`](crate::connect::MAX_STDIN_BACKLOG) bytes would wait for it, so the
    /// request was not sent. Once the server reads what waits, requests are sent as usual.
    #[error(
        "the MCP server `{command}` does not read its stdin: {waiting} bytes already wait to be \
         written and this request would pass the limit of {limit} bytes, so it was not sent; \
         the server is stuck or busy (retry later, or restart it)"
    )]
    ServerNotReading {
        /// The server's command line.
        command: String,
        /// The bytes that waited for the server's stdin.
        waiting: usize,
        /// The limit in bytes ([`MAX_STDIN_BACKLOG`](crate::connect::MAX_STDIN_BACKLOG)).
        limit: usize,
    },

    /// The server sent a JSON message nested deeper than `serde_json`'s recursion limit
    /// (128 levels), which is not parsed (a deeper parse could exhaust the stack). Like
    /// [`Error::MessageTooLarge`], every request pending at that moment fails with this error
    /// (the message's `id` cannot be read); the session goes on with the next line.
    #[error(
        "the MCP server sent a message nested deeper than {limit} levels, which oma-mcp does \
         not parse; the answer is lost (report the server's deeply nested output to its authors)"
    )]
    MessageTooDeep {
        /// The nesting limit (128, `serde_json`'s).
        limit: usize,
    },

    /// A response had the wrong shape for its method (for example a `tools/list` result
    /// without a `tools` array, or a tool descriptor without a string `name`).
    #[error("the MCP server `{command}` sent an invalid `{method}` response: {reason}")]
    InvalidResponse {
        /// The server's command line.
        command: String,
        /// The JSON-RPC method whose response is invalid.
        method: String,
        /// What is wrong, with the JSON pointer where there is one.
        reason: String,
    },

    /// A tool's JSON Schema cannot be compiled for validation (see [`crate::validate`]): it is
    /// not valid for its dialect's meta-schema (e.g. a property named `type`
    /// declared as `"type": "object"`), or a `$ref` does not resolve locally.
    #[error(
        "the JSON Schema of tool \"{tool}\" is invalid at {pointer}: {reason}; local validation \
         is skipped for it"
    )]
    InvalidSchema {
        /// The tool whose schema it is.
        tool: String,
        /// The JSON pointer of the offending part in the schema, `/` for the root.
        pointer: String,
        /// What is wrong, as the `jsonschema` crate words it.
        reason: String,
    },

    /// A tool name is registered twice in a [`ToolRegistry`](crate::tool::ToolRegistry).
    /// `Display` is exactly the contract's text.
    #[error(
        "ToolRegistry: a tool named \"{name}\" is already registered. Use a unique name or \
         deregister the existing one first."
    )]
    DuplicateTool {
        /// The name registered twice.
        name: String,
    },

    /// A call was cancelled through its [`CancellationToken`](crate::CancellationToken) (the
    /// open-multi-agent's abort signal) before an answer arrived. `Display` is the message of the
    /// abort reason the TypeScript SDK rejects with (`AbortController.abort()` without a reason:
    /// a `DOMException` `AbortError`); a `notifications/cancelled` was sent when the request
    /// had been sent.
    #[error("This operation was aborted")]
    Cancelled {
        /// The JSON-RPC method that was cancelled (`tools/call`).
        method: String,
    },

    /// Two tools of one server normalize to the same name (open-multi-agent's `docs/mcp.md`,
    /// "Tool names"): the reference implementation's message, character for character.
    #[error(transparent)]
    NameCollision(#[from] oma_mcp_core::NameCollision),

    /// A snapshot cannot be read or written, or its text is not a snapshot.
    #[error(transparent)]
    Snapshot(#[from] oma_mcp_core::SnapshotError),

    /// The live server drifted from its snapshot and the [`crate::DriftPolicy`] says to fail
    /// ([`crate::DriftReport::apply`]). Only with cargo feature `drift` (on by default).
    #[cfg(feature = "drift")]
    #[error(transparent)]
    Drift(#[from] oma_mcp_core::DriftRefused),
}

impl Error {
    /// The server command line this error names in its message, if it names one
    /// ([`Error::Spawn`], [`Error::Handshake`], [`Error::RepeatedCursor`],
    /// [`Error::InvalidResponse`], and the lifecycle errors wrapping a handshake), so a caller
    /// adding context does not repeat it.
    pub fn command(&self) -> Option<&str> {
        match self {
            Error::Spawn { command, .. }
            | Error::Handshake { command, .. }
            | Error::RepeatedCursor { command, .. }
            | Error::InvalidResponse { command, .. } => Some(command),
            Error::ServerExited { command, .. } | Error::NotMcpServer { command, .. } => {
                Some(command)
            }
            Error::HttpUnreachable { server, .. }
            | Error::Http { server, .. }
            | Error::HttpAuth { server, .. } => Some(server),
            Error::InvalidUrl { url } => Some(url),
            Error::FallbackFailed { discover, .. } => discover.command(),
            Error::DiscoverUnsupported { source } => source.command(),
            _ => None,
        }
    }

    /// `true` for [`Error::Timeout`], also when wrapped in [`Error::Handshake`].
    pub fn is_timeout(&self) -> bool {
        matches!(self.root(), Error::Timeout { .. })
    }

    /// `true` for [`Error::Cancelled`]: the caller cancelled the call.
    pub fn is_cancelled(&self) -> bool {
        matches!(self.root(), Error::Cancelled { .. })
    }

    /// `true` for [`Error::ConnectionClosed`] and [`Error::NotConnected`], also when wrapped in
    /// [`Error::Handshake`]: the connection is gone and a new one is needed.
    pub fn is_disconnected(&self) -> bool {
        matches!(self.root(), Error::ConnectionClosed | Error::NotConnected)
    }

    /// The JSON-RPC error code of an [`Error::Rpc`] (also inside [`Error::Handshake`]);
    /// `-32001` for a timeout and `-32000` for a closed connection, as the contract reports them.
    pub fn rpc_code(&self) -> Option<i64> {
        match self.root() {
            Error::Rpc { code, .. } => Some(*code),
            Error::Timeout { .. } => Some(-32001),
            Error::ConnectionClosed => Some(-32000),
            _ => None,
        }
    }

    /// `<message>: <cause>: <cause>`: this error with its whole cause chain (see [`Chain`]).
    ///
    /// ```
    /// let err = oma_mcp_runtime::Error::Handshake {
    ///     command: "srv".to_owned(),
    ///     method: "initialize".to_owned(),
    ///     source: Box::new(oma_mcp_runtime::Error::ConnectionClosed),
    ///     exit: "; the server exited (exit status: 3)".to_owned(),
    ///     stderr_tail: String::new(),
    /// };
    /// assert_eq!(
    ///     err.chain().to_string(),
    ///     "the MCP initialize handshake with `srv` failed (the server exited (exit status: 3)): \
    ///      MCP error -32000: Connection closed"
    /// );
    /// ```
    pub fn chain(&self) -> Chain<'_> {
        Chain(self)
    }

    /// The error inside a [`Error::Handshake`] (for a failed fallback: the `initialize` one),
    /// or `self`; [`Error::ConnectionClosed`] for [`Error::ServerExited`].
    fn root(&self) -> &Error {
        static CONNECTION_CLOSED: Error = Error::ConnectionClosed;
        match self {
            Error::ServerExited { .. } => &CONNECTION_CLOSED,
            Error::Handshake { source, .. }
            | Error::DiscoverUnsupported { source }
            | Error::NotMcpServer { source, .. } => source.root(),
            Error::FallbackFailed { fallback, .. } => fallback.root(),
            other => other,
        }
    }
}

/// What [`Error::Timeout`]'s text adds for a call's own timeout: ` after 250ms (the call's own
/// timeout)`; nothing for the request timeout (the contract's text alone).
fn per_call_suffix(per_call: bool, timeout: std::time::Duration) -> String {
    if per_call {
        format!(" after {timeout:?} (the call's own timeout)")
    } else {
        String::new()
    }
}

/// `HTTP 502`, or `no HTTP response` when none arrived, for [`Error::Http`].
fn status_text(status: Option<u16>) -> String {
    status.map_or_else(|| "no HTTP response".to_owned(), |s| format!("HTTP {s}"))
}

/// How the server ended and its stderr, for [`Error::Handshake`]: `" (<exit>; <stderr>)"`
/// without the fields' leading `"; "`, or empty when neither is known.
fn details(exit: &str, stderr: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn rpc(code: i64, message: &str) -> Error {
        Error::Rpc {
            code,
            message: message.to_owned(),
            data: None,
        }
    }

    #[test]
    fn each_cause_is_printed_once() {
        let err = Error::Handshake {
            command: "srv".to_owned(),
            method: "server/discover".to_owned(),
            source: Box::new(Error::FallbackFailed {
                discover: Box::new(rpc(-32601, "Method not found")),
                fallback: Box::new(Error::NotMcpServer {
                    command: "srv".to_owned(),
                    method: "initialize".to_owned(),
                    source: Box::new(rpc(-32601, "Method not found")),
                }),
            }),
            exit: String::new(),
            stderr_tail: "; server stderr: a | b".to_owned(),
        };
        assert_eq!(
            err.to_string(),
            "the MCP server/discover handshake with `srv` failed (server stderr: a | b)"
        );
        assert_eq!(
            err.chain().to_string(),
            "the MCP server/discover handshake with `srv` failed (server stderr: a | b): MCP \
             error -32601: Method not found; the fallback `initialize` handshake failed too: \
             `srv` does not seem to be an MCP server (it does not know `initialize`; check the \
             command and its arguments): MCP error -32601: Method not found"
        );
        let chain = err.chain().to_string();
        assert_eq!(format!("{:?}", Report::from(err)), chain);
    }

    #[test]
    fn server_exited_starts_with_the_contract_text_and_has_no_source() {
        let err = Error::ServerExited {
            command: "srv".to_owned(),
            method: "tools/call".to_owned(),
            exit: "; the server exited (exit status: 5)".to_owned(),
            stderr: "; server stderr: error: the database is gone".to_owned(),
        };
        assert_eq!(
            err.chain().to_string(),
            "MCP error -32000: Connection closed: the MCP server `srv` went away during \
             `tools/call`; the server exited (exit status: 5); server stderr: error: the \
             database is gone"
        );
        assert!(std::error::Error::source(&err).is_none());
        assert!(err.is_disconnected());
        assert_eq!(err.rpc_code(), Some(-32000));
    }

    /// Messages written over several source lines read as one sentence (single spaces).
    #[test]
    fn http_messages_are_single_spaced() {
        let errors = [
            Error::MissingEnv {
                var: "TOKEN".to_owned(),
                header: "Authorization".to_owned(),
            },
            Error::HttpFeatureDisabled {
                server: "https://x.example/mcp".to_owned(),
            },
            Error::HttpUnreachable {
                server: "https://x.example/mcp".to_owned(),
                method: "initialize".to_owned(),
                source: "refused".into(),
            },
        ];
        let texts: Vec<String> = errors.iter().map(|e| e.chain().to_string()).collect();
        assert_eq!(
            texts,
            [
                "the environment variable `TOKEN` (for the HTTP header `Authorization`) is not \
                 set or not UTF-8; set it (in CI: from the secret store) before connecting",
                "cannot connect to the MCP server `https://x.example/mcp` over streamable HTTP: \
                 oma-mcp-runtime was built without its cargo feature `http` (add `features = \
                 [\"http\"]` to its dependency)",
                "cannot reach the MCP server `https://x.example/mcp` for `initialize` (check the \
                 URL, that the server is running, and the network): refused",
            ]
        );
    }

    /// The request timeout's text is the contract's alone; a call's own timeout names its
    /// duration after it.
    #[test]
    fn a_call_s_own_timeout_names_its_duration() {
        let timeout = |ms, per_call| Error::Timeout {
            method: "tools/call".to_owned(),
            timeout: std::time::Duration::from_millis(ms),
            per_call,
        };
        assert_eq!(
            timeout(60_000, false).to_string(),
            "MCP error -32001: Request timed out"
        );
        assert_eq!(
            timeout(250, true).to_string(),
            "MCP error -32001: Request timed out after 250ms (the call's own timeout)"
        );
        assert_eq!(
            timeout(1500, true).chain().to_string(),
            "MCP error -32001: Request timed out after 1.5s (the call's own timeout)"
        );
        assert!(timeout(250, true).is_timeout());
        assert_eq!(timeout(250, true).rpc_code(), Some(-32001));
    }

    #[test]
    fn handshake_details_are_parenthesized_only_when_known() {
        assert_eq!(details("", ""), "");
        assert_eq!(
            details("; the server exited (exit status: 3)", "; server stderr: x"),
            " (the server exited (exit status: 3); server stderr: x)"
        );
        assert_eq!(details("", "; server stderr: x"), " (server stderr: x)");
    }
}
