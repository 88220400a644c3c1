//! The generated, typed API against real servers: `build.rs` generates the modules below from
//! the snapshots pinned in `tests/oma-mcp.toml` (the examples' committed snapshots), and every
//! call here goes through `client.call(Args::new(..)).mapped()`.
//!
//! Also the pin checks: a live snapshot of each server must equal its committed snapshot byte
//! for byte, so a server change without a refreshed snapshot fails here.

use std::time::Duration;

use oma_mcp_runtime::drift::DriftRefused;
use oma_mcp_runtime::snapshot::{DEFAULT_MAX_LIST_ITEMS, Pin, SnapshotError, SnapshotSource};
use oma_mcp_runtime::{
    DriftPolicy, DriftReport, Error, McpClient, McpTool, Snapshot, connect_checked,
    connect_mcp_tools, map_call_result,
};
use serde_json::{Value, json};

use crate::{everything_config, shared_dir, workspace_root};

/// The project's own test server (manifest server `own`, prefix `demo`); also called over
/// HTTP (`http_client`).
pub(crate) mod own {
    oma_mcp_runtime::include_tools!("own");
}

/// The pinned `@modelcontextprotocol/server-everything` (manifest server `everything`); also
/// called over HTTP (`http_client`).
pub(crate) mod everything {
    oma_mcp_runtime::include_tools!("everything");
}

/// The own server's committed snapshot (shared with `examples/demo`).
pub(crate) const OWN_SNAPSHOT: &str = "examples/demo/mcp/demo.snapshot.json";
/// server-everything's committed snapshot (shared with `examples/everything`).
const EVERYTHING_SNAPSHOT: &str = "examples/everything/mcp/everything.snapshot.json";

/// A committed snapshot file's text, by path relative to the workspace root.
pub(crate) fn committed(path: &str) -> String {
    std::fs::read_to_string(workspace_root().join(path)).unwrap()
}

