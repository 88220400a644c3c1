//! The rules that read characters, not words: invisible and control characters, Tag
//! characters, bidirectional controls, variation-selector payloads, mixed scripts and
//! look-alike names, and encoded blobs.

use super::Level;
use super::text::{
    Script, allowed_mix, ascii_skeleton, decode_tags, has_rtl_letter, is_hidden_control,
    is_invisible, is_tag, is_variation_selector, script, scripts, selector_byte,
};
use super::walk::Kind;
use crate::quote::is_bidi_control;

/// What a character rule found in one text: the rule, its level, the byte offset of the
/// first place and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hit {
    pub(crate) rule: &'static str,
    pub(crate) level: Level,
    pub(crate) at: usize,
    pub(crate) message: String,
}

fn hit(rule: &'static str, level: Level, at: usize, message: String) -> Hit {
    Hit {
        rule,
        level,
        at,
        message,
    }
}

/// Every character rule over one text.
pub(crate) fn char_hits(text: &str, kind: Kind) -> Vec<Hit> {
    let mut out = Vec::new();
    if text.is_ascii() {
        if let Some(h) = controls(text, kind) {
            out.push(h);
        }
        return out;
    }
    out.extend(tags(text));
    out.extend(bidi(text, kind));
    out.extend(invisible(text, kind));
    out.extend(controls(text, kind));
    out.extend(selectors(text));
    out
}

/// `unicode-tag`: Tag characters, apart from the emoji tag sequences of subdivision flags
/// (U+1F3F4, two to six tag letters or digits, U+E007F CANCEL TAG).
fn tags(text: &str) -> Option<Hit> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    let mut hidden = Vec::new();
    let mut first = None;
    while i < chars.len() {
        let (at, c) = chars[i];
        if c == '\u{1f3f4}' {
            let run = chars[i + 1..]
                .iter()
                .take_while(|(_, c)| is_tag(*c))
                .count();
            let body = &chars[i + 1..i + 1 + run];
            let flag = (3..=7).contains(&run)
                && body.last().is_some_and(|(_, c)| *c == '\u{e007f}')
                && body[..run - 1]
                    .iter()
                    .all(|(_, c)| matches!(u32::from(*c), 0xe0030..=0xe0039 | 0xe0061..=0xe007a));
            if flag {
                i += 1 + run;
                continue;
            }
        }
        if is_tag(c) {
            first.get_or_insert(at);
            hidden.push(c);
        }
        i += 1;
    }
    let at = first?;
    Some(hit(
        "unicode-tag",
        Level::High,
        at,
        format!(
            "{} Unicode Tag characters, invisible to a reader, spell \"{}\"",
            hidden.len(),
            super::text::excerpt(&decode_tags(&hidden), 0)
        ),
    ))
}

/// `bidi-control`: bidirectional formatting characters. Marks and isolates beside
/// right-to-left letters are how such text is written (info); an override there, or any
/// control in text without right-to-left letters, reorders what a reader sees (high; a mark
/// alone: warning). In a name, always high.
fn bidi(text: &str, kind: Kind) -> Option<Hit> {
    let (at, c) = text.char_indices().find(|&(_, c)| is_bidi_control(c))?;
    let count = text.chars().filter(|&c| is_bidi_control(c)).count();
    let is_override = text.chars().any(|c| matches!(c, '\u{202d}' | '\u{202e}'));
    let only_marks = text
        .chars()
        .filter(|&c| is_bidi_control(c))
        .all(|c| matches!(c, '\u{200e}' | '\u{200f}' | '\u{061c}'));
    let level = if kind == Kind::Name {
        Level::High
    } else if has_rtl_letter(text) {
        if is_override {
            Level::Warning
        } else {
            Level::Info
        }
    } else if only_marks {
        Level::Warning
    } else {
        Level::High
    };
    Some(hit(
        "bidi-control",
        level,
        at,
        format!(
            "{count} bidirectional control character(s), first U+{:04X}: the text can display in another order than the model reads it",
            u32::from(c)
        ),
    ))
}

