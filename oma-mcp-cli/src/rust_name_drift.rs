//! The generated Rust names of both sides of `check` and `diff`, compared: a tool whose
//! marker type is named differently, a name that now belongs to another tool, and a property
//! whose field is named differently are breaking `rust_name_changed` changes.

use oma_mcp_build::codegen::{self, GenerateOptions};
use oma_mcp_runtime::{Change, Snapshot, drift};

use crate::error::CliError;

/// The `rust_name_changed` changes from `old` (the reference) to `new`, both named as the
/// code generator names them under `options` (its rename table). Each side uses the rename
/// entries of the tools it has (a tool only one side has is reported as added or removed);
/// a naming error on the new side (a rename entry that now collides) is itself a breaking
/// change, since code generated from it would not build.
///
/// # Errors
/// A rename entry that names a tool neither side has; the old side's naming error (code
/// generated from the reference would not build either).
pub fn changes(
    old: &Snapshot,
    new: &Snapshot,
    options: &GenerateOptions,
) -> Result<Vec<Change>, CliError> {
    let has = |snapshot: &Snapshot, tool: &str| snapshot.tools.iter().any(|t| t.name() == tool);
    let for_side = |snapshot: &Snapshot| {
        let mut side = options.clone();
        side.rename.retain(|tool, _| has(snapshot, tool));
        side
    };
    let mut unknown = options.clone();
    unknown
        .rename
        .retain(|tool, _| !has(old, tool) && !has(new, tool));
    if !unknown.rename.is_empty() {
        // Names the first such entry.
        codegen::rust_names(old, &unknown)?;
    }
    let old_names = codegen::rust_names(old, &for_side(old))?;
    Ok(match codegen::rust_names(new, &for_side(new)) {
        Ok(new_names) => {
            let mut changes = drift::rust_name_changes(&old_names.tools, &new_names.tools);
            changes.extend(drift::rust_field_changes(
                &old_names.fields,
                &new_names.fields,
            ));
            changes
        }
        Err(e) => vec![Change::rust_name_changed(
            "",
            format!("code generated from the new tool list would not build: {e}"),
        )],
    })
}
