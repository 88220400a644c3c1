//! Unit tests of the argument type of a root `$ref`, `allOf`, `anyOf` and `oneOf`.

use serde_json::{Value, json};

use super::*;
use crate::codegen::identifiers::RustIdent;
use crate::codegen::schema::{
    Field, StructDef, TaggedEnumDef, TaggedVariant, UntaggedEnumDef, UntaggedVariant,
};

fn types(schema: Value) -> (Vec<TypeDef>, Vec<String>) {
    let mut ns = Namespace::new();
    let mut warnings = Vec::new();
    let defs = input_types("t", "TArgs", Some(&schema), &mut ns, &mut warnings);
    (defs, warnings.iter().map(ToString::to_string).collect())
}

const DOC: &str = "Arguments of the MCP tool \"t\".";

/// A field without description or notes whose Rust name is its JSON name.
fn field(json_name: &str, ty: RustType, required: bool, pointer: &str) -> Field {
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

fn args(fields: Vec<Field>) -> TypeDef {
    TypeDef::Struct(StructDef::new("TArgs", DOC, fields))
}

#[test]
fn a_root_ref_is_its_target() {
    let (defs, warnings) = types(json!({
        "$ref": "#/$defs/A",
        "$defs": {"A": {"type": "object", "properties": {
            "s": {"type": "string"},
            "again": {"$ref": "#/$defs/A"},
            "root": {"$ref": "#"}
        }, "required": ["s"]}}
    }));
    assert_eq!(warnings, [] as [String; 0]);
    let boxed = RustType::Boxed(Box::new(RustType::Named("TArgs".into())));
    assert_eq!(
        defs,
        [args(vec![
            field(
                "s",
                RustType::String,
                true,
                "/inputSchema/$defs/A/properties/s"
            ),
            field(
                "again",
                boxed.clone(),
                false,
                "/inputSchema/$defs/A/properties/again"
            ),
            field("root", boxed, false, "/inputSchema/$defs/A/properties/root"),
        ])]
    );
}

#[test]
fn a_root_all_of_of_objects_is_one_struct() {
    let (defs, warnings) = types(json!({
        "allOf": [
            {"$ref": "#/$defs/B"},
            {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
        ],
        "$defs": {"B": {"type": "object", "properties": {"s": {"type": "string"}}, "required": ["s"]}}
    }));
    assert_eq!(warnings, [] as [String; 0]);
    assert_eq!(
        defs,
        [args(vec![
            field(
                "s",
                RustType::String,
                true,
                "/inputSchema/$defs/B/properties/s"
            ),
            field(
                "n",
                RustType::I64,
                true,
                "/inputSchema/allOf/1/properties/n"
            ),
        ])]
    );
    // Beside the root's own properties, an `allOf` of objects adds its properties, and one
    // of constraints is left to validation.
    let (defs, warnings) = types(json!({
        "properties": {"a": {"type": "string"}},
        "allOf": [{"properties": {"b": {"type": "boolean"}}}]
    }));
    assert_eq!(warnings, [] as [String; 0]);
    assert_eq!(
        defs,
        [args(vec![
            field("a", RustType::String, false, "/inputSchema/properties/a"),
            field(
                "b",
                RustType::Bool,
                false,
                "/inputSchema/allOf/0/properties/b"
            ),
        ])]
    );
    let (defs, warnings) = types(json!({
        "properties": {"a": {"type": "string"}},
        "allOf": [{"if": {"required": ["a"]}, "then": {"required": ["b"]}}]
    }));
    assert_eq!(warnings, [] as [String; 0]);
    assert_eq!(
        defs,
        [args(vec![field(
            "a",
            RustType::String,
            false,
            "/inputSchema/properties/a"
        )])]
    );
}

#[test]
fn a_root_any_of_of_objects_is_an_untagged_enum() {
    let (defs, warnings) = types(json!({
        "anyOf": [
            {"type": "object", "properties": {"s": {"type": "string"}}, "required": ["s"]},
            {"$ref": "#/$defs/N"},
            {"type": "null"}
        ],
        "$defs": {"N": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}
    }));
    assert_eq!(warnings, [] as [String; 0]);
    assert_eq!(
        defs,
        [
            TypeDef::Untagged(UntaggedEnumDef {
                name: "TArgs".into(),
                doc: DOC.into(),
                variants: vec![
                    UntaggedVariant {
                        ident: "Object".into(),
                        ty: RustType::Named("TArgsObject".into()),
                        doc: "A value of type `object`.".into(),
                    },
                    UntaggedVariant {
                        ident: "N".into(),
                        ty: RustType::Named("TArgsN".into()),
                        doc: "A value of type `object`.".into(),
                    },
                ],
            }),
            TypeDef::Struct(StructDef::new(
                "TArgsObject",
                "An object in the arguments of the MCP tool \"t\".",
                vec![field(
                    "s",
                    RustType::String,
                    true,
                    "/inputSchema/anyOf/0/properties/s"
                )],
            )),
            TypeDef::Struct(StructDef::new(
                "TArgsN",
                "An object in the arguments of the MCP tool \"t\".",
                vec![field(
                    "n",
                    RustType::I64,
                    true,
                    "/inputSchema/$defs/N/properties/n"
                )],
            )),
        ]
    );
}

#[test]
fn a_root_one_of_with_a_constant_tag_is_a_tagged_enum() {
    let (defs, warnings) = types(json!({
        "type": "object",
        "oneOf": [
            {"$ref": "#/$defs/C"},
            {"type": "object", "properties": {"kind": {"const": "d"}}, "required": ["kind"]}
        ],
        "$defs": {"C": {"type": "object", "properties": {
            "kind": {"const": "c"}, "x": {"type": "string"}
        }, "required": ["kind", "x"]}}
    }));
    assert_eq!(warnings, [] as [String; 0]);
    assert_eq!(
        defs,
        [
            TypeDef::Tagged(TaggedEnumDef {
                name: "TArgs".into(),
                doc: DOC.into(),
                tag: "kind".into(),
                variants: vec![
                    TaggedVariant {
                        ident: "C".into(),
                        value: "c".into(),
                        payload: Some("TArgsC".into()),
                    },
                    TaggedVariant {
                        ident: "D".into(),
                        value: "d".into(),
                        payload: None,
                    },
                ],
            }),
            TypeDef::Struct(StructDef::new(
                "TArgsC",
                "An object in the arguments of the MCP tool \"t\".",
                vec![field(
                    "x",
                    RustType::String,
                    true,
                    "/inputSchema/$defs/C/properties/x"
                )],
            )),
        ]
    );
}

#[test]
fn a_root_union_that_is_not_typed_is_a_struct_of_a_json_map_with_a_warning() {
    let json_map = |reason: &str| {
        let mut def = StructDef::new("TArgs", format!("{DOC}\n\nNot typed: {reason}."), vec![]);
        def.extra = Some(ExtraField {
            ident: RustIdent::plain("additional_properties"),
            value: RustType::Value,
            role: ExtraRole::Untyped,
        });
        vec![TypeDef::Struct(def)]
    };
    let reason = "a branch of the root `anyOf` is not an object schema";
    assert_eq!(
        types(json!({"anyOf": [{"type": "string"}, {"type": "object"}]})),
        (
            json_map(reason),
            vec![format!(
                "tool \"t\" at /inputSchema/anyOf: the arguments are not typed: {reason}; \
                 using a struct that holds them all in a JSON map"
            )]
        )
    );
    let reason = "a value's shape does not tell the object branches of the root `oneOf` apart \
                  (no property has a different constant in each, and not each has a required \
                  property that no other declares)";
    assert_eq!(
        types(json!({"oneOf": [
            {"type": "object", "properties": {"s": {"type": "string"}}},
            {"type": "object", "properties": {"n": {"type": "integer"}}}
        ]})),
        (
            json_map(reason),
            vec![format!(
                "tool \"t\" at /inputSchema/oneOf: the arguments are not typed: {reason}; \
                 using a struct that holds them all in a JSON map"
            )]
        )
    );
    let reason = "a branch of the root `allOf` is not an object schema";
    assert_eq!(
        types(json!({"allOf": [{"type": "object"}, {"type": "string"}]})).0,
        json_map(reason)
    );
    let reason = "`$ref` \"#/$defs/missing\" points to nothing in the input schema";
    assert_eq!(
        types(json!({"$ref": "#/$defs/missing"})),
        (
            json_map(reason),
            vec![format!(
                "tool \"t\" at /inputSchema/$ref: the arguments are not typed: {reason}; \
                 using a struct that holds them all in a JSON map"
            )]
        )
    );
    assert_eq!(
        types(json!({"$ref": "#"})).0,
        json_map("the `$ref` refers back to itself")
    );
}

#[test]
fn a_root_union_of_one_object_is_a_struct_of_it() {
    let (defs, warnings) = types(json!({"oneOf": [
        {"type": "object", "properties": {"s": {"type": "string"}}},
        {"type": "null"}
    ]}));
    assert_eq!(warnings, [] as [String; 0]);
    assert_eq!(
        defs,
        [args(vec![field(
            "s",
            RustType::String,
            false,
            "/inputSchema/oneOf/0/properties/s"
        )])]
    );
}

#[test]
fn branch_properties_beside_the_roots_own_are_warned_about() {
    let (defs, warnings) = types(json!({
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "anyOf": [{"required": ["a"]}, {"properties": {"b": {"type": "string"}}, "required": ["b"]}]
    }));
    assert_eq!(
        defs,
        [args(vec![field(
            "a",
            RustType::String,
            false,
            "/inputSchema/properties/a"
        )])]
    );
    assert_eq!(
        warnings,
        [
            "tool \"t\" at /inputSchema/anyOf: properties that only the `anyOf` branches declare \
          (\"b\") are not fields of the argument struct, which has the root's own properties"
        ]
    );
}

#[test]
fn keywords_beside_a_root_ref_are_merged_with_its_target() {
    let (defs, warnings) = types(json!({
        "$ref": "#/$defs/A",
        "required": ["y"],
        "properties": {"y": {"type": "integer"}, "a": {"$ref": "#/$defs/A"}},
        "$defs": {"A": {"type": "object", "properties": {"x": {"type": "string"}}}}
    }));
    assert_eq!(warnings, [] as [String; 0]);
    // The target's own type (without `y`) is another struct, not the argument type.
    let a = RustType::Named("TArgsA".into());
    assert_eq!(
        defs,
        [
            args(vec![
                field(
                    "x",
                    RustType::String,
                    false,
                    "/inputSchema/$defs/A/properties/x"
                ),
                field(
                    "y",
                    RustType::Int(crate::codegen::schema::IntType::I64),
                    true,
                    "/inputSchema/properties/y"
                ),
                field("a", a, false, "/inputSchema/properties/a"),
            ]),
            TypeDef::Struct(StructDef::new(
                "TArgsA",
                "An object in the arguments of the MCP tool \"t\".",
                vec![field(
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
fn keywords_beside_a_root_ref_to_a_non_object_are_warned_about() {
    let (defs, warnings) = types(json!({
        "$ref": "#/$defs/U",
        "required": ["y"],
        "$defs": {"U": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}
    }));
    assert!(
        matches!(&defs[0], TypeDef::Struct(s) if s.fields.is_empty() && s.extra.is_some()),
        "{defs:?}"
    );
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert_eq!(
        warnings[0],
        "tool \"t\" at /inputSchema: the keywords beside `$ref` (`required`) also constrain the \
         value, but the `$ref` target is not an object schema; the type is the `$ref` target's \
         alone, so values built from it may fail validation"
    );
}

#[test]
fn the_root_ref_with_required_siblings_repro() {
    let (defs, warnings) = types(json!({
        "$ref": "#/$defs/A",
        "required": ["y"],
        "properties": {"y": {"type": "integer"}},
        "$defs": {"A": {"type": "object", "properties": {"x": {"type": "string"}}}}
    }));
    assert_eq!(warnings, [] as [String; 0]);
    assert_eq!(
        defs,
        [args(vec![
            field(
                "x",
                RustType::String,
                false,
                "/inputSchema/$defs/A/properties/x"
            ),
            field(
                "y",
                RustType::Int(crate::codegen::schema::IntType::I64),
                true,
                "/inputSchema/properties/y"
            ),
        ])]
    );
}
