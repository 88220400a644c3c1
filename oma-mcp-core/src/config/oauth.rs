//! OAuth for streamable HTTP servers (MCP specification, "Authorization", revisions
//! 2025-06-18, 2025-11-25 and 2026-07-28): the settings of a pin ([`OAuthConfig`]), how the
//! user's consent is obtained in the authorization code grant ([`Authorize`]), and the seam
//! through which a connection gets its access tokens ([`TokenProvider`]).
//!
//! Plain values and traits, no HTTP: `oma-mcp-runtime` (cargo feature `oauth`) runs the
//! authorization flows, and `oma-mcp-build` reads [`OAuthConfig`] from a manifest's
//! `[servers.<name>.oauth]` and writes it as code. None of these values is a secret: client
//! secrets are named by environment variable ([`OAuthConfig::client_secret_env`]) or held in a
//! [`Secret`], whose `Debug` shows nothing.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// A boxed future that is `Send`: what the methods of [`Authorize`] and [`TokenProvider`]
/// return, so that both are object safe without an async-trait crate; the runtime's tool layer
/// (its handlers and gates) returns the same alias.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Which OAuth 2.1 grant obtains the access token.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum OAuthGrant {
    /// The authorization code grant with PKCE (S256): a user approves the client in a browser
    /// once (`oma-mcp login`), and refresh tokens keep it going. The default.
    #[default]
    AuthorizationCode,
    /// The client credentials grant (RFC 6749 section 4.4; the MCP extension
    /// `io.modelcontextprotocol/oauth-client-credentials`): a machine authenticates as itself
    /// with a client secret ([`OAuthConfig::client_secret_env`]) or a signed JWT
    /// ([`OAuthConfig::private_key_env`], RFC 7523). For CI and headless agents; no browser.
    ClientCredentials,
}

impl OAuthGrant {
    /// The manifest's spelling: `authorization-code` or `client-credentials`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::AuthorizationCode => "authorization-code",
            Self::ClientCredentials => "client-credentials",
        }
    }
}

