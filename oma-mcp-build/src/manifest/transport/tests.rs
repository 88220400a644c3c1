use std::path::{Path, PathBuf};

use oma_mcp_core::config::ConnectConfig;
use oma_mcp_core::snapshot::SnapshotSource;

use crate::manifest::Manifest;

/// The error of parsing `text` as `x/oma-mcp.toml`, without the file's prefix.
fn err(text: &str) -> String {
    let message = Manifest::parse(text, Path::new("x/oma-mcp.toml"))
        .expect_err("the manifest is refused")
        .to_string();
    message
        .strip_prefix("manifest x/oma-mcp.toml is not valid: ")
        .unwrap_or(&message)
        .to_owned()
}

const GITHUB: &str = "[servers.github]\n\
                      url = \"https://api.githubcopilot.com/mcp/\"\n\
                      bearer-env = \"GITHUB_TOKEN\"\n\
                      headers = { \"X-MCP-Toolsets\" = \"repos,issues\" }\n\
                      header-env = { \"X-Api-Key\" = \"API_KEY\" }\n\
                      prefix = \"gh\"\n\
                      request-timeout-ms = 5000\n";

#[test]
fn a_url_pin_reaches_its_connection_and_snapshot_source() {
    let m = Manifest::parse(GITHUB, Path::new("/p/oma-mcp.toml")).expect("parses");
    let pin = m.server("github").expect("pinned");
    assert_eq!(
        pin.url.as_deref(),
        Some("https://api.githubcopilot.com/mcp/")
    );
    assert_eq!(
        (pin.command.as_str(), pin.program.as_os_str()),
        ("", "".as_ref())
    );
    assert_eq!(pin.args, Vec::<String>::new());
    assert_eq!(pin.bearer_env.as_deref(), Some("GITHUB_TOKEN"));
    assert_eq!(pin.snapshot, PathBuf::from("/p/mcp/github.snapshot.json"));
    assert_eq!(
        pin.connect_config(),
        ConnectConfig::http("https://api.githubcopilot.com/mcp/")
            .with_header("X-MCP-Toolsets", "repos,issues")
            .with_bearer_env("GITHUB_TOKEN")
            .with_header_env("X-Api-Key", "API_KEY")
            .with_name_prefix("gh")
            .with_request_timeout(std::time::Duration::from_secs(5))
    );
    assert_eq!(
        pin.snapshot_source(),
        SnapshotSource::http("https://api.githubcopilot.com/mcp/")
            .with_header("X-MCP-Toolsets", "repos,issues")
            .with_env_header("Authorization")
            .with_env_header("X-Api-Key")
    );
    assert_eq!(pin.target(), "https://api.githubcopilot.com/mcp/");
}

#[test]
fn messages_show_a_url_redacted_and_a_command_as_written() {
    let text = "[servers.q]\nurl = \"https://mcp.example.com/mcp?toolsets=all&v=2\"\n\
                [servers.c]\ncommand = \"node\"\nargs = [\"s.js\", \"stdio\"]\n";
    let m = Manifest::parse(text, Path::new("/p/oma-mcp.toml")).expect("parses");
    assert_eq!(
        m.servers["q"].target(),
        "https://mcp.example.com/mcp?toolsets=***&v=***"
    );
    assert_eq!(
        m.servers["q"].snapshot_source().url.as_deref(),
        Some("https://mcp.example.com/mcp?toolsets=***&v=***")
    );
    // The connection gets the URL as written.
    assert_eq!(
        m.servers["q"].connect_config().url.as_deref(),
        Some("https://mcp.example.com/mcp?toolsets=all&v=2")
    );
    assert_eq!(m.servers["c"].target(), "node s.js stdio");
    assert_eq!(
        m.servers["c"].snapshot_source(),
        SnapshotSource::new("node", ["s.js", "stdio"])
    );
}

#[test]
fn a_server_is_started_or_reached_never_both_nor_neither() {
    assert_eq!(
        err("[servers.github]\ncommand = \"x\"\nurl = \"https://h.example/mcp\"\n"),
        "servers.github has both `command` and `url`; a server is either started over stdio \
         (`command`) or reached over streamable HTTP (`url`)"
    );
    assert_eq!(
        err("[servers.github]\nprefix = \"gh\"\n"),
        "servers.github has neither `command` nor `url`; give `command` to start the server \
         over stdio, or `url` to reach it over streamable HTTP"
    );
    assert_eq!(
        err("[servers.github]\ncommand = \" \"\n"),
        "servers.github.command is empty"
    );
}

#[test]
fn each_kind_takes_only_its_own_keys() {
    let url = "[servers.github]\nurl = \"https://h.example/mcp\"\n";
    for (line, key) in [
        ("args = []", "args"),
        ("cwd = \"srv\"", "cwd"),
        ("env = { A = \"1\" }", "env"),
        ("pass-env = [\"HOME\"]", "pass-env"),
    ] {
        assert_eq!(
            err(&format!("{url}{line}\n")),
            format!(
                "servers.github.{key} belongs to a server started by `command`; servers.github \
                 is reached by `url`, whose own keys are `headers`, `bearer-env` and \
                 `header-env`"
            )
        );
    }
    let command = "[servers.github]\ncommand = \"srv\"\n";
    for (line, key) in [
        ("headers = {}", "headers"),
        ("bearer-env = \"T\"", "bearer-env"),
        ("header-env = { X-Api-Key = \"K\" }", "header-env"),
    ] {
        assert_eq!(
            err(&format!("{command}{line}\n")),
            format!(
                "servers.github.{key} belongs to a server reached by `url`; servers.github is \
                 started by `command`, whose own keys are `args`, `cwd`, `env` and `pass-env`"
            )
        );
    }
}

