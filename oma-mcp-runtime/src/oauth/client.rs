//! [`OAuthClient`]: the [`TokenProvider`] that runs the MCP authorization flows on rmcp's
//! `AuthorizationManager` (see the module docs of [`crate::oauth`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use oma_mcp_core::config::{
    AuthFailure, Authorizer, BoxFuture, OAuthConfig, OAuthGrant, Refusal, Secret, TokenProvider,
};
use oma_mcp_core::redact::redact_url;
use rmcp::transport::auth::{
    AuthorizationMetadata, AuthorizationMetadataSource, OAuthClientConfig,
};
use rmcp::transport::{
    AuthError, AuthorizationManager, AuthorizationRequest, AuthorizationSession,
    ClientCredentialsConfig, WWWAuthenticateParams,
};
use tokio::sync::Mutex;

use super::advice::{self, refused_refresh, stale_reason};
use super::diagnose;
use super::failure::failure;
use super::persist::{Identity, Persisting};
use super::store::LoginStore;
use super::withhold::withholding_secrets;
use crate::error::ConfigError;

/// The [`TokenProvider`] of a connection with [`ConnectConfig::oauth`](crate::ConnectConfig::oauth):
/// obtains, refreshes and steps up OAuth access tokens for one MCP server (see the module docs
/// of [`crate::oauth`] for the flows and the checks).
///
/// Tokens live as long as the client (one connection, or every connection it is shared with
/// through a [`TokenSource`](oma_mcp_core::config::TokenSource)); the first request goes
/// without one, and the server's `401` starts the flow.
pub struct OAuthClient {
    /// The MCP server's URL (the protected resource).
    url: reqwest::Url,
    /// The URL, redacted: what messages name.
    label: String,
    grant: OAuthGrant,
    client_id: Option<String>,
    client_secret: Option<Secret>,
    /// The PEM key and the JWT algorithm of `private_key_jwt`.
    #[cfg_attr(not(feature = "oauth-jwt"), allow(dead_code))]
    private_key: Option<(Secret, String)>,
    client_metadata_url: Option<String>,
    scopes: Vec<String>,
    authorizer: Option<Authorizer>,
    /// `client_name` of a dynamic client registration.
    client_name: String,
    /// The command that logs in to this server, for hints (`None`: the library's words).
    login: Option<String>,
    /// Where logins of the authorization code grant are kept between runs.
    store: Option<LoginStore>,
    state: Mutex<State>,
    /// Set by the credential store of a grant when the authorization server refuses its
    /// refresh token (`invalid_grant`), cleared when read.
    rejected: Arc<AtomicBool>,
}

impl std::fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthClient")
            .field("url", &self.label)
            .field("grant", &self.grant)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

/// rmcp's client credentials exchange, on a thread of its own with a current-thread runtime:
/// built with its `private_key_jwt` support, its future holds a non-`Sync` form serializer
/// across an await, and a [`TokenProvider`]'s futures must be `Send`.
#[cfg(feature = "oauth-jwt")]
async fn exchange_on_own_thread(
    manager: AuthorizationManager,
    config: ClientCredentialsConfig,
) -> Result<AuthorizationManager, AuthError> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        let result = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| AuthError::InternalError(format!("cannot start a runtime: {e}")))
            .and_then(|runtime| {
                runtime.block_on(async {
                    manager
                        .exchange_client_credentials(&config)
                        .await
                        .map(|_| manager)
                })
            });
        let _ = tx.send(result);
    });
    rx.await
        .map_err(|_| AuthError::InternalError("the token request's thread ended".to_owned()))?
}

/// The JWT algorithms of `private_key_jwt` (RFC 7518 names) that rmcp signs with.
const SIGNING_ALGORITHMS: [&str; 5] = ["RS256", "RS384", "RS512", "ES256", "ES384"];

/// What the client holds between requests.
#[derive(Default)]
struct State {
    /// The manager of the current grant: its client registration, metadata and tokens.
    manager: Option<AuthorizationManager>,
    /// The issuer of the authorization server that granted the held token.
    issuer: Option<String>,
    /// The access token handed out last.
    token: Option<String>,
    /// Whether the held token came from a refresh (a refreshed token that is refused leads
    /// to a new grant, not to another refresh).
    refreshed: bool,
    /// The scopes a client credentials grant asked for (step-up adds to them).
    granted: Vec<String>,
    /// Whether the store was read (once per client).
    restored: bool,
    /// Why a stored login was not used (stale: its refresh refused; its authorization server
    /// changed; expired without a refresh token), for the error that asks for a new login.
    dropped: Option<String>,
}

