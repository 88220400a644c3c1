//! The connection settings: [`ConnectConfig`], the options of `connectMCPTools()`
//! (open-multi-agent's `docs/mcp.md`, "Options"), with [`Lifecycle`], [`Elicitation`] and
//! their defaults.
//!
//! Plain values, no connection: `oma-mcp-runtime`'s `connect_mcp_tools` connects with them,
//! and `oma-mcp-build` reads them from a manifest and writes them as code, so a build script
//! compiles no client. The runtime re-exports every item here at `oma_mcp_runtime::connect`
//! (and `ConnectConfig` and `Lifecycle` at its root); its crate docs ("Connecting to a
//! server", "Lifecycle", "Process and environment") say what each setting does on the wire.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use crate::consequential::{AnnotationPolicy, ConsequentialPolicy, InvalidPattern};
use crate::redact::redact_url;
use crate::select::ToolSelection;
use crate::snapshot::SnapshotSource;

mod oauth;

pub use oauth::{
    AuthFailure, Authorize, Authorizer, BoxFuture, OAuthConfig, OAuthGrant, Refusal, Secret,
    TokenProvider, TokenSource,
};

/// The default `requestTimeoutMs` of open-multi-agent's `connectMCPTools()`: 60 s.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// The default limit for one message (one line) from the server: 64 MiB.
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 64 * 1024 * 1024;

/// How long [`Lifecycle::Auto`] waits for an answer to `server/discover` alone before it
/// sends `initialize` too: 2 s, or half of [`ConnectConfig::request_timeout`] when that is
/// shorter. `server/discover` is still awaited after it (see [`Lifecycle::Auto`]), so this is
/// not how long a slow server has to answer; it is what a server that ignores
/// `server/discover` costs at every connect, on top of its `initialize`.
pub const DISCOVER_PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// How the runtime's `connect_mcp_tools` establishes the MCP lifecycle; the semantics of
/// rmcp 3.11's `ClientLifecycleMode` (the runtime's crate docs, "Lifecycle", list the
/// messages each one sends).
///
/// Protocol revision 2026-07-28 replaced the `initialize` handshake (SEP-2567) with a
/// `server/discover` request and a client context that every request carries in its `_meta`
/// (SEP-2575); revisions 2024-11-05 to 2025-11-25 have the handshake.
///
/// Exhaustive (no `#[non_exhaustive]`): the runtime, which implements each one, and
/// `oma-mcp-build`, which writes each one as code, match every variant, so a new one cannot
/// be left out of either.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Lifecycle {
    /// `server/discover` first, then `initialize` where the server needs it. Works with
    /// servers on every revision; the negotiated revision does not depend on how fast the
    /// server starts. The default. The rule:
    ///
    /// - `server/discover` is awaited until the connect deadline
    ///   ([`ConnectConfig::request_timeout`] from the start, one deadline for the whole
    ///   lifecycle). A result is a 2026-07-28 session; -32022 (unsupported protocol version)
    ///   retries with a version of its `data.supported`; -32020 (header mismatch) and -32021
    ///   (missing client capability) fail.
    /// - Any other JSON-RPC error (e.g. -32601 Method not found) marks a server before
    ///   2026-07-28: `initialize` follows at once on the same connection. Over streamable
    ///   HTTP so does a `400`, `404` or `405` whose body is no JSON-RPC error (a stateful
    ///   server before 2026-07-28 refusing a request without a session); `401`/`403` fail as
    ///   the runtime's `Error::HttpAuth`.
    /// - No answer within [`DISCOVER_PROBE_TIMEOUT`] (2 s, or half of a shorter request
    ///   timeout): `initialize` is sent too, and `server/discover` stays pending. A server
    ///   reads its stdin in order, so a slow 2026-07-28 server answers `server/discover`
    ///   first, and that answer wins (its answer to the extra `initialize`, an error or a
    ///   2025-11-25 result, is ignored). A server that ignores `server/discover` answers only
    ///   `initialize`: a session on its revision, after the 2 s wait.
    /// - The server exits (or closes stdout) before answering: a server before 2026-07-28
    ///   that accepts only `initialize` as its first message. It is started again with
    ///   [`Lifecycle::Initialize`], within what is left of the deadline, and a `WARN` log
    ///   says so once per connect (pin `Initialize` to skip the probe).
    #[default]
    Auto,
    /// Only the `initialize` handshake (protocol 2025-11-25 offered, any known revision
    /// accepted) and `notifications/initialized`: what clients sent before 2026-07-28.
    Initialize,
    /// Only `server/discover` (protocol 2026-07-28, SEP-2575); a server without it is an
    /// error. The request is bounded by [`ConnectConfig::request_timeout`] only.
    Discover,
}

