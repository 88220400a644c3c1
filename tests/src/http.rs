//! The test server over streamable HTTP: rmcp's `StreamableHttpService` (the
//! `transport-streamable-http-server` feature) on hyper's HTTP/1 server, at `/mcp`.
//!
//! What rmcp 3.11's server side does with it (the behaviour the client meets):
//!
//! - **Stateful** (the default): an `initialize` POST opens a session: the answer is an SSE
//!   stream (a priming event `id: 0`, `retry: 3000`, empty `data`, then the result) with an
//!   `Mcp-Session-Id` header. Each later request POST carrying the id is answered with an
//!   SSE stream (priming event, any notifications such as progress, then the response);
//!   notifications and responses with 202; a GET with the id opens the server's stream; a
//!   DELETE ends the session; an unknown id gets 404 `Not Found: Session not found`; a request
//!   other than `initialize`/`server/discover` without an id gets 400
//!   `Bad Request: Session ID is required`.
//! - A `server/discover` POST (protocol 2026-07-28, which has no sessions) is answered without
//!   a session, in both modes, and so is every later request that carries the 2026-07-28
//!   `_meta`. Session tests connect with `initialize`.
//! - **Stateless** (`--stateless`): no session and no `Mcp-Session-Id`; each request POST is
//!   answered with `application/json`, unless the tool sends a notification first (progress),
//!   then with SSE so nothing is lost; GET and DELETE get 405.
//!
//! The tools are those of stdio, with what that means over HTTP: `sleep {ms}` for timeouts
//! and cancellation (in a session, `notifications/cancelled` ends the call's stream without a
//! response; stateless, each POST is served on its own, so a cancellation reaches nothing and
//! the call completes), `big {bytes}` for large results, every content block type, and
//! `exit {code}`, which ends the process mid-request (in a session after the SSE head and
//! priming event: the connection drops).
//!
//! Sessions can be made to expire ([`HttpOptions::session_ttl_requests`],
//! [`HttpOptions::session_ttl`]): the session is closed, and rmcp answers every later request
//! carrying its id with 404, as the MCP specification (2025-06-18, "Session Management")
//! says; a new `initialize` gets a new session.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::{Request, Response};
use rmcp::ServerHandler;
use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

use crate::listen::{self, Body};
use crate::{Mode, TestServer};

/// The header that carries a session id (MCP 2025-03-26 and later).
const SESSION_HEADER: &str = "mcp-session-id";

/// How `oma-mcp-test-server --http` serves.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpOptions {
    /// Where to listen (`--http ADDR`; port 0 picks a free port).
    pub addr: SocketAddr,
    /// `--stateless`: no sessions, JSON responses.
    pub stateless: bool,
    /// `--session-ttl-requests N`: a session answers `N` JSON-RPC requests carrying its id
    /// (notifications, responses, GET and DELETE are not counted); the next request carrying
    /// it, and every one after, gets 404.
    pub session_ttl_requests: Option<u64>,
    /// `--session-ttl-ms MS`: a session expires `MS` milliseconds after its `initialize`
    /// was answered; every request carrying its id after that gets 404.
    pub session_ttl: Option<Duration>,
}

impl HttpOptions {
    /// Serve on `addr`, stateful, sessions that never expire.
    pub fn new(addr: SocketAddr) -> Self {
        Self {
            addr,
            stateless: false,
            session_ttl_requests: None,
            session_ttl: None,
        }
    }

    /// Whether sessions expire (and the request bodies must be read to count them).
    fn expires(&self) -> bool {
        self.session_ttl_requests.is_some() || self.session_ttl.is_some()
    }
}

/// What the command line of `oma-mcp-test-server` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Command {
    /// No flags: MCP over stdin/stdout.
    Stdio,
    /// `--http ADDR [...]`: MCP over streamable HTTP.
    Http(HttpOptions),
    /// `--help`: print [`USAGE`].
    Help,
}

