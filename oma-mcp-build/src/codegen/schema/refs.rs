//! `$ref` resolution: local references (`#`, `#/$defs/X`, `#/definitions/X`, any JSON
//! pointer into the input or output schema, percent-decoded: `#/$defs/My%20Model`) map to the target's type, mapped once per tool and named
//! `<Tool>Args<X>`; a reference back to a type still being defined is `Box`ed. External and
//! unresolvable references become `serde_json::Value` with a warning; nothing is fetched.
//!
//! A `$ref` with sibling keywords that constrain the instance (JSON Schema 2019-09 and later
//! apply both; servers written with pydantic or zod emit them in draft-07 meaning the same)
//! is `allOf: [<the target>, <the siblings>]`: one struct when the target is an object and
//! the siblings add `properties`, `required` or a typed `additionalProperties`; otherwise the
//! target's type, with a warning when the siblings constrain more than it says. Annotation
//! siblings (`description`, `default`, …) leave the `$ref` its target's type.
//!
//! The once-per-target rule is [`Converter::map`]'s: it remembers the type of every `$ref`
//! target and of every schema given a named type, by JSON pointer ([`PointerState`]), so a
//! union or `allOf` branch that follows a `$ref` itself reaches the same type, and recursion
//! through it ends in a `Box` instead of being unrolled.

use oma_mcp_core::pointer::unescape_token as unescape;
use serde_json::{Map, Value};

use super::unions::is_object;
use super::{Converter, Mapped, RustType, StructDef, TypeDef, identifiers};

/// What is known about the schema at a JSON pointer: a `$ref` target, or a schema mapped to
/// a named type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum PointerState {
    /// Being mapped; the type's name once it has one (a reference back to it is `Box`ed).
    InProgress(Option<String>),
    /// Mapped: its type and doc notes.
    Done(RustType, Vec<String>),
}

impl<'a> Converter<'a> {
    /// The target of a local reference: its JSON pointer in the tool descriptor and its
    /// schema, or why it cannot be resolved.
    pub(super) fn resolve(&self, reference: &str) -> Result<(String, &'a Value), String> {
        let Some(fragment) = reference.strip_prefix('#') else {
            return Err(format!(
                "`$ref` \"{reference}\" is not a local reference (only `#…` references are resolved; nothing is fetched)"
            ));
        };
        // A URI fragment: percent-decoded before it is read as a JSON pointer.
        let Some(fragment) = oma_mcp_core::pointer::decode_fragment(fragment) else {
            return Err(format!(
                "`$ref` \"{reference}\" is not UTF-8 once percent-decoded"
            ));
        };
        if !(fragment.is_empty() || fragment.starts_with('/')) {
            return Err(format!(
                "`$ref` \"{reference}\" names an anchor, not a JSON pointer; anchors are not resolved"
            ));
        }
        let root = self
            .root
            .ok_or_else(|| format!("`$ref` \"{reference}\" has no schema to point into"))?;
        let mut target = root;
        for token in fragment.split('/').skip(1) {
            let token = unescape(token);
            let next = match target {
                Value::Object(map) => map.get(&token),
                Value::Array(items) => token.parse::<usize>().ok().and_then(|i| items.get(i)),
                _ => None,
            };
            target = next.ok_or_else(|| {
                let which = if self.root_pointer == "/outputSchema" {
                    "output"
                } else {
                    "input"
                };
                format!("`$ref` \"{reference}\" points to nothing in the {which} schema")
            })?;
        }
        Ok((format!("{}{fragment}", self.root_pointer), target))
    }

    /// Maps a schema with a `$ref` at `pointer` (`value` is `schema`): its target's type,
    /// or with sibling keywords that add properties or requirements to an object target,
    /// the struct of `allOf: [<the target>, <the siblings>]`. Siblings that cannot be
    /// merged are warned about and left out.
    pub(super) fn map_ref_siblings(
        &mut self,
        value: &'a Value,
        schema: &'a Map<String, Value>,
        hint: &str,
        pointer: &str,
        depth: usize,
    ) -> Mapped {
        let reference = &schema["$ref"];
        if constraining_siblings(schema).is_empty() {
            return self.map_ref(reference, pointer, depth);
        }
        // An unresolvable `$ref` is warned about by `map_ref`.
        let Some(target) = self.follow(value, pointer.to_owned()) else {
            return self.map_ref(reference, pointer, depth);
        };
        let object = target
            .schema
            .as_object()
            .filter(|_| is_object(target.schema));
        match (siblings(schema, target.schema.get("type")), object) {
            (Siblings::Nothing, _) => {}
            (Siblings::Merge, Some(object)) => {
                let name = self.claim(hint, pointer);
                let slot = self.defs.len();
                self.defs
                    .push(TypeDef::Struct(StructDef::new(&name, "", Vec::new())));
                let parts = [(object, target.pointer), (schema, pointer.to_owned())];
                let def = self.build_struct(&name, &parts, depth + 1, None);
                self.defs[slot] = TypeDef::Struct(def);
                return Mapped::of(RustType::Named(name));
            }
            (Siblings::Merge, None) => {
                let keys = constraining_siblings(schema)
                    .into_iter()
                    .map(str::to_owned)
                    .collect::<Vec<_>>();
                let message = unmerged_message(&keys, "the `$ref` target is not an object schema");
                self.warn(pointer, message);
            }
            (Siblings::Unmergeable(keys), _) => {
                let message = unmerged_message(&keys, "a struct of the target cannot express them");
                self.warn(pointer, message);
            }
        }
        self.map_ref(reference, pointer, depth)
    }

