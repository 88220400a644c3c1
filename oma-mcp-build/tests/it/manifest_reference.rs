//! The guide's manifest reference, `docs/guide/src/manifest-reference.md`, is the manifest's
//! JSON Schema (`oma_mcp_build::manifest::json_schema()`, what `oma-mcp schema manifest`
//! prints) rendered as Markdown: one table per TOML table of `oma-mcp.toml`, a row per key with
//! its type, its default and its description, all taken from the schema (`type`, `enum`,
//! `const`, `default`, `required`, `minimum`, `minLength`, `minItems`, `description`). The
//! descriptions are the doc comments of the manifest's types (`src/manifest.rs`,
//! `src/manifest/*.rs`), so the reference cannot drift from the parser.
//!
//! After a change to those types, regenerate the file and review the diff:
//!
//! ```text
//! OMA_MCP_BLESS=1 cargo test -p oma-mcp-build --all-features --test it manifest_reference
//! git diff docs/guide/src/manifest-reference.md
//! ```
//!
//! Without `OMA_MCP_BLESS` the comparison is strict and never writes.

#![cfg(feature = "json-schema")]

use std::fmt::Write as _;
use std::path::PathBuf;

use serde_json::{Map, Value};

/// The committed reference.
fn reference_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/guide/src/manifest-reference.md")
}

/// One TOML table of the manifest: its heading (`[servers.<name>]`) and its schema.
struct Table<'a> {
    heading: String,
    schema: &'a Map<String, Value>,
}

/// Renders the manifest's JSON Schema as the reference's Markdown.
fn render(schema: &Value) -> String {
    let root = schema.as_object().expect("the schema is an object");
    let mut tables = vec![Table {
        heading: "The file".to_owned(),
        schema: root,
    }];
    // Tables in the order their keys appear, each after the table that holds it.
    let mut i = 0;
    let mut paths = vec![String::new()];
    while i < tables.len() {
        let path = paths[i].clone();
        for (key, property) in properties(tables[i].schema) {
            let child = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            if let Some((object, array)) = object_of(property, schema) {
                let (heading, child) = if key == "servers" && path.is_empty() {
                    ("[servers.<name>]".to_owned(), "servers.<name>".to_owned())
                } else if array {
                    (format!("[[{child}]]"), child)
                } else {
                    (format!("[{child}]"), child)
                };
                tables.push(Table {
                    heading: format!("`{heading}`"),
                    schema: object,
                });
                paths.push(child);
            }
        }
        i += 1;
    }

    let mut out = String::new();
    out.push_str(
        "<!-- Generated from the manifest's JSON Schema (`oma-mcp schema manifest`) by \
         oma-mcp-build's test\n     `manifest_reference`: do not edit. After a change to the \
         doc comments of the manifest's types\n     (oma-mcp-build/src/manifest.rs, \
         src/manifest/*.rs), run\n     OMA_MCP_BLESS=1 cargo test -p oma-mcp-build \
         --all-features --test it manifest_reference -->\n\n",
    );
    out.push_str("# Manifest reference\n\n");
    let _ = writeln!(out, "{}\n", one_line(&description(root)));
    out.push_str(
        "Every key of every table, as the manifest's JSON Schema (`oma-mcp schema manifest`) \
         gives it: the type, the default, and the description. A default of — means the \
         schema gives none: an absent key then means what its description says. Keys are \
         written in kebab-case; an unknown key is an error. [The manifest](manifest.md) \
         shows how the keys fit together.\n",
    );
    for table in &tables {
        let _ = write!(out, "\n## {}\n\n", table.heading);
        let text = one_line(&description(table.schema));
        if !text.is_empty() && !std::ptr::eq(table.schema, root) {
            let _ = writeln!(out, "{text}\n");
        }
        out.push_str("| key | type | default | description |\n|---|---|---|---|\n");
        let required: Vec<&str> = table
            .schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (key, property) in properties(table.schema) {
            let default = if required.contains(&key.as_str()) {
                "required".to_owned()
            } else {
                match property.get("default") {
                    None | Some(Value::Null) => "—".to_owned(),
                    Some(value) => format!("`{value}`"),
                }
            };
            let _ = writeln!(
                out,
                "| `{key}` | {} | {default} | {} |",
                type_of(property, schema, &tables),
                cell(&key_description(property, schema)),
            );
        }
    }
    out
}

