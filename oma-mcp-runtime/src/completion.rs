//! Completions of prompt arguments and resource template variables:
//! [`McpClient::complete`] (`completion/complete`, MCP "Completion": since 2024-11-05, the
//! server's `completions` capability since 2025-03-26, `context.arguments` since 2025-06-18).
//!
//! One method for both: a [`Complete`] request names what it completes, a prompt
//! ([`Complete::prompt`], `ref/prompt`) or a resource template ([`Complete::template`],
//! `ref/resource`), the argument and the value typed so far, and optionally the arguments
//! already chosen ([`Complete::with_context`], `context.arguments`).
//!
//! ```ignore
//! let languages = client
//!     .complete(&Complete::prompt::<prompts::CodeReview>("language", "py"))
//!     .await?;
//! assert_eq!(languages.values, ["python"]);
//! ```

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

pub use oma_mcp_core::content::Completions;

use crate::Error;
use crate::connect::McpClient;
use crate::prompt::McpPrompt;
use crate::resource::ResourceTemplate;

/// What a completion is for (MCP `PromptReference` or `ResourceTemplateReference`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CompletionRef {
    /// `{"type": "ref/prompt", "name": …}`: an argument of the prompt with this name.
    Prompt(String),
    /// `{"type": "ref/resource", "uri": …}`: a variable of the resource template with this
    /// `uriTemplate`.
    ResourceTemplate(String),
}

impl CompletionRef {
    /// The reference as `completion/complete` sends it.
    fn to_json(&self) -> Value {
        match self {
            CompletionRef::Prompt(name) => json!({"type": "ref/prompt", "name": name}),
            CompletionRef::ResourceTemplate(uri) => json!({"type": "ref/resource", "uri": uri}),
        }
    }
}

/// One `completion/complete` request: what is completed, which argument, the value so far,
/// and the arguments already chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Complete {
    /// The prompt or resource template.
    pub reference: CompletionRef,
    /// The argument's (or template variable's) name.
    pub argument: String,
    /// The value typed so far (may be empty).
    pub value: String,
    /// The arguments already resolved (`context.arguments`; sent only when not empty).
    pub context: BTreeMap<String, String>,
}

impl Complete {
    /// A completion of `argument` of `reference`, from `value`.
    pub fn new(
        reference: CompletionRef,
        argument: impl Into<String>,
        value: impl Into<String>,
    ) -> Self {
        Self {
            reference,
            argument: argument.into(),
            value: value.into(),
            context: BTreeMap::new(),
        }
    }

    /// A completion of the argument `argument` of the generated prompt `P`.
    pub fn prompt<P: McpPrompt>(argument: impl Into<String>, value: impl Into<String>) -> Self {
        Self::new(CompletionRef::Prompt(P::NAME.to_owned()), argument, value)
    }

    /// A completion of the variable `variable` of the generated resource template `T`.
    pub fn template<T: ResourceTemplate>(
        variable: impl Into<String>,
        value: impl Into<String>,
    ) -> Self {
        Self::new(
            CompletionRef::ResourceTemplate(T::URI_TEMPLATE.to_owned()),
            variable,
            value,
        )
    }

    /// Adds an argument already chosen, which the server may use to narrow the values
    /// (`context.arguments`).
    #[must_use]
    pub fn with_context(mut self, argument: impl Into<String>, value: impl Into<String>) -> Self {
        self.context.insert(argument.into(), value.into());
        self
    }

    /// The `params` of `completion/complete`.
    fn params(&self) -> Value {
        let mut params = Map::new();
        params.insert("ref".to_owned(), self.reference.to_json());
        params.insert(
            "argument".to_owned(),
            json!({"name": self.argument, "value": self.value}),
        );
        if !self.context.is_empty() {
            params.insert("context".to_owned(), json!({"arguments": self.context}));
        }
        Value::Object(params)
    }
}

impl McpClient {
    /// Asks the server for the values that complete `request`'s argument.
    ///
    /// # Errors
    /// [`RequestError::Rpc`](crate::error::RequestError::Rpc) as the server answers (-32601
    /// when it does not offer completions, -32602 for an unknown prompt or template),
    /// [`RequestError::Timeout`](crate::error::RequestError::Timeout), a closed connection
    /// ([`Error::Disconnected`]), and
    /// [`ProtocolError::InvalidResponse`](crate::error::ProtocolError::InvalidResponse) when
    /// the result is not a `CompleteResult`.
    pub async fn complete(&self, request: &Complete) -> Result<Completions, Error> {
        let result = self
            .request_raw("completion/complete", &request.params())
            .await?;
        oma_mcp_core::content::map_complete_result(&result)
            .map_err(|e| self.invalid("completion/complete", e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_as_the_specification_writes_them() {
        let prompt = Complete::new(CompletionRef::Prompt("review".into()), "language", "py");
        assert_eq!(
            prompt.params(),
            json!({"ref": {"type": "ref/prompt", "name": "review"},
                   "argument": {"name": "language", "value": "py"}})
        );
        let template = Complete::new(
            CompletionRef::ResourceTemplate("repo://{owner}/{repo}".into()),
            "repo",
            "",
        )
        .with_context("owner", "octo");
        assert_eq!(
            template.params(),
            json!({"ref": {"type": "ref/resource", "uri": "repo://{owner}/{repo}"},
                   "argument": {"name": "repo", "value": ""},
                   "context": {"arguments": {"owner": "octo"}}})
        );
    }
}
