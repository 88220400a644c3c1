//! oma-mcp's HTTP client against a stateful server from before 2026-07-28
//! (`oma-mcp-http-faults --mode legacy-session`) that rejects `server/discover`, sent without
//! a session, with an HTTP status and a body that is no JSON-RPC message (plain text, an HTML
//! page, a JSON object). Under the default [`Lifecycle::Auto`], `400`, `404` and `405` fall
//! back to `initialize` on the same URL; `401` and `403` stay authentication errors, without
//! a fallback; [`Lifecycle::Discover`] does not fall back.

use std::time::Duration;

use oma_mcp_runtime::error::ConnectError;
use oma_mcp_runtime::{ConnectConfig, Error, Lifecycle, connect_mcp_tools};
use oma_mcp_test_server::faults::{REJECT_TEXT, SERVER_NAME};
use serde_json::{Value, json};

use crate::raw_http::log;
use crate::typed::{Capture, Captured};
use crate::{echo, faults};

fn config(url: &str) -> ConnectConfig {
    ConnectConfig::http(url)
        .with_name_prefix("f")
        .with_request_timeout(Duration::from_secs(20))
}

/// What the client sent: `(HTTP method, JSON-RPC method or null, Mcp-Session-Id or null)`.
async fn sent(url: &str) -> Vec<(String, Value, Value)> {
    log(url)
        .await
        .iter()
        .map(|e| {
            (
                e["method"].as_str().unwrap().to_owned(),
                e["json"]["method"].clone(),
                e["headers"]["mcp-session-id"].clone(),
            )
        })
        .collect()
}

fn entry(http: &str, method: Value, session: Value) -> (String, Value, Value) {
    (http.to_owned(), method, session)
}

/// `400`, `404` and `405` with plain text, HTML or a JSON object: `initialize` follows on the
/// same URL (one `DEBUG` line says why), the session it opens serves the rest, and the
/// negotiated version is `initialize`'s.
#[tokio::test]
async fn a_rejected_discover_falls_back_to_initialize() {
    use tracing_subscriber::layer::SubscriberExt;
    let capture = Capture::default();
    // A second live dispatcher, so callsites registered on another thread still ask this
    // thread's subscriber (see `typed::connect_checked_log_policy_emits_one_tracing_event_per_change`).
    let _second = tracing::Dispatch::new(tracing_subscriber::registry());
    let _guard =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(capture.clone()));
    for (flags, status) in [
        (&[][..], 400),
        (&["--reject-body", "html"], 400),
        (&["--reject-body", "json"], 400),
        (&["--reject-status", "404"], 404),
        (&["--reject-status", "405", "--reject-body", "json"], 405),
    ] {
        let server = faults("legacy-session", flags);
        let url = server.url();
        capture.take();
        let client = connect_mcp_tools(config(url)).await.unwrap();
        let fallback: Vec<Captured> = capture
            .take()
            .into_iter()
            .filter(|e| {
                e.fields
                    .iter()
                    .any(|(k, v)| k == "message" && v.contains("falling back"))
            })
            .collect();
        assert_eq!(
            fallback,
            [Captured {
                level: tracing::Level::DEBUG,
                target: "oma_mcp_runtime::connect::lifecycle".to_owned(),
                fields: vec![
                    (
                        "message".to_owned(),
                        format!(
                            "`server/discover` was refused with HTTP {status} and no JSON-RPC \
                             error (a server before 2026-07-28); falling back to `initialize`"
                        )
                    ),
                    ("server".to_owned(), url.to_owned()),
                ],
            }],
            "{flags:?}"
        );
        assert_eq!(client.protocol_version(), "2025-11-25", "{flags:?}");
        assert_eq!(
            client.server_info(),
            Some(&json!({"name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION")}))
        );
        assert_eq!(echo(&client, "old").await.data, "Echo: old");
        client.disconnect().await;
        let s1 = json!("session-1");
        assert_eq!(
            sent(url).await,
            [
                entry("POST", json!("server/discover"), Value::Null),
                entry("POST", json!("initialize"), Value::Null),
                entry("POST", json!("notifications/initialized"), s1.clone()),
                entry("GET", Value::Null, s1.clone()),
                entry("POST", json!("tools/list"), s1.clone()),
                entry("POST", json!("tools/call"), s1.clone()),
                entry("DELETE", Value::Null, s1),
            ],
            "{flags:?}"
        );
    }
}

/// `Lifecycle::Discover` has no fallback: the rejection is the error, as before.
#[tokio::test]
async fn discover_only_reports_the_rejection() {
    let server = faults("legacy-session", &[]);
    let url = server.url();
    let err = match connect_mcp_tools(config(url).with_lifecycle(Lifecycle::Discover)).await {
        Ok(_) => panic!("connected"),
        Err(e) => e,
    };
    assert_eq!(
        err.chain().to_string().replace(url, "URL"),
        format!(
            "the MCP server/discover handshake with `URL` failed: the MCP server `URL` answered \
             `server/discover` with HTTP 400: body: \"{REJECT_TEXT}\""
        )
    );
    assert_eq!(
        sent(url).await,
        [entry("POST", json!("server/discover"), Value::Null)]
    );
}

/// `401` and `403` to `server/discover` are authentication errors, as before: no fallback.
#[tokio::test]
async fn unauthorized_and_forbidden_do_not_fall_back() {
    for (status, word) in [("401", "unauthorized"), ("403", "forbidden")] {
        let server = faults("legacy-session", &["--reject-status", status]);
        let url = server.url();
        let err = match connect_mcp_tools(config(url)).await {
            Ok(_) => panic!("connected"),
            Err(e) => e,
        };
        assert_eq!(
            err.chain().to_string().replace(url, "URL"),
            format!(
                "the MCP server/discover handshake with `URL` failed: the MCP server `URL` \
                 answered `server/discover` with HTTP {status} ({word}); supply a token from the environment (manifest keys `bearer-env`, `header-env`; \
                 `ConnectConfig::with_bearer_env`, `ConnectConfig::with_header_env`); or, if the \
                 server offers OAuth, log in with `oma-mcp login` and enable OAuth with \
                 `ConnectConfig::with_oauth(OAuthConfig::authorization_code())` (in a manifest: \
                 a URL pin without `bearer-env` or an `Authorization` in `header-env`, or with a \
                 table `oauth`)"
            )
        );
        let Error::Connect(ConnectError::Handshake { source, .. }) = &err else {
            panic!("{err:?}")
        };
        assert!(
            matches!(&**source, Error::Connect(ConnectError::HttpAuth { status: s, .. }) if s.to_string() == status),
            "{source:?}"
        );
        assert_eq!(
            sent(url).await,
            [entry("POST", json!("server/discover"), Value::Null)]
        );
    }
}
