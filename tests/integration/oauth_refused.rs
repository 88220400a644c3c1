//! What a connection without a usable OAuth token is told, word for word, against the fault
//! server (`oma-mcp-http-faults`; its URL written `URL`, its origin `ORIGIN`, the credential
//! store `DIR`): a refresh the authorization server refuses for good (`invalid_grant`,
//! `invalid_client`) makes the stored login stale and says to log in again; a server that
//! publishes OAuth metadata asks for a login, naming the credential store looked in (and,
//! under `CI`, the client credentials grant); one that publishes none takes a token of its own
//! and is told how to supply it; one whose metadata cannot be read is told both. Without OAuth, a refusal names what fits the server, and a
//! login stored for its URL (in a child process, which gets its own credential directory).
//! Library words only: manifest keys, builder methods and the pin's login command, never a
//! command-line flag.

use std::path::Path;
use std::time::Instant;

use oma_mcp_runtime::oauth::{CREDENTIALS_DIR_ENV, LoginStore, OAuthClient, OAuthConfig};
use oma_mcp_runtime::{ConnectConfig, Error, connect_mcp_tools};
use oma_mcp_test_server::faults::{
    AUTHORIZATION_PATH, CLIENT_FORGOTTEN, REGISTRATION_PATH, RESOURCE_METADATA_PATH, TOKEN_PATH,
};
use serde_json::{Value, json};

use crate::http_client_faults::{chain, config, connect_error};
use crate::oauth::{
    EXPIRED, LIFETIME, NO_HANG, PREFIX, assert_authorization_error, clear_log, files, login,
    login_requests, oauth_config, on, origin, post, requests, token_form,
};
use crate::raw_http::log;
use crate::{args, faults};

/// What every "needs an OAuth login" hint ends with under `CI`.
const CI_ADVICE: &str = "; in CI, where no one can log in, use the client credentials grant \
                         where the server offers it (manifest `[servers.<name>.oauth]` with \
                         `grant = \"client-credentials\"`, `client-id-env` and \
                         `client-secret-env`; `OAuthConfig::client_credentials`), or give CI a \
                         stored login (`OMA_MCP_CREDENTIALS_DIR`)";

/// [`CI_ADVICE`] when this test process runs under `CI` (set to anything but empty, `0` or
/// `false`), else nothing: the runtime reads the same variable. (The CLI's tests set and
/// unset it for each command.)
pub(crate) fn under_ci() -> &'static str {
    let ci = std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false"));
    if ci { CI_ADVICE } else { "" }
}

/// The error chain with the server's URL written `URL`, its origin `ORIGIN` and `dir`
/// written `DIR`.
fn said(err: &Error, url: &str, dir: &Path) -> String {
    chain(err, url)
        .replace(&dir.display().to_string(), "DIR")
        .replace(origin(url), "ORIGIN")
}

/// The authorization code grant without an authorizer, as a manifest's pin `faults` gets it.
fn pinned() -> OAuthConfig {
    OAuthConfig::authorization_code().with_login_command("oma-mcp login faults")
}

/// `(grant_type, error)` of each token request in `entries`.
fn grants(entries: &[Value]) -> Vec<(String, Value)> {
    on(entries, TOKEN_PATH)
        .iter()
        .map(|e| {
            (
                token_form(e)["grant_type"].clone(),
                e["answer"]["json"]["error"].clone(),
            )
        })
        .collect()
}

/// The fault server in `mode` with short-lived tokens, and a login to it stored in a
/// temporary directory (the client that logged in is disconnected).
async fn logged_in(mode: &str) -> (crate::HttpServer, tempfile::TempDir) {
    let server = faults(mode, &["--token-lifetime-s", LIFETIME]);
    let dir = tempfile::tempdir().unwrap();
    let client = connect_mcp_tools(oauth_config(server.url(), &login(), dir.path()))
        .await
        .unwrap();
    client.disconnect().await;
    (server, dir)
}

