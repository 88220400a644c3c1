//! `oma-mcp generate`: code from a snapshot, a bare tools list or a manifest's pin, and with
//! `--manifest` byte for byte the file a build script writes.

use std::path::PathBuf;

use crate::common::{assert_exit, oma_mcp, run, shared, test_server, text, workspace};

#[test]
fn generate_every_corpus_server() {
    let Some(shared) = shared() else { return };
    let mut files: Vec<PathBuf> = std::fs::read_dir(shared.join("corpus/servers"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 23);
    for file in &files {
        let out = run(oma_mcp().arg("generate").arg(file));
        assert_exit(&out, 0);
        let code = text(&out.stdout);
        assert!(code.starts_with("// @generated"), "{}", file.display());
        syn::parse_file(&code).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    }
}

#[test]
fn generate_writes_out_file_and_reads_bare_tools_list() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("tools.json");
    std::fs::write(
        &input,
        r#"{"tools": [{"name": "say/hello", "inputSchema": {"type": "object", "properties": {"who": {"type": "string"}}, "required": ["who"]}}]}"#,
    )
    .unwrap();
    let out_file = dir.path().join("out.rs");
    let out = run(oma_mcp()
        .arg("generate")
        .arg(&input)
        .args(["--prefix", "greeter", "--out"])
        .arg(&out_file));
    assert_exit(&out, 0);
    assert_eq!(text(&out.stdout), "");
    let code = std::fs::read_to_string(&out_file).unwrap();
    assert!(code.contains("\"greeter_say_hello\""), "{code}");
    assert!(code.contains("pub who: ::std::string::String,"), "{code}");
}

/// A bare listing with an entry that is no tool object: the other tools are generated and
/// the entry is named in a warning, as a live listing keeps the other tools.
#[test]
fn generate_leaves_out_a_bare_listings_entry_that_is_no_tool() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("tools.json");
    std::fs::write(&input, r#"{"tools": [null, {"name": "ping"}]}"#).unwrap();
    let out = run(oma_mcp().arg("generate").arg(&input));
    assert_exit(&out, 0);
    assert_eq!(
        text(&out.stderr),
        format!(
            "oma-mcp: warning: {}: entry 0 of `tools/list` is `null`, not a tool object; left it \
             out and kept the other tools\n",
            input.display()
        )
    );
    let code = text(&out.stdout);
    assert!(code.contains("pub struct Ping;"), "{code}");
    // The other commands that read the file agree.
    let out = run(oma_mcp().arg("diff").arg(&input).arg(&input));
    assert_exit(&out, 0);
}

/// `generate --manifest` generates with the pin's options and its connection
/// (`connect_config()` with the command and `cwd` resolved against the manifest's absolute
/// path, here given relative to the current directory), and its errors name the manifest.
#[test]
fn generate_from_a_manifest_uses_the_pin_and_names_the_manifest_in_errors() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(
        root.join("oma-mcp.toml"),
        "[servers.a]\ncommand = \"bin/server\"\nprefix = \"alpha\"\nsnapshot = \"a.json\"\n\
         [servers.b]\ncommand = \"other\"\nsnapshot = \"b.json\"\n",
    )
    .unwrap();
    std::fs::write(
        root.join("a.json"),
        r#"{"tools": [{"name": "say/hello", "inputSchema": {"type": "object"}}]}"#,
    )
    .unwrap();
    let manifest = root.join("oma-mcp.toml");
    let generate = |args: &[&str]| {
        run(oma_mcp()
            .current_dir(dir.path())
            .args(["generate", "--manifest", "project/oma-mcp.toml"])
            .args(args))
    };
    let out = generate(&["--server", "a"]);
    assert_exit(&out, 0);
    let code = text(&out.stdout);
    assert!(
        code.contains("const NAME: &'static str = \"alpha_say_hello\";"),
        "{code}"
    );
    let connect_config = format!(
        "pub fn connect_config() -> ::oma_mcp_runtime::ConnectConfig {{\n    \
         ::oma_mcp_runtime::ConnectConfig::new({:?})\n        .with_cwd({:?})\n        \
         .with_name_prefix(\"alpha\")\n        \
         .with_request_timeout(::core::time::Duration::from_millis(60000))\n}}\n",
        root.join("bin/server").display().to_string(),
        root.display().to_string(),
    );
    assert!(
        code.contains(&connect_config),
        "{connect_config}\nnot in\n{code}"
    );
    let out = generate(&[]);
    assert_exit(&out, 2);
    assert_eq!(
        text(&out.stderr),
        format!(
            "oma-mcp: manifest {} pins several servers (a, b); choose one with --server NAME\n",
            manifest.display()
        )
    );
    let out = generate(&["--server", "b"]);
    assert_exit(&out, 2);
    assert_eq!(
        text(&out.stderr),
        format!(
            "oma-mcp: cannot read snapshot {}: No such file or directory (os error 2)\n",
            root.join("b.json").display()
        )
    );
}

