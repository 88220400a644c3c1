//! Helpers of the tests that run the CLI (every module of the `it` binary): run `oma-mcp` as
//! a user's script would, find the project's test server and the shared reference folder
//! (`oma_mcp_test_support::shared_dir`: absent, a test prints one line and passes, unless `CI`
//! is set, where it fails).

#![allow(dead_code)] // each user takes a different subset

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The `oma-mcp` binary under test, with OAuth logins kept in their files
/// (`OMA_MCP_CREDENTIAL_STORE=file`), so no test reads or writes the keyring of the session it
/// runs in; the keyring tests set their own.
pub fn oma_mcp() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_oma-mcp"));
    command.env("OMA_MCP_CREDENTIAL_STORE", "file");
    command
}

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// The test server binary beside `oma-mcp` in the same target directory.
pub fn test_server() -> PathBuf {
    let bin = Path::new(env!("CARGO_BIN_EXE_oma-mcp")).with_file_name(format!(
        "oma-mcp-test-server{}",
        std::env::consts::EXE_SUFFIX
    ));
    assert!(
        bin.exists(),
        "{} is missing: run `cargo build --workspace --all-features` first (./scripts/test does)",
        bin.display()
    );
    bin
}

/// The shared reference folder, or `None` after one printed line when it is absent (a test
/// failure under `CI`); see `oma_mcp_test_support::shared_dir`.
pub fn shared() -> Option<PathBuf> {
    oma_mcp_test_support::shared_dir()
}

/// Lossy UTF-8 of captured output.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The JSON a command printed on stdout.
pub fn json_out(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

/// `path` as a TOML basic string (a JSON string is one), for manifests written by tests.
pub fn toml_string(path: &Path) -> String {
    serde_json::to_string(&path.display().to_string()).expect("a path is a JSON string")
}

/// Runs `cmd` to completion, capturing its output.
pub fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("oma-mcp runs")
}

/// Runs `cmd` with its stdout on a pipe nobody reads (closed before the command writes, as
/// for `oma-mcp … | head -1` once `head` has its line), returning the exit code and stderr.
pub fn run_with_closed_stdout(cmd: &mut Command) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let out = cmd
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .expect("oma-mcp runs");
    (out.status.code(), text(&out.stderr))
}

/// Asserts the exit code, showing stdout and stderr when it differs.
pub fn assert_exit(out: &Output, code: i32) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
}

/// `oma-mcp login --url url --no-browser --timeout-secs 60` with its logins in `credentials`
/// and `env`, and `browse` as the browser: it gets the authorization URL the command prints
/// and must bring the authorization server's redirect to the command's loopback listener.
/// Returns the command's stderr; the test fails when the login does.
#[allow(clippy::unwrap_used)]
pub fn login_as_browser(
    url: &str,
    credentials: &Path,
    env: &[(&str, &str)],
    browse: impl FnOnce(&str),
) -> String {
    let mut child = oma_mcp()
        .args([
            "login",
            "--url",
            url,
            "--no-browser",
            "--timeout-secs",
            "60",
        ])
        .env("OMA_MCP_CREDENTIALS_DIR", credentials)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut lines = Vec::new();
    let authorization_url = loop {
        let mut line = String::new();
        assert_ne!(
            stderr.read_line(&mut line).unwrap(),
            0,
            "login ended before printing the URL: {lines:?}"
        );
        lines.push(line.clone());
        if let Some(url) = line.trim().strip_prefix("http://") {
            break format!("http://{url}");
        }
    };
    browse(&authorization_url);
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).unwrap();
    let status = child.wait().unwrap();
    let all = lines.concat() + &rest;
    assert!(status.success(), "login failed: {all}");
    all
}