impl OAuthClient {
    /// The client for the MCP server at `url` with `config`'s settings, environment variables
    /// read now; `client_name` is the name a dynamic client registration gives.
    ///
    /// # Errors
    /// [`ConfigError::InvalidUrl`] for a URL that is not absolute `http(s)`;
    /// [`ConfigError::MissingOAuthEnv`] for a variable of `config` that is not set;
    /// [`ConfigError::InvalidOAuth`] for a client credentials grant without a client id and
    /// secret; [`ConfigError::NoTlsProvider`] when the HTTP client has no TLS crypto provider.
    pub fn new(url: &str, config: &OAuthConfig, client_name: &str) -> Result<Self, ConfigError> {
        // rmcp's OAuth flows build their HTTP clients with rustls' process default provider.
        crate::connect::http::tls::ensure_provider()?;
        let label = redact_url(url);
        let parsed = reqwest::Url::parse(url)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https") && u.has_host())
            .ok_or_else(|| ConfigError::InvalidUrl { url: label.clone() })?;
        let env = |var: &String, setting: &str| {
            std::env::var(var).map_err(|_| ConfigError::MissingOAuthEnv {
                var: var.clone(),
                setting: setting.to_owned(),
            })
        };
        let client_id = match (&config.client_id, &config.client_id_env) {
            (Some(id), _) => Some(id.clone()),
            (None, Some(var)) => Some(env(var, "client-id-env")?.trim().to_owned()),
            (None, None) => None,
        };
        let client_secret = match (&config.client_secret, &config.client_secret_env) {
            (Some(secret), _) => Some(secret.clone()),
            (None, Some(var)) => Some(Secret::new(env(var, "client-secret-env")?.trim())),
            (None, None) => None,
        };
        let key = match (&config.private_key, &config.private_key_env) {
            (Some(key), _) => Some(key.clone()),
            (None, Some(var)) => Some(Secret::new(env(var, "private-key-env")?)),
            (None, None) => None,
        };
        let private_key = match key {
            Some(key) => {
                let algorithm = config.signing_algorithm.as_deref().unwrap_or("RS256");
                if !SIGNING_ALGORITHMS.contains(&algorithm) {
                    return Err(ConfigError::InvalidOAuth {
                        server: label,
                        reason: format!(
                            "the signing algorithm `{}` is not one of {}",
                            crate::quote::cut(algorithm, 20),
                            SIGNING_ALGORITHMS.join(", ")
                        ),
                    });
                }
                if cfg!(not(feature = "oauth-jwt")) {
                    return Err(ConfigError::InvalidOAuth {
                        server: label,
                        reason: "a private key (`private_key_jwt`) needs oma-mcp-runtime's cargo \
                                 feature `oauth-jwt`"
                            .to_owned(),
                    });
                }
                Some((key, algorithm.to_owned()))
            }
            None => None,
        };
        if config.grant == OAuthGrant::ClientCredentials
            && (client_id.is_none() || client_secret.is_none() && private_key.is_none())
        {
            return Err(ConfigError::InvalidOAuth {
                server: label,
                reason: "the client credentials grant needs a client id (`client-id` or \
                         `client-id-env`) and a client secret (`client-secret-env`) or a \
                         private key (`private-key-env`)"
                    .to_owned(),
            });
        }
        Ok(Self {
            url: parsed,
            login: config.login_command.clone(),
            label,
            grant: config.grant,
            client_id,
            client_secret,
            private_key,
            client_metadata_url: config.client_metadata_url.clone(),
            scopes: config.scopes.clone(),
            authorizer: config.authorizer.clone(),
            client_name: client_name.to_owned(),
            store: None,
            state: Mutex::new(State::default()),
            rejected: Arc::new(AtomicBool::new(false)),
        })
    }

    /// Keeps the logins of the authorization code grant in `store`: a stored login is used
    /// (and refreshed) before a new one is asked for, and a new one is stored. Tokens of the
    /// client credentials grant are never stored.
    #[must_use]
    pub fn with_store(mut self, store: LoginStore) -> Self {
        self.store = Some(store);
        self
    }

    /// Names `command` (e.g. `oma-mcp login github`) where an error says how to log in.
    #[must_use]
    pub fn with_login_command(mut self, command: impl Into<String>) -> Self {
        self.login = Some(command.into());
        self
    }

    /// How to log in to this server again, for hints.
    fn again(&self) -> String {
        advice::log_in(self.login.as_deref(), true)
    }

    /// How to retry a login that the authorizer ran: its command again, else `log in again`.
    fn retry(&self) -> String {
        self.login
            .as_ref()
            .map_or_else(|| "log in again".to_owned(), |c| format!("run `{c}` again"))
    }

    /// Drops the login whose refresh the authorization server refused with `code`
    /// (`invalid_grant`, `invalid_client`): no token is held from now on, and the stored login
    /// is marked stale (its tokens dropped) so that no later run uses it, and `oma-mcp auth
    /// status` says so.
    fn drop_login(&self, state: &mut State, code: &str) {
        let reason = stale_reason(code);
        tracing::info!(server = %self.label, "{reason}; the stored login is stale");
        if let Some(store) = &self.store
            && let Err(e) = store.mark_stale(self.url.as_str(), &reason)
        {
            tracing::warn!(server = %self.label, "{e}");
        }
        state.manager = None;
        state.token = None;
        state.refreshed = false;
        state.dropped = Some(format!("the stored login is stale: {reason}"));
    }

