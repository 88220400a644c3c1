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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const URL: &str = "http://127.0.0.1:8080/mcp?key=k1";

    fn identity() -> Identity {
        Identity {
            issuer: Some("http://127.0.0.1:1".to_owned()),
            client_id: "client-1".to_owned(),
            client_secret: Some(Secret::new("CLIENT-SECRET")),
            redirect_uri: "http://127.0.0.1:2/callback".to_owned(),
        }
    }

    fn credentials(access_token: &str) -> StoredCredentials {
        serde_json::from_value(json!({
            "client_id": "client-1",
            "token_response": {"access_token": access_token, "token_type": "Bearer"},
            "granted_scopes": ["read"],
            "token_received_at": 1_700_000_000u64
        }))
        .unwrap()
    }

    fn token(credentials: Option<StoredCredentials>) -> Option<String> {
        let response = serde_json::to_value(credentials?.token_response?).unwrap();
        Some(response["access_token"].as_str()?.to_owned())
    }

    /// Each new token is written to the store with the identity that can refresh it, under
    /// the redacted URL; what the client started from is not written back; `clear` removes
    /// the login.
    #[tokio::test]
    async fn each_new_token_is_written_with_the_identity() {
        let dir = tempfile::tempdir().unwrap();
        let store = LoginStore::new(dir.path());
        let rejected = Arc::new(AtomicBool::new(false));
        let persisting = Persisting::new(Some(store.clone()), URL, identity(), rejected);
        assert!(persisting.load().await.unwrap().is_none());

        persisting.start_with(credentials("FROM-FILE")).await;
        assert_eq!(
            token(persisting.load().await.unwrap()).as_deref(),
            Some("FROM-FILE")
        );
        assert!(store.load(URL).unwrap().is_none());

        persisting.save(credentials("NEW")).await.unwrap();
        assert_eq!(
            token(persisting.load().await.unwrap()).as_deref(),
            Some("NEW")
        );
        let login = store.load(URL).unwrap().unwrap();
        assert_eq!(
            (
                login.server.as_str(),
                login.issuer.as_deref(),
                login.client_id.as_str(),
                login.client_secret.as_deref(),
                login.redirect_uri.as_str(),
                login.secrets,
                login.stale.as_deref(),
            ),
            (
                "http://127.0.0.1:8080/mcp?key=***",
                Some("http://127.0.0.1:1"),
                "client-1",
                Some("CLIENT-SECRET"),
                "http://127.0.0.1:2/callback",
                SecretsIn::File,
                None,
            )
        );
        assert_eq!(token(Some(login.credentials)).as_deref(), Some("NEW"));

        persisting.clear().await.unwrap();
        assert!(persisting.load().await.unwrap().is_none());
        assert!(!store.path(URL).exists());
    }

    /// Without a store the credentials live in memory only.
    #[tokio::test]
    async fn without_a_store_tokens_stay_in_memory() {
        let persisting = Persisting::new(None, URL, identity(), Arc::default());
        persisting.save(credentials("NEW")).await.unwrap();
        assert_eq!(
            token(persisting.load().await.unwrap()).as_deref(),
            Some("NEW")
        );
        persisting.clear().await.unwrap();
        assert!(persisting.load().await.unwrap().is_none());
    }

    /// A store that cannot be written fails the save, naming the store, and keeps the old
    /// token in memory.
    #[tokio::test]
    async fn a_store_that_cannot_be_written_fails_the_save() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, "").unwrap();
        let store = LoginStore::new(file.join("credentials"));
        let persisting = Persisting::new(Some(store), URL, identity(), Arc::default());
        persisting.start_with(credentials("OLD")).await;
        let error = persisting.save(credentials("NEW")).await.unwrap_err();
        let AuthError::CredentialStoreError(message) = error else {
            panic!("{error:?}");
        };
        assert!(
            message.starts_with(&format!(
                "the OAuth credential store {}: cannot be created: ",
                file.join("credentials").display()
            )),
            "{message}"
        );
        assert_eq!(
            token(persisting.load().await.unwrap()).as_deref(),
            Some("OLD")
        );
    }

    /// A refused refresh token drops the token and raises the flag the client reads.
    #[tokio::test]
    async fn a_refused_refresh_token_drops_the_token_and_says_so() {
        let rejected = Arc::new(AtomicBool::new(false));
        let persisting = Persisting::new(None, URL, identity(), rejected.clone());
        persisting.start_with(credentials("OLD")).await;
        persisting
            .on_refresh_token_rejected(&credentials("OLD"))
            .await
            .unwrap();
        assert!(rejected.load(Ordering::Relaxed));
        assert!(persisting.load().await.unwrap().is_none());
    }
}