/// The `digest` of tool `name` in the committed snapshot at `path`.
fn committed_digest(path: &str, name: &str) -> String {
    let snapshot: Value = serde_json::from_str(&committed(path)).unwrap();
    let tool = snapshot["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["descriptor"]["name"] == name)
        .unwrap_or_else(|| panic!("{name} is not in {path}"));
    tool["digest"].as_str().unwrap().to_owned()
}

/// The raw tool names of the committed snapshot at `path`, in file order.
fn committed_names(path: &str) -> Vec<String> {
    let snapshot: Value = serde_json::from_str(&committed(path)).unwrap();
    snapshot["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["descriptor"]["name"].as_str().unwrap().to_owned())
        .collect()
}

/// A tool's framework name and `CONSEQUENTIAL` flag.
pub(crate) fn consequential<T: McpTool>() -> (&'static str, bool) {
    (T::NAME, T::CONSEQUENTIAL)
}

/// A connected client to the own test server (normal mode, prefix `demo` as pinned).
async fn own_client() -> McpClient {
    connect_mcp_tools(crate::own("normal").with_name_prefix("demo"))
        .await
        .unwrap()
}

// ---------------------------------------------------------------------------------------------
// The own test server
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn own_text_tools() {
    let client = own_client().await;
    let r = client.call(own::EchoArgs::new("typed hi")).mapped().await;
    assert_eq!(
        r.to_json(),
        json!({"data": "Echo: typed hi", "isError": false, "modelOutput": null})
    );
    let r = client.call(own::AddArgs::new(40, -2)).mapped().await;
    assert_eq!(
        (r.data.as_str(), r.is_error, &r.model_output),
        ("38", false, &None)
    );
    assert_eq!(
        r.to_json(),
        json!({"data": "38", "isError": false, "modelOutput": null})
    );
    client.disconnect().await;
}

#[tokio::test]
async fn own_tiny_image_is_an_image_part_and_a_text_part() {
    let client = own_client().await;
    let r = client.call(own::TinyImageArgs::new()).mapped().await;
    assert_eq!(r.data, "[image image/png; base64 length=96]\nA 1x1 PNG.");
    assert!(!r.is_error);
    assert_eq!(
        r.to_json(),
        json!({
            "data": "[image image/png; base64 length=96]\nA 1x1 PNG.",
            "isError": false,
            "modelOutput": [
                {"type": "image", "source": {
                    "type": "base64",
                    "media_type": "image/png",
                    "data": oma_mcp_test_server::TINY_PNG_BASE64,
                }},
                {"type": "text", "text": "A 1x1 PNG."},
            ],
        })
    );
    client.disconnect().await;
}

#[tokio::test]
async fn own_resource_links_https_is_a_url_file_part_file_scheme_is_text() {
    let client = own_client().await;
    let r = client.call(own::ResourceLinksArgs::new()).mapped().await;
    let data = "[resource_link name=\"readme.md\" uri=\"https://example.com/docs/readme.md\"]\n\
                The project readme\n\
                [resource_link name=\"notes.txt\" uri=\"file:///tmp/oma-mcp/notes.txt\"]";
    assert_eq!(
        r.to_json(),
        json!({
            "data": data,
            "isError": false,
            "modelOutput": [
                // https: the description as a text part, then a URL file part.
                {"type": "text", "text": "The project readme"},
                {"type": "file", "filename": "readme.md", "source": {
                    "type": "url",
                    "media_type": "text/markdown",
                    "url": "https://example.com/docs/readme.md",
                }},
                // file: is not media; its text line only.
                {"type": "text",
                 "text": "[resource_link name=\"notes.txt\" uri=\"file:///tmp/oma-mcp/notes.txt\"]"},
            ],
        })
    );
    client.disconnect().await;
}

#[tokio::test]
async fn own_embedded_resource_text_line_and_blob_file_part() {
    let client = own_client().await;
    let r = client.call(own::EmbeddedResourceArgs::new()).mapped().await;
    assert_eq!(
        r.to_json(),
        json!({
            "data": "[resource memo://greeting]\nHello from a resource\n\
                     [resource memo://data.bin; mimeType=application/octet-stream; blob base64 length=8]",
            "isError": false,
            "modelOutput": [
                {"type": "text", "text": "[resource memo://greeting]\nHello from a resource"},
                {"type": "text", "text": "[resource memo://data.bin]"},
                // No resource `name`, and `memo://data.bin` has an empty path (`data.bin` is
                // its host, as for JavaScript's `new URL`): the default file name.
                {"type": "file", "filename": "mcp-resource", "source": {
                    "type": "base64",
                    "media_type": "application/octet-stream",
                    "data": oma_mcp_test_server::BLOB_BASE64,
                }},
            ],
        })
    );
    client.disconnect().await;
}

#[tokio::test]
async fn own_audio_and_fail_are_text_only() {
    let client = own_client().await;
    let r = client.call(own::AudioArgs::new()).mapped().await;
    assert_eq!(
        r.to_json(),
        json!({"data": "[audio audio/wav; base64 length=16]", "isError": false, "modelOutput": null})
    );
    let r = client.call(own::FailArgs::new()).mapped().await;
    assert_eq!(
        r.to_json(),
        json!({"data": "This tool always fails", "isError": true, "modelOutput": null})
    );
    client.disconnect().await;
}

#[tokio::test]
async fn own_describe_pet_nested_and_enum_args() {
    let client = own_client().await;
    // `pet` is `{"$ref": "#/$defs/Pet"}`: a generated struct `DescribePetArgsPet` with the
    // string enum `DescribePetArgsPetKind` (`PetKind`). `tags` is `["array","null"]`, an
    // `Option`.
    // `Pet` requires `name`, then `kind` (its `required` order).
    let pet = |name: &str, kind| own::DescribePetArgsPet::new(name, kind);
    let r = client
        .call(
            own::DescribePetArgs::new(pet("Rex", own::DescribePetArgsPetKind::Dog))
                .with_tags(vec!["good".into(), "loud".into()]),
        )
        .mapped()
        .await;
    assert_eq!(
        r.to_json(),
        json!({"data": "Rex is a dog, tagged: good, loud", "isError": false, "modelOutput": null})
    );
    let r = client
        .call(own::DescribePetArgs::new(pet(
            "Tom",
            own::DescribePetArgsPetKind::Cat,
        )))
        .mapped()
        .await;
    assert_eq!(
        r.to_json(),
        json!({"data": "Tom is a cat", "isError": false, "modelOutput": null})
    );
    // A kind outside the enum cannot be built any more: the typed value rejects it locally.
    let err = "fish".parse::<own::DescribePetArgsPetKind>().unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"unknown value "fish"; expected one of "cat", "dog""#
    );
    assert_eq!(own::DescribePetArgsPetKind::Cat.to_string(), "cat");
    // Sent untyped, rmcp answers with an `isError` result, not a JSON-RPC error.
    let args = json!({"pet": {"name": "Nemo", "kind": "fish"}});
    let r = client
        .call_tool(own::DescribePet::MCP_NAME)
        .arguments(args.as_object().cloned())
        .mapped()
        .await;
    assert_eq!(
        r.to_json(),
        json!({
            "data": "failed to deserialize parameters: unknown variant `fish`, expected `cat` or `dog`",
            "isError": true,
            "modelOutput": null,
        })
    );
    client.disconnect().await;
}

#[tokio::test]
async fn own_sleep_past_the_request_timeout_is_the_contract_failure() {
    let client = connect_mcp_tools(
        crate::own("normal")
            .with_name_prefix("demo")
            .with_request_timeout(Duration::from_secs(2)),
    )
    .await
    .unwrap();
    let r = client.call(own::SleepArgs::new(10_000)).mapped().await;
    assert_eq!(
        r.to_json(),
        json!({
            "data": "MCP tool \"sleep\" failed: MCP error -32001: Request timed out",
            "isError": true,
            "modelOutput": null,
        })
    );
    // The session goes on.
    let r = client.call(own::SleepArgs::new(1)).mapped().await;
    assert_eq!((r.data.as_str(), r.is_error), ("Slept 1 ms", false));
    client.disconnect().await;
}

#[test]
fn own_marker_constants() {
    assert_eq!(own::Echo::NAME, "demo_echo");
    assert_eq!(own::Echo::MCP_NAME, "echo");
    assert_eq!(own::DescribePet::NAME, "demo_describe_pet");
    assert_eq!(own::DescribePet::MCP_NAME, "describe_pet");
    assert_eq!(
        own::Echo::DESCRIPTION,
        Some("Echoes the message back as `Echo: <message>`")
    );
    assert_eq!(
        own::Echo::DIGEST,
        committed_digest(OWN_SNAPSHOT, own::Echo::MCP_NAME)
    );
    assert_eq!(
        own::DescribePet::DIGEST,
        committed_digest(OWN_SNAPSHOT, own::DescribePet::MCP_NAME)
    );
    // consequential = ["exit"]
    assert_eq!(
        [
            consequential::<own::Exit>(),
            consequential::<own::Echo>(),
            consequential::<own::Sleep>(),
        ],
        [
            ("demo_exit", true),
            ("demo_echo", false),
            ("demo_sleep", false)
        ]
    );
    assert_eq!(own::TOOL_NAMES, committed_names(OWN_SNAPSHOT));
}

/// Pin check for the own server. When it fails, the server changed and the committed snapshot
/// is stale; refresh it, review the diff and commit it:
///
/// ```sh
/// cargo build -p oma-mcp-test-server --bin oma-mcp-test-server && \
///   cargo run -p oma-mcp-cli -- snapshot --manifest examples/demo/oma-mcp.toml
/// git diff examples/demo/mcp/
/// ```
#[tokio::test]
async fn own_live_snapshot_equals_the_committed_snapshot() {
    let client = own_client().await;
    // The command as written in tests/oma-mcp.toml and examples/demo/oma-mcp.toml.
    let source = SnapshotSource::new("target/debug/oma-mcp-test-server", Vec::<String>::new());
    let live = whole(&client, source).await;
    client.disconnect().await;
    let committed = committed(OWN_SNAPSHOT);
    assert!(
        live.to_canonical_string() == committed,
        "the own test server no longer matches {OWN_SNAPSHOT}; refresh it with \
         `cargo build -p oma-mcp-test-server --bin oma-mcp-test-server && cargo run -p oma-mcp-cli \
         -- snapshot --manifest examples/demo/oma-mcp.toml`\n--- live:\n{}",
        live.to_canonical_string()
    );
}

/// The generated module embeds its snapshot; `drift` against the live server it was taken
/// from reports nothing, against a different server it reports what changed
/// at run time.
#[tokio::test]
async fn embedded_snapshot_drift_check() {
    let client = own_client().await;
    let report = own::drift(&client).unwrap();
    assert!(report.changes.is_empty(), "{:?}", report.changes);
    assert!(
        report
            .apply(oma_mcp_runtime::DriftPolicy::FailOnAny, "own")
            .is_ok()
    );
    client.disconnect().await;

    // The own module's pin against the sloppy raw server: every pinned tool is gone.
    let other = connect_mcp_tools(crate::own("sloppy")).await.unwrap();
    let report = own::drift(&other).unwrap();
    other.disconnect().await;
    let removed: Vec<&str> = report
        .changes
        .iter()
        .filter(|c| c.kind == oma_mcp_runtime::ChangeKind::ToolRemoved)
        .map(|c| c.tool.as_str())
        .collect();
    assert_eq!(removed, own::TOOL_NAMES);
    let err = report
        .apply(oma_mcp_runtime::DriftPolicy::FailOnBreaking, "own")
        .unwrap_err();
    assert!(
        // Every tool, and the completions, prompts and resources capabilities the sloppy
        // server lacks.
        err.to_string().starts_with(&format!(
            "MCP server `own` drifted from its snapshot ({} breaking, ",
            own::TOOL_NAMES.len() + 3
        )),
        "{err}"
    );
}

/// One captured `tracing` event: level, target and every field as text.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Captured {
    pub(crate) level: tracing::Level,
    pub(crate) target: String,
    pub(crate) fields: Vec<(String, String)>,
}

