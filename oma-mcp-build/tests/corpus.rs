//! Generates code for every real server in the shared corpus and every corpus case that
//! holds tools, and compiles each server's code in a crate of its own that depends only on
//! `oma-mcp-runtime`, with a round trip of every tool.
//!
//! The corpus is `corpus/` of the shared reference folder, found by
//! `oma_mcp_test_support::shared_dir` (variable `OMA_MCP_SHARED`); when it is absent the
//! corpus tests print one line and pass, unless `CI` is set, where they fail.

// Test code: a failed unwrap is a test failure with its message.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use oma_mcp_build::codegen::{GenerateOptions, Generated, generate};
use oma_mcp_runtime::{Snapshot, Validator};
use serde_json::{Value, json};

#[path = "common/generated.rs"]
mod generated;
#[path = "common/nested_cargo.rs"]
mod nested_cargo;
#[path = "corpus/sample.rs"]
mod sample;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn corpus() -> Option<PathBuf> {
    oma_mcp_test_support::shared_dir().map(|dir| dir.join("corpus"))
}

fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

/// Generates twice, checks that it parses, follows the layout and keeps the snapshot's texts
/// (`common/generated.rs`), and is byte-identical.
fn generate_checked(snapshot: &Snapshot, what: &Path) -> Generated {
    let first = generate(snapshot, &GenerateOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", what.display()));
    generated::assert_generated(&first.code, snapshot, &what.display().to_string());
    let second = generate(snapshot, &GenerateOptions::default()).unwrap();
    assert!(
        first == second,
        "{}: output differs between runs",
        what.display()
    );
    let unformatted = generate(snapshot, &GenerateOptions::default().with_format(false)).unwrap();
    assert_eq!(unformatted.warnings, first.warnings, "{}", what.display());
    if let Err(e) = generated::same_tokens(&unformatted.code, &first.code) {
        panic!("{}: {e}", what.display());
    }
    first
}

/// The `serde_json::Value` fallbacks of each corpus server ([`fallback_count`]), exactly; a
/// server not listed has none.
const EXPECTED_FALLBACKS: &[(&str, usize)] = &[("desktop-commander", 1), ("notion-mcp-server", 6)];

#[test]
fn every_corpus_server_generates() {
    let Some(corpus) = corpus() else { return };
    let mut total_tools = 0;
    let mut total_warnings = 0;
    let mut fallbacks_by_server = Vec::new();
    for path in json_files(&corpus.join("servers")) {
        let server = path.file_stem().unwrap().to_string_lossy().into_owned();
        let snapshot = Snapshot::read(&path).unwrap();
        let generated = generate_checked(&snapshot, &path);
        total_tools += snapshot.tools.len();
        total_warnings += generated.warnings.len();
        let fallbacks = fallback_count(&generated.code);
        println!(
            "{server}: {} tools, {} warnings, {fallbacks} serde_json::Value fallbacks",
            snapshot.tools.len(),
            generated.warnings.len()
        );
        for w in &generated.warnings {
            println!("  {w}");
        }
        if fallbacks > 0 {
            fallbacks_by_server.push((server, fallbacks));
        }
    }
    let total_fallbacks: usize = fallbacks_by_server.iter().map(|(_, n)| n).sum();
    println!(
        "total: {total_tools} tools, {total_warnings} warnings, {total_fallbacks} \
         serde_json::Value fallbacks"
    );
    assert_eq!(total_tools, 744);
    assert_eq!(total_warnings, 0);
    let expected: Vec<(String, usize)> = EXPECTED_FALLBACKS
        .iter()
        .map(|(s, n)| ((*s).to_owned(), *n))
        .collect();
    assert_eq!(fallbacks_by_server, expected);
}

/// How many schema parts became `serde_json::Value` because the type model could not express
/// them: each one carries a doc note "Typed as `serde_json::Value`: …" (or "Items typed as
/// …"). Schemas that allow any value on purpose (`true`, `{}`) are not counted.
fn fallback_count(code: &str) -> usize {
    code.matches("yped as `serde_json::Value`").count()
}

/// The tool descriptors of a corpus case: `tools`, `tool`, or the pages of `responses`
/// (first listing of each name wins, as a paging client would keep it).
fn case_tools(case: &Value) -> Vec<Value> {
    let mut tools: Vec<Value> = Vec::new();
    let mut push = |t: &Value| {
        if !tools.iter().any(|x| x.get("name") == t.get("name")) {
            tools.push(t.clone());
        }
    };
    if let Some(Value::Array(list)) = case.get("tools") {
        list.iter().for_each(&mut push);
    }
    if let Some(tool) = case.get("tool") {
        push(tool);
    }
    if let Some(Value::Array(pages)) = case.get("responses") {
        for page in pages {
            if let Some(Value::Array(list)) = page.pointer("/result/tools") {
                list.iter().for_each(&mut push);
            }
        }
    }
    tools
}

#[test]
fn every_corpus_case_with_tools_generates() {
    let Some(corpus) = corpus() else { return };
    let mut cases = 0;
    for path in json_files(&corpus.join("cases")) {
        let case: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let tools = case_tools(&case);
        if tools.is_empty() {
            continue;
        }
        cases += 1;
        let snapshot = Snapshot::from_descriptors(None, None, None, tools).unwrap();
        let generated = generate_checked(&snapshot, &path);
        println!(
            "{}: {} tools, {} warnings",
            path.file_stem().unwrap().to_string_lossy(),
            snapshot.tools.len(),
            generated.warnings.len()
        );
        for w in &generated.warnings {
            println!("  {w}");
        }
    }
    assert!(cases >= 10, "only {cases} cases with tools");
}

#[test]
fn case_expectations() {
    let Some(corpus) = corpus() else { return };
    let code = |name: &str| {
        let path = corpus.join("cases").join(name);
        let case: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let snapshot = Snapshot::from_descriptors(None, None, None, case_tools(&case)).unwrap();
        generate_checked(&snapshot, &path);
        // The type model, read in the emitter's layout (one line a field or signature),
        // which formatting changes only in whitespace.
        generate(&snapshot, &GenerateOptions::default().with_format(false)).unwrap()
    };
    // 01: a local `$ref` into `$defs` is a named type of the tool, nothing fetched.
    let g = code("01-defs-ref-in-input-schema.json");
    assert!(
        g.code
            .contains("pub query_model: ListSchedulesArgsScheduleQuery,"),
        "{}",
        g.code
    );
    assert!(
        g.code
            .contains("pub struct ListSchedulesArgsScheduleQuery {")
    );
    assert!(g.code.contains("/// Default: `20`.\n"), "{}", g.code);
    assert!(g.code.contains("pub limit: ::core::option::Option<u64>,"));
    assert_eq!(g.warnings, []);
    // 05: `anyOf` with null is an `Option`, the `oneOf` tagged by a `const` is an enum.
    let c = code("05-anyof-null-const-oneof-fastmcp.json").code;
    assert!(
        c.contains("pub user_email: ::core::option::Option<::std::string::String>,"),
        "{c}"
    );
    assert!(
        c.contains("pub operations: ::std::vec::Vec<BatchUpdateDocArgsOperationsItem>,"),
        "{c}"
    );
    assert!(
        c.contains("#[serde(crate = \"::oma_mcp_runtime::__private::serde\", tag = \"type\")]\npub enum BatchUpdateDocArgsOperationsItem {"),
        "{c}"
    );
    assert!(
        c.contains("InsertText(BatchUpdateDocArgsOperationsItemInsertText),"),
        "{c}"
    );
    // 06: a schema without `type` stays `serde_json::Value` with a note, no warning.
    let g = code("06-integer-union-missing-type-codex.json");
    assert!(
        g.code
            .contains("/// Typed as `serde_json::Value`: the schema has no `type`.\n")
    );
    assert!(
        g.code.contains("pub page: ::core::option::Option<u64>,"),
        "{}",
        g.code
    );
    assert_eq!(g.warnings, []);
    // 34: a draft-07 tuple of fixed length is a Rust tuple.
    let c = code("34-tuple-items-draft07-vs-prefixItems-2020-12.json").code;
    assert!(
        c.contains(
            "pub arg1: (::std::string::String, ::oma_mcp_runtime::__private::serde_json::Map<"
        ),
        "{c}"
    );
    // 03: `type: [T, "null"]` is an optional Rust type.
    let c = code("03-type-array-nullable-array.json").code;
    assert!(
        c.contains("pub languages: ::core::option::Option<::std::vec::Vec<::std::string::String>>"),
        "{c}"
    );
    // 08: dots and slashes give valid, distinct names.
    let c = code("08-tool-names-dot-slash.json").code;
    for name in [
        "CalendarRespondToEvent",
        "DocsGetText",
        "UserProfileUpdate",
        "HostingRestartNodeJsApplicationV1",
    ] {
        assert!(c.contains(&format!("pub struct {name};")), "{name}: {c}");
    }
    // 28: the property named `type` is a raw identifier, its invalid schema a warning.
    let g = code("28-property-named-type-invalid-subschema.json");
    assert!(
        g.code.contains(
            "pub r#type: ::core::option::Option<::oma_mcp_runtime::__private::serde_json::Value>"
        ),
        "{}",
        g.code
    );
    assert_eq!(g.warnings.len(), 1);
    assert_eq!(g.warnings[0].pointer, "/inputSchema/properties/type");
    // 29: array without items, object without properties.
    let c = code("29-array-without-items-and-object-without-properties.json").code;
    assert!(c.contains("pub targets: ::core::option::Option<::std::vec::Vec<::oma_mcp_runtime::__private::serde_json::Value>>,"), "{c}");
    assert!(
        c.contains("pub struct GetListsArgs {\n    #[serde(skip)]\n    _non_exhaustive: (),\n}"),
        "{c}"
    );
    // 23: output schemas whose root is not an object: a tagged enum, a plain type.
    let g = code("23-output-schema-root-not-object.json");
    assert!(
        g.code.contains("pub enum ReadMemoryOutput {\n    /// `\"status\": \"ok\"`.\n    #[serde(rename = \"ok\")]\n    Ok(ReadMemoryOutputOk),"),
        "{}",
        g.code
    );
    assert!(g.code.contains("    type Output = ReadMemoryOutput;\n"));
    assert!(
        g.code.contains("pub data: ReadMemoryOutputMemoryBlock,"),
        "{}",
        g.code
    );
    assert!(g.code.contains("pub type SubOutput = i32;"), "{}", g.code);
    assert_eq!(g.warnings, []);
    // 26: a draft-07 output schema is kept with its `$schema` (the runtime validates in that
    // dialect) and gives a struct, which keeps members the schema does not list
    // (`additionalProperties: false` today, but the server may add some).
    let c = code("26-output-schema-draft07-dialect.json").code;
    assert!(
        c.contains(
            "pub struct ListAllowedDirectoriesOutput {\n    pub content: ::std::string::String,\n    \
             /// Properties the schema does not list, kept as sent (a server may add some after \
             the\n    /// snapshot).\n    #[serde(flatten)]\n    pub additional_properties: \
             ::std::collections::BTreeMap<::std::string::String, "
        ),
        "{c}"
    );
    assert!(
        c.contains(
            "    const OUTPUT_SCHEMA: ::core::option::Option<&'static str> = \
             ::core::option::Option::Some(r#\"{\n  \"$schema\": \"http://json-schema.org/draft-07/schema#\",\n"
        ),
        "{c}"
    );
    // 21, 22: output schemas of an object with and without properties.
    let c = code("21-error-result-structured-content-mismatch.json").code;
    assert!(c.contains("pub total_files: f64,"), "{c}");
    let c = code("22-output-schema-but-no-structured-content.json").code;
    assert!(c.contains("    type Output = GetContextOutput;\n"), "{c}");
    assert!(
        c.contains("pub type GetContextOutput = ::oma_mcp_runtime::__private::serde_json::Map<"),
        "{c}"
    );
    // 24: missing or empty input schemas give empty argument structs.
    let c = code("24-input-schema-missing-type-or-empty.json").code;
    let empty = |name: &str| {
        format!("pub struct {name} {{\n    #[serde(skip)]\n    _non_exhaustive: (),\n}}")
    };
    assert!(c.contains(&empty("ReadFileArgs")), "{c}");
    assert!(c.contains(&empty("MergeMergeRequestArgs")), "{c}");
    assert!(c.contains("pub description: ::std::string::String,"), "{c}");
}

/// Writes one crate per corpus server and fixture, each depending only on
/// `oma-mcp-runtime` and including its generated code inside a `mod`, into one nested
/// workspace (`codegen-check` in cargo's `CARGO_TARGET_TMPDIR`, which follows
/// `CARGO_TARGET_DIR`; shared between runs); runs `cargo clippy` on it with
/// warnings denied, then the generated round-trip tests of every tool.
#[test]
#[ignore = "slow tier (nested cargo build of the whole corpus, minutes): scripts/test runs it; alone: cargo test -p oma-mcp-build --all-features --test corpus -- --ignored generated_code_compiles"]
fn generated_code_compiles() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut inputs = vec![
        ("hostile".to_owned(), fixtures.join("hostile.json")),
        ("golden".to_owned(), fixtures.join("golden.json")),
    ];
    match corpus() {
        Some(corpus) => {
            for path in json_files(&corpus.join("servers")) {
                let name = path.file_stem().unwrap().to_string_lossy().into_owned();
                inputs.push((name, path));
            }
        }
        None => println!("compiling the fixtures only"),
    }
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("codegen-check");
    let root = target.join("crates");
    let runtime = workspace().join("oma-mcp-runtime").canonicalize().unwrap();
    let mut members = Vec::new();
    let mut stats = RoundTripStats::default();
    for (name, path) in &inputs {
        let module = name.replace('-', "_");
        let krate = root.join(name);
        std::fs::create_dir_all(krate.join("src")).unwrap();
        write_if_changed(
            &krate.join("Cargo.toml"),
            &format!(
                "[package]\nname = \"check-{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
                 publish = false\n\n[dependencies]\noma-mcp-runtime.workspace = true\n"
            ),
        );
        let snapshot = Snapshot::read(path).unwrap();
        // The corpus servers derive `JsonSchema` (the fixtures have a module of each kind).
        let is_fixture = path.starts_with(&fixtures);
        let generated = generate(
            &snapshot,
            &GenerateOptions::default()
                .with_name_prefix(name)
                .with_schemars(!is_fixture),
        )
        .unwrap();
        write_if_changed(&krate.join(format!("src/{module}.rs")), &generated.code);
        let mut lib = format!(
            "//! Generated code of oma-mcp-build for `{name}`, compiled with warnings denied.\n\
             #![deny(warnings, missing_docs)]\n\n#[cfg(test)]\nmod round_trip;\n\n\
             /// Tools of `{name}`.\npub mod {module} {{\n    include!(\"{module}.rs\");\n}}\n"
        );
        let mut round_trip = String::from(ROUND_TRIP_HEADER);
        round_trip.push_str(&round_trip_test(
            &module,
            &snapshot,
            &generated,
            !is_fixture,
            &mut stats,
        ));
        // The fixtures again with `schemars::JsonSchema` derived (`GenerateOptions::with_schemars`).
        if is_fixture {
            let mut options = GenerateOptions::default()
                .with_name_prefix(name)
                .with_schemars(true);
            if name == "golden" {
                // As `golden.rs` generates it: `get-sum` keeps `GetSum`, `get_sum` is tagged.
                options = options.with_rename([("get-sum", "GetSum")]);
            }
            let generated = generate(&snapshot, &options).unwrap();
            let module = format!("{module}_schemars");
            write_if_changed(&krate.join(format!("src/{module}.rs")), &generated.code);
            lib.push_str(&format!(
                "\n/// Tools of `{name}`, deriving `JsonSchema`.\npub mod {module} {{\n    include!(\"{module}.rs\");\n}}\n"
            ));
            if name == "golden" {
                round_trip.push_str(SCHEMARS_TEST);
            }
        }
        write_if_changed(&krate.join("src/lib.rs"), &lib);
        write_if_changed(&krate.join("src/round_trip.rs"), &round_trip);
        members.push(format!("crates/{name}"));
    }
    let manifest = format!(
        "# One crate per server, written by oma-mcp-build/tests/corpus.rs.\n[workspace]\n\
         resolver = \"3\"\nmembers = {members:?}\n\n[workspace.dependencies]\n\
         oma-mcp-runtime = {{ path = {:?}, features = [\"schemars\", \"validate\"] }}\n\n\
         [profile.dev]\ndebug = false\nincremental = false\n",
        runtime.display().to_string()
    );
    write_if_changed(&target.join("Cargo.toml"), &manifest);
    // The workspace's lock file pins the same dependency versions, so nothing is resolved anew.
    let lock = std::fs::read_to_string(workspace().join("Cargo.lock")).unwrap();
    write_if_changed(&target.join("Cargo.lock"), &lock);
    println!(
        "round trip: {} tools, {} sampled (required and all fields), {} without a sample that \
         passes its own schema, {} with a missing required field, {} with a violated bound",
        stats.tools, stats.sampled, stats.unsampled, stats.missing, stats.bad
    );
    println!(
        "exact JsonSchema: {} argument types, {} output types",
        stats.exact_args, stats.exact_outputs
    );
    // Every corpus tool gets samples (`pattern`s included: see `sample::matching`); only
    // fixture tools whose schemas are broken on purpose do not (they do not compile: an
    // external `$ref`, `"bad": "object"`; or nest past the sampler's depth).
    let fixtures_only = [
        "hostile::deep",
        "hostile::long",
        "hostile::ref-siblings",
        "hostile::root-union-untyped",
        "hostile::weird-schemas",
        "golden::files/delete",
        "golden::shapes",
    ];
    assert_eq!(
        stats.unsampled_tools, fixtures_only,
        "tools without a sample that passes their own schema"
    );
    assert_eq!(stats.unsampled, fixtures_only.len());
    // clippy, not just check: users who deny clippy warnings include this code too.
    run_cargo(
        &target,
        &["clippy", "--workspace", "--quiet"],
        "cargo clippy",
    );
    // The round trip of every tool (src/round_trip.rs): samples through the generated types
    // and back, validated against each tool's original schema by the runtime.
    run_cargo(&target, &["test", "--workspace", "--quiet"], "round trip");
}

