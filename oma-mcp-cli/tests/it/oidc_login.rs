//! Logins against a certified OpenID provider this project did not write: `oidc-provider`
//! (pinned in `tests/servers/package.json`) in front of an MCP server, both started from
//! `tests/servers/oidc-login.mjs` on loopback (`oma_mcp_test_support::oidc`). The test plays
//! the browser (`oma_mcp_test_support::browser`): it opens the authorization URL that
//! `oma-mcp login --no-browser` prints, submits the provider's login page, and fetches the
//! redirect to the CLI's loopback listener.
//!
//! Then `list`, `call` and `snapshot` use the stored login; after the 3-second access token
//! expired, `call` refreshes it (the provider rotates the refresh token) without a new
//! authorization; `auth status` shows the login and `logout` removes it; no output and no file
//! outside the credential directory holds a token. The client credentials grant needs no
//! login at all.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use oma_mcp_test_support::browser::Browser;
use oma_mcp_test_support::oidc::{self, ACCOUNT, CLIENT_ID, CLIENT_SECRET, OidcServer};

use crate::common::{assert_exit, login_as_browser, oma_mcp, run, text};

/// The access token lifetime, in seconds.
const TTL: u64 = 3;

/// How long to wait for an access token to expire.
const EXPIRED: Duration = Duration::from_millis(3100);

/// `oma-mcp login --url url --no-browser`, with the test as the browser: returns its stderr.
fn login(server: &OidcServer, credentials: &Path) -> String {
    login_as_browser(server.url(), credentials, &[], |authorization_url| {
        let mut browser = Browser::new();
        let callback = browser
            .authorize(authorization_url)
            .unwrap_or_else(|e| panic!("{e}\nserver:\n{}", server.output()));
        assert!(callback.starts_with("http://127.0.0.1:"), "{callback}");
        assert_eq!(browser.get(&callback).unwrap().status, 200);
    })
}

/// The stored login file in `credentials` (the only `.json` file there), if any.
fn login_file(credentials: &Path) -> Option<PathBuf> {
    std::fs::read_dir(credentials)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
}

/// The stored login: its client id, access token and refresh token.
fn stored(credentials: &Path) -> (String, String, String) {
    let file = login_file(credentials).expect("a stored login");
    let login: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let token = &login["credentials"]["token_response"];
    let field = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_owned();
    (
        field(&login["client_id"]),
        field(&token["access_token"]),
        field(&token["refresh_token"]),
    )
}

/// The structured content of a `call --format json` output (its `data` is the JSON text).
fn data(out: &Output) -> serde_json::Value {
    let shown: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    serde_json::from_str(shown["data"].as_str().unwrap()).unwrap()
}

/// Asserts that no output and no file under `dir` holds any of `secrets`.
fn assert_nothing_holds(secrets: &[String], outputs: &[&Output], dir: &Path) {
    for secret in secrets {
        assert!(!secret.is_empty());
        for out in outputs {
            assert!(!text(&out.stdout).contains(secret.as_str()));
            assert!(!text(&out.stderr).contains(secret.as_str()));
        }
        let mut folders = vec![dir.to_path_buf()];
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(folder).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    folders.push(path);
                } else {
                    let content =
                        String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
                    assert!(!content.contains(secret.as_str()), "{}", path.display());
                }
            }
        }
    }
}

