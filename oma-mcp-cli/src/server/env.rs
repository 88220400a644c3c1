//! `--env NAME=VALUE` and `--pass-env NAME`: the environment of the servers a command starts,
//! as the manifest's `env` and `pass-env` give it. Values are secrets: they reach the child
//! only, never a snapshot, stdout, stderr or an error (even a malformed `--env` is reported
//! by its name alone).

use oma_mcp_runtime::ConnectConfig;

use crate::error::CliError;
use crate::terminal;

/// One `--env` argument as given. Its `Debug` shows no value.
#[derive(Clone)]
pub struct Assignment(String);

impl std::fmt::Debug for Assignment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = self.0.split_once('=').map_or(self.0.as_str(), |(n, _)| n);
        write!(f, "Assignment({name:?}=…)")
    }
}

/// Accepts any text: `--env` is checked by [`ServerEnv::apply`], whose errors leave the value
/// out (clap's own error would repeat the whole argument).
fn any_assignment(text: &str) -> Result<Assignment, std::convert::Infallible> {
    Ok(Assignment(text.to_owned()))
}

/// The flags that give a started server its environment.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ServerEnv {
    /// Set an environment variable for the server (repeatable). The value reaches only the
    /// server: it is never written to a snapshot (use this, not `-- env NAME=VALUE server`)
    /// nor printed. Added to the manifest's `env`, replacing an entry of the same name.
    #[arg(long = "env", value_name = "NAME=VALUE", value_parser = any_assignment)]
    pub env: Vec<Assignment>,
    /// Copy a variable from this environment to the server when it is set (repeatable).
    /// Added to the manifest's `pass-env`.
    #[arg(long = "pass-env", value_name = "NAME")]
    pub pass_env: Vec<String>,
}

impl ServerEnv {
    /// The flags given, in their help order (`--env`, `--pass-env`).
    pub fn given(&self) -> Vec<&'static str> {
        [
            (!self.env.is_empty()).then_some("--env"),
            (!self.pass_env.is_empty()).then_some("--pass-env"),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// `config` with the `--env` values and `--pass-env` names added.
    ///
    /// # Errors
    /// As [`ServerEnv::validate`].
    pub fn apply(&self, mut config: ConnectConfig) -> Result<ConnectConfig, CliError> {
        self.validate()?;
        for Assignment(text) in &self.env {
            if let Some((name, value)) = text.split_once('=') {
                config = config.with_env(name, value);
            }
        }
        Ok(config.with_pass_env(self.pass_env.clone()))
    }

    /// Checks the flags before any server is started.
    ///
    /// # Errors
    /// [`CliError::BadEnv`] for an `--env` without `=`, with an empty name, or with a NUL,
    /// and for a `--pass-env` name that is empty or holds `=` or NUL (the manifest's rule
    /// for `env` and `pass-env`); the message names the flag and the variable, never a value.
    pub fn validate(&self) -> Result<(), CliError> {
        for Assignment(text) in &self.env {
            let Some((name, value)) = text.split_once('=') else {
                return Err(CliError::BadEnv {
                    problem: format!(
                        "--env {name:?} has no `=`; give --env {name}=VALUE, or copy the \
                         variable from this environment with --pass-env {name}",
                        name = text
                    ),
                });
            };
            if name.is_empty() {
                return Err(CliError::BadEnv {
                    problem: "--env has an empty variable name (the argument starts with `=`); \
                              give NAME=VALUE"
                        .to_owned(),
                });
            }
            if name.contains('\0') || value.contains('\0') {
                return Err(CliError::BadEnv {
                    problem: format!(
                        "--env {:?}: the name or the value holds a NUL character, which no \
                         environment variable can hold",
                        name.replace('\0', "\\0")
                    ),
                });
            }
        }
        for name in &self.pass_env {
            if let Some((before, _)) = name.split_once('=') {
                return Err(CliError::BadEnv {
                    problem: format!(
                        "--pass-env takes a variable name, not NAME=VALUE; to set a value, use \
                         --env {before}=VALUE"
                    ),
                });
            }
            if name.is_empty() || name.contains('\0') {
                return Err(CliError::BadEnv {
                    problem: format!(
                        "--pass-env has the variable name {:?}; a name must be non-empty, \
                         without `=` or NUL",
                        name.replace('\0', "\\0")
                    ),
                });
            }
        }
        Ok(())
    }
}

/// The `NAME` of each leading `NAME=VALUE` argument when `program` is the `env` utility
/// (`env [-i] [-u NAME] NAME=VALUE… server …`), in order: a snapshot records these
/// arguments, and so the values, in its `source`.
pub fn env_wrapper_assignments<'a>(program: &str, args: &'a [String]) -> Vec<&'a str> {
    let is_env = std::path::Path::new(program)
        .file_name()
        .is_some_and(|n| n == "env");
    if !is_env {
        return Vec::new();
    }
    let mut names = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        if arg == "-u" || arg == "--unset" || arg == "-C" || arg == "--chdir" {
            args.next(); // the option's operand
        } else if arg.starts_with('-') {
            continue;
        } else if let Some((name, _)) = arg.split_once('=')
            && !name.is_empty()
        {
            names.push(name);
        } else {
            break; // the command: the rest are its arguments
        }
    }
    names
}

