//! oma-mcp's HTTP client against `oma-mcp-http-faults` in every mode: each failure is the
//! error its documentation promises, word for word (the server's URL, which holds a free
//! port, written `URL`), the session goes on where it can, and `GET /_log` shows what the
//! client sent. Credentials come from the environment only; the tests that need a variable
//! set run in a child process of this test binary ([`credentials_from_the_environment`]),
//! and check that no secret reaches an error or a `Debug` output.

use std::time::{Duration, Instant};

use oma_mcp_runtime::error::{ConfigError, ConnectError, RequestError};
use oma_mcp_runtime::{CancellationToken, ConnectConfig, Error, Lifecycle, connect_mcp_tools};
use oma_mcp_test_server::faults::{
    FORBIDDEN_CHALLENGE, GOOD_TOKEN, INVALID_JSON_DATA, PAGE_502, UNAUTHORIZED_CHALLENGE,
};
use oma_mcp_test_support::free_port;
use serde_json::{Value, json};

use crate::raw_http::{self, log};
use crate::typed::{Capture, Captured};
use crate::{args, echo, faults};

/// The request timeout of the tests that wait for one: long enough for connect on a loaded
/// machine (the lifecycle and each `tools/list` page are bounded by it too).
const SHORT: Duration = Duration::from_secs(2);

/// A config for the fault server at `url`: prefix `f`, a timeout only a hung test reaches.
pub(crate) fn config(url: &str) -> ConnectConfig {
    ConnectConfig::http(url)
        .with_name_prefix("f")
        .with_request_timeout(Duration::from_secs(20))
}

/// The error and its causes, with `url` written as `URL`.
pub(crate) fn chain(err: &Error, url: &str) -> String {
    err.chain().to_string().replace(url, "URL")
}

/// The `connect` error for `config`.
pub(crate) async fn connect_error(config: ConnectConfig) -> Error {
    match connect_mcp_tools(config).await {
        Ok(_) => panic!("connected"),
        Err(e) => e,
    }
}

/// What the client sent: `(HTTP method, JSON-RPC method or null)`.
pub(crate) fn sent(entries: &[Value]) -> Vec<(String, Value)> {
    entries
        .iter()
        .map(|e| {
            (
                e["method"].as_str().unwrap().to_owned(),
                e["json"]["method"].clone(),
            )
        })
        .collect()
}

pub(crate) fn post(method: &str) -> (String, Value) {
    ("POST".to_owned(), json!(method))
}

/// The flattened excerpt of [`PAGE_502`] an error quotes (line ends become spaces).
const PAGE_502_EXCERPT: &str = "<html>  <head><title>502 Bad Gateway</title></head>  <body>  \
<center><h1>502 Bad Gateway</h1></center>  <hr><center>nginx</center>  </body>  </html>";

#[tokio::test]
async fn html_502_is_an_http_error_with_the_status_and_the_page() {
    assert!(PAGE_502.starts_with("<html>\r\n<head>"));
    let server = faults("html-502", &[]);
    let url = server.url();
    for (lifecycle, method) in [
        (Lifecycle::Auto, "server/discover"),
        (Lifecycle::Initialize, "initialize"),
    ] {
        let err = connect_error(config(url).with_lifecycle(lifecycle)).await;
        assert_eq!(
            chain(&err, url),
            format!(
                "the MCP {method} handshake with `URL` failed: the MCP server `URL` answered \
                 `{method}` with HTTP 502: body: \"{PAGE_502_EXCERPT}\""
            )
        );
        let Error::Connect(ConnectError::Handshake { source, .. }) = &err else {
            panic!("{err:?}")
        };
        assert!(
            matches!(&**source, Error::Connect(ConnectError::Http { status: Some(502), method: m, .. }) if m == method),
            "{source:?}"
        );
    }
    // No fallback after an HTTP failure: one request per connect.
    assert_eq!(
        sent(&log(url).await),
        [post("server/discover"), post("initialize")]
    );
}

