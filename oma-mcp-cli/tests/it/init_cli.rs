//! `oma-mcp init` on the files of each client, written from its public documentation
//! (`fixtures/init/`, see its README): the exact manifest and warnings, a literal secret that
//! is never copied, a second run that changes nothing, `--dry-run`, a file that is not JSON,
//! and one run that takes the snapshot of the project's test server.

#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::Output;

use crate::common::{assert_exit, oma_mcp, run, test_server, text};

/// `fixtures/init/<name>`.
fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/init")
        .join(name)
}

/// Copies the fixture folder `name` (its dot-folders too) into a new temporary directory.
fn project(name: &str) -> tempfile::TempDir {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                copy(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), target).unwrap();
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    copy(&fixture(name), dir.path());
    dir
}

/// `oma-mcp init ARGS` in `dir`.
fn init(dir: &Path, args: &[&str]) -> Output {
    run(oma_mcp().current_dir(dir).arg("init").args(args))
}

fn manifest(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("oma-mcp.toml")).unwrap()
}

#[test]
fn claude_code_mcp_json_is_found_and_pinned() {
    let dir = project("claude-code");
    let out = init(dir.path(), &["--no-snapshot"]);
    assert_exit(&out, 0);
    assert_eq!(
        manifest(dir.path()),
        r#"[servers.filesystem]
command = "node_modules/.bin/mcp-server-filesystem"
args = ["."]
env = { LOG_LEVEL = "debug" }
pass-env = ["GITHUB_PERSONAL_ACCESS_TOKEN"]

[servers.api-server]
url = "https://api.example.com/mcp"
headers = { X-Team = "platform" }
bearer-env = "API_KEY"

[servers.asana]
url = "https://mcp.asana.com/sse"
"#
    );
    assert_eq!(
        text(&out.stderr),
        "oma-mcp: warning: .mcp.json: mcpServers.filesystem.args[0]: takes ${PROJECT_ROOT} \
         from the environment, and a pin's `args` is literal: pinned with its default \".\"\n\
         oma-mcp: warning: .mcp.json: mcpServers.filesystem.env.GITHUB_PERSONAL_ACCESS_TOKEN: \
         passes $GITHUB_TOKEN to the server as GITHUB_PERSONAL_ACCESS_TOKEN, and `pass-env` \
         passes a variable under its own name: the pin passes GITHUB_PERSONAL_ACCESS_TOKEN; \
         set it (export GITHUB_PERSONAL_ACCESS_TOKEN=\"$GITHUB_TOKEN\")\n\
         oma-mcp: warning: .mcp.json: mcpServers.asana.type: is \"sse\", the HTTP+SSE \
         transport of MCP 2024-11-05; oma-mcp speaks streamable HTTP (MCP 2025-03-26 and \
         later), so the URL is pinned as it is: if `oma-mcp snapshot` cannot reach it, pin the \
         server's streamable HTTP endpoint instead (often the same URL ending in `/mcp` \
         instead of `/sse`)\n\
         oma-mcp: added server `filesystem` in oma-mcp.toml\n\
         oma-mcp: added server `api-server` in oma-mcp.toml\n\
         oma-mcp: added server `asana` in oma-mcp.toml\n"
    );
}

#[test]
fn a_literal_secret_is_never_copied_and_the_warning_says_where_to_move_it() {
    let dir = project("claude-desktop");
    let out = init(
        dir.path(),
        &["--from", "claude_desktop_config.json", "--no-snapshot"],
    );
    assert_exit(&out, 0);
    let written = manifest(dir.path());
    assert_eq!(
        written,
        r#"[servers.filesystem]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-filesystem", "/Users/username/Desktop", "/Users/username/Downloads"]

[servers.brave-search]
command = "mcp-server-brave-search"
pass-env = ["BRAVE_API_KEY"]
"#
    );
    assert!(!written.contains("BSA0123456789abcdef"));
    assert_eq!(
        text(&out.stderr),
        "oma-mcp: warning: claude_desktop_config.json: mcpServers.filesystem.command: starts \
         the server with `npx`, which resolves a version when it starts; for a pin that holds \
         still, install an exact version and point `command` at it (see \"How to pin a \
         server\" in the oma-mcp guide's \"Getting started\")\n\
         oma-mcp: warning: claude_desktop_config.json: mcpServers.brave-search.env.BRAVE_API_KEY: \
         is a literal value that looks like a secret, so it was not copied: the pin passes \
         BRAVE_API_KEY from your environment (`pass-env`); move the value out of \
         claude_desktop_config.json into your environment or secret store (export \
         BRAVE_API_KEY=…)\n\
         oma-mcp: added server `filesystem` in oma-mcp.toml\n\
         oma-mcp: added server `brave-search` in oma-mcp.toml\n"
    );
}

