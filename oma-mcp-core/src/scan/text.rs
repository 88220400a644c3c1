//! Characters: which ones a reader cannot see, how an excerpt shows them, which script a
//! letter belongs to, and which letters pass for ASCII ones.

use crate::quote::is_bidi_control;

/// The most characters of an excerpt, escapes and decoded payloads included.
pub(crate) const EXCERPT_CHARS: usize = 160;
/// How many characters before the place of a finding an excerpt starts.
const LEAD_CHARS: usize = 40;

/// A Unicode Tag character (U+E0000–U+E007F), which renders as nothing; U+E0020–U+E007E
/// mirror printable ASCII.
pub(crate) fn is_tag(c: char) -> bool {
    ('\u{e0000}'..='\u{e007f}').contains(&c)
}

/// A variation selector: VS1–VS16 (U+FE00–U+FE0F) or VS17–VS256 (U+E0100–U+E01EF).
pub(crate) fn is_variation_selector(c: char) -> bool {
    ('\u{fe00}'..='\u{fe0f}').contains(&c) || ('\u{e0100}'..='\u{e01ef}').contains(&c)
}

/// The byte a variation selector stands for in the "emoji smuggling" encoding: VS1–VS16 are
/// 0–15, VS17–VS256 are 16–255.
pub(crate) fn selector_byte(c: char) -> Option<u8> {
    let c = u32::from(c);
    let byte = match c {
        0xfe00..=0xfe0f => c - 0xfe00,
        0xe0100..=0xe01ef => c - 0xe0100 + 16,
        _ => return None,
    };
    u8::try_from(byte).ok()
}

/// A character that takes no room and shows nothing (zero-width characters, joiners, the
/// byte order mark, soft hyphen, Hangul fillers, invisible operators, deprecated format
/// characters, interlinear annotation marks), apart from the bidirectional controls,
/// variation selectors and Tag characters, which have rules of their own.
pub(crate) fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00ad}' | '\u{034f}' | '\u{115f}' | '\u{1160}' | '\u{17b4}' | '\u{17b5}'
        | '\u{180e}' | '\u{200b}'..='\u{200d}' | '\u{2060}'..='\u{2065}'
        | '\u{206a}'..='\u{206f}' | '\u{3164}' | '\u{feff}' | '\u{ffa0}'
        | '\u{fff9}'..='\u{fffb}' | '\u{1bca0}'..='\u{1bca3}' | '\u{1d173}'..='\u{1d17a}')
}

/// A control character other than tab, line feed and carriage return (C0, DEL, C1): ESC
/// starts the ANSI sequences that rewrite a terminal.
pub(crate) fn is_hidden_control(c: char) -> bool {
    c.is_control() && !matches!(c, '\t' | '\n' | '\r')
}

/// Whether an excerpt writes `c` as `\u{…}`.
fn needs_escape(c: char) -> bool {
    is_invisible(c)
        || is_bidi_control(c)
        || is_hidden_control(c)
        || is_variation_selector(c)
        || is_tag(c)
        || matches!(c, '\u{2028}' | '\u{2029}')
}

