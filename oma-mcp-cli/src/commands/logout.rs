//! `oma-mcp logout`: removes a stored OAuth login.

use std::path::PathBuf;

use clap::Args;
use oma_mcp_runtime::oauth::LoginStore;

use crate::error::CliError;
use crate::exit::Outcome;
use crate::server::http::{Unchecked, checked_url, unchecked};
use crate::server::resolve::login_target;

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
    let store = LoginStore::locate().map_err(store_error)?;
    if args.all {
        let logins = store.list().map_err(store_error)?;
        let mut removed = 0;
        for (path, _) in &logins {
            if store.remove_file(path).map_err(store_error)? {
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
    let url = args.url.as_ref().map(checked_url).transpose()?;
    let (url, label) = login_target(
        url,
        args.manifest.clone(),
        args.server.as_deref(),
        " and has no login",
        |_, url, label| Ok((url, label)),
    )?;
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
