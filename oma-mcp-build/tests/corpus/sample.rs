//! Sample argument values built from a tool's input schema, for the round-trip test in
//! `corpus.rs`: the generated crate deserializes each sample into the generated `<Tool>Args`,
//! serializes it back and validates that against the original schema.
//!
//! Samples are built from the schema (not the type model, which is internal to the
//! generator) and kept only when they pass the schema themselves, so a sample is a value the
//! server would accept; what cannot be sampled this way (a `pattern` the `regex-syntax` crate
//! cannot parse, `not`, exotic combinations) is counted, and the corpus has none.

use regex_syntax::hir::{Class, Hir, HirKind};
use serde_json::{Map, Value, json};

/// How deep samples go; deeper optional parts are left out, deeper required ones give up.
const MAX_DEPTH: usize = 8;

/// A value for `schema` (inside `root`, for `$ref`s): only required properties, or every
/// property when `all` (down to a few levels, so recursive types end).
pub fn sample(schema: &Value, root: &Value, all: bool) -> Option<Value> {
    value(schema, root, all, 0)
}

fn value(schema: &Value, root: &Value, all: bool, depth: usize) -> Option<Value> {
    if depth > MAX_DEPTH {
        return None;
    }
    let all = all && depth < 4;
    let schema = match schema {
        Value::Bool(true) => return Some(Value::Null),
        Value::Object(map) => map,
        _ => return None,
    };
    if let Some(Value::String(reference)) = schema.get("$ref") {
        let pointer = reference.strip_prefix('#')?;
        let target = root.pointer(pointer)?;
        return value(target, root, all, depth + 1);
    }
    if let Some(c) = schema.get("const") {
        return Some(c.clone());
    }
    if let Some(Value::Array(values)) = schema.get("enum") {
        return values
            .iter()
            .find(|v| !v.is_null())
            .or(values.first())
            .cloned();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = schema.get(key) {
            let typed_null = |b: &Value| b.get("type") == Some(&json!("null"));
            return branches
                .iter()
                .filter(|b| !typed_null(b))
                .find_map(|b| with_parent(b, schema, root, all, depth))
                .or_else(|| branches.iter().find_map(|b| value(b, root, all, depth + 1)));
        }
    }
    if let Some(Value::Array(parts)) = schema.get("allOf") {
        let mut merged = Map::new();
        for part in parts {
            match value(part, root, all, depth + 1)? {
                Value::Object(map) => merged.extend(map),
                other => return Some(other),
            }
        }
        return Some(Value::Object(merged));
    }
    let ty = match schema.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        None if schema.contains_key("properties") => "object",
        None => return Some(Value::Null),
        Some(_) => return None,
    };
    let number = |key: &str| schema.get(key).and_then(Value::as_f64);
    Some(match ty {
        "string" => Value::String(string(schema)),
        "integer" | "number" => {
            let mut n = number("minimum")
                .map(f64::ceil)
                .or_else(|| number("exclusiveMinimum").map(|m| m.floor() + 1.0))
                .unwrap_or(1.0);
            if let Some(max) = number("maximum") {
                n = n.min(max.floor());
            }
            if let Some(max) = number("exclusiveMaximum") {
                n = n.min(max.ceil() - 1.0);
            }
            json!(n as i64)
        }
        "boolean" => json!(true),
        "null" => Value::Null,
        "array" => array(schema, root, all, depth)?,
        "object" => object(schema, root, all, depth)?,
        _ => return None,
    })
}

/// A union branch sampled with the parent's own properties merged in (pydantic puts
/// `properties` beside `anyOf` sometimes).
fn with_parent(
    branch: &Value,
    parent: &Map<String, Value>,
    root: &Value,
    all: bool,
    depth: usize,
) -> Option<Value> {
    let own = value(branch, root, all, depth + 1)?;
    if parent.contains_key("properties")
        && let Value::Object(mut map) = own
    {
        if let Some(Value::Object(extra)) = object(parent, root, all, depth) {
            for (k, v) in extra {
                map.entry(k).or_insert(v);
            }
        }
        return Some(Value::Object(map));
    }
    Some(own)
}

fn string(schema: &Map<String, Value>) -> String {
    let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
    if let Some(text) = schema
        .get("pattern")
        .and_then(Value::as_str)
        .and_then(|p| matching(p, min))
    {
        return text;
    }
    let format = schema.get("format").and_then(Value::as_str);
    let text = match format {
        Some("date-time") => "2024-01-01T00:00:00Z".to_owned(),
        Some("date") => "2024-01-01".to_owned(),
        Some("time") => "00:00:00Z".to_owned(),
        Some("uri" | "url" | "uri-reference" | "iri") => "https://example.com/".to_owned(),
        Some("email") => "a@example.com".to_owned(),
        Some("uuid") => "00000000-0000-0000-0000-000000000000".to_owned(),
        Some("ipv4") => "127.0.0.1".to_owned(),
        Some("ipv6") => "::1".to_owned(),
        Some("hostname" | "idn-hostname") => "example.com".to_owned(),
        Some("duration") => "P1D".to_owned(),
        Some("json-pointer") => "/x".to_owned(),
        Some("relative-json-pointer") => "0".to_owned(),
        _ => "x".to_owned(),
    };
    let max = schema
        .get("maxLength")
        .and_then(Value::as_u64)
        .map(|m| m as usize);
    let len = text.chars().count();
    let mut text = if len < min {
        text + &"x".repeat(min - len)
    } else {
        text
    };
    if let Some(max) = max {
        text = text.chars().take(max).collect();
    }
    text
}

