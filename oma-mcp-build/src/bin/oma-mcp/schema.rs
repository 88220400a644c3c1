//! `oma-mcp schema manifest|snapshot` (JSON Schemas derived with `schemars` from the Rust
//! types) and `oma-mcp completions SHELL` (`clap_complete`).

use clap::{Args, CommandFactory, ValueEnum};

use crate::commands::{CliError, Outcome};

/// Which format's JSON Schema to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SchemaOf {
    /// `oma-mcp.toml`.
    Manifest,
    /// The snapshot file (`oma-mcp-snapshot/1`).
    Snapshot,
}

/// Flags of `schema`.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// The format.
    #[arg(value_enum, value_name = "FORMAT")]
    pub of: SchemaOf,
}

/// Flags of `completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

/// Prints the JSON Schema.
pub fn schema(args: &SchemaArgs) -> Result<Outcome, CliError> {
    let value = match args.of {
        SchemaOf::Manifest => oma_mcp_build::manifest::json_schema(),
        SchemaOf::Snapshot => oma_mcp_build::snapshot_format::json_schema(),
    };
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    crate::commands::print(&text)?;
    Ok(Outcome::Success)
}

/// Prints the completion script for `args.shell`.
pub fn completions(args: &CompletionsArgs) -> Result<Outcome, CliError> {
    let mut script = Vec::new();
    clap_complete::generate(
        args.shell,
        &mut crate::args::Cli::command(),
        "oma-mcp",
        &mut script,
    );
    crate::commands::print(&String::from_utf8_lossy(&script))?;
    Ok(Outcome::Success)
}
