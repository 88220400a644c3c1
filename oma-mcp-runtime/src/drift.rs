//! Drift at run time: the pure drift engine of `oma-mcp-core` ([`diff`], [`DriftReport`],
//! [`DriftPolicy`], every item of [`oma_mcp_core::drift`], re-exported here), and
//! [`connect_checked`], which connects to a server and checks its live `tools/list` against a
//! pinned snapshot. [`McpClient::drift_against`](crate::McpClient::drift_against) compares an
//! open connection. Cargo feature `drift` (on by default). How each change is classified:
//! [Drift rules](oma_mcp_core#drift-rules).
//!
//! # The quarantine
//! Under [`DriftPolicy::Quarantine`], [`connect_checked`] never refuses the connection;
//! instead it withholds each tool that differs from the pin ([`withheld_tools`]): such a tool
//! is left out of the tool layer ([`tool_definitions`](crate::tool::tool_definitions), the
//! executor's granted tools, [`ProviderToolbox`](crate::tool::ProviderToolbox), and so rig's
//! dynamic tools), and every call of it ([`McpClient::call_tool`](crate::McpClient::call_tool),
//! a typed [`McpClient::call`](crate::McpClient::call), the executor) fails at once, nothing
//! sent, with [`ToolWithheld`] ([`Error::Withheld`](crate::Error::Withheld),
//! [`CallError::Withheld`](crate::CallError::Withheld), or the executor's error result with its
//! text). Every other tool keeps working. [`McpClient::withheld`](crate::McpClient::withheld)
//! lists the withheld tools with their changes.
//!
//! The set follows the server during the session: after each
//! `notifications/tools/list_changed` (MCP specification 2025-06-18, "Tools — List Changed
//! Notification") the tools are listed again before the next call is let through, so a call
//! started after the notification was read never reaches a changed tool; many notifications
//! cost one listing; a tool that matches its pin again is released. What the tool layer shows
//! a model follows at the next call or [`McpClient::refresh_withheld`](crate::McpClient::refresh_withheld);
//! a tool withheld after the model was shown it is refused when called.
//!
//! ```no_run
//! # async fn demo(config: oma_mcp_runtime::ConnectConfig, pin: &str) -> Result<(), oma_mcp_runtime::Error> {
//! use oma_mcp_runtime::{DriftPolicy, connect_checked};
//!
//! let (client, _report) = connect_checked(config, pin, "demo", DriftPolicy::Quarantine).await?;
//! for (tool, withheld) in client.withheld() {
//!     println!("{tool}: withheld for {} changes", withheld.changes.len());
//! }
//! # Ok(()) }
//! ```

mod quarantine;

pub use oma_mcp_core::drift::*;
use oma_mcp_core::snapshot::{Snapshot, SnapshotTool};
pub(crate) use quarantine::Quarantine;

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
///
/// Under [`DriftPolicy::Quarantine`] the connection is never refused for drift: the tools
/// that differ from the snapshot are withheld instead (see [the quarantine](self#the-quarantine)).
pub async fn connect_checked(
    config: crate::ConnectConfig,
    snapshot_json: &str,
    server: &str,
    policy: DriftPolicy,
) -> Result<(crate::McpClient, DriftReport), crate::Error> {
    // Parsed before the server is started: a broken snapshot fails without spawning anything.
    let snapshot = Snapshot::parse_embedded(snapshot_json)?;
    let mut client = crate::connect_mcp_tools(config).await?;
    let report = client.drift_against(&snapshot);
    match report.apply(policy, server) {
        Ok(()) if policy == DriftPolicy::Quarantine => {
            let snapshot = client.tool_selection().retain(&snapshot);
            let live: Vec<SnapshotTool> = client
                .tools()
                .iter()
                .filter_map(|t| SnapshotTool::from_descriptor(t.descriptor.clone()).ok())
                .collect();
            client.quarantine = Some(Quarantine::new(server, snapshot, &live));
            Ok((client, report))
        }
        Ok(()) => Ok((client, report)),
        Err(e) => {
            client.disconnect().await;
            Err(e.into())
        }
    }
}