/// A refresh token the authorization server refuses (`invalid_grant`): the stored login is
/// kept, marked stale, without its tokens; a client that cannot ask the user says to log in
/// again, naming the command and the credential store, and a later one says so at once (no
/// refresh is tried again); one that can ask logs in anew, and its login replaces the stale
/// one.
#[tokio::test]
async fn a_refused_refresh_token_makes_the_login_stale_and_says_to_log_in_again() {
    let (server, dir) = logged_in("oauth-refresh-invalid-grant").await;
    let url = server.url();
    tokio::time::sleep(EXPIRED).await;

    let started = Instant::now();
    let err = connect_error(oauth_config(url, &pinned(), dir.path())).await;
    assert!(started.elapsed() < NO_HANG, "{:?}", started.elapsed());
    let expected = format!(
        "{PREFIX}the MCP server `URL` needs an OAuth login, and no usable access token is held \
         in the credential store DIR (the stored login is stale: the authorization server \
         refused its refresh token (invalid_grant)); run `oma-mcp login faults` again{}",
        under_ci()
    );
    assert_eq!(said(&err, url, dir.path()), expected);
    assert_authorization_error(&err);
    let entries = log(url).await;
    assert_eq!(
        grants(&entries),
        [
            ("authorization_code".to_owned(), Value::Null),
            ("refresh_token".to_owned(), json!("invalid_grant"))
        ]
    );
    let stale = LoginStore::new(dir.path()).load(url).unwrap().unwrap();
    assert_eq!(
        (
            stale.stale.as_deref(),
            stale.has_refresh_token(),
            stale.expires_at()
        ),
        (
            Some("the authorization server refused its refresh token (invalid_grant)"),
            false,
            None
        )
    );
    let file = std::fs::read_to_string(&files(dir.path())[0]).unwrap();
    let issued = &on(&entries, TOKEN_PATH)[0]["answer"]["json"];
    for token in ["access_token", "refresh_token"] {
        assert!(!file.contains(issued[token].as_str().unwrap()), "{token}");
    }

    // A later run is told the same at once.
    clear_log(url).await;
    let err = connect_error(oauth_config(url, &pinned(), dir.path())).await;
    assert_eq!(said(&err, url, dir.path()), expected);
    assert_eq!(grants(&log(url).await), []);

    // With an authorizer, a new login replaces the stale one, and the same refusal
    // mid-session leads to a new authorization.
    let client = connect_mcp_tools(oauth_config(url, &login(), dir.path()))
        .await
        .unwrap();
    let renewed = LoginStore::new(dir.path()).load(url).unwrap().unwrap();
    assert_eq!(
        (renewed.stale.as_deref(), renewed.has_refresh_token()),
        (None, true)
    );
    tokio::time::sleep(EXPIRED).await;
    clear_log(url).await;
    assert_eq!(crate::echo(&client, "again").await.data, "Echo: again");
    client.disconnect().await;
    let entries = log(url).await;
    let mut expected = vec![post(TOKEN_PATH)];
    expected.extend(login_requests());
    expected.push(post("/mcp"));
    assert_eq!(requests(&entries), expected);
    assert_eq!(
        (
            &entries[0]["answer"]["json"]["error"],
            &entries[1]["headers"]["authorization"],
            &entries[1]["json"]["method"],
            &entries[7]["json"]["method"]
        ),
        (
            &json!("invalid_grant"),
            &Value::Null,
            &json!("tools/call"),
            &json!("tools/call")
        )
    );
    let renewed = LoginStore::new(dir.path()).load(url).unwrap().unwrap();
    assert_eq!(
        (renewed.stale.as_deref(), renewed.has_refresh_token()),
        (None, true)
    );
}

