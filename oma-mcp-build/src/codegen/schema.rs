//! JSON Schema → a small, plain-data type model (no text; the `emit` module writes the code
//! from it).
//!
//! What maps to what:
//!
//! | JSON Schema | [`RustType`] / [`TypeDef`] |
//! |---|---|
//! | `string` / `number` / `boolean` | `String` (its `format` in the docs) / `f64` / `bool` |
//! | `integer` | `i64`; `u64` when `minimum >= 0`; `i8`…`u64` by `format` (`int32`, `uint8`, …) |
//! | `array` with `items` / without | `Vec<T>` / `Vec<Value>` |
//! | fixed-length tuple (`prefixItems`, draft-07 `items: [..]`) | `(A, B, ..)`; other lengths `Vec<Value>` |
//! | `object` with `properties` | a struct `<Parent><Field>`; typed `additionalProperties` in a flattened map, and in an output struct every property the schema does not list (`additional_properties`, values as sent) |
//! | `object` with typed `additionalProperties` only | `BTreeMap<String, T>` |
//! | `object` without `properties` | `serde_json::Map<String, Value>` |
//! | string `enum` | an enum `<Parent><Field>` with `Display`/`FromStr`, one variant per value; an output enum also `Unknown(String)`, any other value as sent (closed beside a plain string branch of its union) |
//! | `enum` with other values, `const` | an enum of the exact JSON values (a `const` is `Default`) |
//! | a `const` property of an object (any JSON type) | no field: the struct sends it by itself and rejects other values |
//! | `type: [T, "null"]`, `anyOf`/`oneOf` of `T` and `{"type": "null"}`, `enum` with `null` | `Option<T>` |
//! | local `$ref` (`#`, `#/$defs/X`, `#/definitions/X`, any local pointer) | the target's type, named `<Tool>Args<X>`, one per target also through union branches; `Box` when recursive |
//! | `oneOf`/`anyOf` of objects with a constant discriminator | `#[serde(tag)]` enum |
//! | other `oneOf`/`anyOf` whose branches the JSON shape tells apart | `#[serde(untagged)]` enum |
//! | `allOf` of objects | one merged struct |
//! | `$ref` beside `properties`/`required`/typed `additionalProperties`, target an object | one struct merged like `allOf: [<the target>, <the siblings>]` (2019-09+; pydantic and zod mean it in draft-07 too); siblings it cannot merge (`enum`, unions, another `type`, a target not an object) warn |
//! | other unions, a missing `type`, `true` | `Value`, with a doc note |
//! | external or unresolvable `$ref`, invalid subschemas, unknown types, nesting deeper than [`MAX_DEPTH`] | `Value`, with a warning |
//!
//! The root of an `inputSchema` is always the argument type `<Tool>Args`, which must serialize
//! to a JSON object: a root `$ref`, `allOf` or union maps as above when it is of objects, and
//! to a JSON object map with a warning when not (see `input`). An `outputSchema` root may be
//! any type (see `output`).

mod input;
mod model;
mod output;
mod refs;
mod unions;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::Warning;
use super::identifiers::{self, Namespace};
/// What kind of JSON value a schema keyword holds, for messages (shared with the CLI).
pub(super) use oma_mcp_core::quote::json_kind as kind;

pub(crate) use self::input::input_types;
pub(crate) use self::model::*;
pub(crate) use self::output::{OutputModel, output_types};
use self::refs::PointerState;

/// Schemas nested deeper than this become `serde_json::Value` with a warning.
pub(crate) const MAX_DEPTH: usize = 16;

/// The result of mapping one subschema: its type and notes for the doc comment.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Mapped {
    ty: RustType,
    notes: Vec<String>,
}

impl Mapped {
    fn of(ty: RustType) -> Self {
        Self {
            ty,
            notes: Vec::new(),
        }
    }

    fn value(note: impl Into<String>) -> Self {
        Self {
            ty: RustType::Value,
            notes: vec![note.into()],
        }
    }
}

// Appends one RFC 6901 reference token to a JSON pointer.
pub(crate) use oma_mcp_core::pointer::push as pointer_push;

