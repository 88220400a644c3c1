//! A serde model of the snapshot file format (`oma-mcp-snapshot/2`, and `oma-mcp-snapshot/1`
//! for a snapshot of the tools alone; see [`oma_mcp_runtime::snapshot`]) for its JSON Schema
//! (`oma-mcp schema snapshot`).
//!
//! The runtime reads snapshots as raw JSON (a descriptor keeps every field the server sent);
//! these types only describe the shape, so editors and CI can validate a committed file.
//! Descriptor fields follow the MCP specification revision 2025-06-18, "Tools", "Prompts" and
//! "Resources".

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A committed snapshot of a pinned MCP server: its `tools/list` and, where the pin asks for
/// them, its prompts, resources, resource templates and instructions.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotFile {
    /// `oma-mcp-snapshot/2`, or `oma-mcp-snapshot/1` for a snapshot of the tools alone
    /// without capabilities (as earlier versions wrote every snapshot).
    #[schemars(extend("enum" = ["oma-mcp-snapshot/2", "oma-mcp-snapshot/1"]))]
    pub format: String,
    /// The server's `capabilities` object as sent, extensions included.
    pub capabilities: Option<BTreeMap<String, Value>>,
    /// The server's `instructions` (`null`: pinned, and the server sent none); absent when
    /// the pin does not pin them.
    pub instructions: Option<Option<String>>,
    /// The prompts (`prompts/list`), sorted by name; absent when not pinned.
    pub prompts: Option<Vec<SnapshotItemFormat<PromptFormat>>>,
    /// The resources (`resources/list`), sorted by URI; absent when not pinned.
    pub resources: Option<Vec<SnapshotItemFormat<ResourceFormat>>>,
    /// The resource templates (`resources/templates/list`), sorted by name; absent when not
    /// pinned.
    pub resource_templates: Option<Vec<SnapshotItemFormat<ResourceTemplateFormat>>>,
    /// The lists a bound cut (`prompts`, `resources`, `resourceTemplates`) with the bound:
    /// only the first that many entries, in the server's order, are pinned.
    pub cut: Option<CutFormat>,
    /// The negotiated MCP protocol version.
    pub protocol_version: Option<String>,
    /// The server's `serverInfo` (name, version, …), raw.
    pub server_info: Option<BTreeMap<String, Value>>,
    /// Where the snapshot was taken from: the command, or the redacted URL and the headers
    /// (never values taken from the environment).
    pub source: Option<SnapshotSourceFormat>,
    /// The tools, sorted by raw MCP name.
    pub tools: Vec<SnapshotToolFormat>,
    /// How many entries of the server's `tools/list` were not tool objects (`null`, a
    /// number, an object without a string `name`) and were left out of `tools`; written
    /// only when not 0.
    pub invalid_tools: Option<u64>,
}

/// Where the snapshot was taken from: a command, or a URL.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum SnapshotSourceFormat {
    /// A server started over stdio.
    Command(CommandSourceFormat),
    /// A server reached over streamable HTTP.
    Url(UrlSourceFormat),
}

/// A server started over stdio: its command line.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommandSourceFormat {
    /// The executable, as configured.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
}

/// A server reached over streamable HTTP: what was sent, never a value taken from the
/// environment.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct UrlSourceFormat {
    /// The endpoint, redacted: a user name or password and every query value are `***`.
    pub url: String,
    /// The literal headers sent (name → value).
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// The names of the headers whose values come from environment variables (sorted);
    /// `Authorization` for a bearer variable.
    #[serde(default)]
    pub headers_from_env: Vec<String>,
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

/// The lists a bound cut, each with the bound.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CutFormat {
    /// `prompts/list` was cut at this many entries.
    pub prompts: Option<u64>,
    /// `resources/list` was cut at this many entries.
    pub resources: Option<u64>,
    /// `resources/templates/list` was cut at this many entries.
    pub resource_templates: Option<u64>,
}

/// One prompt, resource or template: the entry as the server listed it and its digest.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SnapshotItemFormat<T> {
    /// The entry, keys sorted.
    pub descriptor: T,
    /// `sha256:` + the lowercase hex SHA-256 of the entry's canonical JSON.
    #[schemars(regex(pattern = r"^sha256:[0-9a-f]{64}$"))]
    pub digest: String,
}

