//! The type model → text, through one [`Writer`] in one pass, laid out as the writer's module
//! docs say.
//!
//! The file is the `// @generated` header (written by the caller), then its items
//! ([`file()`]): the module's
//! `TOOL_NAMES` and `SNAPSHOT` ([`module`]); per tool its marker type and trait impls
//! ([`marker`]), its structs ([`structs`]) and enums and aliases ([`enums`]); the `From`
//! conversions between structs of the same shape; the `prompts` and `resources` submodules
//! ([`offers`]); the pinned connection's `connect_config()`
//! ([`connection`]); and last the items that need oma-mcp-runtime's cargo feature `drift`,
//! inside `::oma_mcp_runtime::drift_items! { … }`.
//!
//! Every top-level item carries the lint exemptions of generated code ([`GENERATED`] and the
//! lists that extend it) in its first `#[allow(..)]`, right after its doc comment: an
//! `include!`d file cannot carry an inner `#![allow(..)]`. Names computed for the code are checked before they are
//! written: a name that is not an identifier is [`Error::InvalidIdentifier`], never text.

mod connection;
mod enums;
mod marker;
mod module;
mod offers;
mod structs;

use std::fmt::{self, Display};

use super::identifiers::{self, RustIdent};
use super::offers::Offers;
use super::schema::{RustType, StructDef, TypeDef};
use super::writer::{Lit, Writer};
use super::{PinnedConnection, ToolModel};
use crate::error::Error;

/// The `#[allow(..)]` of an impl or function with no exemption of its own: the lints
/// generated code conventionally carries `#[allow(..)]` for (as prost's and tonic's output
/// does), `clippy::pedantic` (a user's crate may turn it on; the shapes follow the server's
/// schema, not the user's style) and `missing_docs` (a property without a `description` gets
/// no filler doc comment).
const GENERATED: &[&str] = &["clippy::pedantic", "missing_docs"];

/// The `#[allow(..)]` of an item a user may not use: also `dead_code` (markers, constants,
/// constructor impls, functions).
const UNUSED: &[&str] = &["dead_code", "clippy::pedantic", "missing_docs"];

/// The `#[allow(..)]` of types and their inherent impls: also `clippy::type_complexity` (a
/// type follows its schema however deep).
const TYPES: &[&str] = &[
    "dead_code",
    "clippy::type_complexity",
    "clippy::pedantic",
    "missing_docs",
];

/// The `#[allow(..)]` of structs with fields: also `clippy::manual_non_exhaustive`, which asks
/// for `#[non_exhaustive]` instead of the private field, but that attribute does not bind the
/// crate that includes the module.
const STRUCTS: &[&str] = &[
    "dead_code",
    "clippy::type_complexity",
    "clippy::pedantic",
    "missing_docs",
    "clippy::manual_non_exhaustive",
];

/// The path of the runtime's re-exports for generated code: every generated reference to
/// serde, serde_json, schemars or a runtime helper goes through it, so the user's crate needs
/// no dependency of its own on them.
const PRIVATE: &str = "::oma_mcp_runtime::__private";

/// serde through the runtime's re-export.
const SERDE: &str = "::oma_mcp_runtime::__private::serde";

/// serde_json through the runtime's re-export.
const JSON: &str = "::oma_mcp_runtime::__private::serde_json";

/// schemars through the runtime's re-export.
const SCHEMARS: &str = "::oma_mcp_runtime::__private::schemars";

/// The name of the private field every generated struct has, so that code outside the
/// generated module cannot build it with a struct literal: it goes through `new` (or
/// `Default`) and the setters, and adding an optional property to the schema breaks no call
/// site. A property's field never starts with `_` and a letter, so the name is never taken.
const PRIVATE_FIELD: &str = "_non_exhaustive";

/// The whole file after its header, and where each of its top-level items starts: `TOOL_NAMES`, the embedded `SNAPSHOT`, each tool's items, the
/// same-shape conversions, `connect_config()` when a connection is given, the
/// `drift_items!` block with `drift()` (and `connect()` with a connection), then the
/// `fake_items!` block with `fake()`.
///
/// # Errors
/// [`Error::InvalidIdentifier`] when a name computed for the code is not an identifier (a bug
/// in this crate, never the input's fault).
pub(crate) fn file(
    snapshot: &str,
    selected: bool,
    tools: &[ToolModel],
    offers: &Offers,
    prefix: Option<&str>,
    connection: Option<&PinnedConnection>,
) -> Result<(String, Vec<usize>), Error> {
    let mut w = Writer::new();
    module::head(&mut w, tools, snapshot, selected);
    for tool in tools {
        tool_items(&mut w, tool)?;
    }
    structs::same_shape_conversions(&mut w, tools);
    offers::modules(&mut w, offers)?;
    if let Some(connection) = connection {
        connection::config(&mut w, connection);
    }
    w.item();
    w.open("::oma_mcp_runtime::drift_items!");
    module::drift(&mut w);
    if let Some(connection) = connection {
        connection::connect(&mut w, connection);
    }
    w.close("");
    w.item();
    w.open("::oma_mcp_runtime::fake_items!");
    module::fake(&mut w, prefix);
    w.close("");
    Ok(w.finish_items())
}