struct Converter<'a> {
    tool: &'a str,
    /// The root type's name (`<Tool>Args`, `<Tool>Output`): the prefix of the names of
    /// `$ref` targets.
    args_name: &'a str,
    /// The whole schema, for resolving `$ref`s.
    root: Option<&'a Value>,
    /// Where the schema sits in the tool descriptor: `/inputSchema` or `/outputSchema`.
    root_pointer: &'static str,
    types: &'a mut Namespace,
    defs: Vec<TypeDef>,
    warnings: &'a mut Vec<Warning>,
    /// What is known about `$ref` targets and schemas mapped to named types, by JSON
    /// pointer (under `root_pointer`): each is mapped once, and a reference back to one
    /// being mapped is `Box`ed (see [`Converter::map`]).
    by_pointer: BTreeMap<String, PointerState>,
    /// A name reserved in advance for the type made for the schema at a pointer:
    /// `(pointer, name)`, used by the first [`Converter::claim`] at that pointer.
    root_claim: Option<(String, String)>,
}

impl<'a> Converter<'a> {
    fn new(
        tool: &'a str,
        args_name: &'a str,
        root: Option<&'a Value>,
        root_pointer: &'static str,
        types: &'a mut Namespace,
        warnings: &'a mut Vec<Warning>,
    ) -> Self {
        Self {
            tool,
            args_name,
            root,
            root_pointer,
            types,
            defs: Vec::new(),
            warnings,
            by_pointer: BTreeMap::new(),
            root_claim: None,
        }
    }

    /// Whether this maps an `outputSchema` (whose types are forward-compatible: open enums,
    /// structs that keep unlisted properties).
    fn is_output(&self) -> bool {
        self.root_pointer == "/outputSchema"
    }

