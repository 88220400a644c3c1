//! Typed tools: the trait that generated tool marker types implement, and what typed calls
//! check and read.
//!
//! `oma-mcp-build` generates, for every tool of a snapshot, an argument type (`<Tool>Args`),
//! an output type (`<Tool>Output`, when the tool declares an `outputSchema`) and a zero-sized
//! marker type (`<Tool>`) implementing [`McpTool`]; every argument type implements
//! [`ToolArgs`], so it knows its tool. [`McpClient::call`]`(args)` starts a typed
//! [`ToolCall`](crate::ToolCall), with two endings:
//!
//! - [`mapped`](crate::ToolCall::mapped): open-multi-agent's call, mapped to a
//!   [`ToolResult`](crate::ToolResult), never failing;
//! - [`typed`](crate::ToolCall::typed): validates the arguments against the tool's exact
//!   input schema before anything is sent ([`check_args`]), and on success deserializes
//!   `structuredContent` into [`McpTool::Output`] after validating it against the output
//!   schema ([`typed_output`]: a [`TypedResult`], or a [`CallError`]).
//!
//! Both compile only for tools that are [`NotConsequential`]: a tool whose
//! [`McpTool::CONSEQUENTIAL`] is `true` needs [`confirmed`](crate::ToolCall::confirmed)
//! first, the caller's explicit confirmation.
//!
//! ```ignore
//! let result = client.call(EchoArgs::new("hi")).mapped().await;
//! assert_eq!(result.data, "Echo: hi");
//! let sum = client.call(GetSumArgs::new(1.0, 2.0)).typed().await?;
//! println!("{}", sum.result.data);
//! // `write_file` is consequential: `client.call(args).mapped()` would not compile.
//! let written = client.call(WriteFileArgs::new(path, text)).confirmed().mapped().await;
//! ```
//!
//! Schemas are compiled once per tool, on first use, into the marker's [`ToolValidators`]
//! (a `static` the generated code declares). A schema that does not compile (an invalid
//! subschema, an unresolvable `$ref`) is logged once with `tracing::warn!` and that side is
//! then not validated locally, as [`crate::validate`] explains.

mod result;

#[cfg(feature = "validate")]
use std::sync::OnceLock;

use serde_json::{Map, Value};

#[cfg(doc)]
use crate::McpClient;
#[cfg(feature = "validate")]
use crate::validate::Validator;

pub use result::{CallError, CallFailure, TypedResult, typed_output};

/// A tool of a pinned MCP server, known at build time from its snapshot.
///
/// Implemented by generated marker types; every constant comes from the snapshot the code
/// was generated from.
pub trait McpTool {
    /// The argument type, serialized to the `arguments` object of `tools/call`.
    type Args: serde::Serialize;
    /// What a typed call ([`ToolCall::typed`](crate::ToolCall::typed)) deserializes
    /// `structuredContent` into: the generated
    /// `<Tool>Output` when the tool declares an `outputSchema` (for FastMCP's wrapped form,
    /// the type of its `result` property), else `Option<serde_json::Value>` (the
    /// `structuredContent` as sent, if any).
    type Output: serde::de::DeserializeOwned;

    /// The raw MCP tool name, as the server lists it and as sent in `tools/call`.
    const MCP_NAME: &'static str;
    /// The framework tool name (open-multi-agent's `docs/mcp.md`, "Tool names"):
    /// `<prefix>_<MCP_NAME>` when a prefix was given at generation, with every `/` replaced by `_`.
    const NAME: &'static str;
    /// The name a model provider is given for the tool where one name must serve every
    /// provider (rig's `Tool::NAME`): [`NAME`](Self::NAME) when OpenAI, Anthropic and Gemini
    /// all take it, else its deterministic portable form
    /// ([`portable_name`](crate::provider::portable_name): refused characters as `_`, cut to
    /// 63 characters, tagged with 8 hex digits of its SHA-256).
    const MODEL_NAME: &'static str = Self::NAME;
    /// The tool's `description` as the server sent it, or `None` when it sent none.
    const DESCRIPTION: Option<&'static str>;
    /// The tool's `inputSchema` as JSON text, keys sorted as in the snapshot and laid out on
    /// lines (two spaces a level, [`canonical_json_pretty`](crate::snapshot::canonical_json_pretty));
    /// `{"type": "object"}` when the server sent none.
    const INPUT_SCHEMA: &'static str;
    /// The tool's `outputSchema` as JSON text, laid out as
    /// [`INPUT_SCHEMA`](Self::INPUT_SCHEMA) is, or `None` when it declares none.
    const OUTPUT_SCHEMA: Option<&'static str> = None;
    /// Whether the output schema is FastMCP's wrapped form (`"x-fastmcp-wrap-result": true`,
    /// `{"result": <value>}`): the typed output is then the `result` member.
    const OUTPUT_WRAPPED: bool = false;
    /// `sha256:<hex>` digest of the whole tool descriptor in the snapshot
    /// (see [`crate::snapshot::digest`]).
    const DIGEST: &'static str;
    /// Whether the tool has real side effects and needs confirmation before it runs: the
    /// manifest's `consequential` names and globs, else (unless the manifest's
    /// `consequential-annotations = "ignore"`) the tool's annotations
    /// (`destructiveHint: true` without `readOnlyHint: true`), minus the manifest's
    /// `not-consequential` entries.
    const CONSEQUENTIAL: bool;

