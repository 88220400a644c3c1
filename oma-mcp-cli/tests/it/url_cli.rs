//! Servers reached by URL from the command line: `--url`, `--header`, `--bearer-env`,
//! `--header-env`, and manifest pins with `url`. Everything here is decided before anything is
//! sent, so no MCP server is needed: where a URL is given, it points at a local TCP listener
//! that must see no connection. Each credential-like value is [`SECRET`], which no output may
//! contain.

use std::path::PathBuf;
use std::process::Output;

use crate::common::{assert_exit, http_server, oma_mcp, run, text, workspace};

/// A value that must never be printed.
const SECRET: &str = "s3cret-value";

/// The commands that reach a single server named by `--url` or `-- COMMAND`.
const SINGLE: [&[&str]; 3] = [&["list"], &["call", "echo"], &["snapshot"]];

/// A TCP listener standing in for a server no request may reach.
struct Untouched(std::net::TcpListener);

impl Untouched {
    fn new() -> Self {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a local port");
        listener.set_nonblocking(true).expect("non-blocking");
        Self(listener)
    }

    /// Its URL, with a secret query value (shown as `key=***`).
    fn url(&self) -> String {
        let port = self.0.local_addr().expect("local address").port();
        format!("http://127.0.0.1:{port}/mcp?key={SECRET}")
    }

    fn assert_untouched(&self) {
        match self.0.accept() {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            other => panic!("a connection reached the server: {other:?}"),
        }
    }
}

/// Exit 2, nothing on stdout, exactly `expected` on stderr, and no secret anywhere.
fn assert_refused(out: &Output, expected: &str) {
    assert_exit(out, 2);
    assert_eq!(text(&out.stdout), "");
    assert_eq!(text(&out.stderr), expected);
    assert!(!text(&out.stderr).contains(SECRET));
}

/// A manifest in a temp dir holding `text`; returns the dir and the manifest's path.
fn write_manifest(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("oma-mcp.toml");
    std::fs::write(&path, text).expect("write the manifest");
    (dir, path)
}

/// `--url` replaces `--manifest`/`--server` and `-- COMMAND`: giving both is clap's usage
/// error (exit 2), which never repeats the URL.
#[test]
fn url_excludes_a_manifest_and_a_command() {
    for sub in SINGLE {
        let both = |flags: &[&str]| {
            run(oma_mcp()
                .args(sub)
                .args(["--url", &format!("https://h.example/mcp?key={SECRET}")])
                .args(flags))
        };
        let out = both(&["--", "/nonexistent/mcp-server"]);
        assert_exit(&out, 2);
        assert!(
            text(&out.stderr).starts_with(
                "error: the argument '--url <URL>' cannot be used with '[COMMAND ARGS]...'\n"
            ),
            "{sub:?}: {}",
            text(&out.stderr)
        );
        for (flag, value) in [("--manifest", "PATH"), ("--server", "NAME")] {
            let out = both(&[flag, "x"]);
            assert_exit(&out, 2);
            assert!(
                text(&out.stderr).starts_with(&format!(
                    "error: the argument '--url <URL>' cannot be used with '{flag} <{value}>'\n"
                )),
                "{sub:?} {flag}: {}",
                text(&out.stderr)
            );
            assert!(!text(&out.stderr).contains(SECRET));
        }
    }
}

/// A `--url` that is not http(s), or holds a user name or password, is refused and shown
/// redacted.
#[test]
fn a_bad_url_is_refused_and_shown_redacted() {
    for sub in SINGLE {
        let out = run(oma_mcp()
            .args(sub)
            .args(["--url", &format!("ftp://h.example/mcp?key={SECRET}")]));
        assert_refused(
            &out,
            "oma-mcp: --url \"ftp://h.example/mcp?key=***\" is not an http or https URL; give \
             the server's streamable HTTP endpoint, such as \
             \"https://api.githubcopilot.com/mcp/\"\n",
        );
        let out = run(oma_mcp()
            .args(sub)
            .args(["--url", &format!("https://me:{SECRET}@h.example/mcp")]));
        assert_refused(
            &out,
            "oma-mcp: --url \"https://***@h.example/mcp\" holds a user name or password; send \
             the credential from an environment variable with --bearer-env or --header-env \
             instead\n",
        );
    }
}

