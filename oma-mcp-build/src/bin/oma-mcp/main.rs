//! `oma-mcp`: snapshot, generate, list and call the tools of pinned MCP servers.
//!
//! Exit codes: 0 success, 1 drift at or above `--fail-on` (`check`, `diff`), 2 any error (the
//! error on stderr, with its causes). `call` also exits 2 when the mapped result is an error,
//! after printing it. Interrupted by SIGINT, SIGTERM or SIGHUP, a command that starts servers
//! (`snapshot`, `list`, `call`, `check`) stops the servers it started
//! (their whole process groups: a Ctrl-C on the terminal reaches only `oma-mcp`, since each
//! server runs in a group of its own) and exits 128 + the signal number (130, 143, 129), as a
//! shell expects of a program a signal ended.
//!
//! What the runtime logs at `warn` (a line on the server's stdout that is not JSON-RPC, an
//! over-size message, a failed signal) goes to stderr; `OMA_MCP_LOG` takes a `tracing`
//! filter for more (`OMA_MCP_LOG=debug`, or `oma_mcp::server_stderr=info` for the server's
//! own stderr lines).

mod commands;
mod shared;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = commands::Cli::parse();
    init_logging();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return shared::print_error(&shared::CliError::AsyncRuntime(e)),
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
        let mut signals = match shared::interrupt::Signals::install() {
            Ok(signals) => signals,
            Err(e) => return Err(shared::CliError::Signals(e)),
        };
        tokio::select! {
            ended = commands::run(cli.command) => ended,
            // Dropping the command's future drops its clients, and each client's drop kills
            // its server's process group.
            signal = signals.recv() => Ok(shared::Outcome::Interrupted(signal)),
        }
    });
    match ended {
        Ok(shared::Outcome::Interrupted(signal)) => {
            let _ = writeln!(
                std::io::stderr(),
                "oma-mcp: interrupted by {}; stopped the server",
                signal.name()
            );
            ExitCode::from(signal.exit_code())
        }
        Ok(shared::Outcome::Success) => ExitCode::SUCCESS,
        Ok(shared::Outcome::ToolError) => ExitCode::from(2),
        Ok(shared::Outcome::Drift) => ExitCode::from(1),
        Ok(shared::Outcome::Failed) => ExitCode::from(2),
        Err(e) => shared::print_error(&e),
    }
}

/// Runtime warnings to stderr (filter: `OMA_MCP_LOG`, default `warn`), coloured only on a
/// terminal; the subscriber escapes control characters in what a server sent.
fn init_logging() {
    use std::io::IsTerminal;
    let filter = match std::env::var("OMA_MCP_LOG") {
        Err(_) => tracing_subscriber::EnvFilter::new("warn"),
        Ok(text) => tracing_subscriber::EnvFilter::try_new(&text).unwrap_or_else(|e| {
            let _ = writeln!(
                std::io::stderr(),
                "oma-mcp: OMA_MCP_LOG={} is not a tracing filter ({e}); logging warnings only",
                shared::terminal::safe(&format!("{text:?}"))
            );
            tracing_subscriber::EnvFilter::new("warn")
        }),
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .without_time()
        .with_target(false)
        .try_init();
}
