//! oma-mcp's OAuth client (`oma-mcp-runtime`, cargo feature `oauth`) against the fault
//! server's authorization server (`oma-mcp-http-faults --mode oauth` and its `oauth-*` faults):
//! the authorization code grant with PKCE and dynamic registration, a refresh, a login kept in
//! a [`LoginStore`] and used by a later client, the client credentials grant, and each fault of
//! the MCP specification's "Authorization" as the error it must be, word for word (the server's
//! URL written `URL`, its origin `ORIGIN`), within 5 s (what a connection without a usable
//! token is told, a refused refresh among it, is in `oauth_refused`). Logins go to temporary directories: each test passes its own
//! provider ([`provider`]); the secrets test, which uses the credential directory of the
//! environment, runs in a child process ([`no_secret_reaches_a_log_an_error_or_a_debug`]).

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine;
use oma_mcp_runtime::error::ConnectError;
use oma_mcp_runtime::oauth::{
    Authorizer, CREDENTIALS_DIR_ENV, FollowRedirect, LoginStore, OAuthClient, OAuthConfig,
    OAuthGrant, Secret, TokenSource,
};
use oma_mcp_runtime::{ConnectConfig, Error, Lifecycle, connect_mcp_tools};
use oma_mcp_test_server::faults::{
    AUTHORIZATION_PATH, AUTHORIZATION_SERVER_METADATA_PATH, MACHINE_CLIENT_ID,
    MACHINE_CLIENT_SECRET, OAUTH_SCOPE, REGISTRATION_PATH, RESOURCE_METADATA_PATH, TOKEN_PATH,
    form, pkce_challenge,
};
use serde_json::{Value, json};

use crate::http_client_faults::{chain, config, connect_error};
use crate::raw_http::{self, log};
use crate::{echo, faults};

/// The redirect URI the tests' authorizer registers (nothing listens there: the redirect is
/// read, not followed).
const REDIRECT_URI: &str = "http://127.0.0.1/callback";

/// The access token lifetime of the refresh tests, in seconds: rmcp refreshes a token whose
/// remaining whole seconds fall under half of it (or 30), counted in whole seconds of the
/// clock, so a 3-second token is used for at least 2 s and refreshed after 3 s.
pub(crate) const LIFETIME: &str = "3";

/// How long the refresh tests wait for the access token to expire.
pub(crate) const EXPIRED: Duration = Duration::from_millis(3100);

/// The longest a failing OAuth connect may take.
pub(crate) const NO_HANG: Duration = Duration::from_secs(5);

/// What every failure of the authorization on connect starts with.
pub(crate) const PREFIX: &str = "the MCP server/discover handshake with `URL` failed: OAuth authorization \
                      for the MCP server `URL` (`server/discover`): ";

/// The authorization code grant, approved by following the authorization server's redirect.
pub(crate) fn login() -> OAuthConfig {
    OAuthConfig::authorization_code()
        .with_authorizer(Authorizer::new(FollowRedirect::new(REDIRECT_URI)))
}

/// The OAuth client for the server at `url` with `oauth`, its logins kept in `dir`.
pub(crate) fn provider(url: &str, oauth: &OAuthConfig, dir: &Path) -> TokenSource {
    TokenSource::new(
        OAuthClient::new(url, oauth, "oma-mcp-tests")
            .unwrap()
            .with_store(LoginStore::new(dir)),
    )
}

/// A config for the server at `url` with the OAuth client of `oauth`, logins kept in `dir`.
pub(crate) fn oauth_config(url: &str, oauth: &OAuthConfig, dir: &Path) -> ConnectConfig {
    config(url).with_token_provider(provider(url, oauth, dir))
}

/// `http://127.0.0.1:PORT` of `http://127.0.0.1:PORT/mcp`.
pub(crate) fn origin(url: &str) -> &str {
    url.strip_suffix("/mcp").unwrap()
}

/// The path of a log entry without its query.
fn path(entry: &Value) -> &str {
    let path = entry["path"].as_str().unwrap();
    path.split('?').next().unwrap()
}

/// What the client sent: `(HTTP method, path without query)`.
pub(crate) fn requests(entries: &[Value]) -> Vec<(String, String)> {
    entries
        .iter()
        .map(|e| (e["method"].as_str().unwrap().to_owned(), path(e).to_owned()))
        .collect()
}

fn get(path: &str) -> (String, String) {
    ("GET".to_owned(), path.to_owned())
}

pub(crate) fn post(path: &str) -> (String, String) {
    ("POST".to_owned(), path.to_owned())
}

