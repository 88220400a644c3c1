//! Golden tests: the exact code generated for `fixtures/golden.json` is
//! `fixtures/golden.rs`, and for `fixtures/names.json` (names that meet) `fixtures/names.rs`,
//! byte for byte.
//!
//! After an intended change to the generator, regenerate the expected file and review the
//! diff:
//!
//! ```text
//! OMA_MCP_BLESS=1 cargo test -p oma-mcp-build --test golden
//! git diff oma-mcp-build/tests/fixtures/golden.rs oma-mcp-build/tests/fixtures/names.rs
//! ```
//!
//! Without `OMA_MCP_BLESS` the comparison is strict and never writes. `golden_behavior.rs`
//! compiles the expected files and checks what the generated types do at run time.

// Test code: a failed unwrap is a test failure with its message.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use oma_mcp_build::codegen::{GenerateOptions, generate};
use oma_mcp_runtime::Snapshot;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// The options the golden file is generated with (a prefix, one glob and one rename entry,
/// so all show: `get-sum` keeps `GetSum`, and `get_sum`, whose name meets it, is tagged).
fn options() -> GenerateOptions {
    GenerateOptions::default()
        .with_name_prefix("golden")
        .with_consequential(["files/*"])
        .with_not_consequential(["ping"])
        .with_rename([("get-sum", "GetSum")])
}

/// Compares the code generated for `fixtures/<json>` with `fixtures/<rs>` (or writes it
/// with `OMA_MCP_BLESS`); returns the generated output.
fn check_golden(json: &str, rs: &str, options: &GenerateOptions) -> oma_mcp_build::Generated {
    let snapshot = Snapshot::read(&fixture(json)).unwrap();
    let generated = generate(&snapshot, options).unwrap();
    let expected_path = fixture(rs);
    if std::env::var_os("OMA_MCP_BLESS").is_some() {
        std::fs::write(&expected_path, &generated.code).unwrap();
        eprintln!("wrote {}", expected_path.display());
        return generated;
    }
    let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
    if generated.code != expected {
        let first_diff = generated
            .code
            .lines()
            .zip(expected.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| generated.code.lines().count().min(expected.lines().count()));
        panic!(
            "generated code differs from {} (first at line {}); if the change is intended, run \
             `OMA_MCP_BLESS=1 cargo test -p oma-mcp-build --test golden` and review the diff.\n\
             --- generated ---\n{}",
            expected_path.display(),
            first_diff + 1,
            generated.code
        );
    }
    generated
}

/// Names that meet (`fixtures/names.json` → `fixtures/names.rs`): the tools `search-a`,
/// `search_a` and `SearchA` all tagged, `search a` renamed, `some` (the prelude's `Some`)
/// and `foo`/`foo_args` (`FooArgs`) tagged; the properties `fooBar`/`foo_bar`/`foo-bar` and
/// their nested types tagged, a lone `fooBar` plain, `additional_properties` tagged beside
/// the typed map's field. `golden_behavior.rs` compiles it under `deny(warnings)`.
#[test]
fn names_golden_output_is_exact() {
    let options = GenerateOptions::default().with_rename([("search a", "SearchSpace")]);
    let generated = check_golden("names.json", "names.rs", &options);
    assert_eq!(generated.warnings, []);
}

#[test]
fn golden_output_is_exact() {
    let generated = check_golden("golden.json", "golden.rs", &options());
    if std::env::var_os("OMA_MCP_BLESS").is_some() {
        return;
    }
    assert_eq!(
        generated
            .warnings
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        [
            "tool \"files/delete\" at /inputSchema/properties/bad: invalid subschema: expected \
             an object or a boolean, found a string; using serde_json::Value",
            "tool \"shapes\" at /inputSchema/properties/remote/$ref: `$ref` \
             \"https://example.com/schema.json\" is not a local reference (only `#…` references \
             are resolved; nothing is fetched); using serde_json::Value",
        ]
    );
}

