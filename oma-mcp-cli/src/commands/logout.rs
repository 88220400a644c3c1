//! `oma-mcp logout`: removes a stored OAuth login.

use std::path::PathBuf;

use clap::Args;
use oma_mcp_build::manifest::{DEFAULT_MANIFEST, Manifest};
use oma_mcp_runtime::connect::redact_url;
use oma_mcp_runtime::oauth::FileStore;

use crate::error::CliError;
use crate::exit::Outcome;
use crate::server::http::{Unchecked, checked_url, unchecked};
use crate::server::resolve::server_hint;

/// Flags of `logout`.
#[derive(Debug, Args)]
pub struct LogoutArgs {
    /// The server's name in the manifest (default: its only server).
    #[arg(value_name = "SERVER", conflicts_with_all = ["url", "all"])]
    pub server: Option<String>,
    /// The manifest that pins the server (default: ./oma-mcp.toml).
    #[arg(long, value_name = "PATH", conflicts_with_all = ["url", "all"])]
    pub manifest: Option<PathBuf>,
    /// The streamable HTTP endpoint of the server, instead of a manifest's pin.
    #[arg(long, value_name = "URL", value_parser = unchecked, conflicts_with = "all")]
    pub url: Option<Unchecked>,
    /// Remove every stored login.
    #[arg(long)]
    pub all: bool,
}

/// Runs `logout`: the stored login of the server (or every one with `--all`) is removed from
/// the credential store; the tokens are not revoked at the authorization server.
pub fn run(args: &LogoutArgs) -> Result<Outcome, CliError> {
    let store = FileStore::locate().map_err(store_error)?;
    if args.all {
        let logins = store.list().map_err(store_error)?;
        let mut removed = 0;
        for entry in std::fs::read_dir(store.dir())
            .into_iter()
            .flatten()
            .flatten()
        {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "json") && std::fs::remove_file(&path).is_ok()
            {
                removed += 1;
            }
        }
        eprintln!(
            "oma-mcp: removed {removed} stored login(s){}",
            if logins.is_empty() {
                String::new()
            } else {
                format!(
                    " ({})",
                    logins
                        .iter()
                        .map(|(_, l)| l.server.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        );
        return Ok(Outcome::Success);
    }
    let (url, label) = match &args.url {
        Some(url) => {
            let url = checked_url(url)?;
            let label = redact_url(&url);
            (url, label)
        }
        None => {
            let path = args
                .manifest
                .clone()
                .unwrap_or_else(|| PathBuf::from(DEFAULT_MANIFEST));
            let manifest = Manifest::read(&path)?;
            let pin = manifest
                .single(args.server.as_deref())
                .map_err(server_hint)?;
            let Some(url) = pin.url.clone() else {
                return Err(CliError::BadInput {
                    reason: format!(
                        "server `{}` of {} is started by a command and has no login",
                        pin.name,
                        path.display()
                    ),
                });
            };
            (url, format!("`{}` ({})", pin.name, pin.target()))
        }
    };
    if store.remove(&url).map_err(store_error)? {
        eprintln!("oma-mcp: logged out of {label} (the stored login was removed)");
    } else {
        eprintln!("oma-mcp: no login is stored for {label}");
    }
    Ok(Outcome::Success)
}

/// A credential store error as the CLI reports it.
pub fn store_error(e: oma_mcp_runtime::oauth::StoreError) -> CliError {
    CliError::BadInput {
        reason: e.to_string(),
    }
}
