//! Generators (proptest strategies) of the untrusted inputs oma-mcp reads: JSON values, JSON
//! Schemas, MCP tool descriptors, `tools/call` results, stdout byte streams and manifest text.
//!
//! Every generator is bounded (depth and size), so one case stays small and fast; breadth
//! comes from the number of cases. The pools hold the values hand-picked tests tend to miss:
//! Rust keywords, empty and non-ASCII names, names that collide after case conversion,
//! numbers at and beyond 64-bit and `f64` limits, dangling, external and cyclic `$ref`s,
//! invalid regexes and odd formats.

use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{Map, Number, Value, json};

/// Names of tools, properties, `$defs` and enum values: keywords, prelude and runtime names,
/// empty, whitespace, non-ASCII, names equal after case conversion (`a-b`, `a_b`, `aB`, `A_b`),
/// and characters that mean something in Rust source (`"`, `\`, `*/`).
const NAMES: &[&str] = &[
    "",
    " ",
    "type",
    "self",
    "Self",
    "super",
    "crate",
    "fn",
    "async",
    "await",
    "dyn",
    "try",
    "union",
    "abstract",
    "gen",
    "r#type",
    "_",
    "__",
    "0",
    "1",
    "123abc",
    "é",
    "名前",
    "a-b",
    "a_b",
    "aB",
    "A_b",
    "a b",
    "a/b",
    "a__b",
    "Some",
    "None",
    "Ok",
    "Err",
    "Value",
    "String",
    "Option",
    "Vec",
    "Result",
    "Box",
    "serde",
    "Args",
    "Output",
    "FooArgs",
    "Foo",
    "foo",
    "x",
    "X",
    "\u{0}",
    "ß",
    "ǅ",
    "🦀",
    "kebab-case-name",
    "CONST_NAME",
    "a\"b",
    "a\\b",
    "}",
    "*/",
    "/*",
    "a\nb",
    "$ref",
    "#",
    "properties",
    "std",
    "core",
    "oma_mcp_runtime",
    "Tool",
    "ToolArgs",
    "\u{feff}",
    "\u{202e}rtl",
    "A",
    "B",
];

/// `type` values: the seven JSON Schema types, an OpenAPI-ism and invalid ones.
const TYPES: &[&str] = &[
    "string", "integer", "number", "boolean", "null", "object", "array", "any", "", "String",
    "file",
];

/// `$ref` targets: the root (a cycle), local `$defs`/`definitions` (some defined by the
/// generator, some not), JSON pointer escapes, anchors, external and non-URI references.
const REFS: &[&str] = &[
    "#",
    "#/$defs/A",
    "#/$defs/B",
    "#/definitions/A",
    "#/$defs/missing",
    "#/properties/a",
    "#/$defs/A/properties/a",
    "#/$defs/A/$defs/A",
    "#/$defs/%41",
    "#/$defs/a~1b",
    "#/$defs/~0",
    "#/$defs/~2",
    "#/$defs/%",
    "#/items",
    "#/anyOf/0",
    "#/anyOf/99999999999999999999",
    "#/",
    "",
    "#anchor",
    "http://example.com/schema.json",
    "https://example.com/s.json#/$defs/A",
    "other.json",
    "other.json#/$defs/A",
    "urn:uuid:00000000-0000-0000-0000-000000000000",
    "file:///etc/passwd",
    "../x.json",
    "#/$defs/名前",
];

/// `pattern`s: valid ones, ECMA-262-only syntax, invalid regexes and catastrophic ones.
const PATTERNS: &[&str] = &[
    "^[a-z]+$",
    "(",
    "[",
    "a{2,1}",
    "\\",
    "(?<name>x)\\k<name>",
    "\\p{L}+",
    "\\p{Nope}",
    "(a+)+$",
    "^(?!x).*$",
    "(?i)abc",
    "\\d{4}-\\d{2}",
    "[\\w-]+",
    "",
    "\u{0}",
    "é+",
    "\\u00e9",
    "/regex/",
];

