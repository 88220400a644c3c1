use super::*;

#[test]
fn parses_and_resolves_paths() {
    let text = r#"
            [servers.everything]
            command = "node_modules/.bin/srv"
            args = ["stdio"]
            env = { A = "1" }
            pass-env = ["HOME"]
            prefix = "ev"
            consequential = ["write_*"]
            not-consequential = ["move_*"]
            consequential-annotations = "ignore"
            schemars = true
            request-timeout-ms = 5000

            [servers.time]
            command = "uvx"
            cwd = "py"
            snapshot = "snap/time.json"
        "#;
    let m = Manifest::parse(text, Path::new("/p/oma-mcp.toml")).unwrap();
    let ev = m.server("everything").unwrap();
    assert_eq!(ev.program, PathBuf::from("/p/node_modules/.bin/srv"));
    assert_eq!(ev.command, "node_modules/.bin/srv");
    assert_eq!(ev.cwd, PathBuf::from("/p"));
    assert_eq!(
        ev.snapshot,
        PathBuf::from("/p/mcp/everything.snapshot.json")
    );
    assert_eq!(ev.request_timeout, Duration::from_secs(5));
    assert_eq!(ev.prefix.as_deref(), Some("ev"));
    let time = m.server("time").unwrap();
    assert_eq!(time.program, PathBuf::from("uvx"));
    assert_eq!(time.cwd, PathBuf::from("/p/py"));
    assert_eq!(time.snapshot, PathBuf::from("/p/snap/time.json"));
    assert_eq!(time.request_timeout, Duration::from_secs(60));
    assert_eq!(ev.not_consequential, ["move_*"]);
    assert_eq!(ev.consequential_annotations, AnnotationPolicy::Ignore);
    assert!(ev.schemars);
    assert_eq!(time.consequential_annotations, AnnotationPolicy::Trust);
    assert!(!time.schemars && time.not_consequential.is_empty());
    let bad = "[servers.x]\ncommand = \"x\"\nconsequential-annotations = \"maybe\"\n";
    let err = Manifest::parse(bad, Path::new("m.toml"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("unknown variant `maybe`, expected `trust` or `ignore`"),
        "{err}"
    );
}

/// The module the generator writes for `pin` with a snapshot of no tools: its
/// `connect_config()` and `connect()`.
fn connection_code(pin: &ServerPin) -> String {
    let empty = oma_mcp_core::Snapshot::from_descriptors(None, None, None, Vec::new())
        .expect("no tools is a snapshot");
    crate::codegen::generate(&empty, &pin.generate_options())
        .expect("generates")
        .code
}

/// `lifecycle` reaches the connection and the generated `connect_config()`; the default
/// generates what manifests without the key always did.
#[test]
fn lifecycle_reaches_the_connection_and_the_generated_code() {
    use oma_mcp_core::config::Lifecycle;
    let text = "[servers.old]\ncommand = \"o\"\nlifecycle = \"initialize\"\n\
                    [servers.new]\ncommand = \"n\"\nlifecycle = \"discover\"\n\
                    [servers.any]\ncommand = \"a\"\nlifecycle = \"auto\"\n\
                    [servers.unset]\ncommand = \"u\"\n";
    let m = Manifest::parse(text, Path::new("/p/oma-mcp.toml")).unwrap();
    for (name, lifecycle, code) in [
        (
            "old",
            Lifecycle::Initialize,
            Some(".with_lifecycle(::oma_mcp_runtime::Lifecycle::Initialize)"),
        ),
        (
            "new",
            Lifecycle::Discover,
            Some(".with_lifecycle(::oma_mcp_runtime::Lifecycle::Discover)"),
        ),
        ("any", Lifecycle::Auto, None),
        ("unset", Lifecycle::Auto, None),
    ] {
        let pin = m.server(name).unwrap();
        assert_eq!(pin.lifecycle, lifecycle, "{name}");
        assert_eq!(pin.connect_config().lifecycle, lifecycle, "{name}");
        let generated = connection_code(pin);
        let lines: Vec<&str> = generated
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with(".with_lifecycle"))
            .collect();
        assert_eq!(lines, code.into_iter().collect::<Vec<_>>(), "{name}");
    }
}

