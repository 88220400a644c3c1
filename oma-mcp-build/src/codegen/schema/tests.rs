//! Unit tests of the schema → type model mapping (the model is plain data).

use serde_json::{Value, json};

use super::*;
use crate::codegen::identifiers::RustIdent;

fn types(schema: Value) -> (Vec<TypeDef>, Vec<Warning>) {
    let mut ns = Namespace::new();
    let mut warnings = Vec::new();
    let defs = input_types("t", "TArgs", Some(&schema), &mut ns, &mut warnings);
    (defs, warnings)
}

fn fields(schema: Value) -> Vec<Field> {
    match types(schema).0.into_iter().next() {
        Some(TypeDef::Struct(s)) => s.fields,
        other => panic!("not a struct: {other:?}"),
    }
}

fn field_type(prop: Value) -> (RustType, Vec<String>) {
    let f = fields(json!({"type": "object", "properties": {"p": prop}, "required": ["p"]}));
    (f[0].ty.clone(), f[0].notes.clone())
}

fn opt(t: RustType) -> RustType {
    RustType::Option(Box::new(t))
}

fn vec(t: RustType) -> RustType {
    RustType::Vec(Box::new(t))
}

#[test]
fn primitives_and_arrays() {
    assert_eq!(field_type(json!({"type": "string"})).0, RustType::String);
    assert_eq!(field_type(json!({"type": "integer"})).0, RustType::I64);
    assert_eq!(field_type(json!({"type": "number"})).0, RustType::F64);
    assert_eq!(field_type(json!({"type": "boolean"})).0, RustType::Bool);
    assert_eq!(
        field_type(json!({"type": "array", "items": {"type": "string"}})).0,
        vec(RustType::String)
    );
    assert_eq!(
        field_type(json!({"type": "array"})),
        (vec(RustType::Value), vec![])
    );
    assert_eq!(field_type(json!({"type": "object"})).0, RustType::JsonMap);
    assert_eq!(
        field_type(json!({"type": "object", "properties": {}, "additionalProperties": true})).0,
        RustType::JsonMap
    );
}

#[test]
fn required_optional_and_renames() {
    let f = fields(json!({
        "type": "object",
        "properties": {"filePath": {"type": "string", "description": "Where"}, "type": {"type": "string"}},
        "required": ["filePath", "missing"]
    }));
    assert_eq!(
        f,
        vec![
            Field {
                ident: RustIdent::plain("file_path"),
                json_name: "filePath".into(),
                ty: RustType::String,
                required: true,
                description: Some("Where".into()),
                notes: vec![],
                pointer: "/inputSchema/properties/filePath".into(),
            },
            Field {
                ident: RustIdent {
                    name: "type".into(),
                    raw: true
                },
                json_name: "type".into(),
                ty: RustType::String,
                required: false,
                description: None,
                notes: vec![],
                pointer: "/inputSchema/properties/type".into(),
            },
        ]
    );
}

#[test]
fn nullable_forms() {
    assert_eq!(
        field_type(json!({"type": ["string", "null"]})).0,
        opt(RustType::String)
    );
    assert_eq!(
        field_type(json!({"type": ["array", "null"], "items": {"type": "integer"}})).0,
        opt(vec(RustType::I64))
    );
    assert_eq!(
        field_type(json!({"anyOf": [{"type": "string"}, {"type": "null"}], "default": null})).0,
        opt(RustType::String)
    );
    assert_eq!(
        field_type(json!({"oneOf": [{"type": "null"}, {"type": "boolean"}]})).0,
        opt(RustType::Bool)
    );
    assert_eq!(
        field_type(json!({"anyOf": [{"type": "number"}]})).0,
        RustType::F64
    );
}

#[test]
fn permissive_fallbacks_have_notes_and_no_warnings() {
    let cases = [
        (
            json!({"anyOf": [{"type": "string"}, {"type": "string", "format": "uri"}]}),
            "Typed as `serde_json::Value`: the schema is a union (`anyOf` of 2 schemas) whose \
             branches a value's shape does not tell apart.",
        ),
        (
            json!({"description": "x"}),
            "Typed as `serde_json::Value`: the schema has no `type`.",
        ),
        (json!(true), "Any JSON value (the schema is `true`)."),
    ];
    for (schema, note) in cases {
        let (defs, warnings) = types(json!({"properties": {"p": schema}}));
        let TypeDef::Struct(s) = &defs[0] else {
            panic!()
        };
        assert_eq!(s.fields[0].ty, RustType::Value, "{schema}");
        assert_eq!(s.fields[0].notes, vec![note.to_owned()], "{schema}");
        assert_eq!(warnings, vec![], "{schema}");
    }
    let (ty, notes) = field_type(json!({"type": "array", "items": [{"type": "string"}]}));
    assert_eq!(ty, vec(RustType::Value));
    assert_eq!(
        notes,
        ["Items typed as `serde_json::Value`: the array is a tuple whose length is not fixed."]
    );
}

