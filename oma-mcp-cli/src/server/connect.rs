//! Connecting to a server: the CLI's `clientInfo`, the server as messages name it, and
//! stopping a server that was only listed.

use std::time::Duration;

use oma_mcp_build::manifest::ServerPin;
use oma_mcp_runtime::{ConnectConfig, McpClient};

use crate::error::CliError;

/// The CLI's `clientInfo`: `oma-mcp` and its version (the library's default is the
/// reference contract's `open-multi-agent` `0.0.0`), unless the manifest's pin sets
/// `client-name` / `client-version`. Every tool, whatever the pin's `tools` and
/// `exclude-tools`: the CLI pins, checks, scans, lists and calls the whole server (`check`
/// reports the drift of tools outside the selection at info level).
pub fn cli_client(config: ConnectConfig, pin: Option<&ServerPin>) -> ConnectConfig {
    let mut config = config
        .with_tools(Vec::<String>::new())
        .with_exclude_tools(Vec::<String>::new());
    if pin.is_none_or(|p| p.client_name.is_none()) {
        config = config.with_client_name("oma-mcp");
    }
    if pin.is_none_or(|p| p.client_version.is_none()) {
        config = config.with_client_version(env!("CARGO_PKG_VERSION"));
    }
    config
}

/// The server of `config` as messages name it: its command line, or its URL redacted.
pub fn server_text(config: &ConnectConfig) -> String {
    match &config.url {
        Some(url) => oma_mcp_runtime::connect::redact_url(url),
        None => std::iter::once(config.command.as_str())
            .chain(config.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" "),
    }
}

/// Connects, naming the command line (or the redacted URL) in the error.
pub async fn connect(config: ConnectConfig) -> Result<McpClient, CliError> {
    let command = server_text(&config);
    oma_mcp_runtime::connect_mcp_tools(config)
        .await
        .map_err(|source| match source.command() {
            // The runtime's message already names the command: do not say it twice.
            Some(_) => CliError::Runtime(source),
            None => CliError::Connect {
                command,
                source: Box::new(source),
            },
        })
}

/// Stops a server this run only listed the tools of (`snapshot`, `list`, `check`, a refused
/// `call`): SIGTERM right after the EOF instead of waiting for the server to exit on its own
/// (server-everything takes about 350 ms), since nothing it did needs a clean exit.
pub async fn stop_listed(client: &McpClient) {
    client.disconnect_within(Duration::ZERO).await;
}
