//! Argument validation against a tool's JSON Schema with the `jsonschema` crate: local input
//! validation, **beyond the contract**: open-multi-agent's `connectMCPTools()` leaves it to the
//! server (its `docs/mcp.md`, "Input validation is delegated to the server"); oma-mcp validates
//! before anything is sent.
//!
//! - **Dialect** from the schema's `$schema` ([`Dialect::of`]): draft-04, draft-06, draft-07,
//!   2019-09 and 2020-12 (with or without a trailing `#`, `http` or `https`). A schema without
//!   `$schema`, or with one this crate does not know, is read as 2020-12, the dialect MCP
//!   specifies for schemas without `$schema`.
//! - **Offline**: `jsonschema` is built without its `resolve-http`/`resolve-file` features and
//!   with an offline retriever, so only local `$ref`s (`#/$defs/…`, `#/definitions/…`) resolve;
//!   anything else makes the schema uncompilable.
//! - **Formats are asserted** when the `jsonschema` crate knows them for the dialect
//!   (`date-time`, `date`, `time`, `email`, `uri`, `ipv4`, `uuid` from 2019-09 on, …): a bad
//!   value is a [`Problem`] at its JSON pointer, as a missing field is. **Unknown formats are
//!   ignored** (the crate's default), so the formats schemars and OpenAPI emit (`int32`,
//!   `uint64`, `double`, …) never reject a value.
//! - **Never panics**: compiling or evaluating a schema runs under `catch_unwind`; a panic in the
//!   `jsonschema` crate counts as an uncompilable schema, or as "no problems found".
//!
//! [`Validator`] and [`InputValidator`] need the cargo feature `validate` (off by default: the
//! `jsonschema` crate and its regex engines about double a user's clean build); without it nothing is validated locally and the server alone checks
//! the arguments, as in open-multi-agent. [`Dialect`], [`Problem`] and
//! [`invalid_input_message`] are always there.
//!
//! [`Validator`] is the compiled schema; [`InputValidator`] is what a
//! [`ToolDefinition`](crate::tool::ToolDefinition) holds: it compiles its tool's schema once, on
//! first use, and caches it. A schema that cannot be compiled (an invalid subschema such as a
//! property named `type` declared as `"type": "object"`, an unresolvable `$ref`) is logged once
//! with `tracing::warn!` naming the tool and the schema error, and the tool's arguments are then
//! **not validated locally** (the server still validates them): rejecting every call because the
//! server's schema is sloppy would make the tool unusable, which open-multi-agent never does.

use serde_json::Value;

#[cfg(feature = "validate")]
mod compiled;
#[cfg(feature = "validate")]
pub use compiled::{InputValidator, MAX_LISTED_ENUM_VALUES, Validator};

/// A JSON Schema dialect, read from a schema's `$schema` keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// `http://json-schema.org/draft-04/schema#`
    Draft4,
    /// `http://json-schema.org/draft-06/schema#`
    Draft6,
    /// `http://json-schema.org/draft-07/schema#`
    Draft7,
    /// `https://json-schema.org/draft/2019-09/schema`
    Draft201909,
    /// `https://json-schema.org/draft/2020-12/schema`, and the default.
    Draft202012,
}

impl Dialect {
    /// The dialect of `schema`: the one its `$schema` names (`http` or `https`, with or without
    /// a trailing `#`), else [`Dialect::Draft202012`] (no `$schema`, a non-string one, an
    /// unknown URI, or a schema that is not an object).
    pub fn of(schema: &Value) -> Self {
        let Some(uri) = schema.get("$schema").and_then(Value::as_str) else {
            return Self::Draft202012;
        };
        let uri = uri.trim_end_matches('#');
        let uri = uri
            .strip_prefix("https://")
            .or_else(|| uri.strip_prefix("http://"))
            .unwrap_or(uri);
        match uri {
            "json-schema.org/draft-04/schema" => Self::Draft4,
            "json-schema.org/draft-06/schema" => Self::Draft6,
            "json-schema.org/draft-07/schema" => Self::Draft7,
            "json-schema.org/draft/2019-09/schema" => Self::Draft201909,
            _ => Self::Draft202012,
        }
    }
}

/// One validation problem: where in the instance, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub struct Problem {
    /// The JSON pointer of the offending value in the instance (RFC 6901), `/` for the root.
    pub pointer: String,
    /// What is wrong, as the `jsonschema` crate words it (e.g. `"message" is a required
    /// property`, `"x" is not of type "integer"`).
    pub message: String,
}

impl Problem {
    /// A problem at `pointer` (use `/` for the root).
    pub fn new(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            pointer: pointer.into(),
            message: message.into(),
        }
    }
}

/// The error text for arguments that failed validation:
/// `Invalid input for tool "<name>":` then one line `\n- <pointer>: <message>` per problem, in
/// the order given ([`Validator::validate`] sorts them).
///
/// ```
/// use oma_mcp_runtime::validate::{Problem, invalid_input_message};
/// let problems = [Problem::new("/", r#""message" is a required property"#)];
/// let text = invalid_input_message("echo", &problems);
/// assert_eq!(
///     text,
///     "Invalid input for tool \"echo\":\n- /: \"message\" is a required property"
/// );
/// ```
pub fn invalid_input_message(tool: &str, problems: &[Problem]) -> String {
    let mut text = format!("Invalid input for tool \"{tool}\":");
    for p in problems {
        text.push_str("\n- ");
        text.push_str(&p.pointer);
        text.push_str(": ");
        text.push_str(&p.message);
    }
    text
}
