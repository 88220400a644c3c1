//! The crypto provider of the HTTP client's rustls: aws-lc-rs (feature `http`, as reqwest's
//! `rustls` feature has it) or ring (feature `http-ring`, which builds no aws-lc-sys and needs
//! no CMake or NASM), chosen at compile time; with neither, the one the program installed.
//!
//! reqwest (`rustls-no-provider`) and the OAuth flows of rmcp build their clients with the
//! process's default provider (`rustls::crypto::CryptoProvider::get_default`), so the chosen
//! one is installed as that default before the first HTTP client is built, unless the program
//! installed one already (which then wins).

use rustls::crypto::CryptoProvider;

use crate::error::ConfigError;

/// The provider compiled in: aws-lc-rs when feature `http` is on (also beside `http-ring`).
#[cfg(feature = "http")]
fn compiled() -> Option<CryptoProvider> {
    Some(rustls::crypto::aws_lc_rs::default_provider())
}

/// The provider compiled in: ring (feature `http-ring` without `http`).
#[cfg(all(feature = "http-ring", not(feature = "http")))]
fn compiled() -> Option<CryptoProvider> {
    Some(rustls::crypto::ring::default_provider())
}

/// No provider compiled in (feature `http-no-provider` alone).
#[cfg(not(any(feature = "http", feature = "http-ring")))]
fn compiled() -> Option<CryptoProvider> {
    None
}

/// Makes sure rustls has a process default crypto provider, as the runtime does before it
/// builds an HTTP client: the program's own, else the one the features compiled in (`http`:
/// aws-lc-rs, `http-ring`: ring), installed now. Call it before building a `reqwest` client
/// of your own in a program whose reqwest has no provider of its own (`rustls-no-provider`),
/// as the runtime's has. Idempotent and cheap after the first call.
///
/// # Errors
/// [`ConfigError::NoTlsProvider`] when neither exists (feature `http-no-provider` alone and
/// no provider installed).
pub fn ensure_provider() -> Result<(), ConfigError> {
    if CryptoProvider::get_default().is_some() {
        return Ok(());
    }
    let provider = compiled().ok_or(ConfigError::NoTlsProvider)?;
    // Another thread may install one in between; whichever is installed serves.
    let _ = provider.install_default();
    Ok(())
}

/// Which provider the HTTP client uses, for tests: `"aws-lc-rs"`, `"ring"` or `None`.
#[cfg(test)]
pub(crate) fn compiled_name() -> Option<&'static str> {
    if cfg!(feature = "http") {
        Some("aws-lc-rs")
    } else if cfg!(feature = "http-ring") {
        Some("ring")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Installed once, then the same default serves every client; the name says which.
    #[test]
    fn a_default_provider_is_installed_once() {
        ensure_provider().unwrap();
        let installed = CryptoProvider::get_default().expect("installed");
        ensure_provider().unwrap();
        assert!(std::sync::Arc::ptr_eq(
            installed,
            CryptoProvider::get_default().unwrap()
        ));
        let suites: Vec<String> = installed
            .cipher_suites
            .iter()
            .map(|s| format!("{:?}", s.suite()))
            .collect();
        assert!(
            suites.contains(&"TLS13_AES_128_GCM_SHA256".to_owned()),
            "{suites:?}"
        );
        assert_eq!(
            compiled_name(),
            Some("aws-lc-rs"),
            "all features: aws-lc-rs wins"
        );
    }
}
