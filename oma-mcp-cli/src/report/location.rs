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
/// new one (each as (shown path, text)). The rule: the file that holds the change's item
/// (tool, prompt, resource or template), the old one first (it is the reference, as `check`'s
/// committed snapshot is), at the item's line (a tool's change at the line of the member its
/// pointer names, `"description"` or `"inputSchema"`, where the tool has it); the new file
/// only for an item the old one does
/// not hold (an added one); a server line at its member's line (`instructions`,
/// `capabilities`, …) where the file has it; else the old file without a line.
pub fn place(old: &ShownFile, new: Option<&ShownFile>, change: &Change) -> (String, Option<usize>) {
    if let Some(line) = line_of(&old.1, change) {
        return (old.0.clone(), Some(line));
    }
    match new.and_then(|(file, text)| Some((file, line_of(text, change)?))) {
        Some((file, line)) => (file.clone(), Some(line)),
        None => (old.0.clone(), None),
    }
}

/// The 1-based line of a change's item or server member in a snapshot file.
fn line_of(text: &str, change: &Change) -> Option<usize> {
    match change.direction.item_kind() {
        Some(kind) => item_line(text, kind.list_key(), kind.key_member(), &change.tool),
        None if change.tool.is_empty() => server_line(text, &change.pointer),
        None => tool_line(text, &change.tool)
            .map(|line| member_line(text, line, &change.pointer).unwrap_or(line)),
    }
}

/// The line of the descriptor member a tool change's pointer starts with (`/description`,
/// `/inputSchema/properties/q` → `"inputSchema"`), searched in the tool's object around its
/// `"name"` line `name_line` (canonical text: the members at the name's indent, the object
/// closed by a line one level up); `None` for an empty pointer or a member the tool lacks.
fn member_line(text: &str, name_line: usize, pointer: &str) -> Option<usize> {
    let member = pointer.trim_start_matches('/').split('/').next()?;
    if member.is_empty() || member == "name" {
        return None;
    }
    let lines: Vec<&str> = text.lines().collect();
    let name = lines.get(name_line.checked_sub(1)?)?;
    let indent = name.len() - name.trim_start().len();
    let needle = format!(
        "{}{}:",
        " ".repeat(indent),
        serde_json::to_string(&oma_mcp_core::pointer::unescape_token(member)).ok()?
    );
    let outside = |l: &str| !l.trim().is_empty() && l.len() - l.trim_start().len() < indent;
    // Members sort by name: before and after `"name"`, up to the object's braces.
    let before = (0..name_line - 1)
        .rev()
        .take_while(|&i| !outside(lines[i]))
        .find(|&i| lines[i].starts_with(&needle));
    let after = || {
        (name_line..lines.len())
            .take_while(|&i| !outside(lines[i]))
            .find(|&i| lines[i].starts_with(&needle))
    };
    before.or_else(after).map(|i| i + 1)
}

/// The line of the top-level member a server line's pointer names (`/instructions`,
/// `/capabilities/tools`, `/serverInfo/version` → its top-level key), in a canonical file.
fn server_line(text: &str, pointer: &str) -> Option<usize> {
    let member = pointer.trim_start_matches('/').split('/').next()?;
    if member.is_empty() {
        return None;
    }
    let needle = format!("  {}:", serde_json::to_string(member).ok()?);
    text.lines()
        .position(|l| l.starts_with(&needle))
        .map(|i| i + 1)
}

/// The line of the `member` of the entry named `key` in the top-level list `list` of a
/// canonical snapshot (an entry's descriptor key sits at 8 spaces).
fn item_line(text: &str, list: &str, member: &str, key: &str) -> Option<usize> {
    let start = format!("  {}: [", serde_json::to_string(list).ok()?);
    let needle = format!(
        "        {}: {}",
        serde_json::to_string(member).ok()?,
        serde_json::to_string(key).ok()?
    );
    let mut in_list = false;
    for (i, line) in text.lines().enumerate() {
        if line.starts_with(&start) {
            in_list = true;
        } else if in_list && line.starts_with("  ]") {
            return None;
        } else if in_list && (line == needle || line.strip_suffix(',') == Some(needle.as_str())) {
            return Some(i + 1);
        }
    }
    None
}

/// The 1-based line of tool `tool`'s `"name"` in a snapshot file's `tools` (canonical text: a
/// descriptor key sits at 8 spaces) or in a bare `{"tools": [...]}` file with 2-space indent
/// (a tool key at 6 spaces); `None` for an empty name or a tool the file does not hold.
pub(super) fn tool_line(text: &str, tool: &str) -> Option<usize> {
    if tool.is_empty() {
        return None;
    }
    // Past the lists a snapshot holds before `tools` (prompts share the key `name`).
    let from = text
        .lines()
        .position(|l| l.starts_with("  \"tools\": ["))
        .unwrap_or(0);
    let name = serde_json::to_string(tool).ok()?;
    let at = |indent: usize| {
        let needle = format!("{}\"name\": {name}", " ".repeat(indent));
        text.lines()
            .skip(from)
            .position(|l| l == needle || l.strip_suffix(',') == Some(needle.as_str()))
            .map(|i| i + from + 1)
    };
    at(8).or_else(|| at(6))
}
