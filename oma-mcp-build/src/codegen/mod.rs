//! Snapshot → Rust code: typed argument structs and `McpTool` marker types (the trait is
//! `oma_mcp_runtime::McpTool`).
//!
//! [`generate`] turns every tool of a [`Snapshot`] into
//! - `<Tool>Args`, the argument type: a struct (nested structs and string enums as the schema
//!   asks, `serde_json::Value` with a doc note where it asks for more than the type model
//!   covers); for a root `$ref` the target's struct, for a root `allOf` the merged struct, for
//!   a root `anyOf`/`oneOf` of objects a tagged or untagged enum, and where none of these fits
//!   a JSON object map with a [`Warning`] at the root keyword's pointer,
//! - `<Tool>Output`, when the tool declares an `outputSchema`: the type of its
//!   `structuredContent` by the same rules (a struct, an enum, or a type alias when the root
//!   is neither; for FastMCP's wrapped form `{"result": ..}`, the type of `result`), made to
//!   survive server additions: output string enums hold any other value in `Unknown(String)`
//!   and output structs keep unlisted properties in `additional_properties`,
//! - `<Tool>`, a unit marker type implementing `McpTool` (and `NotConsequential` when it is
//!   not consequential; the argument type implements `ToolArgs`) with the tool's names,
//!   description, input and output schemas, digest, whether it is consequential (the
//!   `consequential` entries, else its annotations per [`AnnotationPolicy`], minus the
//!   `not_consequential` entries), and a `static` holding its compiled schemas,
//!
//! plus `TOOL_NAMES`, the raw MCP names in snapshot order. Every generated struct has a
//! constructor `new` taking its required fields in the order of the schema's `required` list
//! (for merged schemas each part's list in turn; a `const` has no field), a chainable setter
//! `with_<field>` per optional field, `Default` when nothing is required, and one private
//! field, so code outside the generated module builds it only through these and a property
//! the server adds later breaks no call site. Structs of the same shape (same properties and
//! plain types; not a tool's own argument type) convert into each other with `.reshape()`
//! (`oma_mcp_runtime::typed::SameShape`). `<Tool>` is the UpperCamelCase
//! of the raw MCP name (`get-sum` → `GetSum`, `GetSumArgs`), or the name a rename entry
//! ([`GenerateOptions::rename`]) gives it. Tools whose names would meet after conversion
//! (`get-sum` and `get_sum`, or `foo` and `foo_args`, whose `FooArgs` `foo` reserves) are
//! each tagged with a hash of their MCP name (`GetSum_h…`) instead of being numbered by
//! position, so adding or removing a tool never moves a name to another tool; the rule is in
//! the `stems` and `identifiers` module docs. [`rust_names`] lists the marker and field names.
//!
//! The code is a plain module body that refers to everything through `::oma_mcp_runtime`, so
//! the including crate needs no other dependency:
//!
//! ```ignore
//! mod everything {
//!     include!(concat!(env!("OUT_DIR"), "/everything.rs"));
//! }
//! let result = client.call(everything::EchoArgs::new("hi")).mapped().await;
//! ```
//!
//! Same snapshot and options → byte-identical output. Generation never panics on input: what
//! the type model cannot express becomes `serde_json::Value`, and what is wrong in a schema is
//! reported as a [`Warning`].
//!
//! The steps: snapshot → type model (`schema`, `identifiers`, `stems`: plain data) → text, written in
//! one pass by one writer (`emit`, `writer`) in a layout of our own that depends only on the
//! code's structure (4-space indentation, a blank line between items, one attribute a line, no
//! line wrapping). No formatter and no token trees: a build script that generates code compiles
//! no `syn`, `quote` or `prettyplease`.

mod docs;
mod emit;
mod format;
mod identifiers;
mod offers;
mod schema;
mod stems;
mod writer;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use oma_mcp_core::Snapshot;
/// The consequential rule, shared with the runtime's tool layer (see
/// [`oma_mcp_core::consequential`]).
pub use oma_mcp_core::consequential::{AnnotationPolicy, ConsequentialPolicy, NamePatterns};
use oma_mcp_core::descriptor::input_schema_view;
use oma_mcp_core::naming::normalize_all;
/// The tool selection of [`GenerateOptions::tools`] (see [`oma_mcp_core::select`]).
pub use oma_mcp_core::select::ToolSelection;
use oma_mcp_core::snapshot::{SnapshotTool, canonical_json_pretty};
use serde_json::Value;

