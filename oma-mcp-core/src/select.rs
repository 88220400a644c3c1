//! Which of a server's tools a program uses: a pin's `tools` and `exclude-tools` entries
//! (exact raw MCP names or globs over them), and the matcher behind them and behind the
//! `consequential` entries ([`NamePatterns`]).
//!
//! A tool is selected when `tools` is empty (every tool) or an entry of it matches the tool's
//! raw MCP name, and no entry of `exclude-tools` matches it: `exclude-tools` wins. Only the
//! selected tools get generated code (`oma-mcp-build`), reach the runtime's tool layer (and so
//! the provider toolbox and the rig bridge), and are compared by the drift check at run time;
//! the snapshot still pins every tool of the server, and `oma-mcp check` reports a change of a
//! tool outside the selection at info level ([`DriftReport::for_selection`]), since no code
//! of the program depends on it. A server whose 235 tools a program uses five of pays the
//! compile time of five.
//!
//! open-multi-agent's `connectMCPTools()` has no selection: every listed tool is granted
//! (its `docs/mcp.md`, "Granting MCP tools to an agent"); an agent's allow list there is
//! applied to framework names after discovery.
//!
//! ```
//! use oma_mcp_core::select::ToolSelection;
//! let selection = ToolSelection::new(
//!     &["create_issue".to_owned(), "list_*".to_owned()],
//!     &["list_secrets".to_owned()],
//! )
//! .unwrap();
//! assert!(selection.selects("create_issue"));
//! assert!(selection.selects("list_issues"));
//! assert!(!selection.selects("list_secrets"));
//! assert!(!selection.selects("delete_repo"));
//! assert!(ToolSelection::default().selects("delete_repo"));
//! ```
//!
//! [`DriftReport::for_selection`]: crate::drift::DriftReport::for_selection

use glob::Pattern;

use crate::snapshot::Snapshot;

/// An entry of `tools`, `exclude-tools`, `consequential` or `not-consequential` that is not a
/// valid glob.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid `{key}` pattern \"{pattern}\" at character {position}: {reason} (use an exact \
     tool name or a glob such as \"delete_*\"; an entry is read as a glob, so a name holding \
     `*`, `?`, `[`, `]`, `{{` or `}}` puts each such character in brackets: \"a[[]b\" is the \
     name a[b)"
)]
#[non_exhaustive]
pub struct InvalidPattern {
    /// The key the entry belongs to (`tools`, `exclude-tools`, `consequential`,
    /// `not-consequential`).
    pub key: &'static str,
    /// The pattern as given.
    pub pattern: String,
    /// Where the pattern goes wrong: the index of the character (not byte), from 0.
    pub position: usize,
    /// What is wrong there, e.g. "invalid range pattern" (an unclosed `[`).
    pub reason: &'static str,
}

/// Compiled entries of one key: an entry matches a raw MCP tool name when it equals it or
/// matches it as a glob. The glob syntax is the Unix shell's (the `glob` crate's `Pattern`):
/// `?` is one character, `*` any run of characters (`/` included), `[abc]` and `[a-z]` one of
/// the set, `[!abc]` one character outside it; a bracketed `[*]` is the character itself.
/// There is no alternation: `{a,b}` is refused rather than read as the literal name, because
/// a `consequential` entry that silently matched nothing would drop a confirmation; list each
/// name as its own entry instead. Two are equal when their entries are.
#[derive(Debug, Clone, Default)]
pub struct NamePatterns {
    exact: Vec<String>,
    globs: Vec<Pattern>,
}

impl PartialEq for NamePatterns {
    fn eq(&self, other: &Self) -> bool {
        self.exact == other.exact
    }
}

impl Eq for NamePatterns {}

impl NamePatterns {
    /// Compiles `patterns` (exact names or globs), the entries of the key `key` (named in
    /// the error).
    ///
    /// # Errors
    /// [`InvalidPattern`] naming the key and the first pattern that is not a valid glob.
    pub fn new(key: &'static str, patterns: &[String]) -> Result<Self, InvalidPattern> {
        let globs = patterns
            .iter()
            .map(|pattern| compile(key, pattern))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            exact: patterns.to_vec(),
            globs,
        })
    }

    /// Whether an entry matches the tool with raw MCP name `mcp_name`.
    pub fn matches(&self, mcp_name: &str) -> bool {
        self.exact.iter().any(|e| e == mcp_name) || self.globs.iter().any(|g| g.matches(mcp_name))
    }

    /// Whether the entry at `index` matches `mcp_name` (false past the end).
    fn entry_matches(&self, index: usize, mcp_name: &str) -> bool {
        self.exact.get(index).is_some_and(|e| e == mcp_name)
            || self.globs.get(index).is_some_and(|g| g.matches(mcp_name))
    }

    /// The entries as given.
    pub fn patterns(&self) -> &[String] {
        &self.exact
    }

    /// No entry.
    pub fn is_empty(&self) -> bool {
        self.exact.is_empty()
    }
}

