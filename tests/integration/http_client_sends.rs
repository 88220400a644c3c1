//! What oma-mcp's HTTP client sends, against `oma-mcp-http-faults` (read back from its
//! `GET /_log`): configuration mistakes fail before any request, the headers and bodies of
//! each lifecycle, the `GET` of the server stream only after `notifications/initialized`, and
//! a request sent while an expired session is started again.

use std::time::Duration;

use oma_mcp_runtime::error::ConfigError;
use oma_mcp_runtime::{Error, Lifecycle, connect_mcp_tools};
use serde_json::{Value, json};

use crate::http_client_faults::{chain, config, connect_error, post, sent};
use crate::raw_http::log;
use crate::{echo, faults};

/// A URL whose path is not the MCP endpoint: the 404 says to check the path. `initialize`,
/// the fallback after a `404` to `server/discover`, gets the same `404`, so the error is
/// `server/discover`'s alone.
#[tokio::test]
async fn a_wrong_path_is_a_404_with_a_hint() {
    let server = faults("normal", &[]);
    let url = server.url().replace("/mcp", "/sse");
    let err = connect_error(config(&url)).await;
    assert_eq!(
        chain(&err, &url),
        "the MCP server/discover handshake with `URL` failed: the MCP server `URL` answered \
         `server/discover` with HTTP 404: body: \"Not Found: MCP is served at /mcp\" (check the \
         URL's path: many servers serve MCP at /mcp)"
    );
    let paths: Vec<(Value, Value)> = log(server.url())
        .await
        .iter()
        .map(|e| (e["path"].clone(), e["json"]["method"].clone()))
        .collect();
    assert_eq!(
        paths,
        [
            (json!("/sse"), json!("server/discover")),
            (json!("/sse"), json!("initialize")),
        ]
    );
}

/// A URL that is not an absolute http(s) URL, and invalid or reserved headers, fail before
/// anything is sent; a header value is never shown.
#[tokio::test]
async fn bad_urls_and_headers_fail_before_any_request() {
    for (url, label) in [
        ("ftp://127.0.0.1/mcp", "ftp://127.0.0.1/mcp"),
        ("127.0.0.1:8080/mcp", "<invalid URL>"),
        ("not a url with s3cret", "<invalid URL>"),
    ] {
        let err = connect_error(config(url)).await;
        assert!(
            matches!(&err, Error::Config(ConfigError::InvalidUrl { url, .. }) if url == label),
            "{err:?}"
        );
        assert_eq!(
            err.chain().to_string(),
            format!("the MCP server URL `{label}` is not an absolute http:// or https:// URL"),
            "{url}"
        );
        assert_eq!(err.command(), Some(label));
    }
    let server = faults("normal", &[]);
    let url = server.url();
    for (name, value, reason) in [
        ("Accept", "text/html", "oma-mcp sets this header itself"),
        ("mcp-session-id", "mine", "oma-mcp sets this header itself"),
        (
            "MCP-Protocol-Version",
            "2025-03-26",
            "oma-mcp sets this header itself",
        ),
        ("Bad Name", "v", "not a valid header name (RFC 9110 token)"),
        (
            "X-Key",
            "s3cret\nInjected: yes",
            "the value holds characters a header cannot carry (control characters or non-ASCII)",
        ),
    ] {
        let err = connect_error(config(url).with_header(name, value)).await;
        assert_eq!(
            chain(&err, url),
            format!("invalid HTTP header `{name}` for the MCP server `URL`: {reason}")
        );
        assert!(!format!("{err:?}").contains("s3cret"));
    }
    assert_eq!(log(url).await, Vec::<Value>::new());
}

