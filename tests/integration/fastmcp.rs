//! An agent's own server written with FastMCP (`tests/servers/fastmcp_notes.py`, FastMCP
//! pinned in `tests/servers/requirements.txt`), as a new user meets it: a tool that announces
//! `destructiveHint: true` must reach no model ungated on any path (typed, discovered, the
//! provider toolbox, rig's dynamic tools, a fake of the pinned snapshot); a recording must
//! keep no credential the client sent, even when the server echoes it (a `bearer-env` value,
//! an OAuth access token); a fake answers a wrapped output as FastMCP does. Without the
//! venv each live test prints one line and passes.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use oma_mcp_rig::{McpDynamicTools, Provider};
use oma_mcp_runtime::cassette::Redaction;
use oma_mcp_runtime::consequential::AnnotationPolicy;
use oma_mcp_runtime::fake::{FakeServer, Reply};
use oma_mcp_runtime::oauth::TokenSource;
use oma_mcp_runtime::oauth::{Authorizer, FollowRedirect, LoginStore, OAuthClient, OAuthConfig};
use oma_mcp_runtime::tool::{ProviderToolbox, ToolContext, tool_definitions};
use oma_mcp_runtime::{
    ConnectConfig, McpClient, McpTool, ToolExecutor, ToolGrants, ToolRegistry, connect_mcp_tools,
};
use oma_mcp_test_support::{HttpServer, Ready, free_port, spawn_http_server};
use serde_json::json;

use crate::{HTTP_READY, workspace_root};

/// The notes server's tools, generated from the pin `notes` (no manifest entry marks a tool
/// consequential: `delete_note` is one by its annotations).
pub(crate) mod notes {
    oma_mcp_runtime::include_tools!("notes");
}

/// Tools of the official Python SDK that return no object (`tests/servers/sdk_notes.py`),
/// generated from the pin `sdk`.
mod sdk {
    oma_mcp_runtime::include_tools!("sdk");
}

/// The venv's Python with FastMCP, or `None` after one line when it is not installed.
fn python(test: &str) -> Option<PathBuf> {
    let root = workspace_root().join("tests/servers/.venv");
    let installed = std::fs::read_to_string(root.join(".installed-requirements.txt"))
        .is_ok_and(|r| r.contains("fastmcp=="));
    if !installed {
        oma_mcp_test_support::skip(
            test,
            "FastMCP is not installed in tests/servers/.venv (run ./scripts/test, or `python3 \
             -m venv tests/servers/.venv && tests/servers/.venv/bin/pip install --no-deps -r \
             tests/servers/requirements.txt`)",
        );
        return None;
    }
    Some(root.join("bin/python"))
}

/// The notes server over streamable HTTP with `auth` (`none`, `static`: the token in
/// `NOTES_TOKEN`, `oauth`: FastMCP's in-memory authorization server); killed on drop.
fn notes_http(python: &PathBuf, auth: &str, token: Option<&str>) -> HttpServer {
    let port = free_port().unwrap();
    let mut command = std::process::Command::new(python);
    command
        .arg(workspace_root().join("tests/servers/fastmcp_notes.py"))
        .args(["--http", &port.to_string(), "--auth", auth]);
    if let Some(token) = token {
        command.env("NOTES_TOKEN", token);
    }
    let ready = Ready::Port {
        port,
        path: "/mcp".to_owned(),
    };
    spawn_http_server(command, ready, HTTP_READY).unwrap()
}

/// `(name, consequential)` of each tool definition of `client`, sorted by name.
fn marked(client: &Arc<McpClient>) -> Vec<(String, bool)> {
    let mut marks: Vec<(String, bool)> = tool_definitions(client)
        .into_iter()
        .map(|d| (d.name.clone(), d.consequential))
        .collect();
    marks.sort();
    marks
}

/// An executor of every tool of `client`, all granted, without a gate.
fn ungated(client: &Arc<McpClient>) -> ToolExecutor {
    let registry = Arc::new(ToolRegistry::new());
    registry.register_all(tool_definitions(client)).unwrap();
    let names: Vec<String> = client.tools().iter().map(|t| t.name.clone()).collect();
    ToolExecutor::new(registry, ToolGrants::new().allow(names))
}

