//! Process lifecycle: disconnect, drop, process groups, environment hygiene.

use std::time::{Duration, Instant};

use oma_mcp_runtime::{ConnectConfig, connect_mcp_tools};
use serde_json::json;

use crate::{alive, args, echo, gone_within_5s, own, server_bin};

#[tokio::test]
async fn disconnect_twice_and_no_process_left() {
    let client = connect_mcp_tools(own("normal")).await.unwrap();
    let pid = client.pid().unwrap();
    assert!(alive(pid));
    client.disconnect().await;
    assert!(!alive(pid), "server {pid} still running after disconnect");
    client.disconnect().await;
    let r = echo(&client, "x").await;
    assert_eq!(r.data, "MCP tool \"echo\" failed: Not connected");
}

#[tokio::test]
async fn drop_kills_the_server() {
    let client = connect_mcp_tools(own("normal")).await.unwrap();
    let pid = client.pid().unwrap();
    drop(client);
    assert!(
        gone_within_5s(pid).await,
        "server {pid} outlived the dropped client"
    );
}

/// `sh -c 'sleep 300 & echo $! > pidfile; exec server'`: the `sleep` is a grandchild in the
/// server's process group.
fn with_grandchild(pidfile: &std::path::Path) -> ConnectConfig {
    ConnectConfig::new("sh")
        .with_args(["-c", r#"sleep 300 & echo $! > "$PIDFILE"; exec "$SERVER""#])
        .with_env("PIDFILE", pidfile.to_string_lossy())
        .with_env("SERVER", server_bin().to_string_lossy())
}

fn read_pid(pidfile: &std::path::Path) -> u32 {
    std::fs::read_to_string(pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[cfg(unix)]
#[tokio::test]
async fn disconnect_and_drop_take_grandchildren() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("sleep.pid");
    let client = connect_mcp_tools(with_grandchild(&pidfile)).await.unwrap();
    let sleep = read_pid(&pidfile);
    assert!(alive(sleep));
    client.disconnect().await;
    assert!(
        gone_within_5s(sleep).await,
        "grandchild {sleep} survived disconnect"
    );

    let pidfile = dir.path().join("sleep2.pid");
    let client = connect_mcp_tools(with_grandchild(&pidfile)).await.unwrap();
    let sleep = read_pid(&pidfile);
    let server = client.pid().unwrap();
    drop(client);
    assert!(
        gone_within_5s(sleep).await,
        "grandchild {sleep} survived drop"
    );
    assert!(
        gone_within_5s(server).await,
        "server {server} survived drop"
    );
}

/// The command line of [`with_grandchild`] as errors quote it.
fn grandchild_command_line() -> String {
    format!(
        "sh -c {:?}",
        r#"sleep 300 & echo $! > "$PIDFILE"; exec "$SERVER""#
    )
}

/// The server exits mid-call while its grandchild `sleep` still holds its stdout open, so no
/// EOF arrives: the exit watcher closes the session (the call gets the contract's "Connection
/// closed", not a timeout) and kills the rest of the process group.
#[cfg(unix)]
#[tokio::test]
async fn server_exit_is_seen_while_a_grandchild_holds_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("sleep.pid");
    let config = with_grandchild(&pidfile).with_request_timeout(Duration::from_secs(20));
    let client = connect_mcp_tools(config).await.unwrap();
    let sleep = read_pid(&pidfile);
    assert!(alive(sleep));
    let start = Instant::now();
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
                grandchild_command_line()
            ),
            true
        )
    );
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    let err = client
        .call_tool("echo")
        .arguments(args(json!({"message": "x"})))
        .raw()
        .await
        .unwrap_err();
    assert_eq!(err.chain().to_string(), "Not connected");
    assert!(
        gone_within_5s(sleep).await,
        "grandchild {sleep} survived the server's exit"
    );
    client.disconnect().await;
}

/// A failed connect or discovery leaves no process behind, grandchildren included; a server
/// that exits at `initialize` while its grandchild holds stdout is seen as closed (not as a
/// timeout).
#[cfg(unix)]
#[tokio::test]
async fn failed_connect_leaves_no_grandchild() {
    let dir = tempfile::tempdir().unwrap();
    let command = grandchild_command_line();
    let cases = [
        (
            "exit-on-initialize",
            format!(
                "the MCP server/discover handshake with `{command}` failed (the server exited \
                 (exit status: 3); server stderr: fatal: this server refuses to initialize): MCP \
                 error -32601: Method not found; the fallback `initialize` handshake failed too: \
                 MCP error -32000: Connection closed"
            ),
        ),
        (
            "repeat-cursor",
            format!(
                "the MCP server `{command}` repeated the tools/list cursor \"again\"; stopped \
                 paging instead of looping forever (this is a server bug)"
            ),
        ),
        (
            "colliding-names",
            "Duplicate MCP tool name after normalization: \"a_b\" from \"a/b\" and \"a_b\"."
                .to_owned(),
        ),
    ];
    for (mode, expected) in cases {
        let pidfile = dir.path().join(format!("{mode}.pid"));
        let config = with_grandchild(&pidfile)
            .with_env(oma_mcp_test_server::MODE_VAR, mode)
            .with_request_timeout(Duration::from_secs(20));
        let start = Instant::now();
        let err = connect_mcp_tools(config).await.unwrap_err();
        assert_eq!(err.chain().to_string(), expected, "{mode}");
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{mode}: {:?}",
            start.elapsed()
        );
        let sleep = read_pid(&pidfile);
        assert!(
            gone_within_5s(sleep).await,
            "{mode}: grandchild {sleep} survived the failed connect"
        );
    }
}