/// A variable that `--bearer-env` or `--header-env` names and that is not set stops the
/// command before anything is sent, naming the flag and the variable.
#[test]
fn a_missing_variable_stops_before_anything_is_sent() {
    let server = Untouched::new();
    for sub in SINGLE {
        let out = run(oma_mcp().env_remove("OMA_MCP_TEST_UNSET").args(sub).args([
            "--url",
            &server.url(),
            "--bearer-env",
            "OMA_MCP_TEST_UNSET",
        ]));
        assert_refused(
            &out,
            "oma-mcp: --bearer-env OMA_MCP_TEST_UNSET: the variable OMA_MCP_TEST_UNSET is not \
             set (or not UTF-8) in this environment; set it (in CI: from the secret store) \
             before running oma-mcp\n",
        );
        let out = run(oma_mcp()
            .env_remove("OMA_MCP_TEST_UNSET")
            .env("OMA_MCP_TEST_TOKEN", SECRET)
            .args(sub)
            .args(["--url", &server.url(), "--bearer-env", "OMA_MCP_TEST_TOKEN"])
            .args(["--header-env", "X-Api-Key=OMA_MCP_TEST_UNSET"]));
        assert_refused(
            &out,
            "oma-mcp: --header-env X-Api-Key=OMA_MCP_TEST_UNSET: the variable \
             OMA_MCP_TEST_UNSET is not set (or not UTF-8) in this environment; set it (in CI: \
             from the secret store) before running oma-mcp\n",
        );
    }
    // `check` checks them before it reads its manifest.
    let out = run(oma_mcp().env_remove("OMA_MCP_TEST_UNSET").args([
        "check",
        "--manifest",
        "/nonexistent/oma-mcp.toml",
        "--bearer-env",
        "OMA_MCP_TEST_UNSET",
    ]));
    assert_refused(
        &out,
        "oma-mcp: --bearer-env OMA_MCP_TEST_UNSET: the variable OMA_MCP_TEST_UNSET is not set \
         (or not UTF-8) in this environment; set it (in CI: from the secret store) before \
         running oma-mcp\n",
    );
    server.assert_untouched();
}

/// A credential given as a literal `--header`, or as a value where a variable's name belongs,
/// is refused without being repeated.
#[test]
fn a_credential_is_never_a_literal_header() {
    let server = Untouched::new();
    for sub in SINGLE {
        let out = run(oma_mcp()
            .args(sub)
            .args(["--url", &server.url()])
            .args(["--header", &format!("Authorization: Bearer {SECRET}")]));
        assert_refused(
            &out,
            "oma-mcp: --header \"Authorization\" looks like a credential, and a literal header \
             is recorded (in a snapshot's source) and shows in the process list; take its value \
             from an environment variable: --bearer-env VAR sends `Authorization: Bearer $VAR`, \
             --header-env Authorization=VAR sends `$VAR` as it is\n",
        );
        let out = run(oma_mcp()
            .args(sub)
            .args(["--url", &server.url()])
            .args(["--header-env", &format!("X-Api-Key=KEY={SECRET}")]));
        assert_refused(
            &out,
            "oma-mcp: --header-env takes the name of a variable, not its value (--header-env \
             X-Api-Key=KEY=… holds `=`); put the value in a variable (in CI: from the secret \
             store) and give its name\n",
        );
        let out = run(oma_mcp()
            .args(sub)
            .args(["--url", &server.url()])
            .args(["--header", &format!("Bearer {SECRET}")]));
        assert_refused(
            &out,
            "oma-mcp: --header takes 'NAME: VALUE' (a header name, `:`, its value), and one has \
             no `:`\n",
        );
    }
    server.assert_untouched();
}

