//! What a real HTTP server may answer that is not the textbook case: a JSON body that holds
//! no response to its request (fails at once, not at the timeout), a compressed body nobody
//! asked for, a server strict about `MCP-Protocol-Version` (on every request after the
//! handshake, `notifications/initialized` included, over many connects), `200` with an empty
//! body for a notification and SSE keep-alives (no warning), and a redirect of the endpoint
//! (remembered for the session). Each against its `oma-mcp-http-faults` mode.

use std::time::{Duration, Instant};

use oma_mcp_runtime::error::ConnectError;
use oma_mcp_runtime::{Error, Lifecycle, connect_mcp_tools};
use oma_mcp_test_server::faults::{NOT_JSON_RPC, UNKNOWN_ID};
use serde_json::{Value, json};
use tracing_subscriber::layer::SubscriberExt;

use crate::http_client_faults::{chain, config, post, sent};
use crate::raw_http::log;
use crate::typed::{Capture, Captured};
use crate::{args, echo, faults};

/// Captures every `tracing` event of this thread (the tests run on a current-thread runtime,
/// so the transport's tasks log here too) while the guard lives.
fn capture() -> (
    Capture,
    (tracing::subscriber::DefaultGuard, tracing::Dispatch),
) {
    let capture = Capture::default();
    // A second live dispatcher, so callsites registered on another thread still ask this
    // thread's subscriber (see `typed::connect_checked_log_policy_emits_one_tracing_event_per_change`).
    let second = tracing::Dispatch::new(tracing_subscriber::registry());
    let guard =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(capture.clone()));
    (capture, (guard, second))
}

/// The events at `WARN` or above.
fn warnings(capture: &Capture) -> Vec<Captured> {
    capture
        .take()
        .into_iter()
        .filter(|e| e.level <= tracing::Level::WARN)
        .collect()
}

/// A `200 application/json` body without the response to the request fails the call at
/// once, saying what came; the session goes on. Before, each waited for the request timeout
/// (here 20 s; 60 s by default).
#[tokio::test]
async fn a_json_body_without_the_response_fails_at_once() {
    let (capture, _guard) = capture();
    for (mode, body) in [
        (
            "json-other-id",
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{UNKNOWN_ID},\"result\":{{\"content\":[{{\"type\":\
                 \"text\",\"text\":\"not yours\"}}]}}}}"
            ),
        ),
        ("json-not-jsonrpc", NOT_JSON_RPC.to_owned()),
    ] {
        let server = faults(mode, &[]);
        let url = server.url();
        let client = connect_mcp_tools(config(url)).await.unwrap();
        capture.take();
        let started = Instant::now();
        let err = client
            .call_tool("echo")
            .arguments(args(json!({"message": "hi"})))
            .raw()
            .await
            .unwrap_err();
        let took = started.elapsed();
        assert!(took < Duration::from_secs(1), "{mode}: {took:?}");
        assert_eq!(
            chain(&err, url),
            format!(
                "the MCP server `URL` answered `tools/call` with HTTP 200: the JSON body holds no \
                 response to this request (id 2), and a JSON body is the whole answer to its \
                 POST: body: \"{body}\""
            ),
            "{mode}"
        );
        assert!(
            matches!(&err, Error::Connect(ConnectError::Http { status: Some(200), method, .. }) if method == "tools/call"),
            "{err:?}"
        );
        let expected = match mode {
            "json-not-jsonrpc" => vec![Captured {
                level: tracing::Level::WARN,
                target: "oma_mcp_runtime::connect::inbox".to_owned(),
                fields: vec![
                    (
                        "message".to_owned(),
                        format!(
                            "skipped a message in an HTTP response of the MCP server that is \
                             not a JSON-RPC message (neither `method` nor `id`): \
                             {NOT_JSON_RPC}"
                        ),
                    ),
                    ("server".to_owned(), url.to_owned()),
                ],
            }],
            _ => Vec::new(),
        };
        assert_eq!(warnings(&capture), expected, "{mode}");
        assert_eq!(client.list_tools_raw().await.unwrap().len(), 1, "{mode}");
        client.disconnect().await;
    }
}

/// A compressed body the client never asked for is named, at once; no `Accept-Encoding` is
/// sent.
#[tokio::test]
async fn a_compressed_body_is_refused_by_name() {
    let server = faults("gzip-json", &[]);
    let url = server.url();
    let client = connect_mcp_tools(config(url)).await.unwrap();
    let started = Instant::now();
    let err = client
        .call_tool("echo")
        .arguments(args(json!({"message": "hi"})))
        .raw()
        .await
        .unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(1));
    assert_eq!(
        chain(&err, url),
        "the MCP server `URL` answered `tools/call` with HTTP 200: the body is compressed \
         (`Content-Encoding: gzip`), which oma-mcp did not ask for (it sends no Accept-Encoding) \
         and does not decode; turn compression off for the MCP endpoint (often a proxy's \
         setting)"
    );
    client.disconnect().await;
    let entries = log(url).await;
    assert!(!entries.is_empty());
    for entry in &entries {
        assert_eq!(entry["headers"].get("accept-encoding"), None, "{entry}");
    }
}

