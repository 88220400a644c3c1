//! Reaching every server that speaks MCP with `Lifecycle::Auto`: one that exits when its first
//! message is not `initialize`, one that starts slowly and answers `server/discover` late,
//! one that ignores `server/discover`, one that writes a byte-order mark before its messages.

use std::time::Duration;

use oma_mcp_runtime::{Lifecycle, connect_mcp_tools};
use oma_mcp_test_server::{EXIT_ON_DISCOVER_STDERR, START_DELAY_VAR};

use crate::{echo, own, server_bin};

fn command() -> String {
    server_bin().to_string_lossy().into_owned()
}

/// `Auto` sees the server exit after `server/discover`, starts it again with `initialize`
/// and connects; `Initialize` needs no restart; `Discover` fails, saying how.
#[tokio::test]
async fn a_server_that_exits_on_a_first_message_other_than_initialize_is_reached() {
    for lifecycle in [Lifecycle::Auto, Lifecycle::Initialize] {
        let client = connect_mcp_tools(own("exit-on-discover").with_lifecycle(lifecycle))
            .await
            .unwrap();
        assert_eq!(client.protocol_version(), "2025-11-25", "{lifecycle:?}");
        assert_eq!(echo(&client, "back").await.data, "Echo: back");
        client.disconnect().await;
    }
    let err = connect_mcp_tools(own("exit-on-discover").with_lifecycle(Lifecycle::Discover))
        .await
        .unwrap_err();
    assert_eq!(
        err.chain().to_string(),
        format!(
            "the MCP server/discover handshake with `{}` failed (the server exited (exit status: \
             1); server stderr: {EXIT_ON_DISCOVER_STDERR}): MCP error -32000: Connection closed",
            command()
        )
    );
}

/// A 2026-07-28 server that starts after the probe bound (2 s here) and refuses
/// `initialize` with -32022 still connects on 2026-07-28: its late answer to
/// `server/discover` wins over the `initialize` sent meanwhile.
#[tokio::test]
async fn a_slow_2026_server_answering_discover_late_connects_on_its_revision() {
    let config = own("modern").with_env(START_DELAY_VAR, "2600");
    let client = connect_mcp_tools(config).await.unwrap();
    assert_eq!(client.protocol_version(), "2026-07-28");
    assert_eq!(
        client.server_info().and_then(|i| i.get("name")),
        Some(&serde_json::json!("oma-mcp-test-server-raw"))
    );
    assert_eq!(echo(&client, "late").await.data, "Echo: late");
    client.disconnect().await;
}

/// A server that answers both `server/discover` and `initialize` negotiates 2026-07-28
/// whether it starts at once or after the probe bound: the revision does not depend on
/// speed.
#[tokio::test]
async fn the_revision_of_a_dual_server_does_not_depend_on_its_start_up_time() {
    for delay in ["0", "2600"] {
        let config = own("dual").with_env(START_DELAY_VAR, delay);
        let client = connect_mcp_tools(config).await.unwrap();
        assert_eq!(
            client.protocol_version(),
            "2026-07-28",
            "start delay {delay} ms"
        );
        client.disconnect().await;
    }
}

/// A server that never answers `server/discover` is reached through the `initialize` sent
/// after the probe bound, within the one connect deadline (4 s here: the probe bound is
/// half of it).
#[tokio::test]
async fn a_server_that_ignores_discover_is_reached_through_initialize() {
    let config = own("ignore-discover").with_request_timeout(Duration::from_secs(4));
    let client = connect_mcp_tools(config).await.unwrap();
    assert_eq!(client.protocol_version(), "2025-11-25");
    assert_eq!(echo(&client, "x").await.data, "Echo: x");
    client.disconnect().await;
}

/// A byte-order mark (U+FEFF) before every message costs nothing: the handshake, the tool
/// list and a call all go through.
#[tokio::test]
async fn a_byte_order_mark_before_messages_is_tolerated() {
    let client = connect_mcp_tools(own("bom")).await.unwrap();
    assert_eq!(client.protocol_version(), "2025-11-25");
    assert_eq!(client.tools().len(), 2);
    assert_eq!(echo(&client, "bom").await.data, "Echo: bom");
    client.disconnect().await;
}
