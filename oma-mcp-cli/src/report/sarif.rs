//! `--format sarif`: SARIF 2.1.0 (OASIS), the format code-scanning dashboards read. It walks
//! the report's changes generically, so every change kind, present or future, appears
//! without a line here.

use std::path::Path;

use oma_mcp_runtime::{Change, Severity};
use serde_json::{Value, json};

use super::compared::{Compared, Failed};
use super::location::{files, place, relative};

/// The rule id of a server that could not be compared (every other rule id is a change
/// kind's `snake_case` name, as in the JSON output).
const SERVER_FAILED: &str = "server_failed";

/// SARIF 2.1.0 (OASIS), one run: `tool.driver` with one rule per change kind found (id: the
/// kind's `snake_case` name), one result per change located at the tool's line in the file
/// that holds it (the rule of `--format github`), and for each failed server a
/// `server_failed` result (level `error`) on the manifest.
pub fn render(compared: &[Compared], failed: &[Failed]) -> String {
    let mut rules: Vec<String> = Vec::new();
    let mut rule_index = |id: &str| match rules.iter().position(|r| r == id) {
        Some(i) => i,
        None => {
            rules.push(id.to_owned());
            rules.len() - 1
        }
    };
    let mut results = Vec::new();
    for f in failed {
        let index = rule_index(SERVER_FAILED);
        results.push(json!({
            "ruleId": SERVER_FAILED,
            "ruleIndex": index,
            "level": "error",
            "message": {"text": format!("server \"{}\" could not be checked: {}", f.server, f.message)},
            "locations": [location(&relative(&f.manifest), None)],
            "properties": {"server": f.server},
        }));
    }
    for c in compared {
        let (old, new) = files(c);
        for change in &c.report.changes {
            let (file, line) = place(&old, new.as_ref(), change);
            let id = change.kind.as_str();
            let index = rule_index(id);
            let mut properties = json!({
                "tool": change.tool,
                "pointer": change.pointer,
                "severity": change.severity.as_str(),
                "direction": change.direction.as_str(),
            });
            if let (Some(server), Value::Object(map)) = (&c.server, &mut properties) {
                map.insert("server".into(), Value::from(server.as_str()));
            }
            results.push(json!({
                "ruleId": id,
                "ruleIndex": index,
                "level": level(change.severity),
                "message": {"text": message(change)},
                "locations": [location(&file, line)],
                "properties": properties,
            }));
        }
    }
    let rules: Vec<Value> = rules
        .iter()
        .map(|id| {
            let text = if id == SERVER_FAILED {
                "MCP server could not be checked".to_owned()
            } else {
                format!("MCP drift: {}", id.replace('_', " "))
            };
            json!({"id": id, "shortDescription": {"text": text}})
        })
        .collect();
    document("oma-mcp", rules, results)
}

/// A SARIF 2.1.0 document of one run of the tool `name` (this version, this repository) with
/// its `rules` and `results`, pretty-printed with a trailing newline.
pub(super) fn document(name: &str, rules: Vec<Value>, results: Vec<Value>) -> String {
    let document = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": name,
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": env!("CARGO_PKG_REPOSITORY"),
                "rules": rules,
            }},
            "results": results,
        }],
    });
    let mut text = serde_json::to_string_pretty(&document).unwrap_or_default();
    text.push('\n');
    text
}

/// SARIF's `level` of a severity.
fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Breaking => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A change's message with its tool and pointer (`tool /pointer: message`).
fn message(change: &Change) -> String {
    let subject = super::subject(change);
    let tool = if subject.is_empty() {
        "server"
    } else {
        subject.as_str()
    };
    if change.pointer.is_empty() {
        format!("{tool}: {}", change.message)
    } else {
        format!("{tool} {}: {}", change.pointer, change.message)
    }
}

/// A SARIF `location` in `file` (a path as shown: relative to the working directory when
/// inside it), at `line` when known.
pub(super) fn location(file: &str, line: Option<usize>) -> Value {
    let mut physical = json!({"artifactLocation": {"uri": uri(file)}});
    if let (Some(line), Value::Object(map)) = (line, &mut physical) {
        map.insert("region".into(), json!({"startLine": line}));
    }
    json!({"physicalLocation": physical})
}

/// A path as a URI reference: relative paths stay relative (SARIF resolves them against the
/// checkout), absolute ones become `file://` URIs; characters outside a path segment's
/// allowed set are percent-encoded.
fn uri(path: &str) -> String {
    use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
    /// RFC 3986 `pchar` plus `/`: everything else is encoded.
    const PATH: &AsciiSet = &CONTROLS
        .add(b' ')
        .add(b'"')
        .add(b'#')
        .add(b'%')
        .add(b'<')
        .add(b'>')
        .add(b'?')
        .add(b'[')
        .add(b'\\')
        .add(b']')
        .add(b'^')
        .add(b'`')
        .add(b'{')
        .add(b'|')
        .add(b'}');
    let encoded = utf8_percent_encode(path, PATH).to_string();
    if Path::new(path).is_absolute() {
        format!("file://{encoded}")
    } else {
        encoded
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uri_keeps_relative_paths_and_encodes_what_a_path_may_not_hold() {
        assert_eq!(uri("mcp/own.snapshot.json"), "mcp/own.snapshot.json");
        assert_eq!(uri("a dir/x#1.json"), "a%20dir/x%231.json");
        assert_eq!(uri("/tmp/ü.json"), "file:///tmp/%C3%BC.json");
    }
}
