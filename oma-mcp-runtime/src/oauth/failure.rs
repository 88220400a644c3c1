//! rmcp's `AuthError`s as [`AuthFailure`]s: what failed at which step, and what to do.

use oma_mcp_core::config::AuthFailure;
use rmcp::transport::AuthError;

use super::advice::refused_refresh;
use crate::quote::cut;

/// The longest reason taken from rmcp's error text (which may quote a server's answer).
const REASON_LIMIT: usize = 300;

/// `error` of the step `step` (`discovering the authorization server`, `registering the
/// client`, …) as a failure with a hint for the user; `again` says how to log in again
/// (`run \`oma-mcp login github\` again`). The hints name manifest keys and builder methods,
/// never a command-line flag.
pub(super) fn failure(step: &str, error: &AuthError, again: &str) -> AuthFailure {
    let reason = format!(
        "{step} failed: {}",
        cut(&format!("{error}{}", causes(error)), REASON_LIMIT)
    );
    let hint = match error {
        AuthError::AuthorizationRequired
        | AuthError::TokenRefreshRejected(_)
        | AuthError::TokenExpired => again.to_owned(),
        AuthError::TokenRefreshFailed(_) if refused_refresh(error).is_some() => again.to_owned(),
        AuthError::PkceUnsupported => "the authorization server does not advertise PKCE with \
             S256 (`code_challenge_methods_supported`), which MCP requires; ask its operator to \
             enable it"
            .to_owned(),
        AuthError::RegistrationFailed(_) => "the authorization server refused dynamic client \
             registration: register a client with it and pin its id (manifest \
             `[servers.<name>.oauth] client-id`; `OAuthConfig::with_client_id`)"
            .to_owned(),
        AuthError::AuthorizationServerMismatch { .. } if step.starts_with("discovering") => {
            "the authorization server's metadata names another issuer than the URL it was \
             read from (RFC 8414 section 3.3), so it cannot be trusted; do not retry, and tell \
             the server's operator"
                .to_owned()
        }
        AuthError::AuthorizationServerMismatch { .. }
        | AuthError::AuthorizationServerMissingIssuer { .. } => "the authorization response \
             did not come from the authorization server that was asked (RFC 9207); do not \
             retry, and tell the server's operator"
            .to_owned(),
        AuthError::ProtectedResourceMetadataInvalid { .. } => "the server's protected resource \
             metadata (RFC 9728) does not describe this URL; check that the URL is the server's \
             MCP endpoint"
            .to_owned(),
        AuthError::DiscoveryRequestFailed { .. }
        | AuthError::AuthorizationServersUnavailable { .. }
        | AuthError::HttpError(_) => {
            "check the network and the server's URL, then try again".to_owned()
        }
        AuthError::NoAuthorizationSupport | AuthError::MetadataError(_) => "the server asked \
             for OAuth but publishes no usable authorization metadata (RFC 9728, RFC 8414); \
             supply a token from the service instead (manifest keys `bearer-env`, \
             `header-env`; `ConnectConfig::with_bearer_env`, `ConnectConfig::with_header_env`)"
            .to_owned(),
        AuthError::InvalidScope(_) => "the server keeps asking for scopes this client was \
             not granted; check the account's permissions"
            .to_owned(),
        AuthError::TokenExchangeFailed(_) => "the token endpoint did not answer with a token \
             (a JSON object, RFC 6749 section 5.1), as when it fails or a proxy answers with a \
             page; try again later, and tell the server's operator if it keeps failing"
            .to_owned(),
        AuthError::ClientCredentialsError(_) => "check the client id and secret (or key) \
             given for the client credentials grant"
            .to_owned(),
        _ => "try again; if it keeps failing, run with `OMA_MCP_LOG=debug` to see each step"
            .to_owned(),
    };
    AuthFailure::new(reason, hint)
}

/// The causes of `error` that its text leaves out (why a discovery request failed: the
/// connection error), each after `: `, without the URL a request error repeats.
fn causes(error: &AuthError) -> String {
    let mut text = String::new();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        let mut line = cause.to_string();
        if let Some(url) = cause
            .downcast_ref::<reqwest::Error>()
            .and_then(reqwest::Error::url)
        {
            line = line.replace(&format!(" for url ({url})"), "");
        }
        text.push_str(": ");
        text.push_str(&line);
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rejected_refresh_says_to_log_in_again() {
        let f = failure(
            "refreshing the access token",
            &AuthError::TokenRefreshRejected("invalid_grant".into()),
            "run `oma-mcp login github` again",
        );
        assert_eq!(
            f.to_string(),
            "refreshing the access token failed: OAuth refresh token was rejected: \
             invalid_grant; run `oma-mcp login github` again"
        );
    }

    /// `invalid_client` on a refresh (the authorization server no longer knows the client)
    /// needs a new login too; another refusal may pass.
    #[test]
    fn a_refresh_refused_as_invalid_client_says_to_log_in_again() {
        let f = failure(
            "refreshing the access token",
            &AuthError::TokenRefreshFailed(
                "Server returned error response: invalid_client: unknown client".into(),
            ),
            "run `oma-mcp login github` again",
        );
        assert_eq!(f.hint, "run `oma-mcp login github` again");
        let f = failure(
            "refreshing the access token",
            &AuthError::TokenRefreshFailed(
                "Server returned error response: temporarily_unavailable".into(),
            ),
            "run `oma-mcp login github` again",
        );
        assert!(f.hint.starts_with("try again"), "{}", f.hint);
    }

    #[test]
    fn no_pkce_names_the_metadata_field() {
        let f = failure("authorizing", &AuthError::PkceUnsupported, "x");
        assert!(
            f.hint.contains("code_challenge_methods_supported"),
            "{}",
            f.hint
        );
    }
}
