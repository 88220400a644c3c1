//! The HTTP headers of the streamable HTTP transport that are MCP's: the names it sets
//! itself, the text a value travels as, and the `x-mcp-header` annotations of tools (MCP
//! 2026-07-28, streamable HTTP "Standard headers" and "Custom Headers from Tool
//! Parameters").

use std::collections::HashMap;

use base64::Engine as _;
use serde_json::Value;

#[cfg(doc)]
use crate::error::ConfigError;
use crate::quote::cut;

/// `Mcp-Session-Id` (MCP 2025-03-26, "Session Management").
pub(super) const SESSION_ID: &str = "mcp-session-id";
/// `MCP-Protocol-Version` (MCP 2025-06-18, "Protocol Version Header").
pub(super) const PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// `Last-Event-ID` (WHATWG HTML, "Server-sent events").
pub(super) const LAST_EVENT_ID: &str = "last-event-id";
/// `Mcp-Method`, a standard header of MCP 2026-07-28.
pub(super) const MCP_METHOD: &str = "mcp-method";
/// `Mcp-Name`, a standard header of MCP 2026-07-28.
pub(super) const MCP_NAME: &str = "mcp-name";
/// The prefix of the headers `x-mcp-header` annotations ask for (MCP 2026-07-28).
pub(super) const MCP_PARAM_PREFIX: &str = "Mcp-Param-";
/// The first revision with the standard headers (and without sessions).
pub(super) const STANDARD_HEADERS_VERSION: &str = "2026-07-28";

/// Headers the transport sets itself; configuring one is an
/// [`ConfigError::InvalidHeader`].
pub(super) const RESERVED: &[&str] = &[
    "accept",
    "content-type",
    "content-length",
    "host",
    SESSION_ID,
    PROTOCOL_VERSION,
    LAST_EVENT_ID,
    MCP_METHOD,
    MCP_NAME,
];

/// Per tool name: `(property, header)` for each `x-mcp-header` in its `inputSchema`.
pub(super) type Annotations = HashMap<String, Vec<(String, String)>>;

/// The `x-mcp-header` annotations of `tools` (MCP 2026-07-28, "Standard headers"): top-level
/// properties of `inputSchema` whose `x-mcp-header` is a non-empty string.
pub(super) fn annotations(tools: &[Value]) -> Annotations {
    let mut map = HashMap::new();
    for tool in tools {
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            continue;
        };
        let Some(Value::Object(properties)) = tool.pointer("/inputSchema/properties") else {
            continue;
        };
        let pairs: Vec<(String, String)> = properties
            .iter()
            .filter_map(|(property, schema)| {
                let header = schema.get("x-mcp-header")?.as_str()?;
                (!header.is_empty()).then(|| (property.clone(), header.to_owned()))
            })
            .collect();
        if !pairs.is_empty() {
            map.insert(name.to_owned(), pairs);
        }
    }
    map
}

/// Why the `x-mcp-header` annotations of a tool's `inputSchema` are invalid (MCP
/// 2026-07-28, streamable HTTP "Custom Headers from Tool Parameters"), or `None` when they
/// are valid or absent: a value must be a non-empty RFC 9110 token, unique without regard to
/// case, on a top-level property of type `string`, `integer` or `boolean`; nested properties
/// may not carry one. Such a tool is left out of the tool list over HTTP, with a warning.
pub(crate) fn header_annotation_problem(tool: &Value) -> Option<String> {
    let Some(Value::Object(properties)) = tool.pointer("/inputSchema/properties") else {
        return None;
    };
    let mut seen = std::collections::HashSet::new();
    for (property, schema) in properties {
        if let Some(nested) = nested_annotation(schema, property) {
            return Some(format!(
                "property `{nested}`: x-mcp-header is allowed on top-level properties only"
            ));
        }
        let Some(annotation) = schema.get("x-mcp-header") else {
            continue;
        };
        let Value::String(name) = annotation else {
            return Some(format!(
                "property `{property}`: x-mcp-header is not a string"
            ));
        };
        if name.is_empty() {
            return Some(format!("property `{property}`: x-mcp-header is empty"));
        }
        if !name.bytes().all(is_tchar) {
            return Some(format!(
                "property `{property}`: x-mcp-header `{}` is not an HTTP field name (RFC 9110 token)",
                cut(name, 100)
            ));
        }
        if !seen.insert(name.to_ascii_lowercase()) {
            return Some(format!(
                "property `{property}`: x-mcp-header `{name}` is used twice (case-insensitively)"
            ));
        }
        match schema.get("type").and_then(Value::as_str) {
            Some("string" | "integer" | "boolean") => {}
            other => {
                return Some(format!(
                    "property `{property}`: x-mcp-header needs type string, integer or boolean, \
                     not {}",
                    other.unwrap_or("(none)")
                ));
            }
        }
    }
    None
}