#[test]
fn invalid_subschemas_warn_with_pointers() {
    // Case 28: a property named `type` whose "schema" is the string "object".
    let (defs, warnings) = types(json!({
        "type": "object",
        "properties": {"filePath": {"type": "string"}, "type": "object", "n": {"type": "int"}, "f": false},
        "required": ["filePath"]
    }));
    let TypeDef::Struct(s) = &defs[0] else {
        panic!()
    };
    assert_eq!(s.fields[1].ident.to_string(), "r#type");
    assert_eq!(s.fields[1].ty, RustType::Value);
    assert_eq!(
        warnings.iter().map(ToString::to_string).collect::<Vec<_>>(),
        [
            "tool \"t\" at /inputSchema/properties/type: invalid subschema: expected an object or a boolean, found a string; using serde_json::Value",
            "tool \"t\" at /inputSchema/properties/n/type: unknown type \"int\"; using serde_json::Value",
            "tool \"t\" at /inputSchema/properties/f: the schema is `false`, which accepts no value; using serde_json::Value",
        ]
    );
    let (_, warnings) = types(json!({"properties": {"a~b/c": {"type": 3}}, "required": "a"}));
    assert_eq!(
        warnings.iter().map(ToString::to_string).collect::<Vec<_>>(),
        [
            "tool \"t\" at /inputSchema/required: `required` is a string, not an array of names; ignoring it",
            "tool \"t\" at /inputSchema/properties/a~0b~1c/type: `type` is a number, not a string or an array of strings; using serde_json::Value",
        ]
    );
}

#[test]
fn root_shapes() {
    let empty = |schema: Option<Value>| {
        let mut ns = Namespace::new();
        let mut warnings = Vec::new();
        let defs = input_types("t", "TArgs", schema.as_ref(), &mut ns, &mut warnings);
        (defs, warnings.len())
    };
    let expected = vec![TypeDef::Struct(StructDef::new(
        "TArgs",
        "Arguments of the MCP tool \"t\".",
        vec![],
    ))];
    assert_eq!(empty(None), (expected.clone(), 0));
    assert_eq!(empty(Some(json!({}))), (expected.clone(), 0));
    assert_eq!(
        empty(Some(
            json!({"$schema": "http://json-schema.org/draft-07/schema#"})
        )),
        (expected.clone(), 0)
    );
    assert_eq!(
        empty(Some(json!({"type": "object"}))),
        (expected.clone(), 0)
    );
    assert_eq!(
        empty(Some(json!({"type": "string"}))),
        (expected.clone(), 1)
    );
    assert_eq!(empty(Some(json!([1]))), (expected, 1));
    // Case 24: properties without `type` at the root still count.
    let f = fields(
        json!({"properties": {"description": {"type": "string"}}, "required": ["description"]}),
    );
    assert_eq!(f.len(), 1);
    assert!(f[0].required);
}

#[test]
fn nested_objects_and_enums_are_named_types() {
    let (defs, warnings) = types(json!({
        "type": "object",
        "properties": {
            "filter": {
                "type": "object",
                "description": "Filter",
                "properties": {"state": {"type": "string", "enum": ["open", "closed", "open", "OPEN"]}},
                "required": ["state"]
            },
            "items": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "integer"}}}},
            "level": {"enum": ["a-b", "a_b", "", "1", "self", null]}
        }
    }));
    assert_eq!(warnings, vec![]);
    let names: Vec<&str> = defs.iter().map(TypeDef::name).collect();
    assert_eq!(
        names,
        [
            "TArgs",
            "TArgsFilter",
            "TArgsFilterState",
            "TArgsItemsItem",
            "TArgsLevel"
        ]
    );
    let TypeDef::Struct(args) = &defs[0] else {
        panic!()
    };
    assert_eq!(args.fields[0].ty, RustType::Named("TArgsFilter".into()));
    assert_eq!(
        args.fields[1].ty,
        vec(RustType::Named("TArgsItemsItem".into()))
    );
    assert_eq!(args.fields[2].ty, opt(RustType::Named("TArgsLevel".into())));
    assert!(args.all_optional());
    let TypeDef::Struct(filter) = &defs[1] else {
        panic!()
    };
    assert_eq!(filter.doc, "Filter");
    assert!(!filter.all_optional());
    let variants = |d: &TypeDef| match d {
        TypeDef::Enum(e) => e
            .variants
            .iter()
            .map(|v| (v.ident.clone(), v.value.clone()))
            .collect::<Vec<_>>(),
        _ => panic!(),
    };
    let pairs = |p: &[(&str, &str)]| {
        p.iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        variants(&defs[2]),
        pairs(&[("Open", "open"), ("Closed", "closed"), ("Open2", "OPEN")])
    );
    assert_eq!(
        variants(&defs[4]),
        pairs(&[
            ("AMinusB", "a-b"),
            ("AUnderscoreB", "a_b"),
            ("Empty", ""),
            ("V1", "1"),
            ("Self_", "self")
        ])
    );
}

