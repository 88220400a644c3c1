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

#[tokio::test]
async fn own_server_offers_over_stdio() {
    let client = connect_mcp_tools(crate::own("normal")).await.unwrap();
    own_offers(&client).await;
    client.disconnect().await;
}

#[tokio::test]
async fn own_server_offers_over_http() {
    let server = own_http("normal", &[]);
    let config = ConnectConfig::http(server.url()).with_request_timeout(Duration::from_secs(20));
    let client = connect_mcp_tools(config).await.unwrap();
    own_offers(&client).await;
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
    client.disconnect().await;
}