/// Whether the zero-width (non-)joiner at `i` joins what it is meant to: emoji in a ZWJ
/// sequence, or letters of a script that needs joiners (Arabic, the Indic scripts, …).
fn joiner_in_place(chars: &[(usize, char)], i: usize) -> bool {
    let c = chars[i].1;
    if !matches!(c, '\u{200c}' | '\u{200d}') {
        return false;
    }
    let prev = i.checked_sub(1).map(|p| chars[p].1);
    let next = chars.get(i + 1).map(|n| n.1);
    let emoji = |c: char| matches!(u32::from(c), 0x1f000..=0x1faff | 0x2600..=0x27bf | 0xfe0f);
    let joining = |c: char| matches!(script(c), Some(Script::Arabic | Script::Other));
    match (prev, next) {
        (Some(p), Some(n)) => (emoji(p) && emoji(n)) || joining(p) || joining(n),
        _ => false,
    }
}

/// `invisible-character`: zero-width and other invisible characters. High in a name or as
/// a run of eight or more (a hidden encoding); a byte order mark that only starts the text
/// is info; otherwise warning.
fn invisible(text: &str, kind: Kind) -> Option<Hit> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let found: Vec<usize> = (0..chars.len())
        .filter(|&i| is_invisible(chars[i].1) && !joiner_in_place(&chars, i))
        .collect();
    let &first = found.first()?;
    let (at, c) = chars[first];
    let mut longest = 0;
    let mut run = 0;
    let mut last = None;
    for &i in &found {
        run = if last == Some(i.wrapping_sub(1)) {
            run + 1
        } else {
            1
        };
        longest = longest.max(run);
        last = Some(i);
    }
    let level = if kind == Kind::Name || longest >= 8 {
        Level::High
    } else if found.len() == 1 && first == 0 && c == '\u{feff}' {
        Level::Info
    } else {
        Level::Warning
    };
    Some(hit(
        "invisible-character",
        level,
        at,
        format!(
            "{} invisible character(s), first U+{:04X}{}",
            found.len(),
            u32::from(c),
            if longest >= 8 {
                format!(", a run of {longest} (enough to encode hidden text)")
            } else {
                String::new()
            }
        ),
    ))
}

/// `invisible-character` for control characters (ESC starts ANSI sequences that rewrite a
/// terminal): always high.
fn controls(text: &str, _kind: Kind) -> Option<Hit> {
    let (at, c) = text.char_indices().find(|&(_, c)| is_hidden_control(c))?;
    let count = text.chars().filter(|&c| is_hidden_control(c)).count();
    Some(hit(
        "invisible-character",
        Level::High,
        at,
        format!(
            "{count} control character(s), first U+{:04X}{}",
            u32::from(c),
            if c == '\u{1b}' {
                " (ESC: an ANSI escape sequence can hide or rewrite text on a terminal)"
            } else {
                ""
            }
        ),
    ))
}

/// `variation-selector-payload`: a run of variation selectors after one character encodes
/// bytes (two: warning, three or more: high); one selector from the supplement
/// (U+E0100–U+E01EF) after a character that is not a Han ideograph: warning. One of
/// VS1–VS16 after a character is ordinary (emoji and text presentation, CJK variants).
fn selectors(text: &str) -> Option<Hit> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut best: Option<Hit> = None;
    let mut i = 0;
    while i < chars.len() {
        if !is_variation_selector(chars[i].1) {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && is_variation_selector(chars[i].1) {
            i += 1;
        }
        let run = i - start;
        let base = start.checked_sub(1).map(|b| chars[b].1);
        let supplement = u32::from(chars[start].1) >= 0xe0100;
        let level = if run >= 3 {
            Level::High
        } else if run == 2 || (supplement && base.and_then(script) != Some(Script::Han)) {
            Level::Warning
        } else {
            continue;
        };
        if best.as_ref().is_none_or(|b| level > b.level) {
            let bytes: Vec<u8> = chars[start..i]
                .iter()
                .filter_map(|&(_, c)| selector_byte(c))
                .collect();
            best = Some(hit(
                "variation-selector-payload",
                level,
                chars[start].0,
                format!(
                    "{run} variation selector(s) after one character encode {} byte(s): {}",
                    bytes.len(),
                    super::text::excerpt(&String::from_utf8_lossy(&bytes), 0)
                ),
            ));
        }
    }
    best
}