/// A refresh refused with `invalid_client` (the authorization server lost the client's
/// registration): mid-session, the call fails saying to log in again (not to try again), in
/// the library's words without a login command; the login is stale, and the next run is told
/// the same at once.
#[tokio::test]
async fn a_refresh_refused_as_invalid_client_makes_the_login_stale() {
    let (server, dir) = logged_in("oauth-refresh-invalid-client").await;
    let url = server.url();

    // A client that cannot ask the user, with the stored token until it expires.
    let unattended = OAuthConfig::authorization_code();
    let client = connect_mcp_tools(oauth_config(url, &unattended, dir.path()))
        .await
        .unwrap();
    tokio::time::sleep(EXPIRED).await;
    let err = client
        .call_tool("echo")
        .arguments(args(json!({"message": "later"})))
        .raw()
        .await
        .unwrap_err();
    client.disconnect().await;
    let stale = "the stored login is stale: the authorization server refused its client when \
                 refreshing the token (invalid_client)";
    let hint = "log in to this URL again with `oma-mcp login`, or let the connection ask the \
                user (`OAuthConfig::with_authorizer`)";
    assert_eq!(
        said(&err, url, dir.path()),
        format!(
            "OAuth authorization for the MCP server `URL` (`tools/call`): the MCP server `URL` \
             needs an OAuth login, and no usable access token is held in the credential store \
             DIR ({stale}); {hint}{}",
            under_ci()
        )
    );
    let entries = log(url).await;
    assert_eq!(
        grants(&entries),
        [
            ("authorization_code".to_owned(), Value::Null),
            ("refresh_token".to_owned(), json!("invalid_client"))
        ]
    );
    assert_eq!(
        on(&entries, TOKEN_PATH)[1]["answer"]["json"]["error_description"],
        CLIENT_FORGOTTEN
    );
    let stored = LoginStore::new(dir.path()).load(url).unwrap().unwrap();
    assert_eq!(
        (stored.stale.as_deref(), stored.has_refresh_token()),
        (
            Some(
                "the authorization server refused its client when refreshing the token \
                 (invalid_client)"
            ),
            false
        )
    );

    clear_log(url).await;
    let err = connect_error(oauth_config(url, &unattended, dir.path())).await;
    assert_eq!(
        said(&err, url, dir.path()),
        format!(
            "{PREFIX}the MCP server `URL` needs an OAuth login, and no usable access token is \
             held in the credential store DIR ({stale}); {hint}{}",
            under_ci()
        )
    );
    assert_eq!(grants(&log(url).await), []);
}

/// A server that publishes OAuth metadata and a client that cannot ask the user: the error
/// asks for a login, naming the pin's command and the credential store looked in (or that the
/// client has none).
#[tokio::test]
async fn no_login_names_the_command_and_the_credential_store() {
    let server = faults("oauth", &[]);
    let url = server.url();
    let dir = tempfile::tempdir().unwrap();
    let err = connect_error(oauth_config(url, &pinned(), dir.path())).await;
    assert_eq!(
        said(&err, url, dir.path()),
        format!(
            "{PREFIX}the MCP server `URL` needs an OAuth login, and no usable access token is \
             held in the credential store DIR; run `oma-mcp login faults`{}",
            under_ci()
        )
    );
    let storeless = OAuthClient::new(url, &pinned(), "oma-mcp-tests").unwrap();
    let err = connect_error(
        config(url).with_token_provider(oma_mcp_runtime::oauth::TokenSource::new(storeless)),
    )
    .await;
    assert_eq!(
        said(&err, url, dir.path()),
        format!(
            "{PREFIX}the MCP server `URL` needs an OAuth login, and no usable access token is \
             held (this client has no credential store: `OAuthClient::with_store`); run \
             `oma-mcp login faults`{}",
            under_ci()
        )
    );
}

/// A server that answers `401` with a plain bearer challenge and publishes no OAuth metadata
/// (a static-token server) is told to supply its token, with the manifest keys and builder
/// methods, not to log in; nothing is registered or authorized.
#[tokio::test]
async fn a_server_without_oauth_metadata_is_told_to_supply_its_token() {
    let server = faults("unauthorized", &[]);
    let url = server.url();
    let dir = tempfile::tempdir().unwrap();
    let err = connect_error(oauth_config(url, &pinned(), dir.path())).await;
    assert_eq!(
        said(&err, url, dir.path()),
        format!(
            "{PREFIX}the MCP server `URL` refused the request without a usable credential (HTTP \
             401) and publishes no OAuth metadata (no protected resource metadata, RFC 9728, \
             nor authorization server metadata, RFC 8414), so it takes no OAuth login but a \
             token of its own; supply it from the environment (manifest keys `bearer-env`, \
             `header-env`; `ConnectConfig::with_bearer_env`, `ConnectConfig::with_header_env`)"
        )
    );
    assert_authorization_error(&err);
    let entries = log(url).await;
    for endpoint in [REGISTRATION_PATH, AUTHORIZATION_PATH, TOKEN_PATH] {
        assert_eq!(on(&entries, endpoint).len(), 0, "{endpoint}");
    }
    assert_eq!(files(dir.path()), Vec::<std::path::PathBuf>::new());
}