#[tokio::test]
async fn html_200_is_not_an_mcp_response() {
    let server = faults("html-200", &[]);
    let url = server.url();
    let err = connect_error(config(url)).await;
    assert_eq!(
        chain(&err, url),
        "the MCP server/discover handshake with `URL` failed: the MCP server `URL` answered \
         `server/discover` with HTTP 200: not an MCP response (Content-Type `text/html`; an MCP \
         server answers with application/json or text/event-stream; is the URL the server's MCP \
         endpoint?): body: \"<!DOCTYPE html> <html><head><title>Welcome</title></head> \
         <body><h1>It works!</h1><p>This is a web page, not an MCP server.</p></body></html>\""
    );
}

/// What a server that refuses without credentials is told to do: a token of its own, or OAuth
/// (its plain bearer challenge cannot tell which), in manifest keys and builder methods.
const SUPPLY: &str = "supply a token from the environment (manifest keys `bearer-env`, `header-env`; \
                      `ConnectConfig::with_bearer_env`, `ConnectConfig::with_header_env`); or, if the \
                      server offers OAuth, log in with `oma-mcp login` and enable OAuth with \
                      `ConnectConfig::with_oauth(OAuthConfig::authorization_code())` (in a manifest: \
                      a URL pin without `bearer-env` or an `Authorization` in `header-env`, or with a \
                      table `oauth`)";

/// Without credentials, 401 and 403 say how to pass them and quote the challenge.
#[tokio::test]
async fn unauthorized_and_forbidden_without_credentials() {
    for (mode, status, challenge) in [
        ("unauthorized", "401 (unauthorized)", UNAUTHORIZED_CHALLENGE),
        ("forbidden", "403 (forbidden)", FORBIDDEN_CHALLENGE),
    ] {
        let server = faults(mode, &[]);
        let url = server.url();
        let err = connect_error(config(url)).await;
        assert_eq!(
            chain(&err, url),
            format!(
                "the MCP server/discover handshake with `URL` failed: the MCP server `URL` \
                 answered `server/discover` with HTTP {status}, challenge: {challenge}; \
                 {SUPPLY}"
            )
        );
        let Error::Connect(ConnectError::Handshake { source, .. }) = &err else {
            panic!("{err:?}")
        };
        assert!(
            matches!(&**source, Error::Connect(ConnectError::HttpAuth { .. })),
            "{source:?}"
        );
        // A literal header is no credential from the environment: the hint stays the same.
        let err = connect_error(config(url).with_header("X-Team", "blue")).await;
        assert!(
            chain(&err, url).ends_with(&format!("; {SUPPLY}")),
            "{}",
            chain(&err, url)
        );
    }
}

/// A stream that breaks before the response fails that call (after the notification it
/// carried reached the caller); the session goes on.
#[tokio::test]
async fn close_mid_stream_fails_the_call_and_the_session_goes_on() {
    let server = faults("close-mid-stream", &[]);
    let url = server.url();
    let client = connect_mcp_tools(config(url)).await.unwrap();
    let mut progress = Vec::new();
    let err = client
        .call_tool("echo")
        .arguments(args(json!({"message": "hi"})))
        .progress(|p| {
            progress.push((p.progress, p.total, p.message));
        })
        .raw()
        .await
        .unwrap_err();
    assert_eq!(
        chain(&err, url),
        "the MCP server `URL` answered `tools/call` with HTTP 200: the SSE stream broke before \
         the response: error decoding response body: error reading a body from connection: \
         unexpected EOF during chunk size line"
    );
    assert!(
        matches!(&err, Error::Connect(ConnectError::Http { status: Some(200), method, .. }) if method == "tools/call")
    );
    assert_eq!(progress, [(1.0, Some(2.0), Some("halfway".to_owned()))]);
    let r = echo(&client, "again").await;
    assert_eq!(
        r.data,
        "MCP tool \"echo\" failed: the MCP server `URL` answered `tools/call` with HTTP 200: the \
         SSE stream broke before the response: error decoding response body: error reading a \
         body from connection: unexpected EOF during chunk size line"
            .replace("URL", url)
    );
    assert_eq!(client.list_tools_raw().await.unwrap().len(), 1);
    client.disconnect().await;
}