    /// A new manager for this server with the authorization server's metadata discovered
    /// (from `challenge`'s `resource_metadata` first), that metadata, and whether the server
    /// published it (`false`: no metadata at all, and the default endpoints of MCP 2025-03-26
    /// stand in).
    async fn discover(
        &self,
        challenge: Option<&str>,
    ) -> Result<(AuthorizationManager, AuthorizationMetadata, bool), AuthFailure> {
        let step = "discovering the authorization server";
        let mut manager = AuthorizationManager::new(self.url.as_str())
            .await
            .map_err(|e| failure(step, &e, &self.again()))?;
        let resolution = match manager.resolve_metadata_from_challenge(challenge).await {
            Ok(resolution) => resolution,
            Err(AuthError::AuthorizationServersUnavailable {
                resource_metadata_url,
                authorization_servers,
            }) => {
                return Err(diagnose::unusable_server_metadata(
                    &resource_metadata_url,
                    &authorization_servers,
                )
                .await);
            }
            Err(e) => return Err(failure(step, &e, &self.again())),
        };
        // A server whose challenge names its resource metadata is no 2025-03-26 server: when
        // that document is unusable, guessing default endpoints at its origin would send the
        // user somewhere the resource never named.
        let advertised = challenge
            .map(|c| WWWAuthenticateParams::parse(c, &self.url))
            .and_then(|p| p.resource_metadata_url);
        if resolution.source == AuthorizationMetadataSource::LegacyEndpointFallback
            && let Some(url) = advertised
        {
            return Err(diagnose::unusable_resource_metadata(&url).await);
        }
        tracing::debug!(
            server = %self.label,
            issuer = resolution.metadata.issuer.as_deref().unwrap_or("(none)"),
            source = ?resolution.source,
            "discovered the OAuth authorization server"
        );
        let mut metadata = resolution.metadata;
        if resolution.source == AuthorizationMetadataSource::LegacyEndpointFallback {
            // No metadata at all: the default endpoints of MCP 2025-03-26, which made PKCE
            // with S256 mandatory for them.
            metadata.code_challenge_methods_supported = Some(vec!["S256".to_owned()]);
        }
        manager.set_metadata(metadata.clone());
        Ok((manager, metadata, resolution.source.is_discovered()))
    }

    /// The stored login of this server as a manager, its token refreshed when it expired;
    /// `None` when none is stored or it is no longer usable (then the reason is kept in
    /// `state.dropped`): stale, its refresh refused now (it is then marked stale), its
    /// authorization server changed (it is then removed), or expired without a refresh token.
    async fn restore(&self, state: &mut State) -> Result<(), AuthFailure> {
        state.restored = true;
        let Some(store) = &self.store else {
            return Ok(());
        };
        let login = match store.load(self.url.as_str()) {
            Ok(Some(login)) => login,
            Ok(None) => return Ok(()),
            Err(e) => return Err(AuthFailure::new(e.to_string(), "")),
        };
        if let Some(reason) = &login.stale {
            state.dropped = Some(format!("the stored login is stale: {reason}"));
            return Ok(());
        }
        let (mut manager, metadata, _) = self.discover(None).await?;
        if metadata.issuer != login.issuer {
            let reason = format!(
                "the stored login was granted by {}, and the server's authorization server is \
                 now {}",
                login.issuer.as_deref().unwrap_or("(no issuer)"),
                metadata.issuer.as_deref().unwrap_or("(no issuer)")
            );
            tracing::info!(server = %self.label, "{reason}; dropping it");
            let _ = store.remove(self.url.as_str());
            state.dropped = Some(reason);
            return Ok(());
        }
        let identity = Identity {
            issuer: login.issuer.clone(),
            client_id: login.client_id.clone(),
            client_secret: login.client_secret.clone().map(Secret::new),
            redirect_uri: login.redirect_uri.clone(),
        };
        let mut config = OAuthClientConfig::new(&identity.client_id, &identity.redirect_uri);
        if let Some(secret) = &identity.client_secret {
            config = config.with_client_secret(secret.expose());
        }
        manager
            .configure_client(config)
            .map_err(|e| failure("reading the stored login", &e, &self.again()))?;
        let persisting = Persisting::new(
            self.store.clone(),
            self.url.as_str(),
            identity,
            Arc::clone(&self.rejected),
        );
        persisting.start_with(login.credentials).await;
        manager.set_credential_store(persisting);
        match manager.get_access_token().await {
            Ok(token) => {
                state.token = Some(token);
                state.issuer = login.issuer;
                state.manager = Some(manager);
                state.refreshed = false;
                Ok(())
            }
            Err(AuthError::AuthorizationRequired) => {
                if self.rejected.swap(false, Ordering::Relaxed) {
                    self.drop_login(state, "invalid_grant");
                } else {
                    let reason = "the stored access token expired, and no refresh token is held";
                    tracing::info!(server = %self.label, "{reason}");
                    state.dropped = Some(reason.to_owned());
                }
                Ok(())
            }
            Err(e) => match refused_refresh(&e) {
                Some(code) => {
                    self.drop_login(state, code);
                    Ok(())
                }
                None => Err(failure(
                    "refreshing the stored access token",
                    &e,
                    &self.again(),
                )),
            },
        }
    }