/// Header flags are for a server reached by URL, environment flags for one oma-mcp starts;
/// given for a server of the other kind, they are refused before anything starts.
#[test]
fn flags_of_the_other_kind_are_refused() {
    let server = Untouched::new();
    for sub in SINGLE {
        let out = run(oma_mcp()
            .args(sub)
            .args(["--header", "X-MCP-Toolsets: repos"])
            .args(["--", "/nonexistent/mcp-server"]));
        assert_refused(
            &out,
            "oma-mcp: --header is for a server reached by URL (--url, or a manifest's `url`), \
             and the server after `--` is started by a command; a server oma-mcp starts takes \
             --env and --pass-env\n",
        );
        let out = run(oma_mcp().args(sub).args(["--url", &server.url()]).args([
            "--env",
            &format!("TOKEN={SECRET}"),
            "--pass-env",
            "HOME",
        ]));
        assert_refused(
            &out,
            "oma-mcp: --env and --pass-env are for a server oma-mcp starts (`-- COMMAND`, or a \
             manifest's `command`), and the server at --url is reached over HTTP; a server \
             reached by URL takes --header, --bearer-env, --header-env and the OAuth flags\n",
        );
    }
    server.assert_untouched();

    let (_dir, path) = write_manifest(&format!(
        "[servers.own]\ncommand = \"/nonexistent/mcp-server\"\n\n\
         [servers.github]\nurl = {:?}\nbearer-env = \"OMA_MCP_TEST_TOKEN\"\n\n\
         [servers.gitlab]\nurl = {:?}\n",
        server.url(),
        server.url()
    ));
    let manifest = path.display().to_string();
    let out = run(oma_mcp()
        .env("OMA_MCP_TEST_TOKEN", SECRET)
        .args(["check", "--manifest", &manifest, "--server", "own"])
        .args(["--bearer-env", "OMA_MCP_TEST_TOKEN", "--header", "X-A: 1"]));
    assert_refused(
        &out,
        &format!(
            "oma-mcp: --header and --bearer-env are for a server reached by URL (--url, or a \
             manifest's `url`), and server `own` of {manifest} is started by a command; a server \
             oma-mcp starts takes --env and --pass-env\n"
        ),
    );
    for sub in [&["list"][..], &["call", "echo"], &["snapshot"], &["check"]] {
        let out = run(oma_mcp()
            .args(sub)
            .args(["--manifest", &manifest, "--server", "github"])
            .args(["--env", &format!("TOKEN={SECRET}")]));
        assert_refused(
            &out,
            &format!(
                "oma-mcp: --env is for a server oma-mcp starts (`-- COMMAND`, or a manifest's \
                 `command`), and server `github` of {manifest} is reached by URL; a server \
                 reached by URL takes --header, --bearer-env, --header-env and the OAuth \
                 flags\n"
            ),
        );
    }
    // Several servers: refused only when none is of the flags' kind.
    let (_dir, path) = write_manifest(&format!(
        "[servers.github]\nurl = {:?}\n\n[servers.gitlab]\nurl = {:?}\n",
        server.url(),
        server.url()
    ));
    let manifest = path.display().to_string();
    for sub in ["check", "snapshot"] {
        let out = run(oma_mcp()
            .args([sub, "--manifest", &manifest])
            .args(["--pass-env", "HOME"]));
        assert_refused(
            &out,
            &format!(
                "oma-mcp: --pass-env is for a server oma-mcp starts (`-- COMMAND`, or a \
                 manifest's `command`), and the servers of {manifest} (github, gitlab) are all \
                 reached by URL; a server reached by URL takes --header, --bearer-env, \
                 --header-env and the OAuth flags\n"
            ),
        );
    }
    server.assert_untouched();
}

