//! The test server's prompts, resources and resource templates (MCP 2025-06-18 "Prompts" and
//! "Resources"), for snapshots that pin the whole surface: two prompts, two resources listed
//! over two pages, two templates. Built from JSON so each entry reads as it goes on the wire.

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use base64::Engine as _;
use rmcp::ErrorData;
use rmcp::model::ResourceUpdatedNotificationParam;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResult, SubscriptionFilter,
};
use rmcp::service::{Peer, RoleServer, SubscriptionContext};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// The cursor of the second `resources/list` page.
const SECOND_PAGE: &str = "resources-page-2";

fn from_json<T: DeserializeOwned>(value: Value) -> Result<T, ErrorData> {
    serde_json::from_value(value).map_err(|e| ErrorData::internal_error(e.to_string(), None))
}

/// `prompts/list`: `greet` (one required argument) and `review_code` (one required, one
/// optional).
pub(crate) fn prompts() -> Result<ListPromptsResult, ErrorData> {
    from_json(json!({"prompts": [
        {"name": "greet", "title": "Greeting", "description": "Greets someone by name",
         "arguments": [{"name": "name", "description": "Who to greet", "required": true}]},
        {"name": "review_code", "description": "Asks for a review of a piece of code",
         "arguments": [
            {"name": "code", "description": "The code to review", "required": true},
            {"name": "style", "description": "A style guide to follow", "required": false}
         ]}
    ]}))
}

