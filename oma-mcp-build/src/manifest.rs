//! The manifest, `oma-mcp.toml`: which MCP servers a crate pins and how to start them.
//!
//! ```toml
//! # One table per server; the table name names the generated file ($OUT_DIR/<name>.rs).
//! [servers.everything]
//! command = "node"                                  # resolved against `cwd` when it has a `/`
//! args = ["node_modules/@modelcontextprotocol/server-everything/dist/index.js", "stdio"]
//! cwd = "."                                         # default: the manifest's directory
//! env = { LOG_LEVEL = "warn" }                      # literal values for the child
//! pass-env = ["GITHUB_TOKEN"]                       # names copied from the caller's environment
//! prefix = "everything"                             # the contract's namePrefix
//! snapshot = "mcp/everything.snapshot.json"         # default: mcp/<name>.snapshot.json
//! consequential = ["write_file", "delete_*"]        # raw MCP names or globs
//! not-consequential = ["move_file"]                 # never consequential (unless listed above)
//! consequential-annotations = "trust"               # or "ignore"; default: "trust"
//! tools = ["echo", "get-*"]                         # only these get code; default: every tool
//! exclude-tools = ["get-env"]                       # left out even when `tools` selects them
//! schemars = false                                  # types derive schemars::JsonSchema
//! request-timeout-ms = 60000                        # default: 60000 (the contract's requestTimeoutMs)
//! max-message-bytes = 67108864                      # one JSON-RPC message; default: 64 MiB
//! client-name = "my-agent"                          # clientInfo of connect_config(); default:
//! client-version = "1.2.0"                          #   the runtime's (open-multi-agent 0.0.0)
//! lifecycle = "auto"                                # or "initialize", "discover"; default: "auto"
//! cassettes = ["tests/cassettes"]                   # recorded sessions `oma-mcp check` checks
//! accept = [                                        # text-scanner findings accepted, with why
//!   { rule = "secret-parameter", tool = "login", reason = "takes the user's API key by design" },
//! ]
//!
//! # The Rust names of tools whose names would meet (`search-a`, `search_a`): raw MCP name →
//! # the stem of the marker type (`SearchHyphen`, `SearchHyphenArgs`, `SearchHyphenOutput`).
//! [servers.everything.rename]
//! "search-a" = "SearchHyphen"
//!
//! # A server reached over streamable HTTP (MCP 2025-03-26 and later) instead of started:
//! # `url` instead of `command`, and none of `args`, `cwd`, `env`, `pass-env`.
//! [servers.github]
//! url = "https://api.githubcopilot.com/mcp/"       # http or https, no user name or password
//! bearer-env = "GITHUB_TOKEN"                       # Authorization: Bearer $GITHUB_TOKEN
//! headers = { "X-MCP-Toolsets" = "repos,issues" }   # literal values, recorded: no secrets
//! header-env = { "X-Api-Key" = "API_KEY" }          # header name → variable name
//! ```
//!
//! Relative paths are relative to the directory of the manifest file. Unknown keys are an
//! error, so a misspelt key never silently does nothing. The child process gets no other
//! environment than the runtime's documented default set plus `env` and `pass-env`
//! (see [`oma_mcp_core::config::ConnectConfig`]).
//!
//! A pin is recorded (the snapshot's `source`, the generated `connect_config()`), so it holds
//! no secret: a URL pin's credentials come from environment variables when it connects
//! (`bearer-env`, `header-env`), and a literal header whose name looks like a credential
//! (`Authorization`, `Cookie`, `Proxy-Authorization`, or a name holding `token`, `key` or
//! `secret`) or a URL with a user name or password is an error. The snapshot records the URL
//! redacted (query values as `***`), the literal headers, and the names of the headers whose
//! values come from the environment.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::Error;
use crate::codegen::AnnotationPolicy;
use oma_mcp_core::select::ToolSelection;
use oma_mcp_core::snapshot::{DEFAULT_MAX_LIST_ITEMS, Pin};

mod accept;
mod oauth;
mod registry;
mod transport;

pub use registry::{OFFICIAL_REGISTRY, RegistryPin};
use transport::{Transport, transport};
pub use transport::{UrlProblem, check_url, is_header_name, looks_like_credential};

/// The default manifest file name, looked up in `CARGO_MANIFEST_DIR` by the builder.
pub const DEFAULT_MANIFEST: &str = "oma-mcp.toml";

