//! The item shapes written directly as text ([`super::super::text`]), the same text the token
//! path gives them after prettyplease: `TOOL_NAMES` and `SNAPSHOT`, the marker type with its
//! `McpTool`, `ToolArgs` and `NotConsequential` impls, the structs without `const`
//! properties with their constructor impls, and closed string enums with their impls. Each
//! function returns `None` for an input it does not lay out (a tuple type, a header or a
//! match arm that would wrap, a doc line prettyplease would not write as `///`); the caller
//! then takes the token path for those items.
//!
//! Every item carries the lint exemptions [`super::allow_generated_lints`] adds on the
//! token path: in its first `#[allow(..)]`, or in one of its own after its doc comment.

use super::super::docs;
use super::super::names::{self, RustIdent};
use super::super::schema::{EnumDef, ExtraRole, Field, RustType, StructDef};
use super::super::text::{Init, MARGIN, Ty, Writer, str_lit};
use super::{PRIVATE_FIELD, ToolModel, derives_schemars, lint_list, taken_as_is};

/// The lints every generated item is exempt from (appended to its first `#[allow(..)]`).
const GENERATED: [&str; 2] = ["clippy::pedantic", "missing_docs"];

/// The type `ty` as [`super::rust_type`] writes it; `None` for a tuple (its layout is not
/// reproduced here).
pub(super) fn ty(ty: &RustType) -> Option<Ty> {
    const PRIVATE_JSON: &str = "::oma_mcp_runtime::__private::serde_json";
    Some(match ty {
        RustType::String => Ty::plain("::std::string::String"),
        RustType::Int(int) => Ty::plain(int.name()),
        RustType::Tuple(_) => return None,
        RustType::Map(value) => Ty::generic(
            "::std::collections::BTreeMap",
            vec![Ty::plain("::std::string::String"), self::ty(value)?],
        ),
        RustType::Boxed(inner) => Ty::generic("::std::boxed::Box", vec![self::ty(inner)?]),
        RustType::F64 => Ty::plain("f64"),
        RustType::Bool => Ty::plain("bool"),
        RustType::Vec(item) => Ty::generic("::std::vec::Vec", vec![self::ty(item)?]),
        RustType::JsonMap => Ty::generic(
            format!("{PRIVATE_JSON}::Map"),
            vec![
                Ty::plain("::std::string::String"),
                Ty::plain(format!("{PRIVATE_JSON}::Value")),
            ],
        ),
        RustType::Value => Ty::plain(format!("{PRIVATE_JSON}::Value")),
        RustType::Option(inner) => Ty::generic("::core::option::Option", vec![self::ty(inner)?]),
        RustType::Named(name) if names::is_plain_ident(name) => Ty::plain(name.as_str()),
        RustType::Named(_) => self::ty(&RustType::Value)?,
    })
}

/// `#[allow(lints)]` at the top level unless `lints` is empty.
fn allow(w: &mut Writer, lints: &[&str]) {
    if !lints.is_empty() {
        w.attr_list(0, "allow", lints);
    }
}

/// Whether `line` (an impl header such as `impl Trait for Type {`) stays on one line:
/// prettyplease breaks before `for` when it passes [`MARGIN`]; that layout is left to the
/// token path.
fn one_line(line: &str) -> Option<()> {
    (line.len() <= MARGIN).then_some(())
}