use crate::error::Error;

use self::identifiers::Namespace;
use self::schema::{OutputModel, TypeDef};

/// Settings for [`generate`]: plain data, built with [`GenerateOptions::default`] and the
/// `with_*` setters.
///
/// ```
/// use oma_mcp_build::codegen::GenerateOptions;
/// let options = GenerateOptions::default()
///     .with_name_prefix("github")
///     .with_consequential(["delete_*", "merge_pull_request"]);
/// assert_eq!(options.name_prefix.as_deref(), Some("github"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct GenerateOptions {
    /// The prefix of the framework tool names: `McpTool::NAME` is
    /// `oma_mcp_runtime::normalize_tool_name(prefix, mcp_name)`.
    pub name_prefix: Option<String>,
    /// Tools that need confirmation before they run (`McpTool::CONSEQUENTIAL`): exact raw MCP
    /// names or globs over them (`*` also matches `/`). Always wins.
    pub consequential: Vec<String>,
    /// Tools that are not consequential whatever their annotations say (names or globs, as
    /// `consequential`, which wins over this).
    pub not_consequential: Vec<String>,
    /// Whether a tool's annotations make it consequential by default (see
    /// [`AnnotationPolicy`]).
    pub consequential_annotations: AnnotationPolicy,
    /// The tools that get code (the manifest's `tools` and `exclude-tools`; default: every
    /// tool): the others are left out of the module, its `TOOL_NAMES` and its embedded
    /// `SNAPSHOT`, and their names meet no selected tool's (see [`oma_mcp_core::select`]). A
    /// rename entry of a tool left out is ignored.
    pub tools: ToolSelection,
    /// Generated argument and output types also derive `schemars::JsonSchema`, through
    /// `::oma_mcp_runtime::__private::schemars`: the including crate must enable
    /// `oma-mcp-runtime`'s `schemars` feature.
    pub schemars: bool,
    /// User-chosen names: raw MCP tool name → the UpperCamelCase stem of its marker type
    /// (`"search-a"` → `SearchHyphen`, `SearchHyphenArgs`, `SearchHyphenOutput`). A renamed
    /// tool is never tagged; a plain tool whose names meet it is tagged instead.
    /// [`generate`] fails on an entry naming no tool, a target that is not an identifier (or
    /// is `Some`, `None`, `Ok`, `Err`), or a target whose names another renamed tool or a
    /// tagged tool also generates.
    pub rename: BTreeMap<String, String>,
    /// Where [`GenerateOptions::rename`] is written, to name its entries in errors
    /// (`servers.x.rename` gives `servers.x.rename."search-a"`); `None` means `rename`.
    pub rename_table: Option<String>,
    /// The connection the module also gets as code, `connect_config()` and `connect()` (see
    /// [`PinnedConnection`]); `None` (the default) emits neither.
    pub connection: Option<PinnedConnection>,
    /// Whether the code is formatted with prettyplease (default `true`, as prost-build's
    /// `format`): lines break at about 100 columns, as rustfmt breaks them. It takes this
    /// crate's cargo feature `format` (on by default); without the feature the code is
    /// written in the emitter's own layout, whatever this says (the same items, every
    /// attribute and signature on one line), and the build compiles neither `syn`'s full
    /// parser nor prettyplease.
    pub format: bool,
}

impl Default for GenerateOptions {
    fn default() -> Self {
        Self {
            name_prefix: None,
            consequential: Vec::new(),
            not_consequential: Vec::new(),
            consequential_annotations: AnnotationPolicy::default(),
            tools: ToolSelection::default(),
            schemars: false,
            rename: BTreeMap::new(),
            rename_table: None,
            connection: None,
            format: true,
        }
    }
}