/// A URL pin uses OAuth as `oma-mcp` does: its `oauth` table, else (without a credential
/// of its own) the stored login of `oma-mcp login <name>`, optional; a command pin none.
#[test]
fn a_url_pin_without_credentials_uses_the_stored_login() {
    use oma_mcp_core::config::OAuthConfig;
    let text = "[servers.bare]\nurl = \"https://a.example/mcp\"\n\
                    [servers.keyed]\nurl = \"https://a.example/mcp\"\nheader-env = { X-Api-Key = \"K\" }\n\
                    [servers.bearer]\nurl = \"https://a.example/mcp\"\nbearer-env = \"T\"\n\
                    [servers.header]\nurl = \"https://a.example/mcp\"\nheader-env = { authorization = \"T\" }\n\
                    [servers.table]\nurl = \"https://a.example/mcp\"\n[servers.table.oauth]\nscopes = [\"r\"]\n\
                    [servers.started]\ncommand = \"s\"\n";
    let m = Manifest::parse(text, Path::new("/p/oma-mcp.toml")).unwrap();
    let oauth = |name: &str| m.servers[name].connect_config().oauth;
    let stored = |name: &str| {
        OAuthConfig::authorization_code()
            .with_login_command(format!("oma-mcp login {name}"))
            .with_optional(true)
    };
    assert_eq!(oauth("bare"), Some(stored("bare")));
    assert_eq!(oauth("keyed"), Some(stored("keyed")));
    assert_eq!(oauth("bearer"), None);
    assert_eq!(oauth("header"), None);
    assert_eq!(
        oauth("table"),
        Some(
            OAuthConfig::authorization_code()
                .with_scopes(["r"])
                .with_login_command("oma-mcp login table")
        )
    );
    assert_eq!(oauth("started"), None);
}

#[test]
fn client_name_and_version_reach_connect_config_and_its_code() {
    let text =
        "[servers.a]\ncommand = \"x\"\nclient-name = \"my-agent\"\nclient-version = \"1.2.0\"\n";
    let m = Manifest::parse(text, Path::new("/p/oma-mcp.toml")).unwrap();
    let config = m.servers["a"].connect_config();
    assert_eq!(
        (config.client_name.as_str(), config.client_version.as_str()),
        ("my-agent", "1.2.0")
    );
    let code = connection_code(&m.servers["a"]);
    assert!(
        code.contains(".with_client_name(\"my-agent\")\n        .with_client_version(\"1.2.0\")"),
        "{code}"
    );
    let plain = Manifest::parse("[servers.a]\ncommand = \"x\"\n", Path::new("m.toml")).unwrap();
    let config = plain.servers["a"].connect_config();
    assert_eq!(
        (config.client_name.as_str(), config.client_version.as_str()),
        ("open-multi-agent", "0.0.0")
    );
    assert!(!connection_code(&plain.servers["a"]).contains("with_client"));
}

/// The consequential rule of a pin reaches the connection and the generated
/// `connect_config()`, so the tool layer marks discovered tools as the generated code
/// does; the defaults generate nothing.
#[test]
fn consequential_entries_reach_connect_config_and_its_code() {
    let text = "[servers.a]\ncommand = \"x\"\nconsequential = [\"rm\", \"drop_*\"]\n\
                    not-consequential = [\"move\"]\nconsequential-annotations = \"ignore\"\n";
    let m = Manifest::parse(text, Path::new("/p/oma-mcp.toml")).unwrap();
    let config = m.servers["a"].connect_config();
    assert_eq!(
        (
            config.consequential.as_slice(),
            config.not_consequential.as_slice(),
            config.consequential_annotations
        ),
        (
            ["rm".to_owned(), "drop_*".to_owned()].as_slice(),
            ["move".to_owned()].as_slice(),
            AnnotationPolicy::Ignore
        )
    );
    let code = connection_code(&m.servers["a"]);
    assert!(
        code.contains(
            "        .with_consequential([\"rm\", \"drop_*\"])\n        \
                 .with_not_consequential([\"move\"])\n        \
                 .with_consequential_annotations(::oma_mcp_runtime::consequential::AnnotationPolicy::Ignore)\n"
        ),
        "{code}"
    );
    let plain = Manifest::parse("[servers.a]\ncommand = \"x\"\n", Path::new("m.toml")).unwrap();
    let code = connection_code(&plain.servers["a"]);
    assert!(!code.contains(".with_consequential") && !code.contains(".with_not_consequential"));
}