/// The `properties` of an object schema, in the schema's order.
fn properties(schema: &Map<String, Value>) -> Vec<(&String, &Value)> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.iter().collect())
        .unwrap_or_default()
}

/// `schema` with a local `$ref` followed.
fn resolve<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => root
            .pointer(reference.trim_start_matches('#'))
            .unwrap_or_else(|| panic!("`$ref` {reference} points to nothing")),
        None => schema,
    }
}

/// A nullable schema (`anyOf: [X, {"type": "null"}]`) as X; any other as it is.
fn non_null(schema: &Value) -> &Value {
    match schema.get("anyOf").and_then(Value::as_array) {
        Some(branches) => {
            let rest: Vec<&Value> = branches.iter().filter(|b| b["type"] != "null").collect();
            match rest.as_slice() {
                [one] => one,
                _ => schema,
            }
        }
        None => schema,
    }
}

/// The object schema of a key that is a TOML table of its own (a `$ref` to an object, or a
/// map or array of them), and whether it is an array of tables.
fn object_of<'a>(property: &'a Value, root: &'a Value) -> Option<(&'a Map<String, Value>, bool)> {
    let property = non_null(property);
    let (inner, array) = if let Some(items) = property.get("items") {
        (items, true)
    } else if let Some(values @ Value::Object(_)) = property.get("additionalProperties") {
        (values, false)
    } else {
        (property, false)
    };
    inner.get("$ref")?;
    let target = resolve(inner, root).as_object()?;
    (target.get("type").and_then(Value::as_str) == Some("object")).then_some((target, array))
}

/// The values of an enum schema (`oneOf` of `const`s, or `enum`), each with its description.
fn enum_values(schema: &Value) -> Option<Vec<(String, String)>> {
    if let Some(Value::Array(values)) = schema.get("enum") {
        return Some(
            values
                .iter()
                .map(|v| (v.to_string(), String::new()))
                .collect(),
        );
    }
    let branches = schema.get("oneOf")?.as_array()?;
    branches
        .iter()
        .map(|b| Some((b.get("const")?.to_string(), description_of(b))))
        .collect()
}

/// The type column: `string`, `integer ≥ 1`, `array of strings`, a table's link, an enum's
/// values.
fn type_of(property: &Value, root: &Value, tables: &[Table<'_>]) -> String {
    let property = non_null(property);
    let target = resolve(property, root);
    if let Some(values) = enum_values(target) {
        return values
            .iter()
            .map(|(v, _)| format!("`{v}`"))
            .collect::<Vec<_>>()
            .join(" \\| ");
    }
    if property.get("$ref").is_some()
        && let Some(object) = target.as_object()
        && let Some(table) = tables.iter().find(|t| std::ptr::eq(t.schema, object))
    {
        return format!(
            "table ([below](#{}))",
            oma_mcp_test_support::heading_anchor(&table.heading)
        );
    }
    let types: Vec<&str> = match target.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| *t != "null")
            .collect(),
        _ => Vec::new(),
    };
    match types.as_slice() {
        ["string"] => match target.get("minLength").and_then(Value::as_u64) {
            Some(1) => "non-empty string".to_owned(),
            Some(n) => format!("string of at least {n} characters"),
            None => "string".to_owned(),
        },
        ["integer"] => match target.get("minimum").and_then(Value::as_u64) {
            Some(min) => format!("integer ≥ {min}"),
            None => "integer".to_owned(),
        },
        ["boolean"] => "boolean".to_owned(),
        ["array"] => {
            let items = target.get("items").map_or_else(
                || "values".to_owned(),
                |i| plural(&type_of(i, root, tables)),
            );
            match target.get("minItems").and_then(Value::as_u64) {
                Some(n) if n > 0 => format!("non-empty array of {items}"),
                _ => format!("array of {items}"),
            }
        }
        ["object"] => match target.get("additionalProperties") {
            Some(values @ Value::Object(_)) => {
                format!("table of {}", plural(&type_of(values, root, tables)))
            }
            _ => "table".to_owned(),
        },
        _ => panic!("a manifest key of a type this reference does not render: {target}"),
    }
}

