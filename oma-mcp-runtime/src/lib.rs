//! Runtime for oma-mcp: what generated MCP tool code calls at run time.
//!
//! **The behaviour contract.** Connecting, tool names, result mapping and errors follow
//! open-multi-agent's `connectMCPTools()` exactly, as its `docs/mcp.md` documents them; the
//! docs here cite that page's sections by title ("Tool names", "Result mapping", "Errors",
//! "Granting MCP tools to an agent"). Protocol behaviour cites the MCP specification by
//! revision (2025-11-25, 2026-07-28), schema behaviour JSON Schema by keyword.
//!
//! - [`connect`]: spawn a pinned MCP server over stdio, page through `tools/list`
//!   (`connectMCPTools()`, "Connecting to a server").
//! - [`call`]: call a tool with one request builder, [`ToolCall`]: `client.call_tool(name)`
//!   or `client.call(args)`, settings (arguments, cancellation, progress, a timeout, answers
//!   to a request for input, confirmation), then one ending (`raw`, `outcome`, `mapped`,
//!   `typed`); every ending drives a task the server answers with to its result
//!   ([Task-backed calls](call#task-backed-calls), the rules in [`task`]).
//! - [`naming`], [`result`], [`call_outcome`], [`snapshot`], [`pointer`](mod@pointer): the pure
//!   rules of the contract (tool names, result mapping) and the snapshot format, re-exported
//!   from `oma-mcp-core`, which holds everything that needs no connection.
//! - [`typed`]: the [`McpTool`] trait that generated tool marker types implement, and what
//!   typed calls check and read.
//! - [`prompt`], [`resource`], [`completion`]: the server's other offers as typed Rust:
//!   [`McpClient::prompt`] gets a generated prompt ([`McpPrompt`], arguments as
//!   [`PromptArgs`]), [`McpClient::read`] reads a [`StaticResource`] constant or a
//!   [`ResourceTemplate`] expanded as RFC 6570 says, [`McpClient::complete`] completes a
//!   prompt argument or a template variable.
//! - [`tool`] (cargo feature `tools`): MCP tools as ordinary tools of an agent ("Granting MCP
//!   tools to an agent"):
//!   [`ToolDefinition`], [`ToolRegistry`], default-deny [`ToolGrants`], and the
//!   [`ToolExecutor`] pipeline (gate, consequential confirmation, output truncation).
//! - [`validate`] (cargo feature `validate`, off by default): local argument validation against
//!   a tool's JSON Schema with the `jsonschema` crate (beyond the contract, which leaves
//!   validation to the server). Without it, only the server validates.
//! - [`drift`] (cargo feature `drift`, on by default): the drift engine of `oma-mcp-core` (what
//!   changed between two `tools/list`s, each change classified breaking, warning or info), and
//!   [`connect_checked`], which checks a live server against its pin.
//! - [`error`]: the crate's [`Error`].
//!
//! - [`oauth`] (cargo features `oauth` and `oauth-jwt`, off by default): OAuth 2.1 for
//!   streamable HTTP servers (MCP "Authorization"): [`ConnectConfig::with_oauth`] answers a
//!   server's `401` with discovery, registration, the user's approval (an
//!   [`Authorize`](connect::Authorize)), the token exchange, refresh and step-up; logins
//!   persist in [`oauth::LoginStore`]; [`connect::TokenProvider`] is the seam for a program's
//!   own tokens.
//!
//! Cargo feature `schemars`: re-exports `schemars` for generated code made with
//! `oma_mcp_build::codegen::GenerateOptions::with_schemars(true)` (manifest: `schemars = true`),
//! whose argument and output types then derive `schemars::JsonSchema`.
//!
//! Data flows one way: server → snapshot → generated code → typed call → drift report.
//!
//! # Connecting to a server
//!
//! [`connect_mcp_tools`] is the Rust `connectMCPTools()` (open-multi-agent's `docs/mcp.md`,
//! "Connecting to a server"), over stdio or streamable HTTP:
//!
//! ```no_run
//! # async fn demo() -> Result<(), oma_mcp_runtime::Error> {
//! use oma_mcp_runtime::{ConnectConfig, connect_mcp_tools};
//!
//! let client = connect_mcp_tools(
//!     ConnectConfig::new("npx")
//!         .with_args(["--no-install", "@modelcontextprotocol/server-everything"])
//!         .with_name_prefix("everything"),
//! )
//! .await?;
//! let arguments = serde_json::json!({"message": "hi"}).as_object().cloned();
//! let result = client.call_tool("echo").arguments(arguments).mapped().await;
//! assert_eq!(result.data, "Echo: hi");
//! client.disconnect().await;
//! # Ok(()) }
//! ```
//!
//! ## Streamable HTTP
//! With the cargo feature `http` (off by default: a stdio-only program compiles no HTTP or
//! TLS stack), [`ConnectConfig::http`] reaches a remote server (MCP 2025-03-26 and later,
//! "Transports" → "Streamable HTTP"). TLS is rustls with the platform's certificate verifier;
//! its crypto provider is a choice of features, as reqwest offers it: `http` takes aws-lc-rs
//! (reqwest's default; aws-lc-sys is a C build that needs CMake), `http-ring` takes ring (a
//! smaller C build that needs only a C compiler), `http-no-provider` none (the program
//! installs one with `rustls::crypto::CryptoProvider::install_default` before it connects, else
//! connecting is [`ConfigError::NoTlsProvider`](error::ConfigError::NoTlsProvider)). The
//! chosen provider becomes rustls' process default at the first HTTP connection, unless the
//! program installed one. The features `oauth` and `fake` turn on the transport, not a
//! provider.
//!
//! ```no_run
//! # async fn demo() -> Result<(), oma_mcp_runtime::Error> {
//! use oma_mcp_runtime::{ConnectConfig, connect_mcp_tools};
//!
//! let client = connect_mcp_tools(
//!     ConnectConfig::http("https://api.githubcopilot.com/mcp/")
//!         .with_bearer_env("GITHUB_TOKEN")
//!         .with_header("X-MCP-Toolsets", "repos"),
//! )
//! .await?;
//! # Ok(()) }
//! ```
//!
//! - Each message is a `POST` (`Accept: application/json, text/event-stream`); the answer is
//!   a JSON body or an SSE stream whose events (server requests and notifications before the
//!   response too) are routed exactly as stdout lines are, raw. Requests, notifications and
//!   answers to server requests go out concurrently, each notification or answer bounded by
//!   [`NOTIFICATION_TIMEOUT`](connect::NOTIFICATION_TIMEOUT) (5 s), so a server slow to accept `notifications/cancelled`
//!   holds up no call; only `notifications/initialized` goes before the requests after it.
//! - `Mcp-Session-Id` is kept and sent; a `404` to a request that carried it starts a new
//!   session once (the `initialize` handshake replayed) and sends the request again.
//!   `MCP-Protocol-Version` goes on every request after the handshake; a 2026-07-28 request
//!   also carries `Mcp-Method`, `Mcp-Name` and the `Mcp-Param-*` headers its tool's
//!   `x-mcp-header` annotations ask for. [`McpClient::disconnect`] sends `DELETE` with the
//!   session id.
//! - After an `initialize` handshake with a session, a `GET` opens the stream of server
//!   messages (`405`: the server offers none). A response stream that ends before its
//!   response is resumed with `GET` and `Last-Event-ID` after the stream's `retry`, when its
//!   events carried ids ([`MAX_RESUMES`](connect::MAX_RESUMES) times in a row without a new event at most).
//! - Credentials come from the environment only: [`ConnectConfig::bearer_env`] and
//!   [`ConnectConfig::header_env`] are read at connect ([`ConfigError::MissingEnv`](error::ConfigError::MissingEnv) before
//!   anything is sent when one is not set); their values never appear in a message, a log,
//!   a snapshot or generated code, and the URL is shown redacted ([`redact_url`](connect::redact_url)).
//! - Limits and failures: the request timeout bounds each request as over stdio (a request
//!   that ends without its answer sends `notifications/cancelled` and drops its stream);
//!   connecting is bounded by [`CONNECT_TIMEOUT`](connect::CONNECT_TIMEOUT); a body or an SSE event over
//!   [`ConnectConfig::max_message_size`] fails its request with [`RequestError::MessageTooLarge`](error::RequestError::MessageTooLarge);
//!   only `307`/`308` redirects to the same origin are followed ([`MAX_REDIRECTS`](connect::MAX_REDIRECTS)), so
//!   credentials never reach another host; after a `308`, or a `307` on the handshake, the
//!   session's later requests go to the final URL at once (one `WARN` log suggests pinning
//!   it). A JSON body is the whole answer to its `POST`: one that holds no response to the
//!   request fails it at once, and a body with a `Content-Encoding` (none is asked for) is
//!   refused by name. A notification accepted with `200` and any body, and SSE events that
//!   carry no message (another event type than `message`, data `{}` or empty, comments), are
//!   logged at `DEBUG` only. A refused connection, DNS or TLS failure is
//!   [`ConnectError::HttpUnreachable`](error::ConnectError::HttpUnreachable); `401`/`403` is [`ConnectError::HttpAuth`](error::ConnectError::HttpAuth) (with the
//!   server's `WWW-Authenticate` challenge and how to pass credentials); any other status, a body
//!   that is not JSON or SSE (a proxy's HTML page), or a stream that ends before its
//!   response is [`ConnectError::Http`](error::ConnectError::Http) with the status and a body excerpt. A JSON-RPC error in an
//!   error response's body is the server's [`RequestError::Rpc`](error::RequestError::Rpc) (how a server before 2026-07-28
//!   rejects `server/discover`, so [`Lifecycle::Auto`] falls back to `initialize`). A
//!   stateful server before 2026-07-28 may instead refuse `server/discover`, sent without a
//!   session, with `400`, `404` or `405` and a body that is no JSON-RPC error (plain text, an
//!   HTML page, `{"error": "…"}`): [`Lifecycle::Auto`] falls back to `initialize` for these
//!   too (when `initialize` gets the same status, the error is `server/discover`'s: the URL
//!   refuses every request alike, e.g. a wrong path); `401`/`403` stay [`ConnectError::HttpAuth`](error::ConnectError::HttpAuth).
//! - Connections are pooled and reused (HTTP/1.1 keep-alive, HTTP/2 over TLS). A server that
//!   writes an SSE answer in pieces without `TCP_NODELAY` makes each answer wait for the
//!   client's delayed ACK on a reused connection (about 40 ms on Linux); set `TCP_NODELAY` in
//!   the server (Node's HTTP server does by default). rmcp's client opens a connection per
//!   request instead, which costs about 100 µs per call on loopback and a TLS handshake per
//!   call against `https://` servers.
//! - Without the feature, connecting to a URL is [`ConfigError::HttpFeatureDisabled`](error::ConfigError::HttpFeatureDisabled).
//!
//! ## Lifecycle
//! Protocol revision 2026-07-28 has no `initialize` handshake (SEP-2567): the client asks
//! `server/discover` and then sends its context in every request's `_meta` (SEP-2575). Earlier
//! revisions (2024-11-05 … 2025-11-25) start with `initialize`. [`ConnectConfig::lifecycle`]
//! chooses, with the semantics of rmcp 3.11's `ClientLifecycleMode`:
//!
//! - [`Lifecycle::Auto`] (default): `server/discover` with the client context in `_meta`
//!   (`io.modelcontextprotocol/protocolVersion` `2026-07-28`, `…/clientInfo` with
//!   [`ConnectConfig::client_name`] and [`ConnectConfig::client_version`],
//!   `…/clientCapabilities` `{}`). A result selects the first version this client prefers that
//!   its `supportedVersions` lists: a 2026-07-28 session. A JSON-RPC error -32022 (unsupported
//!   protocol version) retries with a version from its `data.supported`, as rmcp does. Any
//!   other JSON-RPC error except -32020 and -32021 (e.g. -32601 Method not found), and over
//!   HTTP a `400`, `404` or `405` without one, marks a server before 2026-07-28: the client
//!   falls back to `initialize` on the same connection, as [`Lifecycle::Initialize`]. Without an answer within [`DISCOVER_PROBE_TIMEOUT`](connect::DISCOVER_PROBE_TIMEOUT) (2 s, or
//!   half of a shorter request timeout) `initialize` is sent too while `server/discover`
//!   stays pending, and the first success wins: a server reads its stdin in order, so a slow
//!   2026-07-28 server still answers `server/discover` first and keeps its revision, and a
//!   server that ignores `server/discover` is reached through `initialize` after those 2 s.
//!   The whole lifecycle has one deadline, `request_timeout` from the first request. A server
//!   that exits (or closes stdout) before answering, silently or with a stderr that names the
//!   lifecycle (`discover`, `initialize`), is started again with [`Lifecycle::Initialize`]
//!   (servers before 2026-07-28 that accept only `initialize` as their first message), within
//!   what is left of the deadline, with one `WARN` log quoting its exit and stderr. One whose
//!   stderr says something else (a traceback, a missing variable) failed to start: it is not
//!   started again, and [`ConnectError::Handshake`](error::ConnectError::Handshake) quotes that one run.
//!   -32020, -32021, an invalid result or no version in common fail at once. When the
//!   fallback fails too, [`ConnectError::Handshake`](error::ConnectError::Handshake) holds a [`ConnectError::FallbackFailed`](error::ConnectError::FallbackFailed) that
//!   says what both phases got.
//! - [`Lifecycle::Initialize`]: `initialize` (protocol version
//!   [`ProtocolVersion::LATEST_WITH_INITIALIZE`](rmcp::model::ProtocolVersion::LATEST_WITH_INITIALIZE), 2025-11-25, no client capabilities); the
//!   server's `protocolVersion` must be one rmcp knows; then `notifications/initialized`.
//! - [`Lifecycle::Discover`]: `server/discover` as in `Auto`, bounded by the request timeout,
//!   without fallback: a server without it fails with [`ConnectError::DiscoverUnsupported`](error::ConnectError::DiscoverUnsupported).
//!
//! In a 2026-07-28 session, [`McpClient::server_info`] is the discover result's
//! `_meta["io.modelcontextprotocol/serverInfo"]` (raw), [`McpClient::protocol_version`] the
//! selected version, no `notifications/initialized` is sent, and every later request
//! (`tools/list` pages, `tools/call`) carries the client context in its `_meta`, merged with
//! the request's own `_meta` keys (the context's three keys win, as in rmcp).
//!
//! ## Process and environment
//! The child gets piped stdin/stdout/stderr and its own process group (unix). A task awaits
//! the server's exit: when it exits (also while a grandchild, e.g. of `sh -c 'x & exec
//! server'`, still holds its stdout open, so no EOF arrives), the rest of its process group
//! gets SIGKILL, the answers it wrote before exiting are still read (up to 500 ms), and the
//! session closes: pending requests fail with [`DisconnectedError::ServerExited`](error::DisconnectedError::ServerExited) (the contract's
//! `MCP error -32000: Connection closed`, then the server, the request, its exit status or
//! signal and its stderr lines that matter), later ones with [`DisconnectedError::NotConnected`](error::DisconnectedError::NotConnected).
//! Its environment starts **empty**; it then gets [`DEFAULT_INHERITED_ENV`](connect::DEFAULT_INHERITED_ENV) from the parent when
//! set (as the MCP TypeScript SDK does), the [`ConnectConfig::pass_env`] names from the parent when
//! set, and the literal [`ConnectConfig::env`] values, later ones winning. So an unrelated API key
//! in the parent never reaches a third-party server (open-multi-agent's `docs/mcp.md`, "Egress and
//! process boundaries").
//!
//! The client writes each line into the server's stdin itself while the pipe takes it; what
//! the pipe does not take waits in a queue, written in order as the server reads. A server
//! that stops reading (stuck, or busy without reading) makes lines wait up to
//! [`MAX_STDIN_BACKLOG`](connect::MAX_STDIN_BACKLOG) (64 MiB): a request that would pass it fails at once with
//! [`RequestError::ServerNotReading`](error::RequestError::ServerNotReading) without being sent, and an answer the client owes the server
//! is dropped with a warning, so memory stays bounded; waiting requests keep their timeout.
//!
//! ## When your process ends without dropping the client
//! Cleanup runs in [`McpClient::disconnect`] (bounded: stdin EOF, then SIGTERM, then SIGKILL to
//! the server's process group) or in the client's `Drop` (SIGKILL to the group at once, also
//! after the Tokio runtime is gone). Neither runs when the process ends without dropping the
//! client: `std::process::exit`, death by a signal without a handler (SIGKILL, or SIGINT /
//! SIGTERM while nothing handles them), `panic = "abort"`, `std::mem::forget` or a client
//! kept in a `static`. (A panic that unwinds through the client's owner does drop it.) Then:
//!
//! - **Cleaned up** (by the kernel closing our pipe ends): the server's stdin reaches EOF and
//!   its stdout has no reader. A server that exits at stdin EOF, as the MCP stdio transport
//!   expects and as the TypeScript, Python and rmcp servers do, then exits by itself.
//! - **Not cleaned up**: no signal reaches the process group. A server that ignores EOF keeps
//!   running, and so does everything else in its group: grandchildren that do not watch
//!   stdin (`sh -c 'worker & exec server'`, processes spawned by `npx` or `uv run` that outlive
//!   their parent) are re-parented to init and run on. Because the server has its own process
//!   group, a terminal's Ctrl-C (SIGINT to the foreground group) does not reach it either.
//!   A Linux `PR_SET_PDEATHSIG` would need `pre_exec`, which is `unsafe` (forbidden in this
//!   workspace), and would not reach grandchildren anyway.
//!
//! So: call [`McpClient::disconnect`] (or drop the client) before exiting: return from `main`
//! instead of calling `std::process::exit`, and handle SIGINT/SIGTERM (for example with
//! `tokio::signal::ctrl_c()`) by disconnecting. Where the process can be killed outright, run
//! it under a supervisor that stops the whole tree: a systemd unit (the default
//! `KillMode=control-group` kills every process of the unit's cgroup), a container (all its
//! processes end with it), or a parent that kills the process group or session it started
//! you in.
//!
//! ## Server output
//! stderr is always drained line by line into `tracing` at `INFO` with target
//! `oma_mcp::server_stderr`; errors quote the first 5 lines, up to 5 lines that look like
//! errors (`error`, `fatal`, `panic`, `fail`, …) and the last 10, each cut to 300 chars.
//! Non-JSON lines on stdout are skipped with a `WARN` (a `DEBUG` once the client is stopping
//! the server: a shutdown message is no protocol problem) and the session goes on. A
//! byte-order mark (U+FEFF) before a message is skipped (with a `DEBUG` log).
//! `notifications/progress` for a call made with [`ToolCall::progress`](crate::ToolCall::progress)
//! reach its callback, and so do the statuses of its task. Server requests are answered:
//! `ping` with `{}`, `elicitation/create` by [`ConnectConfig::with_elicitation`]'s handler when
//! one is set, anything else (sampling and roots, which MCP 2026-07-28 deprecates, included)
//! with JSON-RPC error -32601; notifications (logging's `notifications/message` included) are
//! logged at `DEBUG` and otherwise ignored.

