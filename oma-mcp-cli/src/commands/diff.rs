//! `oma-mcp diff OLD NEW`: compare two snapshot or bare `{"tools": [...]}` files.

use std::path::PathBuf;

use clap::Args;
use oma_mcp_build::GenerateOptions;
use oma_mcp_runtime::drift;

use crate::error::CliError;
use crate::exit::Outcome;
use crate::flags::rename_entry;
use crate::output::print;
use crate::report::{self, Compared, FailOn, Outputs, ReportFormat};
use crate::rust_name_drift;

/// Flags of `diff`.
#[derive(Debug, Args)]
#[command(
    after_help = "With --format github, each annotation points at the file that holds \
the change's tool (or prompt, resource, template), at its line: OLD (the reference, as `check` \
points at the committed snapshot) for removed and changed ones, NEW only for added ones (OLD \
does not hold them); a server line at its member's line (OLD first), else OLD without a line."
)]
pub struct DiffArgs {
    /// The old file, the reference (e.g. the committed snapshot); GitHub annotations point
    /// at it.
    #[arg(value_name = "OLD")]
    pub old: PathBuf,
    /// The new file; GitHub annotations of added tools point at it.
    #[arg(value_name = "NEW")]
    pub new: PathBuf,
    /// Exit 1 when a change at or above this level is found.
    #[arg(long, value_enum, value_name = "LEVEL", default_value_t = FailOn::Breaking)]
    pub fail_on: FailOn,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    pub format: ReportFormat,
    /// A rename entry of the generated code, TOOL=NAME (repeatable), as in the manifest's
    /// `[servers.<name>.rename]`: the Rust names of both sides are compared with it.
    #[arg(long, value_name = "TOOL=NAME", value_parser = rename_entry)]
    pub rename: Vec<(String, String)>,
}

/// Runs `diff`: exit 0 without drift at the level, 1 with, 2 when a file cannot be read.
pub fn run(args: DiffArgs) -> Result<Outcome, CliError> {
    let old = crate::snapshot_file::read(&args.old)?;
    let new = crate::snapshot_file::read(&args.new)?;
    let label = format!("{} → {}", args.old.display(), args.new.display());
    let tools: std::collections::BTreeSet<String> = old
        .tools
        .iter()
        .chain(&new.tools)
        .map(|t| t.name().to_owned())
        .collect();
    let options = GenerateOptions::default()
        .with_rename(args.rename)
        .with_rename_table("--rename");
    let mut report = drift::diff(&old, &new);
    report.extend(rust_name_drift::changes(&old, &new, &options)?);
    let compared = [Compared {
        name: label.clone(),
        label,
        server: None,
        file: args.old.clone(),
        new_file: Some(args.new.clone()),
        tools: tools.into_iter().collect(),
        report,
    }];
    let outputs = Outputs {
        compared: &compared,
        failed: None,
        fail_on: args.fail_on,
    };
    print(&report::render(&outputs, args.format))?;
    Ok(if report::fails(&compared, args.fail_on) {
        Outcome::Drift
    } else {
        Outcome::Success
    })
}
