//! Servers that need a login, against an authorization server this project did not write: the
//! official TypeScript SDK's example server (`@modelcontextprotocol/sdk`, pinned in
//! `tests/servers/package.json`, started as `simpleStreamableHttp.js --oauth`), whose demo
//! authorization server approves every request at once. The test plays the browser: it reads
//! the authorization URL that `oma-mcp login --no-browser` prints, fetches it, and follows the
//! redirect to the CLI's loopback listener. Then `list`, `call`, `snapshot` and `auth status`
//! use the stored login, `logout` removes it, and no output holds the access token.

#![allow(clippy::unwrap_used)]

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use oma_mcp_test_support::http::{HttpServer, Ready, free_port, spawn_http_server};

use crate::common::{assert_exit, http_get, login_as_browser, oma_mcp, run, text};

/// The example server of the TypeScript SDK, or `None` (one printed line) when the pinned npm
/// packages are not installed; under `CI` that fails the test instead
/// (`oma_mcp_test_support::npm_package`).
pub(crate) fn example_server() -> Option<PathBuf> {
    let sdk = oma_mcp_test_support::npm_package("@modelcontextprotocol/sdk")?;
    Some(sdk.join("dist/esm/examples/server/simpleStreamableHttp.js"))
}

/// The example server with its OAuth authorization server, on two free ports; its MCP URL is
/// `http://localhost:<port>/mcp`, as its protected resource metadata names it.
pub(crate) fn start(script: &Path) -> (HttpServer, String) {
    let port = free_port().unwrap();
    let auth_port = free_port().unwrap();
    let mut command = Command::new("node");
    command
        .arg(script)
        .arg("--oauth")
        .env("MCP_PORT", port.to_string())
        .env("MCP_AUTH_PORT", auth_port.to_string());
    let server = spawn_http_server(
        command,
        Ready::Port {
            port,
            path: "/mcp".to_owned(),
        },
        Duration::from_secs(30),
    )
    .unwrap();
    // The authorization server starts beside it.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", auth_port)).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "the authorization server did not start: {}",
            server.output()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    (server, format!("http://localhost:{port}/mcp"))
}

/// `oma-mcp login --url url --no-browser`, with the test as the browser: returns its stderr.
fn login(url: &str, credentials: &Path) -> String {
    login_with(url, credentials, &[])
}

/// [`login`] with more environment variables (`OMA_MCP_CREDENTIAL_STORE` is `file` unless
/// `env` says otherwise).
pub(crate) fn login_with(url: &str, credentials: &Path, env: &[(&str, &str)]) -> String {
    login_as_browser(url, credentials, env, |authorization_url| {
        let (status, location) = http_get(authorization_url);
        assert_eq!(
            status, 302,
            "the demo authorization server redirects at once"
        );
        let callback = location.unwrap();
        assert!(callback.starts_with("http://127.0.0.1:"), "{callback}");
        assert_eq!(http_get(&callback).0, 200);
    })
}