/// One entry as a glob: a brace outside brackets is refused (no alternation, see
/// [`NamePatterns`]), the rest is the `glob` crate's syntax and its errors.
fn compile(key: &'static str, pattern: &str) -> Result<Pattern, InvalidPattern> {
    let invalid = |position, reason| InvalidPattern {
        key,
        pattern: pattern.to_owned(),
        position,
        reason,
    };
    let unbracketed = pattern.replace("[{]", "   ").replace("[}]", "   ");
    if let Some(byte) = unbracketed.find(['{', '}']) {
        let position = unbracketed[..byte].chars().count();
        return Err(invalid(
            position,
            "a brace, but there is no alternation `{a,b}`; give one entry per name",
        ));
    }
    Pattern::new(pattern).map_err(|e| invalid(e.pos, e.msg))
}

/// The tools a program uses (see the [module docs](self)): the `tools` entries (none: every
/// tool) minus the `exclude-tools` entries. The default selects every tool.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolSelection {
    tools: NamePatterns,
    exclude_tools: NamePatterns,
}

impl ToolSelection {
    /// The selection of `tools` (empty: every tool) and `exclude_tools` (exact raw MCP names
    /// or globs).
    ///
    /// # Errors
    /// [`InvalidPattern`] naming the key and the first entry that is not a valid glob.
    pub fn new(tools: &[String], exclude_tools: &[String]) -> Result<Self, InvalidPattern> {
        Ok(Self {
            tools: NamePatterns::new("tools", tools)?,
            exclude_tools: NamePatterns::new("exclude-tools", exclude_tools)?,
        })
    }

    /// Whether the tool with raw MCP name `mcp_name` is selected.
    pub fn selects(&self, mcp_name: &str) -> bool {
        (self.tools.is_empty() || self.tools.matches(mcp_name))
            && !self.exclude_tools.matches(mcp_name)
    }

    /// Whether every tool is selected whatever its name (no entry at all).
    pub fn is_all(&self) -> bool {
        self.tools.is_empty() && self.exclude_tools.is_empty()
    }

    /// The `tools` entries as given (empty: every tool).
    pub fn tools(&self) -> &[String] {
        self.tools.patterns()
    }

    /// The `exclude-tools` entries as given.
    pub fn exclude_tools(&self) -> &[String] {
        self.exclude_tools.patterns()
    }

