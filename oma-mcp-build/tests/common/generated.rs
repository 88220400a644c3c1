//! What every generated module must be, whatever the snapshot: Rust that parses, laid out by
//! the generator's rules, with every name and text of the snapshot surviving as the exact
//! value of its string literal. Shared by oma-mcp-build's tests and the codegen fuzz target.

use oma_mcp_runtime::Snapshot;

/// Checks `code`, the module generated for `snapshot`:
///
/// - it parses as a Rust file, and so do the items of its `drift_items! { … }` block;
/// - its layout: `// ` header lines then a blank line; no tab, carriage return or trailing
///   space; indentation in steps of 4 spaces; no blank line right after a `{` or before a
///   `}`, never two in a row; one `\n` at the end;
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
    let snapshot_text = consts.get("SNAPSHOT").and_then(|e| str_value(e));
    if snapshot_text.as_deref() != Some(snapshot.to_canonical_string().as_str()) {
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
    for (i, line) in lines.iter().enumerate() {
        let at = |what: &str| Err(format!("line {}: {what}: {line:?}", i + 1));
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
