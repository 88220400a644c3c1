//! JSON Schema → a small, plain-data type model (no tokens; see `emit` for those).
//!
//! What maps to what:
//!
//! | JSON Schema | [`RustType`] |
//! |---|---|
//! | `string` / `integer` / `number` / `boolean` | `String` / `i64` / `f64` / `bool` |
//! | `array` with `items` / without | `Vec<T>` / `Vec<Value>` |
//! | `object` with `properties` | a nested struct `<Parent><Field>` |
//! | `object` without `properties` | `serde_json::Map<String, Value>` |
//! | string `enum` | an enum `<Parent><Field>`, one variant per distinct value |
//! | `type: [T, "null"]`, `anyOf`/`oneOf` of `T` and `{"type": "null"}`, `enum` with `null` | `Option<T>` |
//! | unions, a missing `type`, `$ref`, tuple `items`, `true` | `Value`, with a doc note |
//! | invalid subschemas, unknown types, nesting deeper than [`MAX_DEPTH`] | `Value`, with a warning |

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::Warning;
use super::names::{self, Namespace, RustIdent};

/// Schemas nested deeper than this become `serde_json::Value` with a warning.
pub(crate) const MAX_DEPTH: usize = 16;

/// The Rust type of a field, an array item or a nullable value.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum RustType {
    /// `String`.
    String,
    /// `i64`.
    I64,
    /// `f64`.
    F64,
    /// `bool`.
    Bool,
    /// `Vec<T>`.
    Vec(Box<RustType>),
    /// `serde_json::Map<String, serde_json::Value>`.
    JsonMap,
    /// `serde_json::Value`.
    Value,
    /// `Option<T>` (a nullable value; never nested).
    Option(Box<RustType>),
    /// A struct or enum generated in the same module.
    Named(String),
}

impl RustType {
    /// `Option<self>`, without nesting options.
    fn nullable(self) -> Self {
        match self {
            Self::Option(_) => self,
            other => Self::Option(Box::new(other)),
        }
    }

    /// Whether this is an `Option<_>`.
    pub(crate) fn is_option(&self) -> bool {
        matches!(self, Self::Option(_))
    }
}

/// A field of a generated struct.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Field {
    /// The Rust field name.
    pub ident: RustIdent,
    /// The JSON property name.
    pub json_name: String,
    /// The declared type; optional fields are wrapped in `Option` by the emitter.
    pub ty: RustType,
    /// Whether the schema lists the property in `required`.
    pub required: bool,
    /// The property's `description`.
    pub description: Option<String>,
    /// Notes on how the schema was mapped (for the doc comment).
    pub notes: Vec<String>,
    /// JSON pointer to the property's schema in the tool descriptor.
    pub pointer: String,
}

/// A generated struct.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct StructDef {
    /// The Rust type name.
    pub name: String,
    /// Doc text (the schema's description, or a generated sentence).
    pub doc: String,
    /// The fields, in the schema's property order.
    pub fields: Vec<Field>,
}

impl StructDef {
    /// Whether every field is an `Option` (then the struct derives `Default`).
    pub(crate) fn all_optional(&self) -> bool {
        self.fields.iter().all(|f| !f.required || f.ty.is_option())
    }
}

/// A variant of a generated string enum.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Variant {
    /// The Rust variant name.
    pub ident: String,
    /// The JSON string value.
    pub value: String,
}

/// A generated string enum.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct EnumDef {
    /// The Rust type name.
    pub name: String,
    /// Doc text.
    pub doc: String,
    /// The variants, in the schema's order, one per distinct value.
    pub variants: Vec<Variant>,
}

/// A generated type.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum TypeDef {
    /// A struct.
    Struct(StructDef),
    /// A string enum.
    Enum(EnumDef),
}

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

/// Appends one RFC 6901 reference token to a JSON pointer.
pub(crate) fn pointer_push(pointer: &str, token: &str) -> String {
    format!("{pointer}/{}", token.replace('~', "~0").replace('/', "~1"))
}

/// Maps one tool's `inputSchema` to its types: the argument struct `args_name` first, then
/// every nested struct and enum in order of appearance. Nested type names are claimed in
/// `types`; problems are pushed to `warnings` with pointers under `/inputSchema`.
pub(crate) fn input_types(
    tool: &str,
    args_name: &str,
    input_schema: Option<&Value>,
    types: &mut Namespace,
    warnings: &mut Vec<Warning>,
) -> Vec<TypeDef> {
    let mut cx = Converter {
        tool,
        types,
        defs: Vec::new(),
        warnings,
    };
    let pointer = "/inputSchema";
    let doc = format!("Arguments of the MCP tool \"{tool}\".");
    let fields = match input_schema {
        None => Vec::new(),
        Some(Value::Object(schema)) => {
            let declared = schema.get("type");
            let is_object = match declared {
                None => true,
                Some(Value::String(t)) => t == "object",
                Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
                Some(_) => false,
            };
            if is_object {
                cx.fields(args_name, schema, pointer, 1)
            } else {
                cx.warn(
                    pointer,
                    format!(
                        "inputSchema has type {}, not \"object\"; the argument struct has no fields",
                        declared.map(Value::to_string).unwrap_or_default()
                    ),
                );
                Vec::new()
            }
        }
        Some(other) => {
            cx.warn(
                pointer,
                format!(
                    "inputSchema is {}, not a JSON object; the argument struct has no fields",
                    kind(other)
                ),
            );
            Vec::new()
        }
    };
    let mut defs = vec![TypeDef::Struct(StructDef {
        name: args_name.to_owned(),
        doc,
        fields,
    })];
    defs.append(&mut cx.defs);
    defs
}

