//! [`ToolDescriptor`]: one MCP tool as an agent sees it, independent of any agent framework
//! or model provider: the name the model calls it by, the text it reads, the schema of its
//! input (and output), and whether it has real side effects.
//!
//! The rules are open-multi-agent's (`docs/mcp.md`, its introduction, "Tool names" and
//! "Input validation is delegated to the server"): the name is `<prefix>_<name>` with every
//! `/` replaced by `_` ([`normalize_tool_name`]); the description is the server's
//! `description` when it is a string, else `MCP tool: <raw name>`; the input schema is the
//! server's `inputSchema` when it is a JSON object, else `{"type":"object"}`; an MCP tool is
//! not consequential unless the caller says so. The runtime's tool layer
//! (`oma_mcp_runtime::ToolDefinition`) and bridges to agent frameworks build on it.
//!
//! Two rules go beyond the contract, for servers that send what MCP does not allow:
//!
//! - [`split_tool_entries`]: a `tools/list` entry that is not a tool object (`null`, a
//!   number, an object without a string `name`) is left out, with its index and what is
//!   wrong ([`InvalidToolEntry`]), and the server's other tools are kept;
//! - [`input_schema_view`]: a top-level `"required": null` in an `inputSchema` (how a Go
//!   server writes an empty list) means no required properties, wherever the schema is
//!   read to validate arguments, to generate code or to show it to a model. The snapshot
//!   keeps the descriptor as sent.

use std::borrow::Cow;

use serde_json::{Value, json};

use crate::naming::normalize_tool_name;
use crate::quote::{excerpt, is_bidi_control, json_kind};
use crate::snapshot::SnapshotTool;

/// One MCP tool, described for a model (see the [module docs](self) for the rules).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolDescriptor {
    /// The name the model calls the tool by: `<prefix>_<mcp_name>` with every `/` → `_`.
    pub name: String,
    /// The raw MCP name, as listed and as sent in `tools/call`.
    pub mcp_name: String,
    /// What the model reads about the tool ([`mcp_description`]).
    pub description: String,
    /// The JSON Schema of the input shown to the model and validated against
    /// ([`mcp_llm_input_schema`]; open-multi-agent's `llmInputSchema`).
    pub input_schema: Value,
    /// The tool's `outputSchema` when it is a JSON object (MCP 2025-06-18, "Tools": the schema
    /// of `structuredContent`); `None` otherwise.
    pub output_schema: Option<Value>,
    /// Whether the tool has real side effects and may run only once confirmed. `false` for an
    /// MCP tool unless the caller says otherwise ([`ToolDescriptor::with_consequential`]):
    /// open-multi-agent trusts no server annotation for it ("Granting MCP tools to an agent").
    pub consequential: bool,
}

impl ToolDescriptor {
    /// The descriptor of a raw `tools/list` entry, for a server whose tools get `prefix`
    /// (`None`: no prefix). `None` when the entry has no string `name` (no tool can be called
    /// without one).
    ///
    /// ```
    /// use oma_mcp_core::descriptor::ToolDescriptor;
    /// let raw = serde_json::json!({"name": "repo/search", "inputSchema": null});
    /// let tool = ToolDescriptor::from_mcp(Some("gh"), &raw).unwrap();
    /// assert_eq!(tool.name, "gh_repo_search");
    /// assert_eq!(tool.description, "MCP tool: repo/search");
    /// assert_eq!(tool.input_schema, serde_json::json!({"type": "object"}));
    /// assert!(!tool.consequential);
    /// ```
    pub fn from_mcp(prefix: Option<&str>, descriptor: &Value) -> Option<Self> {
        let mcp_name = descriptor.get("name")?.as_str()?;
        Some(Self::named(prefix, mcp_name, descriptor))
    }

    /// The descriptor of a snapshot's tool, for a server whose tools get `prefix`.
    pub fn from_snapshot(prefix: Option<&str>, tool: &SnapshotTool) -> Self {
        Self::named(prefix, tool.name(), &tool.descriptor)
    }

