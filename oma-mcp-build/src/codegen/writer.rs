//! The one writer of generated code: indentation, blank lines between items, doc comments,
//! attributes and string literals, and the layout they follow.
//!
//! # Layout
//!
//! The writer's layout follows simple rules that depend only on the structure of the code, so
//! the same input always gives the same bytes. With the cargo feature `format` (on by
//! default) the `format` module then lays the code out anew with prettyplease, which breaks
//! long signatures, types, attributes and calls at about 100 columns as rustfmt would;
//! without it, the writer's layout is the file's.
//!
//! - **Indentation**: 4 spaces per level. A block opens with ` {` at the end of its line
//!   ([`Writer::open`]) and closes with `}` on a line of its own at the opener's indentation
//!   ([`Writer::close`]).
//! - **Blank lines**: one between items, at the top level and in a block of items (the
//!   `drift_items! { … }` block); none at the start or end of a block, none between the
//!   entries of a block (fields, variants, associated items, statements, match arms, the
//!   fields of a struct literal), which stand one a line.
//! - **Attributes**: one a line, before their item, each on a single line however long its
//!   list (`#[derive(..)]`, `#[allow(..)]`, `#[serde(..)]`).
//! - **Code lines are not wrapped** by the writer: a signature, a type, an attribute, a call,
//!   an array or tuple stays on one line (the formatter breaks them). The only expressions
//!   that span lines are blocks (a `match`, a struct literal) and the builder chain of
//!   `connect_config()`, one `.with_*` call a line, one level deeper than its start.
//! - **Doc comments**: one `///` line per doc line, its text with trailing spaces removed,
//!   prose wrapped at [`WIDTH`] columns ([`Writer::doc`], [`wrap`]; the lines of a code block
//!   or a table are kept whole); a line that a `///` comment cannot hold as text (a line
//!   break, a carriage return, a bidirectional control character, or a leading `/`, which
//!   would make it a plain comment) is written as the attribute `#[doc = "…"]` instead, which
//!   means the same. The text itself is made safe for rustdoc by the `docs` module.
//! - **String literals**: `"…"`, escaped as `proc_macro2::Literal::string` writes them
//!   ([`Lit`]): `char::escape_debug` for every character but `'` (kept as is), NUL as `\0`,
//!   or `\x00` when an octal digit follows. A text of several lines (a description) is a raw
//!   literal that keeps its lines when a raw literal can hold it ([`Text`]), and a JSON text
//!   (the snapshot, a schema, laid out on lines) always is one ([`Json`]), so a one-word
//!   change of a schema is a one-line diff.
//! - **Identifiers** are written as the `identifiers` module made them: plain ASCII identifiers,
//!   keywords as raw identifiers (`r#type`); the emitter checks each one before writing it.
//! - **Paths**: everything outside the generated module is named by an absolute path
//!   (`::core::…`, `::std::…`, `::oma_mcp_runtime::…`), so a tool called `option` or
//!   `string` cannot shadow what the code uses; a function body may bring one in with a
//!   `use` of an absolute path (`use ::oma_mcp_runtime::__private::serde;`), which no item of
//!   the module can shadow there.

use std::fmt::{self, Display, Write as _};

use oma_mcp_core::quote::is_bidi_control;

/// Spaces per indentation level.
const INDENT: &str = "    ";

/// The column a doc comment line is wrapped before (its indentation and `///` included).
pub(crate) const WIDTH: usize = 100;

