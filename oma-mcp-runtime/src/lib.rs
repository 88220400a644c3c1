//! Runtime for oma-mcp: what generated MCP tool code calls at run time.
//!
//! **The behaviour contract.** Connecting, tool names, result mapping and errors follow
//! open-multi-agent's `connectMCPTools()` exactly, as its `docs/mcp.md` documents them; the
//! docs here cite that page's sections by title ("Tool names", "Result mapping", "Errors",
//! "Granting MCP tools to an agent"). Protocol behaviour cites the MCP specification by
//! revision (2025-11-25, 2026-07-28), schema behaviour JSON Schema by keyword.
//!
//! - [`connect`]: spawn a pinned MCP server over stdio, page through `tools/list`
//!   (`connectMCPTools()`, "Connecting to a server").
//! - [`call`]: call a tool with one request builder, [`ToolCall`]: `client.call_tool(name)`
//!   or `client.call(args)`, settings (arguments, cancellation, progress, a timeout, answers
//!   to a request for input, confirmation), then one ending (`raw`, `outcome`, `mapped`,
//!   `typed`).
//! - [`naming`], [`result`], [`call_outcome`], [`snapshot`], [`pointer`](mod@pointer): the pure
//!   rules of the contract (tool names, result mapping) and the snapshot format, re-exported
//!   from `oma-mcp-core`, which holds everything that needs no connection.
//! - [`typed`]: the [`McpTool`] trait that generated tool marker types implement, and what
//!   typed calls check and read.
//! - [`tool`] (cargo feature `tools`): MCP tools as ordinary tools of an agent ("Granting MCP
//!   tools to an agent"):
//!   [`ToolDefinition`], [`ToolRegistry`], default-deny [`ToolGrants`], and the
//!   [`ToolExecutor`] pipeline (gate, consequential confirmation, output truncation).
//! - [`validate`] (cargo feature `validate`, off by default): local argument validation against
//!   a tool's JSON Schema with the `jsonschema` crate (beyond the contract, which leaves
//!   validation to the server). Without it, only the server validates.
//! - [`drift`] (cargo feature `drift`, on by default): the drift engine of `oma-mcp-core` (what
//!   changed between two `tools/list`s, each change classified breaking, warning or info), and
//!   [`connect_checked`], which checks a live server against its pin.
//! - [`error`]: the crate's [`Error`].
//!
//! Cargo feature `schemars`: re-exports `schemars` for generated code made with
//! `oma_mcp_build::codegen::GenerateOptions::with_schemars(true)` (manifest: `schemars = true`),
//! whose argument and output types then derive `schemars::JsonSchema`.
//!
//! Data flows one way: server → snapshot → generated code → typed call → drift report.

pub mod call;
pub mod connect;
#[cfg(feature = "drift")]
pub mod drift;
pub mod error;
#[cfg(feature = "tools")]
pub mod tool;
pub mod typed;
pub mod validate;

#[doc(hidden)]
pub use oma_mcp_core::quote;
pub use oma_mcp_core::{call_outcome, descriptor, naming, pointer, result, snapshot};

pub use call::{Confirmed, Permit, ToolCall, Typed, Unconfirmed, Untyped};
pub use connect::{
    ConnectConfig, DiscoveredTool, Lifecycle, McpClient, Progress, connect_mcp_tools,
};
#[cfg(feature = "drift")]
pub use drift::{
    Change, ChangeKind, Direction, DriftPolicy, DriftRefused, DriftReport, Severity,
    connect_checked,
};
pub use error::Error;
pub use oma_mcp_core::call_outcome::{CallOutcome, InputRequired};
pub use oma_mcp_core::naming::normalize_tool_name;
pub use oma_mcp_core::result::{FileSource, ImageSource, ModelPart, ToolResult, map_call_result};
pub use oma_mcp_core::snapshot::{Snapshot, SnapshotTool};
/// The abort signal of a call (open-multi-agent's `abortSignal`) ([`tool::ToolContext::cancel`],
/// [`ToolCall::cancel_on`]), re-exported from `tokio-util`.
pub use tokio_util::sync::CancellationToken;
#[cfg(feature = "tools")]
pub use tool::{ToolContext, ToolDefinition, ToolExecutor, ToolGrants, ToolRegistry};
pub use typed::{CallError, McpTool, NotConsequential, ToolArgs, TypedResult};
#[cfg(feature = "validate")]
pub use validate::Validator;

/// Re-exports that generated code refers to as `::oma_mcp_runtime::__private::…`, so a crate
/// that includes generated code needs no dependency other than `oma-mcp-runtime`.
#[doc(hidden)]
pub mod __private {
    #[cfg(feature = "schemars")]
    pub use schemars;
    pub use serde;
    pub use serde_json;

    use serde_json::Value;

    /// Deserializes a required, nullable field of a generated struct: `null` is `None`, and
    /// (unlike a plain `Option` field) a missing field is an error, as the schema says.
    ///
    /// # Errors
    /// When the value is neither `null` nor a `T`.
    pub fn required_nullable<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
    where
        D: serde::Deserializer<'de>,
        T: serde::Deserialize<'de>,
    {
        <Option<T> as serde::Deserialize>::deserialize(deserializer)
    }

