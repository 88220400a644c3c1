//! `oma-mcp login`: the OAuth authorization code grant for a server reached by URL, through a
//! browser (or a URL to open elsewhere), the login kept in the credential store for every
//! later command.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use oma_mcp_runtime::ConnectConfig;
use oma_mcp_runtime::connect::{Authorizer, OAuthConfig, OAuthGrant};
use oma_mcp_runtime::oauth::{LoginStore, SecretsIn};

use crate::error::CliError;
use crate::exit::Outcome;
use crate::loopback::{Loopback, can_open_browser};
use crate::server::connect::{cli_client, connect, stop_listed};
use crate::server::http::{HttpFlags, Unchecked, checked_url, unchecked};
use crate::server::kind::Flags;
use crate::server::oauth::login_command;
use crate::server::resolve::login_target;

/// Flags of `login`.
#[derive(Debug, Args)]
pub struct LoginArgs {
    /// The server's name in the manifest (default: its only server).
    #[arg(value_name = "SERVER", conflicts_with = "url")]
    pub server: Option<String>,
    /// The manifest that pins the server (default: ./oma-mcp.toml).
    #[arg(long, value_name = "PATH", conflicts_with = "url")]
    pub manifest: Option<PathBuf>,
    /// The streamable HTTP endpoint of the server, instead of a manifest's pin.
    #[arg(long, value_name = "URL", value_parser = unchecked)]
    pub url: Option<Unchecked>,
    /// Do not open a browser: only print the URL to open (also when `CI` is set, or on
    /// Linux without a display).
    #[arg(long)]
    pub no_browser: bool,
    /// How long to wait for the browser's redirect, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    pub timeout_secs: u64,
    /// HTTP headers and OAuth client settings for the server.
    #[command(flatten)]
    pub http: HttpFlags,
}

/// Runs `login`: drops the stored login of the server, connects with OAuth and a loopback
/// redirect, so that the server's `401` starts the authorization code grant, and reports
/// what was stored.
pub async fn run(args: LoginArgs) -> Result<Outcome, CliError> {
    let no_env = crate::server::env::ServerEnv::default();
    let flags = Flags::validate(&no_env, &args.http)?;
    let url = args.url.as_ref().map(checked_url).transpose()?;
    let (config, label) = login_target(
        url,
        args.manifest.clone(),
        args.server.as_deref(),
        "; a login is for a server reached by `url`",
        |pin, url, label| {
            let pinned = match pin {
                Some((_, pin)) => cli_client(pin.connect_config(), Some(pin)),
                None => cli_client(ConnectConfig::http(url), None),
            };
            Ok((flags.apply(pinned, pin)?, label))
        },
    )?;
    let url = config.url.clone().unwrap_or_default();
    let Some(oauth) = config.oauth.clone() else {
        return Err(CliError::BadInput {
            reason: format!(
                "{label} gets an `Authorization` header from --bearer-env, --header-env or the \
                 manifest; a login replaces it: remove that setting first"
            ),
        });
    };
    if oauth.grant == OAuthGrant::ClientCredentials {
        return Err(CliError::BadInput {
            reason: format!(
                "{label} uses the client credentials grant, which needs no login: every \
                 command obtains a token with the client's id and secret"
            ),
        });
    }
    let store = LoginStore::locate().map_err(|e| CliError::BadInput {
        reason: e.to_string(),
    })?;
    store.remove(&url).map_err(|e| CliError::BadInput {
        reason: e.to_string(),
    })?;
    let browser = !args.no_browser && can_open_browser();
    let loopback = Loopback::bind(
        label.clone(),
        browser,
        Duration::from_secs(args.timeout_secs.max(1)),
    )
    .await
    .map_err(|e| CliError::BadInput {
        reason: format!("cannot listen on 127.0.0.1 for the browser's redirect: {e}"),
    })?;
    let oauth: OAuthConfig = oauth.with_authorizer(Authorizer::new(loopback));
    let client = connect(config.with_oauth(oauth)).await?;
    stop_listed(&client).await;
    let stored = store.load(&url).map_err(|e| CliError::BadInput {
        reason: e.to_string(),
    })?;
    match stored {
        Some(login) => {
            let scopes = if login.scopes().is_empty() {
                "no scope".to_owned()
            } else {
                login.scopes().join(" ")
            };
            eprintln!(
                "oma-mcp: logged in to {label} ({scopes}{}{}); stored in {}",
                login
                    .expires_at()
                    .map(|at| format!(
                        ", access token expires in {}",
                        crate::commands::auth::remaining(at)
                    ))
                    .unwrap_or_default(),
                if login.has_refresh_token() {
                    ", refreshed as needed"
                } else {
                    ""
                },
                match login.secrets {
                    SecretsIn::Keyring => format!(
                        "{} (the rest in {})",
                        store.secrets_location(),
                        store.dir().display()
                    ),
                    SecretsIn::File => store.dir().display().to_string(),
                }
            );
        }
        None => eprintln!(
            "oma-mcp: {label} did not ask for a login (it answered without OAuth); nothing was \
             stored. `{}` is not needed for it",
            login_command(None, &url)
        ),
    }
    Ok(Outcome::Success)
}
