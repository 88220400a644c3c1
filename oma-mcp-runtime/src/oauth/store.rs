//! [`LoginStore`]: OAuth logins kept between runs: one file per server, readable by the user
//! only, with the secrets in that file or in the operating system's keyring.

use std::io::Write;
use std::path::{Path, PathBuf};

use rmcp::transport::StoredCredentials;
use rmcp::transport::auth::OAuthTokenResponse;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The environment variable that moves the credential directory: [`LoginStore::locate`] uses
/// its value as the directory when set (tests, CI, several accounts on one machine).
pub const CREDENTIALS_DIR_ENV: &str = "OMA_MCP_CREDENTIALS_DIR";

/// The environment variable that chooses where a login's secrets go: `keyring` (the
/// operating system's keyring; an error when it is not available), `file` (the login's file),
/// or unset / `auto` (the keyring when this build has one, cargo feature `keyring`, and it
/// answers; else the file).
pub const CREDENTIAL_STORE_ENV: &str = "OMA_MCP_CREDENTIAL_STORE";

/// Where a login's secrets (tokens and client secret) are kept.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SecretsIn {
    /// In the login's file, beside the rest.
    #[default]
    File,
    /// In the operating system's keyring (service `oma-mcp`, user the file's stem); the file
    /// holds the rest.
    Keyring,
}

/// Why the credential store could not be read or written: the file and the OS error, never a
/// file's content.
#[derive(Debug, thiserror::Error)]
#[error("the OAuth credential store {}: {what}", path.display())]
#[non_exhaustive]
pub struct StoreError {
    /// The file or directory.
    pub path: PathBuf,
    /// What failed and why.
    pub what: String,
}

/// One server's login: the client identity the authorization server knows this client by
/// (with the secret it issued at dynamic registration, which a refresh needs) and rmcp's
/// stored credentials (the access and refresh tokens, the granted scopes, when the token was
/// received).
///
/// `Debug` shows no secret.
#[derive(Clone, Serialize, Deserialize)]
pub struct StoredLogin {
    /// The MCP server's URL, redacted ([`redact_url`](oma_mcp_core::redact::redact_url)): what
    /// `oma-mcp auth status` shows.
    pub server: String,
    /// The issuer of the authorization server that granted the tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
    /// The client id.
    pub client_id: String,
    /// The client secret issued at registration, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// The redirect URI the client was registered with.
    pub redirect_uri: String,
    /// The tokens.
    pub credentials: StoredCredentials,
    /// Where the secrets are kept. [`LoginStore::load`] and [`LoginStore::list`] return
    /// logins with their secrets whichever it is.
    #[serde(default, skip_serializing_if = "is_file")]
    pub secrets: SecretsIn,
    /// Why the login can no longer be used, once the authorization server refused its refresh
    /// for good (`invalid_grant`, `invalid_client`; see [`LoginStore::mark_stale`]): its
    /// tokens are gone, and only a new login helps. `None` for a usable login.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stale: Option<String>,
}

fn is_file(secrets: &SecretsIn) -> bool {
    *secrets == SecretsIn::File
}

/// The secrets of a login, as the keyring keeps them (one JSON object per login).
#[derive(Serialize, Deserialize)]
struct KeyringSecrets {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    client_secret: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    token_response: Option<OAuthTokenResponse>,
}

impl std::fmt::Debug for StoredLogin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredLogin")
            .field("server", &self.server)
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "***"))
            .field("redirect_uri", &self.redirect_uri)
            .field("credentials", &self.credentials)
            .field("secrets", &self.secrets)
            .field("stale", &self.stale)
            .finish()
    }
}

impl StoredLogin {
    /// The granted scopes, in the order granted; none when the authorization server granted
    /// an empty `scope` (an empty string is no scope).
    pub fn scopes(&self) -> Vec<&str> {
        self.credentials
            .granted_scopes
            .iter()
            .map(String::as_str)
            .filter(|scope| !scope.is_empty())
            .collect()
    }

    /// When the access token expires, in seconds since the Unix epoch, when the
    /// authorization server said (`expires_in`).
    pub fn expires_at(&self) -> Option<u64> {
        let token = serde_json::to_value(self.credentials.token_response.as_ref()?).ok()?;
        let expires_in = token.get("expires_in").and_then(Value::as_u64)?;
        Some(self.credentials.token_received_at? + expires_in)
    }

