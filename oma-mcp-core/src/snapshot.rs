//! The snapshot: a canonical, committed JSON file holding a server's `tools/list` and, where a
//! pin asks for them, its prompts, resources, resource templates, instructions and
//! capabilities, each item with its digest, and where it was taken from. The format is in the crate docs,
//! [The snapshot format](crate#the-snapshot-format).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// A snapshot cannot be read, or its text is not a snapshot.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SnapshotError {
    /// A snapshot file could not be read or written.
    #[error("cannot {action} snapshot {path}")]
    #[non_exhaustive]
    Io {
        /// `read` or `write`.
        action: &'static str,
        /// The snapshot file.
        path: PathBuf,
        /// The underlying I/O error.
        #[source]
        source: std::io::Error,
    },

    /// A snapshot file is not valid JSON or not in a known shape.
    #[error("snapshot {path} is not valid: {reason}; regenerate it with `oma-mcp snapshot`")]
    #[non_exhaustive]
    Format {
        /// The snapshot file (`<tools/list>` for descriptors from a server,
        /// `<embedded snapshot>` for text embedded in generated code).
        path: PathBuf,
        /// What is wrong, with the JSON pointer where there is one.
        reason: String,
    },
}

impl SnapshotError {
    /// [`SnapshotError::Io`]: `action` (`read` or `write`) on the snapshot file `path` failed
    /// with `source`.
    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        SnapshotError::Io {
            action,
            path: path.into(),
            source,
        }
    }

    /// [`SnapshotError::Format`]: the snapshot text from `path` is not a snapshot, as
    /// `reason` says.
    pub fn format(path: impl Into<PathBuf>, reason: impl Into<String>) -> Self {
        SnapshotError::Format {
            path: path.into(),
            reason: reason.into(),
        }
    }
}

mod parse;
mod source;

pub use source::SnapshotSource;

/// The `format` value of the snapshot files this version writes ([`Snapshot::format_version`]
/// 2) and reads.
pub const SNAPSHOT_FORMAT: &str = "oma-mcp-snapshot/2";

/// The `format` of a snapshot of the tools alone, as earlier versions wrote every snapshot
/// ([`Snapshot::format_version`] 1): still read, and still written for such a snapshot so its
/// file does not change.
pub const SNAPSHOT_FORMAT_1: &str = "oma-mcp-snapshot/1";

/// One tool of a snapshot: the raw descriptor and its digest.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SnapshotTool {
    /// `sha256:<hex>` of [`canonical_json`] of `descriptor`.
    pub digest: String,
    /// The tool descriptor exactly as the server sent it in `tools/list` (keys sorted).
    pub descriptor: Value,
}

impl SnapshotTool {
    /// A snapshot tool from a raw descriptor; computes the digest and sorts the keys.
    ///
    /// # Errors
    /// [`SnapshotError::Format`] when the descriptor is not an object with a string `name`.
    pub fn from_descriptor(descriptor: Value) -> Result<Self, SnapshotError> {
        if descriptor.get("name").and_then(Value::as_str).is_none() {
            return Err(SnapshotError::Format {
                path: PathBuf::from("<tools/list>"),
                reason: format!(
                    "a tool descriptor has no string `name`: {}",
                    crate::quote::excerpt(&descriptor)
                ),
            });
        }
        let descriptor = sorted_keys(descriptor);
        Ok(Self {
            digest: digest(&descriptor),
            descriptor,
        })
    }

