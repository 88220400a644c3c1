//! What one `check` or `diff` run reports: the pairs it compared and the servers it could
//! not compare.

use std::path::PathBuf;

use oma_mcp_runtime::DriftReport;

use crate::flags::FailOn;

/// One compared pair: a server (or file pair), the file annotations point at, the report.
pub struct Compared {
    /// The server's name (`check`) or `OLD → NEW` (`diff`), the JUnit test suite's name.
    pub name: String,
    /// The heading: the server's name and snapshot (`check`) or `OLD → NEW` (`diff`).
    pub label: String,
    /// The server's name in JSON output when several servers were checked.
    pub server: Option<String>,
    /// The old side's file, the reference: the committed snapshot (`check`) or OLD
    /// (`diff`). GitHub annotations point at it, at the tool's line when it holds the tool.
    pub file: PathBuf,
    /// The new side's file (`diff`: NEW; `check`: none, the server is live). Annotations of
    /// a tool that `file` does not hold (an added tool) point at it, at the tool's line.
    pub new_file: Option<PathBuf>,
    /// The raw MCP names of the tools on either side, sorted and without repeats (the
    /// JUnit test cases).
    pub tools: Vec<String>,
    /// The drift.
    pub report: DriftReport,
}

/// A server of the manifest that `check` could not compare (it did not start, its snapshot
/// could not be read); every format reports it.
pub struct Failed {
    /// The server's name in the manifest.
    pub server: String,
    /// The manifest (GitHub annotations and SARIF results point at it).
    pub manifest: PathBuf,
    /// The error with its causes, one line.
    pub message: String,
}

/// Everything one `check` or `diff` run reports.
pub struct Outputs<'a> {
    /// The pairs that were compared.
    pub compared: &'a [Compared],
    /// `check`: the servers that could not be compared (JSON always has an `errors` array);
    /// `diff`: `None`.
    pub failed: Option<&'a [Failed]>,
    /// The level at which a change fails the run (JUnit failures).
    pub fail_on: FailOn,
}
