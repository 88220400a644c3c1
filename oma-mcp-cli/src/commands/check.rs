//! `oma-mcp check`: connect to the pinned servers of a manifest and diff what they offer
//! (tools, and as each pin says prompts, resources, templates and instructions) against the
//! committed snapshots (with the text scanner's findings in what changed), with `--probe`
//! compare readings in separate sessions, and check each pin's cassettes against its
//! snapshot; with `--offline`, check the committed files alone (`offline`).

mod offline;

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::Args;
use oma_mcp_build::manifest::{DEFAULT_MANIFEST, Manifest, ServerPin};
use oma_mcp_runtime::drift::{Change, diff, inconsistencies};
use oma_mcp_runtime::snapshot::Pin;
use oma_mcp_runtime::{ConnectConfig, Lifecycle, Snapshot};

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
use crate::{cassette_drift, rust_name_drift, terminal};

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
    /// Take a second reading of each server in a new session as another client (clientInfo
    /// "claude-ai"), and a third under the other lifecycle (`initialize` or the 2026-07-28
    /// `server/discover`) where the server has both; any difference from the first reading is
    /// a breaking `inconsistent_server` change with both texts (a server that tells different
    /// clients different things).
    #[arg(long)]
    pub probe: bool,
    /// Also write the report in FORMAT to PATH, from the same reading (repeatable), e.g.
    /// `--output markdown=summary.md --output sarif=drift.sarif`: one run of the servers for
    /// every report a CI job wants.
    #[arg(long, value_name = "FORMAT=PATH", value_parser = output_file)]
    pub output: Vec<(ReportFormat, PathBuf)>,
    /// Check the committed files alone, as a pre-commit hook or a job without the servers:
    /// start no server, reach no URL, read no environment variable. The manifest is valid;
    /// each snapshot reads, its digests match, its bytes are canonical
    /// (`snapshot_not_canonical`), its source holds no credential (`snapshot_secret`); the
    /// text scanner's findings in it (`scan_finding`: breaking for a warning or high finding
    /// the pin does not accept, info otherwise); its cassettes fit it (`cassette_stale`).
    #[arg(long, conflicts_with_all = OFFLINE_CONFLICTS)]
    pub offline: bool,
}

/// A `--output` value: a report format, `=`, a path.
fn output_file(value: &str) -> Result<(ReportFormat, PathBuf), String> {
    use clap::ValueEnum;
    let (format, path) = value.split_once('=').ok_or_else(|| {
        format!("expected FORMAT=PATH, such as markdown=summary.md, got {value:?}")
    })?;
    let format = ReportFormat::from_str(format, false).map_err(|_| {
        format!("unknown format {format:?}: use text, json, github, markdown, sarif or junit")
    })?;
    if path.is_empty() {
        return Err(format!(
            "no path after `{}=`",
            format
                .to_possible_value()
                .map(|v| v.get_name().to_owned())
                .unwrap_or_default()
        ));
    }
    Ok((format, PathBuf::from(path)))
}

/// The flags that reach a server, refused beside `--offline`.
const OFFLINE_CONFLICTS: [&str; 14] = [
    "env",
    "pass_env",
    "header",
    "bearer_env",
    "header_env",
    "client_credentials",
    "client_id",
    "client_id_env",
    "client_secret_env",
    "private_key_env",
    "signing_algorithm",
    "scopes",
    "lifecycle",
    "probe",
];

/// The `clientInfo` of `--probe`'s second session: Claude Desktop's name, a client a server
/// tailoring its answers would want to single out.
pub const PROBE_CLIENT: (&str, &str) = ("claude-ai", "0.1.0");

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
/// is 2. With `--offline`, no server: [`offline::run`].
pub async fn run(args: CheckArgs) -> Result<Outcome, CliError> {
    let path = args
        .manifest
        .clone()
        .unwrap_or_else(|| PathBuf::from(DEFAULT_MANIFEST));
    if args.offline {
        // The one path of `--offline`: no flags validated against the environment, no
        // connect configuration, no server.
        return offline::run(&args, &path);
    }
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
        let outcome = check_one(pin, &path, &flags, args.lifecycle, args.probe, &others).await;
        file_outcome(
            pin,
            outcome,
            several,
            &args,
            &path,
            &mut compared,
            &mut failed,
        )?;
    }
    finish(&compared, &failed, &path, &args)
}

/// Files one pin's outcome: its report among `compared`, or its error among `failed`; with one
/// server in text, the error itself (as every other command reports it).
fn file_outcome(
    pin: &ServerPin,
    outcome: Result<(oma_mcp_runtime::DriftReport, Vec<String>), CliError>,
    several: bool,
    args: &CheckArgs,
    path: &std::path::Path,
    compared: &mut Vec<Compared>,
    failed: &mut Vec<ServerFailed>,
) -> Result<(), CliError> {
    match outcome {
        Ok((report, tools)) => compared.push(Compared {
            name: pin.name.clone(),
            label: label(pin),
            server: several.then(|| pin.name.clone()),
            file: pin.snapshot.clone(),
            new_file: None,
            tools,
            report,
        }),
        Err(e) if !several && args.format == ReportFormat::Text => return Err(e),
        Err(source) => failed.push(ServerFailed {
            server: pin.name.clone(),
            manifest: path.display().to_string(),
            source,
        }),
    }
    Ok(())
}

