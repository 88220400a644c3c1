//! Which MCP tools are consequential: they have real side effects, so an agent may run them
//! only once a person (or a program acting for one) confirmed the call.
//!
//! One rule for every path a tool takes to a model: the generated `McpTool::CONSEQUENTIAL`
//! (`oma-mcp-build`), the runtime's tool layer for tools discovered at run time
//! (`oma_mcp_runtime::tool::tool_definitions`, and through it the provider toolbox and the rig
//! bridge), and the CLI's `list` and `call`. A tool is consequential when
//!
//! 1. a `consequential` entry (an exact raw MCP name or a glob over it) lists it: this always
//!    wins; else
//! 2. unless a `not-consequential` entry lists it, when its annotations say so under the
//!    [`AnnotationPolicy`]: by default ([`AnnotationPolicy::Trust`]) `"destructiveHint": true`
//!    without `"readOnlyHint": true` (MCP 2025-03-26 and later, "Tool annotations").
//!
//! This goes beyond open-multi-agent's `connectMCPTools()`, which marks no MCP tool
//! consequential (its `docs/mcp.md`, "Granting MCP tools to an agent"): a server that
//! announces a destructive tool is taken at its word unless the program says otherwise in
//! code (`not-consequential`, or [`AnnotationPolicy::Ignore`]). Annotations are untrusted
//! hints, so they can only add a confirmation, and the entries a program writes win over them.

use serde_json::Value;

pub use crate::select::{InvalidPattern, NamePatterns};

/// How a tool's `annotations` count towards being consequential. Annotations are untrusted
/// hints from the server, so the `consequential` and `not-consequential` entries always win.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AnnotationPolicy {
    /// A tool whose annotations say `"destructiveHint": true` and not `"readOnlyHint": true`
    /// is consequential (manifest: `consequential-annotations = "trust"`, the default).
    #[default]
    Trust,
    /// Annotations are ignored; only the entries count
    /// (`consequential-annotations = "ignore"`).
    Ignore,
}

impl AnnotationPolicy {
    /// Whether `annotations` (a tool's `annotations` object as sent) make the tool
    /// consequential under this policy.
    ///
    /// ```
    /// use oma_mcp_core::consequential::AnnotationPolicy;
    /// let destructive = serde_json::json!({"destructiveHint": true});
    /// assert!(AnnotationPolicy::Trust.is_consequential(Some(&destructive)));
    /// assert!(!AnnotationPolicy::Ignore.is_consequential(Some(&destructive)));
    /// let read_only = serde_json::json!({"destructiveHint": true, "readOnlyHint": true});
    /// assert!(!AnnotationPolicy::Trust.is_consequential(Some(&read_only)));
    /// ```
    pub fn is_consequential(self, annotations: Option<&Value>) -> bool {
        match self {
            Self::Trust => marked_by_annotations(annotations),
            Self::Ignore => false,
        }
    }
}

/// Whether `annotations` mark a tool consequential when they are trusted: an explicit
/// `"destructiveHint": true` and no explicit `"readOnlyHint": true`. MCP's defaults
/// (`destructiveHint` true when absent) do not count: a tool that says nothing is not
/// marked, as a server that never heard of annotations would otherwise make every tool
/// consequential.
pub fn marked_by_annotations(annotations: Option<&Value>) -> bool {
    let hint = |key: &str| annotations.and_then(|a| a.get(key)) == Some(&Value::Bool(true));
    hint("destructiveHint") && !hint("readOnlyHint")
}

/// Which tools need confirmation (see the [module docs](self)): the `consequential` entries
/// always; else, unless a `not-consequential` entry lists the tool, what its annotations say
/// under the [`AnnotationPolicy`]. The default trusts annotations and has no entries.
///
/// ```
/// use oma_mcp_core::consequential::{AnnotationPolicy, ConsequentialPolicy};
/// let policy = ConsequentialPolicy::new(
///     &["write_*".to_owned()],
///     &["delete_draft".to_owned()],
///     AnnotationPolicy::Trust,
/// )
/// .unwrap();
/// let destructive = serde_json::json!({"destructiveHint": true});
/// assert!(policy.is_consequential("write_file", None));
/// assert!(policy.is_consequential("drop_table", Some(&destructive)));
/// assert!(!policy.is_consequential("delete_draft", Some(&destructive)));
/// assert!(!policy.is_consequential("read_file", None));
/// assert!(ConsequentialPolicy::default().is_consequential("drop_table", Some(&destructive)));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConsequentialPolicy {
    consequential: NamePatterns,
    not_consequential: NamePatterns,
    annotations: AnnotationPolicy,
}