/// Every path a discovered destructive tool takes to a model: the tool layer marks it as the
/// generated code does, rig's dynamic tools refuse it without the opt-in, and the toolbox's
/// executor without a gate denies its call.
async fn assert_gated(client: Arc<McpClient>) {
    const { assert!(<notes::DeleteNote as McpTool>::CONSEQUENTIAL) };
    const { assert!(!<notes::Shout as McpTool>::CONSEQUENTIAL) };
    assert_eq!(
        marked(&client),
        [
            ("notes_delete_note".to_owned(), true),
            ("notes_shout".to_owned(), false),
            ("notes_whoami".to_owned(), false),
        ]
    );
    let toolbox = ProviderToolbox::new(ungated(&client), Provider::OpenAi).unwrap();
    let refused = McpDynamicTools::new(toolbox).into_tools().unwrap_err();
    assert_eq!(
        refused.to_string(),
        "the tool \"notes_delete_note\" is consequential: call `allow_consequential()` to give \
         it to the agent (each call then runs only when the executor's gate approves it), or \
         leave it out of the grants"
    );
    let toolbox = ProviderToolbox::new(ungated(&client), Provider::OpenAi).unwrap();
    let ctx = ToolContext::new("agent").with_consequential_confirmation(true);
    let denied = toolbox
        .call("notes_delete_note", r#"{"note_id": "n1"}"#, &ctx)
        .await;
    assert_eq!(
        (denied.data.as_str(), denied.is_error),
        (
            "Tool \"notes_delete_note\" denied by onToolCall: Consequential tool confirmation \
             required before execution.",
            true
        )
    );
}

/// A live session: the pinned server over stdio, connected with the generated
/// `connect_config()`.
#[tokio::test]
async fn a_destructive_tool_is_gated_on_every_path_live() {
    if python("a_destructive_tool_is_gated_on_every_path_live").is_none() {
        return;
    }
    let client = Arc::new(connect_mcp_tools(notes::connect_config()).await.unwrap());
    assert_gated(Arc::clone(&client)).await;

    // The program decides in code: not-consequential and the annotation policy, as the
    // manifest's keys do for generated code; an entry always wins.
    let with = |config: ConnectConfig| async move {
        let client = Arc::new(connect_mcp_tools(config).await.unwrap());
        let marks = marked(&client);
        client.disconnect().await;
        marks
    };
    let unmarked = [
        ("notes_delete_note".to_owned(), false),
        ("notes_shout".to_owned(), false),
        ("notes_whoami".to_owned(), false),
    ];
    assert_eq!(
        with(notes::connect_config().with_not_consequential(["delete_*"])).await,
        unmarked
    );
    assert_eq!(
        with(notes::connect_config().with_consequential_annotations(AnnotationPolicy::Ignore))
            .await,
        unmarked
    );
    assert_eq!(
        with(
            notes::connect_config()
                .with_consequential(["shout"])
                .with_not_consequential(["shout", "delete_note"])
        )
        .await,
        [
            ("notes_delete_note".to_owned(), false),
            ("notes_shout".to_owned(), true),
            ("notes_whoami".to_owned(), false),
        ]
    );
    // An entry that is no glob stops the connection before the server starts.
    let err = connect_mcp_tools(notes::connect_config().with_consequential(["a[b"]))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid `consequential` pattern \"a[b\" at character 1: invalid range pattern (use \
         an exact tool name or a glob such as \"delete_*\"; an entry is read as a glob, so a \
         name holding `*`, `?`, `[`, `]`, `{` or `}` puts each such character in brackets: \
         \"a[[]b\" is the name a[b)"
    );
    client.disconnect().await;
}

/// A recorded session: a fake of the pinned snapshot marks the tool as the server does.
#[tokio::test]
async fn a_destructive_tool_is_gated_on_every_path_in_a_fake() {
    let fake = notes::fake().await.unwrap();
    let client = Arc::new(fake.connect().await.unwrap());
    assert_gated(client).await;
    assert_eq!(fake.calls().len(), 0, "the denied call reached the fake");
    fake.verify().unwrap();
}