    /// The descriptor of the tool `mcp_name` whose `tools/list` entry is `descriptor`.
    fn named(prefix: Option<&str>, mcp_name: &str, descriptor: &Value) -> Self {
        Self {
            name: normalize_tool_name(prefix, mcp_name),
            mcp_name: mcp_name.to_owned(),
            description: mcp_description(mcp_name, descriptor),
            input_schema: mcp_llm_input_schema(descriptor),
            output_schema: descriptor
                .get("outputSchema")
                .filter(|schema| schema.is_object())
                .cloned(),
            consequential: false,
        }
    }

    /// Marks the tool consequential (or not), as the caller decides (a manifest's
    /// `consequential` list, a trusted `destructiveHint`).
    #[must_use]
    pub fn with_consequential(mut self, consequential: bool) -> Self {
        self.consequential = consequential;
        self
    }
}

/// The description of an MCP tool for a model: its `description` when a string, else
/// `MCP tool: <raw name>` (open-multi-agent's `docs/mcp.md`, introduction).
///
/// ```
/// use oma_mcp_core::descriptor::mcp_description;
/// let raw = serde_json::json!({"name": "echo", "description": "Echoes"});
/// assert_eq!(mcp_description("echo", &raw), "Echoes");
/// assert_eq!(mcp_description("echo", &serde_json::json!({"description": 7})), "MCP tool: echo");
/// ```
pub fn mcp_description(mcp_name: &str, descriptor: &Value) -> String {
    match descriptor.get("description") {
        Some(Value::String(d)) => d.clone(),
        _ => format!("MCP tool: {mcp_name}"),
    }
}

/// The input schema of an MCP tool as open-multi-agent uses it (shown to the model, validated
/// against): the descriptor's `inputSchema` when it is a JSON object, else
/// `{"type":"object"}` (missing, `null` or not an object; open-multi-agent's `docs/mcp.md`,
/// "Ordinary tools"). A top-level `"required": null` is left out ([`input_schema_view`]).
///
/// ```
/// use oma_mcp_core::descriptor::mcp_llm_input_schema;
/// let schema = serde_json::json!({"type": "object", "required": ["a"]});
/// assert_eq!(mcp_llm_input_schema(&serde_json::json!({"inputSchema": schema})), schema);
/// assert_eq!(
///     mcp_llm_input_schema(&serde_json::json!({"inputSchema": null})),
///     serde_json::json!({"type": "object"})
/// );
/// ```
pub fn mcp_llm_input_schema(descriptor: &Value) -> Value {
    match descriptor.get("inputSchema") {
        Some(schema @ Value::Object(_)) => input_schema_view(schema).into_owned(),
        _ => json!({"type": "object"}),
    }
}

/// An `inputSchema` as oma-mcp reads it to validate arguments, to generate code and to show
/// it to a model: `schema` without a top-level `"required": null`, which some servers send
/// for "no required properties" (Go's `nil` slice) and which JSON Schema does not allow
/// (`required` is an array); any other schema unchanged, borrowed. A `null` deeper in the
/// schema, and every other value of `required`, stay as sent.
///
/// ```
/// use oma_mcp_core::descriptor::input_schema_view;
/// let sent = serde_json::json!({"type": "object", "required": null});
/// assert_eq!(*input_schema_view(&sent), serde_json::json!({"type": "object"}));
/// ```
pub fn input_schema_view(schema: &Value) -> Cow<'_, Value> {
    match schema {
        Value::Object(map) if map.get("required") == Some(&Value::Null) => {
            let mut map = map.clone();
            map.remove("required");
            Cow::Owned(Value::Object(map))
        }
        _ => Cow::Borrowed(schema),
    }
}

/// A `tools/list` entry that is not a tool object: left out of the server's tools
/// ([`split_tool_entries`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct InvalidToolEntry {
    /// The entry's position in the server's `tools/list`, counted from 0 in the order the
    /// server sent the entries, across all pages.
    pub index: usize,
    /// What the entry is instead of a tool object, its value quoted as compact JSON cut to
    /// an [`excerpt`], bidirectional formatting characters escaped: `` `null`, not a tool
    /// object ``, `a number, not a tool object: 7`, `` an object without a string `name`:
    /// {"description":"no name"} ``.
    pub reason: String,
}

impl std::fmt::Display for InvalidToolEntry {
    /// `entry <index> of `tools/list` is <reason>`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "entry {} of `tools/list` is {}", self.index, self.reason)
    }
}

