//! Structs: the struct with its fields (serde derives, or with `const` properties
//! hand-written serde impls), its constructor `new` and setters `with_<field>`, and the
//! conversions between structs of the same shape (`SameShape`, `reshape`).

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

use super::super::docs;
use super::super::identifiers;
use super::super::schema::{ExtraRole, Field, RustType, StructDef, TypeDef};
use super::super::writer::{Lit, Writer};
use super::{
    GENERATED, JSON, PRIVATE, PRIVATE_FIELD, SCHEMARS, SERDE, STRUCTS, Type, UNUSED,
    derives_schemars, field_name, field_names, lint_list, open_deserialize, open_serialize,
    serde_type_attrs, type_name,
};
use crate::codegen::ToolModel;
use crate::error::Error;

/// A struct without `const` properties: serde's derives read its fields' attributes. Then its
/// constructor impl.
pub(super) fn plain(w: &mut Writer, tool: &ToolModel, def: &StructDef) -> Result<(), Error> {
    let name = type_name(tool, &def.name)?;
    w.item();
    w.docs(&docs::doc_lines(&def.doc));
    w.docs(&constructor_example(def));
    let mut derives = vec!["Debug", "Clone", "PartialEq"];
    if def.all_optional() {
        derives.push("Default");
    }
    serde_type_attrs(w, tool, name, STRUCTS, &derives, "");
    w.allow(&lint_list("", &field_names(def)));
    w.open(format_args!("pub struct {name}"));
    fields(w, tool, def, FieldUse::Public { serde: true })?;
    w.close("");
    constructor(w, tool, def, name)
}

/// Where a struct's fields are written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum FieldUse {
    /// The public struct, with docs, and `#[serde]` attributes when `serde` (its derives read
    /// them).
    Public { serde: bool },
    /// The private helper struct a hand-written `Deserialize` reads into: `#[serde]`
    /// attributes for deserializing only, no docs.
    Wire,
}

/// The fields of a struct, then the flattened map of additional properties, then (on the
/// public struct) the private field.
fn fields(w: &mut Writer, tool: &ToolModel, def: &StructDef, usage: FieldUse) -> Result<(), Error> {
    for f in &def.fields {
        field(w, tool, f, usage)?;
    }
    if let Some(extra) = &def.extra {
        let ident = field_name(tool, "/inputSchema", &extra.ident)?;
        let ty = RustType::Map(Box::new(extra.value.clone()));
        match usage {
            FieldUse::Public { serde } => {
                w.doc(match extra.role {
                    ExtraRole::Declared => {
                        " Properties beyond the declared ones (`additionalProperties`)."
                    }
                    ExtraRole::Unlisted => {
                        " Properties the schema does not list, kept as sent (a server may add \
                         some after the snapshot)."
                    }
                    ExtraRole::Untyped => " Every property (the arguments are not typed).",
                });
                if serde {
                    w.attr("serde(flatten)");
                }
                w.line(format_args!("pub {ident}: {},", Type(&ty)));
            }
            FieldUse::Wire => {
                w.attr("serde(flatten)");
                w.line(format_args!("{ident}: {},", Type(&ty)));
            }
        }
    }
    if let FieldUse::Public { serde } = usage {
        if serde {
            w.attr("serde(skip)");
        }
        w.line(format_args!("{PRIVATE_FIELD}: (),"));
    }
    Ok(())
}

