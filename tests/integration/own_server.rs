//! The own test server in its normal mode: exact results of every tool.

use oma_mcp_runtime::connect_mcp_tools;
use serde_json::json;

use crate::{args, echo, init_tracing, own, tool_names};

#[tokio::test]
async fn discovers_every_tool_with_raw_descriptors() {
    init_tracing();
    let client = connect_mcp_tools(own("normal").with_name_prefix("own"))
        .await
        .unwrap();
    let names = tool_names(&client);
    assert_eq!(
        names,
        [
            ("own_add", "add"),
            ("own_audio", "audio"),
            ("own_big", "big"),
            ("own_describe_pet", "describe_pet"),
            ("own_echo", "echo"),
            ("own_embedded_resource", "embedded_resource"),
            ("own_exit", "exit"),
            ("own_fail", "fail"),
            ("own_get_env", "get_env"),
            ("own_resource_links", "resource_links"),
            ("own_sleep", "sleep"),
            ("own_structured", "structured"),
            ("own_tiny_image", "tiny_image"),
        ]
    );
    let echo = client.tool("own_echo").unwrap();
    assert_eq!(
        echo.descriptor["description"],
        "Echoes the message back as `Echo: <message>`"
    );
    assert_eq!(
        echo.descriptor["inputSchema"]["required"],
        json!(["message"])
    );
    let pet = client.tool("own_describe_pet").unwrap();
    assert_eq!(
        pet.descriptor["inputSchema"]["$defs"]["PetKind"]["enum"],
        json!(["cat", "dog"])
    );
    let structured = client.tool("own_structured").unwrap();
    assert_eq!(
        structured.descriptor["outputSchema"]["required"],
        json!(["city", "temperature_c", "conditions"])
    );
    assert_eq!(
        client.server_info(),
        Some(&json!({"name": "oma-mcp-test-server", "version": "0.1.0"}))
    );
    // `Lifecycle::Auto` and an rmcp 3.11 server: `server/discover`, protocol 2026-07-28.
    assert_eq!(client.protocol_version(), "2026-07-28");
    assert_eq!(client.list_tools_raw().await.unwrap().len(), 13);

    let snapshot = client.snapshot().unwrap();
    assert_eq!(snapshot.tools.len(), 13);
    assert_eq!(snapshot.protocol_version.as_deref(), Some("2026-07-28"));
    let source = snapshot.source.as_ref().unwrap();
    assert_eq!(source, client.source());
    assert!(source.args.is_empty());
    client.disconnect().await;
}

#[tokio::test]
async fn text_tools() {
    let client = connect_mcp_tools(own("normal")).await.unwrap();
    let r = echo(&client, "hi").await;
    assert_eq!((r.data.as_str(), r.is_error), ("Echo: hi", false));
    let r = client
        .call_tool("add")
        .arguments(args(json!({"a": 40, "b": -2})))
        .mapped()
        .await;
    assert_eq!(r.data, "38");
    let r = client
        .call_tool("describe_pet")
        .arguments(args(
            json!({"pet": {"name": "Rex", "kind": "dog"}, "tags": ["good", "loud"]}),
        ))
        .mapped()
        .await;
    assert_eq!(r.data, "Rex is a dog, tagged: good, loud");
    let r = client
        .call_tool("describe_pet")
        .arguments(args(json!({"pet": {"name": "Tom", "kind": "cat"}})))
        .mapped()
        .await;
    assert_eq!(r.data, "Tom is a cat");
    let raw = client
        .call_tool("echo")
        .arguments(args(json!({"message": "raw"})))
        .raw()
        .await
        .unwrap();
    // A 2026-07-28 result says how to read it (`resultType`).
    assert_eq!(
        raw,
        json!({"resultType": "complete", "content": [{"type": "text", "text": "Echo: raw"}], "isError": false})
    );
    client.disconnect().await;
}

#[tokio::test]
async fn structured_content_is_kept_raw() {
    let client = connect_mcp_tools(own("normal")).await.unwrap();
    let raw = client
        .call_tool("structured")
        .arguments(args(json!({"city": "Oslo"})))
        .raw()
        .await
        .unwrap();
    assert_eq!(
        raw["structuredContent"],
        json!({"city": "Oslo", "temperature_c": 21, "conditions": "sunny"})
    );
    let r = client
        .call_tool("structured")
        .arguments(args(json!({"city": "Oslo"})))
        .mapped()
        .await;
    assert_eq!(
        r.data,
        r#"{"city":"Oslo","temperature_c":21,"conditions":"sunny"}"#
    );
    client.disconnect().await;
}

#[tokio::test]
async fn invalid_arguments_and_unknown_tools() {
    let client = connect_mcp_tools(own("normal")).await.unwrap();
    // rmcp reports bad arguments as an `isError` result, not a JSON-RPC error.
    let r = client
        .call_tool("add")
        .arguments(args(json!({"a": "one"})))
        .mapped()
        .await;
    assert_eq!(
        (r.data.as_str(), r.is_error),
        (
            "failed to deserialize parameters: invalid type: string \"one\", expected i64",
            true
        )
    );
    let err = client.call_tool("no_such_tool").raw().await.unwrap_err();
    assert_eq!(err.to_string(), "MCP error -32602: tool not found");
    assert_eq!(err.rpc_code(), Some(-32602));
    let r = client.call_tool("no_such_tool").mapped().await;
    assert_eq!(
        (r.data.as_str(), r.is_error),
        (
            "MCP tool \"no_such_tool\" failed: MCP error -32602: tool not found",
            true
        )
    );
    client.disconnect().await;
}

#[tokio::test]
async fn media_tools_map_per_the_contract() {
    let client = connect_mcp_tools(own("normal")).await.unwrap();
    let r = client.call_tool("tiny_image").mapped().await;
    assert_eq!(r.data, "[image image/png; base64 length=96]\nA 1x1 PNG.");
    assert!(!r.is_error);
    assert!(r.model_output.is_some());

    let r = client.call_tool("resource_links").mapped().await;
    assert_eq!(
        r.data,
        "[resource_link name=\"readme.md\" uri=\"https://example.com/docs/readme.md\"]\n\
         The project readme\n\
         [resource_link name=\"notes.txt\" uri=\"file:///tmp/oma-mcp/notes.txt\"]"
    );

    let r = client.call_tool("embedded_resource").mapped().await;
    assert_eq!(
        r.data,
        "[resource memo://greeting]\nHello from a resource\n\
         [resource memo://data.bin; mimeType=application/octet-stream; blob base64 length=8]"
    );
    assert!(r.model_output.is_some());

    let r = client.call_tool("audio").mapped().await;
    assert_eq!(r.data, "[audio audio/wav; base64 length=16]");
    assert_eq!(r.model_output, None);

    let r = client.call_tool("fail").mapped().await;
    assert_eq!(
        (r.data.as_str(), r.is_error),
        ("This tool always fails", true)
    );
    assert_eq!(r.model_output, None);
    client.disconnect().await;
}

#[tokio::test]
async fn concurrent_calls_are_routed_by_id() {
    let client = connect_mcp_tools(own("normal")).await.unwrap();
    let (slow, fast) = tokio::join!(
        client
            .call_tool("sleep")
            .arguments(args(json!({"ms": 300})))
            .mapped(),
        client
            .call_tool("echo")
            .arguments(args(json!({"message": "fast"})))
            .mapped(),
    );
    assert_eq!(slow.data, "Slept 300 ms");
    assert_eq!(fast.data, "Echo: fast");
    client.disconnect().await;
}