/// A server's `tools/list` entries split into its tools and the entries that are not one
/// ([`split_tool_entries`]).
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct ToolEntries {
    /// The entries that are tool objects (a JSON object with a string `name`), as sent, in
    /// the server's order.
    pub tools: Vec<Value>,
    /// The entries that are not, in the server's order.
    pub invalid: Vec<InvalidToolEntry>,
}

/// Splits a server's `tools/list` entries (all pages, in the server's order) into the tool
/// objects (a JSON object with a string `name`, kept as sent) and the entries that are not
/// one, each with its index and what it is ([`InvalidToolEntry`]). No tool can be called
/// without a name, but one bad entry must not cost the server's other tools.
///
/// ```
/// use oma_mcp_core::descriptor::split_tool_entries;
/// use serde_json::json;
/// let split = split_tool_entries(vec![json!({"name": "echo"}), json!(null), json!({"name": 3})]);
/// assert_eq!(split.tools, [json!({"name": "echo"})]);
/// assert_eq!(split.invalid[0].to_string(), "entry 1 of `tools/list` is `null`, not a tool object");
/// assert_eq!(
///     split.invalid[1].to_string(),
///     r#"entry 2 of `tools/list` is an object without a string `name`: {"name":3}"#
/// );
/// ```
pub fn split_tool_entries(entries: impl IntoIterator<Item = Value>) -> ToolEntries {
    let mut split = ToolEntries::default();
    for (index, entry) in entries.into_iter().enumerate() {
        let reason = match &entry {
            Value::Object(map) if map.get("name").is_some_and(Value::is_string) => {
                split.tools.push(entry);
                continue;
            }
            Value::Object(_) => format!("an object without a string `name`: {}", quoted(&entry)),
            Value::Null => "`null`, not a tool object".to_owned(),
            other => format!("{}, not a tool object: {}", json_kind(other), quoted(other)),
        };
        split.invalid.push(InvalidToolEntry { index, reason });
    }
    split
}