    /// "arguments" or "output", for generated doc sentences.
    fn role(&self) -> &'static str {
        if self.root_pointer == "/outputSchema" {
            "output"
        } else {
            "arguments"
        }
    }

    fn warn(&mut self, pointer: &str, message: impl Into<String>) {
        self.warnings.push(Warning {
            tool: self.tool.to_owned(),
            pointer: pointer.to_owned(),
            message: message.into(),
        });
    }

    /// A `Value` with a warning and the same text as a doc note.
    fn invalid(&mut self, pointer: &str, message: String) -> Mapped {
        let note = format!("Typed as `serde_json::Value`: {message}.");
        self.warn(pointer, format!("{message}; using serde_json::Value"));
        Mapped::value(note)
    }

    /// Claims a type name for the schema at `pointer` and records it there, so the schema
    /// reached again (through a `$ref`, or a union branch that follows one) while it is being
    /// mapped is that type, `Box`ed. The first name recorded at a pointer stays (a `type`
    /// list's enum, not the struct of its `object` variant).
    fn claim(&mut self, hint: &str, pointer: &str) -> String {
        let name = match self.root_claim.take_if(|(p, _)| p == pointer) {
            Some((_, name)) => name,
            None => self.types.claim_type(hint, &[]),
        };
        if let PointerState::InProgress(slot @ None) = self
            .by_pointer
            .entry(pointer.to_owned())
            .or_insert(PointerState::InProgress(None))
        {
            *slot = Some(name.clone());
        }
        name
    }

    /// The generated doc sentence of a nested type without a description.
    fn nested_doc(&self, schema: &Map<String, Value>, what: &str) -> String {
        description_of(schema).unwrap_or_else(|| {
            format!(
                "{what} in the {} of the MCP tool \"{}\".",
                self.role(),
                self.tool
            )
        })
    }

    /// A struct for object schemas (one, or the branches of an `allOf`, each with its
    /// pointer): their `properties` (the first of a name wins; except `skip`), `const`
    /// properties as the struct's constants (no fields), and typed `additionalProperties` as a
    /// flattened map. A property is required when any part requires it.
    fn build_struct(
        &mut self,
        name: &str,
        parts: &[(&'a Map<String, Value>, String)],
        depth: usize,
        skip: Option<&str>,
    ) -> StructDef {
        let doc = match parts.first() {
            Some((schema, _)) => self.nested_doc(schema, "An object"),
            None => String::new(),
        };
        let mut def = StructDef::new(name, doc, Vec::new());
        let mut required: BTreeSet<&str> = BTreeSet::new();
        // The `required` lists in order (each part's in turn), for the constructor.
        let mut required_order: Vec<&str> = Vec::new();
        let mut props: Vec<(&'a String, &'a Value, &str)> = Vec::new();
        let mut extra = None;
        for (schema, pointer) in parts {
            match schema.get("properties") {
                None => {}
                Some(Value::Object(map)) => {
                    for (key, prop) in map {
                        if !props.iter().any(|(k, _, _)| *k == key) {
                            props.push((key, prop, pointer));
                        }
                    }
                }
                Some(other) => {
                    let message = format!(
                        "`properties` is {}, not an object; ignoring it",
                        kind(other)
                    );
                    self.warn(&pointer_push(pointer, "properties"), message);
                }
            }
            match schema.get("required") {
                None => {}
                Some(Value::Array(items)) => {
                    for name in items.iter().filter_map(Value::as_str) {
                        if required.insert(name) {
                            required_order.push(name);
                        }
                    }
                }
                Some(other) => {
                    let message = format!(
                        "`required` is {}, not an array of names; ignoring it",
                        kind(other)
                    );
                    self.warn(&pointer_push(pointer, "required"), message);
                }
            }
            if extra.is_none()
                && let Some(e @ Value::Object(e_map)) = schema.get("additionalProperties")
                && !e_map.is_empty()
            {
                extra = Some((e, pointer_push(pointer, "additionalProperties")));
            }
        }
        // Field names and nested type names of the properties, contested ones tagged (see
        // `identifiers`), then de-duplicated by a namespace only as a safety net.
        props.retain(|(json_name, _, _)| skip != Some(json_name.as_str()));
        let json_names: Vec<&str> = props.iter().map(|(j, _, _)| j.as_str()).collect();
        let field_idents = identifiers::field_idents(&json_names);
        let hints = identifiers::nested_type_names(name, &json_names);
        let mut idents = Namespace::new();
        for (((json_name, prop, pointer), field_ident), hint) in
            props.into_iter().zip(field_idents).zip(hints)
        {
            if let Some(value) = prop.get("const") {
                def.consts.push(ConstProperty {
                    ident: idents.claim_field(field_ident),
                    property: json_name.clone(),
                    value: oma_mcp_core::snapshot::canonical_json(value),
                    required: required.contains(json_name.as_str()),
                });
                continue;
            }
            let prop_pointer = pointer_push(&pointer_push(pointer, "properties"), json_name);
            let mut mapped = self.map(prop, &hint, &prop_pointer, depth);
            if let Some(default) = prop.get("default") {
                mapped
                    .notes
                    .push(format!("Default: `{}`.", short_json(default)));
            }
            mapped.notes.extend(constraints(prop));
            def.fields.push(Field {
                ident: idents.claim_field(field_ident),
                json_name: json_name.clone(),
                ty: mapped.ty,
                required: required.contains(json_name.as_str()),
                description: description(prop),
                notes: mapped.notes,
                pointer: prop_pointer,
            });
        }
        def.required_order = required_order
            .into_iter()
            .filter(|json| def.fields.iter().any(|f| f.json_name == *json))
            .map(str::to_owned)
            .collect();
        if let Some((extra, extra_pointer)) = extra {
            let hint = identifiers::nested_type_name(name, "Value");
            let mapped = self.map(extra, &hint, &extra_pointer, depth);
            def.extra = Some(ExtraField {
                ident: idents.claim_field(identifiers::snake_ident(identifiers::EXTRA_FIELD)),
                value: mapped.ty.unboxed(),
                role: ExtraRole::Declared,
            });
        } else if self.is_output() {
            // An output keeps what its schema does not list (a property the server adds
            // later, or one `additionalProperties: false` forbade before it was dropped).
            def.extra = Some(ExtraField {
                ident: idents.claim_field(identifiers::snake_ident(identifiers::EXTRA_FIELD)),
                value: RustType::Value,
                role: ExtraRole::Unlisted,
            });
        }
        def
    }

    /// Maps one subschema. `hint` names a nested struct or enum made for it.
    ///
    /// A schema mapped before to a named type, or a `$ref` target mapped before, is that
    /// type again; one still being mapped (recursion) is that type `Box`ed. So each such
    /// schema gives one Rust type whatever path reaches it, and the work is linear in the
    /// schema even when `$ref`s make it a graph.
    fn map(&mut self, schema: &'a Value, hint: &str, pointer: &str, depth: usize) -> Mapped {
        match self.by_pointer.get(pointer) {
            Some(PointerState::Done(ty, notes)) => {
                return Mapped {
                    ty: ty.clone(),
                    notes: notes.clone(),
                };
            }
            Some(PointerState::InProgress(Some(name))) => {
                return Mapped::of(RustType::Boxed(Box::new(RustType::Named(name.clone()))));
            }
            Some(PointerState::InProgress(None)) | None => {}
        }
        let mapped = self.map_new(schema, hint, pointer, depth);
        if self.by_pointer.contains_key(pointer) {
            self.by_pointer.insert(
                pointer.to_owned(),
                PointerState::Done(mapped.ty.clone(), mapped.notes.clone()),
            );
        }
        mapped
    }

    /// [`Converter::map`] for a schema not mapped before.
    fn map_new(&mut self, schema: &'a Value, hint: &str, pointer: &str, depth: usize) -> Mapped {
        if depth > MAX_DEPTH {
            return self.invalid(
                pointer,
                format!("the schema is nested deeper than {MAX_DEPTH} levels"),
            );
        }
        let value = schema;
        let schema = match schema {
            Value::Object(schema) => schema,
            Value::Bool(true) => return Mapped::value("Any JSON value (the schema is `true`)."),
            Value::Bool(false) => {
                return self.invalid(
                    pointer,
                    "the schema is `false`, which accepts no value".into(),
                );
            }
            other => {
                let message = format!(
                    "invalid subschema: expected an object or a boolean, found {}",
                    kind(other)
                );
                return self.invalid(pointer, message);
            }
        };
        if schema.contains_key("$ref") {
            return self.map_ref_siblings(value, schema, hint, pointer, depth);
        }
        if let Some(value) = schema.get("const") {
            return self.map_exact(std::slice::from_ref(value), schema, hint, pointer);
        }
        match schema.get("type") {
            Some(Value::String(t)) => self.map_typed(t, schema, hint, pointer, depth),
            Some(Value::Array(types)) => self.map_type_list(types, schema, hint, pointer, depth),
            Some(other) => {
                let message = format!(
                    "`type` is {}, not a string or an array of strings",
                    kind(other)
                );
                self.invalid(&pointer_push(pointer, "type"), message)
            }
            None => self.map_untyped(schema, hint, pointer, depth),
        }
    }

    /// A schema with `type: [..]`: `[T]` and `[T, "null"]` are typed, other unions are not.
    fn map_type_list(
        &mut self,
        types: &'a [Value],
        schema: &'a Map<String, Value>,
        hint: &str,
        pointer: &str,
        depth: usize,
    ) -> Mapped {
        let mut names = Vec::new();
        let mut nullable = false;
        for t in types {
            match t.as_str() {
                Some("null") => nullable = true,
                Some(name) if !names.contains(&name) => names.push(name),
                Some(_) => {}
                None => {
                    let message = format!("`type` lists {}, not a type name", kind(t));
                    return self.invalid(&pointer_push(pointer, "type"), message);
                }
            }
        }
        let mut mapped = match names.as_slice() {
            [] if nullable => {
                Mapped::value("Typed as `serde_json::Value`: the schema only allows `null`.")
            }
            [] => {
                return self.invalid(
                    &pointer_push(pointer, "type"),
                    "`type` is an empty array".into(),
                );
            }
            [one] => self.map_typed(one, schema, hint, pointer, depth),
            many => self.map_type_union(many, schema, hint, pointer, depth),
        };
        if nullable {
            mapped.ty = mapped.ty.nullable();
        }
        mapped
    }

    fn map_typed(
        &mut self,
        t: &str,
        schema: &'a Map<String, Value>,
        hint: &str,
        pointer: &str,
        depth: usize,
    ) -> Mapped {
        if schema.contains_key("enum") {
            return self.map_enum(schema, hint, pointer);
        }
        let format = schema.get("format").and_then(Value::as_str);
        let mut mapped = match t {
            "string" => Mapped::of(RustType::String),
            "integer" => {
                let (int, by_format) = int_type(schema);
                if by_format {
                    // The type says it all; no format note.
                    return Mapped::of(RustType::Int(int));
                }
                Mapped::of(RustType::Int(int))
            }
            "number" => Mapped::of(RustType::F64),
            "boolean" => Mapped::of(RustType::Bool),
            "array" => return self.map_array(schema, hint, pointer, depth),
            "object" => return self.map_object(schema, hint, pointer, depth),
            "null" => {
                return Mapped::value(
                    "Typed as `serde_json::Value`: the schema only allows `null`.",
                );
            }
            other => {
                return self.invalid(
                    &pointer_push(pointer, "type"),
                    format!("unknown type \"{other}\""),
                );
            }
        };
        if let Some(format) = format {
            mapped
                .notes
                .push(format!("Format: `{}`.", docs_safe_short(format)));
        }
        mapped
    }

    fn map_array(
        &mut self,
        schema: &'a Map<String, Value>,
        hint: &str,
        pointer: &str,
        depth: usize,
    ) -> Mapped {
        let items_pointer = pointer_push(pointer, "items");
        if let Some(Value::Array(prefix)) = schema.get("prefixItems") {
            let rest_forbidden = schema.get("items") == Some(&Value::Bool(false));
            let prefix_pointer = pointer_push(pointer, "prefixItems");
            return self.map_tuple(prefix, rest_forbidden, schema, hint, &prefix_pointer, depth);
        }
        let item = match schema.get("items") {
            None => Mapped::of(RustType::Value),
            Some(items @ (Value::Object(_) | Value::Bool(_))) => {
                self.map(items, &format!("{hint}Item"), &items_pointer, depth + 1)
            }
            Some(Value::Array(items)) => {
                let rest_forbidden = schema.get("additionalItems") == Some(&Value::Bool(false));
                return self.map_tuple(items, rest_forbidden, schema, hint, &items_pointer, depth);
            }
            Some(other) => {
                let message = format!("invalid `items`: expected a schema, found {}", kind(other));
                self.invalid(&items_pointer, message)
            }
        };
        Mapped {
            ty: RustType::Vec(Box::new(item.ty.unboxed())),
            notes: item.notes,
        }
    }

    /// A tuple array: a Rust tuple when its length is fixed to the number of positions
    /// (`minItems` and `maxItems`, or no items allowed past them), else `Vec<Value>`.
    fn map_tuple(
        &mut self,
        positions: &'a [Value],
        rest_forbidden: bool,
        schema: &'a Map<String, Value>,
        hint: &str,
        pointer: &str,
        depth: usize,
    ) -> Mapped {
        let n = positions.len() as u64;
        let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0);
        let max = schema.get("maxItems").and_then(Value::as_u64);
        let fixed =
            (1..=12).contains(&n) && min >= n && (rest_forbidden || max.is_some_and(|m| m <= n));
        if !fixed {
            return Mapped {
                ty: RustType::Vec(Box::new(RustType::Value)),
                notes: vec![
                    "Items typed as `serde_json::Value`: the array is a tuple whose length is not fixed."
                        .to_owned(),
                ],
            };
        }
        let mut types = Vec::with_capacity(positions.len());
        let mut notes = Vec::new();
        for (i, position) in positions.iter().enumerate() {
            let position_pointer = pointer_push(pointer, &i.to_string());
            let mapped = self.map(
                position,
                &format!("{hint}{i}"),
                &position_pointer,
                depth + 1,
            );
            types.push(mapped.ty);
            notes.extend(mapped.notes);
        }
        Mapped {
            ty: RustType::Tuple(types),
            notes,
        }
    }

    fn map_object(
        &mut self,
        schema: &'a Map<String, Value>,
        hint: &str,
        pointer: &str,
        depth: usize,
    ) -> Mapped {
        let extra = match schema.get("additionalProperties") {
            Some(extra @ Value::Object(e)) if !e.is_empty() => Some(extra),
            _ => None,
        };
        match schema.get("properties") {
            Some(Value::Object(props)) if !props.is_empty() => {
                let name = self.claim(hint, pointer);
                // Reserve the slot so nested types come after their parent.
                let slot = self.defs.len();
                self.defs
                    .push(TypeDef::Struct(StructDef::new(&name, "", Vec::new())));
                let def =
                    self.build_struct(&name, &[(schema, pointer.to_owned())], depth + 1, None);
                self.defs[slot] = TypeDef::Struct(def);
                Mapped::of(RustType::Named(name))
            }
            Some(Value::Object(_)) | None => match extra {
                Some(extra) => {
                    let extra_pointer = pointer_push(pointer, "additionalProperties");
                    let mapped =
                        self.map(extra, &format!("{hint}Value"), &extra_pointer, depth + 1);
                    Mapped {
                        ty: RustType::Map(Box::new(mapped.ty.unboxed())),
                        notes: mapped.notes,
                    }
                }
                None => Mapped::of(RustType::JsonMap),
            },
            Some(other) => {
                let message = format!("`properties` is {}, not an object", kind(other));
                let mut mapped = self.invalid(&pointer_push(pointer, "properties"), message);
                mapped.ty = RustType::JsonMap;
                mapped
            }
        }
    }

    /// An `enum`: strings (and `null`, which makes it optional) give a string enum, other
    /// values an enum of exact JSON values.
    fn map_enum(&mut self, schema: &'a Map<String, Value>, hint: &str, pointer: &str) -> Mapped {
        let enum_pointer = pointer_push(pointer, "enum");
        let Some(Value::Array(values)) = schema.get("enum") else {
            let kind = schema.get("enum").map(kind).unwrap_or("missing");
            return self.invalid(&enum_pointer, format!("`enum` is {kind}, not an array"));
        };
        if !values.iter().all(|v| v.is_string() || v.is_null()) {
            return self.map_exact(values, schema, hint, pointer);
        }
        let mut seen = BTreeSet::new();
        let strings: Vec<&str> = values
            .iter()
            .filter_map(Value::as_str)
            .filter(|s| seen.insert(*s))
            .collect();
        let nullable = values.iter().any(Value::is_null);
        if strings.is_empty() {
            return self.invalid(&enum_pointer, "`enum` has no string values".into());
        }
        let mapped = self.string_enum(strings, schema, hint, pointer);
        if nullable {
            Mapped::of(mapped.ty.nullable())
        } else {
            mapped
        }
    }

    /// A string enum of `strings` (distinct, in order) for the schema at `pointer`: open for
    /// an output, closed for the arguments.
    fn string_enum(
        &mut self,
        strings: Vec<&str>,
        schema: &'a Map<String, Value>,
        hint: &str,
        pointer: &str,
    ) -> Mapped {
        let name = self.claim(hint, pointer);
        let open = self.is_output();
        let reserved: &[&str] = if open { &[UNKNOWN_VARIANT] } else { &[] };
        let variants = identifiers::variant_idents(&strings, reserved)
            .into_iter()
            .zip(strings)
            .map(|(ident, value)| Variant {
                ident,
                value: value.to_owned(),
            })
            .collect();
        let doc = self.nested_doc(schema, "A value");
        self.defs.push(TypeDef::Enum(EnumDef {
            name: name.clone(),
            doc,
            variants,
            open,
        }));
        Mapped::of(RustType::Named(name))
    }

    /// An enum of exact JSON values (a `const` is one value).
    fn map_exact(
        &mut self,
        values: &'a [Value],
        schema: &'a Map<String, Value>,
        hint: &str,
        pointer: &str,
    ) -> Mapped {
        let mut seen = BTreeSet::new();
        let jsons: Vec<String> = values
            .iter()
            .map(oma_mcp_core::snapshot::canonical_json)
            .filter(|j| seen.insert(j.clone()))
            .collect();
        if jsons.is_empty() {
            return self.invalid(&pointer_push(pointer, "enum"), "`enum` is empty".into());
        }
        let name = self.claim(hint, pointer);
        let labels: Vec<&str> = jsons.iter().map(|j| j.trim_matches('"')).collect();
        let variants = identifiers::variant_idents(&labels, &[])
            .into_iter()
            .zip(jsons.iter().cloned())
            .collect();
        let doc = self.nested_doc(schema, "A value");
        self.defs.push(TypeDef::Exact(ExactEnumDef {
            name: name.clone(),
            doc,
            variants,
        }));
        Mapped::of(RustType::Named(name))
    }

    /// A schema without `type`: an enum, a union, an object by its `properties`, otherwise
    /// any value.
    fn map_untyped(
        &mut self,
        schema: &'a Map<String, Value>,
        hint: &str,
        pointer: &str,
        depth: usize,
    ) -> Mapped {
        if schema.contains_key("enum") {
            return self.map_enum(schema, hint, pointer);
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            let Some(alternatives) = schema.get(key) else {
                continue;
            };
            let Value::Array(alternatives) = alternatives else {
                let message = format!("`{key}` is {}, not an array", kind(alternatives));
                return self.invalid(&pointer_push(pointer, key), message);
            };
            return if key == "allOf" {
                self.map_all_of(alternatives, schema, hint, pointer, depth)
            } else {
                self.map_union(key, alternatives, schema, hint, pointer, depth)
            };
        }
        if schema.contains_key("properties") || schema.contains_key("additionalProperties") {
            return self.map_object(schema, hint, pointer, depth);
        }
        Mapped::value("Typed as `serde_json::Value`: the schema has no `type`.")
    }
}

