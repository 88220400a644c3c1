//! Real inputs that need a live connection: non-JSON lines on stdout before the answer,
//! then a bare result without `content`, replayed verbatim by a scripted server, and
//! a single message far over rmcp's 16 MiB line limit.

use std::time::Duration;

use oma_mcp_runtime::{ConnectConfig, connect_mcp_tools, map_call_result};
use serde_json::{Value, json};

use crate::{args, echo, own, shared_dir};

/// A stdio server that replays case 33: on `initialize` it prints the case's stdout lines
/// verbatim (the last one is the answer, its `id` set to the request's); `tools/list` lists
/// one tool; `tools/call` answers with the case's bare result.
const REPLAY: &str = r#"
import json, sys
case = json.load(open(sys.argv[1]))
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    method = msg.get("method")
    if method == "initialize":
        *noise, answer = case["stdout_lines"]
        for n in noise:
            print(n, flush=True)
        answer = json.loads(answer)
        answer["id"] = msg["id"]
        print(json.dumps(answer), flush=True)
    elif method == "tools/list":
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {"tools": [
            {"name": "get_email_config", "inputSchema": {"type": "object"}}]}}), flush=True)
    elif method == "tools/call":
        answer = dict(case["bare_call_result"])
        answer["id"] = msg["id"]
        print("Handling tools/call", flush=True)
        print(json.dumps(answer), flush=True)
    else:
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"],
                          "error": {"code": -32601, "message": "Method not found"}}), flush=True)
"#;

#[tokio::test]
async fn case_33_stdout_noise_is_skipped_and_a_bare_result_is_kept() {
    let Some(shared) = shared_dir() else {
        return;
    };
    let case_path = shared.join("corpus/cases/33-stdout-noise-and-bare-result.json");
    let case: Value = serde_json::from_str(&std::fs::read_to_string(&case_path).unwrap()).unwrap();
    let client = connect_mcp_tools(
        ConnectConfig::new("python3")
            .with_args(["-c", REPLAY, &case_path.to_string_lossy()])
            .with_request_timeout(Duration::from_secs(20)),
    )
    .await
    .unwrap();
    assert_eq!(
        client.server_info(),
        Some(&json!({"name": "Word Document Server", "version": "4.2.3"}))
    );
    assert_eq!(client.protocol_version(), "2025-06-18");
    let raw = client
        .call_tool("get_email_config")
        .arguments(args(json!({})))
        .raw()
        .await
        .unwrap();
    assert_eq!(raw, case["bare_call_result"]["result"]);
    let mapped = client
        .call_tool("get_email_config")
        .arguments(args(json!({})))
        .mapped()
        .await;
    assert_eq!(mapped, map_call_result(&raw));
    assert_eq!(
        mapped.data,
        r#"{"success":true,"configs":[{"id":"default","host":"smtp.example.com","port":587}]}"#
    );
    client.disconnect().await;
}

/// rmcp's client drops lines over 16 MiB and hangs; ours delivers them (default limit 64 MiB).
#[tokio::test]
async fn a_20_mib_message_is_delivered() {
    const BYTES: usize = 20 * 1024 * 1024;
    let client = connect_mcp_tools(own("normal")).await.unwrap();
    let result = client
        .call_tool("big")
        .arguments(args(json!({"bytes": BYTES})))
        .mapped()
        .await;
    assert!(!result.is_error);
    assert_eq!(result.data.len(), BYTES);
    assert!(result.data.bytes().all(|b| b == b'x'));
    assert_eq!(echo(&client, "after").await.data, "Echo: after");
    client.disconnect().await;
}

/// What rmcp 3.11's typed client loses (a tool's unknown members, content blocks of unknown
/// types or wrong shapes: see `sloppy_result` in the test server) arrives here raw and maps
/// as the contract says.
#[tokio::test]
async fn sloppy_server_data_is_kept_and_mapped() {
    let client = connect_mcp_tools(own("sloppy")).await.unwrap();
    let descriptor = &client.tools()[0].descriptor;
    assert_eq!(descriptor["icons"][0]["theme"], "sepia");
    assert_eq!(descriptor["execution"], json!({"taskSupport": "optional"}));
    assert_eq!(descriptor["x-vendor"], json!({"kept": true}));
    let result = client
        .call_tool("sloppy")
        .arguments(args(json!({"message": "x"})))
        .mapped()
        .await;
    let unknown = "[tool_reference]\n{\n  \"type\": \"tool_reference\",\n  \"tool_name\": \"search_issues\"\n}";
    assert_eq!(
        result.to_json(),
        json!({
            "data": format!("kept\n{unknown}\n[resource_link name=\"\" uri=\"https://example.com/a.txt\"]"),
            "isError": false,
            "modelOutput": [
                {"type": "text", "text": "kept"},
                {"type": "text", "text": unknown},
                {"type": "file", "filename": "a.txt", "source": {
                    "type": "url", "media_type": "application/octet-stream",
                    "url": "https://example.com/a.txt"}},
            ],
        })
    );
    client.disconnect().await;
}

/// A scripted server whose `tools/call` answer is nested 200 levels deep.
const DEEP: &str = r#"
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    m, i = msg.get("method"), msg["id"]
    if m == "initialize":
        r = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
             "serverInfo": {"name": "deep", "version": "1"}}
    elif m == "tools/list":
        r = {"tools": [{"name": "deep", "inputSchema": {"type": "object"}}]}
    elif m == "tools/call":
        print('{"jsonrpc":"2.0","id":%d,"result":{"content":%s1%s}}' % (i, "[" * 200, "]" * 200), flush=True)
        continue
    else:
        print(json.dumps({"jsonrpc": "2.0", "id": i, "error": {"code": -32601, "message": "no"}}), flush=True)
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": i, "result": r}), flush=True)
"#;

/// A message nested deeper than serde_json parses fails the pending call at once with a clear
/// error (not at the request timeout), and the session goes on.
#[tokio::test]
async fn a_too_deeply_nested_message_fails_the_call_at_once() {
    let client = connect_mcp_tools(
        ConnectConfig::new("python3")
            .with_args(["-c", DEEP])
            .with_request_timeout(Duration::from_secs(30)),
    )
    .await
    .unwrap();
    let started = std::time::Instant::now();
    let result = client
        .call_tool("deep")
        .arguments(args(json!({})))
        .mapped()
        .await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(
        result.data,
        "MCP tool \"deep\" failed: the MCP server sent a message nested deeper than 128 levels, \
         which oma-mcp does not parse; the answer is lost (report the server's deeply nested \
         output to its authors)"
    );
    assert!(result.is_error);
    assert_eq!(client.list_tools_raw().await.unwrap().len(), 1);
    client.disconnect().await;
}
