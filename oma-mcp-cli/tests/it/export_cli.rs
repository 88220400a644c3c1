//! `oma-mcp export`: a snapshot's tools in each provider's request format, exactly; a tool a
//! provider cannot take is named on stderr with the file and the JSON pointer, exit 2.

#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};

use crate::common::{assert_exit, oma_mcp, run, text};

/// A bare `{"tools": [...]}` file with `tools`.
fn tools_file(tools: Value) -> tempfile::NamedTempFile {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), json!({ "tools": tools }).to_string()).unwrap();
    file
}

#[test]
fn each_provider_gets_its_own_request_format() {
    let file = tools_file(json!([{
        "name": "search-issues",
        "description": "Search",
        "inputSchema": {
            "type": "object",
            "properties": {"q": {"type": "string"}, "page": {"type": "integer"}},
            "required": ["q"]
        }
    }]));
    let export = |provider: &str| {
        let out = run(oma_mcp().arg("export").arg(file.path()).args([
            "--provider",
            provider,
            "--prefix",
            "gh",
        ]));
        assert_exit(&out, 0);
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    assert_eq!(
        export("openai"),
        json!([{"type": "function", "function": {
            "name": "gh_search-issues",
            "description": "Search",
            "parameters": {
                "type": "object",
                "properties": {"q": {"type": "string"}, "page": {"type": ["integer", "null"]}},
                "required": ["page", "q"],
                "additionalProperties": false
            },
            "strict": true
        }}])
    );
    assert_eq!(
        export("anthropic"),
        json!([{
            "name": "gh_search-issues",
            "description": "Search",
            "input_schema": {
                "type": "object",
                "properties": {"q": {"type": "string"}, "page": {"type": "integer"}},
                "required": ["q"]
            }
        }])
    );
    let gemini = export("gemini");
    assert_eq!(
        gemini[0]["parameters"],
        json!({
            "type": "OBJECT",
            "properties": {"q": {"type": "STRING"}, "page": {"type": "INTEGER"}},
            "required": ["q"]
        })
    );
    let name = gemini[0]["name"].as_str().unwrap();
    assert!(
        name.starts_with("gh_search_issues_") && name.len() == 25,
        "{name}"
    );
}

#[test]
fn a_tool_a_provider_cannot_take_is_named_with_the_pointer_and_the_rest_is_written() {
    let file = tools_file(json!([
        {"name": "ok", "inputSchema": {"type": "object"}},
        {"name": "tree", "inputSchema": {
            "type": "object",
            "properties": {"node": {"$ref": "#/$defs/N"}},
            "$defs": {"N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}}}}
        }}
    ]));
    let out = run(oma_mcp()
        .arg("export")
        .arg(file.path())
        .args(["--provider", "gemini"]));
    assert_exit(&out, 2);
    assert_eq!(
        serde_json::from_slice::<Value>(&out.stdout).unwrap(),
        json!([{"name": "ok", "description": "MCP tool: ok"}])
    );
    assert_eq!(
        text(&out.stderr),
        format!(
            "oma-mcp: {}: skipped: the tool `tree` cannot be given to gemini: at \
             /properties/node/properties/next of its inputSchema, `$ref` \"#/$defs/N\" is \
             recursive, and Gemini's parameters schema has no `$ref` to express recursion\n",
            file.path().display()
        )
    );
    // OpenAI's strict mode takes the recursion.
    let out = run(oma_mcp()
        .arg("export")
        .arg(file.path())
        .args(["--provider", "openai"]));
    assert_exit(&out, 0);
}
