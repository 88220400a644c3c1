//! What every generated module must be, whatever the snapshot: Rust that parses, laid out by
//! the generator's rules, with every name and text of the snapshot surviving as the exact
//! value of its string literal. Shared by oma-mcp-build's tests and the codegen fuzz target.

use oma_mcp_runtime::Snapshot;

/// Checks `code`, the module generated for `snapshot`:
///
/// - it parses as a Rust file, and so do the items of its `drift_items! { … }` block;
/// - its layout (outside the lines of raw string literals, which are a JSON text or a
///   description as it is): `// ` header lines then a blank line; no tab, carriage return or
///   trailing space; indentation in steps of 4 spaces; no blank line right after a `{` or before a
///   `}`, never two in a row; one `\n` at the end;
/// - no line over 100 columns but a table row or code line of a doc comment, or a line that
///   cannot break (a doc line with no space before which it could, a line long by one token);
/// - its literals: `SNAPSHOT` is the snapshot's canonical text, `TOOL_NAMES` its tools' names
///   in order, and each tool's `McpTool` impl holds the tool's name, description and digest.
///
/// # Errors
/// What is wrong, naming the line or the tool.
pub fn check(code: &str, snapshot: &Snapshot) -> Result<(), String> {
    layout(code)?;
    let file = syn::parse_file(code).map_err(|e| format!("does not parse: {e}"))?;
    let mut consts = std::collections::BTreeMap::new();
    let mut tools = Vec::new();
    let mut drift_blocks = 0;
    for item in &file.items {
        match item {
            syn::Item::Const(c) => {
                consts.insert(c.ident.to_string(), &*c.expr);
            }
            syn::Item::Impl(imp) if is_mcp_tool(imp) => tools.push(impl_consts(imp)),
            syn::Item::Macro(m)
                if m.mac
                    .path
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == "drift_items") =>
            {
                syn::parse2::<syn::File>(m.mac.tokens.clone())
                    .map_err(|e| format!("the drift_items! block does not parse: {e}"))?;
                drift_blocks += 1;
            }
            _ => {}
        }
    }
    if drift_blocks != 1 {
        return Err(format!("{drift_blocks} drift_items! blocks"));
    }
    // The canonical text, but for the characters a raw literal keeps as JSON escapes: the
    // same JSON, so the same snapshot.
    let snapshot_text = consts.get("SNAPSHOT").and_then(|e| str_value(e));
    let embedded = snapshot_text
        .as_deref()
        .and_then(|text| Snapshot::parse(text, std::path::Path::new("SNAPSHOT")).ok());
    if embedded.map(|s| s.to_canonical_string()) != Some(snapshot.to_canonical_string()) {
        return Err("SNAPSHOT is not the snapshot's canonical text".into());
    }
    let names: Option<Vec<String>> = match consts.get("TOOL_NAMES") {
        Some(syn::Expr::Reference(r)) => match &*r.expr {
            syn::Expr::Array(a) => a.elems.iter().map(str_value).collect(),
            _ => None,
        },
        _ => None,
    };
    let expected: Vec<String> = snapshot.tools.iter().map(|t| t.name().to_owned()).collect();
    if names.as_ref() != Some(&expected) {
        return Err(format!("TOOL_NAMES is {names:?}, not {expected:?}"));
    }
    if tools.len() != snapshot.tools.len() {
        return Err(format!(
            "{} McpTool impls for {} tools",
            tools.len(),
            snapshot.tools.len()
        ));
    }
    for (tool, consts) in snapshot.tools.iter().zip(&tools) {
        let value = |name: &str| consts.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
        let checks = [
            (
                "MCP_NAME",
                value("MCP_NAME").and_then(str_value),
                Some(tool.name().to_owned()),
            ),
            (
                "DIGEST",
                value("DIGEST").and_then(str_value),
                Some(tool.digest.clone()),
            ),
            (
                "DESCRIPTION",
                value("DESCRIPTION").and_then(option_str).flatten(),
                tool.description().map(str::to_owned),
            ),
        ];
        for (what, got, want) in checks {
            if got != want {
                return Err(format!(
                    "tool {:?}: {what} is {got:?}, not {want:?}",
                    tool.name()
                ));
            }
        }
    }
    Ok(())
}

/// Which lines are inside a raw string literal that spans lines (a JSON text or a
/// description): from the line after the one that opens it (`r#"`, outside a comment)
/// through the line that closes it. Those lines are the literal's text, not layout.
fn literal_lines(lines: &[&str]) -> Vec<bool> {
    let mut inside = vec![false; lines.len()];
    let mut close: Option<String> = None;
    for (i, line) in lines.iter().enumerate() {
        if let Some(end) = &close {
            inside[i] = true;
            if line.contains(end.as_str()) {
                close = None;
            }
            continue;
        }
        if line.trim_start().starts_with("//") {
            continue;
        }
        if let Some((open, end)) = raw_literal_open(line)
            && !line[open..].contains(end.as_str())
        {
            close = Some(end);
        }
    }
    inside
}

