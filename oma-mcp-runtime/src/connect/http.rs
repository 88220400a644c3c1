//! The streamable HTTP transport (MCP 2025-03-26 and later, "Transports" → "Streamable
//! HTTP"; cargo feature `http`): it only moves messages; the session above it (ids, the
//! pending map, timeouts, cancellation, the lifecycle) is the same as over stdio.
//!
//! Every outgoing message is one `POST` with `Accept: application/json, text/event-stream`.
//! The answer is a JSON body or an SSE stream (`text/event-stream`) of messages: server
//! requests and notifications may come before the response, and each event's `data` goes
//! through the same routing as a stdout line, raw (nothing is lost on unknown fields). A
//! stream is read until the request it carries is answered (or abandoned).
//!
//! - **Session**: an `Mcp-Session-Id` response header is kept and sent on every later request.
//!   A `404` to a request that carried it means the session ended: the transport replays the
//!   `initialize` request and `notifications/initialized` once, without the old id, keeps the
//!   new id, and sends the request again (MCP 2025-06-18, "Session Management").
//! - **Headers**: `MCP-Protocol-Version` on every request after the handshake (the negotiated
//!   version; in a 2026-07-28 session the version of the request's `_meta` context).
//!   2026-07-28 requests also carry `Mcp-Method`, `Mcp-Name` (for `tools/call`,
//!   `prompts/get`: `params.name`; `resources/read`, `resources/subscribe`,
//!   `resources/unsubscribe`: `params.uri`) and `Mcp-Param-<Header>` for each `tools/call`
//!   argument whose property declares `x-mcp-header` in the tool's `inputSchema`; a value
//!   that cannot travel as header text is sent as `=?base64?<base64>?=`.
//! - **Server stream**: after an `initialize` handshake with a session (once
//!   `notifications/initialized` went through), a `GET` opens the stream of server messages;
//!   `405` means the server offers none. After a `404` started a new session, the old
//!   session's stream is dropped and the new session's opened.
//! - **Resumption**: when a response stream ends before its response and an event carried an
//!   `id`, the transport waits the stream's `retry` (default 1 s) and sends a `GET` with
//!   `Last-Event-ID` to resume it (MCP 2025-11-25, "Resumability and Redelivery"), up to
//!   [`MAX_RESUMES`] times in a row without a new event.
//! - **End**: [`Http::end_session`] sends `DELETE` with the session id (`405` is fine).
//! - **Limits**: a JSON body or one SSE event over
//!   [`ConnectConfig::max_message_size`](crate::ConnectConfig::max_message_size) fails the
//!   request it answers with [`Error::MessageTooLarge`]. Redirects: only `307`/`308` to the
//!   same origin, at most [`MAX_REDIRECTS`] (a redirect elsewhere is an [`Error::Http`] that
//!   shows the target, so credentials never follow to another host). Connecting is bounded
//!   by [`CONNECT_TIMEOUT`] (or the request timeout when shorter); the request timeout of the
//!   session bounds everything else, and a request that ends without its answer drops its
//!   stream.
//! - **Errors** name the redacted URL ([`redact_url`]), the request's method, the HTTP status
//!   and the first 300 chars of the body; `401`/`403` are [`Error::HttpAuth`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use futures_util::StreamExt as _;
use reqwest::header::{self, HeaderMap, HeaderName, HeaderValue};
use reqwest::{Method, Response, StatusCode};
use serde_json::Value;
use tokio::sync::mpsc;

use super::config::{CONNECT_TIMEOUT, ConnectConfig, MAX_REDIRECTS, MAX_RESUMES, redact_url};
use super::session::{Out, Outgoing, Shared, lock};
use crate::Error;
use crate::text::cut;

/// How long [`Http::end_session`] waits for the `DELETE`.
const DELETE_TIMEOUT: Duration = Duration::from_secs(2);

/// The wait before resuming a stream whose events set no `retry`.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);

/// The most chars of a response body an error quotes.
const BODY_EXCERPT: usize = 300;

/// The most bytes of an error response's body read for its message.
const ERROR_BODY_LIMIT: usize = 64 * 1024;

/// `Mcp-Session-Id` (MCP 2025-03-26, "Session Management").
const SESSION_ID: &str = "mcp-session-id";
/// `MCP-Protocol-Version` (MCP 2025-06-18, "Protocol Version Header").
const PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// `Last-Event-ID` (WHATWG HTML, "Server-sent events").
const LAST_EVENT_ID: &str = "last-event-id";
/// The standard headers of MCP 2026-07-28.
const MCP_METHOD: &str = "mcp-method";
const MCP_NAME: &str = "mcp-name";
const MCP_PARAM_PREFIX: &str = "Mcp-Param-";
/// The first revision with the standard headers (and without sessions).
const STANDARD_HEADERS_VERSION: &str = "2026-07-28";
/// The `_meta` key of the protocol version in a 2026-07-28 request's client context.
const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// Headers the transport sets itself; configuring one is an [`Error::InvalidHeader`].
const RESERVED: &[&str] = &[
    "accept",
    "content-type",
    "content-length",
    "host",
    SESSION_ID,
    PROTOCOL_VERSION,
    LAST_EVENT_ID,
    MCP_METHOD,
    MCP_NAME,
];

