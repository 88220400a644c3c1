//! Connecting to an MCP server (open-multi-agent's `docs/mcp.md`, "Connecting to a server"):
//! the Rust `connectMCPTools()`, over stdio or streamable HTTP.
//!
//! [`connect_mcp_tools`] spawns the configured command and speaks JSON-RPC 2.0 over its pipes
//! (our own framing: rmcp 3.11's typed client drops a whole result or `tools/list` page over
//! one unexpected field, and lines over 16 MiB silently), or, for a
//! [`ConnectConfig::http`] pin, POSTs to the server's URL (cargo feature `http`). It
//! establishes the MCP lifecycle, pages through `tools/list` and returns an [`McpClient`]. Requests are built with rmcp's model
//! types; everything received stays raw [`serde_json::Value`]. One session layer (ids, the
//! pending requests, timeouts, cancellation, server requests, the lifecycle) serves both
//! transports, so everything above it (snapshots, typed calls, result mapping, drift, the
//! tool layer) is the same for both.
//!
//! How connecting works (the lifecycle, streamable HTTP, the process and its environment, server
//! output) is in the [crate docs](crate#connecting-to-a-server).

mod config;
pub(crate) mod framing;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
#[cfg(feature = "http-no-provider")]
pub(crate) mod http;
mod inbox;
mod lifecycle;
mod link;
mod message;
mod negotiate;
mod process;
mod progress;
mod session;
mod stderr;
mod stdio;
mod surface;
mod tasks;
mod transport;
mod watchers;

use std::collections::HashSet;
use std::hash::{BuildHasher, RandomState};
use std::time::Duration;

use rmcp::model::PaginatedRequestParams;
#[cfg(doc)]
use rmcp::model::ProtocolVersion;
use serde_json::{Map, Value};
use tokio::sync::mpsc::UnboundedReceiver;
use tokio_util::sync::CancellationToken;

pub use config::{
    AuthFailure, Authorize, Authorizer, BoxFuture, CONNECT_TIMEOUT, ConnectConfig,
    DEFAULT_MAX_MESSAGE_SIZE, DEFAULT_REQUEST_TIMEOUT, DISCOVER_PROBE_TIMEOUT, Elicitation,
    Lifecycle, MAX_REDIRECTS, MAX_RESUMES, NOTIFICATION_TIMEOUT, OAuthConfig, OAuthGrant, Refusal,
    Secret, TokenProvider, TokenSource, accept_defaults, redact_url,
};
/// rustls' crypto provider of the HTTP transport (features `http`, `http-ring`,
/// `http-no-provider`), for a program that builds a `reqwest` client of its own.
#[cfg(feature = "http-no-provider")]
pub use http::tls::ensure_provider as ensure_tls_provider;
pub use process::{DEFAULT_INHERITED_ENV, EOF_GRACE, TERM_GRACE};
pub use progress::Progress;
pub(crate) use session::ResourceWatch;
pub use stdio::MAX_STDIN_BACKLOG;
pub use surface::SurfaceReading;
pub(crate) use watchers::ResourceFilter;

#[cfg(doc)]
use crate::error::{ConfigError, ConnectError, RequestError};
use crate::error::{DisconnectedError, ProtocolError};
use crate::quote::excerpt;
use crate::{Error, Snapshot};
use link::{Link, Started};
use oma_mcp_core::descriptor::{InvalidToolEntry, split_tool_entries};
use oma_mcp_core::snapshot::SnapshotSource;
pub(crate) use session::ProgressToken;

/// The most `tools/list` pages [`McpClient::list_tools_raw`] reads: a server that keeps
/// sending new cursors gets a [`ProtocolError::InvalidResponse`] instead of being paged forever.
pub const MAX_TOOLS_LIST_PAGES: usize = 1000;

