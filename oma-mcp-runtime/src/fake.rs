//! Fakes of pinned MCP servers for tests (cargo feature `fake`): a server that serves a pinned
//! snapshot's `tools/list` over a real MCP session on loopback streamable HTTP, and answers
//! `tools/call` with handlers the test registers, checked against the pinned schemas.
//!
//! Code under test connects to a [`FakeServer`] as to the real server (over the same client,
//! the same session, the same result mapping), so what it sees is what the server would send:
//!
//! - `tools/list` is the snapshot's descriptors exactly as committed (a drift check against
//!   the snapshot finds nothing);
//! - a call's arguments are validated against the tool's pinned `inputSchema`, and a typed
//!   handler ([`FakeServer::on`]) gets them as the generated argument struct;
//! - a handler's answer ([`Reply`]) is checked against the tool's `outputSchema`: a typed
//!   output must validate, and a tool that declares an `outputSchema` must answer with one
//!   (MCP 2025-06-18, "Structured Content"), so a fake cannot drift from the server it
//!   stands for;
//! - every call is kept ([`FakeServer::calls`], [`FakeServer::calls_of`]); calls of a tool
//!   without a handler, of a tool the snapshot lacks, with invalid arguments, or answered
//!   with an invalid output are answered with a JSON-RPC error and kept as problems
//!   ([`FakeServer::problems`], [`FakeServer::verify`]).
//!
//! A generated module offers `fake()` for its pin (with this feature, typically turned on in
//! `[dev-dependencies]`):
//!
//! ```ignore
//! let fake = demo::fake().await?;
//! fake.on::<demo::Add>(|args| Reply::Text((args.a + args.b).to_string()))?;
//! let client = fake.connect().await?;
//! assert_eq!(client.call(demo::AddArgs::new(40, 2)).mapped().await.data, "42");
//! assert_eq!(fake.calls_of::<demo::Add>()[0].a, 40);
//! fake.verify()?;
//! ```
//!
//! The fake is a stateless server on the snapshot's revision (`server/discover` for MCP
//! 2026-07-28, the `initialize` handshake for earlier ones), on `127.0.0.1` at a port the
//! system picks, and stops when the [`FakeServer`] is dropped.

mod dispatch;
mod http;
mod reply;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::snapshot::{Snapshot, SnapshotError};
use crate::{ConnectConfig, Error, McpClient, McpTool};

pub use reply::Reply;

use dispatch::{Handler, State};

/// What went wrong setting up a fake.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FakeError {
    /// The snapshot text is not a snapshot.
    #[error("the fake's snapshot is not valid: {0}")]
    Snapshot(#[from] SnapshotError),
    /// The loopback listener could not be opened.
    #[error("the fake could not listen on 127.0.0.1: {0}")]
    Listen(std::io::Error),
    /// A handler was registered for a tool the snapshot does not have.
    #[error(
        "the fake's snapshot has no tool \"{tool}\": the marker type was generated from another \
         snapshot (regenerate, or use the generated module of this server's pin)"
    )]
    UnknownTool {
        /// The raw MCP name.
        tool: String,
    },
    /// A handler was registered with a marker type generated from another version of the
    /// tool.
    #[error(
        "the tool \"{tool}\" of the fake's snapshot is not the one the marker type was \
         generated from (digest {snapshot} in the snapshot, {marker} in the code): regenerate \
         the code from this snapshot"
    )]
    DigestMismatch {
        /// The raw MCP name.
        tool: String,
        /// The snapshot's digest of the tool.
        snapshot: String,
        /// The marker's [`McpTool::DIGEST`].
        marker: String,
    },
}

/// One `tools/call` the fake received, in arrival order.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct FakeCall {
    /// The raw MCP tool name called.
    pub tool: String,
    /// The `arguments` as received (`null` when none were sent).
    pub arguments: Value,
    /// What the fake answered: `Ok` with the `CallToolResult`, or `Err` with the JSON-RPC
    /// error's message (a problem, also in [`FakeServer::problems`]).
    pub answer: Result<Value, String>,
}

/// Calls the fake could not answer as the server would, in arrival order: each says what,
/// which tool, and (for schema violations) the JSON pointer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the fake of {server} saw {} problem(s):\n- {}", problems.len(), problems.join("\n- "))]
pub struct FakeProblems {
    /// The server the fake stands for (its `serverInfo.name`).
    pub server: String,
    /// One line per problem.
    pub problems: Vec<String>,
}

/// A running fake server (see the [module docs](self)); stops when dropped.
pub struct FakeServer {
    state: Arc<State>,
    addr: SocketAddr,
    prefix: Option<String>,
    task: tokio::task::JoinHandle<()>,
}