/// A server's connection as a manifest pins it, which [`generate`] emits after the tools:
/// `pub fn connect_config() -> ::oma_mcp_runtime::ConnectConfig` (this `config` as code,
/// settings left at their defaults left out), and `pub async fn connect(policy:
/// DriftPolicy) -> Result<(McpClient, DriftReport), Error>`, which connects with it and
/// checks drift against the module's `SNAPSHOT` in one call
/// (`oma_mcp_runtime::connect_checked` with `server` as the name).
///
/// [`ServerPin::generate_options`](crate::ServerPin::generate_options) sets it, with the
/// paths resolved when the manifest was read (the program, when the command holds a `/`, and
/// `cwd` are absolute), so the functions suit programs run where they were built (tools,
/// tests, examples); a program shipped elsewhere builds its own `ConnectConfig`. `env`
/// literals are embedded (they are in the committed manifest already); `pass-env` names only,
/// never values.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PinnedConnection {
    /// The server's name in the manifest (the doc comments and drift errors name it).
    pub server: String,
    /// The connection settings (the core's type, which the runtime re-exports as
    /// `oma_mcp_runtime::ConnectConfig`).
    pub config: oma_mcp_core::config::ConnectConfig,
}

impl PinnedConnection {
    /// The connection of server `server` with `config`.
    pub fn new(server: impl Into<String>, config: oma_mcp_core::config::ConnectConfig) -> Self {
        Self {
            server: server.into(),
            config,
        }
    }
}

impl GenerateOptions {
    /// Sets [`GenerateOptions::name_prefix`].
    #[must_use]
    pub fn with_name_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.name_prefix = Some(prefix.into());
        self
    }

    /// Sets [`GenerateOptions::consequential`] (replacing earlier entries).
    #[must_use]
    pub fn with_consequential(
        mut self,
        patterns: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.consequential = patterns.into_iter().map(Into::into).collect();
        self
    }

    /// Sets [`GenerateOptions::not_consequential`] (replacing earlier entries).
    #[must_use]
    pub fn with_not_consequential(
        mut self,
        patterns: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.not_consequential = patterns.into_iter().map(Into::into).collect();
        self
    }

    /// Sets [`GenerateOptions::consequential_annotations`].
    #[must_use]
    pub fn with_consequential_annotations(mut self, policy: AnnotationPolicy) -> Self {
        self.consequential_annotations = policy;
        self
    }

    /// Sets [`GenerateOptions::tools`].
    ///
    /// ```
    /// use oma_mcp_build::codegen::{GenerateOptions, generate};
    /// use oma_mcp_core::select::ToolSelection;
    /// let snapshot = oma_mcp_core::Snapshot::parse_embedded(
    ///     r#"{"tools": [{"name": "echo"}, {"name": "delete_all"}]}"#,
    /// )
    /// .unwrap();
    /// let only_echo = ToolSelection::new(&["echo".to_owned()], &[]).unwrap();
    /// let code = generate(&snapshot, &GenerateOptions::default().with_tools(only_echo))
    ///     .unwrap()
    ///     .code;
    /// assert!(code.contains("pub struct Echo;"));
    /// assert!(!code.contains("DeleteAll"));
    /// ```
    #[must_use]
    pub fn with_tools(mut self, tools: ToolSelection) -> Self {
        self.tools = tools;
        self
    }

    /// Sets [`GenerateOptions::rename`] (replacing earlier entries): pairs of a raw MCP tool
    /// name and the stem its types get.
    ///
    /// ```
    /// use oma_mcp_build::codegen::GenerateOptions;
    /// let options = GenerateOptions::default().with_rename([("search-a", "SearchHyphen")]);
    /// assert_eq!(options.rename["search-a"], "SearchHyphen");
    /// ```
    #[must_use]
    pub fn with_rename(
        mut self,
        entries: impl IntoIterator<Item = (impl Into<String>, impl Into<String>)>,
    ) -> Self {
        self.rename = entries
            .into_iter()
            .map(|(tool, target)| (tool.into(), target.into()))
            .collect();
        self
    }

    /// Sets [`GenerateOptions::rename_table`].
    #[must_use]
    pub fn with_rename_table(mut self, table: impl Into<String>) -> Self {
        self.rename_table = Some(table.into());
        self
    }

    /// Sets [`GenerateOptions::schemars`].
    #[must_use]
    pub fn with_schemars(mut self, schemars: bool) -> Self {
        self.schemars = schemars;
        self
    }

    /// Sets [`GenerateOptions::format`].
    #[must_use]
    pub fn with_format(mut self, format: bool) -> Self {
        self.format = format;
        self
    }

    /// Sets [`GenerateOptions::connection`].
    #[must_use]
    pub fn with_connection(mut self, connection: PinnedConnection) -> Self {
        self.connection = Some(connection);
        self
    }

    /// The compiled consequential rules of these options, the ones [`generate`] applies to
    /// `McpTool::CONSEQUENTIAL` (the CLI's `list` and `call` use them too).
    ///
    /// # Errors
    /// [`Error::InvalidGlob`] naming the first entry of `consequential` or
    /// `not_consequential` that is not a valid glob.
    pub fn consequential_policy(&self) -> Result<ConsequentialPolicy, Error> {
        Ok(ConsequentialPolicy::new(
            &self.consequential,
            &self.not_consequential,
            self.consequential_annotations,
        )?)
    }
}