/// `tools` and `exclude-tools` reach the connection, its generated code and the generator,
/// which writes code for the selected tools only and warns of an entry that matches none;
/// an empty `tools` and an invalid glob are errors naming the server and the key.
#[test]
fn tool_selection_reaches_connect_config_the_generator_and_its_code() {
    let text = "[servers.a]\ncommand = \"x\"\ntools = [\"echo\", \"get_*\", \"gone\"]\n\
                exclude-tools = [\"get_env\"]\n[servers.a.rename]\nget_env = \"Env\"\n";
    let m = Manifest::parse(text, Path::new("/p/oma-mcp.toml")).unwrap();
    let pin = &m.servers["a"];
    let config = pin.connect_config();
    assert_eq!(config.tools, ["echo", "get_*", "gone"]);
    assert_eq!(config.exclude_tools, ["get_env"]);
    assert_eq!(pin.tools, config.tool_selection().unwrap());
    let snapshot = oma_mcp_core::Snapshot::parse_embedded(
        r#"{"tools": [{"name": "echo"}, {"name": "get_env"}, {"name": "get_sum"},
            {"name": "delete_all"}]}"#,
    )
    .unwrap();
    let generated = crate::codegen::generate(&snapshot, &pin.generate_options()).unwrap();
    let code = &generated.code;
    assert!(
        code.contains("// Tools: 2 of 4 (the pin's `tools` and `exclude-tools`)\n"),
        "{code}"
    );
    assert!(
        code.contains("pub const TOOL_NAMES: &[&str] = &[\"echo\", \"get_sum\"];"),
        "{code}"
    );
    assert!(
        !code.contains("DeleteAll") && !code.contains("pub struct Env;"),
        "{code}"
    );
    assert!(
        code.contains(
            "        .with_tools([\"echo\", \"get_*\", \"gone\"])\n        \
             .with_exclude_tools([\"get_env\"])\n"
        ),
        "{code}"
    );
    assert_eq!(
        generated
            .warnings
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        [
            "tool \"gone\": the `tools` entry matches no tool of the snapshot (check its spelling, \
          or remove it if the server dropped the tool)"
        ]
    );
    let names = crate::codegen::rust_names(&snapshot, &pin.generate_options()).unwrap();
    assert_eq!(names.tools.keys().collect::<Vec<_>>(), ["echo", "get_sum"]);

    let err = |text: &str| {
        Manifest::parse(text, Path::new("m.toml"))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        err("[servers.a]\ncommand = \"x\"\ntools = []\n"),
        "manifest m.toml is not valid: servers.a.tools is empty, so no tool would get code; \
         list the tools the crate uses (names or globs), or leave `tools` out to use every tool"
    );
    assert_eq!(
        err("[servers.a]\ncommand = \"x\"\nexclude-tools = [\"a[\"]\n"),
        "manifest m.toml is not valid: servers.a: invalid `exclude-tools` pattern \"a[\" at \
         character 1: invalid range pattern (use an exact tool name or a glob such as \
         \"delete_*\"; an entry is read as a glob, so a name holding `*`, `?`, `[`, `]`, `{` or \
         `}` puts each such character in brackets: \"a[[]b\" is the name a[b)"
    );
    let plain = Manifest::parse("[servers.a]\ncommand = \"x\"\n", Path::new("m.toml")).unwrap();
    assert!(plain.servers["a"].tools.is_all());
    let code = connection_code(&plain.servers["a"]);
    assert!(!code.contains(".with_tools") && !code.contains(".with_exclude_tools"));
}

