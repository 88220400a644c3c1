//! [`Persisting`]: rmcp's credential store for one grant, which keeps the credentials in
//! memory and, for a client with a [`LoginStore`], writes each new token to disk with the client
//! identity that can refresh it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use oma_mcp_core::config::Secret;
use rmcp::transport::{AuthError, CredentialStore, StoredCredentials};
use tokio::sync::RwLock;

use oma_mcp_core::redact::redact_url;

use super::store::{LoginStore, SecretsIn, StoredLogin};

/// The client identity a grant was made with.
#[derive(Debug, Clone)]
pub(super) struct Identity {
    /// The authorization server's issuer.
    pub(super) issuer: Option<String>,
    pub(super) client_id: String,
    /// The client secret (pre-registered, or issued at dynamic registration).
    pub(super) client_secret: Option<Secret>,
    pub(super) redirect_uri: String,
}

/// The credentials of one grant: in memory, and in the [`LoginStore`] when there is one.
pub(super) struct Persisting {
    store: Option<LoginStore>,
    url: String,
    identity: Identity,
    credentials: RwLock<Option<StoredCredentials>>,
    /// Set when the authorization server refused the refresh token (`invalid_grant`): the
    /// client then marks the stored login stale.
    rejected: Arc<AtomicBool>,
}

impl Persisting {
    /// The store of a grant for the server at `url` with `identity`; `rejected` is set when
    /// the authorization server refuses its refresh token.
    pub(super) fn new(
        store: Option<LoginStore>,
        url: &str,
        identity: Identity,
        rejected: Arc<AtomicBool>,
    ) -> Self {
        Self {
            store,
            url: url.to_owned(),
            identity,
            credentials: RwLock::new(None),
            rejected,
        }
    }

    /// Starts from `credentials` read from the file store (not written back).
    pub(super) async fn start_with(&self, credentials: StoredCredentials) {
        *self.credentials.write().await = Some(credentials);
    }

    fn login(&self, credentials: StoredCredentials) -> StoredLogin {
        StoredLogin {
            server: redact_url(&self.url),
            issuer: self.identity.issuer.clone(),
            client_id: self.identity.client_id.clone(),
            client_secret: self
                .identity
                .client_secret
                .as_ref()
                .map(|s| s.expose().to_owned()),
            redirect_uri: self.identity.redirect_uri.clone(),
            credentials,
            secrets: SecretsIn::File,
            stale: None,
        }
    }
}

fn store_error(e: impl std::fmt::Display) -> AuthError {
    AuthError::CredentialStoreError(e.to_string())
}

#[async_trait::async_trait]
impl CredentialStore for Persisting {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        Ok(self.credentials.read().await.clone())
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        if let Some(store) = &self.store {
            store
                .save(&self.url, &self.login(credentials.clone()))
                .map_err(store_error)?;
        }
        *self.credentials.write().await = Some(credentials);
        Ok(())
    }

    async fn clear(&self) -> Result<(), AuthError> {
        if let Some(store) = &self.store {
            store.remove(&self.url).map_err(store_error)?;
        }
        *self.credentials.write().await = None;
        Ok(())
    }

    /// The refresh token is refused (`invalid_grant`): no token is held from now on, and the
    /// client marks the stored login stale (it sees the flag).
    async fn on_refresh_token_rejected(
        &self,
        _credentials: &StoredCredentials,
    ) -> Result<(), AuthError> {
        self.rejected.store(true, Ordering::Relaxed);
        *self.credentials.write().await = None;
        Ok(())
    }
}