#[test]
fn cursor_env_references_and_a_literal_bearer_token() {
    let dir = project("cursor");
    let out = init(dir.path(), &["--no-snapshot"]);
    assert_exit(&out, 0);
    let written = manifest(dir.path());
    assert_eq!(
        written,
        r#"[servers.web-search]
command = "node_modules/.bin/web-search-mcp"
args = ["--stdio"]
pass-env = ["SEARCH_API_KEY"]

[servers.context7]
url = "https://mcp.context7.com/mcp"
header-env = { CONTEXT7_API_KEY = "CONTEXT7_API_KEY" }

[servers.remote-server]
url = "https://mcp.example.com/mcp"
bearer-env = "REMOTE_SERVER_TOKEN"
"#
    );
    assert!(!written.contains("sk-live"));
    assert_eq!(
        text(&out.stderr).lines().next().unwrap(),
        "oma-mcp: warning: .cursor/mcp.json: mcpServers.remote-server.headers.Authorization: \
         is a literal token, so it was not copied: the pin sends `Authorization: Bearer \
         $REMOTE_SERVER_TOKEN` (`bearer-env`); move the token out of .cursor/mcp.json into \
         your environment or secret store as REMOTE_SERVER_TOKEN, and write \
         \"${env:REMOTE_SERVER_TOKEN}\" in its place"
    );
}

#[test]
fn vscode_jsonc_with_inputs_and_the_workspace_folder() {
    let dir = project("vscode");
    let out = init(dir.path(), &["--no-snapshot"]);
    assert_exit(&out, 0);
    assert_eq!(
        manifest(dir.path()),
        r#"[servers.Perplexity]
command = "node_modules/.bin/server-perplexity-ask"
pass-env = ["PERPLEXITY_API_KEY"]

[servers.fetch]
command = "./.venv/bin/mcp-server-fetch"
args = ["--ignore-robots-txt"]

[servers.github]
url = "https://api.githubcopilot.com/mcp/"
headers = { X-MCP-Toolsets = "repos,issues" }
bearer-env = "GITHUB_TOKEN"
"#
    );
    assert_eq!(
        text(&out.stderr),
        "oma-mcp: warning: .vscode/mcp.json: servers.Perplexity.envFile: is not read (a pin \
         holds no values from files); export its variables and add their names to `pass-env`\n\
         oma-mcp: warning: .vscode/mcp.json: servers.Perplexity.env.PERPLEXITY_API_KEY: is the \
         VS Code input `perplexity-key`, a password VS Code asks for; the pin reads it from the \
         variable PERPLEXITY_API_KEY: export PERPLEXITY_API_KEY before `oma-mcp snapshot`\n\
         oma-mcp: warning: .vscode/mcp.json: servers.github.headers.Authorization: is the VS \
         Code input `github_token`, a password VS Code asks for; the pin reads it from the \
         variable GITHUB_TOKEN: export GITHUB_TOKEN before `oma-mcp snapshot`\n\
         oma-mcp: added server `Perplexity` in oma-mcp.toml\n\
         oma-mcp: added server `fetch` in oma-mcp.toml\n\
         oma-mcp: added server `github` in oma-mcp.toml\n"
    );
}

