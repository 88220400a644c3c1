//! Property test of stable generated names: for any two tool lists A and B of one server, a
//! Rust name that the code generated from A and the code generated from B both contain refers
//! to the same MCP tool (or, for fields and the types nested for them, the same property) in
//! both, and the names of a tool whose rivals did not change stay the same whatever else is
//! added or removed.
//!
//! Tool lists are random subsets of an alphabet of names built to meet after conversion
//! (`search-a`, `search_a`, `SearchA`, `search a`, `some`, `foo`, `foo_args`, `foo-output`,
//! …), each with a random schema; the generated code is parsed with `syn` and the maps
//! read from it: marker type → `McpTool::MCP_NAME`, every type → the tool whose items it is
//! among, field → JSON name (`#[serde(rename)]` or the field itself), nested type → the
//! property whose field holds it.

// Test code: a failed unwrap is a test failure with its message.
#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet};

use oma_mcp_build::codegen::{GenerateOptions, generate};
use oma_mcp_runtime::Snapshot;
use proptest::prelude::*;
use serde_json::{Value, json};

/// Tool names, each with its family: names of one family may meet, names of different
/// families never do (whatever their schemas).
const TOOLS: &[(&str, &str)] = &[
    ("search-a", "search"),
    ("search_a", "search"),
    ("SearchA", "search"),
    ("search a", "search"),
    ("search.a", "search"),
    ("some", "some"),
    ("Some", "some"),
    ("none", "none"),
    ("foo", "foo"),
    ("foo_args", "foo"),
    ("foo-output", "foo"),
    ("foo_args_bar", "foo"),
    ("FooArgsBar", "foo"),
    ("x", "x"),
    ("y", "y"),
];

/// Property names of one object, each with its family, as for [`TOOLS`].
const PROPERTIES: &[(&str, &str)] = &[
    ("fooBar", "foo_bar"),
    ("foo_bar", "foo_bar"),
    ("foo-bar", "foo_bar"),
    ("FOO_BAR", "foo_bar"),
    ("query", "query"),
    ("additionalProperties", "extra"),
    ("additional_properties", "extra"),
    ("type", "type"),
    ("TYPE", "type"),
];

/// A tool's input schema by number: no properties, a property `bar` with an object (a
/// nested type `<Tool>ArgsBar`), a string enum property `bar` and an output schema.
fn tool_descriptor(name: &str, schema: u8) -> Value {
    match schema % 3 {
        0 => json!({"name": name, "inputSchema": {"type": "object"}}),
        1 => json!({"name": name, "inputSchema": {"type": "object", "properties": {
            "bar": {"type": "object", "properties": {"z": {"type": "string"}}}
        }}}),
        _ => json!({"name": name,
            "inputSchema": {"type": "object", "properties": {
                "bar": {"type": "string", "enum": ["p", "q"]}
            }},
            "outputSchema": {"type": "object", "properties": {"r": {"type": "string"}}}
        }),
    }
}

/// Every type of the generated code: name → the MCP name of the tool whose items hold it;
/// and marker type → MCP name.
struct Parsed {
    owner: BTreeMap<String, String>,
    markers: BTreeMap<String, String>,
    /// Per struct, field → JSON name.
    fields: BTreeMap<String, BTreeMap<String, String>>,
    /// Per struct, field → the named type in its type (the last path segment's ident of the
    /// innermost generic argument), when it is one of the generated types.
    field_types: BTreeMap<String, BTreeMap<String, String>>,
}

fn ident_of(ty: &syn::Type) -> Option<String> {
    let syn::Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    if let syn::PathArguments::AngleBracketed(args) = &last.arguments {
        for arg in &args.args {
            if let syn::GenericArgument::Type(inner) = arg {
                return ident_of(inner);
            }
        }
    }
    Some(last.ident.to_string())
}

fn json_name(field: &syn::Field) -> String {
    let mut name = field.ident.as_ref().unwrap().to_string();
    name = name.trim_start_matches("r#").to_owned();
    for attr in &field.attrs {
        if !attr.path().is_ident("serde") {
            continue;
        }
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                let lit: syn::LitStr = meta.value()?.parse()?;
                name = lit.value();
            } else if meta.path.is_ident("flatten") {
                // The typed `additionalProperties` map: no property of its own.
                name = "(flatten)".to_owned();
            } else if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            }
            Ok(())
        })
        .unwrap();
    }
    name
}