/// `s` as a finding quotes it: `\` as `\\`, line breaks and tabs as `\n`, `\r`, `\t`, every
/// invisible, bidirectional, control or variation-selector character as `\u{200B}`, a run of
/// Tag characters decoded as `⟦tags: "say hi"⟧`, a run of two or more variation selectors
/// decoded as `⟦variation selectors: 5 bytes "hello"⟧`; cut to [`EXCERPT_CHARS`] characters
/// around byte offset `at` (40 characters before it), with `…` where something was cut.
pub(crate) fn excerpt(s: &str, at: usize) -> String {
    let at = floor_char_boundary(s, at.min(s.len()));
    // Start up to LEAD_CHARS characters before `at`, never inside a run of Tag characters or
    // selectors (the run is decoded as a whole).
    let mut start = at;
    for (i, _) in s[..at].char_indices().rev().take(LEAD_CHARS) {
        start = i;
    }
    while let Some(c) = s[..start].chars().next_back() {
        if is_tag(c) || is_variation_selector(c) {
            start -= c.len_utf8();
        } else {
            break;
        }
    }
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    let mut chars = s[start..].chars().peekable();
    let mut count = 0usize;
    while let Some(c) = chars.next() {
        if count >= EXCERPT_CHARS {
            out.push('…');
            return out;
        }
        let piece = if is_tag(c) {
            let mut run = vec![c];
            while let Some(&n) = chars.peek().filter(|&&n| is_tag(n)) {
                run.push(n);
                chars.next();
            }
            let budget = EXCERPT_CHARS.saturating_sub(count + 10);
            format!("⟦tags: {}⟧", quote_decoded(&decode_tags(&run), budget))
        } else if is_variation_selector(c)
            && chars.peek().is_some_and(|&n| is_variation_selector(n))
        {
            let mut bytes: Vec<u8> = selector_byte(c).into_iter().collect();
            while let Some(&n) = chars.peek().filter(|&&n| is_variation_selector(n)) {
                bytes.extend(selector_byte(n));
                chars.next();
            }
            let prefix = format!("⟦variation selectors: {} bytes ", bytes.len());
            let budget = EXCERPT_CHARS.saturating_sub(count + prefix.chars().count() + 3);
            let decoded = quote_decoded(&String::from_utf8_lossy(&bytes), budget);
            format!("{prefix}{decoded}⟧")
        } else {
            escape_char(c)
        };
        count += piece.chars().count();
        out.push_str(&piece);
    }
    out
}

/// One character as an excerpt writes it.
fn escape_char(c: char) -> String {
    match c {
        '\\' => "\\\\".into(),
        '\n' => "\\n".into(),
        '\r' => "\\r".into(),
        '\t' => "\\t".into(),
        c if needs_escape(c) => format!("\\u{{{:04X}}}", u32::from(c)),
        c => c.to_string(),
    }
}

/// Decoded hidden text in double quotes, its own invisible characters escaped (a Tag payload
/// can hold nothing visible; a selector payload can decode to anything), at most `budget`
/// characters of it, `…` where it was cut.
fn quote_decoded(s: &str, budget: usize) -> String {
    let mut out = String::from("\"");
    let mut used = 0;
    for c in s.chars() {
        let piece = match c {
            '"' => "\\\"".to_owned(),
            c => escape_char(c),
        };
        used += piece.chars().count();
        if used > budget {
            out.push('…');
            break;
        }
        out.push_str(&piece);
    }
    out.push('"');
    out
}

/// Tag characters as the ASCII they mirror (U+E0020–U+E007E); others as `\u{E00xx}`
/// escapes (U+E0001 LANGUAGE TAG, U+E007F CANCEL TAG, unassigned ones).
pub(crate) fn decode_tags(run: &[char]) -> String {
    run.iter()
        .map(|&c| {
            let ascii = u32::from(c) - 0xe0000;
            match char::from_u32(ascii) {
                Some(a) if (0x20..0x7f).contains(&ascii) => a.to_string(),
                _ => format!("\\u{{{:04X}}}", u32::from(c)),
            }
        })
        .collect()
}

/// The largest char boundary at or below `i`.
pub(crate) fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The writing systems the mixed-script check tells apart (UTS #39 §5.1 counts scripts;
/// these are the ones with letters that pass for Latin, and the ones whose mixes UTS #39
/// allows).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Script {
    Latin,
    Greek,
    Cyrillic,
    Armenian,
    Hebrew,
    Arabic,
    Cherokee,
    Han,
    Hiragana,
    Katakana,
    Bopomofo,
    Hangul,
    /// Any other script's letter.
    Other,
}

impl Script {
    /// Its English name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Script::Latin => "Latin",
            Script::Greek => "Greek",
            Script::Cyrillic => "Cyrillic",
            Script::Armenian => "Armenian",
            Script::Hebrew => "Hebrew",
            Script::Arabic => "Arabic",
            Script::Cherokee => "Cherokee",
            Script::Han => "Han",
            Script::Hiragana => "Hiragana",
            Script::Katakana => "Katakana",
            Script::Bopomofo => "Bopomofo",
            Script::Hangul => "Hangul",
            Script::Other => "another script",
        }
    }
}

