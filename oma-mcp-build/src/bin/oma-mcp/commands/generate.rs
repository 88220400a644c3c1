//! `oma-mcp generate`: Rust code from a snapshot or a bare `{"tools": [...]}` file.

use std::path::PathBuf;

use clap::Args;
use oma_mcp_build::codegen::{self, GenerateOptions};
use oma_mcp_runtime::Snapshot;

use crate::shared::flags::rename_entry;
use crate::shared::{CliError, Outcome, print, terminal};

/// Flags of `generate`.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// The snapshot, or a tools/list result.
    #[arg(value_name = "SNAPSHOT")]
    pub snapshot: PathBuf,
    /// The seed's namePrefix for the tools' framework names.
    #[arg(long, value_name = "P")]
    pub prefix: Option<String>,
    /// Mark tools consequential by raw MCP name or glob (repeatable).
    #[arg(long, value_name = "NAME_OR_GLOB")]
    pub consequential: Vec<String>,
    /// Name a tool's types yourself: raw MCP name = stem of its Rust names (repeatable),
    /// as the manifest's [servers.<name>.rename] table does.
    #[arg(long, value_name = "TOOL=NAME", value_parser = rename_entry)]
    pub rename: Vec<(String, String)>,
    /// Write the code here (default: stdout).
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
}

/// Runs `generate`: the code to `--out` (rewritten only when it changed) or stdout, the
/// generator's warnings to stderr.
pub fn run(args: GenerateArgs) -> Result<Outcome, CliError> {
    let GenerateArgs {
        snapshot,
        prefix,
        consequential,
        rename,
        out,
    } = args;
    let snapshot = Snapshot::read(&snapshot)?;
    let mut options = GenerateOptions::default()
        .with_consequential(consequential)
        .with_rename(rename)
        .with_rename_table("--rename");
    if let Some(prefix) = prefix {
        options = options.with_name_prefix(prefix);
    }
    let generated = codegen::generate(&snapshot, &options)?;
    for warning in &generated.warnings {
        eprintln!("oma-mcp: warning: {}", terminal::safe(&warning.to_string()));
    }
    match out.as_deref() {
        Some(path) => {
            oma_mcp_runtime::snapshot::write_if_changed(path, generated.code.as_bytes()).map_err(
                |source| CliError::Write {
                    path: path.to_path_buf(),
                    source,
                },
            )?;
        }
        None => print(&generated.code)?,
    }
    Ok(Outcome::Success)
}
