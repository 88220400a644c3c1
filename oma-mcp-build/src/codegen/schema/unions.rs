//! `anyOf`/`oneOf`/`allOf` and `type: [..]` lists.
//!
//! - a `null` branch makes the result an `Option`; one other branch is that branch's type;
//! - object branches that all have the same property with a constant string (`const`, or
//!   an `enum` of one value), each a different one, become a `#[serde(tag)]` enum whose
//!   variants hold the branches' other properties;
//! - branches the JSON value's shape tells apart (at most one of each JSON type, where
//!   objects count as apart when each has a required property that no other one declares,
//!   or declares with another `const`; a branch that is itself a union of objects is an
//!   object)
//!   become a `#[serde(untagged)]` enum, tried integers before numbers and string enums
//!   before strings;
//! - `allOf` of objects is one struct with the properties of all of them;
//! - anything else is `serde_json::Value` with a doc note.
//!
//! The decision is made on the schemas (following local `$ref`s) before anything is
//! generated, so a rejected union leaves no unused types behind. An untagged variant's type
//! is then mapped from the branch as written, so a `$ref` branch is the target's one named
//! type (`Box`ed when it refers back to a type being defined). A tagged variant's payload
//! and a merged `allOf` are built from the followed schemas; the union or `allOf` reached
//! again from inside them is its own type `Box`ed (see `Converter::map`), so recursion
//! through a branch ends instead of being unrolled.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::{
    Converter, Mapped, RustType, StructDef, TaggedEnumDef, TaggedVariant, TypeDef, UntaggedEnumDef,
    UntaggedVariant, identifiers, pointer_push,
};

/// The JSON shape a branch accepts, in the order an untagged enum tries them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Shape {
    Bool,
    Integer,
    Number,
    StringEnum,
    String,
    Array,
    Object,
}

impl Shape {
    fn word(self) -> &'static str {
        match self {
            Self::Bool => "Bool",
            Self::Integer => "Integer",
            Self::Number => "Number",
            Self::StringEnum => "Enum",
            Self::String => "String",
            Self::Array => "Array",
            Self::Object => "Object",
        }
    }

    fn of_type(t: &str) -> Option<Self> {
        Some(match t {
            "boolean" => Self::Bool,
            "integer" => Self::Integer,
            "number" => Self::Number,
            "string" => Self::String,
            "array" => Self::Array,
            "object" => Self::Object,
            _ => return None,
        })
    }
}

/// A branch of a union: where it is, its schema with `$ref`s followed, and a name for it.
pub(super) struct Branch<'a> {
    /// The branch as written (maybe a `$ref`) and its pointer.
    written: (&'a Value, String),
    /// Where the followed schema is.
    pub(super) pointer: String,
    /// The schema, `$ref`s followed.
    pub(super) schema: &'a Value,
    /// The last `$ref`'s name, else the schema's `title`.
    label: Option<String>,
}

/// How many `$ref`s in a row are followed when classifying a branch.
const MAX_HOPS: usize = 8;

/// Whether `schema` is `{"type": "null"}`.
fn is_null(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
}

/// A constant string: `const`, or an `enum` of one string.
fn constant(schema: &Value) -> Option<&str> {
    if let Some(Value::String(s)) = schema.get("const") {
        return Some(s);
    }
    match schema.get("enum") {
        Some(Value::Array(values)) => match values.as_slice() {
            [Value::String(s)] => Some(s),
            _ => None,
        },
        _ => None,
    }
}

/// The `properties` of an object schema.
fn properties(schema: &Value) -> Option<&Map<String, Value>> {
    schema.get("properties").and_then(Value::as_object)
}

fn required(schema: &Value) -> BTreeSet<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// Whether `schema` describes objects only.
pub(super) fn is_object(schema: &Value) -> bool {
    match schema.get("type") {
        Some(t) => t == "object",
        None => {
            schema.get("properties").is_some_and(Value::is_object)
                && !["anyOf", "oneOf", "allOf", "enum", "const"]
                    .iter()
                    .any(|k| schema.get(*k).is_some())
        }
    }
}