    /// A new token from the configured grant with `manager` (metadata discovered; `published`:
    /// by the server, see [`OAuthClient::discover`]), held in `state` from now on.
    async fn grant(
        &self,
        state: &mut State,
        manager: AuthorizationManager,
        (metadata, published): (&AuthorizationMetadata, bool),
        challenge: Option<&str>,
    ) -> Result<(), AuthFailure> {
        let issuer = metadata.issuer.clone();
        let (manager, granted) = match self.grant {
            OAuthGrant::AuthorizationCode => {
                let Some(authorizer) = &self.authorizer else {
                    return Err(advice::no_token(
                        &self.label,
                        published,
                        self.store.as_ref(),
                        self.login.as_deref(),
                        state.dropped.as_deref(),
                    ));
                };
                let manager = self
                    .authorization_code(manager, authorizer, metadata, challenge)
                    .await?;
                (manager, Vec::new())
            }
            OAuthGrant::ClientCredentials => {
                let scopes = if self.scopes.is_empty() {
                    // The order of a login: the challenge's scope, else the resource's
                    // `scopes_supported`; not rmcp's `offline_access`, as this grant gets no
                    // refresh token (RFC 6749 section 4.4.3).
                    manager
                        .select_initial_scopes(&[])
                        .await
                        .into_iter()
                        .filter(|s| s != "offline_access")
                        .collect()
                } else {
                    self.scopes.clone()
                };
                (self.client_credentials(manager, &scopes).await?, scopes)
            }
        };
        self.hold(state, manager, issuer, granted).await?;
        tracing::info!(server = %self.label, grant = self.grant.as_str(), "obtained an OAuth access token");
        Ok(())
    }

    /// Holds the token `manager` has just obtained, granted by `issuer` for `granted` (the
    /// scopes a client credentials grant asked for), in `state` from now on.
    async fn hold(
        &self,
        state: &mut State,
        manager: AuthorizationManager,
        issuer: Option<String>,
        granted: Vec<String>,
    ) -> Result<(), AuthFailure> {
        let token = manager
            .get_access_token()
            .await
            .map_err(|e| failure("reading the new access token", &e, &self.again()))?;
        *state = State {
            manager: Some(manager),
            issuer,
            token: Some(token),
            refreshed: false,
            granted,
            restored: true,
            dropped: None,
        };
        Ok(())
    }

