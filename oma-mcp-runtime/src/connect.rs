//! Connecting to an MCP server over stdio (seed, "Connecting to a server"): the Rust
//! `connectMCPTools()`.
//!
//! [`connect_mcp_tools`] spawns the configured command, speaks JSON-RPC 2.0 over its pipes
//! (our own framing: DESIGN.md, "Measured limits of rmcp 3.11 as a client"), establishes the
//! MCP lifecycle (see "Lifecycle" below), pages through `tools/list` and returns an
//! [`McpClient`]. Requests are built with rmcp's model types; everything received stays raw
//! [`serde_json::Value`].
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
//! let result = client.call_tool("echo", serde_json::json!({"message": "hi"}).as_object().cloned()).await;
//! assert_eq!(result.data, "Echo: hi");
//! client.disconnect().await;
//! # Ok(()) }
//! ```
//!
//! # Lifecycle
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
//!   other JSON-RPC error except -32020 and -32021 (e.g. -32601 Method not found), or no answer
//!   within the probe bound (the smaller of half of [`ConnectConfig::request_timeout`] and
//!   [`DISCOVER_PROBE_TIMEOUT`], 10 s, for all attempts; the probe is then abandoned without
//!   `notifications/cancelled`), marks a server before 2026-07-28: the client falls back to
//!   `initialize` on the same connection, as [`Lifecycle::Initialize`], within what is left of
//!   the one connect deadline (`request_timeout` from the first request: the whole lifecycle,
//!   probe and fallback together, never takes longer). -32020, -32021, a
//!   closed connection, an invalid result or no version in common fail at once. When the
//!   fallback fails too, [`Error::Handshake`] holds an [`Error::FallbackFailed`] that says
//!   what both phases got.
//! - [`Lifecycle::Initialize`]: `initialize` (protocol version
//!   [`ProtocolVersion::LATEST_WITH_INITIALIZE`], 2025-11-25, no client capabilities); the
//!   server's `protocolVersion` must be one rmcp knows; then `notifications/initialized`.
//! - [`Lifecycle::Discover`]: `server/discover` as in `Auto`, bounded by the request timeout,
//!   without fallback: a server without it fails with [`Error::DiscoverUnsupported`].
//!
//! In a 2026-07-28 session, [`McpClient::server_info`] is the discover result's
//! `_meta["io.modelcontextprotocol/serverInfo"]` (raw), [`McpClient::protocol_version`] the
//! selected version, no `notifications/initialized` is sent, and every later request
//! (`tools/list` pages, `tools/call`) carries the client context in its `_meta`, merged with
//! the request's own `_meta` keys (the context's three keys win, as in rmcp).
//!
//! # Process and environment
//! The child gets piped stdin/stdout/stderr and its own process group (unix). A task awaits
//! the server's exit: when it exits (also while a grandchild, e.g. of `sh -c 'x & exec
//! server'`, still holds its stdout open, so no EOF arrives), the rest of its process group
//! gets SIGKILL, the answers it wrote before exiting are still read (up to 500 ms), and the
//! session closes: pending requests fail with [`Error::ConnectionClosed`] (`MCP error -32000:
//! Connection closed`), later ones with [`Error::NotConnected`]. Its environment
//! starts **empty**; it then gets [`DEFAULT_INHERITED_ENV`] from the parent when set (as the MCP
//! TypeScript SDK does), the [`ConnectConfig::pass_env`] names from the parent when set, and
//! the literal [`ConnectConfig::env`] values, later ones winning. So an unrelated API key in
//! the parent never reaches a third-party server (seed, "Egress and process boundaries").
//!
//! # When your process ends without dropping the client
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
//! # Server output
//! stderr is always drained line by line into `tracing` at `INFO` with target
//! `oma_mcp::server_stderr`. Non-JSON lines on stdout are skipped with a `WARN` and the
//! session goes on. Server requests are answered: `ping` with `{}`, anything else with
//! JSON-RPC error -32601; notifications are logged at `DEBUG` and otherwise ignored.

