//! Why discovery found no usable metadata: rmcp tells that none was found, not what the
//! metadata URL answered, so on that failure the URL is fetched once more and its answer
//! described (`answered HTTP 404`, `is not JSON`, …) for the message.

use std::time::Duration;

use oma_mcp_core::config::AuthFailure;
use oma_mcp_core::redact::redact_url;
use reqwest::header::{ACCEPT, CONTENT_TYPE};

use crate::quote::cut;

/// How long the second look at a metadata URL may take.
const TIMEOUT: Duration = Duration::from_secs(10);
/// The most of a metadata answer read: enough for any metadata document.
const LIMIT: usize = 64 * 1024;

/// What `url` answers to a metadata `GET`: `answered HTTP 404`, `answered HTTP 200 with a body
/// that is not JSON (Content-Type `text/html`)`, `could not be fetched (…)`, ….
pub(super) async fn describe(url: &str) -> String {
    if let Err(e) = crate::connect::http::tls::ensure_provider() {
        return format!("could not be fetched ({e})");
    }
    let client = match reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(TIMEOUT)
        .build()
    {
        Ok(client) => client,
        Err(e) => return format!("could not be fetched ({e})"),
    };
    let mut response = match client
        .get(url)
        .header(ACCEPT, "application/json")
        .send()
        .await
    {
        Ok(response) => response,
        Err(e) => return format!("could not be fetched ({})", e.without_url()),
    };
    let status = response.status().as_u16();
    if !response.status().is_success() {
        return format!("answered HTTP {status}");
    }
    let content_type = response
        .headers()
        .get(CONTENT_TYPE)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        .unwrap_or_else(|| "none".to_owned());
    let mut body = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) if body.len() < LIMIT => body.extend_from_slice(&chunk),
            Ok(_) => break,
            Err(e) => {
                return format!(
                    "answered HTTP {status}, and its body broke off ({})",
                    e.without_url()
                );
            }
        }
    }
    match serde_json::from_slice::<serde_json::Value>(&body) {
        Ok(serde_json::Value::Object(_)) => {
            format!("answered HTTP {status} with a JSON object that is not usable metadata")
        }
        _ => format!(
            "answered HTTP {status} with a body that is not a JSON object (Content-Type `{}`)",
            cut(&content_type, 100)
        ),
    }
}

/// The failure for a challenge whose `resource_metadata` URL gave no usable protected resource
/// metadata, and whose origin publishes no authorization server metadata either (rmcp would
/// go on to guess the 2025-03-26 default endpoints, which the resource never named).
pub(super) async fn unusable_resource_metadata(url: &reqwest::Url) -> AuthFailure {
    let label = redact_url(url.as_str());
    AuthFailure::new(
        format!(
            "discovering the authorization server failed: the protected resource metadata \
             (RFC 9728) at {label}, which the server's 401 names, {}, and the server's origin \
             publishes no authorization server metadata (RFC 8414) either, so no authorization \
             server is known to log in with",
            describe(url.as_str()).await
        ),
        "the server's OAuth setup is incomplete; tell its operator (and check that the URL is \
         the server's MCP endpoint)",
    )
}

/// The failure for protected resource metadata at `resource_metadata` whose authorization
/// servers (`servers`) publish no usable metadata: the first one's RFC 8414 document
/// described.
pub(super) async fn unusable_server_metadata(
    resource_metadata: &reqwest::Url,
    servers: &[String],
) -> AuthFailure {
    let first = servers.first().map(String::as_str).unwrap_or_default();
    let detail = match reqwest::Url::parse(first) {
        Ok(issuer) => {
            let path = issuer.path().trim_end_matches('/');
            let mut metadata = issuer.clone();
            metadata.set_query(None);
            metadata.set_fragment(None);
            metadata.set_path(&format!("/.well-known/oauth-authorization-server{path}"));
            format!(
                ": its metadata at {} {}",
                redact_url(metadata.as_str()),
                describe(metadata.as_str()).await
            )
        }
        Err(_) => String::new(),
    };
    AuthFailure::new(
        format!(
            "discovering the authorization server failed: the protected resource metadata at {} \
             names the authorization server {}, which publishes no usable metadata (RFC 8414, \
             or OpenID Connect discovery){detail}",
            redact_url(resource_metadata.as_str()),
            servers
                .iter()
                .map(|s| redact_url(s))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        "the authorization server is misconfigured or down; try again later, and tell the \
         server's operator if it keeps failing",
    )
}
