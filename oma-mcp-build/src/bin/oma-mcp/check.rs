//! `oma-mcp check`: connect to the pinned servers of a manifest and diff their live
//! `tools/list` against the committed snapshots.

use std::path::PathBuf;

use clap::Args;
use oma_mcp_build::manifest::{DEFAULT_MANIFEST, Manifest, ServerPin};
use oma_mcp_runtime::Snapshot;
use oma_mcp_runtime::snapshot::SnapshotTool;

use crate::commands::{CliError, Outcome};
use crate::progress::Progress;
use crate::report::{self, Compared, FailOn, ReportFormat};

/// Flags of `check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The manifest (default: ./oma-mcp.toml).
    #[arg(long, value_name = "PATH")]
    pub manifest: Option<PathBuf>,
    /// Only this server of the manifest (default: all).
    #[arg(long, value_name = "NAME")]
    pub server: Option<String>,
    /// Exit 1 when a change at or above this level is found.
    #[arg(long, value_enum, value_name = "LEVEL", default_value_t = FailOn::Breaking)]
    pub fail_on: FailOn,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    pub format: ReportFormat,
}

/// A server of the manifest that could not be checked.
#[derive(Debug, thiserror::Error)]
#[error("server \"{server}\" of {manifest}")]
struct ServerFailed {
    server: String,
    manifest: String,
    #[source]
    source: CliError,
}

/// Runs `check`: exit 0 without drift at the level, 1 with, 2 on an error (the snapshot
/// cannot be read, the server cannot be started). A server that fails does not stop the
/// others: their drift is still reported, then each failure is printed to stderr, naming
/// its server, and the exit code is 2.
pub async fn run(args: CheckArgs) -> Result<Outcome, CliError> {
    let path = args
        .manifest
        .unwrap_or_else(|| PathBuf::from(DEFAULT_MANIFEST));
    let manifest = Manifest::read(&path)?;
    let pins: Vec<&ServerPin> = match &args.server {
        Some(name) => vec![manifest.server(name)?],
        None => manifest.servers.values().collect(),
    };
    let several = pins.len() > 1;
    let mut compared = Vec::with_capacity(pins.len());
    let mut failed = Vec::new();
    for pin in pins {
        match check_one(pin).await {
            Ok(report) => compared.push(Compared {
                label: format!("{} ({})", pin.name, report::relative(&pin.snapshot)),
                server: several.then(|| pin.name.clone()),
                file: pin.snapshot.clone(),
                new_file: None,
                report,
            }),
            Err(source) if several => failed.push(ServerFailed {
                server: pin.name.clone(),
                manifest: path.display().to_string(),
                source,
            }),
            Err(e) => return Err(e),
        }
    }
    if !compared.is_empty() {
        crate::commands::print(&report::render(&compared, args.format))?;
    }
    if !failed.is_empty() {
        for failure in &failed {
            crate::report(failure);
        }
        return Ok(Outcome::Failed);
    }
    Ok(if report::fails(&compared, args.fail_on) {
        Outcome::Drift
    } else {
        Outcome::Success
    })
}

/// The drift of one pinned server against its snapshot.
async fn check_one(pin: &ServerPin) -> Result<oma_mcp_runtime::DriftReport, CliError> {
    // Read the pin first: a broken snapshot fails before a server is started.
    let snapshot = Snapshot::read(&pin.snapshot)?;
    let progress = Progress::start(format!("connecting to `{}`", pin.name));
    let client = crate::commands::connect(pin.connect_config()).await;
    progress.finish().await;
    let client = client?;
    let mut drift = client.drift_against(&snapshot);
    // The live tools as `drift_against` reads them, for the generated names.
    let mut live = Snapshot::default();
    live.tools = client
        .tools()
        .iter()
        .filter_map(|t| SnapshotTool::from_descriptor(t.descriptor.clone()).ok())
        .collect();
    crate::commands::stop_listed(&client).await;
    drift.extend(crate::names::changes(
        &snapshot,
        &live,
        &pin.generate_options(),
    )?);
    Ok(drift)
}
