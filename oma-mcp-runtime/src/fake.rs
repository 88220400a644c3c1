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
//! Recorded sessions: [`FakeServer::record`] is a proxy in front of a real server that keeps
//! every call and its answer in a [`Cassette`] (canonical JSON, credentials redacted);
//! [`FakeServer::replay_file`] answers from one, matching calls by tool and arguments, and a
//! call it has not recorded is a problem. A cassette that no longer fits the snapshot is
//! refused when loaded ([`FakeError::StaleCassette`]), and `oma-mcp check` reports it. For
//! code that starts its server as a command, `oma-mcp record` and `oma-mcp replay` are the
//! same proxy and replay on stdio ([`FakeServer::serve_stdio`]).
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
mod offers;
mod reply;
mod stdio;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::cassette::{Cassette, CassetteError, Redaction, stale_calls};
use crate::content::{ResourceBody, Role};
use crate::snapshot::ItemKind;
use crate::snapshot::{Snapshot, SnapshotError};
use crate::{ConnectConfig, Error, McpClient, McpPrompt, McpTool};

pub use reply::Reply;

use dispatch::{Fallback, Handler, State};

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
    /// A cassette could not be read or written, or is no cassette.
    #[error(transparent)]
    Cassette(#[from] CassetteError),
    /// A cassette holds calls that no longer fit the fake's snapshot.
    #[error(
        "the cassette {file} no longer fits the pinned snapshot; record it again:\n- {}",
        calls.join("\n- ")
    )]
    #[non_exhaustive]
    StaleCassette {
        /// The cassette file.
        file: String,
        /// One line per stale call (index, tool, JSON pointer into the file, why).
        calls: Vec<String>,
    },
    /// The connected server's tools make no snapshot to serve.
    #[error("the recording proxy cannot serve the server's tools: {0}")]
    Record(String),
    /// [`FakeServer::save_cassette`] on a fake that does not record.
    #[error(
        "this fake does not record: start a recording proxy with `FakeServer::record` to save \
         a cassette"
    )]
    NotRecording,
    /// A handler was registered for a tool the snapshot does not have.
    #[error(
        "the fake's snapshot has no tool {}: the marker type was generated from another \
         snapshot (regenerate, or use the generated module of this server's pin)",
        crate::quote::quoted(tool)
    )]
    #[non_exhaustive]
    UnknownTool {
        /// The raw MCP name.
        tool: String,
    },
    /// A handler was registered with a marker type generated from another version of the
    /// tool.
    #[error(
        "the tool {} of the fake's snapshot is not the one the marker type was generated \
         from (digest {snapshot} in the snapshot, {marker} in the code): regenerate the code \
         from this snapshot",
        crate::quote::quoted(tool)
    )]
    #[non_exhaustive]
    DigestMismatch {
        /// The raw MCP name.
        tool: String,
        /// The snapshot's digest of the tool.
        snapshot: String,
        /// The marker's [`McpTool::DIGEST`].
        marker: String,
    },
    /// A prompt handler was registered with a marker type the snapshot has no prompt for,
    /// or whose prompt the snapshot holds in another version.
    #[error(
        "the fake's snapshot {}: the marker type was generated from another snapshot \
         (regenerate, or use the generated module of this server's pin)",
        match snapshot {
            Some(digest) => format!(
                "has another version of the prompt {} (digest {digest}, {marker} in the code)",
                crate::quote::quoted(prompt)
            ),
            None => format!("has no prompt {}", crate::quote::quoted(prompt)),
        }
    )]
    #[non_exhaustive]
    UnknownPrompt {
        /// The prompt's name.
        prompt: String,
        /// The snapshot's digest of the prompt, when it has one of that name.
        snapshot: Option<String>,
        /// The marker's [`McpPrompt::DIGEST`].
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
    /// error.
    pub answer: Result<Value, FakeRpcError>,
    /// Why the fake could not answer as the server would (also in
    /// [`FakeServer::problems`]); `None` when it could (a handler's valid answer, a recorded
    /// or forwarded one, errors included).
    pub problem: Option<String>,
}

/// A JSON-RPC error the fake answered a call with.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct FakeRpcError {
    /// The error code (`-32602` for a call the server would refuse, `-32603` for a handler's
    /// problem, or the code a recorded or forwarded server error had).
    pub code: i64,
    /// The message.
    pub message: String,
    /// The `data` member, when there is one (a recorded or forwarded server error's).
    pub data: Option<Value>,
}

impl FakeRpcError {
    pub(crate) fn new(code: i64, message: String) -> Self {
        Self {
            code,
            message,
            data: None,
        }
    }

    /// The JSON-RPC `error` object.
    pub(crate) fn to_json(&self) -> Value {
        let mut error = serde_json::json!({"code": self.code, "message": self.message});
        if let Some(data) = &self.data {
            error["data"] = data.clone();
        }
        error
    }
}