/// A parsed manifest: every pinned server by name, in name order.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Manifest {
    /// The manifest file it was read from.
    pub path: PathBuf,
    /// The pinned servers by table name (`[servers.<name>]`).
    pub servers: BTreeMap<String, ServerPin>,
}

/// One pinned server (`[servers.<name>]`), with paths already resolved against the
/// manifest's directory.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ServerPin {
    /// The table name.
    pub name: String,
    /// The command exactly as written (recorded in the snapshot's `source`); empty for a
    /// URL pin.
    pub command: String,
    /// The command to spawn: `command` resolved against `cwd` when it contains a path
    /// separator and is relative, else `command` (looked up on `PATH`); empty for a URL pin.
    pub program: PathBuf,
    /// Arguments (none for a URL pin).
    pub args: Vec<String>,
    /// The child's working directory (absolute when the manifest path is); the manifest's
    /// directory, unused, for a URL pin.
    pub cwd: PathBuf,
    /// Literal environment values for the child (none for a URL pin).
    pub env: BTreeMap<String, String>,
    /// Names of variables copied from the caller's environment when set (none for a URL
    /// pin).
    pub pass_env: Vec<String>,
    /// The streamable HTTP endpoint of a server reached by URL (`url`), as written: an http
    /// or https URL without userinfo. `None` for a server started by `command`.
    pub url: Option<String>,
    /// Literal HTTP headers (`headers`): recorded, never credentials.
    pub headers: BTreeMap<String, String>,
    /// The variable whose value is sent as `Authorization: Bearer <value>` (`bearer-env`).
    pub bearer_env: Option<String>,
    /// HTTP headers whose values come from environment variables (`header-env`: header name
    /// → variable name).
    pub header_env: BTreeMap<String, String>,
    /// OAuth (`[servers.<name>.oauth]`, URL pins only): how the connection obtains an access
    /// token (MCP "Authorization"); errors name `oma-mcp login <name>`.
    pub oauth: Option<oma_mcp_core::config::OAuthConfig>,
    /// open-multi-agent's `namePrefix` (`connectMCPTools()`, "Tool names").
    pub prefix: Option<String>,
    /// The snapshot file.
    pub snapshot: PathBuf,
    /// Cassettes of recorded sessions with this server (files, or directories whose
    /// `*.json` files, in subdirectories too, are all cassettes) that `oma-mcp check` checks against the snapshot.
    pub cassettes: Vec<PathBuf>,
    /// Raw MCP tool names or globs of consequential tools.
    pub consequential: Vec<String>,
    /// Raw MCP tool names or globs of tools that are not consequential whatever their
    /// annotations say (`consequential` wins over this).
    pub not_consequential: Vec<String>,
    /// Whether `destructiveHint: true` (without `readOnlyHint: true`) makes a tool
    /// consequential: `consequential-annotations = "trust"` (default) or `"ignore"`.
    pub consequential_annotations: AnnotationPolicy,
    /// The tools the crate uses (`tools` minus `exclude-tools`, raw MCP names or globs;
    /// without `tools` every tool): only they get generated code and reach the tool layer,
    /// and drift in the others is info (see [`oma_mcp_core::select`]). The snapshot still
    /// pins every tool.
    pub tools: ToolSelection,
    /// Whether generated types derive `schemars::JsonSchema` (`schemars = true`; needs
    /// `oma-mcp-runtime`'s `schemars` feature).
    pub schemars: bool,
    /// The per-request timeout (connect, each `tools/list` page, each `tools/call`).
    pub request_timeout: Duration,
    /// The largest JSON-RPC message (one stdout line) accepted from the server, in bytes
    /// (`max-message-bytes`; default [`oma_mcp_core::config::DEFAULT_MAX_MESSAGE_SIZE`]).
    pub max_message_size: usize,
    /// The `clientInfo.name` the connection reports (`client-name`; default: the runtime's,
    /// [`ConnectConfig::client_name`](oma_mcp_core::config::ConnectConfig::client_name); the
    /// `oma-mcp` CLI reports `oma-mcp`).
    pub client_name: Option<String>,
    /// The `clientInfo.version` the connection reports (`client-version`; default: the
    /// runtime's; the `oma-mcp` CLI reports its own version).
    pub client_version: Option<String>,
    /// How the MCP lifecycle is established (`lifecycle = "auto" | "initialize" |
    /// "discover"`; default [`Lifecycle::Auto`](oma_mcp_core::config::Lifecycle::Auto)).
    pub lifecycle: oma_mcp_core::config::Lifecycle,
    /// `[servers.<name>.rename]`: raw MCP tool name → the stem of its generated names
    /// (see [`crate::GenerateOptions::rename`]); checked when code is generated.
    pub rename: BTreeMap<String, String>,
    /// What `oma-mcp snapshot` pins beside the tools (`pin`; default: everything,
    /// [`Pin::ALL`]); [`Pin::Tools`] is always in it.
    pub pins: BTreeSet<Pin>,
    /// The most entries of each list (`prompts/list`, `resources/list`,
    /// `resources/templates/list`) a snapshot pins (`max-list-items`; default
    /// [`DEFAULT_MAX_LIST_ITEMS`]).
    pub max_list_items: usize,
    /// Findings of the text scanner (`oma-mcp scan`, `snapshot`, `check`) this pin accepts,
    /// each for a rule and a tool (or `*`), with its reason.
    pub accept: Vec<oma_mcp_core::scan::Accept>,
    /// Where the pin came from in an MCP registry (`[servers.<name>.registry]`, as
    /// `oma-mcp add` writes it); `oma-mcp check` asks the registry about that entry.
    pub registry: Option<RegistryPin>,
}

