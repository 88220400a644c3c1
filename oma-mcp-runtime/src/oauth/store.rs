//! [`FileStore`]: OAuth logins kept on disk between runs, one file per server, readable by the
//! user only.

use std::io::Write;
use std::path::{Path, PathBuf};

use rmcp::transport::StoredCredentials;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The environment variable that moves the credential directory: [`FileStore::locate`] uses
/// its value as the directory when set (tests, CI, several accounts on one machine).
pub const CREDENTIALS_DIR_ENV: &str = "OMA_MCP_CREDENTIALS_DIR";

/// Why the credential store could not be read or written: the file and the OS error, never a
/// file's content.
#[derive(Debug, thiserror::Error)]
#[error("the OAuth credential store {}: {what}", path.display())]
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
            .finish()
    }
}

impl StoredLogin {
    /// The granted scopes.
    pub fn scopes(&self) -> &[String] {
        &self.credentials.granted_scopes
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

/// OAuth logins on disk: one JSON file per MCP server in a directory that only the user can
/// read (`0700`; files `0600`, written to a temporary file and renamed, so a reader never
/// sees half a file).
///
/// The directory ([`FileStore::locate`]): `$OMA_MCP_CREDENTIALS_DIR`, else
/// `$XDG_CONFIG_HOME/oma-mcp/credentials`, else `~/.config/oma-mcp/credentials`
/// (`%APPDATA%\oma-mcp\credentials` on Windows). A file's name is the SHA-256 of the server's
/// URL, so no URL (which may carry a key) shows in a file name.
#[derive(Debug, Clone)]
pub struct FileStore {
    dir: PathBuf,
}

impl FileStore {
    /// A store in `dir` (created when a login is saved).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The store in the user's credential directory (see [`FileStore`]).
    ///
    /// # Errors
    /// [`StoreError`] when no home or configuration directory is known.
    pub fn locate() -> Result<Self, StoreError> {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        if let Some(dir) = var(CREDENTIALS_DIR_ENV) {
            return Ok(Self::new(dir));
        }
        let config = if cfg!(windows) {
            var("APPDATA").map(PathBuf::from)
        } else {
            var("XDG_CONFIG_HOME")
                .map(PathBuf::from)
                .or_else(|| var("HOME").map(|home| Path::new(&home).join(".config")))
        };
        config
            .map(|c| Self::new(c.join("oma-mcp").join("credentials")))
            .ok_or_else(|| StoreError {
                path: PathBuf::from("~/.config/oma-mcp/credentials"),
                what: format!(
                    "no home directory is known (HOME and XDG_CONFIG_HOME are not set); set \
                     {CREDENTIALS_DIR_ENV} to a directory for OAuth logins"
                ),
            })
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

    /// The login for the server at `url`, if one is stored.
    ///
    /// # Errors
    /// [`StoreError`] when the file cannot be read or is not a login (it is then left as it
    /// is: `oma-mcp logout` removes it).
    pub fn load(&self, url: &str) -> Result<Option<StoredLogin>, StoreError> {
        let path = self.path(url);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(error(&path, format!("cannot be read: {e}"))),
        };
        serde_json::from_str(&text).map(Some).map_err(|e| {
            error(
                &path,
                format!(
                    "is not a stored login (line {}, column {}); remove it with `oma-mcp logout`",
                    e.line(),
                    e.column()
                ),
            )
        })
    }

    /// Stores `login` for the server at `url`, replacing what was stored.
    ///
    /// # Errors
    /// [`StoreError`] when the directory or the file cannot be written.
    pub fn save(&self, url: &str, login: &StoredLogin) -> Result<(), StoreError> {
        self.create_dir()?;
        let path = self.path(url);
        let text = serde_json::to_string_pretty(login)
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

    /// Removes the login of the server at `url`; `false` when none was stored.
    ///
    /// # Errors
    /// [`StoreError`] when the file exists and cannot be removed.
    pub fn remove(&self, url: &str) -> Result<bool, StoreError> {
        let path = self.path(url);
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(error(&path, format!("cannot be removed: {e}"))),
        }
    }

    /// Every stored login with its file, ordered by server; files that are not logins are
    /// skipped with a warning.
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
            let parsed = std::fs::read_to_string(&path)
                .map_err(|e| e.to_string())
                .and_then(|t| serde_json::from_str::<StoredLogin>(&t).map_err(|e| e.to_string()));
            match parsed {
                Ok(login) => logins.push((path, login)),
                Err(e) => tracing::warn!(
                    "skipped {}: not a stored OAuth login ({})",
                    path.display(),
                    crate::quote::cut(&e, 200)
                ),
            }
        }
        logins.sort_by(|a, b| a.1.server.cmp(&b.1.server));
        Ok(logins)
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