/// A problem in a tool's schema that generation worked around (the part became
/// `serde_json::Value`). Build scripts print these as `cargo::warning=`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub struct Warning {
    /// The raw MCP name of the tool.
    pub tool: String,
    /// JSON pointer into the tool descriptor, e.g. `/inputSchema/properties/x`; empty for a
    /// warning about the tool (or a manifest entry) as a whole.
    pub pointer: String,
    /// What is wrong and what was generated instead.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.pointer.as_str() {
            // About the selection as a whole.
            "" if self.tool.is_empty() => f.write_str(&self.message),
            "" => write!(f, "tool \"{}\": {}", self.tool, self.message),
            pointer => write!(f, "tool \"{}\" at {pointer}: {}", self.tool, self.message),
        }
    }
}

/// The output of [`generate`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Generated {
    /// The Rust source: a plain module body to `include!` inside a `mod`.
    pub code: String,
    /// Schema problems worked around, in snapshot order.
    pub warnings: Vec<Warning>,
}

/// Everything the emitter needs for one tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ToolModel {
    /// The raw MCP name.
    pub mcp_name: String,
    /// The framework tool name (prefix and `/` rule applied).
    pub name: String,
    /// The marker type's name.
    pub marker: String,
    /// The argument struct's name (the first of `types`).
    pub args: String,
    /// The tool's description, as sent.
    pub description: Option<String>,
    /// Canonical JSON of the input schema as read for code and validation
    /// ([`input_schema_view`]: without a top-level `"required": null`).
    pub input_schema: String,
    /// The descriptor's digest.
    pub digest: String,
    /// Whether the tool is consequential (entries, then annotations).
    pub consequential: bool,
    /// The argument struct, then its nested types, then the output types.
    pub types: Vec<TypeDef>,
    /// The output schema and type, when the tool declares an `outputSchema`.
    pub output: Option<OutputModel>,
    /// Whether types derive `schemars::JsonSchema`.
    pub schemars: bool,
}

/// One tool's types, generated in a namespace of its own.
struct ToolParts {
    marker: String,
    args: String,
    defs: Vec<TypeDef>,
    output: Option<OutputModel>,
    warnings: Vec<Warning>,
    /// Every type name used (the namespace's names, with the reserved suffixed forms).
    names: BTreeSet<String>,
}

/// The tool's types with the marker name `stem`.
fn build_tool(tool: &SnapshotTool, stem: &str) -> ToolParts {
    let mcp_name = tool.name();
    let mut types = Namespace::new();
    let marker = types.claim_type(stem, &stems::TOOL_SUFFIXES);
    let args = format!("{marker}Args");
    let mut warnings = Vec::new();
    // A top-level `"required": null` is no required property (the core's rule).
    let input_schema = tool.input_schema().map(input_schema_view);
    let mut defs = schema::input_types(
        mcp_name,
        &args,
        input_schema.as_deref(),
        &mut types,
        &mut warnings,
    );
    let output = tool
        .output_schema()
        .filter(|s| !s.is_null())
        .map(|output_schema| {
            let (mut output_defs, output) = schema::output_types(
                mcp_name,
                &format!("{marker}Output"),
                output_schema,
                &mut types,
                &mut warnings,
            );
            defs.append(&mut output_defs);
            output
        });
    ToolParts {
        marker,
        args,
        defs,
        output,
        warnings,
        names: types.names().clone(),
    }
}

