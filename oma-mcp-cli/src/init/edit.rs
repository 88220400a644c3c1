//! Found servers merged into the text of `oma-mcp.toml` with `toml_edit`, which keeps the
//! rest of the file as it is: other tables, other keys of a pin (`prefix`, `snapshot`,
//! `consequential`, …), comments and layout. A new pin is a `[servers.<name>]` table at the
//! end; a pin of the same name is updated in place, and a key whose value is already right
//! is left untouched, so running `init` again changes nothing.

use std::collections::BTreeMap;
use std::path::Path;

use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, Value};

use super::source::{Found, Transport};
use crate::error::CliError;

/// The text of the manifest at `path` that `init` and `add` edit: empty when there is none
/// yet (they create it).
///
/// # Errors
/// [`oma_mcp_build::Error::ManifestIo`] naming the file when it exists but cannot be read.
pub fn manifest_text(path: &Path) -> Result<String, CliError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(source) => Err(CliError::Build(oma_mcp_build::Error::manifest_io(
            path, source,
        ))),
    }
}

/// The keys of a pin that `init` owns: written from the client's file, removed when the file
/// no longer has them. Every other key is the user's.
const OWNED: [&str; 9] = [
    "command",
    "args",
    "cwd",
    "env",
    "pass-env",
    "url",
    "headers",
    "bearer-env",
    "header-env",
];

/// What happened to one found server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// A new `[servers.<name>]` table.
    Added(String),
    /// The pin of that name was changed.
    Updated(String),
    /// The pin of that name already says the same.
    Unchanged(String),
}

impl Change {
    /// The server's manifest name.
    pub fn name(&self) -> &str {
        match self {
            Change::Added(n) | Change::Updated(n) | Change::Unchanged(n) => n,
        }
    }
}

/// The merged manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    /// The new text of the manifest.
    pub text: String,
    /// One entry per server written, in the order found.
    pub changes: Vec<Change>,
    /// Servers skipped because the manifest or an earlier file already has them.
    pub warnings: Vec<String>,
}

/// How a server is recognised under another name: its command and arguments, or its URL.
fn identity(transport: &Transport) -> (String, Vec<String>) {
    match transport {
        Transport::Command { command, args, .. } => (command.clone(), args.clone()),
        Transport::Url { url, .. } => (url.clone(), Vec::new()),
    }
}

/// The identity of an existing pin, when it has a `command` or a `url`.
fn existing_identity(table: &Table) -> Option<(String, Vec<String>)> {
    if let Some(url) = table.get("url").and_then(Item::as_str) {
        return Some((url.to_owned(), Vec::new()));
    }
    let command = table.get("command").and_then(Item::as_str)?;
    let args = match table.get("args").map(Simple::of) {
        Some(Simple::List(list)) => list,
        _ => Vec::new(),
    };
    Some((command.to_owned(), args))
}

/// A value `init` writes, compared by content (not by layout).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Simple {
    Str(String),
    List(Vec<String>),
    Map(BTreeMap<String, String>),
    Other,
}

