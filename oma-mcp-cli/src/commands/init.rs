//! `oma-mcp init`: pins from the MCP configuration other clients already have (Claude Code,
//! Claude Desktop, Cursor, VS Code, Windsurf, Zed, Cline), written into `oma-mcp.toml`, and
//! their snapshots taken. The files are read and written here; the mapping is
//! `crate::init`'s.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use oma_mcp_build::manifest::{DEFAULT_MANIFEST, Manifest};

use crate::commands::snapshot;
use crate::error::CliError;
use crate::exit::Outcome;
use crate::init::diff::unified;
use crate::init::edit::{Change, merge};
use crate::init::source::{Found, SourceFile, read};
use crate::output::print;
use crate::terminal;

/// The files read without `--from`, relative to the current directory, in this order.
const DEFAULT_SOURCES: [&str; 3] = [".mcp.json", ".cursor/mcp.json", ".vscode/mcp.json"];

/// Flags of `init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// A client's MCP configuration file to read; repeat for several: Claude Code's
    /// `.mcp.json`, Claude Desktop's `claude_desktop_config.json`, Cursor's
    /// `.cursor/mcp.json`, VS Code's `.vscode/mcp.json`, Windsurf's `mcp_config.json`, Zed's
    /// `settings.json`, Cline's `cline_mcp_settings.json` (default: those of
    /// ./.mcp.json, ./.cursor/mcp.json and ./.vscode/mcp.json that exist).
    #[arg(long = "from", value_name = "PATH")]
    pub from: Vec<PathBuf>,
    /// The manifest to create or update (default: ./oma-mcp.toml).
    #[arg(long, value_name = "PATH")]
    pub manifest: Option<PathBuf>,
    /// Print the change to the manifest as a unified diff and write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Write the manifest but take no snapshots.
    #[arg(long, conflicts_with = "dry_run")]
    pub no_snapshot: bool,
}

/// Runs `init`.
pub async fn run(args: InitArgs) -> Result<Outcome, CliError> {
    let manifest_path = args
        .manifest
        .unwrap_or_else(|| PathBuf::from(DEFAULT_MANIFEST));
    let sources: Vec<PathBuf> = if args.from.is_empty() {
        let found: Vec<PathBuf> = DEFAULT_SOURCES
            .iter()
            .map(PathBuf::from)
            .filter(|p| p.is_file())
            .collect();
        if found.is_empty() {
            return Err(CliError::NoClientConfig);
        }
        found
    } else {
        args.from
    };
    let manifest_dir = directory(&manifest_path);
    let mut found: Vec<Found> = Vec::new();
    let mut warnings = Vec::new();
    for path in &sources {
        let text = std::fs::read_to_string(path).map_err(|source| CliError::ReadClientConfig {
            path: path.clone(),
            source,
        })?;
        let workspace = workspace_text(path, &manifest_dir);
        let shown = path.display().to_string();
        let reading = read(SourceFile {
            path: &shown,
            text: &text,
            workspace: &workspace,
        })
        .map_err(|e| CliError::ClientConfig {
            path: path.clone(),
            problem: e.to_string(),
        })?;
        found.extend(reading.servers);
        warnings.extend(reading.warnings);
    }
    let existing = crate::init::edit::manifest_text(&manifest_path)?;
    let merged = merge(&existing, &found).map_err(|problem| CliError::ManifestEdit {
        path: manifest_path.clone(),
        problem,
    })?;
    warnings.extend(merged.warnings);
    // Many warnings may meet a closed stderr (`| head`): a lost line must not stop the run.
    let mut stderr = std::io::stderr().lock();
    for warning in &warnings {
        let _ = writeln!(stderr, "oma-mcp: warning: {}", terminal::safe(warning));
    }
    drop(stderr);
    if merged.changes.is_empty() {
        let names: Vec<String> = sources.iter().map(|p| p.display().to_string()).collect();
        eprintln!(
            "oma-mcp: no server to pin in {}; {} left as it was",
            names.join(", "),
            manifest_path.display()
        );
        return Ok(Outcome::Success);
    }
    // The result must read back as a manifest, or nothing is written.
    Manifest::parse(&merged.text, &manifest_path)?;
    if args.dry_run {
        let name = manifest_path.display().to_string();
        let diff = unified(&existing, &merged.text, &name, &name);
        if diff.is_empty() {
            eprintln!("oma-mcp: {name} is up to date");
        } else {
            print(&diff)?;
        }
        return Ok(Outcome::Success);
    }
    if merged.text != existing {
        if let Some(parent) = manifest_path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|source| CliError::Write {
                path: manifest_path.clone(),
                source,
            })?;
        }
        std::fs::write(&manifest_path, &merged.text).map_err(|source| CliError::Write {
            path: manifest_path.clone(),
            source,
        })?;
    }
    for change in &merged.changes {
        let (verb, name) = match change {
            Change::Added(n) => ("added", n),
            Change::Updated(n) => ("updated", n),
            Change::Unchanged(n) => ("unchanged:", n),
        };
        eprintln!(
            "oma-mcp: {verb} server `{name}` in {}",
            manifest_path.display()
        );
    }
    if args.no_snapshot {
        return Ok(Outcome::Success);
    }
    let mut failed = Vec::new();
    for change in &merged.changes {
        let name = change.name().to_owned();
        if !snapshot::take_for_pin(&manifest_path, &name).await {
            failed.push(name);
        }
    }
    if failed.is_empty() {
        return Ok(Outcome::Success);
    }
    eprintln!(
        "oma-mcp: {} is written; take the missing snapshots with `oma-mcp snapshot --manifest \
         {} --server NAME` ({})",
        manifest_path.display(),
        manifest_path.display(),
        failed.join(", ")
    );
    Ok(Outcome::Failed)
}

/// The directory of a file path (`.` for a bare file name).
fn directory(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// What `${workspaceFolder}` of the file at `source` stands for in the manifest: the
/// client's workspace is the folder that holds `.vscode/` or `.cursor/`, else the file's own
/// folder; `.` when that is the manifest's directory, else its absolute path.
fn workspace_text(source: &Path, manifest_dir: &Path) -> String {
    let folder = directory(source);
    let workspace = match folder.file_name().and_then(|n| n.to_str()) {
        Some(".vscode" | ".cursor") => directory(&folder),
        _ => folder,
    };
    let same = match (workspace.canonicalize(), manifest_dir.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same {
        ".".to_owned()
    } else {
        std::path::absolute(&workspace)
            .unwrap_or(workspace)
            .display()
            .to_string()
    }
}
