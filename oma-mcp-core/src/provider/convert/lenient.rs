//! Anthropic's form: the schema as the server sent it, with property keys Anthropic refuses
//! fitted (and renamed back by the converter), constraints whose subschemas could hold such
//! keys dropped, `allOf` merged and `oneOf` read as `anyOf`.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use super::super::arguments::{Back, Branch, Field};
use super::{Converter, Failure, Out, server_kinds};
use crate::pointer::push;

impl Converter<'_> {
    /// Anthropic: the schema as sent, but property names it refuses fitted (with the
    /// converter renaming them back) and `$defs` followed for them.
    pub(super) fn lenient(
        &mut self,
        map: &Map<String, Value>,
        at: &str,
        depth: usize,
    ) -> Result<Out, Failure> {
        if let Some(Value::Array(branches)) = map.get("allOf") {
            let merged = self.merge_all_of(map, branches, at, depth)?;
            return self.schema(&merged, at, depth + 1);
        }
        let mut out = map.clone();
        // Constraints that shape no value (the server still checks them), whose subschemas
        // could hold property keys Anthropic refuses.
        for key in [
            "not",
            "if",
            "then",
            "else",
            "dependentSchemas",
            "patternProperties",
            "contains",
            "propertyNames",
            "unevaluatedProperties",
            "unevaluatedItems",
            "dependencies",
        ] {
            out.remove(key);
        }
        // Definitions as converted (property names fitted inside them too), wherever they are.
        for key in ["$defs", "definitions"] {
            if let Some(Value::Object(defs)) = map.get(key) {
                let mut converted = Map::new();
                for (name, def) in defs {
                    let at = push(&push(at, key), name);
                    converted.insert(name.clone(), self.schema(def, &at, depth + 1)?.0);
                }
                out.insert(key.to_owned(), Value::Object(converted));
            }
        }
        let mut back = Back::Keep;
        if let Some(extra @ Value::Object(_)) = map.get("additionalProperties") {
            let (converted, extra_back) =
                self.schema(extra, &push(at, "additionalProperties"), depth + 1)?;
            out.insert("additionalProperties".to_owned(), converted);
            if extra_back != Back::Keep {
                back = Back::Object {
                    fields: Vec::new(),
                    extra: Box::new(extra_back),
                };
            }
        }
        for key in ["prefixItems", "items"] {
            if let Some(Value::Array(positions)) = map.get(key) {
                let mut converted = Vec::new();
                let mut backs = Vec::new();
                for (i, position) in positions.iter().enumerate() {
                    let (c, b) =
                        self.schema(position, &push(&push(at, key), &i.to_string()), depth + 1)?;
                    converted.push(c);
                    backs.push(b);
                }
                out.insert(key.to_owned(), Value::Array(converted));
                if backs.iter().any(|b| *b != Back::Keep) {
                    back = Back::Tuple(backs);
                }
            }
        }
        if let Some(Value::String(reference)) = map.get("$ref") {
            let (pointer, target) = self.resolve(reference, at)?;
            if !self.backs.contains_key(&pointer) && !self.def_names.contains_key(&pointer) {
                self.def_names.insert(pointer.clone(), String::new());
                let (_, def_back) = if pointer.is_empty() {
                    (Value::Null, Back::Keep)
                } else {
                    self.schema(&target, &pointer, depth + 1)?
                };
                self.backs.insert(pointer.clone(), def_back);
            }
            back = Back::Ref(pointer);
        }
        if let Some(Value::Object(properties)) = map.get("properties") {
            let mut fields = Vec::new();
            let mut renamed = Map::new();
            let mut taken = BTreeSet::new();
            for (name, property) in properties {
                let at_property = push(&push(at, "properties"), name);
                let (converted, property_back) = self.schema(property, &at_property, depth + 1)?;
                let provider_name = self.property_name(name, &taken);
                taken.insert(provider_name.clone());
                renamed.insert(provider_name.clone(), converted);
                fields.push(Field {
                    provider: provider_name,
                    server: name.clone(),
                    null_is_absent: false,
                    back: property_back,
                });
            }
            if let Some(Value::Array(required)) = out.get_mut("required") {
                for r in required.iter_mut() {
                    if let Some(field) = fields
                        .iter()
                        .find(|f| Some(f.server.as_str()) == r.as_str())
                    {
                        *r = json!(field.provider);
                    }
                }
            }
            out.insert("properties".to_owned(), Value::Object(renamed));
            let extra = match std::mem::take(&mut back) {
                Back::Object { extra, .. } => extra,
                _ => Box::new(Back::Keep),
            };
            if fields
                .iter()
                .any(|f| f.provider != f.server || f.back != Back::Keep)
                || *extra != Back::Keep
            {
                back = Back::Object { fields, extra };
            }
        }
        if let Some(items @ Value::Object(_)) = map.get("items") {
            let (converted, items_back) = self.schema(items, &push(at, "items"), depth + 1)?;
            out.insert("items".to_owned(), converted);
            if items_back != Back::Keep {
                back = Back::Array(Box::new(items_back));
            }
        }
        // `oneOf` as `anyOf`: a branch rewritten above may admit more than before, and two
        // branches admitting one value would fail `oneOf`.
        if let Some(branches) = out.remove("oneOf") {
            out.insert("anyOf".to_owned(), branches);
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = map.get(key) {
                let key = "anyOf";
                let mut converted = Vec::new();
                let mut backs = Vec::new();
                for (i, branch) in branches.iter().enumerate() {
                    let (c, b) =
                        self.schema(branch, &push(&push(at, key), &i.to_string()), depth + 1)?;
                    backs.push(Branch {
                        provider_kinds: server_kinds(branch),
                        server_kinds: server_kinds(branch),
                        back: b,
                    });
                    converted.push(c);
                }
                out.insert(key.to_owned(), Value::Array(converted));
                if backs.iter().any(|b| b.back != Back::Keep) {
                    back = Back::Union(backs);
                }
            }
        }
        Ok((Value::Object(out), back))
    }
}
