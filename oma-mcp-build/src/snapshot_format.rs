//! A serde model of the snapshot file format (`oma-mcp-snapshot/1`, see
//! [`oma_mcp_runtime::snapshot`]) for its JSON Schema (`oma-mcp schema snapshot`).
//!
//! The runtime reads snapshots as raw JSON (a descriptor keeps every field the server sent);
//! these types only describe the shape, so editors and CI can validate a committed file.
//! Descriptor fields follow the MCP specification revision 2025-06-18, "Tools".

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A committed snapshot of a pinned MCP server's `tools/list`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotFile {
    /// Always `oma-mcp-snapshot/1`.
    #[schemars(extend("const" = "oma-mcp-snapshot/1"))]
    pub format: String,
    /// The negotiated MCP protocol version.
    pub protocol_version: Option<String>,
    /// The server's `serverInfo` (name, version, …), raw.
    pub server_info: Option<BTreeMap<String, Value>>,
    /// The command the snapshot was taken from (never environment values).
    pub source: Option<SnapshotSourceFormat>,
    /// The tools, sorted by raw MCP name.
    pub tools: Vec<SnapshotToolFormat>,
}

/// Where the snapshot was taken from.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SnapshotSourceFormat {
    /// The executable, as configured.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
}

/// One tool: the descriptor as the server sent it and its digest.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SnapshotToolFormat {
    /// The tool descriptor, keys sorted.
    pub descriptor: ToolDescriptorFormat,
    /// `sha256:` + the lowercase hex SHA-256 of the descriptor's canonical JSON.
    #[schemars(regex(pattern = r"^sha256:[0-9a-f]{64}$"))]
    pub digest: String,
}

/// An MCP `Tool` (2025-06-18); other fields (`_meta`, `icons`, `execution`, vendor keys) are
/// kept as sent.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolDescriptorFormat {
    /// The raw tool name.
    pub name: String,
    /// A human-readable title.
    pub title: Option<String>,
    /// What the model reads about the tool.
    pub description: Option<String>,
    /// The JSON Schema of the arguments.
    pub input_schema: Option<BTreeMap<String, Value>>,
    /// The JSON Schema of the structured content.
    pub output_schema: Option<BTreeMap<String, Value>>,
    /// Behaviour hints (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`,
    /// `title`).
    pub annotations: Option<BTreeMap<String, Value>>,
    /// Any other field, as sent.
    #[serde(flatten)]
    pub other: BTreeMap<String, Value>,
}

/// The JSON Schema (2020-12) of the snapshot format.
pub fn json_schema() -> Value {
    let mut schema = schemars::schema_for!(SnapshotFile);
    schema.insert("title".into(), "oma-mcp snapshot".into());
    schema.to_value()
}
