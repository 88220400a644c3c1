//! A failure says what happened: a server gone mid-call, a program that is not an MCP
//! server, a start failure quoted with its cause, a server that stops reading its stdin; and
//! progress of a long call.

use std::time::Duration;

use oma_mcp_runtime::error::{DisconnectedError, RequestError};
use oma_mcp_runtime::{ConnectConfig, Error, Lifecycle, Progress, connect_mcp_tools};
use oma_mcp_test_server::{CRASH_STDERR, USAGE_ERROR_LINE};
use serde_json::json;

use crate::{args, own, server_bin};

fn command() -> String {
    server_bin().to_string_lossy().into_owned()
}

/// The call's error carries the exit status and the server's stderr, not only the contract's
/// `Connection closed`; the connection is gone afterwards.
#[tokio::test]
async fn a_server_that_exits_during_a_call_says_how_and_why() {
    let client = connect_mcp_tools(own("crash-on-call")).await.unwrap();
    let err = client
        .call_tool("echo")
        .arguments(args(json!({"message": "x"})))
        .raw()
        .await
        .unwrap_err();
    let expected = format!(
        "MCP error -32000: Connection closed: the MCP server `{}` went away during \
         `tools/call`; the server exited (exit status: 5); server stderr: {CRASH_STDERR}",
        command()
    );
    assert_eq!(err.chain().to_string(), expected);
    assert!(
        matches!(&err, Error::Disconnected(DisconnectedError::ServerExited { method, .. }) if method == "tools/call")
    );
    assert!(err.is_connection_lost());
    assert_eq!(err.rpc_code(), Some(-32000));
    assert_eq!(err.command(), Some(command().as_str()));
    let later = client
        .call_tool("echo")
        .arguments(args(json!({"message": "y"})))
        .mapped()
        .await;
    assert_eq!(later.data, "MCP tool \"echo\" failed: Not connected");
    client.disconnect().await;

    let client = connect_mcp_tools(own("crash-on-call")).await.unwrap();
    let result = client
        .call_tool("echo")
        .arguments(args(json!({"message": "x"})))
        .mapped()
        .await;
    assert_eq!(
        (result.data, result.is_error),
        (format!("MCP tool \"echo\" failed: {expected}"), true)
    );
    client.disconnect().await;
}

/// `cat` echoes every request back; our own `Method not found` answer comes back as its
/// answer: the error says it does not seem to be an MCP server.
#[cfg(unix)]
#[tokio::test]
async fn cat_is_not_an_mcp_server() {
    let err = connect_mcp_tools(ConnectConfig::new("cat"))
        .await
        .unwrap_err();
    assert_eq!(
        err.chain().to_string(),
        "the MCP server/discover handshake with `cat` failed: MCP error -32601: Method not \
         found; the fallback `initialize` handshake failed too: `cat` does not seem to be an MCP \
         server (it does not know `initialize`; check the command and its arguments): MCP error \
         -32601: Method not found"
    );
    assert_eq!(err.rpc_code(), Some(-32601));
    let err = connect_mcp_tools(ConnectConfig::new("cat").with_lifecycle(Lifecycle::Initialize))
        .await
        .unwrap_err();
    assert_eq!(
        err.chain().to_string(),
        "the MCP initialize handshake with `cat` failed: `cat` does not seem to be an MCP server \
         (it does not know `initialize`; check the command and its arguments): MCP error \
         -32601: Method not found"
    );
}

/// A server that prints its error, then 21 lines of usage, and exits: the quoted lines are
/// the first ones (with the cause) and the last ones, not only the usage's tail.
#[tokio::test]
async fn a_start_failure_quotes_the_cause_before_the_usage_text() {
    let err = connect_mcp_tools(own("usage-on-start").with_lifecycle(Lifecycle::Initialize))
        .await
        .unwrap_err();
    let flags = |range: std::ops::RangeInclusive<u32>| {
        range
            .map(|n| format!("  --flag-{n} string   the flag {n}"))
            .collect::<Vec<_>>()
            .join(" | ")
    };
    assert_eq!(
        err.chain().to_string(),
        format!(
            "the MCP initialize handshake with `{}` failed (the server exited (exit status: 2); \
             server stderr (15 of 22 lines: the first 5, those that look like errors, the last \
             10): {USAGE_ERROR_LINE} | Usage: | {} | … | {}): MCP error -32000: Connection closed",
            command(),
            flags(1..=3),
            flags(11..=20)
        )
    );
}

