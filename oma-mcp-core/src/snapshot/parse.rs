//! Reading snapshot text: [`Snapshot::parse`], [`Snapshot::read`],
//! [`Snapshot::parse_embedded`].

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value};

use super::{
    ItemKind, SNAPSHOT_FORMAT, SNAPSHOT_FORMAT_1, Snapshot, SnapshotError, SnapshotItem,
    SnapshotSource, SnapshotTool, sorted_keys,
};

impl Snapshot {
    /// Parses snapshot text (format 2, or format 1 as earlier versions wrote it), or a bare
    /// `tools/list` result, or a JSON-RPC response holding one.
    ///
    /// `path` only names the input in error messages. A leading byte order mark (U+FEFF, as
    /// some Windows editors write) is ignored. In a bare `tools/list` result, an entry that is
    /// not a tool object (`null`, a number, an object without a string `name`) is left out
    /// and kept in [`Snapshot::left_out`], the other tools kept, as a live listing does
    /// ([`split_tool_entries`](crate::entries::split_tool_entries)); a top-level string
    /// `instructions` beside `tools` is pinned too.
    ///
    /// # Errors
    /// [`SnapshotError::Format`] naming `path` and what is wrong: not JSON, an unknown
    /// `format`, no `tools` array, a snapshot's tool without a string `name`, a digest that
    /// does not match its descriptor (the file was edited by hand; regenerate it), an
    /// `invalidTools` that is not a non-negative integer, a prompt, resource or template
    /// without its key, listed twice, or with a wrong digest, a `cut` that is not a map of
    /// list names to bounds.
    pub fn parse(text: &str, path: &Path) -> Result<Self, SnapshotError> {
        let bad = |reason: String| SnapshotError::Format {
            path: path.to_path_buf(),
            reason,
        };
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let root: Value = serde_json::from_str(text).map_err(|e| bad(format!("not JSON ({e})")))?;
        let Value::Object(mut root) = root else {
            return Err(bad("the top level is not a JSON object".into()));
        };
        if let Some(format) = root.get("format") {
            if format.as_str() != Some(SNAPSHOT_FORMAT)
                && format.as_str() != Some(SNAPSHOT_FORMAT_1)
            {
                return Err(bad(format!(
                    "/format is {format}, this oma-mcp reads \"{SNAPSHOT_FORMAT}\" and \
                     \"{SNAPSHOT_FORMAT_1}\""
                )));
            }
            return Self::parse_ours(root, path);
        }
        // A JSON-RPC response whose result is a tools/list result.
        if root.get("jsonrpc").is_some()
            && let Some(Value::Object(result)) = root.remove("result")
        {
            root = result;
        }
        let Some(Value::Array(tools)) = root.remove("tools") else {
            return Err(bad(
                "no `tools` array: expected an oma-mcp snapshot or a tools/list result {\"tools\": [...]}".into(),
            ));
        };
        // Entries that are not tool objects are left out, as a live listing leaves them out.
        let split = crate::entries::split_tool_entries(tools);
        let mut snapshot =
            Self::from_descriptors(None, None, None, split.tools).map_err(|e| match e {
                SnapshotError::Format { reason, .. } => bad(reason),
                other => other,
            })?;
        snapshot.invalid_tools = split.invalid.len();
        snapshot.left_out = split.invalid;
        if let Some(Value::String(instructions)) = root.remove("instructions") {
            snapshot = snapshot.with_instructions(Some(instructions));
        }
        // Keep what a corpus capture (`_source`) says about the server, when it says it.
        if let Some(Value::Object(src)) = root.get("_source") {
            snapshot.server_info = src.get("serverInfo").cloned().map(sorted_keys);
            snapshot.protocol_version = src
                .get("protocolVersion")
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        Ok(snapshot)
    }

    fn parse_ours(mut root: Map<String, Value>, path: &Path) -> Result<Self, SnapshotError> {
        let bad = |reason: String| SnapshotError::Format {
            path: path.to_path_buf(),
            reason,
        };
        let Some(Value::Array(entries)) = root.remove("tools") else {
            return Err(bad("/tools is missing or not an array".into()));
        };
        let mut tools = Vec::with_capacity(entries.len());
        for (i, entry) in entries.into_iter().enumerate() {
            let (descriptor, digest) = entry_parts(entry, &format!("/tools/{i}")).map_err(bad)?;
            let tool = SnapshotTool::from_descriptor(descriptor).map_err(|_| {
                bad(format!(
                    "/tools/{i}/descriptor/name is missing or not a string"
                ))
            })?;
            check_digest(
                &format!("/tools/{i}"),
                "tool",
                tool.name(),
                &digest,
                &tool.digest,
            )
            .map_err(bad)?;
            tools.push(tool);
        }
        let source = match root.get("source") {
            None | Some(Value::Null) => None,
            Some(Value::Object(s)) => Some(SnapshotSource::from_json(s).ok_or_else(|| {
                bad(
                    "/source must be {\"command\": string, \"args\": [string]} or {\"url\": \
                     string, \"headers\": {string: string}, \"headersFromEnv\": [string]}"
                        .into(),
                )
            })?),
            Some(_) => return Err(bad("/source is not an object".into())),
        };
        let protocol_version = match root.get("protocolVersion") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err(bad("/protocolVersion is not a string".into())),
        };
        let invalid_tools = match root.get("invalidTools") {
            None => 0,
            Some(count) => count
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| {
                    bad(format!(
                        "/invalidTools is {}, not a non-negative integer (the count of \
                         `tools/list` entries that are not tool objects)",
                        crate::quote::excerpt(count)
                    ))
                })?,
        };
        let mut snapshot = Self::from_descriptors(
            root.remove("serverInfo"),
            protocol_version,
            source,
            tools.into_iter().map(|t| t.descriptor),
        )
        .map(|snapshot| snapshot.with_invalid_tools(invalid_tools))
        .map_err(|e| match e {
            SnapshotError::Format { reason, .. } => bad(reason),
            other => other,
        })?;
        match root.remove("capabilities") {
            None | Some(Value::Null) => {}
            Some(c @ Value::Object(_)) => snapshot = snapshot.with_capabilities(c),
            Some(_) => return Err(bad("/capabilities is not an object".into())),
        }
        match root.remove("instructions") {
            None => {}
            Some(Value::Null) => snapshot = snapshot.with_instructions(None),
            Some(Value::String(s)) => snapshot = snapshot.with_instructions(Some(s)),
            Some(_) => return Err(bad("/instructions is not a string or null".into())),
        }
        let cut = read_cut(root.remove("cut")).map_err(bad)?;
        for kind in ItemKind::ALL {
            let key = kind.list_key();
            let Some(list) = root.remove(key) else {
                continue;
            };
            let Value::Array(entries) = list else {
                return Err(bad(format!("/{key} is not an array")));
            };
            let mut items: Vec<SnapshotItem> = Vec::with_capacity(entries.len());
            for (i, entry) in entries.into_iter().enumerate() {
                let at = format!("/{key}/{i}");
                let (descriptor, digest) = entry_parts(entry, &at).map_err(bad)?;
                let item = SnapshotItem::from_descriptor(kind, descriptor).ok_or_else(|| {
                    bad(format!(
                        "{at}/descriptor/{} is missing or not a string",
                        kind.key_member()
                    ))
                })?;
                check_digest(&at, kind.noun(), item.key(), &digest, &item.digest).map_err(bad)?;
                if items.iter().any(|other| other.key() == item.key()) {
                    return Err(bad(format!(
                        "{at} lists the {} {} a second time",
                        kind.noun(),
                        crate::quote::quoted(item.key())
                    )));
                }
                items.push(item);
            }
            // A cut list holds exactly its bound: the server listed more, the first that many
            // were kept. Anything else is an edit (a `cut` that would turn removals into info).
            if let Some(&bound) = cut.get(&kind)
                && bound != items.len()
            {
                return Err(bad(format!(
                    "/cut/{key} is {bound}, but /{key} holds {} entries (a cut list holds exactly \
                     its bound)",
                    items.len()
                )));
            }
            snapshot = snapshot.with_items(kind, items, cut.get(&kind).copied());
        }
        if let Some(kind) = cut.keys().find(|kind| !snapshot.pins(kind.pin())) {
            return Err(bad(format!(
                "/cut/{} names a list the snapshot does not hold",
                kind.list_key()
            )));
        }
        Ok(snapshot)
    }

    /// Reads and parses a snapshot (or bare `tools/list`) file.
    ///
    /// # Errors
    /// [`SnapshotError::Io`] when the file cannot be read, [`SnapshotError::Format`] as in
    /// [`Snapshot::parse`], or naming the line and column of the first byte that is not
    /// UTF-8.
    pub fn read(path: &Path) -> Result<Self, SnapshotError> {
        let bytes = std::fs::read(path).map_err(|source| SnapshotError::Io {
            action: "read",
            path: path.to_path_buf(),
            source,
        })?;
        let text = String::from_utf8(bytes).map_err(|e| {
            let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
            let line = valid.iter().filter(|&&b| b == b'\n').count() + 1;
            let line_start = valid.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            let column = String::from_utf8_lossy(&valid[line_start..])
                .chars()
                .count()
                + 1;
            SnapshotError::Format {
                path: path.to_path_buf(),
                reason: format!(
                    "not UTF-8 (an invalid byte at line {line} column {column}, byte offset {})",
                    valid.len()
                ),
            }
        })?;
        Self::parse(&text, path)
    }

    /// Parses snapshot text embedded in code (a generated module's `SNAPSHOT`), named
    /// `<embedded snapshot>` in errors.
    ///
    /// # Errors
    /// [`SnapshotError::Format`] as in [`Snapshot::parse`].
    pub fn parse_embedded(text: &str) -> Result<Self, SnapshotError> {
        Self::parse(text, Path::new("<embedded snapshot>"))
    }
}