/// Runs the nested `cargo <args>` on the workspace in `dir` (also its target dir) and fails
/// the test, with cargo's output, when it does not succeed.
fn run_cargo(dir: &Path, args: &[&str], what: &str) {
    let output = nested_cargo::cargo(&dir.join("target"))
        .args(args)
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml"))
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "{what} of the generated code in {} failed:\n{}\n{}",
        dir.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The helper of the generated round-trip tests.
const ROUND_TRIP_HEADER: &str = r#"//! Round trip of every tool: a sample with the required fields and one with every field
//! deserialize into the generated argument type, serialize back, and pass the tool's
//! original input schema (`oma_mcp_runtime::typed::check_args`); a sample missing a
//! required field or violating a bound is rejected locally, by the type or by validation.

use ::oma_mcp_runtime::McpTool;
use ::oma_mcp_runtime::__private::serde::de::DeserializeOwned;
use ::oma_mcp_runtime::__private::serde_json::{self, Value};
use ::oma_mcp_runtime::typed::check_args;
use ::oma_mcp_runtime::__private::schemars::{JsonSchema, schema_for};

fn check<T: McpTool>(samples: [&str; 2], missing: Option<&str>, bad: Option<&str>)
where
    T::Args: DeserializeOwned,
{
    for sample in samples {
        let value: Value = serde_json::from_str(sample).unwrap();
        let args: T::Args = serde_json::from_value(value)
            .unwrap_or_else(|e| panic!("{}: {sample} does not deserialize: {e}", T::MCP_NAME));
        if let Err(e) = check_args::<T>(&args) {
            panic!("{}: {sample} round-trips to a value its schema rejects: {e}", T::MCP_NAME);
        }
    }
    for rejected in [missing, bad].into_iter().flatten() {
        let value: Value = serde_json::from_str(rejected).unwrap();
        if let Ok(args) = serde_json::from_value::<T::Args>(value) {
            assert!(
                check_args::<T>(&args).is_err(),
                "{}: {rejected} was accepted locally",
                T::MCP_NAME
            );
        }
    }
}

/// `schema_for!(T::Args)` is the tool's input schema (but for the `title` and `$schema`
/// schemars sets on a root).
#[allow(dead_code)]
fn exact_args_schema<T: McpTool>()
where
    T::Args: JsonSchema,
{
    let want: Value = serde_json::from_str(T::INPUT_SCHEMA).unwrap();
    same_schema(T::MCP_NAME, "input", schema_for!(T::Args).to_value(), want);
}

/// `schema_for!(T::Output)` is the tool's output schema (its `result` member when wrapped).
#[allow(dead_code)]
fn exact_output_schema<T: McpTool>()
where
    T::Output: JsonSchema,
{
    let mut want: Value = serde_json::from_str(T::OUTPUT_SCHEMA.unwrap()).unwrap();
    let got = schema_for!(T::Output).to_value();
    if T::OUTPUT_WRAPPED {
        want = want["properties"]["result"].clone();
        assert_eq!(got.get("properties"), want.get("properties"), "{}: output", T::MCP_NAME);
        return;
    }
    same_schema(T::MCP_NAME, "output", got, want);
}

#[allow(dead_code)]
fn same_schema(tool: &str, what: &str, mut got: Value, mut want: Value) {
    let required = |v: &Value| {
        let mut names: Vec<String> = v
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default();
        names.sort();
        names
    };
    assert_eq!(got.get("properties"), want.get("properties"), "{tool}: {what} properties");
    assert_eq!(required(&got), required(&want), "{tool}: {what} required");
    for schema in [&mut got, &mut want] {
        if let Some(object) = schema.as_object_mut() {
            object.remove("title");
            object.remove("$schema");
        }
    }
    assert_eq!(got, want, "{tool}: {what} schema");
}
"#;

/// What the `JsonSchema` impls give: schemas a user can re-expose; the root types have the
/// tool's exact schema, nested types derived ones.
const SCHEMARS_TEST: &str = r##"
#[test]
fn schemars_derives() {
    use super::golden_schemars as g;
    let args = schema_for!(g::GetSumArgs).to_value();
    assert_eq!(args["required"], serde_json::json!(["a", "b"]));
    assert_eq!(
        args["properties"]["roundMode"],
        serde_json::json!({"enum": ["up", "down", "half-even"], "type": "string"})
    );
    assert_eq!(args["title"], "GetSumArgs");
    let output = schema_for!(g::GetSumOutput).to_value();
    assert_eq!(output["required"], serde_json::json!(["sum"]));
    assert_eq!(output["additionalProperties"], false);
    // FastMCP's wrapped form: the type is the `result` member.
    let ping = schema_for!(g::PingOutput).to_value();
    assert_eq!(ping["enum"], serde_json::json!(["pong", "busy"]));
    // Constants and required nullable fields are in the root schema, as the server sent it.
    let shapes = schema_for!(g::ShapesArgs).to_value();
    assert_eq!(
        shapes["required"],
        serde_json::json!(["operation", "kind", "note", "schemaVersion"])
    );
    assert_eq!(shapes["properties"]["schemaVersion"], serde_json::json!({"const": 1, "type": "integer"}));
    assert_eq!(shapes["$defs"]["Sign"]["enum"], serde_json::json!(["+1", "-1", ",", "."]));
    // A nested struct derives its schema; its constants are added to it.
    let tagged = schema_for!(g::ShapesArgsTagged).to_value();
    assert_eq!(tagged["properties"]["v"], serde_json::json!({"const": 2}));
    assert_eq!(tagged["properties"]["name"]["type"], serde_json::json!(["string", "null"]));
    assert_eq!(
        schema_for!(g::ShapesArgsLevel).to_value()["enum"],
        serde_json::json!([1, 2, 3])
    );
    exact_args_schema::<g::Shapes>();
    exact_args_schema::<g::GetSum>();
    exact_output_schema::<g::GetSum>();
    exact_output_schema::<g::Ping>();
}
"##;

#[derive(Default)]
struct RoundTripStats {
    tools: usize,
    exact_args: usize,
    exact_outputs: usize,
    sampled: usize,
    unsampled: usize,
    unsampled_tools: Vec<String>,
    missing: usize,
    bad: usize,
}

/// The `#[test]` of one generated module: a `check` call per tool with samples built from
/// its input schema (see `corpus/sample.rs`) that pass that schema; with `schemars`, checks
/// that the `JsonSchema` of the argument and output types is the tool's exact schema.
fn round_trip_test(
    module: &str,
    snapshot: &Snapshot,
    generated: &Generated,
    schemars: bool,
    stats: &mut RoundTripStats,
) -> String {
    let markers = markers(&generated.code);
    let mut body = String::new();
    for tool in &snapshot.tools {
        stats.tools += 1;
        if schemars {
            let marker = &markers[tool.name()];
            // A type alias (a JSON object map, `i32`) has its foreign type's schema.
            if !generated.code.contains(&format!("pub type {marker}Args =")) {
                stats.exact_args += 1;
                body.push_str(&format!(
                    "    exact_args_schema::<super::{module}::{marker}>();\n"
                ));
            }
            let output = format!("{marker}Output");
            if generated
                .code
                .contains(&format!("    type Output = {output};\n"))
                && !generated.code.contains(&format!("pub type {output} ="))
            {
                stats.exact_outputs += 1;
                body.push_str(&format!(
                    "    exact_output_schema::<super::{module}::{marker}>();\n"
                ));
            }
        }
        let schema = match tool.input_schema() {
            Some(s @ Value::Object(_)) => s.clone(),
            _ => json!({"type": "object"}),
        };
        let Ok(validator) = Validator::new(tool.name(), &schema) else {
            stats.unsampled += 1;
            stats
                .unsampled_tools
                .push(format!("{module}::{}", tool.name()));
            continue;
        };
        // Arguments are an object; a tool whose schema wants anything else gets none.
        let accepts = |v: &Value| v.is_object() && validator.validate(v).is_ok();
        let (Some(required), Some(all)) = (
            sample::sample(&schema, &schema, false).filter(accepts),
            sample::sample(&schema, &schema, true).filter(accepts),
        ) else {
            stats.unsampled += 1;
            stats
                .unsampled_tools
                .push(format!("{module}::{}", tool.name()));
            continue;
        };
        stats.sampled += 1;
        let missing = sample::drop_required(&schema, &required, accepts)
            .filter(|m| !accepts(m))
            .map(|m| m.to_string());
        let bad = sample::violate_bound(&schema, &all)
            .filter(|b| !accepts(b))
            .map(|b| b.to_string());
        stats.missing += usize::from(missing.is_some());
        stats.bad += usize::from(bad.is_some());
        let marker = &markers[tool.name()];
        body.push_str(&format!(
            "    check::<super::{module}::{marker}>([{:?}, {:?}], {:?}, {:?});\n",
            required.to_string(),
            all.to_string(),
            missing,
            bad
        ));
    }
    format!("\n#[test]\nfn {module}() {{\n{body}}}\n")
}

/// The marker type of each raw MCP name in generated code.
fn markers(code: &str) -> std::collections::HashMap<String, String> {
    let file = syn::parse_file(code).unwrap();
    let mut out = std::collections::HashMap::new();
    for item in file.items {
        let syn::Item::Impl(imp) = item else { continue };
        let Some((path, _)) = &imp.trait_ else {
            continue;
        };
        if path.segments.last().is_none_or(|s| s.ident != "McpTool") {
            continue;
        }
        let syn::Type::Path(ty) = &*imp.self_ty else {
            continue;
        };
        let marker = ty.path.segments.last().unwrap().ident.to_string();
        for item in &imp.items {
            if let syn::ImplItem::Const(c) = item
                && c.ident == "MCP_NAME"
                && let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) = &c.expr
            {
                out.insert(s.value(), marker.clone());
            }
        }
    }
    out
}