#[test]
fn hostile_input_generates_valid_deterministic_code() {
    let snapshot = Snapshot::read(&fixture("hostile.json")).unwrap();
    let first = generate(&snapshot, &GenerateOptions::default()).unwrap();
    let second = generate(&snapshot, &GenerateOptions::default()).unwrap();
    assert_eq!(first, second);
    let code = &first.code;
    syn::parse_file(code).unwrap();
    // Control and bidi characters never reach the source as such.
    for bad in ['\0', '\r', '\u{202e}'] {
        assert!(!code.contains(bad), "{bad:?} in generated code");
    }
    // The header is comments only: the server name cannot start an attribute.
    let header: Vec<&str> = code.lines().take_while(|l| !l.is_empty()).collect();
    assert!(header.iter().all(|l| l.starts_with("// ")), "{header:?}");
    // The description's code block stays text.
    assert!(code.contains("/// ```text\n"), "{code}");
    assert!(!code.contains("/// ```\nfn main"), "{code}");
    for ident in [
        "pub r#type:",
        // Properties whose fields meet (`self`/`Self`, `A.B`/`a-b`/`a_b`, and `""`, `$%^`,
        // `_`, `🚀`, which all fall back to `field`) are each tagged with the SHA-256 of
        // their JSON name (`printf '%s' self | sha256sum` starts with 06c604b3).
        "#[serde(rename = \"self\")]\n    pub self__h06c604b3:",
        "pub self__h85bc0f95:",
        "pub field__he3b0c442:",
        "pub crate_:",
        "pub super_:",
        "pub r#async:",
        "pub r#fn:",
        "pub _1st:",
        "pub u540d_u524d:",
        "pub a_b__h4b861d8b:",
        "pub a_b__hd44362d6:",
        "pub a_b__h648fa9b3:",
        "#[allow(non_snake_case)]\npub struct Tool_he3b0c442Args {",
        // Tools whose names meet (`self`/`Self`) are tagged the same way.
        "pub struct SelfTool_h06c604b3;",
        "pub struct SelfTool_h85bc0f95;",
        "pub struct Tool1passwordGet;",
        "pub struct NsToolV2Beta_h94aad397;",
        "pub struct NsToolV2Beta_h83960962;",
        "Self_,",
        // Prelude constructors stay unshadowed (schemars' derive calls a bare `Some(..)`):
        // a tool named `some` contests `Some` and is tagged.
        "pub struct Some_ha6b46dd0;",
        "pub struct None_h140bedbf;",
        "pub struct Ok_h2689367b;",
        "pub struct Err_hd9eb253e;",
        // A recursive union is one type per `$defs` entry, boxed where it refers back.
        "    N(::std::boxed::Box<RecursiveUnionsArgsN>),\n",
        // Root `$ref`, `allOf`, `anyOf` and `oneOf` (the unit tests in `codegen::schema`
        // assert their exact type model).
        "pub struct RootRefArgs {",
        "pub struct RootAllOfArgs {",
        "pub enum RootAnyOfArgs {",
        "pub enum RootOneOfArgs {",
        "pub type RootUnionUntypedArgs = ::oma_mcp_runtime::__private::serde_json::Map<",
        // Keywords beside a `$ref` are merged with its object target (root and nested).
        "    pub p: RefSiblingsArgsP,\n",
        "    pub y: i64,\n}",
        "pub struct RefSiblingsArgsP {\n    pub x: ::std::string::String,\n}",
    ] {
        assert!(code.contains(ident), "{ident} missing:\n{code}");
    }
    let messages: Vec<String> = first.warnings.iter().map(ToString::to_string).collect();
    for expected in [
        "tool \"deep\" at /inputSchema/properties/level/properties/level/properties/level/properties/level/properties/level/properties/level/properties/level/properties/level/properties/level/properties/level/properties/level/properties/level/properties/level/properties/level/properties/level/properties/level/properties/level: the schema is nested deeper than 16 levels; using serde_json::Value",
        "tool \"not-an-object\" at /inputSchema: inputSchema is a string, not a JSON object; the argument struct has no fields",
        "tool \"long\" at /inputSchema: inputSchema has type \"string\", not \"object\"; the argument struct has no fields",
        "tool \"weird-schemas\" at /inputSchema/properties/n: invalid subschema: expected an object or a boolean, found null; using serde_json::Value",
        "tool \"root-union-untyped\" at /inputSchema/anyOf: the arguments are not typed: a branch of the root `anyOf` is not an object schema; using a JSON object map (serde_json::Map)",
    ] {
        assert!(
            messages.contains(&expected.to_owned()),
            "{expected}\nnot in {messages:#?}"
        );
    }
}