/// One field: its doc (public), its `#[serde(..)]` (when read), `name: type,`.
fn field(w: &mut Writer, tool: &ToolModel, f: &Field, usage: FieldUse) -> Result<(), Error> {
    let ident = field_name(tool, &f.pointer, &f.ident)?;
    let optional = !f.required;
    let option;
    let ty = if optional && !f.ty.is_option() {
        option = RustType::Option(Box::new(f.ty.clone()));
        &option
    } else {
        &f.ty
    };
    let mut serde_args = Vec::new();
    if identifiers::needs_rename(&f.ident, &f.json_name) {
        serde_args.push(format!("rename = {}", Lit(&f.json_name)));
    }
    if optional && usage == FieldUse::Wire {
        serde_args.push("default".to_owned());
    } else if optional {
        serde_args.push("skip_serializing_if = \"::core::option::Option::is_none\"".to_owned());
        serde_args.push("default".to_owned());
    } else if f.ty.is_option() {
        // Required but nullable: serde would read a missing `Option` field as `None`, so an
        // untagged union would take this struct for an object that lacks the field.
        serde_args.push(format!(
            "deserialize_with = \"{PRIVATE}::required_nullable\""
        ));
    }
    if usage == FieldUse::Wire {
        if !serde_args.is_empty() {
            w.attr(format_args!("serde({})", serde_args.join(", ")));
        }
        w.line(format_args!("{ident}: {},", Type(ty)));
        return Ok(());
    }
    w.docs(&field_doc(f));
    if usage == (FieldUse::Public { serde: true }) && !serde_args.is_empty() {
        w.attr(format_args!("serde({})", serde_args.join(", ")));
    }
    w.line(format_args!("pub {ident}: {},", Type(ty)));
    Ok(())
}

/// The doc lines of a public field: the description, then one paragraph per note
/// (mapping, `format`, `default`, constraints); a property with neither has no doc comment
/// rather than a filler one.
fn field_doc(f: &Field) -> Vec<String> {
    let mut doc = f
        .description
        .as_deref()
        .map(docs::doc_lines)
        .unwrap_or_default();
    for note in &f.notes {
        if !doc.is_empty() {
            doc.push(String::new());
        }
        doc.push(format!(" {}", docs::inline(note)));
    }
    doc
}

