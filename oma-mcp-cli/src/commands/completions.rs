//! `oma-mcp completions SHELL`: shell completions (`clap_complete`).

use clap::Args;

use crate::error::CliError;
use crate::exit::Outcome;
use crate::output::print;

/// Flags of `completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

/// Prints the completion script for `args.shell` of `cli`, the whole command line.
pub fn run(args: &CompletionsArgs, mut cli: clap::Command) -> Result<Outcome, CliError> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cli, "oma-mcp", &mut script);
    print(&String::from_utf8_lossy(&script))?;
    Ok(Outcome::Success)
}