/// The integer type for an `integer` schema, and whether its `format` chose it.
fn int_type(schema: &Map<String, Value>) -> (IntType, bool) {
    let by_format = match schema.get("format").and_then(Value::as_str) {
        Some("int8") => Some(IntType::I8),
        Some("int16") => Some(IntType::I16),
        Some("int32") => Some(IntType::I32),
        Some("int64") => Some(IntType::I64),
        Some("uint8") => Some(IntType::U8),
        Some("uint16") => Some(IntType::U16),
        Some("uint32") => Some(IntType::U32),
        Some("uint64" | "uint") => Some(IntType::U64),
        _ => None,
    };
    if let Some(int) = by_format {
        return (int, true);
    }
    let non_negative = |key: &str| {
        schema
            .get(key)
            .and_then(Value::as_f64)
            .is_some_and(|m| m >= 0.0)
    };
    if non_negative("minimum") || non_negative("exclusiveMinimum") {
        (IntType::U64, false)
    } else {
        (IntType::I64, false)
    }
}

/// Compact JSON for a doc note, cut to a readable length.
/// The constraints of a property's schema, for the field's doc comment (the Rust type may
/// enforce some, `minimum: 0` on an integer; the server checks them all): bounds (`minLength`, `maxLength`, `pattern`, `minimum`,
/// `exclusiveMinimum`, `maximum`, `exclusiveMaximum`, `multipleOf`, `minItems`, `maxItems`,
/// `uniqueItems`, `minProperties`, `maxProperties`) on one line, then the `enum` values.
/// (`format` and `default` have notes of their own.)
fn constraints(prop: &Value) -> Vec<String> {
    const KEYWORDS: [&str; 13] = [
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "exclusiveMinimum",
        "maximum",
        "exclusiveMaximum",
        "multipleOf",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minProperties",
        "maxProperties",
    ];
    let bounds: Vec<String> = KEYWORDS
        .iter()
        .filter_map(|keyword| {
            let value = prop.get(*keyword)?;
            let value = match value {
                Value::String(text) => docs_safe_short(text),
                other => short_json(other),
            };
            Some(format!("`{keyword}` `{value}`"))
        })
        .collect();
    let mut notes = Vec::new();
    if !bounds.is_empty() {
        notes.push(format!("Constraints: {}.", bounds.join(", ")));
    }
    if let Some(Value::Array(values)) = prop.get("enum") {
        let values: Vec<String> = values
            .iter()
            .map(|v| format!("`{}`", short_json(v)))
            .collect();
        notes.push(format!("One of: {}.", values.join(", ")));
    }
    notes
}

fn short_json(value: &Value) -> String {
    docs_safe_short(&serde_json::to_string(value).unwrap_or_default())
}

/// `text` cut to 200 characters ([`oma_mcp_core::quote::excerpt`]), with backticks
/// replaced so it stays inside a code span.
fn docs_safe_short(text: &str) -> String {
    oma_mcp_core::quote::excerpt(&text).replace('`', "'")
}

/// A schema's `description`, when it is a non-blank string.
fn description(schema: &Value) -> Option<String> {
    schema.as_object().and_then(description_of)
}

/// [`description`] of an object schema.
fn description_of(schema: &Map<String, Value>) -> Option<String> {
    schema
        .get("description")
        .and_then(Value::as_str)
        .filter(|d| !d.trim().is_empty())
        .map(str::to_owned)
}

#[cfg(test)]
mod tests;