/// The requests of a first login: the refused request, discovery, registration,
/// authorization and the code exchange.
pub(crate) fn login_requests() -> Vec<(String, String)> {
    vec![
        post("/mcp"),
        get(RESOURCE_METADATA_PATH),
        get(AUTHORIZATION_SERVER_METADATA_PATH),
        post(REGISTRATION_PATH),
        get(AUTHORIZATION_PATH),
        post(TOKEN_PATH),
    ]
}

/// The entries on `path`.
pub(crate) fn on<'a>(entries: &'a [Value], wanted: &str) -> Vec<&'a Value> {
    entries.iter().filter(|e| path(e) == wanted).collect()
}

/// The form of a token request.
pub(crate) fn token_form(entry: &Value) -> HashMap<String, String> {
    form(entry["body"].as_str().unwrap().as_bytes())
}

/// The `Authorization` header of each request on `/mcp`.
fn mcp_authorizations(entries: &[Value]) -> Vec<Value> {
    on(entries, "/mcp")
        .iter()
        .map(|e| e["headers"]["authorization"].clone())
        .collect()
}

/// The files in `dir` (none when it does not exist).
pub(crate) fn files(dir: &Path) -> Vec<std::path::PathBuf> {
    match std::fs::read_dir(dir) {
        Ok(entries) => entries.map(|e| e.unwrap().path()).collect(),
        Err(_) => Vec::new(),
    }
}

/// The authorization code grant from the first request: discovery, registration (a client id
/// and secret), the authorization with PKCE S256 and the resource, the code exchanged with the
/// verifier; every MCP request after the first 401 carries the token; tools are listed and
/// `echo` called; the login is stored.
#[tokio::test]
async fn the_authorization_code_grant_logs_in_lists_and_calls() {
    let server = faults("oauth", &[]);
    let url = server.url();
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("credentials");
    let client = connect_mcp_tools(oauth_config(url, &login(), &store))
        .await
        .unwrap();
    let tools: Vec<&str> = client.tools().iter().map(|t| t.mcp_name.as_str()).collect();
    assert_eq!(tools, ["echo"]);
    assert_eq!(echo(&client, "hi").await.data, "Echo: hi");
    client.disconnect().await;

    let entries = log(url).await;
    let mut expected = login_requests();
    expected.extend([post("/mcp"), post("/mcp"), post("/mcp")]);
    assert_eq!(requests(&entries), expected);
    let registered = &entries[3]["answer"]["json"];
    assert_eq!(
        (
            &entries[3]["answer"]["status"],
            &registered["client_id"],
            &entries[3]["json"]["redirect_uris"]
        ),
        (&json!(201), &json!("client-1"), &json!([REDIRECT_URI]))
    );
    let authorize = form(
        entries[4]["path"]
            .as_str()
            .unwrap()
            .split_once('?')
            .unwrap()
            .1
            .as_bytes(),
    );
    let token = token_form(&entries[5]);
    assert_eq!(
        (
            authorize["response_type"].as_str(),
            authorize["client_id"].as_str(),
            authorize["code_challenge_method"].as_str(),
            authorize["redirect_uri"].as_str(),
            authorize["resource"].as_str(),
        ),
        ("code", "client-1", "S256", REDIRECT_URI, url)
    );
    assert_eq!(
        (
            token["grant_type"].as_str(),
            token["resource"].as_str(),
            token["redirect_uri"].as_str()
        ),
        ("authorization_code", url, REDIRECT_URI)
    );
    // PKCE: the verifier sent with the code is the one the challenge was made of.
    assert_eq!(
        pkce_challenge(&token["code_verifier"]),
        authorize["code_challenge"]
    );
    // The registered client authenticates with the secret it was issued (HTTP basic).
    let basic = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!(
            "client-1:{}",
            registered["client_secret"].as_str().unwrap()
        ))
    );
    assert_eq!(entries[5]["headers"]["authorization"], json!(basic));
    let issued = &entries[5]["answer"]["json"];
    let bearer = json!(format!(
        "Bearer {}",
        issued["access_token"].as_str().unwrap()
    ));
    assert_eq!(
        mcp_authorizations(&entries),
        [Value::Null, bearer.clone(), bearer.clone(), bearer]
    );
    let methods: Vec<&Value> = on(&entries, "/mcp")
        .iter()
        .map(|e| &e["json"]["method"])
        .collect();
    assert_eq!(
        methods,
        [
            "server/discover",
            "server/discover",
            "tools/list",
            "tools/call"
        ]
    );
    // The login is stored, with its refresh token.
    let login = LoginStore::new(&store).load(url).unwrap().unwrap();
    assert_eq!(
        (login.client_id.as_str(), login.has_refresh_token()),
        ("client-1", true)
    );
}

