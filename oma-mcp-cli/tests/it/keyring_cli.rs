//! OAuth logins in the operating system's keyring: against a Secret Service of the test's own
//! (GNOME Keyring's daemon on a private D-Bus session bus, see
//! `oma_mcp_test_support::secret_service`), a login through the TypeScript SDK's example
//! server keeps its tokens in the keyring and only the rest in its file; `list` and `auth
//! status` read them back; `logout` removes them from the keyring. A keyring that is required
//! and not there is a clear error; by default the file is used instead.

#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::time::{Duration, Instant};

use oma_mcp_test_support::secret_service::{INSTALL_DIR, SecretService};

use crate::common::{assert_exit, oma_mcp, run, text, workspace};
use crate::oauth_cli::{example_server, login_with, start};

/// A private Secret Service in `dir`, ready for clients; `None` (one printed line) when GNOME
/// Keyring is not installed, which fails the test when `CI` is set.
fn secret_service(dir: &Path) -> Option<SecretService> {
    let Some(service) = SecretService::start(&workspace(), dir).unwrap() else {
        oma_mcp_test_support::skip(
            std::thread::current().name().unwrap_or("a keyring test"),
            &format!("GNOME Keyring is not installed in {INSTALL_DIR} (see scripts/test)"),
        );
        return None;
    };
    // Ready when oma-mcp can use it: `auth status` with the keyring required succeeds.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let out = run(oma_mcp()
            .args(["auth", "status"])
            .env("OMA_MCP_CREDENTIALS_DIR", dir.join("credentials"))
            .env("OMA_MCP_CREDENTIAL_STORE", "keyring")
            .env("DBUS_SESSION_BUS_ADDRESS", service.address()));
        if out.status.success() {
            return Some(service);
        }
        assert!(
            Instant::now() < deadline,
            "the Secret Service did not become usable: {}",
            text(&out.stderr)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_login_keeps_its_tokens_in_the_secret_service_and_logout_removes_them() {
    let Some(script) = example_server() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let Some(service) = secret_service(dir.path()) else {
        return;
    };
    let (_server, url) = start(&script);
    let credentials = dir.path().join("credentials");
    // The default choice (`auto`) finds the keyring.
    let env = [
        ("DBUS_SESSION_BUS_ADDRESS", service.address()),
        ("OMA_MCP_CREDENTIAL_STORE", "auto"),
    ];
    let cli = |args: &[&str]| {
        let mut command = oma_mcp();
        command
            .args(args)
            .env("OMA_MCP_CREDENTIALS_DIR", &credentials)
            .envs(env);
        if args[0] != "auth" {
            command.args(["--url", &url]);
        }
        run(&mut command)
    };

    let said = login_with(&url, &credentials, &env);
    assert!(
        said.contains(&format!(
            "stored in the Secret Service (the rest in {})\n",
            credentials.display()
        )),
        "{said}"
    );

    // The login's file holds no secret: no token response, no client secret.
    let files: Vec<_> = std::fs::read_dir(&credentials)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let index = std::fs::read_to_string(&files[0]).unwrap();
    let stored: serde_json::Value = serde_json::from_str(&index).unwrap();
    assert_eq!(stored["secrets"], "keyring");
    assert_eq!(
        stored["credentials"]["token_response"],
        serde_json::Value::Null
    );
    assert_eq!(stored.get("client_secret"), None);
    assert!(!index.contains("access_token"), "{index}");
    // The daemon keeps them, encrypted, in its own file.
    let keyring_file = std::fs::read(service.keyrings().join("login.keyring")).unwrap();
    assert!(
        !String::from_utf8_lossy(&keyring_file).contains("access_token"),
        "the keyring file holds the token response in clear"
    );

    // Commands read the tokens back from the keyring.
    let list = cli(&["list"]);
    assert_exit(&list, 0);
    assert!(
        text(&list.stdout).starts_with("greet "),
        "{}",
        text(&list.stdout)
    );
    let call = cli(&["call", "greet", "--args", r#"{"name":"keyring"}"#]);
    assert_exit(&call, 0);
    assert_eq!(text(&call.stdout), "Hello, keyring!\n");

    let status = cli(&["auth", "status", "--format", "json"]);
    assert_exit(&status, 0);
    let shown: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(shown["secretsIn"], "the Secret Service");
    assert_eq!(shown["logins"][0]["server"], url.as_str());
    assert_eq!(shown["logins"][0]["secrets"], "keyring");
    assert_eq!(
        shown["logins"][0]["scopes"],
        serde_json::json!(["mcp:tools"])
    );
    let status = cli(&["auth", "status"]);
    assert!(
        text(&status.stdout).contains(" (tokens in the system keyring)\n"),
        "{}",
        text(&status.stdout)
    );

    // Logout removes the keyring's entry too: the same file put back finds no secrets, and
    // the next command asks for a login.
    let out = cli(&["logout"]);
    assert_exit(&out, 0);
    assert_eq!(std::fs::read_dir(&credentials).unwrap().count(), 0);
    std::fs::write(&files[0], &index).unwrap();
    let out = cli(&["list"]);
    assert_exit(&out, 2);
    let err = text(&out.stderr);
    assert!(
        err.contains(
            "keeps its secrets in the system keyring, which no longer holds them; log in again"
        ),
        "{err}"
    );
    assert!(
        err.contains(&format!("run `oma-mcp login --url {url}`")),
        "{err}"
    );
}

#[test]
fn a_required_keyring_that_is_not_there_is_an_error_and_by_default_the_file_is_used() {
    let credentials = tempfile::tempdir().unwrap();
    let status = |choice: &str| {
        run(oma_mcp()
            .args(["auth", "status"])
            .env("OMA_MCP_CREDENTIALS_DIR", credentials.path())
            .env("OMA_MCP_CREDENTIAL_STORE", choice)
            .env(
                "DBUS_SESSION_BUS_ADDRESS",
                "unix:path=/nonexistent/oma-mcp-test-bus",
            ))
    };
    let out = status("keyring");
    assert_exit(&out, 2);
    let err = text(&out.stderr);
    assert!(
        err.contains(&format!(
            "the OAuth credential store {}: cannot use the system keyring: ",
            credentials.path().display()
        )),
        "{err}"
    );

    let out = status("auto");
    assert_exit(&out, 0);
    assert_eq!(
        text(&out.stdout),
        format!("no stored logins (in {})\n", credentials.path().display())
    );

    let out = status("vault");
    assert_exit(&out, 2);
    assert!(
        text(&out.stderr).contains(
            "OMA_MCP_CREDENTIAL_STORE is \"vault\"; set it to `keyring`, `file` or `auto`"
        ),
        "{}",
        text(&out.stderr)
    );
}