/// The rules over names: `homoglyph-name` (every non-ASCII letter passes for an ASCII one:
/// high) and `mixed-script` (letters of scripts that UTS #39 does not allow together:
/// warning). `known` maps a look-alike's ASCII form to whose name it copies.
pub(crate) fn name_hits(name: &str, known: &dyn Fn(&str) -> Option<String>) -> Vec<Hit> {
    let mut out = Vec::new();
    if name.is_ascii() {
        return out;
    }
    let first_non_ascii = name
        .char_indices()
        .find(|(_, c)| !c.is_ascii())
        .map_or(0, |(i, _)| i);
    if let Some(skeleton) = ascii_skeleton(name) {
        let copies = known(&skeleton)
            .map(|whose| format!(", the name of {whose}"))
            .unwrap_or_default();
        out.push(hit(
            "homoglyph-name",
            Level::High,
            first_non_ascii,
            format!(
                "the name is spelt with look-alike letters and reads as {}{copies}",
                super::text::excerpt(&skeleton, 0)
            ),
        ));
        return out;
    }
    let found = scripts(name);
    if !allowed_mix(&found) {
        let names: Vec<&str> = found.iter().map(|s| s.name()).collect();
        out.push(hit(
            "mixed-script",
            Level::Warning,
            first_non_ascii,
            format!("the name mixes scripts: {}", names.join(", ")),
        ));
    }
    out
}

/// `mixed-script` in prose: a word spelt with Latin letters and look-alikes from another
/// script ("pаssword" with a Cyrillic а), which slips past readers and word filters.
pub(crate) fn prose_mixed_words(text: &str) -> Option<Hit> {
    if text.is_ascii() {
        return None;
    }
    let mut start = None;
    let check = |s: usize, e: usize| -> Option<Hit> {
        let word = &text[s..e];
        let found = scripts(word);
        (found.contains(&Script::Latin) && found.len() > 1 && ascii_skeleton(word).is_some())
            .then(|| {
                hit(
                    "mixed-script",
                    Level::Warning,
                    s,
                    format!(
                        "a word mixes Latin with look-alike letters of another script and reads as {}",
                        ascii_skeleton(word).unwrap_or_default()
                    ),
                )
            })
    };
    for (i, c) in text.char_indices() {
        if c.is_alphabetic() {
            start.get_or_insert(i);
        } else if let Some(s) = start.take()
            && let Some(h) = check(s, i)
        {
            return Some(h);
        }
    }
    start.and_then(|s| check(s, text.len()))
}