/// A `tracing` layer that keeps every event.
#[derive(Clone, Default)]
pub(crate) struct Capture(std::sync::Arc<std::sync::Mutex<Vec<Captured>>>);

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Capture {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        struct Fields(Vec<(String, String)>);
        impl tracing::field::Visit for Fields {
            fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
                self.0.push((field.name().to_owned(), value.to_owned()));
            }
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                self.0.push((field.name().to_owned(), format!("{value:?}")));
            }
        }
        let mut fields = Fields(Vec::new());
        event.record(&mut fields);
        self.0.lock().unwrap().push(Captured {
            level: *event.metadata().level(),
            target: event.metadata().target().to_owned(),
            fields: fields.0,
        });
    }
}

impl Capture {
    /// The events captured so far, taken out.
    pub(crate) fn take(&self) -> Vec<Captured> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

/// `own::SNAPSHOT` with the `echo` tool's description rewritten (a rug pull): against the
/// live own server exactly one change, a warning.
fn own_snapshot_with_rewritten_echo() -> String {
    let pinned = Snapshot::parse(own::SNAPSHOT, std::path::Path::new("own")).unwrap();
    let descriptors = pinned.tools.iter().map(|t| {
        let mut d = t.descriptor.clone();
        if t.name() == "echo" {
            d["description"] = json!("Echo the message back.");
        }
        d
    });
    Snapshot::from_descriptors(
        pinned.server_info.clone(),
        pinned.protocol_version.clone(),
        pinned.source.clone(),
        descriptors,
    )
    .unwrap()
    .to_canonical_string()
}

/// The whole surface of a connected server as `oma-mcp snapshot` pins it by default (every
/// [`Pin`], at most [`DEFAULT_MAX_LIST_ITEMS`] entries per list), with no warning.
pub(crate) async fn whole(client: &oma_mcp_runtime::McpClient, source: SnapshotSource) -> Snapshot {
    let reading = client
        .read_surface(
            source,
            &Pin::ALL.into_iter().collect(),
            DEFAULT_MAX_LIST_ITEMS,
        )
        .await
        .unwrap();
    assert_eq!(reading.warnings, Vec::<String>::new());
    reading.snapshot
}

/// Connect and check drift in one call (drift at run time): `FailOnBreaking` refuses a
/// server whose tools differ from the pin; it lets a warning pass, `FailOnAny` does not.
#[tokio::test]
async fn connect_checked_applies_the_drift_policy() {
    // The own pin against the `bad-schema` server (tools `broken` and `echo`).
    let err = connect_checked(
        crate::own("bad-schema"),
        own::SNAPSHOT,
        "own",
        DriftPolicy::FailOnBreaking,
    )
    .await
    .unwrap_err();
    let Error::Drift(DriftRefused {
        server,
        breaking,
        warning,
        info,
        first,
        ..
    }) = &err
    else {
        panic!("not a drift error: {err}");
    };
    assert_eq!(
        (server.as_str(), *breaking, *warning, *info, first.as_str()),
        (
            "own",
            15,
            2,
            5,
            "/capabilities/completions: the server no longer declares the capability \"completions\""
        )
    );

    // The same server as pinned: no change, whatever the policy.
    let (client, report) = connect_checked(
        crate::own("normal"),
        own::SNAPSHOT,
        "own",
        DriftPolicy::FailOnAny,
    )
    .await
    .unwrap();
    assert_eq!(report, DriftReport::new(Vec::new()));
    assert_eq!(client.tools().len(), own::TOOL_NAMES.len());
    client.disconnect().await;

    // A rewritten description is a warning: FailOnBreaking connects, FailOnAny refuses.
    let pin = own_snapshot_with_rewritten_echo();
    let (client, report) = connect_checked(
        crate::own("normal"),
        &pin,
        "own",
        DriftPolicy::FailOnBreaking,
    )
    .await
    .unwrap();
    client.disconnect().await;
    assert_eq!(
        (
            report.summary.breaking,
            report.summary.warning,
            report.summary.info
        ),
        (0, 1, 0)
    );
    let err = connect_checked(crate::own("normal"), &pin, "own", DriftPolicy::FailOnAny)
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "MCP server `own` drifted from its snapshot (0 breaking, 1 warning, 0 info; first: \
         echo/description: tool description changed: \"Echo the message back.\" → \
         \"Echoes the message back as `Echo: <message>`\"); review with `oma-mcp check` and update the pin with \
         `oma-mcp snapshot`"
    );