/// `format`s: known ones, unknown ones and odd spellings.
const FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "email",
    "uri",
    "uuid",
    "ipv4",
    "ipv6",
    "regex",
    "int32",
    "int64",
    "uint8",
    "float",
    "double",
    "byte",
    "binary",
    "password",
    "",
    "DATE-TIME",
    "unknown-format",
    "名前",
];

/// `format`s of `integer` schemas that pick a Rust integer type, and ones that do not.
const INT_FORMATS: &[&str] = &[
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "uint", "float", "",
];

/// Numbers at the edges: 64-bit limits, beyond them (as `f64`), `f64` limits, negative zero,
/// subnormals, and integers not exact in `f64`.
fn edge_number() -> BoxedStrategy<Number> {
    prop_oneof![
        select(vec![
            Number::from(0),
            Number::from(1),
            Number::from(-1),
            Number::from(i64::MIN),
            Number::from(i64::MAX),
            Number::from(u64::MAX),
            Number::from(9_007_199_254_740_993_u64),
        ]),
        select(vec![
            -0.0, 0.5, 1.5, -1.5, 1e308, -1e308, 1e-320, 0.1, 1e21, 1.0, 2.0, 1.8e19, -9.3e18,
        ])
        .prop_filter_map("finite", Number::from_f64),
        any::<i64>().prop_map(Number::from),
        any::<u64>().prop_map(Number::from),
        any::<f64>().prop_filter_map("finite", Number::from_f64),
        (-5i64..6).prop_map(Number::from),
    ]
    .boxed()
}

/// A name from [`NAMES`] or a random one (identifier-like, any printable, or short
/// arbitrary text).
pub fn name() -> BoxedStrategy<String> {
    prop_oneof![
        5 => select(NAMES).prop_map(str::to_owned),
        3 => "[a-zA-Z_][a-zA-Z0-9_/ -]{0,10}",
        1 => "\\PC{0,8}",
        1 => ".{0,4}",
    ]
    .boxed()
}

/// A short text (descriptions, text blocks): printable, with newlines, control characters
/// and line separators now and then.
pub fn text() -> BoxedStrategy<String> {
    prop_oneof![
        4 => "\\PC{0,24}",
        1 => select(vec!["", "\n", "\r\n", "\u{2028}", "{}", "*/ /*", "\"\\", "\u{0}\u{7f}"])
            .prop_map(str::to_owned),
        1 => ".{0,12}",
    ]
    .boxed()
}

/// A JSON scalar: `null`, a boolean, an edge number or a string.
pub fn scalar() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        edge_number().prop_map(Value::Number),
        name().prop_map(Value::String),
    ]
    .boxed()
}

/// Any JSON value, at most 3 levels deep and about 16 nodes.
pub fn json() -> BoxedStrategy<Value> {
    scalar()
        .prop_recursive(3, 16, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec((name(), inner), 0..4)
                    .prop_map(|members| Value::Object(members.into_iter().collect())),
            ]
        })
        .boxed()
}

