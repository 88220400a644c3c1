//! The state of a streamable HTTP connection, in one place: the session the server assigned
//! (`Mcp-Session-Id`, and which session it is), how far the handshake got, a new session
//! being started after the old one expired, and the protocol version headers carry (MCP
//! 2025-06-18, "Session Management" and "Protocol Version Header").
//!
//! The phases ([`Phase`]) and their transitions:
//!
//! - `Starting` → `Initialized`: `notifications/initialized` went through.
//! - `Starting` or `Initialized` → `Renewing`: a `404` to a request that carried the current
//!   session's id; that request replays the handshake. Another such `404` meanwhile: that
//!   request waits.
//! - `Renewing` that began in `Starting`: `notifications/initialized` going through meanwhile
//!   makes it return to `Initialized`.
//! - `Renewing` → the phase before it: the handshake was replayed (the next session,
//!   [`Connection::generation`] + 1), or the replay failed (still the same session).
//!
//! The transport keeps a [`Connection`] in a `tokio::sync::watch` channel: requests read it
//! for their headers, the stream of server messages waits for [`Phase::Initialized`] and then
//! follows each new session ([`Connection::generation`]), and requests that meet the `404`
//! while another one starts the new session wait for [`Phase::Renewing`] to end.

use std::sync::Arc;

use reqwest::header::HeaderValue;

use super::outgoing::Post;

/// How far the connection is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) enum Phase {
    /// The lifecycle is under way, or there is no `notifications/initialized` to wait for (a
    /// 2026-07-28 session): no stream of server messages.
    #[default]
    Starting,
    /// `notifications/initialized` went through (the server may have answered it with an
    /// error; it was sent): the stream of server messages may open.
    Initialized,
    /// A `404` ended the session; one request replays the handshake without the old id
    /// (`initialize`, then `notifications/initialized`), and requests that meet the `404`
    /// meanwhile wait for it. `resume`: the phase the connection returns to.
    Renewing {
        /// [`Phase::Starting`] or [`Phase::Initialized`].
        resume: Resume,
    },
}

/// The phase a renewal returns to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Resume {
    /// [`Phase::Starting`].
    Starting,
    /// [`Phase::Initialized`].
    Initialized,
}

/// What a request that met a `404` does (see [`Connection::begin_renewal`]).
#[derive(Debug)]
pub(super) enum Renewal {
    /// Another request already started the new session: send again.
    Done,
    /// Another request is starting it: wait for [`Phase::Renewing`] to end, then ask again.
    Wait,
    /// This request starts it: replay these (`notifications/initialized` only when one was
    /// sent), then [`Connection::finish_renewal`].
    Start {
        /// The `initialize` request as first sent.
        initialize: Option<Arc<Post>>,
        /// `notifications/initialized` as first sent.
        initialized: Option<Arc<Post>>,
    },
}

/// The state of a streamable HTTP connection.
#[derive(Debug, Default)]
pub(super) struct Connection {
    /// The id the server assigned (marked sensitive, so no `Debug` shows it); `None` before
    /// the handshake's answer, or from a server that keeps no session.
    session_id: Option<HeaderValue>,
    /// Which session this is: 0 for the first, one more for each new session after a `404`.
    generation: u64,
    phase: Phase,
    /// The negotiated version, sent as `MCP-Protocol-Version` after the lifecycle (unless the
    /// message's `_meta` names one).
    protocol_version: Option<String>,
    /// The `initialize` request and `notifications/initialized`, replayed after a `404`.
    initialize: Option<Arc<Post>>,
    initialized: Option<Arc<Post>>,
}

impl Connection {
    /// The session id to send (see [`Connection::capture`]).
    pub(super) fn session_id(&self) -> Option<&HeaderValue> {
        self.session_id.as_ref()
    }

    /// Which session this is.
    pub(super) fn generation(&self) -> u64 {
        self.generation
    }