/// The access token stored for the one login in `credentials`.
fn stored_token(credentials: &Path) -> String {
    let file = std::fs::read_dir(credentials)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .unwrap();
    let login: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    login["credentials"]["token_response"]["access_token"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn login_then_every_command_uses_the_stored_token_and_logout_removes_it() {
    let Some(script) = example_server() else {
        return;
    };
    let (_server, url) = start(&script);
    let credentials = tempfile::tempdir().unwrap();
    let cli = |args: &[&str]| {
        run(oma_mcp()
            .args(args)
            .args(["--url", &url])
            .env("OMA_MCP_CREDENTIALS_DIR", credentials.path()))
    };

    // Before a login: the credential store looked in and the command that logs in, exactly.
    let out = cli(&["list"]);
    assert_exit(&out, 2);
    assert!(
        text(&out.stderr).contains(&format!(
            "needs an OAuth login, and no usable access token is held in the credential store \
             {}",
            credentials.path().display()
        )) && text(&out.stderr).contains(&format!("; run `oma-mcp login --url {url}`")),
        "{}",
        text(&out.stderr)
    );

    let said = login(&url, credentials.path());
    assert!(
        said.contains(&format!(
            "oma-mcp: logged in to {url} (mcp:tools, access token expires in "
        )),
        "{said}"
    );
    assert!(
        said.contains(&format!("stored in {}\n", credentials.path().display())),
        "{said}"
    );
    let token = stored_token(credentials.path());
    assert!(!said.contains(&token));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(credentials.path()), 0o700);
        for entry in std::fs::read_dir(credentials.path()).unwrap().flatten() {
            assert_eq!(mode(&entry.path()), 0o600, "{}", entry.path().display());
        }
    }

    let list = cli(&["list"]);
    assert_exit(&list, 0);
    assert!(
        text(&list.stdout).starts_with("greet "),
        "{}",
        text(&list.stdout)
    );

    let call = cli(&["call", "greet", "--args", r#"{"name":"oma"}"#]);
    assert_exit(&call, 0);
    assert_eq!(text(&call.stdout), "Hello, oma!\n");

    let snapshot = cli(&["snapshot"]);
    assert_exit(&snapshot, 0);
    let taken: serde_json::Value = serde_json::from_slice(&snapshot.stdout).unwrap();
    assert_eq!(taken["source"]["url"], url.as_str());
    assert!(
        taken["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["descriptor"]["name"] == "greet")
    );

    let status = run(oma_mcp()
        .args(["auth", "status", "--format", "json"])
        .env("OMA_MCP_CREDENTIALS_DIR", credentials.path()));
    assert_exit(&status, 0);
    let shown: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    let entry = &shown["logins"][0];
    assert_eq!(entry["server"], url.as_str());
    assert_eq!(entry["scopes"], serde_json::json!(["mcp:tools"]));
    assert_eq!(entry["refreshToken"], false);
    assert!(
        entry["issuer"]
            .as_str()
            .unwrap()
            .starts_with("http://localhost:")
    );

    // A manifest's pin: `snapshot` writes the snapshot file, `check` finds no drift, and
    // neither the files nor the outputs hold the token.
    let project = tempfile::tempdir().unwrap();
    let manifest = project.path().join("oma-mcp.toml");
    std::fs::write(
        &manifest,
        format!("[servers.example]\nurl = \"{url}\"\n[servers.example.oauth]\n"),
    )
    .unwrap();
    let pinned = |args: &[&str]| {
        run(oma_mcp()
            .args(args)
            .arg("--manifest")
            .arg(&manifest)
            .env("OMA_MCP_CREDENTIALS_DIR", credentials.path()))
    };
    let pinned_snapshot = pinned(&["snapshot"]);
    assert_exit(&pinned_snapshot, 0);
    let check = pinned(&["check", "--format", "json"]);
    assert_exit(&check, 0);
    let snapshot_file =
        std::fs::read_to_string(project.path().join("mcp/example.snapshot.json")).unwrap();
    assert!(snapshot_file.contains("\"greet\""));
    assert!(!snapshot_file.contains(&token));
    assert!(!std::fs::read_to_string(&manifest).unwrap().contains(&token));

    for out in [&list, &call, &snapshot, &status, &pinned_snapshot, &check] {
        assert!(!text(&out.stdout).contains(&token));
        assert!(!text(&out.stderr).contains(&token));
    }

    let out = cli(&["logout"]);
    assert_exit(&out, 0);
    assert_eq!(
        text(&out.stderr),
        format!("oma-mcp: logged out of {url} (the stored login was removed)\n")
    );
    assert_exit(&cli(&["list"]), 2);
    let out = cli(&["logout"]);
    assert_eq!(
        text(&out.stderr),
        format!("oma-mcp: no login is stored for {url}\n")
    );
}

/// No redirect within `--timeout-secs`: the login fails after that time and says where to open
/// the URL; nothing is stored.
#[test]
fn a_login_without_the_browser_redirect_times_out_and_says_what_to_do() {
    let Some(script) = example_server() else {
        return;
    };
    let (_server, url) = start(&script);
    let credentials = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    let out = run(oma_mcp()
        .args([
            "login",
            "--url",
            &url,
            "--no-browser",
            "--timeout-secs",
            "1",
        ])
        .env("OMA_MCP_CREDENTIALS_DIR", credentials.path()));
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_exit(&out, 2);
    let said = text(&out.stderr);
    assert!(
        said.contains(
            "authorizing the client failed: no redirect came back within 1 s; open the URL \
             printed above in a browser on this machine (the redirect goes to 127.0.0.1), or \
             give more time with --timeout-secs"
        ),
        "{said}"
    );
    assert!(said.contains(&format!(
        "oma-mcp: to log in to {url}, open this URL in a browser on this machine:"
    )));
    assert_eq!(std::fs::read_dir(credentials.path()).unwrap().count(), 0);
}
