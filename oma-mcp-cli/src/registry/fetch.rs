//! Requests to an MCP registry's `/v0.1` API: one entry
//! (`/v0.1/servers/{serverName}/versions/{version}`, `latest` for the newest) and the list of
//! a server's versions (`/v0.1/servers/{serverName}/versions`), each name and version
//! URL-encoded. Bounded in time and size; an error names the URL and what went wrong.

use std::time::Duration;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value;

/// The most bytes read of one answer (a server's version list included).
const MAX_BODY: usize = 4 * 1024 * 1024;

/// How long one request may take, connection included.
const TIMEOUT: Duration = Duration::from_secs(30);

/// What is encoded in a path segment: everything but unreserved characters (RFC 3986).
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// A registry at one base URL.
pub struct Registry {
    base: String,
    client: reqwest::Client,
}

/// An answer of the registry.
pub enum Answer {
    /// `200` with this JSON.
    Found(Value),
    /// `404`: no such server or version.
    NotFound,
}

impl Registry {
    /// The registry at `base` (`https://registry.modelcontextprotocol.io`; a trailing `/` is
    /// dropped).
    ///
    /// # Errors
    /// When `base` is not an http(s) URL, or the HTTP client cannot be built.
    pub fn new(base: &str) -> Result<Self, String> {
        let base = base.trim_end_matches('/').to_owned();
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(format!(
                "the registry {base:?} is not an http or https URL; give its base URL, such as \
                 https://registry.modelcontextprotocol.io"
            ));
        }
        // The runtime's rustls crypto provider (this reqwest brings none of its own).
        oma_mcp_runtime::connect::ensure_tls_provider().map_err(|e| e.to_string())?;
        let client = reqwest::Client::builder()
            .timeout(TIMEOUT)
            .connect_timeout(Duration::from_secs(10))
            .user_agent(concat!("oma-mcp/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| format!("cannot set up the HTTP client: {e}"))?;
        Ok(Self { base, client })
    }

    /// The base URL, without a trailing `/`.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The URL of a server's version list.
    pub fn versions_url(&self, name: &str) -> String {
        format!(
            "{}/v0.1/servers/{}/versions",
            self.base,
            utf8_percent_encode(name, SEGMENT)
        )
    }

    /// The URL of one version of a server (`latest` for the newest).
    pub fn version_url(&self, name: &str, version: &str) -> String {
        format!(
            "{}/{}",
            self.versions_url(name),
            utf8_percent_encode(version, SEGMENT)
        )
    }

    /// `GET` of one version of a server.
    ///
    /// # Errors
    /// As [`Registry::get`].
    pub async fn version(&self, name: &str, version: &str) -> Result<Answer, String> {
        self.get(&self.version_url(name, version)).await
    }

    /// `GET` of a server's version list.
    ///
    /// # Errors
    /// As [`Registry::get`].
    pub async fn versions(&self, name: &str) -> Result<Answer, String> {
        self.get(&self.versions_url(name)).await
    }

    /// `GET url`: its JSON on `200`, [`Answer::NotFound`] on `404`.
    ///
    /// # Errors
    /// The URL and what went wrong: no connection, a timeout, another status, an answer
    /// larger than 4 MiB, an answer that is not JSON.
    async fn get(&self, url: &str) -> Result<Answer, String> {
        let mut response = self
            .client
            .get(url)
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|e| format!("cannot reach the registry at {url}: {}", cause(&e)))?;
        let status = response.status();
        if status == reqwest::StatusCode::NOT_FOUND {
            return Ok(Answer::NotFound);
        }
        if !status.is_success() {
            return Err(format!("the registry answered {url} with HTTP {status}"));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| {
            format!(
                "cannot read the registry's answer from {url}: {}",
                cause(&e)
            )
        })? {
            if body.len() + chunk.len() > MAX_BODY {
                return Err(format!(
                    "the registry's answer from {url} is larger than {} MiB",
                    MAX_BODY / (1024 * 1024)
                ));
            }
            body.extend_from_slice(&chunk);
        }
        serde_json::from_slice(&body)
            .map(Answer::Found)
            .map_err(|e| format!("the registry's answer from {url} is not JSON: {e}"))
    }
}

/// The innermost cause of a `reqwest` error (the URL left out: the caller names it).
fn cause(error: &reqwest::Error) -> String {
    let mut source: &dyn std::error::Error = error;
    while let Some(next) = source.source() {
        source = next;
    }
    if error.is_timeout() {
        "timed out".to_owned()
    } else {
        source.to_string()
    }
}
