//! `--format text`: short text grouped by tool, coloured with ANSI escapes on a terminal.
//!
//! Messages quote server text with escapes (never a raw newline); tool names and pointers
//! have their control and bidirectional formatting characters escaped too, so server text
//! cannot drive a terminal.

use std::io::IsTerminal;

use oma_mcp_runtime::{DriftReport, Severity};

use super::compared::Compared;
use crate::terminal;

const RESET: &str = "\u{1b}[0m";

fn colour(severity: Severity) -> &'static str {
    match severity {
        Severity::Breaking => "\u{1b}[1;31m",
        Severity::Warning => "\u{1b}[33m",
        Severity::Info => "\u{1b}[36m",
    }
}

/// Every pair's report, each under a `== <label>` heading when there are several or they
/// are servers of a manifest; coloured when stdout is a terminal.
pub fn render(compared: &[Compared]) -> String {
    let colour = std::io::stdout().is_terminal();
    let mut out = String::new();
    for c in compared {
        if compared.len() > 1 || c.server.is_some() {
            out.push_str(&format!("== {}\n", terminal::safe(&c.label)));
        }
        out.push_str(&report(&c.report, colour));
    }
    out
}

/// `<n> breaking, <n> warning, <n> info`.
pub fn summary(report: &DriftReport) -> String {
    let s = report.summary;
    format!(
        "{} breaking, {} warning, {} info",
        s.breaking, s.warning, s.info
    )
}

/// Short text grouped by tool: a `tool` header line, then one indented line per change
/// (`breaking  input  /inputSchema/properties/q  property "q" removed`), then a summary
/// line. `colour_on` adds ANSI colours (only for a terminal).
pub fn report(report: &DriftReport, colour_on: bool) -> String {
    if report.changes.is_empty() {
        return "no drift\n".to_owned();
    }
    let mut out = String::new();
    let mut current: Option<String> = None;
    for c in &report.changes {
        let subject = super::subject(c);
        if current.as_deref() != Some(subject.as_str()) {
            let header = if subject.is_empty() {
                "(server)".to_owned()
            } else {
                terminal::one_line(&subject)
            };
            current = Some(subject);
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
            terminal::one_line(pointer),
            terminal::one_line(&c.message)
        ));
    }
    out.push_str(&format!("{}\n", summary(report)));
    out
}