#[test]
fn the_url_is_http_or_https_and_shown_redacted() {
    let url = |u: &str| err(&format!("[servers.github]\nurl = {u:?}\n"));
    assert_eq!(
        url("api.githubcopilot.com/mcp?key=s3cret"),
        "servers.github.url = \"<invalid URL>\" is not an absolute URL (relative URL without a \
         base); give the server's streamable HTTP endpoint, such as \
         \"https://api.githubcopilot.com/mcp/\""
    );
    assert_eq!(
        url("ftp://files.example.com/mcp?key=s3cret"),
        "servers.github.url = \"ftp://files.example.com/mcp?key=***\" is not an http or https \
         URL; give the server's streamable HTTP endpoint, such as \
         \"https://api.githubcopilot.com/mcp/\""
    );
    assert_eq!(
        url("https://me:s3cret@api.example.com/mcp"),
        "servers.github.url = \"https://***@api.example.com/mcp\" holds a user name or \
         password, and the URL is recorded (in the generated code); send the credential from \
         an environment variable with `bearer-env` or `header-env` instead"
    );
    assert_eq!(
        url("https://tok@api.example.com/mcp"),
        "servers.github.url = \"https://***@api.example.com/mcp\" holds a user name or \
         password, and the URL is recorded (in the generated code); send the credential from \
         an environment variable with `bearer-env` or `header-env` instead"
    );
    assert!(
        Manifest::parse(
            "[servers.local]\nurl = \"http://127.0.0.1:8080/mcp\"\n",
            Path::new("m.toml")
        )
        .is_ok()
    );
}

#[test]
fn a_literal_header_that_looks_like_a_credential_is_refused() {
    let header = |name: &str| {
        err(&format!(
            "[servers.github]\nurl = \"https://h.example/mcp\"\nheaders = {{ {name:?} = \
             \"s3cret\" }}\n"
        ))
    };
    for name in ["Authorization", "authorization", "AUTHORIZATION"] {
        assert_eq!(
            header(name),
            format!(
                "servers.github.headers.{name:?} looks like a credential, and `headers` are \
                 recorded (in the snapshot and the generated code); take its value from an \
                 environment variable: `bearer-env = \"VAR\"` sends `Authorization: Bearer \
                 $VAR`, `header-env = {{ {name:?} = \"VAR\" }}` sends `$VAR` as it is"
            )
        );
    }
    for name in [
        "Cookie",
        "Proxy-Authorization",
        "X-Api-Key",
        "X-Auth-Token",
        "Client-Secret",
        "x-apikey",
    ] {
        assert_eq!(
            header(name),
            format!(
                "servers.github.headers.{name:?} looks like a credential, and `headers` are \
                 recorded (in the snapshot and the generated code); take its value from an \
                 environment variable: `header-env = {{ {name:?} = \"VAR\" }}`"
            )
        );
    }
    // The same names are fine from the environment.
    let from_env = "[servers.github]\nurl = \"https://h.example/mcp\"\n\
                    header-env = { \"Cookie\" = \"C\", \"X-Api-Key\" = \"K\" }\n";
    let m = Manifest::parse(from_env, Path::new("m.toml")).expect("parses");
    assert_eq!(
        m.servers["github"].snapshot_source().env_headers,
        ["Cookie".to_owned(), "X-Api-Key".to_owned()].into()
    );
}

#[test]
fn header_names_values_and_variables_are_checked() {
    let pin = |extra: &str| {
        err(&format!(
            "[servers.github]\nurl = \"https://h.example/mcp\"\n{extra}\n"
        ))
    };
    assert_eq!(
        pin("headers = { \"X Toolsets\" = \"repos\" }"),
        "servers.github.headers has the header name \"X Toolsets\"; a header name is ASCII \
         letters, digits and the characters !#$%&'*+-.^_`|~ (RFC 9110, \"Tokens\")"
    );
    assert_eq!(
        pin("header-env = { \"\" = \"K\" }"),
        "servers.github.header-env has the header name \"\"; a header name is ASCII letters, \
         digits and the characters !#$%&'*+-.^_`|~ (RFC 9110, \"Tokens\")"
    );
    assert_eq!(
        pin("headers = { \"X-MCP-Toolsets\" = \"repos\\r\\nX-Injected: 1\" }"),
        "servers.github.headers.\"X-MCP-Toolsets\" has a control character (a line break, \
         NUL, …) in its value, which an HTTP header cannot carry"
    );
    assert_eq!(
        pin("bearer-env = \"\""),
        "servers.github.bearer-env has the variable name \"\"; a name must be non-empty, \
         without `=` or NUL"
    );
    assert_eq!(
        pin("header-env = { \"X-Api-Key\" = \"KEY=s3cret\" }"),
        "servers.github.header-env has the variable name \"KEY=s3cret\"; a name must be \
         non-empty, without `=` or NUL"
    );
    assert_eq!(
        pin("bearer-env = \"T\"\nheader-env = { authorization = \"A\" }"),
        "servers.github sends the HTTP header \"authorization\" twice, from bearer-env and \
         from header-env.\"authorization\" (header names are case-insensitive); keep one"
    );
    assert_eq!(
        pin("headers = { \"X-Toolsets\" = \"a\" }\nheader-env = { \"x-toolsets\" = \"T\" }"),
        "servers.github sends the HTTP header \"x-toolsets\" twice, from headers.\"X-Toolsets\" \
         and from header-env.\"x-toolsets\" (header names are case-insensitive); keep one"
    );
    assert_eq!(
        pin("headers = { \"X-Toolsets\" = \"a\", \"x-toolsets\" = \"b\" }"),
        "servers.github sends the HTTP header \"x-toolsets\" twice, from headers.\"X-Toolsets\" \
         and from headers.\"x-toolsets\" (header names are case-insensitive); keep one"
    );
}
