//! The rules beyond the tools: the server's capabilities, instructions and `serverInfo`
//! texts, and its prompts, resources and resource templates, each kind compared only where
//! both snapshots pin it. The rules are in the crate docs, [Drift rules](crate#drift-rules).

use std::collections::BTreeSet;

use serde_json::Value;

use super::message::{cut, quote, show, text_message};
use super::rules::field_message;
use super::schema;
use super::{Change, ChangeKind, Direction, Severity};
use crate::snapshot::{ItemKind, Pin, Snapshot, SnapshotItem};

/// The server-level lines beyond protocol and server version: `serverInfo` name and title,
/// a format 1 pin against a reading that pins more, capabilities and instructions.
pub(super) fn server_changes(old: &Snapshot, new: &Snapshot, out: &mut Vec<Change>) {
    for key in ["name", "title"] {
        let get = |s: &Snapshot| s.server_info.as_ref().and_then(|i| i.get(key)).cloned();
        if let (Some(o), Some(n)) = (get(old), get(new))
            && o != n
        {
            out.push(server(
                ChangeKind::ServerInfoChanged,
                &format!("/serverInfo/{key}"),
                Severity::Info,
                format!("server {key} {} → {}", show(&o), show(&n)),
            ));
        }
    }
    if old.format_version() == 1 && (new.pins(Pin::Prompts) || new.pins(Pin::Resources)) {
        out.push(server(
            ChangeKind::SnapshotFormatOld,
            "/format",
            Severity::Info,
            "the snapshot is in format oma-mcp-snapshot/1 and pins the tools only: take a new \
             snapshot with `oma-mcp snapshot` to pin the server's prompts, resources, \
             instructions and capabilities too"
                .to_owned(),
        ));
    }
    if let (Some(o), Some(n)) = (&old.capabilities, &new.capabilities) {
        capabilities(o, n, out);
    }
    if old.pins(Pin::Instructions) && new.pins(Pin::Instructions) {
        let (o, n) = (old.instructions.as_deref(), new.instructions.as_deref());
        if o != n {
            let severity = if n.is_some() {
                Severity::Warning
            } else {
                Severity::Info
            };
            let (o, n) = (o.map(Value::from), n.map(Value::from));
            out.push(server(
                ChangeKind::InstructionsChanged,
                "/instructions",
                severity,
                text_message("server instructions", o.as_ref(), n.as_ref()),
            ));
        }
    }
    for kind in ItemKind::ALL {
        if let Some(bound) = new.cut.get(&kind)
            && new.pins(kind.pin())
        {
            out.push(server(
                ChangeKind::ListCut,
                &format!("/cut/{}", kind.list_key()),
                Severity::Info,
                format!(
                    "the server lists more than {bound} {}s: only the first {bound} are pinned \
                     and compared",
                    kind.noun()
                ),
            ));
        }
    }
}

/// The changes of every item kind both sides pin, prompts, then resource templates, then
/// resources, each by key.
pub(super) fn item_changes(old: &Snapshot, new: &Snapshot, out: &mut Vec<Change>) {
    for kind in ItemKind::ALL {
        if !(old.pins(kind.pin()) && new.pins(kind.pin())) {
            continue;
        }
        let cut = old.cut.get(&kind).or(new.cut.get(&kind)).copied();
        let (old_items, new_items) = (old.items(kind), new.items(kind));
        let keys: BTreeSet<&str> = old_items
            .iter()
            .chain(new_items)
            .map(SnapshotItem::key)
            .collect();
        for key in keys {
            match (old.item(kind, key), new.item(kind, key)) {
                (Some(_), None) => out.push(removed(kind, key, cut)),
                (None, Some(_)) => out.push(item(
                    kind,
                    key,
                    "",
                    added_kind(kind),
                    Severity::Info,
                    format!("{} {} was added", kind.noun(), quote(key)),
                )),
                (Some(o), Some(n)) if o.digest != n.digest => changed(o, n, out),
                _ => {}
            }
        }
    }
}

