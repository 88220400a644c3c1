//! Which server a command reaches: the `--manifest`/`--server`/`--url`/`--` target turned
//! into connection settings and consequential rules, with the flags that apply to it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use oma_mcp_build::codegen::{ConsequentialPolicy, GenerateOptions};
use oma_mcp_build::manifest::{DEFAULT_MANIFEST, Manifest, ServerPin};
use oma_mcp_runtime::ConnectConfig;

use super::connect::cli_client;
use super::http::checked_url;
use super::kind::{Flags, Reached};
use super::target::Target;
use crate::error::CliError;

/// The connection settings and consequential rules for a `--manifest`/`--url`/`--` target
/// (`--url` and after `--`: annotations only, as the generator's defaults). Without any,
/// `./oma-mcp.toml` when it exists. `tool` (`call`) picks the server of a manifest that pins
/// several when no `--server` is given: the one whose `prefix` the tool name carries
/// (`<prefix>_…`). Every flag is checked before the manifest is read.
pub fn resolve(
    target: Target,
    prefix: Option<String>,
    timeout_ms: Option<u64>,
    tool: Option<&str>,
) -> Result<(ConnectConfig, ConsequentialPolicy), CliError> {
    let flags = Flags::validate(&target.server_env, &target.http)?;
    let (config, options) = if let Some(url) = &target.url {
        let url = checked_url(url)?;
        flags.fit(&Reached::Url)?;
        (
            flags.apply(cli_client(ConnectConfig::http(url), None), None)?,
            GenerateOptions::default(),
        )
    } else if let [program, args @ ..] = target.command.as_slice() {
        flags.fit(&Reached::Command)?;
        (
            flags.apply(
                cli_client(
                    ConnectConfig::new(program.clone()).with_args(args.to_vec()),
                    None,
                ),
                None,
            )?,
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
        flags.fit(&Reached::Pins(&path, &[pin]))?;
        (
            flags.apply(
                cli_client(pin.connect_config(), Some(pin)),
                Some((&path, pin)),
            )?,
            pin.generate_options(),
        )
    };
    let mut config = config;
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
        oma_mcp_build::Error::ServerNotChosen {
            path, available, ..
        } if !available.is_empty() => CliError::ServerNotChosen {
            manifest: path,
            available,
        },
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

/// The server that `login` or `logout` concerns, handed to `with`: the pin `server` of the
/// manifest at `manifest` (default `./oma-mcp.toml`; with the manifest's path), or `None` for
/// `--url` (`url`, already checked); then the server's URL and its label for messages
/// (`` `name` (URL) `` for a pin, the redacted URL otherwise).
///
/// # Errors
/// The manifest's errors; [`CliError::BadInput`] saying `started` when the pin is started by
/// a command; what `with` returns.
pub fn login_target<R>(
    url: Option<String>,
    manifest: Option<PathBuf>,
    server: Option<&str>,
    started: &str,
    with: impl FnOnce(Option<(&Path, &ServerPin)>, String, String) -> Result<R, CliError>,
) -> Result<R, CliError> {
    if let Some(url) = url {
        let label = oma_mcp_runtime::connect::redact_url(&url);
        return with(None, url, label);
    }
    let path = manifest.unwrap_or_else(|| PathBuf::from(DEFAULT_MANIFEST));
    let manifest = Manifest::read(&path)?;
    let pin = manifest.single(server).map_err(server_hint)?;
    let Some(url) = pin.url.clone() else {
        return Err(CliError::BadInput {
            reason: format!(
                "server `{}` of {} is started by a command{started}",
                pin.name,
                path.display()
            ),
        });
    };
    let label = format!("`{}` ({})", pin.name, pin.target());
    with(Some((&path, pin)), url, label)
}