/// A schema without subschemas.
fn leaf_schema() -> BoxedStrategy<Value> {
    prop_oneof![
        any::<bool>().prop_map(Value::Bool),
        Just(json!({})),
        select(TYPES).prop_map(|t| json!({ "type": t })),
        prop::collection::vec(select(TYPES), 0..4).prop_map(|t| json!({ "type": t })),
        (
            prop::collection::vec(scalar(), 0..6),
            prop::option::of(select(TYPES))
        )
            .prop_map(|(values, ty)| {
                // Duplicates on purpose: a value twice, and `1` next to `1.0`.
                let mut values = values;
                if let Some(first) = values.first().cloned() {
                    values.push(first);
                }
                let mut schema = json!({ "enum": values });
                if let Some(ty) = ty {
                    schema["type"] = json!(ty);
                }
                schema
            }),
        Just(json!({"enum": [1, 1.0, "1", true, null, [1], {"a": 1}]})),
        json().prop_map(|v| json!({ "const": v })),
        select(REFS).prop_map(|r| json!({ "$ref": r })),
        name().prop_map(|n| json!({ "$ref": format!("#/$defs/{n}") })),
        select(PATTERNS).prop_map(|p| json!({"type": "string", "pattern": p})),
        select(FORMATS).prop_map(|f| json!({"type": "string", "format": f})),
        (
            select(vec!["integer", "number"]),
            edge_number(),
            edge_number(),
            edge_number()
        )
            .prop_map(|(t, min, max, multiple)| json!({
                "type": t, "minimum": min, "maximum": max, "multipleOf": multiple,
            })),
        (edge_number(), edge_number()).prop_map(|(min, max)| json!({
            "type": "string", "minLength": min, "maxLength": max,
        })),
        (
            select(INT_FORMATS),
            prop::option::of(edge_number()),
            prop::option::of(prop::collection::vec(edge_number(), 1..4)),
        )
            .prop_map(|(format, min, values)| {
                let mut schema = json!({"type": "integer", "format": format});
                if let Some(min) = min {
                    schema["minimum"] = Value::Number(min);
                }
                if let Some(values) = values {
                    schema["enum"] = json!(values);
                }
                schema
            }),
        Just(json!({"type": "array"})),
        Just(json!({"type": "object"})),
        Just(json!({"type": ["string", "null"]})),
        Just(json!({"type": "string", "nullable": true})),
    ]
    .boxed()
}

/// Puts every member of `extra` into `schema` when `schema` is an object.
fn merge(mut schema: Value, extra: Value) -> Value {
    if let (Value::Object(schema), Value::Object(extra)) = (&mut schema, extra) {
        for (k, v) in extra {
            schema.insert(k, v);
        }
    }
    schema
}

/// A JSON Schema: leaves combined with `properties`/`required`/`additionalProperties`,
/// `items` (one schema or a tuple), `prefixItems`, `anyOf`/`oneOf`/`allOf`, `not`,
/// `$defs`/`definitions` (named `A`, `B` or at random, so some `$ref`s resolve, some cycle,
/// some dangle), and unions of everything (several schemas merged into one object).
pub fn schema() -> BoxedStrategy<Value> {
    leaf_schema()
        .prop_recursive(4, 40, 5, |inner| {
            let members = || prop::collection::vec((name(), inner.clone()), 0..5);
            prop_oneof![
                (
                    members(),
                    prop::collection::vec(name(), 0..4),
                    prop::option::of(inner.clone()),
                    any::<bool>(),
                )
                    .prop_map(|(props, required, additional, typed)| {
                        let mut schema = json!({
                            "properties": Value::Object(props.into_iter().collect()),
                            "required": required,
                        });
                        if typed {
                            schema["type"] = json!("object");
                        }
                        if let Some(additional) = additional {
                            schema["additionalProperties"] = additional;
                        }
                        schema
                    }),
                inner
                    .clone()
                    .prop_map(|items| json!({"type": "array", "items": items})),
                prop::collection::vec(inner.clone(), 0..4)
                    .prop_map(|items| json!({"type": "array", "items": items})),
                prop::collection::vec(inner.clone(), 0..4)
                    .prop_map(|items| json!({"type": "array", "prefixItems": items})),
                (
                    select(vec!["anyOf", "oneOf", "allOf"]),
                    prop::collection::vec(inner.clone(), 0..4),
                )
                    .prop_map(|(k, branches)| json!({ k: branches })),
                inner.clone().prop_map(|not| json!({ "not": not })),
                (
                    inner.clone(),
                    select(vec!["$defs", "definitions"]),
                    prop::collection::vec(
                        (
                            prop_oneof![Just("A".to_owned()), Just("B".to_owned()), name()],
                            inner.clone(),
                        ),
                        1..4
                    ),
                )
                    .prop_map(|(schema, key, defs)| {
                        let defs = Value::Object(defs.into_iter().collect());
                        merge(schema, json!({ key: defs }))
                    }),
                prop::collection::vec(inner.clone(), 2..4).prop_map(|parts| {
                    parts
                        .into_iter()
                        .fold(json!({}), merge)
                }),
                (inner.clone(), text(), json()).prop_map(|(schema, description, default)| {
                    merge(
                        schema,
                        json!({"description": description, "title": description, "default": default}),
                    )
                }),
            ]
        })
        .boxed()
}

