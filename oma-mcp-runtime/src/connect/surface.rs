//! Reading a server's whole surface for a snapshot: [`McpClient::read_surface`] lists the
//! prompts, resources and resource templates a pin asks for, each only where the server
//! declares the capability, each bounded.

use std::collections::BTreeSet;

use oma_mcp_core::snapshot::{ItemKind, Pin, Snapshot, SnapshotItems, SnapshotSource};

use super::McpClient;
use crate::Error;
use crate::error::{Chain, RequestError};

/// A server's surface as [`McpClient::read_surface`] read it: the snapshot and what the
/// caller should be told.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SurfaceReading {
    /// The snapshot: the tools listed at connect, the capabilities, and what `pins` asked for.
    pub snapshot: Snapshot,
    /// One line per thing not pinned as asked: a list method that failed (naming the method
    /// and the error; the rest is still pinned), a list the bound cut, an entry left out.
    pub warnings: Vec<String>,
    /// The kinds asked for that could not be read, each with its failed method and error
    /// (`prompts/list: MCP error -32603: …`); they are not pinned.
    pub failed: std::collections::BTreeMap<Pin, String>,
}

impl McpClient {
    /// Reads what `pins` asks for beside the tools listed at connect: the instructions sent
    /// at connect ([`Pin::Instructions`]), every page of `prompts/list` ([`Pin::Prompts`],
    /// only when the server declares the `prompts` capability) and of `resources/list` and
    /// `resources/templates/list` ([`Pin::Resources`], only with the `resources`
    /// capability), each cut at `max_items` entries. The snapshot records `source` (as
    /// [`McpClient::snapshot_with_source`]) and the server's capabilities.
    ///
    /// A list method that fails (an error answer, a malformed page, a timeout) does not fail
    /// the reading: its [`Pin`] is left out (for a failed `resources/list` or
    /// `resources/templates/list`, both lists) and a warning names the method and the error,
    /// so the tools are still pinned. `resources/templates/list` answered with -32601 Method
    /// not found is an empty list (a server with resources and no templates). Entries without their key (a prompt's or template's
    /// `name`, a resource's `uri`) and repeated keys are left out with a warning each.
    ///
    /// # Errors
    /// [`Error::Snapshot`] when the server listed one tool name twice, as
    /// [`McpClient::snapshot_with_source`]; [`Error::Disconnected`] when the server went away
    /// (a list cannot be read from a server that is gone).
    pub async fn read_surface(
        &self,
        source: SnapshotSource,
        pins: &BTreeSet<Pin>,
        max_items: usize,
    ) -> Result<SurfaceReading, Error> {
        let mut snapshot = self.snapshot_with_source(source)?;
        if let Some(capabilities) = &self.capabilities {
            snapshot = snapshot.with_capabilities(capabilities.clone());
        }
        if pins.contains(&Pin::Instructions) {
            snapshot = snapshot.with_instructions(self.instructions.clone());
        }
        let mut warnings = Vec::new();
        let mut failed = std::collections::BTreeMap::new();
        for kind in ItemKind::ALL {
            if !pins.contains(&kind.pin()) {
                continue;
            }
            let capability = match kind.pin() {
                Pin::Prompts => "prompts",
                _ => "resources",
            };
            let declared = self
                .capabilities
                .as_ref()
                .is_some_and(|c| c.get(capability).is_some());
            if !declared {
                snapshot = snapshot.with_items(kind, Vec::new(), None);
                continue;
            }
            let method = kind.method();
            match self
                .list_pages(method, kind.result_member(), Some(max_items))
                .await
            {
                Ok((entries, cut)) => {
                    let listed = SnapshotItems::from_entries(kind, entries);
                    warnings.extend(listed.left_out);
                    if cut {
                        warnings.push(format!(
                            "{method}: the server lists more than {max_items} {}s; pinned the \
                             first {max_items} (raise the pin's `max-list-items` to pin more)",
                            kind.noun()
                        ));
                    }
                    snapshot = snapshot.with_items(kind, listed.items, cut.then_some(max_items));
                }
                Err(e @ Error::Disconnected(_)) => return Err(e),
                // Method not found: a server with resources but without templates lists none.
                Err(Error::Request(RequestError::Rpc { code: -32601, .. }))
                    if kind == ItemKind::ResourceTemplate =>
                {
                    snapshot = snapshot.with_items(kind, Vec::new(), None);
                }
                Err(e) => {
                    failed.insert(kind.pin(), format!("{method}: {}", Chain(&e)));
                    warnings.push(format!(
                        "{method} failed, so the server's {} are not pinned (the rest is): {}",
                        kind.pin(),
                        Chain(&e)
                    ));
                }
            }
        }
        for pin in failed.keys() {
            snapshot = snapshot.without_pin(*pin);
        }
        Ok(SurfaceReading {
            snapshot,
            warnings,
            failed,
        })
    }
}
