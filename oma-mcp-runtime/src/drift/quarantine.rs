//! The run-time quarantine of [`DriftPolicy::Quarantine`](super::DriftPolicy::Quarantine): the
//! pinned snapshot a connection was checked against, the tools withheld from it now, and the
//! check every call passes first.
//!
//! # What is guaranteed
//! The withheld set is computed at connect ([`connect_checked`](super::connect_checked)) and
//! again, by listing the tools anew (`tools/list`, all pages), once the server has sent
//! `notifications/tools/list_changed` (MCP specification 2025-06-18, "Tools — List Changed
//! Notification"). The session counts each such notification as it is read, before any later
//! message of the server; every call ([`McpClient::call_tool`], [`McpClient::call`] and
//! the tool layer built on them) compares that count with the one its withheld set was
//! computed at and, when the server announced a change since, lists the tools again before it
//! is let through. So a call started after the notification was read never reaches a tool
//! that changed; a notification read while a call is already on its way is seen by the next
//! call. Notifications are coalesced: however many arrive, a call waits for at most one
//! listing of its own (calls waiting together share it), and nothing is listed while no call
//! is made. A listing that fails fails the call that needed it (nothing is let through
//! unchecked) and is tried again by the next call.
//!
//! What a model is shown ([`tool_definitions`](crate::tool::tool_definitions),
//! [`ToolExecutor::granted_tools`](crate::tool::ToolExecutor::granted_tools),
//! [`ProviderToolbox::definitions`](crate::tool::ProviderToolbox::definitions)) reflects the
//! last listing; [`McpClient::refresh_withheld`] brings it up to date without a call.

use std::collections::BTreeMap;
use std::sync::Mutex;

use oma_mcp_core::descriptor::split_tool_entries;
use oma_mcp_core::drift::{DriftReport, ToolWithheld, Withheld, withheld_tools};
use oma_mcp_core::snapshot::{Snapshot, SnapshotTool};

use crate::{Error, McpClient};

/// A connection's quarantine: the pin, the tools withheld now and the count of
/// `notifications/tools/list_changed` they were computed at.
#[derive(Debug)]
pub(crate) struct Quarantine {
    /// The server's name in logs and errors.
    server: String,
    pinned: Snapshot,
    state: Mutex<State>,
    /// Held while the tools are listed again, so concurrent calls share one listing.
    relisting: tokio::sync::Mutex<()>,
}

#[derive(Debug)]
struct State {
    withheld: BTreeMap<String, Withheld>,
    /// The session's count of `notifications/tools/list_changed` when the listing behind
    /// `withheld` was requested.
    seen: u64,
}

