//! Tool definitions in the form each model provider accepts: a provider-safe name, the
//! description, a parameters schema within the provider's JSON Schema subset, and the
//! [`Arguments`] converter that turns what the model sends back into what the MCP server
//! expects.
//!
//! A server's `inputSchema` is written for JSON Schema validators; providers accept subsets
//! of it for tool parameters, and reject (or silently ignore) the rest. The rules each
//! provider's public documentation gives, with the limits observed in its API's errors where
//! the documentation is silent:
//!
//! - [`Provider::OpenAi`], function calling with `"strict": true` (OpenAI, "Structured
//!   Outputs", supported schemas): the root is an object; every object has
//!   `additionalProperties: false` and lists every property in `required`, so a property the
//!   server has optional becomes required and may be `null` (`"type": [T, "null"]`, or
//!   `anyOf` with `{"type": "null"}`); `allOf`, `not`, `if`/`then`/`else`,
//!   `dependentRequired`, `dependentSchemas` are not supported, nor `oneOf` and `default`
//!   (observed); `$ref`/`$defs` are, recursion included, but not a `$ref` with other
//!   keywords beside it; string `format` is one of nine; at most 5,000 properties, 10 levels
//!   of nesting, 1,000 enum values and 120,000 characters of property names, definition names
//!   and enum values. Names match `^[a-zA-Z0-9_-]{1,64}$`; a description over 1,024
//!   characters is refused (observed).
//! - [`Provider::Anthropic`], tool use: the root is `type: object` without `oneOf`, `anyOf`
//!   or `allOf` beside it (observed); property keys match `^[a-zA-Z0-9_.-]{1,64}$`
//!   (observed); otherwise JSON Schema 2020-12 as sent. Names match `^[a-zA-Z0-9_-]{1,64}$`.
//! - [`Provider::Gemini`], function declarations' `parameters` (Google, the OpenAPI 3.0
//!   subset of its `Schema`): one `type` per schema (`STRING`, `NUMBER`, `INTEGER`,
//!   `BOOLEAN`, `ARRAY`, `OBJECT`), `nullable`, string `enum` values only, `anyOf`, and the
//!   fields `format`, `description`, `items`, `properties`, `required`, `minItems`,
//!   `maxItems`, `minLength`, `maxLength`, `pattern`, `minimum`, `maximum`,
//!   `minProperties`, `maxProperties`; no `$ref`, `$defs`, `additionalProperties`, `const`,
//!   `oneOf`, `allOf` (so recursion cannot be expressed); an `OBJECT` needs properties
//!   (observed); property names match `^[A-Za-z_][A-Za-z0-9_]{0,63}$`. Names: the
//!   intersection of its documented rules, `^[a-zA-Z_][a-zA-Z0-9_]{0,62}$`.
//!
//! [`ProviderTool::new`] follows them: what a provider cannot take is rewritten so the same
//! arguments still reach the server (`oneOf` as `anyOf`; a `$ref` inlined; a value of any
//! shape, or an object with free-form properties, as a string of JSON text the converter
//! parses; Gemini's number and boolean enums as strings the converter maps back; a property
//! renamed, the converter renaming it back), or dropped when it only narrows what is valid
//! (`default`, `pattern`s and formats a provider lacks, numeric bounds Gemini lacks): the
//! server's own validation, which a call through oma-mcp runs against the original schema,
//! still holds. What cannot be rewritten (recursion for Gemini, a limit exceeded, a `false`
//! schema) is an [`Unexpressible`] error naming the tool and the JSON pointer, never a schema
//! the provider would refuse. [`check`] is the written-down rules as code.

mod arguments;
mod convert;
mod rules;

use serde_json::{Value, json};

pub use arguments::{ArgumentError, Arguments};
pub use rules::{Violation, check, check_tool};

use crate::descriptor::ToolDescriptor;
use crate::snapshot::digest;

/// A model provider whose tool format and JSON Schema subset oma-mcp writes for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Provider {
    /// OpenAI function calling in strict mode (Chat Completions and Responses).
    OpenAi,
    /// Anthropic tool use (the Messages API's `tools`).
    Anthropic,
    /// Google Gemini function declarations (`parameters`, the OpenAPI subset).
    Gemini,
}

impl Provider {
    /// Every provider, in this order: OpenAI, Anthropic, Gemini.
    pub const ALL: [Self; 3] = [Self::OpenAi, Self::Anthropic, Self::Gemini];