/// One tool as discovered by `tools/list` at connect.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct DiscoveredTool {
    /// The framework name (open-multi-agent's `docs/mcp.md`, "Tool names"): `<prefix>_<mcp_name>`
    /// with every `/` → `_`.
    pub name: String,
    /// The raw MCP name, as listed and as sent in `tools/call`.
    pub mcp_name: String,
    /// The tool descriptor exactly as the server sent it (all fields, also unknown ones).
    pub descriptor: Value,
    /// Whether the tool needs confirmation before it runs, by the connection's
    /// [`ConsequentialPolicy`](crate::consequential::ConsequentialPolicy)
    /// ([`ConnectConfig::consequential`], `not_consequential`, `consequential_annotations`):
    /// by default a tool whose annotations say `destructiveHint: true` without
    /// `readOnlyHint: true`, as generated code marks it. The tool layer
    /// ([`crate::tool::tool_definitions`]) copies it to
    /// [`ToolDefinition::consequential`](crate::ToolDefinition::consequential).
    pub consequential: bool,
}

/// A connected MCP server (open-multi-agent's `ConnectedMCPTools`).
///
/// One client serves many calls, also concurrently (`&self`). Call [`McpClient::disconnect`]
/// when done (open-multi-agent's only shutdown hook); dropping the client SIGKILLs the server's
/// process group instead, so no server (nor its children) outlives the client. A process that
/// ends without either (`std::process::exit`, a fatal signal) only closes the server's pipes:
/// see the [crate docs](crate#when-your-process-ends-without-dropping-the-client).
#[derive(Debug)]
pub struct McpClient {
    /// The session with the server (which owns the transport) and its process.
    link: Link,
    /// What [`McpClient::snapshot`] records: the command and arguments, or the redacted URL
    /// and header names.
    source: SnapshotSource,
    server_info: Option<Value>,
    /// The server's `capabilities` at connect, raw.
    capabilities: Option<Value>,
    /// The server's `instructions` at connect.
    instructions: Option<String>,
    protocol_version: String,
    /// The SEP-2575 client context of a 2026-07-28 session, merged into every request's `_meta`.
    client_context: Option<Map<String, Value>>,
    /// The client context with the tasks extension declared, for task-backed calls and the
    /// `tasks/*` requests of their tasks.
    task_context: Option<Map<String, Value>>,
    /// Answers the server's `elicitation/create` requests, also a task's input requests
    /// ([`ConnectConfig::elicitation`]).
    elicitation: Option<config::Elicitation>,
    tools: Vec<DiscoveredTool>,
    /// The `tools/list` entries at connect that were not tool objects, left out of `tools`.
    invalid_tools: Vec<InvalidToolEntry>,
    validate_input: bool,
    /// Which tools are consequential ([`DiscoveredTool::consequential`]).
    consequential: crate::consequential::ConsequentialPolicy,
    /// Which tools this connection uses ([`ConnectConfig::tools`],
    /// [`ConnectConfig::exclude_tools`]): the others are left out of [`McpClient::tools`].
    selection: oma_mcp_core::select::ToolSelection,
    /// The tools withheld under [`DriftPolicy::Quarantine`](crate::DriftPolicy::Quarantine)
    /// (set by [`connect_checked`](crate::connect_checked); see [`crate::drift`]).
    #[cfg(feature = "drift")]
    pub(crate) quarantine: Option<crate::drift::Quarantine>,
}

