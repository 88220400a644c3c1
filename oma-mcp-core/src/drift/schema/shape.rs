//! Shape helpers of the schema walk: unions, nullability, types, required names, renames.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

/// The `anyOf` or `oneOf` list of a schema, with its keyword.
pub(super) fn union_list(m: &Map<String, Value>) -> Option<(&'static str, &Vec<Value>)> {
    ["anyOf", "oneOf"]
        .into_iter()
        .find_map(|k| m.get(k).and_then(Value::as_array).map(|l| (k, l)))
}

/// The non-null branches with their indexes.
pub(super) fn branches(list: &[Value]) -> Vec<(Option<usize>, Value)> {
    list.iter()
        .enumerate()
        .filter(|(_, b)| !is_null_schema(b))
        .map(|(i, b)| (Some(i), b.clone()))
        .collect()
}

/// `true` → `{}`; a union with exactly one non-null branch (pydantic's `Optional[X]`:
/// `{"anyOf": [X, {"type": "null"}]}`) flattened into that branch plus a `"null"` type, the
/// outer keywords winning.
pub(super) fn normalize(schema: &Value) -> Value {
    let Value::Object(m) = schema else {
        return match schema {
            Value::Bool(true) => Value::Object(Map::new()),
            other => other.clone(),
        };
    };
    for key in ["anyOf", "oneOf"] {
        let Some(list) = m.get(key).and_then(Value::as_array) else {
            continue;
        };
        let real: Vec<&Value> = list.iter().filter(|b| !is_null_schema(b)).collect();
        let [only] = real.as_slice() else { continue };
        let Value::Object(branch) = only else {
            continue;
        };
        if m.contains_key("type") {
            continue;
        }
        let mut merged = branch.clone();
        for (k, v) in m {
            if k != key {
                merged.insert(k.clone(), v.clone());
            }
        }
        if real.len() < list.len() {
            let mut t: Vec<Value> = match branch.get("type") {
                Some(Value::String(s)) => vec![Value::from(s.as_str())],
                Some(Value::Array(a)) => a.clone(),
                _ => Vec::new(),
            };
            if !t.is_empty() && !t.contains(&Value::from("null")) {
                t.push(Value::from("null"));
                merged.insert("type".into(), Value::Array(t));
            } else if t.is_empty() {
                merged.insert("nullable".into(), Value::Bool(true));
            }
        }
        return Value::Object(merged);
    }
    schema.clone()
}

pub(super) fn is_null_schema(v: &Value) -> bool {
    match v.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(a)) => a.len() == 1 && a[0] == "null",
        _ => false,
    }
}

pub(super) fn is_union(m: &Map<String, Value>) -> bool {
    ["anyOf", "oneOf"]
        .iter()
        .any(|k| m.get(*k).and_then(Value::as_array).is_some())
}

/// A plain schema as a union branch: without the annotations compared at its own level.
pub(super) fn bare(m: &Map<String, Value>) -> Value {
    let mut m = m.clone();
    for k in [
        "description",
        "title",
        "default",
        "examples",
        "$defs",
        "definitions",
        "nullable",
    ] {
        m.remove(k);
    }
    if let Some(Value::Array(t)) = m.get_mut("type") {
        t.retain(|t| t != "null");
        if let [only] = t.as_slice() {
            let only = only.clone();
            m.insert("type".into(), only);
        }
    }
    Value::Object(m)
}

pub(super) fn nullable(m: &Map<String, Value>) -> bool {
    let typed = match m.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(a)) => a.iter().any(|t| t == "null"),
        _ => false,
    };
    let branch = ["anyOf", "oneOf"].iter().any(|k| {
        m.get(*k)
            .and_then(Value::as_array)
            .is_some_and(|l| l.iter().any(is_null_schema))
    });
    typed || branch || m.get("nullable") == Some(&Value::Bool(true))
}

/// The non-null types (`None`: any type).
pub(super) fn types(m: &Map<String, Value>) -> Option<BTreeSet<String>> {
    let list: Vec<&str> = match m.get("type")? {
        Value::String(t) => vec![t.as_str()],
        Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
        _ => return None,
    };
    Some(
        list.into_iter()
            .filter(|t| *t != "null")
            .map(str::to_owned)
            .collect(),
    )
}

/// Whether every type of `inner` is accepted by `outer` (`integer` is a `number`).
pub(super) fn covers(outer: &Option<BTreeSet<String>>, inner: &Option<BTreeSet<String>>) -> bool {
    match (outer, inner) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(o), Some(i)) => i
            .iter()
            .all(|t| o.contains(t) || (t == "integer" && o.contains("number"))),
    }
}

