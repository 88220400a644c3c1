#![allow(clippy::unwrap_used)]

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::*;
use crate::typed::{ToolValidators, check_args};

/// A test tool: `test_tool!(Type, "mcp_name" as "name", Args => Output, input schema,
/// output schema, wrapped)`.
macro_rules! test_tool {
    ($(#[$attr:meta])* $ty:ident, $mcp:literal as $name:literal, $args:ty => $output:ty, $input:expr, $out:expr, $wrapped:expr) => {
        $(#[$attr])*
        struct $ty;
        impl McpTool for $ty {
            type Args = $args;
            type Output = $output;
            const MCP_NAME: &'static str = $mcp;
            const NAME: &'static str = $name;
            const DESCRIPTION: Option<&'static str> = None;
            const INPUT_SCHEMA: &'static str = $input;
            const OUTPUT_SCHEMA: Option<&'static str> = $out;
            const OUTPUT_WRAPPED: bool = $wrapped;
            const DIGEST: &'static str = "sha256:0";
            const CONSEQUENTIAL: bool = false;
            fn validators() -> &'static ToolValidators {
                static V: ToolValidators = ToolValidators::new();
                &V
            }
        }
    };
}

#[derive(Debug, Serialize)]
struct PackArgs {
    directory: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    depth: Option<i64>,
}

#[derive(Debug, PartialEq, Deserialize)]
struct PackOutput {
    directory: String,
    #[serde(rename = "totalFiles")]
    total_files: f64,
}

test_tool!(
    /// Case 21/26: a draft-07 output schema with `additionalProperties: false`.
    Pack,
    "pack_codebase" as "repo_pack_codebase",
    PackArgs => PackOutput,
    r#"{"properties":{"depth":{"maximum":3,"type":"integer"},"directory":{"maxLength":8,"type":"string"}},"required":["directory"],"type":"object"}"#,
    Some(
        r#"{"$schema":"http://json-schema.org/draft-07/schema#","additionalProperties":false,"properties":{"directory":{"type":"string"},"totalFiles":{"type":"number"}},"required":["directory","totalFiles"],"type":"object"}"#
    ),
    false
);

test_tool!(
    /// FastMCP's wrapped form.
    Wrapped,
    "wrapped" as "wrapped",
    serde_json::Map<String, Value> => String,
    r#"{"type":"object"}"#,
    Some(
        r#"{"properties":{"result":{"type":"string"}},"required":["result"],"type":"object","x-fastmcp-wrap-result":true}"#
    ),
    true
);

test_tool!(
    /// No output schema.
    Plain,
    "plain" as "plain",
    serde_json::Map<String, Value> => Option<Value>,
    r#"{"type":"object"}"#,
    None,
    false
);

#[test]
fn arguments_are_checked_locally() {
    let ok = PackArgs {
        directory: "src".into(),
        depth: Some(2),
    };
    assert_eq!(
        check_args::<Pack>(&ok).unwrap(),
        Some(
            json!({"directory": "src", "depth": 2})
                .as_object()
                .cloned()
                .unwrap()
        )
    );
    let bad = PackArgs {
        directory: "much/too/long".into(),
        depth: Some(9),
    };
    let err = check_args::<Pack>(&bad).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Invalid input for tool \"repo_pack_codebase\":\n\
         - /depth: 9 is greater than the maximum of 3\n\
         - /directory: \"much/too/long\" is longer than 8 characters"
    );
    assert!(std::ptr::eq(
        crate::typed::validator_for::<Pack>().unwrap(),
        crate::typed::validator_for::<Pack>().unwrap()
    ));
}

