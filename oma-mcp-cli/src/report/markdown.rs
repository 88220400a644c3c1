//! `--format markdown`: a Markdown table per pair, for a pull-request comment or a CI job
//! summary (`$GITHUB_STEP_SUMMARY`), and a section per server that could not be checked.
//!
//! Every cell that holds server text (tool, pointer, message: descriptions are quoted in
//! it) is a code span, so nothing a server writes renders as Markdown or HTML: no
//! `@mention` notifies anyone, no image is fetched, no link or comment is made.

use oma_mcp_runtime::{DriftReport, Severity};

use super::compared::{Compared, Failed};
use super::location::relative;
use super::text::summary;
use crate::terminal;

/// A section per failed server, then a table per compared pair, blank lines between.
pub fn render(compared: &[Compared], failed: &[Failed]) -> String {
    failed
        .iter()
        .map(|f| {
            format!(
                "### MCP drift: {} failed\n\n**Not checked** (manifest {}): {}\n",
                f.server,
                code(&relative(&f.manifest)),
                code(&f.message)
            )
        })
        .chain(
            compared
                .iter()
                .map(|c| table(&c.report, &format!("MCP drift: {}", c.label))),
        )
        .collect::<Vec<_>>()
        .join("\n")
}

/// A Markdown table (severity, tool, direction, pointer, message) with a summary line;
/// `title` heads it. The worst changes come first (breaking, then warnings, then info), each
/// severity in the report's order, so a job summary cut short still shows what matters.
pub fn table(report: &DriftReport, title: &str) -> String {
    let mut out = format!("### {}\n\n", cell(title));
    if report.changes.is_empty() {
        out.push_str("No drift.\n");
        return out;
    }
    out.push_str(&format!("**{}**\n\n", summary(report)));
    out.push_str("| severity | tool | direction | pointer | change |\n|---|---|---|---|---|\n");
    let mut rows: Vec<_> = report.changes.iter().collect();
    rows.sort_by_key(|c| std::cmp::Reverse(c.severity));
    for c in rows {
        let icon = match c.severity {
            Severity::Breaking => "🔴 breaking",
            Severity::Warning => "🟡 warning",
            Severity::Info => "🔵 info",
        };
        out.push_str(&format!(
            "| {icon} | {} | {} | {} | {} |\n",
            code(&c.tool),
            c.direction.as_str(),
            code(&c.pointer),
            code(&c.message)
        ));
    }
    out
}

/// Text for a Markdown table cell: `|` escaped, no line breaks, HTML-significant `<` escaped.
pub(super) fn cell(text: &str) -> String {
    terminal::one_line(text)
        .replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace('<', "&lt;")
}

/// A code span for a cell (empty for an empty value). Its fence is one backtick longer than
/// the longest run of backticks in the text, so server text cannot close the span early and
/// leave the rest (`<!--`, links) to be rendered as Markdown or HTML.
pub(super) fn code(text: &str) -> String {
    if text.is_empty() {
        return String::new();
    }
    let safe = terminal::one_line(text).replace('|', "\\|");
    let longest_run = safe.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    if longest_run == 0 {
        return format!("`{safe}`");
    }
    let fence = "`".repeat(longest_run + 1);
    format!("{fence} {safe} {fence}")
}
