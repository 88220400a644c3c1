//! Formatting of generated code with `prettyplease` (cargo feature `format`, on by default), as
//! prost-build formats its output: the emitter's text is parsed with `syn` and printed again
//! at prettyplease's width, so signatures, attributes and calls break where rustfmt would
//! break them and the file reads and diffs like hand-written code.
//!
//! prettyplease prints the body of a macro as a plain run of tokens, and the generated module
//! keeps the items that need a runtime feature inside `::oma_mcp_runtime::drift_items! { … }`
//! and `fake_items! { … }`: the items of such a block are formatted on their own and put back
//! one level deeper. Those items hold no literal that spans lines, so indenting them changes
//! no value. Items are separated by one blank line, as the emitter separates them.
//!
//! The `// @generated` header is kept as written (prettyplease keeps doc comments, not plain
//! comments, so it is not passed through).

#[cfg(feature = "format")]
use syn::{Item, MacroDelimiter};

#[cfg(feature = "format")]
use oma_mcp_core::quote::is_bidi_control;

/// `body` formatted by prettyplease, or `Err` with what went wrong when it cannot be: the
/// emitter's text does not parse (a bug in this crate), or the printed text holds a
/// character that a comment or literal of the emitter's text never holds raw (a carriage
/// return, a bidirectional control character). The caller keeps the unformatted text then.
///
/// Each top-level item is printed on its own and the items are joined by one blank line
/// (prettyplease prints a file's items with none between them).
#[cfg(feature = "format")]
pub(crate) fn format(body: &str) -> Result<String, String> {
    let file = syn::parse_file(body).map_err(|e| format!("it does not parse: {e}"))?;
    let mut out = String::with_capacity(body.len() + body.len() / 4);
    for item in file.items {
        if !out.is_empty() {
            out.push('\n');
        }
        match item {
            Item::Macro(mut item)
                if matches!(item.mac.delimiter, MacroDelimiter::Brace(_))
                    && !item.mac.tokens.is_empty() =>
            {
                let inner = syn::parse2::<syn::File>(std::mem::take(&mut item.mac.tokens))
                    .map_err(|e| format!("a macro block's items do not parse: {e}"))?;
                // `path! {}`, then the block's items one level deeper.
                let head = unparse(Item::Macro(item));
                out.push_str(head.trim_end().trim_end_matches('}'));
                out.push('\n');
                for (i, inner) in inner.items.into_iter().enumerate() {
                    if i > 0 {
                        out.push('\n');
                    }
                    for line in unparse(inner).split_inclusive('\n') {
                        if line != "\n" {
                            out.push_str("    ");
                        }
                        out.push_str(line);
                    }
                }
                out.push_str("}\n");
            }
            item => out.push_str(&unparse(item)),
        }
    }
    if let Some(c) = out.chars().find(|&c| c == '\r' || is_bidi_control(c)) {
        return Err(format!("the printed text holds the character {c:?} raw"));
    }
    Ok(out)
}

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
        assert_eq!(
            format(body).unwrap(),
            "#[allow(dead_code)]\npub const A: &str = r#\"{\n  \"a\": 1\n}\"#;\n\n\
             ::oma_mcp_runtime::drift_items! {\n    /// Doc.\n    pub fn f() -> u8 {\n        1\n    \
             }\n\n    fn h() {}\n}\n\nm! {}\n\n::oma_mcp_runtime::fake_items! {\n    \
             pub fn g() {}\n}\n"
        );
    }

    #[test]
    fn text_that_does_not_parse_is_an_error() {
        assert_eq!(
            format("pub struct;\n").unwrap_err(),
            "it does not parse: expected identifier"
        );
    }
}
