//! Prompts, resources, resource templates and completions through the generated, typed API
//! (`prompts` and `resources` submodules of the modules `build.rs` generates), against the
//! own test server over stdio and streamable HTTP, and the pinned server-everything.

use std::time::Duration;

use oma_mcp_runtime::completion::Complete;
use oma_mcp_runtime::content::{ResourceBody, ResourceContent, Role};
use oma_mcp_runtime::error::RequestError;
use oma_mcp_runtime::resource::ResourceTemplate;
use oma_mcp_runtime::{ConnectConfig, Error, McpClient, McpPrompt, connect_mcp_tools};

use crate::typed::{everything, own};
use crate::{everything_config, own_http};

/// `(role, text)` of each message of a prompt.
fn messages(prompt: &oma_mcp_runtime::PromptResult) -> Vec<(Role, &str)> {
    prompt
        .messages
        .iter()
        .map(|m| (m.role, m.text.as_str()))
        .collect()
}

fn text(uri: &str, mime_type: &str, text: &str) -> ResourceContent {
    let read = serde_json::json!({"contents": [{"uri": uri, "mimeType": mime_type, "text": text}]});
    oma_mcp_runtime::content::map_read_result(&read)
        .unwrap()
        .remove(0)
}

/// Every offer of the own server, through one client: both prompts (a required argument, an
/// optional one set), both resources, both templates (percent-encoding as RFC 6570 says, a
/// blob), completions of a prompt argument and a template variable, and the server's
/// errors for an unknown prompt and resource.
async fn own_offers(client: &McpClient) {
    let greet = client
        .prompt(own::prompts::GreetArgs::new("Ada"))
        .await
        .unwrap();
    assert_eq!(messages(&greet), [(Role::User, "Say hello to Ada.")]);
    let review = own::prompts::ReviewCodeArgs::new("fn main() {}").with_style("rustfmt");
    let review = client.prompt(review).await.unwrap();
    assert_eq!(
        messages(&review),
        [(Role::User, "Review this code:\nfn main() {}")]
    );
    assert_eq!(
        review.messages[0].content,
        serde_json::json!({"type": "text", "text": "Review this code:\nfn main() {}"})
    );
    assert_eq!(own::prompts::ReviewCode::ARGUMENTS, ["code", "style"]);

    let greeting = client.read(own::resources::GREETING).await.unwrap();
    assert_eq!(
        greeting,
        [text(
            "memo://greeting",
            "text/plain",
            "Hello from a resource"
        )]
    );
    let readme = client.read(&own::resources::README).await.unwrap();
    assert_eq!(
        readme,
        [text(
            "memo://readme",
            "text/markdown",
            "# oma-mcp test server\n"
        )]
    );
    let note = own::resources::Note::new("a b/é");
    assert_eq!(note.uri().unwrap(), "memo://notes/a%20b%2F%C3%A9");
    assert_eq!(
        client.read(&note).await.unwrap(),
        [text(
            "memo://notes/a%20b%2F%C3%A9",
            "text/plain",
            "note a%20b%2F%C3%A9"
        )]
    );
    let file = client
        .read(own::resources::File::new("docs/read me.md"))
        .await
        .unwrap();
    assert_eq!(file.len(), 1);
    assert_eq!(file[0].uri, "file:///docs/read%20me.md");
    assert_eq!(
        file[0].mime_type.as_deref(),
        Some("application/octet-stream")
    );
    assert_eq!(
        file[0].body,
        ResourceBody::Blob(b"docs/read%20me.md".to_vec())
    );

    let styles = client
        .complete(&Complete::prompt::<own::prompts::ReviewCode>("style", "r"))
        .await
        .unwrap();
    assert_eq!(styles.values, ["rust-api-guidelines", "rustfmt"]);
    assert_eq!((styles.total, styles.has_more), (Some(2), false));
    let ids = client
        .complete(&Complete::template::<own::resources::Note>("id", "1"))
        .await
        .unwrap();
    assert_eq!(ids.values, ["1", "10", "11"]);

    let unknown = client
        .get_prompt("nope", &Default::default())
        .await
        .unwrap_err();
    assert!(
        matches!(&unknown, Error::Request(RequestError::Rpc { code: -32602, message, .. })
            if message == "no prompt named \"nope\""),
        "{unknown:?}"
    );
    let missing = client.read("memo://missing").await.unwrap_err();
    assert!(
        matches!(&missing, Error::Request(RequestError::Rpc { code: -32602, message, .. })
            if message == "no resource \"memo://missing\""),
        "{missing:?}"
    );
}