    /// The entries that match none of `mcp_names`, as `(key, entry)` in the order given
    /// (`tools` first): a misspelt name, or a tool the server no longer has, which the
    /// selection then silently leaves out. For warnings.
    pub fn unmatched<'a>(&'a self, mcp_names: &[&str]) -> Vec<(&'static str, &'a str)> {
        let unmatched = |key: &'static str, patterns: &'a NamePatterns| {
            (0..patterns.patterns().len())
                .filter(|&i| !mcp_names.iter().any(|n| patterns.entry_matches(i, n)))
                .map(move |i| (key, patterns.patterns()[i].as_str()))
                .collect::<Vec<_>>()
        };
        let mut out = unmatched("tools", &self.tools);
        out.extend(unmatched("exclude-tools", &self.exclude_tools));
        out
    }

    /// `snapshot` with only the selected tools (in its order); everything else as it was.
    pub fn retain(&self, snapshot: &Snapshot) -> Snapshot {
        let mut selected = snapshot.clone();
        if !self.is_all() {
            selected.tools.retain(|t| self.selects(t.name()));
        }
        selected
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_names_and_globs() {
        let patterns = vec![
            "delete_*".to_owned(),
            "fs/write".to_owned(),
            "a[b".to_owned(),
        ];
        let err = NamePatterns::new("consequential", &patterns).err().unwrap();
        assert_eq!(
            (err.pattern.as_str(), err.position, err.reason),
            ("a[b", 1, "invalid range pattern")
        );
        assert_eq!(
            err.to_string(),
            "invalid `consequential` pattern \"a[b\" at character 1: invalid range pattern (use \
             an exact tool name or a glob such as \"delete_*\"; an entry is read as a glob, so a \
             name holding `*`, `?`, `[`, `]`, `{` or `}` puts each such character in brackets: \
             \"a[[]b\" is the name a[b)"
        );
        let c = NamePatterns::new("consequential", &patterns[..2]).unwrap();
        assert!(c.matches("delete_issue"));
        assert!(c.matches("fs/write"));
        assert!(!c.matches("fs/read"));
        assert_eq!(c.patterns(), &patterns[..2]);
        let slash = ["fs/*".to_owned()];
        assert!(
            NamePatterns::new("tools", &slash)
                .unwrap()
                .matches("fs/a/b")
        );
        // A name with a glob character, as the error says to write it.
        let bracketed = ["a[[]b".to_owned()];
        let escaped = NamePatterns::new("tools", &bracketed).unwrap();
        assert!(escaped.matches("a[b") && !escaped.matches("a[[]c"));
        let one = |p: &str| NamePatterns::new("tools", &[p.to_owned()]);
        let set = one("get_[a-c]?[!x]").unwrap();
        assert_eq!(
            ["get_b1y", "get_d1y", "get_b1x", "get_b12y"].map(|n| set.matches(n)),
            [true, false, false, false]
        );
    }

    /// `{a,b}` is refused, not read as a name that matches nothing: a `consequential` entry
    /// that silently matched nothing would drop a confirmation. A bracketed brace is a name.
    #[test]
    fn braces_are_refused_unless_bracketed() {
        let one = |p: &str| NamePatterns::new("consequential", &[p.to_owned()]);
        let err = one("é_{delete,drop}_*").unwrap_err();
        assert_eq!(
            (err.position, err.reason),
            (
                2,
                "a brace, but there is no alternation `{a,b}`; give one entry per name"
            )
        );
        assert_eq!(one("x}").unwrap_err().position, 1);
        let literal = one("a[{]b[}]").unwrap();
        assert!(literal.matches("a{b}") && !literal.matches("a{b"));
        // `**` means nothing in a tool name; the `glob` crate refuses it inside a word.
        assert_eq!(
            one("a**").unwrap_err().reason,
            "recursive wildcards must form a single path component"
        );
    }

    #[test]
    fn exclude_wins_and_empty_tools_selects_all() {
        let s = |tools: &[&str], exclude: &[&str]| {
            let owned = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
            ToolSelection::new(&owned(tools), &owned(exclude)).unwrap()
        };
        let only_excluded = s(&[], &["delete_*"]);
        assert!(only_excluded.selects("create_issue"));
        assert!(!only_excluded.selects("delete_repo"));
        assert!(!only_excluded.is_all());
        let both = s(&["list_*", "get_me"], &["list_secrets"]);
        assert_eq!(
            ["list_a", "get_me", "list_secrets", "get_you"].map(|n| both.selects(n)),
            [true, true, false, false]
        );
        assert_eq!(both.tools(), ["list_*", "get_me"]);
        assert_eq!(both.exclude_tools(), ["list_secrets"]);
        assert!(ToolSelection::default().is_all());
        let err = ToolSelection::new(&[], &["x[".to_owned()]).unwrap_err();
        assert_eq!(err.key, "exclude-tools");
    }

    #[test]
    fn unmatched_entries_are_named_with_their_key() {
        let selection = ToolSelection::new(
            &[
                "create_issue".to_owned(),
                "crate_issue".to_owned(),
                "list_*".to_owned(),
            ],
            &["zz_*".to_owned()],
        )
        .unwrap();
        assert_eq!(
            selection.unmatched(&["create_issue", "list_issues"]),
            vec![("tools", "crate_issue"), ("exclude-tools", "zz_*")]
        );
        assert_eq!(selection.unmatched(&[]).len(), 4);
    }

    /// A change of a tool outside the selection is info, also for a tool named "" (a name the
    /// snapshot accepts); a problem of the generated code as a whole stays what it is.
    #[test]
    fn drift_outside_the_selection_is_info_whatever_the_name() {
        use crate::drift::{Change, DriftReport, Severity, diff};
        let old = r#"{"tools": [{"name": ""}, {"name": "kept"}]}"#;
        let old = Snapshot::parse_embedded(old).unwrap();
        let new = Snapshot::parse_embedded(r#"{"tools": [{"name": "kept"}]}"#).unwrap();
        let selection = ToolSelection::new(&["kept".to_owned()], &[]).unwrap();
        let mut report = diff(&old, &new);
        report.extend(vec![Change::rust_name_changed("", "would not build")]);
        let severities: Vec<(String, Severity)> = report
            .for_selection(&selection)
            .changes
            .into_iter()
            .map(|c| (c.tool, c.severity))
            .collect();
        assert_eq!(
            severities,
            [
                (String::new(), Severity::Info),
                (String::new(), Severity::Breaking)
            ]
        );
        let untouched = DriftReport::new(vec![Change::rust_name_changed("", "x")]);
        assert_eq!(
            untouched.clone().for_selection(&ToolSelection::default()),
            untouched
        );
    }

    #[test]
    fn retain_keeps_the_selected_tools_in_order() {
        let snapshot = Snapshot::parse_embedded(
            r#"{"tools": [{"name": "b_list"}, {"name": "a_get"}, {"name": "c_list"}]}"#,
        )
        .unwrap();
        let selection = ToolSelection::new(&["*_list".to_owned()], &["c_*".to_owned()]).unwrap();
        let names: Vec<_> = selection
            .retain(&snapshot)
            .tools
            .iter()
            .map(|t| t.name().to_owned())
            .collect();
        assert_eq!(names, ["b_list"]);
        assert_eq!(ToolSelection::default().retain(&snapshot), snapshot);
    }
}
