//! The layout oracle: generated code must be exactly what prettyplease makes of it, item by
//! item, whichever way the generator wrote each item (tokens formatted by prettyplease, or
//! text written directly).

/// Checks that `code` (a generated module) is its `// ` header lines and a blank line, then
/// its items each
/// as `prettyplease::unparse` writes it alone, one blank line between items, then a blank
/// line and the `::oma_mcp_runtime::drift_items! { … }` block, whose items (indented one
/// level, as the generator writes them; prettyplease leaves a macro's input alone) are
/// likewise. Panics with the first differing line.
pub fn assert_prettyplease_layout(code: &str, what: &str) {
    let header_end = code
        .split_inclusive('\n')
        .take_while(|line| line.starts_with("// "))
        .map(str::len)
        .sum::<usize>();
    let drift = "::oma_mcp_runtime::drift_items! {\n";
    let drift_start = code
        .find(drift)
        .unwrap_or_else(|| panic!("{what}: no drift_items! block"));
    // The header ends with a blank line.
    let header_end = header_end + usize::from(code[header_end..].starts_with('\n'));
    let body = &code[header_end..drift_start];
    let items = body
        .strip_suffix("\n\n")
        .unwrap_or_else(|| panic!("{what}: no blank line before the drift block"));
    compare(&format!("{items}\n"), what);
    let inner = code[drift_start + drift.len()..]
        .strip_suffix("}\n")
        .unwrap_or_else(|| panic!("{what}: the drift block does not end the file"));
    let mut dedented = String::new();
    for line in inner.lines() {
        if !line.is_empty() {
            dedented.push_str(
                line.strip_prefix("    ")
                    .unwrap_or_else(|| panic!("{what}: drift line not indented: {line}")),
            );
        }
        dedented.push('\n');
    }
    compare(&dedented, what);
}

/// `text` equals its items each unparsed alone, joined by blank lines.
fn compare(text: &str, what: &str) {
    let file = syn::parse_file(text).unwrap_or_else(|e| panic!("{what}: does not parse: {e}"));
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
    if expected != text {
        let line = expected
            .lines()
            .zip(text.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| expected.lines().count().min(text.lines().count()));
        panic!(
            "{what}: not prettyplease's layout at line {} of the items:\n  prettyplease: {:?}\n  generated:    {:?}",
            line + 1,
            expected.lines().nth(line),
            text.lines().nth(line),
        );
    }
}
