//! `oma-mcp snapshot`: start a pinned server, read its tools and, as the pin asks, its prompts,
//! resources, templates and instructions, and write the canonical snapshot; the text scanner's
//! findings go to stderr before the file is written.

use std::path::PathBuf;
use std::time::Duration;

use std::collections::BTreeSet;

use clap::{Args, ValueEnum};
use oma_mcp_build::WriteSnapshot;
use oma_mcp_build::manifest::{DEFAULT_MANIFEST, Manifest, ServerPin};
use oma_mcp_runtime::ConnectConfig;
use oma_mcp_runtime::snapshot::{DEFAULT_MAX_LIST_ITEMS, ItemKind, Pin, SnapshotSource};
use oma_mcp_runtime::{Snapshot, SurfaceReading};

use crate::error::CliError;
use crate::exit::Outcome;
use crate::flags::timeout_ms;
use crate::output::print;
use crate::scan_findings::{pinned_tools, warn_before_writing};
use crate::server::connect::{cli_client, connect, stop_listed};
use crate::server::env::{ServerEnv, warn_env_wrapper};
use crate::server::http::{HttpFlags, Unchecked, checked_url, unchecked};
use crate::server::kind::{Flags, Reached};
use crate::server::target::LifecycleArg;
use crate::terminal;

/// Flags of `snapshot`.
#[derive(Debug, Args)]
pub struct SnapshotArgs {
    /// The manifest (default: ./oma-mcp.toml when neither --url nor `-- COMMAND` is given).
    #[arg(long, value_name = "PATH")]
    pub manifest: Option<PathBuf>,
    /// Only this server of the manifest.
    #[arg(long, value_name = "NAME")]
    pub server: Option<String>,
    /// The streamable HTTP endpoint of a server to reach (MCP 2025-03-26 and later), an http
    /// or https URL, instead of --manifest/--server or `-- COMMAND`. The snapshot records it
    /// redacted (query values as `***`); credentials go through --bearer-env or --header-env.
    #[arg(
        long,
        value_name = "URL",
        value_parser = unchecked,
        conflicts_with_all = ["manifest", "server", "command"]
    )]
    pub url: Option<Unchecked>,
    /// Write here instead (one server only).
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// The per-request timeout in milliseconds, at least 1 (default: the manifest's, else
    /// 60000).
    #[arg(long, value_name = "N", value_parser = timeout_ms)]
    pub timeout_ms: Option<u64>,
    /// Environment for the server(s); values are never written to the snapshot.
    #[command(flatten)]
    pub server_env: ServerEnv,
    /// HTTP headers for the server(s) reached by URL; a snapshot records the names of
    /// --bearer-env and --header-env headers, never their values.
    #[command(flatten)]
    pub http: HttpFlags,
    /// How the MCP session starts (default: the manifest's `lifecycle`, else auto).
    #[arg(long, value_enum)]
    pub lifecycle: Option<LifecycleArg>,
    /// What to pin beside the tools, which are always pinned: any of tools, prompts,
    /// resources (resources/list and resources/templates/list), instructions, comma-separated
    /// (default: the manifest's `pin`, else all four).
    #[arg(long, value_enum, value_name = "KINDS", value_delimiter = ',')]
    pub pin: Option<Vec<PinArg>>,
    /// The most entries of each of prompts/list, resources/list and resources/templates/list
    /// to pin, at least 1 (default: the manifest's `max-list-items`, else 1000); the snapshot
    /// records a list it cut.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_list_items: Option<u64>,
    /// The server command and its arguments, after `--` (instead of --manifest/--server or
    /// --url).
    #[arg(last = true, value_name = "COMMAND ARGS", conflicts_with_all = ["manifest", "server"])]
    pub command: Vec<String>,
}