    /// The compiled schemas of this tool: generated code returns a `static` declared in the
    /// function body, so each tool's schemas are compiled at most once per process.
    fn validators() -> &'static ToolValidators;
}

/// The argument type of one tool: it knows its tool, so a call needs no marker
/// (`client.call(args)`, [`McpClient::call`]).
///
/// Generated code implements it for every `<Tool>Args` (each tool has its own argument type,
/// so `Tool` is always the tool the arguments were generated for).
pub trait ToolArgs: serde::Serialize {
    /// The tool these are the arguments of.
    type Tool: McpTool<Args = Self>;
}

/// A tool whose [`McpTool::CONSEQUENTIAL`] is `false`: an unconfirmed typed call
/// ([`McpClient::call`]) ends ([`mapped`](crate::ToolCall::mapped),
/// [`typed`](crate::ToolCall::typed)) only for such tools, so a consequential tool cannot run
/// by accident: its call needs [`confirmed`](crate::ToolCall::confirmed) first (see
/// [`Permit`](crate::call::Permit)).
///
/// Generated code implements it for exactly the tools whose `CONSEQUENTIAL` is `false`. A
/// hand-written implementation for a consequential tool fails to compile where an unconfirmed
/// call ends (the endings assert `!CONSEQUENTIAL` at compile time).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a consequential MCP tool: calling it needs an explicit confirmation",
    label = "consequential: not callable without a confirmation",
    note = "once your program has confirmed the call, add `.confirmed()` before the ending: `client.call(args).confirmed().mapped()` (or `.typed()`); to give the tool to an agent, give it with a confirmation gate (oma-mcp-rig: `McpRigTool::gated`)"
)]
pub trait NotConsequential: McpTool {}

/// A generated struct that has the same shape as others of its module: the same properties
/// (JSON names, required or not) with the same plain types (strings, numbers, booleans, JSON
/// values, and lists, maps and options of those), so that a value of one converts into any
/// other with `reshape()` (an entity one tool returned, passed back as another tool's
/// argument). Generated code implements it once per struct, and gives each struct the method
///
/// ```ignore
/// pub fn reshape<T>(self) -> T
/// where
///     T: SameShape<Shape = <Self as SameShape>::Shape>,
/// ```
///
/// so conversions grow with the number of structs, not with the number of pairs. The map an
/// output struct keeps unlisted properties in moves along when both structs have one, starts
/// empty when only the target has one, and is dropped otherwise.
pub trait SameShape: Sized {
    /// The values of the fields, in the shape's order, tagged with the shape ([`Shape`]).
    type Shape;
    /// The struct's field values.
    fn into_shape(self) -> Self::Shape;
    /// The struct of these field values.
    fn from_shape(shape: Self::Shape) -> Self;
}

/// The field values of a [`SameShape`] struct: `T` is a tuple of the fields' values in the
/// order of the shape, then the map of unlisted properties (`None` for a struct without
/// one); `KEY`, 64 bits of the SHA-256 of the shape's JSON names, requiredness and types,
/// keeps structs whose fields merely have the same Rust types apart.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape<const KEY: u64, T>(pub T);