/// Keepalive comments do not extend the request timeout: under it the call succeeds, over it
/// it times out.
#[tokio::test]
async fn slow_sse_succeeds_under_the_timeout_and_times_out_over_it() {
    let server = faults("slow-sse", &["--delay-ms", "300"]);
    let client =
        connect_mcp_tools(config(server.url()).with_request_timeout(Duration::from_secs(5)))
            .await
            .unwrap();
    let start = Instant::now();
    let r = echo(&client, "slowly").await;
    assert_eq!((r.data.as_str(), r.is_error), ("Echo: slowly", false));
    assert!(start.elapsed() >= Duration::from_millis(300));
    client.disconnect().await;

    let server = faults("slow-sse", &["--delay-ms", "5000"]);
    let client = connect_mcp_tools(config(server.url()).with_request_timeout(SHORT))
        .await
        .unwrap();
    let start = Instant::now();
    let err = client
        .call_tool("echo")
        .arguments(args(json!({"message": "too slowly"})))
        .raw()
        .await
        .unwrap_err();
    let elapsed = start.elapsed();
    assert!(
        matches!(&err, Error::Request(RequestError::Timeout { method, timeout, .. })
            if method == "tools/call" && *timeout == SHORT),
        "{err:?}"
    );
    assert!(
        elapsed >= SHORT && elapsed < SHORT + Duration::from_secs(4),
        "{elapsed:?}"
    );
    client.disconnect().await;
}

/// A stream that never answers times out within the request timeout (no hang), tells the
/// server with `notifications/cancelled`, and so does a cancelled call.
#[tokio::test]
async fn sse_no_response_times_out_and_cancels() {
    let server = faults("sse-no-response", &[]);
    let url = server.url();
    let client = connect_mcp_tools(config(url).with_request_timeout(SHORT))
        .await
        .unwrap();
    let start = Instant::now();
    let err = client
        .call_tool("echo")
        .arguments(args(json!({"message": "hello?"})))
        .raw()
        .await
        .unwrap_err();
    let elapsed = start.elapsed();
    assert_eq!(
        err.chain().to_string(),
        "MCP error -32001: Request timed out"
    );
    assert!(
        matches!(&err, Error::Request(RequestError::Timeout { method, .. }) if method == "tools/call")
    );
    assert!(
        elapsed >= SHORT && elapsed < SHORT + Duration::from_secs(4),
        "{elapsed:?}"
    );

    let cancel = CancellationToken::new();
    let trigger = {
        let cancel = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            cancel.cancel();
        })
    };
    let err = client
        .call_tool("echo")
        .arguments(args(json!({"message": "never mind"})))
        .cancel_on(&cancel)
        .raw()
        .await
        .unwrap_err();
    trigger.await.unwrap();
    assert!(
        matches!(&err, Error::Request(RequestError::Cancelled { method, .. }) if method == "tools/call")
    );

    // Both notifications reach the server (each is its own POST, sent after the call ended).
    let deadline = Instant::now() + Duration::from_secs(5);
    let entries = loop {
        let entries = log(url).await;
        let cancelled = entries
            .iter()
            .filter(|e| e["json"]["method"] == "notifications/cancelled")
            .count();
        if cancelled == 2 || Instant::now() > deadline {
            break entries;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let calls: Vec<&Value> = entries
        .iter()
        .filter(|e| e["json"]["method"] == "tools/call")
        .map(|e| &e["json"]["id"])
        .collect();
    assert_eq!(calls.len(), 2);
    let cancellations: Vec<(&Value, &Value)> = entries
        .iter()
        .filter(|e| e["json"]["method"] == "notifications/cancelled")
        .map(|e| (&e["json"]["params"], &e["headers"]["mcp-protocol-version"]))
        .collect();
    assert_eq!(
        cancellations,
        [
            (
                &json!({"requestId": calls[0], "reason": "McpError: MCP error -32001: Request timed out"}),
                &json!("2026-07-28")
            ),
            (
                &json!({"requestId": calls[1], "reason": "AbortError: This operation was aborted"}),
                &json!("2026-07-28")
            ),
        ]
    );
    client.disconnect().await;
}

/// An event whose data is not JSON is skipped with a warning; an answer to an id nobody
/// sent is ignored; the call gets its own answer.
#[tokio::test]
async fn invalid_json_events_and_unknown_ids_are_skipped() {
    use tracing_subscriber::layer::SubscriberExt;
    let capture = Capture::default();
    // A second live dispatcher, so callsites registered on another thread still ask this
    // thread's subscriber (see `typed::connect_checked_log_policy_emits_one_tracing_event_per_change`).
    let _second = tracing::Dispatch::new(tracing_subscriber::registry());
    let _guard =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(capture.clone()));
    for mode in ["sse-invalid-json", "unknown-id"] {
        let server = faults(mode, &[]);
        let client = connect_mcp_tools(config(server.url())).await.unwrap();
        capture.take();
        let r = echo(&client, mode).await;
        assert_eq!(
            (r.data, r.is_error),
            (format!("Echo: {mode}"), false),
            "{mode}"
        );
        let warnings: Vec<Captured> = capture
            .take()
            .into_iter()
            .filter(|e| e.level <= tracing::Level::WARN)
            .collect();
        let expected = match mode {
            "sse-invalid-json" => vec![Captured {
                level: tracing::Level::WARN,
                target: "oma_mcp_runtime::connect::inbox".to_owned(),
                fields: vec![
                    (
                        "message".to_owned(),
                        format!(
                            "skipped a message in an HTTP response of the MCP server that is \
                             not a JSON-RPC message (not JSON (expected ident at line 1 column \
                             2)): {INVALID_JSON_DATA}"
                        ),
                    ),
                    ("server".to_owned(), server.url().to_owned()),
                ],
            }],
            _ => Vec::new(),
        };
        assert_eq!(warnings, expected, "{mode}");
        client.disconnect().await;
    }
}