/// `oma-mcp-test-server --help`.
pub const USAGE: &str = "\
oma-mcp-test-server: oma-mcp's own MCP test server (rmcp server side)

Usage:
  oma-mcp-test-server                       MCP over stdin/stdout (newline-delimited JSON)
  oma-mcp-test-server --http ADDR [FLAGS]   MCP over streamable HTTP at http://ADDR/mcp

Arguments that do not start with `-` are ignored (tests pass markers).

HTTP flags:
  --http ADDR                  listen on ADDR, e.g. 127.0.0.1:0 (port 0: a free port); prints
                               one line `listening on http://127.0.0.1:PORT/mcp` to stdout,
                               then serves until killed or stdin closes
  --stateless                  no sessions: no Mcp-Session-Id, JSON responses (SSE only when a
                               tool sends a notification first), GET and DELETE answered 405
  --session-ttl-requests N     a session answers N JSON-RPC requests carrying its id, then
                               every request carrying it gets 404 (notifications, GET and
                               DELETE are not counted)
  --session-ttl-ms MS          a session expires MS milliseconds after its initialize; then
                               every request carrying its id gets 404
  --help                       this text

The environment variable OMA_TEST_SERVER_MODE selects a mode. Over stdio: every mode. Over
HTTP: `normal` (every tool), `stderr-flood` (4 MiB to stderr first), `progress` (the tool
`slow_count {steps, ms}` with notifications/progress) and `rug-pull` (every tool and
`rewrite_description`, which changes a tool mid-session and sends
notifications/tools/list_changed); the other modes script stdio itself
(see oma-mcp-http-faults for HTTP failures).
";

impl Command {
    /// Parses the arguments after the program name.
    ///
    /// # Errors
    /// An unknown flag, a missing or malformed value, or an HTTP flag without `--http`.
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Self, String> {
        let mut args = args.into_iter();
        let mut addr = None;
        let mut stateless = false;
        let mut session_ttl_requests = None;
        let mut session_ttl = None;
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--help" | "-h" => return Ok(Self::Help),
                "--http" => {
                    let value = listen::value_of("--http", &mut args)?;
                    addr = Some(listen::parse_addr("--http", &value)?);
                }
                "--stateless" => stateless = true,
                "--session-ttl-requests" => {
                    let value = listen::value_of(&arg, &mut args)?;
                    session_ttl_requests = Some(listen::parse_number(&arg, &value)?);
                }
                "--session-ttl-ms" => {
                    let value = listen::value_of(&arg, &mut args)?;
                    session_ttl = Some(Duration::from_millis(listen::parse_number(&arg, &value)?));
                }
                // Positional arguments are ignored: tests give the server marker arguments to
                // tell snapshots and command lines apart.
                other if !other.starts_with('-') => {}
                other => return Err(format!("unknown argument `{other}` (see --help)")),
            }
        }
        let Some(addr) = addr else {
            if stateless || session_ttl_requests.is_some() || session_ttl.is_some() {
                return Err("--stateless and --session-ttl-* need --http ADDR".to_owned());
            }
            return Ok(Self::Stdio);
        };
        if stateless && (session_ttl_requests.is_some() || session_ttl.is_some()) {
            return Err("--session-ttl-* needs sessions, not --stateless".to_owned());
        }
        Ok(Self::Http(HttpOptions {
            addr,
            stateless,
            session_ttl_requests,
            session_ttl,
        }))
    }
}