/// One streamable HTTP endpoint with its configured headers and session state.
pub(crate) struct Http {
    client: reqwest::Client,
    url: reqwest::Url,
    label: String,
    /// The configured headers: literal ones, and those from the environment (marked
    /// sensitive, so no `Debug` shows them).
    headers: HeaderMap,
    /// What a `401`/`403` error tells the user to do.
    auth_hint: String,
    max_message_size: usize,
    /// The session's request timeout, also the bound of a notification's `POST`.
    request_timeout: Duration,
    state: Mutex<State>,
    /// Held while the session is initialized again after a `404`.
    reinit: tokio::sync::Mutex<()>,
    /// Set once `notifications/initialized` was sent (and answered): the lifecycle is over,
    /// so the stream of server messages may open.
    initialized_sent: tokio::sync::watch::Sender<bool>,
    /// The generation of the session (see `State::generation`), published when a `404`
    /// started a new one, so the stream of server messages follows it.
    new_session: tokio::sync::watch::Sender<u64>,
}

impl std::fmt::Debug for Http {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Http").field("url", &self.label).finish()
    }
}

#[derive(Default)]
struct State {
    session_id: Option<HeaderValue>,
    /// Incremented each time the session is initialized again.
    generation: u64,
    /// The negotiated version, sent as `MCP-Protocol-Version` after the lifecycle (unless the
    /// message's `_meta` names one).
    protocol_version: Option<String>,
    /// The `initialize` request and `notifications/initialized`, replayed after a `404`.
    initialize: Option<Vec<u8>>,
    initialized: Option<Vec<u8>>,
    /// Per tool name: `(property, header)` for each `x-mcp-header` in its `inputSchema`.
    param_headers: HashMap<String, Vec<(String, String)>>,
}

/// What the transport reads from an outgoing message for its headers.
struct Outline {
    method: String,
    is_request: bool,
    /// `MCP-Protocol-Version`: the version of a 2026-07-28 request's `_meta` context, else
    /// the negotiated version (none before the lifecycle).
    version: Option<String>,
    /// `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*` (from 2026-07-28 on).
    standard: Vec<(HeaderName, HeaderValue)>,
}