    /// The authorization code grant: registration (or the pinned identity), the user's
    /// approval through `authorizer`, the code exchanged for a token.
    async fn authorization_code(
        &self,
        mut manager: AuthorizationManager,
        authorizer: &Authorizer,
        metadata: &AuthorizationMetadata,
        challenge: Option<&str>,
    ) -> Result<AuthorizationManager, AuthFailure> {
        // PKCE with S256, which the authorization server must advertise (MCP 2025-11-25,
        // "Authorization Code Protection": a client refuses to proceed when
        // `code_challenge_methods_supported` is absent or lacks S256). rmcp only warns when it
        // is absent; checked first, the failure names the step it belongs to.
        if !metadata
            .code_challenge_methods_supported
            .as_ref()
            .is_some_and(|methods| methods.iter().any(|m| m == "S256"))
        {
            return Err(failure(
                "checking the authorization server's metadata",
                &AuthError::PkceUnsupported,
                &self.again(),
            ));
        }
        let issuer = metadata.issuer.clone();
        let redirect_uri = authorizer.0.redirect_uri();
        let scopes = if self.scopes.is_empty() {
            manager.select_initial_scopes(&[]).await
        } else {
            self.scopes.clone()
        };
        let mut request = AuthorizationRequest::new(redirect_uri.clone())
            .with_client_name(self.client_name.clone())
            .with_scopes(scopes.clone());
        if let Some(challenge) = challenge {
            request = request.with_challenge(challenge);
        }
        // The identity, in the specification's order: pre-registered, a Client ID Metadata
        // Document (where supported), dynamic registration. The registration is made here
        // rather than by rmcp, so that the secret it issues is kept with the login (a
        // refresh in a later run needs it).
        let identity = if let Some(id) = &self.client_id {
            request = request.with_preregistered_client(id.clone());
            if let Some(secret) = &self.client_secret {
                request = request.with_client_secret(secret.expose());
            }
            Identity {
                issuer,
                client_id: id.clone(),
                client_secret: self.client_secret.clone(),
                redirect_uri,
            }
        } else if let Some(url) = self
            .client_metadata_url
            .as_ref()
            .filter(|_| supports_client_metadata(metadata))
        {
            request = request.with_client_metadata_url(url.clone());
            Identity {
                issuer,
                client_id: url.clone(),
                client_secret: None,
                redirect_uri,
            }
        } else {
            let scope_refs: Vec<&str> = scopes.iter().map(String::as_str).collect();
            let registered = manager
                .register_client(&self.client_name, &redirect_uri, &scope_refs)
                .await
                .map_err(|e| failure("registering the client", &e, &self.again()))?;
            request = request.with_preregistered_client(registered.client_id.clone());
            if let Some(secret) = &registered.client_secret {
                request = request.with_client_secret(secret.clone());
            }
            Identity {
                issuer,
                client_id: registered.client_id,
                client_secret: registered.client_secret.map(Secret::new),
                redirect_uri,
            }
        };
        manager.set_credential_store(Persisting::new(
            self.store.clone(),
            self.url.as_str(),
            identity,
            Arc::clone(&self.rejected),
        ));
        let session = AuthorizationSession::new(manager, request)
            .await
            .map_err(|(_, e)| failure("preparing the authorization request", &e, &self.again()))?;
        let redirect = self
            .approve(authorizer, session.get_authorization_url())
            .await?;
        withholding_secrets(session.handle_callback_url(&redirect))
            .await
            .map_err(|e| {
                let step = format!(
                    "exchanging the authorization code at the token endpoint {}",
                    redact_url(&metadata.token_endpoint)
                );
                failure(&step, &e, &self.again())
            })?;
        Ok(session.auth_manager)
    }

    /// The user's approval: the redirect URL from the authorizer, or the authorization
    /// server's `error` on it (RFC 6749 section 4.1.2.1) as a failure.
    async fn approve(&self, authorizer: &Authorizer, url: &str) -> Result<String, AuthFailure> {
        let url = &with_consent_prompt(url);
        let redirect = authorizer.0.authorize(url).await.map_err(|message| {
            AuthFailure::new(format!("authorizing the client failed: {message}"), "")
        })?;
        let Ok(parsed) = reqwest::Url::parse(&redirect) else {
            return Ok(redirect);
        };
        if let Some((_, error)) = parsed.query_pairs().find(|(k, _)| k == "error") {
            let description = parsed
                .query_pairs()
                .find(|(k, _)| k == "error_description")
                .map(|(_, d)| format!(" ({})", crate::quote::cut(&d, 200)))
                .unwrap_or_default();
            let hint = if error == "access_denied" {
                format!("the request was denied; {} and approve it", self.retry())
            } else {
                "check the client's registration with the authorization server".to_owned()
            };
            return Err(AuthFailure::new(
                format!(
                    "the authorization server refused the authorization request: {}{description}",
                    crate::quote::cut(&error, 100)
                ),
                hint,
            ));
        }
        // rmcp finds no login for a foreign `state` and says only that its state was not
        // found: the mismatch is named here, before anything is exchanged.
        let state = |u: &reqwest::Url| {
            u.query_pairs()
                .find(|(k, _)| k == "state")
                .map(|(_, v)| v.into_owned())
        };
        let sent = reqwest::Url::parse(url).ok().and_then(|u| state(&u));
        if sent.is_some() && state(&parsed) != sent {
            return Err(AuthFailure::new(
                "the authorization server redirected with another `state` than the \
                 authorization request carried (RFC 6749 section 10.12), so the redirect may be \
                 forged or belong to another login; its code was not used",
                format!(
                    "{}; if it keeps happening, tell the server's operator",
                    self.retry()
                ),
            ));
        }
        Ok(redirect)
    }

    /// The client credentials grant for `scopes` with the configured secret.
    async fn client_credentials(
        &self,
        mut manager: AuthorizationManager,
        scopes: &[String],
    ) -> Result<AuthorizationManager, AuthFailure> {
        let step = "the client credentials grant";
        let config = self.client_credentials_config(scopes).ok_or_else(|| {
            // `new` refuses this configuration.
            AuthFailure::new(
                format!("{step} has no client id, secret or key"),
                "set `client-id-env` and `client-secret-env`",
            )
        })?;
        manager
            .validate_client_credentials_metadata(&config)
            .and_then(|()| manager.configure_client_credentials(&config))
            .map_err(|e| failure(step, &e, &self.again()))?;
        // With `oauth-jwt`, rmcp's exchange (either method) is not `Send`.
        #[cfg(feature = "oauth-jwt")]
        return exchange_on_own_thread(manager, config)
            .await
            .map_err(|e| failure(step, &e, &self.again()));
        #[cfg(not(feature = "oauth-jwt"))]
        {
            manager
                .exchange_client_credentials(&config)
                .await
                .map_err(|e| failure(step, &e, &self.again()))?;
            Ok(manager)
        }
    }