/// Runs the test server over streamable HTTP as `options` say, in the mode [`crate::MODE_VAR`]
/// selects: prints `listening on http://<addr>/mcp`, then serves until the process is killed
/// or its stdin closes.
///
/// # Errors
/// An unknown mode or one served over stdio only, or the address cannot be bound.
pub async fn serve_http(
    options: HttpOptions,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let mode = Mode::from_env()?;
    match mode {
        Mode::Normal | Mode::StderrFlood => {
            if mode == Mode::StderrFlood {
                crate::flood_stderr()?;
            }
            run(options, TestServer::new).await
        }
        Mode::Progress => run(options, || crate::progress::ProgressServer).await,
        Mode::RugPull => run(options, crate::RugPullServer::new).await,
        Mode::Tasks => {
            // One task manager for every session, so a task outlives the request that made it.
            let server = crate::TasksServer::new();
            run(options, move || server.clone()).await
        }
        _ => Err(format!(
            "{}={} is served over stdio only; over HTTP: normal, stderr-flood, progress, \
             rug-pull, tasks",
            crate::MODE_VAR,
            std::env::var(crate::MODE_VAR).unwrap_or_default()
        )
        .into()),
    }
}

/// Binds, announces and serves `make`'s server.
async fn run<S, F>(
    options: HttpOptions,
    make: F,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>>
where
    S: ServerHandler + Send + 'static,
    F: Fn() -> S + Send + Sync + 'static,
{
    let (listener, url) = listen::bind(options.addr).await?;
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(!options.stateless)
        .with_json_response(options.stateless);
    let manager = Arc::new(LocalSessionManager::default());
    let service = StreamableHttpService::new(move || Ok(make()), manager.clone(), config);
    let server = Arc::new(Server {
        service,
        manager,
        expiry: options.expires().then(|| Expiry {
            requests: options.session_ttl_requests,
            lifetime: options.session_ttl,
            sessions: Mutex::default(),
        }),
    });
    listen::announce(&url)?;
    listen::exit_at_stdin_eof();
    listen::serve(listener, move |request| {
        let server = server.clone();
        async move { server.handle(request).await }
    })
    .await?;
    Ok(())
}

/// rmcp's service and, when sessions expire, what is needed to expire them.
struct Server<S> {
    service: StreamableHttpService<S, LocalSessionManager>,
    manager: Arc<LocalSessionManager>,
    expiry: Option<Expiry>,
}

/// The expiry rule and the sessions it watches.
struct Expiry {
    requests: Option<u64>,
    lifetime: Option<Duration>,
    sessions: Mutex<HashMap<String, Watched>>,
}

/// A live session: when it started, how many JSON-RPC requests it answered.
struct Watched {
    started: Instant,
    requests: u64,
}

impl Expiry {
    /// Counts a request carrying session `id` (`counted`: a JSON-RPC request); `true` when the
    /// session has expired (it is then forgotten, and must be closed).
    fn expired(&self, id: &str, counted: bool) -> bool {
        let mut sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        let Some(session) = sessions.get_mut(id) else {
            return false;
        };
        let too_old = self
            .lifetime
            .is_some_and(|ttl| session.started.elapsed() >= ttl);
        let used_up = counted && self.requests.is_some_and(|n| session.requests >= n);
        if too_old || used_up {
            sessions.remove(id);
            return true;
        }
        session.requests += u64::from(counted);
        false
    }

    /// Watches a session that was just opened.
    fn opened(&self, id: &str) {
        let mut sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        sessions.insert(
            id.to_owned(),
            Watched {
                started: Instant::now(),
                requests: 0,
            },
        );
    }
}

/// Whether a POST body is one JSON-RPC request (a `method` and an `id`).
fn is_request(body: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .is_some_and(|msg| msg.get("method").is_some() && msg.get("id").is_some())
}

impl<S: ServerHandler + Send + 'static> Server<S> {
    async fn handle(&self, request: Request<Incoming>) -> Response<Body> {
        if request.uri().path() != listen::MCP_PATH {
            return not_found();
        }
        let Some(expiry) = &self.expiry else {
            return box_response(self.service.handle(request).await);
        };
        let (parts, body) = request.into_parts();
        let body = match body.collect().await {
            Ok(body) => body.to_bytes(),
            Err(_) => return bad_request(),
        };
        let session = parts
            .headers
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        if let Some(id) = &session {
            let counted = parts.method == hyper::Method::POST && is_request(&body);
            if expiry.expired(id, counted) {
                // rmcp then answers 404 for the id, as for any session it does not know.
                let _ = self.manager.close_session(&id.as_str().into()).await;
            }
        }
        let request = Request::from_parts(parts, http_body_util::Full::new(body));
        let response = self.service.handle(request).await;
        if session.is_none()
            && let Some(id) = response.headers().get(SESSION_HEADER)
            && let Ok(id) = id.to_str()
        {
            expiry.opened(id);
        }
        box_response(response)
    }
}

