//! [`ToolRegistry`] and [`ToolGrants`] (open-multi-agent's `docs/mcp.md`, "Tool names":
//! "`ToolRegistry.register()` throws on a duplicate name", and "Granting MCP tools to an agent").

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use super::ToolDefinition;
use crate::error::{ConfigError, Error};

/// The tools known to a set of agents, by name (open-multi-agent's `ToolRegistry`).
///
/// Shared by reference (`&self` everywhere, internally locked), usually behind an `Arc` that
/// [`ToolExecutor`](super::ToolExecutor)s hold. Registration is not a grant (see
/// [`ToolGrants`]), except for tools registered with [`ToolRegistry::register_runtime`].
#[derive(Debug, Default)]
pub struct ToolRegistry {
    inner: RwLock<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    tools: HashMap<String, Entry>,
    next_seq: u64,
}

#[derive(Debug)]
struct Entry {
    tool: Arc<ToolDefinition>,
    runtime_added: bool,
    seq: u64,
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    fn read(&self) -> RwLockReadGuard<'_, Inner> {
        self.inner.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> RwLockWriteGuard<'_, Inner> {
        self.inner.write().unwrap_or_else(PoisonError::into_inner)
    }

    fn insert(&self, tool: ToolDefinition, runtime_added: bool) -> Result<(), Error> {
        let mut inner = self.write();
        if inner.tools.contains_key(&tool.name) {
            return Err(Error::Config(ConfigError::DuplicateTool {
                name: tool.name,
            }));
        }
        let seq = inner.next_seq;
        inner.next_seq += 1;
        inner.tools.insert(
            tool.name.clone(),
            Entry {
                tool: Arc::new(tool),
                runtime_added,
                seq,
            },
        );
        Ok(())
    }

    /// Registers `tool` under its name. Not a grant: an agent needs the name in its
    /// [`ToolGrants`] allowlist.
    ///
    /// # Errors
    /// [`ConfigError::DuplicateTool`] when the name is taken, exactly open-multi-agent's text:
    /// `ToolRegistry: a tool named "<name>" is already registered. Use a unique name or
    /// deregister the existing one first.` The registry is then unchanged.
    pub fn register(&self, tool: ToolDefinition) -> Result<(), Error> {
        self.insert(tool, false)
    }

    /// Registers `tool` as runtime-added (open-multi-agent's `AgentConfig.customTools`):
    /// registration is then the grant, though a [`ToolGrants`] denylist still wins.
    ///
    /// # Errors
    /// [`ConfigError::DuplicateTool`], as [`ToolRegistry::register`].
    pub fn register_runtime(&self, tool: ToolDefinition) -> Result<(), Error> {
        self.insert(tool, true)
    }

    /// Registers each tool in order, as open-multi-agent's `for (const tool of tools)
    /// registry.register(tool)`: stops at the first duplicate, keeping those registered before.
    ///
    /// # Errors
    /// [`ConfigError::DuplicateTool`] for the first name already taken.
    pub fn register_all(
        &self,
        tools: impl IntoIterator<Item = ToolDefinition>,
    ) -> Result<(), Error> {
        tools.into_iter().try_for_each(|tool| self.register(tool))
    }

    /// The tool named `name`.
    pub fn get(&self, name: &str) -> Option<Arc<ToolDefinition>> {
        self.read().tools.get(name).map(|e| Arc::clone(&e.tool))
    }

    /// Whether a tool named `name` is registered.
    pub fn contains(&self, name: &str) -> bool {
        self.read().tools.contains_key(name)
    }

    /// Whether `name` is registered as runtime-added ([`ToolRegistry::register_runtime`]).
    pub fn is_runtime_added(&self, name: &str) -> bool {
        self.read().tools.get(name).is_some_and(|e| e.runtime_added)
    }

    /// Every tool, in registration order.
    pub fn list(&self) -> Vec<Arc<ToolDefinition>> {
        let inner = self.read();
        let mut entries: Vec<&Entry> = inner.tools.values().collect();
        entries.sort_by_key(|e| e.seq);
        entries.into_iter().map(|e| Arc::clone(&e.tool)).collect()
    }

    /// Removes the tool named `name` and returns it (`None` when there is none). Executions
    /// already running keep their definition.
    pub fn unregister(&self, name: &str) -> Option<Arc<ToolDefinition>> {
        self.write().tools.remove(name).map(|e| e.tool)
    }

    /// How many tools are registered.
    pub fn len(&self) -> usize {
        self.read().tools.len()
    }

    /// Whether no tool is registered.
    pub fn is_empty(&self) -> bool {
        self.read().tools.is_empty()
    }
}

/// Which registered tools one agent may run: default-deny (open-multi-agent's `docs/mcp.md`,
/// "Granting MCP tools to an agent").
///
/// A tool is granted when its name is in the allowlist (open-multi-agent's `AgentConfig.tools`) or
/// it was registered as runtime-added ([`ToolRegistry::register_runtime`], open-multi-agent's
/// `customTools`), **and** its name is not in the denylist (`disallowedTools`), which always
/// wins.
///
/// ```
/// use oma_mcp_runtime::tool::ToolGrants;
/// let grants = ToolGrants::new().allow(["github_search", "github_push"]).deny(["github_push"]);
/// assert!(grants.allows("github_search", false));
/// assert!(!grants.allows("github_push", false));
/// assert!(!grants.allows("other", false));
/// assert!(grants.allows("other", true)); // runtime-added
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[must_use]
pub struct ToolGrants {
    allowed: BTreeSet<String>,
    denied: BTreeSet<String>,
}