impl Quarantine {
    /// The quarantine of a connection checked against `pinned` whose tools at connect are
    /// `live`. Its count starts at zero, so a notification read while connecting (before or
    /// after the connect-time listing) makes the first call list the tools again.
    pub(crate) fn new(server: &str, pinned: Snapshot, live: &[SnapshotTool]) -> Self {
        let withheld = withheld_tools(&pinned, live);
        for (tool, w) in &withheld {
            tracing::warn!(
                target: "oma_mcp::drift", server, tool = %tool, changes = w.changes.len(),
                "withheld the tool: it differs from its snapshot"
            );
        }
        Self {
            server: server.to_owned(),
            pinned,
            state: Mutex::new(State { withheld, seen: 0 }),
            relisting: tokio::sync::Mutex::new(()),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // The state is replaced whole, so a panic elsewhere cannot leave it half-written.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The tools withheld after the last listing.
    fn withheld(&self) -> BTreeMap<String, Withheld> {
        self.state().withheld.clone()
    }

    /// Why `raw_name` is withheld after the last listing, if it is.
    fn withheld_tool(&self, raw_name: &str) -> Option<Withheld> {
        self.state().withheld.get(raw_name).cloned()
    }

    /// Lists the tools again when the server announced a change since the last listing (see
    /// the [module docs](self)).
    async fn bring_up_to_date(&self, client: &McpClient) -> Result<(), Error> {
        if self.state().seen >= client.tools_list_changes() {
            return Ok(());
        }
        let _one_at_a_time = self.relisting.lock().await;
        // Read before the request is sent: a notification read after this is seen by the
        // next call.
        let announced = client.tools_list_changes();
        if self.state().seen >= announced {
            // Another call listed them while this one waited.
            return Ok(());
        }
        let entries = client.list_tools_raw().await?;
        let live: Vec<SnapshotTool> = split_tool_entries(entries)
            .tools
            .into_iter()
            .filter_map(|descriptor| SnapshotTool::from_descriptor(descriptor).ok())
            .filter(|tool| client.tool_selection().selects(tool.name()))
            .collect();
        let withheld = withheld_tools(&self.pinned, &live);
        let previous = std::mem::replace(
            &mut *self.state(),
            State {
                withheld: withheld.clone(),
                seen: announced,
            },
        );
        for (tool, w) in &withheld {
            if previous.withheld.get(tool) != Some(w) {
                DriftReport::new(w.changes.clone()).log(&self.server);
                tracing::warn!(
                    target: "oma_mcp::drift", server = %self.server, tool = %tool,
                    changes = w.changes.len(),
                    "withheld the tool: the server changed its tools and this one differs \
                     from its snapshot"
                );
            }
        }
        for tool in previous.withheld.keys() {
            if !withheld.contains_key(tool) {
                tracing::info!(
                    target: "oma_mcp::drift", server = %self.server, tool = %tool,
                    "the tool matches its snapshot again and is no longer withheld"
                );
            }
        }
        Ok(())
    }
}

/// The quarantine's part of the client (cargo feature `drift`).
impl McpClient {
    /// The tools withheld from this connection now, by raw MCP name, each with the changes
    /// that withheld it; empty unless it was made with
    /// [`DriftPolicy::Quarantine`](super::DriftPolicy::Quarantine) (see
    /// [`connect_checked`](super::connect_checked)). As of the last listing: call
    /// [`McpClient::refresh_withheld`] first to see a change the server announced since.
    pub fn withheld(&self) -> BTreeMap<String, Withheld> {
        self.quarantine
            .as_ref()
            .map(Quarantine::withheld)
            .unwrap_or_default()
    }

    /// Whether the tool with the raw MCP name `raw_name` is withheld now (as of the last
    /// listing, as [`McpClient::withheld`]).
    pub fn is_withheld(&self, raw_name: &str) -> bool {
        self.quarantine
            .as_ref()
            .is_some_and(|q| q.withheld_tool(raw_name).is_some())
    }

    /// Brings [`McpClient::withheld`] up to date: when the server sent
    /// `notifications/tools/list_changed` since the tools were last listed, lists them again
    /// and withholds what differs from the pin (what every call does first; see the
    /// [quarantine's guarantee](crate::drift#the-quarantine)). Nothing without a quarantine.
    ///
    /// # Errors
    /// As [`McpClient::list_tools_raw`].
    pub async fn refresh_withheld(&self) -> Result<(), Error> {
        match &self.quarantine {
            Some(q) => q.bring_up_to_date(self).await,
            None => Ok(()),
        }
    }

    /// The quarantine's check before a call of `raw_name` is sent: brings the withheld set
    /// up to date, then refuses a withheld tool.
    ///
    /// # Errors
    /// [`Error::Withheld`]; the errors of [`McpClient::refresh_withheld`].
    pub(crate) async fn admit(&self, raw_name: &str) -> Result<(), Error> {
        let Some(q) = &self.quarantine else {
            return Ok(());
        };
        q.bring_up_to_date(self).await?;
        match q.withheld_tool(raw_name) {
            Some(withheld) => Err(Error::Withheld(ToolWithheld::new(
                q.server.clone(),
                raw_name,
                withheld,
            ))),
            None => Ok(()),
        }
    }
}
