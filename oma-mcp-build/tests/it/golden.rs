//! Golden tests, one pair per case: the code generated for `fixtures/<case>.json` is
//! `fixtures/<case>.rs`, byte for byte. [`options`] gives each case its generator options
//! (the default for a case it does not name). A new case is a new `fixtures/<case>.json`: the
//! first blessed run writes its `.rs`.
//!
//! After an intended change to the generator, regenerate the expected files and review the
//! diff:
//!
//! ```text
//! OMA_MCP_BLESS=1 cargo test -p oma-mcp-build --all-features --test it golden::
//! git diff oma-mcp-build/tests/fixtures/
//! ```
//!
//! Without `OMA_MCP_BLESS` the comparison is strict and never writes. The `golden_behavior`
//! test binary compiles the expected files and checks what the generated types do at run time.

// Test code: a failed unwrap is a test failure with its message.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use oma_mcp_build::Manifest;
use oma_mcp_build::codegen::{GenerateOptions, PinnedConnection, generate};
use oma_mcp_runtime::connect::OAuthConfig;
use oma_mcp_runtime::{ConnectConfig, Lifecycle, Snapshot};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// The cases: the stem of every `fixtures/*.json`, sorted.
fn cases() -> Vec<String> {
    let mut cases: Vec<String> = std::fs::read_dir(fixture(""))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .filter_map(|path| Some(path.file_stem()?.to_str()?.to_owned()))
        .collect();
    cases.sort();
    cases
}

/// The options each case is generated with.
///
/// - `golden`: a prefix, one glob and one rename entry, so all show (`get-sum` keeps
///   `GetSum`, and `get_sum`, whose name meets it, is tagged), and a pinned connection with
///   every setting that is not a default, so `connect_config()` and `connect()` are in the
///   golden (and compiled by `golden_behavior`).
/// - `colliding_names`: one rename entry (`search a` → `SearchSpace`).
/// - `remote`: a server pinned by URL, with a literal header, a bearer variable and a header
///   variable, so its `connect_config()` (`ConnectConfig::http`, variable names only) and the
///   `__require_http!` guard before it are in the golden.
/// - `remote_login`: a manifest's URL pin with nothing but its `url`, a literal header and a
///   prefix, its options from the pin (`ServerPin::generate_options`): its `connect_config()`
///   uses the stored login of `oma-mcp login github`, as every `oma-mcp` command does, and
///   needs no feature `oauth` (no `__require_oauth!`: the OAuth is optional).
/// - `everything` and `own`: server-everything's and the own test server's snapshots (copies
///   of the examples' pins), with their prompts, resources and resource templates, so the
///   `prompts` and `resources` submodules are in the goldens (and compiled, and their types
///   checked, by `golden_behavior`).
/// - `hostile_offers`: prompts, resources and templates with names and texts meant to break the
///   generator (keywords, the prelude's names, names that meet, an unclosed template, every
///   RFC 6570 operator), compiled under `deny(warnings)` by `golden_behavior`.
/// - any other case: the defaults.
fn options(case: &str) -> GenerateOptions {
    match case {
        "golden" => GenerateOptions::default()
            .with_name_prefix("golden")
            .with_consequential(["files/*"])
            .with_not_consequential(["ping"])
            .with_rename([("get-sum", "GetSum")])
            .with_connection(PinnedConnection::new(
                "golden",
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
                    .with_lifecycle(Lifecycle::Initialize),
            )),
        "colliding_names" => GenerateOptions::default().with_rename([("search a", "SearchSpace")]),
        "remote" => GenerateOptions::default()
            .with_name_prefix("github")
            .with_connection(PinnedConnection::new(
                "github",
                ConnectConfig::http("https://api.githubcopilot.com/mcp/")
                    .with_header("X-MCP-Toolsets", "repos,issues")
                    .with_bearer_env("GITHUB_TOKEN")
                    .with_header_env("X-Api-Key", "GITHUB_API_KEY")
                    .with_name_prefix("github"),
            )),
        "remote_login" => Manifest::parse(
            "[servers.github]\nurl = \"https://api.githubcopilot.com/mcp/\"\nprefix = \"github\"\n\
             headers = { \"X-MCP-Toolsets\" = \"repos,issues\" }\n",
            Path::new("/p/oma-mcp.toml"),
        )
        .unwrap()
        .servers["github"]
            .generate_options(),
        "remote_oauth" => GenerateOptions::default()
            .with_name_prefix("linear")
            .with_connection(PinnedConnection::new(
                "linear",
                ConnectConfig::http("https://mcp.linear.app/mcp")
                    .with_oauth(
                        OAuthConfig::client_credentials("LINEAR_CLIENT_ID", "LINEAR_SECRET")
                            .with_scopes(["read", "write"])
                            .with_client_metadata_url("https://example.com/oma.json")
                            .with_private_key_env("LINEAR_KEY", Some("ES256"))
                            .with_login_command("oma-mcp login linear"),
                    )
                    .with_name_prefix("linear"),
            )),
        _ => GenerateOptions::default(),
    }
}