    /// JSON Schema equality (`enum`, `const`): numbers by mathematical value (`1` equals
    /// `1.0`), arrays item by item, objects member by member. Generated exact-value enums
    /// match with it, so a value the schema validator accepted also deserializes.
    pub fn json_equal(a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::Number(x), Value::Number(y)) => {
                if let (Some(x), Some(y)) = (x.as_i64(), y.as_i64()) {
                    x == y
                } else if let (Some(x), Some(y)) = (x.as_u64(), y.as_u64()) {
                    x == y
                } else {
                    matches!((x.as_f64(), y.as_f64()), (Some(x), Some(y)) if x == y)
                }
            }
            (Value::Array(x), Value::Array(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(x, y)| json_equal(x, y))
            }
            (Value::Object(x), Value::Object(y)) => {
                x.len() == y.len()
                    && x.iter()
                        .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
            }
            _ => a == b,
        }
    }

    /// The value of a `const` property, from its JSON text, for a generated struct's
    /// `Serialize` (the struct has no field for it and always writes it).
    ///
    /// # Errors
    /// When `json` is not JSON text, which generated code never passes.
    pub fn const_value<E: serde::ser::Error>(json: &str) -> Result<Value, E> {
        serde_json::from_str(json).map_err(E::custom)
    }

    /// Checks a `const` property read by a generated struct's `Deserialize`: `found` (`None`
    /// when an optional one is absent) must equal the JSON text `json` ([`json_equal`]).
    ///
    /// # Errors
    /// `property "<name>" must be <json>, found <value>` for any other value.
    pub fn check_const<E: serde::de::Error>(
        property: &str,
        json: &str,
        found: Option<&Value>,
    ) -> Result<(), E> {
        let Some(found) = found else {
            return Ok(());
        };
        let expected: Value = serde_json::from_str(json).map_err(E::custom)?;
        if json_equal(&expected, found) {
            Ok(())
        } else {
            Err(E::custom(format!(
                "property \"{property}\" must be {json}, found {found}"
            )))
        }
    }

    /// Adds the `const` properties of a generated struct to the schema `schemars` derived
    /// for it (the struct has no fields for them): `(name, JSON text of the value, required)`.
    #[cfg(feature = "schemars")]
    pub fn schema_consts(schema: &mut schemars::Schema, consts: &[(&str, &str, bool)]) {
        let Some(object) = schema.as_object_mut() else {
            return;
        };
        for (name, json, required) in consts {
            let Ok(value) = serde_json::from_str::<Value>(json) else {
                continue;
            };
            let properties = object
                .entry("properties")
                .or_insert_with(|| Value::Object(serde_json::Map::new()));
            if let Value::Object(properties) = properties {
                let mut constant = serde_json::Map::new();
                constant.insert("const".to_owned(), value);
                properties.insert((*name).to_owned(), Value::Object(constant));
            }
            if *required {
                let list = object
                    .entry("required")
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(list) = list
                    && !list.iter().any(|r| r == *name)
                {
                    list.push(Value::from(*name));
                }
            }
        }
    }

    /// The `JsonSchema` of a generated root type (`<Tool>Args`, `<Tool>Output`): the tool's
    /// exact schema from its canonical JSON text `json`, not one derived from the Rust type
    /// (which cannot say everything the schema says). For FastMCP's wrapped form (`wrapped`),
    /// the type is the `result` member: its schema, with the root's `$defs` and
    /// `definitions` beside it so local `$ref`s still resolve. Text that is not a JSON schema
    /// (never generated) gives the schema `true`.
    #[cfg(feature = "schemars")]
    pub fn exact_schema(json: &str, wrapped: bool) -> schemars::Schema {
        let Ok(mut value) = serde_json::from_str::<Value>(json) else {
            return schemars::Schema::default();
        };
        if wrapped {
            let defs: Vec<(String, Value)> = ["$defs", "definitions"]
                .into_iter()
                .filter_map(|k| value.get(k).map(|d| (k.to_owned(), d.clone())))
                .collect();
            let mut result = value
                .pointer("/properties/result")
                .cloned()
                .unwrap_or(Value::Bool(true));
            if let Value::Object(result) = &mut result {
                for (key, defs) in defs {
                    result.entry(key).or_insert(defs);
                }
            }
            value = result;
        }
        schemars::Schema::try_from(value).unwrap_or_default()
    }

    #[cfg(test)]
    mod tests {
        use serde_json::json;

        use super::{check_const, json_equal};

        #[test]
        fn numbers_compare_by_value_everywhere() {
            assert!(json_equal(&json!(1), &json!(1.0)));
            assert!(json_equal(&json!(-0.0), &json!(0)));
            assert!(json_equal(&json!([1, {"a": 2.0}]), &json!([1.0, {"a": 2}])));
            assert!(json_equal(&json!(u64::MAX), &json!(u64::MAX)));
            assert!(!json_equal(&json!(1), &json!("1")));
            assert!(!json_equal(&json!(1), &json!(1.5)));
            assert!(!json_equal(&json!([1]), &json!([1, 1])));
            assert!(!json_equal(&json!({"a": 1}), &json!({"a": 1, "b": 1})));
            assert!(!json_equal(&json!(-1), &json!(u64::MAX)));
        }

        #[test]
        fn consts_are_checked_by_value() {
            let check = |json: &str, found: Option<serde_json::Value>| {
                check_const::<serde_json::Error>("v", json, found.as_ref())
                    .map_err(|e| e.to_string())
            };
            assert_eq!(check("1", Some(json!(1.0))), Ok(()));
            assert_eq!(check("true", None), Ok(()));
            assert_eq!(
                check("true", Some(json!(false))),
                Err("property \"v\" must be true, found false".to_owned())
            );
            assert_eq!(
                check("\"a\"", Some(json!("b"))),
                Err("property \"v\" must be \"a\", found \"b\"".to_owned())
            );
        }
    }
}