/// `oma-mcp.toml`: the MCP servers a crate pins (the file format, as `oma-mcp schema manifest`
/// prints it).
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
struct RawManifest {
    /// One table per server; the name (ASCII letters, digits, `-`, `_`) names the generated
    /// file `$OUT_DIR/<name>.rs`.
    #[serde(default)]
    servers: BTreeMap<String, RawServer>,
}

/// One pinned server (`[servers.<name>]`). Relative paths are relative to the manifest's
/// directory.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawServer {
    /// The executable of a server started over stdio; resolved against `cwd` when it contains
    /// a `/`, else looked up on `PATH`. A server has `command` or `url`, not both.
    command: Option<String>,
    /// The streamable HTTP endpoint of a server reached over the network (MCP 2025-03-26 and
    /// later), an http or https URL without a user name or password, such as
    /// `https://api.githubcopilot.com/mcp/`. A server has `command` or `url`, not both.
    url: Option<String>,
    /// `command` only: its arguments.
    #[serde(default)]
    #[cfg_attr(feature = "json-schema", schemars(with = "Vec<String>"))]
    args: Option<Vec<String>>,
    /// `command` only: the server's working directory (default: the manifest's directory).
    cwd: Option<PathBuf>,
    /// `command` only: literal environment values for the server.
    #[serde(default)]
    #[cfg_attr(feature = "json-schema", schemars(with = "BTreeMap<String, String>"))]
    env: Option<BTreeMap<String, String>>,
    /// `command` only: names of environment variables copied from the caller's environment
    /// when set.
    #[serde(default)]
    #[cfg_attr(feature = "json-schema", schemars(with = "Vec<String>"))]
    pass_env: Option<Vec<String>>,
    /// `url` only: literal HTTP headers sent with every request (name → value). Recorded in
    /// the snapshot and the generated code, so never a credential: use `bearer-env` or
    /// `header-env` for those.
    #[serde(default)]
    #[cfg_attr(feature = "json-schema", schemars(with = "BTreeMap<String, String>"))]
    headers: Option<BTreeMap<String, String>>,
    /// `url` only: the name of an environment variable whose value is sent as
    /// `Authorization: Bearer <value>`, read when connecting.
    bearer_env: Option<String>,
    /// `url` only: HTTP headers whose values come from environment variables (header name →
    /// variable name), read when connecting.
    #[serde(default)]
    #[cfg_attr(feature = "json-schema", schemars(with = "BTreeMap<String, String>"))]
    header_env: Option<BTreeMap<String, String>>,
    /// `url` only: OAuth for the server (MCP "Authorization"): `oma-mcp login <name>` logs in
    /// once and the token is refreshed from then on, or the client credentials grant for CI.
    oauth: Option<oauth::RawOAuth>,
    /// open-multi-agent's `namePrefix`: tool names become `<prefix>_<name>`.
    prefix: Option<String>,
    /// The snapshot file (default: `mcp/<name>.snapshot.json`).
    snapshot: Option<PathBuf>,
    /// Cassettes of recorded sessions (files or directories of `*.json` files) that
    /// `oma-mcp check` checks against the snapshot.
    #[serde(default)]
    cassettes: Vec<PathBuf>,
    /// Raw MCP tool names or globs of consequential tools (they need confirmation).
    #[serde(default)]
    consequential: Vec<String>,
    /// Raw MCP tool names or globs of tools that are never consequential, whatever their
    /// annotations say (`consequential` wins over this).
    #[serde(default)]
    not_consequential: Vec<String>,
    /// How a tool's annotations count towards consequential, for tools that neither
    /// `consequential` nor `not-consequential` lists (default: `"trust"`).
    #[serde(default)]
    consequential_annotations: RawAnnotationPolicy,
    /// The tools this crate uses, raw MCP names or globs (`["create_issue", "list_*"]`): only
    /// these get generated code, reach the tool layer, the provider toolbox and the rig
    /// bridge, and are compared at run time; drift in the others is reported at info level.
    /// Default: every tool. The snapshot still pins every tool.
    #[cfg_attr(feature = "json-schema", schemars(length(min = 1)))]
    tools: Option<Vec<String>>,
    /// Tools left out even when `tools` selects them (names or globs; this wins).
    #[serde(default)]
    exclude_tools: Vec<String>,
    /// Generated argument and output types derive `schemars::JsonSchema` (needs
    /// `oma-mcp-runtime`'s `schemars` feature).
    #[serde(default)]
    schemars: bool,
    /// The per-request timeout in milliseconds, at least 1 (default: 60000).
    #[cfg_attr(feature = "json-schema", schemars(range(min = 1)))]
    request_timeout_ms: Option<u64>,
    /// The largest JSON-RPC message (one line) accepted from the server, in bytes, at least
    /// 1024 (default: 67108864, 64 MiB).
    #[cfg_attr(feature = "json-schema", schemars(range(min = 1024)))]
    max_message_bytes: Option<usize>,
    /// The `clientInfo.name` reported to the server by `connect_config()` (default:
    /// `open-multi-agent`, the runtime's; the `oma-mcp` CLI reports `oma-mcp`).
    #[cfg_attr(feature = "json-schema", schemars(length(min = 1)))]
    client_name: Option<String>,
    /// The `clientInfo.version` reported to the server by `connect_config()` (default:
    /// `0.0.0`, the runtime's; the `oma-mcp` CLI reports its own version).
    #[cfg_attr(feature = "json-schema", schemars(length(min = 1)))]
    client_version: Option<String>,
    /// How the MCP session starts (default: `"auto"`).
    #[serde(default)]
    lifecycle: RawLifecycle,
    /// The Rust names of tools: raw MCP tool name → the UpperCamelCase stem of its marker type
    /// (`"search-a" = "SearchHyphen"` gives `SearchHyphen`, `SearchHyphenArgs`,
    /// `SearchHyphenOutput`). Without an entry, tools whose names would meet after conversion
    /// (`search-a`, `search_a`) get a tagged name such as `SearchA_h1dc0eb1b`.
    #[serde(default)]
    rename: BTreeMap<String, String>,
    /// What a snapshot pins beside the tools, which are always pinned: any of `"tools"`,
    /// `"prompts"` (`prompts/list`), `"resources"` (`resources/list` and
    /// `resources/templates/list`), `"instructions"` (the server's `instructions`). Default:
    /// all four. The server's `serverInfo`, protocol version and capabilities are always
    /// recorded.
    #[serde(default)]
    #[cfg_attr(feature = "json-schema", schemars(with = "Vec<RawPin>"))]
    pin: Option<Vec<RawPin>>,
    /// The most entries of each of `prompts/list`, `resources/list` and
    /// `resources/templates/list` a snapshot pins, at least 1 (default: 1000); the snapshot
    /// records a list it cut.
    #[cfg_attr(feature = "json-schema", schemars(range(min = 1)))]
    max_list_items: Option<usize>,
    /// Findings of the text scanner this server may have, each for one rule and one tool
    /// (or `*`), with the reason reports show: `[{ rule = "secret-parameter", tool =
    /// "login", reason = "takes the user's API key by design" }]`. A rule the scanner does not
    /// have is an error.
    #[serde(default)]
    accept: Vec<accept::RawAccept>,
    /// Where the server came from in an MCP registry, as `oma-mcp add` writes it: `{ name =
    /// "io.github.owner/server", version = "1.2.3", registry-type = "npm", identifier =
    /// "@owner/server" }`. `oma-mcp check` warns when that entry became deprecated or
    /// deleted, and says when a newer version is published.
    registry: Option<registry::RawRegistry>,
}

