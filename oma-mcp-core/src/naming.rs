//! Tool names, exactly as open-multi-agent's `connectMCPTools()` forms them (open-multi-agent's
//! `docs/mcp.md`, "Tool names").
//!
//! The framework tool name is `<prefix>_<mcpToolName>` when the trimmed prefix is non-empty,
//! then every `/` in the result becomes `_` (Anthropic and other providers reject `/` in tool
//! names). Trimming follows JavaScript's `String.prototype.trim`: it strips U+FEFF and keeps
//! U+0085, unlike Rust's [`str::trim`].

use std::collections::HashMap;

/// Whether `c` is whitespace for JavaScript's `String.prototype.trim` (ECMAScript
/// `WhiteSpace` and `LineTerminator`): Rust's `White_Space` set without U+0085, plus U+FEFF.
fn is_js_whitespace(c: char) -> bool {
    c == '\u{feff}' || (c != '\u{85}' && c.is_whitespace())
}

/// Trims `s` as JavaScript's `String.prototype.trim` does.
///
/// ```
/// # use oma_mcp_core::naming::js_trim;
/// assert_eq!(js_trim("\u{feff} gh \u{85}"), "gh \u{85}");
/// ```
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

/// The framework name of the MCP tool `raw` under the optional `prefix`.
///
/// `prefix` is trimmed (JavaScript rules); when it is empty or absent the name is `raw` with
/// every `/` replaced by `_`, otherwise `<trimmed prefix>_<raw>` with the same replacement.
/// The replacement applies to the prefix too.
///
/// ```
/// # use oma_mcp_core::normalize_tool_name;
/// assert_eq!(normalize_tool_name(Some("github"), "search_issues"), "github_search_issues");
/// assert_eq!(normalize_tool_name(Some("  "), "fs/read"), "fs_read");
/// assert_eq!(normalize_tool_name(None, "a/b/c"), "a_b_c");
/// ```
pub fn normalize_tool_name(prefix: Option<&str>, raw: &str) -> String {
    let joined = match prefix.map(js_trim) {
        Some(p) if !p.is_empty() => format!("{p}_{raw}"),
        _ => raw.to_owned(),
    };
    joined.replace('/', "_")
}

/// Normalizes every raw name in list order and checks that the results are unique.
///
/// Returns the normalized names in the same order as `raw_names`.
///
/// # Errors
/// [`NameCollision`] for the first normalized name that two tools share, naming both
/// raw names in list order. open-multi-agent throws here too; it never silently drops a tool.
pub fn normalize_all<'a, I>(
    prefix: Option<&str>,
    raw_names: I,
) -> Result<Vec<String>, NameCollision>
where
    I: IntoIterator<Item = &'a str>,
{
    let mut seen: HashMap<String, &'a str> = HashMap::new();
    let mut out = Vec::new();
    for raw in raw_names {
        let name = normalize_tool_name(prefix, raw);
        if let Some(first) = seen.insert(name.clone(), raw) {
            return Err(NameCollision {
                normalized: name,
                first: first.to_owned(),
                second: raw.to_owned(),
            });
        }
        out.push(name);
    }
    Ok(out)
}

/// Two tools of one server normalize to the same name (open-multi-agent's `docs/mcp.md`, "Tool
/// names").
///
/// The message is the reference implementation's, character for character, so logs compare
/// across ports. No prefix can fix it (both tools get the same one): the server has to rename
/// one of them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "Duplicate MCP tool name after normalization: \"{normalized}\" from \"{first}\" and \"{second}\"."
)]
#[non_exhaustive]
pub struct NameCollision {
    /// The normalized name both tools map to.
    pub normalized: String,
    /// The raw MCP name of the first tool (in list order).
    pub first: String,
    /// The raw MCP name of the second tool (in list order).
    pub second: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_and_slashes() {
        assert_eq!(
            normalize_tool_name(Some("github"), "search_issues"),
            "github_search_issues"
        );
        assert_eq!(normalize_tool_name(Some("a/b"), "c/d"), "a_b_c_d");
        assert_eq!(normalize_tool_name(Some(""), "x"), "x");
        assert_eq!(normalize_tool_name(Some(" \t\n"), "x/y"), "x_y");
        assert_eq!(normalize_tool_name(None, "tool.name"), "tool.name");
    }

    #[test]
    fn trim_follows_javascript() {
        // U+FEFF is stripped by JS trim, not by Rust's trim.
        assert_eq!(normalize_tool_name(Some("\u{feff}gh\u{feff}"), "x"), "gh_x");
        // U+0085 is kept by JS trim, stripped by Rust's trim.
        assert_eq!(normalize_tool_name(Some("\u{85}"), "x"), "\u{85}_x");
        assert_eq!(normalize_tool_name(Some("\u{3000}gh\u{2029}"), "x"), "gh_x");
    }

    #[test]
    fn collision_names_both_sources() {
        let err = normalize_all(None, ["a/b", "c", "a_b"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Duplicate MCP tool name after normalization: \"a_b\" from \"a/b\" and \"a_b\"."
        );
        assert_eq!(
            normalize_all(Some("p"), ["a/b", "c"]).unwrap(),
            vec!["p_a_b".to_owned(), "p_c".to_owned()]
        );
    }
}