/// Options of the runtime's `connect_mcp_tools` (open-multi-agent's `docs/mcp.md`, "Options",
/// `ConnectMCPToolsConfig`), plus `pass_env` and `max_message_size`.
///
/// Required fields go in [`ConnectConfig::new`], the rest in chainable `with_*` setters:
///
/// ```
/// # use std::time::Duration;
/// # use oma_mcp_core::config::ConnectConfig;
/// let config = ConnectConfig::new("node")
///     .with_args(["server.js", "stdio"])
///     .with_env("LOG_LEVEL", "warn")
///     .with_pass_env(["GITHUB_TOKEN"])
///     .with_name_prefix("github")
///     .with_request_timeout(Duration::from_secs(10));
/// assert_eq!(config.client_name, "open-multi-agent");
/// ```
///
/// Its `Debug` output shows the URL redacted ([`redact_url`]) and the names, never the
/// values, of [`ConnectConfig::env`], as either may hold a credential.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
#[must_use]
pub struct ConnectConfig {
    /// Executable to spawn for the stdio server: a bare name (`node`) is looked up in the
    /// parent's `PATH`; a relative path with a `/` is relative to the parent's working
    /// directory (not to [`ConnectConfig::cwd`]).
    pub command: String,
    /// Arguments passed to `command`. Default: none.
    pub args: Vec<String>,
    /// Literal environment variables for the child; they win over inherited ones. The child's
    /// environment otherwise holds only the runtime's `DEFAULT_INHERITED_ENV` and
    /// [`ConnectConfig::pass_env`] (the runtime's crate docs, "Process and environment").
    pub env: BTreeMap<String, String>,
    /// Names of parent environment variables passed through to the child when set.
    pub pass_env: Vec<String>,
    /// Working directory of the child. Default: the parent's.
    pub cwd: Option<PathBuf>,
    /// Segment prepended to every discovered tool name (open-multi-agent's `docs/mcp.md`, "Tool
    /// names"). Default: none.
    pub name_prefix: Option<String>,
    /// Timeout for the lifecycle handshake as a whole (one deadline, also across the
    /// [`Lifecycle::Auto`] probe and its fallback), each `tools/list` page and each
    /// `tools/call`.
    /// Default: [`DEFAULT_REQUEST_TIMEOUT`] (60 s, open-multi-agent's `requestTimeoutMs`).
    pub request_timeout: Duration,
    /// Client name reported in `initialize` (or in the 2026-07-28 client context). Default:
    /// `open-multi-agent`.
    pub client_name: String,
    /// Client version reported in `initialize` (or in the 2026-07-28 client context).
    /// Default: `0.0.0`.
    pub client_version: String,
    /// The largest message (one stdout line, in bytes) accepted from the server. A larger one
    /// is skipped and fails the request it answers with
    /// the runtime's `Error::MessageTooLarge` when its `id` can be read
    /// from its first 4 KiB, else every request pending at that moment (see the error's
    /// docs). Default: [`DEFAULT_MAX_MESSAGE_SIZE`] (64 MiB).
    pub max_message_size: usize,
    /// Whether the runtime's `ToolDefinition`s of this connection validate arguments against
    /// each tool's input schema before calling the server (local validation, beyond
    /// open-multi-agent; the runtime's `validate` module). Default: `true`.
    pub validate_input: bool,
    /// Tools of this connection that need confirmation before they run, whatever their
    /// annotations say: exact raw MCP names or globs (the manifest's `consequential`; the
    /// rule is in [`crate::consequential`]). The runtime's tool layer marks them
    /// `consequential`. Default: none.
    pub consequential: Vec<String>,
    /// Tools that are not consequential whatever their annotations say (names or globs; the
    /// manifest's `not-consequential`; [`ConnectConfig::consequential`] wins). Default: none.
    pub not_consequential: Vec<String>,
    /// Whether a tool's annotations (`destructiveHint: true` without `readOnlyHint: true`)
    /// make it consequential (the manifest's `consequential-annotations`). Default:
    /// [`AnnotationPolicy::Trust`].
    pub consequential_annotations: AnnotationPolicy,
    /// The tools this connection uses (the manifest's `tools`): exact raw MCP names or globs;
    /// empty (the default) uses every tool. Only the selected tools are discovered
    /// (`McpClient::tools`), reach the tool layer and are compared by the drift check at run
    /// time; the rule is in [`crate::select`].
    pub tools: Vec<String>,
    /// Tools this connection leaves out even when [`ConnectConfig::tools`] selects them (the
    /// manifest's `exclude-tools`; names or globs). Default: none.
    pub exclude_tools: Vec<String>,
    /// How the MCP lifecycle is established: `server/discover` (protocol 2026-07-28,
    /// SEP-2575), `initialize`, or the first with fallback to the second. Default:
    /// [`Lifecycle::Auto`].
    pub lifecycle: Lifecycle,
    /// The server's streamable HTTP endpoint (MCP 2025-03-26 and later, "Streamable HTTP"),
    /// e.g. `https://api.githubcopilot.com/mcp/`. When set, the client speaks HTTP to it (the
    /// runtime's cargo feature `http`) and [`ConnectConfig::command`], `args`, `env`,
    /// `pass_env` and `cwd` are not used. Set by [`ConnectConfig::http`]. Default: `None`
    /// (stdio).
    pub url: Option<String>,
    /// Literal HTTP headers sent with every request to [`ConnectConfig::url`] (name → value).
    /// They are recorded (in a snapshot's source, in generated code): put no secret here; use
    /// [`ConnectConfig::bearer_env`] or [`ConnectConfig::header_env`]. Default: none.
    pub headers: BTreeMap<String, String>,
    /// The name of an environment variable whose value is sent as
    /// `Authorization: Bearer <value>` with every HTTP request. It is read when connecting; a
    /// variable that is not set (or not UTF-8) is
    /// the runtime's `Error::MissingEnv` before anything is sent. The value never
    /// appears in a log, an error or a snapshot. Default: `None`.
    pub bearer_env: Option<String>,
    /// HTTP headers whose values come from environment variables (header name → variable
    /// name), for servers with their own schemes (`X-Api-Key`). Read and kept secret as
    /// [`ConnectConfig::bearer_env`]. Default: none.
    pub header_env: BTreeMap<String, String>,
    /// Answers the server's `elicitation/create` requests (MCP 2025-06-18 and later,
    /// "Elicitation"); when set, the client declares the `elicitation` capability. Without
    /// it, such a request is answered with -32601, as open-multi-agent's client does.
    /// Default: `None`.
    pub elicitation: Option<Elicitation>,
    /// OAuth for [`ConnectConfig::url`] (MCP "Authorization"): the runtime's cargo feature
    /// `oauth` answers the server's `401` with the authorization flow these settings describe
    /// and sends the token it obtains. Default: `None` (no OAuth: a `401` fails the request).
    pub oauth: Option<OAuthConfig>,
    /// Where the access tokens for [`ConnectConfig::url`] come from when a program supplies
    /// them itself (its own store or flow); wins over [`ConnectConfig::oauth`]. Default:
    /// `None`.
    pub token_provider: Option<TokenSource>,
}