    /// Whether a refresh token is held.
    pub fn has_refresh_token(&self) -> bool {
        self.credentials
            .token_response
            .as_ref()
            .and_then(|t| serde_json::to_value(t).ok())
            .is_some_and(|t| t.get("refresh_token").is_some_and(|r| !r.is_null()))
    }
}

/// OAuth logins between runs: one JSON file per MCP server in a directory that only the user
/// can read (`0700`; files `0600`, written to a temporary file and renamed, so a reader never
/// sees half a file), with the login's secrets (tokens, client secret) in that file or, with
/// [`LoginStore::with_keyring`], in the operating system's keyring.
///
/// The directory ([`LoginStore::locate`]): `$OMA_MCP_CREDENTIALS_DIR`, else
/// `$XDG_CONFIG_HOME/oma-mcp/credentials`, else `~/.config/oma-mcp/credentials`
/// (`%APPDATA%\oma-mcp\credentials` on Windows). A file's name is the SHA-256 of the server's
/// URL, so no URL (which may carry a key) shows in a file name.
#[derive(Debug, Clone)]
pub struct LoginStore {
    dir: PathBuf,
    #[cfg(feature = "keyring")]
    keyring: Option<super::keyring::Keyring>,
}

impl LoginStore {
    /// A store in `dir` (created when a login is saved), with the secrets in the files.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self {
            dir: dir.into(),
            #[cfg(feature = "keyring")]
            keyring: None,
        }
    }

    /// The same store with the secrets of the logins it saves in the operating system's
    /// keyring (cargo feature `keyring`): the Secret Service on Linux, the Keychain on macOS,
    /// the Credential Manager on Windows.
    ///
    /// # Errors
    /// [`StoreError`] when the keyring does not answer (no D-Bus session or no Secret Service
    /// on Linux, a locked keyring, a platform without a back end).
    #[cfg(feature = "keyring")]
    pub fn with_keyring(mut self) -> Result<Self, StoreError> {
        let keyring = super::keyring::Keyring::system()
            .map_err(|why| error(&self.dir, format!("cannot use the system keyring: {why}")))?;
        self.keyring = Some(keyring);
        Ok(self)
    }

    /// The store in the user's credential directory (see [`LoginStore`]), with the secrets
    /// where [`CREDENTIAL_STORE_ENV`] says: by default the system keyring when this build has
    /// one (cargo feature `keyring`) and it answers, else the files.
    ///
    /// # Errors
    /// [`StoreError`] when no home or configuration directory is known, when
    /// `OMA_MCP_CREDENTIAL_STORE` has another value than `keyring`, `file` or `auto`, or when
    /// it is `keyring` and the keyring is not available.
    pub fn locate() -> Result<Self, StoreError> {
        let store = Self::new(Self::credentials_dir()?);
        let choice = std::env::var(CREDENTIAL_STORE_ENV).unwrap_or_default();
        match choice.as_str() {
            "file" => Ok(store),
            "" | "auto" => Ok(store.keyring_if_available()),
            "keyring" => store.keyring_required(),
            other => Err(error(
                &store.dir,
                format!(
                    "{CREDENTIAL_STORE_ENV} is {:?}; set it to `keyring`, `file` or `auto`",
                    crate::quote::cut(other, 40)
                ),
            )),
        }
    }

    #[cfg(feature = "keyring")]
    fn keyring_if_available(self) -> Self {
        let dir = self.dir.clone();
        self.with_keyring().unwrap_or_else(|e| {
            tracing::debug!("{}; OAuth logins keep their secrets in their files", e.what);
            Self::new(dir)
        })
    }

    #[cfg(not(feature = "keyring"))]
    fn keyring_if_available(self) -> Self {
        self
    }

    #[cfg(feature = "keyring")]
    fn keyring_required(self) -> Result<Self, StoreError> {
        self.with_keyring().map_err(|mut e| {
            e.what.push_str(&format!(
                "; unlock or start it, or set {CREDENTIAL_STORE_ENV}=file to keep logins in \
                 their files"
            ));
            e
        })
    }

    #[cfg(not(feature = "keyring"))]
    fn keyring_required(self) -> Result<Self, StoreError> {
        Err(error(
            &self.dir,
            format!(
                "{CREDENTIAL_STORE_ENV} is `keyring`, and this build has no keyring support \
                 (oma-mcp-runtime's cargo feature `keyring`); set it to `file`"
            ),
        ))
    }

    fn credentials_dir() -> Result<PathBuf, StoreError> {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        if let Some(dir) = var(CREDENTIALS_DIR_ENV) {
            return Ok(PathBuf::from(dir));
        }
        let config = if cfg!(windows) {
            var("APPDATA").map(PathBuf::from)
        } else {
            var("XDG_CONFIG_HOME")
                .map(PathBuf::from)
                .or_else(|| var("HOME").map(|home| Path::new(&home).join(".config")))
        };
        config
            .map(|c| c.join("oma-mcp").join("credentials"))
            .ok_or_else(|| StoreError {
                path: PathBuf::from("~/.config/oma-mcp/credentials"),
                what: format!(
                    "no home directory is known (HOME and XDG_CONFIG_HOME are not set); set \
                     {CREDENTIALS_DIR_ENV} to a directory for OAuth logins"
                ),
            })
    }

    /// The file of the login stored for the server at `url` in the user's credential
    /// directory (see [`LoginStore::locate`]), when there is one; no keyring is asked.
    pub fn stored_file(url: &str) -> Option<PathBuf> {
        let path = Self::new(Self::credentials_dir().ok()?).path(url);
        path.is_file().then_some(path)
    }

    /// Where the secrets of the logins this store saves go: `the Secret Service`, `the macOS
    /// Keychain`, `the Windows Credential Manager`, or the directory.
    pub fn secrets_location(&self) -> String {
        #[cfg(feature = "keyring")]
        if let Some(keyring) = &self.keyring {
            return keyring.name().to_owned();
        }
        self.dir.display().to_string()
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of the server at `url`.
    pub fn path(&self, url: &str) -> PathBuf {
        let digest = oma_mcp_core::snapshot::digest(&Value::String(url.to_owned()));
        let hex = digest.trim_start_matches("sha256:");
        self.dir.join(format!("{}.json", &hex[..32]))
    }

    /// The login for the server at `url`, if one is stored, with its secrets (read from the
    /// keyring when it keeps them there).
    ///
    /// # Errors
    /// [`StoreError`] when the file cannot be read or is not a login (it is then left as it
    /// is: `oma-mcp logout` removes it), or when its secrets are in a keyring that cannot be
    /// read. Secrets the keyring no longer holds make no login (`None`, with a warning).
    pub fn load(&self, url: &str) -> Result<Option<StoredLogin>, StoreError> {
        let path = self.path(url);
        let Some(login) = read_login(&path)? else {
            return Ok(None);
        };
        self.with_secrets(&path, login)
    }

    /// Stores `login` for the server at `url`, replacing what was stored: its secrets in the
    /// keyring when this store has one (or in the file, with a warning, when the keyring
    /// refuses them), the rest in the file.
    ///
    /// # Errors
    /// [`StoreError`] when the directory or the file cannot be written.
    pub fn save(&self, url: &str, login: &StoredLogin) -> Result<(), StoreError> {
        self.create_dir()?;
        let path = self.path(url);
        let on_disk = self.keep_secrets(&path, login);
        let text = serde_json::to_string_pretty(&on_disk)
            .map_err(|e| error(&path, format!("cannot be written: {e}")))?;
        let temporary = path.with_extension(format!("tmp-{}", std::process::id()));
        let written = private_file(&temporary)
            .and_then(|mut file| {
                file.write_all(text.as_bytes())?;
                file.sync_all()
            })
            .and_then(|()| std::fs::rename(&temporary, &path));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&temporary);
            return Err(error(&path, format!("cannot be written: {e}")));
        }
        Ok(())
    }

    /// Marks the login stored for the server at `url` stale with `reason` (see
    /// [`StoredLogin::stale`]) and drops its tokens, keeping the rest (the client identity,
    /// for `oma-mcp auth status`), until a new login replaces it or it is removed; `false` when
    /// none is stored.
    ///
    /// # Errors
    /// As [`load`](Self::load) and [`save`](Self::save).
    pub fn mark_stale(&self, url: &str, reason: &str) -> Result<bool, StoreError> {
        let Some(mut login) = self.load(url)? else {
            return Ok(false);
        };
        login.stale = Some(reason.to_owned());
        login.credentials.token_response = None;
        self.save(url, &login)?;
        Ok(true)
    }

    /// Removes the login of the server at `url`, its secrets in the keyring too; `false` when
    /// none was stored.
    ///
    /// # Errors
    /// [`StoreError`] when the file exists and cannot be removed, or its secrets cannot be
    /// removed from the keyring (the file is then kept, so a later `logout` can retry).
    pub fn remove(&self, url: &str) -> Result<bool, StoreError> {
        self.remove_file(&self.path(url))
    }

    /// Removes the login stored in `file` (one of [`list`](Self::list)'s), as
    /// [`remove`](Self::remove) does.
    ///
    /// # Errors
    /// As [`remove`](Self::remove).
    pub fn remove_file(&self, file: &Path) -> Result<bool, StoreError> {
        let secrets = match read_login(file) {
            Ok(login) => login.map(|l| l.secrets),
            // Not a login: the file goes, and no keyring entry is known.
            Err(_) => Some(SecretsIn::File),
        };
        let Some(secrets) = secrets else {
            return Ok(false);
        };
        if secrets == SecretsIn::Keyring {
            self.forget_secrets(file)?;
        }
        match std::fs::remove_file(file) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(error(file, format!("cannot be removed: {e}"))),
        }
    }

    /// Every stored login with its file and its secrets, ordered by server; files that are
    /// not logins, and logins whose secrets cannot be read, are skipped with a warning.
    ///
    /// # Errors
    /// [`StoreError`] when the directory exists and cannot be read.
    pub fn list(&self) -> Result<Vec<(PathBuf, StoredLogin)>, StoreError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(error(&self.dir, format!("cannot be read: {e}"))),
        };
        let mut logins = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            match read_login(&path).and_then(|l| match l {
                Some(login) => self.with_secrets(&path, login),
                None => Ok(None),
            }) {
                Ok(Some(login)) => logins.push((path, login)),
                Ok(None) => {}
                Err(e) => tracing::warn!("skipped {e}"),
            }
        }
        logins.sort_by(|a, b| a.1.server.cmp(&b.1.server));
        Ok(logins)
    }

    /// `login` with its secrets, from the keyring when the file says they are there.
    fn with_secrets(
        &self,
        path: &Path,
        mut login: StoredLogin,
    ) -> Result<Option<StoredLogin>, StoreError> {
        if login.secrets == SecretsIn::File {
            return Ok(Some(login));
        }
        let text = self.read_secrets(path)?;
        let Some(text) = text else {
            tracing::warn!(
                "the stored login for {} keeps its secrets in the system keyring, which no \
                 longer holds them; log in again",
                login.server
            );
            return Ok(None);
        };
        let secrets: KeyringSecrets = serde_json::from_str(&text).map_err(|e| {
            error(
                path,
                format!(
                    "keeps its secrets in the system keyring, where they are not a stored \
                     login's (line {}, column {}); remove it with `oma-mcp logout`",
                    e.line(),
                    e.column()
                ),
            )
        })?;
        login.client_secret = secrets.client_secret;
        login.credentials.token_response = secrets.token_response;
        Ok(Some(login))
    }

    /// What the file to write for `login` holds: without its secrets when the keyring took
    /// them.
    fn keep_secrets(&self, path: &Path, login: &StoredLogin) -> StoredLogin {
        let mut on_disk = login.clone();
        on_disk.secrets = SecretsIn::File;
        #[cfg(feature = "keyring")]
        if let Some(keyring) = &self.keyring {
            let secrets = KeyringSecrets {
                client_secret: login.client_secret.clone(),
                token_response: login.credentials.token_response.clone(),
            };
            let stored = serde_json::to_string(&secrets)
                .map_err(|e| e.to_string())
                .and_then(|text| keyring.set(&stem(path), &text));
            match stored {
                Ok(()) => {
                    on_disk.client_secret = None;
                    on_disk.credentials.token_response = None;
                    on_disk.secrets = SecretsIn::Keyring;
                }
                Err(why) => tracing::warn!(
                    "{} refused the secrets of the login for {} ({why}); they are kept in {}, \
                     readable by you only",
                    keyring.name(),
                    login.server,
                    path.display()
                ),
            }
        }
        #[cfg(not(feature = "keyring"))]
        let _ = path;
        on_disk
    }

    #[cfg(feature = "keyring")]
    fn keyring_for(&self, path: &Path) -> Result<super::keyring::Keyring, StoreError> {
        match &self.keyring {
            Some(keyring) => Ok(keyring.clone()),
            None => super::keyring::Keyring::system().map_err(|why| {
                error(
                    path,
                    format!(
                        "keeps its secrets in the system keyring, which is not available: {why}; \
                         make it available, or delete this file and log in again"
                    ),
                )
            }),
        }
    }

    #[cfg(feature = "keyring")]
    fn read_secrets(&self, path: &Path) -> Result<Option<String>, StoreError> {
        let keyring = self.keyring_for(path)?;
        keyring.get(&stem(path)).map_err(|why| {
            error(
                path,
                format!(
                    "keeps its secrets in {}, which cannot be read: {why}; unlock it, or \
                     delete this file and log in again",
                    keyring.name()
                ),
            )
        })
    }

    #[cfg(feature = "keyring")]
    fn forget_secrets(&self, path: &Path) -> Result<(), StoreError> {
        let keyring = self.keyring_for(path)?;
        keyring.delete(&stem(path)).map(|_| ()).map_err(|why| {
            error(
                path,
                format!(
                    "keeps its secrets in {}, which cannot remove them: {why}; unlock it \
                     and run `oma-mcp logout` again (the file is kept until then)",
                    keyring.name()
                ),
            )
        })
    }

    #[cfg(not(feature = "keyring"))]
    fn read_secrets(&self, path: &Path) -> Result<Option<String>, StoreError> {
        Err(no_keyring(path))
    }

    #[cfg(not(feature = "keyring"))]
    fn forget_secrets(&self, path: &Path) -> Result<(), StoreError> {
        tracing::warn!(
            "{} kept its secrets in the system keyring, where they stay: this build has no \
             keyring support (oma-mcp-runtime's cargo feature `keyring`)",
            path.display()
        );
        Ok(())
    }

    /// Creates the directory, readable by the user only (an existing one is made so).
    fn create_dir(&self) -> Result<(), StoreError> {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder
            .create(&self.dir)
            .map_err(|e| error(&self.dir, format!("cannot be created: {e}")))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&self.dir, std::fs::Permissions::from_mode(0o700))
                .map_err(|e| error(&self.dir, format!("cannot be made private: {e}")))?;
        }
        Ok(())
    }
}

