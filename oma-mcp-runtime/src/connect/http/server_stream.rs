//! The stream of server messages: after an `initialize` handshake with a session, a `GET`
//! opens an SSE stream on which the server may send requests and notifications at any time
//! (MCP 2025-03-26, "Listening for Messages from the Server"; `405`: the server offers none).
//! It is resumed with `Last-Event-ID` when it drops, and follows each new session.

use std::sync::Arc;

use reqwest::Response;

use super::super::config::MAX_RESUMES;
use super::super::inbox::Inbox;
use super::body::{content_encoding, is_event_stream};
use super::endpoint::Http;
use super::outgoing::Queue;
use super::sse::{self, DEFAULT_RETRY, StreamEnd};
use super::state::Connection;

impl Http {
    /// Opens the stream of server messages and reads it until it ends, resuming it with
    /// `Last-Event-ID` when its events carried ids; its messages go through `inbox` like any
    /// other. When a `404` starts a new session, the stream of the old one is dropped, the
    /// old session's resource subscriptions end, and the new session's stream is opened (at
    /// once if the old one already ended or was refused).
    /// `opened` is told once the server answered the first `GET` (or refused it), so connect
    /// can wait for the stream before the first request that may need it.
    pub(super) async fn server_stream(
        self: Arc<Self>,
        inbox: Arc<Inbox>,
        queue: Queue,
        opened: tokio::sync::oneshot::Sender<()>,
    ) {
        let mut changes = self.state.subscribe();
        // Not before `notifications/initialized` is through: the `GET` would race it, and a
        // server may refuse a stream of a session that is not initialized yet.
        if changes.wait_for(|c| c.stream_may_open()).await.is_err() {
            return;
        }
        let mut opened = Some(opened);
        let mut first = true;
        loop {
            // The session whose stream opens now; a later one is a change.
            let generation = changes.borrow_and_update().generation();
            if !std::mem::take(&mut first) {
                // A new session holds none of the old one's resource subscriptions: their
                // receivers end, so a caller subscribes again instead of waiting for updates
                // that will not come.
                inbox.watchers.end_all();
            }
            let stream = self.open_server_stream().await;
            if let Some(opened) = opened.take() {
                let _ = opened.send(());
            }
            let next_session = |c: &Connection| c.generation() != generation;
            let mut new_session = false;
            if let Some(response) = stream {
                tokio::select! {
                    () = self.follow_server_stream(response, &inbox, &queue) => {}
                    changed = changes.wait_for(next_session) => {
                        if changed.is_err() {
                            return;
                        }
                        new_session = true;
                    }
                }
            }
            if inbox.is_closed() {
                return;
            }
            // Wait for the next session (one that started meanwhile counts) and open its
            // stream.
            if !new_session && changes.wait_for(next_session).await.is_err() {
                return;
            }
        }
    }

    /// The `GET` of the stream of server messages (resumed after `last_event_id` when given),
    /// with the token provider's current token. A `401`, or a `403` with
    /// `insufficient_scope`, goes to the provider as a refused `POST` does, and the `GET` is
    /// sent again with the new token ([`MAX_REFUSALS`] times in a row at most). `None` when the
    /// request fails or no token can be had (the stream is then not opened; requests carry on).
    async fn stream_get(&self, last_event_id: Option<&str>) -> Option<Response> {
        let mut refusals = 0;
        loop {
            let token = match self.authorize("GET").await {
                Ok(token) => token,
                Err(e) => {
                    tracing::debug!(server = %self.label, "no server stream: {}", e.chain());
                    return None;
                }
            };
            let response = match self.event_stream_get(last_event_id).send().await {
                Ok(r) => r,
                Err(e) => {
                    tracing::debug!(server = %self.label, "no server stream: {}", e.without_url());
                    return None;
                }
            };
            match self
                .send_again("GET", &response, token, &mut refusals)
                .await
            {
                Ok(true) => {}
                Ok(false) => return Some(response),
                Err(e) => {
                    tracing::debug!(server = %self.label, "no server stream: {}", e.chain());
                    return None;
                }
            }
        }
    }

    /// Opens the stream of server messages with `GET`. `None` when the server offers none
    /// (`405`, another status, not SSE).
    async fn open_server_stream(&self) -> Option<Response> {
        let response = self.stream_get(None).await?;
        if let Some(encoding) = content_encoding(&response) {
            tracing::warn!(
                server = %self.label,
                "the server's GET stream is compressed (`Content-Encoding: {encoding}`), which \
                 oma-mcp did not ask for and does not decode; requests and notifications the \
                 server sends on it are not received (turn compression off for the MCP endpoint)"
            );
            None
        } else if response.status().is_success() && is_event_stream(&response) {
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

    /// Reads one stream of server messages, resuming it with `Last-Event-ID` when its events
    /// carried ids ([`MAX_RESUMES`] times in a row without a new event at most), until it
    /// ends for good.
    async fn follow_server_stream(&self, mut response: Response, inbox: &Inbox, queue: &Queue) {
        let mut quiet = 0;
        // The last event id and `retry` stay until an event sets others, across resumptions
        // (WHATWG HTML, "Server-sent events": the last event ID string is the stream's, not one
        // connection's), as they do for the stream of a request.
        let (mut last_id, mut last_retry) = (None, None);
        loop {
            let end = sse::read_events(response, self.max_message_size, inbox, queue, None).await;
            if inbox.is_closed() {
                return;
            }
            let StreamEnd::Ended {
                last_event_id,
                retry,
                events,
            } = end
            else {
                return;
            };
            last_id = last_event_id.or(last_id);
            last_retry = retry.or(last_retry);
            let Some(id) = &last_id else {
                return;
            };
            quiet = if events == 0 { quiet + 1 } else { 0 };
            if quiet > MAX_RESUMES {
                return;
            }
            tokio::time::sleep(last_retry.unwrap_or(DEFAULT_RETRY)).await;
            response = match self.stream_get(Some(id)).await {
                Some(r) if r.status().is_success() && is_event_stream(&r) => r,
                _ => return,
            };
        }
    }
}
