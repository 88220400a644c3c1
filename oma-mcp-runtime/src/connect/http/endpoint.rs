//! One streamable HTTP endpoint: its URL, the configured headers (literal ones, and
//! credentials read from the environment), the HTTP client (redirects only to the same
//! origin), the connection's state ([`Connection`]) and the requests built from them.

use std::sync::Mutex;
use std::time::Duration;

use reqwest::header::{self, HeaderMap, HeaderName, HeaderValue};
use reqwest::{Method, Response, StatusCode};
use serde_json::Value;
use tokio::sync::watch;

use super::super::config::{
    CONNECT_TIMEOUT, ConnectConfig, MAX_REDIRECTS, Refusal, TokenSource, redact_url,
};
use super::super::message::{Outgoing, lock};
use super::headers::{self, Annotations, LAST_EVENT_ID, PROTOCOL_VERSION, RESERVED, SESSION_ID};
use super::outgoing::Post;
use super::refused::{Credentials, MAX_REFUSALS};
use super::state::Connection;
use crate::error::{ConfigError, ConnectError, Error};
use crate::quote::cut;

/// How long [`Http::end_session`] waits for the `DELETE`.
const DELETE_TIMEOUT: Duration = Duration::from_secs(2);

/// One streamable HTTP endpoint with its configured headers and connection state.
pub(crate) struct Http {
    client: reqwest::Client,
    /// The URL as pinned.
    pub(super) url: reqwest::Url,
    /// Where requests go: the pinned URL, or where it redirected for good (see
    /// [`Http::remember_redirect`]).
    target: Mutex<reqwest::Url>,
    /// The target of the last same-origin `308` the client followed (written by the redirect
    /// policy).
    permanent: std::sync::Arc<Mutex<Option<reqwest::Url>>>,
    /// The URL, redacted: what messages name.
    pub(super) label: String,
    /// The configured headers: literal ones, and those from the environment (marked
    /// sensitive, so no `Debug` shows them).
    headers: HeaderMap,
    /// What the connection authenticates with, for what a `401`/`403` error tells the user
    /// to do.
    pub(super) credentials: Credentials,
    /// The largest message accepted.
    pub(super) max_message_size: usize,
    /// The session's request timeout, also the bound of `notifications/initialized`'s `POST`.
    pub(super) request_timeout: Duration,
    /// The connection's state: requests read it for their headers; the stream of server
    /// messages and requests that wait for a new session watch it.
    pub(super) state: watch::Sender<Connection>,
    /// The listed tools' `x-mcp-header` annotations.
    annotations: Mutex<Annotations>,
    /// Where OAuth access tokens come from ([`ConnectConfig::token_provider`], or the OAuth
    /// client of [`ConnectConfig::oauth`]), when the server needs them.
    auth: Option<TokenSource>,
    /// The access token requests carry now (`Authorization: Bearer`).
    bearer: Mutex<Option<String>>,
    /// Every credential this endpoint has sent: the values of `bearer-env` and `header-env`,
    /// and each access token the token provider gave (old ones kept after a refresh).
    sent: Mutex<Vec<String>>,
}

impl std::fmt::Debug for Http {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Http").field("url", &self.label).finish()
    }
}