/// A secret value given in code (a client secret): its `Debug` prints
/// `Secret(***)`, and nothing in oma-mcp writes it to a file, a log or an error.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps `value`.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The value, for the one place that sends it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// OAuth settings of one HTTP server: which grant, which client identity, which scopes, and
/// how a user approves the client.
///
/// The client identity is chosen in the order of the MCP specification ("Client
/// Registration"): a pre-registered client id ([`OAuthConfig::client_id`] or
/// [`OAuthConfig::client_id_env`]), a Client ID Metadata Document URL
/// ([`OAuthConfig::client_metadata_url`]) when the authorization server advertises
/// `client_id_metadata_document_supported`, and dynamic client registration (RFC 7591)
/// otherwise.
///
/// ```
/// # use oma_mcp_core::config::{ConnectConfig, OAuthConfig};
/// let config = ConnectConfig::http("https://mcp.example.com/mcp")
///     .with_oauth(OAuthConfig::client_credentials("CLIENT_ID", "CLIENT_SECRET").with_scopes(["mcp:read"]));
/// let oauth = config.oauth.unwrap();
/// assert_eq!(oauth.client_id_env.as_deref(), Some("CLIENT_ID"));
/// assert_eq!(oauth.scopes, ["mcp:read"]);
/// ```
#[derive(Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
#[must_use]
pub struct OAuthConfig {
    /// The grant. Default: [`OAuthGrant::AuthorizationCode`].
    pub grant: OAuthGrant,
    /// A client id registered with the authorization server beforehand (not a secret).
    /// Default: `None`.
    pub client_id: Option<String>,
    /// An environment variable holding the pre-registered client id, read when connecting.
    /// Default: `None`.
    pub client_id_env: Option<String>,
    /// An environment variable holding the client secret of a pre-registered client, read when
    /// connecting; sent as the authorization server advertises (`client_secret_basic` or
    /// `client_secret_post`). Default: `None` (a public client, `none`).
    pub client_secret_env: Option<String>,
    /// A client secret given in code (a library user's own store); wins over
    /// [`OAuthConfig::client_secret_env`]. Default: `None`.
    pub client_secret: Option<Secret>,
    /// An environment variable holding a PEM private key (RSA or EC) with which the client
    /// credentials grant authenticates by a signed JWT (`private_key_jwt`, RFC 7523) instead
    /// of a secret; needs the runtime's cargo feature `oauth-jwt`. Default: `None`.
    pub private_key_env: Option<String>,
    /// A PEM private key given in code, for `private_key_jwt` as
    /// [`OAuthConfig::private_key_env`]; wins over it. Default: `None`.
    pub private_key: Option<Secret>,
    /// The JWT signing algorithm for [`OAuthConfig::private_key_env`]: `RS256` (default),
    /// `RS384`, `RS512`, `ES256` or `ES384`, matching the key.
    pub signing_algorithm: Option<String>,
    /// The HTTPS URL of this client's Client ID Metadata Document, used as its client id where
    /// the authorization server supports it. Default: `None`.
    pub client_metadata_url: Option<String>,
    /// The scopes to request. Default: none, so the specification's order applies: the
    /// `scope` of the server's `WWW-Authenticate` challenge, else the protected resource's
    /// `scopes_supported`, else no `scope` parameter.
    pub scopes: Vec<String>,
    /// How a user approves the client in the authorization code grant. Default: `None`: no
    /// interactive step while connecting; without a stored or refreshable token the connect
    /// fails and says to run `oma-mcp login`.
    pub authorizer: Option<Authorizer>,
    /// The command that logs in to this server, as errors name it (a pin of a manifest:
    /// `oma-mcp login <name>`). Default: `None`: errors say to log in to the server's URL with
    /// `oma-mcp login`, or to give the connection an [`OAuthConfig::authorizer`].
    pub login_command: Option<String>,
    /// Whether the connection may go without OAuth where the runtime cannot do it: the OAuth
    /// a URL pin gets without an `oauth` table and without a credential of its own
    /// (`bearer-env`, or `Authorization` in `header-env`), as `oma-mcp` uses the stored login
    /// for every such server. With it, an `oma-mcp-runtime` built without its cargo feature
    /// `oauth` connects without OAuth (a server's `401` then names the feature) instead of
    /// failing with its `ConfigError::OAuthFeatureDisabled`, and the generated code of such a
    /// pin compiles without the feature. Default: `false`.
    pub optional: bool,
}

impl std::fmt::Debug for OAuthConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthConfig")
            .field("grant", &self.grant)
            .field("client_id", &self.client_id)
            .field("client_id_env", &self.client_id_env)
            .field("client_secret_env", &self.client_secret_env)
            .field("client_secret", &self.client_secret)
            .field("private_key_env", &self.private_key_env)
            .field("private_key", &self.private_key)
            .field("signing_algorithm", &self.signing_algorithm)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("scopes", &self.scopes)
            .field("authorizer", &self.authorizer)
            .field("login_command", &self.login_command)
            .field("optional", &self.optional)
            .finish()
    }
}

impl OAuthConfig {
    /// The authorization code grant with the defaults: dynamic client registration, scopes
    /// as the server asks.
    pub fn authorization_code() -> Self {
        Self::default()
    }

    /// The client credentials grant with a client id and secret from the environment
    /// variables `client_id_env` and `client_secret_env`.
    pub fn client_credentials(
        client_id_env: impl Into<String>,
        client_secret_env: impl Into<String>,
    ) -> Self {
        Self {
            grant: OAuthGrant::ClientCredentials,
            client_id_env: Some(client_id_env.into()),
            client_secret_env: Some(client_secret_env.into()),
            ..Self::default()
        }
    }

    /// Sets the grant.
    pub fn with_grant(mut self, grant: OAuthGrant) -> Self {
        self.grant = grant;
        self
    }

    /// Sets a pre-registered client id.
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// Reads the pre-registered client id from `var` when connecting.
    pub fn with_client_id_env(mut self, var: impl Into<String>) -> Self {
        self.client_id_env = Some(var.into());
        self
    }

    /// Reads the client secret from `var` when connecting.
    pub fn with_client_secret_env(mut self, var: impl Into<String>) -> Self {
        self.client_secret_env = Some(var.into());
        self
    }