/// How many `subscriptions/listen` the own server has open (its unlisted resource
/// `memo://open-listens`).
async fn open_listens(client: &McpClient) -> String {
    let read = client.read("memo://open-listens").await.unwrap();
    read[0].text().unwrap().to_owned()
}

/// A `subscriptions/listen` (MCP 2026-07-28) of the own server: the acknowledgment's accepted
/// resources, one update of each in order, the listen open until the subscription is dropped
/// (which cancels it), and a subscription the server accepts nothing of refused.
async fn own_subscription(client: &McpClient) {
    let note = own::resources::Note::new("1").uri().unwrap();
    let asked = [
        note,
        own::resources::GREETING.uri.to_owned(),
        "memo://private".to_owned(),
    ];
    let mut updates = client.subscribe(asked).await.unwrap();
    assert_eq!(updates.uris(), ["memo://notes/1", "memo://greeting"]);
    let mut seen = Vec::new();
    for _ in 0..2 {
        let update = tokio::time::timeout(Duration::from_secs(10), updates.next())
            .await
            .unwrap()
            .unwrap();
        seen.push(update.uri);
    }
    assert_eq!(seen, ["memo://notes/1", "memo://greeting"]);
    assert_eq!(client.pending_requests(), 1);
    assert_eq!(open_listens(client).await, "1");
    drop(updates);
    assert_eq!(client.pending_requests(), 0);
    // The drop cancelled the listen: the server ends it.
    let mut open = open_listens(client).await;
    for _ in 0..500 {
        if open == "0" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        open = open_listens(client).await;
    }
    assert_eq!(open, "0");

    let refused = client.subscribe(["memo://private"]).await.unwrap_err();
    let Error::Request(RequestError::Unsupported { method, reason, .. }) = &refused else {
        panic!("{refused:?}");
    };
    assert_eq!(
        (method.as_str(), reason.as_str()),
        (
            "subscriptions/listen",
            "acknowledged the subscription without any of the resources asked for; it sends \
             no updates of them"
        )
    );
    let text = refused.to_string();
    assert!(
        text.starts_with("subscriptions/listen: the MCP server `") && text.ends_with(reason),
        "{text}"
    );
    // The session goes on.
    let greeting = client.read(own::resources::GREETING).await.unwrap();
    assert_eq!(greeting.len(), 1);
}

#[tokio::test]
async fn own_server_offers_over_stdio() {
    let client = connect_mcp_tools(crate::own("normal")).await.unwrap();
    own_offers(&client).await;
    own_subscription(&client).await;
    client.disconnect().await;
}

#[tokio::test]
async fn own_server_offers_over_http() {
    let server = own_http("normal", &[]);
    let config = ConnectConfig::http(server.url()).with_request_timeout(Duration::from_secs(20));
    let client = connect_mcp_tools(config).await.unwrap();
    own_offers(&client).await;
    own_subscription(&client).await;
    client.disconnect().await;
}