/// FastMCP answers a wrapped output with the bare value as its text block: the fake does the
/// same, so a model sees the same `data` from both.
#[tokio::test]
async fn a_fake_answers_a_wrapped_output_as_fastmcp_does() {
    const { assert!(<notes::Shout as McpTool>::OUTPUT_WRAPPED) };
    let fake = notes::fake().await.unwrap();
    fake.on::<notes::Shout>(|args| Reply::Output(args.text.to_uppercase()))
        .unwrap();
    let client = fake.connect().await.unwrap();
    let faked = client
        .call_tool(notes::Shout::MCP_NAME)
        .arguments(crate::args(json!({"text": "hi there"})))
        .raw()
        .await
        .unwrap();
    assert_eq!(
        faked,
        json!({"content": [{"type": "text", "text": "HI THERE"}],
               "structuredContent": {"result": "HI THERE"}})
    );
    let typed = client
        .call(notes::ShoutArgs::new("hi there"))
        .typed()
        .await
        .unwrap();
    assert_eq!(typed.output, "HI THERE");
    fake.verify().unwrap();

    if python("a_fake_answers_a_wrapped_output_as_fastmcp_does").is_none() {
        return;
    }
    let live = connect_mcp_tools(notes::connect_config()).await.unwrap();
    let real = live.call(notes::ShoutArgs::new("hi there")).mapped().await;
    let faked = client
        .call(notes::ShoutArgs::new("hi there"))
        .mapped()
        .await;
    assert_eq!(faked, real);
    assert_eq!(real.data, "HI THERE");
    live.disconnect().await;
}

/// The official Python SDK wraps without FastMCP's mark: the typed output is the wrapper,
/// and the fake sends what the SDK sends (the bare string; each item of a list as a block).
#[tokio::test]
async fn a_fake_answers_a_python_sdk_wrapped_output_as_the_sdk_does() {
    const { assert!(!<sdk::Shout as McpTool>::OUTPUT_WRAPPED) };
    let fake = sdk::fake().await.unwrap();
    fake.on::<sdk::Shout>(|args| Reply::Output(sdk::ShoutOutput::new(args.text.to_uppercase())))
        .unwrap();
    fake.on::<sdk::Lengths>(|args| {
        let lengths: Vec<i64> = args.words.iter().map(|w| w.len() as i64).collect();
        Reply::Output(sdk::LengthsOutput::new(lengths))
    })
    .unwrap();
    let client = fake.connect().await.unwrap();
    let faked = (
        client.call(sdk::ShoutArgs::new("hi there")).mapped().await,
        client
            .call(sdk::LengthsArgs::new(vec!["a".into(), "abc".into()]))
            .mapped()
            .await,
    );
    assert_eq!(
        (faked.0.data.as_str(), faked.1.data.as_str()),
        ("HI THERE", "1\n3")
    );
    fake.verify().unwrap();

    if python("a_fake_answers_a_python_sdk_wrapped_output_as_the_sdk_does").is_none() {
        return;
    }
    let live = connect_mcp_tools(sdk::connect_config()).await.unwrap();
    let real = (
        live.call(sdk::ShoutArgs::new("hi there")).mapped().await,
        live.call(sdk::LengthsArgs::new(vec!["a".into(), "abc".into()]))
            .mapped()
            .await,
    );
    assert_eq!(faked, real);
    live.disconnect().await;
}

/// What a recording of the `whoami` tool holds: the cassette's text, and the token the live
/// answer (passed on to the code under test unredacted) showed.
async fn record_whoami(client: McpClient) -> (String, String) {
    let fake = FakeServer::record(Arc::new(client), Redaction::default(), Some("notes"))
        .await
        .unwrap();
    let proxied = fake.connect().await.unwrap();
    let live = proxied.call(notes::WhoamiArgs::new()).mapped().await;
    assert!(!live.is_error, "{}", live.data);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.cassette.json");
    fake.save_cassette(&path).unwrap();
    (std::fs::read_to_string(&path).unwrap(), live.data)
}

/// The OAuth access token the client sends (FastMCP's in-memory authorization server: dynamic
/// registration, PKCE, approved at once) is a secret of the recording.
#[tokio::test]
async fn a_recording_keeps_no_oauth_access_token_the_server_echoes() {
    let Some(python) = python("a_recording_keeps_no_oauth_access_token_the_server_echoes") else {
        return;
    };
    let server = notes_http(&python, "oauth", None);
    let store = tempfile::tempdir().unwrap();
    let oauth = OAuthConfig::authorization_code().with_authorizer(Authorizer::new(
        FollowRedirect::new("http://127.0.0.1/callback"),
    ));
    let provider = TokenSource::new(
        OAuthClient::new(server.url(), &oauth, "oma-mcp-tests")
            .unwrap()
            .with_store(LoginStore::new(store.path())),
    );
    let client = connect_mcp_tools(
        ConnectConfig::http(server.url())
            .with_name_prefix("notes")
            .with_token_provider(provider)
            .with_request_timeout(Duration::from_secs(30)),
    )
    .await
    .unwrap();
    // FastMCP grants an empty `scope`: no scope, not one empty one.
    let login = LoginStore::new(store.path()).load(server.url()).unwrap();
    assert_eq!(login.map(|l| l.scopes().len()), Some(0));
    let (cassette, live) = record_whoami(client).await;
    let token = live.strip_prefix("token ").expect("the server saw a token");
    assert!(token.len() >= 16, "{live}");
    assert!(
        !cassette.contains(token),
        "the access token reached the cassette:\n{cassette}"
    );
    assert!(
        cassette.contains("\"text\": \"token <redacted>\""),
        "{cassette}"
    );
}

