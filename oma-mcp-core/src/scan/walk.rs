//! The walk: every text of a tool, prompt, resource or resource template that a model reads,
//! each with its JSON pointer into the item's descriptor and what kind of text it is.

use serde_json::{Map, Value};

use crate::pointer::push;

/// How deep a schema may nest before the walk stops (a `scan-limit` finding says where).
pub(crate) const MAX_DEPTH: usize = 64;
/// How many texts one item may hold before the walk stops.
pub(crate) const MAX_TEXTS: usize = 20_000;

/// What a text is, which decides the rules that read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A name: of the item, of a property, a `$defs` entry or an argument.
    Name,
    /// Words for the model: a description, a title, an enum value, a default, an example.
    Prose,
    /// Machine text: `type`, `format`, `$ref`, `pattern`, a URI; only the character rules
    /// read it.
    Code,
}

/// One text of an item.
#[derive(Debug, Clone)]
pub(crate) struct Text<'a> {
    pub(crate) pointer: String,
    pub(crate) kind: Kind,
    pub(crate) text: &'a str,
    /// The input parameter (index into [`Walked::params`]) whose schema holds this text.
    pub(crate) param: Option<usize>,
}

/// An input parameter: a property of the input schema (at any depth) or a prompt argument.
#[derive(Debug, Clone)]
pub(crate) struct Param<'a> {
    pub(crate) name: &'a str,
    pub(crate) pointer: String,
    pub(crate) description: Option<&'a str>,
}

/// The texts and parameters of one item, and where the walk stopped early, if it did.
#[derive(Debug, Default)]
pub(crate) struct Walked<'a> {
    pub(crate) texts: Vec<Text<'a>>,
    pub(crate) params: Vec<Param<'a>>,
    pub(crate) stopped: Option<(String, &'static str)>,
}

impl<'a> Walked<'a> {
    fn text(&mut self, pointer: String, kind: Kind, text: &'a str, param: Option<usize>) {
        if self.texts.len() >= MAX_TEXTS {
            self.stop(&pointer, "holds more than 20,000 texts");
            return;
        }
        self.texts.push(Text {
            pointer,
            kind,
            text,
            param,
        });
    }

    fn stop(&mut self, pointer: &str, why: &'static str) {
        if self.stopped.is_none() {
            self.stopped = Some((pointer.to_owned(), why));
        }
    }

    fn field(&mut self, object: &'a Map<String, Value>, key: &str, kind: Kind) {
        if let Some(Value::String(s)) = object.get(key) {
            self.text(push("", key), kind, s, None);
        }
    }
}

/// A tool: `name`, `title`, `description`, the strings of `annotations`, and every text of
/// `inputSchema` (whose properties are the parameters) and `outputSchema`.
pub(crate) fn tool(descriptor: &Value) -> Walked<'_> {
    let mut w = Walked::default();
    let Value::Object(o) = descriptor else {
        return w;
    };
    w.field(o, "name", Kind::Name);
    w.field(o, "title", Kind::Prose);
    w.field(o, "description", Kind::Prose);
    if let Some(Value::Object(a)) = o.get("annotations") {
        for (k, v) in a {
            value(&mut w, v, push("/annotations", k), Kind::Prose, None, 1);
        }
    }
    if let Some(s) = o.get("inputSchema") {
        schema(&mut w, s, "/inputSchema".into(), true, None, 1);
    }
    if let Some(s) = o.get("outputSchema") {
        schema(&mut w, s, "/outputSchema".into(), false, None, 1);
    }
    w
}

/// A prompt: `name`, `title`, `description`, and each argument's `name` (a parameter),
/// `title` and `description`.
pub(crate) fn prompt(descriptor: &Value) -> Walked<'_> {
    let mut w = Walked::default();
    let Value::Object(o) = descriptor else {
        return w;
    };
    w.field(o, "name", Kind::Name);
    w.field(o, "title", Kind::Prose);
    w.field(o, "description", Kind::Prose);
    if let Some(Value::Array(args)) = o.get("arguments") {
        for (i, arg) in args.iter().enumerate().take(MAX_TEXTS) {
            let Value::Object(arg) = arg else { continue };
            let at = format!("/arguments/{i}");
            let param = match arg.get("name") {
                Some(Value::String(name)) => {
                    w.params.push(Param {
                        name,
                        pointer: at.clone(),
                        description: arg.get("description").and_then(Value::as_str),
                    });
                    let p = w.params.len() - 1;
                    w.text(format!("{at}/name"), Kind::Name, name, Some(p));
                    Some(p)
                }
                _ => None,
            };
            for key in ["title", "description"] {
                if let Some(Value::String(s)) = arg.get(key) {
                    w.text(format!("{at}/{key}"), Kind::Prose, s, param);
                }
            }
        }
    }
    w
}