/// With a 3-second access token, a call after it expired succeeds with a refreshed token: one
/// `refresh_token` grant with the refresh token issued and the resource, no new authorization;
/// the rotated refresh token is stored.
#[tokio::test]
async fn an_expired_access_token_is_refreshed() {
    let server = faults("oauth", &["--token-lifetime-s", LIFETIME]);
    let url = server.url();
    let dir = tempfile::tempdir().unwrap();
    let client = connect_mcp_tools(oauth_config(url, &login(), dir.path()))
        .await
        .unwrap();
    assert_eq!(echo(&client, "fresh").await.data, "Echo: fresh");
    tokio::time::sleep(EXPIRED).await;
    assert_eq!(echo(&client, "refreshed").await.data, "Echo: refreshed");
    client.disconnect().await;

    let entries = log(url).await;
    let tokens = on(&entries, TOKEN_PATH);
    let grants: Vec<String> = tokens
        .iter()
        .map(|e| token_form(e)["grant_type"].clone())
        .collect();
    assert_eq!(grants, ["authorization_code", "refresh_token"]);
    assert_eq!(on(&entries, AUTHORIZATION_PATH).len(), 1);
    let (first, second) = (&tokens[0]["answer"]["json"], &tokens[1]["answer"]["json"]);
    let refresh = token_form(tokens[1]);
    assert_eq!(
        (
            refresh["refresh_token"].as_str(),
            refresh["resource"].as_str()
        ),
        (first["refresh_token"].as_str().unwrap(), url)
    );
    assert_eq!(tokens[1]["answer"]["status"], 200);
    let bearer = |t: &Value| json!(format!("Bearer {}", t["access_token"].as_str().unwrap()));
    let calls: Vec<Value> = on(&entries, "/mcp")
        .iter()
        .filter(|e| e["json"]["method"] == "tools/call")
        .map(|e| e["headers"]["authorization"].clone())
        .collect();
    assert_eq!(calls, [bearer(first), bearer(second)]);
    let stored = std::fs::read_to_string(&files(dir.path())[0]).unwrap();
    assert!(stored.contains(second["refresh_token"].as_str().unwrap()));
    assert!(!stored.contains(first["refresh_token"].as_str().unwrap()));
}

/// The stream of server messages (a `GET` after the `initialize` handshake) is authorized as
/// requests are: a `GET` whose token the server refused (revoked) goes to the token provider,
/// which refreshes it, and the `GET` is sent again with the new token.
#[tokio::test]
async fn a_refused_server_stream_is_opened_again_with_a_refreshed_token() {
    let server = faults("oauth-get-refused-once", &[]);
    let url = server.url();
    let dir = tempfile::tempdir().unwrap();
    let config = oauth_config(url, &login(), dir.path()).with_lifecycle(Lifecycle::Initialize);
    let client = connect_mcp_tools(config).await.unwrap();
    assert_eq!(echo(&client, "after").await.data, "Echo: after");
    client.disconnect().await;

    let entries = log(url).await;
    let tokens = on(&entries, TOKEN_PATH);
    let grants: Vec<String> = tokens
        .iter()
        .map(|e| token_form(e)["grant_type"].clone())
        .collect();
    assert_eq!(grants, ["authorization_code", "refresh_token"]);
    let bearer = |t: &Value| {
        json!(format!(
            "Bearer {}",
            t["answer"]["json"]["access_token"].as_str().unwrap()
        ))
    };
    let gets: Vec<Value> = on(&entries, "/mcp")
        .iter()
        .filter(|e| e["method"] == "GET")
        .map(|e| e["headers"]["authorization"].clone())
        .collect();
    assert_eq!(gets, [bearer(tokens[0]), bearer(tokens[1])]);
}