    /// Reads a PEM private key for `private_key_jwt` from `var` when connecting, signed with
    /// `algorithm` (`RS256` when `None`).
    pub fn with_private_key_env(mut self, var: impl Into<String>, algorithm: Option<&str>) -> Self {
        self.private_key_env = Some(var.into());
        self.signing_algorithm = algorithm.map(str::to_owned);
        self
    }

    /// Sets the PEM private key for `private_key_jwt` from code, signed with `algorithm`
    /// (`RS256` when `None`).
    pub fn with_private_key(mut self, key: Secret, algorithm: Option<&str>) -> Self {
        self.private_key = Some(key);
        self.signing_algorithm = algorithm.map(str::to_owned);
        self
    }

    /// Sets the client secret from code.
    pub fn with_client_secret(mut self, secret: Secret) -> Self {
        self.client_secret = Some(secret);
        self
    }

    /// Sets the Client ID Metadata Document URL.
    pub fn with_client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// Sets the scopes to request.
    pub fn with_scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the command that errors name for logging in (see [`OAuthConfig::login_command`]).
    pub fn with_login_command(mut self, command: impl Into<String>) -> Self {
        self.login_command = Some(command.into());
        self
    }

    /// Lets the connection obtain the user's approval with `authorizer` when it has no usable
    /// token (see [`Authorize`]).
    pub fn with_authorizer(mut self, authorizer: Authorizer) -> Self {
        self.authorizer = Some(authorizer);
        self
    }

    /// Sets whether the connection may go without OAuth where the runtime cannot do it (see
    /// [`OAuthConfig::optional`]).
    pub fn with_optional(mut self, optional: bool) -> Self {
        self.optional = optional;
        self
    }
}

/// What the authorization code grant needs from the place a user approves the client: a
/// redirect URI, and a way to send the user to the authorization URL and get back the URL the
/// authorization server redirected to.
///
/// `oma-mcp login` implements it with a loopback listener and a browser; the runtime's
/// `oauth::FollowRedirect` fetches the URL itself, for authorization servers that redirect at
/// once (tests, and servers that approve a known client without a page).
pub trait Authorize: Send + Sync {
    /// The redirect URI to register and to send with the authorization request, e.g.
    /// `http://127.0.0.1:53682/callback` (RFC 8252 section 7.3: loopback, any port).
    fn redirect_uri(&self) -> String;

    /// Sends the user to `authorization_url` and returns the URL the authorization server
    /// redirected to (the redirect URI with `code`, `state` and, where the server sends it,
    /// `iss`; or with `error`). An `Err` is a message for the user: what went wrong and what
    /// to do (e.g. that no browser callback came within the time limit, and the URL to open).
    fn authorize<'a>(&'a self, authorization_url: &'a str)
    -> BoxFuture<'a, Result<String, String>>;
}

/// A shared [`Authorize`] implementation, as [`OAuthConfig::authorizer`] holds it.
#[derive(Clone)]
pub struct Authorizer(pub Arc<dyn Authorize>);

impl Authorizer {
    /// Wraps `authorizer`.
    pub fn new(authorizer: impl Authorize + 'static) -> Self {
        Self(Arc::new(authorizer))
    }
}

impl std::fmt::Debug for Authorizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Authorizer(..)")
    }
}

/// Authorizers are equal when they are the same one (clones of one [`Authorizer`]).
impl PartialEq for Authorizer {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Authorizer {}

/// Why a server refused a request's credentials, as a [`TokenProvider`] is told.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Refusal {
    /// `401` (no token, or one the server does not accept) or `403` (the token lacks a scope:
    /// `error="insufficient_scope"` in the challenge).
    pub status: u16,
    /// The `WWW-Authenticate` header of the answer (RFC 6750 section 3; RFC 9728 section 5.1
    /// adds `resource_metadata`), when the server sent one.
    pub challenge: Option<String>,
    /// The access token the refused request carried (`None`: it carried none), so that a
    /// provider can tell a stale token from the one it holds now.
    pub token: Option<String>,
}

