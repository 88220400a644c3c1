//! Server-supplied text → doc comment lines that are safe in generated code.
//!
//! `#[doc = "…"]` on a string literal already keeps text from becoming code. What is left is
//! what rustdoc and rustc make of the text:
//! - control characters (NUL, a lone CR, which rustc rejects in doc comments) and
//!   bidirectional overrides (`text_direction_codepoint_*` lints) become U+FFFD;
//! - code blocks would become doctests of the user's crate: an opening fence gets the
//!   `text` info string, and leading indentation outside fences is removed (no indented
//!   code blocks);
//! - `[`, `]`, `<`, `>` are escaped outside fences (no intra-doc links, no raw HTML, no
//!   block quotes), bare `http(s)://` URLs become autolinks (no `rustdoc::bare_urls`);
//! - a fence left open is closed, so later doc lines stay prose.

use oma_mcp_core::quote::is_bidi_control;

/// Doc lines for `text`: one entry per line, each starting with a space (so the comment
/// reads `/// text`), empty entries for blank lines. Leading and trailing blank lines are
/// dropped.
pub(crate) fn doc_lines(text: &str) -> Vec<String> {
    let cleaned = clean_chars(text);
    let mut out = Vec::new();
    // The open fence: its character and length.
    let mut fence: Option<(char, usize)> = None;
    // Inside a list item (no blank line since): the indentation of its content.
    let mut list_indent: Option<usize> = None;
    for line in cleaned.split('\n') {
        let line = line.trim_end();
        let trimmed = line.trim_start();
        match fence {
            Some((c, n)) => {
                if fence_run(trimmed)
                    .is_some_and(|(fc, fnum, rest)| fc == c && fnum >= n && rest.trim().is_empty())
                {
                    fence = None;
                    out.push(format!(" {}", c.to_string().repeat(n)));
                } else {
                    out.push(format!(" {line}"));
                }
            }
            None => {
                if let Some((c, n, rest)) = fence_run(trimmed) {
                    // A backtick fence's info string cannot contain backticks; then it is
                    // not a fence, only inline code.
                    if !(c == '`' && rest.contains('`')) {
                        fence = Some((c, n));
                        list_indent = None;
                        out.push(format!(" {}text", c.to_string().repeat(n)));
                        continue;
                    }
                }
                if trimmed.is_empty() {
                    list_indent = None;
                    out.push(String::new());
                } else if let Some(indent) = list_item_indent(trimmed) {
                    list_indent = Some(indent);
                    out.push(format!(" {}", escape_prose(trimmed)));
                } else {
                    // A line continuing a list item is indented to the item's content, not a
                    // lazy continuation (clippy's `doc_lazy_continuation`).
                    let pad = " ".repeat(list_indent.unwrap_or(0));
                    out.push(format!(" {pad}{}", escape_prose(trimmed)));
                }
            }
        }
    }
    if let Some((c, n)) = fence {
        out.push(format!(" {}", c.to_string().repeat(n)));
    }
    while out.last().is_some_and(String::is_empty) {
        out.pop();
    }
    let first = out.iter().position(|l| !l.is_empty()).unwrap_or(out.len());
    out.drain(..first);
    out
}

/// The content indentation of a list item line (`- x` → 2, `10. x` → 4), `None` for other
/// lines.
fn list_item_indent(line: &str) -> Option<usize> {
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    let marker = match line[digits..].chars().next()? {
        '-' | '*' | '+' if digits == 0 => 1,
        '.' | ')' if (1..=9).contains(&digits) => digits + 1,
        _ => return None,
    };
    match line[marker..].chars().next() {
        Some(' ') => Some(marker + 1),
        None => Some(marker + 1),
        Some(_) => None,
    }
}

/// One line of plain text (for short notes and names inside generated docs): like
/// [`doc_lines`], with line breaks turned into spaces.
pub(crate) fn inline(text: &str) -> String {
    let cleaned = clean_chars(text);
    let joined = cleaned
        .split('\n')
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ");
    escape_prose(joined.trim())
}