/// A struct with `const` properties: no fields for them, and hand-written serde impls that
/// always write them and reject other values (a derived helper struct reads the fields).
/// Then its constructor impl.
pub(super) fn with_consts(w: &mut Writer, tool: &ToolModel, def: &StructDef) -> Result<(), Error> {
    let name = type_name(tool, &def.name)?;
    let schemars = derives_schemars(tool, &def.name);
    let mut doc = docs::doc_lines(&def.doc);
    doc.push(String::new());
    let shown: Vec<String> = def
        .consts
        .iter()
        .map(|c| {
            format!(
                "`\"{}\": {}`",
                docs::inline(&c.property.replace('`', "'")),
                docs::inline(&c.value.replace('`', "'"))
            )
        })
        .collect();
    let pronoun = if shown.len() == 1 { "it" } else { "them" };
    doc.push(format!(
        " Always sends {} by itself: the schema makes {pronoun} constant, so there is no field \
         for {pronoun}, and reading another value is an error.",
        shown.join(", "),
    ));
    doc.extend(constructor_example(def));
    let consts = def
        .consts
        .iter()
        .map(|c| field_name(tool, "/inputSchema", &c.ident).map(|ident| (c, ident)))
        .collect::<Result<Vec<_>, Error>>()?;

    w.item();
    w.docs(&doc);
    w.allow(STRUCTS);
    w.allow(&lint_list(name, &field_names(def)));
    let mut derives = vec!["Debug", "Clone", "PartialEq"];
    if def.all_optional() {
        derives.push("Default");
    }
    let schemars_derive = format!("{SCHEMARS}::JsonSchema");
    if schemars {
        derives.push(&schemars_derive);
    }
    w.attr(format_args!("derive({})", derives.join(", ")));
    if schemars {
        // `JsonSchema` reads the `#[serde]` field attributes (its derive declares them);
        // without it nothing else would, so the public struct carries them only then.
        w.attr(format_args!("schemars(crate = \"{SCHEMARS}\")"));
        // The constants reach the derived schema through the struct's `SchemaConsts` impl
        // (below): an attribute holding them all would be one line no formatter breaks.
        w.attr(format_args!(
            "schemars(transform = {PRIVATE}::schema_consts_of::<Self>)"
        ));
    }
    w.open(format_args!("pub struct {name}"));
    fields(w, tool, def, FieldUse::Public { serde: schemars })?;
    w.close("");
    if schemars {
        w.item();
        w.allow(GENERATED);
        w.open(format_args!("impl {PRIVATE}::SchemaConsts for {name}"));
        w.line("const CONSTS: &'static [(&'static str, &'static str, bool)] = &[");
        w.deeper(|w| {
            for c in &def.consts {
                w.line(format_args!(
                    "({}, {}, {}),",
                    Lit(&c.property),
                    Lit(&c.value),
                    c.required
                ));
            }
        });
        w.line("];");
        w.close("");
    }

    w.item();
    open_serialize(w, &name);
    w.line(format_args!("use {SERDE}::ser::SerializeMap as _;"));
    w.line(format_args!(
        "let mut map = {SERDE}::Serializer::serialize_map(serializer, \
         ::core::option::Option::None)?;"
    ));
    for (c, _) in &consts {
        w.line(format_args!(
            "map.serialize_entry({}, &{PRIVATE}::const_value::<S::Error>({})?)?;",
            Lit(&c.property),
            Lit(&c.value)
        ));
    }
    for f in &def.fields {
        let ident = field_name(tool, &f.pointer, &f.ident)?;
        let property = Lit(&f.json_name);
        if f.required {
            w.line(format_args!(
                "map.serialize_entry({property}, &self.{ident})?;"
            ));
        } else {
            w.open(format_args!(
                "if let ::core::option::Option::Some(value) = &self.{ident}"
            ));
            w.line(format_args!("map.serialize_entry({property}, value)?;"));
            w.close("");
        }
    }
    if let Some(extra) = &def.extra {
        let ident = field_name(tool, "/inputSchema", &extra.ident)?;
        w.open(format_args!("for (key, value) in &self.{ident}"));
        w.line("map.serialize_entry(key, value)?;");
        w.close("");
    }
    w.line("map.end()");
    w.close("");
    w.close("");

    w.item();
    open_deserialize(w, &name);
    w.allow(&["clippy::type_complexity"]);
    w.allow(&lint_list("", &field_names(def)));
    w.attr(format_args!("derive({SERDE}::Deserialize)"));
    w.attr(format_args!("serde(crate = \"{SERDE}\")"));
    w.open("struct Wire");
    for (c, ident) in &consts {
        if c.required {
            w.attr(format_args!("serde(rename = {})", Lit(&c.property)));
            w.line(format_args!("{ident}: {JSON}::Value,"));
        } else {
            w.attr(format_args!(
                "serde(rename = {}, default)",
                Lit(&c.property)
            ));
            w.line(format_args!(
                "{ident}: ::core::option::Option<{JSON}::Value>,"
            ));
        }
    }
    fields(w, tool, def, FieldUse::Wire)?;
    w.close("");
    w.line(format_args!(
        "let wire = <Wire as {SERDE}::Deserialize>::deserialize(deserializer)?;"
    ));
    for (c, ident) in &consts {
        let value = if c.required {
            format!("::core::option::Option::Some(&wire.{ident})")
        } else {
            format!("wire.{ident}.as_ref()")
        };
        w.line(format_args!(
            "{PRIVATE}::check_const::<D::Error>({}, {}, {value})?;",
            Lit(&c.property),
            Lit(&c.value)
        ));
    }
    w.open("::core::result::Result::Ok(Self");
    for f in &def.fields {
        let ident = field_name(tool, &f.pointer, &f.ident)?;
        w.line(format_args!("{ident}: wire.{ident},"));
    }
    if let Some(extra) = &def.extra {
        let ident = field_name(tool, "/inputSchema", &extra.ident)?;
        w.line(format_args!("{ident}: wire.{ident},"));
    }
    w.line(format_args!("{PRIVATE_FIELD}: (),"));
    w.close(")");
    w.close("");
    w.close("");
    constructor(w, tool, def, name)
}

/// Whether a constructor or setter takes a value of type `ty` as it is rather than as
/// `impl Into<ty>`: numbers and booleans (an integer literal passed as `impl Into<u64>`
/// would be inferred as `i32`, which does not convert) and tuples.
fn taken_as_is(ty: &RustType) -> bool {
    match ty {
        RustType::Int(_) | RustType::F64 | RustType::Bool | RustType::Tuple(_) => true,
        RustType::Option(inner) => taken_as_is(inner),
        _ => false,
    }
}

