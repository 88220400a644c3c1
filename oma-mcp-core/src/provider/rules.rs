//! The providers' rules for tool definitions as code ([`check`], [`check_tool`]): what the
//! parent module's documentation writes down, checked on a parameters schema.

use serde_json::{Map, Value};

use super::{OPENAI_MAX_DESCRIPTION, Provider, ProviderTool};
use crate::pointer::push;

/// One rule a tool definition breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Violation {
    /// Where in the parameters schema (a JSON pointer; empty for the root or the tool itself).
    pub pointer: String,
    /// The rule, in words.
    pub rule: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = if self.pointer.is_empty() {
            "the root"
        } else {
            &self.pointer
        };
        write!(f, "at {at}: {}", self.rule)
    }
}

/// OpenAI strict mode's limits: object properties in all, levels of nesting, enum values in
/// all, characters of property names, definition names and enum values in all.
const OPENAI_MAX_PROPERTIES: usize = 5000;
const OPENAI_MAX_DEPTH: usize = 10;
const OPENAI_MAX_ENUM_VALUES: usize = 1000;
const OPENAI_MAX_TEXT: usize = 120_000;

const OPENAI_KEYS: [&str; 18] = [
    "type",
    "description",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "anyOf",
    "$ref",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
];
/// String formats OpenAI's strict mode supports (the converter keeps only these).
pub(super) const OPENAI_FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];
const GEMINI_KEYS: [&str; 20] = [
    "type",
    "format",
    "description",
    "nullable",
    "enum",
    "items",
    "properties",
    "required",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "minProperties",
    "maxProperties",
    "anyOf",
    "propertyOrdering",
    "title",
];
const GEMINI_TYPES: [&str; 6] = ["STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"];
/// Formats of Gemini's `Schema` (OpenAPI 3.0) the converter keeps; `enum` is allowed too
/// (the converter writes it for enums of non-string values).
pub(super) const GEMINI_FORMATS: [&str; 9] = [
    "email",
    "byte",
    "date",
    "date-time",
    "password",
    "float",
    "double",
    "int32",
    "int64",
];
const JSON_TYPES: [&str; 7] = [
    "string", "number", "integer", "boolean", "object", "array", "null",
];

/// The rules `parameters` (a tool's parameters schema) breaks for `provider`; empty when it
/// follows them all.
///
/// ```
/// use oma_mcp_core::provider::{Provider, check};
/// let loose = serde_json::json!({"type": "object", "properties": {"q": {"type": "string"}}});
/// let found: Vec<String> = check(Provider::OpenAi, &loose).iter().map(|v| v.to_string()).collect();
/// assert_eq!(found, [
///     "at the root: every property must be listed in `required`",
///     "at the root: an object needs `additionalProperties: false`",
/// ]);
/// assert!(check(Provider::Anthropic, &loose).is_empty());
/// ```
pub fn check(provider: Provider, parameters: &Value) -> Vec<Violation> {
    let mut checker = Checker {
        provider,
        root: parameters,
        found: Vec::new(),
        properties: 0,
        enum_values: 0,
        text: 0,
    };
    checker.root();
    checker.found
}

/// The rules a tool definition breaks for its provider: its name, its description (OpenAI:
/// at most 1,024 characters) and its parameters ([`check`]).
pub fn check_tool(tool: &ProviderTool) -> Vec<Violation> {
    let mut found = Vec::new();
    if !tool.provider.accepts_name(&tool.name) {
        found.push(Violation {
            pointer: String::new(),
            rule: format!(
                "the tool name {:?} is not one {} takes (at most {} characters of its alphabet)",
                tool.name,
                tool.provider,
                tool.provider.max_name_len()
            ),
        });
    }
    if tool.provider == Provider::OpenAi
        && tool.description.chars().count() > OPENAI_MAX_DESCRIPTION
    {
        found.push(Violation {
            pointer: String::new(),
            rule: format!("the description is longer than {OPENAI_MAX_DESCRIPTION} characters"),
        });
    }
    found.extend(check(tool.provider, &tool.parameters));
    found
}

struct Checker<'a> {
    provider: Provider,
    root: &'a Value,
    found: Vec<Violation>,
    properties: usize,
    enum_values: usize,
    text: usize,
}

