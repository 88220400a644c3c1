//! Server- and tool-level rules: tools added and removed, description, title, annotations,
//! other descriptor fields; schemas are handed to [`super::schema`].

use crate::consequential::marked_by_annotations;
use serde_json::Value;

use super::message::{cut, quote, show, text_message};
use super::schema::{self, Ctx};
use super::{Change, ChangeKind, Direction, Severity};
use crate::snapshot::{Snapshot, SnapshotTool};

/// The protocol version and `serverInfo.version` lines (MCP lifecycle: `protocolVersion`,
/// `serverInfo`), only when both sides know the value; then the count of `tools/list` entries
/// that are not tool objects.
pub(super) fn server_changes(old: &Snapshot, new: &Snapshot) -> Vec<Change> {
    let mut changes = Vec::new();
    if let (Some(o), Some(n)) = (&old.protocol_version, &new.protocol_version)
        && o != n
    {
        changes.push(server_change(
            ChangeKind::ProtocolVersionChanged,
            "/protocolVersion",
            format!("protocol version {} → {}", quote(o), quote(n)),
        ));
    }
    let version = |s: &Snapshot| {
        s.server_info
            .as_ref()
            .and_then(|i| i.get("version"))
            .cloned()
    };
    if let (Some(o), Some(n)) = (version(old), version(new))
        && o != n
    {
        changes.push(server_change(
            ChangeKind::ServerVersionChanged,
            "/serverInfo/version",
            format!("server version {} → {}", show(&o), show(&n)),
        ));
    }
    if let Some(change) = invalid_tools_change(old.invalid_tools, new.invalid_tools) {
        changes.push(change);
    }
    changes
}

/// A changed count of `tools/list` entries that are not tool objects (`invalidTools`): more
/// is a warning (they are left out, so a tool the server meant to offer may be missing; the
/// client's warnings name each entry), fewer is info.
fn invalid_tools_change(old: usize, new: usize) -> Option<Change> {
    if old == new {
        return None;
    }
    let entries = |n: usize| match n {
        1 => "1 entry in `tools/list` that is not a tool object".to_owned(),
        n => format!("{n} entries in `tools/list` that are not tool objects"),
    };
    let mut change = server_change(
        ChangeKind::InvalidToolsChanged,
        "/invalidTools",
        format!("the server now sends {} (was {old})", entries(new)),
    );
    if new > old {
        change.severity = Severity::Warning;
        change.message.push_str(
            "; such entries are left out, so a tool the server meant to offer may be missing \
             (the client's warnings at connect name each entry and what is wrong with it)",
        );
    }
    Some(change)
}

fn server_change(kind: ChangeKind, pointer: &str, message: String) -> Change {
    Change {
        tool: String::new(),
        pointer: pointer.to_owned(),
        kind,
        severity: Severity::Info,
        direction: Direction::Server,
        message,
    }
}

fn tool_change(
    tool: &str,
    pointer: &str,
    kind: ChangeKind,
    severity: Severity,
    message: String,
) -> Change {
    Change {
        tool: tool.to_owned(),
        pointer: pointer.to_owned(),
        kind,
        severity,
        direction: Direction::Tool,
        message,
    }
}

/// A tool the new list no longer has: breaking (generated code calls it).
pub(super) fn tool_removed(tool: &SnapshotTool) -> Change {
    tool_change(
        tool.name(),
        "",
        ChangeKind::ToolRemoved,
        Severity::Breaking,
        format!("tool {} was removed", quote(tool.name())),
    )
}

/// A generated Rust name that changed or moved to another tool: breaking.
pub(super) fn rust_name_change(tool: &str, message: String) -> Change {
    Change::rust_name_changed(tool, message)
}

/// A tool only the new list has: info.
pub(super) fn tool_added(tool: &SnapshotTool) -> Change {
    tool_change(
        tool.name(),
        "",
        ChangeKind::ToolAdded,
        Severity::Info,
        format!("tool {} was added", quote(tool.name())),
    )
}

/// The MCP 2025-06-18 `ToolAnnotations` hints and their defaults.
const HINT_DEFAULTS: [(&str, bool); 4] = [
    ("readOnlyHint", false),
    ("destructiveHint", true),
    ("idempotentHint", false),
    ("openWorldHint", true),
];

