//! oma-mcp's OAuth client (`oma-mcp-runtime`, cargo feature `oauth`) against `oidc-provider`,
//! a certified OpenID provider this project did not write, in front of the MCP server of
//! `tests/servers/oidc-login.mjs` (started on free ports by `oma_mcp_test_support::oidc`),
//! through the generated, typed API of the pin `oidc` in `tests/oma-mcp.toml`.
//!
//! A login whose browser is the test (`oma_mcp_test_support::browser`: it submits the
//! provider's login page), typed calls, a refresh once the 3-second access token expired (the
//! provider rotates the refresh token; no second authorization), a later client with the stored
//! login, and the client credentials grant; the committed snapshot of the pin must match the
//! live server.
//!
//! Without `npm ci --prefix tests/servers --ignore-scripts` the tests print one line and pass;
//! under `CI` they fail instead.

use std::path::Path;
use std::time::Duration;

use oma_mcp_runtime::oauth::{
    Authorize, Authorizer, LoginStore, OAuthClient, OAuthConfig, OAuthGrant, Secret, TokenSource,
};
use oma_mcp_runtime::{ConnectConfig, McpTool, connect_mcp_tools};
use oma_mcp_test_support::browser::Browser;
use oma_mcp_test_support::oidc::{self, ACCOUNT, CLIENT_ID, CLIENT_SECRET};

use crate::typed::committed;

/// The code `build.rs` generates for the pin `oidc`.
mod generated {
    oma_mcp_runtime::include_tools!("oidc");
}

/// The pin's committed snapshot.
const SNAPSHOT: &str = "tests/servers/oidc-login.snapshot.json";

/// The access token lifetime of the login test, in seconds.
const TTL: u64 = 3;

/// How long the login test waits for the access token to expire.
const EXPIRED: Duration = Duration::from_millis(3100);

/// The test as the user's browser: it submits the provider's login page and returns the
/// redirect to [`Authorize::redirect_uri`] (nothing listens there: it is read, not fetched).
struct TestBrowser;

impl Authorize for TestBrowser {
    fn redirect_uri(&self) -> String {
        "http://127.0.0.1/callback".to_owned()
    }

    fn authorize<'a>(
        &'a self,
        authorization_url: &'a str,
    ) -> oma_mcp_runtime::connect::BoxFuture<'a, Result<String, String>> {
        let url = authorization_url.to_owned();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || Browser::new().authorize(&url))
                .await
                .map_err(|e| format!("the browser thread failed: {e}"))?
        })
    }
}

/// The pin's generated connection with the URL the server was started at, its tokens from an
/// OAuth client with `oauth` and, when given, the logins kept in `store`.
fn pinned(url: &str, oauth: &OAuthConfig, store: Option<&Path>) -> ConnectConfig {
    let mut config = generated::connect_config();
    config.url = Some(url.to_owned());
    let mut client = OAuthClient::new(url, oauth, "oma-mcp-tests").unwrap();
    if let Some(dir) = store {
        client = client.with_store(LoginStore::new(dir));
    }
    config.with_token_provider(TokenSource::new(client))
}

/// The access and refresh token of the one login stored in `dir`.
fn stored_tokens(dir: &Path) -> (String, String) {
    let files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let login: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&files[0]).unwrap()).unwrap();
    let token = &login["credentials"]["token_response"];
    (
        token["access_token"].as_str().unwrap().to_owned(),
        token["refresh_token"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
    )
}

