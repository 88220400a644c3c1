//! `oma-mcp` reaching every server and saying what happened: `--lifecycle` and the manifest's
//! `lifecycle`, the restart of a server that exits on `server/discover`, a quiet shutdown, a
//! byte-order mark, and the progress bar of `call`; all against the project's test server.

#![allow(clippy::unwrap_used)]

use std::path::Path;

use crate::common::{assert_exit, oma_mcp, run, test_server, text};

/// `-- env OMA_TEST_SERVER_MODE=<mode> <test server>`.
fn server_in(mode: &str) -> Vec<String> {
    vec![
        "--".to_owned(),
        "env".to_owned(),
        format!("OMA_TEST_SERVER_MODE={mode}"),
        test_server().display().to_string(),
    ]
}

/// The command line errors and logs name for [`server_in`].
fn command_line(mode: &str) -> String {
    format!(
        "env OMA_TEST_SERVER_MODE={mode} {}",
        test_server().display()
    )
}

/// A manifest pinning the test server in `mode`, with `extra` lines.
fn manifest(dir: &Path, mode: &str, extra: &str) -> std::path::PathBuf {
    let path = dir.join("oma-mcp.toml");
    std::fs::write(
        &path,
        format!(
            "[servers.old]\ncommand = {:?}\nenv = {{ OMA_TEST_SERVER_MODE = {mode:?} }}\n{extra}",
            test_server().display().to_string()
        ),
    )
    .unwrap();
    path
}

const RESTART_WARNING: &str = " WARN the MCP server went away after `server/discover` without \
    answering; the server exited (exit status: 1); server stderr: error: expected `initialize` \
    as the first message; starting it again with `initialize` (servers \
    before 2026-07-28 may accept only `initialize` first; pin `Lifecycle::Initialize`, manifest \
    `lifecycle = \"initialize\"`, to skip the probe)";

/// Auto restarts the server with `initialize` and says so once; `--lifecycle initialize`
/// needs no restart and says nothing; `--lifecycle discover` fails with the server's reason.
#[test]
fn lifecycle_flag_pins_the_handshake_of_list() {
    let server = command_line("exit-on-discover");
    let out = run(oma_mcp().args(["list"]).args(server_in("exit-on-discover")));
    assert_exit(&out, 0);
    assert_eq!(
        text(&out.stdout).lines().count(),
        2,
        "{}",
        text(&out.stdout)
    );
    assert_eq!(
        text(&out.stderr),
        format!("{RESTART_WARNING} server={server}\n")
    );

    let out = run(oma_mcp()
        .args(["list", "--lifecycle", "initialize"])
        .args(server_in("exit-on-discover")));
    assert_exit(&out, 0);
    assert_eq!(text(&out.stderr), "");

    let out = run(oma_mcp()
        .args(["list", "--lifecycle", "discover"])
        .args(server_in("exit-on-discover")));
    assert_exit(&out, 2);
    assert_eq!(
        text(&out.stderr),
        format!(
            "oma-mcp: the MCP server/discover handshake with `{server}` failed (the server \
             exited (exit status: 1); server stderr: error: expected `initialize` as the first \
             message): MCP error -32000: Connection closed\n"
        )
    );
}

