//! The subcommands of `oma-mcp`, one module each holding its flags and its `run` (clap stays
//! in this crate, out of the libraries). What they share is in the crate's other modules,
//! none of which imports a command.

mod add;
mod auth;
mod call;
mod check;
mod completions;
mod diff;
mod export;
mod generate;
mod init;
mod list;
mod login;
mod logout;
mod record;
mod replay;
mod scan;
mod schema;
mod snapshot;

use clap::{CommandFactory, Parser, Subcommand};

use crate::error::CliError;
use crate::exit::Outcome;

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
    Snapshot(snapshot::SnapshotArgs),
    /// Generate Rust code from a snapshot or a bare `{"tools": [...]}` file, or the module
    /// build.rs writes for a server of a manifest (--manifest).
    Generate(generate::GenerateArgs),
    /// Start a server and list its tools.
    List(list::ListArgs),
    /// Start a server and call one tool; prints the mapped result.
    ///
    /// As the runtime's executor does, a consequential tool (the manifest's `consequential`
    /// entries, else `destructiveHint: true` annotations) is called only with --yes, and the
    /// arguments are checked against the tool's input schema before anything is sent (a
    /// schema that does not compile stops the call too; --no-validate skips the check).
    ///
    /// Exits 0 when the result is not an error, 2 when it is (`isError: true` or a failed
    /// call), with the result still printed, and 2 when the call was refused.
    Call(call::CallArgs),
    /// Connect to the pinned servers and diff what they offer (tools, prompts, resources,
    /// instructions) against the snapshots.
    ///
    /// Exits 0 without drift at the --fail-on level, 1 with drift at or above it, 2 on an
    /// error. A server that cannot be checked (it does not start, its snapshot cannot be
    /// read) is reported on stderr and in every format but text: JSON `errors`, a GitHub
    /// `::error` on the manifest, a Markdown section, a SARIF result, a JUnit `<error>`.
    ///
    /// With --offline, no server: the committed snapshots and cassettes are checked on their
    /// own (for a pre-commit hook, or CI without the servers or their secrets).
    Check(check::CheckArgs),
    /// Compare two snapshot (or bare `{"tools": [...]}`) files; exit codes as `check`.
    Diff(diff::DiffArgs),
    /// Write a snapshot's tools as a model provider's tool definitions (OpenAI strict,
    /// Anthropic, Gemini): a JSON array in the provider's own request format.
    Export(export::ExportArgs),
    /// Record a session for tests: a proxy on stdin/stdout in front of a server, which code
    /// under test starts as its server; every call is forwarded and recorded, and the
    /// cassette is written when stdin ends.
    Record(record::RecordArgs),
    /// Serve a recorded session on stdin/stdout, as the server it was recorded from, for code
    /// under test that starts its server as a command.
    Replay(replay::ReplayArgs),
    /// Log in to a server that asks for OAuth (MCP "Authorization"): open the authorization
    /// URL in a browser (or print it), receive the redirect on 127.0.0.1, and store the
    /// tokens for every later command.
    ///
    /// The login is kept in the credential store (`$OMA_MCP_CREDENTIALS_DIR`, else
    /// `~/.config/oma-mcp/credentials`, readable by the user only) and refreshed as needed.
    /// In CI, use the client credentials grant (--client-credentials) or pass a token with
    /// --bearer-env instead.
    Login(login::LoginArgs),
    /// Remove a stored login (or every one with --all).
    Logout(logout::LogoutArgs),
    /// Stored logins: `oma-mcp auth status`.
    Auth(auth::AuthArgs),
    /// Scan every text a model reads from a server for hidden characters and instructions
    /// aimed at the model (tool poisoning, shadowing, line jumping, ASCII smuggling).
    ///
    /// Reads a snapshot or bare `{"tools": [...]}` file, the pins of a manifest, or a live
    /// server (--url, `-- COMMAND`). Exits 0 when no finding that the manifest does not
    /// accept reaches --fail-on, 1 when one does, 2 on an error.
    Scan(scan::ScanArgs),
    /// Print the JSON Schema of the manifest or the snapshot format.
    Schema(schema::SchemaArgs),
    /// Print shell completions.
    Completions(completions::CompletionsArgs),
    /// Pin the MCP servers other clients are configured with (Claude Code, Claude Desktop,
    /// Cursor, VS Code, Windsurf, Zed, Cline): write them into oma-mcp.toml, then take their
    /// snapshots.
    ///
    /// Secrets become the names of environment variables (`pass-env`, `bearer-env`,
    /// `header-env`), never values; a literal secret in a client's file is left out with a
    /// warning that says where to move it. Running it again updates the same pins in place,
    /// and a server already pinned under another name is skipped.
    Init(init::InitArgs),
    /// Pin a server from an MCP registry (the official MCP Registry's /v0.1 API, or another
    /// with --registry): write its package or remote into oma-mcp.toml, then take its
    /// snapshot.
    ///
    /// NAME@VERSION names an exact version of the entry (`@latest` resolves to one, which is
    /// recorded). npm packages start with `npx -y NAME@VERSION`, PyPI packages with `uvx
    /// NAME==VERSION`, OCI images with `docker run -i --rm IMAGE`; a remote is pinned by its
    /// URL. Secret environment variables and headers become variable names (`pass-env`,
    /// `bearer-env`, `header-env`), never values. The pin records the entry in
    /// `[servers.NAME.registry]`, and `check` warns when it becomes deprecated or deleted.
    Add(add::AddArgs),
}

impl Command {
    /// Whether the command starts MCP servers (and so must stop them when a signal comes).
    pub fn starts_servers(&self) -> bool {
        match self {
            Command::Snapshot(_)
            | Command::List(_)
            | Command::Call(_)
            | Command::Scan(_)
            | Command::Record(_)
            | Command::Login(_)
            | Command::Init(_)
            | Command::Add(_) => true,
            Command::Check(args) => !args.offline,
            Command::Generate(_)
            | Command::Logout(_)
            | Command::Auth(_)
            | Command::Diff(_)
            | Command::Export(_)
            | Command::Replay(_)
            | Command::Schema(_)
            | Command::Completions(_) => false,
        }
    }

    /// Whether the command reads no environment variable at all (`check --offline`), not
    /// even the logging filter `OMA_MCP_LOG`: it reaches no server, so the runtime logs
    /// nothing.
    pub fn reads_no_environment(&self) -> bool {
        matches!(self, Command::Check(args) if args.offline)
    }
}

/// Runs one subcommand.
pub async fn run(command: Command) -> Result<Outcome, CliError> {
    match command {
        Command::Snapshot(args) => snapshot::run(args).await,
        Command::Generate(args) => generate::run(args),
        Command::List(args) => list::run(args).await,
        Command::Call(args) => call::run(args).await,
        Command::Check(args) => check::run(args).await,
        Command::Diff(args) => diff::run(args),
        Command::Export(args) => export::run(&args),
        Command::Record(args) => record::run(args).await,
        Command::Replay(args) => replay::run(args).await,
        Command::Login(args) => login::run(args).await,
        Command::Logout(args) => logout::run(&args),
        Command::Auth(args) => auth::run(&args),
        Command::Scan(args) => scan::run(args).await,
        Command::Schema(args) => schema::run(&args),
        Command::Completions(args) => completions::run(&args, Cli::command()),
        Command::Init(args) => init::run(args).await,
        Command::Add(args) => add::run(args).await,
    }
}
