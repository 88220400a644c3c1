//! Misbehaving servers (own test server modes): exact errors, never a hang.

use std::time::{Duration, Instant};

use oma_mcp_runtime::error::{ConnectError, ProtocolError, RequestError};
use oma_mcp_runtime::{ConnectConfig, Error, Lifecycle, connect_mcp_tools};
use serde_json::json;

use crate::{args, echo, own, server_bin, tool_names};

fn command() -> String {
    server_bin().to_string_lossy().into_owned()
}

#[tokio::test]
async fn spawn_failure_names_the_command() {
    let err =
        connect_mcp_tools(ConnectConfig::new("/nonexistent/oma-mcp-server").with_args(["stdio"]))
            .await
            .unwrap_err();
    assert!(matches!(err, Error::Connect(ConnectError::Spawn { .. })));
    let text = err.chain().to_string();
    assert!(
        text.starts_with(
            "cannot start the MCP server `/nonexistent/oma-mcp-server stdio` (check that the \
             command path is right and that the server is installed; a pinned npm server: run \
             `npm ci` where its package-lock.json is): "
        ),
        "{text}"
    );
    // The OS error once, as the source, not also in the message.
    let source = std::error::Error::source(&err).map(ToString::to_string);
    assert_eq!(
        text.matches(source.as_deref().unwrap_or("no source"))
            .count(),
        1,
        "{text}"
    );
}

#[tokio::test]
async fn exit_during_handshake() {
    let err = connect_mcp_tools(own("exit-on-initialize"))
        .await
        .unwrap_err();
    assert!(err.is_connection_lost());
    // `Lifecycle::Auto`: `server/discover` got -32601, so the fallback `initialize` ran.
    assert_eq!(
        err.chain().to_string(),
        format!(
            "the MCP server/discover handshake with `{}` failed (the server exited (exit status: \
             3); server stderr: fatal: this server refuses to initialize): MCP error -32601: \
             Method not found; the fallback `initialize` handshake failed too: MCP error -32000: \
             Connection closed",
            command()
        )
    );
    let err = connect_mcp_tools(own("exit-on-initialize").with_lifecycle(Lifecycle::Initialize))
        .await
        .unwrap_err();
    assert!(err.is_connection_lost());
    assert_eq!(
        err.chain().to_string(),
        format!(
            "the MCP initialize handshake with `{}` failed (the server exited (exit status: 3); \
             server stderr: fatal: this server refuses to initialize): MCP error -32000: \
             Connection closed",
            command()
        )
    );
}

#[cfg(unix)]
#[tokio::test]
async fn a_server_killed_during_the_handshake_says_so() {
    let config = oma_mcp_runtime::ConnectConfig::new("sh")
        .with_args(["-c", "read line; kill -9 $$"])
        .with_lifecycle(Lifecycle::Initialize);
    let err = connect_mcp_tools(config).await.unwrap_err();
    assert_eq!(
        err.chain().to_string(),
        "the MCP initialize handshake with `sh -c \"read line; kill -9 $$\"` failed (the server \
         was killed (signal: 9 (SIGKILL))): MCP error -32000: Connection closed"
    );
}

#[tokio::test]
async fn handshake_timeout() {
    let start = Instant::now();
    let err =
        connect_mcp_tools(own("never-answer").with_request_timeout(Duration::from_millis(300)))
            .await
            .unwrap_err();
    assert!(err.is_timeout());
    // `Lifecycle::Auto`: `server/discover` got no answer within the 300 ms deadline, nor did
    // the `initialize` sent after 150 ms (the probe bound).
    assert_eq!(
        err.chain().to_string(),
        format!(
            "the MCP server/discover handshake with `{}` failed: MCP error -32001: Request timed \
             out; the fallback `initialize` handshake failed too: MCP error -32001: Request timed \
             out",
            command()
        )
    );
    // The server exits on stdin EOF, so no signal grace period is needed.
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
    for (lifecycle, method) in [
        (Lifecycle::Initialize, "initialize"),
        (Lifecycle::Discover, "server/discover"),
    ] {
        let config = own("never-answer")
            .with_request_timeout(Duration::from_millis(300))
            .with_lifecycle(lifecycle);
        let err = connect_mcp_tools(config).await.unwrap_err();
        assert!(err.is_timeout());
        assert_eq!(
            err.chain().to_string(),
            format!(
                "the MCP {method} handshake with `{}` failed: MCP error -32001: Request timed out",
                command()
            )
        );
    }
}

