//! The findings of the text scanner (`oma-mcp scan`, and what `snapshot` prints before it
//! writes) in every `--format`: text, JSON, GitHub annotations, Markdown, SARIF with one
//! rule per scanner rule and its help text, JUnit.

use std::io::IsTerminal;
use std::path::PathBuf;

use oma_mcp_core::scan::{Finding, Level, RULES, Subject};
use serde_json::{Value, json};

use super::github::{data, property};
use super::junit::xml;
use super::location::{relative, tool_line};
use super::markdown::{cell, code};
use super::sarif::location;
use crate::flags::ReportFormat;
use crate::terminal;

/// The findings of one server (or file).
pub struct Scanned {
    /// The server's name in the manifest, or the file or command that was scanned.
    pub name: String,
    /// The file that holds the items (a snapshot or a bare `tools/list` file): GitHub
    /// annotations and SARIF results point at it, at the tool's line; `None` for a live
    /// server.
    pub file: Option<PathBuf>,
    /// What the scanner found, accepted ones marked.
    pub findings: Vec<Finding>,
}

/// Whether a finding that is not accepted is at or above `fail_on`.
pub fn fails(scanned: &[Scanned], fail_on: Level) -> bool {
    scanned
        .iter()
        .flat_map(|s| &s.findings)
        .any(|f| f.accepted.is_none() && f.level >= fail_on)
}

/// Every server's findings in `format`; `fail_on` decides JUnit failures.
pub fn render(scanned: &[Scanned], format: ReportFormat, fail_on: Level) -> String {
    match format {
        ReportFormat::Text => text(scanned, std::io::stdout().is_terminal()),
        ReportFormat::Json => json_document(scanned),
        ReportFormat::Github => github(scanned),
        ReportFormat::Markdown => markdown(scanned),
        ReportFormat::Sarif => sarif(scanned),
        ReportFormat::Junit => junit(scanned, fail_on),
    }
}

/// `<n> high, <n> warning, <n> info` (and `, <n> accepted`).
fn summary<'a>(findings: impl IntoIterator<Item = &'a Finding>) -> String {
    let mut counts = [0usize; 4];
    for f in findings {
        if f.accepted.is_some() {
            counts[3] += 1;
        } else {
            counts[f.level as usize] += 1;
        }
    }
    let accepted = if counts[3] > 0 {
        format!(", {} accepted", counts[3])
    } else {
        String::new()
    };
    format!(
        "{} high, {} warning, {} info{accepted}",
        counts[2], counts[1], counts[0]
    )
}

fn colour(level: Level) -> &'static str {
    match level {
        Level::High => "\u{1b}[1;31m",
        Level::Warning => "\u{1b}[33m",
        Level::Info => "\u{1b}[36m",
    }
}

/// Text: a heading per server when there are several, a line per item, an indented block
/// per finding (level, rule, pointer, message; the excerpt; the reason it is accepted),
/// then a summary line. Coloured on a terminal; server text is escaped.
pub fn text(scanned: &[Scanned], colour_on: bool) -> String {
    let mut out = String::new();
    for s in scanned {
        if scanned.len() > 1 {
            out.push_str(&format!("== {}\n", terminal::one_line(&s.name)));
        }
        if s.findings.is_empty() {
            out.push_str("no findings\n");
            continue;
        }
        let mut current: Option<&Subject> = None;
        for f in &s.findings {
            if current != Some(&f.subject) {
                current = Some(&f.subject);
                out.push_str(&format!("{}\n", terminal::one_line(&f.subject.to_string())));
            }
            let level = format!("{:<8}", f.level.as_str());
            let level = if colour_on {
                format!("{}{level}\u{1b}[0m", colour(f.level))
            } else {
                level
            };
            let pointer = if f.pointer.is_empty() {
                "/"
            } else {
                &f.pointer
            };
            out.push_str(&format!(
                "  {level} {}  {}  {}\n           {}\n",
                f.rule,
                terminal::one_line(pointer),
                terminal::one_line(&f.message),
                terminal::one_line(&f.excerpt)
            ));
            if let Some(reason) = &f.accepted {
                out.push_str(&format!(
                    "           accepted: {}\n",
                    terminal::one_line(reason)
                ));
            }
        }
        out.push_str(&format!("{}\n", summary(&s.findings)));
    }
    out
}

