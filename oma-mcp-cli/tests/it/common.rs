//! Helpers of the tests that run the CLI (every module of the `it` binary): run `oma-mcp` as
//! a user's script would, find the project's test server and the shared reference folder
//! (`oma_mcp_test_support::shared_dir`: absent, a test prints one line and passes, unless `CI`
//! is set, where it fails).

#![allow(dead_code)] // each user takes a different subset

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

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
pub fn login_as_browser(
    url: &str,
    credentials: &Path,
    env: &[(&str, &str)],
    browse: impl FnOnce(&str),
) -> String {
    let mut command = oma_mcp();
    command
        .args([
            "login",
            "--url",
            url,
            "--no-browser",
            "--timeout-secs",
            "60",
        ])
        .env("OMA_MCP_CREDENTIALS_DIR", credentials)
        .envs(env.iter().copied());
    run_login_as_browser(&mut command, browse)
}

/// Runs `login`, an `oma-mcp login … --no-browser` command, with `browse` as the browser (see
/// [`login_as_browser`]); returns its stderr, and fails the test when the login fails.
#[allow(clippy::unwrap_used)]
pub fn run_login_as_browser(login: &mut Command, browse: impl FnOnce(&str)) -> String {
    let mut child = login
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

/// `GET url` (plain HTTP, no redirect followed): the status and the `Location` header.
#[allow(clippy::unwrap_used)]
pub fn http_get(url: &str) -> (u16, Option<String>) {
    let rest = url.strip_prefix("http://").unwrap();
    let (authority, path) = rest.split_at(rest.find('/').unwrap());
    let mut stream = TcpStream::connect(authority.replace("localhost", "127.0.0.1")).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let status = response
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap();
    let location = response
        .lines()
        .take_while(|l| !l.is_empty())
        .find_map(|l| {
            l.split_once(':')
                .filter(|(name, _)| name.eq_ignore_ascii_case("location"))
                .map(|(_, v)| v.trim().to_owned())
        });
    (status, location)
}

/// `oma-mcp-test-server --http 127.0.0.1:0` or `oma-mcp-http-faults --mode MODE`, listening.
pub fn http_server(program: &str, args: &[&str]) -> oma_mcp_test_support::HttpServer {
    let mut command = Command::new(test_server().with_file_name(program));
    command.args(args);
    oma_mcp_test_support::spawn_http_server(
        command,
        oma_mcp_test_support::Ready::ListeningLine,
        Duration::from_secs(20),
    )
    .expect("the HTTP server starts")
}
