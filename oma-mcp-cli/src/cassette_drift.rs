//! The cassettes of a pin (`cassettes` in the manifest), checked by `oma-mcp check` against
//! the pin's snapshot: a recorded call that no longer fits it is a breaking
//! `cassette_stale` change, as is a cassette that cannot be read.

use std::path::{Path, PathBuf};

use oma_mcp_runtime::cassette::{Cassette, CassetteError, stale_calls};
use oma_mcp_runtime::{Change, Snapshot};

use crate::report::relative;

/// The `cassette_stale` changes of the cassettes at `paths` (files, or directories whose
/// `*.json` files, in subdirectories too, are cassettes, in path order) against `snapshot`.
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

/// The cassette files at `path`: the file itself, or the `*.json` files (any case) of a
/// directory and its subdirectories, sorted; a path that cannot be read is a change.
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
    let mut files = Vec::new();
    let mut dirs = vec![path.to_owned()];
    while let Some(dir) = dirs.pop() {
        match std::fs::read_dir(&dir) {
            Ok(entries) => {
                for entry in entries.filter_map(Result::ok) {
                    let p = entry.path();
                    // `file_type` does not follow symbolic links: a link loop cannot recurse.
                    let Ok(kind) = entry.file_type() else {
                        continue;
                    };
                    if kind.is_dir() {
                        dirs.push(p);
                    } else if p
                        .extension()
                        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
                        && p.is_file()
                    {
                        files.push(p);
                    }
                }
            }
            Err(e) => changes.push(Change::cassette_stale(
                "",
                format!("cassettes {} cannot be listed: {e}", relative(&dir)),
            )),
        }
    }
    files.sort();
    files
}