/// A second client with the same store connects with the stored login: no registration, no
/// authorization, no token request, and its first MCP request already carries the token. The
/// store is a `0700` directory holding one `0600` file named by a digest, not by a token.
#[tokio::test]
async fn a_stored_login_serves_a_later_client_without_a_new_authorization() {
    let server = faults("oauth", &[]);
    let url = server.url();
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("credentials");
    let client = connect_mcp_tools(oauth_config(url, &login(), &store))
        .await
        .unwrap();
    client.disconnect().await;
    let first = log(url).await;
    let access = on(&first, TOKEN_PATH)[0]["answer"]["json"]["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    clear_log(url).await;

    let client = connect_mcp_tools(oauth_config(url, &login(), &store))
        .await
        .unwrap();
    assert_eq!(echo(&client, "remembered").await.data, "Echo: remembered");
    client.disconnect().await;
    let entries = log(url).await;
    for endpoint in [REGISTRATION_PATH, AUTHORIZATION_PATH, TOKEN_PATH] {
        assert_eq!(on(&entries, endpoint).len(), 0, "{endpoint}");
    }
    let bearer = json!(format!("Bearer {access}"));
    let posts: Vec<Value> = on(&entries, "/mcp")
        .iter()
        .filter(|e| e["method"] == "POST")
        .map(|e| e["headers"]["authorization"].clone())
        .collect();
    assert_eq!(posts, vec![bearer; 3]);

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&store), 0o700);
        let stored = files(&store);
        assert_eq!(stored.len(), 1);
        assert_eq!(mode(&stored[0]), 0o600);
        let name = stored[0].file_name().unwrap().to_str().unwrap();
        let (stem, extension) = name.split_once('.').unwrap();
        assert_eq!(extension, "json");
        assert_eq!(stem.len(), 32);
        assert!(stem.bytes().all(|b| b.is_ascii_hexdigit()), "{name}");
        assert!(!name.contains(&access));
    }
}

/// Empties the fault server's log.
pub(crate) async fn clear_log(url: &str) {
    raw_http::request(
        &url.replace("/mcp", "/_log"),
        hyper::Method::DELETE,
        &[],
        None,
    )
    .await;
}

/// The client credentials grant of a known client: one token request (HTTP basic, the
/// resource, the scope the resource advertises), no registration, no authorization, no refresh token, nothing stored; a wrong
/// secret is refused by name.
#[tokio::test]
async fn the_client_credentials_grant_connects() {
    let server = faults("oauth", &[]);
    let url = server.url();
    let dir = tempfile::tempdir().unwrap();
    let machine = |secret: &str| {
        OAuthConfig::default()
            .with_grant(OAuthGrant::ClientCredentials)
            .with_client_id(MACHINE_CLIENT_ID)
            .with_client_secret(Secret::new(secret))
    };
    let client = connect_mcp_tools(oauth_config(
        url,
        &machine(MACHINE_CLIENT_SECRET),
        dir.path(),
    ))
    .await
    .unwrap();
    assert_eq!(echo(&client, "machine").await.data, "Echo: machine");
    client.disconnect().await;
    let entries = log(url).await;
    assert_eq!(
        requests(&entries),
        [
            post("/mcp"),
            get(RESOURCE_METADATA_PATH),
            get(AUTHORIZATION_SERVER_METADATA_PATH),
            post(TOKEN_PATH),
            post("/mcp"),
            post("/mcp"),
            post("/mcp"),
        ]
    );
    let token = token_form(&entries[3]);
    assert_eq!(
        (
            token["grant_type"].as_str(),
            token["resource"].as_str(),
            token.get("scope").map(String::as_str),
            entries[3]["answer"]["json"]["refresh_token"].is_null()
        ),
        ("client_credentials", url, Some(OAUTH_SCOPE), true)
    );
    assert_eq!(files(dir.path()), Vec::<std::path::PathBuf>::new());

    let server = faults("oauth", &[]);
    let url = server.url();
    let err = connect_error(oauth_config(url, &machine("wrong-s3cret"), dir.path())).await;
    assert_eq!(
        chain(&err, url).replace(origin(url), "ORIGIN"),
        format!(
            "{PREFIX}the client credentials grant failed: Client credentials error: \
             Token exchange failed: Server returned error response: \
             invalid_client: the client secret is missing or wrong; check the client id and \
             secret (or key) given for the client credentials grant"
        )
    );
    assert!(!format!("{err:?}").contains("wrong-s3cret"));
}

/// Asserts that `err` is a handshake failed by [`ConnectError::Authorization`].
pub(crate) fn assert_authorization_error(err: &Error) {
    let Error::Connect(ConnectError::Handshake { source, .. }) = err else {
        panic!("{err:?}")
    };
    assert!(
        matches!(
            &**source,
            Error::Connect(ConnectError::Authorization { method, .. }) if method == "server/discover"
        ),
        "{source:?}"
    );
}

