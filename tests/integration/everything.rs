//! The pinned `@modelcontextprotocol/server-everything` (tests/servers/package.json), run
//! with `node`. Skips with one line when node or the npm install is missing.

use std::collections::BTreeSet;

use oma_mcp_runtime::connect_mcp_tools;
use serde_json::{Value, json};

use crate::{args, echo, everything_config, shared_dir};

#[tokio::test]
async fn connects_and_lists_every_tool() {
    let Some(config) = everything_config("connects_and_lists_every_tool") else {
        return;
    };
    let client = connect_mcp_tools(config).await.unwrap();
    let listed: Vec<String> = client
        .list_tools_raw()
        .await
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    let discovered: Vec<&str> = client.tools().iter().map(|t| t.mcp_name.as_str()).collect();
    assert_eq!(discovered, listed);
    for tool in client.tools() {
        assert_eq!(tool.name, format!("everything_{}", tool.mcp_name));
    }
    assert_eq!(
        client.server_info().unwrap()["name"],
        "mcp-servers/everything"
    );
    assert_eq!(client.protocol_version(), "2025-11-25");
    if let Some(shared) = shared_dir() {
        let text =
            std::fs::read_to_string(shared.join("corpus/servers/server-everything.json")).unwrap();
        let corpus: Value = serde_json::from_str(&text).unwrap();
        let corpus_names: BTreeSet<&str> = corpus["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        let names: BTreeSet<&str> = discovered.iter().copied().collect();
        assert_eq!(names, corpus_names);
        assert_eq!(client.server_info(), Some(&corpus["_source"]["serverInfo"]));
    }
    client.disconnect().await;
}

#[tokio::test]
async fn calls_tools_with_exact_results() {
    let Some(config) = everything_config("calls_tools_with_exact_results") else {
        return;
    };
    let client = connect_mcp_tools(config).await.unwrap();
    let r = echo(&client, "hi").await;
    assert_eq!((r.data.as_str(), r.is_error), ("Echo: hi", false));

    let raw = client
        .call_tool("get-sum")
        .arguments(args(json!({"a": 2, "b": 3})))
        .raw()
        .await
        .unwrap();
    assert_eq!(
        raw,
        json!({"content": [{"type": "text", "text": "The sum of 2 and 3 is 5."}]})
    );
    let r = client
        .call_tool("get-sum")
        .arguments(args(json!({"a": 2, "b": 3})))
        .mapped()
        .await;
    assert_eq!(r.data, "The sum of 2 and 3 is 5.");

    let r = client.call_tool("get-tiny-image").mapped().await;
    assert_eq!(
        r.data,
        "Here's the image you requested:\n[image image/png; base64 length=5380]\nThe image above is the MCP logo."
    );
    assert!(r.model_output.is_some());
    client.disconnect().await;
}

#[tokio::test]
async fn raw_results_equal_the_corpus() {
    let Some(config) = everything_config("raw_results_equal_the_corpus") else {
        return;
    };
    let Some(shared) = shared_dir() else {
        return;
    };
    let client = connect_mcp_tools(config).await.unwrap();
    for case in ["echo__1", "get-sum__2", "get-tiny-image__4"] {
        let path = shared.join(format!("corpus/results/server-everything__{case}.json"));
        let recorded: Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let params = &recorded["request"]["params"];
        let raw = client
            .call_tool(params["name"].as_str().unwrap())
            .arguments(params["arguments"].as_object().cloned())
            .raw()
            .await
            .unwrap();
        assert_eq!(raw, recorded["response"]["result"], "{case}");
    }
    client.disconnect().await;
}

#[tokio::test]
async fn environment_reaching_server_everything_is_the_default_set() {
    let Some(config) =
        everything_config("environment_reaching_server_everything_is_the_default_set")
    else {
        return;
    };
    let client = connect_mcp_tools(config.with_env("OMA_PASSED", "yes"))
        .await
        .unwrap();
    let raw = client.call_tool("get-env").raw().await.unwrap();
    let text = raw["content"][0]["text"].as_str().unwrap();
    let env: Value = serde_json::from_str(text).unwrap();
    let keys: BTreeSet<&str> = env
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let allowed: BTreeSet<&str> = oma_mcp_runtime::connect::DEFAULT_INHERITED_ENV
        .iter()
        .copied()
        .chain(["OMA_PASSED"])
        .collect();
    assert!(
        keys.is_subset(&allowed),
        "unexpected variables: {:?}",
        keys.difference(&allowed).collect::<Vec<_>>()
    );
    assert_eq!(env["OMA_PASSED"], "yes");
    client.disconnect().await;
}

/// The README's `src/main.rs` is `examples/everything/src/bin/quickstart.rs`, which the
/// workspace build compiles.
#[test]
fn the_readme_shows_the_quickstart_program() {
    crate::guide::assert_docs_show("examples/everything/src/bin/quickstart.rs");
}