/// A JSON body or an SSE event over the size limit fails its call; the session goes on.
#[tokio::test]
async fn huge_body_and_huge_event_are_too_large() {
    for mode in ["huge-body", "huge-event"] {
        let server = faults(mode, &["--size", "200000"]);
        let client = connect_mcp_tools(config(server.url()).with_max_message_size(100_000))
            .await
            .unwrap();
        let err = client
            .call_tool("echo")
            .arguments(args(json!({"message": "big"})))
            .raw()
            .await
            .unwrap_err();
        assert!(
            matches!(
                err,
                Error::Request(RequestError::MessageTooLarge { limit: 100_000 })
            ),
            "{mode}: {err:?}"
        );
        assert_eq!(
            err.chain().to_string(),
            "the MCP server sent a message larger than the limit of 100000 bytes; raise it with \
             `ConnectConfig::with_max_message_size` (manifest key `max-message-bytes`)"
        );
        assert_eq!(client.list_tools_raw().await.unwrap().len(), 1, "{mode}");
        client.disconnect().await;

        // Under the limit the same answer arrives whole.
        let client = connect_mcp_tools(config(server.url()).with_max_message_size(300_000))
            .await
            .unwrap();
        let raw = client
            .call_tool("echo")
            .arguments(args(json!({"message": "big"})))
            .raw()
            .await
            .unwrap();
        let text = raw["content"][0]["text"].as_str().unwrap();
        assert!(
            text.len() > 199_000 && text.bytes().all(|b| b == b'x'),
            "{mode}"
        );
        client.disconnect().await;
    }
}