    /// Maps a `{"$ref": ..}` schema at `pointer`.
    pub(super) fn map_ref(&mut self, reference: &Value, pointer: &str, depth: usize) -> Mapped {
        let ref_pointer = super::pointer_push(pointer, "$ref");
        let Some(reference) = reference.as_str() else {
            let message = format!("`$ref` is {}, not a string", super::kind(reference));
            return self.invalid(&ref_pointer, message);
        };
        let (target_pointer, target) = match self.resolve(reference) {
            Ok(found) => found,
            Err(message) => return self.invalid(&ref_pointer, message),
        };
        // `map` answers from what it knows about the target; only a reference back to a
        // target that has no name yet (an array of itself) cannot be expressed.
        match self.by_pointer.get(&target_pointer) {
            Some(PointerState::InProgress(None)) => {
                let message = format!(
                    "`$ref` \"{reference}\" is recursive through a schema that is not an object or enum"
                );
                return self.invalid(&ref_pointer, message);
            }
            Some(_) => {}
            None => {
                self.by_pointer
                    .insert(target_pointer.clone(), PointerState::InProgress(None));
            }
        }
        let last = target_pointer.rsplit('/').next().unwrap_or_default();
        let hint = identifiers::nested_type_name(self.args_name, &unescape(last));
        self.map(target, &hint, &target_pointer, depth + 1)
    }
}

/// Keywords that constrain the instance (JSON Schema 2020-12 and earlier); annotations
/// (`description`, `title`, `default`, `examples`, `$comment`, `deprecated`, `format`, …)
/// and unknown keywords do not.
const CONSTRAINING: &[&str] = &[
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "unevaluatedProperties",
    "items",
    "prefixItems",
    "additionalItems",
    "contains",
    "minContains",
    "maxContains",
    "minItems",
    "maxItems",
    "uniqueItems",
    "unevaluatedItems",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
];

/// Sibling keywords that a struct merged from an object `$ref` target cannot express.
const NOT_MERGEABLE: &[&str] = &[
    "enum", "const", "allOf", "anyOf", "oneOf", "not", "if", "then", "else",
];

/// What the keywords beside a `$ref` mean for its type (JSON Schema 2019-09 and later apply
/// both; draft-07 ignores the siblings, but pydantic and zod emit them meaning them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Siblings {
    /// None constrains the instance, or none changes a struct of the target (`type:
    /// "object"`, `minProperties`, string bounds beside an object, …): the `$ref` is its
    /// target's type.
    Nothing,
    /// `properties`, `required` or a typed `additionalProperties`: the type is the struct
    /// of `allOf: [<the target>, <the siblings>]`, when the target is an object schema.
    Merge,
    /// Constraining keywords that a struct cannot merge (`enum`, a union, a `type` other
    /// than `object`), named for the warning.
    Unmergeable(Vec<String>),
}

/// The constraining keywords beside `$ref` in `schema`, in schema order.
pub(super) fn constraining_siblings(schema: &Map<String, Value>) -> Vec<&str> {
    schema
        .keys()
        .map(String::as_str)
        .filter(|k| CONSTRAINING.contains(k))
        .collect()
}

/// What the keywords beside the `$ref` of `schema` ask of its target, whose `type` is
/// `target_type`.
pub(super) fn siblings(schema: &Map<String, Value>, target_type: Option<&Value>) -> Siblings {
    let keys = constraining_siblings(schema);
    let object_type = match schema.get("type") {
        None => true,
        Some(t) if Some(t) == target_type => true,
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
        Some(_) => false,
    };
    if !object_type || keys.iter().any(|k| NOT_MERGEABLE.contains(k)) {
        return Siblings::Unmergeable(keys.iter().map(|k| (*k).to_owned()).collect());
    }
    let adds = |key: &str| match schema.get(key) {
        Some(Value::Object(map)) => !map.is_empty(),
        Some(Value::Array(items)) => !items.is_empty(),
        _ => false,
    };
    if adds("properties") || adds("required") || adds("additionalProperties") {
        Siblings::Merge
    } else {
        Siblings::Nothing
    }
}

/// The warning about keywords beside a `$ref` that the type does not apply.
pub(super) fn unmerged_message(keys: &[String], why: &str) -> String {
    let keys: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
    format!(
        "the keywords beside `$ref` ({}) also constrain the value, but {why}; the type is the \
         `$ref` target's alone, so values built from it may fail validation",
        keys.join(", ")
    )
}
