//! The one writer of generated code: indentation, blank lines between items, doc comments,
//! attributes and string literals, and the layout they follow.
//!
//! # Layout
//!
//! The generated code's layout is ours, as prost-build's is its own: simple rules that depend
//! only on the structure of the code, never on line widths, so no formatter is needed to
//! write it and the same input always gives the same bytes.
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
//! - **No line wrapping**: a signature, a type, an attribute, a call, an array or tuple stays
//!   on one line however long; long lines are fine in generated code. The only expressions
//!   that span lines are blocks (a `match`, a struct literal) and the builder chain of
//!   `connect_config()`, one `.with_*` call a line, one level deeper than its start.
//! - **Doc comments**: one `///` line per doc line, its text with trailing spaces removed
//!   ([`Writer::doc`]); a line that a `///` comment cannot hold as text (a line break, a
//!   carriage return, a bidirectional control character, or a leading `/`, which would make
//!   it a plain comment) is written as the attribute `#[doc = "…"]` instead, which means the
//!   same. The text itself is made safe for rustdoc by the `docs` module.
//! - **String literals**: `"…"`, escaped as `proc_macro2::Literal::string` writes them
//!   ([`Lit`]): `char::escape_debug` for every character but `'` (kept as is), NUL as `\0`,
//!   or `\x00` when an octal digit follows. Whatever the text (a server's description, a
//!   schema, a tool name), it stays one literal on one line.
//! - **Identifiers** are written as the `identifiers` module made them: plain ASCII identifiers,
//!   keywords as raw identifiers (`r#type`); the emitter checks each one before writing it.
//! - **Paths**: everything outside the generated module is named by an absolute path
//!   (`::core::…`, `::std::…`, `::oma_mcp_runtime::…`), so a tool called `option` or
//!   `string` cannot shadow what the code uses.

use std::fmt::{self, Display, Write as _};

use oma_mcp_core::quote::is_bidi_control;

/// Spaces per indentation level.
const INDENT: &str = "    ";

/// Generated code being written line by line at an indentation level ([`Writer::new`]; no
/// `Default`, which would start without `block_start`).
#[derive(Debug)]
pub(crate) struct Writer {
    out: String,
    depth: usize,
    /// Nothing was written since the current block opened (or the writer was made): the next
    /// item gets no blank line before it.
    block_start: bool,
}

impl Writer {
    /// An empty writer at the top level.
    pub(crate) fn new() -> Self {
        Self {
            out: String::with_capacity(4096),
            depth: 0,
            block_start: true,
        }
    }

    /// The text written.
    pub(crate) fn finish(self) -> String {
        self.out
    }

    /// Starts an item: one blank line before it unless it is the first in its block.
    pub(crate) fn item(&mut self) {
        if !self.block_start {
            self.out.push('\n');
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
        self.indent();
        let _ = write!(self.out, "#[{text}]");
        self.out.push('\n');
    }

    /// `#[allow(lints)]`, nothing when `lints` is empty.
    pub(crate) fn allow(&mut self, lints: &[&str]) {
        if !lints.is_empty() {
            self.attr(format_args!("allow({})", lints.join(", ")));
        }
    }

    /// One doc comment line for the doc text `doc` (what `#[doc = doc]` holds): `///` and the
    /// text without trailing spaces, or `#[doc = "…"]` for a text a `///` comment cannot hold
    /// (see the module docs).
    pub(crate) fn doc(&mut self, doc: &str) {
        let doc = doc.trim_end_matches(' ');
        let unsafe_char = |c: char| matches!(c, '\n' | '\r') || is_bidi_control(c);
        if doc.starts_with('/') || doc.contains(unsafe_char) {
            self.attr(format_args!("doc = {}", Lit(doc)));
            return;
        }
        self.indent();
        self.out.push_str("///");
        self.out.push_str(doc);
        self.out.push('\n');
    }

    /// Doc comment lines ([`Writer::doc`]).
    pub(crate) fn docs<S: AsRef<str>>(&mut self, docs: &[S]) {
        for doc in docs {
            self.doc(doc.as_ref());
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
