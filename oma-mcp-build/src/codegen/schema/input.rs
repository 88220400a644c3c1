//! A tool's `inputSchema` → its argument type `<Tool>Args`, which must serialize to a JSON
//! object (`tools/call` sends the arguments as one):
//!
//! - an object schema (also `{}` and a missing schema) is a struct of its properties;
//! - a root `$ref` is the schema it refers to (its `$defs` stay resolvable, and a `$ref` to
//!   it or to `#` is the argument type, `Box`ed inside it);
//! - keywords beside a root `$ref` that add properties or requirements are merged with its
//!   object target, as `allOf: [<the target>, <the siblings>]` (then the target is not the
//!   argument type: a `$ref` to it is a struct of its own); siblings that cannot be merged
//!   are warned about;
//! - a root `allOf` of objects is one struct with the properties of all of them, as nested;
//! - a root `anyOf`/`oneOf` of objects is an enum, as nested unions are (a `null` branch
//!   adds nothing: the arguments sent are always an object);
//! - a root union or `allOf` that is not of objects, or that a value's shape does not tell
//!   apart, and a root `$ref` that cannot be followed, are a struct without fields whose
//!   flattened `additional_properties` map holds every property, with a warning;
//! - a root of another `type` is a struct without fields, with a warning.
//!
//! A root with `properties` of its own is a struct of them (merged with an `allOf` of
//! objects): an `anyOf`/`oneOf` beside them usually only constrains them
//! (`{"required": [..]}`); properties that only its branches declare are warned about.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::refs::{Siblings, constraining_siblings, siblings, unmerged_message};
use super::unions::is_object;
use super::{
    Converter, ExtraField, ExtraRole, PointerState, RustType, StructDef, TypeDef, Warning, kind,
    pointer_push,
};
use crate::codegen::identifiers::{self, Namespace, RustIdent};

/// Where the input schema sits in the tool descriptor.
const ROOT: &str = "/inputSchema";

/// `$ref`s followed in a row at the root before giving up.
const MAX_ROOT_HOPS: usize = 8;

