//! Enums and aliases: closed string enums (argument values), open string enums (output values,
//! with `Unknown(String)`), enums of exact JSON values, `#[serde(tag)]` and
//! `#[serde(untagged)]` unions, and `pub type` aliases of output types.

use super::super::docs;
use super::super::identifiers;
use super::super::schema::{
    AliasDef, EnumDef, ExactEnumDef, TaggedEnumDef, UNKNOWN_VARIANT, UntaggedEnumDef,
};
use super::super::writer::{Lit, Writer};
use super::{
    GENERATED, JSON, PRIVATE, SCHEMARS, SERDE, TYPES, Type, checked, derives_schemars, lint_list,
    open_deserialize, open_json_schema, open_serialize, serde_type_attrs, type_name,
};
use crate::codegen::ToolModel;
use crate::error::Error;

/// `pub type <Tool>Output = <type>;`.
pub(super) fn alias(w: &mut Writer, tool: &ToolModel, def: &AliasDef) -> Result<(), Error> {
    let name = checked(tool, "/outputSchema", &def.name)?;
    w.item();
    w.docs(&docs::doc_lines(&def.doc));
    w.allow(TYPES);
    w.allow(&lint_list(name, &[]));
    w.line(format_args!("pub type {name} = {};", Type(&def.ty)));
    Ok(())
}

/// The checked variant names of a string enum.
fn variant_names<'a>(tool: &ToolModel, def: &'a EnumDef) -> Result<Vec<&'a str>, Error> {
    def.variants
        .iter()
        .map(|v| type_name(tool, &v.ident))
        .collect()
}

/// `#[allow(non_camel_case_types)]` when a variant's name is tagged (`Unknown_h…`).
fn variant_allow(w: &mut Writer, def: &EnumDef) {
    if !def
        .variants
        .iter()
        .all(|v| identifiers::is_lint_camel_case(&v.ident))
    {
        w.allow(&["non_camel_case_types"]);
    }
}

/// `pub const VALUES: &'static [&'static str] = &[..];` of `values` as string literals.
fn values_const(w: &mut Writer, values: impl Iterator<Item = impl AsRef<str>>) {
    let lits: Vec<String> = values.map(|v| Lit(v.as_ref()).to_string()).collect();
    w.line(format_args!(
        "pub const VALUES: &'static [&'static str] = &[{}];",
        lits.join(", ")
    ));
}

/// `impl Display` through `as_str`.
fn display(w: &mut Writer, name: &str) {
    w.item();
    w.allow(GENERATED);
    w.open(format_args!("impl ::core::fmt::Display for {name}"));
    w.open("fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result");
    w.line("f.write_str(self.as_str())");
    w.close("");
    w.close("");
}

/// A closed string enum (an argument's values): the enum with serde's derives, its impl with
/// `VALUES` and `as_str`, `Display`, and `FromStr`, which rejects other values.
pub(super) fn closed(w: &mut Writer, tool: &ToolModel, def: &EnumDef) -> Result<(), Error> {
    let name = type_name(tool, &def.name)?;
    let idents = variant_names(tool, def)?;
    w.item();
    w.docs(&docs::doc_lines(&def.doc));
    let derives = ["Debug", "Clone", "Copy", "PartialEq", "Eq", "Hash"];
    serde_type_attrs(w, tool, name, TYPES, &derives, "");
    variant_allow(w, def);
    w.open(format_args!("pub enum {name}"));
    for (v, ident) in def.variants.iter().zip(&idents) {
        w.doc(&format!(" The value \"{}\".", docs::inline(&v.value)));
        w.attr(format_args!("serde(rename = {})", Lit(&v.value)));
        w.line(format_args!("{ident},"));
    }
    w.close("");

    w.item();
    w.allow(TYPES);
    w.open(format_args!("impl {name}"));
    w.doc(" Every value the schema allows, in schema order.");
    values_const(w, def.variants.iter().map(|v| &v.value));
    w.doc(" The JSON string of this value.");
    w.open("pub const fn as_str(&self) -> &'static str");
    w.open("match self");
    for (v, ident) in def.variants.iter().zip(&idents) {
        w.line(format_args!("Self::{ident} => {},", Lit(&v.value)));
    }
    w.close("");
    w.close("");
    w.close("");

    display(w, name);

    w.item();
    w.allow(GENERATED);
    w.open(format_args!("impl ::core::str::FromStr for {name}"));
    w.line("type Err = ::oma_mcp_runtime::typed::UnknownEnumValue;");
    w.open("fn from_str(s: &str) -> ::core::result::Result<Self, Self::Err>");
    w.open("match s");
    for (v, ident) in def.variants.iter().zip(&idents) {
        w.line(format_args!(
            "{} => ::core::result::Result::Ok(Self::{ident}),",
            Lit(&v.value)
        ));
    }
    w.line(
        "_ => ::core::result::Result::Err(::oma_mcp_runtime::typed::UnknownEnumValue::new(s, \
         Self::VALUES)),",
    );
    w.close("");
    w.close("");
    w.close("");
    Ok(())
}