#[test]
fn enums_that_are_not_string_enums() {
    let (defs, _) = types(json!({"properties": {"e": {"type": "integer", "enum": [1, -1, 1]}}}));
    assert_eq!(
        defs[1],
        TypeDef::Exact(ExactEnumDef {
            name: "TArgsE".into(),
            doc: "A value in the arguments of the MCP tool \"t\".".into(),
            variants: vec![("V1".into(), "1".into()), ("Minus1".into(), "-1".into())],
        })
    );
    let (defs, _) = types(json!({"properties": {"e": {"enum": ["a", 2, null, true]}}}));
    let TypeDef::Exact(e) = &defs[1] else {
        panic!("{defs:?}")
    };
    assert_eq!(
        e.variants,
        [
            ("A".to_owned(), "\"a\"".to_owned()),
            ("V2".to_owned(), "2".to_owned()),
            ("Null".to_owned(), "null".to_owned()),
            ("True".to_owned(), "true".to_owned()),
        ]
    );
    let (defs, warnings) = types(json!({"properties": {"e": {"type": "string", "enum": []}}}));
    assert_eq!(defs.len(), 1);
    assert_eq!(warnings[0].pointer, "/inputSchema/properties/e/enum");
}

#[test]
fn depth_is_capped() {
    let mut schema = json!({"type": "string"});
    for _ in 0..40 {
        schema = json!({"type": "object", "properties": {"a": schema}});
    }
    let (defs, warnings) = types(schema);
    // The argument struct and one struct per allowed level.
    assert_eq!(defs.len(), MAX_DEPTH + 1);
    assert_eq!(warnings.len(), 1);
    assert_eq!(
        warnings[0].message,
        format!("the schema is nested deeper than {MAX_DEPTH} levels; using serde_json::Value")
    );
    assert_eq!(
        warnings[0].pointer,
        format!("/inputSchema{}", "/properties/a".repeat(MAX_DEPTH + 1))
    );
}

#[test]
fn type_names_do_not_clash_across_tools() {
    let mut ns = Namespace::new();
    let mut warnings = Vec::new();
    ns.claim_type("A", &["Args"]);
    let schema =
        json!({"properties": {"b": {"type": "object", "properties": {"c": {"type": "string"}}}}});
    let first = input_types("a", "AArgs", Some(&schema), &mut ns, &mut warnings);
    ns.claim_type("AArgsB", &["Args"]);
    assert_eq!(ns.claim_type("AArgsB", &[]), "AArgsB3");
    let TypeDef::Struct(s) = &first[1] else {
        panic!()
    };
    assert_eq!(s.name, "AArgsB");
}

fn def<'a>(defs: &'a [TypeDef], name: &str) -> &'a TypeDef {
    defs.iter()
        .find(|d| d.name() == name)
        .unwrap_or_else(|| panic!("no {name} in {defs:?}"))
}

#[test]
fn integers_formats_and_defaults() {
    let int = |schema: Value| field_type(schema).0;
    assert_eq!(int(json!({"type": "integer"})), RustType::I64);
    assert_eq!(
        int(json!({"type": "integer", "minimum": 0})),
        RustType::Int(IntType::U64)
    );
    assert_eq!(
        int(json!({"type": "integer", "format": "int32", "minimum": 0})),
        RustType::Int(IntType::I32)
    );
    assert_eq!(
        int(json!({"type": "integer", "format": "uint8"})),
        RustType::Int(IntType::U8)
    );
    assert_eq!(
        field_type(json!({"type": "string", "format": "uuid", "default": "x"})),
        (
            RustType::String,
            vec!["Format: `uuid`.".to_owned(), "Default: `\"x\"`.".to_owned()]
        )
    );
}

#[test]
fn refs_are_named_per_tool_and_boxed_when_recursive() {
    let (defs, warnings) = types(json!({
        "$defs": {"Node": {"type": "object", "properties": {
            "next": {"$ref": "#/$defs/Node"},
            "all": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
            "root": {"$ref": "#"}
        }}},
        "properties": {
            "a": {"$ref": "#/$defs/Node"},
            "b": {"$ref": "#/definitions/Missing"},
            "c": {"$ref": "other.json#/x"},
            "d": {"$ref": "#/$defs/Node"}
        }
    }));
    let TypeDef::Struct(args) = &defs[0] else {
        panic!()
    };
    let node = RustType::Named("TArgsNode".into());
    assert_eq!(args.fields[0].ty, node);
    assert_eq!(args.fields[3].ty, node);
    assert_eq!(args.fields[1].ty, RustType::Value);
    assert_eq!(args.fields[2].ty, RustType::Value);
    let TypeDef::Struct(n) = def(&defs, "TArgsNode") else {
        panic!()
    };
    let tys: Vec<&RustType> = n.fields.iter().map(|f| &f.ty).collect();
    assert_eq!(
        tys,
        [
            &RustType::Boxed(Box::new(node.clone())),
            &vec(node.clone()),
            &RustType::Boxed(Box::new(RustType::Named("TArgs".into())))
        ]
    );
    assert_eq!(defs.len(), 2);
    assert_eq!(
        warnings
            .iter()
            .map(|w| w.pointer.as_str())
            .collect::<Vec<_>>(),
        [
            "/inputSchema/properties/b/$ref",
            "/inputSchema/properties/c/$ref"
        ]
    );
}

