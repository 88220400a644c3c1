//! One message's exchange with the endpoint: its `POST`, the answer (a JSON body, an SSE
//! stream read until the request is answered and resumed with `Last-Event-ID` when it drops,
//! `202` for a notification, or an error status), and a new session when a `404` says the
//! old one expired (MCP 2025-06-18, "Session Management"; 2025-11-25, "Resumability and
//! Redelivery").

use std::sync::Arc;

use reqwest::header;
use reqwest::{Response, StatusCode};
use serde_json::Value;

use super::super::config::{MAX_RESUMES, redact_url};
use super::super::inbox::Inbox;
use super::body::{
    BODY_EXCERPT, ERROR_BODY_LIMIT, content_encoding, content_type, excerpt_text, is_event_stream,
    is_json, read_excerpt, read_prefix,
};
use super::endpoint::Http;
use super::headers::SESSION_ID;
use super::outgoing::{Post, Queue};
use super::sse::{self, DEFAULT_RETRY, StreamEnd};
use super::state::Renewal;
use crate::error::{ConnectError, Error, RequestError};
use crate::quote::cut;

impl Http {
    /// Sends one message and routes what comes back; failures fail its request (or are
    /// logged for a notification or a response).
    pub(super) async fn post(self: Arc<Self>, inbox: Arc<Inbox>, queue: Queue, post: Post) {
        self.state.send_if_modified(|c| {
            c.record_handshake(&post);
            false
        });
        self.send_and_route(&inbox, &queue, &post).await;
        if post.method == "notifications/initialized" {
            // The stream of server messages may open now (see `server_stream`).
            self.state.send_if_modified(|c| c.initialized_sent());
        }
    }

    /// Sends one message (again after a `404` ended the session, once) and routes the answer.
    async fn send_and_route(&self, inbox: &Inbox, queue: &Queue, post: &Post) {
        let id = post.request_id();
        let method = post.method.as_str();
        let mut retried = false;
        let mut refusals = 0;
        loop {
            let (generation, had_session) = {
                let c = self.state.borrow();
                (c.generation(), c.session_id().is_some())
            };
            let token = match self.authorize(method).await {
                Ok(token) => token,
                Err(error) => return self.report(inbox, id, method, error),
            };
            let response = match self.post_request(post).send().await {
                Ok(r) => r,
                Err(e) => {
                    let error = self.unreachable(method, e);
                    return self.report(inbox, id, method, error);
                }
            };
            self.capture_session(&response);
            self.remember_redirect(
                &response,
                post.is_initialize() || method == "server/discover",
            );
            match self
                .send_again(method, &response, token, &mut refusals)
                .await
            {
                Ok(true) => continue,
                Ok(false) => {}
                Err(error) => return self.report(inbox, id, method, error),
            }
            if response.status() == StatusCode::NOT_FOUND
                && had_session
                && !retried
                && !post.is_initialize()
            {
                retried = true;
                match self.renew(generation).await {
                    Ok(()) => continue,
                    Err(error) => return self.report(inbox, id, method, error),
                }
            }
            if let Err(error) = self.answer(response, inbox, queue, id, method).await {
                self.report(inbox, id, method, error);
            }
            return;
        }
    }