/// The parameter type for a value of type `ty`: `ty`, or `impl Into<ty>` ([`taken_as_is`]).
fn parameter(ty: &RustType) -> String {
    if taken_as_is(ty) {
        Type(ty).to_string()
    } else {
        format!("impl ::core::convert::Into<{}>", Type(ty))
    }
}

/// `impl <Struct> { new(..), with_<field>(..) }`: `new` takes the required fields in the
/// order of [`StructDef::required_order`] and leaves the optional ones unset; each optional
/// field has a chainable setter `with_<field>` (the field's name without `r#`).
fn constructor(w: &mut Writer, tool: &ToolModel, def: &StructDef, name: &str) -> Result<(), Error> {
    let required = def.constructor_fields();
    let mut params = Vec::with_capacity(required.len());
    let mut inits = Vec::with_capacity(def.fields.len() + 2);
    for f in &required {
        let ident = field_name(tool, &f.pointer, &f.ident)?;
        params.push(format!("{ident}: {}", parameter(&f.ty)));
        inits.push(if taken_as_is(&f.ty) {
            ident.to_string()
        } else {
            format!("{ident}: ::core::convert::Into::into({ident})")
        });
    }
    let optional: Vec<&Field> = def.fields.iter().filter(|f| !f.required).collect();
    for f in &optional {
        let ident = field_name(tool, &f.pointer, &f.ident)?;
        inits.push(format!("{ident}: ::core::option::Option::None"));
    }
    if let Some(extra) = &def.extra {
        let ident = field_name(tool, "/inputSchema", &extra.ident)?;
        inits.push(format!("{ident}: ::core::default::Default::default()"));
    }
    inits.push(format!("{PRIVATE_FIELD}: ()"));

    w.item();
    w.allow(UNUSED);
    w.allow(&lint_list("", &field_names(def)));
    w.open(format_args!("impl {name}"));
    w.docs(&docs::wrap(&constructor_doc(def, &required)));
    w.attr("must_use");
    if !params.is_empty() {
        w.attr("allow(clippy::too_many_arguments)");
    }
    w.open(format_args!("pub fn new({}) -> Self", params.join(", ")));
    w.open("Self");
    for init in &inits {
        w.line(format_args!("{init},"));
    }
    w.close("");
    w.close("");
    for f in &optional {
        let ident = field_name(tool, &f.pointer, &f.ident)?;
        let inner = match &f.ty {
            RustType::Option(inner) => inner.as_ref(),
            other => other,
        };
        w.docs(&docs::wrap(&setter_doc(f)));
        w.attr("must_use");
        w.open(format_args!(
            "pub fn with_{}(mut self, {ident}: {}) -> Self",
            // `_1st` gives `with_1st`: `with__1st` is refused by `non_snake_case`.
            f.ident.name.trim_start_matches('_'),
            parameter(inner)
        ));
        if taken_as_is(inner) {
            w.line(format_args!(
                "self.{ident} = ::core::option::Option::Some({ident});"
            ));
        } else {
            w.line(format_args!(
                "self.{ident} = ::core::option::Option::Some(::core::convert::Into::into({ident}));"
            ));
        }
        w.line("self");
        w.close("");
    }
    w.close("");
    Ok(())
}

/// The doc text of the setter of the optional field `f` (before wrapping): `Sets `name``
/// and the first line of the property's description.
fn setter_doc(f: &Field) -> String {
    let mut text = format!("Sets `{}`", docs::inline(&f.json_name.replace('`', "'")));
    match f
        .description
        .as_deref()
        .and_then(|d| d.lines().find(|l| !l.trim().is_empty()))
    {
        Some(first) => {
            text.push_str(": ");
            text.push_str(&docs::inline(&oma_mcp_core::quote::excerpt(&first.trim())));
        }
        None => text.push('.'),
    }
    text
}