/// The compiled input and output schemas of one tool, each compiled on first use (with the
/// cargo feature `validate`, off by default; without it, nothing: the server validates).
///
/// Generated code declares one per marker type:
///
/// ```
/// use oma_mcp_runtime::typed::ToolValidators;
/// static VALIDATORS: ToolValidators = ToolValidators::new();
/// ```
#[derive(Debug, Default)]
pub struct ToolValidators {
    #[cfg(feature = "validate")]
    input: OnceLock<Option<Validator>>,
    #[cfg(feature = "validate")]
    output: OnceLock<Option<Validator>>,
}

impl ToolValidators {
    /// Nothing compiled yet.
    pub const fn new() -> Self {
        Self {
            #[cfg(feature = "validate")]
            input: OnceLock::new(),
            #[cfg(feature = "validate")]
            output: OnceLock::new(),
        }
    }
}

/// Compiles `schema` (canonical JSON text) of tool `tool`; `None`, logged, when it does not.
#[cfg(feature = "validate")]
fn compile(tool: &str, what: &str, schema: &str) -> Option<Validator> {
    let compiled = serde_json::from_str::<Value>(schema)
        .map_err(|e| e.to_string())
        .and_then(|schema| Validator::new(tool, &schema).map_err(|e| e.to_string()));
    match compiled {
        Ok(v) => Some(v),
        Err(e) => {
            tracing::warn!(tool, "local {what} validation is off for this tool: {e}");
            None
        }
    }
}

/// The compiled input schema of `T` ([`McpTool::INPUT_SCHEMA`]), compiled on the first call;
/// `None` when it does not compile (logged once). Cargo feature `validate`.
#[cfg(feature = "validate")]
pub fn validator_for<T: McpTool>() -> Option<&'static Validator> {
    T::validators()
        .input
        .get_or_init(|| compile(T::NAME, "input", T::INPUT_SCHEMA))
        .as_ref()
}

/// The compiled output schema of `T` ([`McpTool::OUTPUT_SCHEMA`]), compiled on the first
/// call; `None` when the tool has none or it does not compile (logged once). Cargo feature
/// `validate`.
#[cfg(feature = "validate")]
pub fn output_validator_for<T: McpTool>() -> Option<&'static Validator> {
    T::validators()
        .output
        .get_or_init(|| T::OUTPUT_SCHEMA.and_then(|s| compile(T::MCP_NAME, "output", s)))
        .as_ref()
}

/// Serializes `args` and validates them against `T`'s input schema (cargo feature `validate`):
/// the `arguments` of a typed `tools/call` (`None` when they serialize to `null`), checked
/// locally, without a call.
///
/// # Errors
/// [`CallError::InvalidArguments`] with one [`Problem`](crate::validate::Problem) per
/// violation (JSON pointers into the arguments), or when the arguments do not serialize to a
/// JSON object.
pub fn check_args<T: McpTool>(args: &T::Args) -> Result<Option<Map<String, Value>>, CallError> {
    use crate::validate::Problem;
    let invalid = |problems| CallError::InvalidArguments {
        tool: T::NAME,
        problems,
    };
    let value = serde_json::to_value(args).map_err(|e| {
        invalid(vec![Problem::new(
            "/",
            format!("the arguments could not be serialized: {e}"),
        )])
    })?;
    #[cfg(feature = "validate")]
    if let Some(validator) = validator_for::<T>() {
        validator.validate(&value).map_err(invalid)?;
    }
    match value {
        Value::Object(map) => Ok(Some(map)),
        Value::Null => Ok(None),
        other => Err(invalid(vec![Problem::new(
            "/",
            format!("the arguments must serialize to a JSON object, not {other}"),
        )])),
    }
}

/// The error of `FromStr` on a generated string enum: the text is none of the values the
/// tool's schema allows.
///
/// ```
/// use oma_mcp_runtime::typed::UnknownEnumValue;
/// let err = UnknownEnumValue::new("sideways", &["up", "down"]);
/// assert_eq!(err.to_string(), r#"unknown value "sideways"; expected one of "up", "down""#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct UnknownEnumValue {
    /// The text that was parsed.
    pub value: String,
    /// Every allowed value, in schema order.
    pub allowed: &'static [&'static str],
}

impl UnknownEnumValue {
    /// The error for `value`, which is not among `allowed`.
    pub fn new(value: &str, allowed: &'static [&'static str]) -> Self {
        Self {
            value: value.to_owned(),
            allowed,
        }
    }
}

impl std::fmt::Display for UnknownEnumValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown value {:?}; expected one of ", self.value)?;
        for (i, allowed) in self.allowed.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{allowed:?}")?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownEnumValue {}
