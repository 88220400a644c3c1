//! `--format github`: GitHub Actions workflow commands (`::error file=…::…`, see GitHub's
//! "Workflow commands" documentation), one annotation per change at the file that holds the
//! change's tool, and an `::error` on the manifest per server that could not be checked.

use oma_mcp_runtime::{Change, DriftReport, Severity};

use super::compared::{Compared, Failed};
use super::location::{files, place, relative};
use crate::terminal;

/// The failed servers' errors, then every pair's annotations.
pub fn render(compared: &[Compared], failed: &[Failed]) -> String {
    let mut out = String::new();
    for f in failed {
        out.push_str(&format!(
            "::error file={},title={}::{}\n",
            property(&relative(&f.manifest)),
            property(&format!("MCP check: server {} failed", f.server)),
            data(&terminal::safe(&f.message))
        ));
    }
    for c in compared {
        let (old, new) = files(c);
        out.push_str(&annotations(&c.report, &|change| {
            place(&old, new.as_ref(), change)
        }));
    }
    out
}

/// GitHub Actions annotations, one per change: `::error` for breaking, `::warning`,
/// `::notice` for info, each with `file=<file>` and, when there is one, `line=<line>`:
/// `place` gives both for each change (the caller decides which file holds the change's
/// tool; `oma-mcp` points at the old file, the pin, and at the new one only for a tool
/// the old file does not hold).
pub fn annotations(
    report: &DriftReport,
    place: &dyn Fn(&Change) -> (String, Option<usize>),
) -> String {
    let mut out = String::new();
    for c in &report.changes {
        let command = match c.severity {
            Severity::Breaking => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let subject = super::subject(c);
        let tool = if subject.is_empty() {
            "server"
        } else {
            subject.as_str()
        };
        let title = format!("MCP drift ({}): {tool} {}", c.severity, c.kind);
        let (file, line) = place(c);
        let line = line.map(|l| format!(",line={l}")).unwrap_or_default();
        let place = if c.pointer.is_empty() {
            String::new()
        } else {
            format!("{} ", c.pointer)
        };
        out.push_str(&format!(
            "::{command} file={}{line},title={}::{}\n",
            property(&file),
            property(&title),
            data(&format!("{place}{}", c.message)),
        ));
    }
    out
}

/// GitHub Actions workflow command data (the text after `::`): control and bidirectional
/// characters as Rust escapes (a server's name must not reach a log as a terminal sequence;
/// [`crate::terminal::safe`]), then `%`, CR and LF escaped.
pub(super) fn data(text: &str) -> String {
    crate::terminal::safe(text)
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// GitHub Actions workflow command property values (`file=…`, `title=…`): as [`data`],
/// plus `:` and `,`.
pub(super) fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}