/// An item the new side lacks: breaking (a caller that gets or reads it fails), info when
/// a bound cut the list on either side (it may only be past the bound).
fn removed(kind: ItemKind, key: &str, cut: Option<usize>) -> Change {
    let (kind_of, severity) = match kind {
        ItemKind::Prompt => (ChangeKind::PromptRemoved, Severity::Breaking),
        ItemKind::Resource => (ChangeKind::ResourceRemoved, Severity::Breaking),
        ItemKind::ResourceTemplate => (ChangeKind::ResourceTemplateRemoved, Severity::Breaking),
    };
    let mut message = format!("{} {} was removed", kind.noun(), quote(key));
    let severity = match cut {
        Some(bound) => {
            message.push_str(&format!(
                " (or is past the bound of {bound}: the {} list was cut)",
                kind.noun()
            ));
            Severity::Info
        }
        None => severity,
    };
    item(kind, key, "", kind_of, severity, message)
}

fn added_kind(kind: ItemKind) -> ChangeKind {
    match kind {
        ItemKind::Prompt => ChangeKind::PromptAdded,
        ItemKind::Resource => ChangeKind::ResourceAdded,
        ItemKind::ResourceTemplate => ChangeKind::ResourceTemplateAdded,
    }
}

/// Every change between two versions of one item (their digests differ): at least one, an
/// info line for a difference no rule names (a member inside a prompt argument, a value of
/// an unexpected type), since the digest says something changed.
fn changed(old: &SnapshotItem, new: &SnapshotItem, out: &mut Vec<Change>) {
    let before = out.len();
    members(old, new, out);
    if out.len() == before {
        out.push(item(
            new.kind,
            new.key(),
            "",
            ChangeKind::FieldChanged,
            Severity::Info,
            format!(
                "the {} changed where no rule looks (its digest {} → {})",
                new.kind.noun(),
                old.digest,
                new.digest
            ),
        ));
    }
}

/// The member-by-member changes of one item.
fn members(old: &SnapshotItem, new: &SnapshotItem, out: &mut Vec<Change>) {
    let (kind, key) = (new.kind, new.key());
    let (od, nd) = (&old.descriptor, &new.descriptor);
    let mut handled = vec![kind.key_member()];
    // The texts a model or a user reads: rewritten is a warning (a possible rug pull).
    let texts: &[&str] = match kind {
        ItemKind::Resource => &["name", "title", "description"],
        _ => &["title", "description"],
    };
    for &member in texts {
        handled.push(member);
        let (o, n) = (od.get(member), nd.get(member));
        if o != n {
            let change_kind = match member {
                "title" => ChangeKind::TitleChanged,
                "description" => ChangeKind::DescriptionChanged,
                _ => ChangeKind::FieldChanged,
            };
            out.push(item(
                kind,
                key,
                &format!("/{member}"),
                change_kind,
                Severity::Warning,
                text_message(&format!("{} {member}", kind.noun()), o, n),
            ));
        }
    }
    if kind != ItemKind::Prompt {
        handled.push("mimeType");
        let (o, n) = (od.get("mimeType"), nd.get("mimeType"));
        if o != n {
            out.push(item(
                kind,
                key,
                "/mimeType",
                ChangeKind::MimeTypeChanged,
                Severity::Warning,
                text_message("mimeType", o, n),
            ));
        }
    }
    match kind {
        ItemKind::Prompt => {
            handled.push("arguments");
            prompt_arguments(key, od.get("arguments"), nd.get("arguments"), out);
        }
        ItemKind::ResourceTemplate => {
            handled.push("uriTemplate");
            uri_template(key, old.text("uriTemplate"), new.text("uriTemplate"), out);
        }
        ItemKind::Resource => {}
    }
    for member in schema::union_keys(od, nd) {
        if handled.contains(&member.as_str()) {
            continue;
        }
        let (o, n) = (od.get(&member), nd.get(&member));
        if o != n {
            out.push(item(
                kind,
                key,
                &format!("/{}", schema::escape(&member)),
                ChangeKind::FieldChanged,
                Severity::Info,
                field_message(&member, o, n),
            ));
        }
    }
}

