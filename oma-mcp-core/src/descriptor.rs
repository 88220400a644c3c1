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
use crate::snapshot::SnapshotTool;

/// The split of a `tools/list` into tools and entries that are none, in a module of its own
/// (the snapshot reads it too); here, where it was first.
pub use crate::entries::{InvalidToolEntry, ToolEntries, split_tool_entries};

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