/// A session that ends (404) is started again once: `initialize` without the old id, then
/// the request again with the new one, and the new session's stream of server messages is
/// opened; concurrent requests share one new session.
#[tokio::test]
async fn an_expired_session_is_initialized_again_once() {
    let server = faults("expire-session", &["--after", "2"]);
    let url = server.url();
    // `server/discover` gets -32601: `Auto` falls back to `initialize` (session-1).
    let client = connect_mcp_tools(config(url)).await.unwrap();
    assert_eq!(client.protocol_version(), "2025-11-25");
    // tools/list was the session's first request, this call its second.
    assert_eq!(echo(&client, "one").await.data, "Echo: one");
    // The third gets 404: session-2, and the call again.
    assert_eq!(echo(&client, "two").await.data, "Echo: two");
    let (s1, s2) = (json!("session-1"), json!("session-2"));
    // The `GET` of session-2's stream goes out beside the retried call: wait for it.
    let gets = |entries: &[Value]| -> Vec<Value> {
        entries
            .iter()
            .filter(|e| e["method"] == "GET")
            .map(|e| e["headers"]["mcp-session-id"].clone())
            .collect()
    };
    let mut entries = log(url).await;
    for _ in 0..100 {
        if gets(&entries).len() >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        entries = log(url).await;
    }
    assert_eq!(gets(&entries), [s1.clone(), s2.clone()]);
    let posts: Vec<&Value> = entries.iter().filter(|e| e["method"] == "POST").collect();
    let seen: Vec<(Value, Value)> = posts
        .iter()
        .map(|e| {
            (
                e["json"]["method"].clone(),
                e["headers"]["mcp-session-id"].clone(),
            )
        })
        .collect();
    let entry = |j: &str, s: &Value| (json!(j), s.clone());
    assert_eq!(
        seen,
        [
            entry("server/discover", &Value::Null),
            entry("initialize", &Value::Null),
            entry("notifications/initialized", &s1),
            entry("tools/list", &s1),
            entry("tools/call", &s1),
            entry("tools/call", &s1),
            entry("initialize", &Value::Null),
            entry("notifications/initialized", &s2),
            entry("tools/call", &s2),
        ]
    );
    // session-1's stream is opened after its handshake, before its first request.
    assert_eq!(entries[3]["method"], "GET");
    // The replayed handshake is the first one; the retried call is the same request.
    assert_eq!(posts[6]["body"], posts[1]["body"]);
    assert_eq!(posts[8]["body"], posts[5]["body"]);
    assert_eq!(posts[8]["headers"]["mcp-protocol-version"], "2025-11-25");

    // session-2 answers the retried call and one more; then two calls at once meet its end
    // and share one new session.
    assert_eq!(echo(&client, "three").await.data, "Echo: three");
    raw_http::request(
        &url.replace("/mcp", "/_log"),
        hyper::Method::DELETE,
        &[],
        None,
    )
    .await;
    let (a, b) = tokio::join!(echo(&client, "a"), echo(&client, "b"));
    assert_eq!((a.data.as_str(), b.data.as_str()), ("Echo: a", "Echo: b"));
    let initializes = log(url)
        .await
        .iter()
        .filter(|e| e["json"]["method"] == "initialize")
        .count();
    assert_eq!(initializes, 1);
    client.disconnect().await;
}

/// A redirect loop is cut after `MAX_REDIRECTS` redirects.
#[tokio::test]
async fn a_redirect_loop_is_unreachable() {
    let server = faults("redirect-loop", &[]);
    let url = server.url();
    let err = connect_error(config(url)).await;
    assert_eq!(
        chain(&err, url),
        "the MCP server/discover handshake with `URL` failed: cannot reach the MCP server `URL` \
         for `server/discover` (check the URL, that the server is running, and the network): \
         error following redirect: more than 10 redirects (a redirect loop?)"
    );
    let Error::Connect(ConnectError::Handshake { source, .. }) = &err else {
        panic!("{err:?}")
    };
    assert!(
        matches!(
            &**source,
            Error::Connect(ConnectError::HttpUnreachable { .. })
        ),
        "{source:?}"
    );
    // The request and the 10 redirects followed.
    assert_eq!(
        sent(&log(url).await),
        vec![post("server/discover"); 1 + oma_mcp_runtime::connect::MAX_REDIRECTS]
    );
}

/// A redirect to another origin is not followed: the error names the target, and the other
/// listener never sees the request (nor its credentials).
#[tokio::test]
async fn a_redirect_to_another_origin_is_not_followed() {
    let server = faults("redirect-cross-origin", &[]);
    let url = server.url();
    let other = other_origin(url).await;
    let err = connect_error(config(url).with_header("Authorization", "Bearer literal")).await;
    assert_eq!(
        chain(&err, url).replace(&other, "OTHER"),
        "the MCP server/discover handshake with `URL` failed: the MCP server `URL` answered \
         `server/discover` with HTTP 307: a redirect to OTHER, which oma-mcp does not follow \
         (only 307/308 to the same origin are followed, so credentials never reach another \
         host); pin that URL instead"
    );
    let entries = log(url).await;
    let seen: Vec<(&Value, &Value)> = entries
        .iter()
        .map(|e| (&e["listener"], &e["headers"]["authorization"]))
        .collect();
    assert_eq!(seen, [(&json!("main"), &json!("Bearer literal"))]);
}

/// The `Location` of a `redirect-cross-origin` server (learnt with a plain request, then the
/// log is emptied).
async fn other_origin(url: &str) -> String {
    let reply = raw_http::post(
        url,
        &[],
        &json!({"jsonrpc": "2.0", "id": 0, "method": "ping"}),
    )
    .await;
    assert_eq!(reply.status, 307);
    let other = reply.header("location").unwrap().to_owned();
    assert_ne!(other, url);
    raw_http::request(
        &url.replace("/mcp", "/_log"),
        hyper::Method::DELETE,
        &[],
        None,
    )
    .await;
    other
}

