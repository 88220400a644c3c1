//! `oma-mcp check`: connect to the pinned servers of a manifest and diff their live
//! `tools/list` against the committed snapshots (with the text scanner's findings in tools
//! that changed), and check each pin's cassettes against its snapshot.

use std::path::PathBuf;

use clap::Args;
use oma_mcp_build::manifest::{DEFAULT_MANIFEST, Manifest, ServerPin};
use oma_mcp_runtime::Snapshot;
use oma_mcp_runtime::snapshot::SnapshotTool;

use crate::error::CliError;
use crate::exit::Outcome;
use crate::output::{error_chain, print, print_error};
use crate::progress::Progress;
use crate::report::{self, Compared, FailOn, Failed, Outputs, ReportFormat};
use crate::server::connect::{cli_client, connect, stop_listed};
use crate::server::env::ServerEnv;
use crate::server::http::HttpFlags;
use crate::server::kind::{Flags, Reached};
use crate::server::target::LifecycleArg;
use crate::{cassette_drift, rust_name_drift};

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
    /// Environment for the servers (added to each pin's `env` and `pass-env`).
    #[command(flatten)]
    pub server_env: ServerEnv,
    /// HTTP headers for the servers reached by URL (added to each URL pin's `headers` and
    /// `header-env`).
    #[command(flatten)]
    pub http: HttpFlags,
    /// How the MCP session starts (default: each server's `lifecycle`, else auto).
    #[arg(long, value_enum)]
    pub lifecycle: Option<LifecycleArg>,
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
/// others: their drift is still reported, every format but text reports the failure too
/// (JSON `errors`, a GitHub `::error` on the manifest, a Markdown section, a SARIF result, a
/// JUnit `<error>`), each failure is printed to stderr naming its server, and the exit code
/// is 2.
pub async fn run(args: CheckArgs) -> Result<Outcome, CliError> {
    let path = args
        .manifest
        .unwrap_or_else(|| PathBuf::from(DEFAULT_MANIFEST));
    let flags = Flags::validate(&args.server_env, &args.http)?;
    let manifest = Manifest::read(&path)?;
    let pins: Vec<&ServerPin> = match &args.server {
        Some(name) => vec![manifest.server(name)?],
        None => manifest.servers.values().collect(),
    };
    flags.fit(&Reached::Pins(&path, &pins))?;
    let several = pins.len() > 1;
    // Every pin's tools, for shadowing in the findings of changed tools.
    let others = crate::scan_findings::pinned_tools(&manifest);
    let mut compared = Vec::with_capacity(pins.len());
    let mut failed = Vec::new();
    for pin in pins {
        match check_one(pin, &path, &flags, args.lifecycle, &others).await {
            Ok((report, tools)) => compared.push(Compared {
                name: pin.name.clone(),
                label: label(pin),
                server: several.then(|| pin.name.clone()),
                file: pin.snapshot.clone(),
                new_file: None,
                tools,
                report,
            }),
            // One server in text: the error alone, as every other command reports it.
            Err(e) if !several && args.format == ReportFormat::Text => return Err(e),
            Err(source) => failed.push(ServerFailed {
                server: pin.name.clone(),
                manifest: path.display().to_string(),
                source,
            }),
        }
    }
    let failures: Vec<Failed> = failed
        .iter()
        .map(|f| Failed {
            server: f.server.clone(),
            manifest: path.clone(),
            message: error_chain(&f.source),
        })
        .collect();
    let outputs = Outputs {
        compared: &compared,
        failed: Some(&failures),
        fail_on: args.fail_on,
    };
    if !compared.is_empty() || args.format != ReportFormat::Text {
        print(&report::render(&outputs, args.format))?;
    }
    if !failed.is_empty() {
        for failure in &failed {
            print_error(failure);
        }
        return Ok(Outcome::Failed);
    }
    Ok(if report::fails(&compared, args.fail_on) {
        Outcome::Drift
    } else {
        Outcome::Success
    })
}

/// The heading of a server's report: its name and snapshot, and the URL (redacted) of a
/// server reached by URL.
fn label(pin: &ServerPin) -> String {
    match pin.url {
        Some(_) => format!(
            "{} at {} ({})",
            pin.name,
            pin.target(),
            report::relative(&pin.snapshot)
        ),
        None => format!("{} ({})", pin.name, report::relative(&pin.snapshot)),
    }
}

/// The drift of one pinned server against its snapshot, and the raw names of the tools on
/// either side (sorted, without repeats).
async fn check_one(
    pin: &ServerPin,
    manifest: &std::path::Path,
    flags: &Flags<'_>,
    lifecycle: Option<LifecycleArg>,
    others: &[(String, Vec<String>)],
) -> Result<(oma_mcp_runtime::DriftReport, Vec<String>), CliError> {
    // Read the pin first: a broken snapshot fails before a server is started.
    let snapshot = crate::snapshot_file::read(&pin.snapshot)?;
    let mut config = flags.apply(
        cli_client(pin.connect_config(), Some(pin)),
        Some((manifest, pin)),
    )?;
    let progress = Progress::start(match pin.url {
        Some(_) => format!("connecting to `{}` at {}", pin.name, pin.target()),
        None => format!("connecting to `{}`", pin.name),
    });
    if let Some(lifecycle) = lifecycle {
        config = config.with_lifecycle(lifecycle.into());
    }
    let client = connect(config).await;
    progress.finish().await;
    let client = client?;
    let mut drift = client.drift_against(&snapshot);
    let tools: std::collections::BTreeSet<String> = snapshot
        .tools
        .iter()
        .map(|t| t.name().to_owned())
        .chain(client.tools().iter().map(|t| t.mcp_name.clone()))
        .collect();
    // The live tools as `drift_against` reads them, for the generated names.
    let mut live = Snapshot::default();
    live.tools = client
        .tools()
        .iter()
        .filter_map(|t| SnapshotTool::from_descriptor(t.descriptor.clone()).ok())
        .collect();
    stop_listed(&client).await;
    drift.extend(rust_name_drift::changes(
        &snapshot,
        &live,
        &pin.generate_options(),
    )?);
    // The text scanner on what changed: a finding the pinned text did not have.
    drift.extend(crate::scan_findings::new_finding_changes(
        &snapshot, &live, pin, others,
    ));
    let cassettes = cassette_drift::changes(&pin.cassettes, &snapshot);
    // A stale call may name a tool neither side has; the JUnit report lists it too.
    let tools = tools
        .into_iter()
        .chain(cassettes.iter().map(|c| c.tool.clone()))
        .filter(|t| !t.is_empty())
        .collect::<std::collections::BTreeSet<String>>();
    drift.extend(cassettes);
    Ok((drift, tools.into_iter().collect()))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    /// A server's heading names it by its manifest name and snapshot, and a server reached
    /// by URL by its redacted URL too.
    #[test]
    fn a_url_pin_is_labelled_with_its_redacted_url() {
        let text = "[servers.github]\nurl = \"https://api.githubcopilot.com/mcp/?key=s3cret\"\n\
                    [servers.own]\ncommand = \"srv\"\nsnapshot = \"snap/own.json\"\n";
        let manifest = Manifest::parse(text, Path::new("/nonexistent/p/oma-mcp.toml"))
            .expect("the manifest parses");
        assert_eq!(
            label(&manifest.servers["github"]),
            "github at https://api.githubcopilot.com/mcp/?key=*** \
             (/nonexistent/p/mcp/github.snapshot.json)"
        );
        assert_eq!(
            label(&manifest.servers["own"]),
            "own (/nonexistent/p/snap/own.json)"
        );
    }
}
