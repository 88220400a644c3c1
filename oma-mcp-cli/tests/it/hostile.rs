//! The `oma-mcp` CLI against hostile input: what a server sends never reaches the terminal
//! as control sequences, and bad flags get a clear error before any server is started.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use crate::common::{assert_exit, oma_mcp, run, test_server, text};

/// A fresh directory under the target directory.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("hostile-cli-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn unknown_tool_name_with_control_characters_is_escaped_in_the_error() {
    let out = run(oma_mcp()
        .args(["call", "evil\u{1b}[31mRED\u{1b}[0m\u{7}\r\u{202e}", "--"])
        .arg(test_server()));
    assert_exit(&out, 2);
    assert_eq!(
        text(&out.stderr),
        "oma-mcp: the server has no tool named \"evil\\u{1b}[31mRED\\u{1b}[0m\\u{7}\\r\\u{202e}\"; \
         it lists: add, audio, big, describe_pet, echo, embedded_resource, exit, fail, get_env, \
         resource_links, sleep, structured, tiny_image\n"
    );
}

#[test]
fn list_text_escapes_server_names_and_descriptions() {
    let dir = scratch("list");
    let manifest = dir.join("oma-mcp.toml");
    std::fs::write(
        &manifest,
        format!(
            "[servers.evil]\ncommand = {:?}\nenv = {{ OMA_TEST_SERVER_MODE = \"hostile-names\" }}\n",
            test_server().to_string_lossy()
        ),
    )
    .unwrap();
    let out = run(oma_mcp().arg("list").arg("--manifest").arg(&manifest));
    assert_exit(&out, 0);
    assert_eq!(
        text(&out.stdout),
        "a\\u{1b}[2J\\u{1b}[31mb\\u{7}  evil\\u{1b}]0;pwned\\u{7} text\\u{202e}reversed\n\
         echo                        The raw-mode tool echo\n"
    );
    // JSON keeps the names exactly (escaped by JSON itself).
    let out = run(oma_mcp()
        .args(["list", "--format", "json", "--manifest"])
        .arg(&manifest));
    assert_exit(&out, 0);
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows[0]["name"], "a\u{1b}[2J\u{1b}[31mb\u{7}");
}

#[test]
fn generate_warnings_escape_tool_names() {
    let dir = scratch("generate");
    let snapshot = dir.join("tools.json");
    std::fs::write(
        &snapshot,
        r#"{"tools": [{"name": "x\u001b[2J", "inputSchema": {"type": "object", "properties": 5}}]}"#,
    )
    .unwrap();
    let out = run(oma_mcp().arg("generate").arg(&snapshot));
    assert_exit(&out, 0);
    assert_eq!(
        text(&out.stderr),
        "oma-mcp: warning: tool \"x\\u{1b}[2J\" at /inputSchema/properties: `properties` is a \
         number, not an object; ignoring it\n"
    );
}

#[test]
fn zero_timeout_is_refused_before_starting_a_server() {
    for command in ["call", "snapshot"] {
        let mut cmd = oma_mcp();
        cmd.arg(command);
        if command == "call" {
            cmd.arg("echo");
        }
        let out = run(cmd.args(["--timeout-ms", "0", "--"]).arg(test_server()));
        assert_exit(&out, 2);
        assert_eq!(
            text(&out.stderr),
            "error: invalid value '0' for '--timeout-ms <N>': the timeout must be at least 1 millisecond\n\n\
             For more information, try '--help'.\n",
            "{command}"
        );
    }
}
