//! Compiles the goldens `fixtures/<case>.rs` (see `it/golden.rs`) and checks what the
//! generated types do: JSON names, skipped optional fields, `{}` for empty arguments, enum
//! values, and the `McpTool` constants.
//!
//! A separate test binary from `it`, so that regenerating the golden file works even
//! when the old one no longer compiles against these checks.

// Test code: a failed unwrap is a test failure with its message.
#![allow(clippy::unwrap_used)]

#[allow(dead_code)]
mod golden {
    include!("fixtures/golden.rs");
}

/// Hostile input (see `it/golden.rs`): names and schemas meant to break the generator still
/// give code that compiles.
#[allow(dead_code)]
mod hostile {
    include!("fixtures/hostile.rs");
}

/// Names that meet (see `it/golden.rs`): compiled with every warning an error, so the lint
/// allowances on tagged names are proven.
#[deny(warnings)]
#[allow(dead_code)]
mod colliding_names {
    include!("fixtures/colliding_names.rs");
}

/// A server pinned by URL (see `it/golden.rs`): its module calls `__require_http!`, which
/// compiles only with oma-mcp-runtime's feature `http`, on here through this crate's
/// dev-dependency on the runtime.
#[deny(warnings)]
#[allow(dead_code)]
mod remote {
    include!("fixtures/remote.rs");
}

/// A manifest's URL pin with nothing but its `url` (see `it/golden.rs`): the stored login,
/// optional, so no `__require_oauth!`.
#[deny(warnings)]
#[allow(dead_code)]
mod remote_login {
    include!("fixtures/remote_login.rs");
}

/// A server pinned by URL with an `oauth` table (see `it/golden.rs`): its module also calls
/// `__require_oauth!`, which compiles only with oma-mcp-runtime's feature `oauth`.
#[deny(warnings)]
#[allow(dead_code)]
mod remote_oauth {
    include!("fixtures/remote_oauth.rs");
}

/// Two of server-memory's tools (see `it/golden.rs`): one entity shape in an argument and in
/// two outputs, with `From` conversions between them.
#[allow(dead_code)]
mod memory {
    include!("fixtures/memory.rs");
}

/// server-everything's pin (see `it/golden.rs`): its prompts, resources and templates.
#[deny(warnings)]
#[allow(dead_code)]
mod everything {
    include!("fixtures/everything.rs");
}

/// The own test server's pin (see `it/golden.rs`): its prompts, resources and templates.
#[deny(warnings)]
#[allow(dead_code)]
mod own {
    include!("fixtures/own.rs");
}

/// Prompts, resources and templates meant to break the generator (see `it/golden.rs`).
#[deny(warnings)]
#[allow(dead_code)]
mod hostile_offers {
    include!("fixtures/hostile_offers.rs");
}

use golden::*;
use oma_mcp_runtime::McpTool;
use serde_json::json;

#[test]
fn arguments_serialize_to_the_schema_names() {
    let args = GetSumArgs::new(1.5, 2.0).with_round_mode(GetSumArgsRoundMode::HalfEven);
    assert_eq!(
        serde_json::to_value(&args).unwrap(),
        json!({"a": 1.5, "b": 2.0, "roundMode": "half-even"})
    );
    let args = GetSumArgs::new(1.0, 2.0);
    assert_eq!(args.round_mode, None);
    assert_eq!(
        serde_json::to_value(&args).unwrap(),
        json!({"a": 1.0, "b": 2.0})
    );
    let back: GetSumArgs = serde_json::from_value(json!({"a": 1, "b": 2})).unwrap();
    assert_eq!(back, args);
}

#[test]
fn empty_and_nested_arguments() {
    assert_eq!(
        serde_json::to_value(PingArgs::default()).unwrap(),
        json!({})
    );
    assert_eq!(
        serde_json::to_value(GetSum_h9096b3e4Args::new()).unwrap(),
        json!({})
    );
    // The constructor takes the required fields in the schema's `required` order (`paths`,
    // then the nullable `type`); `impl Into` takes an array for the `Vec` and `None` for the
    // `Option`.
    let args = FilesDeleteArgs::new(["a".to_owned()], None)
        .with_extra(FilesDeleteArgsExtra::Integer(7))
        .with_options(FilesDeleteArgsOptions::new().with_force(true));
    assert_eq!(
        FilesDeleteArgsOptions::new(),
        FilesDeleteArgsOptions::default()
    );
    assert_eq!(
        FilesDeleteArgs::new(vec![], "t".to_owned())
            .r#type
            .as_deref(),
        Some("t")
    );
    // A required nullable field is sent as `null`; optional ones are left out.
    assert_eq!(
        serde_json::to_value(&args).unwrap(),
        json!({"extra": 7, "options": {"force": true}, "paths": ["a"], "type": null})
    );
}