#[test]
fn unions_tagged_untagged_and_all_of() {
    let (defs, warnings) = types(json!({"properties": {
        "op": {"oneOf": [
            {"type": "object", "properties": {"kind": {"const": "a"}, "x": {"type": "string"}}},
            {"type": "object", "properties": {"kind": {"enum": ["b"]}}},
            {"type": "null"}
        ]},
        "id": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "string", "enum": ["auto"]}]},
        "objs": {"anyOf": [
            {"type": "object", "properties": {"p": {"type": "string"}}, "required": ["p"]},
            {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
        ]},
        "same": {"anyOf": [
            {"type": "object", "properties": {"p": {"type": "string"}}},
            {"type": "object", "properties": {"q": {"type": "string"}}}
        ]},
        "both": {"allOf": [
            {"type": "object", "properties": {"p": {"type": "string"}}, "required": ["p"]},
            {"properties": {"q": {"type": "integer"}}}
        ]},
        "k": {"type": "string", "const": "fixed"},
        "v": {"const": 3}
    }}));
    assert_eq!(warnings, []);
    let TypeDef::Struct(args) = &defs[0] else {
        panic!()
    };
    // Every `const` property, of any JSON type, is a constant of the struct, not a field.
    assert_eq!(
        args.consts,
        [
            ConstProperty {
                ident: identifiers::snake_ident("k"),
                property: "k".into(),
                value: "\"fixed\"".into(),
                required: false,
            },
            ConstProperty {
                ident: identifiers::snake_ident("v"),
                property: "v".into(),
                value: "3".into(),
                required: false,
            },
        ]
    );
    assert!(
        args.fields
            .iter()
            .all(|f| f.json_name != "k" && f.json_name != "v")
    );
    let field = |name: &str| {
        &args
            .fields
            .iter()
            .find(|f| f.json_name == name)
            .unwrap_or_else(|| panic!("{name}"))
            .ty
    };
    assert_eq!(field("op"), &opt(RustType::Named("TArgsOp".into())));
    assert_eq!(field("same"), &RustType::Value);
    assert_eq!(
        def(&defs, "TArgsOp"),
        &TypeDef::Tagged(TaggedEnumDef {
            name: "TArgsOp".into(),
            doc: "A choice in the arguments of the MCP tool \"t\".".into(),
            tag: "kind".into(),
            variants: vec![
                TaggedVariant {
                    ident: "A".into(),
                    value: "a".into(),
                    payload: Some("TArgsOpA".into())
                },
                TaggedVariant {
                    ident: "B".into(),
                    value: "b".into(),
                    payload: None
                },
            ],
        })
    );
    let TypeDef::Untagged(id) = def(&defs, "TArgsId") else {
        panic!()
    };
    let order: Vec<(&str, &RustType)> = id
        .variants
        .iter()
        .map(|v| (v.ident.as_str(), &v.ty))
        .collect();
    assert_eq!(
        order,
        [
            ("Integer", &RustType::I64),
            ("Enum", &RustType::Named("TArgsIdEnum".into())),
            ("String", &RustType::String),
        ]
    );
    assert!(matches!(def(&defs, "TArgsObjs"), TypeDef::Untagged(u) if u.variants.len() == 2));
    let TypeDef::Struct(both) = def(&defs, "TArgsBoth") else {
        panic!()
    };
    let both: Vec<(&str, bool)> = both
        .fields
        .iter()
        .map(|f| (f.json_name.as_str(), f.required))
        .collect();
    assert_eq!(both, [("p", true), ("q", false)]);
    // A `const` property makes no type of its own.
    assert!(!defs.iter().any(|d| d.name() == "TArgsV"));
}

#[test]
fn maps_and_tuples() {
    assert_eq!(
        field_type(json!({"type": "object", "additionalProperties": {"type": "integer"}})).0,
        RustType::Map(Box::new(RustType::I64))
    );
    assert_eq!(
        field_type(json!({"type": "object", "additionalProperties": {}})).0,
        RustType::JsonMap
    );
    let (defs, _) = types(json!({
        "properties": {"p": {"type": "string"}},
        "additionalProperties": {"type": "boolean"}
    }));
    let TypeDef::Struct(args) = &defs[0] else {
        panic!()
    };
    assert_eq!(
        args.extra,
        Some(ExtraField {
            ident: RustIdent::plain("additional_properties"),
            value: RustType::Bool,
            role: ExtraRole::Declared,
        })
    );
    let pair = RustType::Tuple(vec![RustType::F64, RustType::I64]);
    assert_eq!(
        field_type(json!({"type": "array", "prefixItems": [{"type": "number"}, {"type": "integer"}], "items": false, "minItems": 2})).0,
        pair
    );
    assert_eq!(
        field_type(json!({"type": "array", "items": [{"type": "number"}, {"type": "integer"}], "minItems": 2, "maxItems": 2})).0,
        pair
    );
    assert_eq!(
        field_type(json!({"type": "array", "prefixItems": [{"type": "number"}], "minItems": 1})).0,
        vec(RustType::Value)
    );
}