    /// The raw MCP tool name (`descriptor.name`).
    pub fn name(&self) -> &str {
        self.descriptor
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// The tool's `description`, if it has a string one.
    pub fn description(&self) -> Option<&str> {
        self.descriptor.get("description").and_then(Value::as_str)
    }

    /// The tool's `inputSchema` as sent (`None` when absent).
    pub fn input_schema(&self) -> Option<&Value> {
        self.descriptor.get("inputSchema")
    }

    /// The tool's `outputSchema` as sent (`None` when absent).
    pub fn output_schema(&self) -> Option<&Value> {
        self.descriptor.get("outputSchema")
    }

    /// The tool's `annotations` object as sent (`None` when absent).
    pub fn annotations(&self) -> Option<&Value> {
        self.descriptor.get("annotations")
    }
}

/// How many entries of each list (`prompts/list`, `resources/list`,
/// `resources/templates/list`) a snapshot pins by default: a server listing more (a file
/// system, a database) gets the first this many, in the server's order, and the snapshot's
/// `cut` says so. A manifest pin's `max-list-items` changes it.
pub const DEFAULT_MAX_LIST_ITEMS: usize = 1000;

/// What a snapshot pins beside the tools: a pin's `pin` list in the manifest. The server's
/// `serverInfo`, protocol version and capabilities are recorded whatever the list says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Pin {
    /// The server's `instructions` (the `initialize` or `server/discover` result).
    Instructions,
    /// `prompts/list`: each prompt's name, title, description and arguments.
    Prompts,
    /// `resources/list` and `resources/templates/list`.
    Resources,
    /// `tools/list`, always pinned.
    Tools,
}

impl Pin {
    /// Every kind, in the order of their names.
    pub const ALL: [Pin; 4] = [Pin::Instructions, Pin::Prompts, Pin::Resources, Pin::Tools];

    /// `instructions`, `prompts`, `resources` or `tools`, as the manifest writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Pin::Instructions => "instructions",
            Pin::Prompts => "prompts",
            Pin::Resources => "resources",
            Pin::Tools => "tools",
        }
    }

    /// The kind named `name` (as [`Pin::as_str`] writes it).
    pub fn parse(name: &str) -> Option<Pin> {
        Pin::ALL.into_iter().find(|pin| pin.as_str() == name)
    }
}

impl std::fmt::Display for Pin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The kind of a [`SnapshotItem`]: which list it comes from and which member names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum ItemKind {
    /// A `prompts/list` entry, named by `name`.
    Prompt,
    /// A `resources/list` entry, named by `uri`.
    Resource,
    /// A `resources/templates/list` entry, named by `name` (its `uriTemplate` may change).
    ResourceTemplate,
}

impl ItemKind {
    /// Every kind, in the order a snapshot file lists them.
    pub const ALL: [ItemKind; 3] = [
        ItemKind::Prompt,
        ItemKind::ResourceTemplate,
        ItemKind::Resource,
    ];

    /// The member that names an item of this kind: `name`, `uri` or `name`.
    pub fn key_member(self) -> &'static str {
        match self {
            ItemKind::Prompt | ItemKind::ResourceTemplate => "name",
            ItemKind::Resource => "uri",
        }
    }

    /// The snapshot file's key of the list: `prompts`, `resources` or `resourceTemplates`.
    pub fn list_key(self) -> &'static str {
        match self {
            ItemKind::Prompt => "prompts",
            ItemKind::Resource => "resources",
            ItemKind::ResourceTemplate => "resourceTemplates",
        }
    }

    /// The MCP method that lists this kind: `prompts/list`, `resources/list` or
    /// `resources/templates/list`.
    pub fn method(self) -> &'static str {
        match self {
            ItemKind::Prompt => "prompts/list",
            ItemKind::Resource => "resources/list",
            ItemKind::ResourceTemplate => "resources/templates/list",
        }
    }

    /// The member of that method's result holding the list: `prompts`, `resources` or
    /// `resourceTemplates`.
    pub fn result_member(self) -> &'static str {
        self.list_key()
    }

    /// `prompt`, `resource` or `resource template`, for messages.
    pub fn noun(self) -> &'static str {
        match self {
            ItemKind::Prompt => "prompt",
            ItemKind::Resource => "resource",
            ItemKind::ResourceTemplate => "resource template",
        }
    }

    /// The [`Pin`] that pins this kind.
    pub fn pin(self) -> Pin {
        match self {
            ItemKind::Prompt => Pin::Prompts,
            ItemKind::Resource | ItemKind::ResourceTemplate => Pin::Resources,
        }
    }
}