impl<'a> Converter<'a> {
    /// `schema` with local `$ref`s followed, its pointer and the last `$ref`'s name; `None`
    /// when a `$ref` does not resolve or more than [`MAX_HOPS`] follow in a row.
    pub(super) fn follow(&self, mut schema: &'a Value, mut pointer: String) -> Option<Branch<'a>> {
        let written = (schema, pointer.clone());
        let mut label = None;
        for _ in 0..MAX_HOPS {
            let Some(reference) = schema.get("$ref") else {
                let label = label.or_else(|| {
                    schema
                        .get("title")
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                });
                return Some(Branch {
                    written,
                    pointer,
                    schema,
                    label,
                });
            };
            let (target_pointer, target) = self.resolve(reference.as_str()?).ok()?;
            label = target_pointer.rsplit('/').next().map(str::to_owned);
            schema = target;
            pointer = target_pointer;
        }
        None
    }

    /// The shape of a (followed) branch, `None` when it may take several. A branch that is
    /// itself an `anyOf`/`oneOf` whose branches are all objects (local `$ref`s followed) is
    /// an object too: its own type decides between them.
    fn shape(&self, schema: &'a Value) -> Option<Shape> {
        if constant(schema).is_some() {
            return Some(Shape::StringEnum);
        }
        if let Some(Value::Array(values)) = schema.get("enum") {
            return values
                .iter()
                .all(Value::is_string)
                .then_some(Shape::StringEnum);
        }
        if schema.get("const").is_some() {
            return None;
        }
        match schema.get("type") {
            Some(Value::String(t)) => Shape::of_type(t),
            None if is_object(schema) => Some(Shape::Object),
            None => self.union_of_objects(schema).then_some(Shape::Object),
            _ => None,
        }
    }

    /// Whether `schema` is only an `anyOf` or `oneOf` (no `properties` or `allOf` beside it)
    /// of one or more object schemas, none `null`.
    fn union_of_objects(&self, schema: &'a Value) -> bool {
        let Some(object) = schema.as_object() else {
            return false;
        };
        if ["properties", "allOf", "enum", "const", "$ref"]
            .iter()
            .any(|k| object.contains_key(*k))
        {
            return false;
        }
        let alternatives = match (object.get("anyOf"), object.get("oneOf")) {
            (Some(Value::Array(a)), None) | (None, Some(Value::Array(a))) => a,
            _ => return false,
        };
        !alternatives.is_empty()
            && alternatives.iter().all(|a| {
                self.follow(a, String::new())
                    .is_some_and(|b| is_object(b.schema))
            })
    }

    /// `anyOf` / `oneOf` (`key`) with `alternatives`.
    pub(super) fn map_union(
        &mut self,
        key: &str,
        alternatives: &'a [Value],
        schema: &'a Map<String, Value>,
        hint: &str,
        pointer: &str,
        depth: usize,
    ) -> Mapped {
        let nullable = alternatives.iter().any(is_null);
        // Repeated branches count once: hashed by canonical JSON (sorted keys, equal exactly
        // when the values are), so thousands of branches stay linear.
        let mut rest: Vec<(usize, &'a Value)> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for (i, alternative) in alternatives.iter().enumerate() {
            if !is_null(alternative)
                && seen.insert(oma_mcp_core::snapshot::canonical_json(alternative))
            {
                rest.push((i, alternative));
            }
        }
        let key_pointer = pointer_push(pointer, key);
        if rest.len() >= 2
            && let Some(values) = self.string_enum_values(&rest, &key_pointer)
        {
            let mut mapped = self.string_enum(values, schema, hint, pointer);
            if nullable {
                mapped.ty = mapped.ty.nullable();
            }
            return mapped;
        }
        let mut mapped = match rest.as_slice() {
            [] => Mapped::value("Typed as `serde_json::Value`: the schema only allows `null`."),
            [(i, one)] => self.map(
                one,
                hint,
                &pointer_push(&key_pointer, &i.to_string()),
                depth + 1,
            ),
            many => {
                let branches: Option<Vec<Branch<'a>>> = many
                    .iter()
                    .map(|(i, s)| self.follow(s, pointer_push(&key_pointer, &i.to_string())))
                    .collect();
                let tagged = branches.as_deref().and_then(|b| tag_property(b));
                match (branches, tagged) {
                    (Some(branches), Some(tag)) => {
                        self.tagged(&branches, &tag, schema, hint, pointer, depth)
                    }
                    (Some(branches), None) if self.distinguishable(&branches) => {
                        self.untagged(branches, schema, hint, pointer, depth)
                    }
                    _ => Mapped::value(format!(
                        "Typed as `serde_json::Value`: the schema is a union (`{key}` of {} \
                         schemas) whose branches a value's shape does not tell apart.",
                        alternatives.len()
                    )),
                }
            }
        };
        if nullable {
            mapped.ty = mapped.ty.nullable();
        }
        mapped
    }

    /// The values of union branches that are all string enums (an `enum` of strings, or a
    /// `const` string, local `$ref`s followed; `type` may say `string`), in branch order, each
    /// once; `None` when one branch is anything else. Such a union is one string enum of all
    /// the values.
    fn string_enum_values(
        &self,
        branches: &[(usize, &'a Value)],
        key_pointer: &str,
    ) -> Option<Vec<&'a str>> {
        let mut values: Vec<&'a str> = Vec::new();
        for (i, branch) in branches {
            let followed = self.follow(branch, pointer_push(key_pointer, &i.to_string()))?;
            let object = followed.schema.as_object()?;
            let allowed = [
                "enum",
                "const",
                "type",
                "description",
                "title",
                "default",
                "examples",
            ];
            if object.keys().any(|k| !allowed.contains(&k.as_str()))
                || object.get("type").is_some_and(|t| t != "string")
            {
                return None;
            }
            let branch_values: Vec<&'a str> = match (object.get("enum"), object.get("const")) {
                (Some(Value::Array(list)), None) => {
                    list.iter().map(Value::as_str).collect::<Option<_>>()?
                }
                (None, Some(Value::String(one))) => vec![one.as_str()],
                _ => return None,
            };
            if branch_values.is_empty() {
                return None;
            }
            for value in branch_values {
                if !values.contains(&value) {
                    values.push(value);
                }
            }
        }
        Some(values)
    }

    fn tagged(
        &mut self,
        branches: &[Branch<'a>],
        tag: &str,
        schema: &'a Map<String, Value>,
        hint: &str,
        pointer: &str,
        depth: usize,
    ) -> Mapped {
        let name = self.claim(hint, pointer);
        let slot = self.defs.len();
        self.defs
            .push(TypeDef::Struct(StructDef::new(&name, "", Vec::new())));
        let values: Vec<&str> = branches
            .iter()
            .map(|b| {
                properties(b.schema)
                    .and_then(|p| p.get(tag))
                    .and_then(constant)
                    .unwrap_or_default()
            })
            .collect();
        let idents = identifiers::variant_idents(&values, &[]);
        let mut variants = Vec::with_capacity(branches.len());
        for ((branch, value), ident) in branches.iter().zip(&values).zip(idents) {
            let Some(object) = branch.schema.as_object() else {
                continue;
            };
            let has_other = properties(branch.schema).is_some_and(|p| p.keys().any(|k| k != tag))
                || object
                    .get("additionalProperties")
                    .is_some_and(|e| e.as_object().is_some_and(|e| !e.is_empty()));
            let payload = has_other.then(|| {
                // Not `claim`: the payload is not the type of the branch's schema (it lacks
                // the tag), so a `$ref` to that schema must not find it.
                let struct_name = self.types.claim_type(&format!("{name}{ident}"), &[]);
                let slot = self.defs.len();
                self.defs.push(TypeDef::Struct(StructDef::new(
                    &struct_name,
                    "",
                    Vec::new(),
                )));
                let def = self.build_struct(
                    &struct_name,
                    &[(object, branch.pointer.clone())],
                    depth + 1,
                    Some(tag),
                );
                self.defs[slot] = TypeDef::Struct(def);
                struct_name
            });
            variants.push(TaggedVariant {
                ident,
                value: (*value).to_owned(),
                payload,
            });
        }
        self.defs[slot] = TypeDef::Tagged(TaggedEnumDef {
            name: name.clone(),
            doc: self.nested_doc(schema, "A choice"),
            tag: tag.to_owned(),
            variants,
        });
        Mapped::of(RustType::Named(name))
    }

    fn untagged(
        &mut self,
        mut branches: Vec<Branch<'a>>,
        schema: &'a Map<String, Value>,
        hint: &str,
        pointer: &str,
        depth: usize,
    ) -> Mapped {
        branches.sort_by_key(|b| self.shape(b.schema));
        let name = self.claim(hint, pointer);
        let slot = self.defs.len();
        self.defs
            .push(TypeDef::Struct(StructDef::new(&name, "", Vec::new())));
        let mut idents = identifiers::Namespace::new();
        let mut variants = Vec::with_capacity(branches.len());
        // A string branch beside a string enum takes the strings the enum does not list:
        // the enum stays closed, or it would take them first.
        let has_string = branches
            .iter()
            .any(|b| self.shape(b.schema) == Some(Shape::String));
        for branch in &branches {
            let word = self.shape(branch.schema).map_or("Value", Shape::word);
            let label = branch
                .label
                .as_deref()
                .map(|l| identifiers::camel_ident(l, word, "V", "_"))
                .unwrap_or_else(|| word.to_owned());
            let ident = idents.claim_type(&label, &[]);
            let (written, written_pointer) = &branch.written;
            let mapped = self.map(
                written,
                &format!("{name}{ident}"),
                written_pointer,
                depth + 1,
            );
            if has_string
                && self.shape(branch.schema) == Some(Shape::StringEnum)
                && let RustType::Named(enum_name) = mapped.ty.clone().unboxed()
            {
                self.close_enum(&enum_name);
            }
            let mut doc = super::description(branch.schema)
                .unwrap_or_else(|| format!("A value of type `{}`.", word.to_lowercase()));
            // The branch's notes (its format, a `serde_json::Value` fallback inside it).
            for note in &mapped.notes {
                doc.push_str("\n\n");
                doc.push_str(note);
            }
            variants.push(UntaggedVariant {
                ident,
                ty: mapped.ty,
                doc,
            });
        }
        self.defs[slot] = TypeDef::Untagged(UntaggedEnumDef {
            name: name.clone(),
            doc: self.nested_doc(schema, "A value of one of several types"),
            variants,
        });
        Mapped::of(RustType::Named(name))
    }

    /// Makes the generated string enum `name` closed (no catch-all variant).
    fn close_enum(&mut self, name: &str) {
        for def in &mut self.defs {
            if let TypeDef::Enum(e) = def
                && e.name == name
                && e.open
            {
                e.open = false;
                // Its values no longer need to avoid the catch-all's name.
                let values: Vec<&str> = e.variants.iter().map(|v| v.value.as_str()).collect();
                let idents = identifiers::variant_idents(&values, &[]);
                for (variant, ident) in e.variants.iter_mut().zip(idents) {
                    variant.ident = ident;
                }
            }
        }
    }

    /// `type: [..]` with several types other than `null`: an untagged enum of them.
    pub(super) fn map_type_union(
        &mut self,
        types: &[&'a str],
        schema: &'a Map<String, Value>,
        hint: &str,
        pointer: &str,
        depth: usize,
    ) -> Mapped {
        let mut shapes: Vec<(Shape, &str)> = Vec::new();
        for t in types {
            match Shape::of_type(t) {
                Some(shape) => shapes.push((shape, t)),
                None => {
                    return self.invalid(
                        &pointer_push(pointer, "type"),
                        format!("unknown type \"{t}\""),
                    );
                }
            }
        }
        if schema.contains_key("enum") {
            return self.map_enum(schema, hint, pointer);
        }
        shapes.sort();
        let name = self.claim(hint, pointer);
        let slot = self.defs.len();
        self.defs
            .push(TypeDef::Struct(StructDef::new(&name, "", Vec::new())));
        let mut variants = Vec::with_capacity(shapes.len());
        for (shape, t) in shapes {
            let ident = shape.word().to_owned();
            let mapped = self.map_typed(t, schema, &format!("{name}{ident}"), pointer, depth);
            let mut doc = format!("A value of type `{t}`.");
            for note in &mapped.notes {
                doc.push_str("\n\n");
                doc.push_str(note);
            }
            variants.push(UntaggedVariant {
                ident,
                ty: mapped.ty,
                doc,
            });
        }
        self.defs[slot] = TypeDef::Untagged(UntaggedEnumDef {
            name: name.clone(),
            doc: self.nested_doc(schema, "A value of one of several types"),
            variants,
        });
        Mapped::of(RustType::Named(name))
    }

    /// `allOf`: one struct with the properties of every branch when all are objects.
    pub(super) fn map_all_of(
        &mut self,
        alternatives: &'a [Value],
        schema: &'a Map<String, Value>,
        hint: &str,
        pointer: &str,
        depth: usize,
    ) -> Mapped {
        let key_pointer = pointer_push(pointer, "allOf");
        if let [one] = alternatives {
            return self.map(one, hint, &pointer_push(&key_pointer, "0"), depth + 1);
        }
        let branches: Option<Vec<Branch<'a>>> = alternatives
            .iter()
            .enumerate()
            .map(|(i, s)| self.follow(s, pointer_push(&key_pointer, &i.to_string())))
            .collect();
        let parts: Option<Vec<(&'a Map<String, Value>, String)>> = branches.and_then(|b| {
            b.into_iter()
                .map(|b| {
                    let object = b.schema.as_object().filter(|_| is_object(b.schema))?;
                    Some((object, b.pointer))
                })
                .collect()
        });
        let Some(mut parts) = parts else {
            return Mapped::value(format!(
                "Typed as `serde_json::Value`: the schema is an `allOf` of {} schemas that are \
                 not all objects.",
                alternatives.len()
            ));
        };
        // The outer schema's own properties count too.
        if schema.contains_key("properties") {
            parts.insert(0, (schema, pointer.to_owned()));
        }
        let name = self.claim(hint, pointer);
        let slot = self.defs.len();
        self.defs
            .push(TypeDef::Struct(StructDef::new(&name, "", Vec::new())));
        let mut def = self.build_struct(&name, &parts, depth + 1, None);
        def.doc = self.nested_doc(schema, "An object");
        self.defs[slot] = TypeDef::Struct(def);
        Mapped::of(RustType::Named(name))
    }
}

/// The property every branch sets to a different constant string, if there is one.
fn tag_property(branches: &[Branch<'_>]) -> Option<String> {
    let first = branches.first()?;
    if !branches.iter().all(|b| is_object(b.schema)) {
        return None;
    }
    properties(first.schema)?
        .iter()
        .filter(|(_, s)| constant(s).is_some())
        .map(|(k, _)| k)
        .find(|key| {
            let mut seen = BTreeSet::new();
            branches.iter().all(|b| {
                properties(b.schema)
                    .and_then(|p| p.get(key.as_str()))
                    .and_then(constant)
                    .is_some_and(|v| seen.insert(v))
            })
        })
        .cloned()
}

impl<'a> Converter<'a> {
    /// Whether an untagged enum can tell the branches apart by the value's shape.
    fn distinguishable(&self, branches: &[Branch<'a>]) -> bool {
        let mut shapes = BTreeSet::new();
        let mut objects = Vec::new();
        for branch in branches {
            let Some(shape) = self.shape(branch.schema) else {
                return false;
            };
            if shape == Shape::Object {
                objects.push(branch.schema);
            } else if !shapes.insert(shape) {
                return false;
            }
        }
        if objects.len() < 2 {
            return true;
        }
        // Each object branch needs a required property that every other branch either does
        // not declare or declares with another `const` (generated structs reject a constant
        // of another value).
        let const_of = |object: &Value, key: &str| {
            properties(object)
                .and_then(|p| p.get(key))
                .and_then(|s| s.get("const"))
                .cloned()
        };
        // Which branches declare each property: a key only one branch declares settles that
        // branch at once, so thousands of branches stay near linear.
        let mut declaring: std::collections::HashMap<&str, Vec<usize>> =
            std::collections::HashMap::new();
        for (i, object) in objects.iter().enumerate() {
            for key in properties(object).into_iter().flat_map(|p| p.keys()) {
                declaring.entry(key.as_str()).or_default().push(i);
            }
        }
        objects.iter().enumerate().all(|(i, object)| {
            required(object).iter().any(|key| {
                let own = const_of(object, key);
                declaring
                    .get(*key)
                    .map_or(&[][..], Vec::as_slice)
                    .iter()
                    .all(|&j| {
                        i == j
                            || own
                                .as_ref()
                                .is_some_and(|c| const_of(objects[j], key).is_some_and(|o| o != *c))
                    })
            })
        })
    }
}