/// A response stream that ends before its response is resumed with `GET` and `Last-Event-ID`
/// (after the stream's `retry`), in a 2026-07-28 conversation and in a session.
#[tokio::test]
async fn a_dropped_stream_is_resumed_with_last_event_id() {
    for (lifecycle, version) in [
        (Lifecycle::Auto, "2026-07-28"),
        (Lifecycle::Initialize, "2025-11-25"),
    ] {
        let server = faults("resumable", &[]);
        let url = server.url();
        let client = connect_mcp_tools(config(url).with_lifecycle(lifecycle))
            .await
            .unwrap();
        assert_eq!(client.protocol_version(), version);
        let r = echo(&client, "resumed").await;
        assert_eq!((r.data.as_str(), r.is_error), ("Echo: resumed", false));
        // With a progress token the first event carries the progress.
        let mut progress = Vec::new();
        let raw = client
            .call_tool("echo")
            .arguments(args(json!({"message": "p"})))
            .progress(|p| progress.push(p.progress))
            .raw()
            .await
            .unwrap();
        assert_eq!(raw["content"][0]["text"], "Echo: p");
        assert_eq!(progress, [1.0]);
        let resumes: Vec<(Value, Value)> = log(url)
            .await
            .iter()
            .filter(|e| e["method"] == "GET" && !e["headers"]["last-event-id"].is_null())
            .map(|e| {
                let headers = &e["headers"];
                (
                    headers["last-event-id"].clone(),
                    headers["mcp-protocol-version"].clone(),
                )
            })
            .collect();
        assert_eq!(
            resumes,
            [
                (json!("1-1"), json!(version)),
                (json!("2-1"), json!(version))
            ],
            "{lifecycle:?}"
        );
        client.disconnect().await;
    }
}

/// A server without a GET stream (405) is fine: connect goes on at once.
#[tokio::test]
async fn no_get_stream_connects() {
    let server = faults("no-get-stream", &[]);
    let url = server.url();
    let client = connect_mcp_tools(config(url).with_lifecycle(Lifecycle::Initialize))
        .await
        .unwrap();
    assert_eq!(echo(&client, "no stream").await.data, "Echo: no stream");
    client.disconnect().await;
    assert_eq!(
        sent(&log(url).await),
        [
            post("initialize"),
            post("notifications/initialized"),
            ("GET".to_owned(), Value::Null),
            post("tools/list"),
            post("tools/call"),
        ]
    );
}

/// A closed port is unreachable.
#[tokio::test]
async fn a_closed_port_is_unreachable() {
    let url = format!("http://127.0.0.1:{}/mcp", free_port().unwrap());
    let err = connect_error(config(&url)).await;
    assert_eq!(
        chain(&err, &url),
        "the MCP server/discover handshake with `URL` failed: cannot reach the MCP server `URL` \
         for `server/discover` (check the URL, that the server is running, and the network): \
         error sending request: client error (Connect): tcp connect error: Connection refused \
         (os error 111)"
    );
    let Error::Connect(ConnectError::Handshake { source, .. }) = &err else {
        panic!("{err:?}")
    };
    assert!(
        matches!(
            &**source,
            Error::Connect(ConnectError::HttpUnreachable { .. })
        ),
        "{source:?}"
    );
}

/// A variable for `bearer-env` / `header-env` that is not set fails before any request.
#[tokio::test]
async fn a_missing_credential_variable_fails_before_any_request() {
    let server = faults("normal", &[]);
    let url = server.url();
    let unset = "OMA_MCP_TEST_NEVER_SET_TOKEN";
    assert!(std::env::var_os(unset).is_none());
    let err = connect_error(config(url).with_bearer_env(unset)).await;
    assert!(
        matches!(&err, Error::Config(ConfigError::MissingEnv { var, header, .. }) if var == unset && header == "Authorization")
    );
    assert_eq!(
        err.chain().to_string(),
        "the environment variable `OMA_MCP_TEST_NEVER_SET_TOKEN` (for the HTTP header \
         `Authorization`) is not set or not UTF-8; set it (in CI: from the secret store) before \
         connecting"
    );
    let err = connect_error(config(url).with_header_env("X-Api-Key", unset)).await;
    assert_eq!(
        err.chain().to_string(),
        "the environment variable `OMA_MCP_TEST_NEVER_SET_TOKEN` (for the HTTP header \
         `X-Api-Key`) is not set or not UTF-8; set it (in CI: from the secret store) before \
         connecting"
    );
    assert_eq!(log(url).await, Vec::<Value>::new());
}