pub(super) fn required(m: &Map<String, Value>) -> BTreeSet<String> {
    m.get("required")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// Equal schemas apart from their own `description` and `title` (a renamed property).
pub(super) fn same_shape(a: &Value, b: &Value) -> bool {
    let strip = |v: &Value| match v {
        Value::Object(m) => {
            let mut m = m.clone();
            m.remove("description");
            m.remove("title");
            Value::Object(m)
        }
        other => other.clone(),
    };
    strip(a) == strip(b)
}

/// The one counterpart of a removed (or added) property that looks like its new (or old)
/// name: the only one with an identical schema, else the only one equal apart from its
/// description and title.
pub(super) fn rename_of<'a>(
    schema: &Value,
    others: impl Iterator<Item = (&'a String, &'a Value)>,
) -> Option<&'a String> {
    let others: Vec<(&String, &Value)> = others.collect();
    let exact: Vec<&String> = others
        .iter()
        .filter(|(_, v)| *v == schema)
        .map(|(k, _)| *k)
        .collect();
    if let [only] = exact.as_slice() {
        return Some(only);
    }
    let similar: Vec<&String> = others
        .iter()
        .filter(|(_, v)| same_shape(v, schema))
        .map(|(k, _)| *k)
        .collect();
    match similar.as_slice() {
        [only] if exact.is_empty() => Some(only),
        _ => None,
    }
}

/// Whether a `$ref` occurs anywhere in `value`.
pub(super) fn contains_ref(value: &Value) -> bool {
    match value {
        Value::Object(m) => m.contains_key("$ref") || m.values().any(contains_ref),
        Value::Array(a) => a.iter().any(contains_ref),
        _ => false,
    }
}

/// Annotations left out of [`stripped_key`]: text and examples for humans that do not change
/// what a schema accepts (JSON Schema 2020-12 meta-data vocabulary §9, `$comment` §8.3).
const ANNOTATIONS: [&str; 5] = ["description", "title", "default", "examples", "$comment"];

/// Every keyword position that holds subschemas, for [`strip_annotations`] (the walk's own
/// lists in `schema.rs`, [`super::EACH`] and [`super::SCHEMA_MAPS`], are the subsets each of
/// its rules covers). Keywords whose value is one subschema:
const SUBSCHEMA: [&str; 11] = [
    "items",
    "additionalProperties",
    "additionalItems",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contains",
    "not",
    "if",
    "then",
    "else",
];
/// Keywords whose value is a list of subschemas (`items` too, in its draft-07 tuple form).
const SUBSCHEMA_LISTS: [&str; 5] = ["items", "prefixItems", "anyOf", "oneOf", "allOf"];
/// Keywords whose value maps names to subschemas.
const SUBSCHEMA_MAPS: [&str; 5] = [
    "properties",
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
];

/// `schema` without [`ANNOTATIONS`], at its root and in every subschema (a property named
/// `description` is kept: only schema positions are stripped).
fn strip_annotations(schema: &Value) -> Value {
    let Value::Object(m) = schema else {
        return schema.clone();
    };
    let mut out = Map::new();
    for (k, v) in m {
        if ANNOTATIONS.contains(&k.as_str()) {
            continue;
        }
        let v = match v {
            Value::Object(_) if SUBSCHEMA.contains(&k.as_str()) => strip_annotations(v),
            Value::Array(list) if SUBSCHEMA_LISTS.contains(&k.as_str()) => {
                Value::Array(list.iter().map(strip_annotations).collect())
            }
            Value::Object(map) if SUBSCHEMA_MAPS.contains(&k.as_str()) => Value::Object(
                map.iter()
                    .map(|(name, s)| (name.clone(), strip_annotations(s)))
                    .collect(),
            ),
            other => other.clone(),
        };
        out.insert(k.clone(), v);
    }
    Value::Object(out)
}

/// The hash key of a union branch apart from its annotations: two branches that differ only
/// in text (a reordered union whose descriptions were rewritten) share it.
pub(super) fn stripped_key(branch: &Value) -> String {
    super::value_key(&strip_annotations(branch))
}

/// The hash key of a union branch's kind of value: its non-null `type`s; else the JSON type
/// of its `const` or of its `enum` values; else `object` for `properties`, `array` for
/// `items`/`prefixItems`; else its `$ref`; else its keyword names (booleans: `true`/`false`).
pub(super) fn kind_key(branch: &Value) -> String {
    fn json_type(v: &Value) -> &'static str {
        match v {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_f64() => "number",
            Value::Number(_) => "integer",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }
    let Value::Object(m) = branch else {
        return format!("schema:{branch}");
    };
    if let Some(t) = types(m) {
        return format!("type:{}", t.into_iter().collect::<Vec<_>>().join("|"));
    }
    if let Some(c) = m.get("const") {
        return format!("type:{}", json_type(c));
    }
    if let Some(Value::Array(values)) = m.get("enum") {
        let t: BTreeSet<&str> = values.iter().map(json_type).collect();
        return format!("type:{}", t.into_iter().collect::<Vec<_>>().join("|"));
    }
    if m.contains_key("properties") {
        return "type:object".to_owned();
    }
    if m.contains_key("items") || m.contains_key("prefixItems") {
        return "type:array".to_owned();
    }
    if let Some(r) = m.get("$ref") {
        return format!("ref:{r}");
    }
    let keys: Vec<&str> = m
        .keys()
        .map(String::as_str)
        .filter(|k| !ANNOTATIONS.contains(k))
        .collect();
    format!("keys:{}", keys.join(","))
}