    // A pin that is not a snapshot stops before any server is started.
    let err = connect_checked(crate::own("normal"), "{}", "own", DriftPolicy::Ignore)
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::Snapshot(SnapshotError::Format { .. })),
        "{err}"
    );
}

/// `DriftPolicy::Log` logs every change with `tracing` (target `oma_mcp::drift`) and
/// connects; `Ignore` logs nothing.
#[tokio::test]
async fn connect_checked_log_policy_emits_one_tracing_event_per_change() {
    use tracing_subscriber::layer::SubscriberExt;
    let capture = Capture::default();
    // tracing-core 0.1.36 computes a new callsite's interest from the registering thread's
    // default alone while at most one dispatcher exists (`has_just_one`): a test on another
    // thread would then cache "never" for the drift callsites. A second live dispatcher makes
    // every registration ask all of them.
    let _second = tracing::Dispatch::new(tracing_subscriber::registry());
    let _guard =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(capture.clone()));
    let pin = own_snapshot_with_rewritten_echo();
    let (client, report) = connect_checked(crate::own("normal"), &pin, "own", DriftPolicy::Log)
        .await
        .unwrap();
    client.disconnect().await;
    assert_eq!(report.changes.len(), 1);
    let drift: Vec<Captured> = capture
        .take()
        .into_iter()
        .filter(|e| e.target == "oma_mcp::drift")
        .collect();
    let field = |k: &str, v: &str| (k.to_owned(), v.to_owned());
    assert_eq!(
        drift,
        [Captured {
            level: tracing::Level::WARN,
            target: "oma_mcp::drift".to_owned(),
            fields: vec![
                field(
                    "message",
                    "tool description changed: \"Echo the message back.\" → \"Echoes the message back as `Echo: <message>`\""
                ),
                field("server", "own"),
                field("tool", "echo"),
                field("pointer", "/description"),
                field("kind", "description_changed"),
                field("severity", "warning"),
            ],
        }]
    );
    let (client, report) = connect_checked(crate::own("normal"), &pin, "own", DriftPolicy::Ignore)
        .await
        .unwrap();
    client.disconnect().await;
    assert_eq!(report.changes.len(), 1);
    assert_eq!(
        capture
            .take()
            .into_iter()
            .filter(|e| e.target == "oma_mcp::drift")
            .count(),
        0
    );
}

