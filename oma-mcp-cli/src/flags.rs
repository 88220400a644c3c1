//! Flag values and parsers the subcommands share (clap stays in this crate, out of the
//! libraries): the output formats of `list` and `call`, `--fail-on` and `--format` of `check`,
//! `diff` and `scan`, `--timeout-ms` and `--rename`.

use clap::ValueEnum;
use oma_mcp_runtime::Severity;

/// Output formats of `list` and `call`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Human-readable text.
    Text,
    /// JSON for scripts.
    Json,
}

/// Parses `--timeout-ms`: a whole number of milliseconds greater than 0 (0 would time out
/// every request before the server could answer).
pub fn timeout_ms(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(0) => Err("the timeout must be at least 1 millisecond".to_owned()),
        Ok(ms) => Ok(ms),
        Err(e) => Err(format!("expected a whole number of milliseconds ({e})")),
    }
}

/// One `--rename TOOL=NAME` value: split at the last `=` (a tool name may hold `=`, a Rust
/// name cannot).
pub fn rename_entry(value: &str) -> Result<(String, String), String> {
    match value.rsplit_once('=') {
        Some((tool, name)) if !tool.is_empty() => Ok((tool.to_owned(), name.to_owned())),
        _ => Err(format!(
            "expected TOOL=NAME (a raw MCP tool name, `=`, the stem of its Rust names), e.g. \
             search-a=SearchHyphen; got {value:?}"
        )),
    }
}

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

/// `--fail-on` of `scan`: the lowest level of a finding (not accepted by the manifest) that
/// makes the run exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ScanFailOn {
    /// Any finding, also those only a reviewer may want to see.
    Info,
    /// Warnings and high findings (the default).
    Warning,
    /// Only high findings: known attack patterns.
    High,
}

impl ScanFailOn {
    /// The lowest failing level.
    pub fn level(self) -> oma_mcp_core::scan::Level {
        use oma_mcp_core::scan::Level;
        match self {
            ScanFailOn::Info => Level::Info,
            ScanFailOn::Warning => Level::Warning,
            ScanFailOn::High => Level::High,
        }
    }
}

/// `--format` of `scan`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ScanFormat {
    /// Findings grouped by item: level, rule, JSON pointer, message, the escaped excerpt.
    Text,
    /// `{"findings": [...], "summary": {...}}`.
    Json,
    /// GitHub Actions annotations at the scanned file, at the tool's line.
    Github,
    /// A Markdown table for a pull-request comment or a job summary.
    Markdown,
    /// SARIF 2.1.0 for code-scanning dashboards: every scanner rule with its help text and
    /// sources, one result per finding, an accepted finding suppressed with its reason.
    Sarif,
    /// A JUnit XML test report: one test case per item with findings, failing at or above
    /// `--fail-on`.
    Junit,
}

impl From<ScanFormat> for ReportFormat {
    fn from(format: ScanFormat) -> Self {
        match format {
            ScanFormat::Text => ReportFormat::Text,
            ScanFormat::Json => ReportFormat::Json,
            ScanFormat::Github => ReportFormat::Github,
            ScanFormat::Markdown => ReportFormat::Markdown,
            ScanFormat::Sarif => ReportFormat::Sarif,
            ScanFormat::Junit => ReportFormat::Junit,
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
