//! The error of the command line: what went wrong, with what was being done; library errors
//! are wrapped, their causes kept in `#[source]` (the error line on stderr prints the chain,
//! see `crate::output::print_error`).

use std::path::PathBuf;

/// Errors of the command line itself; library errors are wrapped with what was being done.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The async runtime could not start.
    #[error("cannot start the async runtime")]
    AsyncRuntime(#[source] std::io::Error),
    /// The SIGINT/SIGTERM/SIGHUP handlers could not be installed.
    #[error("cannot install the signal handlers that stop the server on Ctrl-C")]
    Signals(#[source] std::io::Error),
    /// The current directory, against which a relative `--manifest` is resolved, is unknown.
    #[error("cannot resolve --manifest against the current directory")]
    CurrentDir(#[source] std::io::Error),
    /// Writing to stdout failed (a closed pipe is not reported).
    #[error("cannot write to stdout")]
    Stdout(#[source] std::io::Error),
    /// Serving MCP on stdin and stdout (`record`, `replay`) failed.
    #[error("cannot serve MCP on stdin and stdout")]
    Stdio(#[source] std::io::Error),
    /// A fake (`record`, `replay`) could not start, or its cassette could not be read or
    /// written.
    #[error(transparent)]
    Fake(#[from] oma_mcp_runtime::fake::FakeError),
    /// An error of `oma-mcp-build` (manifest, codegen, snapshot, build step).
    #[error(transparent)]
    Build(#[from] oma_mcp_build::Error),
    /// An error of `oma-mcp-runtime` (connection).
    #[error(transparent)]
    Runtime(#[from] oma_mcp_runtime::Error),
    /// A snapshot file that cannot be read, written or parsed.
    #[error(transparent)]
    Snapshot(#[from] oma_mcp_runtime::snapshot::SnapshotError),
    /// Connecting to the server failed.
    #[error("cannot connect to the MCP server `{command}`")]
    Connect {
        /// The command line, or the URL redacted.
        command: String,
        /// Why (boxed: large, and this path is cold).
        #[source]
        source: Box<oma_mcp_runtime::Error>,
    },
    /// A file (generated code, a report of `--output`) could not be written.
    #[error("cannot write {path}")]
    Write {
        /// The output file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The flags do not name a server, and there is no `./oma-mcp.toml` to default to.
    #[error(
        "no server given and no oma-mcp.toml in the current directory: pass `--manifest PATH \
         [--server NAME]`, `--url URL`, or the server command after `--` (e.g. `oma-mcp list \
         -- node_modules/.bin/mcp-server-everything stdio` after `npm ci`)"
    )]
    NoServer,
    /// `init` without `--from`, and none of the files it looks for.
    #[error(
        "no MCP configuration to read: none of ./.mcp.json, ./.cursor/mcp.json and \
         ./.vscode/mcp.json exists; name the file with --from PATH (e.g. Claude Desktop's \
         claude_desktop_config.json)"
    )]
    NoClientConfig,
    /// A client's configuration file that cannot be read.
    #[error("cannot read {path}")]
    ReadClientConfig {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A client's configuration file that is not JSON (nor JSON with comments).
    #[error("{path} is not JSON: {problem}")]
    ClientConfig {
        /// The file.
        path: PathBuf,
        /// What is wrong, with the line and column.
        problem: String,
    },
    /// An MCP registry that cannot be asked, or an entry of it that cannot be pinned
    /// (`add`); the message names the URL or the entry.
    #[error("{0}")]
    Registry(String),
    /// The manifest `init` would update is not TOML, or not of a manifest's shape.
    #[error("cannot update {path}: {problem}")]
    ManifestEdit {
        /// The manifest.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// A malformed `--env` or `--pass-env` (the message names the flag and the variable,
    /// never a value).
    #[error("{problem}")]
    BadEnv {
        /// What is wrong and how to write it.
        problem: String,
    },
    /// A malformed `--url`, `--header`, `--bearer-env` or `--header-env`, or a variable they
    /// name that is not set (the message names the flag and the header or the variable, never
    /// a value; a URL is shown redacted).
    #[error("{problem}")]
    BadHttpFlag {
        /// What is wrong and how to write it.
        problem: String,
    },
    /// Flags for one kind of server (`--env`/`--pass-env` for a started server,
    /// `--header`/`--bearer-env`/`--header-env` for one reached by URL) when the command
    /// reaches none of that kind.
    #[error("{problem}")]
    FlagsForOtherKind {
        /// Which flags, which servers, and what to use instead.
        problem: String,
    },
    /// `call`'s tool name carries the prefix of several servers of the manifest.
    #[error(
        "tool \"{tool}\" carries the prefix of several servers of {}: {}; add --server NAME",
        manifest.display(),
        servers.join(", ")
    )]
    AmbiguousTool {
        /// The framework name asked for.
        tool: String,
        /// The manifest.
        manifest: PathBuf,
        /// `<server> (prefix <prefix>)` of each server whose prefix matches.
        servers: Vec<String>,
    },
    /// `call` refused for several reasons at once (each on a line of its own), so the user
    /// fixes them all in one go: no `--yes` for a consequential tool, and `--args` that do
    /// not fit the input schema.
    #[error("{}", problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("\noma-mcp: "))]
    Refused {
        /// The refusals, in the executor's order (confirmation first).
        problems: Vec<CliError>,
    },
    /// `--out` with several servers.
    #[error("--out needs a single server, but {manifest} pins {count}; add --server NAME")]
    OutNeedsOneServer {
        /// The manifest.
        manifest: PathBuf,
        /// How many servers it pins.
        count: usize,
    },
    /// An `--input NAME=JSON` answer is malformed.
    #[error("{reason}")]
    BadInput {
        /// What is wrong, naming the flag.
        reason: String,
    },
    /// `--args` is not a JSON object.
    #[error("--args must be a JSON object like '{{\"message\": \"hi\"}}': {reason}")]
    BadArgs {
        /// What is wrong.
        reason: String,
    },
    /// The tool is consequential and `--yes` was not given.
    #[error(
        "tool \"{tool}\" is consequential ({reason}), so it was not called; pass --yes to \
         call it anyway"
    )]
    NeedsConfirmation {
        /// The framework name.
        tool: String,
        /// Why it is consequential.
        reason: &'static str,
    },
    /// `--args` does not fit the tool's input schema.
    #[error(
        "{message}\nnothing was sent; fix --args, or pass --no-validate to let the server \
         judge them"
    )]
    InvalidArgs {
        /// `Invalid input for tool "<name>":` and one `- <pointer>: <problem>` line each.
        message: String,
    },
    /// The tool's input schema does not compile, so `--args` cannot be checked.
    #[error(
        "cannot check --args: {reason}; nothing was sent; pass --no-validate to send them \
         unchecked"
    )]
    UncheckableArgs {
        /// The schema error.
        reason: String,
    },
    /// The manifest pins several servers and the command names none: the library's error,
    /// with the flag that chooses one.
    #[error(
        "manifest {} pins several servers ({}); choose one with --server NAME",
        manifest.display(),
        available.join(", ")
    )]
    ServerNotChosen {
        /// The manifest.
        manifest: PathBuf,
        /// The servers it pins.
        available: Vec<String>,
    },
    /// The tool is not listed by the server.
    #[error("the server has no tool named \"{tool}\"; it lists: {available}")]
    UnknownTool {
        /// The requested name.
        tool: String,
        /// The framework names it does list, comma-separated.
        available: String,
    },
}