/// server-everything (MCP 2025-11-25): its prompts with the exact messages it returns, its
/// dynamic text and blob resources by template, a static document, and the completion whose
/// values depend on an argument already chosen (`context.arguments`).
#[tokio::test]
async fn everything_offers() {
    let Some(config) = everything_config("everything_offers") else {
        return;
    };
    let client = connect_mcp_tools(config).await.unwrap();
    let simple = client
        .prompt(everything::prompts::SimplePromptArgs::new())
        .await
        .unwrap();
    assert_eq!(
        messages(&simple),
        [(Role::User, "This is a simple prompt without arguments.")]
    );
    let args = everything::prompts::ArgsPromptArgs::new("Berlin").with_state("BE");
    let args = client.prompt(args).await.unwrap();
    assert_eq!(
        messages(&args),
        [(Role::User, "What's weather in Berlin, BE?")]
    );

    let dynamic = everything::resources::DynamicTextResource::new("7");
    let read = client.read(&dynamic).await.unwrap();
    assert_eq!(read.len(), 1);
    assert_eq!(read[0].uri, "demo://resource/dynamic/text/7");
    assert_eq!(read[0].mime_type.as_deref(), Some("text/plain"));
    let text = read[0].text().unwrap();
    assert!(
        text.starts_with("Resource 7: This is a plaintext resource created at "),
        "{text}"
    );
    let blob = client
        .read(everything::resources::DynamicBlobResource::new("7"))
        .await
        .unwrap();
    let ResourceBody::Blob(bytes) = &blob[0].body else {
        panic!("not a blob: {blob:?}");
    };
    assert!(
        bytes.starts_with(b"Resource 7: This is a base64 blob created at "),
        "{bytes:?}"
    );
    let document = client
        .read(everything::resources::ARCHITECTURE_MD)
        .await
        .unwrap();
    assert_eq!(
        document[0].uri,
        "demo://resource/static/document/architecture.md"
    );
    assert!(document[0].text().is_some_and(|t| !t.is_empty()));

    let departments = client
        .complete(&Complete::prompt::<everything::prompts::CompletablePrompt>(
            "department",
            "",
        ))
        .await
        .unwrap();
    assert_eq!(
        departments.values,
        ["Engineering", "Sales", "Marketing", "Support"]
    );
    let engineers = client
        .complete(
            &Complete::prompt::<everything::prompts::CompletablePrompt>("name", "")
                .with_context("department", "Engineering"),
        )
        .await
        .unwrap();
    assert_eq!(engineers.values, ["Alice", "Bob", "Charlie"]);
    let b = client
        .complete(
            &Complete::prompt::<everything::prompts::CompletablePrompt>("name", "B")
                .with_context("department", "Engineering"),
        )
        .await
        .unwrap();
    assert_eq!(b.values, ["Bob"]);
    let promoted = client
        .prompt(everything::prompts::CompletablePromptArgs::new(
            "Engineering",
            "Bob",
        ))
        .await
        .unwrap();
    assert_eq!(
        messages(&promoted),
        [(
            Role::User,
            "Please promote Bob to the head of the Engineering team."
        )]
    );

    // MCP 2025-11-25: `resources/subscribe`. The toggle tool sends an update of every
    // subscribed resource at once (then every 5 s).
    let mut updates = client
        .subscribe([everything::resources::ARCHITECTURE_MD])
        .await
        .unwrap();
    assert_eq!(
        updates.uris(),
        ["demo://resource/static/document/architecture.md"]
    );
    let toggled = client.call_tool("toggle-subscriber-updates").mapped().await;
    assert!(!toggled.is_error, "{}", toggled.data);
    let update = tokio::time::timeout(Duration::from_secs(10), updates.next())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        update.uri,
        "demo://resource/static/document/architecture.md"
    );
    updates.unsubscribe().await.unwrap();
    client.disconnect().await;
}

/// A subscription whose server exits ends (`next` gives `None`) instead of waiting forever,
/// and a server without `resources.subscribe` (the raw `sloppy` server, MCP 2025-06-18) is
/// refused before anything is sent.
#[tokio::test]
async fn a_subscription_ends_with_its_server() {
    let client = connect_mcp_tools(crate::own("normal")).await.unwrap();
    let mut updates = client.subscribe([own::resources::README]).await.unwrap();
    assert_eq!(updates.next().await.unwrap().uri, "memo://readme");
    let exited = client
        .call_tool("exit")
        .arguments(crate::args(serde_json::json!({"code": 0})))
        .mapped()
        .await;
    assert!(exited.is_error);
    let end = tokio::time::timeout(Duration::from_secs(10), updates.next()).await;
    assert_eq!(end.unwrap(), None);
    assert_eq!(updates.next().await, None);
    drop(updates);
    client.disconnect().await;

    let plain = connect_mcp_tools(crate::own("sloppy")).await.unwrap();
    let refused = plain.subscribe([own::resources::README]).await.unwrap_err();
    let Error::Request(RequestError::Unsupported { method, reason, .. }) = &refused else {
        panic!("{refused:?}");
    };
    assert_eq!(method, "resources/subscribe");
    assert_eq!(
        reason,
        "does not declare `resources.subscribe` in its capabilities: it sends no resource \
         updates (read the resource again instead)"
    );
    assert_eq!(plain.pending_requests(), 0);
    plain.disconnect().await;
}

