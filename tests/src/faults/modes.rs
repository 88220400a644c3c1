//! The fault server's modes and command line: [`FaultMode`], [`MODES`] (name and help of
//! each), [`FaultOptions`] and `--help` ([`usage`]).

use std::net::SocketAddr;
use std::time::Duration;

use crate::listen;

/// The default of `--size`: 80 MiB.
pub const DEFAULT_SIZE: usize = 80 * 1024 * 1024;
/// The default of `--delay-ms`.
pub const DEFAULT_DELAY: Duration = Duration::from_millis(2000);
/// The default of `--after`.
pub const DEFAULT_AFTER: u64 = 2;
/// The default of `--reject-status`.
pub const DEFAULT_REJECT_STATUS: u16 = 400;
/// The `message` of a `tools/call` that `hang-call` never answers.
pub const HANG_MESSAGE: &str = "hang";

/// Where the fault server fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FaultMode {
    /// `normal`: no fault; the baseline for asserting what a client sends.
    Normal,
    /// `html-502`: every request on `/mcp` gets a proxy's HTML error page ([`PAGE_502`]) with
    /// status 502.
    Html502,
    /// `html-200`: every request on `/mcp` gets `200 text/html` ([`PAGE_200`]).
    Html200,
    /// `unauthorized`: 401 with `WWW-Authenticate:` [`UNAUTHORIZED_CHALLENGE`] and a JSON
    /// body unless the request has `Authorization: Bearer good-token`; with it, no fault.
    Unauthorized,
    /// `forbidden`: as `unauthorized` with 403 and [`FORBIDDEN_CHALLENGE`].
    Forbidden,
    /// `unauthorized-metadata-down`: as `unauthorized`, and every `/.well-known/` path
    /// answers 503, so whether the server publishes OAuth metadata cannot be told.
    UnauthorizedMetadataDown,
    /// `close-mid-stream`: `tools/call` gets an SSE stream with one notification
    /// (`notifications/progress` for the request's `progressToken`, else a
    /// `notifications/message`), then the connection is closed without the terminating chunk
    /// and without the response.
    CloseMidStream,
    /// `slow-sse`: `tools/call` gets an SSE stream with a comment (`: keepalive`) every 200 ms
    /// and the response only after `--delay-ms`.
    SlowSse,
    /// `sse-no-response`: `tools/call` gets an SSE stream that stays open, silent, forever.
    SseNoResponse,
    /// `sse-invalid-json`: `tools/call` gets an SSE stream whose first event's data is
    /// [`INVALID_JSON_DATA`], then the response.
    SseInvalidJson,
    /// `unknown-id`: `tools/call` gets an SSE stream with a response for id [`UNKNOWN_ID`]
    /// (text `not yours`), then the right response.
    UnknownId,
    /// `huge-body`: `tools/call` gets an `application/json` response of exactly `--size`
    /// bytes (a text block of `x`; `Content-Length` set).
    HugeBody,
    /// `huge-event`: `tools/call` gets an SSE stream with one event whose data is that
    /// `--size`-byte response.
    HugeEvent,
    /// `expire-session`: the `initialize` response carries `Mcp-Session-Id: session-<n>` (`n`
    /// = 1, 2, …); the session answers `--after` JSON-RPC requests carrying its id, then every
    /// request carrying it gets 404 (notifications, GET and DELETE are not counted; a DELETE
    /// ends the session). A request without an id (other than `initialize` and
    /// `server/discover`) gets 400. A new `initialize` gets a new id. `server/discover` gets
    /// -32601: sessions belong to revisions before 2026-07-28.
    ExpireSession,
    /// `redirect-loop`: every request on `/mcp` gets 307 to the same URL.
    RedirectLoop,
    /// `redirect-cross-origin`: every request on `/mcp` gets 307 to `/mcp` on a second
    /// listener (same IP, another port: another origin), which answers normally; its requests
    /// are logged with `"listener": "other"`, so a test sees whether `Authorization` was
    /// forwarded.
    RedirectCrossOrigin,
    /// `resumable`: `tools/call` gets an SSE stream with one event, `id: <n>-1`, `retry: 100`,
    /// data the `notifications/progress` for the request's `progressToken` (empty data, a
    /// priming event, without one), then the stream ends without the response; a GET with
    /// `Last-Event-ID: <n>-1` gets an SSE stream with event `id: <n>-2` carrying the response
    /// (MCP 2025-11-25, "Resumability and Redelivery"). An unknown `Last-Event-ID` gets 400.
    Resumable,
    /// `no-get-stream`: GET and DELETE on `/mcp` get 405 (`Allow: POST`).
    NoGetStream,
    /// `hang-call`: a `tools/call` whose `message` is [`HANG_MESSAGE`] gets an SSE stream that
    /// stays open, silent, forever; any other call is answered at once. With
    /// `--notification-delay-ms`, a test cancels the hanging call and sees whether the slow
    /// `notifications/cancelled` holds up the next call.
    HangCall,
    /// `legacy-session`: a stateful server from before 2026-07-28. `initialize` opens a session
    /// (`Mcp-Session-Id: session-<n>`); every other request without a session id, `POST
    /// server/discover` included, gets `--reject-status` (default 400) with the
    /// `--reject-body` body ([`RejectBody`]: plain text, HTML or a JSON object, none of them a
    /// JSON-RPC message), as servers do that know nothing of `server/discover`. A request
    /// with an unknown id gets 404; sessions never expire.
    LegacySession,
    /// `json-other-id`: `tools/call` gets `200 application/json` holding a response for id
    /// [`UNKNOWN_ID`](super::UNKNOWN_ID) (text `not yours`) and nothing else.
    JsonOtherId,
    /// `json-not-jsonrpc`: `tools/call` gets `200 application/json` [`NOT_JSON_RPC`], an
    /// object that is no JSON-RPC message.
    JsonNotJsonRpc,
    /// `gzip-json`: `tools/call` gets its response as `application/json` compressed with
    /// `Content-Encoding: gzip`, although the client sent no `Accept-Encoding`.
    GzipJson,
    /// `strict-version`: every request but `initialize` and `server/discover` without an
    /// `MCP-Protocol-Version` header gets 400 [`UNSUPPORTED_VERSION`] (as the TypeScript SDK's
    /// server answers), notifications included.
    StrictVersion,
    /// `empty-200`: a POSTed notification or client response gets `200` with an empty body
    /// and no `Content-Type` (instead of `202`).
    Empty200,
    /// `sse-keepalive`: `tools/call` gets an SSE stream of keep-alives before its response: a
    /// comment, a bare `retry: 1000`, `event: ping` and `event: keepalive` with data `{}`, and
    /// a plain event with data `{}`.
    SseKeepalive,
    /// `redirect-slash-307`: every request on `/mcp` gets 307 to `/mcp/`, which serves MCP.
    RedirectSlash307,
    /// `redirect-slash-308`: as `redirect-slash-307` with 308 (a permanent redirect).
    RedirectSlash308,
    /// `oauth`: the MCP endpoint is a protected resource: every request without a live access
    /// token this server issued gets 401 with `WWW-Authenticate: Bearer
    /// resource_metadata="<origin>/.well-known/oauth-protected-resource/mcp"` (and
    /// `error="invalid_token"` for a token it refuses). The same origin is the authorization
    /// server ([`authz`](super::authz)): protected resource metadata (RFC 9728), its metadata
    /// (RFC 8414, `code_challenge_methods_supported: ["S256"]`, issuer the origin), `POST
    /// /register` (RFC 7591: a client id and secret), `GET /authorize` (redirects at once with
    /// `code`, `state` and `iss`), `POST /token` (`authorization_code` with the PKCE S256
    /// check, `refresh_token` with rotation, and `client_credentials` for
    /// [`MACHINE_CLIENT_ID`](super::MACHINE_CLIENT_ID)); the `resource` of each must be the
    /// MCP URL. Access tokens live `--token-lifetime-s`. The log records what these answered
    /// (`answer`).
    OAuth,
    /// `oauth-as-unreachable`: as `oauth`, but the resource metadata names an authorization
    /// server on a loopback port nothing listens on.
    OAuthAsUnreachable,
    /// `oauth-prm-missing`: the 401 names resource metadata that answers 404, and nothing
    /// else of OAuth is served on the origin (no authorization server metadata, no
    /// endpoints): only the missing document would say where the authorization server is.
    OAuthPrmMissing,
    /// `oauth-prm-malformed`: as `oauth-prm-missing`, the resource metadata answering `200
    /// application/json` with [`MALFORMED_METADATA`](super::MALFORMED_METADATA) (not JSON).
    OAuthPrmMalformed,
    /// `oauth-as-metadata-missing`: as `oauth`, the authorization server metadata (every
    /// well-known form) answering 404.
    OAuthAsMetadataMissing,
    /// `oauth-as-metadata-malformed`: as `oauth`, the authorization server metadata answering
    /// `200 application/json` with [`MALFORMED_METADATA`](super::MALFORMED_METADATA).
    OAuthAsMetadataMalformed,
    /// `oauth-issuer-mismatch`: as `oauth`, the authorization server metadata's `issuer`
    /// being `<origin>/elsewhere`, not the URL it was read from.
    OAuthIssuerMismatch,
    /// `oauth-no-pkce`: as `oauth`, the metadata advertising
    /// `code_challenge_methods_supported: ["plain"]` (no S256).
    OAuthNoPkce,
    /// `oauth-pkce-unadvertised`: as `oauth`, the metadata without
    /// `code_challenge_methods_supported`.
    OAuthPkceUnadvertised,
    /// `oauth-registration-refused`: as `oauth`, `POST /register` answering 400
    /// `invalid_client_metadata` ([`REGISTRATION_REFUSED`](super::REGISTRATION_REFUSED)).
    OAuthRegistrationRefused,
    /// `oauth-access-denied`: as `oauth`, the authorization endpoint redirecting with
    /// `error=access_denied` (the user denied consent) and
    /// [`DENIED_DESCRIPTION`](super::DENIED_DESCRIPTION).
    OAuthAccessDenied,
    /// `oauth-state-mismatch`: as `oauth`, the authorization endpoint's redirect carrying
    /// `state=`[`OTHER_STATE`](super::OTHER_STATE) instead of the client's.
    OAuthStateMismatch,
    /// `oauth-refresh-invalid-grant`: as `oauth`, every `refresh_token` grant answered 400
    /// `invalid_grant` ([`REFRESH_REFUSED`](super::REFRESH_REFUSED)).
    OAuthRefreshInvalidGrant,
    /// `oauth-refresh-invalid-client`: as `oauth`, every `refresh_token` grant answered 401
    /// `invalid_client` ([`CLIENT_FORGOTTEN`](super::CLIENT_FORGOTTEN)), as an authorization
    /// server answers that lost its registered clients (a restart with in-memory storage).
    OAuthRefreshInvalidClient,
    /// `oauth-token-html-200`: as `oauth`, the token endpoint answering `200 text/html` (a
    /// login page, [`TOKEN_PAGE`](super::TOKEN_PAGE)).
    OAuthTokenHtml200,
    /// `oauth-token-html-500`: as `oauth-token-html-200` with status 500.
    OAuthTokenHtml500,
    /// `oauth-get-refused-once`: as `oauth`, the first `GET` of the stream of server messages
    /// answered 401 `invalid_token`, its token revoked.
    OAuthGetRefusedOnce,
}