/// The marker type of a tool and its trait impls, each item's text: the unit struct with
/// `doc`, `impl McpTool`, `impl ToolArgs` for the argument type, and `impl
/// NotConsequential` unless the tool is consequential.
pub(super) fn marker_items(
    tool: &ToolModel,
    doc: &[String],
    output: Option<&RustType>,
) -> Option<Vec<String>> {
    let (marker, args) = (tool.marker.as_str(), tool.args.as_str());
    if !names::is_plain_ident(marker) || !names::is_plain_ident(args) {
        return None;
    }
    let mut items = Vec::with_capacity(4);

    let mut w = Writer::new();
    w.docs(0, doc)?;
    w.line(0, "#[allow(dead_code, clippy::pedantic, missing_docs)]");
    allow(&mut w, &lint_list(marker, &[]));
    w.line(
        0,
        "#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]",
    );
    w.line(0, &format!("pub struct {marker};"));
    items.push(w.finish());

    // `impl McpTool`: consts on one line each (prettyplease never breaks after a const's
    // `=`); `Some(..)` of a description or an output schema always breaks, its line
    // prefix alone passing the margin.
    let output_ty = match output {
        Some(output) => ty(output)?,
        None => ty(&RustType::Option(Box::new(RustType::Value)))?,
    };
    let mut w = Writer::new();
    w.line(0, "#[allow(clippy::pedantic, missing_docs)]");
    let header = format!("impl ::oma_mcp_runtime::McpTool for {marker} {{");
    one_line(&header)?;
    w.line(0, &header);
    let type_args = format!("    type Args = {args};");
    one_line(&type_args)?;
    w.line(0, &type_args);
    // `type Output = ..;`: generic arguments break as in a field ([`Writer::ty`]).
    w.indent(4);
    w.push("type Output = ");
    w.ty(&output_ty, 4, 1);
    w.push(";");
    w.newline();
    let lit_const = |w: &mut Writer, name: &str, value: &str| {
        w.indent(4);
        w.push("const ");
        w.push(name);
        w.push(": &'static str = ");
        w.push_lit(value);
        w.push(";");
        w.newline();
    };
    let some_const = |w: &mut Writer, name: &str, value: &str| {
        w.indent(4);
        w.push("const ");
        w.push(name);
        w.push(": ::core::option::Option<&'static str> = ::core::option::Option::Some(");
        w.newline();
        w.indent(8);
        w.push_lit(value);
        w.push(",");
        w.newline();
        w.line(4, ");");
    };
    lit_const(&mut w, "MCP_NAME", &tool.mcp_name);
    lit_const(&mut w, "NAME", &tool.name);
    match &tool.description {
        Some(description) => some_const(&mut w, "DESCRIPTION", description),
        None => w.line(
            4,
            "const DESCRIPTION: ::core::option::Option<&'static str> = \
             ::core::option::Option::None;",
        ),
    }
    lit_const(&mut w, "INPUT_SCHEMA", &tool.input_schema);
    if let Some(output) = &tool.output {
        some_const(&mut w, "OUTPUT_SCHEMA", &output.schema);
        if output.wrapped {
            w.line(4, "const OUTPUT_WRAPPED: bool = true;");
        }
    }
    lit_const(&mut w, "DIGEST", &tool.digest);
    w.line(
        4,
        if tool.consequential {
            "const CONSEQUENTIAL: bool = true;"
        } else {
            "const CONSEQUENTIAL: bool = false;"
        },
    );
    w.line(
        4,
        "fn validators() -> &'static ::oma_mcp_runtime::typed::ToolValidators {",
    );
    w.line(
        8,
        "static VALIDATORS: ::oma_mcp_runtime::typed::ToolValidators = \
         ::oma_mcp_runtime::typed::ToolValidators::new();",
    );
    w.line(8, "&VALIDATORS");
    w.line(4, "}");
    w.line(0, "}");
    items.push(w.finish());

    let mut w = Writer::new();
    w.line(0, "#[allow(clippy::pedantic, missing_docs)]");
    let header = format!("impl ::oma_mcp_runtime::ToolArgs for {args} {{");
    one_line(&header)?;
    w.line(0, &header);
    w.line(4, &format!("type Tool = {marker};"));
    w.line(0, "}");
    items.push(w.finish());

    if !tool.consequential {
        let mut w = Writer::new();
        w.line(0, "#[allow(clippy::pedantic, missing_docs)]");
        let line = format!("impl ::oma_mcp_runtime::NotConsequential for {marker} {{}}");
        one_line(&line)?;
        w.line(0, &line);
        items.push(w.finish());
    }
    Some(items)
}

/// The first items of the module: `TOOL_NAMES` with the tool table `table` as its doc, and
/// `SNAPSHOT` ([`super::module_head`]).
pub(super) fn module_head(
    tools: &[ToolModel],
    table: &[String],
    snapshot: &str,
) -> Option<[String; 2]> {
    let mut w = Writer::new();
    w.docs(0, table)?;
    w.line(0, "#[allow(dead_code, clippy::pedantic, missing_docs)]");
    let names: Vec<String> = tools.iter().map(|t| str_lit(&t.mcp_name)).collect();
    w.array_const(0, "pub const TOOL_NAMES: &[&str] = &", &names);
    let names = w.finish();
    let mut w = Writer::new();
    w.line(
        0,
        "/// The snapshot this module was generated from (canonical JSON text, as committed), for",
    );
    w.line(
        0,
        "/// drift checks at run time: see `drift()` (oma-mcp-runtime's cargo feature `drift`).",
    );
    w.line(0, "#[allow(dead_code, clippy::pedantic, missing_docs)]");
    w.indent(0);
    w.push("pub const SNAPSHOT: &str = ");
    w.push_lit(snapshot);
    w.push(";");
    w.newline();
    Some([names, w.finish()])
}