/// Every tool's types, each with its stem (see the `stems` module).
fn tool_parts(snapshot: &Snapshot, options: &GenerateOptions) -> Result<Vec<ToolParts>, Error> {
    let mcp_names: Vec<&str> = snapshot.tools.iter().map(|t| t.name()).collect();
    let renames = stems::Renames {
        table: options.rename_table.as_deref().unwrap_or("rename"),
        entries: &options.rename,
    };
    stems::assign(
        &mcp_names,
        &renames,
        |i, stem| build_tool(&snapshot.tools[i], stem),
        |parts| &parts.names,
    )
}

/// The Rust names [`generate`] gives the tools of a snapshot and their fields, for
/// comparing two tool lists (`check` and `diff` report the names that changed or moved).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RustNames {
    /// Raw MCP tool name → its marker type's name (`"search-a"` → `"SearchA"`).
    pub tools: BTreeMap<String, String>,
    /// (raw MCP tool name, JSON pointer of a property's schema in the tool descriptor, e.g.
    /// `/inputSchema/properties/fooBar`) → the field's name without `r#` (`"foo_bar"`). A
    /// property merged into several structs counts once, with its first field.
    pub fields: BTreeMap<(String, String), String>,
}

/// The Rust names [`generate`] gives each tool of `snapshot` and each property field.
///
/// ```
/// use oma_mcp_build::codegen::{GenerateOptions, rust_names};
/// let snapshot: oma_mcp_core::Snapshot = oma_mcp_core::Snapshot::parse(
///     r#"{"tools": [{"name": "get-sum",
///         "inputSchema": {"type": "object", "properties": {"fooBar": {"type": "string"}}}}]}"#,
///     "x.json".as_ref(),
/// )
/// .unwrap();
/// let names = rust_names(&snapshot, &GenerateOptions::default()).unwrap();
/// assert_eq!(names.tools["get-sum"], "GetSum");
/// let field = ("get-sum".to_owned(), "/inputSchema/properties/fooBar".to_owned());
/// assert_eq!(names.fields[&field], "foo_bar");
/// ```
///
/// # Errors
/// The rename errors of [`generate`].
pub fn rust_names(snapshot: &Snapshot, options: &GenerateOptions) -> Result<RustNames, Error> {
    let (selected, options) = selected(snapshot, options);
    let (snapshot, options) = (&selected, &options);
    let parts = tool_parts(snapshot, options)?;
    let mut names = RustNames::default();
    for (tool, parts) in snapshot.tools.iter().zip(parts) {
        for def in &parts.defs {
            if let TypeDef::Struct(def) = def {
                for field in &def.fields {
                    names
                        .fields
                        .entry((tool.name().to_owned(), field.pointer.clone()))
                        .or_insert_with(|| field.ident.name.clone());
                }
            }
        }
        names.tools.insert(tool.name().to_owned(), parts.marker);
    }
    Ok(names)
}