/// The doc text of `new` (before wrapping): the required properties it takes, in order.
fn constructor_doc(def: &StructDef, required: &[&Field]) -> String {
    let listed: Vec<String> = required
        .iter()
        .map(|f| format!("`{}`", docs::inline(&f.json_name.replace('`', "'"))))
        .collect();
    let has_optional = def.fields.iter().any(|f| !f.required);
    let mut text = if listed.is_empty() {
        "A value with no property set.".to_owned()
    } else {
        format!(
            "A value of the required properties, in the order of the schema's `required` \
             list: {}.",
            listed.join(", ")
        )
    };
    if has_optional {
        text.push_str(" Set optional properties with the `with_*` methods.");
    }
    text
}

/// A doc example of `def`'s constructor, in a `text` block (not a doctest of the including
/// crate): `new` with the parameter names, then the first optional field's setter.
fn constructor_example(def: &StructDef) -> Vec<String> {
    let params: Vec<String> = def
        .constructor_fields()
        .iter()
        .map(|f| f.ident.to_string())
        .collect();
    let setter = def.fields.iter().find(|f| !f.required).map(|f| {
        let setter = f.ident.name.trim_start_matches('_');
        format!(".with_{setter}({})", f.ident)
    });
    let one_line = format!(
        "{}::new({}){}",
        def.name,
        params.join(", "),
        setter.clone().unwrap_or_default()
    );
    let mut doc = vec![String::new(), " ```text".to_owned()];
    if one_line.len() <= 90 {
        doc.push(format!(" {one_line}"));
    } else {
        doc.push(format!(" {}::new(", def.name));
        doc.extend(params.iter().map(|p| format!("     {p},")));
        doc.push(match setter {
            Some(setter) => format!(" ){setter}"),
            None => " )".to_owned(),
        });
    }
    doc.push(" ```".to_owned());
    doc
}

/// Conversions between the structs of a module that have the same shape: the same
/// properties (JSON names, required or not) with the same types, all of them plain (no
/// generated type inside: strings, numbers, booleans, JSON values, and lists, maps and
/// options of those), no `const` properties, and no map of declared additional properties.
/// A tool's own argument type is left out: it stands for its tool (`ToolArgs`), and turning
/// one tool's arguments into another's is no conversion of data.
/// So an output can be passed as another tool's argument (server-memory's entity in
/// `read_graph`'s output and in `create_entities`' arguments) with `.reshape()`. Each struct
/// of a shape gets one `SameShape` impl and one `reshape` method, whatever the number of
/// structs of its shape (a `From` impl per pair would grow as n × (n - 1)). The map an output
/// struct keeps unlisted properties in moves along when both have one, starts empty when only
/// the target has one, and is dropped otherwise. Adds no type name.
pub(super) fn same_shape_conversions(w: &mut Writer, tools: &[ToolModel]) {
    fn plain(ty: &RustType) -> bool {
        match ty {
            RustType::String
            | RustType::Int(_)
            | RustType::F64
            | RustType::Bool
            | RustType::JsonMap
            | RustType::Value => true,
            RustType::Vec(inner) | RustType::Map(inner) | RustType::Option(inner) => plain(inner),
            RustType::Tuple(items) => items.iter().all(plain),
            RustType::Boxed(_) | RustType::Named(_) => false,
        }
    }
    let mut groups: BTreeMap<Vec<(&str, bool, &RustType)>, Vec<&StructDef>> = BTreeMap::new();
    for tool in tools {
        for def in &tool.types {
            let TypeDef::Struct(def) = def else { continue };
            if def.name == tool.args {
                continue;
            }
            let extra_ok = def
                .extra
                .as_ref()
                .is_none_or(|e| e.role == ExtraRole::Unlisted && e.value == RustType::Value);
            if def.fields.is_empty()
                || !def.consts.is_empty()
                || !extra_ok
                || !def.fields.iter().all(|f| plain(&f.ty))
                || !identifiers::is_plain_ident(&def.name)
                || !field_names(def).into_iter().all(identifiers::is_valid)
            {
                continue;
            }
            let key = def
                .fields
                .iter()
                .map(|f| (f.json_name.as_str(), f.required, &f.ty))
                .collect();
            groups.entry(key).or_default().push(def);
        }
    }
    for (key, group) in groups.iter().filter(|(_, g)| g.len() >= 2) {
        let tag = shape_key(key);
        for def in group {
            let others: Vec<&str> = group
                .iter()
                .filter(|o| o.name != def.name)
                .map(|o| o.name.as_str())
                .collect();
            same_shape(w, def, tag, &others);
        }
    }
}