/// The body of `json-not-jsonrpc`'s answer to `tools/call`.
pub const NOT_JSON_RPC: &str = r#"{"status":"ok"}"#;
/// `strict-version`'s 400 body for a request without `MCP-Protocol-Version`.
pub const UNSUPPORTED_VERSION: &str = "Bad Request: Unsupported protocol version: None";

/// The body `legacy-session` rejects a request without a session id with (`--reject-body`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RejectBody {
    /// `text`: `text/plain`, [`REJECT_TEXT`].
    Text,
    /// `html`: `text/html`, [`REJECT_HTML`].
    Html,
    /// `json`: `application/json`, [`REJECT_JSON`] (an object, not a JSON-RPC message).
    Json,
}

/// `legacy-session`'s plain-text rejection.
pub const REJECT_TEXT: &str = "Bad Request: No valid session ID provided";
/// `legacy-session`'s HTML rejection (a framework's error page).
pub const REJECT_HTML: &str = "<!DOCTYPE html>\n<html><head><title>Error</title></head>\n\
<body><pre>Bad Request: No valid session ID provided</pre></body></html>\n";
/// `legacy-session`'s JSON rejection: an object with an `error` string, not JSON-RPC.
pub const REJECT_JSON: &str = r#"{"error":"Bad Request: No valid session ID provided"}"#;