#[test]
fn structured_content_is_validated_and_typed() {
    let raw = json!({
        "content": [{"type": "text", "text": "packed"}],
        "structuredContent": {"directory": "/w", "totalFiles": 3}
    });
    let typed = typed_output::<Pack>(&raw).unwrap();
    assert_eq!(
        typed.output,
        PackOutput {
            directory: "/w".into(),
            total_files: 3.0
        }
    );
    assert_eq!(typed.result.data, "packed");
    // draft-07: `additionalProperties: false` rejects an extra member, but generated output
    // structs keep unlisted members: drift (logged), not a failed call.
    let raw = json!({"structuredContent": {"directory": "/w", "totalFiles": 3, "x": 1}});
    assert_eq!(typed_output::<Pack>(&raw).unwrap().output.total_files, 3.0);
    // What no output type absorbs still fails, and only that is listed.
    let raw = json!({"structuredContent": {"directory": 7, "totalFiles": 3, "x": 1}});
    assert_eq!(
        typed_output::<Pack>(&raw).unwrap_err().to_string(),
        "invalid output from MCP tool \"pack_codebase\":\n\
         - /directory: 7 is not of type \"string\""
    );
}

/// What forward-compatible output types absorb: a string an `enum` of strings does not list,
/// properties `additionalProperties: false` forbids; not a value of another type, nor a
/// string outside an `enum` of numbers.
#[test]
fn output_validation_splits_what_the_types_absorb() {
    let schema = json!({
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "state": {"enum": ["ok", "failed", null]},
            "level": {"enum": [1, 2]}
        }
    });
    let validator = crate::Validator::new("t", &schema).unwrap();
    let absorbed = validator
        .validate_output(&json!({"state": "paused", "extra": true}))
        .unwrap();
    let lines: Vec<String> = absorbed
        .iter()
        .map(|p| format!("{}: {}", p.pointer, p.message))
        .collect();
    assert_eq!(
        lines,
        [
            "/: Additional properties are not allowed ('extra' was unexpected)",
            "/state: \"paused\" is not one of \"ok\", \"failed\" or null",
        ]
    );
    assert_eq!(
        validator.validate_output(&json!({"state": "ok"})),
        Ok(vec![])
    );
    let rejected = validator
        .validate_output(&json!({"state": 3, "level": "x", "extra": 1}))
        .unwrap_err();
    let lines: Vec<String> = rejected
        .iter()
        .map(|p| format!("{}: {}", p.pointer, p.message))
        .collect();
    assert_eq!(
        lines,
        [
            "/level: \"x\" is not one of 1 or 2",
            "/state: 3 is not one of \"ok\", \"failed\" or null",
        ]
    );
}

#[test]
fn error_results_are_never_validated() {
    // Case 21: the error's structuredContent does not fit the output schema.
    let raw = json!({
        "isError": true,
        "content": [{"type": "text", "text": "Directory not found"}],
        "structuredContent": {"errorMessage": "Directory not found"}
    });
    let err = typed_output::<Pack>(&raw).unwrap_err();
    assert_eq!(err.to_string(), "Directory not found");
    let result = err.into_tool_result();
    assert!(result.is_error);
    assert_eq!(result.data, "Directory not found");
}

#[test]
fn missing_structured_content_names_the_tool() {
    // Case 22.
    let raw = json!({"content": [{"type": "text", "text": "# Location"}]});
    let err = typed_output::<Pack>(&raw).unwrap_err();
    assert_eq!(
        err.to_string(),
        "MCP tool \"pack_codebase\" declares an output schema but its result has no structuredContent"
    );
    assert!(
        matches!(err, CallError::MissingStructuredContent { ref result, .. } if result.data == "# Location")
    );
}

#[test]
fn wrapped_and_untyped_outputs() {
    let raw = json!({"structuredContent": {"result": "hello"}});
    assert_eq!(typed_output::<Wrapped>(&raw).unwrap().output, "hello");
    let raw = json!({"structuredContent": {"result": 1}});
    assert_eq!(
        typed_output::<Wrapped>(&raw).unwrap_err().to_string(),
        "invalid output from MCP tool \"wrapped\":\n- /result: 1 is not of type \"string\""
    );
    let raw = json!({"content": [], "structuredContent": {"a": 1}});
    assert_eq!(
        typed_output::<Plain>(&raw).unwrap().output,
        Some(json!({"a": 1}))
    );
    assert_eq!(
        typed_output::<Plain>(&json!({"content": []}))
            .unwrap()
            .output,
        None
    );
}