    /// The negotiated protocol version, once known.
    pub(super) fn protocol_version(&self) -> Option<&str> {
        self.protocol_version.as_deref()
    }

    /// Whether the stream of server messages may open: `notifications/initialized` went
    /// through (also while a new session is being started after that).
    pub(super) fn stream_may_open(&self) -> bool {
        matches!(
            self.phase,
            Phase::Initialized
                | Phase::Renewing {
                    resume: Resume::Initialized
                }
        )
    }

    /// Whether a new session is being started.
    pub(super) fn is_renewing(&self) -> bool {
        matches!(self.phase, Phase::Renewing { .. })
    }

    /// Records the version the lifecycle negotiated.
    pub(super) fn set_protocol_version(&mut self, version: &str) {
        self.protocol_version = Some(version.to_owned());
    }

    /// Keeps the handshake messages among those sent (`initialize`,
    /// `notifications/initialized`), to replay them after a `404`.
    pub(super) fn record_handshake(&mut self, post: &Post) {
        match post.method.as_str() {
            "initialize" if post.request_id().is_some() => {
                self.initialize = Some(Arc::new(post.clone()));
            }
            "notifications/initialized" => self.initialized = Some(Arc::new(post.clone())),
            _ => {}
        }
    }

    /// Keeps the session id a response carried (marked sensitive). The session and phase stay.
    pub(super) fn capture(&mut self, id: &HeaderValue) {
        if self.session_id.as_ref() != Some(id) {
            let mut id = id.clone();
            id.set_sensitive(true);
            self.session_id = Some(id);
        }
    }

    /// [`Phase::Starting`] → [`Phase::Initialized`]: `notifications/initialized` went through.
    /// Whether the phase changed.
    pub(super) fn initialized_sent(&mut self) -> bool {
        match self.phase {
            Phase::Starting => {
                self.phase = Phase::Initialized;
                true
            }
            Phase::Renewing {
                resume: Resume::Starting,
            } => {
                self.phase = Phase::Renewing {
                    resume: Resume::Initialized,
                };
                true
            }
            Phase::Initialized
            | Phase::Renewing {
                resume: Resume::Initialized,
            } => false,
        }
    }

    /// A request sent with the id of session `generation` met a `404`: [`Renewal::Done`] when
    /// a newer session exists, [`Renewal::Wait`] while one is being started, else
    /// [`Phase::Renewing`] begins and this request replays the handshake. The expired id stays
    /// until the new one is known, so a request sent meanwhile meets the `404` too and waits,
    /// instead of going out without an id.
    pub(super) fn begin_renewal(&mut self, generation: u64) -> Renewal {
        if self.generation != generation {
            return Renewal::Done;
        }
        let resume = match self.phase {
            Phase::Renewing { .. } => return Renewal::Wait,
            Phase::Starting => Resume::Starting,
            Phase::Initialized => Resume::Initialized,
        };
        self.phase = Phase::Renewing { resume };
        Renewal::Start {
            initialize: self.initialize.clone(),
            initialized: self.initialized.clone(),
        }
    }

    /// The replayed `initialize` was answered: the new session's id (`None`: the server
    /// keeps no session any more).
    pub(super) fn renewed_id(&mut self, id: Option<&HeaderValue>) {
        self.session_id = id.map(|id| {
            let mut id = id.clone();
            id.set_sensitive(true);
            id
        });
    }