/// One tool's items: the marker type and its impls, its types in model order, then the
/// `JsonSchema` impls of its root types (schemars option).
fn tool_items(w: &mut Writer, tool: &ToolModel) -> Result<(), Error> {
    marker::items(w, tool)?;
    for def in &tool.types {
        match def {
            TypeDef::Alias(a) => enums::alias(w, tool, a)?,
            TypeDef::Struct(s) if s.consts.is_empty() => structs::plain(w, tool, s)?,
            TypeDef::Struct(s) => structs::with_consts(w, tool, s)?,
            TypeDef::Enum(e) if e.open => enums::open(w, tool, e)?,
            TypeDef::Enum(e) => enums::closed(w, tool, e)?,
            TypeDef::Exact(e) => enums::exact(w, tool, e)?,
            TypeDef::Tagged(e) => enums::tagged(w, tool, e)?,
            TypeDef::Untagged(e) => enums::untagged(w, tool, e)?,
        }
    }
    marker::exact_schemas(w, tool)
}

/// A unit marker type `marker` (a tool's, a prompt's) with its doc: the item every marker
/// starts with, before its trait impls.
fn unit_marker<S: AsRef<str>>(w: &mut Writer, doc: &[S], marker: &str) {
    w.item();
    w.docs(doc);
    w.allow(UNUSED);
    w.allow(&lint_list(marker, &[]));
    w.attr("derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)");
    w.line(format_args!("pub struct {marker};"));
}

/// A type as Rust text: `Type(&RustType::Vec(..))` displays as `::std::vec::Vec<..>`.
pub(super) struct Type<'a>(pub(super) &'a RustType);

impl Display for Type<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            RustType::String => f.write_str("::std::string::String"),
            RustType::Int(int) => f.write_str(int.name()),
            RustType::F64 => f.write_str("f64"),
            RustType::Bool => f.write_str("bool"),
            RustType::Tuple(items) => {
                f.write_str("(")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{}", Type(item))?;
                }
                // A one-element tuple keeps its comma.
                f.write_str(if items.len() == 1 { ",)" } else { ")" })
            }
            RustType::Map(value) => write!(
                f,
                "::std::collections::BTreeMap<::std::string::String, {}>",
                Type(value)
            ),
            RustType::Boxed(inner) => write!(f, "::std::boxed::Box<{}>", Type(inner)),
            RustType::Vec(item) => write!(f, "::std::vec::Vec<{}>", Type(item)),
            RustType::JsonMap => write!(f, "{JSON}::Map<::std::string::String, {JSON}::Value>"),
            RustType::Value => write!(f, "{JSON}::Value"),
            RustType::Option(inner) => write!(f, "::core::option::Option<{}>", Type(inner)),
            // Checked when the type itself is written; a name that is not an identifier is
            // never written (it is a bug, reported there).
            RustType::Named(name) if identifiers::is_plain_ident(name) => f.write_str(name),
            RustType::Named(_) => write!(f, "{JSON}::Value"),
        }
    }
}

/// `name` when it is a plain identifier (a type or variant name), else
/// [`Error::InvalidIdentifier`] at `pointer` of `tool`.
fn checked<'a>(tool: &ToolModel, pointer: &str, name: &'a str) -> Result<&'a str, Error> {
    if identifiers::is_plain_ident(name) {
        Ok(name)
    } else {
        Err(Error::InvalidIdentifier {
            tool: tool.mcp_name.clone(),
            pointer: pointer.to_owned(),
            ident: name.to_owned(),
        })
    }
}

/// A type or variant name of `tool`'s types, checked ([`checked`] at `/inputSchema`).
fn type_name<'a>(tool: &ToolModel, name: &'a str) -> Result<&'a str, Error> {
    checked(tool, "/inputSchema", name)
}

/// A field name (maybe raw), checked: [`Error::InvalidIdentifier`] at `pointer` unless valid.
fn field_name<'a>(
    tool: &ToolModel,
    pointer: &str,
    ident: &'a RustIdent,
) -> Result<&'a RustIdent, Error> {
    if identifiers::is_valid(ident) {
        Ok(ident)
    } else {
        Err(Error::InvalidIdentifier {
            tool: tool.mcp_name.clone(),
            pointer: pointer.to_owned(),
            ident: ident.to_string(),
        })
    }
}