/// Prints the report of `compared` and `failed` (servers of the manifest at `path`) in
/// `--format`, writes each `--output` file, prints each failure on stderr too, and says how
/// the run ended: failed (exit 2) when a server failed, else drift (exit 1) at or above
/// `--fail-on`, else success.
fn finish(
    compared: &[Compared],
    failed: &[ServerFailed],
    path: &std::path::Path,
    args: &CheckArgs,
) -> Result<Outcome, CliError> {
    let (format, fail_on) = (args.format, args.fail_on);
    let failures: Vec<Failed> = failed
        .iter()
        .map(|f| Failed {
            server: f.server.clone(),
            manifest: path.to_path_buf(),
            message: error_chain(&f.source),
        })
        .collect();
    let outputs = Outputs {
        compared,
        failed: Some(&failures),
        fail_on,
    };
    if !compared.is_empty() || format != ReportFormat::Text {
        print(&report::render(&outputs, format))?;
    }
    for (format, file) in &args.output {
        std::fs::write(file, report::render(&outputs, *format)).map_err(|source| {
            CliError::Write {
                path: file.clone(),
                source,
            }
        })?;
    }
    if !failed.is_empty() {
        for failure in failed {
            print_error(failure);
        }
        return Ok(Outcome::Failed);
    }
    Ok(if report::fails(compared, fail_on) {
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

/// The drift of one pinned server against its snapshot (with `probe`, and the differences
/// between its readings in separate sessions), and the raw names of the tools on either side
/// (sorted, without repeats).
async fn check_one(
    pin: &ServerPin,
    manifest: &std::path::Path,
    flags: &Flags<'_>,
    lifecycle: Option<LifecycleArg>,
    probe: bool,
    others: &[(String, Vec<String>)],
) -> Result<(oma_mcp_runtime::DriftReport, Vec<String>), CliError> {
    // Read the pin first: a broken snapshot fails before a server is started.
    let snapshot = crate::snapshot_file::read(&pin.snapshot)?;
    // A pin made from an MCP registry: is its entry still there, and the newest? Only for a
    // pin with a `registry` table; a registry that cannot be asked is a warning.
    let mut registry = Vec::new();
    if let Some(entry) = &pin.registry {
        match crate::registry::check(entry).await {
            Ok(changes) => registry = changes,
            Err(problem) => eprintln!(
                "oma-mcp: warning: server `{}`: cannot ask the registry about {}@{}: {}",
                pin.name,
                entry.name,
                entry.version,
                terminal::safe(&problem)
            ),
        }
    }
    let mut config = flags.apply(
        cli_client(pin.connect_config(), Some(pin)),
        Some((manifest, pin)),
    )?;
    if let Some(lifecycle) = lifecycle {
        config = config.with_lifecycle(lifecycle.into());
    }
    let (live, protocol, failed) = read_live(pin, config.clone()).await?;
    let mut drift = diff(&snapshot, &live);
    // A list the pin holds and the server failed to give was not compared: say so.
    drift.extend(
        failed
            .iter()
            .filter(|(kind, _)| snapshot.pins(**kind))
            .map(|(kind, why)| Change::list_unread(*kind, why))
            .collect(),
    );
    drift.extend(registry);
    if probe {
        drift.extend(probe_changes(pin, config, &live, protocol.as_deref()).await?);
    }
    let tools: std::collections::BTreeSet<String> = snapshot
        .tools
        .iter()
        .chain(&live.tools)
        .map(|t| t.name().to_owned())
        .collect();
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
    // Tools the crate does not use (the pin's `tools` and `exclude-tools`): info.
    Ok((drift.for_selection(&pin.tools), tools.into_iter().collect()))
}

/// One reading of the pinned server with `config`: what the pin pins (its warnings printed)
/// and the negotiated protocol version.
async fn read_live(
    pin: &ServerPin,
    config: ConnectConfig,
) -> Result<(Snapshot, Option<String>, BTreeMap<Pin, String>), CliError> {
    let progress = Progress::start(match pin.url {
        Some(_) => format!("connecting to `{}` at {}", pin.name, pin.target()),
        None => format!("connecting to `{}`", pin.name),
    });
    let client = connect(config).await;
    progress.finish().await;
    let client = client?;
    let reading = client
        .read_surface(pin.snapshot_source(), &pin.pins, pin.max_list_items)
        .await;
    let protocol = Some(client.protocol_version().to_owned());
    stop_listed(&client).await;
    let reading = reading?;
    for warning in &reading.warnings {
        eprintln!(
            "oma-mcp: warning: server `{}`: {}",
            pin.name,
            terminal::safe(warning)
        );
    }
    Ok((reading.snapshot, protocol, reading.failed))
}

/// `--probe`: a reading as [`PROBE_CLIENT`], and one under the other lifecycle, each against
/// `first`. A server that has one lifecycle only gets a note on stderr for the other.
async fn probe_changes(
    pin: &ServerPin,
    config: ConnectConfig,
    first: &Snapshot,
    protocol: Option<&str>,
) -> Result<Vec<Change>, CliError> {
    let (name, version) = PROBE_CLIENT;
    let as_other = config
        .clone()
        .with_client_name(name)
        .with_client_version(version);
    let (second, _, _) = read_live(pin, as_other).await?;
    let mut changes = inconsistencies(first, &second, &format!("as clientInfo \"{name}\""));
    let (other, how) = match protocol {
        Some(LATEST) => (Lifecycle::Initialize, "started with `initialize`"),
        _ => (
            Lifecycle::Discover,
            "started with `server/discover` (2026-07-28)",
        ),
    };
    match read_live(pin, config.with_lifecycle(other)).await {
        Ok((third, _, _)) => changes.extend(inconsistencies(first, &third, how)),
        Err(e) => eprintln!(
            "oma-mcp: probe: server `{}` was not compared in a session {how}: {}",
            pin.name,
            terminal::safe(&error_chain(&e))
        ),
    }
    Ok(changes)
}

/// The protocol revision of the `server/discover` lifecycle.
const LATEST: &str = "2026-07-28";

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