/// Compares the code generated for `fixtures/<case>.json` with `fixtures/<case>.rs` (or
/// writes it with `OMA_MCP_BLESS`); returns the generated output.
fn check_golden(case: &str) -> oma_mcp_build::Generated {
    let snapshot = Snapshot::read(&fixture(&format!("{case}.json"))).unwrap();
    let generated = generate(&snapshot, &options(case)).unwrap();
    crate::generated::assert_generated(&generated.code, &snapshot, case);
    let expected_path = fixture(&format!("{case}.rs"));
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
             `OMA_MCP_BLESS=1 cargo test -p oma-mcp-build --all-features --test it golden::` \
             and review the diff.\n--- generated ---\n{}",
            expected_path.display(),
            first_diff + 1,
            generated.code
        );
    }
    generated
}

/// Every case has its golden, and matches it.
#[test]
fn every_case_matches_its_golden() {
    let cases = cases();
    assert_eq!(
        cases,
        [
            "colliding_names",
            "everything",
            "golden",
            "hostile",
            "hostile_offers",
            "memory",
            "own",
            "remote",
            "remote_login",
            "remote_oauth"
        ]
    );
    for case in &cases {
        check_golden(case);
    }
}

/// Names that meet (`fixtures/colliding_names.json` → `fixtures/colliding_names.rs`): the tools `search-a`,
/// `search_a` and `SearchA` all tagged, `search a` renamed, `some` (the prelude's `Some`)
/// and `foo`/`foo_args` (`FooArgs`) tagged; the properties `fooBar`/`foo_bar`/`foo-bar` and
/// their nested types tagged, a lone `fooBar` plain, `additional_properties` tagged beside
/// the typed map's field. `golden_behavior` compiles it under `deny(warnings)`.
#[test]
fn colliding_names_golden_output_is_exact() {
    let generated = check_golden("colliding_names");
    assert_eq!(generated.warnings, []);
}