/// An MCP `Prompt`; other fields (`icons`, `_meta`, vendor keys) are kept as sent.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct PromptFormat {
    /// The prompt's name.
    pub name: String,
    /// A human-readable title.
    pub title: Option<String>,
    /// What the prompt does.
    pub description: Option<String>,
    /// Its arguments (`name`, `title`, `description`, `required`), as sent.
    pub arguments: Option<Vec<BTreeMap<String, Value>>>,
    /// Any other field, as sent.
    #[serde(flatten)]
    pub other: BTreeMap<String, Value>,
}

/// An MCP `Resource`; other fields (`size`, `annotations`, `icons`, `_meta`) are kept as sent.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResourceFormat {
    /// The resource's URI.
    pub uri: String,
    /// Its name.
    pub name: Option<String>,
    /// A human-readable title.
    pub title: Option<String>,
    /// What it holds.
    pub description: Option<String>,
    /// Its MIME type.
    pub mime_type: Option<String>,
    /// Any other field, as sent.
    #[serde(flatten)]
    pub other: BTreeMap<String, Value>,
}

/// An MCP `ResourceTemplate`; other fields are kept as sent.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplateFormat {
    /// The template's name.
    pub name: String,
    /// The RFC 6570 URI template.
    pub uri_template: Option<String>,
    /// A human-readable title.
    pub title: Option<String>,
    /// What it resolves to.
    pub description: Option<String>,
    /// The MIME type of what it resolves to.
    pub mime_type: Option<String>,
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

#[cfg(test)]
mod tests {
    use oma_mcp_runtime::Validator;
    use serde_json::json;

    use super::*;

    /// The schema accepts both kinds of source as the runtime writes them (the committed
    /// goldens' snapshots), and refuses a source of both kinds or with an unknown key.
    #[test]
    fn the_schema_takes_a_command_or_a_url_source() {
        let validator = Validator::new("snapshot", &json_schema()).expect("the schema compiles");
        // The snapshot of oma-mcp-build's golden case of a server pinned by URL.
        let fixture = |name: &str| -> Value {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../oma-mcp-build/tests/fixtures")
                .join(name);
            serde_json::from_str(&std::fs::read_to_string(path).expect("fixture"))
                .expect("fixture JSON")
        };
        let remote = fixture("remote.json");
        assert_eq!(
            remote["source"],
            json!({"headers": {"X-MCP-Toolsets": "repos,issues"},
                   "headersFromEnv": ["Authorization", "X-Api-Key"],
                   "url": "https://api.githubcopilot.com/mcp/"})
        );
        assert_eq!(validator.validate(&remote), Ok(()));
        let with_source =
            |source: Value| json!({"format": "oma-mcp-snapshot/1", "source": source, "tools": []});
        for good in [
            json!({"command": "node", "args": ["s.js"]}),
            json!({"url": "http://127.0.0.1:8080/mcp"}),
        ] {
            assert_eq!(
                validator.validate(&with_source(good.clone())),
                Ok(()),
                "{good}"
            );
        }
        // The count of entries that were not tool objects: a non-negative integer.
        let counted = |count: Value| json!({"format": "oma-mcp-snapshot/1", "invalidTools": count, "tools": []});
        assert_eq!(validator.validate(&counted(json!(3))), Ok(()));
        for bad in [json!(-1), json!("3"), json!(1.5)] {
            assert!(validator.validate(&counted(bad.clone())).is_err(), "{bad}");
        }
        // Format 2: the committed snapshot of the project's own test server, whole.
        let demo: Value = serde_json::from_str(
            &std::fs::read_to_string(
                std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("../examples/demo/mcp/demo.snapshot.json"),
            )
            .expect("demo snapshot"),
        )
        .expect("demo snapshot JSON");
        assert_eq!(demo["format"], "oma-mcp-snapshot/2");
        assert_eq!(validator.validate(&demo), Ok(()));
        let cut = |list: &str| json!({"format": "oma-mcp-snapshot/2", "cut": {list: 10}, "resources": [], "tools": []});
        assert_eq!(validator.validate(&cut("resources")), Ok(()));
        assert!(validator.validate(&cut("tools")).is_err());
        let unnamed = json!({"format": "oma-mcp-snapshot/2", "tools": [],
                             "prompts": [{"descriptor": {"title": "x"}, "digest": "sha256:00"}]});
        assert!(validator.validate(&unnamed).is_err());
        for bad in [
            json!({"command": "node", "args": [], "url": "http://h/mcp"}),
            json!({"url": "http://h/mcp", "headers": {"X-A": 1}}),
            json!({"url": "http://h/mcp", "header": {}}),
        ] {
            assert!(
                validator.validate(&with_source(bad.clone())).is_err(),
                "{bad}"
            );
        }
    }
}