/// An unknown value is a clear error naming the flag (and the manifest key, below).
#[test]
fn an_unknown_lifecycle_is_a_clear_error() {
    let out = run(oma_mcp()
        .args(["call", "echo", "--lifecycle", "initialise"])
        .args(server_in("normal")));
    assert_exit(&out, 2);
    assert_eq!(
        text(&out.stderr),
        "error: invalid value 'initialise' for '--lifecycle <LIFECYCLE>'\n  [possible values: \
         auto, initialize, discover]\n\n  tip: a similar value exists: 'initialize'\n\nFor more \
         information, try '--help'.\n"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = manifest(dir.path(), "normal", "lifecycle = \"old\"\n");
    let out = run(oma_mcp().args(["list", "--manifest"]).arg(&path));
    assert_exit(&out, 2);
    assert_eq!(
        text(&out.stderr),
        format!(
            "oma-mcp: manifest {} is not valid: TOML parse error at line 4, column 13\n  |\n4 | \
             lifecycle = \"old\"\n  |             ^^^^^\nunknown variant `old`, expected one of \
             `auto`, `initialize`, `discover`\n\n",
            path.display()
        )
    );
}

/// The manifest's `lifecycle` is used by `list`, `snapshot` and `check`; `--lifecycle` wins
/// over it.
#[test]
fn manifest_lifecycle_and_the_flag_reach_snapshot_and_check() {
    let dir = tempfile::tempdir().unwrap();
    let path = manifest(
        dir.path(),
        "exit-on-discover",
        "lifecycle = \"initialize\"\n",
    );
    let out = run(oma_mcp().args(["snapshot", "--manifest"]).arg(&path));
    assert_exit(&out, 0);
    assert_eq!(
        text(&out.stderr),
        format!(
            "oma-mcp: wrote {} (2 tools) for server `old`\n",
            dir.path().join("mcp/old.snapshot.json").display()
        )
    );
    let snapshot =
        oma_mcp_runtime::Snapshot::read(&dir.path().join("mcp/old.snapshot.json")).unwrap();
    assert_eq!(snapshot.protocol_version.as_deref(), Some("2025-11-25"));

    let out = run(oma_mcp().args(["check", "--manifest"]).arg(&path));
    assert_exit(&out, 0);
    assert_eq!(text(&out.stderr), "");
    let out = run(oma_mcp()
        .args(["check", "--lifecycle", "discover", "--manifest"])
        .arg(&path));
    assert_exit(&out, 2);
    assert_eq!(
        text(&out.stderr),
        format!(
            "oma-mcp: the MCP server/discover handshake with `{}` failed (the server exited \
             (exit status: 1); server stderr: error: expected `initialize` as the first \
             message): MCP error -32000: Connection closed\n",
            test_server().display()
        )
    );

    let modern = manifest(dir.path(), "modern", "lifecycle = \"discover\"\n");
    let out = run(oma_mcp()
        .args(["snapshot", "--out"])
        .arg(dir.path().join("modern.json"))
        .arg("--manifest")
        .arg(&modern));
    assert_exit(&out, 0);
    let snapshot = oma_mcp_runtime::Snapshot::read(&dir.path().join("modern.json")).unwrap();
    assert_eq!(snapshot.protocol_version.as_deref(), Some("2026-07-28"));
    let out = run(oma_mcp()
        .args(["snapshot", "--lifecycle", "initialize", "--manifest"])
        .arg(&modern));
    assert_exit(&out, 2);
    assert_eq!(
        text(&out.stderr),
        format!(
            "oma-mcp: the MCP initialize handshake with `{}` failed: \
             MCP error -32022: Unsupported protocol version\n",
            test_server().display()
        )
    );
}

/// A server that prints lines on stdout when it is stopped: no warning, since the client
/// stopped it.
#[test]
fn a_shutdown_the_client_caused_warns_about_nothing() {
    let out = run(oma_mcp().args(["list"]).args(server_in("noisy-shutdown")));
    assert_exit(&out, 0);
    assert_eq!(text(&out.stderr), "");
    let out = run(oma_mcp()
        .args(["call", "echo", "--args", r#"{"message":"m"}"#])
        .args(server_in("noisy-shutdown")));
    assert_exit(&out, 0);
    assert_eq!(
        (text(&out.stdout), text(&out.stderr)),
        ("Echo: m\n".to_owned(), String::new())
    );
}

/// A byte-order mark before every message: the call works and a debug log says so.
#[test]
fn a_byte_order_mark_is_tolerated_and_logged_at_debug() {
    let out = run(oma_mcp()
        .args(["call", "echo", "--args", r#"{"message":"b"}"#])
        .args(server_in("bom")));
    assert_exit(&out, 0);
    assert_eq!(
        (text(&out.stdout), text(&out.stderr)),
        ("Echo: b\n".to_owned(), String::new())
    );
    let out = run(oma_mcp()
        .env("OMA_MCP_LOG", "oma_mcp_runtime=debug")
        .args(["list"])
        .args(server_in("bom")));
    assert_exit(&out, 0);
    assert!(
        text(&out.stderr).contains(&format!(
            "DEBUG skipped a byte-order mark (U+FEFF) before a message on the MCP server's \
             stdout server={}",
            command_line("bom")
        )),
        "{}",
        text(&out.stderr)
    );
}

/// Piped, `call` draws nothing; on a terminal (`script` gives the command one), the
/// server's `notifications/progress` show as a bar with the server's message.
#[test]
fn call_shows_progress_on_a_terminal_only() {
    let out = run(oma_mcp()
        .args(["call", "slow_count", "--args", r#"{"steps":3,"ms":20}"#])
        .args(server_in("progress")));
    assert_exit(&out, 0);
    assert_eq!(
        (text(&out.stdout), text(&out.stderr)),
        ("Counted to 3\n".to_owned(), String::new())
    );
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        oma_mcp_test_support::skip(
            "connect_cli (the terminal half)",
            "`script` (util-linux) is not installed",
        );
        return;
    }
    let call = format!(
        "{} call slow_count --args '{{\"steps\":3,\"ms\":200}}' -- env \
         OMA_TEST_SERVER_MODE=progress {}",
        env!("CARGO_BIN_EXE_oma-mcp"),
        test_server().display()
    );
    let out = run(std::process::Command::new("script").args(["-qec", &call, "/dev/null"]));
    assert_exit(&out, 0);
    let shown = text(&out.stdout);
    assert!(shown.contains("]  33% slow_count step 1 of 3"), "{shown:?}");
    assert!(shown.ends_with("\u{1b}[2KCounted to 3\r\n"), "{shown:?}");
}