#[test]
fn login_calls_refresh_with_rotation_and_logout_against_oidc_provider() {
    let Some(server) = oidc::start(TTL) else {
        return;
    };
    let url = server.url().to_owned();
    let credentials = tempfile::tempdir().unwrap();
    let cli = |args: &[&str]| {
        run(oma_mcp()
            .args(args)
            .args(["--url", &url])
            .env("OMA_MCP_CREDENTIALS_DIR", credentials.path()))
    };

    let out = cli(&["list"]);
    assert_exit(&out, 2);
    assert!(
        text(&out.stderr).contains(&format!("run `oma-mcp login --url {url}`")),
        "{}",
        text(&out.stderr)
    );

    let said = login(&server, credentials.path());
    assert!(
        said.contains(&format!(
            "oma-mcp: logged in to {url} (mcp:tools, access token expires in "
        )),
        "{said}"
    );
    assert!(
        said.contains(&format!(
            ", refreshed as needed); stored in {}\n",
            credentials.path().display()
        )),
        "{said}"
    );
    let (client_id, access, refresh) = stored(credentials.path());
    assert!(!refresh.is_empty(), "the provider issued no refresh token");
    assert!(!said.contains(&access) && !said.contains(&refresh));
    assert_eq!(
        server.events(),
        [
            format!("registration {client_id}"),
            format!("login {ACCOUNT}"),
            format!("authorization {client_id}"),
            "grant authorization_code".to_owned(),
        ],
        "{}",
        server.output()
    );

    let list = cli(&["list"]);
    assert_exit(&list, 0);
    let listed = text(&list.stdout);
    assert!(listed.starts_with("greet "), "{listed}");
    assert!(listed.contains("\nwhoami "), "{listed}");

    let greet = cli(&["call", "greet", "--args", r#"{"name":"oma"}"#]);
    assert_exit(&greet, 0);
    assert_eq!(text(&greet.stdout), "Hello, oma!\n");

    let whoami = cli(&["call", "whoami", "--format", "json"]);
    assert_exit(&whoami, 0);
    assert_eq!(
        data(&whoami),
        serde_json::json!({"subject": ACCOUNT, "clientId": client_id, "scope": "mcp:tools"})
    );

    let snapshot = cli(&["snapshot"]);
    assert_exit(&snapshot, 0);
    let taken: serde_json::Value = serde_json::from_slice(&snapshot.stdout).unwrap();
    assert_eq!(taken["source"]["url"], url.as_str());
    let names: Vec<&str> = taken["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["descriptor"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["greet", "whoami"]);

    // Past the access token's lifetime: the stored login is refreshed, the provider rotates
    // the refresh token, and nobody is asked to log in again.
    std::thread::sleep(EXPIRED);
    let again = cli(&["call", "greet", "--args", r#"{"name":"again"}"#]);
    assert_exit(&again, 0);
    assert_eq!(text(&again.stdout), "Hello, again!\n");
    let (same_client, new_access, new_refresh) = stored(credentials.path());
    assert_eq!(same_client, client_id);
    assert_ne!(new_access, access, "the access token was not replaced");
    assert_ne!(new_refresh, refresh, "the refresh token was not rotated");
    let grants = server.grants(2);
    assert_eq!(grants[0], "authorization_code");
    assert!(
        grants[1..].iter().all(|g| g == "refresh_token") && grants.len() >= 2,
        "{grants:?}"
    );
    for event in ["registration ", "login ", "authorization "] {
        assert_eq!(server.count(event), 1, "{}", server.output());
    }

    let status = run(oma_mcp()
        .args(["auth", "status", "--format", "json"])
        .env("OMA_MCP_CREDENTIALS_DIR", credentials.path()));
    assert_exit(&status, 0);
    let shown: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    let entry = &shown["logins"][0];
    assert_eq!(
        (
            &entry["server"],
            &entry["issuer"],
            &entry["clientId"],
            &entry["refreshToken"]
        ),
        (
            &serde_json::json!(url),
            &serde_json::json!(server.issuer()),
            &serde_json::json!(client_id),
            &serde_json::json!(true)
        ),
        "{shown}"
    );
    assert_eq!(entry["scopes"], serde_json::json!(["mcp:tools"]));

    // A manifest's pin: its snapshot file holds no token either.
    let project = tempfile::tempdir().unwrap();
    let manifest = project.path().join("oma-mcp.toml");
    std::fs::write(
        &manifest,
        format!("[servers.oidc]\nurl = \"{url}\"\n[servers.oidc.oauth]\n"),
    )
    .unwrap();
    let pinned = run(oma_mcp()
        .args(["snapshot", "--manifest"])
        .arg(&manifest)
        .env("OMA_MCP_CREDENTIALS_DIR", credentials.path()));
    assert_exit(&pinned, 0);
    assert!(project.path().join("mcp/oidc.snapshot.json").is_file());

    let out = cli(&["logout"]);
    assert_exit(&out, 0);
    assert_eq!(
        text(&out.stderr),
        format!("oma-mcp: logged out of {url} (the stored login was removed)\n")
    );
    assert_eq!(login_file(credentials.path()), None);
    let after = cli(&["list"]);
    assert_exit(&after, 2);

    assert_nothing_holds(
        &[access, refresh, new_access, new_refresh],
        &[
            &list, &greet, &whoami, &snapshot, &again, &status, &pinned, &out, &after,
        ],
        project.path(),
    );
}

/// `--client-credentials`: the static confidential client gets a token for the MCP server with
/// its secret from the environment; nothing is registered, authorized or stored.
#[test]
fn client_credentials_call_needs_no_login() {
    let Some(server) = oidc::start(60) else {
        return;
    };
    let credentials = tempfile::tempdir().unwrap();
    let out = run(oma_mcp()
        .args(["call", "whoami", "--format", "json", "--url", server.url()])
        .args(["--client-credentials", "--client-id", CLIENT_ID])
        .args(["--client-secret-env", "OIDC_TEST_SECRET"])
        .env("OIDC_TEST_SECRET", CLIENT_SECRET)
        .env("OMA_MCP_CREDENTIALS_DIR", credentials.path()));
    assert_exit(&out, 0);
    assert_eq!(
        data(&out),
        serde_json::json!({"subject": CLIENT_ID, "clientId": CLIENT_ID, "scope": "mcp:tools"})
    );
    assert_eq!(server.grants(1), ["client_credentials"]);
    assert_eq!(server.events(), ["grant client_credentials"]);
    assert_eq!(std::fs::read_dir(credentials.path()).unwrap().count(), 0);
    assert!(!text(&out.stdout).contains(CLIENT_SECRET));
    assert!(!text(&out.stderr).contains(CLIENT_SECRET));

    // A wrong secret: the provider's refusal, and no token.
    let refused = run(oma_mcp()
        .args(["call", "whoami", "--url", server.url()])
        .args(["--client-credentials", "--client-id", CLIENT_ID])
        .args(["--client-secret-env", "OIDC_TEST_SECRET"])
        .env("OIDC_TEST_SECRET", "not-the-secret")
        .env("OMA_MCP_CREDENTIALS_DIR", credentials.path()));
    assert_exit(&refused, 2);
    assert!(
        text(&refused.stderr).contains("invalid_client"),
        "{}",
        text(&refused.stderr)
    );
    assert_eq!(server.count("grant "), 1);
}

/// The provider restarts and forgets the clients registered with it (its storage is in memory,
/// as many MCP servers' authorization servers keep theirs): once the access token expired, the
/// refresh is refused with `invalid_client`, and `list` says to log in again, not to try
/// again; `auth status` shows the login stale, without a refresh token; a new login works.
#[test]
fn a_provider_that_forgot_the_client_asks_for_a_new_login() {
    let Some(server) = oidc::start(TTL) else {
        return;
    };
    let url = server.url().to_owned();
    let credentials = tempfile::tempdir().unwrap();
    let dir = credentials.path();
    let cli = |args: &[&str]| {
        run(oma_mcp()
            .args(args)
            .env("OMA_MCP_CREDENTIALS_DIR", dir)
            .env_remove("CI"))
    };
    login(&server, dir);
    let server = server.restart();
    std::thread::sleep(EXPIRED);

    let out = cli(&["list", "--url", &url]);
    assert_exit(&out, 2);
    // The error is the last line (rmcp may warn before it that the refresh failed).
    let stderr = text(&out.stderr);
    let error = stderr.rsplit_terminator('\n').next().unwrap_or_default();
    assert_eq!(
        error
            .replace(&url, "URL")
            .replace(&dir.display().to_string(), "DIR"),
        "oma-mcp: the MCP server/discover handshake with `URL` failed: OAuth authorization for \
         the MCP server `URL` (`server/discover`): the MCP server `URL` needs an OAuth login, \
         and no usable access token is held in the credential store DIR (the stored login is \
         stale: the authorization server refused its client when refreshing the token \
         (invalid_client)); run `oma-mcp login --url URL` again",
        "{stderr}\nserver:\n{}",
        server.output()
    );
    let status = cli(&["auth", "status", "--format", "json"]);
    assert_exit(&status, 0);
    let shown: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(
        (
            &shown["logins"][0]["stale"],
            &shown["logins"][0]["refreshToken"]
        ),
        (
            &serde_json::json!(
                "the authorization server refused its client when refreshing the token \
                 (invalid_client)"
            ),
            &serde_json::json!(false)
        ),
        "{shown}"
    );

    login(&server, dir);
    let again = cli(&["list", "--url", &url]);
    assert_exit(&again, 0);
}