/// Generates the Rust code for every tool of `snapshot`.
///
/// # Errors
/// - [`Error::InvalidGlob`] when an entry of [`GenerateOptions::consequential`] or
///   [`GenerateOptions::not_consequential`] is not a valid glob;
/// - [`Error::NameCollision`] when two tools get the same framework name (`a/b` and `a_b`);
/// - [`Error::RenameUnknownTool`], [`Error::RenameInvalid`] and [`Error::RenameCollision`]
///   for a rename entry that names no tool, is not an identifier, or collides;
///   [`Error::TagCollision`] when two tools would get the same tagged name;
/// - [`Error::InvalidIdentifier`] only on a bug in this crate (a name computed for the code
///   that is not an identifier).
pub fn generate(snapshot: &Snapshot, options: &GenerateOptions) -> Result<Generated, Error> {
    let listed = snapshot.tools.len();
    let names: Vec<&str> = snapshot.tools.iter().map(|t| t.name()).collect();
    let mut warnings: Vec<Warning> = options
        .tools
        .unmatched(&names)
        .into_iter()
        .map(|(key, entry)| Warning {
            tool: entry.to_owned(),
            pointer: String::new(),
            message: format!(
                "the `{key}` entry matches no tool of the snapshot (check its spelling, or \
                 remove it if the server dropped the tool)"
            ),
        })
        .collect();
    let (selected, options) = selected(snapshot, options);
    let (snapshot, options) = (&selected, &options);
    if listed > 0 && snapshot.tools.is_empty() {
        warnings.push(Warning {
            tool: String::new(),
            pointer: String::new(),
            message: format!(
                "`tools` and `exclude-tools` select none of the snapshot's {listed} tools, so the \
                 module has no tool; select the tools the crate uses"
            ),
        });
    }
    let policy = options.consequential_policy()?;
    let prefix = options.name_prefix.as_deref();
    let framework_names = normalize_all(prefix, snapshot.tools.iter().map(|t| t.name()))?;
    let parts = tool_parts(snapshot, options)?;
    let mut tools = Vec::with_capacity(snapshot.tools.len());
    for ((tool, name), parts) in snapshot.tools.iter().zip(framework_names).zip(parts) {
        let mcp_name = tool.name();
        let input_schema = match tool.input_schema() {
            Some(schema @ Value::Object(_)) => canonical_json_pretty(&input_schema_view(schema)),
            _ => canonical_json_pretty(&serde_json::json!({"type": "object"})),
        };
        warnings.extend(parts.warnings);
        tools.push(ToolModel {
            mcp_name: mcp_name.to_owned(),
            name,
            description: tool.description().map(str::to_owned),
            input_schema,
            digest: tool.digest.clone(),
            consequential: policy.is_consequential(mcp_name, tool.annotations()),
            types: parts.defs,
            output: parts.output,
            schemars: options.schemars,
            marker: parts.marker,
            args: parts.args,
        });
    }
    let offers = offers::offers(snapshot, &mut warnings)?;
    let body = emit::file(
        &snapshot.to_canonical_string(),
        snapshot.tools.len() != listed,
        &tools,
        &offers,
        options.name_prefix.as_deref(),
        options.connection.as_ref(),
    )?;
    let code = header(snapshot, listed) + &formatted(body, options.format, &mut warnings);
    Ok(Generated { code, warnings })
}

/// The emitter's `code` (the file after its header) formatted ([`GenerateOptions::format`],
/// with the feature `format`); on a formatting failure (a bug in this crate) the code as the
/// emitter wrote it, which means the same, and a warning that says so.
fn formatted(
    (code, items): (String, Vec<usize>),
    format: bool,
    warnings: &mut Vec<Warning>,
) -> String {
    #[cfg(feature = "format")]
    if format {
        match format::format(&code, &items) {
            Ok(formatted) => return formatted,
            Err(e) => warnings.push(Warning {
                tool: String::new(),
                pointer: String::new(),
                message: format!(
                    "the generated code could not be formatted ({e}); it is written in the \
                     emitter's layout, which means the same (a bug in oma-mcp-build: please \
                     report it)"
                ),
            }),
        }
    }
    #[cfg(not(feature = "format"))]
    let _ = (format, warnings, items);
    code
}

/// `snapshot` with only the tools [`GenerateOptions::tools`] selects, and `options` without the
/// rename entries of the tools it leaves out (an entry naming no tool of `snapshot` stays, so
/// it is still an error).
fn selected(snapshot: &Snapshot, options: &GenerateOptions) -> (Snapshot, GenerateOptions) {
    let mut options = options.clone();
    options.rename.retain(|tool, _| {
        options.tools.selects(tool) || !snapshot.tools.iter().any(|t| t.name() == tool)
    });
    (options.tools.retain(snapshot), options)
}