/// A login (dynamic registration, the provider's page, PKCE, the resource), typed calls, a
/// refresh after the access token expired with the refresh token rotated, a later client with
/// the stored login; the snapshot matches.
#[tokio::test]
async fn typed_calls_with_a_login_and_a_refresh_against_oidc_provider() {
    let Some(server) = oidc::start(TTL) else {
        return;
    };
    let url = server.url();
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("credentials");

    // The pin's OAuth settings as generated: the authorization code grant, errors naming
    // `oma-mcp login oidc`.
    let pinned_oauth = generated::connect_config().oauth.unwrap();
    assert_eq!(
        pinned_oauth,
        OAuthConfig::authorization_code().with_login_command("oma-mcp login oidc")
    );
    let login = pinned_oauth.with_authorizer(Authorizer::new(TestBrowser));
    let client = connect_mcp_tools(pinned(url, &login, Some(&store)))
        .await
        .unwrap_or_else(|e| panic!("{e}\nserver:\n{}", server.output()));
    assert_eq!(
        (generated::Greet::NAME, generated::Whoami::NAME),
        ("oidc_greet", "oidc_whoami")
    );

    let greeting = client.call(generated::GreetArgs::new("oma")).mapped().await;
    assert_eq!(
        (greeting.data.as_str(), greeting.is_error),
        ("Hello, oma!", false)
    );
    let client_id = LoginStore::new(&store)
        .load(url)
        .unwrap()
        .unwrap()
        .client_id;
    let me = generated::WhoamiOutput::new(ACCOUNT, client_id.clone(), "mcp:tools");
    let who = client
        .call(generated::WhoamiArgs::new())
        .typed()
        .await
        .unwrap();
    assert_eq!(who.output, me);
    let (access, refresh) = stored_tokens(&store);
    assert!(!refresh.is_empty(), "the provider issued no refresh token");
    assert_eq!(server.grants(1), ["authorization_code"]);

    tokio::time::sleep(EXPIRED).await;
    let greeting = client
        .call(generated::GreetArgs::new("again"))
        .mapped()
        .await;
    assert_eq!(
        (greeting.data.as_str(), greeting.is_error),
        ("Hello, again!", false)
    );
    let who = client
        .call(generated::WhoamiArgs::new())
        .typed()
        .await
        .unwrap();
    assert_eq!(who.output, me);
    let (new_access, new_refresh) = stored_tokens(&store);
    assert_ne!(new_access, access);
    assert_ne!(new_refresh, refresh, "the refresh token was not rotated");
    assert_eq!(server.grants(2), ["authorization_code", "refresh_token"]);
    assert_eq!(
        server.events(),
        [
            format!("registration {client_id}"),
            format!("login {ACCOUNT}"),
            format!("authorization {client_id}"),
            "grant authorization_code".to_owned(),
            "grant refresh_token".to_owned(),
        ]
    );

    // The pin's snapshot, as `oma-mcp snapshot` took it at the pinned URL, is the server's.
    let live = client
        .snapshot_with_source(generated::connect_config().snapshot_source())
        .unwrap();
    client.disconnect().await;
    assert!(
        live.to_canonical_string() == committed(SNAPSHOT),
        "the server of {} no longer matches {SNAPSHOT}; refresh it as tests/oma-mcp.toml \
         says\n--- live:\n{}",
        oidc::SCRIPT,
        live.to_canonical_string()
    );

    // A later client with the stored login and no browser: no new authorization.
    let later = connect_mcp_tools(pinned(
        url,
        &OAuthConfig::authorization_code(),
        Some(&store),
    ))
    .await
    .unwrap();
    let who = later
        .call(generated::WhoamiArgs::new())
        .typed()
        .await
        .unwrap();
    assert_eq!(who.output, me);
    later.disconnect().await;
    for event in ["registration ", "login ", "authorization "] {
        assert_eq!(server.count(event), 1, "{}", server.output());
    }
}

/// The client credentials grant of the provider's static confidential client: one token
/// request, typed calls as that client, nothing registered or stored.
#[tokio::test]
async fn typed_calls_with_the_client_credentials_grant_against_oidc_provider() {
    let Some(server) = oidc::start(60) else {
        return;
    };
    let machine = OAuthConfig::default()
        .with_grant(OAuthGrant::ClientCredentials)
        .with_client_id(CLIENT_ID)
        .with_client_secret(Secret::new(CLIENT_SECRET));
    let client = connect_mcp_tools(pinned(server.url(), &machine, None))
        .await
        .unwrap_or_else(|e| panic!("{e}\nserver:\n{}", server.output()));
    let who = client
        .call(generated::WhoamiArgs::new())
        .typed()
        .await
        .unwrap();
    assert_eq!(
        who.output,
        generated::WhoamiOutput::new(CLIENT_ID, CLIENT_ID, "mcp:tools")
    );
    let greeting = client
        .call(generated::GreetArgs::new("machine"))
        .mapped()
        .await;
    assert_eq!(greeting.data, "Hello, machine!");
    client.disconnect().await;
    assert_eq!(server.events(), ["grant client_credentials"]);
}