impl std::fmt::Debug for FakeServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakeServer")
            .field("server", &self.state.server_name())
            .field("url", &self.url())
            .finish_non_exhaustive()
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl FakeServer {
    /// Starts a fake serving `snapshot` (snapshot file text, as a generated module's
    /// `SNAPSHOT`) on the current Tokio runtime; `prefix` is the tool name prefix of
    /// [`connect_config`](Self::connect_config) (the pin's).
    ///
    /// # Errors
    /// [`FakeError::Snapshot`] for text that is not a snapshot, [`FakeError::Listen`] when no
    /// loopback port can be opened.
    pub async fn start(snapshot: &str, prefix: Option<&str>) -> Result<Self, FakeError> {
        let snapshot = Snapshot::parse_embedded(snapshot)?;
        let state = Arc::new(State::new(snapshot));
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .map_err(FakeError::Listen)?;
        let addr = listener.local_addr().map_err(FakeError::Listen)?;
        let task = tokio::spawn(http::serve(listener, Arc::clone(&state)));
        Ok(Self {
            state,
            addr,
            prefix: prefix.map(str::to_owned),
            task,
        })
    }

    /// The MCP endpoint: `http://127.0.0.1:<port>/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// A configuration that connects to the fake: streamable HTTP to [`url`](Self::url),
    /// the pin's name prefix.
    pub fn connect_config(&self) -> ConnectConfig {
        let config = ConnectConfig::http(self.url());
        match &self.prefix {
            Some(prefix) => config.with_name_prefix(prefix.clone()),
            None => config,
        }
    }

    /// Connects a client to the fake with [`connect_config`](Self::connect_config).
    ///
    /// # Errors
    /// As [`connect_mcp_tools`](crate::connect_mcp_tools).
    pub async fn connect(&self) -> Result<McpClient, Error> {
        crate::connect_mcp_tools(self.connect_config()).await
    }

    /// Answers calls of `T` with `handler`, which gets the generated argument struct (after
    /// the arguments validated against the pinned `inputSchema`) and returns a [`Reply`]. A
    /// later handler for the same tool replaces the earlier one.
    ///
    /// # Errors
    /// [`FakeError::UnknownTool`] or [`FakeError::DigestMismatch`] when `T` was not generated
    /// from this fake's snapshot.
    pub fn on<T>(
        &self,
        handler: impl Fn(T::Args) -> Reply<T> + Send + Sync + 'static,
    ) -> Result<(), FakeError>
    where
        T: McpTool + 'static,
        T::Args: DeserializeOwned,
        T::Output: serde::Serialize,
    {
        let digest = self
            .state
            .digest(T::MCP_NAME)
            .ok_or_else(|| FakeError::UnknownTool {
                tool: T::MCP_NAME.to_owned(),
            })?;
        if digest != T::DIGEST {
            return Err(FakeError::DigestMismatch {
                tool: T::MCP_NAME.to_owned(),
                snapshot: digest,
                marker: T::DIGEST.to_owned(),
            });
        }
        let handler: Handler = Box::new(move |arguments: Value| {
            let args = serde_json::from_value::<T::Args>(arguments).map_err(|e| {
                format!(
                    "tool \"{}\": the arguments do not fit the generated `{}`: {e}",
                    T::MCP_NAME,
                    std::any::type_name::<T::Args>()
                )
            })?;
            handler(args).into_result()
        });
        self.state.set_handler(T::MCP_NAME, handler);
        Ok(())
    }

    /// Answers calls of the tool `tool` (raw MCP name) with `handler`, untyped: it gets the
    /// `arguments` (validated against the pinned `inputSchema`) and returns the whole
    /// `CallToolResult`, checked as [`Reply::Result`] is.
    ///
    /// # Errors
    /// [`FakeError::UnknownTool`] when the snapshot has no such tool.
    pub fn on_raw(
        &self,
        tool: &str,
        handler: impl Fn(Value) -> Value + Send + Sync + 'static,
    ) -> Result<(), FakeError> {
        if self.state.digest(tool).is_none() {
            return Err(FakeError::UnknownTool {
                tool: tool.to_owned(),
            });
        }
        self.state
            .set_handler(tool, Box::new(move |arguments| Ok(handler(arguments))));
        Ok(())
    }

    /// Every call received, in arrival order.
    pub fn calls(&self) -> Vec<FakeCall> {
        self.state.calls()
    }

    /// The arguments of every call of `T` that reached its handler, as the generated argument
    /// struct, in arrival order.
    pub fn calls_of<T>(&self) -> Vec<T::Args>
    where
        T: McpTool,
        T::Args: DeserializeOwned,
    {
        self.state
            .calls()
            .into_iter()
            .filter(|c| c.tool == T::MCP_NAME && c.answer.is_ok())
            .filter_map(|c| serde_json::from_value(c.arguments).ok())
            .collect()
    }

    /// How many calls of each tool were received (raw MCP names; tools never called are
    /// absent).
    pub fn call_counts(&self) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for call in self.state.calls() {
            *counts.entry(call.tool).or_insert(0) += 1;
        }
        counts
    }

    /// The calls the fake could not answer as the server would, one line each.
    pub fn problems(&self) -> Vec<String> {
        self.state.problems()
    }

    /// `Ok` when every call was answered by a handler with a valid answer.
    ///
    /// # Errors
    /// [`FakeProblems`] listing each problem.
    pub fn verify(&self) -> Result<(), FakeProblems> {
        let problems = self.state.problems();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(FakeProblems {
                server: self.state.server_name(),
                problems,
            })
        }
    }
}

/// Shared state behind a lock that a panicking handler cannot poison for good.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
