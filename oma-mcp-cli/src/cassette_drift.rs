//! The cassettes of a pin (`cassettes` in the manifest), checked by `oma-mcp check` against
//! the pin's snapshot: a recorded call that no longer fits it is a breaking
//! `cassette_stale` change, as is a cassette that cannot be read.

use std::path::{Path, PathBuf};

use oma_mcp_runtime::cassette::{Cassette, CassetteError, stale_calls};
use oma_mcp_runtime::{Change, Snapshot};

use crate::report::relative;

/// The `cassette_stale` changes of the cassettes at `paths` (files, or directories whose
/// `*.json` files are cassettes, in name order) against `snapshot`.
pub fn changes(paths: &[PathBuf], snapshot: &Snapshot) -> Vec<Change> {
    let mut changes = Vec::new();
    for path in paths {
        for file in cassette_files(path, &mut changes) {
            let cassette = match Cassette::read(&file) {
                Ok(cassette) => cassette,
                Err(CassetteError::Format {
                    pointer, reason, ..
                }) => {
                    changes.push(Change::cassette_stale(
                        "",
                        format!(
                            "cassette {} is not valid: at {pointer}: {reason}; fix it or record \
                             it again",
                            relative(&file)
                        ),
                    ));
                    continue;
                }
                Err(e) => {
                    changes.push(Change::cassette_stale("", crate::output::error_chain(&e)));
                    continue;
                }
            };
            for stale in stale_calls(&cassette, snapshot) {
                changes.push(Change::cassette_stale(
                    stale.tool.clone(),
                    format!(
                        "cassette {}: {stale}; record the session again",
                        relative(&file)
                    ),
                ));
            }
        }
    }
    changes
}

/// The cassette files at `path`: the file itself, or a directory's `*.json` files; a path
/// that cannot be read is a change.
fn cassette_files(path: &Path, changes: &mut Vec<Change>) -> Vec<PathBuf> {
    if !path.is_dir() {
        if !path.exists() {
            changes.push(Change::cassette_stale(
                "",
                format!(
                    "cassette {} does not exist; record it, or remove it from the pin's \
                     `cassettes`",
                    relative(path)
                ),
            ));
            return Vec::new();
        }
        return vec![path.to_owned()];
    }
    match std::fs::read_dir(path) {
        Ok(entries) => {
            let mut files: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "json") && p.is_file())
                .collect();
            files.sort();
            files
        }
        Err(e) => {
            changes.push(Change::cassette_stale(
                "",
                format!("cassettes {} cannot be listed: {e}", relative(path)),
            ));
            Vec::new()
        }
    }
}
