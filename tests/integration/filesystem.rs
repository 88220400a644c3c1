//! The pinned `@modelcontextprotocol/server-filesystem` through the generated markers and the
//! tool layer: `write_file` says `destructiveHint: true`, so its marker is consequential,
//! [`ToolDefinition::from_typed`] carries the flag into the definition, and the executor runs
//! it only when the gate confirms (open-multi-agent's `docs/mcp.md`, "Granting MCP tools to an
//! agent").

use std::sync::{Arc, Mutex};

use oma_mcp_runtime::snapshot::SnapshotSource;
use oma_mcp_runtime::tool::{ToolCallDecision, gate_fn};
use oma_mcp_runtime::{
    ConnectConfig, McpClient, McpTool, ToolContext, ToolDefinition, ToolExecutor, ToolGrants,
    ToolRegistry, connect_mcp_tools,
};
use serde_json::json;

use crate::typed::consequential;
use crate::{npm_server, workspace_root};

/// The pinned server-filesystem (manifest server `filesystem`, prefix `fs`).
pub(crate) mod fs {
    oma_mcp_runtime::include_tools!("filesystem");
}

/// The committed snapshot (shared with `examples/filesystem`).
const FILESYSTEM_SNAPSHOT: &str = "examples/filesystem/mcp/filesystem.snapshot.json";

/// server-filesystem allowed to touch `dir` only, prefix `fs`; `None` when not installed.
fn filesystem_config(test: &str, dir: &std::path::Path) -> Option<ConnectConfig> {
    let bin = npm_server(test, "mcp-server-filesystem")?;
    Some(
        ConnectConfig::new(bin.to_string_lossy())
            .with_args([dir.to_string_lossy().into_owned()])
            .with_name_prefix("fs")
            .with_request_timeout(std::time::Duration::from_secs(20)),
    )
}

#[test]
fn markers_carry_the_consequential_policy() {
    assert_eq!(
        [
            // `destructiveHint: true` and not `readOnlyHint` (the default policy trusts
            // annotations).
            consequential::<fs::WriteFile>(),
            consequential::<fs::EditFile>(),
            consequential::<fs::MoveFile>(),
            // The manifest adds one the server calls harmless (`destructiveHint: false`).
            consequential::<fs::CreateDirectory>(),
            consequential::<fs::ReadTextFile>(),
            consequential::<fs::ListDirectory>(),
        ],
        [
            ("fs_write_file", true),
            ("fs_edit_file", true),
            ("fs_move_file", true),
            ("fs_create_directory", true),
            ("fs_read_text_file", false),
            ("fs_list_directory", false),
        ]
    );
    assert_eq!(fs::WriteFile::MCP_NAME, "write_file");
}