/// One entry of `pin`.
#[derive(Debug, Clone, Copy, Deserialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
enum RawPin {
    /// `tools/list` (always pinned).
    Tools,
    /// `prompts/list`.
    Prompts,
    /// `resources/list` and `resources/templates/list`.
    Resources,
    /// The server's `instructions`.
    Instructions,
}

/// `lifecycle`: the MCP handshake ([`oma_mcp_core::config::Lifecycle`]).
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
enum RawLifecycle {
    /// `server/discover` (protocol 2026-07-28), falling back to `initialize`; a server that
    /// exits on `server/discover` is started again with `initialize`.
    #[default]
    Auto,
    /// Only `initialize` (protocol revisions before 2026-07-28): skips the probe (a server
    /// that ignores `server/discover` costs 2 s at every connect under `"auto"`).
    Initialize,
    /// Only `server/discover` (protocol 2026-07-28 servers only).
    Discover,
}

/// `consequential-annotations`: how tool annotations count towards consequential.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
enum RawAnnotationPolicy {
    /// `destructiveHint: true` without `readOnlyHint: true` makes a tool consequential.
    #[default]
    Trust,
    /// Annotations are ignored, and only `consequential` makes a tool consequential.
    Ignore,
}

/// The JSON Schema (2020-12) of `oma-mcp.toml`, derived from the parser's own types, for
/// editors (e.g. taplo's `#:schema` directive); `oma-mcp schema manifest` prints it. Needs
/// the cargo feature `json-schema`.
#[cfg(feature = "json-schema")]
pub fn json_schema() -> serde_json::Value {
    let mut schema = schemars::schema_for!(RawManifest);
    schema.insert("title".into(), "oma-mcp.toml".into());
    schema.to_value()
}

