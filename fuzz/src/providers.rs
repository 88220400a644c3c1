//! The provider forms' invariants (`oma_mcp_core::provider`), shared by the `provider` fuzz
//! target and the corpus test: a tool's form for each provider either follows that
//! provider's rules (0 violations) or is refused with a reason from the expected set, and
//! the argument converter's round trip holds for an example argument:
//! server arguments → [`to_model`](oma_mcp_runtime::provider::Arguments::to_model) → valid
//! for the provider's schema → [`to_server`](oma_mcp_runtime::provider::Arguments::to_server)
//! → the same server arguments, valid for the original schema.

use oma_mcp_runtime::descriptor::ToolDescriptor;
use oma_mcp_runtime::provider::{Provider, ProviderTool, check_tool};
use oma_mcp_runtime::validate::Validator;
use serde_json::{Map, Value, json};

/// What became of one tool for one provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Converted; the round trip held for an example argument.
    RoundTrip,
    /// Converted; no example argument valid for the original schema was found (a `pattern`,
    /// an unsatisfiable schema), so the round trip was not tried.
    NoExample,
    /// Converted; the original schema does not compile (the server's own problem), so no
    /// example could be checked.
    InvalidOriginal,
    /// Refused, for this reason.
    Unexpressible(String),
}

/// The reasons a schema may be refused (anything else is a converter bug).
const EXPECTED: [&str; 14] = [
    "is recursive, and Gemini",
    "points to the root, which is not",
    "a fixed set of argument objects",
    "branch is `false`",
    "points to nothing",
    "is not a local JSON pointer",
    "the schema is `false`",
    "admits only `null`",
    "no branch but `null`",
    "admits no value but `null`",
    "nests deeper than",
    "object properties; at most",
    "levels of nesting",
    "enum values; at most",
];

/// Checks `descriptor` for `provider`: `Err(what broke)` on a violation of the invariants.
///
/// # Errors
/// A rule violation, an unexpected refusal, a nondeterministic conversion, or a round trip
/// that does not hold.
pub fn check(descriptor: &ToolDescriptor, provider: Provider) -> Result<Outcome, String> {
    let tool = match ProviderTool::new(descriptor, provider) {
        Ok(tool) => tool,
        Err(e) => {
            return if EXPECTED.iter().any(|r| e.why.contains(r)) || e.why.contains("characters of")
            {
                Ok(Outcome::Unexpressible(e.why))
            } else {
                Err(format!("refused for an unexpected reason: {e}"))
            };
        }
    };
    let violations = check_tool(&tool);
    if !violations.is_empty() {
        return Err(format!(
            "{provider} form of `{}` breaks its rules: {}",
            descriptor.name,
            violations
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    if ProviderTool::new(descriptor, provider).as_ref() != Ok(&tool) {
        return Err("two conversions of one tool differ".to_owned());
    }
    let Ok(original) = Validator::new(&descriptor.name, &descriptor.input_schema) else {
        return Ok(Outcome::InvalidOriginal);
    };
    let Some(example) = example(&descriptor.input_schema, &original) else {
        return Ok(Outcome::NoExample);
    };
    let model = tool
        .arguments
        .to_model(&example)
        .map_err(|e| format!("to_model: {e}"))?;
    let provider_schema = as_json_schema(&tool);
    let for_provider = Validator::new(&descriptor.name, &provider_schema)
        .map_err(|e| format!("the {provider} schema does not compile: {e}"))?;
    if let Err(problems) = for_provider.validate(&model) {
        return Err(format!(
            "the model-side arguments {model} are not valid for the {provider} schema \
             {provider_schema}: {problems:?} (server arguments {example})"
        ));
    }
    let back = tool
        .arguments
        .to_server(&model)
        .map_err(|e| format!("to_server: {e}"))?;
    if back != example {
        return Err(format!(
            "round trip changed the arguments: {example} → {model} → {back}"
        ));
    }
    Ok(Outcome::RoundTrip)
}

/// The provider's parameters schema as plain JSON Schema, to validate the model's side with:
/// Gemini's upper-case type names lowered and `nullable` written as a `null` type.
fn as_json_schema(tool: &ProviderTool) -> Value {
    fn lower(value: &mut Value) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(t)) = map.get("type").cloned() {
                    let t = t.to_ascii_lowercase();
                    let nullable = map.remove("nullable") == Some(Value::Bool(true));
                    map.insert(
                        "type".to_owned(),
                        if nullable {
                            json!([t, "null"])
                        } else {
                            json!(t)
                        },
                    );
                    if nullable && let Some(Value::Array(values)) = map.get_mut("enum") {
                        values.push(Value::Null);
                    }
                } else if map.remove("nullable") == Some(Value::Bool(true))
                    && let Some(Value::Array(branches)) = map.get_mut("anyOf")
                {
                    branches.push(json!({"type": "null"}));
                }
                if map.get("format") == Some(&json!("enum")) {
                    map.remove("format");
                }
                for v in map.values_mut() {
                    lower(v);
                }
            }
            Value::Array(items) => items.iter_mut().for_each(lower),
            _ => {}
        }
    }
    let mut schema = tool.parameters.clone();
    if tool.provider == Provider::Gemini {
        lower(&mut schema);
    }
    schema
}