impl std::fmt::Debug for ConnectConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectConfig")
            .field("command", &self.command)
            .field("args", &self.args)
            .field("env", &self.env.keys().collect::<Vec<_>>())
            .field("pass_env", &self.pass_env)
            .field("cwd", &self.cwd)
            .field("name_prefix", &self.name_prefix)
            .field("request_timeout", &self.request_timeout)
            .field("client_name", &self.client_name)
            .field("client_version", &self.client_version)
            .field("max_message_size", &self.max_message_size)
            .field("validate_input", &self.validate_input)
            .field("consequential", &self.consequential)
            .field("not_consequential", &self.not_consequential)
            .field("consequential_annotations", &self.consequential_annotations)
            .field("tools", &self.tools)
            .field("exclude_tools", &self.exclude_tools)
            .field("lifecycle", &self.lifecycle)
            .field("url", &self.url.as_deref().map(redact_url))
            .field("headers", &self.headers)
            .field("bearer_env", &self.bearer_env)
            .field("header_env", &self.header_env)
            .field("elicitation", &self.elicitation)
            .field("oauth", &self.oauth)
            .field("token_provider", &self.token_provider)
            .finish()
    }
}

/// A handler for the server's `elicitation/create` requests: gets the request's `params`
/// (`message`, `requestedSchema`) and returns the result (`{"action": "accept", "content":
/// {…}}`, `{"action": "decline"}` or `{"action": "cancel"}`). It runs on the connection's
/// reader, so it must not block: answer from data at hand (e.g. [`accept_defaults`]).
#[derive(Clone)]
pub struct Elicitation(
    std::sync::Arc<dyn Fn(&serde_json::Value) -> serde_json::Value + Send + Sync>,
);

