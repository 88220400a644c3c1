//! What a server returns for a prompt, a resource and a completion, mapped from the raw JSON
//! result: `prompts/get` ([`map_prompt_result`]), `resources/read` ([`map_read_result`]) and
//! `completion/complete` ([`map_complete_result`]), as the MCP specification defines
//! `GetPromptResult`, `ReadResourceResult` and `CompleteResult` (the same in every revision
//! since 2024-11-05).
//!
//! A prompt message's content block is mapped as a tool result's blocks are
//! ([`map_call_result`]: the text a model reads, and the model-visible media), so a prompt
//! reaches a model in the same form as a tool's answer. A result of the wrong shape is a
//! [`ShapeError`] naming the JSON pointer of what is wrong; members the specification does not
//! name are ignored.
//!
//! ```
//! use oma_mcp_core::content::{ResourceBody, Role, map_prompt_result, map_read_result};
//! use serde_json::json;
//!
//! let prompt = map_prompt_result(&json!({"messages": [
//!     {"role": "user", "content": {"type": "text", "text": "Review this code"}}
//! ]}))
//! .unwrap();
//! assert_eq!(prompt.messages[0].role, Role::User);
//! assert_eq!(prompt.messages[0].text, "Review this code");
//!
//! let read = map_read_result(&json!({"contents": [
//!     {"uri": "memo://a", "mimeType": "text/plain", "text": "hi"},
//!     {"uri": "memo://b", "blob": "AAE="}
//! ]}))
//! .unwrap();
//! assert_eq!(read[0].body, ResourceBody::Text("hi".into()));
//! assert_eq!(read[1].body, ResourceBody::Blob(vec![0, 1]));
//! ```

use base64::Engine as _;
use serde_json::{Value, json};

use crate::quote::excerpt;
use crate::result::{ModelPart, map_call_result};

/// A result that does not have the shape the specification gives it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at {pointer}: {reason}")]
#[non_exhaustive]
pub struct ShapeError {
    /// JSON pointer into the result (`/messages/0/role`; empty for the result itself).
    pub pointer: String,
    /// What is wrong, quoting what the server sent.
    pub reason: String,
}

fn shape(pointer: impl Into<String>, reason: impl Into<String>) -> ShapeError {
    ShapeError {
        pointer: pointer.into(),
        reason: reason.into(),
    }
}

/// Who speaks a prompt message (MCP `Role`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// `"user"`.
    User,
    /// `"assistant"`.
    Assistant,
}

impl Role {
    /// `"user"` or `"assistant"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// One message of a prompt (MCP `PromptMessage`), its content block mapped.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PromptMessage {
    /// Who speaks it.
    pub role: Role,
    /// The block's text form, as a tool result's `data` (open-multi-agent's `docs/mcp.md`,
    /// "Result mapping": a text block's text, an image as `[image/png image]`, …).
    pub text: String,
    /// The block's model-visible media (an image, a blob resource, a link), as a tool
    /// result's `model_output`; `None` for text.
    pub model_output: Option<Vec<ModelPart>>,
    /// The content block exactly as sent.
    pub content: Value,
}

/// A prompt as `prompts/get` returns it (MCP `GetPromptResult`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PromptResult {
    /// The result's `description`, if any.
    pub description: Option<String>,
    /// The messages, in order.
    pub messages: Vec<PromptMessage>,
}

/// Maps a raw `prompts/get` result.
///
/// # Errors
/// [`ShapeError`] when the result is not an object, `messages` is not an array, a message is
/// not an object, its `role` is not `"user"` or `"assistant"`, or it has no `content`.
pub fn map_prompt_result(result: &Value) -> Result<PromptResult, ShapeError> {
    let Value::Object(result) = result else {
        return Err(shape("", format!("not an object: {}", excerpt(result))));
    };
    let messages = match result.get("messages") {
        Some(Value::Array(messages)) => messages,
        other => {
            return Err(shape(
                "/messages",
                format!("not an array: {}", excerpt(other.unwrap_or(&Value::Null))),
            ));
        }
    };
    let messages = messages
        .iter()
        .enumerate()
        .map(|(i, message)| {
            let role = match message.get("role").and_then(Value::as_str) {
                Some("user") => Role::User,
                Some("assistant") => Role::Assistant,
                _ => {
                    return Err(shape(
                        format!("/messages/{i}/role"),
                        format!(
                            "not \"user\" or \"assistant\": {}",
                            excerpt(message.get("role").unwrap_or(&Value::Null))
                        ),
                    ));
                }
            };
            let Some(content) = message.get("content") else {
                return Err(shape(format!("/messages/{i}/content"), "missing"));
            };
            // One block, mapped as a tool result's only block (whatever its shape: a block
            // of an unknown type maps as the reference maps one).
            let mapped = map_call_result(&json!({ "content": [content] }));
            Ok(PromptMessage {
                role,
                text: mapped.data,
                model_output: mapped.model_output,
                content: content.clone(),
            })
        })
        .collect::<Result<_, _>>()?;
    Ok(PromptResult {
        description: result
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_owned),
        messages,
    })
}

