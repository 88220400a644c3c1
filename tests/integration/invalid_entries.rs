//! One bad `tools/list` entry does not lose the server (own test server mode
//! `invalid-entries`): the entries that are not tool objects are left out with one warning
//! each (index across pages, what is wrong), the other tools connect and can be called, the
//! snapshot records how many were left out and drift sees the count change. A tool whose
//! `inputSchema` has `"required": null` is called like one without required properties.

use std::sync::Arc;

use oma_mcp_runtime::descriptor::split_tool_entries;
use oma_mcp_runtime::{
    ChangeKind, Direction, DriftPolicy, Error, Severity, Snapshot, connect_mcp_tools,
};
use serde_json::{Value, json};

use crate::typed::{Capture, Captured};
use crate::{args, echo, own, server_bin, tool_names};

/// The mode's `greet` descriptor, as the server sends it.
fn greet() -> Value {
    json!({
        "name": "greet",
        "description": "Greets by name",
        "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}},
                        "required": null}
    })
}

/// The warning for entry `index` (`reason` as the core words it).
fn warning(index: u64, reason: &str) -> Captured {
    Captured {
        level: tracing::Level::WARN,
        target: "oma_mcp_runtime::connect".to_owned(),
        fields: vec![
            (
                "message".to_owned(),
                format!(
                    "entry {index} of `tools/list` is {reason}; left it out and kept the \
                     server's other tools (a bug in the server: report it to the server's \
                     authors)"
                ),
            ),
            (
                "server".to_owned(),
                server_bin().to_string_lossy().into_owned(),
            ),
            ("index".to_owned(), index.to_string()),
        ],
    }
}

/// The exact outcome: the two tools, one warning per bad entry (indexes count across the two
/// pages), the entries as `invalid_tools` reports them, `list_tools_raw` still raw, and a
/// snapshot with `"invalidTools": 3` that keeps `greet`'s descriptor as sent.
#[tokio::test]
async fn bad_entries_are_left_out_with_a_warning_each_and_counted_in_the_snapshot() {
    use tracing_subscriber::layer::SubscriberExt;
    let capture = Capture::default();
    // A second live dispatcher, so callsites registered on another thread still ask this
    // thread's subscriber (see `typed::connect_checked_log_policy_emits_one_tracing_event_per_change`).
    let _second = tracing::Dispatch::new(tracing_subscriber::registry());
    let _guard =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(capture.clone()));
    let client = connect_mcp_tools(own("invalid-entries")).await.unwrap();
    let warnings: Vec<Captured> = capture
        .take()
        .into_iter()
        .filter(|e| e.level <= tracing::Level::WARN)
        .collect();
    assert_eq!(
        warnings,
        [
            warning(1, "`null`, not a tool object"),
            warning(2, "a number, not a tool object: 7"),
            warning(
                3,
                r#"an object without a string `name`: {"description":"no name"}"#
            ),
        ]
    );
    assert_eq!(tool_names(&client), [("echo", "echo"), ("greet", "greet")]);
    assert_eq!(client.tool("greet").unwrap().descriptor, greet());
    let invalid: Vec<String> = client
        .invalid_tools()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        invalid,
        [
            "entry 1 of `tools/list` is `null`, not a tool object",
            "entry 2 of `tools/list` is a number, not a tool object: 7",
            r#"entry 3 of `tools/list` is an object without a string `name`: {"description":"no name"}"#,
        ]
    );

    // Listed again, the entries are as sent; the core splits them the same way.
    let raw = client.list_tools_raw().await.unwrap();
    assert_eq!(raw.len(), 5);
    assert_eq!(
        raw[1..4],
        [json!(null), json!(7), json!({"description": "no name"})]
    );
    let split = split_tool_entries(raw);
    assert_eq!(split.invalid, client.invalid_tools());

    let snapshot = client.snapshot().unwrap();
    assert_eq!(snapshot.invalid_tools, 3);
    let names: Vec<&str> = snapshot.tools.iter().map(|t| t.name()).collect();
    assert_eq!(names, ["echo", "greet"]);
    assert_eq!(snapshot.tool("greet").unwrap().descriptor, greet());
    let text = snapshot.to_canonical_string();
    assert!(
        text.starts_with("{\n  \"format\": \"oma-mcp-snapshot/1\",\n  \"invalidTools\": 3,\n"),
        "{text}"
    );
    assert_eq!(Snapshot::parse(&text, "s.json".as_ref()).unwrap(), snapshot);
    // Listing again warns about nothing (`list_tools_raw` is raw).
    let later: Vec<Captured> = capture
        .take()
        .into_iter()
        .filter(|e| e.level <= tracing::Level::WARN)
        .collect();
    assert_eq!(later, []);
    client.disconnect().await;
}