/// An output string enum: the schema's values, then `Unknown(String)` holding any other
/// value as sent, so a value the server adds after the snapshot still deserializes (and
/// serializes back unchanged). Hand-written serde impls: a JSON string either way.
pub(super) fn open(w: &mut Writer, tool: &ToolModel, def: &EnumDef) -> Result<(), Error> {
    let name = type_name(tool, &def.name)?;
    let idents = variant_names(tool, def)?;
    let unknown = UNKNOWN_VARIANT;
    let mut doc = docs::doc_lines(&def.doc);
    doc.push(String::new());
    doc.push(format!(
        " A value the schema does not list is kept as sent in [`{}::{unknown}`].",
        def.name
    ));
    w.item();
    w.docs(&doc);
    w.allow(TYPES);
    w.allow(&lint_list(name, &[]));
    variant_allow(w, def);
    w.attr("derive(Debug, Clone, PartialEq, Eq, Hash)");
    w.open(format_args!("pub enum {name}"));
    for (v, ident) in def.variants.iter().zip(&idents) {
        w.doc(&format!(" The value \"{}\".", docs::inline(&v.value)));
        w.line(format_args!("{ident},"));
    }
    w.doc(" A value the schema does not list (added by the server after the snapshot), as sent.");
    w.line(format_args!("{unknown}(::std::string::String),"));
    w.close("");

    w.item();
    w.allow(TYPES);
    w.open(format_args!("impl {name}"));
    w.doc(" Every value the schema lists, in schema order.");
    values_const(w, def.variants.iter().map(|v| &v.value));
    w.doc(" The JSON string of this value.");
    w.open("pub fn as_str(&self) -> &str");
    w.open("match self");
    for (v, ident) in def.variants.iter().zip(&idents) {
        w.line(format_args!("Self::{ident} => {},", Lit(&v.value)));
    }
    w.line(format_args!("Self::{unknown}(value) => value,"));
    w.close("");
    w.close("");
    w.close("");

    display(w, name);

    w.item();
    w.allow(GENERATED);
    w.open(format_args!("impl ::core::convert::From<&str> for {name}"));
    w.open("fn from(value: &str) -> Self");
    w.open("match value");
    for (v, ident) in def.variants.iter().zip(&idents) {
        w.line(format_args!("{} => Self::{ident},", Lit(&v.value)));
    }
    w.line(format_args!(
        "other => Self::{unknown}(::std::borrow::ToOwned::to_owned(other)),"
    ));
    w.close("");
    w.close("");
    w.close("");

    w.item();
    w.allow(GENERATED);
    w.open(format_args!("impl ::core::str::FromStr for {name}"));
    w.line("type Err = ::core::convert::Infallible;");
    w.open("fn from_str(s: &str) -> ::core::result::Result<Self, Self::Err>");
    w.line("::core::result::Result::Ok(::core::convert::From::from(s))");
    w.close("");
    w.close("");

    w.item();
    open_serialize(w, &name);
    w.line("serializer.serialize_str(self.as_str())");
    w.close("");
    w.close("");

    w.item();
    open_deserialize(w, &name);
    w.line(format_args!("use {SERDE};"));
    w.line(
        "let value = <::std::string::String as serde::Deserialize>::deserialize(deserializer)?;",
    );
    w.open("::core::result::Result::Ok(match <Self as ::core::convert::From<&str>>::from(&value)");
    w.line(format_args!(
        "Self::{unknown}(_) => Self::{unknown}(value),"
    ));
    w.line("known => known,");
    w.close(")");
    w.close("");
    w.close("");

    if derives_schemars(tool, &def.name) {
        w.item();
        open_json_schema(w, &name, &def.name);
        w.line(format_args!("let mut schema = {JSON}::Map::new();"));
        w.line("schema.insert(\"type\".into(), \"string\".into());");
        w.line(format_args!(
            "schema.insert(\"examples\".into(), Self::VALUES.iter().map(|v| \
             {JSON}::Value::from(*v)).collect());"
        ));
        w.line(format_args!("{SCHEMARS}::Schema::from(schema)"));
        w.close("");
        w.close("");
    }
    Ok(())
}