/// `prompts/get`: the prompt's one user message, with the arguments filled in.
pub(crate) fn prompt(request: &GetPromptRequestParams) -> Result<GetPromptResult, ErrorData> {
    let argument = |name: &str| {
        request
            .arguments
            .as_ref()
            .and_then(|a| a.get(name))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let text = match request.name.as_str() {
        "greet" => format!("Say hello to {}.", argument("name").unwrap_or_default()),
        "review_code" => format!(
            "Review this code:\n{}",
            argument("code").unwrap_or_default()
        ),
        other => {
            return Err(ErrorData::invalid_params(
                format!("no prompt named {other:?}"),
                None,
            ));
        }
    };
    from_json(json!({"messages": [{"role": "user", "content": {"type": "text", "text": text}}]}))
}

/// `resources/list`, one resource per page: `memo://greeting`, then (after the cursor)
/// `memo://readme`.
pub(crate) fn resources(
    request: Option<&PaginatedRequestParams>,
) -> Result<ListResourcesResult, ErrorData> {
    match request.and_then(|r| r.cursor.as_deref()) {
        None => from_json(json!({
            "resources": [{"uri": "memo://greeting", "name": "greeting", "title": "Greeting",
                           "description": "A short greeting", "mimeType": "text/plain"}],
            "nextCursor": SECOND_PAGE
        })),
        Some(SECOND_PAGE) => from_json(json!({
            "resources": [{"uri": "memo://readme", "name": "readme",
                           "description": "How to use this server", "mimeType": "text/markdown",
                           "annotations": {"audience": ["user"], "priority": 0.5}}]
        })),
        Some(other) => Err(ErrorData::invalid_params(
            format!("unknown cursor {other:?}"),
            None,
        )),
    }
}

/// `resources/templates/list`: a note by id and a file by path (RFC 6570 reserved expansion).
pub(crate) fn resource_templates() -> Result<ListResourceTemplatesResult, ErrorData> {
    from_json(json!({"resourceTemplates": [
        {"name": "note", "uriTemplate": "memo://notes/{id}", "description": "A note by its id",
         "mimeType": "text/plain"},
        {"name": "file", "uriTemplate": "file:///{+path}", "description": "A file by its path"}
    ]}))
}

/// `resources/read` of a listed resource or a note (text), or of a file (a blob of its path
/// as the URI carries it).
pub(crate) fn read(request: &ReadResourceRequestParams) -> Result<ReadResourceResult, ErrorData> {
    let uri = request.uri.as_str();
    let (mime, text) = match uri {
        "memo://greeting" => ("text/plain", "Hello from a resource".to_owned()),
        "memo://readme" => ("text/markdown", "# oma-mcp test server\n".to_owned()),
        OPEN_LISTENS_URI => (
            "text/plain",
            OPEN_LISTENS.load(Ordering::SeqCst).to_string(),
        ),
        _ => match uri.strip_prefix("memo://notes/") {
            Some(id) => ("text/plain", format!("note {id}")),
            None if uri.starts_with("file:///") => {
                // The path as the URI carries it (percent-encoded), as bytes.
                let path = &uri["file:///".len()..];
                return from_json(json!({"contents": [{
                    "uri": uri, "mimeType": "application/octet-stream",
                    "blob": base64::engine::general_purpose::STANDARD.encode(path)
                }]}));
            }
            None => {
                return Err(ErrorData::resource_not_found(
                    format!("no resource {uri:?}"),
                    None,
                ));
            }
        },
    };
    from_json(json!({"contents": [{"uri": uri, "mimeType": mime, "text": text}]}))
}

/// `completion/complete`: the styles of `review_code` and the note ids of `memo://notes/{id}`
/// that start with the value typed so far, all of them (`total`, no `hasMore`).
pub(crate) fn complete(request: &CompleteRequestParams) -> Result<CompleteResult, ErrorData> {
    let request = serde_json::to_value(request)
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    let reference = &request["ref"];
    let argument = request["argument"]["name"].as_str().unwrap_or_default();
    let candidates: &[&str] = match (
        reference["type"].as_str(),
        reference["name"].as_str().or(reference["uri"].as_str()),
        argument,
    ) {
        (Some("ref/prompt"), Some("review_code"), "style") => {
            &["google", "rust-api-guidelines", "rustfmt"]
        }
        (Some("ref/resource"), Some("memo://notes/{id}"), "id") => &["1", "10", "11", "2"],
        _ => {
            return Err(ErrorData::invalid_params(
                format!("nothing to complete for {reference} {argument:?}"),
                None,
            ));
        }
    };
    let typed = request["argument"]["value"].as_str().unwrap_or_default();
    let values: Vec<&str> = candidates
        .iter()
        .copied()
        .filter(|c| c.starts_with(typed))
        .collect();
    from_json(json!({"completion": {"values": values, "total": values.len()}}))
}

/// How many `subscriptions/listen` of this process are open; `resources/read` of
/// [`OPEN_LISTENS_URI`] gives it as text, so a test sees a cancelled listen end on the server.
static OPEN_LISTENS: AtomicUsize = AtomicUsize::new(0);

/// The (unlisted) resource whose text is [`OPEN_LISTENS`].
pub(crate) const OPEN_LISTENS_URI: &str = "memo://open-listens";

/// The resource `subscriptions/listen` never accepts (MCP 2026-07-28: the acknowledgment
/// names the accepted subset).
pub(crate) const UNSUBSCRIBABLE: &str = "memo://private";

/// What a `subscriptions/listen` accepts: the resources asked for, but
/// [`UNSUBSCRIBABLE`].
pub(crate) fn accepted_subscriptions(requested: &SubscriptionFilter) -> SubscriptionFilter {
    let uris = requested.resource_subscriptions.clone().unwrap_or_default();
    SubscriptionFilter::builder()
        .resource_subscriptions(uris.into_iter().filter(|u| u != UNSUBSCRIBABLE))
        .build()
}

/// A `subscriptions/listen`, once acknowledged: one `notifications/resources/updated` per
/// accepted resource, in the order asked for, then nothing until the client cancels it.
pub(crate) async fn listen(context: SubscriptionContext) -> Result<(), ErrorData> {
    // Counted while it runs, down again when it ends however it ends.
    struct Open;
    impl Drop for Open {
        fn drop(&mut self) {
            OPEN_LISTENS.fetch_sub(1, Ordering::SeqCst);
        }
    }
    OPEN_LISTENS.fetch_add(1, Ordering::SeqCst);
    let _open = Open;
    let uris = context
        .accepted()
        .resource_subscriptions
        .clone()
        .unwrap_or_default();
    for uri in uris {
        context
            .sink()
            .notify_resource_updated(uri)
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    }
    context.cancelled().await;
    Ok(())
}

/// The resources subscribed with `resources/subscribe` (MCP 2025-11-25 and before), in this
/// process (one client per stdio server); `resources/read` of [`SUBSCRIBED_URI`] lists them,
/// one a line, so a test sees `resources/unsubscribe` arrive.
static SUBSCRIBED: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

/// The (unlisted) resource whose text is [`SUBSCRIBED`].
pub(crate) const SUBSCRIBED_URI: &str = "memo://subscribed";

/// The (unlisted) resource whose read sends `notifications/resources/updated` for every
/// subscribed resource, as a change of each would.
pub(crate) const TOUCH_URI: &str = "memo://touch";

fn subscribed() -> std::sync::MutexGuard<'static, BTreeSet<String>> {
    SUBSCRIBED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// `resources/subscribe`: holds the URI and sends one update of it at once.
pub(crate) async fn subscribe(uri: &str, peer: &Peer<RoleServer>) -> Result<(), ErrorData> {
    subscribed().insert(uri.to_owned());
    peer.notify_resource_updated(ResourceUpdatedNotificationParam::new(uri))
        .await
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))
}

/// `resources/unsubscribe`: lets the URI go.
pub(crate) fn unsubscribe(uri: &str) {
    subscribed().remove(uri);
}

/// What `resources/read` of [`SUBSCRIBED_URI`] or [`TOUCH_URI`] answers (`None` for another
/// URI): the subscribed URIs, or an update of each sent first.
pub(crate) async fn read_subscriptions(
    uri: &str,
    peer: &Peer<RoleServer>,
) -> Option<Result<ReadResourceResult, ErrorData>> {
    let uris: Vec<String> = subscribed().iter().cloned().collect();
    if uri == TOUCH_URI {
        for subscribed in &uris {
            let update = ResourceUpdatedNotificationParam::new(subscribed.clone());
            if let Err(e) = peer.notify_resource_updated(update).await {
                return Some(Err(ErrorData::internal_error(e.to_string(), None)));
            }
        }
    } else if uri != SUBSCRIBED_URI {
        return None;
    }
    Some(from_json(json!({"contents": [
        {"uri": uri, "mimeType": "text/plain", "text": uris.join("\n")}
    ]})))
}
