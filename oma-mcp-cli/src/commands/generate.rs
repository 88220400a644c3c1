//! `oma-mcp generate`: Rust code from a snapshot or a bare `{"tools": [...]}` file, or the
//! module a build script generates for a server of a manifest.

use std::path::PathBuf;

use clap::Args;
use oma_mcp_build::codegen::{self, GenerateOptions};
use oma_mcp_build::manifest::Manifest;

use crate::error::CliError;
use crate::exit::Outcome;
use crate::flags::rename_entry;
use crate::output::print;
use crate::server::resolve::server_hint;
use crate::terminal;

/// Flags of `generate`.
#[derive(Debug, Args)]
#[command(
    after_help = "With --manifest, the output is byte for byte the file a build script \
(`oma_mcp_build::compile_manifest`) writes to OUT_DIR for the server, from its committed \
snapshot: the manifest's prefix, consequential entries, tool selection, rename table and \
schemars setting, and \
`connect_config()`/`connect()`. Their paths (the program when the command holds a `/`, `cwd`) \
are resolved against the manifest's absolute path, as the build script resolves them against \
its crate directory: run from that directory with the same manifest, the two are equal."
)]
pub struct GenerateArgs {
    /// The snapshot, or a tools/list result.
    #[arg(value_name = "SNAPSHOT", required_unless_present = "manifest")]
    pub snapshot: Option<PathBuf>,
    /// Generate what the build script generates for a server of this manifest, instead of
    /// from SNAPSHOT with flags.
    #[arg(long, value_name = "PATH", conflicts_with_all = ["snapshot", "prefix", "consequential", "rename", "tool", "exclude_tool"])]
    pub manifest: Option<PathBuf>,
    /// The server of --manifest (needed when it pins several).
    #[arg(long, value_name = "NAME", requires = "manifest")]
    pub server: Option<String>,
    /// The tool name prefix, open-multi-agent's namePrefix: tools are named `<prefix>_<name>`.
    #[arg(long, value_name = "P")]
    pub prefix: Option<String>,
    /// Mark tools consequential by raw MCP name or glob (repeatable).
    #[arg(long, value_name = "NAME_OR_GLOB")]
    pub consequential: Vec<String>,
    /// Generate code only for these tools, by raw MCP name or glob (repeatable; default:
    /// every tool), as the manifest's `tools` does.
    #[arg(long, value_name = "NAME_OR_GLOB")]
    pub tool: Vec<String>,
    /// Leave these tools out even when --tool selects them (repeatable), as the manifest's
    /// `exclude-tools` does.
    #[arg(long, value_name = "NAME_OR_GLOB")]
    pub exclude_tool: Vec<String>,
    /// Name a tool's types yourself: raw MCP name = stem of its Rust names (repeatable),
    /// as the manifest's `[servers.<name>.rename]` table does.
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
        manifest,
        server,
        prefix,
        consequential,
        tool,
        exclude_tool,
        rename,
        out,
    } = args;
    let (snapshot, options) = match (manifest, snapshot) {
        (Some(manifest), _) => {
            // As `compile_manifest` reads `<crate dir>/oma-mcp.toml`: an absolute path, so the
            // paths in `connect_config()` resolve alike.
            let manifest = std::path::absolute(&manifest).map_err(CliError::CurrentDir)?;
            let manifest = Manifest::read(&manifest)?;
            let pin = manifest.single(server.as_deref()).map_err(server_hint)?;
            (
                crate::snapshot_file::read(&pin.snapshot)?,
                pin.generate_options(),
            )
        }
        (None, Some(snapshot)) => {
            let selection = codegen::ToolSelection::new(&tool, &exclude_tool)
                .map_err(oma_mcp_build::Error::from)?;
            let mut options = GenerateOptions::default()
                .with_consequential(consequential)
                .with_tools(selection)
                .with_rename(rename)
                .with_rename_table("--rename");
            if let Some(prefix) = prefix {
                options = options.with_name_prefix(prefix);
            }
            (crate::snapshot_file::read(&snapshot)?, options)
        }
        // clap requires SNAPSHOT unless --manifest is given.
        (None, None) => return Err(CliError::NoServer),
    };
    let generated = codegen::generate(&snapshot, &options)?;
    for warning in &generated.warnings {
        eprintln!("oma-mcp: warning: {}", terminal::safe(&warning.to_string()));
    }
    match out.as_deref() {
        Some(path) => {
            oma_mcp_build::write_if_changed(path, generated.code.as_bytes()).map_err(|source| {
                CliError::Write {
                    path: path.to_path_buf(),
                    source,
                }
            })?;
        }
        None => print(&generated.code)?,
    }
    Ok(Outcome::Success)
}