impl Elicitation {
    /// A handler from a function.
    pub fn new(
        handler: impl Fn(&serde_json::Value) -> serde_json::Value + Send + Sync + 'static,
    ) -> Self {
        Self(std::sync::Arc::new(handler))
    }

    /// The result for one request's `params`.
    pub fn answer(&self, params: &serde_json::Value) -> serde_json::Value {
        (self.0)(params)
    }
}

impl std::fmt::Debug for Elicitation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Elicitation(..)")
    }
}

/// Handlers are equal when they are the same handler (clones of one [`Elicitation`]).
impl PartialEq for Elicitation {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Elicitation {}

/// An elicitation answer that accepts with every default of the requested schema (SEP-1034,
/// MCP 2025-11-25 "Elicitation": `default` on primitive properties): `{"action": "accept",
/// "content": {<property>: <its default>, …}}`, properties without a `default` left out.
///
/// ```
/// # use serde_json::json;
/// let params = json!({"message": "?", "requestedSchema": {"type": "object", "properties": {
///     "name": {"type": "string", "default": "John Doe"}, "note": {"type": "string"}}}});
/// assert_eq!(
///     oma_mcp_core::config::accept_defaults(&params),
///     json!({"action": "accept", "content": {"name": "John Doe"}})
/// );
/// ```
pub fn accept_defaults(params: &serde_json::Value) -> serde_json::Value {
    let mut content = serde_json::Map::new();
    if let Some(serde_json::Value::Object(properties)) =
        params.pointer("/requestedSchema/properties")
    {
        for (name, schema) in properties {
            if let Some(default) = schema.get("default") {
                content.insert(name.clone(), default.clone());
            }
        }
    }
    serde_json::json!({"action": "accept", "content": content})
}

impl ConnectConfig {
    /// A configuration for `command` with open-multi-agent's defaults.
    pub fn new(command: impl Into<String>) -> Self {
        Self {
            command: command.into(),
            args: Vec::new(),
            env: BTreeMap::new(),
            pass_env: Vec::new(),
            cwd: None,
            name_prefix: None,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            client_name: "open-multi-agent".to_owned(),
            client_version: "0.0.0".to_owned(),
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            validate_input: true,
            consequential: Vec::new(),
            not_consequential: Vec::new(),
            consequential_annotations: AnnotationPolicy::Trust,
            tools: Vec::new(),
            exclude_tools: Vec::new(),
            lifecycle: Lifecycle::Auto,
            url: None,
            headers: BTreeMap::new(),
            bearer_env: None,
            header_env: BTreeMap::new(),
            elicitation: None,
            oauth: None,
            token_provider: None,
        }
    }