/// `value` as a message quotes it: its compact JSON (control characters escaped) cut to an
/// [`excerpt`], with the bidirectional formatting characters escaped too (`\u202e`, as JSON
/// may write them), so the text reads in the order it is written wherever it is shown.
fn quoted(value: &Value) -> String {
    let mut text = String::new();
    for c in excerpt(value).chars() {
        if is_bidi_control(c) {
            text.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            text.push(c);
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_field_follows_the_contract() {
        let raw = json!({
            "name": "fs/write",
            "description": "Writes a file",
            "inputSchema": {"type": "object", "required": ["path"]},
            "outputSchema": {"type": "object"},
            "annotations": {"destructiveHint": true}
        });
        let tool = ToolDescriptor::from_mcp(Some("files"), &raw).unwrap();
        assert_eq!(
            tool,
            ToolDescriptor {
                name: "files_fs_write".to_owned(),
                mcp_name: "fs/write".to_owned(),
                description: "Writes a file".to_owned(),
                input_schema: json!({"type": "object", "required": ["path"]}),
                output_schema: Some(json!({"type": "object"})),
                // Annotations decide nothing: the caller does.
                consequential: false,
            }
        );
        assert!(tool.with_consequential(true).consequential);
    }

    #[test]
    fn odd_entries_get_the_contract_fallbacks() {
        assert_eq!(ToolDescriptor::from_mcp(None, &json!({"name": 3})), None);
        assert_eq!(ToolDescriptor::from_mcp(None, &json!([1])), None);
        let tool = ToolDescriptor::from_mcp(
            None,
            &json!({"name": "x", "inputSchema": [1], "outputSchema": "no"}),
        )
        .unwrap();
        assert_eq!(
            (
                tool.name.as_str(),
                tool.description.as_str(),
                tool.input_schema,
                tool.output_schema
            ),
            ("x", "MCP tool: x", json!({"type": "object"}), None)
        );
    }

    /// Every kind of entry that is not a tool object, with its exact reason; the tools keep
    /// their order and every field as sent, and the indexes count every entry.
    #[test]
    fn entries_that_are_not_tool_objects_are_split_off_with_their_reason() {
        let long = "x".repeat(300);
        let split = split_tool_entries(vec![
            json!({"name": "echo", "x-vendor": 1}),
            json!(null),
            json!(7),
            json!({"description": "no name"}),
            json!({"name": "b", "inputSchema": {"type": "object", "required": null}}),
            json!(true),
            json!("echo"),
            json!([{"name": "in-an-array"}]),
            json!({"name": null}),
            json!({"name": long}),
            json!({"name": "\u{1b}[2J"}),
            json!({"name": 7, "description": "\u{1b}]0;pwned\u{7}"}),
            json!({"title": "evil \u{202e}desrever\u{2066}"}),
        ]);
        assert_eq!(
            split.tools,
            [
                json!({"name": "echo", "x-vendor": 1}),
                json!({"name": "b", "inputSchema": {"type": "object", "required": null}}),
                json!({"name": long}),
                json!({"name": "\u{1b}[2J"}),
            ]
        );
        let invalid: Vec<(usize, &str)> = split
            .invalid
            .iter()
            .map(|e| (e.index, e.reason.as_str()))
            .collect();
        assert_eq!(
            invalid,
            [
                (1, "`null`, not a tool object"),
                (2, "a number, not a tool object: 7"),
                (
                    3,
                    r#"an object without a string `name`: {"description":"no name"}"#
                ),
                (5, "a boolean, not a tool object: true"),
                (6, r#"a string, not a tool object: "echo""#),
                (
                    7,
                    r#"an array, not a tool object: [{"name":"in-an-array"}]"#
                ),
                (8, r#"an object without a string `name`: {"name":null}"#),
                (
                    11,
                    r#"an object without a string `name`: {"name":7,"description":"\u001b]0;pwned\u0007"}"#
                ),
                (
                    12,
                    r#"an object without a string `name`: {"title":"evil \u202edesrever\u2066"}"#
                ),
            ]
        );
        assert_eq!(
            split.invalid[2].to_string(),
            r#"entry 3 of `tools/list` is an object without a string `name`: {"description":"no name"}"#
        );
    }

    /// A huge entry is quoted cut to 200 characters.
    #[test]
    fn an_invalid_entry_is_quoted_cut() {
        let split = split_tool_entries(vec![json!({"description": "y".repeat(1000)})]);
        let quoted = format!("{{\"description\":\"{}…", "y".repeat(200 - 16));
        assert_eq!(
            split.invalid,
            [InvalidToolEntry {
                index: 0,
                reason: format!("an object without a string `name`: {quoted}")
            }]
        );
        assert_eq!(split_tool_entries(Vec::new()), ToolEntries::default());
    }

    /// `"required": null` at the top level is no `required`; anywhere else, and any other
    /// value, stays as sent.
    #[test]
    fn a_top_level_null_required_is_no_required_list() {
        let view = |schema: Value| input_schema_view(&schema).into_owned();
        assert_eq!(
            view(
                json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": null})
            ),
            json!({"type": "object", "properties": {"a": {"type": "string"}}})
        );
        assert!(matches!(
            input_schema_view(&json!({"required": ["a"]})),
            Cow::Borrowed(_)
        ));
        for kept in [
            json!({"type": "object", "required": ["a"]}),
            json!({"type": "object", "required": "a"}),
            json!({"type": "object", "required": []}),
            json!({"properties": {"p": {"type": "object", "required": null}}}),
            json!(null),
            json!(true),
        ] {
            assert_eq!(view(kept.clone()), kept);
        }
        let raw = json!({"name": "n", "inputSchema": {"type": "object", "required": null}});
        assert_eq!(mcp_llm_input_schema(&raw), json!({"type": "object"}));
        assert_eq!(
            ToolDescriptor::from_mcp(None, &raw).unwrap().input_schema,
            json!({"type": "object"})
        );
    }

    #[test]
    fn a_snapshot_tool_gives_the_same_descriptor_as_its_raw_entry() {
        let raw = json!({"name": "a/b", "description": "d", "inputSchema": {"type": "object"}});
        let tool = SnapshotTool::from_descriptor(raw.clone()).unwrap();
        assert_eq!(
            ToolDescriptor::from_snapshot(Some("p"), &tool),
            ToolDescriptor::from_mcp(Some("p"), &raw).unwrap()
        );
    }
}