/// JSON: `{"findings": [{"server", "rule", "level", "subject": {"kind", "name"}, "pointer",
/// "excerpt", "message", "accepted"}], "summary": {"high", "warning", "info", "accepted"}}`
/// (`server` when several were scanned).
fn json_document(scanned: &[Scanned]) -> String {
    let several = scanned.len() > 1;
    let mut findings = Vec::new();
    let mut counts = json!({"high": 0, "warning": 0, "info": 0, "accepted": 0});
    for s in scanned {
        for f in &s.findings {
            let mut value = serde_json::to_value(f).unwrap_or(Value::Null);
            if let (true, Value::Object(map)) = (several, &mut value) {
                map.insert("server".into(), Value::from(s.name.as_str()));
            }
            findings.push(value);
            let key = if f.accepted.is_some() {
                "accepted"
            } else {
                f.level.as_str()
            };
            counts[key] = json!(counts[key].as_u64().unwrap_or(0) + 1);
        }
    }
    let mut text = serde_json::to_string_pretty(&json!({"findings": findings, "summary": counts}))
        .unwrap_or_default();
    text.push('\n');
    text
}

/// The file and line of a finding: the tool's line in the scanned file, when it has one.
fn place(shown: Option<&(String, String)>, f: &Finding) -> Option<(String, Option<usize>)> {
    let (file, text) = shown?;
    let line = match &f.subject {
        Subject::Tool(name) => tool_line(text, name),
        _ => None,
    };
    Some((file.clone(), line))
}

fn shown(s: &Scanned) -> Option<(String, String)> {
    let path = s.file.as_ref()?;
    Some((
        relative(path),
        std::fs::read_to_string(path).unwrap_or_default(),
    ))
}

/// GitHub annotations: `::error` for high, `::warning`, `::notice` for info and accepted
/// findings, at the tool's line of the scanned file when there is one.
fn github(scanned: &[Scanned]) -> String {
    let mut out = String::new();
    for s in scanned {
        let file = shown(s);
        for f in &s.findings {
            let command = match (f.level, &f.accepted) {
                (_, Some(_)) | (Level::Info, None) => "notice",
                (Level::Warning, None) => "warning",
                (Level::High, None) => "error",
            };
            let at = match place(file.as_ref(), f) {
                Some((file, line)) => format!(
                    "file={}{},",
                    property(&file),
                    line.map(|l| format!(",line={l}")).unwrap_or_default()
                ),
                None => String::new(),
            };
            let title = format!("MCP scan ({}): {} {}", f.level, f.subject, f.rule);
            let accepted = f
                .accepted
                .as_ref()
                .map(|r| format!(" (accepted: {r})"))
                .unwrap_or_default();
            out.push_str(&format!(
                "::{command} {at}title={}::{}\n",
                property(&terminal::one_line(&title)),
                data(&terminal::one_line(&format!(
                    "{}: {}: {}{accepted}",
                    if f.pointer.is_empty() {
                        "/"
                    } else {
                        &f.pointer
                    },
                    f.message,
                    f.excerpt
                )))
            ));
        }
    }
    out
}

/// Markdown: a table per server (level, rule, item, pointer, finding, excerpt), server text in
/// code spans.
fn markdown(scanned: &[Scanned]) -> String {
    let mut parts = Vec::new();
    for s in scanned {
        let mut out = format!("### MCP scan: {}\n\n", cell(&s.name));
        if s.findings.is_empty() {
            out.push_str("No findings.\n");
            parts.push(out);
            continue;
        }
        out.push_str(&format!("**{}**\n\n", summary(&s.findings)));
        out.push_str("| level | rule | item | pointer | finding | excerpt |\n| --- | --- | --- | --- | --- | --- |\n");
        for f in &s.findings {
            let level = match &f.accepted {
                Some(reason) => format!("{} (accepted: {})", f.level, cell(reason)),
                None => f.level.to_string(),
            };
            let item = format!("{} {}", f.subject.kind(), code(f.subject.name()));
            out.push_str(&format!(
                "| {level} | `{}` | {} | {} | {} | {} |\n",
                f.rule,
                item.trim_end(),
                code(&f.pointer),
                code(&f.message),
                code(&f.excerpt)
            ));
        }
        parts.push(out);
    }
    parts.join("\n")
}