/// The doc text `doc` (one line, which starts with a space) as lines of at most `width`
/// characters, broken at spaces, each continuation line starting with the first line's
/// indentation (and, for a list item, the item's content indentation), so that it continues
/// the same paragraph or list item. A line breaks only before a word that starts with a
/// letter, an opening parenthesis or a quote: a continuation that starts with `#`, `-`, `*`,
/// `+`, `>`, `=`, `|`, a digit or a fence could start another Markdown block. A word longer
/// than the width stays whole on its line.
pub(crate) fn wrap(doc: &str, width: usize) -> Vec<String> {
    if doc.chars().count() <= width {
        return vec![doc.to_owned()];
    }
    let body = doc.trim_start();
    let lead = doc.len() - body.len();
    let marker = list_marker(body);
    let pad = " ".repeat(lead + marker);
    let mut lines = Vec::new();
    let mut rest = doc;
    let mut prefix = String::new();
    loop {
        let room = width.saturating_sub(prefix.len());
        if rest.chars().count() <= room {
            lines.push(format!("{prefix}{rest}"));
            return lines;
        }
        // The last safe space within `room`, after the line's leading spaces and marker.
        let start = if prefix.is_empty() { lead + marker } else { 0 };
        let limit = rest.char_indices().nth(room).map_or(rest.len(), |(i, _)| i);
        let safe = |i: usize| {
            rest[i + 1..]
                .chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || matches!(c, '(' | '"' | '\''))
        };
        // A space right after a full line is a place to break too.
        let cut = rest
            .char_indices()
            .take_while(|&(i, _)| i <= limit)
            .filter(|&(i, c)| c == ' ' && i > start && safe(i))
            .map(|(i, _)| i)
            .last()
            .or_else(|| {
                // No safe space within the room: the first one after it (a long word).
                rest.char_indices()
                    .filter(|&(i, c)| c == ' ' && i > start.max(limit) && safe(i))
                    .map(|(i, _)| i)
                    .next()
            });
        let Some(cut) = cut else {
            lines.push(format!("{prefix}{rest}"));
            return lines;
        };
        lines.push(format!("{prefix}{}", rest[..cut].trim_end()));
        rest = rest[cut..].trim_start();
        prefix.clone_from(&pad);
    }
}

/// The width of a list item's marker and the space after it (`- ` → 2, `10. ` → 4), 0 for
/// a line that is no list item.
fn list_marker(line: &str) -> usize {
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    let marker = if digits > 0 && line[digits..].starts_with(['.', ')']) {
        digits + 1
    } else if line.starts_with(['-', '*', '+']) {
        1
    } else {
        return 0;
    };
    if line[marker..].starts_with(' ') {
        marker + 1
    } else {
        0
    }
}

/// Generated code being written line by line at an indentation level ([`Writer::new`]; no
/// `Default`, which would start without `block_start`).
#[derive(Debug)]
pub(crate) struct Writer {
    out: String,
    depth: usize,
    /// Nothing was written since the current block opened (or the writer was made): the next
    /// item gets no blank line before it.
    block_start: bool,
    /// Where each top-level item starts in `out` (after the blank line before it).
    items: Vec<usize>,
}

impl Writer {
    /// An empty writer at the top level.
    pub(crate) fn new() -> Self {
        Self {
            out: String::with_capacity(4096),
            depth: 0,
            block_start: true,
            items: Vec::new(),
        }
    }

    /// The text written.
    #[cfg(test)]
    pub(crate) fn finish(self) -> String {
        self.out
    }

    /// The text written, and where each top-level item starts in it.
    pub(crate) fn finish_items(self) -> (String, Vec<usize>) {
        (self.out, self.items)
    }

    /// Starts an item: one blank line before it unless it is the first in its block.
    pub(crate) fn item(&mut self) {
        if !self.block_start {
            self.out.push('\n');
        }
        if self.depth == 0 {
            self.items.push(self.out.len());
        }
    }

    /// One line, `text` at the current indentation.
    pub(crate) fn line(&mut self, text: impl Display) {
        self.indent();
        // Writing into a `String` cannot fail.
        let _ = write!(self.out, "{text}");
        self.out.push('\n');
    }

    /// Opens a block: `head {` on one line, then one level deeper.
    pub(crate) fn open(&mut self, head: impl Display) {
        self.indent();
        let _ = write!(self.out, "{head} {{");
        self.out.push('\n');
        self.depth += 1;
        self.block_start = true;
    }

    /// Closes the innermost block: `}` and `tail` (`,`, `)`, `;` or nothing) one level up.
    pub(crate) fn close(&mut self, tail: &str) {
        self.depth = self.depth.saturating_sub(1);
        self.indent();
        self.out.push('}');
        self.out.push_str(tail);
        self.out.push('\n');
    }

    /// Runs `body` one level deeper (a builder chain's calls).
    pub(crate) fn deeper(&mut self, body: impl FnOnce(&mut Self)) {
        self.depth += 1;
        body(self);
        self.depth -= 1;
    }

