//! Renderings of a [`DriftReport`]: short text grouped by tool (optionally coloured with ANSI
//! escapes), a Markdown table (pull-request comments, CI job summaries) and GitHub Actions
//! workflow commands (`::error file=…::…`, see GitHub's "Workflow commands" documentation).
//!
//! Messages quote server text with escapes (never a raw newline); the text form also escapes
//! control and bidirectional formatting characters in tool names and pointers, so server text
//! cannot drive a terminal.

use super::{Change, DriftReport, Severity};

const RESET: &str = "\u{1b}[0m";

fn colour(severity: Severity) -> &'static str {
    match severity {
        Severity::Breaking => "\u{1b}[1;31m",
        Severity::Warning => "\u{1b}[33m",
        Severity::Info => "\u{1b}[36m",
    }
}

/// `text` with control characters (except none: one line) and bidirectional formatting
/// characters written as Rust escapes.
pub(crate) fn terminal_safe(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let bidi = matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        if c.is_control() || bidi {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

fn summary_line(report: &DriftReport) -> String {
    let s = report.summary;
    format!(
        "{} breaking, {} warning, {} info",
        s.breaking, s.warning, s.info
    )
}

impl DriftReport {
    /// Short text grouped by tool: a `tool` header line, then one indented line per change
    /// (`breaking  input  /inputSchema/properties/q  property "q" removed`), then a summary
    /// line. `colour` adds ANSI colours (only for a terminal).
    pub fn to_text(&self, colour_on: bool) -> String {
        if self.changes.is_empty() {
            return "no drift\n".to_owned();
        }
        let mut out = String::new();
        let mut current: Option<&str> = None;
        for c in &self.changes {
            if current != Some(c.tool.as_str()) {
                current = Some(c.tool.as_str());
                let header = if c.tool.is_empty() {
                    "(server)".to_owned()
                } else {
                    terminal_safe(&c.tool)
                };
                if colour_on {
                    out.push_str(&format!("\u{1b}[1m{header}{RESET}\n"));
                } else {
                    out.push_str(&format!("{header}\n"));
                }
            }
            let severity = format!("{:<8}", c.severity.as_str());
            let severity = if colour_on {
                format!("{}{severity}{RESET}", colour(c.severity))
            } else {
                severity
            };
            let pointer = if c.pointer.is_empty() {
                "/"
            } else {
                c.pointer.as_str()
            };
            out.push_str(&format!(
                "  {severity} {:<6} {}  {}\n",
                c.direction.as_str(),
                terminal_safe(pointer),
                terminal_safe(&c.message)
            ));
        }
        out.push_str(&format!("{}\n", summary_line(self)));
        out
    }

    /// A Markdown table (severity, tool, direction, pointer, message) with a summary line,
    /// for a pull-request comment or `$GITHUB_STEP_SUMMARY`. `title` heads it.
    ///
    /// Every cell that holds server text (tool, pointer, message: descriptions are quoted in
    /// it) is a code span, so nothing a server writes renders as Markdown or HTML: no
    /// `@mention` notifies anyone, no image is fetched, no link or comment is made.
    pub fn to_markdown(&self, title: &str) -> String {
        let mut out = format!("### {}\n\n", md_cell(title));
        if self.changes.is_empty() {
            out.push_str("No drift.\n");
            return out;
        }
        out.push_str(&format!("**{}**\n\n", summary_line(self)));
        out.push_str("| severity | tool | direction | pointer | change |\n|---|---|---|---|---|\n");
        for c in &self.changes {
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

    /// GitHub Actions annotations, one per change: `::error` for breaking, `::warning`,
    /// `::notice` for info, each with `file=<file>` and, when there is one, `line=<line>`:
    /// `place` gives both for each change (the caller decides which file holds the change's
    /// tool; `oma-mcp` points at the old file, the pin, and at the new one only for a tool
    /// the old file does not hold).
    pub fn to_github(&self, place: &dyn Fn(&Change) -> (String, Option<usize>)) -> String {
        let mut out = String::new();
        for c in &self.changes {
            let command = match c.severity {
                Severity::Breaking => "error",
                Severity::Warning => "warning",
                Severity::Info => "notice",
            };
            let tool = if c.tool.is_empty() {
                "server"
            } else {
                c.tool.as_str()
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
                gh_property(&file),
                gh_property(&title),
                gh_data(&format!("{place}{}", c.message)),
            ));
        }
        out
    }
}

/// GitHub Actions workflow command data (the text after `::`): `%`, CR and LF escaped.
pub fn gh_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// GitHub Actions workflow command property values (`file=…`, `title=…`): as
/// [`gh_data`], plus `:` and `,`.
pub fn gh_property(text: &str) -> String {
    gh_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// Text for a Markdown table cell: `|` escaped, no line breaks, HTML-significant `<` escaped.
fn md_cell(text: &str) -> String {
    terminal_safe(text)
        .replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace('<', "&lt;")
}

/// A code span for a cell (empty for an empty value). Its fence is one backtick longer than
/// the longest run of backticks in the text, so server text cannot close the span early and
/// leave the rest (`<!--`, links) to be rendered as Markdown or HTML.
pub fn code(text: &str) -> String {
    if text.is_empty() {
        return String::new();
    }
    let safe = terminal_safe(text).replace('|', "\\|");
    let longest_run = safe.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    if longest_run == 0 {
        return format!("`{safe}`");
    }
    let fence = "`".repeat(longest_run + 1);
    format!("{fence} {safe} {fence}")
}