/// A tool's `inputSchema`: mostly an object schema with properties, sometimes any schema or
/// any JSON at all.
fn input_schema() -> BoxedStrategy<Value> {
    prop_oneof![
        6 => (prop::collection::vec((name(), schema()), 0..5), prop::collection::vec(name(), 0..3))
            .prop_map(|(props, required)| json!({
                "type": "object",
                "properties": Value::Object(props.into_iter().collect()),
                "required": required,
            })),
        3 => schema(),
        1 => json(),
    ]
    .boxed()
}

/// One `tools/list` descriptor: `name`, `inputSchema`, and optional `description`, `title`,
/// `outputSchema`, `annotations` and a vendor key.
pub fn tool() -> BoxedStrategy<Value> {
    (
        name(),
        input_schema(),
        prop::option::of(text()),
        prop::option::of(prop_oneof![
            3 => schema(),
            1 => input_schema(),
            // FastMCP's wrapped form: the type is that of `result`.
            1 => schema().prop_map(|result| json!({
                "type": "object",
                "properties": {"result": result},
                "required": ["result"],
                "x-fastmcp-wrap-result": true,
            })),
        ]),
        prop::option::of((
            prop::option::of(prop_oneof![any::<bool>().prop_map(Value::Bool), scalar()]),
            prop::option::of(any::<bool>()),
            prop::option::of(text()),
        )),
        prop::option::of(json()),
    )
        .prop_map(|(name, input, description, output, annotations, vendor)| {
            let mut tool = Map::new();
            tool.insert("name".into(), Value::String(name));
            tool.insert("inputSchema".into(), input);
            if let Some(d) = description {
                tool.insert("description".into(), Value::String(d));
            }
            if let Some(o) = output {
                tool.insert("outputSchema".into(), o);
            }
            if let Some((destructive, read_only, title)) = annotations {
                let mut a = Map::new();
                if let Some(d) = destructive {
                    a.insert("destructiveHint".into(), d);
                }
                if let Some(r) = read_only {
                    a.insert("readOnlyHint".into(), Value::Bool(r));
                }
                if let Some(t) = title {
                    a.insert("title".into(), Value::String(t));
                }
                tool.insert("annotations".into(), Value::Object(a));
            }
            if let Some(v) = vendor {
                tool.insert("x-vendor".into(), v);
            }
            Value::Object(tool)
        })
        .boxed()
}

/// A `tools/list`: 1 to 4 descriptors, mostly with distinct names (a repeated raw name is
/// rejected before generation; colliding framework names such as `a/b` and `a_b` stay).
pub fn tools() -> BoxedStrategy<Vec<Value>> {
    (prop::collection::vec(tool(), 1..5), any::<bool>())
        .prop_map(|(tools, keep_duplicates)| {
            if keep_duplicates {
                return tools;
            }
            let mut seen = std::collections::BTreeSet::new();
            tools
                .into_iter()
                .filter(|t| seen.insert(t["name"].to_string()))
                .collect()
        })
        .boxed()
}

/// URIs of resources and links: `http(s)`, `file:` with drive letters, `data:`, relative,
/// invalid escapes, IPv6 hosts, IDNs, dot segments.
const URIS: &[&str] = &[
    "https://example.com/a/b.png",
    "http://x/",
    "https://example.com/a/../b/",
    "https://example.com/dir/",
    "file:///C:/x",
    "file:///c|",
    "https://example.com/c:",
    "data:text/plain;base64,AAAA",
    "",
    "not a uri",
    "https://例え.jp/%zz",
    "http://[::1]/a?b#c",
    "ftp://x/y",
    "HTTPS://EXAMPLE.COM/X.TXT",
    "https://example.com/%2F",
    "https://",
];