#[test]
fn windsurf_zed_and_cline_files() {
    let cases: [(&str, &str, &str); 3] = [
        (
            "windsurf",
            "mcp_config.json",
            r#"[servers.github]
command = "docker"
args = ["run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"]
pass-env = ["GITHUB_PERSONAL_ACCESS_TOKEN"]

[servers.figma]
url = "https://mcp.figma.com/mcp"
header-env = { X-Figma-Token = "FIGMA_TOKEN" }
"#,
        ),
        (
            "zed",
            "settings.json",
            r#"[servers.local-mcp]
command = "/usr/local/bin/some-mcp-server"
args = ["--stdio"]

[servers.remote-mcp]
url = "https://mcp.example.org/mcp"
bearer-env = "MCP_TOKEN"
"#,
        ),
        (
            "cline",
            "cline_mcp_settings.json",
            r#"[servers.weather]
command = "python"
args = ["-m", "weather_server"]
pass-env = ["OPENWEATHER_API_KEY"]

[servers.remote-docs]
url = "https://docs.example.com/mcp"
"#,
        ),
    ];
    for (folder, file, expected) in cases {
        let dir = project(folder);
        let out = init(dir.path(), &["--from", file, "--no-snapshot"]);
        assert_exit(&out, 0);
        assert_eq!(manifest(dir.path()), expected, "{folder}");
    }
    let dir = project("zed");
    let out = init(dir.path(), &["--from", "settings.json", "--dry-run"]);
    assert!(text(&out.stderr).contains(
        "settings.json: context_servers.mcp-server-github: is started by a Zed extension"
    ));
    let dir = project("cline");
    let out = init(
        dir.path(),
        &["--from", "cline_mcp_settings.json", "--dry-run"],
    );
    assert!(text(&out.stderr).contains(
        "cline_mcp_settings.json: mcpServers.remote.docs: pinned as `remote-docs` (a manifest \
         name is ASCII letters, digits, `-` and `_`)"
    ));
    assert!(!text(&out.stdout).contains("0123abcd"));
}

#[test]
fn a_second_run_changes_nothing() {
    let dir = project("vscode");
    assert_exit(&init(dir.path(), &["--no-snapshot"]), 0);
    let first = manifest(dir.path());
    let out = init(dir.path(), &["--no-snapshot"]);
    assert_exit(&out, 0);
    assert_eq!(manifest(dir.path()), first);
    assert!(text(&out.stderr).ends_with(
        "oma-mcp: unchanged: server `Perplexity` in oma-mcp.toml\n\
         oma-mcp: unchanged: server `fetch` in oma-mcp.toml\n\
         oma-mcp: unchanged: server `github` in oma-mcp.toml\n"
    ));
    let out = init(dir.path(), &["--dry-run"]);
    assert_exit(&out, 0);
    assert_eq!(text(&out.stdout), "");
}

#[test]
fn dry_run_prints_the_diff_and_keeps_the_file() {
    let dir = project("vscode");
    let before = "# Pins of this crate.\n\n[servers.github]\n# GitHub's remote server.\nurl = \
                  \"https://example.com/old\"\nprefix = \"gh\"   # keep\n\n[servers.mine]\n\
                  command = \"./.venv/bin/mcp-server-fetch\"\nargs = [\"--ignore-robots-txt\"]\n";
    std::fs::write(dir.path().join("oma-mcp.toml"), before).unwrap();
    let out = init(dir.path(), &["--dry-run"]);
    assert_exit(&out, 0);
    assert_eq!(
        text(&out.stdout),
        r#"--- oma-mcp.toml
+++ oma-mcp.toml
@@ -2,9 +2,15 @@
 
 [servers.github]
 # GitHub's remote server.
-url = "https://example.com/old"
+url = "https://api.githubcopilot.com/mcp/"
 prefix = "gh"   # keep
+headers = { X-MCP-Toolsets = "repos,issues" }
+bearer-env = "GITHUB_TOKEN"
 
 [servers.mine]
 command = "./.venv/bin/mcp-server-fetch"
 args = ["--ignore-robots-txt"]
+
+[servers.Perplexity]
+command = "node_modules/.bin/server-perplexity-ask"
+pass-env = ["PERPLEXITY_API_KEY"]
"#
    );
    assert!(text(&out.stderr).contains(
        "oma-mcp: warning: .vscode/mcp.json: `fetch` is already pinned as `mine` (the same \
         command and arguments); skipped\n"
    ));
    assert_eq!(manifest(dir.path()), before);
}