// ---------------------------------------------------------------------------------------------
// server-everything
// ---------------------------------------------------------------------------------------------

/// The generated `connect(policy)` (manifest server `everything`): the pinned server as
/// committed connects under `FailOnAny` with an empty report.
#[tokio::test]
async fn everything_generated_connect_checks_drift() {
    if everything_config("everything_generated_connect_checks_drift").is_none() {
        return;
    }
    let (client, report) = everything::connect(DriftPolicy::FailOnAny).await.unwrap();
    assert_eq!(report, DriftReport::new(Vec::new()));
    assert_eq!(client.tools().len(), everything::TOOL_NAMES.len());
    client.disconnect().await;
}

#[tokio::test]
async fn everything_text_tools() {
    let Some(config) = everything_config("everything_text_tools") else {
        return;
    };
    let client = connect_mcp_tools(config).await.unwrap();
    let r = client
        .call(everything::EchoArgs::new("typed hi"))
        .mapped()
        .await;
    assert_eq!(
        r.to_json(),
        json!({"data": "Echo: typed hi", "isError": false, "modelOutput": null})
    );
    let r = client
        .call(everything::GetSumArgs::new(2.0, 3.0))
        .mapped()
        .await;
    assert_eq!(
        r.to_json(),
        json!({"data": "The sum of 2 and 3 is 5.", "isError": false, "modelOutput": null})
    );
    client.disconnect().await;
}

