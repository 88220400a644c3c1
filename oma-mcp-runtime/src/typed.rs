//! Typed tools: the trait that generated tool marker types implement, and typed calls.
//!
//! `oma-mcp-build` generates, for every tool of a snapshot, an argument type (`<Tool>Args`)
//! and a zero-sized marker type (`<Tool>`) implementing [`McpTool`]. A call then reads
//!
//! ```ignore
//! let result = client.call(Echo, EchoArgs { message: "hi".into() }).await;
//! assert_eq!(result.data, "Echo: hi");
//! ```

use serde_json::Value;

use crate::{McpClient, ToolResult};

/// A tool of a pinned MCP server, known at build time from its snapshot.
///
/// Implemented by generated marker types; every constant comes from the snapshot the code
/// was generated from.
pub trait McpTool {
    /// The argument type, serialized to the `arguments` object of `tools/call`.
    type Args: serde::Serialize;

    /// The raw MCP tool name, as the server lists it and as sent in `tools/call`.
    const MCP_NAME: &'static str;
    /// The framework tool name (seed, "Tool names"): `<prefix>_<MCP_NAME>` when a prefix was
    /// given at generation, with every `/` replaced by `_`.
    const NAME: &'static str;
    /// The tool's `description` as the server sent it, or `None` when it sent none.
    const DESCRIPTION: Option<&'static str>;
    /// The tool's `inputSchema` as canonical JSON text (keys sorted, no whitespace);
    /// `{"type":"object"}` when the server sent none.
    const INPUT_SCHEMA: &'static str;
    /// `sha256:<hex>` digest of the whole tool descriptor in the snapshot
    /// (see [`crate::snapshot::digest`]).
    const DIGEST: &'static str;
    /// Whether the tool has real side effects and needs confirmation before it runs
    /// (from the manifest's `consequential` names and globs).
    const CONSEQUENTIAL: bool;
}

impl McpClient {
    /// Calls the tool `T` with typed arguments and maps the result per the seed.
    ///
    /// The marker value only selects the tool (`client.call(Echo, EchoArgs { .. })`). The
    /// arguments are serialized to a JSON object and sent as `tools/call` to
    /// [`McpTool::MCP_NAME`]. Never fails: like the seed, a failed call (timeout, JSON-RPC
    /// error, closed connection, arguments that do not serialize to an object) is a
    /// [`ToolResult`] with `is_error: true` and `data` =
    /// `MCP tool "<MCP_NAME>" failed: <message>`.
    pub async fn call<T: McpTool>(&self, _tool: T, args: T::Args) -> ToolResult {
        match serde_json::to_value(&args) {
            Ok(Value::Object(map)) => self.call_tool(T::MCP_NAME, Some(map)).await,
            Ok(Value::Null) => self.call_tool(T::MCP_NAME, None).await,
            Ok(other) => ToolResult::failed(
                T::MCP_NAME,
                &format!("arguments must serialize to a JSON object, not {other}"),
            ),
            Err(e) => ToolResult::failed(
                T::MCP_NAME,
                &format!("arguments could not be serialized: {e}"),
            ),
        }
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
