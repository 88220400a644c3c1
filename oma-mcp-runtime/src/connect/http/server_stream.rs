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
    /// other. When a `404` starts a new session, the stream of the old one is dropped and the
    /// new session's is opened (at once if the old one already ended or was refused).
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
        loop {
            // The session whose stream opens now; a later one is a change.
            let generation = changes.borrow_and_update().generation();
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

    /// Opens the stream of server messages with `GET`. `None` when the server offers none
    /// (`405`, another status, not SSE).
    async fn open_server_stream(&self) -> Option<Response> {
        let response = match self.event_stream_get(None).send().await {
            Ok(r) => r,
            Err(e) => {
                tracing::debug!(server = %self.label, "no server stream: {}", e.without_url());
                return None;
            }
        };
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
        loop {
            let end = sse::read_events(response, self.max_message_size, inbox, queue, None).await;
            if inbox.is_closed() {
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
}