    /// The name used on the command line and in messages: `openai`, `anthropic`, `gemini`.
    pub fn name(self) -> &'static str {
        match self {
            Self::OpenAi => "openai",
            Self::Anthropic => "anthropic",
            Self::Gemini => "gemini",
        }
    }

    /// The provider of a [`name`](Self::name), if any.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The longest tool name the provider takes, in characters: 64 (Gemini: 63).
    pub fn max_name_len(self) -> usize {
        match self {
            Self::OpenAi | Self::Anthropic => 64,
            Self::Gemini => 63,
        }
    }

    /// Whether `name` is a tool name the provider takes as it is.
    pub fn accepts_name(self, name: &str) -> bool {
        let len = name.chars().count();
        if len == 0 || len > self.max_name_len() {
            return false;
        }
        match self {
            Self::OpenAi | Self::Anthropic => name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
            Self::Gemini => {
                name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            }
        }
    }

    /// The tool name the provider sees for `name`: `name` itself when the provider takes it;
    /// else every character it refuses replaced by `_` (a leading digit prefixed with `_` for
    /// Gemini), cut to leave room, and tagged with `_` and the first 8 hex digits of the
    /// SHA-256 of `name`, so two names that read alike stay apart. Deterministic: the same
    /// name gives the same result on every run.
    ///
    /// ```
    /// use oma_mcp_core::provider::Provider;
    /// assert_eq!(Provider::OpenAi.fit_name("gh_search-code"), "gh_search-code");
    /// assert_eq!(Provider::Gemini.fit_name("gh_search-code"), "gh_search_code_222543d1");
    /// assert_eq!(Provider::OpenAi.fit_name(&"x".repeat(70)).len(), 64);
    /// ```
    pub fn fit_name(self, name: &str) -> String {
        if self.accepts_name(name) {
            return name.to_owned();
        }
        let keep = |c: char| match self {
            Self::OpenAi | Self::Anthropic => c.is_ascii_alphanumeric() || c == '_' || c == '-',
            Self::Gemini => c.is_ascii_alphanumeric() || c == '_',
        };
        let mut safe: String = name
            .chars()
            .map(|c| if keep(c) { c } else { '_' })
            .collect();
        if self == Self::Gemini && !safe.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        {
            safe.insert(0, '_');
        }
        let tag = tag(name);
        let room = self.max_name_len() - tag.len() - 1;
        let cut: String = safe.chars().take(room).collect();
        format!("{cut}_{tag}")
    }
}

/// A tool name every [`Provider`] takes: `name` itself when all of them take it, else
/// [`Provider::Gemini`]'s [`fit_name`](Provider::fit_name) (Gemini's rules are the strictest:
/// what it takes, OpenAI and Anthropic take too). For frameworks that send one name to any
/// provider, such as rig's typed tools (a `const NAME`); oma-mcp-build writes it into
/// generated code as `McpTool::MODEL_NAME`.
///
/// ```
/// use oma_mcp_core::provider::portable_name;
/// assert_eq!(portable_name("gh_search_code"), "gh_search_code");
/// assert_eq!(portable_name("gh_search-code"), "gh_search_code_222543d1");
/// ```
pub fn portable_name(name: &str) -> String {
    if Provider::ALL.iter().all(|p| p.accepts_name(name)) {
        name.to_owned()
    } else {
        Provider::Gemini.fit_name(name)
    }
}

impl std::fmt::Display for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The first 8 hex digits of the SHA-256 of `text`'s canonical JSON.
pub(crate) fn tag(text: &str) -> String {
    let digest = digest(&Value::String(text.to_owned()));
    digest.trim_start_matches("sha256:")[..8].to_owned()
}

/// One MCP tool in a provider's form: what the model sees, and how its arguments go back.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ProviderTool {
    /// The provider.
    pub provider: Provider,
    /// The name the model calls the tool by ([`Provider::fit_name`] of the contract's
    /// prefixed name).
    pub name: String,
    /// The contract's name of the tool (`<prefix>_<mcp name>`, [`ToolDescriptor::name`]).
    pub tool_name: String,
    /// The raw MCP name, as sent in `tools/call`.
    pub mcp_name: String,
    /// What the model reads about the tool (OpenAI: at most 1,024 characters, cut with `…`).
    pub description: String,
    /// The parameters schema in the provider's subset.
    pub parameters: Value,
    /// Turns the model's arguments into the server's.
    pub arguments: Arguments,
}

/// A schema, or a part of one, that a provider's subset cannot express.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the tool `{tool}` cannot be given to {provider}: at {} of its inputSchema, {why}",
    if pointer.is_empty() { "the root" } else { pointer }
)]
#[non_exhaustive]
pub struct Unexpressible {
    /// The tool's name ([`ToolDescriptor::name`]).
    pub tool: String,
    /// The provider.
    pub provider: Provider,
    /// Where in the `inputSchema` (a JSON pointer; empty for the root).
    pub pointer: String,
    /// What cannot be expressed.
    pub why: String,
}

/// The longest description OpenAI takes, in characters (observed in its API's errors).
pub const OPENAI_MAX_DESCRIPTION: usize = 1024;