struct Converter<'a> {
    tool: &'a str,
    types: &'a mut Namespace,
    defs: Vec<TypeDef>,
    warnings: &'a mut Vec<Warning>,
}

impl Converter<'_> {
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

    /// The fields for the `properties` of an object schema.
    fn fields(
        &mut self,
        struct_name: &str,
        schema: &Map<String, Value>,
        pointer: &str,
        depth: usize,
    ) -> Vec<Field> {
        let props = match schema.get("properties") {
            None => return Vec::new(),
            Some(Value::Object(props)) => props,
            Some(other) => {
                let message = format!(
                    "`properties` is {}, not an object; ignoring it",
                    kind(other)
                );
                self.warn(&pointer_push(pointer, "properties"), message);
                return Vec::new();
            }
        };
        let required: BTreeSet<&str> = match schema.get("required") {
            None => BTreeSet::new(),
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
            Some(other) => {
                let message = format!(
                    "`required` is {}, not an array of names; ignoring it",
                    kind(other)
                );
                self.warn(&pointer_push(pointer, "required"), message);
                BTreeSet::new()
            }
        };
        let mut idents = Namespace::new();
        let mut fields = Vec::with_capacity(props.len());
        for (json_name, prop) in props {
            let prop_pointer = pointer_push(&pointer_push(pointer, "properties"), json_name);
            let hint = names::nested_type_name(struct_name, json_name);
            let mapped = self.map(prop, &hint, &prop_pointer, depth);
            fields.push(Field {
                ident: idents.claim_field(names::snake_ident(json_name)),
                json_name: json_name.clone(),
                ty: mapped.ty,
                required: required.contains(json_name.as_str()),
                description: description(prop),
                notes: mapped.notes,
                pointer: prop_pointer,
            });
        }
        fields
    }

    /// Maps one subschema. `hint` names a nested struct or enum made for it.
    fn map(&mut self, schema: &Value, hint: &str, pointer: &str, depth: usize) -> Mapped {
        if depth > MAX_DEPTH {
            return self.invalid(
                pointer,
                format!("the schema is nested deeper than {MAX_DEPTH} levels"),
            );
        }
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
        if let Some(reference) = schema.get("$ref") {
            let target = reference.as_str().unwrap_or("?");
            return Mapped::value(format!(
                "Typed as `serde_json::Value`: the schema refers to `{target}` (`$ref` is not resolved yet)."
            ));
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
        types: &[Value],
        schema: &Map<String, Value>,
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
            many => {
                return Mapped::value(format!(
                    "Typed as `serde_json::Value`: the value may be any of the types {}.",
                    many.join(", ")
                ));
            }
        };
        if nullable {
            mapped.ty = mapped.ty.nullable();
        }
        mapped
    }

    fn map_typed(
        &mut self,
        t: &str,
        schema: &Map<String, Value>,
        hint: &str,
        pointer: &str,
        depth: usize,
    ) -> Mapped {
        if schema.contains_key("enum") && t == "string" {
            return self.map_enum(schema, hint, pointer);
        }
        match t {
            "string" => Mapped::of(RustType::String),
            "integer" => Mapped::of(RustType::I64),
            "number" => Mapped::of(RustType::F64),
            "boolean" => Mapped::of(RustType::Bool),
            "array" => self.map_array(schema, hint, pointer, depth),
            "object" => self.map_object(schema, hint, pointer, depth),
            "null" => Mapped::value("Typed as `serde_json::Value`: the schema only allows `null`."),
            other => self.invalid(
                &pointer_push(pointer, "type"),
                format!("unknown type \"{other}\""),
            ),
        }
    }

    fn map_array(
        &mut self,
        schema: &Map<String, Value>,
        hint: &str,
        pointer: &str,
        depth: usize,
    ) -> Mapped {
        let items_pointer = pointer_push(pointer, "items");
        let item = match schema.get("items") {
            None if schema.contains_key("prefixItems") => Mapped::value(
                "Items typed as `serde_json::Value`: the array is a tuple (`prefixItems`).",
            ),
            None => Mapped::of(RustType::Value),
            Some(items @ (Value::Object(_) | Value::Bool(_))) => {
                self.map(items, &format!("{hint}Item"), &items_pointer, depth + 1)
            }
            Some(Value::Array(_)) => Mapped::value(
                "Items typed as `serde_json::Value`: the array is a tuple (`items` is a list).",
            ),
            Some(other) => {
                let message = format!("invalid `items`: expected a schema, found {}", kind(other));
                self.invalid(&items_pointer, message)
            }
        };
        Mapped {
            ty: RustType::Vec(Box::new(item.ty)),
            notes: item.notes,
        }
    }

    fn map_object(
        &mut self,
        schema: &Map<String, Value>,
        hint: &str,
        pointer: &str,
        depth: usize,
    ) -> Mapped {
        match schema.get("properties") {
            Some(Value::Object(props)) if !props.is_empty() => {
                let name = self.types.claim_type(hint, &[]);
                // Reserve the slot so nested types come after their parent.
                let slot = self.defs.len();
                self.defs.push(TypeDef::Struct(StructDef {
                    name: name.clone(),
                    doc: String::new(),
                    fields: Vec::new(),
                }));
                let fields = self.fields(&name, schema, pointer, depth + 1);
                let doc = description_of(schema).unwrap_or_else(|| {
                    format!(
                        "An object in the arguments of the MCP tool \"{}\".",
                        self.tool
                    )
                });
                self.defs[slot] = TypeDef::Struct(StructDef {
                    name: name.clone(),
                    doc,
                    fields,
                });
                Mapped::of(RustType::Named(name))
            }
            Some(Value::Object(_)) | None => Mapped::of(RustType::JsonMap),
            Some(other) => {
                let message = format!("`properties` is {}, not an object", kind(other));
                let mut mapped = self.invalid(&pointer_push(pointer, "properties"), message);
                mapped.ty = RustType::JsonMap;
                mapped
            }
        }
    }

    /// A string enum; `null` among the values makes it optional.
    fn map_enum(&mut self, schema: &Map<String, Value>, hint: &str, pointer: &str) -> Mapped {
        let enum_pointer = pointer_push(pointer, "enum");
        let Some(Value::Array(values)) = schema.get("enum") else {
            let kind = schema.get("enum").map(kind).unwrap_or("missing");
            return self.invalid(&enum_pointer, format!("`enum` is {kind}, not an array"));
        };
        let mut seen = BTreeSet::new();
        let mut strings = Vec::new();
        let mut nullable = false;
        for v in values {
            match v {
                Value::String(s) => {
                    if seen.insert(s.as_str()) {
                        strings.push(s.as_str());
                    }
                }
                Value::Null => nullable = true,
                _ => {
                    return Mapped::value(
                        "Typed as `serde_json::Value`: the `enum` has values that are not strings.",
                    );
                }
            }
        }
        if strings.is_empty() {
            return self.invalid(&enum_pointer, "`enum` has no string values".into());
        }
        let name = self.types.claim_type(hint, &[]);
        let mut idents = Namespace::new();
        let variants = strings
            .into_iter()
            .map(|value| {
                let fallback = if value.is_empty() { "Empty" } else { "Variant" };
                let base = names::camel_ident(value, fallback, "V", "_");
                Variant {
                    ident: idents.claim_type(&base, &[]),
                    value: value.to_owned(),
                }
            })
            .collect();
        let doc = description_of(schema).unwrap_or_else(|| {
            format!(
                "A value in the arguments of the MCP tool \"{}\".",
                self.tool
            )
        });
        self.defs.push(TypeDef::Enum(EnumDef {
            name: name.clone(),
            doc,
            variants,
        }));
        let ty = RustType::Named(name);
        Mapped::of(if nullable { ty.nullable() } else { ty })
    }

    /// A schema without `type`: an enum, a union with `null`, an object by its `properties`,
    /// otherwise any value.
    fn map_untyped(
        &mut self,
        schema: &Map<String, Value>,
        hint: &str,
        pointer: &str,
        depth: usize,
    ) -> Mapped {
        if let Some(Value::Array(values)) = schema.get("enum")
            && values.iter().all(|v| v.is_string() || v.is_null())
        {
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
            let is_null = |s: &Value| s.get("type").and_then(Value::as_str) == Some("null");
            let nullable = key != "allOf" && alternatives.iter().any(is_null);
            let rest: Vec<(usize, &Value)> = alternatives
                .iter()
                .enumerate()
                .filter(|(_, s)| !is_null(s))
                .collect();
            return match rest.as_slice() {
                [(i, one)] => {
                    let one_pointer = pointer_push(&pointer_push(pointer, key), &i.to_string());
                    let mut mapped = self.map(one, hint, &one_pointer, depth + 1);
                    if nullable {
                        mapped.ty = mapped.ty.nullable();
                    }
                    mapped
                }
                _ => Mapped::value(format!(
                    "Typed as `serde_json::Value`: the schema is a union (`{key}` of {} schemas).",
                    alternatives.len()
                )),
            };
        }
        if schema.contains_key("properties") {
            return self.map_object(schema, hint, pointer, depth);
        }
        if let Some(value) = schema.get("const") {
            return Mapped::value(format!(
                "Typed as `serde_json::Value`: the value must be `{}`.",
                serde_json::to_string(value).unwrap_or_default()
            ));
        }
        Mapped::value("Typed as `serde_json::Value`: the schema has no `type`.")
    }
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

/// What kind of JSON value `v` is, for messages.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
#[path = "schema_tests.rs"]
mod tests;