/// `string` → `strings`; a table's link or an enum's values as they are.
fn plural(ty: &str) -> String {
    match ty {
        "string" | "integer" | "boolean" => format!("{ty}s"),
        other if other.starts_with("table (") => format!("tables {}", &other["table ".len()..]),
        other => other.to_owned(),
    }
}

/// The description column: the key's description, else its type's, then an enum's values with
/// theirs.
fn key_description(property: &Value, root: &Value) -> String {
    let target = resolve(non_null(property), root);
    let mut text = description_of(property);
    if text.is_empty() && !std::ptr::eq(target, property) && enum_values(target).is_none() {
        text = description_of(target);
    }
    if let Some(values) = enum_values(target) {
        let listed: Vec<String> = values
            .iter()
            .filter(|(_, d)| !d.is_empty())
            .map(|(v, d)| format!("`{v}`: {}", lower_first(d.trim_end_matches('.'))))
            .collect();
        if !listed.is_empty() {
            text = format!("{} Values: {}.", text.trim_end(), listed.join("; "));
        }
    }
    assert!(
        !text.trim().is_empty(),
        "a manifest key without a description: {property}"
    );
    text
}

/// `text` with its first letter in lower case (a sentence continued after a colon), unless the
/// first word is an acronym.
fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(first), Some(second)) if first.is_uppercase() && !second.is_uppercase() => first
            .to_lowercase()
            .chain(text[first.len_utf8()..].chars())
            .collect(),
        _ => text.to_owned(),
    }
}

fn description_of(schema: &Value) -> String {
    schema
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned()
}

fn description(schema: &Map<String, Value>) -> String {
    schema
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned()
}

/// A description on one line (doc comments wrap theirs).
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A description as a table cell: one line, `|` escaped.
fn cell(text: &str) -> String {
    one_line(text).replace('|', "\\|")
}

/// The committed reference is the one rendered from the schema (or is written with
/// `OMA_MCP_BLESS`).
#[test]
fn the_manifest_reference_is_rendered_from_the_json_schema() {
    let rendered = render(&oma_mcp_build::manifest::json_schema());
    let path = reference_path();
    if std::env::var_os("OMA_MCP_BLESS").is_some() {
        std::fs::write(&path, &rendered).unwrap();
        eprintln!("wrote {}", path.display());
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        rendered == committed,
        "{} is not the reference rendered from the manifest's JSON Schema; if the change is \
         intended, run `OMA_MCP_BLESS=1 cargo test -p oma-mcp-build --all-features --test it \
         manifest_reference` and review the diff.\n--- rendered ---\n{rendered}",
        path.display()
    );
}

/// Every key of the manifest is in the reference, with a description.
#[test]
fn the_reference_has_every_key() {
    let rendered = render(&oma_mcp_build::manifest::json_schema());
    for key in [
        "`command`",
        "`url`",
        "`pass-env`",
        "`bearer-env`",
        "`request-timeout-ms`",
        "`lifecycle`",
        "`client-secret-env`",
        "`reason`",
        "`registry-type`",
        "`[servers.<name>.oauth]`",
        "`[[servers.<name>.accept]]`",
        "`[servers.<name>.registry]`",
    ] {
        assert!(rendered.contains(key), "{key} is not in the reference");
    }
}