fn write_if_changed(path: &Path, text: &str) {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::write(path, text).unwrap();
    }
}

/// The sampler's strings for the corpus's `pattern`s, and its rules.
#[test]
fn pattern_samples() {
    let m = |pattern: &str, min: usize| sample::matching(pattern, min);
    assert_eq!(
        m(r"^[A-Z][A-Z0-9_]+-\d+(?:-\d+)*$", 0).as_deref(),
        Some("A0-0")
    );
    assert_eq!(m("^[A-Z][A-Z0-9_]+$", 0).as_deref(), Some("A0"));
    assert_eq!(
        m(r"^[.\-A-Za-z0-9]+([=!,]{1,2}[./\-A-Za-z0-9]+)+$", 0).as_deref(),
        Some("0!0")
    );
    assert_eq!(m(r"^([/_.\-A-Za-z0-9=, ()!])+$", 0).as_deref(), Some("0"));
    // `minLength` stretches the repetitions; alternations take their first branch.
    assert_eq!(m("^[a-z]+$", 3).as_deref(), Some("aaa"));
    assert_eq!(m("^(foo|bar){1,2}x?$", 5).as_deref(), Some("foofoox"));
    // ECMA-262 look-arounds are not Rust regex syntax.
    assert_eq!(m("^(?=a)a$", 0), None);
}
