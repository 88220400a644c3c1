//! Command-line flags of `oma-mcp` (clap stays in the binary, out of the library).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Typed, validated, drift-checked Rust tools from pinned MCP servers.
#[derive(Debug, Parser)]
#[command(name = "oma-mcp", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Start a pinned server, take its tools/list and write the canonical snapshot.
    ///
    /// With `-- COMMAND ARGS...` the snapshot goes to --out, or to stdout. Otherwise every
    /// server of the manifest (or the one --server names) is written to its `snapshot` path.
    Snapshot {
        /// The manifest (default: ./oma-mcp.toml when no `-- COMMAND` is given).
        #[arg(long, value_name = "PATH")]
        manifest: Option<PathBuf>,
        /// Only this server of the manifest.
        #[arg(long, value_name = "NAME")]
        server: Option<String>,
        /// Write here instead (one server only).
        #[arg(long, value_name = "PATH")]
        out: Option<PathBuf>,
        /// The per-request timeout in milliseconds, at least 1 (default: the manifest's, else
        /// 60000).
        #[arg(long, value_name = "N", value_parser = timeout_ms)]
        timeout_ms: Option<u64>,
        /// Environment for the server(s); values are never written to the snapshot.
        #[command(flatten)]
        server_env: crate::server_env::ServerEnv,
        /// How the MCP session starts (default: the manifest's `lifecycle`, else auto).
        #[arg(long, value_enum)]
        lifecycle: Option<LifecycleArg>,
        /// The server command and its arguments, after `--` (instead of --manifest/--server).
        #[arg(last = true, value_name = "COMMAND ARGS", conflicts_with_all = ["manifest", "server"])]
        command: Vec<String>,
    },
    /// Generate Rust code from a snapshot or a bare `{"tools": [...]}` file.
    Generate {
        /// The snapshot, or a tools/list result.
        #[arg(value_name = "SNAPSHOT")]
        snapshot: PathBuf,
        /// The seed's namePrefix for the tools' framework names.
        #[arg(long, value_name = "P")]
        prefix: Option<String>,
        /// Mark tools consequential by raw MCP name or glob (repeatable).
        #[arg(long, value_name = "NAME_OR_GLOB")]
        consequential: Vec<String>,
        /// Name a tool's types yourself: raw MCP name = stem of its Rust names (repeatable),
        /// as the manifest's [servers.<name>.rename] table does.
        #[arg(long, value_name = "TOOL=NAME", value_parser = rename_entry)]
        rename: Vec<(String, String)>,
        /// Write the code here (default: stdout).
        #[arg(long, value_name = "PATH")]
        out: Option<PathBuf>,
    },
    /// Start a server and list its tools.
    List {
        /// The seed's namePrefix (default: the manifest's `prefix`).
        #[arg(long, value_name = "P")]
        prefix: Option<String>,
        /// The per-request timeout in milliseconds, at least 1 (default: the manifest's, else
        /// 60000).
        #[arg(long, value_name = "N", value_parser = timeout_ms)]
        timeout_ms: Option<u64>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// The server to start.
        #[command(flatten)]
        target: Target,
    },
    /// Start a server and call one tool; prints the mapped result.
    ///
    /// As the runtime's executor does, a consequential tool (the manifest's `consequential`
    /// entries, else `destructiveHint: true` annotations) is called only with --yes, and the
    /// arguments are checked against the tool's input schema before anything is sent (a
    /// schema that does not compile stops the call too; --no-validate skips the check).
    ///
    /// Exits 0 when the result is not an error, 2 when it is (`isError: true` or a failed
    /// call), with the result still printed, and 2 when the call was refused.
    Call(CallArgs),
    /// Connect to the pinned servers and diff their live tools/list against the snapshots.
    ///
    /// Exits 0 without drift at the --fail-on level, 1 with drift at or above it, 2 on an
    /// error. A server that cannot be checked (it does not start, its snapshot cannot be
    /// read) is reported on stderr and in every format but text: JSON `errors`, a GitHub
    /// `::error` on the manifest, a Markdown section, a SARIF result, a JUnit `<error>`.
    Check(crate::check::CheckArgs),
    /// Compare two snapshot (or bare `{"tools": [...]}`) files; exit codes as `check`.
    Diff(crate::diff::DiffArgs),
    /// Print the JSON Schema of the manifest or the snapshot format.
    Schema(crate::schema::SchemaArgs),
    /// Print shell completions.
    Completions(crate::schema::CompletionsArgs),
}