/// One prompt, resource or resource template of a snapshot: the raw entry and its digest.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SnapshotItem {
    /// Which list it is from.
    pub kind: ItemKind,
    /// `sha256:<hex>` of [`canonical_json`] of `descriptor`.
    pub digest: String,
    /// The entry exactly as the server listed it (keys sorted).
    pub descriptor: Value,
}

impl SnapshotItem {
    /// An item of `kind` from a raw list entry; computes the digest and sorts the keys.
    /// `None` when the entry is not an object with a string [`ItemKind::key_member`].
    pub fn from_descriptor(kind: ItemKind, descriptor: Value) -> Option<Self> {
        descriptor.get(kind.key_member()).and_then(Value::as_str)?;
        let descriptor = sorted_keys(descriptor);
        Some(Self {
            kind,
            digest: digest(&descriptor),
            descriptor,
        })
    }

    /// What names the item: a prompt's or template's `name`, a resource's `uri`.
    pub fn key(&self) -> &str {
        self.descriptor
            .get(self.kind.key_member())
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// The entry's string member `member` (`description`, `title`, `uriTemplate`, …).
    pub fn text(&self, member: &str) -> Option<&str> {
        self.descriptor.get(member).and_then(Value::as_str)
    }
}

/// Entries of a `prompts/list`, `resources/list` or `resources/templates/list` that were left
/// out of a snapshot, with why; for the caller to warn about ([`SnapshotItems::from_entries`]).
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct SnapshotItems {
    /// The items kept, sorted by [`SnapshotItem::key`].
    pub items: Vec<SnapshotItem>,
    /// One line per entry left out: not an object with a string key, or a key listed twice
    /// (the first is kept).
    pub left_out: Vec<String>,
}

impl SnapshotItems {
    /// Builds the items of `kind` from a list's raw entries (all pages, in the server's
    /// order): entries without a string key and repeated keys are left out, each with a line
    /// in [`SnapshotItems::left_out`] naming its index.
    pub fn from_entries(kind: ItemKind, entries: impl IntoIterator<Item = Value>) -> Self {
        let mut seen = BTreeSet::new();
        let mut out = Self::default();
        for (index, entry) in entries.into_iter().enumerate() {
            let method = kind.method();
            let member = kind.key_member();
            match SnapshotItem::from_descriptor(kind, entry) {
                None => out.left_out.push(format!(
                    "{method} entry {index} has no string `{member}`; left it out"
                )),
                Some(item) if !seen.insert(item.key().to_owned()) => {
                    out.left_out.push(format!(
                        "{method} entry {index} repeats the {} {}; kept the first",
                        kind.noun(),
                        crate::quote::quoted(item.key())
                    ));
                }
                Some(item) => out.items.push(item),
            }
        }
        out.items.sort_by(|a, b| a.key().cmp(b.key()));
        out
    }
}

/// A server's surface, canonicalized: its `tools/list`, and, where the pin asks for them,
/// its prompts, resources, resource templates and instructions. The file format is in the
/// crate docs, [The snapshot format](crate#the-snapshot-format).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Snapshot {
    /// The `serverInfo` the server sent in its `initialize` result, raw (`None` for a bare
    /// `tools/list` file).
    pub server_info: Option<Value>,
    /// The negotiated MCP protocol version (`None` for a bare `tools/list` file).
    pub protocol_version: Option<String>,
    /// The command the snapshot was taken from (`None` for a bare `tools/list` file).
    pub source: Option<SnapshotSource>,
    /// The tools, sorted by raw MCP name.
    pub tools: Vec<SnapshotTool>,
    /// How many `tools/list` entries the server sent that are not tool objects (`null`, a
    /// number, an object without a string `name`), which were left out of
    /// [`Snapshot::tools`] ([`split_tool_entries`](crate::descriptor::split_tool_entries)).
    /// The file's `invalidTools`, written only when it is not 0; drift reports a change of it.
    pub invalid_tools: usize,
    /// The entries of a bare `tools/list` file ([`Snapshot::parse`]) that are not tool
    /// objects, each with its index and what it is, left out as a live listing leaves them
    /// out (their count is [`Snapshot::invalid_tools`]); for a reader to warn about. Empty
    /// for an oma-mcp snapshot, which records only the count. Not written to a file.
    pub left_out: Vec<crate::entries::InvalidToolEntry>,
    /// What the snapshot pins ([`Pin::Tools`] always). Drift compares a kind only where both
    /// sides pin it.
    pub pins: BTreeSet<Pin>,
    /// The server's `capabilities` object, raw (keys sorted); `None` when not recorded (a
    /// format 1 file, a bare `tools/list`).
    pub capabilities: Option<Value>,
    /// The server's `instructions`, when [`Pin::Instructions`] is pinned and the server sent
    /// them.
    pub instructions: Option<String>,
    /// The prompts ([`Pin::Prompts`]), sorted by name.
    pub prompts: Vec<SnapshotItem>,
    /// The resources ([`Pin::Resources`]), sorted by URI.
    pub resources: Vec<SnapshotItem>,
    /// The resource templates ([`Pin::Resources`]), sorted by name.
    pub resource_templates: Vec<SnapshotItem>,
    /// The lists a bound cut, with the bound: the server listed more items than the bound,
    /// and only the first that many, in the server's order, are pinned. The file's `cut`.
    pub cut: BTreeMap<ItemKind, usize>,
}