/// A manifest's literal header that looks like a credential is refused by every command that
/// reads the manifest, without its value.
#[test]
fn a_manifest_credential_header_is_refused_everywhere() {
    let (_dir, path) = write_manifest(&format!(
        "[servers.github]\nurl = \"https://api.githubcopilot.com/mcp/\"\n\
         headers = {{ \"Authorization\" = \"Bearer {SECRET}\" }}\n"
    ));
    let manifest = path.display().to_string();
    let expected = format!(
        "oma-mcp: manifest {manifest} is not valid: servers.github.headers.\"Authorization\" \
         looks like a credential, and `headers` are recorded (in the snapshot and the generated \
         code); take its value from an environment variable: `bearer-env = \"VAR\"` sends \
         `Authorization: Bearer $VAR`, `header-env = {{ \"Authorization\" = \"VAR\" }}` sends \
         `$VAR` as it is\n"
    );
    for sub in [
        &["list"][..],
        &["call", "get_me"],
        &["snapshot"],
        &["check"],
        &["generate"],
    ] {
        let out = run(oma_mcp().args(sub).args(["--manifest", &manifest]));
        assert_refused(&out, &expected);
    }
}

/// `generate --manifest` of a URL pin prints the build script's module: the
/// `__require_http!` guard and a `connect_config()` with the URL, the literal header and the
/// variables' names, never their values.
#[test]
fn generate_for_a_url_pin_names_variables_only() {
    let (dir, path) = write_manifest(
        "[servers.github]\nurl = \"https://api.githubcopilot.com/mcp/\"\n\
         bearer-env = \"GITHUB_TOKEN\"\nheaders = { \"X-MCP-Toolsets\" = \"repos,issues\" }\n\
         prefix = \"github\"\n",
    );
    // The snapshot of oma-mcp-build's golden case of a server pinned by URL.
    let fixtures = workspace().join("oma-mcp-build/tests/fixtures");
    std::fs::create_dir_all(dir.path().join("mcp")).expect("mkdir mcp");
    std::fs::copy(
        fixtures.join("remote.json"),
        dir.path().join("mcp/github.snapshot.json"),
    )
    .expect("copy the snapshot");
    let out = run(oma_mcp()
        .env("GITHUB_TOKEN", SECRET)
        .args(["generate", "--manifest"])
        .arg(&path));
    assert_exit(&out, 0);
    assert_eq!(text(&out.stderr), "");
    let code = text(&out.stdout);
    assert!(!code.contains(SECRET));
    let config = [
        "::oma_mcp_runtime::__require_http!(\"github\");",
        "",
        "/// The connection to server `github` as the manifest pins it (URL, literal headers, the names of",
        "/// the variables its credentials come from, prefix, request timeout); the credentials are read from",
        "/// the environment when it connects.",
        "#[allow(dead_code, clippy::pedantic, missing_docs)]",
        "pub fn connect_config() -> ::oma_mcp_runtime::ConnectConfig {",
        "    ::oma_mcp_runtime::ConnectConfig::http(\"https://api.githubcopilot.com/mcp/\")",
        "        .with_header(\"X-MCP-Toolsets\", \"repos,issues\")",
        "        .with_bearer_env(\"GITHUB_TOKEN\")",
        "        .with_name_prefix(\"github\")",
        "        .with_request_timeout(::core::time::Duration::from_millis(60000))",
        "}",
    ]
    .join("\n");
    assert!(code.contains(&config), "{code}");
}