/// Under the default lifecycle a server that fails at start-up (here: a usage error before
/// reading anything) is started once, and the error quotes that one run's exit and stderr;
/// a server whose stderr names the lifecycle (`exit-on-discover`: "expected `initialize`")
/// is started again with `initialize`, as before.
#[tokio::test]
async fn a_server_that_fails_at_start_is_started_once() {
    let dir = tempfile::tempdir().unwrap();
    let starts = dir.path().join("starts");
    let with_log = |mode: &str| {
        own(mode).with_env(
            oma_mcp_test_server::START_LOG_VAR,
            starts.display().to_string(),
        )
    };
    let err = connect_mcp_tools(with_log("usage-on-start"))
        .await
        .unwrap_err();
    let flags = |range: std::ops::RangeInclusive<u32>| {
        range
            .map(|n| format!("  --flag-{n} string   the flag {n}"))
            .collect::<Vec<_>>()
            .join(" | ")
    };
    assert_eq!(
        err.chain().to_string(),
        format!(
            "the MCP server/discover handshake with `{}` failed (the server exited (exit status: \
             2); server stderr (15 of 22 lines: the first 5, those that look like errors, the \
             last 10): {USAGE_ERROR_LINE} | Usage: | {} | … | {}): MCP error -32000: Connection \
             closed",
            command(),
            flags(1..=3),
            flags(11..=20)
        )
    );
    assert_eq!(std::fs::read_to_string(&starts).unwrap(), "started\n");

    std::fs::remove_file(&starts).unwrap();
    let client = connect_mcp_tools(with_log("exit-on-discover"))
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), "2025-11-25");
    client.disconnect().await;
    assert_eq!(
        std::fs::read_to_string(&starts).unwrap(),
        "started\nstarted\n"
    );
}

/// A call with `.progress(..)` sends a `progressToken` and hands every
/// `notifications/progress` to the callback, in order, before returning the result; a plain
/// call sends no token (the server then sends no progress).
#[tokio::test]
async fn progress_of_a_long_call_reaches_the_caller() {
    let client = connect_mcp_tools(own("progress")).await.unwrap();
    let mut seen = Vec::new();
    let result = client
        .call_tool("slow_count")
        .arguments(args(json!({"steps": 4, "ms": 30})))
        .progress(|p: Progress| seen.push(p))
        .raw()
        .await
        .unwrap();
    assert_eq!(result["content"][0]["text"], "Counted to 4");
    let expected: Vec<(f64, Option<f64>, Option<String>)> = (1..=4)
        .map(|n| (f64::from(n), Some(4.0), Some(format!("step {n} of 4"))))
        .collect();
    let got: Vec<_> = seen
        .iter()
        .map(|p| (p.progress, p.total, p.message.clone()))
        .collect();
    assert_eq!(got, expected);
    assert_eq!(seen[1].fraction(), Some(0.5));

    // Two calls at once: each gets only its own progress.
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let (ra, rb) = tokio::join!(
        client
            .call_tool("slow_count")
            .arguments(args(json!({"steps": 2, "ms": 10})))
            .progress(|p| a.push(p.progress))
            .raw(),
        client
            .call_tool("slow_count")
            .arguments(args(json!({"steps": 3, "ms": 10})))
            .progress(|p| b.push(p.progress))
            .raw(),
    );
    assert_eq!(ra.unwrap()["content"][0]["text"], "Counted to 2");
    assert_eq!(rb.unwrap()["content"][0]["text"], "Counted to 3");
    assert_eq!((a, b), (vec![1.0, 2.0], vec![1.0, 2.0, 3.0]));

    let plain = client
        .call_tool("slow_count")
        .arguments(args(json!({"steps": 2, "ms": 10})))
        .mapped()
        .await;
    assert_eq!(plain.data, "Counted to 2");
    client.disconnect().await;
}

/// A `slow_count` call of `steps` notifications `ms` apart whose `on_progress` counts them,
/// blocks its thread for `block` each, and cancels the call at the `cancel_at`-th; the error
/// (within 10 s) and the count.
async fn cancelled_progress_call(
    client: &oma_mcp_runtime::McpClient,
    (steps, ms): (u64, u64),
    block: Duration,
    cancel_at: usize,
) -> (Error, usize) {
    let cancel = oma_mcp_runtime::CancellationToken::new();
    let mut seen = 0;
    let canceller = cancel.clone();
    let call = client
        .call_tool("slow_count")
        .arguments(args(json!({"steps": steps, "ms": ms})))
        .cancel_on(&cancel)
        .progress(|_| {
            seen += 1;
            std::thread::sleep(block);
            if seen == cancel_at {
                canceller.cancel();
            }
        })
        .raw();
    let err = tokio::time::timeout(Duration::from_secs(10), call)
        .await
        .unwrap()
        .unwrap_err();
    (err, seen)
}

/// A cancelled progress call stops at once; the session goes on.
#[tokio::test]
async fn a_progress_call_can_be_cancelled() {
    let client = connect_mcp_tools(own("progress")).await.unwrap();
    let (err, seen) = cancelled_progress_call(&client, (100, 20), Duration::ZERO, 2).await;
    assert_eq!(err.chain().to_string(), "This operation was aborted");
    assert_eq!(seen, 2);
    client.disconnect().await;
}

