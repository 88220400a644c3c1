//! The notifications and responses oma-mcp's HTTP client POSTs go out beside its requests:
//! a server slow to accept them (`oma-mcp-http-faults --notification-delay-ms`) holds up no
//! call, and they still arrive.

use std::time::{Duration, Instant};

use oma_mcp_runtime::connect::NOTIFICATION_TIMEOUT;
use oma_mcp_runtime::{CancellationToken, ConnectConfig, McpClient, connect_mcp_tools};
use oma_mcp_test_server::faults::HANG_MESSAGE;
use serde_json::{Value, json};

use crate::raw_http::log;
use crate::typed::{Capture, Captured};
use crate::{args, echo, faults};

/// How long the fault server takes to accept each notification: longer than any call may
/// take below.
const NOTIFICATION_DELAY_MS: &str = "4000";

/// What a call may take at most here: far below [`NOTIFICATION_DELAY_MS`], far above what an
/// answer over loopback takes even on a loaded machine.
const NOT_STALLED: Duration = Duration::from_secs(3);

/// The fault server's log entries that satisfy `pick`, polled until there are `count` of them
/// (or 20 s have passed).
async fn logged(url: &str, count: usize, pick: impl Fn(&Value) -> bool) -> Vec<Value> {
    let start = Instant::now();
    loop {
        let entries: Vec<Value> = log(url).await.into_iter().filter(&pick).collect();
        if entries.len() >= count || start.elapsed() > Duration::from_secs(20) {
            return entries;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Connects to the fault server at `url` and cancels a call the server holds, once it holds
/// it: the client then POSTs `notifications/cancelled`.
async fn cancel_a_held_call(url: &str) -> McpClient {
    let client = connect_mcp_tools(
        ConnectConfig::http(url)
            .with_name_prefix("f")
            .with_request_timeout(Duration::from_secs(20)),
    )
    .await
    .unwrap();
    let cancel = CancellationToken::new();
    let (held, ()) = tokio::join!(
        client
            .call_tool("echo")
            .arguments(args(json!({"message": HANG_MESSAGE})))
            .cancel_on(&cancel)
            .raw(),
        async {
            // Cancel once the server holds the call.
            assert_eq!(logged(url, 1, is_hang).await.len(), 1);
            cancel.cancel();
        }
    );
    assert!(held.as_ref().is_err_and(|e| e.is_cancelled()), "{held:?}");
    client
}

/// Whether a log entry is the call the fault server holds.
fn is_hang(entry: &Value) -> bool {
    entry["json"]["params"]["arguments"]["message"] == HANG_MESSAGE
}

/// A call cancelled while the server holds it sends `notifications/cancelled`, which this
/// server takes 4 s to accept; the next call, issued right after, is answered at once, and
/// the notification arrives all the same (with the cancelled request's id and the abort
/// reason).
#[tokio::test]
async fn a_slow_notification_endpoint_does_not_delay_the_next_call() {
    let server = faults(
        "hang-call",
        &["--notification-delay-ms", NOTIFICATION_DELAY_MS],
    );
    let url = server.url();
    let client = cancel_a_held_call(url).await;

    let started = Instant::now();
    let next = echo(&client, "after").await;
    let took = started.elapsed();
    assert_eq!((next.data.as_str(), next.is_error), ("Echo: after", false));
    assert!(
        took < NOT_STALLED,
        "the call took {took:?}: it waited behind `notifications/cancelled`, which the server \
         takes {NOTIFICATION_DELAY_MS} ms to accept"
    );

    let cancelled = logged(url, 1, |e| e["json"]["method"] == "notifications/cancelled").await;
    let hang_id = logged(url, 1, is_hang).await[0]["json"]["id"].clone();
    assert_eq!(
        cancelled
            .iter()
            .map(|e| e["json"]["params"].clone())
            .collect::<Vec<_>>(),
        [json!({"requestId": hang_id, "reason": "AbortError: This operation was aborted"})]
    );
    // The server recorded the second call before it accepted the notification sent first.
    let order: Vec<Value> = log(url)
        .await
        .iter()
        .filter(|e| e["method"] == "POST")
        .map(|e| {
            let message = &e["json"]["params"]["arguments"]["message"];
            if message.is_null() {
                e["json"]["method"].clone()
            } else {
                message.clone()
            }
        })
        .collect();
    assert_eq!(
        order,
        [
            json!("server/discover"),
            json!("tools/list"),
            json!(HANG_MESSAGE),
            json!("after"),
            json!("notifications/cancelled"),
        ]
    );
    client.disconnect().await;
}

/// A notification the server does not accept within [`NOTIFICATION_TIMEOUT`] (5 s; this
/// server takes 8 s) is abandoned with one warning, and the session goes on.
#[tokio::test]
async fn a_notification_is_abandoned_after_the_notification_timeout() {
    use tracing_subscriber::layer::SubscriberExt;
    assert_eq!(NOTIFICATION_TIMEOUT, Duration::from_secs(5));
    let capture = Capture::default();
    // A second live dispatcher, so callsites registered on another thread still ask this
    // thread's subscriber (see `typed::connect_checked_log_policy_emits_one_tracing_event_per_change`).
    let _second = tracing::Dispatch::new(tracing_subscriber::registry());
    let _guard =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(capture.clone()));
    let server = faults("hang-call", &["--notification-delay-ms", "8000"]);
    let url = server.url();
    let client = cancel_a_held_call(url).await;
    let sent = Instant::now();
    let warning = loop {
        let found: Vec<Captured> = capture
            .take()
            .into_iter()
            .filter(|e| e.level == tracing::Level::WARN)
            .collect();
        if !found.is_empty() || sent.elapsed() > Duration::from_secs(20) {
            break found;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let waited = sent.elapsed();
    assert_eq!(
        warning,
        [Captured {
            level: tracing::Level::WARN,
            target: "oma_mcp_runtime::connect::http".to_owned(),
            fields: vec![
                (
                    "message".to_owned(),
                    "the MCP server did not accept `notifications/cancelled` within 5s".to_owned()
                ),
                ("server".to_owned(), url.to_owned()),
            ],
        }]
    );
    // Not before the bound, and well before the server would have accepted it.
    assert!(
        waited >= Duration::from_millis(4900) && waited < Duration::from_millis(7900),
        "{waited:?}"
    );
    assert_eq!(echo(&client, "still").await.data, "Echo: still");
    client.disconnect().await;
}
