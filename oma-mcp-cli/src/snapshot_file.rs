//! Reading a snapshot or a bare `{"tools": [...]}` file, as every command that takes one does:
//! an entry of a bare listing that is not a tool object is left out with a warning naming the
//! file, its index and what it is, and the other tools are kept, as a live listing does.

use std::path::Path;

use oma_mcp_runtime::{Snapshot, snapshot::SnapshotError};

use crate::terminal;

/// [`Snapshot::read`], with a warning on stderr for each entry it left out.
///
/// # Errors
/// As [`Snapshot::read`].
pub fn read(path: &Path) -> Result<Snapshot, SnapshotError> {
    let snapshot = Snapshot::read(path)?;
    for entry in &snapshot.left_out {
        eprintln!(
            "oma-mcp: warning: {}: {}; left it out and kept the other tools",
            terminal::safe(&path.display().to_string()),
            terminal::safe(&entry.to_string())
        );
    }
    Ok(snapshot)
}