/// The arguments know their tool (`client.call(args)`, ended with `mapped` or `typed`), and a
/// consequential tool runs only through a confirmed call (`client.call(args).mapped()` would not compile for it).
#[tokio::test]
async fn everything_invoke_and_the_confirmed_call() {
    let Some(config) = everything_config("everything_invoke_and_the_confirmed_call") else {
        return;
    };
    let client = connect_mcp_tools(config).await.unwrap();
    let r = client
        .call(everything::GetSumArgs::new(2.0, 3.0))
        .mapped()
        .await;
    assert_eq!(
        (r.data.as_str(), r.is_error),
        ("The sum of 2 and 3 is 5.", false)
    );
    let typed = client
        .call(everything::EchoArgs::new("typed hi"))
        .typed()
        .await
        .unwrap();
    assert_eq!(typed.result.data, "Echo: typed hi");
    const { assert!(everything::ToggleSimulatedLogging::CONSEQUENTIAL) };
    let started = client
        .call(everything::ToggleSimulatedLoggingArgs::new())
        .confirmed()
        .mapped()
        .await;
    assert!(
        started
            .data
            .starts_with("Started simulated, random-leveled logging for session "),
        "{started:?}"
    );
    let stopped = client
        .call(everything::ToggleSimulatedLoggingArgs::new())
        .confirmed()
        .typed()
        .await
        .unwrap();
    assert_eq!(
        stopped.result.data,
        "Stopped simulated logging for session undefined"
    );
    client.disconnect().await;
}

#[tokio::test]
async fn everything_get_tiny_image() {
    let Some(config) = everything_config("everything_get_tiny_image") else {
        return;
    };
    let client = connect_mcp_tools(config).await.unwrap();
    let r = client
        .call(everything::GetTinyImageArgs::new())
        .mapped()
        .await;
    client.disconnect().await;
    assert_eq!(
        r.data,
        "Here's the image you requested:\n\
         [image image/png; base64 length=5380]\n\
         The image above is the MCP logo."
    );
    assert!(!r.is_error);
    let mut json = r.to_json();
    let parts = json["modelOutput"].as_array_mut().unwrap();
    assert_eq!(parts.len(), 3);
    let image = parts[1]["source"]["data"].take();
    assert_eq!(image.as_str().unwrap().len(), 5380);
    assert_eq!(
        json["modelOutput"],
        json!([
            {"type": "text", "text": "Here's the image you requested:"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": null}},
            {"type": "text", "text": "The image above is the MCP logo."},
        ])
    );
    // The recorded call in the shared corpus maps to the same result, payload included.
    if let Some(shared) = shared_dir() {
        let text = std::fs::read_to_string(
            shared.join("corpus/results/server-everything__get-tiny-image__4.json"),
        )
        .unwrap();
        let recorded: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            recorded["response"]["result"]["content"][1]["data"], image,
            "the image payload differs from the corpus"
        );
        assert_eq!(r, map_call_result(&recorded["response"]["result"]));
    }
}

#[tokio::test]
async fn everything_get_resource_links() {
    let Some(config) = everything_config("everything_get_resource_links") else {
        return;
    };
    let client = connect_mcp_tools(config).await.unwrap();
    let r = client
        .call(everything::GetResourceLinksArgs::new().with_count(2.0))
        .mapped()
        .await;
    // `demo://` links are not http(s): text only, no model output.
    assert_eq!(
        r.to_json(),
        json!({
            "data": "Here are 2 resource links to resources available in this server:\n\
                     [resource_link name=\"Blob Resource 1\" uri=\"demo://resource/dynamic/blob/1\"]\n\
                     Resource 1: plaintext resource\n\
                     [resource_link name=\"Text Resource 2\" uri=\"demo://resource/dynamic/text/2\"]\n\
                     Resource 2: plaintext resource",
            "isError": false,
            "modelOutput": null,
        })
    );
    // `count: None` is omitted, and the server applies its default of 3.
    let r = client
        .call(everything::GetResourceLinksArgs::new())
        .mapped()
        .await;
    assert!(
        r.data
            .starts_with("Here are 3 resource links to resources available in this server:\n"),
        "{}",
        r.data
    );
    client.disconnect().await;
}