/// Every change between two versions of one tool (their digests differ).
pub(super) fn tool_changes(old: &SnapshotTool, new: &SnapshotTool, out: &mut Vec<Change>) {
    let name = new.name();
    let (od, nd) = (&old.descriptor, &new.descriptor);
    for key in ["description", "title"] {
        let (o, n) = (od.get(key), nd.get(key));
        if o != n {
            let kind = if key == "title" {
                ChangeKind::TitleChanged
            } else {
                ChangeKind::DescriptionChanged
            };
            out.push(tool_change(
                name,
                &format!("/{key}"),
                kind,
                Severity::Warning,
                text_message(&format!("tool {key}"), o, n),
            ));
        }
    }
    annotations(
        name,
        od.get("annotations"),
        nd.get("annotations"),
        &mut |c| out.push(c),
    );
    let empty = Value::Object(serde_json::Map::new());
    let input = |d: &'_ Value| -> Value { d.get("inputSchema").cloned().unwrap_or(empty.clone()) };
    let (oi, ni) = (input(od), input(nd));
    if oi != ni {
        Ctx::new(name, Direction::Input, &oi, &ni).run("/inputSchema", out);
    }
    match (od.get("outputSchema"), nd.get("outputSchema")) {
        (None, Some(_)) => out.push(Change {
            tool: name.to_owned(),
            pointer: "/outputSchema".into(),
            kind: ChangeKind::OutputSchemaAdded,
            severity: Severity::Info,
            direction: Direction::Output,
            message: "output schema added (typed output is now available)".into(),
        }),
        (Some(_), None) => out.push(Change {
            tool: name.to_owned(),
            pointer: "/outputSchema".into(),
            kind: ChangeKind::OutputSchemaRemoved,
            severity: Severity::Breaking,
            direction: Direction::Output,
            message: "output schema removed (structured content is no longer promised)".into(),
        }),
        (Some(o), Some(n)) if o != n => {
            Ctx::new(name, Direction::Output, o, n).run("/outputSchema", out);
        }
        _ => {}
    }
    let handled = [
        "name",
        "description",
        "title",
        "annotations",
        "inputSchema",
        "outputSchema",
    ];
    for key in schema::union_keys(od, nd) {
        if handled.contains(&key.as_str()) {
            continue;
        }
        let (o, n) = (od.get(&key), nd.get(&key));
        if o != n {
            let mut message = field_message(&key, o, n);
            if key == "execution" {
                message.push_str(&task_support_note(od, nd));
            }
            out.push(tool_change(
                name,
                &format!("/{}", schema::escape(&key)),
                ChangeKind::FieldChanged,
                Severity::Info,
                message,
            ));
        }
    }
}

/// What a change of `execution.taskSupport` (MCP 2025-11-25 tasks) means, after the
/// `execution` line: info for oma-mcp, which asks for a task where the tool requires one,
/// while a client without task support can no longer call a tool that became `required`.
fn task_support_note(old: &Value, new: &Value) -> String {
    use crate::task::TaskSupport;
    let (o, n) = (TaskSupport::of(old), TaskSupport::of(new));
    match (o, n) {
        _ if o == n => String::new(),
        (_, TaskSupport::Required) => format!(
            "; task support {} → required: oma-mcp calls the tool as a task (a client without \
             task support can no longer call it)",
            o.as_str()
        ),
        _ => format!("; task support {} → {}", o.as_str(), n.as_str()),
    }
}

/// `"key" changed: old → new` (values cut), `added: …` or `removed (was …)`.
pub(super) fn field_message(key: &str, old: Option<&Value>, new: Option<&Value>) -> String {
    match (old, new) {
        (Some(o), Some(n)) => format!("{} changed: {} → {}", quote(key), cut(o), cut(n)),
        (None, Some(n)) => format!("{} added: {}", quote(key), cut(n)),
        (Some(o), None) => format!("{} removed (was {})", quote(key), cut(o)),
        (None, None) => String::new(),
    }
}