#[tokio::test]
async fn write_file_runs_only_after_the_gate_confirms() {
    let sandbox = tempfile::tempdir().unwrap();
    // The server reports paths with symlinks resolved (macOS /tmp, a symlinked TMPDIR).
    let dir = sandbox.path().canonicalize().unwrap();
    let Some(config) = filesystem_config("write_file_runs_only_after_the_gate_confirms", &dir)
    else {
        return;
    };
    let client = Arc::new(connect_mcp_tools(config).await.unwrap());
    let write = ToolDefinition::from_typed::<fs::WriteFile>(&client);
    let read = ToolDefinition::from_typed::<fs::ReadTextFile>(&client);
    assert!(write.consequential);
    assert!(!read.consequential);
    assert_eq!(write.name, "fs_write_file");

    let registry = Arc::new(ToolRegistry::new());
    registry.register_all([write, read]).unwrap();
    let grants = ToolGrants::new().allow(["fs_write_file", "fs_read_text_file"]);
    let ctx = ToolContext::new("fs-agent").with_consequential_confirmation(true);
    let file = dir.join("note.txt");
    let input = json!({"path": file.to_string_lossy(), "content": "confirmed\n"});

    // No gate: denied before anything is sent.
    let executor = ToolExecutor::new(Arc::clone(&registry), grants);
    let denied = executor.execute("fs_write_file", input.clone(), &ctx).await;
    assert!(denied.is_error);
    assert_eq!(
        denied.data,
        "Tool \"fs_write_file\" denied by onToolCall: Consequential tool confirmation required \
         before execution."
    );
    assert!(!file.exists(), "the denied write reached the server");

    // A gate that confirms, and sees the flag and the raw input.
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&asked);
    let confirming = executor.clone().with_gate(gate_fn(move |call| {
        seen.lock().unwrap().push((
            call.tool_name.to_owned(),
            call.consequential,
            call.input.clone(),
        ));
        async { Ok(ToolCallDecision::Allow) }
    }));
    let written = confirming
        .execute("fs_write_file", input.clone(), &ctx)
        .await;
    assert!(!written.is_error, "{}", written.data);
    assert_eq!(
        written.data,
        format!("Successfully wrote to {}", file.display())
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "confirmed\n");
    assert_eq!(
        *asked.lock().unwrap(),
        vec![("fs_write_file".to_owned(), true, input)]
    );

    // A read-only tool needs no confirmation: the gate is asked and sees `false`.
    let read_back = confirming
        .execute(
            "fs_read_text_file",
            json!({"path": file.to_string_lossy()}),
            &ctx,
        )
        .await;
    assert_eq!(read_back.data, "confirmed\n");
    assert!(!asked.lock().unwrap()[1].1);

    // Arguments that do not fit the schema never reach the server.
    let invalid = confirming
        .execute("fs_write_file", json!({"path": 7}), &ctx)
        .await;
    assert!(invalid.is_error);
    assert_eq!(
        invalid.data,
        "Invalid input for tool \"fs_write_file\":\n- /: \"content\" is a required property\n- \
         /path: 7 is not of type \"string\""
    );
    assert_eq!(
        asked.lock().unwrap().len(),
        2,
        "invalid input reached the gate"
    );

    client.disconnect().await;
}

#[tokio::test]
async fn typed_calls_return_typed_output() {
    let sandbox = tempfile::tempdir().unwrap();
    let dir = sandbox.path().canonicalize().unwrap();
    std::fs::write(dir.join("a.txt"), "one\ntwo\nthree\n").unwrap();
    let Some(config) = filesystem_config("typed_calls_return_typed_output", &dir) else {
        return;
    };
    let client: McpClient = connect_mcp_tools(config).await.unwrap();
    let path = dir.join("a.txt").to_string_lossy().into_owned();
    let head = client
        .call(fs::ReadTextFileArgs::new(path.clone()).with_head(2.0))
        .typed()
        .await
        .unwrap();
    assert_eq!(head.output.content, "one\ntwo");
    assert_eq!(head.result.data, "one\ntwo");
    client.disconnect().await;
}

/// The pin check: run as `examples/filesystem/oma-mcp.toml` pins it, the server lists exactly
/// the committed snapshot. When this fails, the pinned version changed; refresh with
/// `cargo run -p oma-mcp-cli -- snapshot --manifest
/// examples/filesystem/oma-mcp.toml`, review the diff and commit it.
#[tokio::test]
async fn filesystem_live_snapshot_equals_the_committed_snapshot() {
    let test = "filesystem_live_snapshot_equals_the_committed_snapshot";
    let Some(bin) = npm_server(test, "mcp-server-filesystem") else {
        return;
    };
    let config = ConnectConfig::new(bin.to_string_lossy())
        .with_args(["."])
        .with_cwd(workspace_root().join("examples/filesystem"));
    let client = connect_mcp_tools(config).await.unwrap();
    let source = SnapshotSource::new(
        "../../tests/servers/node_modules/.bin/mcp-server-filesystem",
        ["."],
    );
    let live = client.snapshot_with_source(source).unwrap();
    client.disconnect().await;
    let committed = std::fs::read_to_string(workspace_root().join(FILESYSTEM_SNAPSHOT)).unwrap();
    assert!(
        live.to_canonical_string() == committed,
        "server-filesystem no longer matches {FILESYSTEM_SNAPSHOT}\n--- live:\n{}",
        live.to_canonical_string()
    );
}
