//! What a `401`/`403` that no token provider cured tells the user to do: check the credentials
//! that were sent, or how to supply some, naming what fits the server (a token of its own, or
//! OAuth when its challenge names protected resource metadata, both when that cannot be told)
//! and a login stored for its URL. Library words: manifest keys and builder methods, never a
//! command-line flag.

/// How many times one request is sent again after the server refused its OAuth credentials
/// (`401`, or `403` with `insufficient_scope`) and the token provider obtained new ones.
pub(super) const MAX_REFUSALS: usize = 3;

use crate::error::TOKEN_SETTINGS;

/// How to enable OAuth.
const ENABLE_OAUTH: &str = "`ConnectConfig::with_oauth(OAuthConfig::authorization_code())` (in \
                            a manifest: a URL pin without `bearer-env` or an `Authorization` \
                            in `header-env`, or with a table `oauth`)";

/// What a connection sends to authenticate, which decides what its refusals say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Credentials {
    /// Tokens from a provider (OAuth), which gave up after [`MAX_REFUSALS`] refusals.
    Provider,
    /// Headers from the environment: each variable, as `` `VAR` (sent as `Authorization:
    /// Bearer`) ``.
    FromEnv(Vec<String>),
    /// None. `optional_login`: the login command of the optional OAuth that this build,
    /// without the cargo feature `oauth`, leaves out.
    None {
        /// See the variant.
        optional_login: Option<String>,
    },
}

impl Credentials {
    /// What to do after the server at `url` refused a request with `challenge` (its
    /// `WWW-Authenticate`, whole).
    pub(super) fn hint(&self, url: &str, challenge: Option<&str>) -> String {
        match self {
            Self::Provider => format!(
                "the server refused the OAuth access token {MAX_REFUSALS} times in a row for \
                 this request; check the account's permissions on the server"
            ),
            Self::FromEnv(used) => format!(
                "check the credentials in {} (manifest keys `bearer-env`, `header-env`)",
                used.join(" and ")
            ),
            Self::None { optional_login } => {
                // RFC 9728 section 5.1: a server that offers OAuth names its metadata.
                let offers_oauth = challenge
                    .is_some_and(|c| c.to_ascii_lowercase().contains("resource_metadata="));
                if let Some(file) = stored_login(url) {
                    format!(
                        "a login for this URL is stored ({}), and this connection does not use \
                         OAuth: enable it with {ENABLE_OAUTH}",
                        file.display()
                    )
                } else if let Some(login) = optional_login {
                    let token = if offers_oauth {
                        String::new()
                    } else {
                        format!(
                            "; or, if the server takes a token of its own, supply a token from the environment ({TOKEN_SETTINGS})"
                        )
                    };
                    format!(
                        "this connection uses OAuth (the login of `{login}`) only with \
                         oma-mcp-runtime's cargo feature `oauth`, which this build lacks: add \
                         `features = [\"oauth\"]` to its dependency{token}"
                    )
                } else if offers_oauth {
                    format!(
                        "the server offers OAuth (its challenge names protected resource \
                         metadata, RFC 9728): log in with `oma-mcp login`, and enable OAuth with \
                         {ENABLE_OAUTH}"
                    )
                } else {
                    format!(
                        "supply a token from the environment ({TOKEN_SETTINGS}); or, if the server offers OAuth, log in with `oma-mcp login` \
                         and enable OAuth with {ENABLE_OAUTH}"
                    )
                }
            }
        }
    }
}

/// The file of the login stored for `url` in the user's credential directory, if any.
#[cfg(feature = "oauth")]
fn stored_login(url: &str) -> Option<std::path::PathBuf> {
    crate::oauth::LoginStore::stored_file(url)
}

/// Without the cargo feature `oauth`, no store is read.
#[cfg(not(feature = "oauth"))]
fn stored_login(_url: &str) -> Option<std::path::PathBuf> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_challenge_with_resource_metadata_offers_oauth() {
        let none = Credentials::None {
            optional_login: None,
        };
        let url = "http://127.0.0.1:1/never-logged-in";
        assert_eq!(
            none.hint(
                url,
                Some(r#"Bearer Resource_Metadata="https://a.example/.well-known/x""#)
            ),
            format!(
                "the server offers OAuth (its challenge names protected resource metadata, RFC \
                 9728): log in with `oma-mcp login`, and enable OAuth with {ENABLE_OAUTH}"
            )
        );
        let token = format!("supply a token from the environment ({TOKEN_SETTINGS})");
        assert!(none.hint(url, Some("Bearer")).starts_with(&token));
        assert!(none.hint(url, None).starts_with(&token));
    }

    /// The optional OAuth of a pin without credentials, left out by a build without the
    /// feature `oauth`: the refusal names the feature (and the token settings when the
    /// server's challenge does not show OAuth).
    #[test]
    fn a_build_without_oauth_names_the_feature() {
        let left_out = Credentials::None {
            optional_login: Some("oma-mcp login github".to_owned()),
        };
        let url = "http://127.0.0.1:1/never-logged-in";
        let feature = "this connection uses OAuth (the login of `oma-mcp login github`) only \
                       with oma-mcp-runtime's cargo feature `oauth`, which this build lacks: add \
                       `features = [\"oauth\"]` to its dependency";
        assert_eq!(
            left_out.hint(
                url,
                Some(r#"Bearer resource_metadata="https://a.example/m""#)
            ),
            feature
        );
        assert_eq!(
            left_out.hint(url, Some("Bearer")),
            format!(
                "{feature}; or, if the server takes a token of its own, supply a token from the environment ({TOKEN_SETTINGS})"
            )
        );
    }
}