#[test]
fn output_that_does_not_fit_the_type() {
    // A schema that allows more than the type (here: none, so only serde decides).
    let raw = json!({"structuredContent": {"result": "x"}});
    test_tool!(Strict, "strict" as "strict", () => u8, "{}", None, false);
    assert_eq!(
        typed_output::<Strict>(&raw).unwrap_err().to_string(),
        "the output of MCP tool \"strict\" does not fit its Rust type: invalid type: map, expected u8"
    );
    // `()` serializes to `null`: no arguments.
    assert_eq!(check_args::<Strict>(&()).unwrap(), None);
}

#[test]
fn integral_floats_fit_integer_fields() {
    // `3.0` is an `integer` for JSON Schema; the generated `i64`/`u64` fields take it.
    test_tool!(Counts, "counts" as "counts", () => (i64, u64, f64, Value), "{}", None, false);
    let raw = json!({"structuredContent": [-3.0, 1.8446744073709552e19, 2.5, {"n": 4.0}]});
    // 2^64 does not fit `u64`: the first error stands.
    assert_eq!(
        typed_output::<Counts>(&raw).unwrap_err().to_string(),
        "the output of MCP tool \"counts\" does not fit its Rust type: invalid type: floating point `-3.0`, expected i64"
    );
    let raw = json!({"structuredContent": [-3.0, 7.0, 2.5, {"n": 4.0}]});
    let output = typed_output::<Counts>(&raw).unwrap().output;
    assert_eq!(output, (-3, 7, 2.5, json!({"n": 4})));
    // Nothing integral to retry with: the error is serde's.
    let raw = json!({"structuredContent": [1.5, 7, 2.5, null]});
    assert_eq!(
        typed_output::<Counts>(&raw).unwrap_err().to_string(),
        "the output of MCP tool \"counts\" does not fit its Rust type: invalid type: floating point `1.5`, expected i64"
    );
}

#[derive(Debug, Serialize)]
struct EventArgs {
    id: String,
    at: String,
}

#[derive(Debug, PartialEq, Deserialize)]
struct EventOutput {
    link: String,
}

test_tool!(
    /// `format`s in the input and output schemas (no `$schema`: 2020-12).
    Event,
    "event" as "cal_event",
    EventArgs => EventOutput,
    r#"{"properties":{"at":{"format":"date-time","type":"string"},"id":{"format":"uuid","type":"string"}},"required":["id","at"],"type":"object"}"#,
    Some(
        r#"{"properties":{"link":{"format":"uri","type":"string"}},"required":["link"],"type":"object"}"#
    ),
    false
);

#[test]
fn formats_are_checked_locally() {
    let ok = EventArgs {
        id: "67e55044-10b1-426f-9247-bb680e5fe0c8".into(),
        at: "2024-01-01T00:00:00Z".into(),
    };
    assert_eq!(
        check_args::<Event>(&ok).unwrap(),
        Some(
            json!({"id": "67e55044-10b1-426f-9247-bb680e5fe0c8", "at": "2024-01-01T00:00:00Z"})
                .as_object()
                .cloned()
                .unwrap()
        )
    );
    let bad = EventArgs {
        id: "67e55044".into(),
        at: "2024-01-01 noon".into(),
    };
    assert_eq!(
        check_args::<Event>(&bad).unwrap_err().to_string(),
        "Invalid input for tool \"cal_event\":\n\
         - /at: \"2024-01-01 noon\" is not a \"date-time\"\n\
         - /id: \"67e55044\" is not a \"uuid\""
    );
    let raw = json!({"structuredContent": {"link": "https://example.com/e/1"}});
    assert_eq!(
        typed_output::<Event>(&raw).unwrap().output,
        EventOutput {
            link: "https://example.com/e/1".into()
        }
    );
    let raw = json!({"structuredContent": {"link": "e/1"}});
    assert_eq!(
        typed_output::<Event>(&raw).unwrap_err().to_string(),
        "invalid output from MCP tool \"event\":\n- /link: \"e/1\" is not a \"uri\""
    );
}
