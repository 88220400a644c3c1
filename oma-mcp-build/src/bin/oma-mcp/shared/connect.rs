//! Connecting to the server a command names: the `--manifest`/`--server`/`--` target, the
//! CLI's `clientInfo`, and stopping a server that was only listed.

use std::path::{Path, PathBuf};
use std::time::Duration;

use oma_mcp_build::codegen::{ConsequentialPolicy, GenerateOptions};
use oma_mcp_build::manifest::{DEFAULT_MANIFEST, Manifest, ServerPin};
use oma_mcp_runtime::{ConnectConfig, McpClient};

use super::CliError;
use super::flags::Target;

/// The connection settings and consequential rules for a `--manifest`/`--` target (after
/// `--`: annotations only, as the generator's defaults). Without either, `./oma-mcp.toml`
/// when it exists. `tool` (`call`) picks the server of a manifest that pins several when no
/// `--server` is given: the one whose `prefix` the tool name carries (`<prefix>_…`).
pub fn resolve(
    target: Target,
    prefix: Option<String>,
    timeout_ms: Option<u64>,
    tool: Option<&str>,
) -> Result<(ConnectConfig, ConsequentialPolicy), CliError> {
    let (config, options) = if let [program, args @ ..] = target.command.as_slice() {
        (
            cli_client(
                ConnectConfig::new(program.clone()).with_args(args.to_vec()),
                None,
            ),
            GenerateOptions::default(),
        )
    } else {
        let path = match target.manifest {
            Some(path) => path,
            None if Path::new(DEFAULT_MANIFEST).is_file() => PathBuf::from(DEFAULT_MANIFEST),
            None => return Err(CliError::NoServer),
        };
        let manifest = Manifest::read(&path)?;
        let pin = match (target.server.as_deref(), tool) {
            (None, Some(tool)) if manifest.servers.len() > 1 => by_prefix(&manifest, tool)?,
            (server, _) => manifest.single(server).map_err(server_hint)?,
        };
        (
            cli_client(pin.connect_config(), Some(pin)),
            pin.generate_options(),
        )
    };
    let mut config = target.server_env.apply(config)?;
    if let Some(prefix) = prefix {
        config = config.with_name_prefix(prefix);
    }
    if let Some(ms) = timeout_ms {
        config = config.with_request_timeout(Duration::from_millis(ms));
    }
    if let Some(bytes) = target.max_message_bytes {
        config = config.with_max_message_size(bytes);
    }
    if let Some(lifecycle) = target.lifecycle {
        config = config.with_lifecycle(lifecycle.into());
    }
    Ok((config, options.consequential_policy()?))
}

/// The library's "which server?" error of a manifest that pins several, as
/// [`CliError::ServerNotChosen`] naming `--server`; other errors unchanged.
pub fn server_hint(error: oma_mcp_build::Error) -> CliError {
    match error {
        oma_mcp_build::Error::ServerNotChosen { path, available } if !available.is_empty() => {
            CliError::ServerNotChosen {
                manifest: path,
                available,
            }
        }
        other => CliError::Build(other),
    }
}

/// The server of `manifest` whose `prefix` the framework name `tool` carries.
///
/// # Errors
/// [`CliError::AmbiguousTool`] when several prefixes match (`a` and `a_b` for `a_b_c`);
/// the manifest's "which server?" error when none does.
fn by_prefix<'m>(manifest: &'m Manifest, tool: &str) -> Result<&'m ServerPin, CliError> {
    let carried: Vec<&ServerPin> = manifest
        .servers
        .values()
        .filter(|pin| {
            pin.prefix
                .as_deref()
                .and_then(|p| tool.strip_prefix(p))
                .is_some_and(|rest| rest.starts_with('_'))
        })
        .collect();
    match carried.as_slice() {
        [one] => Ok(one),
        [] => Ok(manifest.single(None).map_err(server_hint)?),
        several => Err(CliError::AmbiguousTool {
            tool: tool.to_owned(),
            manifest: manifest.path.clone(),
            servers: several
                .iter()
                .map(|pin| {
                    format!(
                        "{} (prefix {})",
                        pin.name,
                        pin.prefix.as_deref().unwrap_or("")
                    )
                })
                .collect(),
        }),
    }
}

/// The CLI's `clientInfo`: `oma-mcp` and its version (the library's default is the
/// reference contract's `open-multi-agent` `0.0.0`), unless the manifest's pin sets
/// `client-name` / `client-version`.
pub fn cli_client(config: ConnectConfig, pin: Option<&ServerPin>) -> ConnectConfig {
    let mut config = config;
    if pin.is_none_or(|p| p.client_name.is_none()) {
        config = config.with_client_name("oma-mcp");
    }
    if pin.is_none_or(|p| p.client_version.is_none()) {
        config = config.with_client_version(env!("CARGO_PKG_VERSION"));
    }
    config
}

/// Connects, naming the command line in the error.
pub async fn connect(config: ConnectConfig) -> Result<McpClient, CliError> {
    let command = std::iter::once(config.command.as_str())
        .chain(config.args.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ");
    oma_mcp_runtime::connect_mcp_tools(config)
        .await
        .map_err(|source| match source.command() {
            // The runtime's message already names the command: do not say it twice.
            Some(_) => CliError::Runtime(source),
            None => CliError::Connect {
                command,
                source: Box::new(source),
            },
        })
}

/// Stops a server this run only listed the tools of (`snapshot`, `list`, `check`, a refused
/// `call`): SIGTERM right after the EOF instead of waiting for the server to exit on its own
/// (server-everything takes about 350 ms), since nothing it did needs a clean exit.
pub async fn stop_listed(client: &McpClient) {
    client.disconnect_within(Duration::ZERO).await;
}