/// Connects to the server `config` describes (open-multi-agent's `connectMCPTools()`).
///
/// Spawns the command, establishes the lifecycle [`ConnectConfig::lifecycle`] selects
/// (`server/discover` of protocol 2026-07-28 with fallback to `initialize` by default; see
/// the [crate docs](crate#lifecycle)), and pages through `tools/list` until `nextCursor`
/// is absent or not a non-empty string. An entry of `tools/list` that is not a tool object
/// (`null`, a number, an object without a string `name`) is left out with a warning naming
/// its index and what is wrong, and the server's other tools are kept
/// ([`McpClient::invalid_tools`]). The lifecycle as a whole (with `Auto`: the probe, the
/// `initialize` and a restart together, one deadline) is bounded by
/// [`ConnectConfig::request_timeout`], and so is each `tools/list` page. When
/// anything fails, the server is stopped (see
/// [`McpClient::disconnect`]) before the error is returned, so no child is left running.
///
/// The server runs until [`McpClient::disconnect`] or until the client is dropped. If your
/// process ends without either (`std::process::exit`, killed by a signal, `panic = "abort"`),
/// no signal reaches the server's process group: a server that exits at stdin EOF ends, but
/// one that ignores EOF and any grandchildren keep running. See the
/// [crate docs](crate#when-your-process-ends-without-dropping-the-client) for what is and is not cleaned up
/// and what to do (disconnect before exiting, handle SIGINT/SIGTERM, or run under a
/// supervisor such as systemd or a container).
///
/// # Errors
/// - [`ConnectError::Spawn`]: the command cannot be started.
/// - [`ConnectError::Handshake`]: the server exited, timed out, answered with an error or an
///   unusable result during the lifecycle (the error names the command and the request,
///   `server/discover` or `initialize`, says what both phases got when the fallback failed
///   too, and carries the stderr lines that matter); its source is [`ConnectError::NotMcpServer`]
///   when the program answered `initialize` with -32601 Method not found.
/// - [`RequestError::Timeout`], [`RequestError::Rpc`], [`DisconnectedError::ServerExited`],
///   [`RequestError::MessageTooLarge`], [`ProtocolError::InvalidResponse`]: a `tools/list` page
///   failed.
/// - [`ProtocolError::RepeatedCursor`]: `tools/list` returned a cursor twice.
/// - [`ProtocolError::NameCollision`]: two tools normalize to one name (open-multi-agent's
///   `docs/mcp.md`, "Tool names").
pub async fn connect_mcp_tools(config: ConnectConfig) -> Result<McpClient, Error> {
    // Before anything starts: an invalid glob is a configuration error.
    let consequential = config
        .consequential_policy()
        .map_err(crate::error::ConfigError::from)?;
    let selection = config
        .tool_selection()
        .map_err(crate::error::ConfigError::from)?;
    // One deadline for the whole lifecycle, also across a restart.
    let deadline = tokio::time::Instant::now() + config.request_timeout;
    let (link, negotiated) = match Link::open(&config, config.lifecycle, deadline).await {
        Ok(opened) => opened,
        Err(Started::Failed(error)) => return Err(error),
        Err(Started::ExitedAfterDiscover {
            command_line,
            exit,
            stderr,
        }) => {
            tracing::warn!(
                server = %command_line,
                "the MCP server went away after `server/discover` without answering{exit}{stderr}; \
                 starting it again with `initialize` (servers before 2026-07-28 may accept only \
                 `initialize` first; pin `Lifecycle::Initialize`, manifest `lifecycle = \
                 \"initialize\"`, to skip the probe)"
            );
            match Link::open(&config, Lifecycle::Initialize, deadline).await {
                Ok(opened) => opened,
                Err(Started::Failed(error)) => return Err(error),
                Err(Started::ExitedAfterDiscover { .. }) => {
                    return Err(Error::Disconnected(DisconnectedError::NotConnected));
                }
            }
        }
    };
    McpClient::new(link, negotiated, &config, consequential, selection)
        .discover_tools(config.name_prefix.as_deref())
        .await
}

/// Every method of [`McpClient`] but the two that start a call (`call_tool` and `call`, in
/// [`crate::call`]) is in this one block. The drift check (at its end) is a thin method over
/// [`crate::drift`].
impl McpClient {
    fn new(
        link: Link,
        negotiated: lifecycle::Negotiated,
        config: &ConnectConfig,
        consequential: crate::consequential::ConsequentialPolicy,
        selection: oma_mcp_core::select::ToolSelection,
    ) -> Self {
        Self {
            link,
            source: config.snapshot_source(),
            server_info: negotiated.server_info,
            capabilities: negotiated.capabilities,
            instructions: negotiated.instructions,
            protocol_version: negotiated.protocol_version,
            client_context: negotiated.client_context,
            task_context: negotiated.task_context,
            elicitation: config.elicitation.clone(),
            tools: Vec::new(),
            invalid_tools: Vec::new(),
            validate_input: config.validate_input,
            consequential,
            selection,
            #[cfg(feature = "drift")]
            quarantine: None,
        }
    }

    /// How many `notifications/tools/list_changed` the server sent so far (what the
    /// quarantine compares with, [`crate::drift`]).
    #[cfg(feature = "drift")]
    pub(crate) fn tools_list_changes(&self) -> u64 {
        self.link.session.tools_list_changes()
    }