impl ConsequentialPolicy {
    /// The policy of `consequential` and `not_consequential` entries (exact raw MCP names or
    /// globs) and the [`AnnotationPolicy`].
    ///
    /// # Errors
    /// [`InvalidPattern`] naming the first entry that is not a valid glob.
    pub fn new(
        consequential: &[String],
        not_consequential: &[String],
        annotations: AnnotationPolicy,
    ) -> Result<Self, InvalidPattern> {
        Ok(Self {
            consequential: NamePatterns::new("consequential", consequential)?,
            not_consequential: NamePatterns::new("not-consequential", not_consequential)?,
            annotations,
        })
    }

    /// Whether the tool with raw MCP name `mcp_name` and `annotations` (its `annotations`
    /// object as sent, if any) is consequential.
    pub fn is_consequential(&self, mcp_name: &str, annotations: Option<&Value>) -> bool {
        self.reason(mcp_name, annotations).is_some()
    }

    /// Whether the tool whose `tools/list` entry is `descriptor` is consequential (its
    /// `name` and `annotations`; an entry without a string `name` is judged by its
    /// annotations alone).
    pub fn is_consequential_tool(&self, descriptor: &Value) -> bool {
        let name = descriptor
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        self.is_consequential(name, descriptor.get("annotations"))
    }

    /// Why the tool is consequential, for messages: `"the manifest's consequential entries
    /// list it"` or `"its annotations say destructiveHint: true"`; `None` when it is not.
    pub fn reason(&self, mcp_name: &str, annotations: Option<&Value>) -> Option<&'static str> {
        if self.consequential.matches(mcp_name) {
            Some("the manifest's consequential entries list it")
        } else if !self.not_consequential.matches(mcp_name)
            && self.annotations.is_consequential(annotations)
        {
            Some("its annotations say destructiveHint: true")
        } else {
            None
        }
    }

    /// The `consequential` entries as given.
    pub fn consequential(&self) -> &[String] {
        self.consequential.patterns()
    }

    /// The `not-consequential` entries as given.
    pub fn not_consequential(&self) -> &[String] {
        self.not_consequential.patterns()
    }

    /// The [`AnnotationPolicy`].
    pub fn annotations(&self) -> AnnotationPolicy {
        self.annotations
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn annotations_need_an_explicit_destructive_hint() {
        let marked = |a: Value| marked_by_annotations(Some(&a));
        assert!(marked(json!({"destructiveHint": true})));
        assert!(marked(
            json!({"destructiveHint": true, "readOnlyHint": false})
        ));
        assert!(!marked(
            json!({"destructiveHint": true, "readOnlyHint": true})
        ));
        assert!(!marked(json!({})));
        assert!(!marked(json!({"destructiveHint": "true"})));
        assert!(!marked(json!({"readOnlyHint": false})));
        assert!(!marked_by_annotations(None));
    }

    #[test]
    fn entries_win_over_annotations() {
        let destructive = json!({"name": "rm", "annotations": {"destructiveHint": true}});
        let plain = json!({"name": "ls"});
        let policy = ConsequentialPolicy::default();
        assert!(policy.is_consequential_tool(&destructive));
        assert!(!policy.is_consequential_tool(&plain));
        let policy =
            ConsequentialPolicy::new(&["ls".into()], &["rm".into()], AnnotationPolicy::Trust)
                .unwrap();
        assert!(!policy.is_consequential_tool(&destructive));
        assert!(policy.is_consequential_tool(&plain));
        assert_eq!(
            policy.reason("ls", None),
            Some("the manifest's consequential entries list it")
        );
        let ignore = ConsequentialPolicy::new(&[], &[], AnnotationPolicy::Ignore).unwrap();
        assert!(!ignore.is_consequential_tool(&destructive));
        assert_eq!(ignore.annotations(), AnnotationPolicy::Ignore);
        assert_eq!(policy.consequential(), ["ls"]);
        assert_eq!(policy.not_consequential(), ["rm"]);
    }
}