pub mod call;
#[cfg(feature = "validate")]
pub mod cassette;
pub mod completion;
pub mod connect;
#[cfg(feature = "drift")]
pub mod drift;
pub mod error;
#[cfg(feature = "fake")]
pub mod fake;
#[cfg(feature = "oauth")]
pub mod oauth;
pub mod prompt;
pub mod resource;
#[cfg(feature = "tools")]
pub mod tool;
pub mod typed;
#[cfg(any(feature = "tools", feature = "fake"))]
mod unwind;
pub mod validate;

#[doc(hidden)]
pub use oma_mcp_core::quote;
pub use oma_mcp_core::{
    call_outcome, consequential, content, descriptor, naming, pointer, provider, result, snapshot,
    task, uri_template,
};

pub use call::{Confirmed, Permit, ToolCall, Typed, Unconfirmed, Untyped};
pub use completion::{Complete, CompletionRef, Completions};
pub use connect::{
    ConnectConfig, DiscoveredTool, Lifecycle, McpClient, Progress, SurfaceReading,
    connect_mcp_tools,
};
#[cfg(feature = "drift")]
pub use drift::{
    Change, ChangeKind, Direction, DriftPolicy, DriftRefused, DriftReport, Severity, ToolWithheld,
    Withheld, connect_checked,
};
pub use error::Error;
pub use oma_mcp_core::call_outcome::{CallOutcome, InputRequired};
pub use oma_mcp_core::naming::normalize_tool_name;
pub use oma_mcp_core::result::{FileSource, ImageSource, ModelPart, ToolResult, map_call_result};
pub use oma_mcp_core::snapshot::{Snapshot, SnapshotTool};
pub use prompt::{McpPrompt, PromptArgs, PromptResult};
pub use resource::{ResourceTemplate, ResourceUri, StaticResource};
/// The abort signal of a call (open-multi-agent's `abortSignal`) ([`tool::ToolContext::cancel`],
/// [`ToolCall::cancel_on`]), re-exported from `tokio-util`.
pub use tokio_util::sync::CancellationToken;
#[cfg(feature = "tools")]
pub use tool::{ToolContext, ToolDefinition, ToolExecutor, ToolGrants, ToolRegistry};
pub use typed::{CallError, CallFailure, McpTool, NotConsequential, ToolArgs, TypedResult};
#[cfg(feature = "validate")]
pub use validate::Validator;

#[doc(hidden)]
pub mod __private;
mod macros;