/// Warns on stderr when a snapshot's `source` records `env NAME=VALUE` assignments, naming
/// the variables only.
pub fn warn_env_wrapper(program: &str, args: &[String]) {
    warn_argument_secrets(program, args);
    let names = env_wrapper_assignments(program, args);
    if !names.is_empty() {
        eprintln!(
            "oma-mcp: warning: the snapshot's source records the `env` assignments of {}, \
             values included; if one is a secret, take the snapshot again with --env NAME=VALUE \
             or --pass-env NAME instead (never recorded)",
            terminal::safe(&names.join(", "))
        );
    }
}

/// Warns about each argument of a snapshot's source command that holds a credential
/// ([`crate::secrets::argument_secrets`]), naming it without its value; the `env` wrapper's
/// assignments have their own warning ([`warn_env_wrapper`]).
fn warn_argument_secrets(program: &str, args: &[String]) {
    if !env_wrapper_assignments(program, args).is_empty() {
        return;
    }
    for (i, what) in crate::secrets::argument_secrets(args) {
        eprintln!(
            "oma-mcp: warning: argument {i} of the snapshot's source command {}, and the \
             snapshot records it; give the server that value from an environment variable \
             (--env NAME=VALUE, --pass-env NAME or the manifest's `pass-env`; never recorded), \
             take the snapshot again, and rotate the credential if the file was shared",
            terminal::safe(&what)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|a| (*a).to_owned()).collect()
    }

    #[test]
    fn env_wrapper_assignments_are_the_leading_name_value_arguments() {
        let args = strings(&["-i", "-u", "HOME", "TOKEN=s", "MODE=x", "server", "A=B"]);
        assert_eq!(env_wrapper_assignments("env", &args), ["TOKEN", "MODE"]);
        assert_eq!(
            env_wrapper_assignments("/usr/bin/env", &strings(&["=x", "A=1"])),
            Vec::<&str>::new()
        );
        assert_eq!(
            env_wrapper_assignments("server", &strings(&["A=1"])),
            Vec::<&str>::new()
        );
    }

    #[test]
    fn a_bad_env_names_the_flag_and_never_the_value() {
        let err = |env: &[&str], pass: &[&str]| {
            ServerEnv {
                env: env.iter().map(|e| Assignment((*e).to_owned())).collect(),
                pass_env: strings(pass),
            }
            .apply(ConnectConfig::new("x"))
            .map(|_| ())
            .map_err(|e| e.to_string())
        };
        assert_eq!(
            err(&["TOKEN"], &[]),
            Err(
                "--env \"TOKEN\" has no `=`; give --env TOKEN=VALUE, or copy the variable from \
                 this environment with --pass-env TOKEN"
                    .to_owned()
            )
        );
        assert_eq!(
            err(&["=s3cr3t"], &[]),
            Err(
                "--env has an empty variable name (the argument starts with `=`); give NAME=VALUE"
                    .to_owned()
            )
        );
        assert_eq!(
            err(&["A=s3\0cr3t"], &[]),
            Err(
                "--env \"A\": the name or the value holds a NUL character, which no environment \
                 variable can hold"
                    .to_owned()
            )
        );
        assert_eq!(
            err(&[], &["TOKEN=s3cr3t"]),
            Err(
                "--pass-env takes a variable name, not NAME=VALUE; to set a value, use --env \
                 TOKEN=VALUE"
                    .to_owned()
            )
        );
        assert_eq!(
            err(&[], &[""]),
            Err(
                "--pass-env has the variable name \"\"; a name must be non-empty, without `=` \
                 or NUL"
                    .to_owned()
            )
        );
        assert_eq!(err(&["A=1=2", "B="], &["HOME"]), Ok(()));
        let config = ServerEnv {
            env: vec![Assignment("A=1=2".to_owned())],
            pass_env: strings(&["HOME"]),
        }
        .apply(ConnectConfig::new("x").with_env("A", "old"));
        let config = config.map_err(|e| e.to_string());
        assert_eq!(
            config.map(|c| (c.env.get("A").cloned(), c.pass_env)),
            Ok((Some("1=2".to_owned()), vec!["HOME".to_owned()]))
        );
        assert_eq!(
            format!("{:?}", Assignment("TOKEN=s3cr3t".to_owned())),
            "Assignment(\"TOKEN\"=…)"
        );
    }
}