/// Progress that queued while the callback ran is not reported once it cancelled: the
/// reader runs on another worker thread while the callback blocks for 20 ms, and the server
/// sends a notification every millisecond.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_progress_is_reported_after_the_cancel() {
    let client = connect_mcp_tools(own("progress")).await.unwrap();
    let (err, seen) =
        cancelled_progress_call(&client, (1000, 1), Duration::from_millis(20), 1).await;
    assert_eq!(err.chain().to_string(), "This operation was aborted");
    assert_eq!(seen, 1);
    client.disconnect().await;
}

/// The request timeout holds while a slow `on_progress` falls behind a fast server: the
/// queued progress does not keep the failed call open (5,000 notifications 1 ms apart, the
/// answer after at least 5 s; 20 ms in the callback each; a 2 s timeout).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_progress_callback_does_not_hold_the_timeout() {
    let timeout = Duration::from_secs(2);
    let client = connect_mcp_tools(own("progress").with_request_timeout(timeout))
        .await
        .unwrap();
    let mut seen = 0;
    let start = std::time::Instant::now();
    let err = client
        .call_tool("slow_count")
        .arguments(args(json!({"steps": 5000, "ms": 1})))
        .progress(|_| {
            seen += 1;
            std::thread::sleep(Duration::from_millis(20));
        })
        .raw()
        .await
        .unwrap_err();
    let took = start.elapsed();
    assert_eq!(
        err.chain().to_string(),
        "MCP error -32001: Request timed out"
    );
    assert!(took >= timeout, "{took:?}");
    // The timeout is seen after the callback running then; 2 s of slack for a loaded machine.
    assert!(
        took < timeout + Duration::from_secs(2),
        "{took:?} ({seen} reported)"
    );
    assert!(seen < 5000, "{seen}");
    client.disconnect().await;
}

/// A server that stops reading its stdin (`drip` reads nothing while it answers, here one byte
/// every 10 minutes): lines wait for it up to `MAX_STDIN_BACKLOG`; the request that would pass
/// it fails at once and is not sent, the waiting ones keep their timeout, and nothing stays
/// pending.
#[tokio::test]
async fn a_server_that_does_not_read_its_stdin_bounds_what_waits() {
    const CHUNK: usize = 9 << 20;
    // Long enough for eight 9 MiB requests to be serialized (a debug build, a loaded machine)
    // before the first one times out.
    let timeout = Duration::from_secs(15);
    let client = std::sync::Arc::new(
        connect_mcp_tools(own("drip").with_request_timeout(timeout))
            .await
            .unwrap(),
    );
    let call = |name: &'static str, arguments: serde_json::Value| {
        let client = client.clone();
        tokio::spawn(async move {
            client
                .call_tool(name)
                .arguments(args(arguments))
                .raw()
                .await
        })
    };
    let dripping = call("drip", json!({"ms": 600_000}));
    // The server reads the drip call, then nothing more.
    while client.pending_requests() < 1 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let big = "x".repeat(CHUNK);
    let mut waiting = Vec::new();
    for _ in 0..7 {
        waiting.push(call("echo", json!({"message": big})));
        while client.pending_requests() < 1 + waiting.len() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
    // 7 × 9 MiB wait (less the pipe's 64 KiB and what the server's 8 KiB stdin buffer took
    // if it read the drip call late); 9 MiB more would pass 64 MiB.
    let refused = client
        .call_tool("echo")
        .arguments(args(json!({"message": big})))
        .raw()
        .await
        .unwrap_err();
    let Error::Request(RequestError::ServerNotReading {
        command: ref server,
        waiting: bytes,
        limit,
    }) = refused
    else {
        panic!("expected ServerNotReading, got {refused:?}");
    };
    assert_eq!(
        (server.as_str(), limit),
        (
            command().as_str(),
            oma_mcp_runtime::connect::MAX_STDIN_BACKLOG
        )
    );
    let line = 7 * (CHUNK + 200);
    assert!(
        (7 * CHUNK - 72 * 1024..line).contains(&bytes),
        "{bytes} bytes wait"
    );
    assert_eq!(
        refused.to_string(),
        format!(
            "the MCP server `{}` does not read its stdin: {bytes} bytes already wait to be \
             written and this request would pass the limit of 67108864 bytes, so it was not \
             sent; the server is stuck or busy (retry later, or restart it)",
            command()
        )
    );
    assert_eq!(client.pending_requests(), 8);
    for handle in waiting.into_iter().chain([dripping]) {
        let err = handle.await.unwrap().unwrap_err();
        assert_eq!(err.to_string(), "MCP error -32001: Request timed out");
    }
    assert_eq!(client.pending_requests(), 0);
    std::sync::Arc::into_inner(client)
        .expect("the calls are done")
        .disconnect()
        .await;
}