/// Calls the fake could not answer as the server would, in arrival order: each says what,
/// which tool, and (for schema violations) the JSON pointer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the fake of {server} saw {} problem(s):\n- {}", problems.len(), problems.join("\n- "))]
#[non_exhaustive]
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
        Self::serve(Snapshot::parse_embedded(snapshot)?, prefix).await
    }

    /// [`start`](Self::start) with a parsed snapshot (e.g. [`Snapshot::read`] of a file).
    ///
    /// # Errors
    /// [`FakeError::Listen`] when no loopback port can be opened.
    pub async fn start_with(snapshot: Snapshot, prefix: Option<&str>) -> Result<Self, FakeError> {
        Self::serve(snapshot, prefix).await
    }

    /// A recording proxy of `client`'s server: it serves the tools `client` discovered, and
    /// forwards every call no handler takes to the server through `client`, recording it
    /// (with `redaction`) into the cassette that [`cassette`](Self::cassette) returns and
    /// [`save_cassette`](Self::save_cassette) writes. Code under test connects to the proxy
    /// as to the server; `prefix` as in [`start`](Self::start).
    ///
    /// A call the server gives no answer to (a timeout, a lost connection) is a problem, not
    /// recorded; a JSON-RPC error it answers with is recorded and forwarded.
    ///
    /// # Errors
    /// [`FakeError::Record`] when `client`'s tools make no snapshot (two with one name),
    /// [`FakeError::Listen`] as in [`start`](Self::start).
    pub async fn record(
        client: Arc<McpClient>,
        redaction: Redaction,
        prefix: Option<&str>,
    ) -> Result<Self, FakeError> {
        let snapshot = client
            .snapshot()
            .map_err(|e| FakeError::Record(e.to_string()))?;
        let cassette = Cassette::new(snapshot.server_info.clone(), redaction);
        let fake = Self::serve(snapshot, prefix).await?;
        *lock(&fake.state.fallback) = Arc::new(Fallback::Record {
            client,
            cassette: Mutex::new(cassette),
            autosave: Mutex::new(None),
        });
        Ok(fake)
    }

    async fn serve(snapshot: Snapshot, prefix: Option<&str>) -> Result<Self, FakeError> {
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
        format!("http://{}{}", self.addr, http::PATH)
    }

    /// Serves the fake on `input` and `output` as well, as newline-delimited JSON-RPC (MCP
    /// 2025-11-25, "stdio"), until `input` ends (and the answers still being made are
    /// written): for code that starts its server as a command (`oma-mcp replay` and
    /// `oma-mcp record` serve their stdin and stdout this way). Messages are handled
    /// concurrently, as on HTTP; a line that is no JSON-RPC message, or longer than 64 MiB, is
    /// answered with a JSON-RPC error and kept as a problem.
    ///
    /// # Errors
    /// The I/O error of reading `input` or writing `output` (serving stops at the first).
    pub async fn serve_stdio<R, W>(&self, input: R, output: W) -> std::io::Result<()>
    where
        R: tokio::io::AsyncBufRead + Unpin,
        W: tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        stdio::serve(Arc::clone(&self.state), input, output).await
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
        let handler: Handler = Arc::new(move |arguments: Value| {
            let args = serde_json::from_value::<T::Args>(arguments).map_err(|e| {
                format!(
                    "tool {}: the arguments do not fit the generated `{}`: {e}",
                    crate::quote::quoted(T::MCP_NAME),
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
            .set_handler(tool, Arc::new(move |arguments| Ok(handler(arguments))));
        Ok(())
    }

    /// Answers `prompts/get` of the prompt `P` with `handler`, which gets the request's
    /// arguments and returns the messages, each a role and a text (sent as text blocks, with
    /// the pinned prompt's description). The fake answers a request without a required
    /// argument (as the snapshot lists them) with -32602 before the handler runs, as a
    /// server does. A later handler for the same prompt replaces the earlier one.
    ///
    /// # Errors
    /// [`FakeError::UnknownPrompt`] when the snapshot has no such prompt, or another version
    /// of it (the marker was generated from another snapshot).
    pub fn on_prompt<P: McpPrompt>(
        &self,
        handler: impl Fn(&BTreeMap<String, String>) -> Vec<(Role, String)> + Send + Sync + 'static,
    ) -> Result<(), FakeError> {
        let pinned = self
            .state
            .snapshot()
            .items(ItemKind::Prompt)
            .iter()
            .find(|p| p.key() == P::NAME)
            .map(|p| p.digest.clone());
        if pinned.as_deref() != Some(P::DIGEST) {
            return Err(FakeError::UnknownPrompt {
                prompt: P::NAME.to_owned(),
                snapshot: pinned,
                marker: P::DIGEST.to_owned(),
            });
        }
        self.state.offers.set_prompt(P::NAME, Arc::new(handler));
        Ok(())
    }

    /// Answers every `resources/read` with `handler`, which gets the URI (a pinned resource's,
    /// an expanded template's, any other) and returns its body, or `None` for a resource that
    /// does not exist (answered with -32602, as rmcp's servers answer it). The content carries
    /// the pinned resource's `mimeType` when the URI is one's. A later handler replaces the
    /// earlier one.
    pub fn on_read(&self, handler: impl Fn(&str) -> Option<ResourceBody> + Send + Sync + 'static) {
        self.state.offers.set_read(Arc::new(handler));
    }

    /// Answers every call no handler takes from `cassette` (its file named `file` in
    /// messages): the recorded answer to the same tool and arguments (compared after the
    /// cassette's redaction; identical calls get the recorded answers in order, and the last
    /// one once those are used up); a call it has not recorded is a problem, answered with a
    /// JSON-RPC error that names the cassette and what it holds for the tool.
    ///
    /// # Errors
    /// [`FakeError::StaleCassette`] when a recorded call no longer fits the snapshot (a tool
    /// it lacks, arguments or an output its schemas refuse), each with the JSON pointer into
    /// the cassette file.
    pub fn replay(&self, cassette: Cassette, file: &str) -> Result<(), FakeError> {
        let stale = stale_calls(&cassette, self.state.snapshot());
        if !stale.is_empty() {
            return Err(FakeError::StaleCassette {
                file: file.to_owned(),
                calls: stale.iter().map(ToString::to_string).collect(),
            });
        }
        *lock(&self.state.fallback) = Arc::new(Fallback::Replay {
            cassette,
            file: file.to_owned(),
            replayed: std::sync::Mutex::default(),
        });
        Ok(())
    }

    /// [`replay`](Self::replay) of the cassette file at `path`.
    ///
    /// # Errors
    /// [`FakeError::Cassette`] when the file cannot be read or is no cassette; as
    /// [`replay`](Self::replay).
    pub fn replay_file(&self, path: impl AsRef<Path>) -> Result<(), FakeError> {
        let path = path.as_ref();
        let cassette = Cassette::read(path)?;
        self.replay(cassette, &path.display().to_string())
    }

    /// What a recording proxy ([`record`](Self::record)) recorded so far; `None` for a fake
    /// that does not record.
    pub fn cassette(&self) -> Option<Cassette> {
        match &**lock(&self.state.fallback) {
            Fallback::Record { cassette, .. } => Some(lock(cassette).clone()),
            _ => None,
        }
    }

    /// Writes what a recording proxy recorded to `path` (canonical cassette text).
    ///
    /// # Errors
    /// [`FakeError::NotRecording`] for a fake that does not record; [`FakeError::Cassette`]
    /// when the file cannot be written.
    pub fn save_cassette(&self, path: impl AsRef<Path>) -> Result<(), FakeError> {
        let cassette = self.cassette().ok_or(FakeError::NotRecording)?;
        cassette.write(path.as_ref())?;
        Ok(())
    }

    /// Makes a recording proxy write its cassette to `path` after every recorded call (whole
    /// or not at all, as [`save_cassette`](Self::save_cassette)), so a recording that ends
    /// early (a signal, a crash, a closed pipe) keeps every call recorded before. A write that
    /// fails is a problem.
    ///
    /// # Errors
    /// [`FakeError::NotRecording`] for a fake that does not record.
    pub fn save_cassette_after_each_call(&self, path: impl AsRef<Path>) -> Result<(), FakeError> {
        match &**lock(&self.state.fallback) {
            Fallback::Record { autosave, .. } => {
                *lock(autosave) = Some(path.as_ref().to_owned());
                Ok(())
            }
            _ => Err(FakeError::NotRecording),
        }
    }

    /// Every call received, in arrival order.
    pub fn calls(&self) -> Vec<FakeCall> {
        self.state.calls()
    }

    /// The arguments of every call of `T` that was answered as the server would (by a handler,
    /// a cassette or the server), as the generated argument struct, in arrival order.
    pub fn calls_of<T>(&self) -> Vec<T::Args>
    where
        T: McpTool,
        T::Args: DeserializeOwned,
    {
        self.state
            .calls()
            .into_iter()
            .filter(|c| c.tool == T::MCP_NAME && c.problem.is_none())
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

    /// What the server would have refused or the fake could not answer as it would, one line
    /// each, in arrival order: calls (see the [module docs](self)); a recorded server's result
    /// that breaks its own schemas, a cassette a recording proxy could not save; lines on
    /// stdio that are no JSON-RPC message; and HTTP requests a
    /// server must refuse (another path than `/mcp`, another origin, another `Content-Type`,
    /// an `Accept` without `application/json` and `text/event-stream`, an unknown
    /// `MCP-Protocol-Version`, a body over 64 MiB, no JSON-RPC message).
    pub fn problems(&self) -> Vec<String> {
        self.state.problems()
    }

    /// `Ok` when every call was answered as the server would answer it: by a handler with an
    /// answer that fits the schemas, from a cassette that recorded it, or by the server
    /// behind a recording proxy.
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