/// Runs `snapshot`: with `--url` or `-- COMMAND`, that server's snapshot to `--out` or
/// stdout; else each server of the manifest (or the one `--server` names) to its `snapshot`
/// path.
pub async fn run(args: SnapshotArgs) -> Result<Outcome, CliError> {
    let SnapshotArgs {
        manifest,
        server,
        url,
        out,
        timeout_ms,
        server_env,
        http,
        lifecycle,
        pin,
        max_list_items,
        command,
    } = args;
    let pinned = |from_pin: Option<&ServerPin>| -> BTreeSet<Pin> {
        match (&pin, from_pin) {
            (Some(list), _) => std::iter::once(Pin::Tools)
                .chain(list.iter().map(|p| Pin::from(*p)))
                .collect(),
            (None, Some(pin)) => pin.pins.clone(),
            (None, None) => Pin::ALL.into_iter().collect(),
        }
    };
    let bound = |from_pin: Option<&ServerPin>| -> usize {
        match (max_list_items, from_pin) {
            (Some(n), _) => usize::try_from(n).unwrap_or(usize::MAX),
            (None, Some(pin)) => pin.max_list_items,
            (None, None) => DEFAULT_MAX_LIST_ITEMS,
        }
    };
    let flags = Flags::validate(&server_env, &http)?;
    let settings = |config: ConnectConfig, pin: Option<(&std::path::Path, &ServerPin)>| {
        let mut config = flags.apply(config, pin)?;
        if let Some(ms) = timeout_ms {
            config = config.with_request_timeout(Duration::from_millis(ms));
        }
        if let Some(lifecycle) = lifecycle {
            config = config.with_lifecycle(lifecycle.into());
        }
        Ok::<_, CliError>(config)
    };
    let single = if let Some(url) = &url {
        flags.fit(&Reached::Url)?;
        let config = settings(
            cli_client(ConnectConfig::http(checked_url(url)?), None),
            None,
        )?;
        // The URL redacted, the literal headers, the names of the headers from variables.
        let source = config.snapshot_source();
        Some((config, source))
    } else if let [program, args @ ..] = command.as_slice() {
        flags.fit(&Reached::Command)?;
        let config = settings(
            cli_client(
                ConnectConfig::new(program.clone()).with_args(args.to_vec()),
                None,
            ),
            None,
        )?;
        warn_env_wrapper(program, args);
        Some((config, SnapshotSource::new(program.clone(), args.to_vec())))
    } else {
        None
    };
    if let Some((config, source)) = single {
        let name = match &source.url {
            Some(url) => url.clone(),
            None => std::iter::once(source.command.as_str())
                .chain(source.args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
        };
        let client = connect(config).await?;
        let reading = client
            .read_surface(source, &pinned(None), bound(None))
            .await;
        stop_listed(&client).await;
        let snapshot = warned(reading?);
        // Findings before the file is written, so a poisoned server is seen first.
        warn_before_writing(&snapshot, &name, &[], &[]);
        match out {
            Some(path) => {
                snapshot.write(&path)?;
                eprintln!("oma-mcp: wrote {} ({})", path.display(), counts(&snapshot));
            }
            None => print(&snapshot.to_canonical_string())?,
        }
        return Ok(Outcome::Success);
    }
    let manifest_path = manifest.unwrap_or_else(|| PathBuf::from(DEFAULT_MANIFEST));
    let manifest = Manifest::read(&manifest_path)?;
    let pins: Vec<&ServerPin> = match &server {
        Some(name) => vec![manifest.server(name)?],
        None => manifest.servers.values().collect(),
    };
    if out.is_some() && pins.len() != 1 {
        return Err(CliError::OutNeedsOneServer {
            manifest: manifest_path,
            count: pins.len(),
        });
    }
    flags.fit(&Reached::Pins(&manifest_path, &pins))?;
    // The other pins' tools, for shadowing in the findings printed before each write.
    let others = pinned_tools(&manifest);
    for pin in pins {
        let config = settings(
            cli_client(pin.connect_config(), Some(pin)),
            Some((&manifest_path, pin)),
        )?;
        if pin.url.is_none() {
            warn_env_wrapper(&pin.command, &pin.args);
        }
        let client = connect(config).await?;
        // The pin as the manifest writes it: flags given for this run are not recorded.
        let reading = client
            .read_surface(pin.snapshot_source(), &pinned(Some(pin)), bound(Some(pin)))
            .await;
        stop_listed(&client).await;
        let snapshot = warned(reading?);
        warn_before_writing(&snapshot, &pin.name, &others, &pin.accept);
        let path = out.clone().unwrap_or_else(|| pin.snapshot.clone());
        let changed = snapshot.write(&path)?;
        eprintln!(
            "oma-mcp: {} {} ({}) for server `{}`",
            if changed { "wrote" } else { "unchanged:" },
            path.display(),
            counts(&snapshot),
            pin.name
        );
    }
    Ok(Outcome::Success)
}

/// Takes the snapshot of the server `server` of the manifest at `manifest`, as `oma-mcp
/// snapshot --manifest MANIFEST --server SERVER` does (what `init` and `add` run after they
/// write a pin); a failure is printed, naming the server, and returned as `false`.
pub async fn take_for_pin(manifest: &std::path::Path, server: &str) -> bool {
    let args = SnapshotArgs {
        manifest: Some(manifest.to_path_buf()),
        server: Some(server.to_owned()),
        url: None,
        out: None,
        timeout_ms: None,
        server_env: ServerEnv::default(),
        http: HttpFlags::default(),
        lifecycle: None,
        pin: None,
        max_list_items: None,
        command: Vec::new(),
    };
    match run(args).await {
        Ok(_) => true,
        Err(e) => {
            eprintln!(
                "oma-mcp: cannot take the snapshot of server `{server}`: {}",
                terminal::safe(&crate::output::error_chain(&e))
            );
            false
        }
    }
}

/// The snapshot of a reading, after its warnings are printed (a failed list, a cut list, an
/// entry left out).
fn warned(reading: SurfaceReading) -> Snapshot {
    for warning in &reading.warnings {
        eprintln!("oma-mcp: warning: {}", terminal::safe(warning));
    }
    reading.snapshot
}

/// `3 tools`, and the other lists the snapshot holds entries of: `3 tools, 2 prompts, 1
/// resource template, 4 resources`.
fn counts(snapshot: &Snapshot) -> String {
    let count = |n: usize, noun: &str| match n {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    };
    let mut parts = vec![count(snapshot.tools.len(), "tool")];
    for kind in ItemKind::ALL {
        if !snapshot.items(kind).is_empty() {
            parts.push(count(snapshot.items(kind).len(), kind.noun()));
        }
    }
    parts.join(", ")
}

/// A `--pin` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PinArg {
    /// tools/list (always pinned).
    Tools,
    /// prompts/list.
    Prompts,
    /// resources/list and resources/templates/list.
    Resources,
    /// The server's instructions.
    Instructions,
}

impl From<PinArg> for Pin {
    fn from(arg: PinArg) -> Self {
        match arg {
            PinArg::Tools => Pin::Tools,
            PinArg::Prompts => Pin::Prompts,
            PinArg::Resources => Pin::Resources,
            PinArg::Instructions => Pin::Instructions,
        }
    }
}
