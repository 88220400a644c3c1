//! Workspace integration tests: `oma-mcp-runtime`'s stdio client against the project's own
//! test server (`oma-mcp-test-server`, every `OMA_TEST_SERVER_MODE`) and the pinned
//! `@modelcontextprotocol/server-everything`; `calls` checks every setting and ending of the
//! call builder against the own server; `typed` calls both through the code `build.rs`
//! generates from `tests/oma-mcp.toml` and checks that their committed snapshots are current;
//! `filesystem` runs the pinned `@modelcontextprotocol/server-filesystem` through the typed
//! markers, the tool layer and its consequential-confirmation gate. `invalid_entries`
//! connects to a server whose `tools/list` has entries that are not tool objects.
//!
//! `http_servers` and `http_faults` check the HTTP servers themselves (the test server over
//! streamable HTTP, `oma-mcp-http-faults` in every mode, server-everything's `streamableHttp`)
//! with plain HTTP requests over loopback (`raw_http`), started by
//! `oma_mcp_test_support::spawn_http_server`. `http_client` runs the client's stdio tests that
//! make sense over HTTP against those servers (stateful and stateless, each lifecycle), and
//! `http_client_faults` runs it against every fault, reading what it sent from the fault
//! server's `GET /_log` (`http_client_sends`: what it sends when nothing fails);
//! `http_client_notifications` checks that a server slow to accept
//! notifications holds up no call, and `http_client_legacy` that a stateful server from
//! before 2026-07-28 that rejects `server/discover` with an HTTP status is reached through
//! `initialize`. `oauth` runs the client's OAuth flows (feature `oauth`) against the fault
//! server's authorization server (`--mode oauth`) and each of its `oauth-*` faults, and
//! `oauth_refused` checks what a connection without a usable token is told, `oauth_pinned`
//! that the generated code of a pin with nothing but its `url` uses the stored login; `oidc` runs
//! them, through the code generated for the pin `oidc`, against `oidc-provider`, a certified
//! OpenID provider (`tests/servers/oidc-login.mjs`).
//!
//! `soak` runs connect → call → disconnect cycles (also against a server that ignores EOF and
//! SIGTERM and starts a grandchild), thousands of calls on one connection with timeouts and
//! cancellations at random, a flood of notifications and an answer written one byte per
//! second, each in a child process that checks its processes, file descriptors and memory:
//! short sizes here, full sizes as ignored tests (see its module docs).
//!
//! Run with `cargo test -p oma-mcp-test-server`. The server-everything tests need
//! `npm ci --prefix tests/servers` and `node`; without them they print one line and pass.
//! Parts that compare with the shared reference folder's real-server corpus skip them with one
//! line when it is absent, and fail instead under `CI` ([`shared_dir`]).

#![allow(clippy::unwrap_used)]

mod bad_servers;
mod calls;
mod everything;
mod failures;
mod fake;
mod fastmcp;
mod filesystem;
mod guide;
mod guide_snippets;
mod hostile;
mod http_client;
mod http_client_answers;
mod http_client_faults;
mod http_client_legacy;
mod http_client_notifications;
mod http_client_sends;
mod http_faults;
mod http_servers;
mod invalid_entries;
mod lifecycle;
mod oauth;
mod oauth_pinned;
mod oauth_refused;
mod offers;
mod oidc;
mod own_server;
mod protocol;
mod quarantine;
mod raw_http;
mod reach;
mod replayed_cases;
mod rig;
mod soak;
mod tasks;
mod tool_layer;
mod typed;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use oma_mcp_runtime::{ConnectConfig, McpClient, ToolResult};
use oma_mcp_test_support::{HttpServer, Ready, free_port, spawn_http_server};
use serde_json::{Map, Value};

/// The test server binary (built by `cargo test` for this package).
pub fn server_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_oma-mcp-test-server"))
}

/// The fault server binary (built by `cargo test` for this package).
pub fn faults_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_oma-mcp-http-faults"))
}

/// How long an HTTP server may take to print its `listening on` line.
pub const HTTP_READY: Duration = Duration::from_secs(20);

/// The own test server over streamable HTTP on a free loopback port, in `mode`, with `flags`
/// after `--http 127.0.0.1:0` (e.g. `--stateless`); killed on drop.
pub fn own_http(mode: &str, flags: &[&str]) -> HttpServer {
    let mut command = std::process::Command::new(server_bin());
    command
        .args(["--http", oma_mcp_test_server::LOOPBACK_ANY_PORT])
        .args(flags)
        .env(oma_mcp_test_server::MODE_VAR, mode);
    spawn_http_server(command, Ready::ListeningLine, HTTP_READY).unwrap()
}

/// `oma-mcp-http-faults --mode <mode> <flags>` on a free loopback port; killed on drop.
pub fn faults(mode: &str, flags: &[&str]) -> HttpServer {
    let mut command = std::process::Command::new(faults_bin());
    command.args(["--mode", mode]).args(flags);
    spawn_http_server(command, Ready::ListeningLine, HTTP_READY).unwrap()
}

/// server-everything in `streamableHttp` mode on a free loopback port (its `PORT` variable;
/// it serves `/mcp`), or `None` as [`npm_server`] says; killed on drop.
pub fn everything_http(test: &str) -> Option<HttpServer> {
    let bin = npm_server(test, "mcp-server-everything")?;
    let port = free_port().unwrap();
    let mut command = std::process::Command::new(bin);
    command
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .current_dir(workspace_root().join("tests/servers"));
    let ready = Ready::Port {
        port,
        path: "/mcp".to_owned(),
    };
    Some(spawn_http_server(command, ready, HTTP_READY).unwrap())
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

/// Runs the ignored test `test` (`module::name`) alone in a child process of this test
/// binary with the variables `env` set, and fails unless it passed: for tests of what comes
/// from the environment, since a test cannot set variables in its own process (the helper
/// test returns at once where its marker variable, one of `env`, is not set).
pub async fn run_in_child(test: &str, env: &[(&str, &std::ffi::OsStr)]) {
    let output = tokio::process::Command::new(std::env::current_exe().unwrap())
        .args(["--ignored", "--exact", test, "--test-threads", "1"])
        .envs(env.iter().copied())
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("test result: ok. 1 passed"),
        "the helper {test} did not run: {stdout}"
    );
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
        .call_tool("echo")
        .arguments(args(serde_json::json!({ "message": message })))
        .mapped()
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

/// Reads `probe()` every 20 ms until `done` holds for its value or `limit` has passed; the
/// last value read.
pub async fn poll<T>(
    limit: Duration,
    mut probe: impl FnMut() -> T,
    done: impl Fn(&T) -> bool,
) -> T {
    let start = Instant::now();
    loop {
        let value = probe();
        if done(&value) || start.elapsed() > limit {
            return value;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits up to 5 s for `pid` to be gone; `true` when it is.
pub async fn gone_within_5s(pid: u32) -> bool {
    !poll(Duration::from_secs(5), || alive(pid), |alive| !alive).await
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
        oma_mcp_test_support::skip(
            test,
            &format!("{bin} is not installed (run `npm ci --prefix tests/servers`)"),
        );
        return None;
    }
    let node = std::process::Command::new("node").arg("--version").output();
    if !node.is_ok_and(|o| o.status.success()) {
        oma_mcp_test_support::skip(test, "`node` is not on PATH");
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
