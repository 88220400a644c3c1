//! Drift output shared by `check` and `diff`: `--fail-on`, `--format` and the renderings.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use clap::ValueEnum;
use oma_mcp_runtime::{Change, DriftReport, Severity};
use serde_json::{Value, json};

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
    pub(crate) fn severity(self) -> Severity {
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

/// Whether any report has a change at or above `fail_on`.
pub fn fails(compared: &[Compared], fail_on: FailOn) -> bool {
    compared
        .iter()
        .any(|c| c.report.has_at_least(fail_on.severity()))
}

/// The whole output in `format`. Failed servers come first: JSON lists them in `errors`,
/// GitHub annotates the manifest with an `::error`, Markdown gives each a section, SARIF a
/// result, JUnit an `<error>`; text leaves them to stderr.
pub fn render(outputs: &Outputs<'_>, format: ReportFormat) -> String {
    let compared = outputs.compared;
    let failed = outputs.failed.unwrap_or_default();
    match format {
        ReportFormat::Json => json_text(compared, outputs.failed),
        ReportFormat::Text => {
            let colour = std::io::stdout().is_terminal();
            let mut out = String::new();
            for c in compared {
                if compared.len() > 1 || c.server.is_some() {
                    out.push_str(&format!("== {}\n", crate::shared::terminal::safe(&c.label)));
                }
                out.push_str(&crate::shared::drift_render::text(&c.report, colour));
            }
            out
        }
        ReportFormat::Markdown => failed
            .iter()
            .map(|f| {
                format!(
                    "### MCP drift: {} failed\n\n**Not checked** (manifest {}): {}\n",
                    f.server,
                    crate::shared::drift_render::markdown_code(&relative(&f.manifest)),
                    crate::shared::drift_render::markdown_code(&f.message)
                )
            })
            .chain(compared.iter().map(|c| {
                crate::shared::drift_render::markdown(&c.report, &format!("MCP drift: {}", c.label))
            }))
            .collect::<Vec<_>>()
            .join("\n"),
        ReportFormat::Github => {
            let mut out = String::new();
            for f in failed {
                out.push_str(&format!(
                    "::error file={},title={}::{}\n",
                    crate::shared::drift_render::gh_property(&relative(&f.manifest)),
                    crate::shared::drift_render::gh_property(&format!(
                        "MCP check: server {} failed",
                        f.server
                    )),
                    crate::shared::drift_render::gh_data(&crate::shared::terminal::safe(
                        &f.message
                    ))
                ));
            }
            for c in compared {
                let (old, new) = files(c);
                out.push_str(&crate::shared::drift_render::github(&c.report, &|change| {
                    place(&old, new.as_ref(), change)
                }));
            }
            out
        }
        ReportFormat::Sarif => crate::shared::ci::sarif(compared, failed),
        ReportFormat::Junit => crate::shared::ci::junit(compared, failed, outputs.fail_on),
    }
}

/// The old and the new file of a pair as (shown path, text), for [`place`].
pub(crate) fn files(c: &Compared) -> ((String, String), Option<(String, String)>) {
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    let old = (relative(&c.file), read(&c.file));
    let new = c.new_file.as_deref().map(|p| (relative(p), read(p)));
    (old, new)
}

/// One JSON document: the report itself for one pair; for several servers, every change
/// also names its `server`, and the summary adds up. `check` adds `errors`:
/// `[{"server", "message"}]`, one per server that could not be compared.
fn json_text(compared: &[Compared], failed: Option<&[Failed]>) -> String {
    let mut value = match compared {
        [one] if one.server.is_none() => one.report.to_json(),
        _ => {
            let mut changes = Vec::new();
            let (mut breaking, mut warning, mut info) = (0, 0, 0);
            for c in compared {
                breaking += c.report.summary.breaking;
                warning += c.report.summary.warning;
                info += c.report.summary.info;
                for change in c.report.to_json()["changes"]
                    .as_array()
                    .into_iter()
                    .flatten()
                {
                    let mut change = change.clone();
                    if let (Value::Object(map), Some(server)) = (&mut change, &c.server) {
                        map.insert("server".into(), Value::from(server.as_str()));
                    }
                    changes.push(change);
                }
            }
            json!({"changes": changes, "summary": {"breaking": breaking, "warning": warning, "info": info}})
        }
    };
    if let (Some(failed), Value::Object(map)) = (failed, &mut value) {
        let errors = failed
            .iter()
            .map(|f| json!({"server": f.server, "message": f.message}))
            .collect();
        map.insert("errors".into(), Value::Array(errors));
    }
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}

/// `path` relative to the current directory when it is inside it (GitHub resolves
/// annotation paths against the repository root, where CI jobs run).
pub(crate) fn relative(path: &Path) -> String {
    let cwd = std::env::current_dir().ok();
    let shown = cwd
        .as_deref()
        .and_then(|cwd| path.strip_prefix(cwd).ok())
        .unwrap_or(path);
    shown.to_string_lossy().into_owned()
}

/// Where a change's GitHub annotation points, as (file, line), from the old file and the
/// new one (each as (shown path, text)). The rule: the file that holds the change's tool,
/// the old one first (it is the reference, as `check`'s committed snapshot is), at the
/// tool's line; the new file only for a tool the old one does not hold (an added tool); the
/// old file without a line when neither holds it (a server line, a tool added to a live
/// server).
pub(crate) fn place(
    old: &(String, String),
    new: Option<&(String, String)>,
    change: &Change,
) -> (String, Option<usize>) {
    if let Some(line) = tool_line(&old.1, &change.tool) {
        return (old.0.clone(), Some(line));
    }
    match new.and_then(|(file, text)| Some((file, tool_line(text, &change.tool)?))) {
        Some((file, line)) => (file.clone(), Some(line)),
        None => (old.0.clone(), None),
    }
}

/// The 1-based line of tool `tool`'s `"name"` in a snapshot file (canonical text: a
/// descriptor key sits at 8 spaces) or in a bare `{"tools": [...]}` file with 2-space indent
/// (a tool key at 6 spaces); `None` for an empty name or a tool the file does not hold.
fn tool_line(text: &str, tool: &str) -> Option<usize> {
    if tool.is_empty() {
        return None;
    }
    let name = serde_json::to_string(tool).ok()?;
    let at = |indent: usize| {
        let needle = format!("{}\"name\": {name}", " ".repeat(indent));
        text.lines()
            .position(|l| l == needle || l.strip_suffix(',') == Some(needle.as_str()))
            .map(|i| i + 1)
    };
    at(8).or_else(|| at(6))
}