/// The body of one resource content: text, or bytes decoded from base64.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceBody {
    /// `TextResourceContents.text`.
    Text(String),
    /// `BlobResourceContents.blob`, decoded (standard base64, RFC 4648 section 4).
    Blob(Vec<u8>),
}

/// One entry of a `resources/read` result's `contents` (MCP `TextResourceContents` or
/// `BlobResourceContents`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResourceContent {
    /// The URI of this content (a read of a directory-like resource may return several).
    pub uri: String,
    /// Its `mimeType`, if given.
    pub mime_type: Option<String>,
    /// The text or the decoded bytes.
    pub body: ResourceBody,
}

impl ResourceContent {
    /// The text, when the body is text.
    pub fn text(&self) -> Option<&str> {
        match &self.body {
            ResourceBody::Text(text) => Some(text),
            ResourceBody::Blob(_) => None,
        }
    }
}

/// Maps a raw `resources/read` result to its contents, in order.
///
/// # Errors
/// [`ShapeError`] when the result is not an object, `contents` is not an array, an entry is
/// not an object, has no string `uri`, has neither a string `text` nor a string `blob`, or its
/// `blob` is not base64.
pub fn map_read_result(result: &Value) -> Result<Vec<ResourceContent>, ShapeError> {
    let contents = match result.get("contents") {
        Some(Value::Array(contents)) => contents,
        _ if !result.is_object() => {
            return Err(shape("", format!("not an object: {}", excerpt(result))));
        }
        other => {
            return Err(shape(
                "/contents",
                format!("not an array: {}", excerpt(other.unwrap_or(&Value::Null))),
            ));
        }
    };
    contents
        .iter()
        .enumerate()
        .map(|(i, entry)| {
            let at = |member: &str| format!("/contents/{i}{member}");
            if !entry.is_object() {
                return Err(shape(at(""), format!("not an object: {}", excerpt(entry))));
            }
            let Some(uri) = entry.get("uri").and_then(Value::as_str) else {
                return Err(shape(at("/uri"), "missing, or not a string"));
            };
            let body = match (entry.get("text"), entry.get("blob")) {
                (Some(Value::String(text)), _) => ResourceBody::Text(text.clone()),
                (_, Some(Value::String(blob))) => ResourceBody::Blob(
                    base64::engine::general_purpose::STANDARD
                        .decode(blob)
                        .map_err(|e| shape(at("/blob"), format!("not base64: {e}")))?,
                ),
                _ => return Err(shape(at(""), "neither a string `text` nor a string `blob`")),
            };
            Ok(ResourceContent {
                uri: uri.to_owned(),
                mime_type: entry
                    .get("mimeType")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                body,
            })
        })
        .collect()
}

/// What `completion/complete` suggests for one argument (MCP `CompleteResult.completion`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Completions {
    /// The suggested values, in the server's order (the specification allows at most 100).
    pub values: Vec<String>,
    /// How many values there are in all, when the server says.
    pub total: Option<u64>,
    /// Whether there are more values than `values` holds.
    pub has_more: bool,
}

/// Maps a raw `completion/complete` result.
///
/// # Errors
/// [`ShapeError`] when `completion` is not an object or `completion.values` is not an array of
/// strings.
pub fn map_complete_result(result: &Value) -> Result<Completions, ShapeError> {
    let Some(completion) = result.get("completion").filter(|c| c.is_object()) else {
        return Err(shape(
            "/completion",
            format!("not an object: {}", excerpt(result)),
        ));
    };
    let values = match completion.get("values") {
        Some(Value::Array(values)) => values
            .iter()
            .enumerate()
            .map(|(i, value)| match value {
                Value::String(value) => Ok(value.clone()),
                other => Err(shape(
                    format!("/completion/values/{i}"),
                    format!("not a string: {}", excerpt(other)),
                )),
            })
            .collect::<Result<_, _>>()?,
        other => {
            return Err(shape(
                "/completion/values",
                format!("not an array: {}", excerpt(other.unwrap_or(&Value::Null))),
            ));
        }
    };
    Ok(Completions {
        values,
        total: completion.get("total").and_then(Value::as_u64),
        has_more: completion.get("hasMore").and_then(Value::as_bool) == Some(true),
    })
}

#[cfg(test)]
mod tests;