/// Connects to `mode` with the authorization code grant: the error chain (`URL`, `ORIGIN`),
/// checked to be an authorization failure that came within [`NO_HANG`] and stored nothing,
/// and the requests the client sent.
async fn fault(mode: &str) -> (String, Vec<(String, String)>, Vec<Value>) {
    let server = faults(mode, &[]);
    let url = server.url();
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let err = connect_error(oauth_config(url, &login(), dir.path())).await;
    assert!(
        started.elapsed() < NO_HANG,
        "{mode}: {:?}",
        started.elapsed()
    );
    assert_authorization_error(&err);
    assert_eq!(
        files(dir.path()),
        Vec::<std::path::PathBuf>::new(),
        "{mode}"
    );
    let entries = log(url).await;
    (
        chain(&err, url).replace(origin(url), "ORIGIN"),
        requests(&entries),
        entries,
    )
}

#[tokio::test]
async fn an_unreachable_authorization_server_is_named_with_the_connection_error() {
    let (text, sent, entries) = fault("oauth-as-unreachable").await;
    let closed = entries[1]["answer"]["json"]["authorization_servers"][0]
        .as_str()
        .unwrap();
    assert_eq!(
        text.replace(closed, "CLOSED"),
        format!(
            "{PREFIX}discovering the authorization server failed: OAuth metadata discovery \
             failed for CLOSED/.well-known/oauth-authorization-server: error sending request: \
             client error (Connect): tcp connect error: Connection refused (os error 111); check \
             the network and the server's URL, then try again"
        )
    );
    assert_eq!(sent, [post("/mcp"), get(RESOURCE_METADATA_PATH)]);
}

/// The well-known guesses and the authorization server discovery at the origin that follow a
/// resource metadata document that is not usable.
fn guesses() -> Vec<(String, String)> {
    vec![
        post("/mcp"),
        get(RESOURCE_METADATA_PATH),
        get("/mcp"),
        get(RESOURCE_METADATA_PATH),
        get("/mcp/.well-known/oauth-protected-resource"),
        get("/.well-known/oauth-protected-resource"),
        get("/.well-known/oauth-authorization-server/mcp"),
        get("/.well-known/openid-configuration/mcp"),
        get("/mcp/.well-known/openid-configuration"),
        get(AUTHORIZATION_SERVER_METADATA_PATH),
        // The second look that names what the document's URL answered.
        get(RESOURCE_METADATA_PATH),
    ]
}

#[tokio::test]
async fn missing_resource_metadata_is_named_and_no_endpoint_is_guessed() {
    let (text, sent, _) = fault("oauth-prm-missing").await;
    assert_eq!(
        text,
        format!(
            "{PREFIX}discovering the authorization server failed: the protected resource \
             metadata (RFC 9728) at ORIGIN/.well-known/oauth-protected-resource/mcp, which the \
             server's 401 names, answered HTTP 404, and the server's origin publishes no \
             authorization server metadata (RFC 8414) either, so no authorization server is \
             known to log in with; the server's OAuth setup is incomplete; tell its operator \
             (and check that the URL is the server's MCP endpoint)"
        )
    );
    assert_eq!(sent, guesses());
}

#[tokio::test]
async fn malformed_resource_metadata_is_named_and_no_endpoint_is_guessed() {
    let (text, sent, _) = fault("oauth-prm-malformed").await;
    assert_eq!(
        text,
        format!(
            "{PREFIX}discovering the authorization server failed: the protected resource \
             metadata (RFC 9728) at ORIGIN/.well-known/oauth-protected-resource/mcp, which the \
             server's 401 names, answered HTTP 200 with a body that is not a JSON object \
             (Content-Type `application/json`), and the server's origin publishes no \
             authorization server metadata (RFC 8414) either, so no authorization server is \
             known to log in with; the server's OAuth setup is incomplete; tell its operator \
             (and check that the URL is the server's MCP endpoint)"
        )
    );
    assert_eq!(sent, guesses());
}

/// The requests up to an authorization server metadata that is not usable, and the second
/// look at it.
fn server_metadata_requests() -> Vec<(String, String)> {
    vec![
        post("/mcp"),
        get(RESOURCE_METADATA_PATH),
        get(AUTHORIZATION_SERVER_METADATA_PATH),
        get("/.well-known/openid-configuration"),
        get(AUTHORIZATION_SERVER_METADATA_PATH),
    ]
}

#[tokio::test]
async fn missing_authorization_server_metadata_is_named() {
    let (text, sent, _) = fault("oauth-as-metadata-missing").await;
    assert_eq!(
        text,
        format!(
            "{PREFIX}discovering the authorization server failed: the protected resource \
             metadata at ORIGIN/.well-known/oauth-protected-resource/mcp names the authorization \
             server ORIGIN/, which publishes no usable metadata (RFC 8414, or OpenID Connect \
             discovery): its metadata at ORIGIN/.well-known/oauth-authorization-server answered \
             HTTP 404; the authorization server is misconfigured or down; try again later, and \
             tell the server's operator if it keeps failing"
        )
    );
    assert_eq!(sent, server_metadata_requests());
}