    /// rmcp's settings of the client credentials grant for `scopes`: `private_key_jwt` with a
    /// key, else the secret; `None` without a client id or either.
    fn client_credentials_config(&self, scopes: &[String]) -> Option<ClientCredentialsConfig> {
        let client_id = self.client_id.clone()?;
        #[cfg(feature = "oauth-jwt")]
        if let Some((key, algorithm)) = &self.private_key {
            use rmcp::transport::auth::JwtSigningAlgorithm;
            let signing_algorithm = match algorithm.as_str() {
                "RS384" => JwtSigningAlgorithm::RS384,
                "RS512" => JwtSigningAlgorithm::RS512,
                "ES256" => JwtSigningAlgorithm::ES256,
                "ES384" => JwtSigningAlgorithm::ES384,
                _ => JwtSigningAlgorithm::RS256,
            };
            return Some(ClientCredentialsConfig::PrivateKeyJwt {
                client_id,
                signing_key: key.expose().as_bytes().to_vec(),
                signing_algorithm,
                token_endpoint_audience: None,
                scopes: scopes.to_vec(),
                resource: Some(self.url.to_string()),
            });
        }
        Some(ClientCredentialsConfig::ClientSecret {
            client_id,
            client_secret: self.client_secret.as_ref()?.expose().to_owned(),
            scopes: scopes.to_vec(),
            resource: Some(self.url.to_string()),
        })
    }

    /// A `401`: the held token refreshed (same authorization server, a refresh token held,
    /// the token not itself a refresh's), else a new grant; an authorization server that
    /// changed gets a new registration. A refresh refused for good drops the login (see
    /// [`OAuthClient::drop_login`]).
    async fn unauthorized(&self, state: &mut State, refusal: &Refusal) -> Result<(), AuthFailure> {
        let challenge = refusal.challenge.as_deref();
        let (fresh, metadata, published) = match self.discover(challenge).await {
            Ok(discovered) => discovered,
            // No metadata could be read, and the challenge names none: a static-token server
            // or one whose metadata is down cannot be told apart.
            Err(mut failure)
                if self.grant == OAuthGrant::AuthorizationCode
                    && self.authorizer.is_none()
                    && challenge
                        .map(|c| WWWAuthenticateParams::parse(c, &self.url))
                        .is_none_or(|p| p.resource_metadata_url.is_none()) =>
            {
                failure.hint = advice::or_token(&failure.hint);
                return Err(failure);
            }
            Err(failure) => return Err(failure),
        };
        let issuer = &metadata.issuer;
        let mut refused = None;
        if refusal.token.is_some()
            && let Some(manager) = &state.manager
        {
            if *issuer != state.issuer {
                tracing::info!(
                    server = %self.label,
                    from = state.issuer.as_deref().unwrap_or("(none)"),
                    to = issuer.as_deref().unwrap_or("(none)"),
                    "the MCP server's authorization server changed; authorizing there anew"
                );
            } else if !state.refreshed {
                match manager.refresh_token().await {
                    Ok(_) => {
                        let token = manager.get_access_token().await.map_err(|e| {
                            failure("reading the refreshed access token", &e, &self.again())
                        })?;
                        state.token = Some(token);
                        state.refreshed = true;
                        return Ok(());
                    }
                    Err(e) => {
                        tracing::debug!(
                            server = %self.label,
                            "the refused token could not be refreshed ({e}); authorizing anew"
                        );
                        refused = refused_refresh(&e);
                    }
                }
            }
        }
        if let Some(code) = refused {
            self.drop_login(state, code);
        }
        self.grant(state, fresh, (&metadata, published), challenge)
            .await
    }

    /// A `403` with `error="insufficient_scope"`: the union of the granted and the
    /// challenged scopes, through the user's approval again (or a new client credentials
    /// grant), at most 3 times.
    async fn step_up(&self, state: &mut State, required: &str) -> Result<(), AuthFailure> {
        let shown = crate::quote::cut(required, 200);
        let Some(manager) = &state.manager else {
            return Err(AuthFailure::new(
                format!(
                    "the MCP server `{}` asked for the scope `{shown}` before any token was \
                     granted",
                    self.label
                ),
                "check the server's OAuth configuration",
            ));
        };
        match self.grant {
            OAuthGrant::AuthorizationCode => {
                let Some(authorizer) = &self.authorizer else {
                    return Err(AuthFailure::new(
                        format!(
                            "the MCP server `{}` needs the scope `{shown}`, which the stored \
                             login lacks",
                            self.label
                        ),
                        self.again(),
                    ));
                };
                self.upgrade(manager, authorizer, required).await?;
                let token = manager.get_access_token().await.ok();
                state.token = token;
                state.refreshed = false;
                Ok(())
            }
            OAuthGrant::ClientCredentials => {
                let mut scopes = state.granted.clone();
                for scope in required.split_whitespace() {
                    if !scopes.iter().any(|s| s == scope) {
                        scopes.push(scope.to_owned());
                    }
                }
                if scopes.len() == state.granted.len() {
                    return Err(AuthFailure::new(
                        format!(
                            "the MCP server `{}` refused the scopes this client was granted \
                             ({})",
                            self.label,
                            scopes.join(" ")
                        ),
                        "check the client's permissions with the authorization server",
                    ));
                }
                let (fresh, metadata, _) = self.discover(None).await?;
                let manager = self.client_credentials(fresh, &scopes).await?;
                self.hold(state, manager, metadata.issuer, scopes).await
            }
        }
    }