    /// [`Phase::Renewing`] ends: back to the phase before it; with `started`, as the next
    /// session (the stream of server messages follows it), else as the same one (the next
    /// request that meets the `404` tries again).
    pub(super) fn finish_renewal(&mut self, started: bool) {
        if let Phase::Renewing { resume } = self.phase {
            self.phase = match resume {
                Resume::Starting => Phase::Starting,
                Resume::Initialized => Phase::Initialized,
            };
        }
        if started {
            self.generation += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::super::message::Outgoing;
    use super::super::headers::Annotations;
    use super::*;

    fn post(outgoing: Outgoing<'_>) -> Post {
        Post::prepare(outgoing, &Annotations::new())
    }

    #[test]
    fn a_session_is_initialized_expires_and_is_renewed() {
        let mut c = Connection::default();
        assert_eq!(
            (c.phase, c.generation(), c.session_id()),
            (Phase::Starting, 0, None)
        );
        assert!(!c.stream_may_open());
        let params = json!({});
        c.record_handshake(&post(Outgoing::request(
            0,
            "initialize",
            &params,
            b"i".to_vec(),
        )));
        c.record_handshake(&post(Outgoing::request(
            1,
            "tools/list",
            &params,
            b"l".to_vec(),
        )));
        c.capture(&HeaderValue::from_static("s1"));
        assert!(c.session_id().is_some_and(HeaderValue::is_sensitive));
        c.record_handshake(&post(Outgoing::notification(
            "notifications/initialized",
            None,
            b"n".to_vec(),
        )));
        assert!(c.initialized_sent());
        assert!(!c.initialized_sent(), "once");
        assert_eq!(c.phase, Phase::Initialized);
        assert!(c.stream_may_open());

        let Renewal::Start {
            initialize,
            initialized,
        } = c.begin_renewal(0)
        else {
            panic!("this request starts the new session")
        };
        assert_eq!(initialize.map(|p| p.body.clone()), Some(b"i".to_vec()));
        assert_eq!(initialized.map(|p| p.body.clone()), Some(b"n".to_vec()));
        assert!(c.is_renewing());
        assert!(
            c.stream_may_open(),
            "the old stream stays until the new session"
        );
        assert!(matches!(c.begin_renewal(0), Renewal::Wait));
        assert_eq!(
            c.session_id(),
            Some(&HeaderValue::from_static("s1")),
            "until the new one is known"
        );
        c.renewed_id(Some(&HeaderValue::from_static("s2")));
        c.finish_renewal(true);
        assert_eq!((c.phase, c.generation()), (Phase::Initialized, 1));
        assert_eq!(c.session_id(), Some(&HeaderValue::from_static("s2")));
        // A request of the old session that met the 404 late sends again.
        assert!(matches!(c.begin_renewal(0), Renewal::Done));
    }

    #[test]
    fn a_failed_renewal_keeps_the_session_and_the_next_request_tries_again() {
        let mut c = Connection::default();
        assert!(matches!(
            c.begin_renewal(0),
            Renewal::Start {
                initialize: None,
                initialized: None
            }
        ));
        assert_eq!(
            c.phase,
            Phase::Renewing {
                resume: Resume::Starting
            }
        );
        c.finish_renewal(false);
        assert_eq!((c.phase, c.generation()), (Phase::Starting, 0));
        assert!(matches!(c.begin_renewal(0), Renewal::Start { .. }));
        // `notifications/initialized` going through meanwhile is kept for after the renewal.
        assert!(c.initialized_sent());
        c.finish_renewal(true);
        assert_eq!((c.phase, c.generation()), (Phase::Initialized, 1));
    }

    /// Only the `initialize` request is kept to replay: a notification of that name (which
    /// no server answers) is not.
    #[test]
    fn only_the_initialize_request_is_kept_to_replay() {
        let mut c = Connection::default();
        c.record_handshake(&post(Outgoing::notification(
            "initialize",
            None,
            b"x".to_vec(),
        )));
        let Renewal::Start { initialize, .. } = c.begin_renewal(0) else {
            panic!("this request starts the new session")
        };
        assert!(initialize.is_none());
    }

    #[test]
    fn the_protocol_version_is_kept() {
        let mut c = Connection::default();
        assert_eq!(c.protocol_version(), None);
        c.set_protocol_version("2025-11-25");
        assert_eq!(c.protocol_version(), Some("2025-11-25"));
    }
}