impl Checker<'_> {
    fn violation(&mut self, at: &str, rule: impl Into<String>) {
        self.found.push(Violation {
            pointer: at.to_owned(),
            rule: rule.into(),
        });
    }

    fn root(&mut self) {
        let Some(map) = self.root.as_object() else {
            self.violation("", "the parameters schema is not a JSON object");
            return;
        };
        let object = match self.provider {
            Provider::Gemini => map
                .get("type")
                .and_then(Value::as_str)
                .is_some_and(|t| t.eq_ignore_ascii_case("object")),
            _ => map.get("type") == Some(&Value::String("object".to_owned())),
        };
        if !object {
            self.violation("", "the root must be `type: object`");
        }
        let refused: &[&str] = match self.provider {
            Provider::OpenAi => &["anyOf"],
            Provider::Anthropic => &["anyOf", "oneOf", "allOf"],
            Provider::Gemini => &[],
        };
        for key in refused {
            if map.contains_key(*key) {
                self.violation("", format!("`{key}` is not allowed at the root"));
            }
        }
        match self.provider {
            Provider::Anthropic => self.anthropic(self.root, ""),
            _ => {
                self.node(self.root, "", 0, true);
                if self.provider == Provider::OpenAi {
                    if let Some(Value::Object(defs)) = map.get("$defs") {
                        for (name, def) in defs {
                            self.text += name.len();
                            self.node(def, &push("/$defs", name), 1, false);
                        }
                    }
                    self.limits();
                }
            }
        }
    }

    fn limits(&mut self) {
        if self.properties > OPENAI_MAX_PROPERTIES {
            let n = self.properties;
            self.violation(
                "",
                format!("{n} object properties; at most {OPENAI_MAX_PROPERTIES}"),
            );
        }
        if self.enum_values > OPENAI_MAX_ENUM_VALUES {
            let n = self.enum_values;
            self.violation(
                "",
                format!("{n} enum values; at most {OPENAI_MAX_ENUM_VALUES}"),
            );
        }
        if self.text > OPENAI_MAX_TEXT {
            let n = self.text;
            self.violation(
                "",
                format!(
                    "{n} characters of property names, definition names and enum values; at \
                     most {OPENAI_MAX_TEXT}"
                ),
            );
        }
    }

    /// One schema of OpenAI's or Gemini's subset (`depth`: levels of nesting so far).
    fn node(&mut self, schema: &Value, at: &str, depth: usize, root: bool) {
        let Some(map) = schema.as_object() else {
            self.violation(at, "a schema must be a JSON object");
            return;
        };
        if self.provider == Provider::OpenAi && depth > OPENAI_MAX_DEPTH {
            self.violation(
                at,
                format!("more than {OPENAI_MAX_DEPTH} levels of nesting"),
            );
            return;
        }
        let allowed: &[&str] = match self.provider {
            Provider::OpenAi => &OPENAI_KEYS,
            _ => &GEMINI_KEYS,
        };
        for key in map.keys() {
            let ok = allowed.contains(&key.as_str())
                || (self.provider == Provider::OpenAi && root && key == "$defs");
            if !ok {
                self.violation(at, format!("`{key}` is not supported"));
            }
        }
        match self.provider {
            Provider::OpenAi => self.openai(map, at, depth),
            _ => self.gemini(map, at, depth, root),
        }
    }

    fn openai(&mut self, map: &Map<String, Value>, at: &str, depth: usize) {
        if let Some(reference) = map.get("$ref") {
            if map.len() > 1 {
                self.violation(at, "`$ref` cannot have other keywords beside it");
            }
            let target = reference
                .as_str()
                .and_then(|r| r.strip_prefix('#'))
                .filter(|p| p.is_empty() || self.root.pointer(p).is_some());
            if target.is_none() {
                self.violation(at, "`$ref` must point into the schema's `$defs`");
            }
            return;
        }
        let types: Vec<&str> = match map.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if types.is_empty() && !map.contains_key("anyOf") {
            self.violation(at, "a schema needs `type`, `anyOf` or `$ref`");
        }
        for t in &types {
            if !JSON_TYPES.contains(t) {
                self.violation(at, format!("`{t}` is not a JSON Schema type"));
            }
        }
        if let Some(Value::String(f)) = map.get("format")
            && !OPENAI_FORMATS.contains(&f.as_str())
        {
            self.violation(at, format!("the format `{f}` is not supported"));
        }
        self.enum_text(map);
        if types.contains(&"object") {
            match map.get("properties") {
                Some(Value::Object(properties)) => {
                    let keys: Vec<&String> = properties.keys().collect();
                    let required: Vec<&str> = map
                        .get("required")
                        .and_then(Value::as_array)
                        .map(|r| r.iter().filter_map(Value::as_str).collect())
                        .unwrap_or_default();
                    if keys.len() != required.len()
                        || keys.iter().any(|k| !required.contains(&k.as_str()))
                    {
                        self.violation(at, "every property must be listed in `required`");
                    }
                    self.properties += properties.len();
                    for (name, property) in properties {
                        self.text += name.len();
                        let at = push(&push(at, "properties"), name);
                        self.node(property, &at, depth + 1, false);
                    }
                }
                _ => self.violation(at, "an object needs `properties`"),
            }
            if map.get("additionalProperties") != Some(&Value::Bool(false)) {
                self.violation(at, "an object needs `additionalProperties: false`");
            }
        }
        if types.contains(&"array") {
            match map.get("items") {
                Some(items @ Value::Object(_)) => {
                    self.node(items, &push(at, "items"), depth + 1, false);
                }
                _ => self.violation(at, "an array needs an `items` schema"),
            }
        }
        if let Some(branches) = map.get("anyOf") {
            self.branches(branches, at, depth);
        }
    }

    fn gemini(&mut self, map: &Map<String, Value>, at: &str, depth: usize, root: bool) {
        let t = match map.get("type") {
            Some(Value::String(t)) => {
                let upper = t.to_ascii_uppercase();
                if !GEMINI_TYPES.contains(&upper.as_str()) {
                    self.violation(at, format!("`{t}` is not a type of Gemini's schema"));
                }
                Some(upper)
            }
            Some(_) => {
                self.violation(at, "`type` must be one type name");
                None
            }
            None => {
                if !map.contains_key("anyOf") {
                    self.violation(at, "a schema needs `type` or `anyOf`");
                }
                None
            }
        };
        if let Some(Value::String(f)) = map.get("format")
            && f != "enum"
            && !GEMINI_FORMATS.contains(&f.as_str())
        {
            self.violation(at, format!("the format `{f}` is not supported"));
        }
        if let Some(values) = map.get("enum")
            && !values
                .as_array()
                .is_some_and(|v| v.iter().all(Value::is_string))
        {
            self.violation(at, "`enum` values must be strings");
        }
        match t.as_deref() {
            Some("OBJECT") => match map.get("properties") {
                Some(Value::Object(properties)) if !properties.is_empty() || root => {
                    for (name, property) in properties {
                        let fits = (1..=64).contains(&name.len())
                            && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                        let at = push(&push(at, "properties"), name);
                        if !fits {
                            self.violation(
                                &at,
                                format!("the property name {name:?} is not one Gemini takes"),
                            );
                        }
                        self.node(property, &at, depth + 1, false);
                    }
                }
                _ => self.violation(at, "an `OBJECT` needs `properties`"),
            },
            Some("ARRAY") => match map.get("items") {
                Some(items @ Value::Object(_)) => {
                    self.node(items, &push(at, "items"), depth + 1, false)
                }
                _ => self.violation(at, "an `ARRAY` needs an `items` schema"),
            },
            _ => {}
        }
        if let Some(branches) = map.get("anyOf") {
            self.branches(branches, at, depth);
        }
    }

    fn branches(&mut self, branches: &Value, at: &str, depth: usize) {
        match branches.as_array() {
            Some(branches) if !branches.is_empty() => {
                for (i, branch) in branches.iter().enumerate() {
                    let at = push(&push(at, "anyOf"), &i.to_string());
                    self.node(branch, &at, depth, false);
                }
            }
            _ => self.violation(at, "`anyOf` must be a non-empty array"),
        }
    }

    /// Counts enum values and their text toward OpenAI's limits.
    fn enum_text(&mut self, map: &Map<String, Value>) {
        if let Some(Value::Array(values)) = map.get("enum") {
            self.enum_values += values.len();
            self.text += values
                .iter()
                .filter_map(Value::as_str)
                .map(str::len)
                .sum::<usize>();
        }
    }

    /// Anthropic: property keys everywhere in the schema.
    fn anthropic(&mut self, schema: &Value, at: &str) {
        let Some(map) = schema.as_object() else {
            return;
        };
        for (key, value) in map {
            let at_key = push(at, key);
            match (key.as_str(), value) {
                ("properties", Value::Object(properties)) => {
                    for (name, property) in properties {
                        let at = push(&at_key, name);
                        let fits = (1..=64).contains(&name.len())
                            && name
                                .chars()
                                .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c));
                        if !fits {
                            self.violation(&at, format!("the property key {name:?} does not match ^[a-zA-Z0-9_.-]{{1,64}}$"));
                        }
                        self.anthropic(property, &at);
                    }
                }
                (
                    "$defs" | "definitions" | "patternProperties" | "dependentSchemas",
                    Value::Object(defs),
                ) => {
                    for (name, def) in defs {
                        self.anthropic(def, &push(&at_key, name));
                    }
                }
                ("anyOf" | "oneOf" | "allOf" | "prefixItems", Value::Array(branches)) => {
                    for (i, branch) in branches.iter().enumerate() {
                        self.anthropic(branch, &push(&at_key, &i.to_string()));
                    }
                }
                (
                    "items" | "additionalProperties" | "not" | "if" | "then" | "else" | "contains",
                    v,
                ) => {
                    self.anthropic(v, &at_key);
                }
                _ => {}
            }
        }
    }
}