    /// The authorization code grant's step-up with `manager`: the union of the granted scopes
    /// and `required` (rmcp counts the attempts), the user's approval, the code exchanged.
    async fn upgrade(
        &self,
        manager: &AuthorizationManager,
        authorizer: &Authorizer,
        required: &str,
    ) -> Result<(), AuthFailure> {
        let step = "asking for more scope";
        let url = manager
            .request_scope_upgrade(required)
            .await
            .map_err(|e| failure(step, &e, &self.again()))?;
        let redirect = self.approve(authorizer, &url).await?;
        let callback = rmcp::transport::auth::AuthorizationCallback::from_redirect_url(&redirect)
            .map_err(|e| failure(step, &e, &self.again()))?;
        withholding_secrets(manager.exchange_code_for_token_with_issuer(
            &callback.code,
            &callback.csrf_token,
            callback.issuer.as_deref(),
        ))
        .await
        .map(|_| ())
        .map_err(|e| failure(step, &e, &self.again()))
    }
}

/// `url` with `prompt=consent` added when its `scope` asks for `offline_access` (which rmcp
/// adds where the authorization server advertises it) and it has no `prompt`:
/// an OpenID provider ignores `offline_access` without it (OpenID Connect Core 1.0 section 11)
/// and then issues no refresh token. The official TypeScript SDK does the same.
fn with_consent_prompt(url: &str) -> String {
    let Ok(mut parsed) = reqwest::Url::parse(url) else {
        return url.to_owned();
    };
    let offline = parsed
        .query_pairs()
        .any(|(k, v)| k == "scope" && v.split(' ').any(|s| s == "offline_access"));
    if !offline || parsed.query_pairs().any(|(k, _)| k == "prompt") {
        return url.to_owned();
    }
    parsed.query_pairs_mut().append_pair("prompt", "consent");
    parsed.into()
}

/// Whether the authorization server of `manager` accepts a Client ID Metadata Document URL as
/// a client id (`client_id_metadata_document_supported`).
fn supports_client_metadata(metadata: &AuthorizationMetadata) -> bool {
    metadata
        .additional_fields
        .get("client_id_metadata_document_supported")
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false)
}