/// A resource or a resource template: `name`, `title`, `description`, and `uri` or
/// `uriTemplate` (machine text).
pub(crate) fn resource(descriptor: &Value) -> Walked<'_> {
    let mut w = Walked::default();
    let Value::Object(o) = descriptor else {
        return w;
    };
    w.field(o, "name", Kind::Name);
    w.field(o, "title", Kind::Prose);
    w.field(o, "description", Kind::Prose);
    w.field(o, "uri", Kind::Code);
    w.field(o, "uriTemplate", Kind::Code);
    w
}

/// Schema keywords whose string values are machine text.
const CODE_KEYWORDS: &[&str] = &[
    "type",
    "format",
    "$ref",
    "$schema",
    "$id",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$recursiveRef",
    "pattern",
    "contentMediaType",
    "contentEncoding",
    "required",
    "dependentRequired",
    "$vocabulary",
];

/// Keywords holding one subschema.
const ONE_SCHEMA: &[&str] = &[
    "items",
    "additionalItems",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "propertyNames",
    "contains",
    "not",
    "if",
    "then",
    "else",
];

/// Keywords holding an array of subschemas.
const SCHEMA_ARRAYS: &[&str] = &["prefixItems", "anyOf", "oneOf", "allOf", "items"];

/// Keywords holding a map of names to subschemas.
const SCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

fn schema<'a>(
    w: &mut Walked<'a>,
    node: &'a Value,
    at: String,
    input: bool,
    param: Option<usize>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        w.stop(&at, "nests deeper than 64 levels");
        return;
    }
    let Value::Object(o) = node else {
        // `true`/`false` schemas hold no text; anything else is read as it is.
        value(w, node, at, Kind::Prose, param, depth);
        return;
    };
    for (k, v) in o {
        let here = push(&at, k);
        let key = k.as_str();
        if SCHEMA_MAPS.contains(&key) {
            let Value::Object(map) = v else {
                value(w, v, here, Kind::Prose, param, depth);
                continue;
            };
            for (name, sub) in map {
                let sub_at = push(&here, name);
                let sub_param = if key == "properties" && input {
                    w.params.push(Param {
                        name,
                        pointer: sub_at.clone(),
                        description: sub.get("description").and_then(Value::as_str),
                    });
                    Some(w.params.len() - 1)
                } else {
                    param
                };
                let kind = if key == "patternProperties" {
                    Kind::Code
                } else {
                    Kind::Name
                };
                w.text(sub_at.clone(), kind, name, sub_param);
                schema(w, sub, sub_at, input, sub_param, depth + 1);
            }
        } else if ONE_SCHEMA.contains(&key) && v.is_object() {
            schema(w, v, here, input, param, depth + 1);
        } else if SCHEMA_ARRAYS.contains(&key) && v.is_array() {
            for (i, sub) in v.as_array().into_iter().flatten().enumerate() {
                schema(w, sub, push(&here, &i.to_string()), input, param, depth + 1);
            }
        } else if CODE_KEYWORDS.contains(&key) {
            value(w, v, here, Kind::Code, param, depth);
        } else if v.is_boolean() || v.is_number() || v.is_null() {
            // Bounds and flags hold no text.
        } else {
            // title, description, $comment, enum, const, default, examples, vendor keys.
            value(w, v, here, Kind::Prose, param, depth);
        }
    }
}

/// Every string in a JSON value (object keys too, at the pointer of their value); `depth`
/// counts the containers above it.
fn value<'a>(
    w: &mut Walked<'a>,
    v: &'a Value,
    at: String,
    kind: Kind,
    param: Option<usize>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        w.stop(&at, "nests deeper than 64 levels");
        return;
    }
    match v {
        Value::String(s) => w.text(at, kind, s, param),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                value(w, item, push(&at, &i.to_string()), kind, param, depth + 1);
                if w.stopped.is_some() {
                    return;
                }
            }
        }
        Value::Object(map) => {
            for (k, item) in map {
                let here = push(&at, k);
                w.text(here.clone(), kind, k, param);
                value(w, item, here, kind, param, depth + 1);
                if w.stopped.is_some() {
                    return;
                }
            }
        }
        _ => {}
    }
}
