//! `oma-mcp`, the command-line tool of oma-mcp: snapshot, generate, list and call the tools of
//! pinned MCP servers, and check them for drift in CI. A thin layer over the libraries:
//! `oma-mcp-build` (the manifest, the code generator) and `oma-mcp-runtime` (the client over
//! stdio and streamable HTTP, snapshots, the drift engine).
//!
//! # Install
//!
//! ```text
//! cargo install --locked --path oma-mcp-cli   # from a checkout of the repository
//! cargo install oma-mcp-cli                   # once the crates are published
//! cargo run -p oma-mcp-cli -- <command> …     # in the workspace, without installing
//! ```
//!
//! # Commands
//!
//! - `snapshot`: start (or reach) a pinned server, take its `tools/list` and write the
//!   canonical snapshot.
//! - `generate`: Rust code from a snapshot, or with `--manifest` byte for byte the module a
//!   build script (`oma_mcp_build::configure().compile()`) writes for a server.
//! - `list`, `call`: start a server and list its tools, or call one (a consequential tool only
//!   with `--yes`, arguments checked against its input schema first).
//! - `check`: diff the pinned servers' live `tools/list` against the committed snapshots;
//!   `diff`: compare two snapshot files. Both report as text, JSON, GitHub annotations,
//!   Markdown, SARIF 2.1.0 or JUnit XML.
//! - `scan`: the text scanner over every text a model reads from a server (a snapshot or bare
//!   `tools/list` file, a manifest's pins, or a live server), in the same formats.
//! - `export`: a snapshot's tools in a model provider's request format.
//! - `record`, `replay`: MCP servers on stdin/stdout for tests of code that starts its server
//!   as a command: a recording proxy in front of the real server that writes a cassette, and
//!   a replay of one.
//! - `login`, `logout`, `auth status`: logins to servers that ask for OAuth.
//! - `init`: pins from the MCP configuration of other clients (Claude Code, Claude Desktop,
//!   Cursor, VS Code, Windsurf, Zed, Cline) written into `oma-mcp.toml`, then snapshots.
//! - `schema`: the JSON Schema of `oma-mcp.toml` or of the snapshot format.
//! - `completions`: shell completions.
//!
//! `oma-mcp <command> --help` documents every flag.
//!
//! # Exit codes, signals, logging
//!
//! Exit codes: 0 success, 1 drift or a finding at or above `--fail-on` (`check`, `diff`,
//! `scan`), 2 any error (the
//! error on stderr, with its causes). `call` also exits 2 when the mapped result is an error,
//! after printing it. Interrupted by SIGINT, SIGTERM or SIGHUP, a command that starts servers
//! (`snapshot`, `list`, `call`, `check`, `record`, `login`) stops the servers it started
//! (their whole process groups: a Ctrl-C on the terminal reaches only `oma-mcp`, since each
//! server runs in a group of its own) and exits 128 + the signal number (130, 143, 129), as a
//! shell expects of a program a signal ended.
//!
//! What the runtime logs at `warn` (a line on the server's stdout that is not JSON-RPC, an
//! over-size message, a failed signal) goes to stderr; `OMA_MCP_LOG` takes a `tracing`
//! filter for more (`OMA_MCP_LOG=debug`, or `oma_mcp::server_stderr=info` for the server's
//! own stderr lines).
//!
//! # Layout
//!
//! The `oma-mcp` binary calls [`run`]; everything else is private to this crate:
//!
//! - `commands`: one module per subcommand, holding its flags and its `run`;
//! - `server`: which server a command reaches (`--manifest`/`--server`, `--url`,
//!   `-- COMMAND`), its environment or its HTTP headers, and connecting to it;
//! - `report`: the drift output of `check` and `diff`, one module per format, and the
//!   findings of `scan` in the same formats;
//! - `scan_findings`: the text scanner with a manifest's pins (shadowing) and accepts, for
//!   `scan`, `snapshot` and `check`;
//! - `cassette_drift`: a pin's cassettes checked against its snapshot, for `check`;
//! - `stdio_server`: a fake served on stdin and stdout, for `record` and `replay`;
//! - `rust_name_drift`: the generated Rust names of both sides of a drift check, compared;
//! - `snapshot_format`: the serde model of the snapshot file, for its JSON Schema;
//! - `init`: the pure part of `init`: other clients' files read (JSON with comments too),
//!   mapped onto pins, merged into the manifest's text, the change as a unified diff;
//! - `flags`: flag values several subcommands share;
//! - `error`, `exit`, `output`: the error, how a run ended and its exit code, stdout and the
//!   error line;
//! - `terminal`, `progress`, `interrupt`, `logging`: text safe for a terminal, the spinner
//!   and the progress bar, the signals that stop started servers, the runtime's warnings.

mod cassette_drift;
mod commands;
mod error;
mod exit;
mod flags;
mod init;
mod interrupt;
mod logging;
mod loopback;
mod output;
mod progress;
mod registry;
mod report;
mod rust_name_drift;
mod scan_findings;
mod secrets;
mod server;
mod snapshot_file;
mod snapshot_format;
mod stdio_server;
mod terminal;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use crate::error::CliError;
use crate::exit::Outcome;

/// Runs `oma-mcp` with the process's arguments and returns its exit code (see the crate docs):
/// parses the command line (clap prints its own errors and exits 2), starts the async
/// runtime, and for a command that starts servers installs the signal handlers that stop
/// them.
pub fn run() -> ExitCode {
    let cli = commands::Cli::parse();
    if !cli.command.reads_no_environment() {
        logging::init();
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return output::print_error(&CliError::AsyncRuntime(e)),
    };
    // Only commands that start servers handle signals; the others (generate, diff, schema,
    // completions) keep the default, so a signal ends them at once, even mid-computation or
    // blocked opening a FIFO.
    let starts_servers = cli.command.starts_servers();
    let ended = runtime.block_on(async {
        if !starts_servers {
            return commands::run(cli.command).await;
        }
        // Installed before anything starts, so no signal can end us with a server running.
        let mut signals = match interrupt::Signals::install() {
            Ok(signals) => signals,
            Err(e) => return Err(CliError::Signals(e)),
        };
        tokio::select! {
            ended = commands::run(cli.command) => ended,
            // Dropping the command's future drops its clients, and each client's drop kills
            // its server's process group.
            signal = signals.recv() => Ok(Outcome::Interrupted(signal)),
        }
    });
    match ended {
        Ok(outcome) => {
            if let Outcome::Interrupted(signal) = &outcome {
                let _ = writeln!(
                    std::io::stderr(),
                    "oma-mcp: interrupted by {}; stopped the server",
                    signal.name()
                );
            }
            outcome.exit_code()
        }
        Err(e) => output::print_error(&e),
    }
}