mod config;
mod framing;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
mod lifecycle;
mod process;
mod session;

use std::collections::HashSet;
use std::hash::{BuildHasher, RandomState};

#[cfg(doc)]
use rmcp::model::ProtocolVersion;
use rmcp::model::{CallToolRequestParams, PaginatedRequestParams};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

pub use config::{
    ConnectConfig, DEFAULT_MAX_MESSAGE_SIZE, DEFAULT_REQUEST_TIMEOUT, DISCOVER_PROBE_TIMEOUT,
    Lifecycle,
};
pub use process::{DEFAULT_INHERITED_ENV, EOF_GRACE, TERM_GRACE};

use crate::snapshot::SnapshotSource;
use crate::{Error, Snapshot, ToolResult, map_call_result};
use session::Session;

/// How long a failed connect or [`McpClient::disconnect`] waits for the server's last stderr
/// lines after the process is gone.
const STDERR_DRAIN: std::time::Duration = std::time::Duration::from_millis(500);

/// The most `tools/list` pages [`McpClient::list_tools_raw`] reads: a server that keeps
/// sending new cursors gets an [`Error::InvalidResponse`] instead of being paged forever.
pub const MAX_TOOLS_LIST_PAGES: usize = 1000;

/// A server-sent value quoted in an error message, cut to a readable length.
fn excerpt(value: &impl std::fmt::Display) -> String {
    crate::snapshot::truncate_for_message(&value.to_string())
}

/// One tool as discovered by `tools/list` at connect.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct DiscoveredTool {
    /// The framework name (seed, "Tool names"): `<prefix>_<mcp_name>` with every `/` → `_`.
    pub name: String,
    /// The raw MCP name, as listed and as sent in `tools/call`.
    pub mcp_name: String,
    /// The tool descriptor exactly as the server sent it (all fields, also unknown ones).
    pub descriptor: Value,
}

/// A connected MCP server (the seed's `ConnectedMCPTools`).
///
/// One client serves many calls, also concurrently (`&self`). Call [`McpClient::disconnect`]
/// when done (the seed's only shutdown hook); dropping the client SIGKILLs the server's
/// process group instead, so no server (nor its children) outlives the client. A process that
/// ends without either (`std::process::exit`, a fatal signal) only closes the server's pipes:
/// see the [module docs](self), "When your process ends without dropping the client".
#[derive(Debug)]
pub struct McpClient {
    session: Session,
    /// The server process, owned by its exit watcher.
    process: process::Watched,
    /// Set by the first [`McpClient::disconnect`]; a second one waits for the first.
    stopped: tokio::sync::Mutex<bool>,
    pid: Option<u32>,
    command: String,
    args: Vec<String>,
    command_line: String,
    server_info: Option<Value>,
    protocol_version: Option<String>,
    /// The SEP-2575 client context of a 2026-07-28 session, merged into every request's `_meta`.
    client_context: Option<Map<String, Value>>,
    tools: Vec<DiscoveredTool>,
    validate_input: bool,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Session")
    }
}