/// Userinfo and query values of the URL are shown as `***` and never appear in an error, its
/// `Debug` or the client's `Debug`.
#[tokio::test]
async fn url_secrets_are_redacted() {
    const PASSWORD: &str = "pa55w0rd-s3cret";
    const QUERY_SECRET: &str = "qu3ry-s3cret";
    let with_secrets = |url: &str| {
        url.replacen("http://", &format!("http://me:{PASSWORD}@"), 1)
            + &format!("?token={QUERY_SECRET}&v=2")
    };
    let redacted = |url: &str| url.replacen("http://", "http://***@", 1) + "?token=***&v=***";
    let check = |text: &str| {
        assert!(
            !text.contains(PASSWORD) && !text.contains(QUERY_SECRET),
            "a secret leaked: {text}"
        );
    };

    let server = faults("html-502", &[]);
    let url = server.url();
    let err = connect_error(config(&with_secrets(url))).await;
    assert_eq!(
        err.chain().to_string(),
        format!(
            "the MCP server/discover handshake with `{0}` failed: the MCP server `{0}` answered \
             `server/discover` with HTTP 502: body: \"{PAGE_502_EXCERPT}\"",
            redacted(url)
        )
    );
    check(&err.chain().to_string());
    check(&format!("{err:?}"));
    // The query reached the server; the userinfo went as HTTP basic credentials.
    let entries = log(url).await;
    assert_eq!(entries[0]["path"], format!("/mcp?token={QUERY_SECRET}&v=2"));
    // base64 of `me:pa55w0rd-s3cret`.
    assert_eq!(
        entries[0]["headers"]["authorization"],
        "Basic bWU6cGE1NXcwcmQtczNjcmV0"
    );

    let closed = format!("http://127.0.0.1:{}/mcp", free_port().unwrap());
    let err = connect_error(config(&with_secrets(&closed))).await;
    assert!(
        err.chain().to_string().starts_with(&format!(
            "the MCP server/discover handshake with `{0}` failed: cannot reach the MCP \
                 server `{0}` for `server/discover`",
            redacted(&closed)
        )),
        "{}",
        err.chain()
    );
    check(&err.chain().to_string());
    check(&format!("{err:?}"));

    let server = faults("normal", &[]);
    let client = connect_mcp_tools(config(&with_secrets(server.url())))
        .await
        .unwrap();
    check(&format!("{client:?}"));
    let r = client.call_tool("no_such_tool").mapped().await;
    check(&r.data);
    client.disconnect().await;
}

// ---------------------------------------------------------------------------------------------
// Credentials from the environment (in a child process, which gets the variables)
// ---------------------------------------------------------------------------------------------

/// Set in the child process: the helper below runs only there.
const HELPER: &str = "OMA_MCP_TEST_HTTP_CREDENTIALS_HELPER";
/// Holds the token the fault server accepts.
const GOOD_VAR: &str = "OMA_MCP_TEST_GOOD_TOKEN";
/// Holds a token the fault server refuses.
const WRONG_VAR: &str = "OMA_MCP_TEST_WRONG_TOKEN";
/// The refused token: it must appear in no message.
const WRONG_TOKEN: &str = "wr0ng-t0ken-s3cret";

/// Runs [`helper_credentials_from_the_environment`] in a child process of this test binary
/// with the credential variables set (a test cannot set variables in its own process).
#[tokio::test]
async fn credentials_from_the_environment() {
    let test = "http_client_faults::helper_credentials_from_the_environment";
    crate::run_in_child(
        test,
        &[
            (HELPER, std::ffi::OsStr::new("1")),
            (GOOD_VAR, std::ffi::OsStr::new(GOOD_TOKEN)),
            (WRONG_VAR, std::ffi::OsStr::new(WRONG_TOKEN)),
        ],
    )
    .await;
}