/// A field identifier as written (`r#type`), `None` unless valid.
fn field_name(ident: &RustIdent) -> Option<String> {
    names::is_valid(ident).then(|| ident.to_string())
}

/// A struct without `const` properties ([`super::struct_item`]): the struct, then its
/// constructor impl. `doc` is the struct's doc lines (with the constructor example).
pub(super) fn struct_items(
    tool: &ToolModel,
    def: &StructDef,
    doc: &[String],
) -> Option<[String; 2]> {
    if !names::is_plain_ident(&def.name) {
        return None;
    }
    let name = def.name.as_str();
    let field_names = super::field_names(def);
    let mut w = Writer::new();
    w.docs(0, doc)?;
    let mut lints = vec!["dead_code", "clippy::type_complexity"];
    lints.extend(GENERATED);
    lints.push("clippy::manual_non_exhaustive");
    w.attr_list(0, "allow", &lints);
    allow(&mut w, &lint_list(name, &[]));
    let schemars = derives_schemars(tool, name);
    let mut derives = vec!["Debug", "Clone", "PartialEq"];
    if def.all_optional() {
        derives.push("Default");
    }
    derive_attrs(&mut w, derives, schemars);
    allow(&mut w, &lint_list("", &field_names));
    w.line(0, &format!("pub struct {name} {{"));
    for f in &def.fields {
        field(&mut w, f)?;
    }
    if let Some(extra) = &def.extra {
        let ident = field_name(&extra.ident)?;
        let map = ty(&RustType::Map(Box::new(extra.value.clone())))?;
        w.doc(
            4,
            match extra.role {
                ExtraRole::Declared => {
                    " Properties beyond the declared ones (`additionalProperties`)."
                }
                ExtraRole::Unlisted => {
                    " Properties the schema does not list, kept as sent (a server may add \
                     some after the snapshot)."
                }
                ExtraRole::Untyped => " Every property (the arguments are not typed).",
            },
        )?;
        w.line(4, "#[serde(flatten)]");
        typed_line(&mut w, 4, &format!("pub {ident}: "), &map);
    }
    w.line(4, "#[serde(skip)]");
    w.line(4, &format!("{PRIVATE_FIELD}: (),"));
    w.line(0, "}");
    let item = w.finish();
    Some([item, constructor(def)?])
}

/// `prefix` and `ty` then `,` as one field line at `indent` ([`Writer::ty`]).
fn typed_line(w: &mut Writer, indent: usize, prefix: &str, ty: &Ty) {
    w.indent(indent);
    w.push(prefix);
    w.ty(ty, indent, 1);
    w.push(",");
    w.newline();
}

/// One public field with serde attributes ([`super::field`] with `FieldUse::Public { serde:
/// true }`): its doc, its `#[serde(..)]` ([`Writer::attr_list`]), `pub name: type,`.
fn field(w: &mut Writer, f: &Field) -> Option<()> {
    let ident = field_name(&f.ident)?;
    let optional = !f.required;
    let field_ty = if optional && !f.ty.is_option() {
        ty(&RustType::Option(Box::new(f.ty.clone())))?
    } else {
        ty(&f.ty)?
    };
    w.docs(4, &super::field_doc(f))?;
    let mut serde_args = Vec::new();
    if names::needs_rename(&f.ident, &f.json_name) {
        let mut arg = String::from("rename = ");
        super::super::text::push_str_lit(&mut arg, &f.json_name);
        serde_args.push(arg);
    }
    if optional {
        serde_args.push("skip_serializing_if = \"::core::option::Option::is_none\"".to_owned());
        serde_args.push("default".to_owned());
    } else if f.ty.is_option() {
        serde_args.push(
            "deserialize_with = \"::oma_mcp_runtime::__private::required_nullable\"".to_owned(),
        );
    }
    if !serde_args.is_empty() {
        w.attr_list(4, "serde", &serde_args);
    }
    typed_line(w, 4, &format!("pub {ident}: "), &field_ty);
    Some(())
}