/// The lints a type `name` (empty: none to check) with `fields` would trip:
/// `non_camel_case_types` for a name rustc's lint rejects (a tagged name such as
/// `SearchA_h…`, or a user-chosen one), `non_snake_case` when a field's is (tagged fields such
/// as `foo_bar__h…`).
fn lint_list(name: &str, fields: &[&RustIdent]) -> Vec<&'static str> {
    let mut lints = Vec::new();
    if !name.is_empty() && !identifiers::is_lint_camel_case(name) {
        lints.push("non_camel_case_types");
    }
    if fields
        .iter()
        .any(|f| !identifiers::is_lint_snake_case(&f.name))
    {
        lints.push("non_snake_case");
    }
    lints
}

/// Every field identifier of a struct: properties, `const` properties, the extra map.
fn field_names(def: &StructDef) -> Vec<&RustIdent> {
    def.fields
        .iter()
        .map(|f| &f.ident)
        .chain(def.consts.iter().map(|c| &c.ident))
        .chain(def.extra.iter().map(|e| &e.ident))
        .collect()
}

/// Whether the type `name` derives (or, for exact-value enums, builds) its `JsonSchema`:
/// when the tool asks for schemars, except for the root argument and output types, whose
/// `JsonSchema` is the tool's exact schema ([`marker::exact_schemas`]).
fn derives_schemars(tool: &ToolModel, name: &str) -> bool {
    tool.schemars
        && !exact_schema_roots(tool)
            .iter()
            .any(|(root, _)| *root == name)
}

/// Which of the tool's schemas a root type is.
#[derive(Clone, Copy)]
enum RootSchema {
    /// `<Tool>Args`: `inputSchema`.
    Input,
    /// `<Tool>Output`: `outputSchema`, or its `result` member in FastMCP's wrapped form.
    Output { wrapped: bool },
}

/// The root types whose `JsonSchema` is the tool's own schema, with the schema each is.
/// Type aliases (of a JSON object map, an `i32`, ..) are not among them: a foreign type has
/// its own `JsonSchema`.
fn exact_schema_roots(tool: &ToolModel) -> Vec<(&str, RootSchema)> {
    let is_defined = |name: &str| {
        tool.types
            .iter()
            .any(|d| d.name() == name && !matches!(d, TypeDef::Alias(_)))
    };
    let mut roots = Vec::new();
    if is_defined(&tool.args) {
        roots.push((tool.args.as_str(), RootSchema::Input));
    }
    if let Some(output) = &tool.output
        && let RustType::Named(name) = &output.ty
        && is_defined(name)
    {
        let wrapped = output.wrapped;
        roots.push((name.as_str(), RootSchema::Output { wrapped }));
    }
    roots
}

/// The attributes every generated serde type carries, after its doc: `#[allow(lints)]` (its
/// exemptions: [`TYPES`] or [`STRUCTS`]), the type's name lint, the `std` derives in `derives`, `JsonSchema` when the type derives it, serde's derives through the
/// runtime's re-export, `#[serde(crate = .., args)]` (`args` starts with `, ` when not
/// empty) and `#[schemars(crate = ..)]` with `JsonSchema`.
fn serde_type_attrs(
    w: &mut Writer,
    tool: &ToolModel,
    name: &str,
    lints: &[&str],
    derives: &[&str],
    args: impl Display,
) {
    w.allow(lints);
    w.allow(&lint_list(name, &[]));
    let schemars = derives_schemars(tool, name);
    let mut list = derives.join(", ");
    if schemars {
        list.push_str(&format!(", {SCHEMARS}::JsonSchema"));
    }
    w.attr(format_args!(
        "derive({list}, {SERDE}::Serialize, {SERDE}::Deserialize)"
    ));
    w.attr(format_args!("serde(crate = \"{SERDE}\"{args})"));
    if schemars {
        w.attr(format_args!("schemars(crate = \"{SCHEMARS}\")"));
    }
}

/// Opens `impl Serialize for <name>` and its `fn serialize` (after the caller's `w.item()`);
/// the caller writes the body and closes both.
pub(super) fn open_serialize(w: &mut Writer, name: &impl std::fmt::Display) {
    w.allow(GENERATED);
    w.open(format_args!("impl {SERDE}::Serialize for {name}"));
    w.open(format_args!(
        "fn serialize<S: {SERDE}::Serializer>(&self, serializer: S) -> \
         ::core::result::Result<S::Ok, S::Error>"
    ));
}