/// `[servers.<name>.rename]` reaches the code generator, whose errors name the entry
/// by its manifest key.
#[test]
fn rename_table_reaches_the_generator() {
    let text = "[servers.x]\ncommand = \"x\"\n\n[servers.x.rename]\n\"search-a\" = \
                    \"SearchHyphen\"\n\"gone tool\" = \"Gone\"\n";
    let m = Manifest::parse(text, Path::new("/p/oma-mcp.toml")).unwrap();
    let pin = m.server("x").unwrap();
    let options = pin.generate_options();
    assert_eq!(options.rename["search-a"], "SearchHyphen");
    let snapshot = oma_mcp_core::Snapshot::parse(
        r#"{"tools": [{"name": "search-a"}, {"name": "search_a"}]}"#,
        Path::new("s.json"),
    )
    .unwrap();
    let err = crate::codegen::generate(&snapshot, &options).unwrap_err();
    assert_eq!(
        err.to_string(),
        "servers.x.rename.\"gone tool\": the snapshot has no tool of that name; use a raw \
             MCP tool name as the snapshot lists it, or remove the entry"
    );
    let options = options.with_rename([("search-a", "SearchHyphen")]);
    let names = crate::codegen::rust_names(&snapshot, &options).unwrap();
    assert_eq!(names.tools["search-a"], "SearchHyphen");
    assert_eq!(names.tools["search_a"], "SearchA");
    let bad = "[servers.x]\ncommand = \"x\"\nrename = { a = 1 }\n";
    let err = Manifest::parse(bad, Path::new("m.toml"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("invalid type: integer `1`, expected a string"),
        "{err}"
    );
}

#[test]
fn errors_name_the_file_and_key() {
    let err = |text: &str| {
        Manifest::parse(text, Path::new("x/oma-mcp.toml"))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        err("[servers.a]\ncommand = \"x\"\nargz = []\n"),
        "manifest x/oma-mcp.toml is not valid: TOML parse error at line 3, column 1\n  |\n3 | argz = []\n  | ^^^^\nunknown field `argz`, expected one of `command`, `url`, `args`, `cwd`, `env`, `pass-env`, `headers`, `bearer-env`, `header-env`, `oauth`, `prefix`, `snapshot`, `cassettes`, `consequential`, `not-consequential`, `consequential-annotations`, `tools`, `exclude-tools`, `schemars`, `request-timeout-ms`, `max-message-bytes`, `client-name`, `client-version`, `lifecycle`, `rename`, `pin`, `max-list-items`, `accept`, `registry`\n"
    );
    assert_eq!(
        err("[servers.\"a b\"]\ncommand = \"x\"\n"),
        "manifest x/oma-mcp.toml is not valid: server name \"a b\" must be non-empty ASCII letters, digits, `-` or `_` (it names the generated file)"
    );
    let m = Manifest::parse("[servers.a]\ncommand = \"x\"\n", Path::new("m.toml")).unwrap();
    assert_eq!(
        m.server("b").unwrap_err().to_string(),
        "manifest m.toml pins no server named \"b\"; it pins: a"
    );
    assert_eq!(
        err("[servers.a]\ncommand = \"x\"\nsnapshot = \"./oma-mcp.toml\"\n"),
        "manifest x/oma-mcp.toml is not valid: servers.a.snapshot is the manifest itself; give \
             the snapshot a file of its own such as \"mcp/a.snapshot.json\""
    );
    assert_eq!(
        err("[servers.a]\ncommand = \"x\"\nmax-message-bytes = 10\n"),
        "manifest x/oma-mcp.toml is not valid: servers.a.max-message-bytes must be at least 1024"
    );
    assert_eq!(
        err("[servers.a]\ncommand = \"x\"\nclient-version = \" \"\n"),
        "manifest x/oma-mcp.toml is not valid: servers.a.client-version is empty; give a value \
             or leave the key out for the runtime's default"
    );
    // One space between the words of a message wrapped in the source.
    assert_eq!(
        err("[servers.a]\ncommand = \"x\"\n[servers.a.oauth]\nclient-id = \"c\"\n"),
        "manifest x/oma-mcp.toml is not valid: servers.a.oauth belongs to a server reached by \
             `url`; servers.a is started by `command`, which OAuth does not concern"
    );
    assert_eq!(
        err(
            "[servers.a]\nurl = \"https://h/mcp\"\nbearer-env = \"T\"\n[servers.a.oauth]\nclient-id = \"c\"\n"
        ),
        "manifest x/oma-mcp.toml is not valid: servers.a has both `bearer-env` and an `oauth` \
             table, and each supplies the `Authorization` header; keep one"
    );
    assert_eq!(
        err(""),
        "manifest x/oma-mcp.toml is not valid: it pins no servers; add a [servers.<name>] \
             table with at least `command` or `url`"
    );
    assert_eq!(
        err("[servers.a]\ncommand = \"x\"\nenv = { \"A=B\" = \"1\" }\n"),
        "manifest x/oma-mcp.toml is not valid: servers.a.env has the variable name \"A=B\"; \
             a name must be non-empty, without `=` or NUL"
    );
    assert_eq!(
        err("[servers.a]\ncommand = \"x\"\npass-env = [\"\"]\n"),
        "manifest x/oma-mcp.toml is not valid: servers.a.pass-env has the variable name \"\"; \
             a name must be non-empty, without `=` or NUL"
    );
    assert_eq!(
        err("[servers.a]\ncommand = \"x\"\nsnapshot = \"\"\n"),
        "manifest x/oma-mcp.toml is not valid: servers.a.snapshot \"\" names no file; give a \
             file path such as \"mcp/a.snapshot.json\" or leave it out for that default"
    );
    assert_eq!(
        err("[servers.a]\ncommand = \"x\"\nlifecycle = \"initialise\"\n"),
        "manifest x/oma-mcp.toml is not valid: TOML parse error at line 3, column 13\n  |\n3 \
             | lifecycle = \"initialise\"\n  |             ^^^^^^^^^^^^\nunknown variant \
             `initialise`, expected one of `auto`, `initialize`, `discover`\n"
    );
    let two = "[servers.one]\ncommand = \"x\"\nsnapshot = \"mcp/../s.json\"\n\
                   [servers.two]\ncommand = \"y\"\nsnapshot = \"./s.json\"\n";
    assert_eq!(
        Manifest::parse(two, Path::new("/p/oma-mcp.toml"))
            .unwrap_err()
            .to_string(),
        "manifest /p/oma-mcp.toml is not valid: servers.two and servers.one both use the \
             snapshot file /p/s.json; each server needs its own (set `snapshot` on one of them)"
    );
}

/// `accept` entries reach the pin as the scanner's accepts; an unknown rule, an empty
/// tool or reason is an error naming the entry.
#[test]
fn accept_entries_are_checked() {
    let text = "[servers.x]\ncommand = \"x\"\naccept = [{ rule = \"secret-parameter\", tool = \
                    \"login\", reason = \"takes the user's API key by design\" }]\n";
    let m = Manifest::parse(text, Path::new("m.toml")).unwrap();
    assert_eq!(
        m.servers["x"].accept,
        vec![oma_mcp_core::scan::Accept::new(
            "secret-parameter",
            "login",
            "takes the user's API key by design"
        )]
    );
    let err = |text: &str| {
        Manifest::parse(text, Path::new("m.toml"))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        err(
            "[servers.x]\ncommand = \"x\"\naccept = [{ rule = \"secret-param\", tool = \"a\", reason = \"r\" }]\n"
        ),
        "manifest m.toml is not valid: servers.x.accept[0].rule \"secret-param\" is not a rule of \
             the text scanner; the rules are: unicode-tag, bidi-control, invisible-character, \
             variation-selector-payload, homoglyph-name, mixed-script, instruction-override, \
             hidden-from-user, sensitive-file-access, context-exfiltration-parameter, \
             cross-tool-instruction, shadowing, secret-parameter, urgency-markup, \
             annotation-contradiction, encoded-payload, scan-limit"
    );
    assert_eq!(
        err(
            "[servers.x]\ncommand = \"x\"\naccept = [{ rule = \"shadowing\", tool = \"a\", reason = \" \" }]\n"
        ),
        "manifest m.toml is not valid: servers.x.accept[0].reason is empty; say why the \
             finding is fine (reports show it)"
    );
    assert_eq!(
        err(
            "[servers.x]\ncommand = \"x\"\naccept = [{ rule = \"shadowing\", tool = \"\", reason = \"r\" }]\n"
        ),
        "manifest m.toml is not valid: servers.x.accept[0].tool is empty; name the tool whose \
             finding is accepted, or \"*\" for every tool"
    );
}

/// `[servers.<name>.registry]` reads into [`RegistryPin`] (the official registry by
/// default, a URL without its trailing `/`), and a table that could not say where the pin
/// came from is refused with the key at fault.
#[test]
fn registry_tables() {
    let text = "[servers.a]\ncommand = \"npx\"\n[servers.a.registry]\nname = \"io.github.o/a\"\n\
                    version = \"1.2.3\"\nregistry-type = \"npm\"\nidentifier = \"@o/a\"\n\
                    package-version = \"1.2.3\"\n\
                    file-sha256 = \"fe333e598595000ae021bd27117db32ec69af6987f507ba7a63c90638ff633ce\"\n\
                    [servers.b]\nurl = \"https://h.example/mcp\"\n[servers.b.registry]\n\
                    name = \"com.example/b\"\nversion = \"2.0.0\"\nurl = \"http://127.0.0.1:9/\"\n\
                    [servers.c]\ncommand = \"c\"\n";
    let m = Manifest::parse(text, Path::new("m.toml")).unwrap();
    assert_eq!(
        m.servers["a"].registry,
        Some(RegistryPin {
            name: "io.github.o/a".into(),
            version: "1.2.3".into(),
            url: "https://registry.modelcontextprotocol.io".into(),
            registry_type: Some("npm".into()),
            identifier: Some("@o/a".into()),
            package_version: Some("1.2.3".into()),
            file_sha256: Some(
                "fe333e598595000ae021bd27117db32ec69af6987f507ba7a63c90638ff633ce".into()
            ),
        })
    );
    assert_eq!(
        m.servers["b"].registry,
        Some(RegistryPin {
            name: "com.example/b".into(),
            version: "2.0.0".into(),
            url: "http://127.0.0.1:9".into(),
            registry_type: None,
            identifier: None,
            package_version: None,
            file_sha256: None,
        })
    );
    assert_eq!(m.servers["c"].registry, None);
    let err = |registry: &str| {
        Manifest::parse(
            &format!("[servers.x]\ncommand = \"c\"\n[servers.x.registry]\n{registry}"),
            Path::new("m.toml"),
        )
        .unwrap_err()
        .to_string()
    };
    assert_eq!(
        err("name = \"nameless\"\nversion = \"1\"\n"),
        "manifest m.toml is not valid: servers.x.registry.name \"nameless\" is not a registry \
             server name; give it in reverse-DNS form with one `/`, such as \
             \"io.github.owner/server\""
    );
    assert_eq!(
        err("name = \"a.b/c\"\nversion = \"latest\"\n"),
        "manifest m.toml is not valid: servers.x.registry.version \"latest\" is not an exact \
             version; give the version the pin was made from, such as \"1.2.3\""
    );
    assert_eq!(
        err("name = \"a.b/c\"\nversion = \"1\"\nurl = \"ftp://r\"\n"),
        "manifest m.toml is not valid: servers.x.registry.url \"ftp://r\" is not an http or \
             https URL; give the registry's base URL, such as \
             \"https://registry.modelcontextprotocol.io\""
    );
    assert_eq!(
        err("name = \"a.b/c\"\nversion = \"1\"\nfile-sha256 = \"abc\"\n"),
        "manifest m.toml is not valid: servers.x.registry.file-sha256 \"abc\" is not a \
             SHA-256 (64 hexadecimal digits)"
    );
}

/// The JSON Schema describes `registry` with its keys, so editors know the table.
#[cfg(feature = "json-schema")]
#[test]
fn the_json_schema_has_the_registry_table() {
    let schema = json_schema();
    let text = schema.to_string();
    let keys: Vec<&str> = [
        "\"registry-type\"",
        "\"identifier\"",
        "\"package-version\"",
        "\"file-sha256\"",
    ]
    .into_iter()
    .filter(|k| !text.contains(k))
    .collect();
    assert_eq!(keys, Vec::<&str>::new());
    let server = &schema["$defs"]["RawServer"]["properties"]["registry"];
    assert_eq!(
        server["anyOf"][0]["$ref"],
        serde_json::json!("#/$defs/RawRegistry"),
        "{server}"
    );
    assert_eq!(
        schema["$defs"]["RawRegistry"]["required"],
        serde_json::json!(["name", "version"])
    );
    assert_eq!(
        schema["$defs"]["RawRegistry"]["additionalProperties"],
        serde_json::json!(false)
    );
}