#[cfg(unix)]
#[tokio::test]
async fn stubborn_server_is_killed_after_the_grace_periods() {
    let client = connect_mcp_tools(own("stubborn")).await.unwrap();
    let pid = client.pid().unwrap();
    let start = Instant::now();
    client.disconnect().await;
    let took = start.elapsed();
    assert!(!alive(pid), "stubborn server {pid} still running");
    assert!(took >= Duration::from_secs(4), "{took:?}");
    assert!(took < Duration::from_secs(7), "{took:?}");
}

/// `disconnect_within(ZERO)` skips the EOF grace: SIGTERM comes at once, so only
/// `TERM_GRACE` (2 s) passes before SIGKILL.
#[cfg(unix)]
#[tokio::test]
async fn disconnect_within_zero_skips_the_eof_grace() {
    let client = connect_mcp_tools(own("stubborn")).await.unwrap();
    let pid = client.pid().unwrap();
    let start = Instant::now();
    client.disconnect_within(Duration::ZERO).await;
    let took = start.elapsed();
    assert!(!alive(pid), "stubborn server {pid} still running");
    assert!(took >= oma_mcp_runtime::connect::TERM_GRACE, "{took:?}");
    // With the EOF grace it would take 4 s.
    assert!(took < Duration::from_millis(3900), "{took:?}");
}

#[tokio::test]
async fn environment_is_hygienic() {
    let Ok(parent_value) = std::env::var("CARGO_MANIFEST_DIR") else {
        eprintln!(
            "skipping environment_is_hygienic: CARGO_MANIFEST_DIR is not set (run via cargo test)"
        );
        return;
    };
    let client = connect_mcp_tools(own("normal").with_env("GREETING", "hi"))
        .await
        .unwrap();
    assert_eq!(get(&client, "CARGO_MANIFEST_DIR").await, "<unset>");
    assert_eq!(get(&client, "GREETING").await, "hi");
    assert_eq!(get(&client, "OMA_TEST_SERVER_MODE").await, "normal");
    if let Ok(path) = std::env::var("PATH") {
        assert_eq!(get(&client, "PATH").await, path);
    }
    client.disconnect().await;

    let client = connect_mcp_tools(
        own("normal").with_pass_env(["CARGO_MANIFEST_DIR", "OMA_NOT_SET_ANYWHERE"]),
    )
    .await
    .unwrap();
    assert_eq!(get(&client, "CARGO_MANIFEST_DIR").await, parent_value);
    assert_eq!(get(&client, "OMA_NOT_SET_ANYWHERE").await, "<unset>");
    client.disconnect().await;
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn cwd_is_applied() {
    let dir = tempfile::tempdir().unwrap();
    let canonical = dir.path().canonicalize().unwrap();
    let client = connect_mcp_tools(own("normal").with_cwd(&canonical))
        .await
        .unwrap();
    let pid = client.pid().unwrap();
    let cwd = std::fs::read_link(format!("/proc/{pid}/cwd")).unwrap();
    assert_eq!(cwd, canonical);
    client.disconnect().await;
}

async fn get(client: &oma_mcp_runtime::McpClient, name: &str) -> String {
    client
        .call_tool("get_env")
        .arguments(args(json!({"name": name})))
        .mapped()
        .await
        .data
}

#[test]
fn drop_after_the_runtime_is_gone_does_not_panic_and_kills() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = rt.block_on(connect_mcp_tools(own("normal"))).unwrap();
    let pid = client.pid().unwrap();
    drop(rt);
    drop(client);
    let start = Instant::now();
    while alive(pid) && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!alive(pid), "server {pid} outlived the dropped client");
}

/// The environment variable that makes [`helper_connect_then_process_exit`] run: the folder
/// for its pid files.
const EXIT_HELPER_DIR: &str = "OMA_TEST_EXIT_HELPER_DIR";

/// Helper of [`process_exit_without_disconnect_only_closes_the_pipes`], run in a child
/// process: connects to the server behind [`with_grandchild`], writes the server's pid and
/// ends the process with `std::process::exit` (no `Drop`, no `disconnect`).
#[tokio::test]
#[ignore = "a helper: runs in a child process of process_exit_without_disconnect_only_closes_the_pipes"]
async fn helper_connect_then_process_exit() {
    let Some(dir) = std::env::var_os(EXIT_HELPER_DIR).map(std::path::PathBuf::from) else {
        return;
    };
    let client = connect_mcp_tools(with_grandchild(&dir.join("sleep.pid")))
        .await
        .unwrap();
    std::fs::write(dir.join("server.pid"), client.pid().unwrap().to_string()).unwrap();
    std::process::exit(0);
}

/// What the connect docs say of a process that exits without dropping the client: the
/// server (which exits at stdin EOF) ends, its grandchild is not cleaned up.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn process_exit_without_disconnect_only_closes_the_pipes() {
    let dir = tempfile::tempdir().unwrap();
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "lifecycle::helper_connect_then_process_exit",
        ])
        .env(EXIT_HELPER_DIR, dir.path())
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "{status}");
    let server = read_pid(&dir.path().join("server.pid"));
    let sleep = read_pid(&dir.path().join("sleep.pid"));
    // stdin EOF ends the server...
    assert!(gone_within_5s(server).await, "server {server} still runs");
    // ...but nothing signalled its process group: the grandchild runs on.
    let still_running = alive(sleep);
    let _ = std::process::Command::new("kill")
        .args(["-9", &sleep.to_string()])
        .status();
    assert!(still_running, "grandchild {sleep} was cleaned up after all");
}
