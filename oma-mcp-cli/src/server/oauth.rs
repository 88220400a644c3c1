//! OAuth for a server reached by URL: the flags (`--client-credentials`, `--client-id`,
//! `--client-id-env`, `--client-secret-env`, `--scope`) over the manifest's `oauth` table,
//! and the settings every command that connects uses. A server reached by URL without
//! `--bearer-env` (or an `Authorization` from `--header-env`) always gets OAuth: a stored
//! login (`oma-mcp login`) is used and refreshed, and a server that asks for a login without
//! one fails with the command that logs in. A server that does not ask sees no difference.

use std::path::Path;

use oma_mcp_build::manifest::{DEFAULT_MANIFEST, ServerPin};
use oma_mcp_runtime::ConnectConfig;
use oma_mcp_runtime::connect::{OAuthConfig, OAuthGrant, redact_url};

use crate::error::CliError;

/// The OAuth flags of a server reached by URL.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct OAuthFlags {
    /// Authorize with the OAuth client credentials grant (machines: CI, build servers)
    /// instead of a stored login; needs --client-id or --client-id-env, and
    /// --client-secret-env. Replaces the manifest's `oauth.grant`.
    #[arg(long)]
    pub client_credentials: bool,
    /// A client id registered with the authorization server beforehand (not a secret).
    #[arg(long, value_name = "ID", conflicts_with = "client_id_env")]
    pub client_id: Option<String>,
    /// The environment variable that holds the pre-registered client id.
    #[arg(long, value_name = "VAR")]
    pub client_id_env: Option<String>,
    /// The environment variable that holds the client secret (never printed, never stored
    /// by oma-mcp).
    #[arg(long, value_name = "VAR")]
    pub client_secret_env: Option<String>,
    /// The environment variable that holds a PEM private key (RSA or EC): the client
    /// credentials grant then authenticates with a signed JWT (`private_key_jwt`, RFC 7523)
    /// instead of a secret.
    #[arg(long, value_name = "VAR")]
    pub private_key_env: Option<String>,
    /// The JWT signing algorithm of --private-key-env: RS256 (default), RS384, RS512, ES256
    /// or ES384.
    #[arg(long, value_name = "ALG", requires = "private_key_env")]
    pub signing_algorithm: Option<String>,
    /// An OAuth scope to request (repeatable; default: what the server asks for).
    #[arg(long = "scope", value_name = "SCOPE")]
    pub scopes: Vec<String>,
}

