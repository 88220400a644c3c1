//! The connection settings, [`ConnectConfig`] and its companions, re-exported from
//! [`oma_mcp_core::config`] (plain values, so a build script that writes them as code compiles
//! no client), and the fixed limits of the streamable HTTP transport.

use std::time::Duration;

pub use oma_mcp_core::config::{
    AuthFailure, Authorize, Authorizer, BoxFuture, ConnectConfig, DEFAULT_MAX_MESSAGE_SIZE,
    DEFAULT_REQUEST_TIMEOUT, DISCOVER_PROBE_TIMEOUT, Elicitation, Lifecycle, OAuthConfig,
    OAuthGrant, Refusal, Secret, TokenProvider, TokenSource, accept_defaults,
};
/// Re-exported from [`oma_mcp_core::redact`], where the rule lives.
pub use oma_mcp_core::redact::redact_url;

/// Streamable HTTP (feature `http`): the most `307`/`308` redirects to the same origin
/// followed for one request (others are not followed; see the [crate docs](crate#streamable-http)).
pub const MAX_REDIRECTS: usize = 10;

/// Streamable HTTP (feature `http`): the longest a TCP + TLS connect may take (the request
/// timeout when shorter).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Streamable HTTP (feature `http`): how many times in a row a dropped SSE stream is resumed
/// with `Last-Event-ID` without receiving a new event before the request it carries fails
/// (the stream of a request) or the client stops listening (the stream of server messages).
pub const MAX_RESUMES: usize = 5;

/// Streamable HTTP (feature `http`): how long the `POST` of a notification or of an answer to
/// a server's request may take, 5 s (as rmcp's `control_request_timeout` for cancellations
/// and replies); one that takes longer is abandoned with a warning. These `POST`s run beside
/// the requests, so a server slow to accept `notifications/cancelled` delays no later call.
/// `notifications/initialized` is the exception: it is bounded by the request timeout, and
/// the requests after it wait for it.
pub const NOTIFICATION_TIMEOUT: Duration = Duration::from_secs(5);