/// MIME types: bare, wildcard, with parameters, empty, upper-case, malformed.
const MIMES: &[&str] = &[
    "image/png",
    "image/*",
    "text/plain; charset=utf-8",
    "",
    "IMAGE/PNG",
    "a/b/c",
    "application/octet-stream",
    "image/png ",
    "image",
    "/",
];

/// A string from `pool` or [`text`].
fn pooled(pool: &'static [&'static str]) -> BoxedStrategy<String> {
    prop_oneof![3 => select(pool).prop_map(str::to_owned), 1 => text()].boxed()
}

/// A JSON value, or absent (`None`).
fn maybe<T: std::fmt::Debug + Clone + 'static>(
    s: impl Strategy<Value = T> + 'static,
) -> BoxedStrategy<Option<T>> {
    prop::option::of(s).boxed()
}

/// Inserts `key` into `object` when `value` is present.
fn put(object: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    if let Some(value) = value {
        object.insert(key.to_owned(), value);
    }
}

/// One content block of a `tools/call` result: text, image, audio, embedded resource (text or
/// blob), resource link, unknown types, and non-objects.
fn content_block() -> BoxedStrategy<Value> {
    let string = |s: BoxedStrategy<String>| s.prop_map(Value::String);
    prop_oneof![
        4 => text().prop_map(|t| json!({"type": "text", "text": t})),
        1 => json().prop_map(|t| json!({"type": "text", "text": t})),
        2 => (select(vec!["image", "audio"]), maybe(string(text())), maybe(string(pooled(MIMES))))
            .prop_map(|(ty, data, mime)| {
                let mut b = Map::new();
                b.insert("type".into(), json!(ty));
                put(&mut b, "data", data);
                put(&mut b, "mimeType", mime);
                Value::Object(b)
            }),
        2 => (
            maybe(string(pooled(URIS))),
            maybe(string(text())),
            maybe(string(text())),
            maybe(string(pooled(MIMES))),
            maybe(string(name())),
        )
            .prop_map(|(uri, text, blob, mime, name)| {
                let mut r = Map::new();
                put(&mut r, "uri", uri);
                put(&mut r, "text", text);
                put(&mut r, "blob", blob);
                put(&mut r, "mimeType", mime);
                put(&mut r, "name", name);
                json!({"type": "resource", "resource": Value::Object(r)})
            }),
        2 => (
            maybe(string(pooled(URIS))),
            maybe(string(name())),
            maybe(string(pooled(MIMES))),
            maybe(json()),
        )
            .prop_map(|(uri, name, mime, extra)| {
                let mut b = Map::new();
                b.insert("type".into(), json!("resource_link"));
                put(&mut b, "uri", uri);
                put(&mut b, "name", name);
                put(&mut b, "mimeType", mime);
                put(&mut b, "annotations", extra);
                Value::Object(b)
            }),
        1 => (json(), json()).prop_map(|(ty, extra)| json!({"type": ty, "extra": extra})),
        1 => json(),
    ]
    .boxed()
}

/// A raw `tools/call` result: mostly an object with `content`, `isError`,
/// `structuredContent` and the legacy `toolResult` (each optional, each also of a wrong
/// type now and then), sometimes any JSON.
pub fn call_result() -> BoxedStrategy<Value> {
    prop_oneof![
        6 => (
            prop_oneof![
                5 => prop::collection::vec(content_block(), 0..5).prop_map(Value::Array),
                1 => json(),
            ],
            prop::option::of(prop_oneof![4 => any::<bool>().prop_map(Value::Bool), 1 => scalar()]),
            prop::option::of(json()),
            prop::option::of(json()),
            any::<bool>(),
        )
            .prop_map(|(content, is_error, structured, legacy, has_content)| {
                let mut r = Map::new();
                if has_content {
                    r.insert("content".into(), content);
                }
                put(&mut r, "isError", is_error);
                put(&mut r, "structuredContent", structured);
                // The legacy form is rare in practice; keep it rarer than the rest.
                if legacy.as_ref().is_some_and(|l| l.is_array()) {
                    put(&mut r, "toolResult", legacy);
                }
                Value::Object(r)
            }),
        1 => json(),
    ]
    .boxed()
}