#[test]
fn tool_constants() {
    assert_eq!(
        TOOL_NAMES,
        ["files/delete", "get-sum", "get_sum", "ping", "shapes"]
    );
    assert_eq!(FilesDelete::MCP_NAME, "files/delete");
    assert_eq!(FilesDelete::NAME, "golden_files_delete");
    const { assert!(FilesDelete::CONSEQUENTIAL) };
    const { assert!(!GetSum::CONSEQUENTIAL) };
    // `destructiveHint: true` without `readOnlyHint` (annotations trusted by default) …
    const { assert!(GetSum_h9096b3e4::CONSEQUENTIAL) };
    // … unless the options list the tool as not consequential.
    const { assert!(!Ping::CONSEQUENTIAL) };
    assert_eq!(GetSum_h9096b3e4::MCP_NAME, "get_sum");
    assert_eq!(Ping::DESCRIPTION, None);
    assert_eq!(Ping::INPUT_SCHEMA, "{\n  \"type\": \"object\"\n}");
    assert_eq!(
        GetSum::DESCRIPTION,
        Some("Adds two numbers.\n\nSee [the docs](https://example.com/sum) for <details>.")
    );
    let snapshot = oma_mcp_runtime::Snapshot::read(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/golden.json"),
    )
    .unwrap();
    let tool = snapshot.tool("get-sum").unwrap();
    assert_eq!(GetSum::DIGEST, tool.digest);
    assert_eq!(
        GetSum::INPUT_SCHEMA,
        oma_mcp_runtime::snapshot::canonical_json_pretty(tool.input_schema().unwrap())
    );
}

/// `required` is `operation`, `kind`, `note`, `schemaVersion`: the constants `kind` and
/// `schemaVersion` have no field, so the constructor takes `operation` and `note`.
fn shapes(operation: ShapesArgsOperation) -> ShapesArgs {
    ShapesArgs::new(operation, None)
}

#[test]
fn constants_are_filled_in_and_required_nullable_is_null() {
    // Every `const` (strings, the integer `schemaVersion`, the boolean `dryRun`, optional or
    // required) has no field and is always sent; `note` is required and nullable: `null`.
    let args = shapes(ShapesArgsOperation::Clear);
    let wire = json!({
        "dryRun": true, "kind": "shapes/v1", "note": null, "operation": {"type": "clear"},
        "schemaVersion": 1, "unit": "mm"
    });
    assert_eq!(serde_json::to_value(&args).unwrap(), wire);
    assert_eq!(serde_json::from_value::<ShapesArgs>(wire).unwrap(), args);
    // Optional constants may be absent; `1.0` is the schema's `1`.
    let back: ShapesArgs = serde_json::from_value(json!({
        "kind": "shapes/v1", "note": null, "operation": {"type": "clear"}, "schemaVersion": 1.0
    }))
    .unwrap();
    assert_eq!(back, args);
    // Required means present: a missing `note` is an error, not `None` (else an untagged
    // union would take this struct for an object without the field, dropping the rest).
    let missing = serde_json::from_value::<ShapesArgs>(
        json!({"kind": "shapes/v1", "operation": {"type": "clear"}, "schemaVersion": 1}),
    )
    .unwrap_err();
    assert_eq!(missing.to_string(), "missing field `note`");
    let missing = serde_json::from_value::<ShapesArgs>(
        json!({"kind": "shapes/v1", "note": null, "operation": {"type": "clear"}}),
    )
    .unwrap_err();
    assert_eq!(missing.to_string(), "missing field `schemaVersion`");
}