/// Arguments valid for `schema` (a JSON object, as MCP's `tools/call` sends): first with
/// every property, then with the required ones only; `None` when neither validates.
fn example(schema: &Value, validator: &Validator) -> Option<Value> {
    let untyped = schema
        .as_object()
        .is_some_and(|m| !m.contains_key("type") && !m.contains_key("properties"));
    [true, false].into_iter().find_map(|all| {
        let value = if untyped {
            json!({})
        } else {
            Example { root: schema, all }.of(schema, 0)
        };
        (value.is_object() && validator.validate(&value).is_ok()).then_some(value)
    })
}

struct Example<'a> {
    root: &'a Value,
    /// Every property (else the required ones only).
    all: bool,
}

impl Example<'_> {
    fn of(&self, schema: &Value, depth: usize) -> Value {
        let Some(map) = schema.as_object() else {
            return json!("x");
        };
        if depth > 12 {
            return Value::Null;
        }
        if let Some(Value::String(r)) = map.get("$ref") {
            let target = r
                .strip_prefix('#')
                .and_then(|p| self.root.pointer(p))
                .cloned()
                .unwrap_or(Value::Bool(true));
            return self.of(&target, depth + 1);
        }
        if let Some(c) = map.get("const") {
            return c.clone();
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            return values
                .iter()
                .find(|v| !v.is_null())
                .cloned()
                .unwrap_or(Value::Null);
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = map.get(key)
                && !map.contains_key("type")
                && !map.contains_key("properties")
            {
                let branch = branches
                    .iter()
                    .find(|b| b.get("type") != Some(&json!("null")))
                    .unwrap_or(&Value::Null);
                return self.of(branch, depth + 1);
            }
        }
        if let Some(Value::Array(branches)) = map.get("allOf") {
            let mut merged = Map::new();
            for branch in branches {
                if let Value::Object(part) = self.of(branch, depth + 1) {
                    merged.extend(part);
                }
            }
            if let Value::Object(own) = self.of(&strip(map, "allOf"), depth + 1) {
                merged.extend(own);
            }
            return Value::Object(merged);
        }
        let t = match map.get("type") {
            Some(Value::String(t)) => t.clone(),
            Some(Value::Array(ts)) => ts
                .iter()
                .filter_map(Value::as_str)
                .find(|t| *t != "null")
                .unwrap_or("null")
                .to_owned(),
            _ if map.contains_key("properties") => "object".to_owned(),
            _ if map.contains_key("items") => "array".to_owned(),
            _ => "string".to_owned(),
        };
        let number = |key: &str| map.get(key).and_then(Value::as_f64);
        match t.as_str() {
            "object" => {
                let required: Vec<&str> = map
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let mut out = Map::new();
                if let Some(Value::Object(properties)) = map.get("properties") {
                    for (name, property) in properties {
                        let is_required = required.contains(&name.as_str());
                        if self.all || is_required {
                            // An optional property is left out rather than sent as `null`
                            // (which OpenAI's strict form reads as "absent").
                            let value = self.of(property, depth + 1);
                            if is_required || !value.is_null() {
                                out.insert(name.clone(), value);
                            }
                        }
                    }
                }
                for name in required {
                    out.entry(name.to_owned()).or_insert_with(|| json!("x"));
                }
                Value::Object(out)
            }
            "array" => {
                if let Some(Value::Array(positions)) =
                    map.get("prefixItems").or_else(|| map.get("items"))
                {
                    return Value::Array(positions.iter().map(|p| self.of(p, depth + 1)).collect());
                }
                let items = map.get("items").cloned().unwrap_or(Value::Bool(true));
                let min = map
                    .get("minItems")
                    .and_then(Value::as_u64)
                    .unwrap_or(1)
                    .max(1);
                let item = self.of(&items, depth + 1);
                let unique = map.get("uniqueItems") == Some(&Value::Bool(true));
                let count = if unique { 1 } else { min.min(3) };
                Value::Array(vec![item; usize::try_from(count).unwrap_or(1)])
            }
            "integer" => {
                let low = number("minimum")
                    .map_or(1.0, f64::ceil)
                    .max(number("exclusiveMinimum").map_or(f64::MIN, |m| m.floor() + 1.0));
                // A bound of a real schema fits an i64; a huge one saturates.
                #[allow(clippy::cast_possible_truncation)]
                let low = low as i64;
                json!(low)
            }
            "number" => json!(number("minimum").unwrap_or(1.5)),
            "boolean" => json!(true),
            "null" => Value::Null,
            _ => {
                let text = match map.get("format").and_then(Value::as_str) {
                    Some("date-time") => "2026-01-02T03:04:05Z",
                    Some("date") => "2026-01-02",
                    Some("time") => "03:04:05Z",
                    Some("email") => "a@example.com",
                    Some("uri" | "url" | "uri-reference" | "iri") => "https://example.com/x",
                    Some("uuid") => "00000000-0000-4000-8000-000000000000",
                    Some("ipv4") => "127.0.0.1",
                    Some("ipv6") => "::1",
                    Some("hostname") => "example.com",
                    _ => "x",
                };
                let min = map.get("minLength").and_then(Value::as_u64).unwrap_or(0);
                if let Some(pattern) = map.get("pattern") {
                    return json!(matching(pattern).unwrap_or(text));
                }
                let mut text = text.to_owned();
                // A length no real argument has is left unmet (the example then fails).
                while (text.chars().count() as u64) < min.min(256) {
                    text.push('x');
                }
                json!(text)
            }
        }
    }
}

/// A string that matches `pattern`, from a few shapes real schemas ask for (keys, ids,
/// dates, slugs).
fn matching(pattern: &Value) -> Option<&'static str> {
    let schema = json!({"type": "string", "pattern": pattern});
    let validator = Validator::new("pattern", &schema).ok()?;
    [
        "x",
        "PROJ-123",
        "PROJ",
        "abc",
        "ABC",
        "a1",
        "123",
        "2026-01-02",
        "a-b",
        "a_b",
        "owner/repo",
        "https://example.com/x",
        "a@example.com",
    ]
    .into_iter()
    .find(|s| validator.validate(&json!(s)).is_ok())
}

fn strip(map: &Map<String, Value>, key: &str) -> Value {
    let mut map = map.clone();
    map.remove(key);
    Value::Object(map)
}