/// `request_timeout` bounds connect as a whole: with `Lifecycle::Auto`, `server/discover` is
/// awaited until the deadline, and the `initialize` sent after half of it (the probe bound)
/// shares the same deadline (not a fresh timeout).
#[tokio::test]
async fn auto_lifecycle_shares_one_deadline() {
    // Long enough that the two behaviours are seconds apart on a loaded machine.
    let timeout = Duration::from_secs(4);
    let start = Instant::now();
    let err = connect_mcp_tools(own("never-answer").with_request_timeout(timeout))
        .await
        .unwrap_err();
    let took = start.elapsed();
    assert_eq!(
        err.chain().to_string(),
        format!(
            "the MCP server/discover handshake with `{}` failed: MCP error -32001: Request timed \
             out; the fallback `initialize` handshake failed too: MCP error -32001: Request timed \
             out",
            command()
        )
    );
    let Error::Connect(ConnectError::Handshake { method, source, .. }) = &err else {
        panic!("not a handshake error: {err:?}");
    };
    assert_eq!(method, "server/discover");
    let Error::Connect(ConnectError::FallbackFailed {
        discover, fallback, ..
    }) = source.as_ref()
    else {
        panic!("not a failed fallback: {source:?}");
    };
    assert!(
        matches!(discover.as_ref(), Error::Request(RequestError::Timeout { method, timeout: t, .. })
            if method == "server/discover" && *t == timeout),
        "{discover:?}"
    );
    assert!(
        matches!(fallback.as_ref(), Error::Request(RequestError::Timeout { method, timeout: t, .. })
            if method == "initialize" && *t == timeout),
        "{fallback:?}"
    );
    // A fresh deadline for `initialize` would take the probe bound (2 s) plus 4 s.
    assert!(took >= timeout, "{took:?}");
    assert!(took < timeout + Duration::from_millis(1500), "{took:?}");
}

#[tokio::test]
async fn handshake_json_rpc_error_and_bad_version() {
    let err = connect_mcp_tools(own("error-on-initialize"))
        .await
        .unwrap_err();
    assert_eq!(err.rpc_code(), Some(-32603));
    assert_eq!(
        err.chain().to_string(),
        format!(
            "the MCP server/discover handshake with `{}` failed: MCP error -32601: Method not \
             found; the fallback `initialize` handshake failed too: MCP error -32603: initialize \
             is broken on purpose",
            command()
        )
    );
    let err = connect_mcp_tools(own("error-on-initialize").with_lifecycle(Lifecycle::Initialize))
        .await
        .unwrap_err();
    assert_eq!(
        err.chain().to_string(),
        format!(
            "the MCP initialize handshake with `{}` failed: MCP error -32603: initialize is broken on purpose",
            command()
        )
    );
    let err = connect_mcp_tools(own("bad-protocol-version"))
        .await
        .unwrap_err();
    assert_eq!(
        err.chain().to_string(),
        format!(
            "the MCP server/discover handshake with `{0}` failed: MCP error -32601: Method not \
             found; the fallback `initialize` handshake failed too: the MCP server `{0}` sent an \
             invalid `initialize` response: Server's protocol version is not supported: 1999-01-01",
            command()
        )
    );
}

#[tokio::test]
async fn repeated_cursor_stops_with_a_clear_error() {
    let err = connect_mcp_tools(own("repeat-cursor")).await.unwrap_err();
    assert!(
        matches!(&err, Error::Protocol(ProtocolError::RepeatedCursor { cursor, .. }) if cursor == "again")
    );
    assert_eq!(
        err.chain().to_string(),
        format!(
            "the MCP server `{}` repeated the tools/list cursor \"again\"; stopped paging instead \
             of looping forever (this is a server bug)",
            command()
        )
    );
}

