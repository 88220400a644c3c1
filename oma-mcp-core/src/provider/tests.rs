use serde_json::json;

use super::*;

fn tool(schema: Value) -> ToolDescriptor {
    ToolDescriptor::from_mcp(
        Some("t"),
        &json!({"name": "echo", "description": "Echoes", "inputSchema": schema}),
    )
    .unwrap()
}

#[test]
fn openai_strict_requires_every_property_and_null_means_absent() {
    let t = ProviderTool::new(
        &tool(json!({
            "type": "object",
            "properties": {
                "q": {"type": "string", "format": "regex", "default": "a"},
                "limit": {"type": "integer", "minimum": 1},
                "mode": {"enum": ["a", "b"]}
            },
            "required": ["q"]
        })),
        Provider::OpenAi,
    )
    .unwrap();
    assert_eq!(
        t.parameters,
        json!({
            "type": "object",
            "properties": {
                "q": {"type": "string"},
                "limit": {"type": ["integer", "null"], "minimum": 1},
                "mode": {"type": ["string", "null"], "enum": ["a", "b", null]}
            },
            "required": ["q", "limit", "mode"],
            "additionalProperties": false
        })
    );
    assert_eq!(
        t.arguments
            .to_server(&json!({"q": "x", "limit": null, "mode": "b"}))
            .unwrap(),
        json!({"q": "x", "mode": "b"})
    );
    assert_eq!(
        t.arguments.to_model(&json!({"q": "x"})).unwrap(),
        json!({"q": "x", "limit": null, "mode": null})
    );
    assert_eq!(
        t.request_json(),
        json!({"type": "function", "function": {
            "name": "t_echo", "description": "Echoes", "parameters": t.parameters, "strict": true
        }})
    );
    assert!(check_tool(&t).is_empty());
}

#[test]
fn a_free_form_object_is_json_text_and_parsed_back() {
    let t = ProviderTool::new(
        &tool(json!({
            "type": "object",
            "properties": {"meta": {"type": "object", "description": "Anything"}},
            "required": ["meta"]
        })),
        Provider::OpenAi,
    )
    .unwrap();
    assert_eq!(
        t.parameters["properties"]["meta"],
        json!({"type": "string", "description": "Anything (JSON text of the value)"})
    );
    assert_eq!(
        t.arguments
            .to_server(&json!({"meta": "{\"a\":[1]}"}))
            .unwrap(),
        json!({"meta": {"a": [1]}})
    );
    let err = t.arguments.to_server(&json!({"meta": "{a"})).unwrap_err();
    assert_eq!(err.pointer, "/meta");
    assert!(
        err.to_string()
            .starts_with("the argument at /meta is not JSON text, as its schema asks: "),
        "{err}"
    );
}

#[test]
fn gemini_inlines_refs_renames_properties_and_maps_enums_and_integers_back() {
    let t = ProviderTool::new(
        &tool(json!({
            "type": "object",
            "properties": {
                "page-size": {"type": "integer"},
                "level": {"enum": [1, 2]},
                "item": {"$ref": "#/$defs/Item"}
            },
            "required": ["item"],
            "$defs": {"Item": {"type": ["string", "null"], "maxLength": 9}}
        })),
        Provider::Gemini,
    )
    .unwrap();
    assert_eq!(
        t.parameters,
        json!({
            "type": "OBJECT",
            "properties": {
                "page_size_6a9577bd": {"type": "INTEGER"},
                "level": {"type": "STRING", "format": "enum", "enum": ["1", "2"]},
                "item": {"type": "STRING", "maxLength": 9, "nullable": true}
            },
            "required": ["item"]
        })
    );
    assert_eq!(
        t.arguments
            .to_server(&json!({"page_size_6a9577bd": 3.0, "level": "2", "item": null}))
            .unwrap(),
        json!({"page-size": 3, "level": 2, "item": null})
    );
    assert!(check_tool(&t).is_empty());
}