/// Connects to the server `config` describes (seed's `connectMCPTools()`).
///
/// Spawns the command, establishes the lifecycle [`ConnectConfig::lifecycle`] selects
/// (`server/discover` of protocol 2026-07-28 with fallback to `initialize` by default; see
/// the [module docs](self), "Lifecycle"), and pages through `tools/list` until `nextCursor`
/// is absent or not a non-empty string. The lifecycle as a whole (with `Auto`: the probe and
/// the fallback `initialize` together, one deadline) is bounded by
/// [`ConnectConfig::request_timeout`], and so is each `tools/list` page (the `Auto` probe
/// gets at most half of the lifecycle's time, and at most [`DISCOVER_PROBE_TIMEOUT`]). When
/// anything fails, the server is stopped (see
/// [`McpClient::disconnect`]) before the error is returned, so no child is left running.
///
/// The server runs until [`McpClient::disconnect`] or until the client is dropped. If your
/// process ends without either (`std::process::exit`, killed by a signal, `panic = "abort"`),
/// no signal reaches the server's process group: a server that exits at stdin EOF ends, but
/// one that ignores EOF and any grandchildren keep running. See the [module docs](self),
/// "When your process ends without dropping the client", for what is and is not cleaned up
/// and what to do (disconnect before exiting, handle SIGINT/SIGTERM, or run under a
/// supervisor such as systemd or a container).
///
/// # Errors
/// - [`Error::Spawn`]: the command cannot be started.
/// - [`Error::Handshake`]: the server exited, timed out, answered with an error or an
///   unusable result during the lifecycle (the error names the command and the request,
///   `server/discover` or `initialize`, says what both phases got when the fallback failed
///   too, and carries the last stderr lines).
/// - [`Error::Timeout`], [`Error::Rpc`], [`Error::ConnectionClosed`],
///   [`Error::MessageTooLarge`], [`Error::InvalidResponse`]: a `tools/list` page failed.
/// - [`Error::RepeatedCursor`]: `tools/list` returned a cursor twice.
/// - [`Error::NameCollision`]: two tools normalize to one name (seed, "Tool names").
pub async fn connect_mcp_tools(config: ConnectConfig) -> Result<McpClient, Error> {
    let command_line = process::command_line(&config.command, &config.args);
    let spawned = process::spawn(&config)?;
    tracing::debug!(server = %command_line, pid = ?spawned.pid, "spawned MCP server");
    let session = Session::start(
        spawned.stdin,
        spawned.stdout,
        spawned.stderr,
        config.request_timeout,
        config.max_message_size,
        command_line.clone(),
    );
    // The server's exit closes the session even when no EOF arrives on its stdout.
    let process = process::watch(
        spawned.child,
        spawned.pid,
        session.close_after_exit(EXIT_DRAIN),
    );
    let mut client = McpClient {
        session,
        process,
        stopped: tokio::sync::Mutex::new(false),
        pid: spawned.pid,
        command: config.command.clone(),
        args: config.args.clone(),
        command_line,
        server_info: None,
        protocol_version: None,
        client_context: None,
        tools: Vec::new(),
        validate_input: config.validate_input,
    };
    match lifecycle::establish(&client.session, &config, &client.command_line).await {
        Ok(negotiated) => {
            tracing::debug!(
                server = %client.command_line,
                protocol_version = %negotiated.protocol_version,
                "MCP lifecycle established"
            );
            client.server_info = negotiated.server_info;
            client.protocol_version = Some(negotiated.protocol_version);
            client.client_context = negotiated.client_context;
        }
        Err(failure) => {
            // A server that went away: say how it ended (an exit code often says why).
            let exit = if failure.error.is_disconnected() {
                client
                    .process
                    .exited_within(EXIT_STATUS_WAIT)
                    .await
                    .flatten()
                    .map(|status| format!("; {}", ended(status)))
                    .unwrap_or_default()
            } else {
                String::new()
            };
            client.disconnect().await;
            return Err(Error::Handshake {
                command: client.command_line.clone(),
                method: failure.method.to_owned(),
                source: Box::new(failure.error),
                exit,
                stderr_tail: client.session.stderr_tail(),
            });
        }
    }
    match client.discover(config.name_prefix.as_deref()).await {
        Ok(tools) => {
            client.tools = tools;
            Ok(client)
        }
        Err(e) => {
            client.disconnect().await;
            Err(e)
        }
    }
}