#[tokio::test]
async fn malformed_authorization_server_metadata_is_named() {
    let (text, sent, _) = fault("oauth-as-metadata-malformed").await;
    assert_eq!(
        text,
        format!(
            "{PREFIX}discovering the authorization server failed: the protected resource \
             metadata at ORIGIN/.well-known/oauth-protected-resource/mcp names the authorization \
             server ORIGIN/, which publishes no usable metadata (RFC 8414, or OpenID Connect \
             discovery): its metadata at ORIGIN/.well-known/oauth-authorization-server answered \
             HTTP 200 with a body that is not a JSON object (Content-Type `application/json`); \
             the authorization server is misconfigured or down; try again later, and tell the \
             server's operator if it keeps failing"
        )
    );
    assert_eq!(sent, server_metadata_requests());
}

#[tokio::test]
async fn an_issuer_mismatch_is_refused() {
    let (text, sent, _) = fault("oauth-issuer-mismatch").await;
    assert_eq!(
        text,
        format!(
            "{PREFIX}discovering the authorization server failed: Authorization server issuer \
             mismatch: expected ORIGIN/, received ORIGIN/elsewhere; the authorization server's \
             metadata names another issuer than the URL it was read from (RFC 8414 section \
             3.3), so it cannot be trusted; do not retry, and tell the server's operator"
        )
    );
    assert_eq!(
        sent,
        [
            post("/mcp"),
            get(RESOURCE_METADATA_PATH),
            get(AUTHORIZATION_SERVER_METADATA_PATH)
        ]
    );
}

#[tokio::test]
async fn an_authorization_server_without_s256_is_refused_before_registering() {
    // Advertising only `plain`, or no method at all (MCP 2025-11-25: the client refuses to
    // proceed when `code_challenge_methods_supported` is absent).
    for mode in ["oauth-no-pkce", "oauth-pkce-unadvertised"] {
        no_s256(mode).await;
    }
}

async fn no_s256(mode: &str) {
    let (text, sent, _) = fault(mode).await;
    assert_eq!(
        text,
        format!(
            "{PREFIX}checking the authorization server's metadata failed: Authorization server \
             does not support the required PKCE code challenge method (S256); the authorization \
             server does not advertise PKCE with S256 (`code_challenge_methods_supported`), \
             which MCP requires; ask its operator to enable it"
        )
    );
    assert_eq!(
        sent,
        [
            post("/mcp"),
            get(RESOURCE_METADATA_PATH),
            get(AUTHORIZATION_SERVER_METADATA_PATH)
        ]
    );
}

#[tokio::test]
async fn a_refused_registration_says_to_pin_a_client_id() {
    let (text, sent, _) = fault("oauth-registration-refused").await;
    assert_eq!(
        text,
        format!(
            "{PREFIX}registering the client failed: Registration failed: HTTP 400 Bad Request: \
             {{\"error\":\"invalid_client_metadata\",\"error_description\":\"Dynamic client \
             registration is disabled for this redirect URI\"}}; the authorization server \
             refused dynamic client registration: register a client with it and pin its id \
             (manifest `[servers.<name>.oauth] client-id`; `OAuthConfig::with_client_id`)"
        )
    );
    assert_eq!(sent, login_requests()[..4]);
}

#[tokio::test]
async fn a_denied_consent_says_to_log_in_and_approve() {
    let (text, sent, _) = fault("oauth-access-denied").await;
    assert_eq!(
        text,
        format!(
            "{PREFIX}the authorization server refused the authorization request: access_denied \
             (The user denied the request); the request was denied; log in again and approve \
             it"
        )
    );
    assert_eq!(sent, login_requests()[..5]);
}

#[tokio::test]
async fn a_redirect_with_another_state_is_refused_before_the_exchange() {
    let (text, sent, _) = fault("oauth-state-mismatch").await;
    assert_eq!(
        text,
        format!(
            "{PREFIX}the authorization server redirected with another `state` than the \
             authorization request carried (RFC 6749 section 10.12), so the redirect may be \
             forged or belong to another login; its code was not used; log in again; if it \
             keeps happening, tell the server's operator"
        )
    );
    // The code was never sent to the token endpoint.
    assert_eq!(sent, login_requests()[..5]);
}