/// The script of a letter; `None` for what belongs to every script (digits, punctuation,
/// symbols, combining marks, the prolonged sound mark).
pub(crate) fn script(c: char) -> Option<Script> {
    if !c.is_alphabetic() {
        return None;
    }
    if matches!(u32::from(c), 0x30fc | 0x309d | 0x309e) {
        // The prolonged sound mark and iteration marks are shared by kana.
        return None;
    }
    let s = match u32::from(c) {
        0x41..=0x5a
        | 0x61..=0x7a
        | 0xaa
        | 0xba
        | 0xc0..=0x24f
        | 0x250..=0x2af
        | 0x1d00..=0x1d7f
        | 0x1e00..=0x1eff
        | 0x2c60..=0x2c7f
        | 0xa720..=0xa7ff
        | 0xff21..=0xff3a
        | 0xff41..=0xff5a
        | 0x1d400..=0x1d7ff => Script::Latin,
        0x370..=0x3ff | 0x1f00..=0x1fff => Script::Greek,
        0x400..=0x52f | 0x1c80..=0x1c8f | 0x2de0..=0x2dff | 0xa640..=0xa69f => Script::Cyrillic,
        0x530..=0x58f | 0xfb13..=0xfb17 => Script::Armenian,
        0x590..=0x5ff | 0xfb1d..=0xfb4f => Script::Hebrew,
        0x600..=0x6ff | 0x750..=0x77f | 0x8a0..=0x8ff | 0xfb50..=0xfdff | 0xfe70..=0xfeff => {
            Script::Arabic
        }
        0x13a0..=0x13ff | 0xab70..=0xabbf => Script::Cherokee,
        0x2e80..=0x2fdf
        | 0x3005
        | 0x3007
        | 0x3021..=0x3029
        | 0x3038..=0x303b
        | 0x3400..=0x4dbf
        | 0x4e00..=0x9fff
        | 0xf900..=0xfaff
        | 0x20000..=0x3134f => Script::Han,
        0x3041..=0x309f => Script::Hiragana,
        0x30a0..=0x30ff | 0x31f0..=0x31ff | 0xff66..=0xff9f => Script::Katakana,
        0x3100..=0x312f | 0x31a0..=0x31bf => Script::Bopomofo,
        0x1100..=0x11ff | 0x3130..=0x318f | 0xa960..=0xa97f | 0xac00..=0xd7ff => Script::Hangul,
        _ => Script::Other,
    };
    Some(s)
}

/// Whether a set of scripts is one that UTS #39's "Highly Restrictive" level allows in one
/// identifier: a single script, or Latin with Han, Hiragana and Katakana (Japanese), with
/// Han and Bopomofo (Chinese), or with Han and Hangul (Korean).
pub(crate) fn allowed_mix(scripts: &[Script]) -> bool {
    use Script::*;
    if scripts.len() <= 1 {
        return true;
    }
    let within = |allowed: &[Script]| scripts.iter().all(|s| allowed.contains(s));
    within(&[Latin, Han, Hiragana, Katakana])
        || within(&[Latin, Han, Bopomofo])
        || within(&[Latin, Han, Hangul])
}

/// The distinct scripts of the letters of `s`, sorted.
pub(crate) fn scripts(s: &str) -> Vec<Script> {
    let mut out: Vec<Script> = s.chars().filter_map(script).collect();
    out.sort();
    out.dedup();
    out
}

/// Whether `s` holds a letter of a script written right to left (Hebrew, Arabic, Syriac,
/// Thaana, N'Ko), where the bidirectional marks have a job to do.
pub(crate) fn has_rtl_letter(s: &str) -> bool {
    s.chars().any(|c| {
        c.is_alphabetic()
            && matches!(u32::from(c), 0x590..=0x8ff | 0xfb1d..=0xfdff | 0xfe70..=0xfeff)
    })
}