/// A field without description or notes whose Rust name is its JSON name.
fn plain_field(json_name: &str, ty: RustType, required: bool, pointer: &str) -> Field {
    Field {
        ident: RustIdent::plain(json_name),
        json_name: json_name.into(),
        ty,
        required,
        description: None,
        notes: vec![],
        pointer: pointer.into(),
    }
}

/// A `$defs` entry whose `properties` are all `anyOf` a `$ref` back to it and a string.
fn recursive_union_schema(properties: usize) -> Value {
    let union = json!({"anyOf": [{"$ref": "#/$defs/N"}, {"type": "string"}]});
    let properties: serde_json::Map<String, Value> = (0..properties)
        .map(|i| (format!("p{i}"), union.clone()))
        .collect();
    json!({
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/N"}},
        "$defs": {"N": {"type": "object", "properties": properties}}
    })
}

#[test]
fn a_union_branch_ref_is_the_targets_one_type_boxed_when_recursive() {
    let (defs, warnings) = types(recursive_union_schema(1));
    assert_eq!(warnings, []);
    let n = RustType::Named("TArgsN".into());
    assert_eq!(
        defs,
        [
            TypeDef::Struct(StructDef::new(
                "TArgs",
                "Arguments of the MCP tool \"t\".",
                vec![plain_field(
                    "x",
                    n.clone(),
                    false,
                    "/inputSchema/properties/x"
                )],
            )),
            TypeDef::Struct(StructDef::new(
                "TArgsN",
                "An object in the arguments of the MCP tool \"t\".",
                vec![plain_field(
                    "p0",
                    RustType::Named("TArgsNP0".into()),
                    false,
                    "/inputSchema/$defs/N/properties/p0"
                )],
            )),
            TypeDef::Untagged(UntaggedEnumDef {
                name: "TArgsNP0".into(),
                doc: "A value of one of several types in the arguments of the MCP tool \"t\"."
                    .into(),
                variants: vec![
                    UntaggedVariant {
                        ident: "String".into(),
                        ty: RustType::String,
                        doc: "A value of type `string`.".into(),
                    },
                    UntaggedVariant {
                        ident: "N".into(),
                        ty: RustType::Boxed(Box::new(n)),
                        doc: "A value of type `object`.".into(),
                    },
                ],
            }),
        ]
    );
}

#[test]
fn recursive_unions_generate_code_linear_in_the_schema() {
    // Unrolled, five such properties were 2^16 types and 41 s before running out of memory.
    let (defs, warnings) = types(recursive_union_schema(5));
    assert_eq!(warnings, []);
    let names: Vec<&str> = defs.iter().map(TypeDef::name).collect();
    assert_eq!(
        names,
        [
            "TArgs", "TArgsN", "TArgsNP0", "TArgsNP1", "TArgsNP2", "TArgsNP3", "TArgsNP4"
        ]
    );
    let snapshot = json!({"tools": [{"name": "t", "inputSchema": recursive_union_schema(5)}]});
    let snapshot =
        oma_mcp_core::Snapshot::parse(&snapshot.to_string(), std::path::Path::new("t.json"))
            .expect("a valid snapshot");
    let generated = crate::codegen::generate(&snapshot, &Default::default()).expect("generates");
    assert_eq!(generated.warnings, []);
    // With the constructors and setters of the seven structs.
    assert!(
        generated.code.len() <= 14_000,
        "{} bytes:\n{}",
        generated.code.len(),
        generated.code
    );
}