/// The path of an `x-mcp-header` below a top-level property, if any.
fn nested_annotation(schema: &Value, path: &str) -> Option<String> {
    let Some(Value::Object(properties)) = schema.get("properties") else {
        return None;
    };
    properties.iter().find_map(|(key, value)| {
        let path = format!("{path}.{key}");
        if value.get("x-mcp-header").is_some() {
            Some(path)
        } else {
            nested_annotation(value, &path)
        }
    })
}

/// An RFC 9110 `tchar`.
fn is_tchar(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte)
}

/// `value` as header text: itself, or `=?base64?<base64>?=` when it has leading or trailing
/// whitespace, characters outside visible ASCII, or already looks like that form (MCP
/// 2026-07-28, "Standard headers").
pub(super) fn header_text(value: &str) -> String {
    let needs_base64 = value.starts_with([' ', '\t'])
        || value.ends_with([' ', '\t'])
        || value.chars().any(|c| !(' '..='~').contains(&c))
        || (value.starts_with("=?base64?") && value.ends_with("?="));
    if needs_base64 {
        format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(value)
        )
    } else {
        value.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_header_annotations_are_found() {
        let tool = |properties: Value| serde_json::json!({"name": "t", "inputSchema": {"type": "object", "properties": properties}});
        let problem = |properties: Value| header_annotation_problem(&tool(properties));
        assert_eq!(
            problem(serde_json::json!({"r": {"type": "string", "x-mcp-header": "Region"}})),
            None
        );
        assert_eq!(problem(serde_json::json!({"r": {"type": "string"}})), None);
        assert_eq!(
            problem(serde_json::json!({"r": {"type": "string", "x-mcp-header": ""}})).as_deref(),
            Some("property `r`: x-mcp-header is empty")
        );
        assert_eq!(
            problem(serde_json::json!({"r": {"type": "number", "x-mcp-header": "Score"}}))
                .as_deref(),
            Some("property `r`: x-mcp-header needs type string, integer or boolean, not number")
        );
        assert_eq!(
            problem(serde_json::json!({"r": {"type": "string", "x-mcp-header": "My Region"}}))
                .as_deref(),
            Some(
                "property `r`: x-mcp-header `My Region` is not an HTTP field name (RFC 9110 token)"
            )
        );
        assert_eq!(
            problem(serde_json::json!({
                "a": {"type": "string", "x-mcp-header": "MyField"},
                "b": {"type": "string", "x-mcp-header": "myfield"}
            }))
            .as_deref(),
            Some("property `b`: x-mcp-header `myfield` is used twice (case-insensitively)")
        );
        assert_eq!(
            problem(serde_json::json!({"o": {"type": "object", "properties": {"x": {"type": "string", "x-mcp-header": "X"}}}})).as_deref(),
            Some("property `o.x`: x-mcp-header is allowed on top-level properties only")
        );
    }

    #[test]
    fn annotations_are_read_per_tool() {
        let tools = [
            serde_json::json!({"name": "a", "inputSchema": {"properties": {
                "r": {"type": "string", "x-mcp-header": "Region"},
                "e": {"type": "string", "x-mcp-header": ""},
                "n": {"type": "string"}
            }}}),
            serde_json::json!({"name": "b", "inputSchema": {"properties": {"n": {}}}}),
            serde_json::json!({"inputSchema": {"properties": {"r": {"x-mcp-header": "R"}}}}),
        ];
        let found = annotations(&tools);
        assert_eq!(found.len(), 1);
        assert_eq!(found["a"], [("r".to_owned(), "Region".to_owned())]);
    }

    #[test]
    fn header_text_wraps_what_a_header_cannot_carry() {
        assert_eq!(header_text("us-west1"), "us-west1");
        assert_eq!(header_text(" lead"), "=?base64?IGxlYWQ=?=");
        assert_eq!(header_text("Zürich"), "=?base64?WsO8cmljaA==?=");
        assert_eq!(header_text("=?base64?x?="), "=?base64?PT9iYXNlNjQ/eD89?=");
        // Only the whole form is wrapped; its start or its end alone is plain text.
        assert_eq!(header_text("=?base64?x"), "=?base64?x");
        assert_eq!(header_text("x?="), "x?=");
        assert_eq!(header_text("trail\t"), "=?base64?dHJhaWwJ?=");
        assert_eq!(header_text(""), "");
    }
}