#[tokio::test]
async fn two_pages_keep_every_field() {
    let client = connect_mcp_tools(own("two-pages").with_name_prefix("p"))
        .await
        .unwrap();
    let names = tool_names(&client);
    assert_eq!(
        names,
        [("p_alpha", "alpha"), ("p_beta_nested", "beta/nested")]
    );
    let beta = &client.tools()[1].descriptor;
    assert_eq!(beta["execution"], json!({"taskSupport": "optional"}));
    assert_eq!(beta["x-vendor"], json!({"kept": true}));
    assert_eq!(
        client.server_info(),
        Some(&json!({"name": "oma-mcp-test-server-raw", "version": "0.1.0"}))
    );
    client.disconnect().await;
}

#[tokio::test]
async fn name_collision() {
    let err = connect_mcp_tools(own("colliding-names")).await.unwrap_err();
    assert_eq!(
        err.chain().to_string(),
        "Duplicate MCP tool name after normalization: \"a_b\" from \"a/b\" and \"a_b\"."
    );
}

#[tokio::test]
async fn non_json_stdout_lines_are_skipped() {
    let client = connect_mcp_tools(own("stdout-noise")).await.unwrap();
    assert_eq!(client.tools().len(), 2);
    for message in ["one", "two"] {
        let r = echo(&client, message).await;
        assert_eq!(r.data, format!("Echo: {message}"));
    }
    client.disconnect().await;
}

#[tokio::test]
async fn stderr_flood_does_not_block() {
    let client =
        connect_mcp_tools(own("stderr-flood").with_request_timeout(Duration::from_secs(10)))
            .await
            .unwrap();
    let r = echo(&client, "still here").await;
    assert_eq!(r.data, "Echo: still here");
    client.disconnect().await;
}

#[tokio::test]
async fn server_requests_are_answered() {
    let client = connect_mcp_tools(own("stdout-noise")).await.unwrap();
    let r = client.call_tool("probe_client").mapped().await;
    assert_eq!(
        r.data,
        r#"[{"jsonrpc":"2.0","id":"s-ping","result":{}},{"jsonrpc":"2.0","id":"s-sample","error":{"code":-32601,"message":"Method not found"}}]"#
    );
    client.disconnect().await;
}

#[tokio::test]
async fn call_timeout_is_the_contract_text_and_the_session_goes_on() {
    // The timeout also bounds the spawn and the handshake: 2 s leaves room on a loaded machine.
    let client = connect_mcp_tools(own("normal").with_request_timeout(Duration::from_secs(2)))
        .await
        .unwrap();
    let err = client
        .call_tool("sleep")
        .arguments(args(json!({"ms": 10_000})))
        .raw()
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Request(RequestError::Timeout { method, timeout, .. })
        if method == "tools/call" && *timeout == Duration::from_secs(2))
    );
    assert_eq!(
        err.chain().to_string(),
        "MCP error -32001: Request timed out"
    );
    let r = client
        .call_tool("sleep")
        .arguments(args(json!({"ms": 10_000})))
        .mapped()
        .await;
    assert_eq!(
        (r.data.as_str(), r.is_error),
        (
            "MCP tool \"sleep\" failed: MCP error -32001: Request timed out",
            true
        )
    );
    let r = echo(&client, "after").await;
    assert_eq!(r.data, "Echo: after");
    client.disconnect().await;
}

#[tokio::test]
async fn server_exit_mid_call_then_not_connected() {
    let client = connect_mcp_tools(own("normal")).await.unwrap();
    let r = client
        .call_tool("exit")
        .arguments(args(json!({"code": 0})))
        .mapped()
        .await;
    assert_eq!(
        (r.data, r.is_error),
        (
            format!(
                "MCP tool \"exit\" failed: MCP error -32000: Connection closed: the MCP server \
                 `{}` went away during `tools/call`; the server exited (exit status: 0)",
                command()
            ),
            true
        )
    );
    let err = client
        .call_tool("echo")
        .arguments(args(json!({"message": "x"})))
        .raw()
        .await
        .unwrap_err();
    assert_eq!(err.chain().to_string(), "Not connected");
    assert!(err.is_connection_lost());
    let err = client.list_tools_raw().await.unwrap_err();
    assert_eq!(err.chain().to_string(), "Not connected");
    client.disconnect().await;
}