/// Generated prose (already safe: see [`inline`]) as doc lines of at most about 90
/// characters, broken at spaces outside code spans.
pub(crate) fn wrap(text: &str) -> Vec<String> {
    const WIDTH: usize = 90;
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut in_code = false;
    let mut word = String::new();
    let flush_word = |line: &mut String, word: &mut String, lines: &mut Vec<String>| {
        if !line.is_empty() && line.len() + 1 + word.len() > WIDTH {
            lines.push(format!(" {line}"));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
        word.clear();
    };
    for c in text.chars() {
        if c == '`' {
            in_code = !in_code;
        }
        if c == ' ' && !in_code {
            if !word.is_empty() {
                flush_word(&mut line, &mut word, &mut lines);
            }
        } else {
            word.push(c);
        }
    }
    if !word.is_empty() {
        flush_word(&mut line, &mut word, &mut lines);
    }
    if !line.is_empty() {
        lines.push(format!(" {line}"));
    }
    lines
}

/// `\r\n` and lone `\r` → `\n`, tabs → spaces, other control and bidi characters → U+FFFD.
fn clean_chars(text: &str) -> String {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    text.chars()
        .map(|c| match c {
            '\n' => '\n',
            '\t' => ' ',
            c if c.is_control() || is_bidi_control(c) => '\u{fffd}',
            c => c,
        })
        .collect()
}

/// A fence at the start of `line`: its character, length (≥ 3) and the rest of the line.
fn fence_run(line: &str) -> Option<(char, usize, &str)> {
    let c = line.chars().next().filter(|&c| c == '`' || c == '~')?;
    let n = line.chars().take_while(|&x| x == c).count();
    (n >= 3).then(|| (c, n, &line[n..]))
}

/// Escapes link and HTML syntax in a line of prose and turns bare URLs into autolinks.
fn escape_prose(line: &str) -> String {
    let mut out = String::with_capacity(line.len() + 8);
    let mut rest = line;
    while !rest.is_empty() {
        if let Some(len) = url_len(rest) {
            out.push('<');
            out.push_str(&rest[..len]);
            out.push('>');
            rest = &rest[len..];
            continue;
        }
        if let Some(len) = code_span_len(rest) {
            out.push_str(&rest[..len]);
            rest = &rest[len..];
            continue;
        }
        let Some(c) = rest.chars().next() else { break };
        if matches!(c, '[' | ']' | '<' | '>' | '\\') {
            out.push('\\');
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
        // Only look for a URL at the start of a word.
        if c.is_alphanumeric() {
            let word = rest
                .find(|c: char| !c.is_alphanumeric())
                .unwrap_or(rest.len());
            out.push_str(&rest[..word]);
            rest = &rest[word..];
        }
    }
    out
}

/// The length of the inline code span (`` `a[0]` ``) at the start of `s`: a backtick run and
/// the next run of the same length on this line. Nothing inside needs escaping.
fn code_span_len(s: &str) -> Option<usize> {
    let n = s.chars().take_while(|&c| c == '`').count();
    if n == 0 {
        return None;
    }
    let mut i = n;
    while let Some(start) = s[i..].find('`') {
        let start = i + start;
        let run = s[start..].chars().take_while(|&c| c == '`').count();
        if run == n {
            return Some(start + run);
        }
        i = start + run;
    }
    None
}

/// The length of the `http://` or `https://` URL at the start of `s`, without trailing
/// punctuation; `None` when `s` does not start with one.
fn url_len(s: &str) -> Option<usize> {
    let scheme = ["https://", "http://"]
        .into_iter()
        .find(|p| s.get(..p.len()).is_some_and(|h| h.eq_ignore_ascii_case(p)))?;
    let end = s
        .find(|c: char| c.is_whitespace() || matches!(c, '<' | '>' | '"' | '`' | '[' | ']' | '\\'))
        .unwrap_or(s.len());
    let url = s[..end].trim_end_matches(['.', ',', ';', ':', ')', '(', '\'', '!', '?', '*', '_']);
    (url.len() > scheme.len()).then_some(url.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_prose_wraps_outside_code_spans() {
        let text = format!("Takes {}: `a b c`, the end.", "word ".repeat(20).trim_end());
        let lines = wrap(&text);
        assert_eq!(
            lines,
            [
                format!(" Takes {} word", "word ".repeat(16).trim_end()),
                " word word word: `a b c`, the end.".to_owned(),
            ]
        );
        assert!(lines.iter().all(|l| l.len() <= 91));
        assert_eq!(wrap(""), Vec::<String>::new());
    }

    #[test]
    fn plain_text_stays_readable() {
        assert_eq!(doc_lines("Echo back the input."), [" Echo back the input."]);
        assert_eq!(
            doc_lines("\n\nFirst line.\n\n  Second line, indented.\n\n"),
            [" First line.", "", " Second line, indented."]
        );
        assert_eq!(doc_lines(""), Vec::<String>::new());
    }

    #[test]
    fn control_and_bidi_characters_are_replaced() {
        assert_eq!(
            doc_lines("a\0b\u{202e}c\u{7}d"),
            [" a\u{fffd}b\u{fffd}c\u{fffd}d"]
        );
        assert_eq!(
            doc_lines("one\rtwo\r\nthree\tfour"),
            [" one", " two", " three four"]
        );
    }

    #[test]
    fn code_blocks_do_not_become_doctests() {
        assert_eq!(
            doc_lines("Run:\n```\nfn main() { panic!() }\n```\nthen go"),
            [
                " Run:",
                " ```text",
                " fn main() { panic!() }",
                " ```",
                " then go"
            ]
        );
        assert_eq!(
            doc_lines("Run:\n~~~~rust\ncode\n~~~\nstill code"),
            [
                " Run:",
                " ~~~~text",
                " code",
                " ~~~",
                " still code",
                " ~~~~"
            ]
        );
        // Indented code blocks lose their indentation outside fences.
        assert_eq!(doc_lines("x:\n\n    panic!()"), [" x:", "", " panic!()"]);
        assert_eq!(doc_lines("```unclosed"), [" ```text", " ```"]);
        // Inline code with backticks in the info string is not a fence.
        assert_eq!(doc_lines("```a``` b"), [" ```a``` b"]);
    }

    #[test]
    fn list_continuations_are_indented() {
        assert_eq!(
            doc_lines("Options:\n- 'add' - add\n- 'rm' - remove\nMore text.\n\nAfter."),
            [
                " Options:",
                " - 'add' - add",
                " - 'rm' - remove",
                "   More text.",
                "",
                " After."
            ]
        );
        assert_eq!(
            doc_lines("10. ten\n    wrapped"),
            [" 10. ten", "     wrapped"]
        );
        assert_eq!(doc_lines("-not a list\nx"), [" -not a list", " x"]);
        assert_eq!(list_item_indent("*"), Some(2));
        assert_eq!(list_item_indent("1234567890. x"), None);
    }

    #[test]
    fn links_html_and_urls() {
        assert_eq!(
            doc_lines("See [docs] <b>now</b> > quote"),
            [r" See \[docs\] \<b\>now\</b\> \> quote"]
        );
        assert_eq!(
            doc_lines("Docs at https://example.com/a_(b). Or http://x.y/z, ok"),
            [" Docs at <https://example.com/a_(b>). Or <http://x.y/z>, ok"]
        );
        assert_eq!(doc_lines("nohttps://x"), [" nohttps://x"]);
        assert_eq!(doc_lines("https://"), [" https://"]);
        assert_eq!(inline("a\nb [c]"), r"a b \[c\]");
    }

    #[test]
    fn hostile_text_is_kept_as_text() {
        let lines = doc_lines("*/ \"# `#[` } { \\ ` [");
        assert_eq!(lines, [" */ \"# `#[` } { \\\\ ` \\["]);
        let long = "x".repeat(6000);
        assert_eq!(doc_lines(&long), [format!(" {long}")]);
    }
}