#[tokio::test]
async fn a_token_endpoint_answering_a_page_is_named() {
    for (mode, detail) in [
        (
            "oauth-token-html-200",
            "Other error: unexpected response Content-Type: \"text/html\", should be \
             `application/json`",
        ),
        ("oauth-token-html-500", "expected value at line 1 column 1"),
    ] {
        let (text, sent, _) = fault(mode).await;
        assert_eq!(
            text,
            format!(
                "{PREFIX}exchanging the authorization code at the token endpoint ORIGIN/token \
                 failed: OAuth token exchange failed: {detail}; the token endpoint did not \
                 answer with a token (a JSON object, RFC 6749 section 5.1), as when it fails or \
                 a proxy answers with a page; try again later, and tell the server's operator \
                 if it keeps failing"
            ),
            "{mode}"
        );
        assert_eq!(sent, login_requests(), "{mode}");
    }
}

// ---------------------------------------------------------------------------------------------
// Secrets: nothing the authorization server issued or received reaches a log line, an error
// or a `Debug` output (in a child process, which gets the variables)
// ---------------------------------------------------------------------------------------------

/// Set in the child process: the helper below runs only there.
const SECRETS_HELPER: &str = "OMA_MCP_TEST_OAUTH_SECRETS_HELPER";

/// Runs [`helper_no_secret_reaches_a_log_an_error_or_a_debug`] in a child process of this
/// test binary with `OMA_MCP_LOG=trace` and the credential directory in a temporary directory
/// (a test cannot set variables in its own process).
#[tokio::test]
async fn no_secret_reaches_a_log_an_error_or_a_debug() {
    let dir = tempfile::tempdir().unwrap();
    let test = "oauth::helper_no_secret_reaches_a_log_an_error_or_a_debug";
    crate::run_in_child(
        test,
        &[
            (SECRETS_HELPER, std::ffi::OsStr::new("1")),
            ("OMA_MCP_LOG", std::ffi::OsStr::new("trace")),
            (CREDENTIALS_DIR_ENV, dir.path().as_os_str()),
        ],
    )
    .await;
}