#[test]
fn golden_output_is_exact() {
    let generated = check_golden("golden");
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

/// A server pinned by URL (`fixtures/remote.json` → `fixtures/remote.rs`): the module starts
/// its connection with the `__require_http!` guard, then `connect_config()` from
/// `ConnectConfig::http` with the literal header and the variables' names, never a value.
/// `golden_behavior` compiles it (with the runtime's feature `http`) and compares its
/// `connect_config()`.
#[test]
fn remote_golden_output_is_exact() {
    let generated = check_golden("remote");
    assert_eq!(generated.warnings, []);
    if std::env::var_os("OMA_MCP_BLESS").is_some() {
        return;
    }
    let code = &generated.code;
    let guard = "::oma_mcp_runtime::__require_http!(\"github\");\n\n";
    let config = "pub fn connect_config() -> ::oma_mcp_runtime::ConnectConfig {\n    \
                  ::oma_mcp_runtime::ConnectConfig::http(\"https://api.githubcopilot.com/mcp/\")\n        \
                  .with_header(\"X-MCP-Toolsets\", \"repos,issues\")\n        \
                  .with_bearer_env(\"GITHUB_TOKEN\")\n        \
                  .with_header_env(\"X-Api-Key\", \"GITHUB_API_KEY\")\n";
    assert_eq!(code.matches(guard).count(), 1, "{code}");
    assert!(code.contains(config), "{code}");
    assert!(
        code.find(guard) < code.find("pub fn connect_config()"),
        "the guard comes first:\n{code}"
    );
}

/// A manifest's URL pin with nothing but its `url` (`fixtures/remote_login.json` →
/// `fixtures/remote_login.rs`): its `connect_config()` uses the stored login as `oma-mcp`
/// does (the authorization code grant, errors naming `oma-mcp login github`), optional, so
/// the module has the `__require_http!` guard and no `__require_oauth!`.
/// `golden_behavior` compiles it and compares its `connect_config()`.
#[test]
fn a_url_pin_without_credentials_generates_the_stored_login() {
    let generated = check_golden("remote_login");
    assert_eq!(generated.warnings, []);
    if std::env::var_os("OMA_MCP_BLESS").is_some() {
        return;
    }
    let code = &generated.code;
    let config = [
        "::oma_mcp_runtime::__require_http!(\"github\");",
        "",
        "/// The connection to server `github` as the manifest pins it (URL, literal headers, prefix, request",
        "/// timeout), with OAuth: it uses the login that `oma-mcp login github` stored, read when it",
        "/// connects.",
        "#[allow(dead_code, clippy::pedantic, missing_docs)]",
        "pub fn connect_config() -> ::oma_mcp_runtime::ConnectConfig {",
        "    ::oma_mcp_runtime::ConnectConfig::http(\"https://api.githubcopilot.com/mcp/\")",
        "        .with_header(\"X-MCP-Toolsets\", \"repos,issues\")",
        "        .with_oauth(",
        "            ::oma_mcp_runtime::connect::OAuthConfig::authorization_code()",
        "                .with_login_command(\"oma-mcp login github\")",
        "                .with_optional(true)",
        "        )",
        "        .with_name_prefix(\"github\")",
        "        .with_request_timeout(::core::time::Duration::from_millis(60000))",
        "}",
    ]
    .join("\n");
    assert!(code.contains(&config), "{code}");
    assert!(!code.contains("__require_oauth!"), "{code}");
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
        "pub struct RootUnionUntypedArgs {\n    /// Every property (the arguments are not typed).\n    \
         #[serde(flatten)]\n    pub additional_properties: ::std::collections::BTreeMap<\n",
        // Keywords beside a `$ref` are merged with its object target (root and nested).
        "    pub p: RefSiblingsArgsP,\n",
        "    pub y: i64,\n    #[serde(skip)]\n    _non_exhaustive: (),\n}",
        // Dozens of required properties: the constructor takes them in the `required` list's
        // order (reversed here), keywords raw, tagged fields tagged, the `const` left out.
        "    pub fn new(\n        p23: impl ::core::convert::Into<::std::string::String>,\n        \
         p22: impl ::core::convert::Into<::std::string::String>,\n        p21: i64,\n",
        "        foo_bar__h4928cae8: impl ::core::convert::Into<::std::string::String>,\n        \
         foo_bar__h5a906c24: impl ::core::convert::Into<::std::string::String>,\n        \
         with_type: impl ::core::convert::Into<::std::string::String>,\n        \
         new: impl ::core::convert::Into<::std::string::String>,\n        \
         r#match: impl ::core::convert::Into<::std::string::String>,\n        \
         r#async: impl ::core::convert::Into<::std::string::String>,\n        \
         self_: impl ::core::convert::Into<::std::string::String>,\n        \
         r#fn: impl ::core::convert::Into<::std::string::String>,\n        \
         r#type: impl ::core::convert::Into<::std::string::String>,\n        \
         maybe: ::core::option::Option<bool>,\n    ) -> Self {\n",
        "    pub fn with_opt_in(mut self, opt_in: bool) -> Self {",
        "pub struct RefSiblingsArgsP {\n    pub x: ::std::string::String,\n    #[serde(skip)]\n    _non_exhaustive: (),\n}",
    ] {
        assert!(code.contains(ident), "{ident} missing:\n{code}");
    }
    let messages: Vec<String> = first.warnings.iter().map(ToString::to_string).collect();
    for expected in [
        "tool \"deep\" at /inputSchema/properties/level/properties/level/properties/level/properties/level/properties/level/properties/level/properties/level/properties/level/properties/level/properties/level/properties/level/properties/level/properties/level/properties/level/properties/level/properties/level/properties/level: the schema is nested deeper than 16 levels; using serde_json::Value",
        "tool \"not-an-object\" at /inputSchema: inputSchema is a string, not a JSON object; the argument struct has no fields",
        "tool \"long\" at /inputSchema: inputSchema has type \"string\", not \"object\"; the argument struct has no fields",
        "tool \"weird-schemas\" at /inputSchema/properties/n: invalid subschema: expected an object or a boolean, found null; using serde_json::Value",
        "tool \"root-union-untyped\" at /inputSchema/anyOf: the arguments are not typed: a branch of the root `anyOf` is not an object schema; using a struct that holds them all in a JSON map",
    ] {
        assert!(
            messages.contains(&expected.to_owned()),
            "{expected}\nnot in {messages:#?}"
        );
    }
}

/// A resource template that is not RFC 6570 gets no type, and one warning says so and how to
/// read it instead; a prompt argument listed twice is generated once, with a warning.
#[test]
fn invalid_offers_are_warnings() {
    let generated = check_golden("hostile_offers");
    let warnings: Vec<String> = generated.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [
            "prompt \"repeated\": the argument \"a\" is listed more than once; the first is kept",
            "resource template \"broken\": URI template \"memo://{id\": invalid URI template: \
             expression not closed (at 7-th byte); it gets no type (read it by URI with \
             `client.read(uri)`)"
        ]
    );
    assert!(!generated.code.contains("pub struct Broken"));
}
