//! The two kinds of server, started by a command or reached by URL, and the flags of each:
//! the environment (`--env`, `--pass-env`) for a started server, the HTTP headers
//! (`--header`, `--bearer-env`, `--header-env`) for one reached by URL, checked and fitted to
//! what a command reaches.

use std::path::Path;

use oma_mcp_build::manifest::ServerPin;
use oma_mcp_runtime::ConnectConfig;

use super::env::ServerEnv;
use super::http::{Headers, HttpFlags};
use super::oauth;
use crate::error::CliError;

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
                     and {}; a server reached by URL takes --header, --bearer-env, \
                     --header-env and the OAuth flags",
                    listed(&self.env_given),
                    subject("reached by URL")
                ),
            });
        }
        Ok(())
    }

    /// `config` with the flags of its kind: the HTTP headers and OAuth for a URL (the pin's
    /// `oauth` table under the OAuth flags; see [`super::oauth`]), the environment for a
    /// command. `pin` is the manifest's pin `config` comes from, with the manifest's path.
    ///
    /// # Errors
    /// As [`ServerEnv::apply`] (already checked by [`Flags::validate`]) and
    /// [`oauth::with_oauth`].
    pub fn apply(
        &self,
        config: ConnectConfig,
        pin: Option<(&Path, &ServerPin)>,
    ) -> Result<ConnectConfig, CliError> {
        match config.url.clone() {
            Some(url) => {
                let config = self.headers.apply(config);
                let login = oauth::login_command(pin, &url);
                oauth::with_oauth(config, pin.map(|p| p.1), &self.headers.oauth, login)
            }
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