/// Set in the child process of [`a_recording_keeps_no_bearer_token_the_server_echoes`].
const HELPER: &str = "OMA_MCP_TEST_NOTES_HELPER";
/// Holds the static token the notes server accepts.
const TOKEN_VAR: &str = "OMA_MCP_TEST_NOTES_TOKEN";
/// The static token.
const TOKEN: &str = "n0tes-st4tic-t0ken-9c1e";

/// Runs [`helper_a_recording_keeps_no_bearer_token_the_server_echoes`] in a child process of
/// this test binary with the token's variable set (a test cannot set variables in its own
/// process).
#[tokio::test]
async fn a_recording_keeps_no_bearer_token_the_server_echoes() {
    if python("a_recording_keeps_no_bearer_token_the_server_echoes").is_none() {
        return;
    }
    let test = "fastmcp::helper_a_recording_keeps_no_bearer_token_the_server_echoes";
    crate::run_in_child(
        test,
        &[
            (HELPER, std::ffi::OsStr::new("1")),
            (TOKEN_VAR, std::ffi::OsStr::new(TOKEN)),
        ],
    )
    .await;
}

/// Helper of [`a_recording_keeps_no_bearer_token_the_server_echoes`]: a `bearer-env` value
/// (`ConnectConfig::with_bearer_env`) echoed by a static-token server is not recorded.
#[tokio::test]
#[ignore = "runs in a child process with the token's variable set"]
async fn helper_a_recording_keeps_no_bearer_token_the_server_echoes() {
    if std::env::var_os(HELPER).is_none() {
        return;
    }
    let python = python("helper").unwrap();
    let server = notes_http(&python, "static", Some(TOKEN));
    let client = connect_mcp_tools(
        ConnectConfig::http(server.url())
            .with_name_prefix("notes")
            .with_bearer_env(TOKEN_VAR)
            .with_request_timeout(Duration::from_secs(30)),
    )
    .await
    .unwrap();
    let (cassette, live) = record_whoami(client).await;
    assert_eq!(live, format!("token {TOKEN}"));
    assert!(
        !cassette.contains(TOKEN),
        "the token reached the cassette:\n{cassette}"
    );
    assert!(
        cassette.contains("\"text\": \"token <redacted>\""),
        "{cassette}"
    );
}

/// A fake pinned at any revision passes `verify()` after a client connects: the client's
/// `server/discover` probe of a server from before 2026-07-28 is refused as such a server
/// refuses it, and is no problem.
#[tokio::test]
async fn fakes_of_every_protocol_revision_verify() {
    let text = std::fs::read_to_string(workspace_root().join("tests/servers/notes.snapshot.json"))
        .unwrap();
    for revision in [
        "2024-11-05",
        "2025-03-26",
        "2025-06-18",
        "2025-11-25",
        "2026-07-28",
    ] {
        let mut snapshot =
            oma_mcp_runtime::Snapshot::parse(&text, std::path::Path::new("n")).unwrap();
        snapshot.protocol_version = Some(revision.to_owned());
        let fake = FakeServer::start_with(snapshot, Some("notes"))
            .await
            .unwrap();
        fake.on::<notes::Shout>(|args| Reply::Output(args.text))
            .unwrap();
        let client = fake.connect().await.unwrap();
        // The client asks for the newest revision the fake speaks.
        let negotiated = if revision == "2026-07-28" {
            revision
        } else {
            "2025-11-25"
        };
        assert_eq!(client.protocol_version(), negotiated, "{revision}");
        let result = client.call(notes::ShoutArgs::new("a")).mapped().await;
        assert_eq!(result.data, "a", "{revision}");
        fake.verify()
            .unwrap_or_else(|e| panic!("a fake pinned at {revision}: {e}"));
        client.disconnect().await;
    }
}