impl RejectBody {
    /// The body called `name` (`text`, `html`, `json`).
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "text" => Some(Self::Text),
            "html" => Some(Self::Html),
            "json" => Some(Self::Json),
            _ => None,
        }
    }

    /// The `Content-Type` and the body.
    pub fn content(self) -> (&'static str, &'static str) {
        match self {
            Self::Text => ("text/plain; charset=utf-8", REJECT_TEXT),
            Self::Html => ("text/html", REJECT_HTML),
            Self::Json => ("application/json", REJECT_JSON),
        }
    }
}

/// Every mode: its name and one line of help.
pub const MODES: &[(&str, FaultMode, &str)] = &[
    ("normal", FaultMode::Normal, "no fault (JSON answers)"),
    (
        "html-502",
        FaultMode::Html502,
        "502 with a proxy's HTML error page",
    ),
    ("html-200", FaultMode::Html200, "200 text/html, not MCP"),
    (
        "unauthorized",
        FaultMode::Unauthorized,
        "401 + WWW-Authenticate unless `Authorization: Bearer good-token`",
    ),
    (
        "forbidden",
        FaultMode::Forbidden,
        "403 + WWW-Authenticate unless `Authorization: Bearer good-token`",
    ),
    (
        "unauthorized-metadata-down",
        FaultMode::UnauthorizedMetadataDown,
        "unauthorized; every /.well-known/ path answers 503",
    ),
    (
        "close-mid-stream",
        FaultMode::CloseMidStream,
        "tools/call: SSE, one notification, then the connection closes",
    ),
    (
        "slow-sse",
        FaultMode::SlowSse,
        "tools/call: SSE keepalive comment every 200 ms, response after --delay-ms",
    ),
    (
        "sse-no-response",
        FaultMode::SseNoResponse,
        "tools/call: SSE stream open forever, no response",
    ),
    (
        "sse-invalid-json",
        FaultMode::SseInvalidJson,
        "tools/call: SSE event with non-JSON data, then the response",
    ),
    (
        "unknown-id",
        FaultMode::UnknownId,
        "tools/call: SSE response for an id never sent, then the right one",
    ),
    (
        "huge-body",
        FaultMode::HugeBody,
        "tools/call: JSON response of --size bytes",
    ),
    (
        "huge-event",
        FaultMode::HugeEvent,
        "tools/call: one SSE event of --size bytes",
    ),
    (
        "expire-session",
        FaultMode::ExpireSession,
        "Mcp-Session-Id on initialize; 404 for it after --after requests",
    ),
    (
        "redirect-loop",
        FaultMode::RedirectLoop,
        "307 to the same URL, forever",
    ),
    (
        "redirect-cross-origin",
        FaultMode::RedirectCrossOrigin,
        "307 to another port, which logs whether Authorization came along",
    ),
    (
        "resumable",
        FaultMode::Resumable,
        "tools/call: SSE with id/retry: 100, dropped after one event; GET + Last-Event-ID resumes",
    ),
    (
        "no-get-stream",
        FaultMode::NoGetStream,
        "GET and DELETE answered 405",
    ),
    (
        "hang-call",
        FaultMode::HangCall,
        "tools/call of message `hang`: SSE open forever; other calls answered at once",
    ),
    (
        "legacy-session",
        FaultMode::LegacySession,
        "initialize opens a session; without one (server/discover too) --reject-status",
    ),
    (
        "json-other-id",
        FaultMode::JsonOtherId,
        "tools/call: 200 JSON with a response for an id never sent, and nothing else",
    ),
    (
        "json-not-jsonrpc",
        FaultMode::JsonNotJsonRpc,
        "tools/call: 200 JSON object that is no JSON-RPC message",
    ),
    (
        "gzip-json",
        FaultMode::GzipJson,
        "tools/call: the JSON response with Content-Encoding: gzip, unasked",
    ),
    (
        "strict-version",
        FaultMode::StrictVersion,
        "400 for any request after the handshake without MCP-Protocol-Version",
    ),
    (
        "empty-200",
        FaultMode::Empty200,
        "notifications and client responses: 200, empty body, no Content-Type",
    ),
    (
        "sse-keepalive",
        FaultMode::SseKeepalive,
        "tools/call: SSE comment, retry, ping/keepalive events with data {}, then the response",
    ),
    (
        "redirect-slash-307",
        FaultMode::RedirectSlash307,
        "307 from /mcp to /mcp/, which serves MCP",
    ),
    (
        "redirect-slash-308",
        FaultMode::RedirectSlash308,
        "308 from /mcp to /mcp/, which serves MCP",
    ),
    (
        "oauth",
        FaultMode::OAuth,
        "401 without a token it issued; OAuth metadata, /register, /authorize, /token",
    ),
    (
        "oauth-as-unreachable",
        FaultMode::OAuthAsUnreachable,
        "oauth; the resource metadata names an authorization server on a closed port",
    ),
    (
        "oauth-prm-missing",
        FaultMode::OAuthPrmMissing,
        "401 naming resource metadata that is 404; no other OAuth on the origin",
    ),
    (
        "oauth-prm-malformed",
        FaultMode::OAuthPrmMalformed,
        "as oauth-prm-missing, the resource metadata 200 but not JSON",
    ),
    (
        "oauth-as-metadata-missing",
        FaultMode::OAuthAsMetadataMissing,
        "oauth; the authorization server metadata is 404",
    ),
    (
        "oauth-as-metadata-malformed",
        FaultMode::OAuthAsMetadataMalformed,
        "oauth; the authorization server metadata is 200 but not JSON",
    ),
    (
        "oauth-issuer-mismatch",
        FaultMode::OAuthIssuerMismatch,
        "oauth; the metadata's issuer is not the URL it was read from",
    ),
    (
        "oauth-no-pkce",
        FaultMode::OAuthNoPkce,
        "oauth; code_challenge_methods_supported is [\"plain\"], no S256",
    ),
    (
        "oauth-pkce-unadvertised",
        FaultMode::OAuthPkceUnadvertised,
        "oauth; the metadata has no code_challenge_methods_supported",
    ),
    (
        "oauth-registration-refused",
        FaultMode::OAuthRegistrationRefused,
        "oauth; /register answers 400 invalid_client_metadata",
    ),
    (
        "oauth-access-denied",
        FaultMode::OAuthAccessDenied,
        "oauth; /authorize redirects with error=access_denied",
    ),
    (
        "oauth-state-mismatch",
        FaultMode::OAuthStateMismatch,
        "oauth; /authorize redirects with another state",
    ),
    (
        "oauth-refresh-invalid-grant",
        FaultMode::OAuthRefreshInvalidGrant,
        "oauth; every refresh_token grant answers 400 invalid_grant",
    ),
    (
        "oauth-refresh-invalid-client",
        FaultMode::OAuthRefreshInvalidClient,
        "oauth; every refresh_token grant answers 401 invalid_client",
    ),
    (
        "oauth-token-html-200",
        FaultMode::OAuthTokenHtml200,
        "oauth; /token answers 200 with an HTML page",
    ),
    (
        "oauth-get-refused-once",
        FaultMode::OAuthGetRefusedOnce,
        "oauth; the first GET stream is refused with 401, its token revoked",
    ),
    (
        "oauth-token-html-500",
        FaultMode::OAuthTokenHtml500,
        "oauth; /token answers 500 with an HTML page",
    ),
];