/// A URL pin end to end over the runtime's streamable HTTP transport: `snapshot` records the
/// redacted URL, the literal header and the names of the headers from variables; `check`
/// finds no drift and names the server by its redacted URL; `call` reaches the tool; a pin's
/// variable that is not set fails the server naming the variable, never a value.
#[test]
fn a_url_pin_snapshots_checks_and_calls_over_http() {
    let server = http_server("oma-mcp-test-server", &["--http", "127.0.0.1:0"]);
    let url = format!("{}?toolsets={SECRET}", server.url());
    let shown = format!("{}?toolsets=***", server.url());
    let (dir, _) = write_manifest(&format!(
        "[servers.remote]\nurl = {url:?}\nbearer-env = \"OMA_MCP_TEST_TOKEN\"\n\
         headers = {{ \"X-MCP-Toolsets\" = \"repos\" }}\n\
         header-env = {{ \"X-Api-Key\" = \"OMA_MCP_TEST_KEY\" }}\nprefix = \"r\"\n"
    ));
    let with_env = |args: &[&str]| {
        run(oma_mcp()
            .env("OMA_MCP_TEST_TOKEN", SECRET)
            .env("OMA_MCP_TEST_KEY", SECRET)
            .current_dir(dir.path())
            .args(args))
    };
    let out = with_env(&["snapshot"]);
    assert_exit(&out, 0);
    let snapshot_path = dir.path().join("mcp/remote.snapshot.json");
    let file = std::fs::read_to_string(&snapshot_path).expect("the snapshot");
    for (what, output) in [
        ("snapshot", file.clone()),
        ("stdout", text(&out.stdout)),
        ("stderr", text(&out.stderr)),
    ] {
        assert!(!output.contains(SECRET), "{what}: {output}");
    }
    let source = oma_mcp_runtime::Snapshot::read(&snapshot_path)
        .expect("the snapshot parses")
        .source
        .expect("a source");
    assert_eq!(
        source,
        oma_mcp_runtime::snapshot::SnapshotSource::http(&url)
            .with_header("X-MCP-Toolsets", "repos")
            .with_env_header("Authorization")
            .with_env_header("X-Api-Key")
    );
    assert_eq!(source.url.as_deref(), Some(shown.as_str()));

    let out = with_env(&["check", "--format", "markdown"]);
    assert_exit(&out, 0);
    assert_eq!(
        text(&out.stdout),
        // The snapshot relative to the current directory, the manifest's here.
        format!("### MCP drift: remote at {shown} (mcp/remote.snapshot.json)\n\nNo drift.\n")
    );

    let out = with_env(&["call", "r_echo", "--args", r#"{"message": "hi"}"#]);
    assert_exit(&out, 0);
    assert_eq!(text(&out.stdout), "Echo: hi\n");

    let out = run(oma_mcp()
        .env("OMA_MCP_TEST_TOKEN", SECRET)
        .env_remove("OMA_MCP_TEST_KEY")
        .current_dir(dir.path())
        .args(["check"]));
    assert_exit(&out, 2);
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with(&format!(
            "oma-mcp: cannot connect to the MCP server `{shown}`: the environment variable \
             `OMA_MCP_TEST_KEY` (for the HTTP header `X-Api-Key`) is not set"
        )),
        "{stderr}"
    );
    assert!(!stderr.contains(SECRET), "{stderr}");
}

/// `--bearer-env` sends the variable's value as a bearer token: the server that requires
/// `good-token` lists its tool with it and refuses another, whose value no output shows.
#[test]
fn bearer_env_reaches_a_server_that_requires_it() {
    let server = http_server("oma-mcp-http-faults", &["--mode", "unauthorized"]);
    let list = |token: &str| {
        run(oma_mcp().env("OMA_MCP_TEST_TOKEN", token).args([
            "list",
            "--url",
            server.url(),
            "--bearer-env",
            "OMA_MCP_TEST_TOKEN",
        ]))
    };
    let out = list("good-token");
    assert_exit(&out, 0);
    assert_eq!(
        text(&out.stdout),
        "echo  Echoes the message back as `Echo: <message>`\n"
    );
    let out = list(SECRET);
    assert_exit(&out, 2);
    let stderr = text(&out.stderr);
    assert!(stderr.contains("with HTTP 401 (unauthorized)"), "{stderr}");
    assert!(!stderr.contains(SECRET), "{stderr}");
}
