//! Workspace integration tests: `oma-mcp-runtime`'s stdio client against the project's own
//! test server (`oma-mcp-test-server`, every `OMA_TEST_SERVER_MODE`) and the pinned
//! `@modelcontextprotocol/server-everything`; `typed` calls both through the code `build.rs`
//! generates from `tests/oma-mcp.toml` and checks that their committed snapshots are current;
//! `filesystem` runs the pinned `@modelcontextprotocol/server-filesystem` through the typed
//! markers, the tool layer and its consequential-confirmation gate.
//!
//! Run with `cargo test -p oma-mcp-test-server`. The server-everything tests need
//! `npm ci --prefix tests/servers` and `node`; without them they print one line and pass.
//! Parts that compare with the shared reference folder's real-server corpus skip them with one
//! line when it is absent, and fail instead under `CI` ([`shared_dir`]).

#![allow(clippy::unwrap_used)]

mod bad_servers;
mod everything;
mod failures;
mod filesystem;
mod hostile;
mod lifecycle;
mod own_server;
mod protocol;
mod reach;
mod replayed_cases;
mod tool_layer;
mod typed;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use oma_mcp_runtime::{ConnectConfig, McpClient, ToolResult};
use serde_json::{Map, Value};

/// The test server binary (built by `cargo test` for this package).
pub fn server_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_oma-mcp-test-server"))
}

/// A config for the own test server in `mode` (`"normal"` for the rmcp server).
pub fn own(mode: &str) -> ConnectConfig {
    ConnectConfig::new(server_bin().to_string_lossy())
        .with_env(oma_mcp_test_server::MODE_VAR, mode)
        .with_request_timeout(Duration::from_secs(20))
}

/// The workspace root (`tests/..`).
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The shared reference folder (real-server corpus); `None` after one printed line when it is
/// absent, a test failure under `CI` (see `oma_mcp_test_support::shared_dir`).
pub use oma_mcp_test_support::shared_dir;

/// JSON object arguments from a `json!` literal.
pub fn args(value: Value) -> Option<Map<String, Value>> {
    match value {
        Value::Object(map) => Some(map),
        _ => panic!("arguments must be an object"),
    }
}

/// The mapped result of the `echo` tool (own server and server-everything) with `message`.
pub async fn echo(client: &McpClient, message: &str) -> ToolResult {
    client
        .call_tool("echo", args(serde_json::json!({ "message": message })))
        .await
}

/// `(name, mcp_name)` of every discovered tool, in the client's order.
pub fn tool_names(client: &McpClient) -> Vec<(&str, &str)> {
    client
        .tools()
        .iter()
        .map(|t| (t.name.as_str(), t.mcp_name.as_str()))
        .collect()
}

/// Whether the process `pid` exists and is not a zombie.
pub fn alive(pid: u32) -> bool {
    #[cfg(target_os = "linux")]
    {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            // The state follows the parenthesized command name.
            Ok(stat) => stat
                .rsplit_once(')')
                .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')),
            Err(_) => false,
        }
    }
    #[cfg(all(unix, not(target_os = "linux")))]
    {
        let pid = rustix::process::Pid::from_raw(pid as i32).unwrap();
        rustix::process::test_kill_process(pid).is_ok()
    }
}

/// Waits up to 5 s for `pid` to be gone; `true` when it is.
pub async fn gone_within_5s(pid: u32) -> bool {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(5) {
        if !alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

/// Logs to the test output when `RUST_LOG` is set (e.g. `RUST_LOG=oma_mcp=debug`).
pub fn init_tracing() {
    if std::env::var_os("RUST_LOG").is_some() {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_test_writer()
            .try_init();
    }
}

/// The pinned npm server binary `tests/servers/node_modules/.bin/<bin>`, or `None` after one
/// line on stderr when `npm ci --prefix tests/servers` has not run or `node` is missing.
pub fn npm_server(test: &str, bin: &str) -> Option<PathBuf> {
    let path = workspace_root()
        .join("tests/servers/node_modules/.bin")
        .join(bin);
    if !path.exists() {
        eprintln!("skipping {test}: {bin} is not installed (run `npm ci --prefix tests/servers`)");
        return None;
    }
    let node = std::process::Command::new("node").arg("--version").output();
    if !node.is_ok_and(|o| o.status.success()) {
        eprintln!("skipping {test}: `node` is not on PATH");
        return None;
    }
    Some(path)
}

/// A config for server-everything as `tests/oma-mcp.toml` pins it
/// (`tests/servers/node_modules/.bin/mcp-server-everything stdio`), or `None` as
/// [`npm_server`] says.
pub fn everything_config(test: &str) -> Option<ConnectConfig> {
    let bin = npm_server(test, "mcp-server-everything")?;
    Some(
        ConnectConfig::new(bin.to_string_lossy())
            .with_args(["stdio"])
            .with_cwd(workspace_root().join("tests/servers"))
            .with_name_prefix("everything")
            .with_request_timeout(Duration::from_secs(20)),
    )
}
