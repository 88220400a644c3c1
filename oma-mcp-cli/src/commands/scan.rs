//! `oma-mcp scan`: the text scanner over every text a model reads from a server (tool names,
//! descriptions and schemas, prompts, resources, the instructions), from a snapshot or bare
//! `tools/list` file, the pins of a manifest, or a live server.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use oma_mcp_build::manifest::{DEFAULT_MANIFEST, Manifest, ServerPin};
use oma_mcp_runtime::ConnectConfig;
use oma_mcp_runtime::snapshot::{DEFAULT_MAX_LIST_ITEMS, Pin};

use crate::error::CliError;
use crate::exit::Outcome;
use crate::flags::timeout_ms;
use crate::output::print;
use crate::report::findings::{self, Scanned};
use crate::report::{ScanFailOn, ScanFormat};
use crate::scan_findings::{Extras, pinned_tools, scan_snapshot};
use crate::server::connect::{cli_client, connect, stop_listed};
use crate::server::env::{ServerEnv, warn_env_wrapper};
use crate::server::http::{HttpFlags, Unchecked, checked_url, unchecked};
use crate::server::kind::{Flags, Reached};
use crate::server::target::LifecycleArg;

/// Flags of `scan`.
#[derive(Debug, Args)]
#[command(
    after_help = "Rules, their levels and public sources: the module docs of \
oma_mcp_core::scan. A manifest's `accept` entries (per rule and tool, with a reason) mark \
findings accepted: reports show the reason, and accepted findings never fail the run."
)]
pub struct ScanArgs {
    /// A snapshot, or a bare `{"tools": [...]}` file with optional top-level `instructions`,
    /// `prompts`, `resources` and `resourceTemplates` (instead of --manifest, --url or
    /// `-- COMMAND`).
    #[arg(value_name = "FILE", conflicts_with_all = ["manifest", "server", "url", "command"])]
    pub file: Option<PathBuf>,
    /// The manifest whose pinned snapshots are scanned, each with the tools of the other pins
    /// (shadowing) and its `accept` entries (default: ./oma-mcp.toml when nothing else is
    /// given).
    #[arg(long, value_name = "PATH")]
    pub manifest: Option<PathBuf>,
    /// Only this server of the manifest.
    #[arg(long, value_name = "NAME")]
    pub server: Option<String>,
    /// The streamable HTTP endpoint of a live server to scan.
    #[arg(long, value_name = "URL", value_parser = unchecked, conflicts_with_all = ["manifest", "server", "command"])]
    pub url: Option<Unchecked>,
    /// Exit 1 when a finding (not accepted) at or above this level is found.
    #[arg(long, value_enum, value_name = "LEVEL", default_value_t = ScanFailOn::Warning)]
    pub fail_on: ScanFailOn,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ScanFormat::Text)]
    pub format: ScanFormat,
    /// The per-request timeout in milliseconds for a live server, at least 1 (default: 60000).
    #[arg(long, value_name = "N", value_parser = timeout_ms)]
    pub timeout_ms: Option<u64>,
    /// Environment for a server started by `-- COMMAND`.
    #[command(flatten)]
    pub server_env: ServerEnv,
    /// HTTP headers for a server reached by --url.
    #[command(flatten)]
    pub http: HttpFlags,
    /// How the MCP session starts with a live server (default: auto).
    #[arg(long, value_enum)]
    pub lifecycle: Option<LifecycleArg>,
    /// The command of a live server to scan and its arguments, after `--`.
    #[arg(last = true, value_name = "COMMAND ARGS", conflicts_with_all = ["manifest", "server"])]
    pub command: Vec<String>,
}

/// Runs `scan`: exit 0 when no finding that is not accepted reaches --fail-on, 1 when one
/// does, 2 on an error (a file that cannot be read, a server that does not start).
pub async fn run(args: ScanArgs) -> Result<Outcome, CliError> {
    let scanned = if let Some(file) = &args.file {
        let snapshot = crate::snapshot_file::read(file)?;
        let findings = scan_snapshot(&snapshot, &Extras::read(file), &[], "", &[]);
        vec![Scanned {
            name: file.display().to_string(),
            file: Some(file.clone()),
            findings,
        }]
    } else if args.url.is_some() || !args.command.is_empty() {
        vec![live(&args).await?]
    } else {
        let path = args
            .manifest
            .clone()
            .unwrap_or_else(|| PathBuf::from(DEFAULT_MANIFEST));
        let manifest = Manifest::read(&path)?;
        let pins: Vec<&ServerPin> = match &args.server {
            Some(name) => vec![manifest.server(name)?],
            None => manifest.servers.values().collect(),
        };
        let others = pinned_tools(&manifest);
        let mut scanned = Vec::with_capacity(pins.len());
        for pin in pins {
            let snapshot = crate::snapshot_file::read(&pin.snapshot)?;
            let findings = scan_snapshot(
                &snapshot,
                &Extras::read(&pin.snapshot),
                &others,
                &pin.name,
                &pin.accept,
            );
            scanned.push(Scanned {
                name: pin.name.clone(),
                file: Some(pin.snapshot.clone()),
                findings,
            });
        }
        scanned
    };
    print(&findings::render(
        &scanned,
        args.format.into(),
        args.fail_on.level(),
    ))?;
    Ok(if findings::fails(&scanned, args.fail_on.level()) {
        Outcome::Drift
    } else {
        Outcome::Success
    })
}

/// The findings of a live server reached by `--url` or started by `-- COMMAND`.
async fn live(args: &ScanArgs) -> Result<Scanned, CliError> {
    let flags = Flags::validate(&args.server_env, &args.http)?;
    let (config, name) = if let Some(url) = &args.url {
        flags.fit(&Reached::Url)?;
        let config = cli_client(ConnectConfig::http(checked_url(url)?), None);
        let name = config.snapshot_source().url.unwrap_or_default();
        (config, name)
    } else {
        flags.fit(&Reached::Command)?;
        let (program, rest) = args
            .command
            .split_first()
            .map_or(("", &[][..]), |(p, r)| (p.as_str(), r));
        warn_env_wrapper(program, rest);
        let config = cli_client(ConnectConfig::new(program).with_args(rest.to_vec()), None);
        (config, args.command.join(" "))
    };
    let mut config = flags.apply(config, None)?;
    if let Some(ms) = args.timeout_ms {
        config = config.with_request_timeout(Duration::from_millis(ms));
    }
    if let Some(lifecycle) = args.lifecycle {
        config = config.with_lifecycle(lifecycle.into());
    }
    // The whole surface a snapshot would pin: the tools, and the prompts, resources, templates
    // and instructions the model may also read.
    let source = config.snapshot_source();
    let client = connect(config).await?;
    let reading = client
        .read_surface(
            source,
            &Pin::ALL.into_iter().collect(),
            DEFAULT_MAX_LIST_ITEMS,
        )
        .await;
    stop_listed(&client).await;
    let reading = reading?;
    for warning in &reading.warnings {
        eprintln!("oma-mcp: warning: {}", crate::terminal::safe(warning));
    }
    let findings = scan_snapshot(&reading.snapshot, &Extras::default(), &[], "", &[]);
    Ok(Scanned {
        name,
        file: None,
        findings,
    })
}
