//! What the OAuth client tells a user who holds no usable token: to log in (naming the
//! credential store it looked in, and under CI the client credentials grant), that the server
//! takes a token of its own instead, or that a refused refresh made the stored login stale.
//! Library words: the login command a pin names, manifest keys and builder methods, never a
//! command-line flag.

use oma_mcp_core::config::AuthFailure;
use rmcp::transport::AuthError;

use super::store::LoginStore;
use crate::error::TOKEN_SETTINGS;

/// The reason a login is stale after its refresh was refused with `code` (`invalid_grant`,
/// `invalid_client`), as it is stored and shown.
pub(super) fn stale_reason(code: &str) -> String {
    match code {
        "invalid_client" => "the authorization server refused its client when refreshing the \
                             token (invalid_client)"
            .to_owned(),
        _ => format!("the authorization server refused its refresh token ({code})"),
    }
}

/// The OAuth error code of a refresh that the authorization server refused for good, so that
/// only a new login helps: `invalid_grant` (the refresh token is invalid, expired or revoked;
/// rmcp's `TokenRefreshRejected`) or `invalid_client` (the client is unknown or failed to
/// authenticate, as after the authorization server lost its registrations); `None` for other
/// failures, which a retry may cure.
pub(super) fn refused_refresh(error: &AuthError) -> Option<&'static str> {
    match error {
        AuthError::TokenRefreshRejected(_) => Some("invalid_grant"),
        // oauth2's `Server returned error response: invalid_client: <description>`.
        AuthError::TokenRefreshFailed(text) if text.contains("error response: invalid_client") => {
            Some("invalid_client")
        }
        _ => None,
    }
}

/// How to log in with `login` (the command a pin names), `again` or the first time; without a
/// command, what a library user can do.
pub(super) fn log_in(login: Option<&str>, again: bool) -> String {
    let again = if again { " again" } else { "" };
    match login {
        Some(command) => format!("run `{command}`{again}"),
        None => format!(
            "log in to this URL{again} with `oma-mcp login`, or let the connection ask the user \
             (`OAuthConfig::with_authorizer`)"
        ),
    }
}

/// Whether the `CI` environment variable is set (to anything but empty, `0` or `false`).
fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false"))
}

/// What CI can do instead of a login, after `; `: empty outside CI.
fn under_ci() -> &'static str {
    if in_ci() {
        "; in CI, where no one can log in, use the client credentials grant where the server \
         offers it (manifest `[servers.<name>.oauth]` with `grant = \"client-credentials\"`, \
         `client-id-env` and `client-secret-env`; `OAuthConfig::client_credentials`), or give \
         CI a stored login (`OMA_MCP_CREDENTIALS_DIR`)"
    } else {
        ""
    }
}

/// Where tokens were looked for: ` in the credential store <dir>` (with where its secrets
/// are, when in a keyring), or that there is no store.
fn looked_in(store: Option<&LoginStore>) -> String {
    match store {
        Some(store) => {
            let dir = store.dir().display().to_string();
            let secrets = store.secrets_location();
            if secrets == dir {
                format!(" in the credential store {dir}")
            } else {
                format!(" in the credential store {dir} (its secrets in {secrets})")
            }
        }
        None => " (this client has no credential store: `OAuthClient::with_store`)".to_owned(),
    }
}

/// `hint` of a failed discovery after a challenge that names no metadata, for a connection
/// that cannot ask the user: whether the server takes an OAuth login or a token of its own
/// cannot be told, so both are named.
pub(super) fn or_token(hint: &str) -> String {
    format!(
        "{hint}; or, if the server takes a token of its own rather than an OAuth login, supply \
         it from the environment ({TOKEN_SETTINGS})"
    )
}

/// The failure of a connection that cannot ask the user and holds no usable token for the
/// MCP server `label`: it needs a login (`published`: the server publishes OAuth metadata,
/// or its challenge names some), or it takes a token of its own (it publishes none). `dropped`
/// says why a stored login was not used.
pub(super) fn no_token(
    label: &str,
    published: bool,
    store: Option<&LoginStore>,
    login: Option<&str>,
    dropped: Option<&str>,
) -> AuthFailure {
    if !published {
        return AuthFailure::new(
            format!(
                "the MCP server `{label}` refused the request without a usable credential \
                 (HTTP 401) and publishes no OAuth metadata (no protected resource metadata, RFC \
                 9728, nor authorization server metadata, RFC 8414), so it takes no OAuth login \
                 but a token of its own"
            ),
            format!("supply it from the environment ({TOKEN_SETTINGS})"),
        );
    }
    AuthFailure::new(
        format!(
            "the MCP server `{label}` needs an OAuth login, and no usable access token is \
             held{}{}",
            looked_in(store),
            dropped.map(|d| format!(" ({d})")).unwrap_or_default()
        ),
        format!("{}{}", log_in(login, dropped.is_some()), under_ci()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_for_good_are_invalid_grant_and_invalid_client() {
        for (error, code) in [
            (
                AuthError::TokenRefreshRejected("invalid_grant".into()),
                Some("invalid_grant"),
            ),
            (
                AuthError::TokenRefreshFailed(
                    "Server returned error response: invalid_client: unknown client".into(),
                ),
                Some("invalid_client"),
            ),
            (
                AuthError::TokenRefreshFailed(
                    "Server returned error response: temporarily_unavailable".into(),
                ),
                None,
            ),
            (AuthError::AuthorizationRequired, None),
        ] {
            assert_eq!(refused_refresh(&error), code, "{error}");
        }
    }

    #[test]
    fn without_a_command_the_library_names_no_flag() {
        assert_eq!(
            log_in(Some("oma-mcp login github"), true),
            "run `oma-mcp login github` again"
        );
        assert_eq!(
            log_in(None, false),
            "log in to this URL with `oma-mcp login`, or let the connection ask the user \
             (`OAuthConfig::with_authorizer`)"
        );
    }
}