impl Manifest {
    /// Reads and parses the manifest at `path`.
    ///
    /// # Errors
    /// [`Error::ManifestIo`] when the file cannot be read; [`Error::ManifestParse`] when it is
    /// not valid TOML of this shape (the message has TOML's line and column) or a value is
    /// unusable (empty command, zero timeout, a server name that is not a file name).
    pub fn read(path: &Path) -> Result<Self, Error> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::ManifestIo {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(&text, path)
    }

    /// Parses manifest text; `path` locates relative paths and names the file in errors.
    ///
    /// # Errors
    /// As [`Manifest::read`], without the I/O part.
    pub fn parse(text: &str, path: &Path) -> Result<Self, Error> {
        let bad = |message: String| Error::ManifestParse {
            path: path.to_path_buf(),
            message,
        };
        let raw: RawManifest = toml::from_str(text).map_err(|e| bad(e.to_string()))?;
        // Absolute, so a relative `--manifest` path does not make the command depend on the
        // directory the child is started in.
        let base = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let base = std::path::absolute(&base).unwrap_or(base);
        let mut servers = BTreeMap::new();
        for (name, mut raw) in raw.servers {
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            {
                return Err(bad(format!(
                    "server name {name:?} must be non-empty ASCII letters, digits, `-` or `_` \
                     (it names the generated file)"
                )));
            }
            let transport = transport(&name, &raw).map_err(bad)?;
            let accept = accept::accepts(&name, &raw.accept).map_err(bad)?;
            if raw.tools.as_ref().is_some_and(Vec::is_empty) {
                return Err(bad(format!(
                    "servers.{name}.tools is empty, so no tool would get code; list the tools \
                     the crate uses (names or globs), or leave `tools` out to use every tool"
                )));
            }
            let tools =
                ToolSelection::new(raw.tools.as_deref().unwrap_or_default(), &raw.exclude_tools)
                    .map_err(|e| bad(format!("servers.{name}: {e}")))?;
            let registry = match raw.registry.take() {
                Some(table) => Some(registry::registry(&name, table).map_err(bad)?),
                None => None,
            };
            let oauth = match &raw.oauth {
                Some(_) if matches!(transport, Transport::Command { .. }) => {
                    return Err(bad(format!(
                        "servers.{name}.oauth belongs to a server reached by `url`; \
                         servers.{name} is started by `command`, which OAuth does not concern"
                    )));
                }
                Some(_) if raw.bearer_env.is_some() => {
                    return Err(bad(format!(
                        "servers.{name} has both `bearer-env` and an `oauth` table, and each \
                         supplies the `Authorization` header; keep one"
                    )));
                }
                Some(table) => Some(oauth::oauth(&name, table).map_err(bad)?),
                None => None,
            };
            if raw.max_message_bytes.is_some_and(|n| n < 1024) {
                return Err(bad(format!(
                    "servers.{name}.max-message-bytes must be at least 1024"
                )));
            }
            for (key, value) in [
                ("client-name", &raw.client_name),
                ("client-version", &raw.client_version),
            ] {
                if value.as_deref().is_some_and(|v| v.trim().is_empty()) {
                    return Err(bad(format!(
                        "servers.{name}.{key} is empty; give a value or leave the key out for \
                         the runtime's default"
                    )));
                }
            }
            if raw.request_timeout_ms == Some(0) {
                return Err(bad(format!(
                    "servers.{name}.request-timeout-ms must be greater than 0"
                )));
            }
            let cwd = match raw.cwd {
                Some(c) if c.is_absolute() => c,
                Some(c) => base.join(c),
                None => base.clone(),
            };
            let program = match &transport {
                Transport::Command { command, .. }
                    if command.contains('/') && Path::new(command).is_relative() =>
                {
                    cwd.join(command)
                }
                Transport::Command { command, .. } => PathBuf::from(command),
                Transport::Url(_) => PathBuf::new(),
            };
            let snapshot = match raw.snapshot {
                Some(s) if s.as_os_str().is_empty() || s.to_string_lossy().ends_with('/') => {
                    return Err(bad(format!(
                        "servers.{name}.snapshot {:?} names no file; give a file path such as \
                         \"mcp/{name}.snapshot.json\" or leave it out for that default",
                        s.display().to_string()
                    )));
                }
                Some(s) => base.join(s),
                None => base.join(format!("mcp/{name}.snapshot.json")),
            };
            if lexical(&snapshot) == lexical(&base.join(path.file_name().unwrap_or_default())) {
                return Err(bad(format!(
                    "servers.{name}.snapshot is the manifest itself; give the snapshot a file of \
                     its own such as \"mcp/{name}.snapshot.json\""
                )));
            }
            if let Some(other) = servers
                .values()
                .find(|p: &&ServerPin| lexical(&p.snapshot) == lexical(&snapshot))
            {
                return Err(bad(format!(
                    "servers.{name} and servers.{} both use the snapshot file {}; each server \
                     needs its own (set `snapshot` on one of them)",
                    other.name,
                    lexical(&snapshot).display()
                )));
            }
            let (command, args, env, pass_env, url) = match transport {
                Transport::Command {
                    command,
                    args,
                    env,
                    pass_env,
                } => (command, args, env, pass_env, None),
                Transport::Url(url) => (
                    String::new(),
                    Vec::new(),
                    BTreeMap::new(),
                    Vec::new(),
                    Some(url),
                ),
            };
            let max_list_items = match raw.max_list_items {
                Some(0) => {
                    return Err(bad(format!(
                        "servers.{name}.max-list-items is 0; give at least 1 (default: \
                         {DEFAULT_MAX_LIST_ITEMS})"
                    )));
                }
                Some(n) => n,
                None => DEFAULT_MAX_LIST_ITEMS,
            };
            servers.insert(
                name.clone(),
                ServerPin {
                    name,
                    command,
                    program,
                    args,
                    cwd,
                    env,
                    pass_env,
                    url,
                    headers: raw.headers.unwrap_or_default(),
                    bearer_env: raw.bearer_env,
                    header_env: raw.header_env.unwrap_or_default(),
                    oauth,
                    prefix: raw.prefix,
                    snapshot,
                    cassettes: raw.cassettes.iter().map(|c| base.join(c)).collect(),
                    consequential: raw.consequential,
                    not_consequential: raw.not_consequential,
                    consequential_annotations: match raw.consequential_annotations {
                        RawAnnotationPolicy::Trust => AnnotationPolicy::Trust,
                        RawAnnotationPolicy::Ignore => AnnotationPolicy::Ignore,
                    },
                    tools,
                    schemars: raw.schemars,
                    request_timeout: Duration::from_millis(
                        raw.request_timeout_ms.unwrap_or(60_000),
                    ),
                    max_message_size: raw
                        .max_message_bytes
                        .unwrap_or(oma_mcp_core::config::DEFAULT_MAX_MESSAGE_SIZE),
                    client_name: raw.client_name,
                    client_version: raw.client_version,
                    lifecycle: match raw.lifecycle {
                        RawLifecycle::Auto => oma_mcp_core::config::Lifecycle::Auto,
                        RawLifecycle::Initialize => oma_mcp_core::config::Lifecycle::Initialize,
                        RawLifecycle::Discover => oma_mcp_core::config::Lifecycle::Discover,
                    },
                    rename: raw.rename,
                    pins: match raw.pin {
                        None => Pin::ALL.into_iter().collect(),
                        Some(list) => std::iter::once(Pin::Tools)
                            .chain(list.into_iter().map(|p| match p {
                                RawPin::Tools => Pin::Tools,
                                RawPin::Prompts => Pin::Prompts,
                                RawPin::Resources => Pin::Resources,
                                RawPin::Instructions => Pin::Instructions,
                            }))
                            .collect(),
                    },
                    max_list_items,
                    accept,
                    registry,
                },
            );
        }
        if servers.is_empty() {
            return Err(bad(
                "it pins no servers; add a [servers.<name>] table with at least `command` or \
                 `url`"
                    .to_owned(),
            ));
        }
        Ok(Self {
            path: path.to_path_buf(),
            servers,
        })
    }

