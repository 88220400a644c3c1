//! Text for a terminal: what a server sends (tool names, descriptions, error messages, stderr
//! lines) reaches the user's terminal in error messages, warnings and `list` output, so
//! control characters (an escape sequence can clear the screen, retitle the window or fake
//! output) and bidirectional overrides are shown as Rust escapes instead of being written.

use oma_mcp_runtime::quote::is_bidi_control;

/// `text` with every control character except `\n` and `\t` (C0, DEL, C1) and every
/// bidirectional formatting character written as a Rust escape (`\u{1b}`, `\r`, `\u{202e}`).
pub fn safe(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if (c.is_control() && c != '\n' && c != '\t') || is_bidi_control(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// `text` on one line: as [`safe`], and `\n` and `\t` written as escapes too (the drift
/// reports' text and Markdown cells, where a server's newline must not start a line).
pub fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() || is_bidi_control(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{one_line, safe};

    #[test]
    fn control_and_bidi_characters_are_escaped() {
        assert_eq!(
            safe("evil\u{1b}[31mRED\u{7}\r\u{9b}2J\u{7f} a\u{202e}b"),
            r"evil\u{1b}[31mRED\u{7}\r\u{9b}2J\u{7f} a\u{202e}b"
        );
        assert_eq!(
            safe("line one\n\tline two é 名前 🚀"),
            "line one\n\tline two é 名前 🚀"
        );
    }

    #[test]
    fn one_line_escapes_line_breaks_and_tabs_too() {
        assert_eq!(
            one_line("a\nb\tc\u{1b}[2J\u{2066}d é"),
            r"a\nb\tc\u{1b}[2J\u{2066}d é"
        );
    }
}