#[test]
fn recursion_through_tagged_unions_and_all_of_is_boxed_not_unrolled() {
    let (defs, warnings) = types(json!({
        "properties": {"tree": {"$ref": "#/$defs/Node"}, "chain": {"$ref": "#/$defs/Link"}},
        "$defs": {
            "Node": {"type": "object", "properties": {
                "kind": {"const": "node"},
                "left": {"oneOf": [{"$ref": "#/$defs/Node"}, {"$ref": "#/$defs/Leaf"}]},
                "right": {"oneOf": [{"$ref": "#/$defs/Node"}, {"$ref": "#/$defs/Leaf"}]}
            }},
            "Leaf": {"type": "object", "properties": {
                "kind": {"const": "leaf"}, "value": {"type": "integer"}
            }},
            "Link": {"type": "object", "properties": {
                "next": {"allOf": [{"$ref": "#/$defs/Link"}, {"properties": {"label": {"type": "string"}}}]}
            }}
        }
    }));
    assert_eq!(warnings, []);
    let named = |name: &str| RustType::Named(name.into());
    let boxed = |name: &str| RustType::Boxed(Box::new(named(name)));
    let field_types = |name: &str| match def(&defs, name) {
        TypeDef::Struct(s) => s
            .fields
            .iter()
            .map(|f| (f.json_name.clone(), f.ty.clone()))
            .collect::<Vec<_>>(),
        other => panic!("not a struct: {other:?}"),
    };
    let (left, right) = ("TArgsNodeLeft", "TArgsNodeLeftNodeRight");
    // The `Node` struct, and the payload of the `node` variant of each union (the struct
    // without its tag), whose own unions are the ones being defined, boxed.
    assert_eq!(
        field_types("TArgsNode"),
        [("left".into(), named(left)), ("right".into(), named(right))]
    );
    assert_eq!(
        field_types("TArgsNodeLeftNode"),
        [("left".into(), boxed(left)), ("right".into(), named(right))]
    );
    assert_eq!(
        field_types("TArgsNodeLeftNodeRightNode"),
        [("left".into(), boxed(left)), ("right".into(), boxed(right))]
    );
    // The merged `allOf` refers back to itself.
    assert_eq!(
        field_types("TArgsLinkNext"),
        [
            ("next".into(), boxed("TArgsLinkNext")),
            ("label".into(), RustType::String)
        ]
    );
    let names: Vec<&str> = defs.iter().map(TypeDef::name).collect();
    assert_eq!(
        names,
        [
            "TArgs",
            "TArgsNode",
            "TArgsNodeLeft",
            "TArgsNodeLeftNode",
            "TArgsNodeLeftNodeRight",
            "TArgsNodeLeftNodeRightNode",
            "TArgsNodeLeftNodeRightLeaf",
            "TArgsNodeLeftLeaf",
            "TArgsLink",
            "TArgsLinkNext",
        ]
    );
}

#[test]
fn ref_fragments_are_percent_decoded() {
    // A `$ref` is a URI: `%20` is a space, `~1` still a `/` (RFC 3986, then RFC 6901).
    let (defs, warnings) = types(json!({
        "$defs": {"My Model": {"type": "object", "properties": {"v": {"type": "string"}}},
                  "a/b": {"type": "integer"}},
        "properties": {"m": {"$ref": "#/$defs/My%20Model"}, "n": {"$ref": "#/$defs/a~1b"},
                       "x": {"$ref": "#/$defs/%FF"}},
        "required": ["m", "n"]
    }));
    let TypeDef::Struct(args) = &defs[0] else {
        panic!()
    };
    let tys: Vec<&RustType> = args.fields.iter().map(|f| &f.ty).collect();
    assert_eq!(
        tys,
        [
            &RustType::Named("TArgsMyModel".into()),
            &RustType::I64,
            &RustType::Value
        ]
    );
    let got: Vec<(&str, &str)> = warnings
        .iter()
        .map(|w| (w.pointer.as_str(), w.message.as_str()))
        .collect();
    assert_eq!(
        got,
        [(
            "/inputSchema/properties/x/$ref",
            "`$ref` \"#/$defs/%FF\" is not UTF-8 once percent-decoded; using serde_json::Value"
        )]
    );
}

#[test]
fn keywords_beside_a_nested_ref_are_merged_with_its_object_target() {
    let (defs, warnings) = types(json!({
        "type": "object",
        "properties": {
            "p": {"$ref": "#/$defs/A", "required": ["x"]},
            "q": {"$ref": "#/$defs/A", "description": "Only an annotation.", "default": {}},
            "r": {"$ref": "#/$defs/A", "type": "object", "minProperties": 1}
        },
        "required": ["p"],
        "$defs": {"A": {"type": "object", "properties": {"x": {"type": "string"}}}}
    }));
    assert_eq!(warnings, []);
    let a = RustType::Named("TArgsA".into());
    let mut q = plain_field("q", a.clone(), false, "/inputSchema/properties/q");
    q.description = Some("Only an annotation.".into());
    q.notes = vec!["Default: `{}`.".into()];
    // The keywords beside the `$ref` are the property's constraints, stated in its doc.
    let mut r = plain_field("r", a, false, "/inputSchema/properties/r");
    r.notes = vec!["Constraints: `minProperties` `1`.".into()];
    assert_eq!(
        defs,
        [
            TypeDef::Struct(StructDef::new(
                "TArgs",
                "Arguments of the MCP tool \"t\".",
                vec![
                    plain_field(
                        "p",
                        RustType::Named("TArgsP".into()),
                        true,
                        "/inputSchema/properties/p"
                    ),
                    q,
                    r,
                ]
            )),
            TypeDef::Struct(StructDef::new(
                "TArgsP",
                "An object in the arguments of the MCP tool \"t\".",
                vec![plain_field(
                    "x",
                    RustType::String,
                    true,
                    "/inputSchema/$defs/A/properties/x"
                )]
            )),
            TypeDef::Struct(StructDef::new(
                "TArgsA",
                "An object in the arguments of the MCP tool \"t\".",
                vec![plain_field(
                    "x",
                    RustType::String,
                    false,
                    "/inputSchema/$defs/A/properties/x"
                )]
            )),
        ]
    );
}