    /// The server named `name`.
    ///
    /// # Errors
    /// [`Error::UnknownServer`] listing the servers the manifest does pin.
    pub fn server(&self, name: &str) -> Result<&ServerPin, Error> {
        self.servers.get(name).ok_or_else(|| Error::UnknownServer {
            name: name.to_owned(),
            path: self.path.clone(),
            available: self.servers.keys().cloned().collect(),
        })
    }

    /// The only server, or the one named `name` when given.
    ///
    /// # Errors
    /// [`Error::UnknownServer`] for an unknown name; [`Error::ServerNotChosen`] when `name`
    /// is `None` and the manifest pins zero or several servers.
    pub fn single(&self, name: Option<&str>) -> Result<&ServerPin, Error> {
        match name {
            Some(n) => self.server(n),
            None => match self.servers.values().collect::<Vec<_>>().as_slice() {
                [only] => Ok(only),
                _ => Err(Error::ServerNotChosen {
                    path: self.path.clone(),
                    available: self.servers.keys().cloned().collect(),
                }),
            },
        }
    }
}

impl ServerPin {
    /// The runtime connection settings of this pin: [`ConnectConfig::new`] with the
    /// program, arguments, `cwd`, `env` and `pass-env` of a command pin, or
    /// [`ConnectConfig::http`] with the URL, `headers`, `bearer-env`, `header-env` and `oauth`
    /// of a URL pin; then the settings both kinds share (among them `consequential`,
    /// `not-consequential` and `consequential-annotations`, so the tool layer marks the tools
    /// of this connection as the generated code does). `pass-env`, `bearer-env` and `header-env`
    /// variables are read from the environment when the connection starts (see
    /// [`oma_mcp_core::config::ConnectConfig`]).
    ///
    /// A URL pin without an `oauth` table and without a credential of its own (`bearer-env`,
    /// or `Authorization` in `header-env`) gets OAuth as `oma-mcp` gives it: the login of
    /// `oma-mcp login <name>`, used and refreshed when stored, errors naming that command. It
    /// is [optional](oma_mcp_core::config::OAuthConfig::optional): a runtime without its cargo
    /// feature `oauth` connects without it.
    ///
    /// [`ConnectConfig::new`]: oma_mcp_core::config::ConnectConfig::new
    /// [`ConnectConfig::http`]: oma_mcp_core::config::ConnectConfig::http
    pub fn connect_config(&self) -> oma_mcp_core::config::ConnectConfig {
        let mut config = match &self.url {
            Some(url) => {
                let mut config = oma_mcp_core::config::ConnectConfig::http(url.clone());
                for (name, value) in &self.headers {
                    config = config.with_header(name.clone(), value.clone());
                }
                if let Some(var) = &self.bearer_env {
                    config = config.with_bearer_env(var.clone());
                }
                for (name, var) in &self.header_env {
                    config = config.with_header_env(name.clone(), var.clone());
                }
                if let Some(oauth) = self.oauth.clone().or_else(|| self.stored_login()) {
                    config = config.with_oauth(oauth);
                }
                config
            }
            None => {
                let mut config = oma_mcp_core::config::ConnectConfig::new(
                    self.program.to_string_lossy().into_owned(),
                )
                .with_args(self.args.clone())
                .with_cwd(self.cwd.clone())
                .with_pass_env(self.pass_env.clone());
                for (name, value) in &self.env {
                    config = config.with_env(name.clone(), value.clone());
                }
                config
            }
        }
        .with_request_timeout(self.request_timeout)
        .with_max_message_size(self.max_message_size)
        .with_lifecycle(self.lifecycle)
        .with_consequential(self.consequential.clone())
        .with_not_consequential(self.not_consequential.clone())
        .with_consequential_annotations(self.consequential_annotations)
        .with_tools(self.tools.tools().to_vec())
        .with_exclude_tools(self.tools.exclude_tools().to_vec());
        if let Some(prefix) = &self.prefix {
            config = config.with_name_prefix(prefix.clone());
        }
        if let Some(name) = &self.client_name {
            config = config.with_client_name(name.clone());
        }
        if let Some(version) = &self.client_version {
            config = config.with_client_version(version.clone());
        }
        config
    }

