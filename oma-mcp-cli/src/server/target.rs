//! The flags that name the server a command reaches: a manifest's pin, a URL or a command
//! line, and how its session starts.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::env::ServerEnv;
use super::http::{HttpFlags, Unchecked, unchecked};

/// A server given by manifest, by URL or by command line.
#[derive(Debug, Args)]
pub struct Target {
    /// The manifest that pins the server (default: ./oma-mcp.toml when neither --url nor
    /// `-- COMMAND` is given).
    #[arg(long, value_name = "PATH")]
    pub manifest: Option<PathBuf>,
    /// The server's name in the manifest (needed when it pins several, unless `call`'s tool
    /// name carries the prefix of exactly one).
    #[arg(long, value_name = "NAME")]
    pub server: Option<String>,
    /// The streamable HTTP endpoint of a server to reach (MCP 2025-03-26 and later), an http
    /// or https URL, instead of --manifest/--server or `-- COMMAND`. Shown redacted (query
    /// values as `***`); credentials go through --bearer-env or --header-env.
    #[arg(
        long,
        value_name = "URL",
        value_parser = unchecked,
        conflicts_with_all = ["manifest", "server", "command"]
    )]
    pub url: Option<Unchecked>,
    /// The largest JSON-RPC message (one line) accepted from the server, in bytes (default:
    /// the manifest's `max-message-bytes`, else 67108864, 64 MiB).
    #[arg(long, value_name = "BYTES")]
    pub max_message_bytes: Option<usize>,
    /// Environment for the server.
    #[command(flatten)]
    pub server_env: ServerEnv,
    /// HTTP headers for the server.
    #[command(flatten)]
    pub http: HttpFlags,
    /// How the MCP session starts (default: the manifest's `lifecycle`, else auto).
    #[arg(long, value_enum)]
    pub lifecycle: Option<LifecycleArg>,
    /// The server command and its arguments, after `--` (instead of --manifest/--server or
    /// --url).
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
