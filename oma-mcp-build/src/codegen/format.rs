//! Formatting of generated code with `prettyplease` (cargo feature `format`, on by default), as
//! prost-build formats its output: the emitter's text is parsed with `syn` and printed again
//! at prettyplease's width, so signatures, attributes and calls break where rustfmt would
//! break them and the file reads and diffs like hand-written code.
//!
//! prettyplease prints the body of a macro as a plain run of tokens, and the generated module
//! keeps the items that need a runtime feature inside `::oma_mcp_runtime::drift_items! { … }`
//! and `fake_items! { … }`: the items of such a block, and those of the `prompts` and
//! `resources` submodules (which prettyplease prints without blank lines between them), are
//! formatted on their own and put back one level deeper, except the lines a raw string
//! literal continues on, so indenting them changes no value. Items are separated by one
//! blank line, as the emitter separates them.
//!
//! The `// @generated` header is kept as written (prettyplease keeps doc comments, not plain
//! comments, so it is not passed through).

#[cfg(feature = "format")]
use syn::{Item, MacroDelimiter};

#[cfg(feature = "format")]
use oma_mcp_core::quote::is_bidi_control;

#[cfg(feature = "format")]
use super::writer::WIDTH;

/// `body` formatted by prettyplease, or `Err` with what went wrong when it cannot be: the
/// emitter's text does not parse (a bug in this crate), or the printed text holds a
/// character that a comment or literal of the emitter's text never holds raw (a carriage
/// return, a bidirectional control character). The caller keeps the unformatted text then.
///
/// `items` are where `body`'s top-level items start. Only an item with a line over
/// [`WIDTH`] columns that a formatter can break ([`needs_formatting`]) goes through
/// prettyplease; the others are already laid out as it would lay them out in all that counts
/// (indentation, one entry a line, lines within the width) and are kept as the emitter wrote
/// them, which saves most of the formatting time of a large module. Items are separated by
/// one blank line (prettyplease prints a file's items with none between them).
#[cfg(feature = "format")]
pub(crate) fn format(body: &str, items: &[usize]) -> Result<String, String> {
    let mut out = String::with_capacity(body.len() + body.len() / 8);
    let ends = items.iter().skip(1).copied().chain([body.len()]);
    for (start, end) in items.iter().copied().zip(ends) {
        let text = body
            .get(start..end)
            .ok_or("an item does not start at a character")?;
        let text = text.trim_end_matches('\n');
        if text.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        if needs_formatting(text) {
            format_items(text, &mut out)?;
        } else {
            out.push_str(text);
            out.push('\n');
        }
    }
    if let Some(c) = out.chars().find(|&c| c == '\r' || is_bidi_control(c)) {
        return Err(format!("the printed text holds the character {c:?} raw"));
    }
    Ok(out)
}

/// The items of `text` printed by prettyplease into `out`, one blank line between them.
#[cfg(feature = "format")]
fn format_items(text: &str, out: &mut String) -> Result<(), String> {
    let file = syn::parse_file(text).map_err(|e| format!("it does not parse: {e}"))?;
    for (i, item) in file.items.into_iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        match item {
            Item::Macro(mut item)
                if matches!(item.mac.delimiter, MacroDelimiter::Brace(_))
                    && !item.mac.tokens.is_empty() =>
            {
                let inner = syn::parse2::<syn::File>(std::mem::take(&mut item.mac.tokens))
                    .map_err(|e| format!("a macro block's items do not parse: {e}"))?;
                block(&unparse(Item::Macro(item)), inner.items, out);
            }
            Item::Mod(mut item) if item.content.is_some() => {
                let inner = item
                    .content
                    .as_mut()
                    .map(|(_, items)| std::mem::take(items));
                block(&unparse(Item::Mod(item)), inner.unwrap_or_default(), out);
            }
            item => out.push_str(&unparse(item)),
        }
    }
    Ok(())
}

/// A block item printed from `empty` (the item as prettyplease prints it without its
/// items: `path! {}`, `pub mod name {}`) and its `items` one level deeper, one blank line
/// between them, as the emitter separates items. The lines a raw string literal continues on
/// (a description with line breaks) are kept as they are: indenting them would change the
/// literal's value.
#[cfg(feature = "format")]
fn block(empty: &str, items: Vec<Item>, out: &mut String) {
    let head = empty.trim_end().trim_end_matches('}').trim_end();
    out.push_str(head.trim_end_matches('{').trim_end());
    out.push_str(" {\n");
    for (i, inner) in items.into_iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        // The text that closes the raw literal the previous line left open.
        let mut literal_end: Option<String> = None;
        for line in unparse(inner).split_inclusive('\n') {
            if let Some(end) = &literal_end {
                if line.contains(end.as_str()) {
                    literal_end = None;
                }
                out.push_str(line);
                continue;
            }
            if line != "\n" {
                out.push_str("    ");
            }
            out.push_str(line);
            if let Some((_, open, end)) = raw_literal_open(line)
                && !line[open..].contains(end.as_str())
            {
                literal_end = Some(end);
            }
        }
    }
    out.push_str("}\n");
}

/// Whether the emitter's `text` has a line over [`WIDTH`] columns that a formatter can make
/// shorter: not a doc comment line (the emitter wraps prose; what is left is a table row or a
/// code line), not a line of a raw string literal that spans lines, and not a line that is
/// long only by one token, a string literal or an identifier (a digest, a name nested 16
/// levels deep), which no formatter breaks.
#[cfg(feature = "format")]
fn needs_formatting(text: &str) -> bool {
    let mut literal_end: Option<String> = None;
    for line in text.lines() {
        if let Some(end) = &literal_end {
            if line.contains(end.as_str()) {
                literal_end = None;
            }
            continue;
        }
        let trimmed = line.trim_start();
        if trimmed.starts_with("//") {
            continue;
        }
        // The part before a raw literal that opens here and ends on a later line.
        let mut code = line;
        if let Some((at, open, end)) = raw_literal_open(line)
            && !line[open..].contains(end.as_str())
        {
            code = &line[..at];
            literal_end = Some(end);
        }
        if code.chars().count() > WIDTH && !long_by_one_token(code) {
            return true;
        }
    }
    false
}