impl Default for Snapshot {
    fn default() -> Self {
        Self {
            server_info: None,
            protocol_version: None,
            source: None,
            tools: Vec::new(),
            invalid_tools: 0,
            left_out: Vec::new(),
            pins: BTreeSet::from([Pin::Tools]),
            capabilities: None,
            instructions: None,
            prompts: Vec::new(),
            resources: Vec::new(),
            resource_templates: Vec::new(),
            cut: BTreeMap::new(),
        }
    }
}

impl Snapshot {
    /// Builds a snapshot from raw `tools/list` descriptors (all pages, in any order). It pins
    /// the tools only; [`Snapshot::with_instructions`], [`Snapshot::with_items`] and
    /// [`Snapshot::with_capabilities`] add the rest of a server's surface.
    ///
    /// # Errors
    /// [`SnapshotError::Format`] when a descriptor has no string `name`, or two descriptors
    /// share one raw name.
    pub fn from_descriptors(
        server_info: Option<Value>,
        protocol_version: Option<String>,
        source: Option<SnapshotSource>,
        descriptors: impl IntoIterator<Item = Value>,
    ) -> Result<Self, SnapshotError> {
        let mut tools = descriptors
            .into_iter()
            .map(SnapshotTool::from_descriptor)
            .collect::<Result<Vec<_>, _>>()?;
        tools.sort_by(|a, b| a.name().cmp(b.name()));
        if let Some(pair) = tools.windows(2).find(|w| w[0].name() == w[1].name()) {
            return Err(SnapshotError::Format {
                path: PathBuf::from("<tools/list>"),
                reason: format!("the server lists the tool \"{}\" twice", pair[0].name()),
            });
        }
        Ok(Self {
            server_info: server_info.map(sorted_keys),
            protocol_version,
            source,
            tools,
            ..Self::default()
        })
    }

    /// The snapshot, recording that the server sent `count` `tools/list` entries that are
    /// not tool objects ([`Snapshot::invalid_tools`]).
    ///
    /// ```
    /// use oma_mcp_core::Snapshot;
    /// let snapshot = Snapshot::from_descriptors(None, None, None, Vec::new())
    ///     .unwrap()
    ///     .with_invalid_tools(3);
    /// assert!(snapshot.to_canonical_string().contains("\"invalidTools\": 3,"));
    /// ```
    #[must_use]
    pub fn with_invalid_tools(mut self, count: usize) -> Self {
        self.invalid_tools = count;
        self
    }