/// The ASCII letter a non-ASCII character passes for (a small part of the confusables of
/// UTS #39 §4: the Cyrillic, Greek and Armenian look-alikes of Latin letters, dotless i,
/// fullwidth forms and the mathematical alphanumeric symbols); `None` for any other
/// character.
pub(crate) fn ascii_lookalike(c: char) -> Option<char> {
    let code = u32::from(c);
    if (0xff01..=0xff5e).contains(&code) {
        return char::from_u32(code - 0xfee0);
    }
    if (0x1d400..=0x1d6a3).contains(&code) {
        let i = (code - 0x1d400) % 52;
        return char::from_u32(if i < 26 { 0x41 + i } else { 0x61 + i - 26 });
    }
    let a = match c {
        'а' => 'a',
        'е' => 'e',
        'о' => 'o',
        'р' => 'p',
        'с' => 'c',
        'у' => 'y',
        'х' => 'x',
        'і' => 'i',
        'ј' => 'j',
        'ѕ' => 's',
        'һ' => 'h',
        'ԁ' => 'd',
        'ԛ' => 'q',
        'ԝ' => 'w',
        'ɡ' => 'g',
        'ı' => 'i',
        'А' => 'A',
        'В' => 'B',
        'Е' => 'E',
        'К' => 'K',
        'М' => 'M',
        'Н' => 'H',
        'О' => 'O',
        'Р' => 'P',
        'С' => 'C',
        'Т' => 'T',
        'Х' => 'X',
        'І' => 'I',
        'Ј' => 'J',
        'Ѕ' => 'S',
        'Ү' => 'Y',
        'ο' => 'o',
        'α' => 'a',
        'ν' => 'v',
        'ρ' => 'p',
        'ι' => 'i',
        'κ' => 'k',
        'υ' => 'u',
        'Α' => 'A',
        'Β' => 'B',
        'Ε' => 'E',
        'Ζ' => 'Z',
        'Η' => 'H',
        'Ι' => 'I',
        'Κ' => 'K',
        'Μ' => 'M',
        'Ν' => 'N',
        'Ο' => 'O',
        'Ρ' => 'P',
        'Τ' => 'T',
        'Υ' => 'Y',
        'Χ' => 'X',
        'օ' => 'o',
        'ս' => 'u',
        'ց' => 'g',
        'հ' => 'h',
        'ո' => 'n',
        _ => return None,
    };
    Some(a)
}

/// `s` with every look-alike replaced by the ASCII letter it passes for, when that leaves
/// only ASCII and something was replaced; `None` otherwise (a name in a real non-Latin
/// script keeps letters that look like nothing in ASCII).
pub(crate) fn ascii_skeleton(s: &str) -> Option<String> {
    let mut replaced = false;
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_ascii() {
            out.push(c);
        } else if let Some(a) = ascii_lookalike(c) {
            replaced = true;
            out.push(a);
        } else {
            return None;
        }
    }
    replaced.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_show_what_cannot_be_seen() {
        let tags: String = "say hi"
            .chars()
            .filter_map(|c| char::from_u32(0xe0000 + u32::from(c)))
            .collect();
        assert_eq!(
            excerpt(&format!("Adds{tags} two\u{200b} numbers\\n"), 0),
            "Adds⟦tags: \"say hi\"⟧ two\\u{200B} numbers\\\\n"
        );
        let payload: String = "hi"
            .bytes()
            .filter_map(|b| {
                char::from_u32(if b < 16 {
                    0xfe00 + u32::from(b)
                } else {
                    0xe0100 + u32::from(b) - 16
                })
            })
            .collect();
        assert_eq!(
            excerpt(&format!("😀{payload}!"), 0),
            "😀⟦variation selectors: 2 bytes \"hi\"⟧!"
        );
        assert_eq!(excerpt("a\u{1b}[2Jb\u{202e}", 0), "a\\u{001B}[2Jb\\u{202E}");
    }

    #[test]
    fn excerpts_are_cut_around_the_finding() {
        let s = format!("{}X{}", "a".repeat(100), "b".repeat(300));
        let e = excerpt(&s, 100);
        assert_eq!(e, format!("…{}X{}…", "a".repeat(40), "b".repeat(119)));
        assert_eq!(e.chars().count(), EXCERPT_CHARS + 2);
    }

    #[test]
    fn scripts_and_lookalikes() {
        assert_eq!(scripts("pаypal"), vec![Script::Latin, Script::Cyrillic]);
        assert!(allowed_mix(&scripts("取得_user_データ")));
        assert!(!allowed_mix(&scripts("pаypal")));
        assert_eq!(ascii_skeleton("sеnd_email").as_deref(), Some("send_email"));
        assert_eq!(ascii_skeleton("ｓｅｎｄ").as_deref(), Some("send"));
        assert_eq!(ascii_skeleton("поиск"), None);
        assert_eq!(ascii_skeleton("send"), None);
    }
}