/// The login in `path`, without the secrets it keeps in the keyring; `None` when there is no
/// such file.
fn read_login(path: &Path) -> Result<Option<StoredLogin>, StoreError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(error(path, format!("cannot be read: {e}"))),
    };
    serde_json::from_str(&text).map(Some).map_err(|e| {
        error(
            path,
            format!(
                "is not a stored login (line {}, column {}); remove it with `oma-mcp logout`",
                e.line(),
                e.column()
            ),
        )
    })
}

/// The keyring entry's user name of the login in `path`: the file's stem (a hash of the URL).
#[cfg(feature = "keyring")]
fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[cfg(not(feature = "keyring"))]
fn no_keyring(path: &Path) -> StoreError {
    error(
        path,
        "keeps its secrets in the system keyring, and this build has no keyring support \
         (oma-mcp-runtime's cargo feature `keyring`); remove the login with `oma-mcp logout` and \
         log in again"
            .to_owned(),
    )
}

/// A new file at `path`, readable and writable by the user only (`0600` on Unix), replacing
/// one a crashed run left.
fn private_file(path: &Path) -> std::io::Result<std::fs::File> {
    let _ = std::fs::remove_file(path);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

fn error(path: &Path, what: String) -> StoreError {
    StoreError {
        path: path.to_owned(),
        what,
    }
}

#[cfg(test)]
mod tests;
