//! `[servers.<name>.oauth]`: OAuth for a server reached by `url` (MCP "Authorization"). The
//! table holds no secret: a client secret comes from an environment variable
//! (`client-secret-env`), and a key that would hold one is refused.

use oma_mcp_core::config::{OAuthConfig, OAuthGrant};
use serde::Deserialize;

/// `[servers.<name>.oauth]`: how the client obtains an OAuth access token for the server
/// (`url` pins only). Without `client-id`/`client-id-env` the client registers itself
/// (dynamic client registration) or uses `client-metadata-url` where the authorization server
/// supports Client ID Metadata Documents.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawOAuth {
    /// How the client obtains its tokens (default: `"authorization-code"`).
    #[serde(default)]
    grant: RawGrant,
    /// A client id registered with the authorization server beforehand (not a secret).
    client_id: Option<String>,
    /// An environment variable holding the pre-registered client id.
    client_id_env: Option<String>,
    /// An environment variable holding the client secret, read when connecting.
    client_secret_env: Option<String>,
    /// An environment variable holding a PEM private key (RSA or EC) for `private_key_jwt`
    /// (RFC 7523) in the client credentials grant, instead of a secret; needs
    /// oma-mcp-runtime's cargo feature `oauth-jwt`.
    private_key_env: Option<String>,
    /// The JWT signing algorithm of `private-key-env`: `"RS256"` (default), `"RS384"`,
    /// `"RS512"`, `"ES256"` or `"ES384"`.
    signing_algorithm: Option<String>,
    /// The HTTPS URL of this client's Client ID Metadata Document, used as its client id
    /// where the authorization server supports it.
    client_metadata_url: Option<String>,
    /// The scopes to request (default: those the server's challenge or metadata names).
    #[serde(default)]
    scopes: Vec<String>,
    /// Refused: a manifest is committed, so it never holds a secret (use
    /// `client-secret-env`).
    #[cfg_attr(feature = "json-schema", schemars(skip))]
    client_secret: Option<toml::Value>,
}

/// `grant`: the OAuth grant.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
enum RawGrant {
    /// The authorization code grant with PKCE: a user logs in once with `oma-mcp login`, and
    /// the tokens are refreshed from then on.
    #[default]
    AuthorizationCode,
    /// The client credentials grant, for machines (CI, build servers): needs `client-id` or
    /// `client-id-env`, and `client-secret-env` or `private-key-env`.
    ClientCredentials,
}