/// Everything `tracing` emits, formatted as `OMA_MCP_LOG` filters it, kept in memory.
#[derive(Clone, Default)]
struct LogBuffer(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for LogBuffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for LogBuffer {
    type Writer = LogBuffer;

    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

impl LogBuffer {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

/// Every secret in the log of a fault server: access and refresh tokens and client secrets
/// it answered with, codes it redirected with, and PKCE verifiers, codes, refresh tokens and
/// client secrets it received (in a form or as HTTP basic credentials).
fn secrets_of(entries: &[Value]) -> Vec<String> {
    let mut secrets = Vec::new();
    for entry in entries {
        let answer = &entry["answer"]["json"];
        for field in ["access_token", "refresh_token", "client_secret"] {
            if let Some(secret) = answer[field].as_str() {
                secrets.push(secret.to_owned());
            }
        }
        if let Some(location) = entry["answer"]["location"].as_str()
            && let Some((_, query)) = location.split_once('?')
        {
            secrets.extend(form(query.as_bytes()).remove("code"));
        }
        if path(entry) == TOKEN_PATH {
            let mut sent = token_form(entry);
            for field in ["code", "code_verifier", "refresh_token", "client_secret"] {
                secrets.extend(sent.remove(field));
            }
        }
        if let Some(basic) = entry["headers"]["authorization"]
            .as_str()
            .and_then(|h| h.strip_prefix("Basic "))
        {
            let pair = base64::engine::general_purpose::STANDARD
                .decode(basic)
                .unwrap();
            let pair = String::from_utf8(pair).unwrap();
            secrets.push(pair.split_once(':').unwrap().1.to_owned());
        }
    }
    secrets.sort();
    secrets.dedup();
    secrets
}

/// Helper of [`no_secret_reaches_a_log_an_error_or_a_debug`]: a login, calls, a refresh, a
/// later client from the stored login, the client credentials grant and failures (a refused
/// refresh token, a token endpoint answering a page, a foreign `state`), everything logged at
/// `trace`; then no secret of any of those servers may appear in the log, in an error's
/// `Display` or `Debug`, or in the `Debug` of a config or a client.
#[tokio::test]
#[ignore = "a helper: runs in a child process of no_secret_reaches_a_log_an_error_or_a_debug"]
async fn helper_no_secret_reaches_a_log_an_error_or_a_debug() {
    use tracing_subscriber::layer::SubscriberExt;
    if std::env::var_os(SECRETS_HELPER).is_none() {
        return;
    }
    let buffer = LogBuffer::default();
    let filter = tracing_subscriber::EnvFilter::new(std::env::var("OMA_MCP_LOG").unwrap());
    let subscriber = tracing_subscriber::registry().with(filter).with(
        tracing_subscriber::fmt::layer()
            .with_ansi(false)
            .with_writer(buffer.clone()),
    );
    tracing::subscriber::set_global_default(subscriber).unwrap();
    let store = std::env::var(CREDENTIALS_DIR_ENV).unwrap();
    let mut texts: Vec<String> = Vec::new();
    let mut logs: Vec<Value> = Vec::new();

    // A login (the store of the environment), calls, a refresh.
    let server = faults("oauth", &["--token-lifetime-s", LIFETIME]);
    let url = server.url();
    let connect = config(url).with_oauth(login());
    texts.push(format!("{connect:?}"));
    let client = connect_mcp_tools(connect.clone()).await.unwrap();
    assert_eq!(echo(&client, "one").await.data, "Echo: one");
    tokio::time::sleep(EXPIRED).await;
    assert_eq!(echo(&client, "two").await.data, "Echo: two");
    texts.push(format!("{client:?}"));
    client.disconnect().await;
    assert_eq!(files(Path::new(&store)).len(), 1);
    // A later client with the stored login.
    let client = connect_mcp_tools(connect).await.unwrap();
    assert_eq!(echo(&client, "three").await.data, "Echo: three");
    texts.push(format!("{client:?}"));
    client.disconnect().await;

    // The client credentials grant with the secret in code.
    let machine = OAuthConfig::default()
        .with_grant(OAuthGrant::ClientCredentials)
        .with_client_id(MACHINE_CLIENT_ID)
        .with_client_secret(Secret::new(MACHINE_CLIENT_SECRET));
    let connect = config(url).with_oauth(machine);
    texts.push(format!("{connect:?}"));
    let client = connect_mcp_tools(connect).await.unwrap();
    assert_eq!(echo(&client, "machine").await.data, "Echo: machine");
    client.disconnect().await;
    logs.extend(log(url).await);
    drop(server);

    // Failures: a refused refresh token (the stored login of another server), a token
    // endpoint answering a page, a foreign state.
    let dir = tempfile::tempdir().unwrap();
    let server = faults(
        "oauth-refresh-invalid-grant",
        &["--token-lifetime-s", LIFETIME],
    );
    let url = server.url();
    let client = connect_mcp_tools(oauth_config(url, &login(), dir.path()))
        .await
        .unwrap();
    client.disconnect().await;
    tokio::time::sleep(EXPIRED).await;
    let err = connect_error(oauth_config(
        url,
        &OAuthConfig::authorization_code(),
        dir.path(),
    ))
    .await;
    texts.extend([err.chain().to_string(), format!("{err:?}")]);
    logs.extend(log(url).await);
    for mode in ["oauth-token-html-200", "oauth-state-mismatch"] {
        let server = faults(mode, &[]);
        let url = server.url();
        let err = connect_error(oauth_config(url, &login(), dir.path())).await;
        texts.extend([err.chain().to_string(), format!("{err:?}")]);
        logs.extend(log(url).await);
    }

    let mut secrets = secrets_of(&logs);
    secrets.push(MACHINE_CLIENT_SECRET.to_owned());
    let count = |prefix: &str| secrets.iter().filter(|s| s.starts_with(prefix)).count();
    // Access tokens: the login's, the refresh's, the machine's, the refused server's.
    assert!(count("at-") >= 4, "{secrets:?}");
    assert!(count("rt-") >= 3, "{secrets:?}");
    assert!(count("code-") >= 4, "{secrets:?}");
    assert!(count("cs-") >= 4, "{secrets:?}");
    // The PKCE verifiers (rmcp's are 43 or more unreserved characters).
    assert!(
        secrets.iter().filter(|s| s.len() >= 43).count() >= 3,
        "{secrets:?}"
    );

    let log_text = buffer.text();
    assert!(
        log_text.contains("obtained an OAuth access token")
            && log_text.contains("rmcp::transport::auth")
            && log_text.contains("TRACE"),
        "the log was not captured at trace: {log_text}"
    );
    texts.push(log_text);
    let mut leaks = Vec::new();
    for text in &texts {
        for line in text.lines() {
            if let Some(secret) = secrets.iter().find(|s| line.contains(s.as_str())) {
                leaks.push(format!("{secret}: {line}"));
            }
        }
    }
    assert_eq!(leaks, Vec::<String>::new(), "secrets leaked");
}