/// The parameter type of a constructor or setter ([`super::parameter`]): the type as it
/// is for numbers, booleans and tuples, else `impl Into<type>`.
fn parameter(field_ty: &RustType) -> Option<Ty> {
    let t = ty(field_ty)?;
    Some(if taken_as_is(field_ty) {
        t
    } else {
        Ty::generic("impl ::core::convert::Into", vec![t])
    })
}

/// `impl <Struct> { new(..), with_<field>(..) }` ([`super::constructor_items`]).
fn constructor(def: &StructDef) -> Option<String> {
    let required = def.constructor_fields();
    let mut params = Vec::with_capacity(required.len());
    let mut inits = Vec::with_capacity(def.fields.len() + 2);
    for f in &required {
        let ident = field_name(&f.ident)?;
        let t = parameter(&f.ty)?;
        inits.push(if taken_as_is(&f.ty) {
            Init::text(ident.as_str())
        } else {
            Init::call(
                format!("{ident}: ::core::convert::Into::into"),
                ident.as_str(),
            )
        });
        params.push((format!("{ident}: "), Some(t)));
    }
    let mut w = Writer::new();
    w.line(0, "#[allow(dead_code, clippy::pedantic, missing_docs)]");
    allow(&mut w, &lint_list("", &super::field_names(def)));
    let header = format!("impl {} {{", def.name);
    one_line(&header)?;
    w.line(0, &header);

    let mut setters = Writer::new();
    for f in def.fields.iter().filter(|f| !f.required) {
        let ident = field_name(&f.ident)?;
        inits.push(Init::text(format!("{ident}: ::core::option::Option::None")));
        let inner = match &f.ty {
            RustType::Option(inner) => inner.as_ref(),
            other => other,
        };
        let t = parameter(inner)?;
        let expr = if taken_as_is(inner) {
            ident.clone()
        } else {
            format!("::core::convert::Into::into({ident})")
        };
        setters.docs(4, &docs::wrap(&super::setter_doc(f)))?;
        setters.line(4, "#[must_use]");
        setters.signature(
            4,
            &format!("pub fn with_{}", f.ident.name),
            &[
                ("mut self".to_owned(), None),
                (format!("{ident}: "), Some(t)),
            ],
            ") -> Self {",
        );
        // `self.x = Some(expr);`: the call's argument block breaks when the statement
        // passes the margin (prettyplease rule: call arguments, as generic arguments).
        let assign = format!("self.{ident} = ::core::option::Option::Some(");
        if 8 + assign.len() + expr.len() + 2 <= MARGIN {
            setters.line(8, &format!("{assign}{expr});"));
        } else {
            // The argument alone on its line; an argument that would itself break is
            // left to the token path.
            if 12 + expr.len() > MARGIN {
                return None;
            }
            setters.line(8, &assign);
            setters.line(12, &format!("{expr},"));
            setters.line(8, ");");
        }
        setters.line(8, "self");
        setters.line(4, "}");
    }
    if let Some(extra) = &def.extra {
        let ident = field_name(&extra.ident)?;
        inits.push(Init::text(format!(
            "{ident}: ::core::default::Default::default()"
        )));
    }
    inits.push(Init::text(format!("{PRIVATE_FIELD}: ()")));

    w.docs(4, &docs::wrap(&super::constructor_doc(def, &required)))?;
    w.line(4, "#[must_use]");
    if !params.is_empty() {
        w.line(4, "#[allow(clippy::too_many_arguments)]");
    }
    w.signature(4, "pub fn new", &params, ") -> Self {");
    w.self_literal(8, &inits);
    w.line(4, "}");
    let mut out = w.finish();
    out.push_str(&setters.finish());
    out.push_str("}\n");
    Some(out)
}

