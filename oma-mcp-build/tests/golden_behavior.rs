//! Compiles the golden file `fixtures/golden.rs` (see `golden.rs`) and checks what the
//! generated types do: JSON names, skipped optional fields, `{}` for empty arguments, enum
//! values, and the `McpTool` constants.
//!
//! A separate test binary from `golden.rs`, so that regenerating the golden file works even
//! when the old one no longer compiles against these checks.

// Test code: a failed unwrap is a test failure with its message.
#![allow(clippy::unwrap_used)]

#[allow(dead_code)]
mod golden {
    include!("fixtures/golden.rs");
}

use golden::*;
use oma_mcp_runtime::McpTool;
use serde_json::json;

#[test]
fn arguments_serialize_to_the_schema_names() {
    let args = GetSumArgs {
        a: 1.5,
        b: 2.0,
        round_mode: Some(GetSumArgsRoundMode::HalfEven),
    };
    assert_eq!(
        serde_json::to_value(&args).unwrap(),
        json!({"a": 1.5, "b": 2.0, "roundMode": "half-even"})
    );
    let args = GetSumArgs {
        a: 1.0,
        b: 2.0,
        round_mode: None,
    };
    assert_eq!(
        serde_json::to_value(&args).unwrap(),
        json!({"a": 1.0, "b": 2.0})
    );
    let back: GetSumArgs = serde_json::from_value(json!({"a": 1, "b": 2})).unwrap();
    assert_eq!(back, args);
}

#[test]
fn empty_and_nested_arguments() {
    assert_eq!(
        serde_json::to_value(PingArgs::default()).unwrap(),
        json!({})
    );
    assert_eq!(serde_json::to_value(GetSum2Args {}).unwrap(), json!({}));
    let args = FilesDeleteArgs {
        bad: None,
        extra: Some(json!(7)),
        meta: None,
        options: Some(FilesDeleteArgsOptions {
            force: Some(true),
            ..Default::default()
        }),
        paths: vec!["a".into()],
        r#type: None,
    };
    // A required nullable field is sent as `null`; optional ones are left out.
    assert_eq!(
        serde_json::to_value(&args).unwrap(),
        json!({"extra": 7, "options": {"force": true}, "paths": ["a"], "type": null})
    );
}

#[test]
fn tool_constants() {
    assert_eq!(TOOL_NAMES, ["files/delete", "get-sum", "get_sum", "ping"]);
    assert_eq!(FilesDelete::MCP_NAME, "files/delete");
    assert_eq!(FilesDelete::NAME, "golden_files_delete");
    const { assert!(FilesDelete::CONSEQUENTIAL) };
    const { assert!(!GetSum::CONSEQUENTIAL) };
    assert_eq!(GetSum2::MCP_NAME, "get_sum");
    assert_eq!(Ping::DESCRIPTION, None);
    assert_eq!(Ping::INPUT_SCHEMA, r#"{"type":"object"}"#);
    assert_eq!(
        GetSum::DESCRIPTION,
        Some("Adds two numbers.\n\nSee [the docs](https://example.com/sum) for <details>.")
    );
    let snapshot = oma_mcp_runtime::Snapshot::read(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/golden.json"),
    )
    .unwrap();
    let tool = snapshot.tool("get-sum").unwrap();
    assert_eq!(GetSum::DIGEST, tool.digest);
    assert_eq!(
        GetSum::INPUT_SCHEMA,
        oma_mcp_runtime::snapshot::canonical_json(tool.input_schema().unwrap())
    );
}