impl Simple {
    fn of(item: &Item) -> Self {
        let strings = |values: &mut dyn Iterator<Item = (&str, &Value)>| {
            values
                .map(|(k, v)| v.as_str().map(|v| (k.to_owned(), v.to_owned())))
                .collect::<Option<BTreeMap<_, _>>>()
                .map_or(Simple::Other, Simple::Map)
        };
        match item {
            Item::Value(Value::String(s)) => Simple::Str(s.value().clone()),
            Item::Value(Value::Array(a)) => a
                .iter()
                .map(|v| v.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .map_or(Simple::Other, Simple::List),
            Item::Value(Value::InlineTable(t)) => strings(&mut t.iter()),
            Item::Table(t) => strings(&mut t.iter().filter_map(|(k, v)| Some((k, v.as_value()?)))),
            _ => Simple::Other,
        }
    }

    fn item(&self) -> Item {
        match self {
            Simple::Str(s) => toml_edit::value(s.as_str()),
            Simple::List(list) => {
                toml_edit::value(list.iter().map(String::as_str).collect::<Array>())
            }
            Simple::Map(map) => {
                let mut table = InlineTable::new();
                for (k, v) in map {
                    table.insert(k, v.as_str().into());
                }
                toml_edit::value(table)
            }
            Simple::Other => Item::None,
        }
    }
}

/// The owned keys of a found server's pin, in the order a new table lists them.
fn wanted(transport: &Transport) -> Vec<(&'static str, Simple)> {
    let mut keys = Vec::new();
    match transport {
        Transport::Command {
            command,
            args,
            cwd,
            env,
            pass_env,
        } => {
            keys.push(("command", Simple::Str(command.clone())));
            if !args.is_empty() {
                keys.push(("args", Simple::List(args.clone())));
            }
            if let Some(cwd) = cwd {
                keys.push(("cwd", Simple::Str(cwd.clone())));
            }
            if !env.is_empty() {
                keys.push(("env", Simple::Map(env.clone())));
            }
            if !pass_env.is_empty() {
                keys.push(("pass-env", Simple::List(pass_env.clone())));
            }
        }
        Transport::Url {
            url,
            headers,
            bearer_env,
            header_env,
        } => {
            keys.push(("url", Simple::Str(url.clone())));
            if !headers.is_empty() {
                keys.push(("headers", Simple::Map(headers.clone())));
            }
            if let Some(var) = bearer_env {
                keys.push(("bearer-env", Simple::Str(var.clone())));
            }
            if !header_env.is_empty() {
                keys.push(("header-env", Simple::Map(header_env.clone())));
            }
        }
    }
    keys
}

/// Merges `found` into the manifest text `existing` (empty for a new manifest).
///
/// # Errors
/// The TOML parser's error when `existing` is not TOML, or `servers` (or a server) is not a
/// table.
pub fn merge(existing: &str, found: &[Found]) -> Result<Merged, String> {
    let mut doc: DocumentMut = existing
        .parse()
        .map_err(|e: toml_edit::TomlError| e.to_string())?;
    if !doc.contains_key("servers") {
        let mut servers = Table::new();
        servers.set_implicit(true);
        doc.insert("servers", Item::Table(servers));
    }
    let servers = doc["servers"]
        .as_table_mut()
        .ok_or_else(|| "`servers` is not a table".to_owned())?;
    let mut before: BTreeMap<String, (String, Vec<String>)> = BTreeMap::new();
    for (name, item) in servers.iter() {
        if let Some(identity) = item.as_table().and_then(existing_identity) {
            before.insert(name.to_owned(), identity);
        }
    }
    let mut changes: Vec<Change> = Vec::new();
    let mut written: BTreeMap<String, &Found> = BTreeMap::new();
    let mut warnings = Vec::new();
    for server in found {
        let at = format!("{}: `{}`", server.file, server.source_name);
        if let Some(first) = written.get(&server.name) {
            if first.transport != server.transport {
                warnings.push(format!(
                    "{at} is pinned as `{}`, which {} already gave a different server; \
                     skipped (rename one of them)",
                    server.name, first.file
                ));
            }
            continue;
        }
        let identity = identity(&server.transport);
        let same = before
            .iter()
            .find(|(name, id)| **name != server.name && **id == identity)
            .map(|(name, _)| name.clone())
            .or_else(|| {
                written
                    .iter()
                    .find(|(_, f)| identity_of(f) == identity)
                    .map(|(name, _)| name.clone())
            });
        if let Some(other) = same {
            warnings.push(format!(
                "{at} is already pinned as `{other}` (the same {}); skipped",
                match server.transport {
                    Transport::Command { .. } => "command and arguments",
                    Transport::Url { .. } => "URL",
                }
            ));
            continue;
        }
        let keys = wanted(&server.transport);
        let change = match servers.get_mut(&server.name) {
            Some(item) => {
                let table = item
                    .as_table_mut()
                    .ok_or_else(|| format!("`servers.{}` is not a table", server.name))?;
                let mut changed = false;
                for key in OWNED {
                    let want = keys.iter().find(|(k, _)| *k == key).map(|(_, v)| v);
                    match (table.get(key), want) {
                        (Some(_), None) => {
                            table.remove(key);
                            changed = true;
                        }
                        (Some(have), Some(want)) if Simple::of(have) == *want => {}
                        (Some(_), Some(want)) => {
                            // In place: the key's comments and position stay, and so does
                            // the comment after the value.
                            if let Some(have) = table.get_mut(key) {
                                let mut item = want.item();
                                if let (Some(old), Some(new)) =
                                    (have.as_value(), item.as_value_mut())
                                {
                                    *new.decor_mut() = old.decor().clone();
                                }
                                *have = item;
                            }
                            changed = true;
                        }
                        (None, Some(want)) => {
                            table.insert(key, want.item());
                            changed = true;
                        }
                        (None, None) => {}
                    }
                }
                if changed {
                    Change::Updated(server.name.clone())
                } else {
                    Change::Unchanged(server.name.clone())
                }
            }
            None => {
                let mut table = Table::new();
                for (key, value) in &keys {
                    table.insert(key, value.item());
                }
                servers.insert(&server.name, Item::Table(table));
                Change::Added(server.name.clone())
            }
        };
        written.insert(server.name.clone(), server);
        changes.push(change);
    }
    let text = if changes.iter().all(|c| matches!(c, Change::Unchanged(_))) {
        existing.to_owned()
    } else {
        doc.to_string()
    };
    Ok(Merged {
        text,
        changes,
        warnings,
    })
}

fn identity_of(found: &Found) -> (String, Vec<String>) {
    identity(&found.transport)
}
