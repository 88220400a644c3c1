//! Protocol revisions and lifecycles (`Lifecycle::{Auto, Initialize, Discover}`): the
//! 2026-07-28 `server/discover` with per-request client context (SEP-2575) against the pinned
//! PyPI `mcp-server-time` and the own rmcp server, and the fallback to `initialize` against
//! server-everything (2025-11-25) and a raw 2025-06-18-only server.

use std::path::PathBuf;
use std::time::Duration;

use oma_mcp_runtime::error::ConnectError;
use oma_mcp_runtime::{ConnectConfig, Error, Lifecycle, connect_mcp_tools};
use serde_json::{Value, json};

use crate::{
    args, echo, everything_config, own, server_bin, shared_dir, tool_names, workspace_root,
};

/// A config for the pinned `mcp-server-time` (tests/servers/requirements.txt, installed by
/// `./scripts/test` into the git-ignored venv), or `None` after one line when it is missing.
fn time_config(test: &str) -> Option<ConnectConfig> {
    let bin: PathBuf = workspace_root().join("tests/servers/.venv/bin/mcp-server-time");
    if !bin.exists() {
        oma_mcp_test_support::skip(
            test,
            "mcp-server-time is not installed (run ./scripts/test, or `python3 -m venv \
             tests/servers/.venv && tests/servers/.venv/bin/pip install -r \
             tests/servers/requirements.txt`)",
        );
        return None;
    }
    Some(
        ConnectConfig::new(bin.to_string_lossy())
            .with_name_prefix("time")
            .with_request_timeout(Duration::from_secs(20)),
    )
}

/// The day of the week of a proleptic Gregorian date (Sakamoto's method).
fn day_of_week(year: i64, month: usize, day: i64) -> &'static str {
    const OFFSETS: [i64; 12] = [0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4];
    const NAMES: [&str; 7] = [
        "Sunday",
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
    ];
    let y = if month < 3 { year - 1 } else { year };
    let index = (y + y / 4 - y / 100 + y / 400 + OFFSETS[month - 1] + day).rem_euclid(7);
    NAMES[usize::try_from(index).unwrap()]
}

/// The same keys at every level (values aside): the shape of a recorded corpus result.
fn same_shape(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            a.keys().eq(b.keys()) && a.iter().zip(b.values()).all(|((_, x), y)| same_shape(x, y))
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_shape(x, y))
        }
        (a, b) => std::mem::discriminant(a) == std::mem::discriminant(b),
    }
}

#[test]
fn day_of_week_is_right() {
    assert_eq!(day_of_week(2026, 11, 29), "Sunday");
    assert_eq!(day_of_week(2026, 7, 28), "Tuesday");
    assert_eq!(day_of_week(2000, 2, 29), "Tuesday");
}

#[tokio::test]
async fn mcp_server_time_speaks_2026_07_28() {
    let Some(config) = time_config("mcp_server_time_speaks_2026_07_28") else {
        return;
    };
    let client = connect_mcp_tools(config).await.unwrap();
    assert_eq!(client.protocol_version(), "2026-07-28");
    assert_eq!(
        client.server_info(),
        Some(&json!({"name": "mcp-time", "version": "2026.10.19"}))
    );
    let names = tool_names(&client);
    assert_eq!(
        names,
        [
            ("time_get_current_time", "get_current_time"),
            ("time_convert_time", "convert_time")
        ]
    );
    // tools/list again and tools/call: the server answers them only with the client context.
    assert_eq!(client.list_tools_raw().await.unwrap().len(), 2);

    // 12:00 UTC is 21:00 the same day in Tokyo; neither zone has DST.
    let result = client
        .call_tool("convert_time")
        .arguments(args(
            json!({"source_timezone": "Etc/UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}),
        ))
        .raw()
        .await
        .unwrap();
    let source = result["structuredContent"]["source"]["datetime"]
        .as_str()
        .unwrap();
    let date = source.strip_suffix("T12:00:00+00:00").unwrap();
    let (year, month, day) = match date.split('-').collect::<Vec<_>>()[..] {
        [y, m, d] => (y.parse().unwrap(), m.parse().unwrap(), d.parse().unwrap()),
        _ => panic!("not a date: {date}"),
    };
    let weekday = day_of_week(year, month, day);
    let structured = json!({
        "source": {"timezone": "Etc/UTC", "datetime": format!("{date}T12:00:00+00:00"),
                   "day_of_week": weekday, "is_dst": false},
        "target": {"timezone": "Asia/Tokyo", "datetime": format!("{date}T21:00:00+09:00"),
                   "day_of_week": weekday, "is_dst": false},
        "time_difference": "+9.0h"
    });
    let expected = json!({
        "content": [{"type": "text", "text": serde_json::to_string_pretty(&structured).unwrap()}],
        "isError": false,
        // 2026-07-28 results say how to read them and who answered.
        "resultType": "complete",
        "structuredContent": structured,
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "mcp-time", "version": "2026.10.19"}}
    });
    assert_eq!(result, expected);
    let mapped = client
        .call_tool("convert_time")
        .arguments(args(
            json!({"source_timezone": "Etc/UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}),
        ))
        .mapped()
        .await;
    assert_eq!(
        (mapped.data.as_str(), mapped.is_error),
        (expected["content"][0]["text"].as_str().unwrap(), false)
    );

    if let Some(shared) = shared_dir() {
        let path = shared.join("corpus/results/mcp-server-time__convert_time__2.json");
        let recorded: Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        assert_eq!(
            &recorded["_source"]["serverInfo"],
            client.server_info().unwrap()
        );
        // The same fields in the same order as the recorded answer (another time and zones,
        // recorded over `initialize`: without the 2026-07-28 `resultType` and `_meta`).
        let mut legacy_shape = result.clone();
        let fields = legacy_shape.as_object_mut().unwrap();
        fields.shift_remove("resultType").unwrap();
        fields.shift_remove("_meta").unwrap();
        assert!(
            same_shape(&legacy_shape, &recorded["response"]["result"]),
            "{legacy_shape:#}\n{:#}",
            recorded["response"]["result"]
        );
    }
    client.disconnect().await;
}

#[tokio::test]
async fn mcp_server_time_also_has_initialize() {
    let Some(config) = time_config("mcp_server_time_also_has_initialize") else {
        return;
    };
    let client = connect_mcp_tools(config.with_lifecycle(Lifecycle::Initialize))
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), "2025-11-25");
    assert_eq!(
        client.server_info(),
        Some(&json!({"name": "mcp-time", "version": "2026.10.19"}))
    );
    assert_eq!(client.tools().len(), 2);
    let r = client
        .call_tool("get_current_time")
        .arguments(args(json!({"timezone": "Not/AZone"})))
        .mapped()
        .await;
    assert_eq!(
        (r.data.as_str(), r.is_error),
        (
            "Error executing tool get_current_time: Invalid timezone: 'No time zone found with \
             key Not/AZone'",
            true
        )
    );
    client.disconnect().await;
}