impl FaultMode {
    /// The mode called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        MODES.iter().find(|(n, ..)| *n == name).map(|(_, m, _)| *m)
    }

    /// The mode's name.
    pub fn name(self) -> &'static str {
        MODES
            .iter()
            .find(|(_, m, _)| *m == self)
            .map_or("normal", |(n, ..)| n)
    }
}

/// How `oma-mcp-http-faults` serves.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FaultOptions {
    /// `--mode MODE`.
    pub mode: FaultMode,
    /// `--listen ADDR` (default `127.0.0.1:0`).
    pub addr: SocketAddr,
    /// `--delay-ms MS`: `slow-sse`'s delay before the response (default 2000).
    pub delay: Duration,
    /// `--size BYTES`: `huge-body`'s body and `huge-event`'s event data (default 80 MiB).
    pub size: usize,
    /// `--after N`: how many requests an `expire-session` session answers (default 2).
    pub after: u64,
    /// Whether `server/discover` is answered (`--no-discover`, and `expire-session`: -32601).
    pub discover: bool,
    /// `--notification-delay-ms MS`: in every mode, a POSTed notification (or client
    /// response) is recorded and answered only after `MS` (default 0), as over a slow link;
    /// so a test sees whether the client waits for it before its next step.
    pub notification_delay: Duration,
    /// `--initialize-delay-ms MS`: in every mode, `initialize` is answered only after `MS`
    /// (default 0; recorded on arrival), so a test can act while a handshake is under way.
    pub initialize_delay: Duration,
    /// `--reject-status N`: `legacy-session`'s status for a request without a session id
    /// (default 400).
    pub reject_status: u16,
    /// `--reject-body text|html|json`: `legacy-session`'s body for it (default `text`).
    pub reject_body: RejectBody,
    /// `--token-lifetime-s S`: the `oauth*` modes' access token lifetime (`expires_in`,
    /// default 3600), short to test a refresh.
    pub token_lifetime: Duration,
}