    /// One attribute, `#[text]`, on its own line.
    pub(crate) fn attr(&mut self, text: impl Display) {
        let text = text.to_string();
        let width = INDENT.len() * self.depth + text.len() + "#[]".len();
        // A `derive` or `allow` list over the width: one entry a line, as prettyplease lays
        // it out (no comma after the last), so the item needs no formatting for it.
        let list = ["derive(", "allow("]
            .iter()
            .find_map(|head| Some((*head, text.strip_prefix(head)?.strip_suffix(')')?)));
        match list {
            Some((head, entries)) if width > WIDTH && !entries.contains(['(', '"']) => {
                self.indent();
                let _ = write!(self.out, "#[{head}");
                self.out.push('\n');
                let entries: Vec<&str> = entries.split(", ").collect();
                self.deeper(|w| {
                    for (i, entry) in entries.iter().enumerate() {
                        let comma = if i + 1 < entries.len() { "," } else { "" };
                        w.line(format_args!("{entry}{comma}"));
                    }
                });
                self.line(")]");
            }
            _ => {
                self.indent();
                let _ = write!(self.out, "#[{text}]");
                self.out.push('\n');
            }
        }
    }

    /// `#[allow(lints)]`, nothing when `lints` is empty.
    pub(crate) fn allow(&mut self, lints: &[&str]) {
        if !lints.is_empty() {
            self.attr(format_args!("allow({})", lints.join(", ")));
        }
    }

    /// One doc comment line for the doc text `doc` (what `#[doc = doc]` holds): `///` and the
    /// text without trailing spaces, wrapped at [`WIDTH`] columns ([`wrap`]), or
    /// `#[doc = "…"]` for a text a `///` comment cannot hold (see the module docs).
    pub(crate) fn doc(&mut self, doc: &str) {
        self.doc_line(doc, true);
    }

    /// [`Writer::doc`], wrapped when `wrap` says so.
    fn doc_line(&mut self, doc: &str, wrap: bool) {
        let doc = doc.trim_end_matches(' ');
        let unsafe_char = |c: char| matches!(c, '\n' | '\r') || is_bidi_control(c);
        if doc.starts_with('/') || doc.contains(unsafe_char) {
            self.attr(format_args!("doc = {}", Lit(doc)));
            return;
        }
        let width = WIDTH.saturating_sub(INDENT.len() * self.depth + "///".len());
        let lines = if wrap {
            self::wrap(doc, width)
        } else {
            vec![doc.to_owned()]
        };
        for line in lines {
            self.indent();
            self.out.push_str("///");
            self.out.push_str(&line);
            self.out.push('\n');
        }
    }

    /// Doc comment lines ([`Writer::doc`]); the lines of a code block (between two fences)
    /// and of a table are kept whole.
    pub(crate) fn docs<S: AsRef<str>>(&mut self, docs: &[S]) {
        let mut fence = false;
        for doc in docs {
            let doc = doc.as_ref();
            let trimmed = doc.trim_start();
            let is_fence = trimmed.starts_with("```") || trimmed.starts_with("~~~");
            let wrap = !fence && !is_fence && !trimmed.starts_with('|');
            self.doc_line(doc, wrap);
            if is_fence {
                fence = !fence;
            }
        }
    }

    /// Starts a line: the indentation of the current level.
    fn indent(&mut self) {
        for _ in 0..self.depth {
            self.out.push_str(INDENT);
        }
        self.block_start = false;
    }
}

/// A string as a Rust string literal (see the module docs): `Lit("a\"b")` displays as
/// `"a\"b"`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Lit<'a>(pub(crate) &'a str);

impl Display for Lit<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let value = self.0;
        f.write_char('"')?;
        // Runs of characters that stand for themselves are written whole.
        let mut run = 0;
        for (i, c) in value.char_indices() {
            if matches!(c, ' '..='~') && c != '"' && c != '\\' {
                continue;
            }
            f.write_str(&value[run..i])?;
            run = i + c.len_utf8();
            match c {
                '\0' if value[run..].starts_with(|next| ('0'..='7').contains(&next)) => {
                    f.write_str("\\x00")?;
                }
                '\0' => f.write_str("\\0")?,
                _ => {
                    for escaped in c.escape_debug() {
                        f.write_char(escaped)?;
                    }
                }
            }
        }
        f.write_str(&value[run..])?;
        f.write_char('"')
    }
}

/// A text as a string literal that keeps its lines: a raw string literal (`r#"…"#`, with the
/// fewest `#` that the text allows) when the text spans lines and a raw literal can hold it
/// as it is, else [`Lit`]. A raw literal cannot hold a carriage return, and a bidirectional
/// control character in a literal is denied by rustc's `text_direction_codepoint_in_literal`
/// lint; other control characters (but tabs) are kept escaped so that they stay visible.
/// `Text("a\nb")` displays as `r"a` and `b"` on two lines.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Text<'a>(pub(crate) &'a str);