#[tokio::test]
async fn own_rmcp_server_is_modern_with_auto_and_legacy_with_initialize() {
    let client = connect_mcp_tools(own("normal")).await.unwrap();
    assert_eq!(client.protocol_version(), "2026-07-28");
    assert_eq!(
        client.server_info(),
        Some(&json!({"name": "oma-mcp-test-server", "version": "0.1.0"}))
    );
    let r = echo(&client, "modern").await;
    assert_eq!((r.data.as_str(), r.is_error), ("Echo: modern", false));
    client.disconnect().await;

    for lifecycle in [Lifecycle::Discover, Lifecycle::Initialize] {
        let client = connect_mcp_tools(own("normal").with_lifecycle(lifecycle))
            .await
            .unwrap();
        let expected = match lifecycle {
            Lifecycle::Initialize => "2025-11-25",
            _ => "2026-07-28",
        };
        assert_eq!(client.protocol_version(), expected, "{lifecycle:?}");
        let r = client
            .call_tool("add")
            .arguments(args(json!({"a": 2, "b": 3})))
            .mapped()
            .await;
        assert_eq!(r.data, "5", "{lifecycle:?}");
        client.disconnect().await;
    }
}

#[tokio::test]
async fn server_everything_falls_back_to_2025_11_25() {
    let Some(config) = everything_config("server_everything_falls_back_to_2025_11_25") else {
        return;
    };
    for lifecycle in [Lifecycle::Auto, Lifecycle::Initialize] {
        let client = connect_mcp_tools(config.clone().with_lifecycle(lifecycle))
            .await
            .unwrap();
        assert_eq!(client.protocol_version(), "2025-11-25", "{lifecycle:?}");
        assert_eq!(
            client.server_info().unwrap()["name"],
            "mcp-servers/everything"
        );
        let r = echo(&client, "legacy").await;
        assert_eq!(r.data, "Echo: legacy");
        client.disconnect().await;
    }
}

#[tokio::test]
async fn discover_only_against_server_everything_is_a_clear_error() {
    let Some(config) =
        everything_config("discover_only_against_server_everything_is_a_clear_error")
    else {
        return;
    };
    let command = format!("{} stdio", config.command);
    let err = connect_mcp_tools(config.with_lifecycle(Lifecycle::Discover))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Connect(ConnectError::Handshake { method, .. }) if method == "server/discover")
    );
    assert_eq!(err.rpc_code(), Some(-32601));
    let text = err.chain().to_string();
    // The server's stderr (its start-up line, when it was read in time) sits between the two.
    assert!(
        text.starts_with(&format!(
            "the MCP server/discover handshake with `{command}` failed"
        )),
        "{text}"
    );
    assert!(
        text.ends_with(
            ": the server does not speak the 2026-07-28 lifecycle (connect with \
             `ConnectConfig::with_lifecycle(Lifecycle::Auto)` or `Lifecycle::Initialize`; \
             manifest key `lifecycle`): MCP error -32601: Method not found"
        ),
        "{text}"
    );
}

#[tokio::test]
async fn a_2025_06_18_server_negotiates_2025_06_18() {
    let client = connect_mcp_tools(own("legacy-2025-06-18")).await.unwrap();
    assert_eq!(client.protocol_version(), "2025-06-18");
    assert_eq!(
        client.server_info(),
        Some(&json!({"name": "oma-mcp-test-server-raw", "version": "0.1.0"}))
    );
    let r = echo(&client, "old").await;
    assert_eq!(r.data, "Echo: old");
    client.disconnect().await;

    let err = connect_mcp_tools(own("legacy-2025-06-18").with_lifecycle(Lifecycle::Discover))
        .await
        .unwrap_err();
    assert_eq!(
        err.chain().to_string(),
        format!(
            "the MCP server/discover handshake with `{}` failed: the server does not speak the \
             2026-07-28 lifecycle (connect with `ConnectConfig::with_lifecycle(Lifecycle::Auto)` \
             or `Lifecycle::Initialize`; manifest key `lifecycle`): MCP error -32601: Method not \
             found",
            server_bin().to_string_lossy()
        )
    );
}
