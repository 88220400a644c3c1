//! What `oma-mcp` says when it holds no usable OAuth token, word for word, against the fault
//! server's authorization server (`oma-mcp-http-faults --mode oauth` and its faults; its URL
//! written `URL`, its origin `ORIGIN`, the credential directory `DIR`): a refresh refused
//! with `invalid_grant` or `invalid_client` says to run `oma-mcp login <server>` again, and
//! `auth status` shows the login stale; a server that publishes no OAuth metadata is told to
//! supply its token; one whose metadata cannot be read, both; a server that publishes some, to
//! log in, naming the credential store looked in and, with `CI` set, the client credentials
//! grant. The test plays the browser of `oma-mcp login`
//! (the fault server's authorization endpoint redirects at once).

#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use crate::common::{assert_exit, http_get, http_server, oma_mcp, run, run_login_as_browser, text};

/// The fault server's access tokens live this long (`--token-lifetime-s`).
const LIFETIME: &str = "3";

/// Until the access token expired.
const EXPIRED: Duration = Duration::from_millis(3100);

/// What a "needs an OAuth login" hint ends with when `CI` is set.
const CI_ADVICE: &str = "; in CI, where no one can log in, use the client credentials grant \
                         where the server offers it (manifest `[servers.<name>.oauth]` with \
                         `grant = \"client-credentials\"`, `client-id-env` and \
                         `client-secret-env`; `OAuthConfig::client_credentials`), or give CI a \
                         stored login (`OMA_MCP_CREDENTIALS_DIR`)";

/// The fault server in `mode` with `flags`, listening.
fn fault_server(mode: &str, flags: &[&str]) -> oma_mcp_test_support::HttpServer {
    let mut args = vec!["--mode", mode];
    args.extend(flags);
    http_server("oma-mcp-http-faults", &args)
}

/// `oma-mcp` with the logins in `credentials`, outside CI.
fn cli(credentials: &Path) -> Command {
    let mut command = oma_mcp();
    command
        .env("OMA_MCP_CREDENTIALS_DIR", credentials)
        .env_remove("CI");
    command
}

/// `text` with the server's URL written `URL`, its origin `ORIGIN` and `dir` written `DIR`.
fn shown(text: &str, url: &str, dir: &Path) -> String {
    text.replace(url, "URL")
        .replace(url.trim_end_matches("/mcp"), "ORIGIN")
        .replace(&dir.display().to_string(), "DIR")
}

/// The fault server's authorization endpoint approves at once: the browser follows its
/// redirect to the command's loopback listener.
fn browse(authorization_url: &str) {
    let (status, location) = http_get(authorization_url);
    assert_eq!(status, 302, "the fault server redirects at once");
    let callback = location.unwrap();
    assert!(callback.starts_with("http://127.0.0.1:"), "{callback}");
    assert_eq!(http_get(&callback).0, 200);
}

/// `auth status` (text) with the logins in `credentials`.
fn status(credentials: &Path) -> Output {
    run(cli(credentials).args(["auth", "status"]))
}

/// A refresh refused with `invalid_grant` or with `invalid_client` (the authorization server
/// lost the client's registration) after `oma-mcp login faults`: the next command says to run
/// that again, not to try again, and `auth status` no longer says that a refresh token is
/// held but that the login is stale and why.
#[test]
fn a_refused_refresh_says_to_log_in_again_and_auth_status_shows_the_login_stale() {
    for (mode, reason) in [
        (
            "oauth-refresh-invalid-grant",
            "the authorization server refused its refresh token (invalid_grant)",
        ),
        (
            "oauth-refresh-invalid-client",
            "the authorization server refused its client when refreshing the token \
             (invalid_client)",
        ),
    ] {
        let server = fault_server(mode, &["--token-lifetime-s", LIFETIME]);
        let url = server.url();
        let project = tempfile::tempdir().unwrap();
        let credentials = tempfile::tempdir().unwrap();
        let dir = credentials.path();
        std::fs::write(
            project.path().join("oma-mcp.toml"),
            format!("[servers.faults]\nurl = \"{url}\"\n"),
        )
        .unwrap();
        run_login_as_browser(
            cli(dir)
                .args(["login", "faults", "--no-browser", "--timeout-secs", "60"])
                .current_dir(project.path()),
            browse,
        );
        let before = status(dir);
        assert_exit(&before, 0);
        assert!(
            text(&before.stdout).contains("; refresh token held\n"),
            "{mode}: {}",
            text(&before.stdout)
        );
        std::thread::sleep(EXPIRED);

        let out = run(cli(dir).arg("list").current_dir(project.path()));
        assert_exit(&out, 2);
        // The error is the last line (rmcp may warn before it that the refresh failed).
        let stderr = text(&out.stderr);
        let error = stderr.rsplit_terminator('\n').next().unwrap_or_default();
        assert_eq!(
            shown(&format!("{error}\n"), url, dir),
            format!(
                "oma-mcp: the MCP server/discover handshake with `URL` failed: OAuth \
                 authorization for the MCP server `URL` (`server/discover`): the MCP server \
                 `URL` needs an OAuth login, and no usable access token is held in the \
                 credential store DIR (the stored login is stale: {reason}); run `oma-mcp login \
                 faults` again\n"
            ),
            "{mode}"
        );

        let after = status(dir);
        assert_exit(&after, 0);
        let file = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|e| e == "json"))
            .unwrap();
        assert_eq!(
            shown(
                &text(&after.stdout).replace(&file.display().to_string(), "FILE"),
                url,
                dir
            ),
            format!(
                "stored logins (in DIR):\n  URL\n    authorization server ORIGIN, client \
                 client-1\n    scopes: mcp; stale login ({reason}): no token held; log in again \
                 (`oma-mcp login`)\n    file: FILE\n"
            ),
            "{mode}"
        );
        let json = run(cli(dir).args(["auth", "status", "--format", "json"]));
        let shown: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
        assert_eq!(
            (
                &shown["logins"][0]["stale"],
                &shown["logins"][0]["refreshToken"]
            ),
            (&serde_json::json!(reason), &serde_json::json!(false)),
            "{mode}"
        );
    }
}