/// rmcp's response with the body type of [`listen::serve`].
fn box_response(
    response: Response<http_body_util::combinators::BoxBody<Bytes, std::convert::Infallible>>,
) -> Response<Body> {
    response.map(|body| body.map_err(|never| match never {}).boxed())
}

fn not_found() -> Response<Body> {
    let mut response = Response::new(listen::full("Not Found: MCP is served at /mcp"));
    *response.status_mut() = hyper::StatusCode::NOT_FOUND;
    response
}

fn bad_request() -> Response<Body> {
    let mut response = Response::new(listen::full("Bad Request: unreadable body"));
    *response.status_mut() = hyper::StatusCode::BAD_REQUEST;
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Command, String> {
        Command::parse(args.iter().map(|a| (*a).to_owned()))
    }

    #[test]
    fn command_lines() {
        assert_eq!(parse(&[]), Ok(Command::Stdio));
        assert_eq!(parse(&["--help"]), Ok(Command::Help));
        let addr: SocketAddr = "127.0.0.1:0".parse().expect("address");
        assert_eq!(
            parse(&["--http", "127.0.0.1:0"]),
            Ok(Command::Http(HttpOptions::new(addr)))
        );
        let Ok(Command::Http(options)) = parse(&[
            "--http",
            "127.0.0.1:0",
            "--session-ttl-requests",
            "2",
            "--session-ttl-ms",
            "500",
        ]) else {
            panic!("not parsed");
        };
        assert_eq!(options.session_ttl_requests, Some(2));
        assert_eq!(options.session_ttl, Some(Duration::from_millis(500)));
        assert!(!options.stateless);
        let Ok(Command::Http(options)) = parse(&["--stateless", "--http", "[::1]:8080"]) else {
            panic!("not parsed");
        };
        assert!(options.stateless);
        assert!(parse(&["--stateless"]).is_err());
        assert!(parse(&["--http"]).is_err());
        assert!(parse(&["--http", "localhost"]).is_err());
        assert!(
            parse(&[
                "--http",
                "127.0.0.1:0",
                "--stateless",
                "--session-ttl-ms",
                "1"
            ])
            .is_err()
        );
        assert!(parse(&["--bogus"]).is_err());
    }

    #[test]
    fn expiry_counts_requests_only() {
        let expiry = Expiry {
            requests: Some(2),
            lifetime: None,
            sessions: Mutex::default(),
        };
        expiry.opened("s");
        assert!(!expiry.expired("s", false)); // notifications/initialized
        assert!(!expiry.expired("s", true));
        assert!(!expiry.expired("s", false)); // a GET stream
        assert!(!expiry.expired("s", true));
        assert!(expiry.expired("s", true)); // the third request
        assert!(
            !expiry.expired("s", true),
            "forgotten: rmcp answers 404 itself"
        );
        assert!(!expiry.expired("unknown", true));
    }

    #[test]
    fn expiry_by_lifetime() {
        let expiry = Expiry {
            requests: None,
            lifetime: Some(Duration::ZERO),
            sessions: Mutex::default(),
        };
        expiry.opened("s");
        assert!(expiry.expired("s", false));
    }

    #[test]
    fn requests_are_told_from_notifications() {
        assert!(is_request(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#
        ));
        assert!(!is_request(
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
        ));
        assert!(!is_request(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#));
        assert!(!is_request(b"not json"));
    }
}