/// Annotation rules (MCP 2025-06-18 `ToolAnnotations`): hints compared by effective value
/// (their defaults when absent); `title` as a text; other keys as warnings.
pub(super) fn annotations(
    tool: &str,
    old: Option<&Value>,
    new: Option<&Value>,
    push: &mut dyn FnMut(Change),
) {
    let get = |side: Option<&Value>, key: &str| side.and_then(|a| a.get(key)).cloned();
    let mut keys: Vec<String> = HINT_DEFAULTS.iter().map(|(k, _)| (*k).to_owned()).collect();
    let null = Value::Null;
    for key in schema::union_keys(old.unwrap_or(&null), new.unwrap_or(&null)) {
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    for key in keys {
        let (o, n) = (get(old, &key), get(new, &key));
        if o == n {
            continue;
        }
        let pointer = format!("/annotations/{}", schema::escape(&key));
        if key == "title" {
            push(tool_change(
                tool,
                &pointer,
                ChangeKind::TitleChanged,
                Severity::Warning,
                text_message("annotation title", o.as_ref(), n.as_ref()),
            ));
            continue;
        }
        let default = HINT_DEFAULTS
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, d)| *d);
        let Some(default) = default else {
            push(tool_change(
                tool,
                &pointer,
                ChangeKind::AnnotationChanged,
                Severity::Warning,
                format!("annotation {}", field_message(&key, o.as_ref(), n.as_ref())),
            ));
            continue;
        };
        let effective = |v: &Option<Value>| v.as_ref().and_then(Value::as_bool).unwrap_or(default);
        let (oe, ne) = (effective(&o), effective(&n));
        let shown = |v: &Option<Value>| match v {
            Some(v) => v.to_string(),
            None => format!("absent (default {default})"),
        };
        // The generated code marks a tool consequential only when its annotations say
        // `destructiveHint: true` (and not `readOnlyHint: true`), whatever the MCP default:
        // losing that, even for the same meaning, silently drops the confirmation; gaining it
        // makes every unconfirmed typed call of the tool stop compiling.
        let yes = Some(Value::Bool(true));
        let (was, is) = (marked_by_annotations(old), marked_by_annotations(new));
        let (unmarked, marked) = match key.as_str() {
            "destructiveHint" => (
                o == yes && n != yes && was && !is,
                o != yes && n == yes && !was && is,
            ),
            "readOnlyHint" => (
                o != yes && n == yes && was && !is,
                o == yes && n != yes && !was && is,
            ),
            _ => (false, false),
        };
        const UNMARKED: &str = "; the generated code no longer marks the tool consequential (CONSEQUENTIAL is false) unless the manifest lists it";
        const MARKED: &str = "; the generated code now marks the tool consequential (CONSEQUENTIAL is true): typed calls need `.confirmed()`, and the tool layer asks the gate, unless the manifest's `not-consequential` lists it";
        if oe == ne {
            let (kind, severity, note) = if unmarked || marked {
                (
                    ChangeKind::AnnotationChanged,
                    Severity::Warning,
                    format!(
                        " (same meaning for MCP){}",
                        if marked { MARKED } else { UNMARKED }
                    ),
                )
            } else {
                (
                    ChangeKind::AnnotationMadeExplicit,
                    Severity::Info,
                    " (same meaning)".to_owned(),
                )
            };
            push(tool_change(
                tool,
                &pointer,
                kind,
                severity,
                format!("annotation {key} {} → {}{note}", shown(&o), shown(&n)),
            ));
            continue;
        }
        let dangerous =
            (key == "readOnlyHint" && oe && !ne) || (key == "destructiveHint" && !oe && ne);
        let (severity, note) = match (dangerous, marked, unmarked) {
            (true, true, _) => (
                Severity::Breaking,
                format!("; the tool became more dangerous{MARKED}"),
            ),
            (true, false, _) => (
                Severity::Breaking,
                "; the tool became more dangerous: review its consequential setting".to_owned(),
            ),
            (false, true, _) => (Severity::Warning, MARKED.to_owned()),
            (false, false, true) => (Severity::Warning, UNMARKED.to_owned()),
            (false, false, false) => (Severity::Warning, String::new()),
        };
        push(tool_change(
            tool,
            &pointer,
            ChangeKind::AnnotationChanged,
            severity,
            format!("annotation {key} {} → {}{note}", shown(&o), shown(&n)),
        ));
    }
}