impl Http {
    /// The transport for `config.url`, with its headers read (environment values now).
    ///
    /// # Errors
    /// [`Error::MissingEnv`] for a variable that is not set, [`Error::InvalidHeader`] for a
    /// header that is not valid or is reserved, [`Error::InvalidUrl`] for a URL that is not
    /// an absolute `http(s)` URL.
    pub(crate) fn new(config: &ConnectConfig, url: &str) -> Result<Self, Error> {
        let label = redact_url(url);
        let parsed = reqwest::Url::parse(url)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https") && u.has_host())
            .ok_or_else(|| Error::InvalidUrl { url: label.clone() })?;
        let mut headers = HeaderMap::new();
        let invalid = |name: &str, reason: &str| Error::InvalidHeader {
            name: cut(name, 100),
            server: label.clone(),
            reason: reason.to_owned(),
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
            std::env::var(var).map_err(|_| Error::MissingEnv {
                var: var.to_owned(),
                header: header.to_owned(),
            })
        };
        let mut used = Vec::new();
        if let Some(var) = &config.bearer_env {
            let token = env(var, "Authorization")?;
            add("Authorization", &format!("Bearer {}", token.trim()), true)?;
            used.push(format!("`{var}` (sent as `Authorization: Bearer`)"));
        }
        for (name, var) in &config.header_env {
            let value = env(var, name)?;
            add(name, &value, true)?;
            used.push(format!("`{var}` (sent as `{name}`)"));
        }
        let auth_hint = if used.is_empty() {
            "supply credentials from the environment with `--bearer-env VAR` or `--header-env \
             'Name=VAR'` (manifest keys `bearer-env`, `header-env`); OAuth is not supported yet"
                .to_owned()
        } else {
            format!(
                "check the credentials in {} (manifest keys `bearer-env`, `header-env`)",
                used.join(" and ")
            )
        };
        let origin = parsed.origin();
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
                attempt.follow()
            } else {
                attempt.stop()
            }
        });
        let client = reqwest::Client::builder()
            .redirect(policy)
            .connect_timeout(CONNECT_TIMEOUT.min(config.request_timeout))
            .build()
            .map_err(|e| Error::HttpUnreachable {
                server: label.clone(),
                method: "connect".to_owned(),
                source: Box::new(e.without_url()),
            })?;
        Ok(Self {
            client,
            url: parsed,
            label,
            headers,
            auth_hint,
            max_message_size: config.max_message_size,
            request_timeout: config.request_timeout,
            state: Mutex::new(State::default()),
            reinit: tokio::sync::Mutex::new(()),
            initialized_sent: tokio::sync::watch::Sender::new(false),
            new_session: tokio::sync::watch::Sender::new(0),
        })
    }

    /// The redacted URL that messages name.
    pub(crate) fn label(&self) -> &str {
        &self.label
    }

    /// Records the version `initialize` negotiated: sent as `MCP-Protocol-Version` from now on.
    pub(crate) fn set_protocol_version(&self, version: &str) {
        lock(&self.state).protocol_version = Some(version.to_owned());
    }

    /// Learns the `x-mcp-header` annotations of the listed tools (MCP 2026-07-28, "Standard
    /// headers"): top-level properties of `inputSchema` whose `x-mcp-header` is a non-empty
    /// string.
    pub(crate) fn learn_tools(&self, tools: &[Value]) {
        let mut map = HashMap::new();
        for tool in tools {
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                continue;
            };
            let Some(Value::Object(properties)) = tool.pointer("/inputSchema/properties") else {
                continue;
            };
            let pairs: Vec<(String, String)> = properties
                .iter()
                .filter_map(|(property, schema)| {
                    let header = schema.get("x-mcp-header")?.as_str()?;
                    (!header.is_empty()).then(|| (property.clone(), header.to_owned()))
                })
                .collect();
            if !pairs.is_empty() {
                map.insert(name.to_owned(), pairs);
            }
        }
        lock(&self.state).param_headers = map;
    }

    /// Ends the session with `DELETE` (MCP 2025-03-26, "Session Management"), when there is
    /// one; bounded by 2 s; `405` (the server does not let clients end sessions) is fine.
    pub(crate) async fn end_session(&self) {
        if lock(&self.state).session_id.is_none() {
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

    /// Opens the stream of server messages with `GET` (after an `initialize` handshake; MCP
    /// 2025-03-26, "Listening for Messages from the Server"). `None` when the server offers
    /// none (`405`, another status, not SSE).
    async fn open_server_stream(&self) -> Option<Response> {
        let response = match self.event_stream_get(None).send().await {
            Ok(r) => r,
            Err(e) => {
                tracing::debug!(server = %self.label, "no server stream: {}", e.without_url());
                return None;
            }
        };
        if response.status().is_success() && is_event_stream(&response) {
            Some(response)
        } else {
            tracing::debug!(
                server = %self.label,
                status = response.status().as_u16(),
                "the server offers no GET stream"
            );
            None
        }
    }

    /// Opens the stream of server messages and reads it until it ends, resuming it with
    /// `Last-Event-ID` when its events carried ids; its messages go through the session like
    /// any other. When a `404` starts a new session, the stream of the old one is dropped and
    /// the new session's is opened (at once if the old one already ended or was refused).
    /// `opened` is told once the server answered the first `GET` (or refused it), so connect
    /// can wait for the stream before the first request that may need it.
    pub(crate) async fn server_stream(
        self: Arc<Self>,
        shared: Arc<Shared>,
        out: Out,
        opened: tokio::sync::oneshot::Sender<()>,
    ) {
        // Not before `notifications/initialized` is through: the `GET` would race it, and a
        // server may refuse a stream of a session that is not initialized yet.
        let _ = self
            .initialized_sent
            .subscribe()
            .wait_for(|sent| *sent)
            .await;
        let mut sessions = self.new_session.subscribe();
        let mut opened = Some(opened);
        loop {
            // The session whose stream opens now; a later one is a change.
            sessions.borrow_and_update();
            let stream = self.open_server_stream().await;
            if let Some(opened) = opened.take() {
                let _ = opened.send(());
            }
            let mut new_session = false;
            if let Some(response) = stream {
                tokio::select! {
                    () = self.follow_server_stream(response, &shared, &out) => {}
                    changed = sessions.changed() => {
                        if changed.is_err() {
                            return;
                        }
                        new_session = true;
                    }
                }
            }
            if shared.is_closed() {
                return;
            }
            // Wait for the next session (one that started meanwhile counts) and open its
            // stream.
            if !new_session && sessions.changed().await.is_err() {
                return;
            }
        }
    }

    /// Reads one stream of server messages, resuming it with `Last-Event-ID` when its events
    /// carried ids ([`MAX_RESUMES`] times in a row without a new event at most), until it
    /// ends for good.
    async fn follow_server_stream(&self, mut response: Response, shared: &Shared, out: &Out) {
        let mut quiet = 0;
        loop {
            let end = self.read_events(response, shared, out, None).await;
            if shared.is_closed() {
                return;
            }
            let StreamEnd::Ended {
                last_event_id: Some(id),
                retry,
                events,
            } = end
            else {
                return;
            };
            quiet = if events == 0 { quiet + 1 } else { 0 };
            if quiet > MAX_RESUMES {
                return;
            }
            tokio::time::sleep(retry.unwrap_or(DEFAULT_RETRY)).await;
            response = match self.event_stream_get(Some(&id)).send().await {
                Ok(r) if r.status().is_success() && is_event_stream(&r) => r,
                _ => return,
            };
        }
    }

    fn request(&self, method: Method) -> reqwest::RequestBuilder {
        self.client
            .request(method, self.url.clone())
            .headers(self.headers.clone())
    }

    /// A `GET` for an SSE stream with the session's headers: the stream of server messages,
    /// or with `last_event_id` the resumption of a dropped stream (`Last-Event-ID`).
    fn event_stream_get(&self, last_event_id: Option<&str>) -> reqwest::RequestBuilder {
        let request = self
            .with_session(self.request(Method::GET))
            .header(header::ACCEPT, "text/event-stream");
        match last_event_id {
            Some(id) => request.header(LAST_EVENT_ID, id),
            None => request,
        }
    }

    fn with_session(&self, mut request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        let st = lock(&self.state);
        if let Some(id) = &st.session_id {
            request = request.header(SESSION_ID, id.clone());
        }
        if let Some(version) = st.protocol_version.as_deref() {
            request = request.header(PROTOCOL_VERSION, version);
        }
        request
    }

    /// Reads what the transport needs from an outgoing message (one JSON-RPC object).
    fn outline(&self, body: &[u8]) -> Outline {
        let message: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
        let method = message
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let is_request = message.get("id").is_some() && !method.is_empty();
        let params = message.get("params");
        let version = params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(META_PROTOCOL_VERSION))
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| {
                (method != "initialize")
                    .then(|| lock(&self.state).protocol_version.clone())
                    .flatten()
            });
        let mut standard = Vec::new();
        if !method.is_empty()
            && version
                .as_deref()
                .is_some_and(|v| v >= STANDARD_HEADERS_VERSION)
        {
            let mut push = |name: &str, value: &str| {
                if let (Ok(name), Ok(value)) = (
                    HeaderName::from_bytes(name.as_bytes()),
                    HeaderValue::from_str(&header_text(value)),
                ) {
                    standard.push((name, value));
                }
            };
            push(MCP_METHOD, &method);
            let name_key = match method.as_str() {
                "tools/call" | "prompts/get" => Some("name"),
                "resources/read" | "resources/subscribe" | "resources/unsubscribe" => Some("uri"),
                _ => None,
            };
            if let Some(name) = name_key
                .and_then(|key| params?.get(key))
                .and_then(Value::as_str)
            {
                push(MCP_NAME, name);
            }
            if method == "tools/call"
                && let Some(tool) = params.and_then(|p| p.get("name")).and_then(Value::as_str)
                && let Some(arguments) = params.and_then(|p| p.get("arguments"))
            {
                let st = lock(&self.state);
                for (property, header) in st.param_headers.get(tool).into_iter().flatten() {
                    let text = match arguments.get(property) {
                        Some(Value::String(s)) => s.clone(),
                        Some(Value::Bool(b)) => b.to_string(),
                        Some(Value::Number(n)) => n.to_string(),
                        _ => continue,
                    };
                    push(&format!("{MCP_PARAM_PREFIX}{header}"), &text);
                }
            }
        }
        Outline {
            method,
            is_request,
            version,
            standard,
        }
    }

    /// Builds the `POST` of `body`.
    fn post_request(&self, body: Vec<u8>, outline: &Outline) -> reqwest::RequestBuilder {
        let mut request = self
            .request(Method::POST)
            .header(header::ACCEPT, "application/json, text/event-stream")
            .header(header::CONTENT_TYPE, "application/json");
        {
            let st = lock(&self.state);
            // `initialize` starts a session: never with an id (also not while the expired one
            // is still the id other requests carry, see `initialize_again`).
            if let Some(id) = &st.session_id
                && outline.method != "initialize"
            {
                request = request.header(SESSION_ID, id.clone());
            }
        }
        if let Some(version) = outline.version.as_deref() {
            request = request.header(PROTOCOL_VERSION, version);
        }
        for (name, value) in &outline.standard {
            request = request.header(name.clone(), value.clone());
        }
        request.body(body)
    }

    /// Keeps a session id the server assigned.
    fn capture_session(&self, response: &Response) {
        if let Some(id) = response.headers().get(SESSION_ID) {
            let mut st = lock(&self.state);
            if st.session_id.as_ref() != Some(id) {
                let mut id = id.clone();
                id.set_sensitive(true);
                st.session_id = Some(id);
            }
        }
    }

    /// Sends one message and routes what comes back; failures fail the request `id` (or are
    /// logged for a notification or a response).
    async fn post(self: Arc<Self>, shared: Arc<Shared>, out: Out, body: Vec<u8>, id: Option<u64>) {
        let outline = self.outline(&body);
        let initialized = outline.method == "notifications/initialized";
        {
            let mut st = lock(&self.state);
            match outline.method.as_str() {
                "initialize" if outline.is_request => st.initialize = Some(body.clone()),
                "notifications/initialized" => st.initialized = Some(body.clone()),
                _ => {}
            }
        }
        self.send_and_route(&shared, &out, body, id, &outline).await;
        if initialized {
            // The server stream may open now (see `server_stream`).
            self.initialized_sent.send_replace(true);
        }
    }

    /// Sends one message (again after a `404` ended the session, once) and routes the answer.
    async fn send_and_route(
        &self,
        shared: &Shared,
        out: &Out,
        body: Vec<u8>,
        id: Option<u64>,
        outline: &Outline,
    ) {
        let mut retried = false;
        loop {
            let (generation, had_session) = {
                let st = lock(&self.state);
                (st.generation, st.session_id.is_some())
            };
            let result = self.post_request(body.clone(), outline).send().await;
            let response = match result {
                Ok(r) => r,
                Err(e) => {
                    let error = self.unreachable(&outline.method, e);
                    return self.report(shared, id, &outline.method, error);
                }
            };
            self.capture_session(&response);
            let status = response.status();
            if status == StatusCode::NOT_FOUND
                && had_session
                && !retried
                && outline.method != "initialize"
            {
                retried = true;
                match self.initialize_again(generation).await {
                    Ok(()) => continue,
                    Err(error) => return self.report(shared, id, &outline.method, error),
                }
            }
            if let Err(error) = self
                .answer(response, shared, out, id, &outline.method)
                .await
            {
                self.report(shared, id, &outline.method, error);
            }
            return;
        }
    }

    /// Fails the request `id` with `error`, or logs it for a message without an id.
    fn report(&self, shared: &Shared, id: Option<u64>, method: &str, error: Error) {
        match id {
            Some(id) => shared.fail(id, error),
            None if shared.is_closed() => tracing::debug!(
                server = %self.label,
                "sending `{method}` failed after the session closed: {}",
                error.chain()
            ),
            None => tracing::warn!(
                server = %self.label,
                "sending `{method}` to the MCP server failed: {}",
                error.chain()
            ),
        }
    }

    fn unreachable(&self, method: &str, error: reqwest::Error) -> Error {
        Error::HttpUnreachable {
            server: self.label.clone(),
            method: method.to_owned(),
            source: Box::new(error.without_url()),
        }
    }

    /// Handles one response to a `POST`.
    async fn answer(
        &self,
        response: Response,
        shared: &Shared,
        out: &Out,
        id: Option<u64>,
        method: &str,
    ) -> Result<(), Error> {
        let status = response.status();
        if status == StatusCode::ACCEPTED || status == StatusCode::NO_CONTENT {
            // A notification or response was accepted; for a request, the answer comes on
            // the server stream (or the request times out).
            return Ok(());
        }
        if status.is_success() {
            if is_event_stream(&response) {
                return self.answer_stream(response, shared, out, id, method).await;
            }
            if is_json(&response) {
                let body = self.read_body(response, method).await?;
                shared.receive(&body, out);
                return Ok(());
            }
            let content_type = content_type(&response).to_owned();
            let body = read_excerpt(response).await;
            return Err(self.http_error(
                method,
                Some(status),
                format!(
                    "not an MCP response (Content-Type `{content_type}`; an MCP server answers \
                     with application/json or text/event-stream; is the URL the server's MCP \
                     endpoint?): {body}"
                ),
            ));
        }
        if status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN {
            let challenge = response
                .headers()
                .get(header::WWW_AUTHENTICATE)
                .map(|v| cut(&String::from_utf8_lossy(v.as_bytes()), BODY_EXCERPT));
            return Err(Error::HttpAuth {
                server: self.label.clone(),
                method: method.to_owned(),
                status: status.as_u16(),
                challenge,
                hint: self.auth_hint.clone(),
            });
        }
        if status.is_redirection() {
            let location = response
                .headers()
                .get(header::LOCATION)
                .and_then(|l| l.to_str().ok())
                .and_then(|l| self.url.join(l).ok())
                .map_or_else(|| "(no Location)".to_owned(), |u| redact_url(u.as_str()));
            return Err(self.http_error(
                method,
                Some(status),
                format!(
                    "a redirect to {location}, which oma-mcp does not follow (only 307/308 to the \
                     same origin are followed, so credentials never reach another host); pin \
                     that URL instead"
                ),
            ));
        }
        // An error status: a JSON-RPC error in the body is the server's answer.
        let is_json = is_json(&response);
        let bytes = read_prefix(response, ERROR_BODY_LIMIT).await;
        if is_json
            && let Ok(Value::Object(message)) = serde_json::from_slice::<Value>(&bytes)
            && let Some(error) = message.get("error")
            && let Some(code) = error.get("code").and_then(Value::as_i64)
        {
            return Err(Error::Rpc {
                code,
                message: error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                data: error.get("data").cloned(),
            });
        }
        let text = String::from_utf8_lossy(&bytes);
        let hint = if status == StatusCode::NOT_FOUND {
            " (check the URL's path: many servers serve MCP at /mcp)"
        } else {
            ""
        };
        Err(self.http_error(
            method,
            Some(status),
            format!("{}{hint}", excerpt_text(&text)),
        ))
    }

    fn http_error(&self, method: &str, status: Option<StatusCode>, reason: String) -> Error {
        Error::Http {
            server: self.label.clone(),
            method: method.to_owned(),
            status: status.map(|s| s.as_u16()),
            reason,
        }
    }

    /// Reads a JSON body up to the message size limit.
    async fn read_body(&self, mut response: Response, method: &str) -> Result<Vec<u8>, Error> {
        let limit = self.max_message_size;
        if response
            .content_length()
            .is_some_and(|len| len > limit as u64)
        {
            return Err(Error::MessageTooLarge { limit });
        }
        let mut body = Vec::new();
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    if body.len() + chunk.len() > limit {
                        return Err(Error::MessageTooLarge { limit });
                    }
                    body.extend_from_slice(&chunk);
                }
                Ok(None) => return Ok(body),
                Err(e) => return Err(self.unreachable(method, e)),
            }
        }
    }

    /// Reads a response stream until the request `id` is answered; resumes a dropped stream
    /// with `Last-Event-ID` where the server supports it.
    async fn answer_stream(
        &self,
        response: Response,
        shared: &Shared,
        out: &Out,
        id: Option<u64>,
        method: &str,
    ) -> Result<(), Error> {
        let mut end = self.read_events(response, shared, out, id).await;
        let mut quiet = 0;
        loop {
            let (last_event_id, retry) = match end {
                StreamEnd::Answered => return Ok(()),
                StreamEnd::TooLarge => {
                    return Err(Error::MessageTooLarge {
                        limit: self.max_message_size,
                    });
                }
                // A stream that carries no request (the answer to a notification) just ends.
                _ if id.is_none() => return Ok(()),
                StreamEnd::Broken(reason) => {
                    return Err(self.http_error(
                        method,
                        Some(StatusCode::OK),
                        format!("the SSE stream broke before the response: {reason}"),
                    ));
                }
                StreamEnd::Ended {
                    last_event_id: None,
                    ..
                } => {
                    return Err(self.http_error(
                        method,
                        Some(StatusCode::OK),
                        "the SSE stream ended before the response, and no event had an id to \
                         resume it with"
                            .to_owned(),
                    ));
                }
                StreamEnd::Ended {
                    last_event_id: Some(last),
                    retry,
                    events,
                } => {
                    quiet = if events == 0 { quiet + 1 } else { 0 };
                    if quiet > MAX_RESUMES {
                        return Err(self.http_error(
                            method,
                            Some(StatusCode::OK),
                            format!(
                                "the SSE stream was resumed {MAX_RESUMES} times without a new \
                                 event, and still no response"
                            ),
                        ));
                    }
                    (last, retry)
                }
            };
            tokio::time::sleep(retry.unwrap_or(DEFAULT_RETRY)).await;
            tracing::debug!(server = %self.label, %method, "resuming the SSE stream after event {last_event_id}");
            let response = self
                .event_stream_get(Some(&last_event_id))
                .send()
                .await
                .map_err(|e| self.unreachable(method, e))?;
            let status = response.status();
            if !status.is_success() || !is_event_stream(&response) {
                let body = read_excerpt(response).await;
                return Err(self.http_error(
                    method,
                    Some(status),
                    format!(
                        "the SSE stream ended before the response and resuming it (GET with \
                         Last-Event-ID) failed: {body}"
                    ),
                ));
            }
            end = match self.read_events(response, shared, out, id).await {
                // Keep the last id when the resumed stream sent none.
                StreamEnd::Ended {
                    last_event_id: None,
                    retry: new_retry,
                    events,
                } => StreamEnd::Ended {
                    last_event_id: Some(last_event_id),
                    retry: new_retry.or(retry),
                    events,
                },
                other => other,
            };
        }
    }

    /// Routes the events of one SSE response until it ends or (with `id`) until that request
    /// is answered.
    async fn read_events(
        &self,
        response: Response,
        shared: &Shared,
        out: &Out,
        id: Option<u64>,
    ) -> StreamEnd {
        let limit = self.max_message_size;
        let mut cap = EventCap::new(limit.saturating_add(EVENT_OVERHEAD));
        let bytes = response.bytes_stream().map(move |chunk| match chunk {
            Ok(chunk) => cap.check(&chunk).map(|()| chunk),
            // With its causes: reqwest's own message ("error decoding response body") does
            // not say what happened to the connection.
            Err(e) => Err(StreamError::Body(
                crate::error::Chain(&e.without_url()).to_string(),
            )),
        });
        let mut events = std::pin::pin!(sse_stream::SseByteStream::new(bytes));
        let mut last_event_id = None;
        let mut retry = None;
        let mut count = 0usize;
        while let Some(event) = events.next().await {
            match event {
                Ok(event) => {
                    count += 1;
                    if let Some(event_id) = event.id {
                        last_event_id = Some(event_id);
                    }
                    if let Some(ms) = event.retry {
                        retry = Some(Duration::from_millis(ms));
                    }
                    if let Some(data) = event.data {
                        if data.len() > limit {
                            return StreamEnd::TooLarge;
                        }
                        shared.receive(data.as_bytes(), out);
                    }
                    if id.is_some_and(|id| !shared.is_pending(id)) {
                        return StreamEnd::Answered;
                    }
                }
                Err(sse_stream::Error::Body(e))
                    if e.downcast_ref::<StreamError>()
                        .is_some_and(|e| matches!(e, StreamError::TooLarge)) =>
                {
                    return StreamEnd::TooLarge;
                }
                // The body's own error, without the SSE parser's `body error: ` in front.
                Err(sse_stream::Error::Body(e)) => return StreamEnd::Broken(e.to_string()),
                Err(e) => return StreamEnd::Broken(e.to_string()),
            }
        }
        if id.is_some_and(|id| !shared.is_pending(id)) {
            return StreamEnd::Answered;
        }
        StreamEnd::Ended {
            last_event_id,
            retry,
            events: count,
        }
    }

    /// After a `404` to a request with the session id `generation` had: replays `initialize`
    /// and `notifications/initialized` without the id (once, also for concurrent requests),
    /// keeping the new session id.
    async fn initialize_again(&self, generation: u64) -> Result<(), Error> {
        let _guard = self.reinit.lock().await;
        let (initialize, initialized) = {
            let st = lock(&self.state);
            if st.generation != generation {
                // Another request already started the new session.
                return Ok(());
            }
            // The expired id stays until the new one is known: a request sent meanwhile
            // meets the 404 and waits here for the new session, instead of going out without
            // an id.
            (st.initialize.clone(), st.initialized.clone())
        };
        let method = "initialize";
        let Some(initialize) = initialize else {
            return Err(self.http_error(
                method,
                Some(StatusCode::NOT_FOUND),
                "the session ended (404) and there is no `initialize` to start a new one"
                    .to_owned(),
            ));
        };
        tracing::info!(server = %self.label, "the MCP session expired (HTTP 404); starting a new one");
        let outline = self.outline(&initialize);
        let response = self
            .post_request(initialize, &outline)
            .send()
            .await
            .map_err(|e| self.unreachable(method, e))?;
        let status = response.status();
        if !status.is_success() {
            let body = read_excerpt(response).await;
            return Err(self.http_error(
                method,
                Some(status),
                format!("starting a new session after the old one expired failed: {body}"),
            ));
        }
        // The new session's id (none: the server keeps no session any more).
        lock(&self.state).session_id = response.headers().get(SESSION_ID).map(|id| {
            let mut id = id.clone();
            id.set_sensitive(true);
            id
        });
        // The answer to the replayed `initialize` is not routed (its id belongs to the first
        // handshake), but read: to the end of a JSON body, or to the first SSE message.
        if is_event_stream(&response) {
            let events = response
                .bytes_stream()
                .map(|chunk| chunk.map_err(|e| StreamError::Body(e.without_url().to_string())));
            let mut events = std::pin::pin!(sse_stream::SseByteStream::new(events));
            while let Some(Ok(event)) = events.next().await {
                if event.data.is_some_and(|d| !d.is_empty()) {
                    break;
                }
            }
        } else {
            let _ = read_prefix(response, self.max_message_size).await;
        }
        if let Some(initialized) = initialized {
            let outline = self.outline(&initialized);
            if let Err(e) = self.post_request(initialized, &outline).send().await {
                return Err(self.unreachable("notifications/initialized", e));
            }
        }
        let generation = {
            let mut st = lock(&self.state);
            st.generation += 1;
            st.generation
        };
        // The stream of server messages follows the new session.
        self.new_session.send_replace(generation);
        Ok(())
    }
}