#[test]
fn a_file_that_is_not_json_is_refused_with_its_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(".mcp.json"),
        "{\n  \"mcpServers\": {\n    \"a\": { \"command\": \"x\" }\n    \"b\": {}\n  }\n}\n",
    )
    .unwrap();
    let out = init(dir.path(), &[]);
    assert_exit(&out, 2);
    assert_eq!(
        text(&out.stderr),
        "oma-mcp: .mcp.json is not JSON: line 4 column 5: expected `,` or `}`\n"
    );
    assert!(!dir.path().join("oma-mcp.toml").exists());
    let empty = tempfile::tempdir().unwrap();
    let out = init(empty.path(), &[]);
    assert_exit(&out, 2);
    assert!(text(&out.stderr).starts_with("oma-mcp: no MCP configuration to read"));
}

#[test]
fn init_takes_the_snapshot_of_the_test_server() {
    let dir = tempfile::tempdir().unwrap();
    let config = serde_json::json!({
        "mcpServers": {
            "test server": {
                "command": test_server().display().to_string(),
                "env": { "LOG_LEVEL": "debug" }
            }
        }
    });
    std::fs::write(dir.path().join(".mcp.json"), config.to_string()).unwrap();
    let out = init(dir.path(), &[]);
    assert_exit(&out, 0);
    let snapshot = dir.path().join("mcp/test-server.snapshot.json");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&snapshot).unwrap()).unwrap();
    assert_eq!(
        json["source"]["command"],
        test_server().display().to_string()
    );
    assert!(json["tools"].as_array().is_some_and(|t| !t.is_empty()));
    assert!(
        text(&out.stderr).contains("oma-mcp: added server `test-server` in oma-mcp.toml\n"),
        "{}",
        text(&out.stderr)
    );
    assert!(
        text(&out.stderr).contains("for server `test-server`"),
        "{}",
        text(&out.stderr)
    );
}

/// Credentials in a server's arguments (`--token=…`, `--api-key VALUE`, a URL with a
/// password) or in a URL's query are never copied: the server is skipped with a warning per
/// place, and no manifest is written when nothing is left to pin.
#[test]
fn credentials_in_arguments_and_urls_skip_the_server() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(".mcp.json"),
        r#"{"mcpServers": {
            "a": {"command": "srv", "args": ["--token=ghp_abcdef0123456789", "--api-key",
                  "sk-live-1234567890", "https://me:hunter2@h.example/x", "--verbose"]},
            "b": {"type": "http", "url": "https://x.example/mcp?api_key=s3cret&v=2"}
        }}"#,
    )
    .unwrap();
    let out = init(dir.path(), &["--no-snapshot"]);
    assert_exit(&out, 0);
    let fix = "and a pin's arguments are recorded in oma-mcp.toml and the snapshot; skipped: \
               give the server that value from an environment variable (`env` with a \
               reference, then `pass-env`) and run `oma-mcp init` again";
    assert_eq!(
        text(&out.stderr),
        format!(
            "oma-mcp: warning: .mcp.json: mcpServers.a.args[0]: sets \"token\", named like a \
             credential, to a value, {fix}\n\
             oma-mcp: warning: .mcp.json: mcpServers.a.args[2]: sets \"api-key\", named like a \
             credential, to a value, {fix}\n\
             oma-mcp: warning: .mcp.json: mcpServers.a.args[3]: is a URL that holds a user name \
             or password, {fix}\n\
             oma-mcp: warning: .mcp.json: mcpServers.b.url: holds the value of the query \
             parameter \"api_key\", and a pinned URL is recorded; skipped: send the credential \
             in a header from a variable (`bearer-env`, `header-env`) and pin the URL without \
             it\n\
             oma-mcp: no server to pin in .mcp.json; oma-mcp.toml left as it was\n"
        )
    );
    assert!(!dir.path().join("oma-mcp.toml").exists());
}
