//! `oma-mcp completions SHELL`: shell completions (`clap_complete`).

use clap::{Args, CommandFactory};

use crate::shared::{CliError, Outcome, print};

/// Flags of `completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

/// Prints the completion script for `args.shell`.
pub fn run(args: &CompletionsArgs) -> Result<Outcome, CliError> {
    let mut script = Vec::new();
    clap_complete::generate(
        args.shell,
        &mut super::Cli::command(),
        "oma-mcp",
        &mut script,
    );
    print(&String::from_utf8_lossy(&script))?;
    Ok(Outcome::Success)
}