/// A plain bearer challenge, and metadata that cannot be read (every well-known path answers
/// 503): whether the server takes an OAuth login or a token of its own cannot be told, so the
/// error names both.
#[tokio::test]
async fn a_server_whose_metadata_cannot_be_read_is_told_both() {
    let server = faults("unauthorized-metadata-down", &[]);
    let url = server.url();
    let dir = tempfile::tempdir().unwrap();
    let err = connect_error(oauth_config(url, &pinned(), dir.path())).await;
    assert_eq!(
        said(&err, url, dir.path()),
        format!(
            "{PREFIX}discovering the authorization server failed: OAuth metadata discovery \
             failed for ORIGIN{RESOURCE_METADATA_PATH}: unexpected HTTP status 503 Service \
             Unavailable; check the network and the server's URL, then try again; or, if the \
             server takes a token of \
             its own rather than an OAuth login, supply it from the environment (manifest keys \
             `bearer-env`, `header-env`; `ConnectConfig::with_bearer_env`, \
             `ConnectConfig::with_header_env`)"
        )
    );
    assert_authorization_error(&err);
}

/// Without OAuth, a `401` whose challenge names protected resource metadata says that the
/// server offers OAuth, and how to log in and enable it.
#[tokio::test]
async fn without_oauth_a_server_that_offers_it_is_named() {
    let server = faults("oauth", &[]);
    let url = server.url();
    let err = connect_error(config(url)).await;
    assert_eq!(
        chain(&err, url).replace(origin(url), "ORIGIN"),
        format!(
            "the MCP server/discover handshake with `URL` failed: the MCP server `URL` answered \
             `server/discover` with HTTP 401 (unauthorized), challenge: Bearer \
             resource_metadata=\"ORIGIN{RESOURCE_METADATA_PATH}\"; the server offers OAuth (its \
             challenge names protected resource metadata, RFC 9728): log in with `oma-mcp \
             login`, and enable OAuth with \
             `ConnectConfig::with_oauth(OAuthConfig::authorization_code())` (in a manifest: a \
             URL pin without `bearer-env` or an `Authorization` in `header-env`, or with a table \
             `oauth`)"
        )
    );
}

// ---------------------------------------------------------------------------------------------
// A login stored for a URL that a connection without OAuth reaches (in a child process, which
// gets the credential directory)
// ---------------------------------------------------------------------------------------------

/// Set in the child process: the helper below runs only there.
const STORED_HELPER: &str = "OMA_MCP_TEST_OAUTH_STORED_HELPER";

/// Runs [`helper_a_stored_login_without_oauth_says_to_enable_it`] in a child process of this
/// test binary with the credential directory in a temporary directory (a test cannot set
/// variables in its own process).
#[tokio::test]
async fn a_stored_login_without_oauth_says_to_enable_it() {
    let dir = tempfile::tempdir().unwrap();
    let test = "oauth_refused::helper_a_stored_login_without_oauth_says_to_enable_it";
    crate::run_in_child(
        test,
        &[
            (STORED_HELPER, std::ffi::OsStr::new("1")),
            (CREDENTIALS_DIR_ENV, dir.path().as_os_str()),
        ],
    )
    .await;
}

/// Helper of [`a_stored_login_without_oauth_says_to_enable_it`]: a login stored in the
/// credential directory of the environment, then a connection to the same URL without OAuth,
/// whose `401` names the login's file and how to enable OAuth.
#[tokio::test]
#[ignore = "a helper: runs in a child process of a_stored_login_without_oauth_says_to_enable_it"]
async fn helper_a_stored_login_without_oauth_says_to_enable_it() {
    if std::env::var_os(STORED_HELPER).is_none() {
        return;
    }
    let dir = std::path::PathBuf::from(std::env::var_os(CREDENTIALS_DIR_ENV).unwrap());
    let server = faults("oauth", &[]);
    let url = server.url();
    let client = connect_mcp_tools(oauth_config(url, &login(), &dir))
        .await
        .unwrap();
    client.disconnect().await;
    let file = LoginStore::new(&dir).path(url);
    assert!(file.is_file());
    let err = connect_error(ConnectConfig::http(url)).await;
    assert_eq!(
        chain(&err, url)
            .replace(&file.display().to_string(), "FILE")
            .replace(origin(url), "ORIGIN"),
        format!(
            "the MCP server/discover handshake with `URL` failed: the MCP server `URL` answered \
             `server/discover` with HTTP 401 (unauthorized), challenge: Bearer \
             resource_metadata=\"ORIGIN{RESOURCE_METADATA_PATH}\"; a login for this URL is \
             stored (FILE), and this connection does not use OAuth: enable it with \
             `ConnectConfig::with_oauth(OAuthConfig::authorization_code())` (in a manifest: a \
             URL pin without `bearer-env` or an `Authorization` in `header-env`, or with a table \
             `oauth`)"
        )
    );
}