#[test]
fn keywords_beside_a_ref_that_cannot_be_merged_are_warned_about() {
    let (defs, warnings) = types(json!({
        "type": "object",
        "properties": {
            "s": {"$ref": "#/$defs/S", "required": ["x"]},
            "e": {"$ref": "#/$defs/A", "enum": [{"x": "a"}]},
            "n": {"$ref": "#/$defs/S", "type": "string", "maxLength": 3}
        },
        "$defs": {
            "A": {"type": "object", "properties": {"x": {"type": "string"}}},
            "S": {"type": "string"}
        }
    }));
    let TypeDef::Struct(args) = &defs[0] else {
        panic!()
    };
    let tys: Vec<&RustType> = args.fields.iter().map(|f| &f.ty).collect();
    assert_eq!(
        tys,
        [
            &RustType::String,
            &RustType::Named("TArgsA".into()),
            &RustType::String
        ]
    );
    assert_eq!(
        warnings.iter().map(ToString::to_string).collect::<Vec<_>>(),
        [
            "tool \"t\" at /inputSchema/properties/s: the keywords beside `$ref` (`required`) also \
             constrain the value, but the `$ref` target is not an object schema; the type is the \
             `$ref` target's alone, so values built from it may fail validation",
            "tool \"t\" at /inputSchema/properties/e: the keywords beside `$ref` (`enum`) also \
             constrain the value, but a struct of the target cannot express them; the type is \
             the `$ref` target's alone, so values built from it may fail validation"
        ]
    );
}

/// notion's `parent: anyOf[$ref → oneOf of objects, string]`: the inner union is one object
/// branch of an untagged enum, and its objects are told apart by a required property no
/// other declares or by a `const` of another value.
#[test]
fn a_union_of_objects_is_an_object_branch() {
    let (defs, warnings) = types(json!({
        "properties": {"parent": {"anyOf": [{"$ref": "#/$defs/P"}, {"type": "string"}]}},
        "$defs": {"P": {"oneOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"type": "object", "properties": {"kind": {"const": "w"}, "b": {"type": "string"}},
             "required": ["kind"]},
            {"type": "object", "properties": {"kind": {"const": "x"}}, "required": ["kind"]}
        ]}}
    }));
    assert_eq!(warnings, []);
    let variants = |name: &str| match def(&defs, name) {
        TypeDef::Untagged(u) => u
            .variants
            .iter()
            .map(|v| (v.ident.clone(), v.ty.clone()))
            .collect::<Vec<_>>(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        variants("TArgsParent"),
        [
            ("String".to_owned(), RustType::String),
            ("P".to_owned(), RustType::Named("TArgsP".into())),
        ]
    );
    assert_eq!(
        variants("TArgsP"),
        [
            ("Object".to_owned(), RustType::Named("TArgsPObject".into())),
            (
                "Object2".to_owned(),
                RustType::Named("TArgsPObject2".into())
            ),
            (
                "Object3".to_owned(),
                RustType::Named("TArgsPObject3".into())
            ),
        ]
    );
}

/// An untagged variant keeps its branch's notes, so a `Vec<Value>` inside is documented.
#[test]
fn untagged_variants_keep_branch_notes() {
    let (defs, _) = types(json!({"properties": {"x": {"anyOf": [
        {"type": "string", "format": "uri"},
        {"type": "array", "prefixItems": [{"type": "string"}]}
    ]}}}));
    let TypeDef::Untagged(u) = def(&defs, "TArgsX") else {
        panic!()
    };
    let docs: Vec<&str> = u.variants.iter().map(|v| v.doc.as_str()).collect();
    assert_eq!(
        docs,
        [
            "A value of type `string`.\n\nFormat: `uri`.",
            "A value of type `array`.\n\nItems typed as `serde_json::Value`: the array is a tuple \
             whose length is not fixed."
        ]
    );
}