/// One piece of a server's stdout: a JSON-RPC message line, arbitrary bytes, line endings,
/// a byte order mark, invalid UTF-8, a line with a long payload (or a long run of one byte),
/// JSON nested past `serde_json`'s depth limit.
fn stdout_piece() -> BoxedStrategy<Vec<u8>> {
    prop_oneof![
        4 => (json(), select(vec!["result", "error", "method", "id"]), json()).prop_map(
            |(id, key, value)| {
                let mut m = Map::new();
                m.insert("jsonrpc".into(), json!("2.0"));
                m.insert("id".into(), id);
                m.insert(key.into(), value);
                let mut line = Value::Object(m).to_string().into_bytes();
                line.push(b'\n');
                line
            }
        ),
        2 => prop::collection::vec(any::<u8>(), 0..48),
        2 => select(vec![&b"\n"[..], b"\r\n", b"\r", b"\xef\xbb\xbf", b"\xff\xfe", b"\xc3", b"\xed\xa0\x80", b" \t\n", b"{}"])
            .prop_map(<[u8]>::to_vec),
        1 => (0usize..9000, any::<u8>(), any::<bool>(), edge_number()).prop_map(|(len, byte, json, id)| {
            if json {
                let mut line = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":\"").into_bytes();
                line.extend(std::iter::repeat_n(b'a', len));
                line.extend_from_slice(b"\"}\n");
                line
            } else {
                vec![byte; len]
            }
        }),
        1 => (100usize..200).prop_map(|depth| {
            let mut line = "[".repeat(depth).into_bytes();
            line.extend("]".repeat(depth).into_bytes());
            line.push(b'\n');
            line
        }),
    ]
    .boxed()
}

/// A server's stdout: the concatenation of up to 8 pieces (the last often without a
/// newline, a partial line at end of stream).
pub fn stdout_bytes() -> BoxedStrategy<Vec<u8>> {
    prop::collection::vec(stdout_piece(), 0..8)
        .prop_map(|pieces| pieces.concat())
        .boxed()
}

/// One line of an SSE body: a field the transport reads (`data`, `event`, `id`, `retry`), with
/// or without the space after the colon, a comment, a field it ignores, a line without a
/// colon, a blank line that ends an event, or raw bytes (invalid UTF-8, a BOM, NUL); each
/// ended by LF, CRLF or a lone CR (the three line ends of the WHATWG event stream format), or
/// by nothing (the body ends mid-line).
fn sse_line() -> BoxedStrategy<Vec<u8>> {
    let value = prop_oneof![
        Just(String::new()),
        Just("{}".to_owned()),
        Just(" {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}".to_owned()),
        Just("ping".to_owned()),
        "[ -~]{0,40}",
        "\\PC{0,12}",
        "[0-9]{1,6}",
    ];
    let field = prop_oneof![
        Just("data"),
        Just("data"),
        Just("event"),
        Just("id"),
        Just("retry"),
        Just(""),
        Just("unknown"),
    ];
    let line = prop_oneof![
        4 => (field, prop_oneof![Just(":"), Just(": ")], value.clone())
            .prop_map(|(f, sep, v)| format!("{f}{sep}{v}").into_bytes()),
        1 => value.prop_map(String::into_bytes),
        2 => Just(Vec::new()),
        1 => prop::collection::vec(any::<u8>(), 0..8),
        1 => Just("\u{feff}data: bom".as_bytes().to_vec()),
    ];
    let end = prop_oneof![
        4 => Just(&b"\n"[..]),
        1 => Just(&b"\r\n"[..]),
        1 => Just(&b"\r"[..]),
        1 => Just(&b""[..]),
    ];
    (line, end)
        .prop_map(|(mut line, end)| {
            line.extend_from_slice(end);
            line
        })
        .boxed()
}

/// An SSE response body: a few dozen [`sse_line`]s.
pub fn sse_body() -> BoxedStrategy<Vec<u8>> {
    prop::collection::vec(sse_line(), 0..40)
        .prop_map(|lines| lines.concat())
        .boxed()
}