impl Refusal {
    /// A refusal with `status` and `challenge` of a request that carried `token`.
    pub fn new(status: u16, challenge: Option<String>, token: Option<String>) -> Self {
        Self {
            status,
            challenge,
            token,
        }
    }
}

/// Why a [`TokenProvider`] could not supply a token: what failed, and what the user can do.
/// Neither part may hold a secret.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuthFailure {
    /// What failed, e.g. `the authorization server at https://auth.example.com refused the
    /// refresh token (invalid_grant)`.
    pub reason: String,
    /// What to do, e.g. `run \`oma-mcp login github\``.
    pub hint: String,
}

impl AuthFailure {
    /// A failure with its reason and hint.
    pub fn new(reason: impl Into<String>, hint: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
            hint: hint.into(),
        }
    }
}

impl std::fmt::Display for AuthFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.hint.is_empty() {
            f.write_str(&self.reason)
        } else {
            write!(f, "{}; {}", self.reason, self.hint)
        }
    }
}

impl std::error::Error for AuthFailure {}

/// Where a connection's access tokens come from: a user's own store or flow, or the
/// runtime's OAuth client (`oma_mcp_runtime::oauth`).
///
/// The streamable HTTP transport asks [`TokenProvider::access_token`] before each request and
/// sends the answer as `Authorization: Bearer`. When the server answers `401`, or `403` with
/// `error="insufficient_scope"`, it calls [`TokenProvider::refused`] and, when that returns
/// `Ok`, sends the request again with the new token: at most 3 times for one request.
pub trait TokenProvider: Send + Sync {
    /// The access token for the next request, or `None` to send none (a server that needs one
    /// answers `401`, and [`TokenProvider::refused`] runs).
    fn access_token(&self) -> BoxFuture<'_, Result<Option<String>, AuthFailure>>;

    /// The server refused a request's credentials: obtain a token that it will accept
    /// (refresh, a new authorization, more scopes) and return `Ok(())` to send the request
    /// again, or the reason it cannot be done.
    fn refused<'a>(&'a self, refusal: &'a Refusal) -> BoxFuture<'a, Result<(), AuthFailure>>;
}

/// A shared [`TokenProvider`], as [`ConnectConfig::token_provider`](super::ConnectConfig::token_provider)
/// holds it.
#[derive(Clone)]
pub struct TokenSource(pub Arc<dyn TokenProvider>);

impl TokenSource {
    /// Wraps `provider`.
    pub fn new(provider: impl TokenProvider + 'static) -> Self {
        Self(Arc::new(provider))
    }
}

impl std::fmt::Debug for TokenSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenSource(..)")
    }
}

/// Token sources are equal when they are the same one (clones of one [`TokenSource`]).
impl PartialEq for TokenSource {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for TokenSource {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_shows_no_secret() {
        let config = OAuthConfig::authorization_code()
            .with_client_id("client-1")
            .with_client_secret(Secret::new("s3cret-value"));
        let debug = format!("{config:?}");
        assert!(!debug.contains("s3cret-value"), "{debug}");
        assert!(
            debug.contains("client_secret: Some(Secret(***))"),
            "{debug}"
        );
        assert_eq!(Secret::new("x").expose(), "x");
    }

    #[test]
    fn client_credentials_names_its_variables() {
        let config = OAuthConfig::client_credentials("ID_VAR", "SECRET_VAR");
        assert_eq!(config.grant, OAuthGrant::ClientCredentials);
        assert_eq!(config.grant.as_str(), "client-credentials");
        assert_eq!(config.client_id_env.as_deref(), Some("ID_VAR"));
        assert_eq!(config.client_secret_env.as_deref(), Some("SECRET_VAR"));
        assert_eq!(OAuthGrant::default().as_str(), "authorization-code");
    }

    #[test]
    fn a_failure_reads_as_reason_then_hint() {
        assert_eq!(
            AuthFailure::new("no token", "run `oma-mcp login s`").to_string(),
            "no token; run `oma-mcp login s`"
        );
        assert_eq!(AuthFailure::new("no token", "").to_string(), "no token");
    }
}