/// A field's doc notes state its schema's constraints (in keyword order; a backtick in a
/// `pattern` becomes `'` so the code span holds), then its `enum` values; a property without
/// any has none. Fields in property order.
#[test]
fn field_notes_state_constraints_and_enum_values() {
    let (defs, warnings) = types(json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 64, "pattern": "^[a-z`]+$"},
            "count": {"type": "number", "exclusiveMinimum": 0, "maximum": 10.5, "multipleOf": 0.5},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3,
                     "uniqueItems": true},
            "meta": {"type": "object", "minProperties": 1, "maxProperties": 2},
            "level": {"type": "integer", "enum": [1, 2, null], "default": 1},
            "plain": {"type": "string"}
        }
    }));
    assert_eq!(warnings, []);
    let TypeDef::Struct(args) = &defs[0] else {
        panic!("{defs:?}")
    };
    let notes: Vec<(&str, &[String])> = args
        .fields
        .iter()
        .map(|f| (f.json_name.as_str(), f.notes.as_slice()))
        .collect();
    let s = |v: &[&str]| v.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>();
    assert_eq!(
        notes,
        [
            (
                "name",
                s(&["Constraints: `minLength` `1`, `maxLength` `64`, `pattern` `^[a-z']+$`."])
                    .as_slice()
            ),
            (
                "count",
                s(&["Constraints: `exclusiveMinimum` `0`, `maximum` `10.5`, `multipleOf` `0.5`."])
                    .as_slice()
            ),
            (
                "tags",
                s(&["Constraints: `minItems` `1`, `maxItems` `3`, `uniqueItems` `true`."])
                    .as_slice()
            ),
            (
                "meta",
                s(&["Constraints: `minProperties` `1`, `maxProperties` `2`."]).as_slice()
            ),
            (
                "level",
                s(&["Default: `1`.", "One of: `1`, `2`, `null`."]).as_slice()
            ),
            ("plain", s(&[]).as_slice()),
        ]
    );
}

/// The constructor takes the required fields in the order of the `required` lists (each
/// part of a merged schema in turn), not in property order; a `const` and a name without a
/// property have no field and are left out, a repeated name counts once.
#[test]
fn constructor_order_is_the_required_order() {
    let def = |schema: Value| match types(schema).0.into_iter().next() {
        Some(TypeDef::Struct(s)) => s,
        other => panic!("not a struct: {other:?}"),
    };
    let s = def(json!({
        "type": "object",
        "properties": {
            "a": {"type": "string"}, "b": {"type": "integer"}, "c": {"type": "string"},
            "kind": {"const": "k"}, "opt": {"type": "boolean"}
        },
        "required": ["c", "kind", "a", "ghost", "c", "b"]
    }));
    assert_eq!(s.required_order, ["c", "a", "b"]);
    let order: Vec<&str> = s
        .constructor_fields()
        .iter()
        .map(|f| f.json_name.as_str())
        .collect();
    assert_eq!(order, ["c", "a", "b"]);
    let merged = def(json!({
        "allOf": [
            {"type": "object", "properties": {"z": {"type": "string"}}, "required": ["z"]},
            {"type": "object", "properties": {"y": {"type": "string"}, "x": {"type": "string"}},
             "required": ["x", "y", "z"]}
        ]
    }));
    assert_eq!(merged.required_order, ["z", "x", "y"]);
    // A hand-built struct takes its required fields in field order (properties as written).
    let built = StructDef::new("S", "", merged.fields.clone());
    assert_eq!(built.required_order, ["z", "y", "x"]);
}

/// An `anyOf`/`oneOf` whose branches are all string enums (or `const` strings, `$ref`s
/// followed) is one string enum of all their values, in order, each once; a `null` branch
/// makes it optional; any other branch keeps the union rules.
#[test]
fn a_union_of_string_enums_is_one_enum() {
    let (defs, warnings) = types(json!({
        "type": "object",
        "properties": {"icon_set": {"anyOf": [
            {"type": "string", "enum": ["3_arrows", "3_flags"]},
            {"$ref": "#/$defs/Five"},
            {"const": "3_flags"},
            {"type": "null"}
        ]}},
        "$defs": {"Five": {"enum": ["5_quarters", "5_rating"], "description": "Five icons."}}
    }));
    assert_eq!(warnings, []);
    assert_eq!(
        fields(json!({"type": "object", "properties": {"p": {"oneOf": [
            {"enum": ["a"]}, {"const": "b"}
        ]}}}))[0]
            .ty,
        RustType::Named("TArgsP".into())
    );
    let TypeDef::Struct(args) = &defs[0] else {
        panic!("{defs:?}")
    };
    assert_eq!(
        args.fields[0].ty,
        opt(RustType::Named("TArgsIconSet".into()))
    );
    let TypeDef::Enum(icons) = &defs[1] else {
        panic!("{defs:?}")
    };
    let values: Vec<(&str, &str)> = icons
        .variants
        .iter()
        .map(|v| (v.ident.as_str(), v.value.as_str()))
        .collect();
    assert_eq!(
        values,
        [
            ("V3Arrows", "3_arrows"),
            ("V3Flags", "3_flags"),
            ("V5Quarters", "5_quarters"),
            ("V5Rating", "5_rating"),
        ]
    );
    assert!(!icons.open);
    // A branch that is not a string enum: the union rules as before (here an untagged enum
    // of a string enum and an integer).
    let f = fields(json!({"type": "object", "properties": {"p": {"anyOf": [
        {"enum": ["a", "b"]}, {"type": "integer"}
    ]}}, "required": ["p"]}));
    assert_eq!(f[0].ty, RustType::Named("TArgsP".into()));
    let (defs, _) = types(json!({"type": "object", "properties": {"p": {"anyOf": [
        {"enum": ["a", "b"]}, {"type": "integer"}
    ]}}}));
    assert!(matches!(defs[1], TypeDef::Untagged(_)), "{defs:?}");
}
