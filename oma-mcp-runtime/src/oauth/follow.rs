//! [`FollowRedirect`]: an [`Authorize`] that fetches the authorization URL itself and reads
//! the redirect, for authorization servers that approve a client without a page.

use std::time::Duration;

use oma_mcp_core::config::{Authorize, BoxFuture};
use oma_mcp_core::redact::redact_url;
use reqwest::header::LOCATION;

/// How long [`FollowRedirect`] waits for the authorization server's answer: 30 s.
const TIMEOUT: Duration = Duration::from_secs(30);

/// Approves the client without a browser: `GET`s the authorization URL with redirects off
/// and returns the `Location` it answers with (the redirect URI with `code` and `state`).
///
/// For authorization servers that redirect at once, such as the MCP conformance suite's mock
/// server, test servers and servers that approve a known client without a consent page; a
/// server that shows a page instead fails with a message saying to log in with a browser.
#[derive(Debug, Clone)]
pub struct FollowRedirect {
    redirect_uri: String,
}

impl FollowRedirect {
    /// An authorizer that registers `redirect_uri` (nothing listens there: the redirect is
    /// read, not followed).
    pub fn new(redirect_uri: impl Into<String>) -> Self {
        Self {
            redirect_uri: redirect_uri.into(),
        }
    }
}

impl Default for FollowRedirect {
    /// Registers `http://127.0.0.1/callback`.
    fn default() -> Self {
        Self::new("http://127.0.0.1/callback")
    }
}

impl Authorize for FollowRedirect {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    fn authorize<'a>(
        &'a self,
        authorization_url: &'a str,
    ) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(async move {
            let endpoint = redact_url(authorization_url.split('?').next().unwrap_or_default());
            crate::connect::http::tls::ensure_provider().map_err(|e| e.to_string())?;
            let client = reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .timeout(TIMEOUT)
                .build()
                .map_err(|e| format!("cannot build an HTTP client: {e}"))?;
            let response = client.get(authorization_url).send().await.map_err(|e| {
                format!(
                    "the authorization endpoint {endpoint} could not be reached: {}",
                    e.without_url()
                )
            })?;
            let status = response.status();
            let location = response
                .headers()
                .get(LOCATION)
                .and_then(|l| l.to_str().ok())
                .filter(|_| status.is_redirection());
            let Some(location) = location else {
                return Err(format!(
                    "the authorization endpoint {endpoint} answered HTTP {} instead of a \
                     redirect: it wants a user to approve the client; log in with a browser \
                     (`oma-mcp login`)",
                    status.as_u16()
                ));
            };
            reqwest::Url::parse(authorization_url)
                .and_then(|base| base.join(location))
                .map(String::from)
                .map_err(|_| {
                    format!(
                        "the authorization endpoint {endpoint} redirected to a location that is \
                         not a URL"
                    )
                })
        })
    }
}