impl FaultOptions {
    /// `mode` with every default.
    pub fn new(mode: FaultMode) -> Self {
        Self {
            mode,
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            delay: DEFAULT_DELAY,
            size: DEFAULT_SIZE,
            after: DEFAULT_AFTER,
            discover: !Self::sessions_only(mode),
            notification_delay: Duration::ZERO,
            initialize_delay: Duration::ZERO,
            reject_status: DEFAULT_REJECT_STATUS,
            reject_body: RejectBody::Text,
            token_lifetime: super::authz::DEFAULT_TOKEN_LIFETIME,
        }
    }

    /// The modes whose sessions belong to revisions before 2026-07-28, so `server/discover`
    /// is never answered.
    fn sessions_only(mode: FaultMode) -> bool {
        matches!(mode, FaultMode::ExpireSession | FaultMode::LegacySession)
    }

    /// Parses the arguments after the program name; `None` for `--help`.
    ///
    /// # Errors
    /// A missing or unknown mode, an unknown flag, a missing or malformed value.
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Option<Self>, String> {
        let mut args = args.into_iter();
        let mut options = Self::new(FaultMode::Normal);
        let mut mode = None;
        let mut no_discover = false;
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--help" | "-h" => return Ok(None),
                "--mode" => {
                    let name = listen::value_of(&arg, &mut args)?;
                    mode = Some(FaultMode::from_name(&name).ok_or_else(|| {
                        format!("unknown mode `{name}`; the modes are listed by --help")
                    })?);
                }
                "--listen" => {
                    let value = listen::value_of(&arg, &mut args)?;
                    options.addr = listen::parse_addr(&arg, &value)?;
                }
                "--delay-ms" => {
                    let value = listen::value_of(&arg, &mut args)?;
                    options.delay = Duration::from_millis(listen::parse_number(&arg, &value)?);
                }
                "--size" => {
                    let value = listen::value_of(&arg, &mut args)?;
                    options.size = listen::parse_number(&arg, &value)?;
                }
                "--after" => {
                    let value = listen::value_of(&arg, &mut args)?;
                    options.after = listen::parse_number(&arg, &value)?;
                }
                "--no-discover" => no_discover = true,
                "--initialize-delay-ms" => {
                    let value = listen::value_of(&arg, &mut args)?;
                    options.initialize_delay =
                        Duration::from_millis(listen::parse_number(&arg, &value)?);
                }
                "--reject-status" => {
                    let value = listen::value_of(&arg, &mut args)?;
                    let status: u16 = listen::parse_number(&arg, &value)?;
                    if !(400..=599).contains(&status) {
                        return Err(format!("{arg}: {value} is not an error status (400-599)"));
                    }
                    options.reject_status = status;
                }
                "--reject-body" => {
                    let value = listen::value_of(&arg, &mut args)?;
                    options.reject_body = RejectBody::from_name(&value).ok_or_else(|| {
                        format!("{arg}: `{value}` is not one of text, html, json")
                    })?;
                }
                "--token-lifetime-s" => {
                    let value = listen::value_of(&arg, &mut args)?;
                    let seconds: u64 = listen::parse_number(&arg, &value)?;
                    if seconds == 0 {
                        return Err(format!("{arg}: the lifetime is at least 1 second"));
                    }
                    options.token_lifetime = Duration::from_secs(seconds);
                }
                "--notification-delay-ms" => {
                    let value = listen::value_of(&arg, &mut args)?;
                    options.notification_delay =
                        Duration::from_millis(listen::parse_number(&arg, &value)?);
                }
                other => return Err(format!("unknown argument `{other}` (see --help)")),
            }
        }
        let mode = mode.ok_or("--mode MODE is required (see --help)")?;
        options.mode = mode;
        options.discover = !no_discover && !Self::sessions_only(mode);
        Ok(Some(options))
    }
}

