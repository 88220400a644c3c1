//! `oma-mcp schema manifest|snapshot`: JSON Schemas derived with `schemars` from the Rust
//! types.

use clap::{Args, ValueEnum};

use crate::error::CliError;
use crate::exit::Outcome;
use crate::output::{pretty, print};
use crate::snapshot_format;

/// Which format's JSON Schema to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SchemaOf {
    /// `oma-mcp.toml`.
    Manifest,
    /// The snapshot file (`oma-mcp-snapshot/2`; `oma-mcp-snapshot/1` for the tools alone).
    Snapshot,
}

/// Flags of `schema`.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// The format.
    #[arg(value_enum, value_name = "FORMAT")]
    pub of: SchemaOf,
}

/// Prints the JSON Schema.
pub fn run(args: &SchemaArgs) -> Result<Outcome, CliError> {
    let value = match args.of {
        SchemaOf::Manifest => oma_mcp_build::manifest::json_schema(),
        SchemaOf::Snapshot => snapshot_format::json_schema(),
    };
    print(&pretty(&value))?;
    Ok(Outcome::Success)
}