impl McpClient {
    /// Lists all pages and names the tools.
    async fn discover(&self, prefix: Option<&str>) -> Result<Vec<DiscoveredTool>, Error> {
        let descriptors = self.list_tools_raw().await?;
        let mut raw_names = Vec::with_capacity(descriptors.len());
        for (i, d) in descriptors.iter().enumerate() {
            match d.get("name") {
                Some(Value::String(name)) => raw_names.push(name.clone()),
                _ => {
                    return Err(self.invalid(
                        "tools/list",
                        format!("tool {i} has no string `name`: {}", excerpt(d)),
                    ));
                }
            }
        }
        let names = crate::naming::normalize_all(prefix, raw_names.iter().map(String::as_str))?;
        Ok(names
            .into_iter()
            .zip(raw_names)
            .zip(descriptors)
            .map(|((name, mcp_name), descriptor)| DiscoveredTool {
                name,
                mcp_name,
                descriptor,
            })
            .collect())
    }

    /// Serializes request parameters built with rmcp's model types and, in a 2026-07-28
    /// session, merges the client context into their `_meta` (SEP-2575).
    fn params<T: serde::Serialize>(&self, params: &T) -> Result<Value, Error> {
        let params = framing::to_params(params)?;
        Ok(match &self.client_context {
            Some(context) => lifecycle::with_client_context(params, context),
            None => params,
        })
    }

    fn invalid(&self, method: &str, reason: String) -> Error {
        Error::InvalidResponse {
            command: self.command_line.clone(),
            method: method.to_owned(),
            reason,
        }
    }

    /// The tools discovered at connect, in the server's order.
    pub fn tools(&self) -> &[DiscoveredTool] {
        &self.tools
    }

    /// The discovered tool with the framework name `name` (see [`DiscoveredTool::name`]).
    pub fn tool(&self, name: &str) -> Option<&DiscoveredTool> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// The raw `serverInfo`: the `initialize` result's, or in a 2026-07-28 session the
    /// `server/discover` result's `_meta["io.modelcontextprotocol/serverInfo"]` (`None` when
    /// the server sent none).
    pub fn server_info(&self) -> Option<&Value> {
        self.server_info.as_ref()
    }

    /// The negotiated protocol version: the `initialize` result's `protocolVersion`, or the
    /// version selected from `server/discover`'s `supportedVersions` (`2026-07-28`).
    pub fn protocol_version(&self) -> Option<&str> {
        self.protocol_version.as_deref()
    }

    /// The command the server was started with.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// The arguments the server was started with.
    pub fn args(&self) -> &[String] {
        &self.args
    }

    /// The server's OS process id (also its process group id on unix), when known.
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Lists the server's tools again, all pages, raw descriptors in the server's order.
    ///
    /// # Errors
    /// [`Error::Timeout`] (per page), [`Error::Rpc`], [`Error::ConnectionClosed`],
    /// [`Error::NotConnected`], [`Error::MessageTooLarge`], [`Error::InvalidResponse`] (a page
    /// without a `tools` array, or more than [`MAX_TOOLS_LIST_PAGES`] pages),
    /// [`Error::RepeatedCursor`] (the cursor cut to 200 chars).
    pub async fn list_tools_raw(&self) -> Result<Vec<Value>, Error> {
        let mut tools = Vec::new();
        // Hashes, not the cursors: a server sending huge cursors must not grow this set.
        let hasher = RandomState::new();
        let mut seen = HashSet::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_TOOLS_LIST_PAGES {
            let params = PaginatedRequestParams::default().with_cursor(cursor.take());
            let page = self
                .session
                .request("tools/list", self.params(&params)?)
                .await?;
            let Value::Object(mut page) = page else {
                return Err(self.invalid(
                    "tools/list",
                    format!("the result is not an object: {}", excerpt(&page)),
                ));
            };
            match page.remove("tools") {
                Some(Value::Array(items)) => tools.extend(items),
                other => {
                    return Err(self.invalid(
                        "tools/list",
                        format!(
                            "`tools` is not an array: {}",
                            excerpt(&other.unwrap_or(Value::Null))
                        ),
                    ));
                }
            }
            match page.remove("nextCursor") {
                Some(Value::String(next)) if !next.is_empty() => {
                    if !seen.insert(hasher.hash_one(&next)) {
                        return Err(Error::RepeatedCursor {
                            cursor: crate::snapshot::truncate_for_message(&next),
                            command: self.command_line.clone(),
                        });
                    }
                    cursor = Some(next);
                }
                _ => return Ok(tools),
            }
        }
        Err(self.invalid(
            "tools/list",
            format!(
                "the server sent more than {MAX_TOOLS_LIST_PAGES} pages, each with a new \
                 `nextCursor`; stopped paging instead of looping forever (this is a server bug)"
            ),
        ))
    }

