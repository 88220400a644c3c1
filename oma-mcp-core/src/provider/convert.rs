//! An `inputSchema` → a provider's parameters schema and its [`Arguments`] converter (the
//! rules are in the parent module's documentation).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use super::arguments::{Arguments, Back, Branch, Field, Kinds};
use super::rules::{GEMINI_FORMATS, OPENAI_FORMATS};
use super::{Provider, tag};
use crate::pointer::{decode_fragment, push};

mod lenient;

/// Where and why a schema cannot be expressed: `(JSON pointer, reason)`.
pub(super) type Failure = (String, String);

/// Keywords a value of any JSON Schema draft may carry that shape the value (the rest only
/// annotate or narrow it).
const SHAPING: [&str; 12] = [
    "type",
    "properties",
    "items",
    "prefixItems",
    "enum",
    "const",
    "anyOf",
    "oneOf",
    "allOf",
    "$ref",
    "additionalProperties",
    "required",
];
/// How deep a schema is followed (through `$ref`s, `allOf` merges and nesting) before it is
/// refused: no real schema comes near it; a hostile one cannot exhaust the stack.
const MAX_DEPTH: usize = 64;

/// `schema` in `provider`'s form, with its converter.
pub(super) fn convert(schema: &Value, provider: Provider) -> Result<(Value, Arguments), Failure> {
    let mut conv = Converter {
        provider,
        root: schema,
        defs: Map::new(),
        def_names: BTreeMap::new(),
        backs: BTreeMap::new(),
        inlining: Vec::new(),
    };
    let (mut out, back) = conv.root()?;
    if !conv.defs.is_empty() {
        out["$defs"] = Value::Object(std::mem::take(&mut conv.defs));
    }
    let violations = super::rules::check(provider, &out);
    if let Some(v) = violations.into_iter().next() {
        return Err((v.pointer, v.rule));
    }
    Ok((
        out,
        Arguments {
            root: back,
            defs: conv.backs,
        },
    ))
}

struct Converter<'a> {
    provider: Provider,
    /// The whole `inputSchema`, which `$ref`s point into.
    root: &'a Value,
    /// OpenAI, Anthropic: the converted `$defs` of the output, by output name.
    defs: Map<String, Value>,
    /// The output name of each `$ref` target already converted, by the original pointer.
    def_names: BTreeMap<String, String>,
    /// The converters of `$ref` targets, by the original pointer.
    backs: BTreeMap<String, Back>,
    /// Gemini: the `$ref`s being inlined, outermost first (a repeat is recursion).
    inlining: Vec<String>,
}

/// A converted schema and its converter.
type Out = (Value, Back);

