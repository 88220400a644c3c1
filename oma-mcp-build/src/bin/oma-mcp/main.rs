//! `oma-mcp`: snapshot, generate, list and call the tools of pinned MCP servers.
//!
//! Exit codes: 0 success, 1 drift at or above `--fail-on` (`check`, `diff`), 2 any error (the
//! error on stderr, with its causes). `call` also exits 2 when the mapped result is an error,
//! after printing it.

mod args;
mod check;
mod commands;
mod diff;
mod progress;
mod report;
mod schema;
mod terminal;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = args::Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return report(&commands::CliError::AsyncRuntime(e)),
    };
    match runtime.block_on(commands::run(cli.command)) {
        Ok(commands::Outcome::Success) => ExitCode::SUCCESS,
        Ok(commands::Outcome::ToolError) => ExitCode::from(2),
        Ok(commands::Outcome::Drift) => ExitCode::from(1),
        Ok(commands::Outcome::Failed) => ExitCode::from(2),
        Err(e) => report(&e),
    }
}

/// Prints `oma-mcp: <error>: <cause>: …` to stderr (control characters escaped: the message
/// carries what the server sent) and returns exit code 2.
fn report(error: &dyn std::error::Error) -> ExitCode {
    let mut message = format!("oma-mcp: {error}");
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = cause.source();
    }
    let _ = writeln!(std::io::stderr(), "{}", terminal::safe(&message));
    ExitCode::from(2)
}