/// A prompt's `arguments` (MCP `PromptArgument`: `name`, `description`, `required`),
/// matched by name: removed → breaking (a caller passing it is refused or ignored); added
/// required or newly required → breaking (a caller without it fails); added optional → info;
/// no longer required → warning (a typed constructor no longer takes it); description or
/// title rewritten → warning.
fn prompt_arguments(prompt: &str, old: Option<&Value>, new: Option<&Value>, out: &mut Vec<Change>) {
    let list = |v: Option<&Value>| -> Vec<Value> {
        v.and_then(Value::as_array).cloned().unwrap_or_default()
    };
    let (old, new) = (list(old), list(new));
    let name = |a: &Value| a.get("name").and_then(Value::as_str).map(str::to_owned);
    let required = |a: &Value| a.get("required").and_then(Value::as_bool).unwrap_or(false);
    let find = |side: &[Value], n: &str| {
        side.iter()
            .enumerate()
            .find(|(_, a)| name(a).as_deref() == Some(n))
            .map(|(i, a)| (i, a.clone()))
    };
    let names: BTreeSet<String> = old.iter().chain(&new).filter_map(name).collect();
    for arg in names {
        let at = |i: usize| format!("/arguments/{i}");
        let push = |out: &mut Vec<Change>, pointer: String, k, s, m| {
            out.push(item(ItemKind::Prompt, prompt, &pointer, k, s, m));
        };
        match (find(&old, &arg), find(&new, &arg)) {
            (Some((i, _)), None) => push(
                out,
                at(i),
                ChangeKind::PromptArgumentRemoved,
                Severity::Breaking,
                format!("argument {} was removed", quote(&arg)),
            ),
            (None, Some((i, a))) if required(&a) => push(
                out,
                at(i),
                ChangeKind::PromptArgumentRequired,
                Severity::Breaking,
                format!("required argument {} was added", quote(&arg)),
            ),
            (None, Some((i, _))) => push(
                out,
                at(i),
                ChangeKind::PromptArgumentAdded,
                Severity::Info,
                format!("optional argument {} was added", quote(&arg)),
            ),
            (Some((_, o)), Some((i, n))) => {
                match (required(&o), required(&n)) {
                    (false, true) => push(
                        out,
                        format!("{}/required", at(i)),
                        ChangeKind::PromptArgumentRequired,
                        Severity::Breaking,
                        format!("argument {} is now required", quote(&arg)),
                    ),
                    (true, false) => push(
                        out,
                        format!("{}/required", at(i)),
                        ChangeKind::PromptArgumentNoLongerRequired,
                        Severity::Warning,
                        format!(
                            "argument {} is no longer required (a typed constructor no longer \
                             takes it)",
                            quote(&arg)
                        ),
                    ),
                    _ => {}
                }
                for member in ["title", "description"] {
                    let (om, nm) = (o.get(member), n.get(member));
                    if om != nm {
                        let k = if member == "title" {
                            ChangeKind::TitleChanged
                        } else {
                            ChangeKind::DescriptionChanged
                        };
                        push(
                            out,
                            format!("{}/{member}", at(i)),
                            k,
                            Severity::Warning,
                            text_message(&format!("argument {} {member}", quote(&arg)), om, nm),
                        );
                    }
                }
            }
            (None, None) => {}
        }
    }
}

/// A template's `uriTemplate` (RFC 6570): other variables → breaking (a caller fills the old
/// ones); the same variables in another template → warning (the URIs it expands to moved).
fn uri_template(name: &str, old: Option<&str>, new: Option<&str>, out: &mut Vec<Change>) {
    if old == new {
        return;
    }
    let (o, n) = (old.unwrap_or_default(), new.unwrap_or_default());
    let (ov, nv) = (template_variables(o), template_variables(n));
    let (kind, severity, note) = if ov == nv {
        (
            ChangeKind::UriTemplateChanged,
            Severity::Warning,
            String::new(),
        )
    } else {
        let list = |v: &[String]| match v.is_empty() {
            true => "none".to_owned(),
            false => v.join(", "),
        };
        (
            ChangeKind::TemplateVariablesChanged,
            Severity::Breaking,
            format!(" (variables {} → {})", list(&ov), list(&nv)),
        )
    };
    out.push(item(
        ItemKind::ResourceTemplate,
        name,
        "/uriTemplate",
        kind,
        severity,
        format!("uriTemplate {} → {}{note}", quote(o), quote(n)),
    ));
}

