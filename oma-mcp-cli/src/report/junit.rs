//! `--format junit`: a JUnit XML test report, the format CI systems show as test results. It
//! walks the report's changes generically, so every change kind, present or future, appears
//! without a line here.

use oma_mcp_runtime::Change;

use super::compared::{Compared, Failed};
use crate::flags::FailOn;

/// JUnit XML: one `<testsuite>` per server (`check`) or file pair (`diff`), with one
/// `<testcase>` for the server itself (its server-level changes) and one per tool on either
/// side; a test case fails (`<failure>`) when it has a change at or above `fail_on`, and
/// lists all its changes. A failed server is a suite whose one test case has an `<error>`.
pub fn render(compared: &[Compared], failed: &[Failed], fail_on: FailOn) -> String {
    let at = fail_on.severity();
    let mut suites = String::new();
    let (mut all_tests, mut all_failures) = (0, 0);
    for f in failed {
        all_tests += 1;
        suites.push_str(&format!(
            "  <testsuite name=\"{name}\" tests=\"1\" failures=\"0\" errors=\"1\">\n    \
             <testcase classname=\"{name}\" name=\"(server)\">\n      \
             <error message=\"server could not be checked\">{}</error>\n    \
             </testcase>\n  </testsuite>\n",
            xml(&f.message),
            name = xml(&f.server),
        ));
    }
    for c in compared {
        let mut cases = String::new();
        let (mut tests, mut failures) = (0, 0);
        // The server, every tool on either side, then each prompt, resource or template that
        // changed, in the report's order.
        let mut names: Vec<String> = std::iter::once(String::new())
            .chain(c.tools.iter().cloned())
            .collect();
        for ch in &c.report.changes {
            let subject = super::subject(ch);
            if ch.direction.item_kind().is_some() && !names.contains(&subject) {
                names.push(subject);
            }
        }
        for tool in &names {
            let tool = tool.as_str();
            let changes: Vec<&Change> = c
                .report
                .changes
                .iter()
                .filter(|ch| super::subject(ch) == tool)
                .collect();
            tests += 1;
            let shown = if tool.is_empty() { "(server)" } else { tool };
            let failing = changes.iter().filter(|ch| ch.severity >= at).count();
            let open = format!(
                "    <testcase classname=\"{}\" name=\"{}\"",
                xml(&c.name),
                xml(shown)
            );
            if changes.is_empty() {
                cases.push_str(&format!("{open}/>\n"));
                continue;
            }
            let lines: String = changes
                .iter()
                .map(|ch| {
                    let pointer = if ch.pointer.is_empty() {
                        "/"
                    } else {
                        &ch.pointer
                    };
                    format!(
                        "{} {} {} {}\n",
                        ch.severity.as_str(),
                        ch.direction.as_str(),
                        pointer,
                        ch.message
                    )
                })
                .collect();
            if failing > 0 {
                failures += 1;
                cases.push_str(&format!(
                    "{open}>\n      <failure message=\"{failing} change(s) at or above {}\" \
                     type=\"{}\">{}</failure>\n    </testcase>\n",
                    at.as_str(),
                    changes
                        .iter()
                        .map(|ch| ch.severity)
                        .max()
                        .unwrap_or(at)
                        .as_str(),
                    xml(&lines)
                ));
            } else {
                cases.push_str(&format!(
                    "{open}>\n      <system-out>{}</system-out>\n    </testcase>\n",
                    xml(&lines)
                ));
            }
        }
        all_tests += tests;
        all_failures += failures;
        suites.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\">\n\
             {cases}  </testsuite>\n",
            xml(&c.name)
        ));
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"oma-mcp\" \
         tests=\"{all_tests}\" failures=\"{all_failures}\" errors=\"{}\">\n{suites}</testsuites>\n",
        failed.len()
    )
}

/// Text for XML character data and attribute values: the five markup characters as
/// entities; characters XML 1.0 does not allow at all (controls other than tab, line feed
/// and carriage return, U+FFFE, U+FFFF) written as Rust escapes (`\u{1b}`), since not even a
/// character reference may stand for them.
pub(super) fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => {
                out.extend(c.escape_default())
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_escapes_markup_and_characters_xml_forbids() {
        assert_eq!(
            xml("a<b>&\"c\"'d'\u{1b}[31m\tok\n\u{ffff}"),
            "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;\\u{1b}[31m\tok\n\\u{ffff}"
        );
    }
}