    /// Every credential this connection has sent to the server so far: over HTTP the
    /// `bearer-env` and `header-env` values and each OAuth access token (also the ones a
    /// refresh replaced); none over stdio. For a recording to redact
    /// ([`FakeServer::record`](crate::fake::FakeServer::record)); never shown.
    #[cfg_attr(not(feature = "fake"), allow(dead_code))]
    pub(crate) fn sent_credentials(&self) -> Vec<String> {
        self.link.session.transport().sent_credentials()
    }

    /// Lists the tools after the lifecycle (the last step of [`connect_mcp_tools`]); on
    /// failure the server is stopped.
    async fn discover_tools(mut self, prefix: Option<&str>) -> Result<McpClient, Error> {
        match self.discover(prefix).await {
            Ok((tools, invalid)) => {
                self.tools = tools;
                self.invalid_tools = invalid;
                Ok(self)
            }
            Err(e) => {
                self.disconnect().await;
                Err(e)
            }
        }
    }

    /// Lists all pages and names the tools; the entries that are not tool objects are left
    /// out, each with a warning ([`split_tool_entries`]), and returned beside the tools.
    async fn discover(
        &self,
        prefix: Option<&str>,
    ) -> Result<(Vec<DiscoveredTool>, Vec<InvalidToolEntry>), Error> {
        let split = split_tool_entries(self.list_tools_raw().await?);
        for entry in &split.invalid {
            tracing::warn!(
                server = %self.link.command_line,
                index = entry.index,
                "{entry}; left it out and kept the server's other tools (a bug in the server: \
                 report it to the server's authors)"
            );
        }
        let descriptors = self.selected(self.usable_over_transport(split.tools));
        let raw_names: Vec<String> = descriptors
            .iter()
            .map(|d| {
                d.get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned()
            })
            .collect();
        let names = crate::naming::normalize_all(prefix, raw_names.iter().map(String::as_str))?;
        let tools = names
            .into_iter()
            .zip(raw_names)
            .zip(descriptors)
            .map(|((name, mcp_name), descriptor)| DiscoveredTool {
                consequential: self.consequential.is_consequential_tool(&descriptor),
                name,
                mcp_name,
                descriptor,
            })
            .collect();
        Ok((tools, split.invalid))
    }

    /// The listed tools this connection uses ([`McpClient::tool_selection`]), in the server's
    /// order; a `tools` or `exclude-tools` entry that matches no listed tool is a warning (a
    /// misspelt name, or a tool the server no longer has).
    fn selected(&self, tools: Vec<Value>) -> Vec<Value> {
        if self.selection.is_all() {
            return tools;
        }
        fn name(tool: &Value) -> &str {
            tool.get("name").and_then(Value::as_str).unwrap_or_default()
        }
        let names: Vec<&str> = tools.iter().map(name).collect();
        for (key, entry) in self.selection.unmatched(&names) {
            tracing::warn!(
                server = %self.link.command_line,
                "the `{key}` entry {entry:?} matches no tool the server lists; check its \
                 spelling, or remove it if the server dropped the tool"
            );
        }
        tools
            .into_iter()
            .filter(|tool| self.selection.selects(name(tool)))
            .collect()
    }

    /// The listed tools this transport can call: over HTTP from 2026-07-28 on, a tool with an
    /// invalid `x-mcp-header` annotation is left out (with a warning naming tool and reason),
    /// as the streamable HTTP transport requires of clients; otherwise all of them.
    fn usable_over_transport(&self, tools: Vec<Value>) -> Vec<Value> {
        #[cfg(feature = "http-no-provider")]
        if self.link.session.transport().is_http() && self.client_context.is_some() {
            return tools
                .into_iter()
                .filter(|tool| match http::header_annotation_problem(tool) {
                None => true,
                Some(reason) => {
                    tracing::warn!(
                        server = %self.link.command_line,
                        tool = %tool.get("name").and_then(serde_json::Value::as_str).unwrap_or(""),
                        "left out a tool with an invalid x-mcp-header annotation: {reason}"
                    );
                    false
                }
            })
                .collect();
        }
        tools
    }