/// `encoded-payload`: a long base64 or hex token in prose. One that decodes to readable
/// text is a warning (the decoded text in the message); a base64 blob of 256 or more
/// characters that decodes to binary is info.
pub(crate) fn encoded(text: &str) -> Option<(Hit, String)> {
    for token in text.split(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '"' | '\''
                    | '`'
                    | '('
                    | ')'
                    | '['
                    | ']'
                    | '{'
                    | '}'
                    | '<'
                    | '>'
                    | ','
                    | ':'
                    | ';'
                    | '='
            )
    }) {
        // Where the token starts in `text` (a sub-slice of it).
        let at = token.as_ptr() as usize - text.as_ptr() as usize;
        let token = token.trim_end_matches('.');
        if token.len() < 40 {
            continue;
        }
        let decoded = if token.len() >= 64
            && token.len() % 2 == 0
            && token.bytes().all(|b| b.is_ascii_hexdigit())
        {
            hex(token).map(|d| (d, "hex"))
        } else {
            base64(token).map(|d| (d, "base64"))
        };
        let Some((bytes, how)) = decoded else {
            continue;
        };
        let printable = bytes
            .iter()
            .filter(|&&b| (0x20..0x7f).contains(&b) || matches!(b, b'\n' | b'\r' | b'\t'))
            .count();
        if bytes.len() >= 24 && printable * 10 >= bytes.len() * 9 {
            let decoded = String::from_utf8_lossy(&bytes).into_owned();
            return Some((
                hit(
                    "encoded-payload",
                    Level::Warning,
                    at,
                    format!(
                        "a {}-character {how} token decodes to text: {}",
                        token.len(),
                        super::text::excerpt(&decoded, 0)
                    ),
                ),
                decoded,
            ));
        }
        let mixed = token.bytes().any(|b| b.is_ascii_uppercase())
            && token.bytes().any(|b| b.is_ascii_lowercase())
            && token.bytes().any(|b| b.is_ascii_digit());
        if how == "base64" && token.len() >= 256 && mixed {
            return Some((
                hit(
                    "encoded-payload",
                    Level::Info,
                    at,
                    format!(
                        "a {}-character base64 blob ({} bytes of binary data)",
                        token.len(),
                        bytes.len()
                    ),
                ),
                String::new(),
            ));
        }
    }
    None
}

fn hex(token: &str) -> Option<Vec<u8>> {
    (0..token.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(token.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Standard or URL-safe base64 (padding optional); `None` for anything else.
fn base64(token: &str) -> Option<Vec<u8>> {
    let body = token.trim_end_matches('=');
    if token.len() - body.len() > 2 {
        return None;
    }
    let standard = body
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/');
    let url = body
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !(standard || url) || body.len() % 4 == 1 {
        return None;
    }
    let value = |b: u8| -> u32 {
        match b {
            b'A'..=b'Z' => u32::from(b - b'A'),
            b'a'..=b'z' => u32::from(b - b'a') + 26,
            b'0'..=b'9' => u32::from(b - b'0') + 52,
            b'+' | b'-' => 62,
            _ => 63,
        }
    };
    let mut out = Vec::with_capacity(body.len() * 3 / 4);
    for chunk in body.as_bytes().chunks(4) {
        let n = chunk.iter().fold(0u32, |acc, &b| (acc << 6) | value(b)) << (6 * (4 - chunk.len()));
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_and_hex_decode() {
        assert_eq!(
            base64("aGVsbG8gd29ybGQ=").as_deref(),
            Some(&b"hello world"[..])
        );
        assert_eq!(base64("aGVsbG8"), Some(b"hello".to_vec()));
        assert_eq!(hex("6869").as_deref(), Some(&b"hi"[..]));
    }

    #[test]
    fn flags_are_not_smuggling() {
        let wales = "\u{1f3f4}\u{e0067}\u{e0062}\u{e0077}\u{e006c}\u{e0073}\u{e007f}";
        assert_eq!(tags(&format!("Cymru {wales}")), None);
        assert_eq!(tags("hi\u{e0068}\u{e0069}").map(|h| h.at), Some(2));
    }

    #[test]
    fn joiners_in_emoji_and_persian_are_in_place() {
        assert_eq!(
            invisible("family 👨\u{200d}👩\u{200d}👧", Kind::Prose),
            None
        );
        assert_eq!(invisible("می\u{200c}خواهم", Kind::Prose), None);
        assert_eq!(
            invisible("pass\u{200b}word", Kind::Prose).map(|h| (h.level, h.at)),
            Some((Level::Warning, 4))
        );
    }
}