impl Converter<'_> {
    /// The root: an object schema (a non-object root keeps its properties, if any, and drops
    /// what providers refuse at the top).
    fn root(&mut self) -> Result<Out, Failure> {
        let mut root = match self.root {
            Value::Object(map) => map.clone(),
            _ => Map::new(),
        };
        // A root `$ref` (a schema generator's habit): the object it points to.
        if let Some(Value::String(reference)) = root.get("$ref").cloned() {
            let (_, target) = self.resolve(&reference, "")?;
            if let Value::Object(target) = target {
                root.remove("$ref");
                for (k, v) in target {
                    root.entry(k).or_insert(v);
                }
            }
        }
        if let Some(Value::Array(branches)) = root.get("allOf").cloned()
            && let Value::Object(merged) = self.merge_all_of(&root, &branches, "", 0)?
        {
            root = merged;
        }
        if root.contains_key("const") || root.contains_key("enum") {
            return Err((
                String::new(),
                "the root is a fixed set of argument objects (`const` or `enum`), which no \
                 provider's parameters schema expresses"
                    .to_owned(),
            ));
        }
        // Providers refuse a combinator beside the root's `type: object`; the properties
        // still show what to send, and the server checks the rest.
        for key in [
            "anyOf", "oneOf", "allOf", "not", "if", "then", "else", "enum", "const",
        ] {
            if self.provider != Provider::Anthropic || ["anyOf", "oneOf", "allOf"].contains(&key) {
                root.remove(key);
            }
        }
        root.insert("type".to_owned(), json!("object"));
        if self.provider == Provider::Anthropic {
            let (out, back) = self.lenient(&root, "", 0)?;
            // `"$ref": "#"` inside: the root's converter.
            self.backs.insert(String::new(), back.clone());
            return Ok((out, back));
        }
        let root = Value::Object(root);
        self.object(&root, "", true, 0)
    }

    /// The provider's spelling of a JSON Schema type name.
    fn ty(&self, t: &str) -> Value {
        match self.provider {
            Provider::Gemini => Value::String(t.to_ascii_uppercase()),
            _ => Value::String(t.to_owned()),
        }
    }

    /// Any schema position.
    fn schema(&mut self, schema: &Value, at: &str, depth: usize) -> Result<Out, Failure> {
        if depth > MAX_DEPTH {
            return Err((
                at.to_owned(),
                format!("the schema nests deeper than {MAX_DEPTH} levels"),
            ));
        }
        let map = match schema {
            Value::Bool(true) => return Ok(self.any(None)),
            Value::Bool(false) => {
                return Err((
                    at.to_owned(),
                    "the schema is `false` (no value is valid)".to_owned(),
                ));
            }
            Value::Object(map) => map,
            _ => return Ok(self.any(None)),
        };
        if self.provider == Provider::Anthropic {
            return self.lenient(map, at, depth);
        }
        if let Some(Value::String(reference)) = map.get("$ref") {
            return self.reference(reference, map, at, depth);
        }
        if let Some(Value::Array(branches)) = map.get("allOf") {
            let merged = self.merge_all_of(map, branches, at, depth)?;
            return self.schema(&merged, at, depth + 1);
        }
        let types = types(map);
        let has_own_shape = !types.is_empty()
            || map.contains_key("properties")
            || map.contains_key("items")
            || map.contains_key("enum")
            || map.contains_key("const");
        // `anyOf`/`oneOf` as the shape (not as extra constraints beside a type of its own).
        if !has_own_shape
            && let Some(Value::Array(branches)) = map.get("anyOf").or_else(|| map.get("oneOf"))
        {
            return self.union(map, branches, at, depth);
        }
        let nullable =
            types.iter().any(|t| t == "null") || map.get("nullable") == Some(&Value::Bool(true));
        let non_null: Vec<&str> = types
            .iter()
            .map(String::as_str)
            .filter(|t| *t != "null")
            .collect();
        if non_null.is_empty() && (map.contains_key("enum") || map.contains_key("const")) {
            return self.enumeration(map, at);
        }
        if non_null.is_empty() {
            // Without `type`, `properties` and `items` constrain objects and arrays only: the
            // schema admits every other value too (JSON Schema 2020-12, "Keywords for Applying
            // Subschemas to Objects/Arrays"), so it is not made an object or array here (the
            // root is always an object: see `root`).
            if nullable && types.len() == 1 {
                return Err((
                    at.to_owned(),
                    "the schema admits only `null`, which no provider subset expresses as a \
                     parameter"
                        .to_owned(),
                ));
            } else {
                return Ok(self.any(description(map)));
            }
        }
        let out = if non_null.len() == 1 {
            self.typed(map, non_null[0], at, depth)?
        } else {
            // `"type": ["string", "integer"]`: one branch per type.
            let branches: Vec<Value> = non_null
                .iter()
                .map(|t| {
                    let mut branch = map.clone();
                    branch.insert("type".to_owned(), json!(t));
                    branch.remove("description");
                    Value::Object(branch)
                })
                .collect();
            let mut holder = Map::new();
            if let Some(d) = map.get("description") {
                holder.insert("description".to_owned(), d.clone());
            }
            self.union(&holder, &branches, at, depth)?
        };
        Ok(if nullable { self.with_null(out) } else { out })
    }

    /// A schema of one type.
    fn typed(
        &mut self,
        map: &Map<String, Value>,
        t: &str,
        at: &str,
        depth: usize,
    ) -> Result<Out, Failure> {
        if map.contains_key("enum") || map.contains_key("const") {
            return self.enumeration(map, at);
        }
        let mut out = Map::new();
        let mut back = Back::Keep;
        match t {
            "object" => return self.object(&Value::Object(map.clone()), at, false, depth),
            "array" => return self.array(map, at, depth),
            "string" => {
                out.insert("type".to_owned(), self.ty("string"));
                let formats: &[&str] = match self.provider {
                    Provider::Gemini => &GEMINI_FORMATS,
                    _ => &OPENAI_FORMATS,
                };
                if let Some(Value::String(f)) = map.get("format")
                    && formats.contains(&f.as_str())
                {
                    out.insert("format".to_owned(), json!(f));
                }
                let kept: &[&str] = match self.provider {
                    Provider::Gemini => &["pattern", "minLength", "maxLength"],
                    _ => &["pattern"],
                };
                copy(map, &mut out, kept);
            }
            "integer" | "number" => {
                out.insert("type".to_owned(), self.ty(t));
                let kept: &[&str] = match self.provider {
                    Provider::Gemini => &["minimum", "maximum"],
                    _ => &[
                        "minimum",
                        "maximum",
                        "exclusiveMinimum",
                        "exclusiveMaximum",
                        "multipleOf",
                    ],
                };
                copy(map, &mut out, kept);
                // Draft 4's boolean `exclusiveMinimum` is not a number: dropped.
                out.retain(|k, v| !k.starts_with("exclusive") || v.is_number());
                if t == "integer" && self.provider == Provider::Gemini {
                    back = Back::Integer;
                }
            }
            "boolean" => {
                out.insert("type".to_owned(), self.ty("boolean"));
            }
            _ => return Ok(self.any(description(map))),
        }
        if let Some(d) = description(map) {
            out.insert("description".to_owned(), json!(d));
        }
        Ok((Value::Object(out), back))
    }

    /// An object schema; `root`: the tool's parameters (whose free-form extra properties are
    /// dropped rather than sent as JSON text).
    fn object(
        &mut self,
        schema: &Value,
        at: &str,
        root: bool,
        depth: usize,
    ) -> Result<Out, Failure> {
        let empty = Map::new();
        let map = schema.as_object().unwrap_or(&empty);
        let properties = map.get("properties").and_then(Value::as_object);
        let required: BTreeSet<String> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        let closed = map.get("additionalProperties") == Some(&Value::Bool(false));
        let no_properties = properties.is_none_or(Map::is_empty) && required.is_empty();
        if no_properties && !root && (!closed || self.provider == Provider::Gemini) {
            // A free-form object (`{"type": "object"}`, a map), or for Gemini, whose `OBJECT`
            // needs properties, the empty one: JSON text.
            return Ok(self.any(description(map)));
        }
        let mut listed: Vec<(String, Value)> = properties
            .map(|p| p.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default();
        // A required name without a schema: any value.
        for name in &required {
            if listed.iter().all(|(k, _)| k != name) {
                listed.push((name.clone(), Value::Bool(true)));
            }
        }
        let mut out_properties = Map::new();
        let mut fields = Vec::new();
        let mut taken: BTreeSet<String> = BTreeSet::new();
        for (name, property) in &listed {
            let at_property = push(&push(at, "properties"), name);
            let (mut converted, back) = self.schema(property, &at_property, depth + 1)?;
            let provider_name = self.property_name(name, &taken);
            taken.insert(provider_name.clone());
            // OpenAI: every property is required; one the server has optional may be `null`,
            // which means "absent" (also where the server's schema admits `null` itself:
            // leaving a property out is the cautious reading, and strict mode has no way to
            // say both).
            let null_is_absent = self.provider == Provider::OpenAi && !required.contains(name);
            if null_is_absent && !admits_null(&converted) {
                converted = self.with_null((converted, Back::Keep)).0;
            }
            out_properties.insert(provider_name.clone(), converted);
            fields.push(Field {
                provider: provider_name,
                server: name.clone(),
                null_is_absent,
                back,
            });
        }
        let mut out = Map::new();
        out.insert("type".to_owned(), self.ty("object"));
        if let Some(d) = description(map) {
            out.insert("description".to_owned(), json!(d));
        }
        let provider_required: Vec<Value> = match self.provider {
            Provider::OpenAi => fields.iter().map(|f| json!(f.provider)).collect(),
            _ => fields
                .iter()
                .filter(|f| required.contains(&f.server))
                .map(|f| json!(f.provider))
                .collect(),
        };
        out.insert("properties".to_owned(), Value::Object(out_properties));
        if !provider_required.is_empty() || self.provider == Provider::OpenAi {
            out.insert("required".to_owned(), Value::Array(provider_required));
        }
        if self.provider == Provider::OpenAi {
            out.insert("additionalProperties".to_owned(), json!(false));
        }
        Ok((
            Value::Object(out),
            Back::Object {
                fields,
                extra: Box::new(Back::Keep),
            },
        ))
    }

    /// An array schema.
    fn array(&mut self, map: &Map<String, Value>, at: &str, depth: usize) -> Result<Out, Failure> {
        if map.contains_key("prefixItems") || map.get("items").is_some_and(Value::is_array) {
            // A tuple: neither subset has one.
            return Ok(self.any(description(map)));
        }
        let items = map.get("items").cloned().unwrap_or(Value::Bool(true));
        let (items, back) = self.schema(&items, &push(at, "items"), depth + 1)?;
        let mut out = Map::new();
        out.insert("type".to_owned(), self.ty("array"));
        if let Some(d) = description(map) {
            out.insert("description".to_owned(), json!(d));
        }
        out.insert("items".to_owned(), items);
        copy(map, &mut out, &["minItems", "maxItems"]);
        Ok((Value::Object(out), Back::Array(Box::new(back))))
    }

    /// `anyOf`/`oneOf` (OpenAI, Gemini: `anyOf`; a `null` branch: nullable).
    fn union(
        &mut self,
        map: &Map<String, Value>,
        branches: &[Value],
        at: &str,
        depth: usize,
    ) -> Result<Out, Failure> {
        let key = if map.contains_key("anyOf") {
            "anyOf"
        } else {
            "oneOf"
        };
        let mut nullable = false;
        let mut converted = Vec::new();
        let mut backs = Vec::new();
        for (i, branch) in branches.iter().enumerate() {
            if is_null_schema(branch) {
                nullable = true;
                continue;
            }
            let (out, back) =
                self.schema(branch, &push(&push(at, key), &i.to_string()), depth + 1)?;
            backs.push(Branch {
                provider_kinds: kinds(&out),
                server_kinds: server_kinds(branch),
                back,
            });
            converted.push(out);
        }
        if converted.is_empty() {
            return Err((at.to_owned(), format!("`{key}` has no branch but `null`")));
        }
        // A branch sent as JSON text: which branch a value of the model's stands for could
        // not be told apart, so the whole value is JSON text.
        if backs.iter().any(|b| b.back == Back::JsonText) {
            let out = self.any(description(map));
            return Ok(if nullable { self.with_null(out) } else { out });
        }
        // JSON-text branches admit every value on the server's side: tried last.
        backs.sort_by_key(|b| b.back == Back::JsonText);
        let (mut out, back) = if converted.len() == 1 {
            (converted.remove(0), backs.remove(0).back)
        } else {
            (json!({"anyOf": converted}), Back::Union(backs))
        };
        if let (Some(d), Value::Object(o)) = (description(map), &mut out) {
            o.insert("description".to_owned(), json!(d));
        }
        Ok(if nullable {
            self.with_null((out, back))
        } else {
            (out, back)
        })
    }

    /// `enum` or `const`: OpenAI keeps the values with their type; Gemini takes strings only,
    /// so others become their JSON text, mapped back by the converter.
    fn enumeration(&mut self, map: &Map<String, Value>, at: &str) -> Result<Out, Failure> {
        let values: Vec<Value> = match (map.get("enum"), map.get("const")) {
            (Some(Value::Array(values)), _) => values.clone(),
            (_, Some(value)) => vec![value.clone()],
            _ => return Err((at.to_owned(), "`enum` is not an array".to_owned())),
        };
        let nullable = values.iter().any(Value::is_null);
        let values: Vec<Value> = values.into_iter().filter(|v| !v.is_null()).collect();
        if values.is_empty() {
            return Err((
                at.to_owned(),
                "`enum` admits no value but `null`".to_owned(),
            ));
        }
        let mut out = Map::new();
        let mut back = Back::Keep;
        let all_strings = values.iter().all(Value::is_string);
        let complex = values.iter().any(|v| v.is_array() || v.is_object());
        if !all_strings && (self.provider == Provider::Gemini || complex) {
            // Gemini takes string values only, and no subset takes array or object values:
            // each value as its JSON text (strings too, so `"1"` and `1` stay apart), mapped
            // back by the converter.
            let pairs: Vec<(Value, Value)> = values
                .iter()
                .map(|v| (Value::String(v.to_string()), v.clone()))
                .collect();
            out.insert("type".to_owned(), self.ty("string"));
            if self.provider == Provider::Gemini {
                out.insert("format".to_owned(), json!("enum"));
            }
            out.insert(
                "enum".to_owned(),
                Value::Array(pairs.iter().map(|(text, _)| text.clone()).collect()),
            );
            back = Back::Enum(pairs);
        } else if self.provider == Provider::Gemini {
            out.insert("type".to_owned(), self.ty("string"));
            out.insert("enum".to_owned(), Value::Array(values));
        } else {
            let mut unique: Vec<&str> = Vec::new();
            for t in values.iter().map(kind_name) {
                if !unique.contains(&t) {
                    unique.push(t);
                }
            }
            // `1` and `1.0` are one number: `integer` goes when `number` is there.
            if unique.contains(&"number") {
                unique.retain(|t| *t != "integer");
            }
            let ty = if unique.len() == 1 {
                json!(unique[0])
            } else {
                json!(unique)
            };
            out.insert("type".to_owned(), ty);
            out.insert("enum".to_owned(), Value::Array(values));
        }
        if let Some(d) = description(map) {
            out.insert("description".to_owned(), json!(d));
        }
        let out = (Value::Object(out), back);
        Ok(if nullable { self.with_null(out) } else { out })
    }

    /// `$ref`: OpenAI keeps it (a `$defs` entry of its own, converted once, recursion
    /// allowed; a `description` beside it moves to an `anyOf` holder); Gemini inlines it.
    fn reference(
        &mut self,
        reference: &str,
        map: &Map<String, Value>,
        at: &str,
        depth: usize,
    ) -> Result<Out, Failure> {
        let (pointer, target) = self.resolve(reference, at)?;
        if self.provider == Provider::Gemini {
            if self.inlining.contains(&pointer) {
                return Err((
                    at.to_owned(),
                    format!(
                        "`$ref` {reference:?} is recursive, and Gemini's parameters schema has no \
                         `$ref` to express recursion"
                    ),
                ));
            }
            self.inlining.push(pointer.clone());
            let mut inlined = target.as_object().cloned().unwrap_or_default();
            if let Some(d) = map.get("description") {
                inlined.insert("description".to_owned(), d.clone());
            }
            let converted = self.schema(&Value::Object(inlined), at, depth + 1);
            self.inlining.pop();
            return converted;
        }
        let name = self.definition(&pointer, &target, depth)?;
        let reference = json!({"$ref": format!("#/$defs/{name}")});
        let back = Back::Ref(pointer);
        Ok(match description(map) {
            Some(d) => (json!({"anyOf": [reference], "description": d}), back),
            None => (reference, back),
        })
    }

    /// The output `$defs` name of the `$ref` target at `pointer`, converting it the first time.
    fn definition(
        &mut self,
        pointer: &str,
        target: &Value,
        depth: usize,
    ) -> Result<String, Failure> {
        if let Some(name) = self.def_names.get(pointer) {
            return Ok(name.clone());
        }
        let last = pointer.rsplit('/').next().unwrap_or("root");
        let mut name: String = last
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if name.is_empty() {
            name = "root".to_owned();
        }
        if self.def_names.values().any(|n| n == &name) {
            name = format!("{name}_{}", tag(pointer));
        }
        self.def_names.insert(pointer.to_owned(), name.clone());
        // Placeholder first, so a recursive reference finds the name.
        self.defs.insert(name.clone(), json!({}));
        let (converted, back) = if pointer.is_empty() {
            // `"$ref": "#"`: the root again.
            let mut root = target.as_object().cloned().unwrap_or_default();
            root.insert("type".to_owned(), json!("object"));
            self.object(&Value::Object(root), pointer, true, depth + 1)?
        } else {
            self.schema(target, pointer, depth + 1)?
        };
        self.defs.insert(name.clone(), converted);
        self.backs.insert(pointer.to_owned(), back);
        Ok(name)
    }

    /// The target of a local `$ref` (`#` or `#/…`) and its JSON pointer.
    fn resolve(&self, reference: &str, at: &str) -> Result<(String, Value), Failure> {
        let pointer = reference
            .strip_prefix('#')
            .and_then(decode_fragment)
            .filter(|p| p.is_empty() || p.starts_with('/'))
            .ok_or_else(|| {
                (
                    at.to_owned(),
                    format!("`$ref` {reference:?} is not a local JSON pointer (`#/…`)"),
                )
            })?;
        if pointer.is_empty() && self.root.get("type") != Some(&json!("object")) {
            return Err((
                at.to_owned(),
                "`$ref` \"#\" points to the root, which is not `type: object` (a provider's \
                 parameters root must be, so the reference would change meaning)"
                    .to_owned(),
            ));
        }
        let target = self.root.pointer(&pointer).cloned().ok_or_else(|| {
            (
                at.to_owned(),
                format!("`$ref` {reference:?} points to nothing in the schema"),
            )
        })?;
        Ok((pointer, target))
    }

    /// `allOf` merged into one schema: the schema's own keywords first, then each branch's
    /// (`$ref`s resolved), `properties` and `required` united.
    fn merge_all_of(
        &mut self,
        map: &Map<String, Value>,
        branches: &[Value],
        at: &str,
        depth: usize,
    ) -> Result<Value, Failure> {
        if depth > MAX_DEPTH {
            return Err((
                at.to_owned(),
                format!("`allOf` nests deeper than {MAX_DEPTH} levels"),
            ));
        }
        let mut merged = map.clone();
        merged.remove("allOf");
        for branch in branches {
            let mut branch = match branch {
                Value::Object(b) => b.clone(),
                Value::Bool(true) => continue,
                _ => {
                    return Err((
                        push(at, "allOf"),
                        "an `allOf` branch is `false` (no value is valid)".to_owned(),
                    ));
                }
            };
            if let Some(Value::String(reference)) = branch.remove("$ref") {
                let (_, target) = self.resolve(&reference, at)?;
                if let Value::Object(target) = target {
                    for (k, v) in target {
                        branch.entry(k).or_insert(v);
                    }
                }
            }
            if let Some(Value::Array(inner)) = branch.remove("allOf") {
                let Value::Object(flat) = self.merge_all_of(&branch, &inner, at, depth + 1)? else {
                    continue;
                };
                branch = flat;
            }
            for (key, value) in branch {
                match (key.as_str(), merged.get_mut(&key), value) {
                    ("properties", Some(Value::Object(mine)), Value::Object(theirs)) => {
                        for (k, v) in theirs {
                            mine.entry(k).or_insert(v);
                        }
                    }
                    ("required", Some(Value::Array(mine)), Value::Array(theirs)) => {
                        for r in theirs {
                            if !mine.contains(&r) {
                                mine.push(r);
                            }
                        }
                    }
                    (_, Some(_), _) => {}
                    (_, None, value) => {
                        merged.insert(key, value);
                    }
                }
            }
        }
        Ok(Value::Object(merged))
    }

    /// A value of any shape: JSON text (Anthropic: any schema, kept).
    fn any(&self, description: Option<String>) -> Out {
        if self.provider == Provider::Anthropic {
            let mut out = Map::new();
            if let Some(d) = description {
                out.insert("description".to_owned(), json!(d));
            }
            return (Value::Object(out), Back::Keep);
        }
        let note = "JSON text of the value";
        let description = match description {
            Some(d) if !d.is_empty() => format!("{d} ({note})"),
            _ => format!("{note}."),
        };
        (
            json!({"type": self.ty("string"), "description": description}),
            Back::JsonText,
        )
    }

    /// `out` admitting `null` too.
    fn with_null(&self, (out, back): Out) -> Out {
        let Value::Object(mut map) = out else {
            return (out, back);
        };
        if self.provider == Provider::Gemini {
            map.insert("nullable".to_owned(), json!(true));
            return (Value::Object(map), back);
        }
        match map.get("type").cloned() {
            Some(Value::String(t)) if !map.contains_key("anyOf") => {
                map.insert("type".to_owned(), json!([t, "null"]));
                if let Some(Value::Array(values)) = map.get_mut("enum")
                    && !values.contains(&Value::Null)
                {
                    values.push(Value::Null);
                }
                (Value::Object(map), back)
            }
            Some(Value::Array(mut types)) => {
                if !types.contains(&json!("null")) {
                    types.push(json!("null"));
                }
                map.insert("type".to_owned(), Value::Array(types));
                if let Some(Value::Array(values)) = map.get_mut("enum")
                    && !values.contains(&Value::Null)
                {
                    values.push(Value::Null);
                }
                (Value::Object(map), back)
            }
            _ => {
                let description = map.remove("description");
                let mut holder = json!({"anyOf": [Value::Object(map), {"type": "null"}]});
                if let Some(d) = description {
                    holder["description"] = d;
                }
                (holder, back)
            }
        }
    }

    /// The name the provider sees for the property `name` (Anthropic, Gemini: names they
    /// refuse are fitted, tagged like tool names), not one of `taken`.
    fn property_name(&self, name: &str, taken: &BTreeSet<String>) -> String {
        let fits = |n: &str| match self.provider {
            Provider::OpenAi => true,
            Provider::Anthropic => {
                (1..=64).contains(&n.len())
                    && n.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
            }
            Provider::Gemini => {
                (1..=64).contains(&n.len())
                    && n.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                    && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            }
        };
        if fits(name) && !taken.contains(name) {
            return name.to_owned();
        }
        let keep = |c: char| match self.provider {
            Provider::Anthropic => c.is_ascii_alphanumeric() || "_.-".contains(c),
            _ => c.is_ascii_alphanumeric() || c == '_',
        };
        let mut safe: String = name
            .chars()
            .map(|c| if keep(c) { c } else { '_' })
            .collect();
        if self.provider == Provider::Gemini
            && !safe.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        {
            safe.insert(0, '_');
        }
        let cut: String = safe.chars().take(64 - 9).collect();
        format!("{cut}_{}", tag(name))
    }
}