    /// The snapshot with the server's `capabilities` object recorded (keys sorted).
    #[must_use]
    pub fn with_capabilities(mut self, capabilities: Value) -> Self {
        self.capabilities = Some(sorted_keys(capabilities));
        self
    }

    /// The snapshot pinning the server's `instructions` ([`Pin::Instructions`]; `None`: the
    /// server sent none).
    #[must_use]
    pub fn with_instructions(mut self, instructions: Option<String>) -> Self {
        self.pins.insert(Pin::Instructions);
        self.instructions = instructions;
        self
    }

    /// The snapshot pinning `items` as its list of `kind` (replacing any), and with
    /// [`ItemKind::pin`] pinned. `cut`: the bound, when the server listed more than it.
    #[must_use]
    pub fn with_items(
        mut self,
        kind: ItemKind,
        items: Vec<SnapshotItem>,
        cut: Option<usize>,
    ) -> Self {
        self.pins.insert(kind.pin());
        let mut items: Vec<SnapshotItem> = items.into_iter().filter(|i| i.kind == kind).collect();
        items.sort_by(|a, b| a.key().cmp(b.key()));
        *self.items_mut(kind) = items;
        match cut {
            Some(bound) => self.cut.insert(kind, bound),
            None => self.cut.remove(&kind),
        };
        self
    }

    /// The snapshot pinning `pin` with nothing listed yet (a server without the capability
    /// lists nothing of that kind).
    #[must_use]
    pub fn with_pin(mut self, pin: Pin) -> Self {
        self.pins.insert(pin);
        self
    }

    /// The snapshot no longer pinning `pin` (never [`Pin::Tools`]): its lists, text and cut
    /// entries are dropped.
    #[must_use]
    pub fn without_pin(mut self, pin: Pin) -> Self {
        match pin {
            Pin::Tools => return self,
            Pin::Instructions => self.instructions = None,
            _ => {
                for kind in ItemKind::ALL.into_iter().filter(|k| k.pin() == pin) {
                    self.items_mut(kind).clear();
                    self.cut.remove(&kind);
                }
            }
        }
        self.pins.remove(&pin);
        self
    }

    /// Whether the snapshot pins `pin`.
    pub fn pins(&self, pin: Pin) -> bool {
        self.pins.contains(&pin)
    }

    /// The items of `kind`, sorted by key.
    pub fn items(&self, kind: ItemKind) -> &[SnapshotItem] {
        match kind {
            ItemKind::Prompt => &self.prompts,
            ItemKind::Resource => &self.resources,
            ItemKind::ResourceTemplate => &self.resource_templates,
        }
    }

    fn items_mut(&mut self, kind: ItemKind) -> &mut Vec<SnapshotItem> {
        match kind {
            ItemKind::Prompt => &mut self.prompts,
            ItemKind::Resource => &mut self.resources,
            ItemKind::ResourceTemplate => &mut self.resource_templates,
        }
    }

    /// The item of `kind` named `key`.
    pub fn item(&self, kind: ItemKind, key: &str) -> Option<&SnapshotItem> {
        let items = self.items(kind);
        items
            .binary_search_by(|i| i.key().cmp(key))
            .ok()
            .map(|i| &items[i])
    }

    /// The tool with the raw MCP name `name`.
    pub fn tool(&self, name: &str) -> Option<&SnapshotTool> {
        self.tools
            .binary_search_by(|t| t.name().cmp(name))
            .ok()
            .map(|i| &self.tools[i])
    }

    /// The format version the canonical text is written in: 1 (`oma-mcp-snapshot/1`) for a
    /// snapshot of the tools alone, as this project wrote before it pinned more, so those
    /// files stay byte for byte as they are; 2 once it records capabilities or pins more.
    pub fn format_version(&self) -> u32 {
        let tools_only = self.pins.len() == 1 && self.pins(Pin::Tools);
        if tools_only && self.capabilities.is_none() && self.cut.is_empty() {
            1
        } else {
            2
        }
    }

