//! The fake's prompts and resources: `prompts/get` of a pinned prompt answered by the handler
//! registered for it ([`FakeServer::on_prompt`](super::FakeServer::on_prompt)), its required
//! arguments checked as a server checks them, and `resources/read` answered by the one read
//! handler ([`FakeServer::on_read`](super::FakeServer::on_read)).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use base64::Engine as _;
use serde_json::{Value, json};

use super::{FakeRpcError, lock};
use crate::content::{ResourceBody, Role};
use crate::quote::quoted;
use crate::snapshot::{ItemKind, Snapshot};

/// A prompt's handler: the arguments in, the messages (role, text) out.
pub(super) type PromptHandler =
    Arc<dyn Fn(&BTreeMap<String, String>) -> Vec<(Role, String)> + Send + Sync>;

/// The read handler: a URI in, its body out (`None`: no such resource).
pub(super) type ReadHandler = Arc<dyn Fn(&str) -> Option<ResourceBody> + Send + Sync>;

/// What answers `prompts/get` and `resources/read`.
#[derive(Default)]
pub(super) struct Offers {
    prompts: Mutex<BTreeMap<String, PromptHandler>>,
    read: Mutex<Option<ReadHandler>>,
}

/// A `prompts/get` or `resources/read` the fake cannot answer as the server would: the error
/// to send, and whether it is a problem of the test (no handler) rather than the server's
/// own answer (an unknown prompt, a missing argument).
pub(super) struct Refused {
    pub error: FakeRpcError,
    pub problem: bool,
}

fn refused(code: i64, message: String, problem: bool) -> Refused {
    Refused {
        error: FakeRpcError::new(code, message),
        problem,
    }
}

impl Offers {
    pub(super) fn set_prompt(&self, name: &str, handler: PromptHandler) {
        lock(&self.prompts).insert(name.to_owned(), handler);
    }

    pub(super) fn set_read(&self, handler: ReadHandler) {
        *lock(&self.read) = Some(handler);
    }

    /// `prompts/get`: the pinned prompt's handler with the request's arguments (every required
    /// one present), its messages as text blocks, and the prompt's description.
    pub(super) fn get_prompt(&self, snapshot: &Snapshot, params: &Value) -> Result<Value, Refused> {
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let Some(prompt) = snapshot
            .items(ItemKind::Prompt)
            .iter()
            .find(|p| p.key() == name)
        else {
            return Err(refused(
                -32602,
                format!("no prompt named {}", quoted(name)),
                false,
            ));
        };
        let arguments: BTreeMap<String, String> = params
            .get("arguments")
            .and_then(Value::as_object)
            .map(|a| {
                a.iter()
                    .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
                    .collect()
            })
            .unwrap_or_default();
        let required = prompt
            .descriptor
            .get("arguments")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|a| a.get("required") == Some(&Value::Bool(true)))
            .filter_map(|a| a.get("name").and_then(Value::as_str));
        for argument in required {
            if !arguments.contains_key(argument) {
                return Err(refused(
                    -32602,
                    format!(
                        "prompt {}: missing required argument {}",
                        quoted(name),
                        quoted(argument)
                    ),
                    false,
                ));
            }
        }
        let handler = lock(&self.prompts).get(name).cloned();
        let Some(handler) = handler else {
            return Err(refused(
                -32603,
                format!(
                    "the fake has no handler for the prompt {}: register one with \
                     `FakeServer::on_prompt`",
                    quoted(name)
                ),
                true,
            ));
        };
        let messages: Vec<Value> = handler(&arguments)
            .into_iter()
            .map(|(role, text)| {
                json!({"role": role.as_str(), "content": {"type": "text", "text": text}})
            })
            .collect();
        let mut result = json!({ "messages": messages });
        if let Some(description) = prompt.text("description") {
            result["description"] = json!(description);
        }
        Ok(result)
    }

    /// `resources/read`: the read handler's body for the URI, with the pinned resource's
    /// `mimeType` when the URI is one.
    pub(super) fn read(&self, snapshot: &Snapshot, params: &Value) -> Result<Value, Refused> {
        let uri = params
            .get("uri")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let handler = lock(&self.read).clone();
        let Some(handler) = handler else {
            return Err(refused(
                -32603,
                format!(
                    "the fake has no read handler for {}: register one with \
                     `FakeServer::on_read`",
                    quoted(uri)
                ),
                true,
            ));
        };
        let Some(body) = handler(uri) else {
            return Err(refused(
                -32602,
                format!("no resource {}", quoted(uri)),
                false,
            ));
        };
        let mut content = json!({ "uri": uri });
        if let Some(mime_type) = snapshot
            .items(ItemKind::Resource)
            .iter()
            .find(|r| r.key() == uri)
            .and_then(|r| r.text("mimeType"))
        {
            content["mimeType"] = json!(mime_type);
        }
        match body {
            ResourceBody::Text(text) => content["text"] = json!(text),
            ResourceBody::Blob(bytes) => {
                content["blob"] = json!(base64::engine::general_purpose::STANDARD.encode(bytes));
            }
        }
        Ok(json!({ "contents": [content] }))
    }
}