impl Http {
    /// The endpoint for `config.url`, with its headers read (environment values now).
    ///
    /// # Errors
    /// [`ConfigError::MissingEnv`] for a variable that is not set, [`ConfigError::InvalidHeader`]
    /// for a header that is not valid or is reserved, [`ConfigError::InvalidUrl`] for a URL that is
    /// not an absolute `http(s)` URL.
    pub(crate) fn new(config: &ConnectConfig, url: &str) -> Result<Self, Error> {
        let label = redact_url(url);
        let parsed = reqwest::Url::parse(url)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https") && u.has_host())
            .ok_or_else(|| Error::Config(ConfigError::InvalidUrl { url: label.clone() }))?;
        let mut headers = HeaderMap::new();
        let invalid = |name: &str, reason: &str| {
            Error::Config(ConfigError::InvalidHeader {
                name: cut(name, 100),
                server: label.clone(),
                reason: reason.to_owned(),
            })
        };
        let mut add = |name: &str, value: &str, secret: bool| -> Result<(), Error> {
            let header = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| invalid(name, "not a valid header name (RFC 9110 token)"))?;
            if RESERVED.contains(&header.as_str()) {
                return Err(invalid(name, "oma-mcp sets this header itself"));
            }
            let mut value = HeaderValue::from_str(value).map_err(|_| {
                invalid(
                    name,
                    "the value holds characters a header cannot carry (control characters or non-ASCII)",
                )
            })?;
            value.set_sensitive(secret);
            headers.insert(header, value);
            Ok(())
        };
        for (name, value) in &config.headers {
            add(name, value, false)?;
        }
        let env = |var: &str, header: &str| {
            std::env::var(var).map_err(|_| {
                Error::Config(ConfigError::MissingEnv {
                    var: var.to_owned(),
                    header: header.to_owned(),
                })
            })
        };
        let mut used = Vec::new();
        let mut sent = Vec::new();
        if let Some(var) = &config.bearer_env {
            let token = env(var, "Authorization")?;
            sent.push(token.trim().to_owned());
            add("Authorization", &format!("Bearer {}", token.trim()), true)?;
            used.push(format!("`{var}` (sent as `Authorization: Bearer`)"));
        }
        for (name, var) in &config.header_env {
            let value = env(var, name)?;
            add(name, &value, true)?;
            sent.push(value.trim().to_owned());
            used.push(format!("`{var}` (sent as `{name}`)"));
        }
        let auth = token_source(config, url, &label)?;
        if auth.is_some() && config.bearer_env.is_some() {
            return Err(Error::Config(ConfigError::InvalidOAuth {
                server: label,
                reason: "both `bearer-env` and OAuth are set, and each supplies the \
                         `Authorization` header; keep one"
                    .to_owned(),
            }));
        }
        let credentials = if auth.is_some() {
            Credentials::Provider
        } else if used.is_empty() {
            Credentials::None {
                // An optional OAuth that this build (without the feature `oauth`) left out.
                optional_login: config.oauth.as_ref().map(|o| {
                    o.login_command
                        .clone()
                        .unwrap_or_else(|| "oma-mcp login".to_owned())
                }),
            }
        } else {
            Credentials::FromEnv(used)
        };
        let origin = parsed.origin();
        let permanent = std::sync::Arc::new(Mutex::new(None));
        let moved = std::sync::Arc::clone(&permanent);
        let policy = reqwest::redirect::Policy::custom(move |attempt| {
            let same_origin = attempt.url().origin() == origin;
            let preserving = matches!(
                attempt.status(),
                StatusCode::TEMPORARY_REDIRECT | StatusCode::PERMANENT_REDIRECT
            );
            if attempt.previous().len() > MAX_REDIRECTS {
                attempt.error(format!(
                    "more than {MAX_REDIRECTS} redirects (a redirect loop?)"
                ))
            } else if same_origin && preserving {
                if attempt.status() == StatusCode::PERMANENT_REDIRECT {
                    *lock(&moved) = Some(attempt.url().clone());
                }
                attempt.follow()
            } else {
                attempt.stop()
            }
        });
        super::tls::ensure_provider()?;
        let client = reqwest::Client::builder()
            .redirect(policy)
            .connect_timeout(CONNECT_TIMEOUT.min(config.request_timeout))
            .build()
            .map_err(|e| {
                Error::Connect(ConnectError::HttpUnreachable {
                    server: label.clone(),
                    method: "connect".to_owned(),
                    source: Box::new(e.without_url()),
                })
            })?;
        Ok(Self {
            client,
            target: Mutex::new(parsed.clone()),
            permanent,
            url: parsed,
            label,
            headers,
            credentials,
            max_message_size: config.max_message_size,
            request_timeout: config.request_timeout,
            state: watch::Sender::new(Connection::default()),
            annotations: Mutex::new(Annotations::new()),
            auth,
            bearer: Mutex::new(None),
            sent: Mutex::new(sent),
        })
    }

    /// Every credential this endpoint has sent so far (see `sent`), for a recording to
    /// redact.
    pub(super) fn sent_credentials(&self) -> Vec<String> {
        lock(&self.sent).clone()
    }

    /// Asks the token provider, when there is one, for the access token of the next request
    /// of `method`, and returns the token that request carries.
    ///
    /// # Errors
    /// [`ConnectError::Authorization`] when the provider fails.
    pub(super) async fn authorize(&self, method: &str) -> Result<Option<String>, Error> {
        let Some(auth) = &self.auth else {
            return Ok(None);
        };
        let token = auth
            .0
            .access_token()
            .await
            .map_err(|f| self.authorization_error(method, f))?;
        lock(&self.bearer).clone_from(&token);
        if let Some(token) = &token {
            let mut sent = lock(&self.sent);
            if !sent.contains(token) {
                sent.push(token.clone());
            }
        }
        Ok(token)
    }

    /// Whether to send a request of `method` that carried `token` again after `response`: when
    /// its status is `401`/`403` (the server refused the credentials), fewer than
    /// [`MAX_REFUSALS`] refusals came in a row (`refusals` counts them), and the token provider
    /// has new credentials. `Ok(false)` for any other answer, past the limit, or without a
    /// provider (the answer is then the error).
    ///
    /// # Errors
    /// [`ConnectError::Authorization`] when the provider cannot obtain new credentials.
    pub(super) async fn send_again(
        &self,
        method: &str,
        response: &Response,
        token: Option<String>,
        refusals: &mut usize,
    ) -> Result<bool, Error> {
        let status = response.status();
        if status != StatusCode::UNAUTHORIZED && status != StatusCode::FORBIDDEN
            || *refusals >= MAX_REFUSALS
        {
            return Ok(false);
        }
        *refusals += 1;
        let Some(auth) = &self.auth else {
            return Ok(false);
        };
        let challenge = response
            .headers()
            .get(header::WWW_AUTHENTICATE)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        tracing::debug!(
            server = %self.label,
            status = status.as_u16(),
            challenge = challenge.as_deref().unwrap_or("(none)"),
            "`{method}`: the server refused the request's credentials"
        );
        let refusal = Refusal::new(status.as_u16(), challenge, token);
        auth.0
            .refused(&refusal)
            .await
            .map_err(|f| self.authorization_error(method, f))?;
        Ok(true)
    }

    /// [`ConnectError::Authorization`] for `method` from a provider's failure.
    fn authorization_error(
        &self,
        method: &str,
        failure: super::super::config::AuthFailure,
    ) -> Error {
        Error::Connect(ConnectError::Authorization {
            server: self.label.clone(),
            method: method.to_owned(),
            reason: failure.reason,
            hint: failure.hint,
        })
    }

    /// The redacted URL that messages name.
    pub(crate) fn label(&self) -> &str {
        &self.label
    }

    /// Records the version the lifecycle negotiated: sent as `MCP-Protocol-Version` from now
    /// on.
    pub(super) fn set_protocol_version(&self, version: &str) {
        self.state.send_if_modified(|c| {
            c.set_protocol_version(version);
            false
        });
    }

    /// Learns the `x-mcp-header` annotations of the listed tools (see
    /// [`headers::annotations`]).
    pub(super) fn learn_tools(&self, tools: &[Value]) {
        *lock(&self.annotations) = headers::annotations(tools);
    }

    /// `message`, ready to POST (its `Mcp-Param-*` values taken from its arguments now).
    pub(super) fn prepare(&self, message: Outgoing<'_>) -> Post {
        Post::prepare(message, &lock(&self.annotations))
    }

    /// Ends the session with `DELETE` (MCP 2025-03-26, "Session Management"), when there is
    /// one; bounded by 2 s; `405` (the server does not let clients end sessions) is fine.
    pub(super) async fn end_session(&self) {
        if self.state.borrow().session_id().is_none() {
            return;
        }
        // The session id and, as on every request after the handshake, the protocol version.
        let request = self
            .with_session(self.request(Method::DELETE))
            .timeout(DELETE_TIMEOUT);
        match request.send().await {
            Ok(response) => tracing::debug!(
                server = %self.label,
                status = response.status().as_u16(),
                "ended the MCP session"
            ),
            Err(e) => tracing::debug!(
                server = %self.label,
                "could not end the MCP session: {}",
                e.without_url()
            ),
        }
    }

    /// A request to the endpoint with the configured headers.
    fn request(&self, method: Method) -> reqwest::RequestBuilder {
        let target = lock(&self.target).clone();
        let mut headers = self.headers.clone();
        if let Some(token) = lock(&self.bearer).as_deref()
            && let Ok(mut value) = HeaderValue::from_str(&format!("Bearer {token}"))
        {
            value.set_sensitive(true);
            headers.insert(header::AUTHORIZATION, value);
        }
        self.client.request(method, target).headers(headers)
    }

    /// After `response` came from another URL than requests go to (the client followed a
    /// `307`/`308` to the same origin): later requests go to that URL at once when the
    /// redirect was permanent (`308`, RFC 9110 section 15.4.9) or came on the `handshake`
    /// (`initialize` or `server/discover`: where the session lives), and a warning suggests
    /// pinning it. Other `307`s are followed each time, as temporary ones are meant to be.
    pub(super) fn remember_redirect(&self, response: &Response, handshake: bool) {
        let reached = response.url();
        let mut target = lock(&self.target);
        if reached == &*target {
            return;
        }
        let permanent = lock(&self.permanent).as_ref() == Some(reached);
        if !permanent && !handshake {
            return;
        }
        *target = reached.clone();
        tracing::warn!(
            server = %self.label,
            "the MCP endpoint redirects (HTTP {}) to {}; the session's later requests go there \
             at once; pin that URL to save a round trip on each request",
            if permanent { 308 } else { 307 },
            redact_url(reached.as_str())
        );
    }

    /// A `GET` for an SSE stream with the session's headers: the stream of server messages,
    /// or with `last_event_id` the resumption of a dropped stream (`Last-Event-ID`).
    pub(super) fn event_stream_get(&self, last_event_id: Option<&str>) -> reqwest::RequestBuilder {
        let request = self
            .with_session(self.request(Method::GET))
            .header(header::ACCEPT, "text/event-stream");
        match last_event_id {
            Some(id) => request.header(LAST_EVENT_ID, id),
            None => request,
        }
    }

    /// `request` with the session id and the negotiated protocol version, when known.
    fn with_session(&self, mut request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        let c = self.state.borrow();
        if let Some(id) = c.session_id() {
            request = request.header(SESSION_ID, id.clone());
        }
        if let Some(version) = c.protocol_version() {
            request = request.header(PROTOCOL_VERSION, version);
        }
        request
    }

    /// The `POST` of `post`: the session id (never on `initialize`, which starts a session,
    /// also not while the expired id is still the one other requests carry),
    /// `MCP-Protocol-Version` and the standard headers of its version.
    pub(super) fn post_request(&self, post: &Post) -> reqwest::RequestBuilder {
        let mut request = self
            .request(Method::POST)
            .header(header::ACCEPT, "application/json, text/event-stream")
            .header(header::CONTENT_TYPE, "application/json");
        let version = {
            let c = self.state.borrow();
            if let Some(id) = c.session_id()
                && !post.is_initialize()
            {
                request = request.header(SESSION_ID, id.clone());
            }
            post.protocol_version(c.protocol_version().map(str::to_owned))
        };
        if let Some(version) = version.as_deref() {
            request = request.header(PROTOCOL_VERSION, version);
        }
        for (name, value) in post.standard_headers(version.as_deref()) {
            request = request.header(name, value);
        }
        request.body(post.body.clone())
    }

    /// Keeps a session id the server assigned.
    pub(super) fn capture_session(&self, response: &Response) {
        if let Some(id) = response.headers().get(SESSION_ID) {
            self.state.send_if_modified(|c| {
                c.capture(id);
                false
            });
        }
    }

    /// [`ConnectError::Http`] for `method`, naming this endpoint.
    pub(super) fn http_error(
        &self,
        method: &str,
        status: Option<StatusCode>,
        reason: String,
    ) -> Error {
        Error::Connect(ConnectError::Http {
            server: self.label.clone(),
            method: method.to_owned(),
            status: status.map(|s| s.as_u16()),
            reason,
        })
    }

    /// [`ConnectError::HttpUnreachable`] for `method`, with reqwest's error (without the URL).
    pub(super) fn unreachable(&self, method: &str, error: reqwest::Error) -> Error {
        Error::Connect(ConnectError::HttpUnreachable {
            server: self.label.clone(),
            method: method.to_owned(),
            source: Box::new(error.without_url()),
        })
    }
}