    /// The canonical file text: keys sorted, 2-space indent, trailing newline.
    pub fn to_canonical_string(&self) -> String {
        let mut root = Map::new();
        let format = match self.format_version() {
            1 => SNAPSHOT_FORMAT_1,
            _ => SNAPSHOT_FORMAT,
        };
        root.insert("format".into(), Value::from(format));
        if self.invalid_tools > 0 {
            root.insert("invalidTools".into(), Value::from(self.invalid_tools));
        }
        if let Some(v) = &self.protocol_version {
            root.insert("protocolVersion".into(), Value::from(v.as_str()));
        }
        if let Some(v) = &self.server_info {
            root.insert("serverInfo".into(), v.clone());
        }
        if let Some(s) = &self.source {
            root.insert("source".into(), s.to_json());
        }
        if let Some(c) = &self.capabilities {
            root.insert("capabilities".into(), c.clone());
        }
        if self.pins(Pin::Instructions) {
            let text = self
                .instructions
                .as_deref()
                .map_or(Value::Null, Value::from);
            root.insert("instructions".into(), text);
        }
        let entry = |descriptor: &Value, digest: &str| {
            let mut entry = Map::new();
            entry.insert("descriptor".into(), descriptor.clone());
            entry.insert("digest".into(), Value::from(digest));
            Value::Object(entry)
        };
        for kind in ItemKind::ALL {
            if self.pins(kind.pin()) {
                let list = self
                    .items(kind)
                    .iter()
                    .map(|i| entry(&i.descriptor, &i.digest))
                    .collect();
                root.insert(kind.list_key().into(), Value::Array(list));
            }
        }
        if !self.cut.is_empty() {
            let cut = self
                .cut
                .iter()
                .map(|(kind, bound)| (kind.list_key().to_owned(), Value::from(*bound)))
                .collect();
            root.insert("cut".into(), Value::Object(cut));
        }
        let tools = self
            .tools
            .iter()
            .map(|t| entry(&t.descriptor, &t.digest))
            .collect();
        root.insert("tools".into(), Value::Array(tools));
        let mut text = serde_json::to_string_pretty(&sorted_keys(Value::Object(root)))
            .unwrap_or_else(unreachable_json);
        text.push('\n');
        text
    }
}

/// `value` with the keys of every object sorted (by UTF-16 code units, as RFC 8785 says;
/// for ASCII keys that is byte order).
pub fn sorted_keys(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|(a, _), (b, _)| a.encode_utf16().cmp(b.encode_utf16()));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k, sorted_keys(v)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted_keys).collect()),
        other => other,
    }
}

/// The canonical JSON of `value` (RFC 8785 style): object keys sorted by UTF-16 code units,
/// no insignificant whitespace, strings and numbers as `serde_json` writes them.
pub fn canonical_json(value: &Value) -> String {
    serde_json::to_string(&sorted_keys(value.clone())).unwrap_or_else(unreachable_json)
}

/// [`canonical_json`] laid out on lines as `serde_json`'s pretty printer writes them (two
/// spaces a level): the same keys in the same order, for a reader (generated code embeds
/// schemas this way).
pub fn canonical_json_pretty(value: &Value) -> String {
    serde_json::to_string_pretty(&sorted_keys(value.clone())).unwrap_or_else(unreachable_json)
}

/// `sha256:` + the lowercase hex SHA-256 of [`canonical_json`] of `value`.
pub fn digest(value: &Value) -> String {
    let hash = Sha256::digest(canonical_json(value).as_bytes());
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in hash.iter() {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

/// Serializing a `serde_json::Value` to a `String` cannot fail (string keys, finite numbers);
/// this keeps the signature honest without an `unwrap`.
fn unreachable_json(e: serde_json::Error) -> String {
    format!("\"<unserializable JSON: {e}>\"")
}

#[cfg(test)]
mod tests;