impl ToolGrants {
    /// Nothing granted (runtime-added tools aside).
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds names to the allowlist (open-multi-agent's `AgentConfig.tools`).
    pub fn allow(mut self, names: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.allowed.extend(names.into_iter().map(Into::into));
        self
    }

    /// Adds names to the denylist (open-multi-agent's `disallowedTools`); it wins over everything.
    pub fn deny(mut self, names: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.denied.extend(names.into_iter().map(Into::into));
        self
    }

    /// The allowlist, sorted.
    pub fn allowed(&self) -> impl Iterator<Item = &str> {
        self.allowed.iter().map(String::as_str)
    }

    /// The denylist, sorted.
    pub fn denied(&self) -> impl Iterator<Item = &str> {
        self.denied.iter().map(String::as_str)
    }

    /// Whether the tool `name` is granted; `runtime_added` says whether it was registered with
    /// [`ToolRegistry::register_runtime`].
    pub fn allows(&self, name: &str, runtime_added: bool) -> bool {
        !self.denied.contains(name) && (runtime_added || self.allowed.contains(name))
    }

    /// As [`ToolGrants::allows`], with the refusal text the executor returns: open-multi-agent's
    /// `Tool "<name>" is not granted to this agent.` followed by a hint, either
    /// ` It is in the agent's disallowed tools; remove it from ToolGrants::deny to grant it.`
    /// or ` Grant it by name with ToolGrants::allow (the agent's allowed tools), or register it
    /// with ToolRegistry::register_runtime.`
    ///
    /// # Errors
    /// The refusal text when the tool is not granted.
    pub fn check(&self, name: &str, runtime_added: bool) -> Result<(), String> {
        if self.allows(name, runtime_added) {
            return Ok(());
        }
        let hint = if self.denied.contains(name) {
            "It is in the agent's disallowed tools; remove it from ToolGrants::deny to grant it."
        } else {
            "Grant it by name with ToolGrants::allow (the agent's allowed tools), or register it \
             with ToolRegistry::register_runtime."
        };
        Err(format!(
            "Tool \"{name}\" is not granted to this agent. {hint}"
        ))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::ToolResult;
    use crate::tool::ToolContext;

    fn tool(name: &str) -> ToolDefinition {
        ToolDefinition::new(
            name,
            format!("the {name} tool"),
            json!({"type": "object"}),
            |_: Value, _: ToolContext| async { ToolResult::text("ok") },
        )
    }

    #[test]
    fn register_get_list_unregister() {
        let registry = ToolRegistry::new();
        assert!(registry.is_empty());
        registry.register(tool("b")).unwrap();
        registry.register(tool("a")).unwrap();
        registry.register_runtime(tool("c")).unwrap();
        assert_eq!(registry.len(), 3);
        assert_eq!(registry.get("a").unwrap().description, "the a tool");
        assert!(registry.get("z").is_none());
        assert!(registry.contains("b") && !registry.contains("z"));
        let names: Vec<String> = registry.list().iter().map(|t| t.name.clone()).collect();
        assert_eq!(names, ["b", "a", "c"]);
        assert!(registry.is_runtime_added("c") && !registry.is_runtime_added("a"));
        assert_eq!(registry.unregister("b").unwrap().name, "b");
        assert!(registry.unregister("b").is_none());
        registry.register(tool("b")).unwrap();
        let names: Vec<String> = registry.list().iter().map(|t| t.name.clone()).collect();
        assert_eq!(names, ["a", "c", "b"]);
    }

    #[test]
    fn duplicate_is_the_contract_error() {
        let registry = ToolRegistry::new();
        registry.register(tool("github_search")).unwrap();
        let e = registry.register(tool("github_search")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "ToolRegistry: a tool named \"github_search\" is already registered. Use a unique \
             name or deregister the existing one first."
        );
        assert!(
            matches!(e, Error::Config(ConfigError::DuplicateTool { name }) if name == "github_search")
        );
        assert!(registry.register_runtime(tool("github_search")).is_err());
        assert_eq!(registry.len(), 1);
        assert!(!registry.is_runtime_added("github_search"));
    }

    #[test]
    fn register_all_stops_at_the_first_duplicate() {
        let registry = ToolRegistry::new();
        let e = registry
            .register_all([tool("x"), tool("y"), tool("x"), tool("z")])
            .unwrap_err();
        assert!(matches!(e, Error::Config(ConfigError::DuplicateTool { name }) if name == "x"));
        let names: Vec<String> = registry.list().iter().map(|t| t.name.clone()).collect();
        assert_eq!(names, ["x", "y"]);
    }

    #[test]
    fn grants_are_default_deny() {
        let none = ToolGrants::new();
        assert!(!none.allows("a", false));
        assert!(none.allows("a", true));
        let grants = ToolGrants::new().allow(["a", "b"]).deny(["b", "rt"]);
        assert!(grants.allows("a", false));
        assert!(!grants.allows("b", false));
        assert!(!grants.allows("b", true));
        assert!(!grants.allows("rt", true));
        assert!(grants.allows("other_rt", true));
        assert!(!grants.allows("c", false));
        assert_eq!(grants.allowed().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(grants.denied().collect::<Vec<_>>(), ["b", "rt"]);
    }

    #[test]
    fn refusal_texts() {
        let grants = ToolGrants::new().allow(["a"]).deny(["b"]);
        assert_eq!(grants.check("a", false), Ok(()));
        assert_eq!(
            grants.check("c", false).unwrap_err(),
            "Tool \"c\" is not granted to this agent. Grant it by name with ToolGrants::allow \
             (the agent's allowed tools), or register it with ToolRegistry::register_runtime."
        );
        assert_eq!(
            grants.check("b", true).unwrap_err(),
            "Tool \"b\" is not granted to this agent. It is in the agent's disallowed tools; \
             remove it from ToolGrants::deny to grant it."
        );
    }
}