    /// Serializes request parameters built with rmcp's model types and, in a 2026-07-28
    /// session, merges the client context into their `_meta` (SEP-2575).
    fn params<T: serde::Serialize>(&self, params: &T) -> Result<Value, Error> {
        let params = framing::to_params(params)?;
        Ok(match &self.client_context {
            Some(context) => framing::with_client_context(params, context),
            None => params,
        })
    }

    /// Sends one `method` request with `params` (the client context of a 2026-07-28
    /// session added, as every request gets it) and returns the raw result: what the list
    /// pages, `prompts/get`, `resources/read` and `completion/complete` send.
    ///
    /// # Errors
    /// [`RequestError::Timeout`], [`RequestError::Rpc`], [`DisconnectedError::ServerExited`]
    /// (with the server's exit status and stderr), [`DisconnectedError::NotConnected`],
    /// [`RequestError::MessageTooLarge`].
    pub(crate) async fn request_raw<P: serde::Serialize>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<Value, Error> {
        match self
            .link
            .session
            .request(method, self.params(params)?)
            .await
        {
            Ok(result) => Ok(result),
            Err(e) => Err(self.link.explain(method, e).await),
        }
    }

    /// A receiver of the resource notifications of this session that `filter` wants
    /// (`notifications/resources/updated`, `notifications/subscriptions/acknowledged`, each as
    /// `{"method": …, "params": …}`) while the [`ResourceWatch`] lives; it ends when the
    /// connection closes or (over HTTP) its session is replaced by a new one.
    pub(crate) fn watch_resources(
        &self,
        filter: ResourceFilter,
    ) -> (ResourceWatch, UnboundedReceiver<Value>) {
        self.link.session.watch_resources(filter)
    }

    /// Counts one more subscription holding `uri` through `resources/subscribe`; `true` when
    /// it is the first (which sends the request).
    pub(crate) fn hold_resource(&self, uri: &str) -> bool {
        self.link.session.hold_resource(uri)
    }

    /// Counts one subscription fewer holding `uri`; `true` when it was the last (which sends
    /// `resources/unsubscribe`).
    pub(crate) fn release_resource(&self, uri: &str) -> bool {
        self.link.session.release_resource(uri)
    }

    /// Sends a request that stays open without a time bound (`subscriptions/listen`, MCP
    /// 2026-07-28), the client context added to `params`: its id (which the server's
    /// notifications name) and the future of its answer, which sends it when first polled.
    /// Dropping the future cancels the request with `notifications/cancelled`.
    ///
    /// # Errors
    /// [`Error::Config`] or [`Error::Protocol`] when `params` do not serialize; the future
    /// fails as [`McpClient::request_raw`] does, without a timeout.
    pub(crate) fn request_open(
        &self,
        method: &'static str,
        params: &impl serde::Serialize,
    ) -> Result<(u64, impl Future<Output = Result<Value, Error>> + Send + '_), Error> {
        let params = self.params(params)?;
        let session = &self.link.session;
        let id = session.next_request_id();
        let answer = async move {
            match session.request_open(method, &params, id).await {
                Ok(result) => Ok(result),
                Err(e) => Err(self.link.explain(method, e).await),
            }
        };
        Ok((id, answer))
    }

    /// Sends a request whose answer nobody waits for (`resources/unsubscribe` when a
    /// subscription is dropped); errors are ignored.
    pub(crate) fn request_unanswered(&self, method: &str, params: &Value) {
        self.link.session.request_unanswered(method, params);
    }

    /// The server as errors name it: its command line, or its redacted URL.
    pub(crate) fn server_label(&self) -> &str {
        &self.link.command_line
    }

    /// A [`ProtocolError::InvalidResponse`] of this server for `method`, saying `reason`.
    pub(crate) fn invalid(&self, method: &str, reason: String) -> Error {
        Error::Protocol(ProtocolError::InvalidResponse {
            command: self.link.command_line.clone(),
            method: method.to_owned(),
            reason,
        })
    }