#[test]
fn everything_marker_constants() {
    assert_eq!(everything::Echo::NAME, "everything_echo");
    assert_eq!(everything::Echo::MCP_NAME, "echo");
    assert_eq!(everything::GetSum::NAME, "everything_get-sum");
    assert_eq!(everything::GetSum::MCP_NAME, "get-sum");
    assert_eq!(
        everything::Echo::DIGEST,
        committed_digest(EVERYTHING_SNAPSHOT, "echo")
    );
    assert_eq!(
        everything::GetTinyImage::DIGEST,
        committed_digest(EVERYTHING_SNAPSHOT, "get-tiny-image")
    );
    // consequential = ["toggle-*", "gzip-file-as-resource"], as in the example's manifest.
    assert_eq!(
        [
            consequential::<everything::ToggleSimulatedLogging>(),
            consequential::<everything::ToggleSubscriberUpdates>(),
            consequential::<everything::GzipFileAsResource>(),
            consequential::<everything::Echo>(),
            consequential::<everything::GetSum>(),
            consequential::<everything::TriggerLongRunningOperation>(),
        ],
        [
            ("everything_toggle-simulated-logging", true),
            ("everything_toggle-subscriber-updates", true),
            ("everything_gzip-file-as-resource", true),
            ("everything_echo", false),
            ("everything_get-sum", false),
            ("everything_trigger-long-running-operation", false),
        ]
    );
    assert_eq!(everything::TOOL_NAMES, committed_names(EVERYTHING_SNAPSHOT));
}

/// Pin check for server-everything: the installed `tests/servers` package (same version as
/// `examples/everything/package.json`) must list exactly the committed snapshot. When it fails,
/// the pinned version changed; refresh with
/// `cargo run -p oma-mcp-cli -- snapshot --manifest
/// examples/everything/oma-mcp.toml` (after `npm ci --prefix examples/everything`), review the diff
/// and commit it.
#[tokio::test]
async fn everything_live_snapshot_equals_the_committed_snapshot() {
    let Some(config) = everything_config("everything_live_snapshot_equals_the_committed_snapshot")
    else {
        return;
    };
    let client = connect_mcp_tools(config).await.unwrap();
    // The command as written in tests/oma-mcp.toml (relative to its `cwd = "servers"`) and
    // examples/everything/oma-mcp.toml.
    let source = SnapshotSource::new("node_modules/.bin/mcp-server-everything", ["stdio"]);
    let live = whole(&client, source).await;
    client.disconnect().await;
    let committed = committed(EVERYTHING_SNAPSHOT);
    assert!(
        live.to_canonical_string() == committed,
        "server-everything no longer matches {EVERYTHING_SNAPSHOT}\n--- live:\n{}",
        live.to_canonical_string()
    );
}

// ---------------------------------------------------------------------------------------------
// Argument serialization: exactly the JSON the servers expect
// ---------------------------------------------------------------------------------------------

/// The wire JSON of typed arguments, as `McpClient::call` sends them.
fn wire<T: serde::Serialize>(args: &T) -> String {
    serde_json::to_string(args).unwrap()
}

