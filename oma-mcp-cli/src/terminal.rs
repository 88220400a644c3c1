//! Text for a terminal: what a server sends (tool names, descriptions, error messages, stderr
//! lines) reaches the user's terminal in error messages, warnings and `list` output, so
//! control characters (an escape sequence can clear the screen, retitle the window or fake
//! output) and bidirectional overrides are shown as Rust escapes instead of being written.

use oma_mcp_runtime::quote::is_bidi_control;

/// Characters a reader cannot see that carry text of their own: Unicode Tag characters
/// (U+E0000–U+E007F, which smuggle ASCII past a reader) and the zero-width space, joiners'
/// neighbours and word joiner (U+200B, U+2060, U+FEFF).
fn invisible(c: char) -> bool {
    matches!(
        c,
        '\u{E0000}'..='\u{E007F}' | '\u{200B}' | '\u{2060}' | '\u{FEFF}'
    )
}

/// `text` with every control character except `\n` and `\t` (C0, DEL, C1), every
/// bidirectional formatting character and every invisible character that carries text (Tag
/// characters, zero-width space) written as a Rust escape (`\u{1b}`, `\r`, `\u{202e}`,
/// `\u{e0041}`).
pub fn safe(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if (c.is_control() && c != '\n' && c != '\t') || is_bidi_control(c) || invisible(c) {
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
        if c.is_control() || is_bidi_control(c) || invisible(c) {
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
        // Tag characters spelling "hi" and a zero-width space; a joiner inside an emoji stays.
        assert_eq!(
            safe("x\u{E0068}\u{E0069}\u{200B}y 👩\u{200D}💻"),
            "x\\u{e0068}\\u{e0069}\\u{200b}y 👩\u{200D}💻"
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