    /// A configuration for the streamable HTTP server at `url`, with open-multi-agent's
    /// defaults otherwise. Connecting needs the cargo feature `http` of `oma-mcp-runtime`
    /// (without it, the runtime's `connect_mcp_tools` fails with its
    /// `Error::HttpFeatureDisabled`).
    ///
    /// ```
    /// # use oma_mcp_core::config::ConnectConfig;
    /// let config = ConnectConfig::http("https://api.githubcopilot.com/mcp/")
    ///     .with_bearer_env("GITHUB_TOKEN")
    ///     .with_header("X-MCP-Toolsets", "repos,issues");
    /// assert_eq!(config.url.as_deref(), Some("https://api.githubcopilot.com/mcp/"));
    /// ```
    pub fn http(url: impl Into<String>) -> Self {
        Self {
            url: Some(url.into()),
            ..Self::new(String::new())
        }
    }

    /// Replaces the arguments.
    pub fn with_args(mut self, args: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.args = args.into_iter().map(Into::into).collect();
        self
    }

    /// Adds (or replaces) one literal environment variable of the child.
    pub fn with_env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.insert(name.into(), value.into());
        self
    }

    /// Adds parent environment variable names to pass through when set.
    pub fn with_pass_env(mut self, names: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.pass_env.extend(names.into_iter().map(Into::into));
        self
    }

    /// Sets the child's working directory.
    pub fn with_cwd(mut self, cwd: impl Into<PathBuf>) -> Self {
        self.cwd = Some(cwd.into());
        self
    }