/// The variable names of an RFC 6570 URI template, in order of first use: each expression
/// `{op var[:n|*], …}` with its operator (`+ # . / ; ? &`) and modifiers removed.
pub(crate) fn template_variables(template: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        let expression = &rest[open + 1..open + close];
        let expression = expression.trim_start_matches(['+', '#', '.', '/', ';', '?', '&']);
        for spec in expression.split(',') {
            let name = spec.split(':').next().unwrap_or_default();
            let name = name.trim_end_matches('*').trim();
            if !name.is_empty() && !names.iter().any(|n| n == name) {
                names.push(name.to_owned());
            }
        }
        rest = &rest[open + close + 1..];
    }
    names
}

/// Capabilities (MCP lifecycle, `ServerCapabilities`): a capability removed → breaking (what
/// needed it stops working); added → info; within one, an `experimental` or `extensions`
/// entry removed → breaking, added or changed → info; a flag (`listChanged`, `subscribe`)
/// that was true and is no longer → warning (updates stop arriving); any other change → info.
fn capabilities(old: &Value, new: &Value, out: &mut Vec<Change>) {
    for key in schema::union_keys(old, new) {
        let pointer = format!("/capabilities/{}", schema::escape(&key));
        match (old.get(&key), new.get(&key)) {
            (Some(_), None) => out.push(server(
                ChangeKind::CapabilityRemoved,
                &pointer,
                Severity::Breaking,
                format!(
                    "the server no longer declares the capability {}",
                    quote(&key)
                ),
            )),
            (None, Some(n)) => out.push(server(
                ChangeKind::CapabilityAdded,
                &pointer,
                Severity::Info,
                format!(
                    "the server now declares the capability {}: {}",
                    quote(&key),
                    cut(n)
                ),
            )),
            (Some(o), Some(n)) if o != n && !(o.is_object() && n.is_object()) => {
                out.push(server(
                    ChangeKind::CapabilityChanged,
                    &pointer,
                    Severity::Info,
                    field_message(&key, Some(o), Some(n)),
                ));
            }
            (Some(o), Some(n)) if o != n => {
                let entries = key == "experimental" || key == "extensions";
                for member in schema::union_keys(o, n) {
                    let at = format!("{pointer}/{}", schema::escape(&member));
                    let (om, nm) = (o.get(&member), n.get(&member));
                    if om == nm {
                        continue;
                    }
                    let what = format!("{}.{}", key, member);
                    let (kind, severity, message) = match (om, nm) {
                        (Some(_), None) if entries => (
                            ChangeKind::CapabilityRemoved,
                            Severity::Breaking,
                            format!("the server no longer declares {}", quote(&what)),
                        ),
                        (Some(Value::Bool(true)), _) => (
                            ChangeKind::CapabilityChanged,
                            Severity::Warning,
                            format!(
                                "capability {} true → {} (its updates no longer arrive)",
                                quote(&what),
                                nm.map_or("absent".to_owned(), show)
                            ),
                        ),
                        _ => (
                            ChangeKind::CapabilityChanged,
                            Severity::Info,
                            field_message(&what, om, nm),
                        ),
                    };
                    out.push(server(kind, &at, severity, message));
                }
            }
            _ => {}
        }
    }
}

fn server(kind: ChangeKind, pointer: &str, severity: Severity, message: String) -> Change {
    Change {
        tool: String::new(),
        pointer: pointer.to_owned(),
        kind,
        severity,
        direction: Direction::Server,
        message,
    }
}

fn item(
    kind: ItemKind,
    key: &str,
    pointer: &str,
    change: ChangeKind,
    severity: Severity,
    message: String,
) -> Change {
    Change {
        tool: key.to_owned(),
        pointer: pointer.to_owned(),
        kind: change,
        severity,
        direction: Direction::of_item(kind),
        message,
    }
}

#[cfg(test)]
mod tests;
