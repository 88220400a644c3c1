//! Renderings of a drift report for `check` and `diff`: short text grouped by tool (optionally coloured with ANSI
//! escapes), a Markdown table (pull-request comments, CI job summaries) and GitHub Actions
//! workflow commands (`::error file=…::…`, see GitHub's "Workflow commands" documentation).
//!
//! Messages quote server text with escapes (never a raw newline); the text form also escapes
//! control and bidirectional formatting characters in tool names and pointers, so server text
//! cannot drive a terminal.

use oma_mcp_runtime::{Change, DriftReport, Severity};

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
fn terminal_safe(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let bidi = oma_mcp_runtime::text::is_bidi_control(c);
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

/// Short text grouped by tool: a `tool` header line, then one indented line per change
/// (`breaking  input  /inputSchema/properties/q  property "q" removed`), then a summary
/// line. `colour` adds ANSI colours (only for a terminal).
pub fn text(report: &DriftReport, colour_on: bool) -> String {
    if report.changes.is_empty() {
        return "no drift\n".to_owned();
    }
    let mut out = String::new();
    let mut current: Option<&str> = None;
    for c in &report.changes {
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
    out.push_str(&format!("{}\n", summary_line(report)));
    out
}

/// A Markdown table (severity, tool, direction, pointer, message) with a summary line,
/// for a pull-request comment or `$GITHUB_STEP_SUMMARY`. `title` heads it.
///
/// Every cell that holds server text (tool, pointer, message: descriptions are quoted in
/// it) is a code span, so nothing a server writes renders as Markdown or HTML: no
/// `@mention` notifies anyone, no image is fetched, no link or comment is made.
pub fn markdown(report: &DriftReport, title: &str) -> String {
    let mut out = format!("### {}\n\n", md_cell(title));
    if report.changes.is_empty() {
        out.push_str("No drift.\n");
        return out;
    }
    out.push_str(&format!("**{}**\n\n", summary_line(report)));
    out.push_str("| severity | tool | direction | pointer | change |\n|---|---|---|---|---|\n");
    for c in &report.changes {
        let icon = match c.severity {
            Severity::Breaking => "🔴 breaking",
            Severity::Warning => "🟡 warning",
            Severity::Info => "🔵 info",
        };
        out.push_str(&format!(
            "| {icon} | {} | {} | {} | {} |\n",
            markdown_code(&c.tool),
            c.direction.as_str(),
            markdown_code(&c.pointer),
            markdown_code(&c.message)
        ));
    }
    out
}

/// GitHub Actions annotations, one per change: `::error` for breaking, `::warning`,
/// `::notice` for info, each with `file=<file>` and, when there is one, `line=<line>`:
/// `place` gives both for each change (the caller decides which file holds the change's
/// tool; `oma-mcp` points at the old file, the pin, and at the new one only for a tool
/// the old file does not hold).
pub fn github(report: &DriftReport, place: &dyn Fn(&Change) -> (String, Option<usize>)) -> String {
    let mut out = String::new();
    for c in &report.changes {
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
pub fn markdown_code(text: &str) -> String {
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

#[cfg(test)]
mod tests {
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
            text(&r, false),
            "a\n  warning  tool   /description  tool description changed: \"x\" → \"y\\u{1b}[2J\"\n0 breaking, 1 warning, 0 info\n"
        );
        assert_eq!(
            github(&r, &|_| ("mcp/s.json".to_owned(), Some(7))),
            "::warning file=mcp/s.json,line=7,title=MCP drift (warning)%3A a description_changed::/description tool description changed: \"x\" → \"y\\u{1b}[2J\"\n"
        );
        assert!(
            markdown(&r, "t")
                .contains("| 🟡 warning | `a` | tool | `/description` | `tool description changed")
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
        let md = markdown(&r, "t");
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
        let md = markdown(&r, "t");
        let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| 🟡")).collect();
        assert_eq!(
            rows,
            [
                "| 🟡 warning | `a` | tool | `/description` | `tool description changed: \"x\" → \"@octocat ![p](https://t.example/p.png) [y](javascript:alert(1)) <b>\\|\"` |"
            ]
        );
    }
}