/// Where a raw string literal opens in `line` (`r"`, `r#"`, …, not part of an identifier nor
/// of an escaped literal's text): its `r`, the first byte of its text, and the text that
/// closes it.
#[cfg(feature = "format")]
fn raw_literal_open(line: &str) -> Option<(usize, usize, String)> {
    let bytes = line.as_bytes();
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            // An escaped literal's text (`"… r\"…"`): its `\"` and `\\` are no quotes.
            b'\\' if in_string => i += 1,
            b'"' => in_string = !in_string,
            b'r' if !in_string
                && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_')) =>
            {
                let hashes = bytes[i + 1..].iter().take_while(|&&b| b == b'#').count();
                if bytes.get(i + 1 + hashes) == Some(&b'"') {
                    return Some((i, i + 2 + hashes, format!("\"{}", "#".repeat(hashes))));
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Whether `line` is over [`WIDTH`] columns only by one long token, a string literal or an
/// identifier of at least [`LONG_TOKEN`] characters: without it, the line fits.
#[cfg(feature = "format")]
fn long_by_one_token(line: &str) -> bool {
    let literal = match (line.find('"'), line.rfind('"')) {
        (Some(first), Some(last)) if first < last => last + 1 - first,
        _ => 0,
    };
    let identifier = line
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map(str::len)
        .max()
        .unwrap_or(0);
    let token = literal.max(identifier);
    token >= LONG_TOKEN && line.chars().count().saturating_sub(token) <= WIDTH
}

/// The length from which a token counts as one no formatter moves to a line of its own to
/// make room (a digest is 71 characters).
#[cfg(feature = "format")]
const LONG_TOKEN: usize = 32;

/// One item as prettyplease prints it.
#[cfg(feature = "format")]
fn unparse(item: Item) -> String {
    prettyplease::unparse(&syn::File {
        shebang: None,
        frontmatter: None,
        attrs: Vec::new(),
        items: vec![item],
    })
}

#[cfg(all(test, feature = "format"))]
mod tests {
    use super::*;

    #[test]
    fn macro_blocks_are_formatted_as_items() {
        let body = "#[allow(dead_code)] pub const A: &str = r#\"{\n  \"a\": 1\n}\"#;\n\
                    ::oma_mcp_runtime::drift_items! {\n/// Doc.\npub fn f() -> u8 { 1 }\n\
                    fn h() {}\n}\nm! {}\n::oma_mcp_runtime::fake_items! { pub fn g() {} }\n";
        let mut out = String::new();
        format_items(body, &mut out).unwrap();
        assert_eq!(
            out,
            "#[allow(dead_code)]\npub const A: &str = r#\"{\n  \"a\": 1\n}\"#;\n\n\
             ::oma_mcp_runtime::drift_items! {\n    /// Doc.\n    pub fn f() -> u8 {\n        1\n    \
             }\n\n    fn h() {}\n}\n\nm! {}\n\n::oma_mcp_runtime::fake_items! {\n    \
             pub fn g() {}\n}\n"
        );
    }

    /// An item whose lines fit, or are long only by one token or inside a raw literal, is
    /// kept as written; one with a line a formatter can break is formatted.
    #[test]
    fn only_items_with_a_breakable_long_line_are_formatted() {
        let fits = "pub struct A {\n    pub x: u8,\n}\n";
        let token = format!("pub const D: &str = \"{}\";\n", "d".repeat(120));
        let literal = format!(
            "pub const J: &str = r#\"{{\n  \"{}\": 1\n}}\"#;\n",
            "k".repeat(120)
        );
        let long = format!(
            "pub fn f(first: {0}, second: {0}, third: {0}) {{}}\n",
            "::std::string::String"
        );
        let body = format!("{fits}\n{token}\n{literal}\n{long}");
        let starts = [
            0,
            fits.len() + 1,
            fits.len() + token.len() + 2,
            fits.len() + token.len() + literal.len() + 3,
        ];
        assert_eq!(
            format(&body, &starts).unwrap(),
            format!(
                "{fits}\n{token}\n{literal}\npub fn f(\n    first: ::std::string::String,\n    \
                 second: ::std::string::String,\n    third: ::std::string::String,\n) {{}}\n"
            )
        );
    }

    /// A raw literal opens at `r"` or `r#"` outside an escaped literal's text and after no
    /// word character.
    #[test]
    fn raw_literals_open_outside_escaped_text() {
        let open = raw_literal_open;
        assert_eq!(
            open("    const A: &str = r#\"{"),
            Some((20, 23, "\"#".to_owned()))
        );
        assert_eq!(open("    f(r\"x"), Some((6, 8, "\"".to_owned())));
        assert_eq!(open("    rename = \"A  r\","), None);
        assert_eq!(open("    Some(\"r\")"), None);
        assert_eq!(open("    Some(\"a \\\" r\"b\")"), None);
        assert_eq!(open("    for r in x"), None);
        assert_eq!(open("    bar\"x"), None);
    }

    #[test]
    fn text_that_does_not_parse_is_an_error() {
        assert_eq!(
            format_items("pub struct;\n", &mut String::new()).unwrap_err(),
            "it does not parse: expected identifier"
        );
    }
}