impl Text<'_> {
    /// Whether a raw literal shows `text` as it is.
    fn raw(text: &str) -> bool {
        text.contains('\n')
            && !text.contains(|c: char| {
                (c.is_control() && !matches!(c, '\n' | '\t')) || is_bidi_control(c)
            })
    }
}

impl Display for Text<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if Self::raw(self.0) {
            raw_literal(f, self.0)
        } else {
            Lit(self.0).fmt(f)
        }
    }
}

/// A JSON text (a schema, a snapshot) as a raw string literal that keeps its lines: the
/// characters [`Text`] keeps escaped are written as JSON escapes (`\u202e`), which stand for
/// the same JSON value, so every JSON text is one raw literal. JSON text holds such
/// characters only inside its strings, where the escape means the character.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Json<'a>(pub(crate) &'a str);

impl Display for Json<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let escape = |c: char| c.is_control() && c != '\n' || is_bidi_control(c);
        if !self.0.contains(escape) {
            return raw_literal(f, self.0);
        }
        let mut text = String::with_capacity(self.0.len() + 16);
        for c in self.0.chars() {
            if escape(c) {
                // Every such character is in the Basic Multilingual Plane: one `\uXXXX`.
                let _ = write!(text, "\\u{:04x}", u32::from(c));
            } else {
                text.push(c);
            }
        }
        raw_literal(f, &text)
    }
}