#[test]
fn recursion_cannot_be_given_to_gemini_and_says_where() {
    let schema = json!({
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/Node"}},
        "$defs": {"Node": {"type": "object", "properties": {"kids": {
            "type": "array", "items": {"$ref": "#/$defs/Node"}
        }}}}
    });
    let err = ProviderTool::new(&tool(schema.clone()), Provider::Gemini).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the tool `t_echo` cannot be given to gemini: at /properties/tree/properties/kids/items of \
         its inputSchema, `$ref` \"#/$defs/Node\" is recursive, and Gemini's parameters schema has \
         no `$ref` to express recursion"
    );
    // OpenAI keeps the recursion as a `$defs` entry of its own.
    let t = ProviderTool::new(&tool(schema), Provider::OpenAi).unwrap();
    assert_eq!(
        t.parameters["properties"]["tree"]["anyOf"][0],
        json!({"$ref": "#/$defs/Node"})
    );
    assert!(check_tool(&t).is_empty());
}

#[test]
fn anthropic_keeps_the_schema_but_fits_property_keys_and_drops_root_combinators() {
    let t = ProviderTool::new(
        &tool(json!({
            "type": "object",
            "properties": {"a b": {"type": "string"}, "ok.key": {"type": "number"}},
            "required": ["a b"],
            "oneOf": [{"required": ["a b"]}]
        })),
        Provider::Anthropic,
    )
    .unwrap();
    assert_eq!(
        t.request_json(),
        json!({"name": "t_echo", "description": "Echoes", "input_schema": {
            "type": "object",
            "properties": {"a_b_5e229e24": {"type": "string"}, "ok.key": {"type": "number"}},
            "required": ["a_b_5e229e24"]
        }})
    );
    assert_eq!(
        t.arguments
            .to_server(&json!({"a_b_5e229e24": "x"}))
            .unwrap(),
        json!({"a b": "x"})
    );
}

#[test]
fn names_are_fitted_per_provider_and_collisions_reported() {
    let a = ToolDescriptor::from_mcp(None, &json!({"name": "get.item"})).unwrap();
    let b = ToolDescriptor::from_mcp(None, &json!({"name": "get_item"})).unwrap();
    let (tools, refused) = provider_tools(&[a.clone(), b.clone()], Provider::OpenAi).unwrap();
    assert!(refused.is_empty());
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["get_item_edbb1e48", "get_item"]);
    assert_eq!(Provider::Gemini.fit_name("9lives"), "_9lives_275451e2");
    assert!(Provider::Gemini.accepts_name("_9lives_275451e2"));
    assert_eq!(Provider::from_name("gemini"), Some(Provider::Gemini));
}

#[test]
fn portable_names_are_taken_by_every_provider() {
    let long = "a".repeat(64);
    for (name, portable) in [
        ("gh_search_code", "gh_search_code"),
        ("gh_search-code", "gh_search_code_222543d1"),
        ("a.b", "a_b_12734df7"),
        ("9lives", "_9lives_275451e2"),
        (long.as_str(), &format!("{}_659184ac", "a".repeat(54))),
    ] {
        assert_eq!(portable_name(name), portable, "{name}");
        assert!(
            Provider::ALL.iter().all(|p| p.accepts_name(portable)),
            "{portable}"
        );
    }
}

/// A server value that an enum branch lists goes to that branch, whatever other branch its
/// kind fits too: here no integer fits the first branch, so `1` must become the enum's JSON
/// text `"1"` (an enum with an array value is a string enum of JSON texts for OpenAI).
#[test]
fn a_value_an_enum_branch_lists_goes_to_that_branch() {
    let t = ProviderTool::new(
        &tool(json!({
            "type": "object",
            "properties": {"v": {"anyOf": [
                {"type": "integer", "minimum": 1, "maximum": -1},
                {"enum": [1, [1]]}
            ]}},
            "required": ["v"]
        })),
        Provider::OpenAi,
    )
    .unwrap();
    assert_eq!(
        t.arguments.to_model(&json!({"v": 1})).unwrap(),
        json!({"v": "1"})
    );
    assert_eq!(
        t.arguments.to_server(&json!({"v": "1"})).unwrap(),
        json!({"v": 1})
    );
    // A value no enum branch lists: the first branch its kind fits, unchanged.
    assert_eq!(
        t.arguments.to_model(&json!({"v": 7})).unwrap(),
        json!({"v": 7})
    );
}