    /// The tools discovered at connect that this connection uses
    /// ([`McpClient::tool_selection`]; all of them by default), in the server's order.
    pub fn tools(&self) -> &[DiscoveredTool] {
        &self.tools
    }

    /// Which tools this connection uses: [`ConnectConfig::tools`] and
    /// [`ConnectConfig::exclude_tools`] compiled (see [`oma_mcp_core::select`]). The others
    /// are not in [`McpClient::tools`], so not in the tool layer; a call by raw name
    /// ([`McpClient::call_tool`]) still reaches them.
    pub fn tool_selection(&self) -> &oma_mcp_core::select::ToolSelection {
        &self.selection
    }

    /// The entries of `tools/list` at connect that were not tool objects (`null`, a number,
    /// an object without a string `name`), in the server's order: each was left out of
    /// [`McpClient::tools`] with a warning naming its index and what is wrong, and
    /// [`McpClient::snapshot`] records how many there were.
    pub fn invalid_tools(&self) -> &[InvalidToolEntry] {
        &self.invalid_tools
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

    /// The server's `capabilities` object as sent in the `initialize` or `server/discover`
    /// result (`None` when it sent no object).
    pub fn capabilities(&self) -> Option<&Value> {
        self.capabilities.as_ref()
    }

    /// The server's `instructions` (the `initialize` or `server/discover` result's; `None`
    /// when it sent none): text a host may show the model.
    pub fn instructions(&self) -> Option<&str> {
        self.instructions.as_deref()
    }

    /// The negotiated protocol version: the `initialize` result's `protocolVersion`, or the
    /// version selected from `server/discover`'s `supportedVersions` (`2026-07-28`).
    pub fn protocol_version(&self) -> &str {
        &self.protocol_version
    }

    /// What this connection reached, as a snapshot records it: the command and arguments
    /// that started the server, or the URL (redacted), the literal headers and the names of the
    /// headers taken from the environment ([`ConnectConfig::snapshot_source`]).
    pub fn source(&self) -> &SnapshotSource {
        &self.source
    }

    /// How many requests of this client wait for their answer now: `tools/call`,
    /// `tools/list` pages and lifecycle requests sent and neither answered nor ended by a
    /// timeout, a cancellation or a closed connection. A diagnostic (soak tests, leak checks,
    /// a health endpoint): every request leaves the count when it resolves, however it
    /// resolves, so it is 0 whenever no call is in flight; after [`McpClient::disconnect`]
    /// it is 0.
    pub fn pending_requests(&self) -> usize {
        self.link.session.pending_requests()
    }

    /// The server's OS process id (also its process group id on unix), when known.
    pub fn pid(&self) -> Option<u32> {
        self.link.pid
    }

    /// Lists the server's tools again, all pages, raw descriptors in the server's order: the
    /// entries exactly as sent, also those that are not tool objects (which connecting left
    /// out; [`split_tool_entries`] splits them off the same way).
    ///
    /// # Errors
    /// [`RequestError::Timeout`] (per page), [`RequestError::Rpc`],
    /// [`DisconnectedError::ServerExited`] (the server went away;
    /// [`DisconnectedError::ConnectionClosed`] when [`McpClient::disconnect`] ran meanwhile),
    /// [`DisconnectedError::NotConnected`], [`RequestError::MessageTooLarge`],
    /// [`ProtocolError::InvalidResponse`] (a page without a `tools` array, or more than
    /// [`MAX_TOOLS_LIST_PAGES`] pages), [`ProtocolError::RepeatedCursor`] (the cursor cut to 200
    /// chars).
    pub async fn list_tools_raw(&self) -> Result<Vec<Value>, Error> {
        let (tools, _) = self.list_pages("tools/list", "tools", None).await?;
        self.link.session.transport().learn_tools(&tools);
        Ok(tools)
    }

    /// Pages through `method` (`tools/list`, `prompts/list`, `resources/list`,
    /// `resources/templates/list`) and returns the entries of every page's `member` array in
    /// the server's order, and whether `bound` cut them (then exactly `bound` entries are
    /// returned and no further page is asked for).
    async fn list_pages(
        &self,
        method: &str,
        member: &str,
        bound: Option<usize>,
    ) -> Result<(Vec<Value>, bool), Error> {
        let mut entries = Vec::new();
        // Hashes, not the cursors: a server sending huge cursors must not grow this set.
        let hasher = RandomState::new();
        let mut seen = HashSet::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_TOOLS_LIST_PAGES {
            let params = PaginatedRequestParams::default().with_cursor(cursor.take());
            let page = self.request_raw(method, &params).await?;
            let Value::Object(mut page) = page else {
                return Err(self.invalid(
                    method,
                    format!("the result is not an object: {}", excerpt(&page)),
                ));
            };
            match page.remove(member) {
                Some(Value::Array(items)) => entries.extend(items),
                other => {
                    return Err(self.invalid(
                        method,
                        format!(
                            "`{member}` is not an array: {}",
                            excerpt(&other.unwrap_or(Value::Null))
                        ),
                    ));
                }
            }
            if let Some(bound) = bound
                && entries.len() > bound
            {
                entries.truncate(bound);
                return Ok((entries, true));
            }
            match page.remove("nextCursor") {
                Some(Value::String(next)) if !next.is_empty() => {
                    if !seen.insert(hasher.hash_one(&next)) {
                        return Err(Error::Protocol(ProtocolError::RepeatedCursor {
                            method: method.to_owned(),
                            cursor: excerpt(&next),
                            command: self.link.command_line.clone(),
                        }));
                    }
                    cursor = Some(next);
                }
                _ => return Ok((entries, false)),
            }
        }
        Err(self.invalid(
            method,
            format!(
                "the server sent more than {MAX_TOOLS_LIST_PAGES} pages, each with a new \
                 `nextCursor`; stopped paging instead of looping forever (this is a server bug)"
            ),
        ))
    }

    /// Sends one `tools/call` (what every [`ToolCall`](crate::ToolCall) ending sends) and
    /// returns the raw result object. `extra` members go into `params` beside `name` and
    /// `arguments` (`inputResponses`, `requestState`); `progress_token` goes into
    /// `_meta.progressToken`; `timeout` replaces the request timeout for this request.
    /// `task`: how the call asks for a task ([`McpClient::task_dialect`]): MCP 2025-11-25's
    /// `params.task` (`{}`: the server's own time to live), or the client context declaring
    /// the 2026-07-28 tasks extension.
    ///
    /// # Errors
    /// As [`ToolCall::raw`](crate::ToolCall::raw).
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn tools_call(
        &self,
        raw_name: &str,
        arguments: Option<&Map<String, Value>>,
        extra: &Map<String, Value>,
        progress_token: Option<u64>,
        cancel: Option<&CancellationToken>,
        timeout: Option<Duration>,
        task: Option<oma_mcp_core::task::TaskDialect>,
    ) -> Result<Value, Error> {
        use oma_mcp_core::task::TaskDialect;
        let context = match task {
            Some(TaskDialect::Extension) => self.task_context.as_ref(),
            _ => self.client_context.as_ref(),
        };
        let with_task;
        let extra = match task {
            Some(TaskDialect::Experimental) => {
                let mut members = extra.clone();
                members.insert("task".to_owned(), Value::Object(Map::new()));
                with_task = members;
                &with_task
            }
            _ => extra,
        };
        // Serialized from these borrowed parts into the request line (no `Value` copy of the
        // arguments; see `framing::CallParams` for the members and their order).
        let params = framing::CallParams {
            name: raw_name,
            arguments,
            context,
            progress_token,
            extra,
        };
        match self
            .link
            .session
            .request_cancellable("tools/call", &params, cancel, timeout)
            .await
        {
            Ok(result) => Ok(result),
            Err(e) => Err(self.link.explain("tools/call", e).await),
        }
    }

    /// A new progress token of this session and the receiver of the `params` of every
    /// `notifications/progress` that names it, until the token is dropped.
    pub(crate) fn watch_progress(&self) -> (ProgressToken, UnboundedReceiver<Value>) {
        self.link.session.progress()
    }

    /// Whether the tool layer's definitions of this client (`tool::tool_definitions`, cargo
    /// feature `tools`) validate arguments locally
    /// ([`ConnectConfig::validate_input`]).
    pub fn validates_input(&self) -> bool {
        self.validate_input
    }

    /// A [`Snapshot`] of the tools discovered at connect (those of
    /// [`McpClient::tool_selection`]: a snapshot to pin the whole server connects without
    /// `tools` and `exclude-tools`, as `oma-mcp snapshot` does), with the server's `serverInfo`,
    /// the negotiated protocol version, its source ([`ConnectConfig::snapshot_source`]: the
    /// command and arguments, or the redacted URL, the literal headers and the names of the
    /// headers from the environment; never a value from the environment) and how many
    /// `tools/list` entries were not tool objects ([`Snapshot::invalid_tools`]).
    /// Call [`McpClient::list_tools_raw`], [`split_tool_entries`] and
    /// [`Snapshot::from_descriptors`] for a fresh list.
    ///
    /// # Errors
    /// [`Error::Snapshot`] when the server listed one
    /// raw name twice.
    pub fn snapshot(&self) -> Result<Snapshot, Error> {
        self.snapshot_with_source(self.source.clone())
    }

    /// As [`McpClient::snapshot`], recording `source` instead of the spawned command: the
    /// command as the user wrote it (e.g. a manifest's relative path), so the snapshot file
    /// does not depend on where the project is checked out.
    ///
    /// # Errors
    /// [`Error::Snapshot`] when the server listed one
    /// raw name twice.
    pub fn snapshot_with_source(&self, source: SnapshotSource) -> Result<Snapshot, Error> {
        Ok(Snapshot::from_descriptors(
            self.server_info.clone(),
            Some(self.protocol_version.clone()),
            Some(source),
            self.tools.iter().map(|t| t.descriptor.clone()),
        )?
        .with_invalid_tools(self.invalid_tools.len()))
    }

    /// Stops the server (open-multi-agent's `disconnect()`); idempotent, never fails.
    ///
    /// Pending requests fail with [`DisconnectedError::ConnectionClosed`], later ones with
    /// [`DisconnectedError::NotConnected`]. Closes the server's stdin and waits up to [`EOF_GRACE`]
    /// (2 s) for it to exit, then SIGTERMs its process group and waits up to [`TERM_GRACE`] (2 s),
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
        self.link.close(eof_grace).await;
    }

