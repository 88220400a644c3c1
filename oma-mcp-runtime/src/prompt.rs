//! Prompts as typed Rust: the traits generated prompt types implement, and
//! [`McpClient::prompt`], which gets one (`prompts/get`, MCP "Prompts").
//!
//! `oma-mcp-build` generates, in a module's `prompts` submodule, for every prompt of a
//! snapshot a unit marker type implementing [`McpPrompt`] (its name, title, description and
//! digest) and an arguments struct implementing [`PromptArgs`]. MCP prompt arguments are
//! strings: the required ones are the parameters of `new`, each optional one has a `with_*`
//! setter, so a call that leaves out a required argument does not compile.
//!
//! ```ignore
//! let prompt = client.prompt(prompts::CodeReviewArgs::new(source)).await?;
//! for message in &prompt.messages {
//!     println!("{}: {}", message.role.as_str(), message.text);
//! }
//! ```
//!
//! The messages come back mapped as tool results are ([`oma_mcp_core::content`]): each
//! content block's text form and its model-visible media, and the block as sent.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

pub use oma_mcp_core::content::{PromptMessage, PromptResult, Role};

use crate::Error;
use crate::connect::McpClient;

/// A prompt of a pinned MCP server, known at build time from its snapshot; implemented by
/// generated marker types.
pub trait McpPrompt {
    /// The arguments struct (`<Prompt>Args`).
    type Args: PromptArgs<Prompt = Self>;
    /// The prompt's `name`, as `prompts/list` lists it and `prompts/get` sends it.
    const NAME: &'static str;
    /// Its `title`, when the server gave one.
    const TITLE: Option<&'static str>;
    /// Its `description`, when the server gave one.
    const DESCRIPTION: Option<&'static str>;
    /// The names of its arguments, in the server's order.
    const ARGUMENTS: &'static [&'static str];
    /// `sha256:<hex>` digest of the prompt's entry in the snapshot.
    const DIGEST: &'static str;
}

/// The arguments of one prompt: MCP prompt arguments are strings, so they are a map of
/// argument name to value (an optional argument left unset is not in it).
pub trait PromptArgs {
    /// The prompt these are the arguments of.
    type Prompt: McpPrompt<Args = Self>;
    /// The `arguments` object of `prompts/get`: each set argument's name and value.
    fn arguments(&self) -> BTreeMap<String, String>;
}

impl McpClient {
    /// Gets the prompt `args` are for (`prompts/get` with its name and `args` as the
    /// `arguments`), its messages mapped.
    ///
    /// # Errors
    /// As [`McpClient::get_prompt`].
    pub async fn prompt<A: PromptArgs>(&self, args: A) -> Result<PromptResult, Error> {
        self.get_prompt(<A::Prompt as McpPrompt>::NAME, &args.arguments())
            .await
    }

    /// Gets the prompt `name` with `arguments` (`prompts/get`; no `arguments` member when
    /// there are none), its messages mapped: the untyped form of [`McpClient::prompt`], for a
    /// prompt known only at run time.
    ///
    /// # Errors
    /// [`RequestError::Rpc`](crate::error::RequestError::Rpc) as the server answers (-32602
    /// for an unknown prompt or a missing required argument),
    /// [`RequestError::Timeout`](crate::error::RequestError::Timeout), a closed connection
    /// ([`Error::Disconnected`]), and
    /// [`ProtocolError::InvalidResponse`](crate::error::ProtocolError::InvalidResponse) when
    /// the result is not a `GetPromptResult` (naming the JSON pointer).
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: &BTreeMap<String, String>,
    ) -> Result<PromptResult, Error> {
        let mut params = Map::new();
        params.insert("name".to_owned(), Value::String(name.to_owned()));
        if !arguments.is_empty() {
            let arguments = arguments
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect();
            params.insert("arguments".to_owned(), Value::Object(arguments));
        }
        let result = self.request_raw("prompts/get", &params).await?;
        oma_mcp_core::content::map_prompt_result(&result)
            .map_err(|e| self.invalid("prompts/get", format!("prompt \"{name}\": {e}")))
    }
}