impl Command {
    /// Whether the command starts MCP servers (and so must stop them when a signal comes).
    pub fn starts_servers(&self) -> bool {
        match self {
            Command::Snapshot { .. }
            | Command::List { .. }
            | Command::Call(_)
            | Command::Check(_) => true,
            Command::Generate { .. }
            | Command::Diff(_)
            | Command::Schema(_)
            | Command::Completions(_) => false,
        }
    }
}

/// A server given by manifest or by command line.
#[derive(Debug, Args)]
pub struct Target {
    /// The manifest that pins the server (default: ./oma-mcp.toml when no `-- COMMAND` is
    /// given).
    #[arg(long, value_name = "PATH")]
    pub manifest: Option<PathBuf>,
    /// The server's name in the manifest (needed when it pins several, unless `call`'s tool
    /// name carries the prefix of exactly one).
    #[arg(long, value_name = "NAME")]
    pub server: Option<String>,
    /// The largest JSON-RPC message (one line) accepted from the server, in bytes (default:
    /// the manifest's `max-message-bytes`, else 67108864, 64 MiB).
    #[arg(long, value_name = "BYTES")]
    pub max_message_bytes: Option<usize>,
    /// Environment for the server.
    #[command(flatten)]
    pub server_env: crate::server_env::ServerEnv,
    /// How the MCP session starts (default: the manifest's `lifecycle`, else auto).
    #[arg(long, value_enum)]
    pub lifecycle: Option<LifecycleArg>,
    /// The server command and its arguments, after `--` (instead of --manifest/--server).
    #[arg(last = true, value_name = "COMMAND ARGS", conflicts_with_all = ["manifest", "server"])]
    pub command: Vec<String>,
}

/// `--lifecycle`: how the MCP session starts (the runtime's `Lifecycle`, mirrored here so
/// clap stays out of the library).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LifecycleArg {
    /// `server/discover` (protocol 2026-07-28), else `initialize`; a server that exits on
    /// `server/discover` is started again with `initialize`.
    Auto,
    /// Only `initialize` (protocol revisions before 2026-07-28): no probe.
    Initialize,
    /// Only `server/discover` (protocol 2026-07-28).
    Discover,
}

impl From<LifecycleArg> for oma_mcp_runtime::Lifecycle {
    fn from(arg: LifecycleArg) -> Self {
        match arg {
            LifecycleArg::Auto => Self::Auto,
            LifecycleArg::Initialize => Self::Initialize,
            LifecycleArg::Discover => Self::Discover,
        }
    }
}

/// Output formats of `list` and `call`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Human-readable text.
    Text,
    /// JSON for scripts.
    Json,
}

/// Parses `--timeout-ms`: a whole number of milliseconds greater than 0 (0 would time out
/// every request before the server could answer).
fn timeout_ms(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(0) => Err("the timeout must be at least 1 millisecond".to_owned()),
        Ok(ms) => Ok(ms),
        Err(e) => Err(format!("expected a whole number of milliseconds ({e})")),
    }
}

/// The options of `oma-mcp call`.
#[derive(Debug, clap::Args)]
pub struct CallArgs {
    /// The tool's framework name (after the prefix and `/` → `_` rule).
    #[arg(value_name = "TOOL")]
    pub tool: String,
    /// The arguments, a JSON object.
    #[arg(long, value_name = "JSON")]
    pub args: Option<String>,
    /// The seed's namePrefix (default: the manifest's `prefix`).
    #[arg(long, value_name = "P")]
    pub prefix: Option<String>,
    /// The per-request timeout in milliseconds, at least 1 (default: the manifest's, else
    /// 60000).
    #[arg(long, value_name = "N", value_parser = timeout_ms)]
    pub timeout_ms: Option<u64>,
    /// Call a consequential tool (the confirmation the executor's gate asks for).
    #[arg(long)]
    pub yes: bool,
    /// Send the arguments without checking them against the tool's input schema.
    #[arg(long)]
    pub no_validate: bool,
    /// Output format: `text` prints the result's text (control characters escaped on a
    /// terminal, exactly as sent when piped); `json` the whole mapped result.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// The server to start.
    #[command(flatten)]
    pub target: Target,
}

/// One `--rename TOOL=NAME` value: split at the last `=` (a tool name may hold `=`, a Rust
/// name cannot).
pub fn rename_entry(value: &str) -> Result<(String, String), String> {
    match value.rsplit_once('=') {
        Some((tool, name)) if !tool.is_empty() => Ok((tool.to_owned(), name.to_owned())),
        _ => Err(format!(
            "expected TOOL=NAME (a raw MCP tool name, `=`, the stem of its Rust names), e.g. \
             search-a=SearchHyphen; got {value:?}"
        )),
    }
}