    /// Compares the tools listed at connect with `snapshot` (the pin), both as
    /// [`McpClient::tool_selection`] selects them: `snapshot` is the old side, the live server
    /// the new one, including its protocol version, `serverInfo`, the
    /// count of `tools/list` entries that were not tool objects, and, where the pin records
    /// them, its capabilities and instructions (prompts and resources are not listed at
    /// connect, so they are not compared here; `oma-mcp check` compares them).
    /// Cargo feature `drift` (on by default).
    #[cfg(feature = "drift")]
    pub fn drift_against(&self, snapshot: &Snapshot) -> crate::DriftReport {
        // The live side as the client listed it: listing order, `serverInfo` as sent.
        let mut live = Snapshot::default();
        live.server_info = self.server_info().cloned();
        live.capabilities = self.capabilities.clone();
        live.protocol_version = Some(self.protocol_version.clone());
        live.invalid_tools = self.invalid_tools.len();
        live.tools = self
            .tools()
            .iter()
            .filter_map(|t| oma_mcp_core::SnapshotTool::from_descriptor(t.descriptor.clone()).ok())
            .collect();
        let live = live.with_instructions(self.instructions.clone());
        oma_mcp_core::drift::diff(&self.selection.retain(snapshot), &live)
    }

    /// [`McpClient::drift_against`] the snapshot embedded in generated code as canonical JSON
    /// text (the generated module's `SNAPSHOT`; its `drift` function calls this). Cargo
    /// feature `drift` (on by default).
    ///
    /// # Errors
    /// [`Error::Snapshot`] when `snapshot_json` is not a
    /// snapshot (generated code always embeds a valid one).
    #[cfg(feature = "drift")]
    pub fn drift_against_embedded(&self, snapshot_json: &str) -> Result<crate::DriftReport, Error> {
        Ok(self.drift_against(&Snapshot::parse_embedded(snapshot_json)?))
    }
}