impl ProviderTool {
    /// The tool `descriptor` in `provider`'s form.
    ///
    /// # Errors
    /// [`Unexpressible`] when its `inputSchema` holds what the provider cannot express: a
    /// recursive `$ref` (Gemini), a `$ref` that points nowhere, a `false` schema, more than
    /// the provider's limits allow.
    pub fn new(descriptor: &ToolDescriptor, provider: Provider) -> Result<Self, Unexpressible> {
        let mut tool = Self::from_schema(
            &descriptor.name,
            &descriptor.description,
            &descriptor.input_schema,
            provider,
        )?;
        tool.mcp_name.clone_from(&descriptor.mcp_name);
        Ok(tool)
    }

    /// Any tool in `provider`'s form, from its name (which is also its
    /// [`mcp_name`](Self::mcp_name)), description and input schema: a tool of the runtime's
    /// tool layer that is not an MCP tool, say.
    ///
    /// # Errors
    /// As [`new`](Self::new).
    pub fn from_schema(
        name: &str,
        description: &str,
        input_schema: &Value,
        provider: Provider,
    ) -> Result<Self, Unexpressible> {
        let (parameters, arguments) =
            convert::convert(input_schema, provider).map_err(|(pointer, why)| Unexpressible {
                tool: name.to_owned(),
                provider,
                pointer,
                why,
            })?;
        let description = match provider {
            Provider::OpenAi if description.chars().count() > OPENAI_MAX_DESCRIPTION => {
                let cut: String = description
                    .chars()
                    .take(OPENAI_MAX_DESCRIPTION - 1)
                    .collect();
                format!("{cut}…")
            }
            _ => description.to_owned(),
        };
        Ok(Self {
            provider,
            name: provider.fit_name(name),
            tool_name: name.to_owned(),
            mcp_name: name.to_owned(),
            description,
            parameters,
            arguments,
        })
    }

    /// The tool definition in the provider's own request format:
    ///
    /// - OpenAI (Chat Completions): `{"type": "function", "function": {"name",
    ///   "description", "parameters", "strict": true}}`;
    /// - Anthropic: `{"name", "description", "input_schema"}`;
    /// - Gemini: `{"name", "description", "parameters"}` (one of a `functionDeclarations`;
    ///   without `parameters` when the tool takes none).
    pub fn request_json(&self) -> Value {
        match self.provider {
            Provider::OpenAi => json!({
                "type": "function",
                "function": {
                    "name": self.name,
                    "description": self.description,
                    "parameters": self.parameters,
                    "strict": true,
                },
            }),
            Provider::Anthropic => json!({
                "name": self.name,
                "description": self.description,
                "input_schema": self.parameters,
            }),
            // A function without parameters has none (an empty `OBJECT` is refused).
            Provider::Gemini
                if self.parameters["properties"]
                    .as_object()
                    .is_none_or(serde_json::Map::is_empty) =>
            {
                json!({"name": self.name, "description": self.description})
            }
            Provider::Gemini => json!({
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            }),
        }
    }
}

/// Every tool of `descriptors` in `provider`'s form, in order, and the tools that cannot be
/// given to it.
///
/// # Errors
/// [`ProviderNameCollision`] when two tools get the same provider name (two contract names
/// that [`Provider::fit_name`] maps alike: practically only a name the provider takes as it is
/// meeting a fitted one).
pub fn provider_tools(
    descriptors: &[ToolDescriptor],
    provider: Provider,
) -> Result<(Vec<ProviderTool>, Vec<Unexpressible>), ProviderNameCollision> {
    collect_provider_tools(
        provider,
        descriptors.iter().map(|d| ProviderTool::new(d, provider)),
    )
}

/// The conversions `results` (each a [`ProviderTool`] of `provider`, or why not) split into
/// the tools, in order, and the refusals; what [`provider_tools`] does for descriptors, for
/// tools from elsewhere ([`ProviderTool::from_schema`]).
///
/// # Errors
/// [`ProviderNameCollision`] when two tools have the same provider name.
pub fn collect_provider_tools(
    provider: Provider,
    results: impl IntoIterator<Item = Result<ProviderTool, Unexpressible>>,
) -> Result<(Vec<ProviderTool>, Vec<Unexpressible>), ProviderNameCollision> {
    let mut tools: Vec<ProviderTool> = Vec::new();
    let mut unexpressible = Vec::new();
    for result in results {
        match result {
            Ok(tool) => {
                if let Some(other) = tools.iter().find(|t| t.name == tool.name) {
                    return Err(ProviderNameCollision {
                        provider,
                        name: tool.name,
                        tools: [other.tool_name.clone(), tool.tool_name],
                    });
                }
                tools.push(tool);
            }
            Err(e) => unexpressible.push(e),
        }
    }
    Ok((tools, unexpressible))
}

/// Two tools that a provider would see under one name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the tools `{}` and `{}` are both named `{name}` for {provider}; give the server a \
     prefix, or rename one",
    tools[0],
    tools[1]
)]
#[non_exhaustive]
pub struct ProviderNameCollision {
    /// The provider.
    pub provider: Provider,
    /// The provider name both got.
    pub name: String,
    /// The two tools' contract names.
    pub tools: [String; 2],
}

#[cfg(test)]
mod tests;