    /// Sets the tool name prefix (open-multi-agent's `namePrefix`).
    pub fn with_name_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.name_prefix = Some(prefix.into());
        self
    }

    /// Sets the per-request timeout (open-multi-agent's `requestTimeoutMs`).
    pub fn with_request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Sets the client name reported to the server (open-multi-agent's `clientName`).
    pub fn with_client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }

    /// Sets the client version reported to the server (open-multi-agent's `clientVersion`).
    pub fn with_client_version(mut self, version: impl Into<String>) -> Self {
        self.client_version = version.into();
        self
    }

    /// Sets the largest accepted message from the server, in bytes.
    pub fn with_max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// Turns local input validation on or off for this connection's tool definitions
    /// (default on). Off, arguments reach the server unchecked, as in open-multi-agent ("Input
    /// validation is delegated to the server").
    pub fn with_validate_input(mut self, validate: bool) -> Self {
        self.validate_input = validate;
        self
    }

    /// Sets [`ConnectConfig::consequential`] (replacing earlier entries).
    ///
    /// ```
    /// # use oma_mcp_core::config::ConnectConfig;
    /// let config = ConnectConfig::new("server").with_consequential(["delete_*", "merge"]);
    /// let policy = config.consequential_policy().unwrap();
    /// assert!(policy.is_consequential("delete_repo", None));
    /// ```
    pub fn with_consequential(
        mut self,
        patterns: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.consequential = patterns.into_iter().map(Into::into).collect();
        self
    }

    /// Sets [`ConnectConfig::not_consequential`] (replacing earlier entries).
    pub fn with_not_consequential(
        mut self,
        patterns: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.not_consequential = patterns.into_iter().map(Into::into).collect();
        self
    }

    /// Sets [`ConnectConfig::consequential_annotations`].
    pub fn with_consequential_annotations(mut self, policy: AnnotationPolicy) -> Self {
        self.consequential_annotations = policy;
        self
    }

    /// The compiled [`ConsequentialPolicy`] of [`ConnectConfig::consequential`],
    /// [`ConnectConfig::not_consequential`] and [`ConnectConfig::consequential_annotations`].
    ///
    /// # Errors
    /// [`InvalidPattern`] naming the first entry that is not a valid glob.
    pub fn consequential_policy(&self) -> Result<ConsequentialPolicy, InvalidPattern> {
        ConsequentialPolicy::new(
            &self.consequential,
            &self.not_consequential,
            self.consequential_annotations,
        )
    }

    /// Sets [`ConnectConfig::tools`] (replacing earlier entries; none: every tool).
    ///
    /// ```
    /// # use oma_mcp_core::config::ConnectConfig;
    /// let config = ConnectConfig::new("server")
    ///     .with_tools(["create_issue", "list_*"])
    ///     .with_exclude_tools(["list_secrets"]);
    /// let selection = config.tool_selection().unwrap();
    /// assert!(selection.selects("list_issues"));
    /// assert!(!selection.selects("list_secrets"));
    /// ```
    pub fn with_tools(mut self, patterns: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.tools = patterns.into_iter().map(Into::into).collect();
        self
    }

    /// Sets [`ConnectConfig::exclude_tools`] (replacing earlier entries).
    pub fn with_exclude_tools(
        mut self,
        patterns: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.exclude_tools = patterns.into_iter().map(Into::into).collect();
        self
    }

    /// The compiled [`ToolSelection`] of [`ConnectConfig::tools`] and
    /// [`ConnectConfig::exclude_tools`].
    ///
    /// # Errors
    /// [`InvalidPattern`] naming the key and the first entry that is not a valid glob.
    pub fn tool_selection(&self) -> Result<ToolSelection, InvalidPattern> {
        ToolSelection::new(&self.tools, &self.exclude_tools)
    }

    /// Sets how the MCP lifecycle is established (default [`Lifecycle::Auto`]).
    pub fn with_lifecycle(mut self, lifecycle: Lifecycle) -> Self {
        self.lifecycle = lifecycle;
        self
    }

    /// Answers the server's `elicitation/create` requests with `handler` and declares the
    /// `elicitation` capability (see [`ConnectConfig::elicitation`]).
    pub fn with_elicitation(mut self, handler: Elicitation) -> Self {
        self.elicitation = Some(handler);
        self
    }

    /// Adds (or replaces) one literal HTTP header; recorded, so never a secret (see
    /// [`ConnectConfig::headers`]).
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.insert(name.into(), value.into());
        self
    }

    /// Sends `Authorization: Bearer $VAR` with every HTTP request, `VAR` read when connecting
    /// (see [`ConnectConfig::bearer_env`]).
    pub fn with_bearer_env(mut self, var: impl Into<String>) -> Self {
        self.bearer_env = Some(var.into());
        self
    }

    /// Sends the header `name` with the value of the environment variable `var`, read when
    /// connecting (see [`ConnectConfig::header_env`]).
    pub fn with_header_env(mut self, name: impl Into<String>, var: impl Into<String>) -> Self {
        self.header_env.insert(name.into(), var.into());
        self
    }

    /// Authorizes with OAuth as `oauth` says (see [`ConnectConfig::oauth`]).
    pub fn with_oauth(mut self, oauth: OAuthConfig) -> Self {
        self.oauth = Some(oauth);
        self
    }

    /// Takes access tokens from `provider` (see [`ConnectConfig::token_provider`]).
    pub fn with_token_provider(mut self, provider: TokenSource) -> Self {
        self.token_provider = Some(provider);
        self
    }

    /// Where a snapshot taken through this connection comes from, as the snapshot records it:
    /// for [`ConnectConfig::url`], the URL redacted ([`redact_url`]), the literal headers and
    /// the names of the headers from [`ConnectConfig::bearer_env`] (`Authorization`) and
    /// [`ConnectConfig::header_env`]; else [`ConnectConfig::command`] and its arguments as
    /// configured. Never a value taken from the environment.
    pub fn snapshot_source(&self) -> SnapshotSource {
        let Some(url) = &self.url else {
            return SnapshotSource::new(self.command.clone(), self.args.clone());
        };
        let mut source = SnapshotSource::http(url);
        source.headers = self.headers.clone();
        if self.bearer_env.is_some() {
            source.env_headers.insert("Authorization".to_owned());
        }
        source.env_headers.extend(self.header_env.keys().cloned());
        source
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_shows_no_secret() {
        let c = ConnectConfig::http("https://me:pw-123@h.example/mcp?key=k-456")
            .with_env("TOKEN", "t-789");
        let debug = format!("{c:?}");
        for secret in ["pw-123", "k-456", "t-789"] {
            assert!(!debug.contains(secret), "{secret} in {debug}");
        }
        assert!(
            debug.contains(r#"url: Some("https://***@h.example/mcp?key=***")"#),
            "{debug}"
        );
        assert!(debug.contains(r#"env: ["TOKEN"]"#), "{debug}");
    }

    /// A URL source keeps the redacted URL, the literal headers and only the names of the
    /// headers from the environment; a command source, the command and its arguments.
    #[test]
    fn the_snapshot_source_names_no_secret() {
        let config = ConnectConfig::http("https://me:s3cret@api.example.com/mcp/?key=abc")
            .with_header("X-MCP-Toolsets", "repos,issues")
            .with_bearer_env("GITHUB_TOKEN")
            .with_header_env("X-Api-Key", "API_KEY");
        assert_eq!(
            config.snapshot_source(),
            SnapshotSource::http("https://other:pw@api.example.com/mcp/?key=xyz")
                .with_header("X-MCP-Toolsets", "repos,issues")
                .with_env_header("X-Api-Key")
                .with_env_header("Authorization")
        );
        assert_eq!(
            config.snapshot_source().url.as_deref(),
            Some("https://***@api.example.com/mcp/?key=***")
        );
        assert_eq!(
            ConnectConfig::new("node")
                .with_args(["s.js"])
                .snapshot_source(),
            SnapshotSource::new("node", ["s.js"])
        );
    }

    #[test]
    fn defaults_are_the_contracts() {
        let c = ConnectConfig::new("srv");
        assert_eq!(c.command, "srv");
        assert!(c.args.is_empty() && c.env.is_empty() && c.pass_env.is_empty());
        assert_eq!(c.cwd, None);
        assert_eq!(c.name_prefix, None);
        assert_eq!(c.request_timeout, Duration::from_millis(60_000));
        assert_eq!(c.client_name, "open-multi-agent");
        assert_eq!(c.client_version, "0.0.0");
        assert_eq!(c.max_message_size, 64 * 1024 * 1024);
        assert!(c.validate_input);
        assert_eq!(c.lifecycle, Lifecycle::Auto);
        assert_eq!(c.url, None);
        assert!(c.headers.is_empty() && c.header_env.is_empty());
        assert_eq!(c.bearer_env, None);
    }

    #[test]
    fn an_http_config_has_a_url_and_no_command() {
        let c = ConnectConfig::http("http://127.0.0.1:1/mcp")
            .with_header("X-MCP-Toolsets", "repos")
            .with_bearer_env("TOKEN")
            .with_header_env("X-Api-Key", "KEY");
        assert_eq!(c.url.as_deref(), Some("http://127.0.0.1:1/mcp"));
        assert_eq!(c.command, "");
        assert_eq!(
            c.headers.get("X-MCP-Toolsets").map(String::as_str),
            Some("repos")
        );
        assert_eq!(c.bearer_env.as_deref(), Some("TOKEN"));
        assert_eq!(
            c.header_env.get("X-Api-Key").map(String::as_str),
            Some("KEY")
        );
        assert_eq!(c.request_timeout, DEFAULT_REQUEST_TIMEOUT);
    }

    #[test]
    fn setters_chain() {
        let c = ConnectConfig::new("srv")
            .with_args(["a", "b"])
            .with_env("K", "v")
            .with_pass_env(["P"])
            .with_cwd("/tmp")
            .with_name_prefix("x")
            .with_request_timeout(Duration::from_secs(1))
            .with_client_name("n")
            .with_client_version("1")
            .with_max_message_size(10)
            .with_validate_input(false)
            .with_lifecycle(Lifecycle::Discover);
        assert_eq!(c.args, ["a", "b"]);
        assert_eq!(c.env.get("K").map(String::as_str), Some("v"));
        assert_eq!(c.pass_env, ["P"]);
        assert_eq!(c.cwd, Some(PathBuf::from("/tmp")));
        assert_eq!(c.name_prefix.as_deref(), Some("x"));
        assert_eq!(c.request_timeout, Duration::from_secs(1));
        assert_eq!(
            (c.client_name.as_str(), c.client_version.as_str()),
            ("n", "1")
        );
        assert_eq!(c.max_message_size, 10);
        assert!(!c.validate_input);
        assert_eq!(c.lifecycle, Lifecycle::Discover);
    }
}