/// TOML keys of a manifest server table, each with generators of right- and wrong-typed
/// values.
const SERVER_KEYS: &[&str] = &[
    "command",
    "args",
    "cwd",
    "env",
    "pass-env",
    "prefix",
    "snapshot",
    "consequential",
    "not-consequential",
    "consequential-annotations",
    "schemars",
    "request-timeout-ms",
    "max-message-bytes",
    "client-name",
    "client-version",
    "url",
    "headers",
    "bearer-env",
    "header-env",
    "unknown-key",
];

/// A TOML value as text: strings (basic and literal, with escapes), integers at and past
/// the limits, floats, booleans, dates, arrays, inline tables, and broken syntax.
fn toml_value() -> BoxedStrategy<String> {
    let string = text().prop_map(|s| {
        // A TOML basic string: escape what needs escaping (as `{:?}` mostly does, but TOML
        // has no `\u{…}` form, so control characters use `\uXXXX`).
        let mut out = String::from("\"");
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('"');
        out
    });
    let scalar = prop_oneof![
        3 => string.clone(),
        1 => select(vec!["'literal'", "'''multi\nline'''", "\"\"", "\"a\\qb\"", "\"\\uD800\""]).prop_map(str::to_owned),
        2 => select(vec!["0", "1", "-1", "1023", "1024", "9223372036854775807", "-9223372036854775808",
            "9223372036854775808", "18446744073709551615", "0x10", "1_000", "1.5", "inf", "nan", "-0.0",
            "1e400", "true", "false", "1979-05-27T07:32:00Z", "07:32:00"]).prop_map(str::to_owned),
        1 => select(vec!["\"trust\"", "\"ignore\"", "\"Trust\"", "[", "{", "\"unterminated"]).prop_map(str::to_owned),
        1 => select(vec!["\"https://h.example/mcp?key=v\"", "\"http://u:p@127.0.0.1:1/\"", "\"ftp://h/\"",
            "{ Authorization = \"x\" }", "{ \"X-A\" = \"a\\r\\nb\" }", "{ \"x-a\" = \"V\", \"X-A\" = \"W\" }"]).prop_map(str::to_owned),
    ];
    scalar
        .prop_recursive(2, 8, 3, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..3)
                    .prop_map(|v| format!("[{}]", v.join(", "))),
                prop::collection::vec((select(vec!["A", "B", "a=b", "", "PATH"]), inner), 0..3)
                    .prop_map(|v| {
                        let members: Vec<String> =
                            v.iter().map(|(k, v)| format!("{k:?} = {v}")).collect();
                        format!("{{ {} }}", members.join(", "))
                    }),
            ]
        })
        .boxed()
}

/// Manifest text: `[servers.<name>]` tables with keys of right and wrong types, sometimes
/// arbitrary text or bytes decoded as text.
pub fn manifest_text() -> BoxedStrategy<String> {
    let server = (
        name(),
        prop::collection::vec((select(SERVER_KEYS), toml_value()), 0..7),
        0..3u8,
    )
        .prop_map(|(name, keys, kind)| {
            let mut out = format!("[servers.{name:?}]\n");
            match kind {
                0 => out.push_str("command = \"node\"\n"),
                1 => out.push_str("url = \"https://h.example/mcp\"\n"),
                _ => {}
            }
            for (key, value) in keys {
                out.push_str(&format!("{key} = {value}\n"));
            }
            out
        });
    prop_oneof![
        6 => prop::collection::vec(server, 0..3).prop_map(|s| s.concat()),
        1 => "\\PC{0,60}",
        1 => prop::collection::vec(any::<u8>(), 0..60)
            .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        1 => select(vec!["servers = 1", "[servers]\nx = 1", "[[servers]]", "servers = {}",
            "[servers.a]\ncommand = \"\"", "[servers.a]\ncommand = \"x\"\nenv = { \"\" = \"v\" }"])
            .prop_map(str::to_owned),
    ]
    .boxed()
}
