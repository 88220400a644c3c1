//! The renderings of one report in the text, GitHub and Markdown formats, and what server
//! text cannot do to them.

use oma_mcp_runtime::Snapshot;
use oma_mcp_runtime::drift::diff;
use serde_json::{Value, json};

use super::{github, markdown, text};

fn snap(tools: Vec<Value>) -> Snapshot {
    Snapshot::from_descriptors(None, None, None, tools).expect("valid tools")
}

#[test]
fn renderings() {
    let r = diff(
        &snap(vec![json!({"name": "a", "description": "x"})]),
        &snap(vec![json!({"name": "a", "description": "y\u{1b}[2J"})]),
    );
    assert_eq!(
        text::report(&r, false),
        "a\n  warning  tool   /description  tool description changed: \"x\" → \"y\\u{1b}[2J\"\n0 breaking, 1 warning, 0 info\n"
    );
    assert_eq!(
        github::annotations(&r, &|_| ("mcp/s.json".to_owned(), Some(7))),
        "::warning file=mcp/s.json,line=7,title=MCP drift (warning)%3A a description_changed::/description tool description changed: \"x\" → \"y\\u{1b}[2J\"\n"
    );
    assert!(
        markdown::table(&r, "t")
            .contains("| 🟡 warning | `a` | tool | `/description` | `tool description changed")
    );
}

/// A prompt's name with terminal sequences and a bidirectional override (no JSON quoting
/// protects a name): escaped in the GitHub annotation's title and message as in text.
#[test]
fn github_annotations_escape_control_characters_in_names() {
    use oma_mcp_runtime::snapshot::{ItemKind, SnapshotItems};
    let with = |prompts: Vec<Value>| {
        snap(vec![]).with_items(
            ItemKind::Prompt,
            SnapshotItems::from_entries(ItemKind::Prompt, prompts).items,
            None,
        )
    };
    let r = diff(
        &with(vec![]),
        &with(vec![json!({"name": "evil\u{1b}]0;TITLE\u{7}\u{202e}"})]),
    );
    assert_eq!(
        github::annotations(&r, &|_| ("mcp/s.json".to_owned(), None)),
        concat!(
            "::notice file=mcp/s.json,title=MCP drift (info)%3A prompt ",
            r"evil\u{1b}]0;TITLE\u{7}\u{202e} prompt_added::prompt ",
            r#""evil\u{1b}]0;TITLE\u{7}\u{202e}" was added"#,
            "\n"
        )
    );
}

#[test]
fn markdown_code_spans_outlast_backtick_runs_in_server_text() {
    // A tool name with a double backtick used to close the `` fence early, leaving `<!--`
    // raw: GitHub would hide every later row of the table.
    let r = diff(
        &snap(vec![]),
        &snap(vec![
            json!({"name": "x``<!--", "inputSchema": {"type": "object"}}),
            json!({"name": "a`b", "inputSchema": {"type": "object"}}),
            json!({"name": "plain", "inputSchema": {"type": "object"}}),
        ]),
    );
    let md = markdown::table(&r, "t");
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| 🔵")).collect();
    assert_eq!(
        rows,
        [
            "| 🔵 info | `` a`b `` | tool |  | `` tool \"a`b\" was added `` |",
            "| 🔵 info | `plain` | tool |  | `tool \"plain\" was added` |",
            "| 🔵 info | ``` x``<!-- ``` | tool |  | ``` tool \"x``<!--\" was added ``` |",
        ]
    );
}

#[test]
fn markdown_never_renders_server_text() {
    // A rug pull whose new description mentions people, loads a tracking image and links a
    // script: in a pull-request comment it must stay text.
    let r = diff(
        &snap(vec![json!({"name": "a", "description": "x"})]),
        &snap(vec![json!({"name": "a",
        "description": "@octocat ![p](https://t.example/p.png) [y](javascript:alert(1)) <b>|"})]),
    );
    let md = markdown::table(&r, "t");
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| 🟡")).collect();
    assert_eq!(
        rows,
        [
            "| 🟡 warning | `a` | tool | `/description` | `tool description changed: \"x\" → \"@octocat ![p](https://t.example/p.png) [y](javascript:alert(1)) <b>\\|\"` |"
        ]
    );
}