fn parse(code: &str) -> Parsed {
    let file = syn::parse_file(code).unwrap();
    let mut markers = BTreeMap::new();
    for item in &file.items {
        if let syn::Item::Impl(imp) = item
            && let Some((path, _)) = &imp.trait_
            && path.segments.last().unwrap().ident == "McpTool"
        {
            let marker = ident_of(&imp.self_ty).unwrap();
            for impl_item in &imp.items {
                if let syn::ImplItem::Const(c) = impl_item
                    && c.ident == "MCP_NAME"
                    && let syn::Expr::Lit(lit) = &c.expr
                    && let syn::Lit::Str(s) = &lit.lit
                {
                    markers.insert(marker.clone(), s.value());
                }
            }
        }
    }
    let mut owner = BTreeMap::new();
    let mut fields = BTreeMap::new();
    let mut field_types = BTreeMap::new();
    let mut current = None;
    for item in &file.items {
        let name = match item {
            syn::Item::Struct(s) => {
                if let syn::Fields::Named(named) = &s.fields {
                    let mut json = BTreeMap::new();
                    let mut types = BTreeMap::new();
                    for field in &named.named {
                        let ident = field.ident.as_ref().unwrap().to_string();
                        json.insert(ident.clone(), json_name(field));
                        if let Some(ty) = ident_of(&field.ty) {
                            types.insert(ident, ty);
                        }
                    }
                    fields.insert(s.ident.to_string(), json);
                    field_types.insert(s.ident.to_string(), types);
                }
                s.ident.to_string()
            }
            syn::Item::Enum(e) => e.ident.to_string(),
            syn::Item::Type(t) => t.ident.to_string(),
            _ => continue,
        };
        if let Some(mcp) = markers.get(&name) {
            current = Some(mcp.clone());
        }
        let tool = current.clone().expect("a type before the first marker");
        assert!(
            owner.insert(name.clone(), tool).is_none(),
            "{name} defined twice"
        );
    }
    Parsed {
        owner,
        markers,
        fields,
        field_types,
    }
}

fn generated(tools: &[Value]) -> Parsed {
    let snapshot = Snapshot::from_descriptors(None, None, None, tools.to_vec()).unwrap();
    parse(
        &generate(&snapshot, &GenerateOptions::default())
            .unwrap()
            .code,
    )
}

/// The tools of `present` (indexes into [`TOOLS`]) with their schemas.
fn tool_list(present: &BTreeSet<usize>, schemas: &[u8]) -> Vec<Value> {
    present
        .iter()
        .map(|&i| tool_descriptor(TOOLS[i].0, schemas[i]))
        .collect()
}

/// The family members present, for "did this tool's rivals change".
fn family(present: &BTreeSet<usize>, of: &str, alphabet: &[(&str, &str)]) -> BTreeSet<usize> {
    present
        .iter()
        .copied()
        .filter(|&i| alphabet[i].1 == of)
        .collect()
}

