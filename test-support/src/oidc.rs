//! The OpenID provider test server, `tests/servers/oidc-login.mjs`: an MCP server whose tokens
//! come from `oidc-provider`, a certified OpenID provider this project did not write (pinned
//! in `tests/servers/package.json`), both in one Node process on loopback.
//!
//! [`start`] runs it with free ports and a short access token lifetime: the MCP URL is
//! `http://localhost:PORT/mcp`, the issuer `http://localhost:PORT` (two ports). The provider
//! registers clients dynamically (loopback redirect URIs on any port), shows a login page that
//! [`crate::browser`] can submit, issues JWT access tokens for the MCP URL with scope
//! `mcp:tools`, refresh tokens (for `offline_access`) rotated on every use, and client
//! credentials tokens to [`CLIENT_ID`] with [`CLIENT_SECRET`]. The MCP server has the tools
//! `greet` (`{name}` → `Hello, NAME!`) and `whoami` (the token's `subject`, `clientId` and
//! `scope`, as structured content).
//!
//! The server prints one line per event ([`OidcServer::events`]): `registration <client id>`,
//! `login <account>`, `authorization <client id>` (a code issued) and `grant <grant type>` (a
//! token issued), never a secret.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::http::{HttpServer, Ready, spawn_http_server};
use crate::{npm_package, workspace_root};

/// The client id of the static client of the client credentials grant.
pub const CLIENT_ID: &str = "oma-mcp-machine";

/// Its client secret (a test value, passed to the server in its environment).
pub const CLIENT_SECRET: &str = "machine-secret-for-tests";

/// The account the login page logs in.
pub const ACCOUNT: &str = "test-user";

/// The server script, relative to the workspace root.
pub const SCRIPT: &str = "tests/servers/oidc-login.mjs";

/// The running server: killed when dropped.
#[derive(Debug)]
pub struct OidcServer {
    server: HttpServer,
    issuer: String,
    /// The access token lifetime it was started with, in seconds.
    access_token_ttl: u64,
}

impl OidcServer {
    /// The MCP URL, `http://localhost:PORT/mcp`.
    pub fn url(&self) -> &str {
        self.server.url()
    }

    /// The issuer of the authorization server, `http://localhost:PORT`.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// What the server printed so far, one event a line (see the module docs).
    pub fn events(&self) -> Vec<String> {
        self.server
            .output()
            .lines()
            .filter_map(|l| l.strip_prefix("stdout: "))
            .filter(|l| !l.starts_with("issuer ") && !l.starts_with("listening on "))
            .map(str::to_owned)
            .collect()
    }

    /// The grant types of the tokens issued so far, in order, once there are at least
    /// `count` (waiting up to 5 s for the server's lines to arrive).
    pub fn grants(&self, count: usize) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let grants: Vec<String> = self
                .events()
                .iter()
                .filter_map(|e| e.strip_prefix("grant "))
                .map(str::to_owned)
                .collect();
            if grants.len() >= count || Instant::now() >= deadline {
                return grants;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The events that start with `prefix` (e.g. `authorization `), so far.
    pub fn count(&self, prefix: &str) -> usize {
        self.events()
            .iter()
            .filter(|e| e.starts_with(prefix))
            .count()
    }

    /// Everything the server wrote (stdout and stderr), for failure messages.
    pub fn output(&self) -> String {
        self.server.output()
    }

    /// Stops the server and starts it again on the same ports with the same access token
    /// lifetime: what the provider kept in memory (registered clients, grants, tokens) is
    /// gone, as when an authorization server with in-memory storage restarts.
    ///
    /// # Panics
    /// When the server does not start again within 30 s.
    #[track_caller]
    pub fn restart(self) -> OidcServer {
        let port = |url: &str| {
            url.trim_end_matches("/mcp")
                .rsplit(':')
                .next()
                .and_then(|p| p.parse::<u16>().ok())
                .unwrap_or_else(|| panic!("no port in {url}"))
        };
        let (mcp, auth) = (port(self.url()), port(self.issuer()));
        let ttl = self.access_token_ttl;
        drop(self);
        launch(ttl, mcp, auth)
    }
}

/// Starts the server with access tokens that live `access_token_ttl` seconds, or returns
/// `None` after one printed line when `oidc-provider` is not installed (`npm ci --prefix
/// tests/servers --ignore-scripts`); under `CI` that panics instead (see [`npm_package`]).
///
/// # Panics
/// Under `CI` without the npm packages; when the server does not start within 30 s.
#[track_caller]
pub fn start(access_token_ttl: u64) -> Option<OidcServer> {
    npm_package("oidc-provider")?;
    Some(launch(access_token_ttl, 0, 0))
}

/// The server on `mcp_port` and `auth_port` (0: any free port).
#[track_caller]
fn launch(access_token_ttl: u64, mcp_port: u16, auth_port: u16) -> OidcServer {
    let script: PathBuf = workspace_root().join(SCRIPT);
    let mut command = Command::new("node");
    command
        .arg(&script)
        .env("MCP_PORT", mcp_port.to_string())
        .env("AUTH_PORT", auth_port.to_string())
        .env("ACCESS_TOKEN_TTL", access_token_ttl.to_string())
        .env("CLIENT_CREDENTIALS_ID", CLIENT_ID)
        .env("CLIENT_CREDENTIALS_SECRET", CLIENT_SECRET);
    let server = spawn_http_server(command, Ready::ListeningLine, Duration::from_secs(30))
        .unwrap_or_else(|e| panic!("{SCRIPT} did not start: {e}"));
    // The issuer line comes before the listening line.
    let issuer = server
        .output()
        .lines()
        .find_map(|l| l.strip_prefix("stdout: issuer "))
        .map(str::to_owned)
        .unwrap_or_else(|| panic!("{SCRIPT} printed no issuer: {}", server.output()));
    OidcServer {
        server,
        issuer,
        access_token_ttl,
    }
}