/// The OAuth settings of `servers.<name>`, or the message of what is wrong: a secret in the
/// table, a client credentials grant without its client id or secret, both `client-id` and
/// `client-id-env`, a variable name that cannot be one, a metadata URL that is not HTTPS.
/// Errors name `oma-mcp login <name>` as the command that logs in.
pub(super) fn oauth(name: &str, raw: &RawOAuth) -> Result<OAuthConfig, String> {
    if raw.client_secret.is_some() {
        return Err(format!(
            "servers.{name}.oauth.client-secret would put a secret in the manifest, which is \
             committed; put the secret in an environment variable and name it with \
             `client-secret-env = \"VAR\"`"
        ));
    }
    if raw.client_id.is_some() && raw.client_id_env.is_some() {
        return Err(format!(
            "servers.{name}.oauth has both `client-id` and `client-id-env`; keep one"
        ));
    }
    for (key, var) in [
        ("client-id-env", &raw.client_id_env),
        ("client-secret-env", &raw.client_secret_env),
        ("private-key-env", &raw.private_key_env),
    ] {
        if let Some(var) = var
            && (var.is_empty() || var.contains(['=', '\0']))
        {
            return Err(format!(
                "servers.{name}.oauth.{key} has the variable name {var:?}; a name must be \
                 non-empty, without `=` or NUL"
            ));
        }
    }
    if let Some(url) = &raw.client_metadata_url
        && !url::Url::parse(url).is_ok_and(|u| u.scheme() == "https" && u.path() != "/")
    {
        return Err(format!(
            "servers.{name}.oauth.client-metadata-url = {url:?} is not an https URL with a \
             path; a Client ID Metadata Document is served over HTTPS at a path of its own"
        ));
    }
    if let Some(scope) = raw
        .scopes
        .iter()
        .find(|s| s.is_empty() || s.contains(char::is_whitespace))
    {
        return Err(format!(
            "servers.{name}.oauth.scopes has {scope:?}; a scope is one non-empty word (list \
             several as separate strings)"
        ));
    }
    let grant = match raw.grant {
        RawGrant::AuthorizationCode => OAuthGrant::AuthorizationCode,
        RawGrant::ClientCredentials => OAuthGrant::ClientCredentials,
    };
    if let Some(algorithm) = &raw.signing_algorithm {
        if raw.private_key_env.is_none() {
            return Err(format!(
                "servers.{name}.oauth.signing-algorithm belongs to `private-key-env`, which is \
                 not set"
            ));
        }
        const ALGORITHMS: [&str; 5] = ["RS256", "RS384", "RS512", "ES256", "ES384"];
        if !ALGORITHMS.contains(&algorithm.as_str()) {
            return Err(format!(
                "servers.{name}.oauth.signing-algorithm = {algorithm:?} is not one of {}",
                ALGORITHMS.join(", ")
            ));
        }
    }
    if grant == OAuthGrant::ClientCredentials
        && (raw.client_id.is_none() && raw.client_id_env.is_none()
            || raw.client_secret_env.is_none() && raw.private_key_env.is_none())
    {
        return Err(format!(
            "servers.{name}.oauth: the client credentials grant needs the client's id \
             (`client-id` or `client-id-env`) and its secret (`client-secret-env`) or key \
             (`private-key-env`)"
        ));
    }
    let mut config = OAuthConfig::authorization_code()
        .with_grant(grant)
        .with_scopes(raw.scopes.clone())
        .with_login_command(format!("oma-mcp login {name}"));
    if let Some(id) = &raw.client_id {
        config = config.with_client_id(id.clone());
    }
    if let Some(var) = &raw.client_id_env {
        config = config.with_client_id_env(var.clone());
    }
    if let Some(var) = &raw.client_secret_env {
        config = config.with_client_secret_env(var.clone());
    }
    if let Some(url) = &raw.client_metadata_url {
        config = config.with_client_metadata_url(url.clone());
    }
    if let Some(var) = &raw.private_key_env {
        config = config.with_private_key_env(var.clone(), raw.signing_algorithm.as_deref());
    }
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<OAuthConfig, String> {
        let raw: RawOAuth = toml::from_str(text).map_err(|e| e.to_string())?;
        oauth("s", &raw)
    }

    #[test]
    fn an_empty_table_is_the_authorization_code_grant() {
        let config = parse("").unwrap();
        assert_eq!(config.grant, OAuthGrant::AuthorizationCode);
        assert_eq!(config.login_command.as_deref(), Some("oma-mcp login s"));
        assert_eq!(config.client_id, None);
    }

    #[test]
    fn client_credentials_read_their_variables() {
        let config = parse(
            "grant = \"client-credentials\"\nclient-id-env = \"ID\"\nclient-secret-env = \
             \"SECRET\"\nscopes = [\"mcp:read\"]",
        )
        .unwrap();
        assert_eq!(config.grant, OAuthGrant::ClientCredentials);
        assert_eq!(config.client_id_env.as_deref(), Some("ID"));
        assert_eq!(config.client_secret_env.as_deref(), Some("SECRET"));
        assert_eq!(config.scopes, ["mcp:read"]);
    }

    #[test]
    fn bad_tables_are_refused_with_what_to_do() {
        for (text, message) in [
            (
                "client-secret = \"abc\"",
                "servers.s.oauth.client-secret would put a secret in the manifest, which is \
                 committed; put the secret in an environment variable and name it with \
                 `client-secret-env = \"VAR\"`",
            ),
            (
                "grant = \"client-credentials\"\nclient-id = \"c\"",
                "servers.s.oauth: the client credentials grant needs the client's id \
                 (`client-id` or `client-id-env`) and its secret (`client-secret-env`) or key \
                 (`private-key-env`)",
            ),
            (
                "client-id = \"c\"\nclient-id-env = \"C\"",
                "servers.s.oauth has both `client-id` and `client-id-env`; keep one",
            ),
            (
                "client-secret-env = \"A=B\"",
                "servers.s.oauth.client-secret-env has the variable name \"A=B\"; a name must \
                 be non-empty, without `=` or NUL",
            ),
            (
                "client-metadata-url = \"http://c.example/m.json\"",
                "servers.s.oauth.client-metadata-url = \"http://c.example/m.json\" is not an \
                 https URL with a path; a Client ID Metadata Document is served over HTTPS at a \
                 path of its own",
            ),
            (
                "scopes = [\"a b\"]",
                "servers.s.oauth.scopes has \"a b\"; a scope is one non-empty word (list \
                 several as separate strings)",
            ),
        ] {
            assert_eq!(parse(text).unwrap_err(), message, "{text}");
        }
    }
}