/// A file entry `{"descriptor": …, "digest": "…"}` at pointer `at`, taken apart.
fn entry_parts(entry: Value, at: &str) -> Result<(Value, Option<String>), String> {
    let Value::Object(mut entry) = entry else {
        return Err(format!("{at} is not an object"));
    };
    let Some(descriptor) = entry.remove("descriptor") else {
        return Err(format!("{at}/descriptor is missing"));
    };
    let digest = entry
        .get("digest")
        .and_then(Value::as_str)
        .map(str::to_owned);
    Ok((descriptor, digest))
}

/// The recorded digest at `at` against the one the descriptor hashes to.
fn check_digest(
    at: &str,
    noun: &str,
    key: &str,
    recorded: &Option<String>,
    computed: &str,
) -> Result<(), String> {
    match recorded {
        Some(d) if d == computed => Ok(()),
        Some(d) => Err(format!(
            "{at}/digest of {noun} \"{key}\" is {d} but its descriptor hashes to {computed}; \
             the file was edited by hand (to keep the edit, set the digest to the new value)"
        )),
        None => Err(format!("{at}/digest is missing or not a string")),
    }
}

/// `/cut`: `{"prompts" | "resources" | "resourceTemplates": bound}`.
fn read_cut(cut: Option<Value>) -> Result<BTreeMap<ItemKind, usize>, String> {
    let Some(cut) = cut else {
        return Ok(BTreeMap::new());
    };
    let Value::Object(cut) = cut else {
        return Err("/cut is not an object".into());
    };
    cut.into_iter()
        .map(|(key, bound)| {
            let kind = ItemKind::ALL
                .into_iter()
                .find(|k| k.list_key() == key)
                .ok_or_else(|| format!("/cut/{key} is not a list a snapshot holds"))?;
            let bound = bound
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| format!("/cut/{key} is not a non-negative integer"))?;
            Ok((kind, bound))
        })
        .collect()
}