impl TokenProvider for OAuthClient {
    fn access_token(&self) -> BoxFuture<'_, Result<Option<String>, AuthFailure>> {
        Box::pin(async move {
            let mut state = self.state.lock().await;
            if !state.restored {
                self.restore(&mut state).await?;
            }
            let Some(manager) = &state.manager else {
                return Ok(None);
            };
            match manager.get_access_token().await {
                Ok(token) => {
                    if state.token.as_deref() != Some(token.as_str()) {
                        // `get_access_token` refreshes a token about to expire.
                        state.token = Some(token.clone());
                        state.refreshed = true;
                    }
                    Ok(Some(token))
                }
                // Expired, and no refresh token (or one refused): the server's 401 starts a
                // new grant.
                Err(AuthError::AuthorizationRequired) => {
                    state.token = None;
                    if self.rejected.swap(false, Ordering::Relaxed) {
                        self.drop_login(&mut state, "invalid_grant");
                    }
                    Ok(None)
                }
                Err(e) => match refused_refresh(&e) {
                    Some(code) => {
                        self.drop_login(&mut state, code);
                        Ok(None)
                    }
                    None => Err(failure("refreshing the access token", &e, &self.again())),
                },
            }
        })
    }

    fn refused<'a>(&'a self, refusal: &'a Refusal) -> BoxFuture<'a, Result<(), AuthFailure>> {
        Box::pin(async move {
            let mut state = self.state.lock().await;
            if state.token.is_some() && refusal.token != state.token {
                // Another request obtained a newer token meanwhile: try that one.
                return Ok(());
            }
            let params = refusal
                .challenge
                .as_deref()
                .map(|c| WWWAuthenticateParams::parse(c, &self.url))
                .unwrap_or_default();
            if refusal.status == 403 {
                if !params.is_insufficient_scope() {
                    return Err(AuthFailure::new(
                        format!(
                            "the MCP server `{}` refused the request (HTTP 403) without asking \
                             for more scope",
                            self.label
                        ),
                        "check the account's permissions on the server",
                    ));
                }
                return self
                    .step_up(&mut state, params.scope.as_deref().unwrap_or_default())
                    .await;
            }
            self.unauthorized(&mut state, refusal).await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A client's `Debug` names its URL (redacted), grant and client id, never its secret.
    #[test]
    fn debug_shows_the_client_without_its_secret() {
        let config = OAuthConfig::default()
            .with_grant(OAuthGrant::ClientCredentials)
            .with_client_id("client-1")
            .with_client_secret(Secret::new("CLIENT-SECRET"));
        let client = OAuthClient::new("http://127.0.0.1:1/mcp?key=k1", &config, "oma").unwrap();
        assert_eq!(
            format!("{client:?}"),
            "OAuthClient { url: \"http://127.0.0.1:1/mcp?key=***\", grant: ClientCredentials, \
             client_id: Some(\"client-1\"), .. }"
        );
    }

    /// How to log in again: the pin's login command when there is one, else the library's
    /// words.
    #[test]
    fn how_to_log_in_again_names_the_login_command() {
        let client =
            OAuthClient::new("http://127.0.0.1:1/mcp", &OAuthConfig::default(), "oma").unwrap();
        assert_eq!(
            client.again(),
            "log in to this URL again with `oma-mcp login`, or let the connection ask the user \
             (`OAuthConfig::with_authorizer`)"
        );
        assert_eq!(client.retry(), "log in again");
        let client = client.with_login_command("oma-mcp login notes");
        assert_eq!(client.again(), "run `oma-mcp login notes` again");
        assert_eq!(client.retry(), "run `oma-mcp login notes` again");
    }

    /// A `403` asks for more scope only with `error="insufficient_scope"`; any other `403` is
    /// a refusal a new token does not cure. Before any token was granted, no scope can be
    /// added.
    #[tokio::test]
    async fn a_403_steps_up_only_for_insufficient_scope() {
        let client =
            OAuthClient::new("http://127.0.0.1:1/mcp", &OAuthConfig::default(), "oma").unwrap();
        let refused = |challenge: &str| Refusal::new(403, Some(challenge.to_owned()), None);
        let failure = client
            .refused(&refused("Bearer error=\"invalid_token\""))
            .await
            .unwrap_err();
        assert_eq!(
            (failure.reason.as_str(), failure.hint.as_str()),
            (
                "the MCP server `http://127.0.0.1:1/mcp` refused the request (HTTP 403) without \
                 asking for more scope",
                "check the account's permissions on the server"
            )
        );
        let failure = client
            .refused(&refused(
                "Bearer error=\"insufficient_scope\", scope=\"files:write\"",
            ))
            .await
            .unwrap_err();
        assert_eq!(
            (failure.reason.as_str(), failure.hint.as_str()),
            (
                "the MCP server `http://127.0.0.1:1/mcp` asked for the scope `files:write` before \
                 any token was granted",
                "check the server's OAuth configuration"
            )
        );
    }

    /// Client ID Metadata Documents are used only where the authorization server says it
    /// takes them (`client_id_metadata_document_supported: true`).
    #[test]
    fn client_metadata_documents_only_where_supported() {
        let metadata = |extra: serde_json::Value| -> AuthorizationMetadata {
            let mut fields = serde_json::json!({
                "authorization_endpoint": "http://127.0.0.1:1/authorize",
                "token_endpoint": "http://127.0.0.1:1/token"
            });
            fields
                .as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            serde_json::from_value(fields).unwrap()
        };
        let supported = serde_json::json!({"client_id_metadata_document_supported": true});
        assert!(supports_client_metadata(&metadata(supported)));
        let refused = serde_json::json!({"client_id_metadata_document_supported": false});
        assert!(!supports_client_metadata(&metadata(refused)));
        assert!(!supports_client_metadata(&metadata(serde_json::json!({}))));
        let not_a_bool = serde_json::json!({"client_id_metadata_document_supported": "yes"});
        assert!(!supports_client_metadata(&metadata(not_a_bool)));
    }

    #[test]
    fn offline_access_asks_for_consent() {
        let base = "https://as.example/authorize?response_type=code&client_id=c&state=s";
        assert_eq!(
            with_consent_prompt(&format!("{base}&scope=mcp%3Atools+offline_access")),
            format!("{base}&scope=mcp%3Atools+offline_access&prompt=consent")
        );
        for unchanged in [
            format!("{base}&scope=mcp%3Atools"),
            format!("{base}&scope=offline_access&prompt=login"),
            base.to_owned(),
            "not a URL".to_owned(),
        ] {
            assert_eq!(with_consent_prompt(&unchanged), unchanged);
        }
    }
}