#[tokio::test]
async fn message_too_large_fails_the_call_and_the_session_goes_on() {
    let client = connect_mcp_tools(own("normal").with_max_message_size(64 * 1024))
        .await
        .unwrap();
    let err = client
        .call_tool("big")
        .arguments(args(json!({"bytes": 100_000})))
        .raw()
        .await
        .unwrap_err();
    assert_eq!(
        err.chain().to_string(),
        "the MCP server sent a message larger than the limit of 65536 bytes; raise it with \
         `ConnectConfig::with_max_message_size` (manifest key `max-message-bytes`)"
    );
    let r = client
        .call_tool("big")
        .arguments(args(json!({"bytes": 10})))
        .mapped()
        .await;
    assert_eq!(r.data, "xxxxxxxxxx");
    client.disconnect().await;
}

/// An oversized answer whose `id` is in its first bytes fails only its own request; a huge
/// notification fails none; one whose `id` comes last (the TypeScript SDK's order) cannot be
/// attributed, so every pending request fails.
#[tokio::test]
async fn an_oversized_answer_fails_only_its_request_when_its_id_is_readable() {
    let limit = 64 * 1024;
    let client = connect_mcp_tools(own("huge-line").with_max_message_size(limit))
        .await
        .unwrap();
    let too_large = format!(
        "the MCP server sent a message larger than the limit of {limit} bytes; raise it with \
         `ConnectConfig::with_max_message_size` (manifest key `max-message-bytes`)"
    );
    let kept =
        |message: &str| json!({"content": [{"type": "text", "text": format!("Echo: {message}")}]});

    // `join!` polls (and so sends) `deferred` first.
    let (deferred, huge) = tokio::join!(
        client
            .call_tool("deferred")
            .arguments(args(json!({"message": "one"})))
            .raw(),
        client
            .call_tool("huge_id_first")
            .arguments(args(json!({"message": "x"})))
            .raw(),
    );
    assert_eq!(huge.unwrap_err().chain().to_string(), too_large);
    assert_eq!(deferred.unwrap(), kept("one"));

    let (deferred, huge) = tokio::join!(
        client
            .call_tool("deferred")
            .arguments(args(json!({"message": "two"})))
            .raw(),
        client
            .call_tool("huge_notification")
            .arguments(args(json!({"message": "n"})))
            .raw(),
    );
    assert_eq!(huge.unwrap(), kept("n"));
    assert_eq!(deferred.unwrap(), kept("two"));

    let (deferred, huge) = tokio::join!(
        client
            .call_tool("deferred")
            .arguments(args(json!({"message": "three"})))
            .raw(),
        client
            .call_tool("huge_id_last")
            .arguments(args(json!({"message": "x"})))
            .raw(),
    );
    assert_eq!(huge.unwrap_err().chain().to_string(), too_large);
    assert_eq!(deferred.unwrap_err().chain().to_string(), too_large);

    // The session goes on.
    let (deferred, huge) = tokio::join!(
        client
            .call_tool("deferred")
            .arguments(args(json!({"message": "four"})))
            .raw(),
        client
            .call_tool("huge_notification")
            .arguments(args(json!({"message": "m"})))
            .raw(),
    );
    assert_eq!(huge.unwrap(), kept("m"));
    assert_eq!(deferred.unwrap(), kept("four"));
    client.disconnect().await;
}

/// Each `tools/list` page is bounded by the request timeout: a server that answers the
/// handshake and the first page but never the second fails connect with the contract's timeout
/// text.
#[tokio::test]
async fn a_tools_list_page_that_never_comes_times_out() {
    let timeout = Duration::from_secs(3);
    let start = Instant::now();
    let err = connect_mcp_tools(own("stall-second-page").with_request_timeout(timeout))
        .await
        .unwrap_err();
    let took = start.elapsed();
    assert!(
        matches!(&err, Error::Request(RequestError::Timeout { method, timeout: t, .. }) if method == "tools/list" && *t == timeout),
        "{err:?}"
    );
    assert_eq!(
        err.chain().to_string(),
        "MCP error -32001: Request timed out"
    );
    assert!(took >= timeout, "{took:?}");
    assert!(took < timeout + Duration::from_secs(5), "{took:?}");
}