/// What the argument type is made of.
enum ArgsShape<'a> {
    /// A struct of the properties of these object schemas, each with its pointer (none: a
    /// struct without fields).
    Struct(Vec<(&'a Map<String, Value>, String)>),
    /// An enum of the branches of the `anyOf` or `oneOf` (`key`) of `schema` at `pointer`.
    Union {
        key: &'static str,
        alternatives: &'a [Value],
        schema: &'a Map<String, Value>,
        pointer: String,
    },
    /// A JSON object map, because of `reason` about the schema at `pointer`.
    JsonMap { pointer: String, reason: String },
}

/// Maps one tool's `inputSchema` to its types: the argument type `args_name` first (a
/// struct, an enum for a root union, or a struct of one JSON map), then every nested
/// struct and enum in order of appearance. Nested type names are claimed in `types`;
/// problems are pushed to `warnings` with pointers under `/inputSchema`.
pub(crate) fn input_types(
    tool: &str,
    args_name: &str,
    input_schema: Option<&Value>,
    types: &mut Namespace,
    warnings: &mut Vec<Warning>,
) -> Vec<TypeDef> {
    let mut cx = Converter::new(tool, args_name, input_schema, ROOT, types, warnings);
    let doc = format!("Arguments of the MCP tool \"{tool}\".");
    // The pointers whose schema is the argument type: the root and the `$ref`s it follows.
    let mut pointers = vec![ROOT.to_owned()];
    let shape = match input_schema {
        None => ArgsShape::Struct(Vec::new()),
        Some(Value::Object(schema)) => cx.args_shape(schema, &mut pointers),
        Some(other) => {
            let message = format!(
                "inputSchema is {}, not a JSON object; the argument struct has no fields",
                kind(other)
            );
            cx.warn(ROOT, message);
            ArgsShape::Struct(Vec::new())
        }
    };
    // `{"$ref": "#"}` anywhere, or to a `$ref` target the root follows, refers back to the
    // argument type.
    for pointer in &pointers {
        cx.by_pointer.insert(
            pointer.clone(),
            PointerState::InProgress(Some(args_name.to_owned())),
        );
    }
    let (def, mut nested) = match shape {
        ArgsShape::Struct(parts) => {
            let mut def = cx.build_struct(args_name, &parts, 1, None);
            def.doc = doc;
            (TypeDef::Struct(def), std::mem::take(&mut cx.defs))
        }
        ArgsShape::Union {
            key,
            alternatives,
            schema,
            pointer,
        } => {
            cx.root_claim = Some((pointer.clone(), args_name.to_owned()));
            let mapped = cx.map_union(key, alternatives, schema, args_name, &pointer, 1);
            let mut defs = std::mem::take(&mut cx.defs);
            // A `null` branch makes the type optional; the arguments are the enum.
            let args = RustType::Named(args_name.to_owned());
            let typed = mapped.ty == args || mapped.ty == args.nullable();
            match defs.iter().position(|d| d.name() == args_name) {
                Some(at) if typed => {
                    let mut def = defs.remove(at);
                    def.set_doc(doc);
                    (def, defs)
                }
                _ => {
                    // Nothing was generated for a union that is not typed.
                    let reason = format!(
                        "a value's shape does not tell the object branches of the root `{key}` \
                         apart (no property has a different constant in each, and not each has \
                         a required property that no other declares)"
                    );
                    let pointer = pointer_push(&pointer, key);
                    (cx.json_map_args(args_name, doc, &pointer, &reason), defs)
                }
            }
        }
        ArgsShape::JsonMap { pointer, reason } => (
            cx.json_map_args(args_name, doc, &pointer, &reason),
            Vec::new(),
        ),
    };
    let mut defs = vec![def];
    defs.append(&mut nested);
    defs
}

impl<'a> Converter<'a> {
    /// Decides what the argument type is made of, for the root schema `schema`. The
    /// pointers of the `$ref` targets followed are pushed to `pointers`.
    fn args_shape(
        &mut self,
        mut schema: &'a Map<String, Value>,
        pointers: &mut Vec<String>,
    ) -> ArgsShape<'a> {
        // Schemas with a `$ref` whose sibling keywords add to the argument struct, outermost
        // first, and how many of `pointers` have the argument type as theirs (not the targets
        // past the last of them, which lack the siblings).
        let mut merged: Vec<(&'a Map<String, Value>, String)> = Vec::new();
        let mut args_pointers = 0;
        while let Some(reference) = schema.get("$ref") {
            let pointer = pointers.last().map_or(ROOT, String::as_str);
            let ref_pointer = pointer_push(pointer, "$ref");
            let followed = match reference.as_str() {
                Some(reference) => self.resolve(reference),
                None => Err(format!("`$ref` is {}, not a string", kind(reference))),
            };
            let reason = match followed {
                Ok((target_pointer, _)) if pointers.contains(&target_pointer) => {
                    "the `$ref` refers back to itself".to_owned()
                }
                Ok(_) if pointers.len() > MAX_ROOT_HOPS => {
                    format!("more than {MAX_ROOT_HOPS} `$ref`s follow in a row")
                }
                Ok((target_pointer, Value::Object(target))) => {
                    match siblings(schema, target.get("type")) {
                        Siblings::Nothing => {}
                        Siblings::Merge => {
                            merged.push((schema, pointer.to_owned()));
                            args_pointers = pointers.len();
                        }
                        Siblings::Unmergeable(keys) => {
                            let pointer = pointer.to_owned();
                            let why = "a struct of the target cannot express them";
                            self.warn(&pointer, unmerged_message(&keys, why));
                        }
                    }
                    pointers.push(target_pointer);
                    schema = target;
                    continue;
                }
                Ok((_, target)) => format!(
                    "the `$ref` refers to {}, not an object schema",
                    kind(target)
                ),
                Err(message) => message,
            };
            return ArgsShape::JsonMap {
                pointer: ref_pointer,
                reason,
            };
        }
        let pointer = pointers.last().map_or(ROOT, String::as_str).to_owned();
        let mut shape = self.target_shape(schema, pointer);
        if merged.is_empty() {
            return shape;
        }
        // `allOf: [<the target>, <the siblings>]`, innermost siblings first.
        match &mut shape {
            ArgsShape::Struct(parts) if !parts.is_empty() => {
                parts.extend(merged.into_iter().rev());
                pointers.truncate(args_pointers);
            }
            _ => {
                for (schema, pointer) in merged {
                    let keys: Vec<String> = constraining_siblings(schema)
                        .into_iter()
                        .map(str::to_owned)
                        .collect();
                    let why = "the `$ref` target is not an object schema";
                    self.warn(&pointer, unmerged_message(&keys, why));
                }
            }
        }
        shape
    }

    /// [`Converter::args_shape`] of the schema that is not a `$ref`, at `pointer`.
    fn target_shape(&mut self, schema: &'a Map<String, Value>, pointer: String) -> ArgsShape<'a> {
        let declared = schema.get("type");
        let declares_object = match declared {
            None => true,
            Some(Value::String(t)) => t == "object",
            Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
            Some(_) => false,
        };
        if !declares_object {
            let message = format!(
                "inputSchema has type {}, not \"object\"; the argument struct has no fields",
                declared.map(Value::to_string).unwrap_or_default()
            );
            self.warn(&pointer, message);
            return ArgsShape::Struct(Vec::new());
        }
        let own_properties = schema
            .get("properties")
            .and_then(Value::as_object)
            .filter(|p| !p.is_empty());
        let mut combinators = Vec::new();
        for key in ["anyOf", "oneOf", "allOf"] {
            match schema.get(key) {
                None => {}
                Some(Value::Array(alternatives)) => combinators.push((key, alternatives)),
                Some(other) => {
                    let message = format!("`{key}` is {}, not an array; ignoring it", kind(other));
                    self.warn(&pointer_push(&pointer, key), message);
                }
            }
        }
        if let Some(own) = own_properties {
            let mut parts = vec![(schema, pointer.clone())];
            for (key, alternatives) in combinators {
                let key_pointer = pointer_push(&pointer, key);
                if key == "allOf" {
                    // An `allOf` of objects adds its properties; other parts only constrain.
                    if let Some(more) = self.object_branches(alternatives, &key_pointer) {
                        parts.extend(more);
                    }
                } else {
                    self.warn_branch_only_properties(key, alternatives, own, &key_pointer);
                }
            }
            return ArgsShape::Struct(parts);
        }
        let Some(&(key, alternatives)) = combinators.first() else {
            return ArgsShape::Struct(vec![(schema, pointer)]);
        };
        let key_pointer = pointer_push(&pointer, key);
        let non_null: Vec<&Value> = alternatives
            .iter()
            .filter(|a| key == "allOf" || a.get("type").and_then(Value::as_str) != Some("null"))
            .collect();
        let Some(branches) = self.object_branches(non_null.iter().copied(), &key_pointer) else {
            return ArgsShape::JsonMap {
                pointer: key_pointer,
                reason: format!("a branch of the root `{key}` is not an object schema"),
            };
        };
        if key == "allOf" {
            return ArgsShape::Struct(branches);
        }
        let mut distinct: Vec<(&'a Map<String, Value>, String)> = Vec::new();
        for branch in branches {
            if !distinct.iter().any(|(seen, _)| *seen == branch.0) {
                distinct.push(branch);
            }
        }
        if distinct.len() <= 1 {
            // One object (maybe written twice, or beside `null`) is a struct of it.
            return ArgsShape::Struct(distinct);
        }
        ArgsShape::Union {
            key,
            alternatives,
            schema,
            pointer,
        }
    }

    /// The object schemas of the union or `allOf` branches `alternatives` (under
    /// `key_pointer`, in order), each with its pointer, `$ref`s followed; `None` unless all
    /// are objects.
    fn object_branches(
        &self,
        alternatives: impl IntoIterator<Item = &'a Value>,
        key_pointer: &str,
    ) -> Option<Vec<(&'a Map<String, Value>, String)>> {
        let alternatives = alternatives.into_iter();
        let mut parts = Vec::new();
        for (i, alternative) in alternatives.enumerate() {
            let branch = self.follow(alternative, pointer_push(key_pointer, &i.to_string()))?;
            let object = branch
                .schema
                .as_object()
                .filter(|_| is_object(branch.schema))?;
            parts.push((object, branch.pointer));
        }
        Some(parts)
    }

    /// Warns about properties that branches of the root's `anyOf`/`oneOf` (`key`) declare
    /// but the root's own `properties` do not: the argument struct has no field for them.
    fn warn_branch_only_properties(
        &mut self,
        key: &str,
        alternatives: &'a [Value],
        own: &Map<String, Value>,
        key_pointer: &str,
    ) {
        let mut missing = BTreeSet::new();
        for (i, alternative) in alternatives.iter().enumerate() {
            let Some(branch) = self.follow(alternative, pointer_push(key_pointer, &i.to_string()))
            else {
                continue;
            };
            if let Some(Value::Object(properties)) = branch.schema.get("properties") {
                missing.extend(properties.keys().filter(|k| !own.contains_key(*k)));
            }
        }
        if !missing.is_empty() {
            let names: Vec<String> = missing.iter().map(|k| format!("\"{k}\"")).collect();
            let message = format!(
                "properties that only the `{key}` branches declare ({}) are not fields of the \
                 argument struct, which has the root's own properties",
                names.join(", ")
            );
            self.warn(key_pointer, message);
        }
    }

    /// The argument type as a struct without fields that keeps every property in its
    /// flattened `additional_properties` map, with a warning at `pointer` that says why
    /// (`reason`).
    fn json_map_args(
        &mut self,
        args_name: &str,
        doc: String,
        pointer: &str,
        reason: &str,
    ) -> TypeDef {
        self.warn(
            pointer,
            format!(
                "the arguments are not typed: {reason}; using a struct that holds them all \
                 in a JSON map"
            ),
        );
        TypeDef::Struct(untyped_args(
            args_name,
            format!("{doc}\n\nNot typed: {reason}."),
        ))
    }
}

/// A struct named `name` without fields whose flattened `additional_properties` map holds
/// every property (values `serde_json::Value`): an argument type that is still a type of its
/// own (it knows its tool) when the schema cannot be typed.
pub(crate) fn untyped_args(name: &str, doc: String) -> StructDef {
    let mut def = StructDef::new(name, doc, Vec::new());
    def.extra = Some(ExtraField {
        ident: RustIdent::plain(identifiers::EXTRA_FIELD),
        value: RustType::Value,
        role: ExtraRole::Untyped,
    });
    def
}

#[cfg(test)]
mod tests;