/// Where a raw string literal opens in `line` (`r"`, `r#"`, …, not part of an identifier nor
/// of an escaped literal's text): the first byte of its text, and the text that closes it.
fn raw_literal_open(line: &str) -> Option<(usize, String)> {
    let bytes = line.as_bytes();
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if in_string => i += 1,
            b'"' => in_string = !in_string,
            b'r' if !in_string
                && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_')) =>
            {
                let hashes = bytes[i + 1..].iter().take_while(|&&b| b == b'#').count();
                if bytes.get(i + 1 + hashes) == Some(&b'"') {
                    return Some((i + 2 + hashes, format!("\"{}", "#".repeat(hashes))));
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// A line over 100 columns that no formatter can break: a doc comment line that is a table
/// row, in a code block or has no space to break at, or a line that is long only by one
/// token of 32 characters or more, a string
/// literal (a digest, a name, a one-line description) or an identifier (the type of a
/// property nested 16 levels deep): without it the line fits.
fn long_line_allowed(line: &str, in_code_block: bool) -> bool {
    if let Some(doc) = line.trim_start().strip_prefix("///") {
        // A table row or a line of a code block is kept whole; prose is wrapped where a
        // continuation starts with a letter, `(` or a quote.
        let first = line.len() - line.trim_start().len() + 3;
        let text = doc.trim_start();
        let lead = first + doc.len() - text.len();
        let breakable = line.char_indices().any(|(i, c)| {
            c == ' '
                && i > lead + 2
                && i < 100
                && line[i + 1..]
                    .chars()
                    .next()
                    .is_some_and(|n| n.is_alphabetic() || matches!(n, '(' | '"' | '\''))
        });
        return in_code_block || text.starts_with('|') || !breakable;
    }
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
    token >= 32 && line.len() - token <= 100
}

/// The layout rules of [`check`].
fn layout(code: &str) -> Result<(), String> {
    let header = code
        .lines()
        .take_while(|line| line.starts_with("// "))
        .count();
    if header == 0 || code.lines().nth(header) != Some("") {
        return Err("the file does not start with `// ` header lines and a blank line".into());
    }
    if !code.ends_with("}\n") || code.ends_with("\n\n") {
        return Err("the file does not end with one `}` line".into());
    }
    let lines: Vec<&str> = code.lines().collect();
    let in_literal = literal_lines(&lines);
    let mut in_code_block = false;
    for (i, line) in lines.iter().enumerate() {
        if in_literal[i] {
            continue;
        }
        let at = |what: &str| Err(format!("line {}: {what}: {line:?}", i + 1));
        let doc = line.trim_start().strip_prefix("///").map(str::trim_start);
        if doc.is_some_and(|d| d.starts_with("```") || d.starts_with("~~~")) {
            in_code_block = !in_code_block;
        } else if doc.is_none() {
            in_code_block = false;
        }
        // The line that opens a literal spanning lines holds the literal's first line: the
        // rules apply to what comes before it.
        let opening = in_literal.get(i + 1).copied().unwrap_or(false);
        let line = match raw_literal_open(line) {
            // The part before the literal's `r` (its text starts after the `#`s and the quote).
            Some((open, end)) if opening => line[..open - end.len() - 1].trim_end(),
            _ => line,
        };
        if line.trim().is_empty() {
            // The literal starts the line: the line is its text.
            continue;
        }
        if line.chars().count() > 100 && !long_line_allowed(line, in_code_block) {
            return at("over 100 columns");
        }
        if line.contains(['\t', '\r']) {
            return at("a tab or carriage return");
        }
        if line.ends_with(' ') {
            return at("a trailing space");
        }
        let indent = line.len() - line.trim_start_matches(' ').len();
        if indent % 4 != 0 {
            return at("indentation not in steps of 4");
        }
        if line.is_empty() && i > header {
            let before = lines[i - 1];
            let after = lines.get(i + 1).copied().unwrap_or_default();
            if before.is_empty() || before.ends_with('{') || after.trim_start().starts_with('}') {
                return at("a blank line after a blank line or `{`, or before `}`");
            }
        }
    }
    Ok(())
}

fn is_mcp_tool(imp: &syn::ItemImpl) -> bool {
    imp.trait_
        .as_ref()
        .and_then(|(path, _)| path.segments.last())
        .is_some_and(|s| s.ident == "McpTool")
}

/// The associated constants of an impl: (name, value).
fn impl_consts(imp: &syn::ItemImpl) -> Vec<(String, &syn::Expr)> {
    imp.items
        .iter()
        .filter_map(|item| match item {
            syn::ImplItem::Const(c) => Some((c.ident.to_string(), &c.expr)),
            _ => None,
        })
        .collect()
}

/// The value of a string literal expression.
fn str_value(expr: &syn::Expr) -> Option<String> {
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Some(s.value()),
        _ => None,
    }
}

/// `Some(..)` of a string literal or `None` as a path ending in `Some` / `None`.
fn option_str(expr: &syn::Expr) -> Option<Option<String>> {
    match expr {
        syn::Expr::Call(call) if call.args.len() == 1 && ends_with(&call.func, "Some") => {
            str_value(&call.args[0]).map(Some)
        }
        expr if ends_with(expr, "None") => Some(None),
        _ => None,
    }
}

fn ends_with(expr: &syn::Expr, ident: &str) -> bool {
    matches!(expr, syn::Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == ident))
}

/// Panics unless [`check`] holds for `code`, naming `what`.
#[allow(dead_code)]
pub fn assert_generated(code: &str, snapshot: &Snapshot, what: &str) {
    if let Err(e) = check(code, snapshot) {
        panic!("{what}: {e}");
    }
}

/// Checks that `formatted` is `unformatted` laid out anew, and nothing else: both lex to the
/// same tokens (doc comments as the `#[doc]` attributes they are), but for a comma before a
/// closing delimiter or the `>` of generic arguments, which prettyplease adds or drops as
/// rustfmt does (a comma that ends a `where` clause too), and the block prettyplease puts
/// around a long match arm's expression.
///
/// # Errors
/// The first tokens that differ, with the tokens before them.
#[allow(dead_code)]
pub fn same_tokens(unformatted: &str, formatted: &str) -> Result<(), String> {
    fn flat(code: &str) -> Result<Vec<String>, String> {
        let stream: proc_macro2::TokenStream =
            code.parse().map_err(|e| format!("does not lex: {e:?}"))?;
        let mut out = Vec::new();
        push(stream, &mut out);
        Ok(out)
    }
    fn push(stream: proc_macro2::TokenStream, out: &mut Vec<String>) {
        use proc_macro2::{Delimiter, TokenTree};
        for tree in stream {
            match tree {
                TokenTree::Group(group) => {
                    let (open, close) = match group.delimiter() {
                        Delimiter::Parenthesis => ("(", ")"),
                        Delimiter::Brace => ("{", "}"),
                        Delimiter::Bracket => ("[", "]"),
                        Delimiter::None => ("", ""),
                    };
                    // A match arm's body in a block of one expression, as prettyplease
                    // writes a long one, is that expression.
                    let arm = out.len() >= 2 && out[out.len() - 2..] == ["=", ">"];
                    let single = group.delimiter() == Delimiter::Brace
                        && !group.stream().is_empty()
                        && !group
                            .stream()
                            .into_iter()
                            .any(|t| matches!(&t, TokenTree::Punct(p) if p.as_char() == ';'));
                    if arm && single {
                        // Its comma, which a block arm goes without.
                        push(group.stream(), out);
                        out.push(",".to_owned());
                        continue;
                    }
                    // The comma that ends a `where` clause before the body.
                    if open == "{" && out.last().is_some_and(|t| t == ",") {
                        out.pop();
                    }
                    out.push(open.to_owned());
                    push(group.stream(), out);
                    if out.last().is_some_and(|t| t == ",") {
                        out.pop();
                    }
                    out.push(close.to_owned());
                }
                TokenTree::Punct(p)
                    if p.as_char() == '>' && out.last().is_some_and(|t| t == ",") =>
                {
                    // A trailing comma in a list of generic arguments.
                    out.pop();
                    out.push(">".to_owned());
                }
                TokenTree::Punct(p)
                    if p.as_char() == ',' && out.last().is_some_and(|t| t == ",") => {}
                other => out.push(other.to_string()),
            }
        }
    }
    let (a, b) = (flat(unformatted)?, flat(formatted)?);
    match a.iter().zip(&b).position(|(x, y)| x != y) {
        None if a.len() == b.len() => Ok(()),
        at => {
            let at = at.unwrap_or(a.len().min(b.len()));
            let from = at.saturating_sub(12);
            Err(format!(
                "formatting changed the tokens at token {at}: {:?} became {:?}",
                &a[from..(at + 3).min(a.len())],
                &b[from..(at + 3).min(b.len())]
            ))
        }
    }
}