/// Extra bytes an SSE event may take beyond its data (field names, `id`, line ends).
const EVENT_OVERHEAD: usize = 64 * 1024;

/// How an SSE response ended.
enum StreamEnd {
    /// The request it carried was answered.
    Answered,
    /// An event was over the size limit.
    TooLarge,
    /// The body broke (connection reset, invalid UTF-8 in a field).
    Broken(String),
    /// The server closed it.
    Ended {
        last_event_id: Option<String>,
        retry: Option<Duration>,
        events: usize,
    },
}

/// Why the byte stream under the SSE parser stopped.
#[derive(Debug)]
enum StreamError {
    TooLarge,
    Body(String),
}

impl std::fmt::Display for StreamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StreamError::TooLarge => f.write_str("an SSE event over the message size limit"),
            StreamError::Body(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for StreamError {}

/// Counts the bytes of the SSE event being received (since the last blank line) so one event
/// cannot grow without bound before the parser sees its end.
struct EventCap {
    limit: usize,
    in_event: usize,
    at_line_start: bool,
    after_cr: bool,
}

impl EventCap {
    fn new(limit: usize) -> Self {
        Self {
            limit,
            in_event: 0,
            at_line_start: true,
            after_cr: false,
        }
    }

    fn check(&mut self, chunk: &[u8]) -> Result<(), StreamError> {
        for &byte in chunk {
            match byte {
                b'\n' if self.after_cr => self.after_cr = false,
                b'\n' | b'\r' => {
                    if self.at_line_start {
                        self.in_event = 0;
                    }
                    self.at_line_start = true;
                    self.after_cr = byte == b'\r';
                }
                _ => {
                    self.at_line_start = false;
                    self.after_cr = false;
                    self.in_event += 1;
                }
            }
        }
        if self.in_event > self.limit {
            Err(StreamError::TooLarge)
        } else {
            Ok(())
        }
    }
}

/// Why the `x-mcp-header` annotations of a tool's `inputSchema` are invalid (MCP
/// 2026-07-28, streamable HTTP "Custom Headers from Tool Parameters"), or `None` when they
/// are valid or absent: a value must be a non-empty RFC 9110 token, unique without regard to
/// case, on a top-level property of type `string`, `integer` or `boolean`; nested properties
/// may not carry one. Such a tool is left out of the tool list over HTTP, with a warning.
pub(crate) fn header_annotation_problem(tool: &Value) -> Option<String> {
    let Some(Value::Object(properties)) = tool.pointer("/inputSchema/properties") else {
        return None;
    };
    let mut seen = std::collections::HashSet::new();
    for (property, schema) in properties {
        if let Some(nested) = nested_annotation(schema, property) {
            return Some(format!(
                "property `{nested}`: x-mcp-header is allowed on top-level properties only"
            ));
        }
        let Some(annotation) = schema.get("x-mcp-header") else {
            continue;
        };
        let Value::String(name) = annotation else {
            return Some(format!(
                "property `{property}`: x-mcp-header is not a string"
            ));
        };
        if name.is_empty() {
            return Some(format!("property `{property}`: x-mcp-header is empty"));
        }
        if !name.bytes().all(is_tchar) {
            return Some(format!(
                "property `{property}`: x-mcp-header `{}` is not an HTTP field name (RFC 9110 token)",
                cut(name, 100)
            ));
        }
        if !seen.insert(name.to_ascii_lowercase()) {
            return Some(format!(
                "property `{property}`: x-mcp-header `{name}` is used twice (case-insensitively)"
            ));
        }
        match schema.get("type").and_then(Value::as_str) {
            Some("string" | "integer" | "boolean") => {}
            other => {
                return Some(format!(
                    "property `{property}`: x-mcp-header needs type string, integer or boolean, \
                     not {}",
                    other.unwrap_or("(none)")
                ));
            }
        }
    }
    None
}

/// The path of an `x-mcp-header` below a top-level property, if any.
fn nested_annotation(schema: &Value, path: &str) -> Option<String> {
    let Some(Value::Object(properties)) = schema.get("properties") else {
        return None;
    };
    properties.iter().find_map(|(key, value)| {
        let path = format!("{path}.{key}");
        if value.get("x-mcp-header").is_some() {
            Some(path)
        } else {
            nested_annotation(value, &path)
        }
    })
}

/// An RFC 9110 `tchar`.
fn is_tchar(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte)
}