#[test]
fn generated_args_serialize_to_the_servers_json() {
    // Optional `None` fields are omitted; `Some` numbers are JSON numbers (`number` is f64).
    assert_eq!(wire(&everything::GetResourceLinksArgs::new()), "{}");
    assert_eq!(
        wire(&everything::GetResourceLinksArgs::new().with_count(2.0)),
        r#"{"count":2.0}"#
    );
    assert_eq!(
        wire(&everything::GetSumArgs::new(2.0, 3.5)),
        r#"{"a":2.0,"b":3.5}"#
    );
    // Renamed fields use the JSON names; enum values are the schema's strings.
    assert_eq!(
        wire(
            &everything::GetAnnotatedMessageArgs::new(
                everything::GetAnnotatedMessageArgsMessageType::Success
            )
            .with_include_image(true)
        ),
        r#"{"includeImage":true,"messageType":"success"}"#
    );
    assert_eq!(
        wire(&everything::GetAnnotatedMessageArgs::new(
            everything::GetAnnotatedMessageArgsMessageType::Error
        )),
        r#"{"messageType":"error"}"#
    );
    assert_eq!(
        wire(
            &everything::GetResourceReferenceArgs::new()
                .with_resource_id(4.0)
                .with_resource_type(everything::GetResourceReferenceArgsResourceType::Blob)
        ),
        r#"{"resourceId":4.0,"resourceType":"Blob"}"#
    );
    assert_eq!(
        wire(&everything::GetStructuredContentArgs::new(
            everything::GetStructuredContentArgsLocation::NewYork
        )),
        r#"{"location":"New York"}"#
    );
    assert_eq!(
        wire(
            &everything::GzipFileAsResourceArgs::new()
                .with_name("a.txt")
                .with_output_type(everything::GzipFileAsResourceArgsOutputType::ResourceLink)
        ),
        r#"{"name":"a.txt","outputType":"resourceLink"}"#
    );
    assert_eq!(wire(&everything::GetTinyImageArgs::new()), "{}");

    assert_eq!(wire(&own::EchoArgs::new("hi")), r#"{"message":"hi"}"#);
    assert_eq!(wire(&own::AddArgs::new(1, -2)), r#"{"a":1,"b":-2}"#);
    assert_eq!(wire(&own::ExitArgs::new()), "{}");
    assert_eq!(wire(&own::ExitArgs::new().with_code(3)), r#"{"code":3}"#);
    assert_eq!(
        wire(&own::DescribePetArgs::new(own::DescribePetArgsPet::new(
            "Tom",
            own::DescribePetArgsPetKind::Cat
        ))),
        r#"{"pet":{"kind":"cat","name":"Tom"}}"#
    );
    assert_eq!(wire(&own::TinyImageArgs::new()), "{}");
}

#[test]
fn generated_args_deserialize_from_the_servers_json() {
    let args: everything::GetAnnotatedMessageArgs =
        serde_json::from_str(r#"{"messageType":"debug"}"#).unwrap();
    assert_eq!(
        args,
        everything::GetAnnotatedMessageArgs::new(
            everything::GetAnnotatedMessageArgsMessageType::Debug
        )
    );
    // A value outside the enum is rejected.
    assert!(
        serde_json::from_str::<everything::GetAnnotatedMessageArgs>(r#"{"messageType":"info"}"#)
            .is_err()
    );
}

// ---------------------------------------------------------------------------------------------
// Typed calls: validated arguments, typed outputs
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn own_structured_typed_output() {
    let client = own_client().await;
    let args = || own::StructuredArgs::new("Oslo");
    let typed = client.call(args()).typed().await.unwrap();
    assert_eq!(
        typed.output,
        // `required` is `city`, `temperature_c`, `conditions`.
        own::StructuredOutput::new("Oslo", 21, "sunny")
    );
    // The same mapping as the untyped call.
    assert_eq!(typed.result, client.call(args()).mapped().await);
    assert!(!typed.result.is_error);
    // A tool without an output schema: the structuredContent as sent (none here).
    let typed = client
        .call(own::EchoArgs::new("typed"))
        .typed()
        .await
        .unwrap();
    assert_eq!(typed.output, None);
    assert_eq!(typed.result.data, "Echo: typed");
    // An error result is the tool error with the contract's text, never validated.
    let err = client.call(own::FailArgs::new()).typed().await.unwrap_err();
    assert_eq!(err.to_string(), "This tool always fails");
    assert_eq!(
        err.into_tool_result().to_json(),
        json!({"data": "This tool always fails", "isError": true, "modelOutput": null})
    );
    client.disconnect().await;
}

#[tokio::test]
async fn everything_get_structured_content_typed_output() {
    let Some(config) = everything_config("everything_get_structured_content_typed_output") else {
        return;
    };
    let client = connect_mcp_tools(config).await.unwrap();
    let typed = client
        .call(everything::GetStructuredContentArgs::new(
            everything::GetStructuredContentArgsLocation::Chicago,
        ))
        .typed()
        .await
        .unwrap();
    // The draft-07 output schema (`additionalProperties: false`) passed, then the fields.
    assert_eq!(
        typed.output,
        // `required` is `temperature`, `conditions`, `humidity`.
        everything::GetStructuredContentOutput::new(36.0, "Light rain / drizzle", 82.0)
    );
    assert!(!typed.result.is_error);
    client.disconnect().await;
}
