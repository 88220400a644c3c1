//! `oma-mcp auth status`: the stored OAuth logins (server, authorization server, client,
//! scopes, expiry), never a token.

use clap::{Args, Subcommand};
use oma_mcp_runtime::oauth::{LoginStore, SecretsIn};
use serde_json::{Value, json};

use super::logout::store_error;
use crate::error::CliError;
use crate::exit::Outcome;
use crate::flags::Format;
use crate::output::{pretty, print};
use crate::terminal;

/// Flags of `auth`.
#[derive(Debug, Args)]
pub struct AuthArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: AuthCommand,
}

/// The subcommands of `auth`.
#[derive(Debug, Subcommand)]
pub enum AuthCommand {
    /// List the stored logins: server, authorization server, client id, scopes, when the
    /// access token expires, whether a refresh token is held, or why a login is stale (its
    /// refresh refused: log in again). Never a token.
    Status {
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
}

/// Runs `auth`.
pub fn run(args: &AuthArgs) -> Result<Outcome, CliError> {
    let AuthCommand::Status { format } = args.command;
    let store = LoginStore::locate().map_err(store_error)?;
    let logins = store.list().map_err(store_error)?;
    let rows: Vec<Value> = logins
        .iter()
        .map(|(file, l)| {
            json!({
                "server": l.server,
                "file": file,
                "secrets": l.secrets,
                "issuer": l.issuer,
                "clientId": l.client_id,
                "scopes": l.scopes(),
                "expiresAt": l.expires_at(),
                "refreshToken": l.has_refresh_token(),
                "stale": l.stale,
            })
        })
        .collect();
    let text = match format {
        Format::Json => pretty(&json!({
            "store": store.dir(),
            "secretsIn": store.secrets_location(),
            "logins": rows,
        })),
        Format::Text if logins.is_empty() => {
            format!("no stored logins (in {})\n", store.dir().display())
        }
        Format::Text => {
            let mut text = format!("stored logins (in {}):\n", store.dir().display());
            for (file, l) in &logins {
                let expiry = match l.expires_at() {
                    Some(at) if at <= now() => "access token expired".to_owned(),
                    Some(at) => format!("access token expires in {}", remaining(at)),
                    None => "access token expiry unknown".to_owned(),
                };
                let tokens = match &l.stale {
                    Some(reason) => format!(
                        "stale login ({}): no token held; log in again (`oma-mcp login`)",
                        terminal::safe(reason)
                    ),
                    None if l.has_refresh_token() => format!("{expiry}; refresh token held"),
                    None => format!("{expiry}; no refresh token (log in again when it expires)"),
                };
                text.push_str(&format!(
                    "  {}\n    authorization server {}, client {}\n    scopes: {}; {tokens}\n    \
                     file: {}{}\n",
                    terminal::safe(&l.server),
                    terminal::safe(l.issuer.as_deref().unwrap_or("(no issuer)")),
                    terminal::safe(&l.client_id),
                    if l.scopes().is_empty() {
                        "(none)".to_owned()
                    } else {
                        terminal::safe(&l.scopes().join(" "))
                    },
                    terminal::safe(&file.display().to_string()),
                    match l.secrets {
                        SecretsIn::Keyring => " (tokens in the system keyring)".to_owned(),
                        SecretsIn::File => String::new(),
                    }
                ));
            }
            text
        }
    };
    print(&text)?;
    Ok(Outcome::Success)
}

/// Seconds since the Unix epoch, now.
fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// How long until `at` (seconds since the Unix epoch): `59 s`, `12 min`, `3 h 5 min`, `2 d`.
pub fn remaining(at: u64) -> String {
    let secs = at.saturating_sub(now());
    match secs {
        0..60 => format!("{secs} s"),
        60..3600 => format!("{} min", secs / 60),
        3600..86_400 => format!("{} h {} min", secs / 3600, secs % 3600 / 60),
        _ => format!("{} d", secs / 86_400),
    }
}