/// A server that refuses with a plain bearer challenge and publishes no OAuth metadata (a
/// static-token server) is told to supply its token, not to log in.
#[test]
fn a_server_without_oauth_metadata_is_told_to_supply_its_token() {
    let server = fault_server("unauthorized", &[]);
    let url = server.url();
    let credentials = tempfile::tempdir().unwrap();
    let out = run(cli(credentials.path()).args(["list", "--url", url]));
    assert_exit(&out, 2);
    assert_eq!(
        shown(&text(&out.stderr), url, credentials.path()),
        "oma-mcp: the MCP server/discover handshake with `URL` failed: OAuth authorization for \
         the MCP server `URL` (`server/discover`): the MCP server `URL` refused the request \
         without a usable credential (HTTP 401) and publishes no OAuth metadata (no protected \
         resource metadata, RFC 9728, nor authorization server metadata, RFC 8414), so it takes \
         no OAuth login but a token of its own; supply it from the environment (manifest keys \
         `bearer-env`, `header-env`; `ConnectConfig::with_bearer_env`, \
         `ConnectConfig::with_header_env`)\n"
    );
}

/// A plain bearer challenge, and metadata that cannot be read: the error names both a login
/// and the token settings.
#[test]
fn a_server_whose_metadata_cannot_be_read_is_told_both() {
    let server = fault_server("unauthorized-metadata-down", &[]);
    let url = server.url();
    let credentials = tempfile::tempdir().unwrap();
    let out = run(cli(credentials.path()).args(["list", "--url", url]));
    assert_exit(&out, 2);
    assert_eq!(
        shown(&text(&out.stderr), url, credentials.path()),
        "oma-mcp: the MCP server/discover handshake with `URL` failed: OAuth authorization for \
         the MCP server `URL` (`server/discover`): discovering the authorization server failed: \
         OAuth metadata discovery failed for ORIGIN/.well-known/oauth-protected-resource/mcp: \
         unexpected HTTP status 503 Service Unavailable; check the network and the server's \
         URL, then try again; or, if the server takes a token of its own rather than an OAuth \
         login, supply it from the environment (manifest keys `bearer-env`, `header-env`; \
         `ConnectConfig::with_bearer_env`, `ConnectConfig::with_header_env`)\n"
    );
}

/// Without a login, the error names the credential store it looked in and the command that
/// logs in; with `CI` set, also the client credentials grant.
#[test]
fn no_login_names_the_credential_store_and_under_ci_the_client_credentials_grant() {
    let server = fault_server("oauth", &[]);
    let url = server.url();
    let credentials = tempfile::tempdir().unwrap();
    let dir = credentials.path();
    let expected = "oma-mcp: the MCP server/discover handshake with `URL` failed: OAuth \
                    authorization for the MCP server `URL` (`server/discover`): the MCP server \
                    `URL` needs an OAuth login, and no usable access token is held in the \
                    credential store DIR; run `oma-mcp login --url URL`";
    let out = run(cli(dir).args(["list", "--url", url]));
    assert_exit(&out, 2);
    assert_eq!(shown(&text(&out.stderr), url, dir), format!("{expected}\n"));
    let out = run(cli(dir).args(["list", "--url", url]).env("CI", "true"));
    assert_exit(&out, 2);
    assert_eq!(
        shown(&text(&out.stderr), url, dir),
        format!("{expected}{CI_ADVICE}\n")
    );
}
