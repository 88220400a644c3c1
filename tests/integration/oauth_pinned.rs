//! The code `build.rs` generates for the pin `login` of `tests/oma-mcp.toml`: the fault server
//! in `--mode oauth` pinned by nothing but its `url`. Its `connect_config()` uses the stored
//! login, as every `oma-mcp` command does: before a login the server's `401` asks for
//! `oma-mcp login login`, naming the credential store; after one (stored as `oma-mcp login`
//! stores it), the program connects and calls the typed tool. In a child process, which gets
//! the credential directory (the generated connection locates the user's store).

use oma_mcp_runtime::oauth::{CREDENTIAL_STORE_ENV, CREDENTIALS_DIR_ENV, OAuthConfig};
use oma_mcp_runtime::{McpTool, connect_mcp_tools};

use crate::faults;
use crate::http_client_faults::{chain, connect_error};
use crate::oauth::{PREFIX, login, oauth_config};
use crate::oauth_refused::under_ci;

/// The code `build.rs` generates for the pin `login`.
mod generated {
    oma_mcp_runtime::include_tools!("login");
}

/// Set in the child process: the helper below runs only there.
const HELPER: &str = "OMA_MCP_TEST_OAUTH_PINNED_HELPER";

/// Runs [`helper_a_url_pin_uses_the_stored_login`] in a child process of this test binary with
/// the credential directory in a temporary directory, secrets in its files (a test cannot set
/// variables in its own process).
#[tokio::test]
async fn a_url_pin_uses_the_stored_login() {
    let dir = tempfile::tempdir().unwrap();
    let test = "oauth_pinned::helper_a_url_pin_uses_the_stored_login";
    crate::run_in_child(
        test,
        &[
            (HELPER, std::ffi::OsStr::new("1")),
            (CREDENTIALS_DIR_ENV, dir.path().as_os_str()),
            (CREDENTIAL_STORE_ENV, std::ffi::OsStr::new("file")),
        ],
    )
    .await;
}

/// Helper of [`a_url_pin_uses_the_stored_login`].
#[tokio::test]
#[ignore = "a helper: runs in a child process of a_url_pin_uses_the_stored_login"]
async fn helper_a_url_pin_uses_the_stored_login() {
    if std::env::var_os(HELPER).is_none() {
        return;
    }
    let dir = std::path::PathBuf::from(std::env::var_os(CREDENTIALS_DIR_ENV).unwrap());
    let server = faults("oauth", &[]);
    let url = server.url();
    let mut config = generated::connect_config();
    assert_eq!(
        config.oauth,
        Some(
            OAuthConfig::authorization_code()
                .with_login_command("oma-mcp login login")
                .with_optional(true)
        )
    );
    config.url = Some(url.to_owned());

    let err = connect_error(config.clone()).await;
    assert_eq!(
        chain(&err, url).replace(&dir.display().to_string(), "DIR"),
        format!(
            "{PREFIX}the MCP server `URL` needs an OAuth login, and no usable access token is \
             held in the credential store DIR; run `oma-mcp login login`{}",
            under_ci()
        )
    );

    // The login, stored as `oma-mcp login` stores it.
    let client = connect_mcp_tools(oauth_config(url, &login(), &dir))
        .await
        .unwrap();
    client.disconnect().await;

    let client = connect_mcp_tools(config).await.unwrap();
    let echoed = client
        .call(generated::EchoArgs::new("typed"))
        .mapped()
        .await;
    assert_eq!(
        (generated::Echo::NAME, echoed.is_error, echoed.data.as_str()),
        ("login_echo", false, "Echo: typed")
    );
    client.disconnect().await;
}
