//! Drift over the real history of github-mcp-server (`corpus/history/` against
//! `corpus/servers/github-mcp-server.json` of the shared reference folder), with exact counts.
//! Each change was checked by hand against the files before the counts were frozen.
//!
//! The folder is found by `oma_mcp_test_support::shared_dir` (variable `OMA_MCP_SHARED`):
//! absent, each test prints one line and passes, unless `CI` is set, where it fails.

use std::path::{Path, PathBuf};

use oma_mcp_core::drift::{self, ChangeKind, Direction, Severity};
use oma_mcp_core::{DriftReport, Snapshot};

fn corpus() -> Option<PathBuf> {
    oma_mcp_test_support::shared_dir().map(|dir| dir.join("corpus"))
}

fn report(corpus: &Path, old: &str, new: &str) -> DriftReport {
    let read = |p: &str| Snapshot::read(&corpus.join(p)).expect("corpus file parses");
    drift::diff(&read(old), &read(new))
}

/// `(tool, pointer)` of every change of `kind`.
fn places(report: &DriftReport, kind: ChangeKind) -> Vec<(String, String)> {
    report
        .changes
        .iter()
        .filter(|c| c.kind == kind)
        .map(|c| (c.tool.clone(), c.pointer.clone()))
        .collect()
}

fn count(report: &DriftReport, kind: ChangeKind) -> usize {
    report.changes.iter().filter(|c| c.kind == kind).count()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

#[test]
fn june_to_september_2025() {
    let Some(c) = corpus() else { return };
    let r = report(
        &c,
        "history/github-mcp-server@2025-06-18-3e988d5a.json",
        "history/github-mcp-server@2025-09-12-b6486a38.json",
    );
    // One warning is `get_file_contents.path`, no longer required: no argument breaks, but
    // the generated constructor no longer takes it.
    assert_eq!(
        (r.summary.breaking, r.summary.warning, r.summary.info),
        (19, 19, 37)
    );
    assert_eq!(
        places(&r, ChangeKind::PropertyNoLongerRequired),
        pairs(&[("get_file_contents", "/inputSchema/properties/path")])
    );
    assert_eq!(
        places(&r, ChangeKind::ToolRemoved),
        pairs(&[
            ("add_pull_request_review_comment_to_pending_review", ""),
            ("get_pull_request_comments", "")
        ])
    );
    let added = places(&r, ChangeKind::ToolAdded);
    assert_eq!(added.len(), 13);
    assert!(
        r.changes
            .iter()
            .filter(|c| c.kind == ChangeKind::ToolAdded)
            .all(|c| c.severity == Severity::Info && c.direction == Direction::Tool)
    );
    // `q` renamed to `query` and required, in three search tools.
    for tool in ["search_code", "search_issues", "search_users"] {
        let of_tool: Vec<_> = r
            .changes
            .iter()
            .filter(|c| c.tool == tool && c.severity == Severity::Breaking)
            .map(|c| (c.kind, c.pointer.as_str(), c.message.as_str()))
            .collect();
        assert_eq!(
            of_tool,
            [
                (
                    ChangeKind::PropertyRemoved,
                    "/inputSchema/properties/q",
                    "property \"q\" removed (was required); renamed to \"query\"?"
                ),
                (
                    ChangeKind::RequiredPropertyAdded,
                    "/inputSchema/properties/query",
                    "required property \"query\" added; renamed from \"q\"?"
                ),
            ],
            "{tool}"
        );
    }
    // The rest of the breaking changes: removed parameters, a new minimum, new enum values
    // replacing old ones (list_issues went from REST to GraphQL spellings).
    assert_eq!(count(&r, ChangeKind::PropertyRemoved), 8);
    assert_eq!(count(&r, ChangeKind::RequiredPropertyAdded), 3);
    assert_eq!(count(&r, ChangeKind::EnumValueRemoved), 5);
    assert_eq!(count(&r, ChangeKind::BoundTightened), 1);
    assert_eq!(count(&r, ChangeKind::DescriptionChanged), 18);
    assert_eq!(count(&r, ChangeKind::PropertyAdded), 19);
}

#[test]
fn may_2026_to_current() {
    let Some(c) = corpus() else { return };
    let r = report(
        &c,
        "history/github-mcp-server@2026-05-21-f39f758d.json",
        "servers/github-mcp-server.json",
    );
    // Four warnings are input properties no longer required (the constructors change).
    assert_eq!(
        (r.summary.breaking, r.summary.warning, r.summary.info),
        (9, 56, 225)
    );
    assert_eq!(
        places(&r, ChangeKind::PropertyNoLongerRequired),
        pairs(&[
            ("add_issue_comment", "/inputSchema/properties/body"),
            (
                "add_reply_to_pull_request_comment",
                "/inputSchema/properties/body"
            ),
            (
                "add_reply_to_pull_request_comment",
                "/inputSchema/properties/pullNumber"
            ),
            ("projects_write", "/inputSchema/properties/project_number"),
        ])
    );
    assert_eq!(count(&r, ChangeKind::ToolRemoved), 0);
    assert_eq!(count(&r, ChangeKind::ToolAdded), 11);
    assert_eq!(
        places(&r, ChangeKind::PropertyRemoved),
        pairs(&[
            ("get_commit", "/inputSchema/properties/include_diff"),
            ("list_dependabot_alerts", "/inputSchema/properties/page"),
        ])
    );
    // Annotations: three titles rewritten (warnings); 160 hints now state their default
    // explicitly (readOnlyHint false, destructiveHint true, idempotentHint false), the same
    // meaning for MCP. 157 of them are info; three are the explicit `destructiveHint: true`
    // that makes generated code mark the tool consequential, so its unconfirmed typed calls
    // stop compiling: warnings that say so. No hint changed its effective value.
    assert_eq!(
        places(&r, ChangeKind::TitleChanged),
        pairs(&[
            ("add_issue_comment", "/annotations/title"),
            ("issue_write", "/annotations/title"),
            ("projects_write", "/annotations/title"),
        ])
    );
    assert_eq!(count(&r, ChangeKind::AnnotationMadeExplicit), 157);
    assert_eq!(
        places(&r, ChangeKind::AnnotationChanged),
        pairs(&[
            ("label_write", "/annotations/destructiveHint"),
            (
                "manage_notification_subscription",
                "/annotations/destructiveHint"
            ),
            (
                "manage_repository_notification_subscription",
                "/annotations/destructiveHint"
            ),
        ])
    );
    assert!(
        r.changes
            .iter()
            .filter(|c| c.kind == ChangeKind::AnnotationChanged)
            .all(|c| c.severity == Severity::Warning
                && c.message.contains("typed calls need `.confirmed()`"))
    );
    let title = r
        .changes
        .iter()
        .find(|c| c.tool == "issue_write" && c.kind == ChangeKind::TitleChanged)
        .map(|c| c.message.as_str());
    assert_eq!(
        title,
        Some(
            "annotation title changed: \"Create or update issue\" → \"Create or update issue/pull request\""
        )
    );
    // The remaining breaking changes: new lower bounds (minLength/minimum 1) and the
    // projects_write `updated_field` object narrowed to a oneOf of two closed shapes.
    assert_eq!(count(&r, ChangeKind::BoundTightened), 4);
    assert_eq!(
        r.changes
            .iter()
            .filter(|c| c.severity == Severity::Breaking && c.tool == "projects_write")
            .map(|c| c.pointer.as_str())
            .collect::<Vec<_>>(),
        [
            "/inputSchema/properties/updated_field/oneOf/0/properties/id",
            "/inputSchema/properties/updated_field/oneOf/0/properties/value",
            "/inputSchema/properties/updated_field/oneOf/0/additionalProperties",
        ]
    );
    // Deterministic: the same inputs give the same changes in the same order.
    assert_eq!(
        r,
        report(
            &c,
            "history/github-mcp-server@2026-05-21-f39f758d.json",
            "servers/github-mcp-server.json",
        )
    );
}

#[test]
fn a_file_against_itself_has_no_drift() {
    let Some(c) = corpus() else { return };
    let r = report(
        &c,
        "servers/github-mcp-server.json",
        "servers/github-mcp-server.json",
    );
    assert!(r.is_empty());
}