    /// Calls the tool with the raw MCP name `raw_name` and returns the raw result object.
    ///
    /// `arguments` becomes the `arguments` of `tools/call` (omitted when `None`); the seed
    /// validates nothing locally (seed, "Input validation is delegated to the server").
    ///
    /// # Errors
    /// [`Error::Rpc`] (`MCP error <code>: <message>`), [`Error::Timeout`]
    /// (`MCP error -32001: Request timed out`, after `notifications/cancelled` with the
    /// request's id and the TypeScript SDK's reason `McpError: MCP error -32001: Request timed
    /// out`),
    /// [`Error::ConnectionClosed`] (`MCP error -32000: Connection closed`),
    /// [`Error::NotConnected`] (`Not connected`), [`Error::MessageTooLarge`].
    pub async fn call_tool_raw(
        &self,
        raw_name: &str,
        arguments: Option<Map<String, Value>>,
    ) -> Result<Value, Error> {
        self.call_raw(raw_name, arguments, None).await
    }

    /// As [`McpClient::call_tool_raw`], with the seed's abort signal: when `cancel` is
    /// cancelled, the call fails at once with [`Error::Cancelled`] (`This operation was
    /// aborted`, what the TypeScript SDK rejects with for `AbortController.abort()`) and, if
    /// the request was already sent, the server gets `notifications/cancelled` with its
    /// request id and the reason `AbortError: This operation was aborted`. A token cancelled
    /// before the call sends nothing. The connection stays usable (seed, "Errors": "an aborted
    /// run cancels an in-flight MCP request").
    ///
    /// # Errors
    /// As [`McpClient::call_tool_raw`], plus [`Error::Cancelled`].
    pub async fn call_tool_raw_with_cancel(
        &self,
        raw_name: &str,
        arguments: Option<Map<String, Value>>,
        cancel: &CancellationToken,
    ) -> Result<Value, Error> {
        self.call_raw(raw_name, arguments, Some(cancel)).await
    }

    async fn call_raw(
        &self,
        raw_name: &str,
        arguments: Option<Map<String, Value>>,
        cancel: Option<&CancellationToken>,
    ) -> Result<Value, Error> {
        let mut params = CallToolRequestParams::new(raw_name.to_owned());
        if let Some(arguments) = arguments {
            params = params.with_arguments(arguments);
        }
        self.session
            .request_cancellable("tools/call", self.params(&params)?, cancel)
            .await
    }

    /// Calls a tool and maps the result per the seed; never fails.
    ///
    /// A result is mapped with [`map_call_result`] (seed, "Result mapping"); a failed call
    /// becomes [`ToolResult::failed`]: `MCP tool "<raw_name>" failed: <message>` with
    /// `is_error: true` (seed, "Errors").
    pub async fn call_tool(
        &self,
        raw_name: &str,
        arguments: Option<Map<String, Value>>,
    ) -> ToolResult {
        match self.call_tool_raw(raw_name, arguments).await {
            Ok(result) => map_call_result(&result),
            Err(e) => ToolResult::failed(raw_name, &e.to_string()),
        }
    }

    /// As [`McpClient::call_tool`], with the seed's abort signal (see
    /// [`McpClient::call_tool_raw_with_cancel`]); a cancelled call gives
    /// `MCP tool "<raw_name>" failed: This operation was aborted` with `is_error: true`.
    pub async fn call_tool_with_cancel(
        &self,
        raw_name: &str,
        arguments: Option<Map<String, Value>>,
        cancel: &CancellationToken,
    ) -> ToolResult {
        match self
            .call_tool_raw_with_cancel(raw_name, arguments, cancel)
            .await
        {
            Ok(result) => map_call_result(&result),
            Err(e) => ToolResult::failed(raw_name, &e.to_string()),
        }
    }

