//! The layout oracle: generated code must be exactly what prettyplease makes of it, item by
//! item, whichever way the generator wrote each item (tokens formatted by prettyplease, or
//! text written directly). Shared by oma-mcp-build's tests and the codegen fuzz target.

/// Checks that `code` (a generated module) is its `// ` header lines and a blank line, then
/// its items each as `prettyplease::unparse` writes it alone, one blank line between items,
/// then a blank line and the `::oma_mcp_runtime::drift_items! { … }` block, whose items
/// (indented one level, as the generator writes them; prettyplease leaves a macro's input
/// alone) are likewise.
///
/// # Errors
/// What differs: the first line that is not prettyplease's, or the part that is missing.
pub fn prettyplease_layout(code: &str) -> Result<(), String> {
    let header_end = code
        .split_inclusive('\n')
        .take_while(|line| line.starts_with("// "))
        .map(str::len)
        .sum::<usize>();
    // The header ends with a blank line.
    let header_end = header_end + usize::from(code[header_end..].starts_with('\n'));
    let drift = "::oma_mcp_runtime::drift_items! {\n";
    let drift_start = code.find(drift).ok_or("no drift_items! block")?;
    let items = code[header_end..drift_start]
        .strip_suffix("\n\n")
        .ok_or("no blank line before the drift block")?;
    compare(&format!("{items}\n"))?;
    let inner = code[drift_start + drift.len()..]
        .strip_suffix("}\n")
        .ok_or("the drift block does not end the file")?;
    let mut dedented = String::new();
    for line in inner.lines() {
        if !line.is_empty() {
            dedented.push_str(
                line.strip_prefix("    ")
                    .ok_or_else(|| format!("drift line not indented: {line}"))?,
            );
        }
        dedented.push('\n');
    }
    compare(&dedented)
}

/// Panics unless [`prettyplease_layout`] holds for `code`, naming `what`.
#[allow(dead_code)]
pub fn assert_prettyplease_layout(code: &str, what: &str) {
    if let Err(e) = prettyplease_layout(code) {
        panic!("{what}: {e}");
    }
}

/// `text` equals its items each unparsed alone, joined by blank lines.
fn compare(text: &str) -> Result<(), String> {
    let file = syn::parse_file(text).map_err(|e| format!("does not parse: {e}"))?;
    let mut expected = String::new();
    for (i, item) in file.items.into_iter().enumerate() {
        if i > 0 {
            expected.push('\n');
        }
        expected.push_str(&prettyplease::unparse(&syn::File {
            shebang: None,
            frontmatter: None,
            attrs: Vec::new(),
            items: vec![item],
        }));
    }
    if expected == text {
        return Ok(());
    }
    let line = expected
        .lines()
        .zip(text.lines())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| expected.lines().count().min(text.lines().count()));
    Err(format!(
        "not prettyplease's layout at line {} of the items:\n  prettyplease: {:?}\n  generated:    {:?}",
        line + 1,
        expected.lines().nth(line),
        text.lines().nth(line),
    ))
}