/// Includes the code `oma-mcp-build` generated for the manifest server `$name` from
/// `$OUT_DIR/<name>.rs`, like `tonic::include_proto!`.
///
/// ```ignore
/// mod everything {
///     oma_mcp_runtime::include_tools!("everything");
/// }
/// ```
#[macro_export]
macro_rules! include_tools {
    ($name:literal) => {
        include!(concat!(env!("OUT_DIR"), "/", $name, ".rs"));
    };
}

/// The items of a generated module that use the drift engine (`drift()` and
/// `connect(policy)`): with cargo feature `drift` (on by default) they are emitted as written;
/// without it they are left out, so the rest of the module (the tools, `connect_config()`,
/// `SNAPSHOT`) compiles without the drift engine. The code `oma-mcp-build` generates wraps
/// those items in it; it is not meant to be called by hand.
#[cfg(feature = "drift")]
#[doc(hidden)]
#[macro_export]
macro_rules! drift_items {
    ($($item:item)*) => {
        $($item)*
    };
}

/// The items of a generated module that use the drift engine (`drift()` and
/// `connect(policy)`): with cargo feature `drift` (on by default) they are emitted as written;
/// without it (this build) they are left out, so the rest of the module (the tools,
/// `connect_config()`, `SNAPSHOT`) compiles without the drift engine. The code
/// `oma-mcp-build` generates wraps those items in it; it is not meant to be called by hand.
#[cfg(not(feature = "drift"))]
#[doc(hidden)]
#[macro_export]
macro_rules! drift_items {
    ($($item:item)*) => {};
}

/// Emitted by `oma-mcp-build` in the generated module of a server pinned by URL, whose
/// `connect_config()` connects over streamable HTTP: with cargo feature `http` it expands to
/// nothing; without it (this build) it is a compile error naming the server and the feature,
/// so the missing feature shows when the crate is built, not as
/// [`ConfigError::HttpFeatureDisabled`](crate::error::ConfigError::HttpFeatureDisabled) when it
/// runs. Not meant to be called by hand.
#[cfg(not(feature = "http"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __require_http {
    ($server:literal) => {
        ::core::compile_error!(::core::concat!(
            "the MCP server `",
            $server,
            "` is pinned by URL, and its generated `connect_config()` connects over streamable \
             HTTP: enable oma-mcp-runtime's cargo feature `http` (`features = [\"http\"]` on the \
             oma-mcp-runtime dependency in Cargo.toml)"
        ));
    };
}

/// Emitted by `oma-mcp-build` in the generated module of a server pinned by URL, whose
/// `connect_config()` connects over streamable HTTP: with cargo feature `http` (this build)
/// it expands to nothing; without it, it is a compile error naming the server and the
/// feature. Not meant to be called by hand.
#[cfg(feature = "http")]
#[doc(hidden)]
#[macro_export]
macro_rules! __require_http {
    ($server:literal) => {};
}

#[cfg(test)]
mod drift_items_tests {
    /// What `EMITTED` is when `drift_items!` leaves its items out: a glob import, which an
    /// item of the same name shadows (then the import and this constant go unused).
    #[allow(dead_code)]
    mod fallback {
        pub const EMITTED: bool = false;
    }

    mod generated {
        #[allow(unused_imports)]
        pub use super::fallback::*;
        crate::drift_items! {
            pub const EMITTED: bool = true;
        }
    }

    #[test]
    fn drift_items_are_emitted_exactly_with_the_drift_feature() {
        assert_eq!(generated::EMITTED, cfg!(feature = "drift"));
    }
}

/// With feature `http`, `__require_http!` compiles to nothing at item position, as generated
/// code calls it (without the feature it is a compile error: `oma-mcp-build`'s build-script
/// test builds a URL pin against this crate without the feature and checks the message).
#[cfg(all(test, feature = "http"))]
mod require_http_tests {
    crate::__require_http!("remote");
}