/// `oma-mcp-http-faults --help`.
pub fn usage() -> String {
    let mut text = String::from(
        "oma-mcp-http-faults: an MCP server over streamable HTTP that fails on purpose

Usage:
  oma-mcp-http-faults --mode MODE [--listen ADDR] [--delay-ms MS] [--size BYTES] [--after N]
                      [--no-discover] [--notification-delay-ms MS] [--initialize-delay-ms MS]
                      [--reject-status N] [--reject-body text|html|json]
                      [--token-lifetime-s S]

Prints one line `listening on http://127.0.0.1:PORT/mcp` to stdout, then serves until killed
or stdin closes. It answers initialize, server/discover, ping, tools/list (one tool, `echo`)
and tools/call (`Echo: <message>`) correctly, except where MODE fails. Every request is
recorded; GET /_log serves the records as JSON (method, path, headers, body), DELETE /_log
empties them. The oauth* modes make /mcp an OAuth protected resource and serve, on the same
origin, its authorization server (metadata, /register, /authorize, /token); their log entries
also hold what those endpoints answered (`answer`).

Modes:
",
    );
    for (name, _, help) in MODES {
        text.push_str(&format!("  {name:<22} {help}\n"));
    }
    text.push_str(
        "
Flags:
  --listen ADDR     address to listen on (default 127.0.0.1:0, a free port)
  --delay-ms MS     slow-sse: delay before the response (default 2000)
  --size BYTES      huge-body, huge-event: size of the body or event data (default 83886080)
  --after N         expire-session: requests a session answers before 404 (default 2)
  --no-discover     answer server/discover with -32601 Method not found (always so in
                    expire-session and legacy-session)
  --notification-delay-ms MS
                    any mode: record and answer each POSTed notification (or client
                    response) only after MS (default 0), as over a slow link
  --initialize-delay-ms MS
                    any mode: answer each initialize only after MS (default 0)
  --reject-status N legacy-session: the status of a request without a session id (default 400)
  --reject-body text|html|json
                    legacy-session: its body, plain text, an HTML page or a JSON object that is
                    not JSON-RPC (default text)
  --token-lifetime-s S
                    oauth*: the access tokens' lifetime in seconds (default 3600)
  --help            this text
",
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mode_has_a_name_and_parses() {
        for (name, mode, help) in MODES {
            assert_eq!(FaultMode::from_name(name), Some(*mode));
            assert_eq!(mode.name(), *name);
            assert!(usage().contains(&format!("  {name:<22} {help}\n")));
        }
        assert_eq!(FaultMode::from_name("bogus"), None);
    }

    #[test]
    fn command_lines() {
        let parse = |args: &[&str]| FaultOptions::parse(args.iter().map(|a| (*a).to_owned()));
        assert_eq!(parse(&["--help"]), Ok(None));
        assert!(parse(&[]).is_err(), "the mode is required");
        assert!(parse(&["--mode", "bogus"]).is_err());
        assert!(parse(&["--mode", "normal", "--size", "-1"]).is_err());
        let options = parse(&[
            "--mode",
            "slow-sse",
            "--delay-ms",
            "300",
            "--listen",
            "[::1]:0",
        ])
        .expect("parses")
        .expect("not help");
        assert_eq!(options.mode, FaultMode::SlowSse);
        assert_eq!(options.delay, Duration::from_millis(300));
        assert_eq!(options.addr, "[::1]:0".parse().expect("address"));
        assert!(options.discover);
        let options = parse(&["--mode", "expire-session", "--after", "5"])
            .expect("parses")
            .expect("not help");
        assert_eq!((options.after, options.discover), (5, false));
        let options = parse(&["--mode", "normal", "--no-discover", "--size", "1000"])
            .expect("parses")
            .expect("not help");
        assert_eq!((options.size, options.discover), (1000, false));
        assert_eq!(options.notification_delay, Duration::ZERO);
        let options = parse(&["--mode", "normal", "--notification-delay-ms", "250"])
            .expect("parses")
            .expect("not help");
        assert_eq!(options.notification_delay, Duration::from_millis(250));
        let options = parse(&["--mode", "expire-session", "--initialize-delay-ms", "40"])
            .expect("parses")
            .expect("not help");
        assert_eq!(
            (options.initialize_delay, options.notification_delay),
            (Duration::from_millis(40), Duration::ZERO)
        );
        let options = parse(&["--mode", "legacy-session"])
            .expect("parses")
            .expect("not help");
        assert_eq!(
            (options.reject_status, options.reject_body, options.discover),
            (400, RejectBody::Text, false)
        );
        let options = parse(&[
            "--mode",
            "legacy-session",
            "--reject-status",
            "405",
            "--reject-body",
            "json",
        ])
        .expect("parses")
        .expect("not help");
        assert_eq!(
            (options.reject_status, options.reject_body),
            (405, RejectBody::Json)
        );
        assert!(parse(&["--mode", "legacy-session", "--reject-status", "200"]).is_err());
        assert!(parse(&["--mode", "legacy-session", "--reject-body", "xml"]).is_err());
        let options = parse(&["--mode", "oauth", "--token-lifetime-s", "1"])
            .expect("parses")
            .expect("not help");
        assert_eq!(
            (options.mode, options.token_lifetime),
            (FaultMode::OAuth, Duration::from_secs(1))
        );
        assert!(options.mode.is_oauth() && !FaultMode::Normal.is_oauth());
        assert_eq!(
            parse(&["--mode", "oauth"])
                .expect("parses")
                .expect("not help")
                .token_lifetime,
            Duration::from_secs(3600)
        );
        assert!(parse(&["--mode", "oauth", "--token-lifetime-s", "0"]).is_err());
    }
}