/// SARIF 2.1.0: every scanner rule in `tool.driver.rules` (id, help text, public sources,
/// default level), one result per finding at the tool's line of the scanned file; an
/// accepted finding carries a `suppressions` entry with its reason.
fn sarif(scanned: &[Scanned]) -> String {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "shortDescription": {"text": r.help},
                "help": {"text": if r.sources.is_empty() { r.help.to_owned() } else { format!("{} Sources: {}", r.help, r.sources.join("; ")) }},
                "defaultConfiguration": {"level": sarif_level(r.level)},
            })
        })
        .collect();
    let mut results = Vec::new();
    for s in scanned {
        let file = shown(s);
        for f in &s.findings {
            let index = RULES.iter().position(|r| r.id == f.rule).unwrap_or(0);
            let mut result = json!({
                "ruleId": f.rule,
                "ruleIndex": index,
                "level": sarif_level(f.level),
                "message": {"text": format!("{} {}: {}", f.subject, if f.pointer.is_empty() { "/" } else { &f.pointer }, f.message)},
                "properties": {
                    "server": s.name,
                    "subject": f.subject,
                    "pointer": f.pointer,
                    "excerpt": f.excerpt,
                    "level": f.level.as_str(),
                },
            });
            if let Value::Object(map) = &mut result {
                if let Some((file, line)) = place(file.as_ref(), f) {
                    map.insert("locations".into(), json!([location(&file, line)]));
                }
                if let Some(reason) = &f.accepted {
                    map.insert(
                        "suppressions".into(),
                        json!([{"kind": "external", "justification": reason}]),
                    );
                }
            }
            results.push(result);
        }
    }
    super::sarif::document("oma-mcp scan", rules, results)
}

fn sarif_level(level: Level) -> &'static str {
    match level {
        Level::High => "error",
        Level::Warning => "warning",
        Level::Info => "note",
    }
}

/// JUnit XML: a test suite per server, a test case per item with findings (one passing
/// `(scan)` case when there are none), failing when a finding that is not accepted is at or
/// above `fail_on`.
fn junit(scanned: &[Scanned], fail_on: Level) -> String {
    let mut suites = String::new();
    let (mut all_tests, mut all_failures) = (0, 0);
    for s in scanned {
        let mut subjects: Vec<&Subject> = Vec::new();
        for f in &s.findings {
            if !subjects.contains(&&f.subject) {
                subjects.push(&f.subject);
            }
        }
        let mut cases = String::new();
        let mut failures = 0;
        for subject in &subjects {
            let mine: Vec<&Finding> = s
                .findings
                .iter()
                .filter(|f| &f.subject == *subject)
                .collect();
            let lines: Vec<String> = mine
                .iter()
                .map(|f| {
                    format!(
                        "{} {} {}: {}; {}",
                        f.level,
                        f.rule,
                        if f.pointer.is_empty() {
                            "/"
                        } else {
                            &f.pointer
                        },
                        f.message,
                        f.excerpt
                    )
                })
                .collect();
            let failing = mine
                .iter()
                .any(|f| f.accepted.is_none() && f.level >= fail_on);
            let body = if failing {
                failures += 1;
                format!(
                    "\n      <failure message=\"{}\">{}</failure>\n    ",
                    xml(&summary(mine.iter().copied())),
                    xml(&lines.join("\n"))
                )
            } else {
                format!(
                    "\n      <system-out>{}</system-out>\n    ",
                    xml(&lines.join("\n"))
                )
            };
            cases.push_str(&format!(
                "    <testcase classname=\"{}\" name=\"{}\">{body}</testcase>\n",
                xml(&s.name),
                xml(&subject.to_string())
            ));
        }
        if subjects.is_empty() {
            cases.push_str(&format!(
                "    <testcase classname=\"{}\" name=\"(scan)\"/>\n",
                xml(&s.name)
            ));
        }
        let tests = subjects.len().max(1);
        all_tests += tests;
        all_failures += failures;
        suites.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\">\n{cases}  </testsuite>\n",
            xml(&s.name)
        ));
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"oma-mcp scan\" tests=\"{all_tests}\" failures=\"{all_failures}\" errors=\"0\">\n{suites}</testsuites>\n"
    )
}