/// The `type` names of a schema (`"type": "x"` or `"type": [...]`).
fn types(map: &Map<String, Value>) -> Vec<String> {
    match map.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// The schema's `description`, when a string.
fn description(map: &Map<String, Value>) -> Option<String> {
    map.get("description")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// Copies `keys` that `from` has into `to`.
fn copy(from: &Map<String, Value>, to: &mut Map<String, Value>, keys: &[&str]) {
    for key in keys {
        if let Some(v) = from.get(*key) {
            to.insert((*key).to_owned(), v.clone());
        }
    }
}

/// `{"type": "null"}`.
fn is_null_schema(schema: &Value) -> bool {
    schema.get("type") == Some(&json!("null"))
        && schema.as_object().is_some_and(|m| {
            m.keys()
                .all(|k| k == "type" || k == "description" || k == "title")
        })
}

/// Whether a (converted) schema admits `null` already.
fn admits_null(schema: &Value) -> bool {
    let Some(map) = schema.as_object() else {
        return schema == &Value::Bool(true);
    };
    if !map.keys().any(|k| SHAPING.contains(&k.as_str())) {
        return true;
    }
    types(map).iter().any(|t| t == "null")
        || map.get("nullable") == Some(&Value::Bool(true))
        || map.get("const") == Some(&Value::Null)
        || map
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|e| e.contains(&Value::Null))
        || ["anyOf", "oneOf"].iter().any(|k| {
            map.get(*k)
                .and_then(Value::as_array)
                .is_some_and(|branches| branches.iter().any(admits_null))
        })
}

/// The JSON Schema type name of a value's kind.
fn kind_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The kinds a converted schema admits.
fn kinds(out: &Value) -> Kinds {
    let Some(map) = out.as_object() else {
        return Kinds::ALL;
    };
    let mut found = types(map);
    if map.get("nullable") == Some(&Value::Bool(true)) {
        found.push("null".to_owned());
    }
    if found.is_empty() {
        return Kinds::ALL;
    }
    Kinds::of_types(found.iter().map(String::as_str))
}

/// The kinds an original schema admits (all, when it does not say).
fn server_kinds(schema: &Value) -> Kinds {
    let Some(map) = schema.as_object() else {
        return Kinds::ALL;
    };
    let found = types(map);
    if found.is_empty() {
        if map.contains_key("properties") {
            return Kinds::of_types(["object"]);
        }
        if map.contains_key("items") {
            return Kinds::of_types(["array"]);
        }
        return Kinds::ALL;
    }
    Kinds::of_types(found.iter().map(String::as_str))
}