/// Helper of [`credentials_from_the_environment`]: the bearer token from the environment is
/// sent, a wrong one is named by its variable (never its value), the right one connects, and
/// no token reaches an error, a `Debug` output, or another origin.
#[tokio::test]
#[ignore = "a helper: runs in a child process of credentials_from_the_environment"]
async fn helper_credentials_from_the_environment() {
    if std::env::var_os(HELPER).is_none() {
        return;
    }
    let check = |text: &str| {
        assert!(
            !text.contains(WRONG_TOKEN) && !text.contains(GOOD_TOKEN),
            "a token leaked: {text}"
        );
    };
    for (mode, status, challenge) in [
        ("unauthorized", "401 (unauthorized)", UNAUTHORIZED_CHALLENGE),
        ("forbidden", "403 (forbidden)", FORBIDDEN_CHALLENGE),
    ] {
        let server = faults(mode, &[]);
        let url = server.url();
        let wrong = config(url).with_bearer_env(WRONG_VAR);
        check(&format!("{wrong:?}"));
        let err = connect_error(wrong).await;
        assert_eq!(
            chain(&err, url),
            format!(
                "the MCP server/discover handshake with `URL` failed: the MCP server `URL` \
                 answered `server/discover` with HTTP {status}, challenge: {challenge}; check the \
                 credentials in `{WRONG_VAR}` (sent as `Authorization: Bearer`) (manifest keys \
                 `bearer-env`, `header-env`)"
            )
        );
        check(&err.chain().to_string());
        check(&format!("{err:?}"));
        // Both variables named when both are used.
        let err = connect_error(
            config(url)
                .with_bearer_env(WRONG_VAR)
                .with_header_env("X-Api-Key", GOOD_VAR),
        )
        .await;
        assert!(
            chain(&err, url).ends_with(&format!(
                "check the credentials in `{WRONG_VAR}` (sent as `Authorization: Bearer`) and \
                 `{GOOD_VAR}` (sent as `X-Api-Key`) (manifest keys `bearer-env`, `header-env`)"
            )),
            "{}",
            chain(&err, url)
        );
        check(&err.chain().to_string());
        check(&format!("{err:?}"));

        let good = config(url).with_bearer_env(GOOD_VAR);
        check(&format!("{good:?}"));
        let client = connect_mcp_tools(good).await.unwrap();
        check(&format!("{client:?}"));
        assert_eq!(echo(&client, "authorized").await.data, "Echo: authorized");
        let err = client.call_tool("no_such_tool").raw().await;
        check(&format!("{err:?}"));
        client.disconnect().await;
        let sent: Vec<Value> = log(url)
            .await
            .iter()
            .map(|e| e["headers"]["authorization"].clone())
            .collect();
        let wrong = json!(format!("Bearer {WRONG_TOKEN}"));
        let right = json!(format!("Bearer {GOOD_TOKEN}"));
        assert_eq!(
            sent,
            [
                wrong.clone(),
                wrong,
                right.clone(),
                right.clone(),
                right.clone(),
                right
            ],
            "{mode}"
        );
    }

    // Other failures with a token set: no token in any message.
    let server = faults("html-502", &[]);
    let err = connect_error(config(server.url()).with_bearer_env(GOOD_VAR)).await;
    check(&err.chain().to_string());
    check(&format!("{err:?}"));
    let closed = format!("http://127.0.0.1:{}/mcp", free_port().unwrap());
    let err = connect_error(config(&closed).with_bearer_env(GOOD_VAR)).await;
    check(&err.chain().to_string());
    check(&format!("{err:?}"));
    let server = faults("redirect-cross-origin", &[]);
    let url = server.url();
    let other = other_origin(url).await;
    let err = connect_error(config(url).with_bearer_env(GOOD_VAR)).await;
    assert!(chain(&err, url).contains(&format!("a redirect to {other}, which")));
    check(&err.chain().to_string());
    check(&format!("{err:?}"));
    let seen: Vec<(Value, Value)> = log(url)
        .await
        .iter()
        .map(|e| (e["listener"].clone(), e["headers"]["authorization"].clone()))
        .collect();
    assert_eq!(
        seen,
        [(json!("main"), json!(format!("Bearer {GOOD_TOKEN}")))]
    );
}
