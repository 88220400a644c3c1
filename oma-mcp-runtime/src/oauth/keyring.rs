//! [`Keyring`]: the operating system's credential store (cargo feature `keyring`), where a
//! [`LoginStore`](super::LoginStore) keeps the secrets of a login.
//!
//! One back end per platform, chosen for a small build and no C library: the Secret Service
//! over D-Bus on Linux and the BSDs (GNOME Keyring, KeePassXC, KWallet 6; `zbus` with its
//! pure-Rust session crypto), the login Keychain on macOS, the Credential Manager on Windows,
//! all through `keyring-core`. Elsewhere the feature compiles and every login stays in its
//! file.
//!
//! Every call runs on a thread of its own and is given up after [`KEYRING_TIMEOUT`]: a
//! keyring that waits for an unlock prompt nobody can answer (a locked collection on a
//! machine without a prompter) makes the call fail instead of hanging the program.

use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use keyring_core::api::CredentialStore;
use keyring_core::{Entry, Error};

/// The keyring entries' service name; the user name of an entry is the login file's stem
/// (a hash of the server's URL, never the URL itself).
pub(super) const SERVICE: &str = "oma-mcp";

/// How long one keyring call may take before it is given up: 10 s.
pub const KEYRING_TIMEOUT: Duration = Duration::from_secs(10);

/// The operating system's keyring.
#[derive(Clone)]
pub(super) struct Keyring {
    store: Arc<CredentialStore>,
    /// What the back end is, for messages: e.g. `the Secret Service`.
    name: &'static str,
}

impl std::fmt::Debug for Keyring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl Keyring {
    /// The platform's keyring, when it answers; else why not (for a message that continues
    /// "the system keyring is not available: …").
    pub(super) fn system() -> Result<Self, String> {
        let (store, name) = within_timeout(platform)?.map_err(|e| e.to_string())?;
        let keyring = Self { store, name };
        // A store that connects may still refuse to read (a locked or missing collection):
        // one lookup of an entry that does not exist tells.
        keyring.get("availability-check")?;
        Ok(keyring)
    }

    /// What the back end is: `the Secret Service`, `the macOS Keychain`, `the Windows
    /// Credential Manager`.
    pub(super) fn name(&self) -> &'static str {
        self.name
    }

    /// The secret stored under `user`, if any.
    pub(super) fn get(&self, user: &str) -> Result<Option<String>, String> {
        let entry = self.entry(user)?;
        match within_timeout(move || entry.get_password())? {
            Ok(secret) => Ok(Some(secret)),
            Err(Error::NoEntry) => Ok(None),
            Err(e) => Err(e.to_string()),
        }
    }

    /// Stores `secret` under `user`, replacing what was stored.
    pub(super) fn set(&self, user: &str, secret: &str) -> Result<(), String> {
        let entry = self.entry(user)?;
        let secret = secret.to_owned();
        within_timeout(move || entry.set_password(&secret))?.map_err(|e| e.to_string())
    }

    /// Removes what is stored under `user`; `false` when nothing was.
    pub(super) fn delete(&self, user: &str) -> Result<bool, String> {
        let entry = self.entry(user)?;
        match within_timeout(move || entry.delete_credential())? {
            Ok(()) => Ok(true),
            Err(Error::NoEntry) => Ok(false),
            Err(e) => Err(e.to_string()),
        }
    }

    fn entry(&self, user: &str) -> Result<Entry, String> {
        Entry::new_in_store(&self.store, SERVICE, user).map_err(|e| e.to_string())
    }
}

/// Runs `call` on a thread of its own; an error when it takes longer than
/// [`KEYRING_TIMEOUT`] (the thread is left to finish or block on its own).
fn within_timeout<T: Send + 'static>(
    call: impl FnOnce() -> T + Send + 'static,
) -> Result<T, String> {
    let (sender, receiver) = mpsc::sync_channel(1);
    std::thread::Builder::new()
        .name("oma-mcp-keyring".to_owned())
        .spawn(move || {
            let _ = sender.send(call());
        })
        .map_err(|e| format!("no thread for the keyring call: {e}"))?;
    receiver.recv_timeout(KEYRING_TIMEOUT).map_err(|_| {
        format!(
            "it did not answer within {} s (is it locked, waiting for a password prompt?)",
            KEYRING_TIMEOUT.as_secs()
        )
    })
}

type Platform = keyring_core::Result<(Arc<CredentialStore>, &'static str)>;

#[cfg(all(
    unix,
    not(any(target_os = "macos", target_os = "ios", target_os = "android"))
))]
fn platform() -> Platform {
    let store: Arc<CredentialStore> = zbus_secret_service_keyring_store::Store::new()?;
    Ok((store, "the Secret Service"))
}

#[cfg(target_os = "macos")]
fn platform() -> Platform {
    let store: Arc<CredentialStore> = apple_native_keyring_store::keychain::Store::new()?;
    Ok((store, "the macOS Keychain"))
}

#[cfg(windows)]
fn platform() -> Platform {
    let store: Arc<CredentialStore> = windows_native_keyring_store::Store::new()?;
    Ok((store, "the Windows Credential Manager"))
}

#[cfg(not(any(
    windows,
    target_os = "macos",
    all(
        unix,
        not(any(target_os = "macos", target_os = "ios", target_os = "android"))
    )
)))]
fn platform() -> Platform {
    Err(Error::NotSupportedByStore(
        "oma-mcp has no keyring back end for this platform".to_owned(),
    ))
}