/// The guide's examples ("Prompts and resources"), against the own server.
#[tokio::test]
async fn guide_prompts_and_resources() -> Result<(), Error> {
    let client = connect_mcp_tools(crate::own("normal")).await?;
    // GUIDE: begin prompt
    let args = own::prompts::ReviewCodeArgs::new("fn main() {}").with_style("rustfmt");
    let prompt = client.prompt(args).await?;
    for message in &prompt.messages {
        println!("{}: {}", message.role.as_str(), message.text);
    }
    // GUIDE: end
    assert_eq!(prompt.messages[0].text, "Review this code:\nfn main() {}");

    // GUIDE: begin read
    let readme = client.read(own::resources::README).await?;
    assert_eq!(readme[0].text(), Some("# oma-mcp test server\n"));
    let note = own::resources::Note::new("2026-12-07");
    let contents = client.read(&note).await?;
    assert_eq!(contents[0].text(), Some("note 2026-12-07"));
    // GUIDE: end

    // GUIDE: begin complete
    let styles = Complete::prompt::<own::prompts::ReviewCode>("style", "r");
    let styles = client.complete(&styles).await?;
    assert_eq!(styles.values, ["rust-api-guidelines", "rustfmt"]);
    // GUIDE: end

    // GUIDE: begin subscribe
    let mut updates = client.subscribe([own::resources::README]).await?;
    if let Some(update) = updates.next().await {
        let contents = client.read(update.uri.as_str()).await?;
        println!("{} changed: {:?}", update.uri, contents[0].text());
    }
    // Dropping it ends the subscription on the server.
    drop(updates);
    // GUIDE: end
    client.disconnect().await;
    Ok(())
}

/// The next update's URI, within 10 s.
async fn next(updates: &mut oma_mcp_runtime::resource::Subscription<'_>) -> String {
    let next = tokio::time::timeout(Duration::from_secs(10), updates.next()).await;
    next.unwrap().unwrap().uri
}

/// `resources/subscribe` (the own server through `initialize`, MCP 2025-11-25): the server's
/// update at subscribe time, a URI held by two subscriptions subscribed once and unsubscribed
/// only when the last one ends, updates after a change, and a subscription to nothing.
#[tokio::test]
async fn subscriptions_before_listen() {
    let config = crate::own("normal").with_lifecycle(oma_mcp_runtime::Lifecycle::Initialize);
    let client = connect_mcp_tools(config).await.unwrap();
    assert_eq!(client.protocol_version(), "2025-11-25");
    // The URIs the server holds subscribed, one a line.
    let subscribed = || async {
        let read = client.read("memo://subscribed").await.unwrap();
        read[0].text().unwrap().to_owned()
    };

    let mut a = client.subscribe([own::resources::README]).await.unwrap();
    assert_eq!(next(&mut a).await, "memo://readme");
    let both = [own::resources::README, own::resources::GREETING];
    let mut b = client.subscribe(both).await.unwrap();
    assert_eq!(b.uris(), ["memo://readme", "memo://greeting"]);
    // Only `memo://greeting` was subscribed again (and updated at once).
    assert_eq!(next(&mut b).await, "memo://greeting");
    assert_eq!(subscribed().await, "memo://greeting\nmemo://readme");
    drop(a);
    // `b` still holds `memo://readme`: no `resources/unsubscribe` went.
    assert_eq!(subscribed().await, "memo://greeting\nmemo://readme");
    client.read("memo://touch").await.unwrap();
    let mut seen = vec![next(&mut b).await, next(&mut b).await];
    seen.sort();
    assert_eq!(seen, ["memo://greeting", "memo://readme"]);
    b.unsubscribe().await.unwrap();
    assert_eq!(subscribed().await, "");

    let mut nothing = client.subscribe(Vec::<String>::new()).await.unwrap();
    assert!(nothing.uris().is_empty());
    assert_eq!(nothing.next().await, None);
    client.disconnect().await;
}