/// The token provider of `config`: its own ([`ConnectConfig::token_provider`]), or the OAuth
/// client of [`ConnectConfig::oauth`] (cargo feature `oauth`; without it, none for an
/// [optional](super::super::config::OAuthConfig::optional) one, else an error).
fn token_source(
    config: &ConnectConfig,
    url: &str,
    label: &str,
) -> Result<Option<TokenSource>, Error> {
    if let Some(provider) = &config.token_provider {
        return Ok(Some(provider.clone()));
    }
    let Some(oauth) = &config.oauth else {
        return Ok(None);
    };
    #[cfg(feature = "oauth")]
    {
        let mut client = crate::oauth::OAuthClient::new(url, oauth, &config.client_name)
            .map_err(Error::Config)?;
        // Logins of the authorization code grant persist in the user's credential store
        // (`oma-mcp login` writes it); without a home directory, for this session only.
        if oauth.grant == super::super::config::OAuthGrant::AuthorizationCode {
            match crate::oauth::LoginStore::locate() {
                Ok(store) => client = client.with_store(store),
                Err(e) => {
                    tracing::warn!(server = %label, "{e}; OAuth tokens last for this session only")
                }
            }
        }
        Ok(Some(TokenSource::new(client)))
    }
    #[cfg(not(feature = "oauth"))]
    {
        let _ = url;
        if oauth.optional {
            return Ok(None);
        }
        Err(Error::Config(ConfigError::OAuthFeatureDisabled {
            server: label.to_owned(),
        }))
    }
}

#[cfg(all(test, not(feature = "oauth")))]
mod tests {
    use super::super::super::config::OAuthConfig;
    use super::*;

    /// Without the feature `oauth`, an optional OAuth (a pin's stored login) is left out, and a
    /// required one is an error.
    #[test]
    fn an_optional_oauth_is_left_out_without_the_feature() {
        let url = "https://a.example/mcp";
        let optional = ConnectConfig::http(url)
            .with_oauth(OAuthConfig::authorization_code().with_optional(true));
        assert!(token_source(&optional, url, url).unwrap().is_none());
        let required = ConnectConfig::http(url).with_oauth(OAuthConfig::authorization_code());
        assert_eq!(
            token_source(&required, url, url).unwrap_err().to_string(),
            "the MCP server `https://a.example/mcp` is configured for OAuth, but oma-mcp-runtime \
             was built without its cargo feature `oauth` (add `features = [\"oauth\"]` to its \
             dependency)"
        );
    }
}