/// Opens `impl<'de> Deserialize<'de> for <name>` and its `fn deserialize` (after the caller's
/// `w.item()`); the caller writes the body and closes both.
pub(super) fn open_deserialize(w: &mut Writer, name: &impl std::fmt::Display) {
    w.allow(GENERATED);
    w.open(format_args!(
        "impl<'de> {SERDE}::Deserialize<'de> for {name}"
    ));
    w.open(format_args!(
        "fn deserialize<D: {SERDE}::Deserializer<'de>>(deserializer: D) -> \
         ::core::result::Result<Self, D::Error>"
    ));
}

/// Opens `impl JsonSchema for <ident>` with its `schema_name()` returning `schema`, then its
/// `fn json_schema` (after the caller's `w.item()` and doc lines); the caller writes the body
/// and closes both.
pub(super) fn open_json_schema(w: &mut Writer, ident: &impl std::fmt::Display, schema: &str) {
    w.allow(GENERATED);
    w.open(format_args!("impl {SCHEMARS}::JsonSchema for {ident}"));
    schema_name(w, schema);
    w.open(format_args!(
        "fn json_schema(_: &mut {SCHEMARS}::SchemaGenerator) -> {SCHEMARS}::Schema"
    ));
}

/// `fn schema_name() -> Cow<'static, str>` returning `name`, the first item of every
/// `JsonSchema` impl written here.
fn schema_name(w: &mut Writer, name: &str) {
    w.open("fn schema_name() -> ::std::borrow::Cow<'static, str>");
    w.line(format_args!("::std::borrow::Cow::Borrowed({})", Lit(name)));
    w.close("");
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use oma_mcp_core::Snapshot;

    use crate::codegen::{GenerateOptions, generate};

    /// Names, descriptions, property names and enum values that try to break out of their
    /// literal, comment or identifier.
    const HOSTILE: &str = r##"{"tools": [{
        "name": "a\"); } fn evil() { (\"\n\r\u0000\u202e",
        "description": "*/ \"# } {\n/// #[doc = x]\r\n\\",
        "inputSchema": {"type": "object", "properties": {
            "x\"y\n": {"type": "string", "enum": ["\"}", "\n", "\\0"]},
            "type": {"type": "string", "description": "line\u2028sep \u0000 nul"}
        }, "required": ["type"]}
    }]}"##;

    /// The string values of `#[serde(rename = "…")]` attributes in `code`.
    fn renames(code: &str) -> Vec<String> {
        let file = syn::parse_file(code).unwrap();
        let mut out = Vec::new();
        let mut attrs: Vec<&syn::Attribute> = Vec::new();
        for item in &file.items {
            match item {
                syn::Item::Struct(s) => {
                    for f in &s.fields {
                        attrs.extend(&f.attrs);
                    }
                }
                syn::Item::Enum(e) => {
                    for v in &e.variants {
                        attrs.extend(&v.attrs);
                    }
                }
                _ => {}
            }
        }
        for attr in attrs.into_iter().filter(|a| a.path().is_ident("serde")) {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("rename") {
                    let lit: syn::LitStr = meta.value()?.parse()?;
                    out.push(lit.value());
                } else if meta.input.peek(syn::Token![=]) {
                    let _: syn::Expr = meta.value()?.parse()?;
                }
                Ok(())
            })
            .unwrap();
        }
        out
    }

    /// Hostile text stays the value of its literal; the code parses; the same input gives the
    /// same bytes.
    #[test]
    fn hostile_names_and_texts_survive_as_literal_values() {
        let snapshot = Snapshot::parse(HOSTILE, Path::new("hostile.json")).unwrap();
        let code = generate(&snapshot, &GenerateOptions::default())
            .unwrap()
            .code;
        assert_eq!(
            code,
            generate(&snapshot, &GenerateOptions::default())
                .unwrap()
                .code
        );
        assert!(!code.contains(['\r', '\0', '\u{202e}']), "{code}");
        assert_eq!(
            renames(&code),
            ["x\"y\n", "\"}", "\n", "\\0"],
            "the property and the enum values, as sent:\n{code}"
        );
        let file = syn::parse_file(&code).unwrap();
        let consts: Vec<(String, String)> = file
            .items
            .iter()
            .filter_map(|item| match item {
                syn::Item::Impl(imp) => Some(imp),
                _ => None,
            })
            .flat_map(|imp| &imp.items)
            .filter_map(|item| match item {
                syn::ImplItem::Const(c) => match &c.expr {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }) => Some((c.ident.to_string(), s.value())),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        let name = "a\"); } fn evil() { (\"\n\r\0\u{202e}";
        assert!(
            consts.contains(&("MCP_NAME".to_owned(), name.to_owned())),
            "{consts:?}"
        );
        // The property `type` is a raw identifier; its nested enum a type of its own.
        assert!(
            code.contains("pub r#type: ::std::string::String,"),
            "{code}"
        );
        assert!(code.contains("pub enum "), "{code}");
    }
}