/// The headers and bodies the client sends, per lifecycle: `Accept` and `Content-Type` on
/// every POST, literal headers on every request, `MCP-Protocol-Version` on every request
/// after the handshake, and in a 2026-07-28 conversation `Mcp-Method`, `Mcp-Name` and the
/// client context in each request's `_meta`.
#[tokio::test]
async fn what_the_client_sends() {
    let server = faults("normal", &[]);
    let url = server.url();
    let client = connect_mcp_tools(config(url).with_header("X-Team", "blue"))
        .await
        .unwrap();
    assert_eq!(echo(&client, "headers").await.data, "Echo: headers");
    client.disconnect().await;
    let entries = log(url).await;
    let header = |e: &Value, name: &str| e["headers"][name].clone();
    let seen: Vec<[Value; 6]> = entries
        .iter()
        .map(|e| {
            [
                header(e, "accept"),
                header(e, "content-type"),
                header(e, "x-team"),
                header(e, "mcp-protocol-version"),
                header(e, "mcp-method"),
                header(e, "mcp-name"),
            ]
        })
        .collect();
    let both = json!("application/json, text/event-stream");
    let ct = json!("application/json");
    let blue = json!("blue");
    let v = json!("2026-07-28");
    assert_eq!(
        seen,
        [
            [
                both.clone(),
                ct.clone(),
                blue.clone(),
                v.clone(),
                json!("server/discover"),
                Value::Null
            ],
            [
                both.clone(),
                ct.clone(),
                blue.clone(),
                v.clone(),
                json!("tools/list"),
                Value::Null
            ],
            [both, ct, blue, v, json!("tools/call"), json!("echo")],
        ]
    );
    let context = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "open-multi-agent", "version": "0.0.0"},
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    for entry in &entries {
        assert_eq!(entry["json"]["params"]["_meta"], context, "{entry}");
    }
    assert_eq!(
        entries[2]["json"]["params"]["arguments"],
        json!({"message": "headers"})
    );

    // `initialize`: no version header on the handshake, the negotiated one after it; no
    // standard headers.
    let server = faults("normal", &[]);
    let url = server.url();
    let client = connect_mcp_tools(
        config(url)
            .with_lifecycle(Lifecycle::Initialize)
            .with_header("X-Team", "blue"),
    )
    .await
    .unwrap();
    assert_eq!(echo(&client, "headers").await.data, "Echo: headers");
    client.disconnect().await;
    let seen: Vec<(String, Value, Value, Value, Value)> = log(url)
        .await
        .iter()
        .map(|e| {
            (
                e["method"].as_str().unwrap().to_owned(),
                e["json"]["method"].clone(),
                header(e, "x-team"),
                header(e, "mcp-protocol-version"),
                header(e, "mcp-method"),
            )
        })
        .collect();
    let v = json!("2025-11-25");
    let entry = |m: &str, j: Value, version: &Value| {
        (m.to_owned(), j, json!("blue"), version.clone(), Value::Null)
    };
    assert_eq!(
        seen,
        [
            entry("POST", json!("initialize"), &Value::Null),
            entry("POST", json!("notifications/initialized"), &v),
            entry("GET", Value::Null, &v),
            entry("POST", json!("tools/list"), &v),
            entry("POST", json!("tools/call"), &v),
        ]
    );
}

/// The `GET` of the server stream waits for `notifications/initialized` to go through (here
/// the server takes 300 ms over it), so it never reaches a server before the session is
/// initialized.
#[tokio::test]
async fn the_server_stream_opens_after_notifications_initialized() {
    let server = faults("normal", &["--notification-delay-ms", "300"]);
    let url = server.url();
    let client = connect_mcp_tools(config(url).with_lifecycle(Lifecycle::Initialize))
        .await
        .unwrap();
    client.disconnect().await;
    assert_eq!(
        sent(&log(url).await),
        [
            post("initialize"),
            post("notifications/initialized"),
            ("GET".to_owned(), Value::Null),
            post("tools/list"),
        ]
    );
}

/// A request sent while an expired session is being started again (here the server takes
/// 1.5 s over `initialize`) still carries the old session id: it meets the 404, waits for
/// the new session and is sent again, instead of going out without an id.
#[tokio::test]
async fn a_request_during_re_initialization_waits_for_the_new_session() {
    let server = faults(
        "expire-session",
        &["--after", "2", "--initialize-delay-ms", "1500"],
    );
    let url = server.url();
    let client = connect_mcp_tools(config(url)).await.unwrap();
    // tools/list was the first request of session-1, this is its second.
    assert_eq!(echo(&client, "one").await.data, "Echo: one");
    let (a, b) = tokio::join!(echo(&client, "a"), async {
        // While `a` starts session-2.
        tokio::time::sleep(Duration::from_millis(150)).await;
        echo(&client, "b").await
    });
    assert_eq!((a.data.as_str(), b.data.as_str()), ("Echo: a", "Echo: b"));
    let calls: Vec<(Value, Value)> = log(url)
        .await
        .iter()
        .filter(|e| e["json"]["method"] == "tools/call" || e["json"]["method"] == "initialize")
        .map(|e| {
            let message = match &e["json"]["params"]["arguments"]["message"] {
                Value::Null => e["json"]["method"].clone(),
                m => m.clone(),
            };
            (message, e["headers"]["mcp-session-id"].clone())
        })
        .collect();
    let (s1, s2) = (json!("session-1"), json!("session-2"));
    assert_eq!(
        calls[..3],
        [
            (json!("initialize"), Value::Null),
            (json!("one"), s1.clone()),
            (json!("a"), s1.clone()),
        ]
    );
    // Then, in an order the two tasks decide: the new handshake, `b` with the old id, and
    // both calls again with the new one.
    let mut rest: Vec<String> = calls[3..].iter().map(|c| format!("{c:?}")).collect();
    rest.sort();
    let mut expected: Vec<String> = [
        (json!("initialize"), Value::Null),
        (json!("b"), s1),
        (json!("a"), s2.clone()),
        (json!("b"), s2),
    ]
    .iter()
    .map(|c| format!("{c:?}"))
    .collect();
    expected.sort();
    assert_eq!(rest, expected);
    client.disconnect().await;
}