/// A string that the regular expression `pattern` matches, at least `min_len` characters
/// long where repetitions allow: the first alternative of each alternation, a letter or digit
/// of each class where it has one, each repetition as few times as it may (more, evenly, to
/// reach `min_len`). `None` when `regex-syntax` cannot parse the pattern (ECMA-262
/// look-arounds or back references); the caller validates the result anyway.
pub fn matching(pattern: &str, min_len: usize) -> Option<String> {
    let hir = regex_syntax::Parser::new().parse(pattern).ok()?;
    let mut text = String::new();
    for extra in 0..=min_len {
        text.clear();
        write(&hir, extra, &mut text)?;
        if text.chars().count() >= min_len {
            break;
        }
    }
    Some(text)
}

/// Appends a match of `hir` to `out`, each repetition `extra` times more than its minimum
/// (within its maximum).
fn write(hir: &Hir, extra: usize, out: &mut String) -> Option<()> {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(literal) => out.push_str(std::str::from_utf8(&literal.0).ok()?),
        HirKind::Class(Class::Unicode(class)) => {
            let chars = class.ranges().iter().flat_map(|r| r.start()..=r.end());
            let mut first = None;
            let mut pick = None;
            for c in chars.take(512) {
                first.get_or_insert(c);
                if c.is_ascii_alphanumeric() {
                    pick = Some(c);
                    break;
                }
            }
            out.push(pick.or(first)?);
        }
        HirKind::Class(Class::Bytes(class)) => {
            let byte = class.ranges().first()?.start();
            out.push(char::from(byte).is_ascii().then_some(char::from(byte))?);
        }
        HirKind::Repetition(repetition) => {
            let min = repetition.min as usize;
            let count = match repetition.max {
                Some(max) => (min + extra).min(max as usize),
                None => min + extra,
            };
            for _ in 0..count {
                write(&repetition.sub, extra, out)?;
            }
        }
        HirKind::Capture(capture) => write(&capture.sub, extra, out)?,
        HirKind::Concat(parts) => {
            for part in parts {
                write(part, extra, out)?;
            }
        }
        HirKind::Alternation(branches) => write(branches.first()?, extra, out)?,
    }
    Some(())
}

fn array(schema: &Map<String, Value>, root: &Value, all: bool, depth: usize) -> Option<Value> {
    let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
    let max = schema
        .get("maxItems")
        .and_then(Value::as_u64)
        .map_or(usize::MAX, |m| m as usize);
    let positions = match (schema.get("prefixItems"), schema.get("items")) {
        (Some(Value::Array(p)), _) | (None, Some(Value::Array(p))) => Some(p),
        _ => None,
    };
    if let Some(positions) = positions {
        let items = positions
            .iter()
            .take(min.max(positions.len()).min(max))
            .map(|p| value(p, root, all, depth + 1))
            .collect::<Option<Vec<_>>>()?;
        return Some(Value::Array(items));
    }
    let count = min.max(usize::from(all)).min(max);
    let item = schema.get("items").unwrap_or(&Value::Bool(true));
    let items = (0..count)
        .map(|_| value(item, root, all, depth + 1))
        .collect::<Option<Vec<_>>>()?;
    Some(Value::Array(items))
}

fn object(schema: &Map<String, Value>, root: &Value, all: bool, depth: usize) -> Option<Value> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut map = Map::new();
    if let Some(Value::Object(props)) = schema.get("properties") {
        for (name, prop) in props {
            let needed = required.contains(&name.as_str());
            if !needed && !all {
                continue;
            }
            match value(prop, root, all, depth + 1) {
                Some(v) => {
                    map.insert(name.clone(), v);
                }
                None if needed => return None,
                None => {}
            }
        }
    }
    Some(Value::Object(map))
}

/// The all-fields sample with one top-level property changed to violate a bound its schema
/// sets (`maxLength`, `maximum`, `minLength`, `minimum`, `maxItems`), if any.
pub fn violate_bound(schema: &Value, all: &Value) -> Option<Value> {
    let props = schema.get("properties")?.as_object()?;
    for (name, prop) in props {
        let Some(current) = all.get(name) else {
            continue;
        };
        let get = |k: &str| prop.get(k).and_then(Value::as_f64);
        let bad = if let Some(max) = get("maxLength") {
            Some(json!("x".repeat(max as usize + 1)))
        } else if let Some(max) = get("maximum") {
            Some(json!(max.floor() as i64 + 1))
        } else if let Some(min) = get("minLength").filter(|m| *m >= 1.0) {
            Some(json!("x".repeat(min as usize - 1)))
        } else if let Some(min) = get("minimum").filter(|m| *m >= 1.0) {
            Some(json!(min.ceil() as i64 - 1))
        } else if let (Some(max), Value::Array(items)) = (get("maxItems"), current) {
            items
                .first()
                .map(|first| Value::Array(vec![first.clone(); max as usize + 1]))
        } else {
            None
        };
        if let Some(bad) = bad {
            let mut out = all.clone();
            out[name.as_str()] = bad;
            return Some(out);
        }
    }
    None
}

/// The required sample without its first required property whose schema rejects `null`
/// (a required nullable property cannot be missing from a Rust value: it is sent as `null`).
pub fn drop_required(
    schema: &Value,
    required_sample: &Value,
    accepts: impl Fn(&Value) -> bool,
) -> Option<Value> {
    let required = schema.get("required")?.as_array()?;
    for name in required.iter().filter_map(Value::as_str) {
        let mut with_null = required_sample.clone();
        with_null[name] = Value::Null;
        if accepts(&with_null) {
            continue;
        }
        let mut out = required_sample.clone();
        out.as_object_mut()?.remove(name)?;
        return Some(out);
    }
    None
}