impl OAuthFlags {
    /// The flags given, in their help order.
    pub fn given(&self) -> Vec<&'static str> {
        [
            self.client_credentials.then_some("--client-credentials"),
            self.client_id.is_some().then_some("--client-id"),
            self.client_id_env.is_some().then_some("--client-id-env"),
            self.client_secret_env
                .is_some()
                .then_some("--client-secret-env"),
            self.private_key_env
                .is_some()
                .then_some("--private-key-env"),
            (!self.scopes.is_empty()).then_some("--scope"),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// `base` (the manifest's `oauth` table, or the defaults) with these flags over it.
    ///
    /// # Errors
    /// [`CliError::BadHttpFlag`] for a client credentials grant without its client id or
    /// secret, or a scope that is not one word.
    pub fn over(&self, base: OAuthConfig) -> Result<OAuthConfig, CliError> {
        let bad = |problem: &str| CliError::BadHttpFlag {
            problem: problem.to_owned(),
        };
        let mut config = base;
        if self.client_credentials {
            config = config.with_grant(OAuthGrant::ClientCredentials);
        }
        if let Some(id) = &self.client_id {
            config.client_id_env = None;
            config = config.with_client_id(id.clone());
        }
        if let Some(var) = &self.client_id_env {
            config.client_id = None;
            config = config.with_client_id_env(var.clone());
        }
        if let Some(var) = &self.client_secret_env {
            config = config.with_client_secret_env(var.clone());
        }
        if let Some(var) = &self.private_key_env {
            config = config.with_private_key_env(var.clone(), self.signing_algorithm.as_deref());
        }
        if !self.scopes.is_empty() {
            if self
                .scopes
                .iter()
                .any(|s| s.is_empty() || s.contains(char::is_whitespace))
            {
                return Err(bad(
                    "--scope takes one scope (a non-empty word); repeat it for several",
                ));
            }
            config = config.with_scopes(self.scopes.clone());
        }
        if config.grant == OAuthGrant::ClientCredentials
            && (config.client_id.is_none() && config.client_id_env.is_none()
                || config.client_secret_env.is_none() && config.private_key_env.is_none())
        {
            return Err(bad(
                "the client credentials grant needs the client's id (--client-id or \
                 --client-id-env) and its secret (--client-secret-env) or key \
                 (--private-key-env)",
            ));
        }
        Ok(config)
    }
}

/// The command that logs in to the server of `pin` (of the manifest at `manifest`), or to
/// the server at `url`.
pub fn login_command(pin: Option<(&Path, &ServerPin)>, url: &str) -> String {
    match pin {
        Some((path, pin)) if path == Path::new(DEFAULT_MANIFEST) => {
            format!("oma-mcp login {}", pin.name)
        }
        Some((path, pin)) => format!("oma-mcp login {} --manifest {}", pin.name, path.display()),
        None => format!("oma-mcp login --url {}", redact_url(url)),
    }
}

/// Whether `config` sends an `Authorization` header of its own (`--bearer-env`, the
/// manifest's `bearer-env`, or `Authorization` from `header-env`).
pub fn has_authorization(config: &ConnectConfig) -> bool {
    config.bearer_env.is_some()
        || config
            .header_env
            .keys()
            .any(|h| h.eq_ignore_ascii_case("authorization"))
}

/// `config` (a server reached by URL) with OAuth: the pin's table (or the defaults) under
/// `flags`, errors naming `login`. Unchanged when it sends an `Authorization` header of its
/// own and no OAuth flag is given, but for the optional OAuth of a pin without credentials
/// (`ServerPin::connect_config`), which a credential flag replaces.
///
/// # Errors
/// As [`OAuthFlags::over`]; [`CliError::BadHttpFlag`] when OAuth flags meet a credential
/// header.
pub fn with_oauth(
    mut config: ConnectConfig,
    pin: Option<&ServerPin>,
    flags: &OAuthFlags,
    login: String,
) -> Result<ConnectConfig, CliError> {
    if config.url.is_none() {
        return Ok(config);
    }
    if has_authorization(&config) {
        if let Some(flag) = flags.given().first() {
            return Err(CliError::BadHttpFlag {
                problem: format!(
                    "{flag} sets up OAuth, and the server already gets an `Authorization` \
                     header from --bearer-env, --header-env or the manifest; keep one"
                ),
            });
        }
        if config.oauth.as_ref().is_some_and(|o| o.optional) {
            config.oauth = None;
        }
        return Ok(config);
    }
    let base = pin
        .and_then(|p| p.oauth.clone())
        .unwrap_or_else(OAuthConfig::authorization_code)
        .with_login_command(login);
    let oauth = flags.over(base)?;
    Ok(config.with_oauth(oauth))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_override_the_table() {
        let flags = OAuthFlags {
            client_credentials: true,
            client_id: Some("ci-client".to_owned()),
            client_secret_env: Some("CI_SECRET".to_owned()),
            scopes: vec!["mcp:read".to_owned()],
            ..OAuthFlags::default()
        };
        let config = flags
            .over(OAuthConfig::authorization_code().with_client_id_env("OLD"))
            .unwrap();
        assert_eq!(config.grant, OAuthGrant::ClientCredentials);
        assert_eq!(config.client_id.as_deref(), Some("ci-client"));
        assert_eq!(config.client_id_env, None);
        assert_eq!(config.client_secret_env.as_deref(), Some("CI_SECRET"));
        assert_eq!(config.scopes, ["mcp:read"]);
        assert_eq!(
            flags.given(),
            [
                "--client-credentials",
                "--client-id",
                "--client-secret-env",
                "--scope"
            ]
        );
    }

    #[test]
    fn client_credentials_need_an_id_and_a_secret() {
        let flags = OAuthFlags {
            client_credentials: true,
            client_id: Some("c".to_owned()),
            ..OAuthFlags::default()
        };
        assert_eq!(
            flags
                .over(OAuthConfig::authorization_code())
                .unwrap_err()
                .to_string(),
            "the client credentials grant needs the client's id (--client-id or \
             --client-id-env) and its secret (--client-secret-env) or key (--private-key-env)"
        );
    }

    #[test]
    fn a_bearer_variable_keeps_oauth_off() {
        let config = ConnectConfig::http("https://h.example/mcp").with_bearer_env("TOKEN");
        let kept = with_oauth(config, None, &OAuthFlags::default(), "x".to_owned()).unwrap();
        assert_eq!(kept.oauth, None);
        let flags = OAuthFlags {
            scopes: vec!["a".to_owned()],
            ..OAuthFlags::default()
        };
        let config = ConnectConfig::http("https://h.example/mcp").with_bearer_env("TOKEN");
        assert!(with_oauth(config, None, &flags, "x".to_owned()).is_err());
        // `--bearer-env` over a pin without credentials: its optional OAuth goes.
        let pinned = ConnectConfig::http("https://h.example/mcp")
            .with_oauth(OAuthConfig::authorization_code().with_optional(true))
            .with_bearer_env("TOKEN");
        let kept = with_oauth(pinned, None, &OAuthFlags::default(), "x".to_owned()).unwrap();
        assert_eq!(kept.oauth, None);
        let plain = with_oauth(
            ConnectConfig::http("https://h.example/mcp?key=k1"),
            None,
            &OAuthFlags::default(),
            login_command(None, "https://h.example/mcp?key=k1"),
        )
        .unwrap();
        assert_eq!(
            plain.oauth.unwrap().login_command.as_deref(),
            Some("oma-mcp login --url https://h.example/mcp?key=***")
        );
    }
}
