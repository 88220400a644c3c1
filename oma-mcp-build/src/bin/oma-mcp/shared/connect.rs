//! Connecting to the server a command names: the `--manifest`/`--server`/`--url`/`--`
//! target, the flags that apply to each kind of server, the CLI's `clientInfo`, and stopping
//! a server that was only listed.

use std::path::{Path, PathBuf};
use std::time::Duration;

use oma_mcp_build::codegen::{ConsequentialPolicy, GenerateOptions};
use oma_mcp_build::manifest::{DEFAULT_MANIFEST, Manifest, ServerPin};
use oma_mcp_runtime::{ConnectConfig, McpClient};

use super::CliError;
use super::flags::Target;
use super::http_flags::{Headers, HttpFlags, checked_url};
use super::server_env::ServerEnv;

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
            cli_client(ConnectConfig::http(url), None),
            GenerateOptions::default(),
        )
    } else if let [program, args @ ..] = target.command.as_slice() {
        flags.fit(&Reached::Command)?;
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
        flags.fit(&Reached::Pins(&path, &[pin]))?;
        (
            cli_client(pin.connect_config(), Some(pin)),
            pin.generate_options(),
        )
    };
    let mut config = flags.apply(config)?;
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

/// What a command reaches, for [`Flags::fit`].
pub enum Reached<'a> {
    /// The server after `--`.
    Command,
    /// The server at `--url`.
    Url,
    /// These pins of the manifest at this path.
    Pins(&'a Path, &'a [&'a ServerPin]),
}

/// The flags that give a server its environment (`--env`, `--pass-env`) or its HTTP headers
/// (`--header`, `--bearer-env`, `--header-env`), checked.
pub struct Flags<'a> {
    env: &'a ServerEnv,
    env_given: Vec<&'static str>,
    headers: Headers,
    http_given: Vec<&'static str>,
}

impl<'a> Flags<'a> {
    /// Checks both kinds of flags, before anything is read or started; a variable that
    /// `--bearer-env` or `--header-env` names must be set in this environment.
    ///
    /// # Errors
    /// [`CliError::BadEnv`], [`CliError::BadHttpFlag`].
    pub fn validate(env: &'a ServerEnv, http: &HttpFlags) -> Result<Self, CliError> {
        env.validate()?;
        let headers = http.validate(|var| std::env::var(var).is_ok())?;
        Ok(Self {
            env,
            env_given: env.given(),
            headers,
            http_given: http.given(),
        })
    }

    /// Checks that each kind of flag given applies to a server the command reaches: the
    /// environment flags to one it starts, the header flags to one it reaches by URL. (With
    /// several pins, each gets the flags of its own kind.)
    ///
    /// # Errors
    /// [`CliError::FlagsForOtherKind`] naming the flags and the servers.
    pub fn fit(&self, reached: &Reached<'_>) -> Result<(), CliError> {
        let (any_url, any_command) = match reached {
            Reached::Command => (false, true),
            Reached::Url => (true, false),
            Reached::Pins(_, pins) => (
                pins.iter().any(|p| p.url.is_some()),
                pins.iter().any(|p| p.url.is_none()),
            ),
        };
        let subject = |kind: &str| match reached {
            Reached::Command => "the server after `--` is started by a command".to_owned(),
            Reached::Url => "the server at --url is reached over HTTP".to_owned(),
            Reached::Pins(path, [pin]) => {
                format!("server `{}` of {} is {kind}", pin.name, path.display())
            }
            Reached::Pins(path, pins) => format!(
                "the servers of {} ({}) are all {kind}",
                path.display(),
                pins.iter()
                    .map(|p| p.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        if !self.http_given.is_empty() && !any_url {
            return Err(CliError::FlagsForOtherKind {
                problem: format!(
                    "{} for a server reached by URL (--url, or a manifest's `url`), and {}; a \
                     server oma-mcp starts takes --env and --pass-env",
                    listed(&self.http_given),
                    subject("started by a command")
                ),
            });
        }
        if !self.env_given.is_empty() && !any_command {
            return Err(CliError::FlagsForOtherKind {
                problem: format!(
                    "{} for a server oma-mcp starts (`-- COMMAND`, or a manifest's `command`), \
                     and {}; a server reached by URL takes --header, --bearer-env and \
                     --header-env",
                    listed(&self.env_given),
                    subject("reached by URL")
                ),
            });
        }
        Ok(())
    }

    /// `config` with the flags of its kind: the HTTP headers for a URL, the environment for
    /// a command.
    ///
    /// # Errors
    /// As [`ServerEnv::apply`] (already checked by [`Flags::validate`]).
    pub fn apply(&self, config: ConnectConfig) -> Result<ConnectConfig, CliError> {
        match config.url {
            Some(_) => Ok(self.headers.apply(config)),
            None => self.env.apply(config),
        }
    }
}

/// `--a is` / `--a and --b are` / `--a, --b and --c are`.
fn listed(flags: &[&str]) -> String {
    match flags {
        [one] => format!("{one} is"),
        [init @ .., last] => format!("{} and {last} are", init.join(", ")),
        [] => String::new(),
    }
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

/// The server of `config` as messages name it: its command line, or its URL redacted.
pub fn server_text(config: &ConnectConfig) -> String {
    match &config.url {
        Some(url) => oma_mcp_runtime::connect::redact_url(url),
        None => std::iter::once(config.command.as_str())
            .chain(config.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" "),
    }
}

/// Connects, naming the command line (or the redacted URL) in the error.
pub async fn connect(config: ConnectConfig) -> Result<McpClient, CliError> {
    let command = server_text(&config);
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
