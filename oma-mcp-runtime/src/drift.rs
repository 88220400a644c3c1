//! Drift at run time: the pure drift engine of `oma-mcp-core` ([`diff`], [`DriftReport`],
//! [`DriftPolicy`], every item of [`oma_mcp_core::drift`], re-exported here), and
//! [`connect_checked`], which connects to a server and checks its live `tools/list` against a
//! pinned snapshot. [`McpClient::drift_against`](crate::McpClient::drift_against) compares an
//! open connection. Cargo feature `drift` (on by default). How each change is classified:
//! [Drift rules](oma_mcp_core#drift-rules).

pub use oma_mcp_core::drift::*;
use oma_mcp_core::snapshot::Snapshot;

/// Connects to a server and checks its live tools against a pinned snapshot under `policy`,
/// in one call: [`connect_mcp_tools`](crate::connect_mcp_tools)`(config)`, then
/// [`McpClient::drift_against_embedded`](crate::McpClient::drift_against_embedded)`(snapshot_json)`
/// (the snapshot is the old side, the live server the new one), then
/// [`DriftReport::apply`]`(policy, server)`. Generated modules wrap it as
/// `connect(policy)`, with the manifest's `connect_config()`, `SNAPSHOT` and server name.
///
/// `snapshot_json` is snapshot text (a generated module's `SNAPSHOT`, or a committed
/// snapshot file's contents); `server` names the server in log events and in the error.
/// Returns the connected client and the report (also when the policy lets changes pass, so
/// the caller can show them).
///
/// # Errors
/// - [`Error::Snapshot`](crate::Error::Snapshot):
///   `snapshot_json` is not a snapshot (checked before the server is started);
/// - every error of [`connect_mcp_tools`](crate::connect_mcp_tools);
/// - [`Error::Drift`](crate::Error::Drift): the policy refuses the drift (a breaking change
///   under [`DriftPolicy::FailOnBreaking`], any change under [`DriftPolicy::FailOnAny`]); the
///   server is disconnected first.
pub async fn connect_checked(
    config: crate::ConnectConfig,
    snapshot_json: &str,
    server: &str,
    policy: DriftPolicy,
) -> Result<(crate::McpClient, DriftReport), crate::Error> {
    // Parsed before the server is started: a broken snapshot fails without spawning anything.
    let snapshot = Snapshot::parse_embedded(snapshot_json)?;
    let client = crate::connect_mcp_tools(config).await?;
    let report = client.drift_against(&snapshot);
    match report.apply(policy, server) {
        Ok(()) => Ok((client, report)),
        Err(e) => {
            client.disconnect().await;
            Err(e.into())
        }
    }
}