/// `r"…"`, `r#"…"#`, … around `text`, with the fewest `#` that no `"` in the text followed by
/// as many `#` can end.
fn raw_literal(f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
    let mut hashes = 0;
    let mut at = 0;
    while let Some(quote) = text[at..].find('"') {
        let start = at + quote + 1;
        let run = text[start..].bytes().take_while(|&b| b == b'#').count();
        hashes = hashes.max(run + 1);
        at = start;
    }
    let hashes = "#".repeat(hashes);
    write!(f, "r{hashes}\"{text}\"{hashes}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What proc-macro2 writes for a string literal (the escaping the goldens were made with).
    fn proc_macro2_lit(value: &str) -> String {
        proc_macro2::Literal::string(value).to_string()
    }

    #[test]
    fn string_literals_are_escaped_as_proc_macro2_writes_them() {
        let hostile = [
            "",
            "plain text",
            "quote \" backslash \\ apostrophe ' tab \t newline \n return \r",
            "nul \0 then digit \x001 then 7 \x007 then 8 \08 at end \0",
            "\0",
            "\x01\x02\x1b\x7f controls",
            "line sep \u{2028} para sep \u{2029} bom \u{feff} zwj \u{200d}",
            "bidi \u{202e} \u{2066} soft hyphen \u{ad} nbsp \u{a0}",
            "emoji 🦀 👩‍💻 accents é ü CJK 漢字 combining e\u{301}",
            "private use \u{e000} unassigned \u{40000} noncharacter \u{fffe} \u{ffff}",
            "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"x\":\"a\\nb\"}",
            "}\"#; r#\"raw\"#",
        ];
        for value in hostile {
            assert_eq!(Lit(value).to_string(), proc_macro2_lit(value), "{value:?}");
        }
        // Every scalar value of the first planes, one at a time and after a NUL.
        for c in (0..0x3_0000u32).filter_map(char::from_u32) {
            let one = c.to_string();
            assert_eq!(Lit(&one).to_string(), proc_macro2_lit(&one), "{c:?}");
            let after_nul = format!("\0{c}");
            assert_eq!(
                Lit(&after_nul).to_string(),
                proc_macro2_lit(&after_nul),
                "{c:?}"
            );
        }
    }

    /// A string literal is one token whose value is the text, whatever the text.
    #[test]
    fn string_literals_hold_their_text() {
        for value in [
            "a\"b\\c\nd\re\0",
            "\"); } fn evil() { (\"",
            "*/ /* // \u{202e}",
        ] {
            let lit: syn::LitStr = syn::parse_str(&Lit(value).to_string()).unwrap();
            assert_eq!(lit.value(), value);
            assert!(!Lit(value).to_string().contains(['\n', '\r', '\u{202e}']));
        }
    }

    #[test]
    fn blocks_items_and_attributes_follow_the_layout() {
        let mut w = Writer::new();
        w.item();
        w.doc(" A thing.");
        w.doc("");
        w.allow(&["dead_code", "missing_docs"]);
        w.allow(&[]);
        w.open("pub struct S");
        w.line("pub a: u8,");
        w.close("");
        w.item();
        w.open("impl S");
        w.item();
        w.open("fn f()");
        w.line("g(");
        w.deeper(|w| w.line(".h()"));
        w.close("");
        w.item();
        w.line("fn g() {}");
        w.close("");
        assert_eq!(
            w.finish(),
            "/// A thing.\n///\n#[allow(dead_code, missing_docs)]\npub struct S {\n    \
             pub a: u8,\n}\n\nimpl S {\n    fn f() {\n        g(\n            .h()\n    }\n\n    \
             fn g() {}\n}\n"
        );
    }

    /// A text of several lines is a raw literal with as few `#` as it allows, holding the
    /// text exactly; one line, or a text with a character a raw literal would show raw, is
    /// an escaped literal.
    #[test]
    fn texts_of_several_lines_are_raw_literals_that_hold_them() {
        for (text, written) in [
            ("one line", "\"one line\""),
            ("a\nb", "r\"a\nb\""),
            ("say \"hi\"\nnow", "r#\"say \"hi\"\nnow\"#"),
            ("a \"# b\nc", "r##\"a \"# b\nc\"##"),
            ("tab\there\n", "r\"tab\there\n\""),
            ("cr\r\nlf", "\"cr\\r\\nlf\""),
            ("bidi \u{202e}\nx", "\"bidi \\u{202e}\\nx\""),
            ("bell \u{7}\nx", "\"bell \\u{7}\\nx\""),
        ] {
            let shown = Text(text).to_string();
            assert_eq!(shown, written, "{text:?}");
            let lit: syn::LitStr = syn::parse_str(&shown).unwrap();
            assert_eq!(lit.value(), text);
        }
    }

    /// A JSON text is always a raw literal; the characters a raw literal would show raw are
    /// JSON escapes, so the literal holds the same JSON value.
    #[test]
    fn json_texts_are_raw_literals_of_the_same_value() {
        let value = serde_json::json!({"a": "x\u{202e}y\u{7f}z\u{85}\"#", "b": [1, 2]});
        let text = serde_json::to_string_pretty(&value).unwrap();
        let shown = Json(&text).to_string();
        assert_eq!(
            shown,
            "r##\"{\n  \"a\": \"x\\u202ey\\u007fz\\u0085\\\"#\",\n  \"b\": [\n    1,\n    2\n  ]\n}\"##"
        );
        let lit: syn::LitStr = syn::parse_str(&shown).unwrap();
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&lit.value()).unwrap(),
            value
        );
    }

    /// Prose wraps at spaces before a letter, a parenthesis or a quote, continuing its
    /// paragraph or list item; a word longer than the width stays whole.
    #[test]
    fn doc_prose_wraps_where_a_continuation_stays_in_its_block() {
        assert_eq!(wrap(" short", 20), [" short"]);
        assert_eq!(
            wrap(" one two three four five six", 12),
            [" one two", " three four", " five six"]
        );
        // No line starts with `-`, `#` or a digit, which would start another block.
        assert_eq!(
            wrap(" text - more # not 1. a heading", 12),
            [" text -", " more #", " not 1. a", " heading"]
        );
        assert_eq!(
            wrap(" - a list item that wraps", 14),
            [" - a list item", "   that wraps"]
        );
        assert_eq!(
            wrap(" 10. numbered item that wraps", 16),
            [" 10. numbered", "     item that", "     wraps"]
        );
        assert_eq!(
            wrap(" see https://example.com/a/very/long/path then more", 16),
            [
                " see",
                " https://example.com/a/very/long/path",
                " then more"
            ]
        );
    }

    /// Doc text a `///` line cannot hold is written as an attribute that means the same.
    #[test]
    fn doc_lines_that_a_comment_cannot_hold_become_attributes() {
        let mut w = Writer::new();
        for doc in [
            " plain  ",
            "/ leading slash",
            " line\nbreak",
            " carriage\rreturn",
            " bidi \u{202e}",
        ] {
            w.doc(doc);
        }
        assert_eq!(
            w.finish(),
            "/// plain\n#[doc = \"/ leading slash\"]\n#[doc = \" line\\nbreak\"]\n\
             #[doc = \" carriage\\rreturn\"]\n#[doc = \" bidi \\u{202e}\"]\n"
        );
    }
}
