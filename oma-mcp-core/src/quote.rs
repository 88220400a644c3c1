//! Quoting untrusted, server-provided text: cutting a value for a message, naming a JSON
//! value's kind in a message, and the set of Unicode bidirectional formatting characters that
//! must not reach a terminal or a doc comment as they are.
//!
//! Used by `oma-mcp-build` (the code generator) and `oma-mcp-cli` so that every part of oma-mcp
//! cuts and escapes the same way; not meant for other crates (the runtime's re-export is hidden
//! from its docs, and these helpers are free to change between versions).

/// The most characters of a server-provided value an error message quotes ([`excerpt`]).
pub const EXCERPT_CHARS: usize = 200;

/// `s` cut to at most `max` characters (Unicode scalar values, not bytes), with `…` appended
/// when something was cut.
///
/// ```
/// use oma_mcp_core::quote::cut;
/// assert_eq!(cut("héllo", 2), "hé…");
/// assert_eq!(cut("héllo", 5), "héllo");
/// ```
pub fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

/// A server-provided value as an error message quotes it: its text cut to
/// [`EXCERPT_CHARS`] characters ([`cut`]), so a message stays readable whatever the server
/// sent (a megabyte-long name, a whole document as a version).
pub fn excerpt(value: &impl std::fmt::Display) -> String {
    cut(&value.to_string(), EXCERPT_CHARS)
}

/// A name (a tool's, a file's) as a message quotes it: in double quotes, JSON-escaped (a
/// control character as `\n` or `\u001b`), a bidirectional formatting character
/// ([`is_bidi_control`]) as `\u202e`, cut to [`EXCERPT_CHARS`] characters ([`cut`]), so a
/// hostile name can neither rewrite a terminal line nor flood a log.
///
/// ```
/// use oma_mcp_core::quote::quoted;
/// assert_eq!(quoted("echo"), "\"echo\"");
/// assert_eq!(quoted("a\u{1b}[2Jb\u{202e}"), "\"a\\u001b[2Jb\\u202e\"");
/// ```
pub fn quoted(s: &str) -> String {
    let json = serde_json::Value::from(cut(s, EXCERPT_CHARS)).to_string();
    if !json.chars().any(is_bidi_control) {
        return json;
    }
    json.chars()
        .map(|c| {
            if is_bidi_control(c) {
                format!("\\u{:04x}", u32::from(c))
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// The kind of a JSON value as a message names it: `null`, `a boolean`, `a number`,
/// `a string`, `an array` or `an object` (`expected a schema, found a string`).
///
/// ```
/// use oma_mcp_core::quote::json_kind;
/// assert_eq!(json_kind(&serde_json::json!([1])), "an array");
/// ```
pub fn json_kind(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Whether `c` is a Unicode bidirectional formatting character (U+061C, U+200E, U+200F,
/// U+202A–U+202E, U+2066–U+2069: the set of rustc's `text_direction_codepoint_in_literal`
/// lint), which can make text display in an order other than the one it is read in.
///
/// ```
/// use oma_mcp_core::quote::is_bidi_control;
/// assert!(is_bidi_control('\u{202e}'));
/// assert!(!is_bidi_control('a'));
/// ```
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_counts_characters_not_bytes() {
        assert_eq!(cut("", 0), "");
        assert_eq!(cut("ab", 0), "…");
        assert_eq!(cut("ééé", 2), "éé…");
        assert_eq!(cut("ééé", 3), "ééé");
    }

    #[test]
    fn excerpt_keeps_200_characters() {
        let long = "x".repeat(EXCERPT_CHARS + 1);
        assert_eq!(excerpt(&long), format!("{}…", "x".repeat(EXCERPT_CHARS)));
        assert_eq!(excerpt(&serde_json::json!({"a": 1})), r#"{"a":1}"#);
    }

    #[test]
    fn the_bidi_set_is_exactly_rustcs() {
        let set: Vec<char> = (0..=0x10ffff_u32)
            .filter_map(char::from_u32)
            .filter(|&c| is_bidi_control(c))
            .collect();
        assert_eq!(
            set,
            [
                '\u{061c}', '\u{200e}', '\u{200f}', '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}',
                '\u{202e}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}'
            ]
        );
    }
}
