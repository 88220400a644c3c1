//! `oma-mcp snapshot`: start a pinned server, take its `tools/list` and write the canonical
//! snapshot.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use oma_mcp_build::WriteSnapshot;
use oma_mcp_build::manifest::{DEFAULT_MANIFEST, Manifest, ServerPin};
use oma_mcp_runtime::ConnectConfig;
use oma_mcp_runtime::snapshot::SnapshotSource;

use crate::shared::connect::{cli_client, connect, stop_listed};
use crate::shared::flags::{LifecycleArg, timeout_ms};
use crate::shared::server_env::{self, ServerEnv};
use crate::shared::{CliError, Outcome, print};

/// Flags of `snapshot`.
#[derive(Debug, Args)]
pub struct SnapshotArgs {
    /// The manifest (default: ./oma-mcp.toml when no `-- COMMAND` is given).
    #[arg(long, value_name = "PATH")]
    pub manifest: Option<PathBuf>,
    /// Only this server of the manifest.
    #[arg(long, value_name = "NAME")]
    pub server: Option<String>,
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
    /// How the MCP session starts (default: the manifest's `lifecycle`, else auto).
    #[arg(long, value_enum)]
    pub lifecycle: Option<LifecycleArg>,
    /// The server command and its arguments, after `--` (instead of --manifest/--server).
    #[arg(last = true, value_name = "COMMAND ARGS", conflicts_with_all = ["manifest", "server"])]
    pub command: Vec<String>,
}

/// Runs `snapshot`: with `-- COMMAND`, that server's snapshot to `--out` or stdout; else each
/// server of the manifest (or the one `--server` names) to its `snapshot` path.
pub async fn run(args: SnapshotArgs) -> Result<Outcome, CliError> {
    let SnapshotArgs {
        manifest,
        server,
        out,
        timeout_ms,
        server_env,
        lifecycle,
        command,
    } = args;
    if let [program, args @ ..] = command.as_slice() {
        let mut config = server_env.apply(cli_client(
            ConnectConfig::new(program.clone()).with_args(args.to_vec()),
            None,
        ))?;
        if let Some(ms) = timeout_ms {
            config = config.with_request_timeout(Duration::from_millis(ms));
        }
        server_env::warn_env_wrapper(program, args);
        if let Some(lifecycle) = lifecycle {
            config = config.with_lifecycle(lifecycle.into());
        }
        let client = connect(config).await?;
        let snapshot =
            client.snapshot_with_source(SnapshotSource::new(program.clone(), args.to_vec()));
        stop_listed(&client).await;
        let snapshot = snapshot?;
        match out {
            Some(path) => {
                snapshot.write(&path)?;
                eprintln!(
                    "oma-mcp: wrote {} ({} tools)",
                    path.display(),
                    snapshot.tools.len()
                );
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
    for pin in pins {
        let mut config = server_env.apply(cli_client(pin.connect_config(), Some(pin)))?;
        if let Some(ms) = timeout_ms {
            config = config.with_request_timeout(Duration::from_millis(ms));
        }
        server_env::warn_env_wrapper(&pin.command, &pin.args);
        if let Some(lifecycle) = lifecycle {
            config = config.with_lifecycle(lifecycle.into());
        }
        let client = connect(config).await?;
        let snapshot = client.snapshot_with_source(pin.snapshot_source());
        stop_listed(&client).await;
        let snapshot = snapshot?;
        let path = out.clone().unwrap_or_else(|| pin.snapshot.clone());
        let changed = snapshot.write(&path)?;
        eprintln!(
            "oma-mcp: {} {} ({} tools) for server `{}`",
            if changed { "wrote" } else { "unchanged:" },
            path.display(),
            snapshot.tools.len(),
            pin.name
        );
    }
    Ok(Outcome::Success)
}