    /// The OAuth of a URL pin without an `oauth` table: the stored login of `oma-mcp login
    /// <name>`, optional; `None` when the pin sends an `Authorization` header of its own.
    fn stored_login(&self) -> Option<oma_mcp_core::config::OAuthConfig> {
        let authorization = self.bearer_env.is_some()
            || self
                .header_env
                .keys()
                .any(|h| h.eq_ignore_ascii_case("authorization"));
        (!authorization).then(|| {
            oma_mcp_core::config::OAuthConfig::authorization_code()
                .with_login_command(format!("oma-mcp login {}", self.name))
                .with_optional(true)
        })
    }

    /// The code generator's options of this pin: prefix, `consequential`,
    /// `not-consequential`, `consequential-annotations`, `tools` and `exclude-tools`,
    /// `schemars`, `rename` (its
    /// entries named `servers.<name>.rename."<tool>"` in errors) and the connection
    /// ([`ServerPin::connect_config`], emitted as `connect_config()` and `connect()`), so
    /// the build script and `oma-mcp generate --manifest` generate the same module.
    pub fn generate_options(&self) -> crate::GenerateOptions {
        let options = crate::GenerateOptions::default()
            .with_connection(crate::codegen::PinnedConnection::new(
                self.name.clone(),
                self.connect_config(),
            ))
            .with_rename(self.rename.clone())
            .with_rename_table(format!("servers.{}.rename", self.name))
            .with_consequential(self.consequential.clone())
            .with_not_consequential(self.not_consequential.clone())
            .with_consequential_annotations(self.consequential_annotations)
            .with_tools(self.tools.clone())
            .with_schemars(self.schemars);
        match &self.prefix {
            Some(prefix) => options.with_name_prefix(prefix.clone()),
            None => options,
        }
    }

    /// The snapshot's `source`: the command and arguments as written in the manifest, or the
    /// URL redacted, the literal headers and the names of the headers whose values come from
    /// the environment (see [`ConnectConfig::snapshot_source`]).
    ///
    /// [`ConnectConfig::snapshot_source`]: oma_mcp_core::config::ConnectConfig::snapshot_source
    pub fn snapshot_source(&self) -> oma_mcp_core::snapshot::SnapshotSource {
        match &self.url {
            Some(_) => self.connect_config().snapshot_source(),
            None => {
                oma_mcp_core::snapshot::SnapshotSource::new(self.command.clone(), self.args.clone())
            }
        }
    }

    /// The server as messages show it: the command line as written (`command` and `args`
    /// joined by spaces), or the URL redacted
    /// ([`redact_url`](oma_mcp_core::redact::redact_url)).
    pub fn target(&self) -> String {
        match &self.url {
            Some(url) => oma_mcp_core::redact::redact_url(url),
            None => std::iter::once(self.command.as_str())
                .chain(self.args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
        }
    }
}

/// `path` with `.` dropped and `..` applied to the components before it (no file system
/// access), so two spellings of one snapshot file compare equal.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests;