#[test]
fn wrong_constants_are_rejected() {
    let read = |member: &str, value: serde_json::Value| {
        let mut wire = json!({
            "kind": "shapes/v1", "note": null, "operation": {"type": "clear"}, "schemaVersion": 1
        });
        wire[member] = value;
        serde_json::from_value::<ShapesArgs>(wire)
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    assert_eq!(
        read("kind", json!("shapes/v2")),
        Err(r#"property "kind" must be "shapes/v1", found "shapes/v2""#.to_owned())
    );
    assert_eq!(
        read("schemaVersion", json!(2)),
        Err(r#"property "schemaVersion" must be 1, found 2"#.to_owned())
    );
    assert_eq!(
        read("schemaVersion", json!("1")),
        Err(r#"property "schemaVersion" must be 1, found "1""#.to_owned())
    );
    assert_eq!(
        read("dryRun", json!(false)),
        Err(r#"property "dryRun" must be true, found false"#.to_owned())
    );
    assert_eq!(
        read("unit", json!("cm")),
        Err(r#"property "unit" must be "mm", found "cm""#.to_owned())
    );
    assert_eq!(read("unit", json!("mm")), Ok(()));
}

#[test]
fn tagged_union_round_trips() {
    // `required` is `type` (the tag), `index`, `text`.
    let insert = ShapesArgsOperation::Insert(ShapesArgsOperationInsert::new(3, "hi"));
    let wire = json!({"type": "insert", "index": 3, "text": "hi"});
    assert_eq!(serde_json::to_value(&insert).unwrap(), wire);
    assert_eq!(
        serde_json::from_value::<ShapesArgsOperation>(wire).unwrap(),
        insert
    );
    assert!(serde_json::from_value::<ShapesArgsOperation>(json!({"type": "nope"})).is_err());
    // A negative index does not fit `minimum: 0` (`u64`).
    assert!(
        serde_json::from_value::<ShapesArgsOperation>(
            json!({"type": "insert", "index": -1, "text": ""})
        )
        .is_err()
    );
}

#[test]
fn string_enums_display_and_parse() {
    assert_eq!(ShapesArgsSign::Plus1.to_string(), "+1");
    assert_eq!(
        "-1".parse::<ShapesArgsSign>().unwrap(),
        ShapesArgsSign::Minus1
    );
    assert_eq!(ShapesArgsSign::Comma.as_str(), ",");
    assert_eq!(ShapesArgsSign::VALUES, ["+1", "-1", ",", "."]);
    let err = "x".parse::<ShapesArgsSign>().unwrap_err();
    assert_eq!(err.value, "x");
    assert_eq!(
        err.to_string(),
        r#"unknown value "x"; expected one of "+1", "-1", ",", ".""#
    );
    assert_eq!(
        serde_json::to_value(ShapesArgsSign::Dot).unwrap(),
        json!(".")
    );
    assert_eq!("half-even".parse(), Ok(GetSumArgsRoundMode::HalfEven));
}

#[test]
fn exact_values_unions_maps_tuples_and_refs() {
    // An integer `enum` is kept exact.
    assert_eq!(serde_json::to_value(ShapesArgsLevel::V2).unwrap(), json!(2));
    assert_eq!(
        serde_json::from_value::<ShapesArgsLevel>(json!(3)).unwrap(),
        ShapesArgsLevel::V3
    );
    assert!(serde_json::from_value::<ShapesArgsLevel>(json!(4)).is_err());
    assert!(serde_json::from_value::<ShapesArgsLevel>(json!("1")).is_err());
    // `3.0` is the schema's `3` (JSON Schema compares numbers by value, and the validator
    // accepts it), so it deserializes; it used to fail after passing validation.
    assert_eq!(
        serde_json::from_value::<ShapesArgsLevel>(json!(3.0)).unwrap(),
        ShapesArgsLevel::V3
    );
    assert!(serde_json::from_value::<ShapesArgsLevel>(json!(3.5)).is_err());
    // An untagged union of an integer and a string.
    assert_eq!(
        serde_json::from_value::<ShapesArgsId>(json!(5)).unwrap(),
        ShapesArgsId::Integer(5)
    );
    assert_eq!(
        serde_json::from_value::<ShapesArgsId>(json!("x")).unwrap(),
        ShapesArgsId::String("x".into())
    );
    let mut args = shapes(ShapesArgsOperation::Clear);
    args.id = Some(ShapesArgsId::String("a".into()));
    args.labels = Some([("k".to_owned(), "v".to_owned())].into());
    args.point = Some((1.5, 2.0));
    args.small = Some(255);
    args.both = Some(ShapesArgsBoth::new(true));
    let mut tagged = ShapesArgsTagged::new().with_name("n");
    tagged.additional_properties.insert("extra".to_owned(), 1);
    args.tagged = Some(tagged);
    // A recursive `$ref`: `Vec<Node>` and `Option<Box<Node>>` (the setter boxes).
    args.tree = Some(
        ShapesArgsNode::new("root")
            .with_children(vec![ShapesArgsNode::new("leaf")])
            .with_parent(ShapesArgsNode::new("up")),
    );
    let wire = json!({
        "both": {"a": true},
        "dryRun": true,
        "id": "a",
        "kind": "shapes/v1",
        "labels": {"k": "v"},
        "note": null,
        "operation": {"type": "clear"},
        "point": [1.5, 2.0],
        "schemaVersion": 1,
        "small": 255,
        "tagged": {"name": "n", "v": 2, "extra": 1},
        "tree": {"children": [{"label": "leaf"}], "label": "root", "parent": {"label": "up"}},
        "unit": "mm",
    });
    let value = serde_json::to_value(&args).unwrap();
    assert_eq!(value, wire);
    assert_eq!(serde_json::from_value::<ShapesArgs>(wire).unwrap(), args);
    // `uint8` is `u8`: 256 does not fit.
    let mut too_big = value;
    too_big["small"] = json!(256);
    assert!(serde_json::from_value::<ShapesArgs>(too_big).is_err());
}

#[test]
fn typed_outputs_are_validated_and_deserialized() {
    use oma_mcp_runtime::typed::{CallError, check_args, typed_output};
    let out = typed_output::<GetSum>(&json!({
        "content": [{"type": "text", "text": "3"}],
        "structuredContent": {"sum": 3}
    }))
    .unwrap();
    assert_eq!(out.output, GetSumOutput::new(3.0));
    assert_eq!(out.result.data, "3");
    // A root that is not an object (draft-07 dialect): an `i32`.
    let out = typed_output::<GetSum_h9096b3e4>(&json!({"structuredContent": 41})).unwrap();
    assert_eq!(out.output, 41);
    // FastMCP's wrapped form is unwrapped into the enum.
    let out = typed_output::<Ping>(&json!({"structuredContent": {"result": "busy"}})).unwrap();
    assert_eq!(out.output, PingOutput::Busy);
    // A value the schema does not list (the server added it): kept as sent, not an error.
    let out = typed_output::<Ping>(&json!({"structuredContent": {"result": "gone"}})).unwrap();
    assert_eq!(out.output, PingOutput::Unknown("gone".to_owned()));
    // A value of another type still fails.
    let err = typed_output::<Ping>(&json!({"structuredContent": {"result": 3}})).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid output from MCP tool \"ping\":\n- /result: 3 is not of type \"string\"\n\
         - /result: 3 is not one of \"pong\" or \"busy\""
    );
    // `additionalProperties: false`, and the server sent another member: kept in the map.
    let out =
        typed_output::<GetSum>(&json!({"structuredContent": {"sum": 3, "carry": 1}})).unwrap();
    assert_eq!(out.output.sum, 3.0);
    assert_eq!(out.output.additional_properties["carry"], json!(1));
    // No structuredContent: an error naming the tool.
    let err = typed_output::<GetSum>(&json!({"content": []})).unwrap_err();
    assert!(matches!(
        err,
        CallError::MissingStructuredContent {
            tool: "get-sum",
            ..
        }
    ));
    // Tools without an output schema give the structuredContent as sent.
    let out = typed_output::<Shapes>(&json!({"structuredContent": {"a": 1}})).unwrap();
    assert_eq!(out.output, Some(json!({"a": 1})));
    // Arguments are checked against the exact schema before anything is sent.
    assert!(check_args::<GetSum>(&GetSumArgs::new(1.0, 2.0)).is_ok());
    const { assert!(!GetSum_h9096b3e4::OUTPUT_WRAPPED) };
    const { assert!(Ping::OUTPUT_WRAPPED) };
}

/// Tagged tools keep their MCP names; tagged fields keep their JSON names on the wire.
#[test]
fn tagged_names_keep_their_mcp_and_json_names() {
    use colliding_names::*;
    assert_eq!(SearchA_h1dc0eb1b::MCP_NAME, "search-a");
    assert_eq!(SearchA_hc2a3138c::MCP_NAME, "search_a");
    assert_eq!(SearchA_h16730005::MCP_NAME, "SearchA");
    assert_eq!(SearchSpace::MCP_NAME, "search a");
    assert_eq!(Some_ha6b46dd0::MCP_NAME, "some");
    assert_eq!(Foo_h2c26b46b::MCP_NAME, "foo");
    assert_eq!(FooArgs_h110d3de3::MCP_NAME, "foo_args");
    // Setters of tagged fields carry the tag too (`with_foo_bar__h…`).
    let mut args = SearchA_h1dc0eb1bArgs::new("q")
        .with_foo_bar__h7d89c4f5(3)
        .with_foo_bar__h5a906c24(SearchA_h1dc0eb1bArgsFooBar_h5a906c24::new().with_x("y"))
        .with_foo_bar__h4928cae8(SearchA_h1dc0eb1bArgsFooBar_h4928cae8::Off);
    args.additional_properties.insert(
        "extra".to_owned(),
        SearchA_h1dc0eb1bArgsValue::new().with_note("n"),
    );
    assert_eq!(
        serde_json::to_value(&args).unwrap(),
        json!({
            "foo-bar": 3,
            "fooBar": {"x": "y"},
            "foo_bar": "off",
            "query": "q",
            "extra": {"note": "n"}
        })
    );
    let lone: LoneOutput = serde_json::from_value(json!({"additional_properties": "a"})).unwrap();
    assert_eq!(lone.additional_properties__h7011157b.as_deref(), Some("a"));
}

/// Output enums are open: the schema's values, and `Unknown` holding any other as sent; a
/// value named like the catch-all is tagged (`colliding_names`: `unknown` → `Unknown_hb23a6a84`).
#[test]
fn output_enums_keep_values_they_do_not_list() {
    use colliding_names::StatusOutputState as State;
    let read = |v: serde_json::Value| serde_json::from_value::<State>(v).unwrap();
    assert_eq!(read(json!("ok")), State::Ok);
    assert_eq!(read(json!("unknown")), State::Unknown_hb23a6a84);
    assert_eq!(read(json!("Unknown2")), State::Unknown2);
    assert_eq!(read(json!("paused")), State::Unknown("paused".to_owned()));
    assert_eq!(
        serde_json::to_value(State::Unknown("paused".to_owned())).unwrap(),
        json!("paused")
    );
    assert_eq!(
        serde_json::to_value(State::Unknown_hb23a6a84).unwrap(),
        json!("unknown")
    );
    assert_eq!("paused".parse(), Ok(State::Unknown("paused".to_owned())));
    assert_eq!(State::from("ok").to_string(), "ok");
    assert_eq!(State::VALUES, ["ok", "unknown", "Unknown2"]);
    assert!(serde_json::from_value::<State>(json!(1)).is_err());
    // Output structs keep unlisted members; argument enums stay closed.
    let out: colliding_names::StatusOutput =
        serde_json::from_value(json!({"state": "ok", "since": "today"})).unwrap();
    assert_eq!(out.state, State::Ok);
    assert_eq!(out.additional_properties["since"], json!("today"));
    assert_eq!(
        serde_json::to_value(&out).unwrap(),
        json!({"state": "ok", "since": "today"})
    );
    assert!(serde_json::from_value::<GetSumArgsRoundMode>(json!("sideways")).is_err());
}

/// Identical shapes convert: an entity `read_graph` returned goes back into
/// `create_entities` with `.reshape()` (the map of unlisted members is dropped on the way
/// into an argument, starts empty on the way into an output, moves along between outputs).
#[test]
fn same_shapes_convert_into_each_other() {
    use memory::*;
    let read: ReadGraphOutput = serde_json::from_value(json!({
        "entities": [{"name": "a", "entityType": "person", "observations": ["x"], "extra": 1}],
        "relations": []
    }))
    .unwrap();
    let kept: CreateEntitiesOutputEntitiesItem = read.entities[0].clone().reshape();
    assert_eq!(
        kept.additional_properties,
        [("extra".to_owned(), json!(1))].into_iter().collect()
    );
    let entities: Vec<CreateEntitiesArgsEntitiesItem> = read
        .entities
        .into_iter()
        .map(ReadGraphOutputEntitiesItem::reshape)
        .collect();
    let args = CreateEntitiesArgs::new(entities);
    assert_eq!(
        serde_json::to_value(&args).unwrap(),
        json!({"entities": [{"name": "a", "entityType": "person", "observations": ["x"]}]})
    );
    let back: CreateEntitiesOutputEntitiesItem = args.entities[0].clone().reshape();
    assert!(back.additional_properties.is_empty());
    assert_eq!(back.name, "a");
    let item = ReadGraphOutputEntitiesItem::new("b", "place", vec![]);
    let args = CreateEntitiesArgs::new(vec![item.reshape()]);
    assert_eq!(args.entities[0].entity_type, "place");
}

/// Every argument type knows its tool (`ToolArgs`), so `client.call(args)` needs no marker;
/// only tools that are not consequential are `NotConsequential`.
#[test]
fn arguments_know_their_tool() {
    use oma_mcp_runtime::{NotConsequential, ToolArgs};
    fn tool_of<A: ToolArgs>(_: &A) -> &'static str {
        <A::Tool as McpTool>::MCP_NAME
    }
    fn plain<T: NotConsequential>(_: T) -> bool {
        !T::CONSEQUENTIAL
    }
    assert_eq!(tool_of(&GetSumArgs::new(1.0, 2.0)), "get-sum");
    assert_eq!(tool_of(&FilesDeleteArgs::new(vec![], None)), "files/delete");
    assert_eq!(tool_of(&GetSum_h9096b3e4Args::new()), "get_sum");
    assert!(plain(GetSum));
    assert!(plain(Ping));
    assert!(plain(Shapes));
    // An argument type the schema cannot describe is still a type of its own: a struct whose
    // map holds every property.
    let mut untyped = hostile::RootUnionUntypedArgs::new();
    untyped
        .additional_properties
        .insert("s".to_owned(), json!("x"));
    assert_eq!(tool_of(&untyped), "root-union-untyped");
    assert_eq!(serde_json::to_value(&untyped).unwrap(), json!({"s": "x"}));
}

/// A consequential tool runs through a confirmed call (an unconfirmed one does not compile
/// for it: `tests/compile-fail/consequential_call.rs`). Compiled, not run (no server here).
#[allow(dead_code)]
async fn consequential_tools_run_with_a_confirmation(client: &oma_mcp_runtime::McpClient) {
    let args = FilesDeleteArgs::new(vec!["a.txt".to_owned()], None);
    let _: oma_mcp_runtime::ToolResult = client.call(args.clone()).confirmed().mapped().await;
    let typed = client.call(args).confirmed().typed().await;
    let _: Option<Option<serde_json::Value>> = typed.ok().map(|t| t.output);
    // Tools that are not consequential take a confirmation too.
    let _ = client
        .call(GetSumArgs::new(1.0, 2.0))
        .confirmed()
        .mapped()
        .await;
}

/// A constructor of 34 required properties (the hostile case `many-required`): the
/// `required` list's order, keywords as raw identifiers, the `const` sent by itself.
#[test]
fn many_required_properties_construct_in_required_order() {
    let args = hostile::ManyRequiredArgs::new(
        "23", "22", 21, "20", "19", 18, "17", "16", 15, "14", "13", 12, "11", "10", 9, "08", "07",
        6, "05", "04", 3, "02", "01", 0, "snake", "camel", "w", "n", "m", "a", "s", "f", "t", None,
    )
    .with_opt_in(true);
    let wire = serde_json::to_value(&args).unwrap();
    assert_eq!(wire["p23"], "23");
    assert_eq!(wire["p00"], 0);
    assert_eq!(wire["foo_bar"], "snake");
    assert_eq!(wire["fooBar"], "camel");
    assert_eq!(wire["type"], "t");
    assert_eq!(wire["self"], "s");
    assert_eq!(wire["mode"], "strict");
    assert_eq!(wire["maybe"], serde_json::Value::Null);
    assert_eq!(wire["opt_in"], true);
    assert_eq!(wire.as_object().unwrap().len(), 36);
}

/// The emitted `connect_config()` builds exactly the connection the golden case pins (see
/// `options` in `it/golden.rs`): every setting that is not a default is in the code.
#[test]
fn connect_config_is_the_pinned_connection() {
    use oma_mcp_runtime::{ConnectConfig, Lifecycle};
    assert_eq!(
        golden::connect_config(),
        ConnectConfig::new("/opt/golden/bin/golden-server")
            .with_args(["--stdio", "--log=warn"])
            .with_cwd("/opt/golden")
            .with_pass_env(["GOLDEN_TOKEN"])
            .with_env("GOLDEN_MODE", "test")
            .with_name_prefix("golden")
            .with_request_timeout(std::time::Duration::from_millis(20_000))
            .with_max_message_size(1024)
            .with_client_name("golden-agent")
            .with_client_version("1.2.0")
            .with_lifecycle(Lifecycle::Initialize)
    );
}

/// The `connect_config()` of the URL pin: `ConnectConfig::http` with the literal header and
/// the variables' names (see `options` in `it/golden.rs`).
#[test]
fn remote_connect_config_is_the_pinned_url() {
    use oma_mcp_runtime::ConnectConfig;
    assert_eq!(
        remote::connect_config(),
        ConnectConfig::http("https://api.githubcopilot.com/mcp/")
            .with_header("X-MCP-Toolsets", "repos,issues")
            .with_bearer_env("GITHUB_TOKEN")
            .with_header_env("X-Api-Key", "GITHUB_API_KEY")
            .with_name_prefix("github")
    );
    assert_eq!(
        <remote::SearchRepositories as oma_mcp_runtime::McpTool>::NAME,
        "github_search_repositories"
    );
}

/// The `connect_config()` of a URL pin without credentials or `oauth` table: the stored login
/// of `oma-mcp login github`, as every `oma-mcp` command uses it, optional (see `options` in
/// `it/golden.rs`).
#[test]
fn remote_login_connect_config_uses_the_stored_login() {
    use oma_mcp_runtime::ConnectConfig;
    use oma_mcp_runtime::connect::OAuthConfig;
    assert_eq!(
        remote_login::connect_config(),
        ConnectConfig::http("https://api.githubcopilot.com/mcp/")
            .with_header("X-MCP-Toolsets", "repos,issues")
            .with_oauth(
                OAuthConfig::authorization_code()
                    .with_login_command("oma-mcp login github")
                    .with_optional(true)
            )
            .with_name_prefix("github")
    );
}

/// The `connect_config()` of the OAuth pin: the grant, the client's variables and settings,
/// the command that logs in; no secret (see `options` in `it/golden.rs`).
#[test]
fn remote_oauth_connect_config_carries_the_oauth_settings() {
    use oma_mcp_runtime::ConnectConfig;
    use oma_mcp_runtime::connect::OAuthConfig;
    assert_eq!(
        remote_oauth::connect_config(),
        ConnectConfig::http("https://mcp.linear.app/mcp")
            .with_oauth(
                OAuthConfig::client_credentials("LINEAR_CLIENT_ID", "LINEAR_SECRET")
                    .with_scopes(["read", "write"])
                    .with_client_metadata_url("https://example.com/oma.json")
                    .with_private_key_env("LINEAR_KEY", Some("ES256"))
                    .with_login_command("oma-mcp login linear")
            )
            .with_name_prefix("linear")
    );
}

/// A prompt's arguments are its required ones from `new` and the optional ones set; its
/// marker carries the prompt's entry.
#[test]
fn prompts_take_their_required_arguments_first() {
    use oma_mcp_runtime::{McpPrompt, PromptArgs};
    let review = own::prompts::ReviewCodeArgs::new("fn main() {}");
    assert_eq!(
        review.arguments().into_iter().collect::<Vec<_>>(),
        [("code".to_owned(), "fn main() {}".to_owned())]
    );
    let styled = review.with_style("rustfmt");
    assert_eq!(styled.style.as_deref(), Some("rustfmt"));
    assert_eq!(styled.arguments().len(), 2);
    assert_eq!(
        (
            own::prompts::ReviewCode::NAME,
            own::prompts::ReviewCode::TITLE,
            own::prompts::ReviewCode::ARGUMENTS
        ),
        ("review_code", None, &["code", "style"][..])
    );
    assert_eq!(own::prompts::Greet::TITLE, Some("Greeting"));
    assert!(own::prompts::Greet::DIGEST.starts_with("sha256:"));
    // No argument: `Default`, and `{}` is not sent.
    let simple = everything::prompts::SimplePromptArgs::default();
    assert!(simple.arguments().is_empty());
    let args = everything::prompts::ArgsPromptArgs::new("Berlin");
    assert_eq!(args.arguments()["city"], "Berlin");
    assert!(!args.arguments().contains_key("state"));
}

/// Resources are constants; a template's type expands its URI as RFC 6570 says.
#[test]
fn resources_and_templates() {
    use oma_mcp_runtime::{ResourceTemplate, ResourceUri};
    let readme = own::resources::README;
    assert_eq!(
        (readme.uri, readme.name, readme.title, readme.mime_type),
        ("memo://readme", "readme", None, Some("text/markdown"))
    );
    assert_eq!(own::resources::GREETING.title, Some("Greeting"));
    assert_eq!(
        own::resources::Note::new("a/b c").uri().unwrap(),
        "memo://notes/a%2Fb%20c"
    );
    // Reserved expansion keeps `/`.
    let file = own::resources::File::new("docs/a b.md");
    assert_eq!(file.resource_uri().unwrap(), "file:///docs/a%20b.md");
    assert_eq!(
        <own::resources::File as ResourceTemplate>::URI_TEMPLATE,
        "file:///{+path}"
    );
    let text = everything::resources::DynamicTextResource::new("7");
    assert_eq!(text.resource_id, "7");
    assert_eq!(text.uri().unwrap(), "demo://resource/dynamic/text/7");
    assert_eq!(
        everything::resources::DynamicTextResource::MIME_TYPE,
        Some("text/plain")
    );
    assert_eq!(
        everything::resources::ARCHITECTURE_MD.uri,
        "demo://resource/static/document/architecture.md"
    );
}

/// Hostile names still give usable types: tagged where they meet (or meet the prelude or
/// the imported `StaticResource`), keywords as raw or suffixed fields, and every RFC 6570
/// operator expanded (a string for a variable both exploded and prefixed).
#[test]
fn hostile_offers_are_usable() {
    use hostile_offers::{prompts, resources};
    use oma_mcp_runtime::{McpPrompt, PromptArgs, ResourceTemplate};
    assert_eq!(prompts::Some_ha6b46dd0::NAME, "some");
    assert_eq!(prompts::ReviewCode_hc950ebd1::NAME, "review code");
    assert_eq!(prompts::ReviewCode_h2f344955::ARGUMENTS, [] as [&str; 0]);
    let args = prompts::Some_ha6b46dd0Args::new("x", "y").with_a_b__h648fa9b3("z");
    assert_eq!(
        args.arguments().into_iter().collect::<Vec<_>>(),
        [
            ("_non_exhaustive".to_owned(), "y".to_owned()),
            ("a-b".to_owned(), "x".to_owned()),
            ("a_b".to_owned(), "z".to_owned()),
        ]
    );
    assert_eq!(
        (resources::A_MD_HF09C21E6.uri, resources::A_MD_H5944489A.uri),
        ("memo://a", "memo://b")
    );
    assert_eq!(resources::SELF.uri, "memo://d\u{202e}");
    assert_eq!(resources::STATIC_RESOURCE.mime_type, Some("text/\"plain\""));
    assert_eq!(
        resources::StaticResource_h3e2ceff6::new("1").uri().unwrap(),
        "memo://1"
    );
    let repo = resources::RepoContents::new("o w", "r", "src/main.rs").with_ref("main");
    assert_eq!(
        repo.uri().unwrap(),
        "repo://o%20w/r/contents/src%2Fmain.rs?ref=main&path=sr"
    );
    let keywords = resources::Keywords::new("t", "s", "n", "f");
    assert_eq!(keywords.uri().unwrap(), "x://t/s/n#f");
    assert_eq!(
        resources::None_h140bedbf::new().uri().unwrap(),
        "plain://fixed"
    );
}

/// Texts with line breaks keep their exact value (the formatter indents no line of a raw
/// literal), a repeated argument is one field, and long constructors and digit-led setters
/// compile without a lint.
#[test]
fn hostile_offers_keep_their_texts() {
    use hostile_offers::{prompts, resources};
    use oma_mcp_runtime::{McpPrompt, PromptArgs, ResourceTemplate};
    assert_eq!(
        prompts::Many::DESCRIPTION,
        Some("Line one\n    indented line two\nLine \"three\" #\"#")
    );
    assert_eq!(
        resources::MULTI.description,
        Some("First line\nsecond line\n  third")
    );
    assert_eq!(resources::Wide::DESCRIPTION, Some("Eight\nvariables"));
    let many = prompts::ManyArgs::new("0", "1", "2", "3", "4", "5", "6", "7").with_2fa("x");
    assert_eq!(many.arguments().len(), 9);
    assert_eq!(many.arguments()["2fa"], "x");
    assert_eq!(prompts::Repeated::ARGUMENTS, ["a", "b"]);
    let wide = resources::Wide::new("a", "b", "c", "d", "e", "f", "g", "h").with_2fa("1");
    assert_eq!(wide.uri().unwrap(), "w://a/b/c/d/e/f/g/h?2fa=1");
}