/// The `// @generated` header, with the server's name and version when the snapshot has them,
/// and how many of the `listed` tools `snapshot` (the selected ones) holds.
fn header(snapshot: &Snapshot, listed: usize) -> String {
    let mut header =
        String::from("// @generated by oma-mcp-build from an MCP tools snapshot. Do not edit.\n");
    let info = snapshot.server_info.as_ref();
    let field = |key: &str| info.and_then(|i| i.get(key)).and_then(Value::as_str);
    if let Some(server) = field("name") {
        let server = match field("version") {
            Some(version) => format!("{server} {version}"),
            None => server.to_owned(),
        };
        // A line comment: no line breaks or other control characters, bounded length.
        let server: String = server
            .chars()
            .map(|c| {
                if c.is_control() || !c.is_ascii() && !c.is_alphanumeric() {
                    '?'
                } else {
                    c
                }
            })
            .take(120)
            .collect();
        header.push_str(&format!("// Server: {server}\n"));
    }
    if snapshot.tools.len() == listed {
        header.push_str(&format!("// Tools: {listed}\n\n"));
    } else {
        header.push_str(&format!(
            "// Tools: {} of {listed} (the pin's `tools` and `exclude-tools`)\n\n",
            snapshot.tools.len()
        ));
    }
    header
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn snapshot(text: &str) -> Snapshot {
        Snapshot::parse(text, Path::new("test.json")).unwrap()
    }

    #[test]
    fn options_change_the_output() {
        let snap = snapshot(r#"{"tools": [{"name": "rm"}, {"name": "ls"}]}"#);
        let plain = generate(&snap, &GenerateOptions::default()).unwrap().code;
        assert!(
            plain.contains("const NAME: &'static str = \"rm\";"),
            "{plain}"
        );
        assert!(!plain.contains("const CONSEQUENTIAL: bool = true;"));
        let options = GenerateOptions::default()
            .with_name_prefix("fs")
            .with_consequential(["rm"]);
        let code = generate(&snap, &options).unwrap().code;
        assert!(
            code.contains("const NAME: &'static str = \"fs_rm\";"),
            "{code}"
        );
        assert_eq!(code.matches("const CONSEQUENTIAL: bool = true;").count(), 1);
    }

    #[test]
    fn consequential_from_annotations_unless_the_options_say_otherwise() {
        let snap = snapshot(
            r#"{"tools": [
                {"name": "rm", "annotations": {"destructiveHint": true}},
                {"name": "mv", "annotations": {"destructiveHint": true, "readOnlyHint": false}},
                {"name": "ls", "annotations": {"destructiveHint": true, "readOnlyHint": true}},
                {"name": "cat", "annotations": {"destructiveHint": "yes"}},
                {"name": "touch"}
            ]}"#,
        );
        let flags = |options: &GenerateOptions| -> Vec<bool> {
            let code = generate(&snap, options).unwrap().code;
            code.match_indices("const CONSEQUENTIAL: bool = ")
                .map(|(i, m)| code[i + m.len()..].starts_with("true"))
                .collect()
        };
        // Snapshot order is by name: cat, ls, mv, rm, touch.
        let trusted = GenerateOptions::default();
        assert_eq!(flags(&trusted), [false, false, true, true, false]);
        let listed = trusted
            .clone()
            .with_consequential(["touch", "mv"])
            .with_not_consequential(["r*", "mv"]);
        assert_eq!(flags(&listed), [false, false, true, false, true]);
        let ignored = GenerateOptions::default()
            .with_consequential_annotations(AnnotationPolicy::Ignore)
            .with_consequential(["cat"]);
        assert_eq!(flags(&ignored), [true, false, false, false, false]);
    }

    /// A top-level `"required": null` (a Go server's empty list) is no required property: no
    /// warning, every field optional, and the embedded `INPUT_SCHEMA` (what typed calls
    /// validate against) leaves it out; the snapshot embedded beside it keeps it as sent. A
    /// nested `"required": null` is still warned about.
    #[test]
    fn a_top_level_null_required_is_no_required_property() {
        let snap = snapshot(
            r#"{"tools": [{"name": "greet", "inputSchema": {"type": "object",
                "properties": {"name": {"type": "string"}}, "required": null}}]}"#,
        );
        let generated = generate(&snap, &GenerateOptions::default()).unwrap();
        assert_eq!(generated.warnings, []);
        let code = &generated.code;
        assert!(
            code.contains(
                "const INPUT_SCHEMA: &'static str = r#\"{\n  \"properties\": {\n    \"name\": {\n      \
                 \"type\": \"string\"\n    }\n  },\n  \"type\": \"object\"\n}\"#;"
            ),
            "{code}"
        );
        assert!(
            code.contains("pub name: ::core::option::Option<::std::string::String>,"),
            "{code}"
        );
        assert!(code.contains("\n          \"required\": null,\n"), "{code}");
        let nested = snapshot(
            r#"{"tools": [{"name": "t", "inputSchema": {"type": "object", "properties":
                {"p": {"type": "object", "properties": {"q": {"type": "string"}},
                "required": null}}}}]}"#,
        );
        let warnings: Vec<String> = generate(&nested, &GenerateOptions::default())
            .unwrap()
            .warnings
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            warnings,
            [
                "tool \"t\" at /inputSchema/properties/p/required: `required` is null, not an \
              array of names; ignoring it"
            ]
        );
    }

    #[test]
    fn framework_name_collision_is_an_error() {
        let snap = snapshot(r#"{"tools": [{"name": "a/b"}, {"name": "a_b"}]}"#);
        let err = generate(&snap, &GenerateOptions::default()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Duplicate MCP tool name after normalization: \"a_b\" from \"a/b\" and \"a_b\"."
        );
    }

    /// Every tool of a group whose names meet is tagged with the SHA-256 of its own MCP
    /// name (`sha256("get-sum")` starts with `2fb224d8`); none keeps `GetSum` by position.
    #[test]
    fn type_name_collisions_get_distinct_names() {
        let snap = snapshot(
            r#"{"tools": [{"name": "get-sum"}, {"name": "get.sum"}, {"name": "get_sum"}]}"#,
        );
        let code = generate(&snap, &GenerateOptions::default()).unwrap().code;
        assert!(!code.contains("pub struct GetSum;"), "{code}");
        assert_eq!(
            code.matches("#[allow(non_camel_case_types)]").count(),
            6,
            "{code}"
        );
        for name in ["GetSum_h2fb224d8", "GetSum_hbc2dff04", "GetSum_h9096b3e4"] {
            assert!(
                code.contains(&format!("pub struct {name};")),
                "{name}: {code}"
            );
            assert!(
                code.contains(&format!(
                    "pub struct {name}Args {{\n    #[serde(skip)]\n    _non_exhaustive: (),\n}}"
                )),
                "{name}: {code}"
            );
        }
    }

    #[test]
    fn warning_display() {
        let w = Warning {
            tool: "x".into(),
            pointer: "/inputSchema/properties/y".into(),
            message: "bad".into(),
        };
        assert_eq!(
            w.to_string(),
            "tool \"x\" at /inputSchema/properties/y: bad"
        );
    }

    /// A selection that leaves every tool out generates a module without tools, with a
    /// warning that says so.
    #[test]
    fn a_selection_of_no_tool_is_a_warning() {
        let snap = snapshot(r#"{"tools": [{"name": "rm"}, {"name": "ls"}]}"#);
        let none = ToolSelection::new(&[], &["*".to_owned()]).unwrap();
        let generated = generate(&snap, &GenerateOptions::default().with_tools(none)).unwrap();
        assert!(
            generated
                .code
                .contains("pub const TOOL_NAMES: &[&str] = &[];")
        );
        assert_eq!(
            generated
                .warnings
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>(),
            [
                "`tools` and `exclude-tools` select none of the snapshot's 2 tools, so the module \
              has no tool; select the tools the crate uses"
            ]
        );
    }

    #[test]
    fn header_is_one_comment_line_per_fact() {
        let mut snap = snapshot(r#"{"tools": []}"#);
        snap.server_info = Some(serde_json::json!({"name": "evil\n#![x]\u{202e}", "version": "1"}));
        assert_eq!(
            header(&snap, 0),
            "// @generated by oma-mcp-build from an MCP tools snapshot. Do not edit.\n\
             // Server: evil?#![x]? 1\n// Tools: 0\n\n"
        );
    }
}