fn subset(n: usize) -> impl Strategy<Value = BTreeSet<usize>> {
    proptest::collection::btree_set(0..n, 0..=n)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Tools: a type name in both A and B belongs to the same tool when that tool is in
    /// both; a marker never passes between tools that are both present; a tool whose family
    /// is the same in A and B keeps its marker.
    #[test]
    fn tool_names_never_move_to_another_tool(
        a in subset(TOOLS.len()),
        b in subset(TOOLS.len()),
        schemas in proptest::collection::vec(any::<u8>(), TOOLS.len()),
    ) {
        let (pa, pb) = (generated(&tool_list(&a, &schemas)), generated(&tool_list(&b, &schemas)));
        let in_b: BTreeSet<&str> = b.iter().map(|&i| TOOLS[i].0).collect();
        for (name, tool_a) in &pa.owner {
            if let Some(tool_b) = pb.owner.get(name)
                && in_b.contains(tool_a.as_str())
            {
                prop_assert_eq!(tool_a, tool_b, "type {} moved", name);
            }
        }
        let marker_of = |p: &Parsed, tool: &str| {
            p.markers.iter().find(|(_, t)| *t == tool).map(|(m, _)| m.clone())
        };
        for &i in a.intersection(&b) {
            let (tool, fam) = TOOLS[i];
            if family(&a, fam, TOOLS) == family(&b, fam, TOOLS) {
                prop_assert_eq!(marker_of(&pa, tool), marker_of(&pb, tool), "{} renamed", tool);
            }
        }
    }

    /// Fields of one object, and the types nested for them: a field (or nested type) in both
    /// A and B stands for the same property when that property is in both; a property whose
    /// family is the same in A and B keeps its field.
    #[test]
    fn field_names_never_move_to_another_property(
        a in subset(PROPERTIES.len()),
        b in subset(PROPERTIES.len()),
        objects in proptest::collection::vec(any::<bool>(), PROPERTIES.len()),
        extra_a in any::<bool>(),
        extra_b in any::<bool>(),
    ) {
        let tool = |present: &BTreeSet<usize>, extra: bool| {
            let properties: serde_json::Map<String, Value> = present
                .iter()
                .map(|&i| {
                    let schema = if objects[i] {
                        json!({"type": "object", "properties": {"v": {"type": "string"}}})
                    } else {
                        json!({"type": "string"})
                    };
                    (PROPERTIES[i].0.to_owned(), schema)
                })
                .collect();
            let mut schema = json!({"type": "object", "properties": properties});
            if extra {
                schema["additionalProperties"] = json!({"type": "integer"});
            }
            json!({"name": "obj", "inputSchema": schema})
        };
        let (pa, pb) = (generated(&[tool(&a, extra_a)]), generated(&[tool(&b, extra_b)]));
        let (fa, fb) = (&pa.fields["ObjArgs"], &pb.fields["ObjArgs"]);
        let in_b: BTreeSet<&str> = b.iter().map(|&i| PROPERTIES[i].0).collect();
        // The typed map's field (`(flatten)`) counts as a property of its own.
        for (field, json_a) in fa {
            if let Some(json_b) = fb.get(field)
                && (in_b.contains(json_a.as_str()) || json_a == "(flatten)")
            {
                prop_assert_eq!(json_a, json_b, "field {} moved", field);
            }
        }
        let nested = |p: &Parsed| -> BTreeMap<String, String> {
            p.field_types["ObjArgs"]
                .iter()
                .filter(|(_, ty)| p.owner.contains_key(*ty))
                .map(|(field, ty)| (ty.clone(), p.fields["ObjArgs"][field].clone()))
                .collect()
        };
        let (na, nb) = (nested(&pa), nested(&pb));
        for (ty, json_a) in &na {
            if let Some(json_b) = nb.get(ty)
                && in_b.contains(json_a.as_str())
            {
                prop_assert_eq!(json_a, json_b, "type {} moved", ty);
            }
        }
        let field_of = |fields: &BTreeMap<String, String>, json: &str| {
            fields.iter().find(|(_, j)| *j == json).map(|(f, _)| f.clone())
        };
        for &i in a.intersection(&b) {
            let (property, fam) = PROPERTIES[i];
            if family(&a, fam, PROPERTIES) == family(&b, fam, PROPERTIES) {
                prop_assert_eq!(field_of(fa, property), field_of(fb, property), "{} renamed", property);
            }
        }
    }
}

/// The parsing above reads what it should: markers, owners, fields and nested types.
#[test]
fn the_maps_read_from_generated_code() {
    let parsed = generated(&[
        tool_descriptor("search-a", 1),
        tool_descriptor("search_a", 0),
        tool_descriptor("x", 2),
    ]);
    assert_eq!(
        parsed.markers,
        BTreeMap::from([
            ("SearchA_h1dc0eb1b".to_owned(), "search-a".to_owned()),
            ("SearchA_hc2a3138c".to_owned(), "search_a".to_owned()),
            ("X".to_owned(), "x".to_owned()),
        ])
    );
    assert_eq!(parsed.owner["SearchA_h1dc0eb1bArgsBar"], "search-a");
    assert_eq!(parsed.owner["XOutput"], "x");
    assert_eq!(parsed.owner["XArgsBar"], "x");
    assert_eq!(parsed.fields["XArgs"]["bar"], "bar");
    assert_eq!(parsed.field_types["XArgs"]["bar"], "XArgsBar");
}