/// `greet` (`"required": null`) is called with and without its optional `name`; the tool
/// layer shows it to a model without the `null`, and `echo` works as on any raw server.
#[tokio::test]
async fn the_valid_tools_of_a_server_with_bad_entries_are_called() {
    let client = connect_mcp_tools(own("invalid-entries")).await.unwrap();
    let greeted = |arguments: Value| {
        let client = &client;
        async move {
            let r = client
                .call_tool("greet")
                .arguments(args(arguments))
                .mapped()
                .await;
            (r.data, r.is_error)
        }
    };
    assert_eq!(
        greeted(json!({})).await,
        ("Hello, stranger!".to_owned(), false)
    );
    assert_eq!(
        greeted(json!({"name": "Ada"})).await,
        ("Hello, Ada!".to_owned(), false)
    );
    let r = echo(&client, "still here").await;
    assert_eq!((r.data, r.is_error), ("Echo: still here".to_owned(), false));
    let client = Arc::new(client);
    let definitions = oma_mcp_runtime::tool::tool_definitions(&client);
    let schemas: Vec<(&str, &Value)> = definitions
        .iter()
        .map(|d| (d.name.as_str(), &d.llm_input_schema))
        .collect();
    assert_eq!(
        schemas,
        [
            (
                "echo",
                &json!({"type": "object", "properties": {"message": {"type": "string"}},
                        "required": ["message"]})
            ),
            (
                "greet",
                &json!({"type": "object", "properties": {"name": {"type": "string"}}})
            ),
        ]
    );
    client.disconnect().await;
}

/// A pin taken when the server sent no bad entry (0) against the live server (3): exactly
/// one change, a warning on the server; `FailOnAny` refuses it with that line,
/// `FailOnBreaking` lets it pass.
#[tokio::test]
async fn drift_sees_the_count_of_bad_entries_change() {
    let client = connect_mcp_tools(own("invalid-entries")).await.unwrap();
    let pinned = client.snapshot().unwrap().with_invalid_tools(0);
    assert!(
        !pinned.to_canonical_string().contains("invalidTools"),
        "{}",
        pinned.to_canonical_string()
    );
    let report = client.drift_against(&pinned);
    let expected = "the server now sends 3 entries in `tools/list` that are not tool objects \
                    (was 0); such entries are left out, so a tool the server meant to offer \
                    may be missing (the client's warnings at connect name each entry and what \
                    is wrong with it)";
    let changes: Vec<_> = report
        .changes
        .iter()
        .map(|c| {
            (
                c.tool.as_str(),
                c.pointer.as_str(),
                c.kind,
                c.severity,
                c.direction,
                c.message.as_str(),
            )
        })
        .collect();
    assert_eq!(
        changes,
        [(
            "",
            "/invalidTools",
            ChangeKind::InvalidToolsChanged,
            Severity::Warning,
            Direction::Server,
            expected
        )]
    );
    // Against its own snapshot (3 on both sides): no drift.
    assert_eq!(
        client.drift_against(&client.snapshot().unwrap()).changes,
        []
    );
    client.disconnect().await;

    let pin = pinned.to_canonical_string();
    let err = oma_mcp_runtime::connect_checked(
        own("invalid-entries"),
        &pin,
        "bad-entries",
        DriftPolicy::FailOnAny,
    )
    .await
    .unwrap_err();
    assert!(matches!(err, Error::Drift(_)), "{err}");
    assert_eq!(
        err.to_string(),
        format!(
            "MCP server `bad-entries` drifted from its snapshot (0 breaking, 1 warning, 0 info; \
             first: /invalidTools: {expected}); review with `oma-mcp check` and update the pin \
             with `oma-mcp snapshot`"
        )
    );
    let (client, report) = oma_mcp_runtime::connect_checked(
        own("invalid-entries"),
        &pin,
        "bad-entries",
        DriftPolicy::FailOnBreaking,
    )
    .await
    .unwrap();
    assert_eq!(report.summary.warning, 1);
    client.disconnect().await;
}
