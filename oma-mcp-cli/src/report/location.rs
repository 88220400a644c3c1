//! Where a change points (GitHub annotations, SARIF results): the file that holds the
//! change's tool and the tool's line in it, as paths relative to the working directory.

use std::path::Path;

use oma_mcp_runtime::Change;

use super::compared::Compared;

/// A file as (shown path, text).
pub type ShownFile = (String, String);

/// The old and the new file of a pair as (shown path, text), for [`place`].
pub fn files(c: &Compared) -> (ShownFile, Option<ShownFile>) {
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    let old = (relative(&c.file), read(&c.file));
    let new = c.new_file.as_deref().map(|p| (relative(p), read(p)));
    (old, new)
}

/// `path` relative to the current directory when it is inside it (GitHub resolves
/// annotation paths against the repository root, where CI jobs run).
pub fn relative(path: &Path) -> String {
    let cwd = std::env::current_dir().ok();
    let shown = cwd
        .as_deref()
        .and_then(|cwd| path.strip_prefix(cwd).ok())
        .unwrap_or(path);
    shown.to_string_lossy().into_owned()
}

/// Where a change's GitHub annotation points, as (file, line), from the old file and the
/// new one (each as (shown path, text)). The rule: the file that holds the change's tool,
/// the old one first (it is the reference, as `check`'s committed snapshot is), at the
/// tool's line; the new file only for a tool the old one does not hold (an added tool); the
/// old file without a line when neither holds it (a server line, a tool added to a live
/// server).
pub fn place(old: &ShownFile, new: Option<&ShownFile>, change: &Change) -> (String, Option<usize>) {
    if let Some(line) = tool_line(&old.1, &change.tool) {
        return (old.0.clone(), Some(line));
    }
    match new.and_then(|(file, text)| Some((file, tool_line(text, &change.tool)?))) {
        Some((file, line)) => (file.clone(), Some(line)),
        None => (old.0.clone(), None),
    }
}

/// The 1-based line of tool `tool`'s `"name"` in a snapshot file (canonical text: a
/// descriptor key sits at 8 spaces) or in a bare `{"tools": [...]}` file with 2-space indent
/// (a tool key at 6 spaces); `None` for an empty name or a tool the file does not hold.
pub(super) fn tool_line(text: &str, tool: &str) -> Option<usize> {
    if tool.is_empty() {
        return None;
    }
    let name = serde_json::to_string(tool).ok()?;
    let at = |indent: usize| {
        let needle = format!("{}\"name\": {name}", " ".repeat(indent));
        text.lines()
            .position(|l| l == needle || l.strip_suffix(',') == Some(needle.as_str()))
            .map(|i| i + 1)
    };
    at(8).or_else(|| at(6))
}
