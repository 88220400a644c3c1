//! Generated fakes (`own::fake()`, runtime feature `fake`) as a user's test uses them: the
//! code under test connects to the fake over a real MCP session (loopback streamable HTTP),
//! typed handlers answer, and every call, problem and count is inspected. Also what a fake
//! refuses: arguments outside the pinned `inputSchema`, outputs outside the `outputSchema`,
//! calls without a handler, handlers of another snapshot's tools.

use oma_mcp_runtime::McpTool;
use oma_mcp_runtime::fake::{FakeError, Reply};
use serde_json::json;

use crate::typed::{everything, own};

#[tokio::test]
async fn a_users_test_against_the_generated_fake() {
    let fake = own::fake().await.unwrap();
    fake.on::<own::Echo>(|args| Reply::Text(format!("Echo: {}", args.message)))
        .unwrap();
    fake.on::<own::Add>(|args| Reply::Text((args.a + args.b).to_string()))
        .unwrap();
    fake.on::<own::Structured>(|args| {
        Reply::Output(own::StructuredOutput::new(args.city, 21, "sunny"))
    })
    .unwrap();

    let client = fake.connect().await.unwrap();
    // The fake serves the pinned tools exactly: no drift against the snapshot.
    let drift = own::drift(&client).unwrap();
    assert!(drift.is_empty(), "{drift:?}");
    assert_eq!(client.tools()[0].name, "demo_add");

    let r = client.call(own::EchoArgs::new("hi")).mapped().await;
    assert_eq!((r.data.as_str(), r.is_error), ("Echo: hi", false));
    let r = client.call(own::AddArgs::new(40, 2)).mapped().await;
    assert_eq!(r.data, "42");
    let weather = client
        .call(own::StructuredArgs::new("Oslo"))
        .typed()
        .await
        .unwrap();
    assert_eq!(weather.output.city, "Oslo");
    assert_eq!(weather.output.temperature_c, 21);

    assert_eq!(fake.calls_of::<own::Add>(), [own::AddArgs::new(40, 2)]);
    assert_eq!(
        fake.call_counts().into_iter().collect::<Vec<_>>(),
        [
            ("add".to_owned(), 1),
            ("echo".to_owned(), 1),
            ("structured".to_owned(), 1)
        ]
    );
    fake.verify().unwrap();
    client.disconnect().await;
}

#[tokio::test]
async fn the_fake_refuses_what_the_server_would_not_take() {
    let fake = own::fake().await.unwrap();
    // A handler whose output breaks the pinned outputSchema.
    fake.on::<own::Structured>(|args| {
        Reply::Result(json!({
            "content": [{"type": "text", "text": "{}"}],
            "structuredContent": {"city": args.city, "temperature_c": "warm", "conditions": "sunny"}
        }))
    })
    .unwrap();
    fake.on::<own::Echo>(|_| Reply::Text("never".into()))
        .unwrap();
    let client = fake.connect().await.unwrap();

    let r = client.call(own::StructuredArgs::new("Oslo")).mapped().await;
    assert!(r.is_error);
    assert_eq!(
        r.data,
        "MCP tool \"structured\" failed: MCP error -32603: tool \"structured\": the handler's output does not \
         match its pinned outputSchema: /temperature_c: \"warm\" is not of type \"integer\""
    );
    // Arguments outside the pinned inputSchema never reach the handler.
    let r = client
        .call_tool("echo")
        .arguments(json!({"message": 7}).as_object().cloned())
        .mapped()
        .await;
    assert_eq!(
        r.data,
        "MCP tool \"echo\" failed: MCP error -32602: tool \"echo\": the arguments do not match its pinned \
         inputSchema: /message: 7 is not of type \"string\""
    );
    // A tool without a handler, and a tool the snapshot lacks.
    let r = client.call(own::FailArgs::new()).mapped().await;
    assert_eq!(
        r.data,
        "MCP tool \"fail\" failed: MCP error -32603: tool \"fail\" was called, but the fake has no handler for it \
         (register one with `on::<Tool>` or `on_raw`)"
    );
    let r = client.call_tool("nope").mapped().await;
    assert!(r.data.starts_with(
        "MCP tool \"nope\" failed: MCP error -32602: Unknown tool \"nope\": the snapshot of \
         \"oma-mcp-test-server\" has \"add\", \"audio\""
    ));

    assert_eq!(fake.calls().len(), 4);
    assert!(fake.calls_of::<own::Echo>().is_empty());
    let problems = fake.verify().unwrap_err();
    assert_eq!(problems.problems.len(), 4);
    assert!(problems.to_string().starts_with(
        "the fake of \"oma-mcp-test-server\" saw 4 problem(s):\n- tool \"structured\": "
    ));

    // Handlers of a tool generated from another server's snapshot are refused.
    let err = fake
        .on::<everything::Echo>(|_| Reply::Text(String::new()))
        .unwrap_err();
    assert!(matches!(err, FakeError::DigestMismatch { .. }));
    assert_eq!(
        err.to_string(),
        format!(
            "the tool \"echo\" of the fake's snapshot is not the one the marker type was \
             generated from (digest {} in the snapshot, {} in the code): regenerate the code \
             from this snapshot",
            own::Echo::DIGEST,
            everything::Echo::DIGEST
        )
    );
    let err = fake
        .on::<everything::GetSum>(|_| Reply::Text(String::new()))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the fake's snapshot has no tool \"get-sum\": the marker type was generated from \
         another snapshot (regenerate, or use the generated module of this server's pin)"
    );
    client.disconnect().await;
}
