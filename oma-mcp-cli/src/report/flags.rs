//! The values of `--fail-on` and `--format` of `check` and `diff` (clap's `ValueEnum`s, kept
//! out of the libraries).

use clap::ValueEnum;
use oma_mcp_runtime::Severity;

/// `--fail-on`: the lowest severity that makes the run exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// Only breaking changes (the default).
    Breaking,
    /// Breaking changes and warnings (description, title and annotation changes).
    Warning,
    /// Any change.
    Info,
}

impl FailOn {
    /// The lowest failing severity.
    pub fn severity(self) -> Severity {
        match self {
            FailOn::Breaking => Severity::Breaking,
            FailOn::Warning => Severity::Warning,
            FailOn::Info => Severity::Info,
        }
    }
}

/// `--format` of `check` and `diff`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// Short text grouped by tool, coloured on a terminal.
    Text,
    /// `{"changes": [...], "summary": {...}}`.
    Json,
    /// GitHub Actions annotations at the file that holds each change's tool: the old file
    /// (`check`: the committed snapshot; `diff`: OLD), or NEW for a tool only NEW holds.
    Github,
    /// A Markdown table for a pull-request comment or a job summary.
    Markdown,
    /// SARIF 2.1.0 for code-scanning dashboards: one result per change, at the tool's line
    /// in the file that holds it (as `github`); one rule per change kind.
    Sarif,
    /// A JUnit XML test report: one test case per server and tool, failing at or above
    /// `--fail-on`.
    Junit,
}