/// `value` as header text: itself, or `=?base64?<base64>?=` when it has leading or trailing
/// whitespace, characters outside visible ASCII, or already looks like that form (MCP
/// 2026-07-28, "Standard headers").
fn header_text(value: &str) -> String {
    let needs_base64 = value.starts_with([' ', '\t'])
        || value.ends_with([' ', '\t'])
        || value.chars().any(|c| !(' '..='~').contains(&c))
        || (value.starts_with("=?base64?") && value.ends_with("?="));
    if needs_base64 {
        format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(value)
        )
    } else {
        value.to_owned()
    }
}

fn content_type(response: &Response) -> &str {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

fn is_event_stream(response: &Response) -> bool {
    content_type(response)
        .to_ascii_lowercase()
        .starts_with("text/event-stream")
}

fn is_json(response: &Response) -> bool {
    let ct = content_type(response).to_ascii_lowercase();
    ct.starts_with("application/json") || (ct.starts_with("application/") && ct.contains("+json"))
}

/// At most `limit` bytes of a body (an error page), ignoring read errors.
async fn read_prefix(mut response: Response, limit: usize) -> Vec<u8> {
    let mut body = Vec::new();
    while body.len() < limit {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                body.extend_from_slice(&chunk[..chunk.len().min(limit - body.len())])
            }
            _ => break,
        }
    }
    body
}