/// `generate --manifest`, run from the crate's directory, prints byte for byte the file the
/// build script (`oma_mcp_build::configure()`, driven here as a build script drives it, with
/// the manifest's absolute path) writes to `OUT_DIR`: the tools with the pin's options, then
/// `connect_config()` with the paths resolved and `connect()`.
#[test]
fn generate_manifest_prints_the_build_scripts_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("crate");
    std::fs::create_dir_all(root.join("mcp")).unwrap();
    std::fs::write(
        root.join("oma-mcp.toml"),
        format!(
            "[servers.own]\ncommand = {:?}\nargs = [\"--token\"]\nprefix = \"own\"\n\
             consequential = [\"exit\"]\npass-env = [\"OMA_TEST_SERVER_MODE\"]\n\
             request-timeout-ms = 20000\n",
            test_server().to_string_lossy()
        ),
    )
    .unwrap();
    std::fs::copy(
        workspace().join("examples/demo/mcp/demo.snapshot.json"),
        root.join("mcp/own.snapshot.json"),
    )
    .unwrap();
    let out_dir = dir.path().join("out");
    std::fs::create_dir_all(&out_dir).unwrap();
    let compiled = oma_mcp_build::configure()
        .manifest(root.join("oma-mcp.toml"))
        .out_dir(&out_dir)
        .emit_rerun_if_changed(false)
        .compile()
        .unwrap();
    assert_eq!(compiled.len(), 1);
    assert_eq!(compiled[0].path, out_dir.join("own.rs"));
    let built = std::fs::read_to_string(out_dir.join("own.rs")).unwrap();
    let connect_config = format!(
        "pub fn connect_config() -> ::oma_mcp_runtime::ConnectConfig {{\n    \
         ::oma_mcp_runtime::ConnectConfig::new({:?})\n        .with_args([\"--token\"])\n        \
         .with_cwd({:?})\n        .with_pass_env([\"OMA_TEST_SERVER_MODE\"])\n        \
         .with_name_prefix(\"own\")\n        \
         .with_request_timeout(::core::time::Duration::from_millis(20000))\n        \
         .with_consequential([\"exit\"])\n}}\n",
        test_server().display().to_string(),
        root.display().to_string(),
    );
    // The generator never wraps a line, so the text is exact whatever the paths' lengths.
    assert!(
        built.contains(&connect_config),
        "{connect_config}\nnot in\n{built}"
    );
    let out = run(oma_mcp().current_dir(&root).args([
        "generate",
        "--manifest",
        "oma-mcp.toml",
        "--server",
        "own",
    ]));
    assert_exit(&out, 0);
    assert_eq!(text(&out.stderr), "");
    assert!(
        text(&out.stdout) == built,
        "`oma-mcp generate --manifest` differs from the build script's output:\n{}",
        text(&out.stdout)
    );
}