/// `MCP-Protocol-Version` goes on every request after the handshake, the first notification
/// included: 100 connects in a row (8 at a time, on two worker threads, where the transport's
/// write loop runs beside the handshake) against a server that refuses a request without it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_protocol_version_header_is_on_every_request_after_the_handshake() {
    version_header_on_every_request(100).await;
}

/// As [`the_protocol_version_header_is_on_every_request_after_the_handshake`], 1,000 times.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "slow tier (1,000 connects, about 25 s): scripts/test runs it; alone: cargo test -p oma-mcp-test-server --all-features --test integration -- --ignored http_client_answers::many_"]
async fn many_connects_carry_the_protocol_version_header() {
    version_header_on_every_request(1_000).await;
}

/// `connects` connects, each with a call, against `strict-version`: all succeed, and the
/// header is on every logged request but `initialize`.
async fn version_header_on_every_request(connects: usize) {
    let server = faults("strict-version", &["--no-discover"]);
    let url = server.url().to_owned();
    let mut tasks = tokio::task::JoinSet::new();
    let mut done = 0;
    for n in 0..connects {
        if tasks.len() == 8 {
            tasks.join_next().await.unwrap().unwrap();
            done += 1;
        }
        let url = url.clone();
        tasks.spawn(async move {
            let client = connect_mcp_tools(config(&url).with_lifecycle(Lifecycle::Initialize))
                .await
                .unwrap();
            let r = echo(&client, &format!("n{n}")).await;
            assert_eq!((r.data, r.is_error), (format!("Echo: n{n}"), false));
            client.disconnect().await;
        });
    }
    while let Some(joined) = tasks.join_next().await {
        joined.unwrap();
        done += 1;
    }
    assert_eq!(done, connects);
    let entries = log(&url).await;
    let count = |method: &str| {
        entries
            .iter()
            .filter(|e| e["json"]["method"] == json!(method))
            .count()
    };
    assert_eq!(count("initialize"), connects);
    assert_eq!(count("notifications/initialized"), connects);
    assert_eq!(count("tools/call"), connects);
    let without: Vec<&Value> = entries
        .iter()
        .filter(|e| e["json"]["method"] != json!("initialize"))
        .filter(|e| e["headers"].get("mcp-protocol-version").is_none())
        .collect();
    assert_eq!(without, Vec::<&Value>::new());
}

/// `200` with an empty body to a notification, and SSE events that carry no message
/// (comments, a bare `retry:`, `event: ping`/`keepalive`, data `{}`): accepted without a
/// word above `DEBUG`.
#[tokio::test]
async fn legitimate_answers_print_no_warning() {
    let (capture, _guard) = capture();
    for mode in ["empty-200", "sse-keepalive"] {
        let server = faults(mode, &["--no-discover"]);
        let client = connect_mcp_tools(config(server.url())).await.unwrap();
        let r = echo(&client, mode).await;
        assert_eq!((r.data, r.is_error), (format!("Echo: {mode}"), false));
        client.disconnect().await;
        assert_eq!(warnings(&capture), Vec::new(), "{mode}");
        let entries = log(server.url()).await;
        assert!(
            sent(&entries).contains(&post("notifications/initialized")),
            "{mode}: {entries:?}"
        );
    }
}

/// An endpoint that redirects `/mcp` to `/mcp/`: after a `308`, or a `307` on the handshake,
/// the session's later requests go to `/mcp/` at once, and one warning suggests the URL.
#[tokio::test]
async fn a_redirect_of_the_endpoint_is_remembered() {
    let (capture, _guard) = capture();
    for (mode, status) in [("redirect-slash-307", 307), ("redirect-slash-308", 308)] {
        let server = faults(mode, &[]);
        let url = server.url();
        let client = connect_mcp_tools(config(url)).await.unwrap();
        for n in 0..3 {
            let r = echo(&client, &format!("{n}")).await;
            assert_eq!(r.data, format!("Echo: {n}"), "{mode}");
        }
        client.disconnect().await;
        let paths: Vec<(String, String)> = log(url)
            .await
            .iter()
            .map(|e| {
                (
                    e["path"].as_str().unwrap().to_owned(),
                    e["json"]["method"]
                        .as_str()
                        .unwrap_or(e["method"].as_str().unwrap())
                        .to_owned(),
                )
            })
            .collect();
        let at = |path: &str, method: &str| (path.to_owned(), method.to_owned());
        assert_eq!(
            paths,
            [
                at("/mcp", "server/discover"),
                at("/mcp/", "server/discover"),
                at("/mcp/", "tools/list"),
                at("/mcp/", "tools/call"),
                at("/mcp/", "tools/call"),
                at("/mcp/", "tools/call"),
            ],
            "{mode}"
        );
        assert_eq!(
            warnings(&capture),
            [Captured {
                level: tracing::Level::WARN,
                target: "oma_mcp_runtime::connect::http::endpoint".to_owned(),
                fields: vec![
                    (
                        "message".to_owned(),
                        format!(
                            "the MCP endpoint redirects (HTTP {status}) to {url}/; the session's \
                             later requests go there at once; pin that URL to save a round trip \
                             on each request"
                        )
                    ),
                    ("server".to_owned(), url.to_owned()),
                ],
            }],
            "{mode}"
        );
    }
}