/// The first chars of a body, for messages: `body: "<first 300 chars>"` or `empty body`.
async fn read_excerpt(response: Response) -> String {
    let bytes = read_prefix(response, ERROR_BODY_LIMIT).await;
    excerpt_text(&String::from_utf8_lossy(&bytes))
}

fn excerpt_text(text: &str) -> String {
    let text = text.trim();
    if text.is_empty() {
        "empty body".to_owned()
    } else {
        let flat: String = text
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        format!("body: \"{}\"", cut(&flat, BODY_EXCERPT))
    }
}

/// Sends each outgoing message as a `POST` (a task per request, so requests run
/// concurrently; notifications and responses in order), until the session closes.
pub(super) async fn write_loop(
    http: Arc<Http>,
    mut rx: mpsc::UnboundedReceiver<Outgoing>,
    shared: Arc<Shared>,
    out: Out,
) {
    let mut inflight: HashMap<u64, tokio::task::AbortHandle> = HashMap::new();
    while let Some(message) = rx.recv().await {
        match message {
            Outgoing::Line(body, Some(id)) => {
                let task = tokio::spawn(Arc::clone(&http).post(
                    Arc::clone(&shared),
                    out.clone(),
                    body,
                    Some(id),
                ));
                if inflight.len() >= 64 {
                    inflight.retain(|_, task| !task.is_finished());
                }
                inflight.insert(id, task.abort_handle());
            }
            Outgoing::Line(body, None) => {
                // In order: `notifications/initialized` before the requests that follow it;
                // bounded, so a server that never answers cannot stall the requests behind it.
                let sent = Arc::clone(&http).post(Arc::clone(&shared), out.clone(), body, None);
                if tokio::time::timeout(http.request_timeout, sent)
                    .await
                    .is_err()
                {
                    tracing::warn!(
                        server = %http.label,
                        "the MCP server did not accept a notification or response within {:?}",
                        http.request_timeout
                    );
                }
            }
            Outgoing::Abandon(id) => {
                if let Some(task) = inflight.remove(&id) {
                    task.abort();
                }
            }
            Outgoing::Close => break,
        }
    }
    for (_, task) in inflight {
        task.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_header_annotations_are_found() {
        let tool = |properties: Value| serde_json::json!({"name": "t", "inputSchema": {"type": "object", "properties": properties}});
        let problem = |properties: Value| header_annotation_problem(&tool(properties));
        assert_eq!(
            problem(serde_json::json!({"r": {"type": "string", "x-mcp-header": "Region"}})),
            None
        );
        assert_eq!(problem(serde_json::json!({"r": {"type": "string"}})), None);
        assert_eq!(
            problem(serde_json::json!({"r": {"type": "string", "x-mcp-header": ""}})).as_deref(),
            Some("property `r`: x-mcp-header is empty")
        );
        assert_eq!(
            problem(serde_json::json!({"r": {"type": "number", "x-mcp-header": "Score"}}))
                .as_deref(),
            Some("property `r`: x-mcp-header needs type string, integer or boolean, not number")
        );
        assert_eq!(
            problem(serde_json::json!({"r": {"type": "string", "x-mcp-header": "My Region"}}))
                .as_deref(),
            Some(
                "property `r`: x-mcp-header `My Region` is not an HTTP field name (RFC 9110 token)"
            )
        );
        assert_eq!(
            problem(serde_json::json!({
                "a": {"type": "string", "x-mcp-header": "MyField"},
                "b": {"type": "string", "x-mcp-header": "myfield"}
            }))
            .as_deref(),
            Some("property `b`: x-mcp-header `myfield` is used twice (case-insensitively)")
        );
        assert_eq!(
            problem(serde_json::json!({"o": {"type": "object", "properties": {"x": {"type": "string", "x-mcp-header": "X"}}}})).as_deref(),
            Some("property `o.x`: x-mcp-header is allowed on top-level properties only")
        );
    }

    #[test]
    fn header_text_wraps_what_a_header_cannot_carry() {
        assert_eq!(header_text("us-west1"), "us-west1");
        assert_eq!(header_text(" lead"), "=?base64?IGxlYWQ=?=");
        assert_eq!(header_text("Zürich"), "=?base64?WsO8cmljaA==?=");
        assert_eq!(header_text("=?base64?x?="), "=?base64?PT9iYXNlNjQ/eD89?=");
        assert_eq!(header_text(""), "");
    }

    #[test]
    fn the_event_cap_counts_bytes_since_the_last_blank_line() {
        let mut cap = EventCap::new(10);
        assert!(cap.check(b"data: 1234\n\n").is_ok());
        assert!(cap.check(b"data: 1234\r\n\r\ndata: 12").is_ok());
        assert!(cap.check(b"34\r\r").is_ok());
        assert!(matches!(
            cap.check(b"data: 12345"),
            Err(StreamError::TooLarge)
        ));
        let mut cap = EventCap::new(10);
        // Split CRLF CRLF across chunks still ends the event.
        assert!(cap.check(b"data: 1234\r").is_ok());
        assert!(cap.check(b"\n\r").is_ok());
        assert!(cap.check(b"\ndata: 1234").is_ok());
    }
}