    /// Whether [`McpClient::tool_definitions`] validates arguments locally
    /// ([`ConnectConfig::validate_input`]).
    pub fn validates_input(&self) -> bool {
        self.validate_input
    }

    /// A [`Snapshot`] of the tools discovered at connect, with the server's `serverInfo`,
    /// the negotiated protocol version and the command and arguments (never env values).
    /// Call [`McpClient::list_tools_raw`] and [`Snapshot::from_descriptors`] for a fresh list.
    ///
    /// # Errors
    /// [`Error::SnapshotFormat`] when the server listed one raw name twice.
    pub fn snapshot(&self) -> Result<Snapshot, Error> {
        self.snapshot_with_source(SnapshotSource::new(self.command.clone(), self.args.clone()))
    }

    /// As [`McpClient::snapshot`], recording `source` instead of the spawned command: the
    /// command as the user wrote it (e.g. a manifest's relative path), so the snapshot file
    /// does not depend on where the project is checked out.
    ///
    /// # Errors
    /// [`Error::SnapshotFormat`] when the server listed one raw name twice.
    pub fn snapshot_with_source(&self, source: SnapshotSource) -> Result<Snapshot, Error> {
        Snapshot::from_descriptors(
            self.server_info.clone(),
            self.protocol_version.clone(),
            Some(source),
            self.tools.iter().map(|t| t.descriptor.clone()),
        )
    }

    /// Stops the server (seed's `disconnect()`); idempotent, never fails.
    ///
    /// Pending requests fail with [`Error::ConnectionClosed`], later ones with
    /// [`Error::NotConnected`]. Closes the server's stdin and waits up to [`EOF_GRACE`] (2 s)
    /// for it to exit, then SIGTERMs its process group and waits up to [`TERM_GRACE`] (2 s),
    /// then SIGKILLs the group; whatever is left of the group after the server exited also
    /// gets SIGKILL. At most about 4.5 s.
    pub async fn disconnect(&self) {
        self.disconnect_within(EOF_GRACE).await;
    }

    /// [`disconnect`](Self::disconnect) with `eof_grace` instead of [`EOF_GRACE`]: how long
    /// the server may take to exit on its own after its stdin is closed before its process
    /// group gets SIGTERM (then [`TERM_GRACE`], then SIGKILL, as there).
    ///
    /// `Duration::ZERO` sends SIGTERM right after the EOF. That suits a connection that only
    /// listed tools: nothing the server did needs a clean exit, and some servers take a while
    /// to exit on EOF (server-everything about 350 ms), which `oma-mcp check` would otherwise
    /// wait out. After a tool call, prefer `disconnect()`, so the server can finish its work.
    pub async fn disconnect_within(&self, eof_grace: std::time::Duration) {
        let mut stopped = self.stopped.lock().await;
        if *stopped {
            return;
        }
        *stopped = true;
        self.session.close();
        self.process.shutdown(eof_grace).await;
        self.session.stop_tasks(STDERR_DRAIN).await;
        tracing::debug!(server = %self.command_line, "MCP server stopped");
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

/// How long a failed handshake waits for a server whose connection closed to exit, to report
/// its exit status (the pipes close a moment before the process is gone).
const EXIT_STATUS_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

/// How long the session stays open after the server process exited, for the reader to
/// deliver what the server wrote before it exited (it reaches EOF at once unless something
/// outside the server's process group still holds its stdout).
const EXIT_DRAIN: std::time::Duration = std::time::Duration::from_millis(500);

impl Drop for McpClient {
    fn drop(&mut self) {
        if !*self.stopped.get_mut() {
            // The whole process group, and the server itself through its watcher (or, when the
            // runtime is already gone, `kill_on_drop` of the dropped watcher's `Child`).
            self.process.kill_now();
        }
    }
}