/// `KEY` of a shape's `::oma_mcp_runtime::typed::Shape`: the first 64 bits of the SHA-256 of
/// its JSON names, requiredness and types, one line a field.
fn shape_key(key: &[(&str, bool, &RustType)]) -> u64 {
    let mut text = String::new();
    for (json_name, required, ty) in key {
        text.push_str(&format!("{json_name:?} {required} {}\n", Type(ty)));
    }
    let digest = Sha256::digest(text.as_bytes());
    let mut bytes = [0; 8];
    bytes.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(bytes)
}

/// The `SameShape` impl of `def`, a struct of the shape tagged `key`, and its `reshape`
/// method (see [`same_shape_conversions`]); `others` are the other structs of the shape, for
/// the method's doc.
fn same_shape(w: &mut Writer, def: &StructDef, key: u64, others: &[&str]) {
    let name = &def.name;
    let types: Vec<String> = def
        .fields
        .iter()
        .map(|f| Type(&f.ty).to_string())
        .chain([format!(
            "::core::option::Option<{}>",
            Type(&RustType::Map(Box::new(RustType::Value)))
        )])
        .collect();
    let shape = format!(
        "::oma_mcp_runtime::typed::Shape<{key:#018x}, ({})>",
        types.join(", ")
    );
    w.item();
    let mut lints = lint_list("", &field_names(def));
    lints.extend(GENERATED);
    w.allow(&lints);
    w.open(format_args!(
        "impl ::oma_mcp_runtime::typed::SameShape for {name}"
    ));
    w.line(format_args!("type Shape = {shape};"));
    w.open("fn into_shape(self) -> Self::Shape");
    let mut values: Vec<String> = def
        .fields
        .iter()
        .map(|f| format!("self.{}", f.ident))
        .collect();
    values.push(match &def.extra {
        Some(extra) => format!("::core::option::Option::Some(self.{})", extra.ident),
        None => "::core::option::Option::None".to_owned(),
    });
    w.line(format_args!(
        "::oma_mcp_runtime::typed::Shape(({}))",
        values.join(", ")
    ));
    w.close("");
    w.open("fn from_shape(shape: Self::Shape) -> Self");
    let mut names: Vec<String> = def.fields.iter().map(|f| f.ident.to_string()).collect();
    // A property's field never starts with `_` and a letter: `_unlisted` names no field.
    names.push(
        if def.extra.is_some() {
            "_unlisted"
        } else {
            "_"
        }
        .to_owned(),
    );
    w.line(format_args!("let ({}) = shape.0;", names.join(", ")));
    w.open("Self");
    for f in &def.fields {
        w.line(format_args!("{},", f.ident));
    }
    if let Some(extra) = &def.extra {
        w.line(format_args!(
            "{}: _unlisted.unwrap_or_default(),",
            extra.ident
        ));
    }
    w.line(format_args!("{PRIVATE_FIELD}: (),"));
    w.close("");
    w.close("");
    w.close("");

    w.item();
    w.allow(UNUSED);
    w.open(format_args!("impl {name}"));
    let links: Vec<String> = others.iter().map(|o| format!("[`{o}`]")).collect();
    w.doc(&format!(
        " Converts into another struct of this module with the same properties and types: {}.",
        links.join(", ")
    ));
    w.open(
        "pub fn reshape<T>(self) -> T where T: ::oma_mcp_runtime::typed::SameShape<Shape = \
         <Self as ::oma_mcp_runtime::typed::SameShape>::Shape>",
    );
    w.line("T::from_shape(::oma_mcp_runtime::typed::SameShape::into_shape(self))");
    w.close("");
    w.close("");
}