/// A closed string enum ([`super::enum_item`] when not open): the enum, its impl with
/// `VALUES` and `as_str`, `Display` and `FromStr`.
pub(super) fn enum_items(tool: &ToolModel, def: &EnumDef) -> Option<[String; 4]> {
    if !names::is_plain_ident(&def.name)
        || def.variants.is_empty()
        || def
            .variants
            .iter()
            .any(|v| !names::is_plain_ident(&v.ident))
    {
        return None;
    }
    let name = def.name.as_str();
    let mut w = Writer::new();
    w.docs(0, &docs::doc_lines(&def.doc))?;
    let mut lints = vec!["dead_code", "clippy::type_complexity"];
    lints.extend(GENERATED);
    w.attr_list(0, "allow", &lints);
    allow(&mut w, &lint_list(name, &[]));
    let schemars = derives_schemars(tool, name);
    let derives = vec!["Debug", "Clone", "Copy", "PartialEq", "Eq", "Hash"];
    derive_attrs(&mut w, derives, schemars);
    if def
        .variants
        .iter()
        .any(|v| !names::is_lint_camel_case(&v.ident))
    {
        w.line(0, "#[allow(non_camel_case_types)]");
    }
    w.line(0, &format!("pub enum {name} {{"));
    let lits: Vec<String> = def.variants.iter().map(|v| str_lit(&v.value)).collect();
    for (v, lit) in def.variants.iter().zip(&lits) {
        w.doc(4, &format!(" The value \"{}\".", docs::inline(&v.value)))?;
        w.attr_list(4, "serde", &[format!("rename = {lit}")]);
        w.line(4, &format!("{},", v.ident));
    }
    w.line(0, "}");
    let the_enum = w.finish();

    let mut w = Writer::new();
    w.line(
        0,
        "#[allow(dead_code, clippy::type_complexity, clippy::pedantic, missing_docs)]",
    );
    let header = format!("impl {name} {{");
    one_line(&header)?;
    w.line(0, &header);
    w.line(4, "/// Every value the schema allows, in schema order.");
    w.array_const(4, "pub const VALUES: &'static [&'static str] = &", &lits);
    w.line(4, "/// The JSON string of this value.");
    w.line(4, "pub const fn as_str(&self) -> &'static str {");
    w.line(8, "match self {");
    for (v, lit) in def.variants.iter().zip(&lits) {
        // A match arm that would not fit is wrapped in a block by prettyplease; that
        // layout is left to the token path.
        let arm = format!("Self::{} => {lit},", v.ident);
        if 12 + arm.len() > MARGIN {
            return None;
        }
        w.line(12, &arm);
    }
    w.line(8, "}");
    w.line(4, "}");
    w.line(0, "}");
    let the_impl = w.finish();

    let mut w = Writer::new();
    w.line(0, "#[allow(clippy::pedantic, missing_docs)]");
    let header = format!("impl ::core::fmt::Display for {name} {{");
    one_line(&header)?;
    w.line(0, &header);
    w.line(
        4,
        "fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {",
    );
    w.line(8, "f.write_str(self.as_str())");
    w.line(4, "}");
    w.line(0, "}");
    let display = w.finish();

    let mut w = Writer::new();
    w.line(0, "#[allow(clippy::pedantic, missing_docs)]");
    let header = format!("impl ::core::str::FromStr for {name} {{");
    one_line(&header)?;
    w.line(0, &header);
    w.line(4, "type Err = ::oma_mcp_runtime::typed::UnknownEnumValue;");
    w.line(
        4,
        "fn from_str(s: &str) -> ::core::result::Result<Self, Self::Err> {",
    );
    w.line(8, "match s {");
    for (v, lit) in def.variants.iter().zip(&lits) {
        let arm = format!("{lit} => ::core::result::Result::Ok(Self::{}),", v.ident);
        if 12 + arm.len() > MARGIN {
            return None;
        }
        w.line(12, &arm);
    }
    w.line(12, "_ => {");
    w.line(16, "::core::result::Result::Err(");
    w.line(
        20,
        "::oma_mcp_runtime::typed::UnknownEnumValue::new(s, Self::VALUES),",
    );
    w.line(16, ")");
    w.line(12, "}");
    w.line(8, "}");
    w.line(4, "}");
    w.line(0, "}");
    let from_str = w.finish();
    Some([the_enum, the_impl, display, from_str])
}

/// The derives of a generated type: `derives`, then `JsonSchema` (with `schemars`) and serde's
/// two, all through the runtime's re-exports, then the `#[serde(crate = ..)]` (and
/// `#[schemars(crate = ..)]`) attributes that make the derives use those re-exports.
fn derive_attrs(w: &mut Writer, mut derives: Vec<&str>, schemars: bool) {
    if schemars {
        derives.push("::oma_mcp_runtime::__private::schemars::JsonSchema");
    }
    derives.push("::oma_mcp_runtime::__private::serde::Serialize");
    derives.push("::oma_mcp_runtime::__private::serde::Deserialize");
    w.attr_list(0, "derive", &derives);
    w.line(
        0,
        "#[serde(crate = \"::oma_mcp_runtime::__private::serde\")]",
    );
    if schemars {
        w.line(
            0,
            "#[schemars(crate = \"::oma_mcp_runtime::__private::schemars\")]",
        );
    }
}