/// An enum of exact JSON values, with hand-written serde impls that write and accept
/// exactly those values (compared as `serde_json::Value`s).
pub(super) fn exact(w: &mut Writer, tool: &ToolModel, def: &ExactEnumDef) -> Result<(), Error> {
    let name = type_name(tool, &def.name)?;
    let idents = def
        .variants
        .iter()
        .map(|(ident, _)| type_name(tool, ident))
        .collect::<Result<Vec<_>, Error>>()?;
    let jsons: Vec<&str> = def.variants.iter().map(|(_, json)| json.as_str()).collect();
    let single = def.variants.len() == 1;
    let mut doc = docs::doc_lines(&def.doc);
    doc.push(String::new());
    doc.push(
        " Serializes to exactly the schema's JSON value and accepts only those values.".to_owned(),
    );
    w.item();
    w.docs(&doc);
    w.allow(TYPES);
    w.allow(&lint_list(name, &[]));
    if single {
        w.attr("derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)");
    } else {
        w.attr("derive(Debug, Clone, Copy, PartialEq, Eq, Hash)");
    }
    w.open(format_args!("pub enum {name}"));
    for (i, (ident, json)) in idents.iter().zip(&jsons).enumerate() {
        w.doc(&format!(
            " The JSON value `{}`.",
            docs::inline(&json.replace('`', "'"))
        ));
        if single && i == 0 {
            w.attr("default");
        }
        w.line(format_args!("{ident},"));
    }
    w.close("");

    w.item();
    w.allow(TYPES);
    w.open(format_args!("impl {name}"));
    w.doc(" Every value the schema allows, as JSON text, in schema order.");
    values_const(w, jsons.iter());
    w.doc(" This value as JSON text.");
    w.open("pub const fn as_json(&self) -> &'static str");
    w.open("match self");
    for (ident, json) in idents.iter().zip(&jsons) {
        w.line(format_args!("Self::{ident} => {},", Lit(json)));
    }
    w.close("");
    w.close("");
    w.close("");

    w.item();
    open_serialize(w, &name);
    w.line(format_args!("use {PRIVATE}::{{serde, serde_json}};"));
    w.line(
        "let value: serde_json::Value = serde_json::from_str(self.as_json()).map_err(<S::Error \
         as serde::ser::Error>::custom)?;",
    );
    w.line("serde::Serialize::serialize(&value, serializer)");
    w.close("");
    w.close("");

    if derives_schemars(tool, &def.name) {
        w.item();
        open_json_schema(w, &name, &def.name);
        w.line(format_args!(
            "let values = Self::VALUES.iter().filter_map(|v| \
             {JSON}::from_str::<{JSON}::Value>(v).ok()).collect();"
        ));
        w.line(format_args!("let mut schema = {JSON}::Map::new();"));
        w.line(format_args!(
            "schema.insert(\"enum\".into(), {JSON}::Value::Array(values));"
        ));
        w.line(format_args!("{SCHEMARS}::Schema::from(schema)"));
        w.close("");
        w.close("");
    }

    w.item();
    open_deserialize(w, &name);
    w.line(format_args!("use {PRIVATE}::{{serde, serde_json}};"));
    w.line("let value = <serde_json::Value as serde::Deserialize>::deserialize(deserializer)?;");
    for (ident, json) in idents.iter().zip(&jsons) {
        w.open(format_args!(
            "if serde_json::from_str::<serde_json::Value>({}).is_ok_and(|v| \
             {PRIVATE}::json_equal(&v, &value))",
            Lit(json)
        ));
        w.line(format_args!(
            "return ::core::result::Result::Ok(Self::{ident});"
        ));
        w.close("");
    }
    w.line(format_args!(
        "::core::result::Result::Err(<D::Error as {SERDE}::de::Error>::custom(::std::format!(\
         \"expected one of {{}}, found {{}}\", Self::VALUES.join(\", \"), value)))"
    ));
    w.close("");
    w.close("");
    Ok(())
}

/// A `#[serde(tag)]` enum: one variant per branch, named by the tag's value.
pub(super) fn tagged(w: &mut Writer, tool: &ToolModel, def: &TaggedEnumDef) -> Result<(), Error> {
    let name = type_name(tool, &def.name)?;
    w.item();
    w.docs(&docs::doc_lines(&def.doc));
    let derives = ["Debug", "Clone", "PartialEq"];
    let tag = format!(", tag = {}", Lit(&def.tag));
    serde_type_attrs(w, tool, name, TYPES, &derives, tag);
    w.open(format_args!("pub enum {name}"));
    for v in &def.variants {
        let ident = type_name(tool, &v.ident)?;
        w.doc(&format!(
            " `\"{}\": \"{}\"`.",
            docs::inline(&def.tag),
            docs::inline(&v.value.replace('`', "'"))
        ));
        w.attr(format_args!("serde(rename = {})", Lit(&v.value)));
        match &v.payload {
            Some(payload) => w.line(format_args!("{ident}({}),", type_name(tool, payload)?)),
            None => w.line(format_args!("{ident},")),
        }
    }
    w.close("");
    Ok(())
}

/// A `#[serde(untagged)]` enum: one variant per branch, tried in order.
pub(super) fn untagged(
    w: &mut Writer,
    tool: &ToolModel,
    def: &UntaggedEnumDef,
) -> Result<(), Error> {
    let name = type_name(tool, &def.name)?;
    w.item();
    w.docs(&docs::doc_lines(&def.doc));
    let derives = ["Debug", "Clone", "PartialEq"];
    serde_type_attrs(w, tool, name, TYPES, &derives, ", untagged");
    w.open(format_args!("pub enum {name}"));
    for v in &def.variants {
        let ident = type_name(tool, &v.ident)?;
        w.docs(&docs::doc_lines(&v.doc));
        w.line(format_args!("{ident}({}),", Type(&v.ty)));
    }
    w.close("");
    Ok(())
}