    /// Fails the request `id` with `error`, or logs it for a message without an id.
    fn report(&self, inbox: &Inbox, id: Option<u64>, method: &str, error: Error) {
        match id {
            Some(id) => inbox.fail(id, error),
            None if inbox.is_closed() => tracing::debug!(
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

    /// Handles one response to a `POST`.
    async fn answer(
        &self,
        response: Response,
        inbox: &Inbox,
        queue: &Queue,
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
            if let Some(encoding) = content_encoding(&response) {
                // No `Accept-Encoding` is sent, so no compression was asked for: refused by
                // name rather than skipped as unreadable (which would leave the request to
                // its timeout).
                return Err(self.http_error(
                    method,
                    Some(status),
                    format!(
                        "the body is compressed (`Content-Encoding: {encoding}`), which oma-mcp \
                         did not ask for (it sends no Accept-Encoding) and does not decode; turn \
                         compression off for the MCP endpoint (often a proxy's setting)"
                    ),
                ));
            }
            if is_event_stream(&response) {
                return self.answer_stream(response, inbox, queue, id, method).await;
            }
            if is_json(&response) {
                let body = self.read_body(response, method).await?;
                if let Some(answer) = inbox.receive(&body) {
                    queue.respond(answer);
                }
                // A JSON body is the whole answer to its POST (MCP 2025-06-18, "Sending
                // Messages to the Server"): when it did not answer the request, nothing will.
                if let Some(id) = id
                    && inbox.is_pending(id)
                {
                    return Err(self.http_error(
                        method,
                        Some(status),
                        format!(
                            "the JSON body holds no response to this request (id {id}), and a \
                             JSON body is the whole answer to its POST: {}",
                            excerpt_text(&String::from_utf8_lossy(&body))
                        ),
                    ));
                }
                return Ok(());
            }
            let content_type = content_type(&response).to_owned();
            let body = read_excerpt(response).await;
            if id.is_none() {
                // A notification or a response, accepted: the specification says `202`, and
                // many servers send `200` with an empty (or some other) body.
                tracing::debug!(
                    server = %self.label,
                    "`{method}` accepted with HTTP {status} and Content-Type `{content_type}` \
                     ({body})"
                );
                return Ok(());
            }
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
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
            return Err(Error::Connect(ConnectError::HttpAuth {
                server: self.label.clone(),
                method: method.to_owned(),
                status: status.as_u16(),
                hint: self
                    .credentials
                    .hint(self.url.as_str(), challenge.as_deref()),
                challenge: challenge.map(|c| cut(&c, BODY_EXCERPT)),
            }));
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
            return Err(Error::Request(RequestError::Rpc {
                code,
                message: error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                data: error.get("data").cloned(),
            }));
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

    /// Reads a JSON body up to the message size limit.
    async fn read_body(&self, mut response: Response, method: &str) -> Result<Vec<u8>, Error> {
        let limit = self.max_message_size;
        if response
            .content_length()
            .is_some_and(|len| len > limit as u64)
        {
            return Err(Error::Request(RequestError::MessageTooLarge { limit }));
        }
        let mut body = Vec::new();
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    if body.len() + chunk.len() > limit {
                        return Err(Error::Request(RequestError::MessageTooLarge { limit }));
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
        inbox: &Inbox,
        queue: &Queue,
        id: Option<u64>,
        method: &str,
    ) -> Result<(), Error> {
        let limit = self.max_message_size;
        // The status the stream came with (any 2xx), which its errors name.
        let status = response.status();
        let mut end = sse::read_events(response, limit, inbox, queue, id).await;
        let mut quiet = 0;
        loop {
            let (last_event_id, retry) = match end {
                StreamEnd::Answered => return Ok(()),
                StreamEnd::TooLarge => {
                    return Err(Error::Request(RequestError::MessageTooLarge { limit }));
                }
                // A stream that carries no request (the answer to a notification) just ends.
                _ if id.is_none() => return Ok(()),
                StreamEnd::Broken(reason) => {
                    return Err(self.http_error(
                        method,
                        Some(status),
                        format!("the SSE stream broke before the response: {reason}"),
                    ));
                }
                StreamEnd::Ended {
                    last_event_id: None,
                    ..
                } => {
                    return Err(self.http_error(
                        method,
                        Some(status),
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
                            Some(status),
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
            end = match sse::read_events(response, limit, inbox, queue, id).await {
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

    /// After a `404` to a request that carried the id of session `generation`: the new
    /// session, started once for all requests that meet the `404` (see
    /// [`Connection::begin_renewal`](super::state::Connection::begin_renewal)).
    async fn renew(&self, generation: u64) -> Result<(), Error> {
        let mut changes = self.state.subscribe();
        let (initialize, initialized) = loop {
            let mut renewal = Renewal::Wait;
            self.state.send_if_modified(|c| {
                renewal = c.begin_renewal(generation);
                matches!(renewal, Renewal::Start { .. })
            });
            match renewal {
                Renewal::Done => return Ok(()),
                Renewal::Wait => {
                    // The phase always ends (the renewing request finishes it either way).
                    let _ = changes.wait_for(|c| !c.is_renewing()).await;
                }
                Renewal::Start {
                    initialize,
                    initialized,
                } => break (initialize, initialized),
            }
        };
        let started = self.replay(initialize, initialized).await;
        self.state.send_if_modified(|c| {
            c.finish_renewal(started.is_ok());
            true
        });
        started
    }

    /// Replays `initialize` and `notifications/initialized` without the expired id, keeping
    /// the new session id.
    async fn replay(
        &self,
        initialize: Option<Arc<Post>>,
        initialized: Option<Arc<Post>>,
    ) -> Result<(), Error> {
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
        let response = self
            .post_request(&initialize)
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
        self.state.send_if_modified(|c| {
            c.renewed_id(response.headers().get(SESSION_ID));
            false
        });
        // The answer to the replayed `initialize` is not routed (its id belongs to the first
        // handshake), but read: to the end of a JSON body, or to the first SSE message.
        if is_event_stream(&response) {
            sse::skip_to_first_message(response).await;
        } else {
            let _ = read_prefix(response, self.max_message_size).await;
        }
        if let Some(initialized) = initialized
            && let Err(e) = self.post_request(&initialized).send().await
        {
            return Err(self.unreachable("notifications/initialized", e));
        }
        Ok(())
    }
}
