//! `oma-mcp-http-faults` in every mode, with plain HTTP requests: each fault happens where
//! its mode says, the MCP around it is correct, and `GET /_log` shows what was received.

use std::time::{Duration, Instant};

use hyper::Method;
use oma_mcp_test_server::faults::{
    FORBIDDEN_CHALLENGE, HANG_MESSAGE, INVALID_JSON_DATA, PAGE_200, PAGE_502, REJECT_HTML,
    REJECT_JSON, REJECT_TEXT, UNAUTHORIZED_CHALLENGE, UNKNOWN_ID,
};
use serde_json::{Value, json};

use crate::faults;
use crate::raw_http::{self, log, next_chunk, post};

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "oma-mcp-tests", "version": "0"}}})
}

fn echo_call(id: u64, meta: Option<Value>) -> Value {
    let mut params = json!({"name": "echo", "arguments": {"message": "hi"}});
    if let Some(meta) = meta {
        params["_meta"] = meta;
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

fn echo_response(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id,
           "result": {"content": [{"type": "text", "text": "Echo: hi"}]}})
}

#[tokio::test]
async fn normal_answers_every_step_and_logs_every_request() {
    let server = faults("normal", &[]);
    let url = server.url();
    let v = [("mcp-protocol-version", "2025-11-25")];
    let init = post(url, &[], &initialize()).await;
    assert_eq!(
        (init.status, init.content_type()),
        (200, "application/json")
    );
    assert_eq!(
        init.json()["result"]["serverInfo"]["name"],
        "oma-mcp-http-faults"
    );
    assert_eq!(init.json()["result"]["protocolVersion"], "2025-11-25");
    let note = post(
        url,
        &v,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    assert_eq!((note.status, note.body.as_str()), (202, ""));
    let list = post(
        url,
        &v,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    )
    .await;
    assert_eq!(list.json()["result"]["tools"][0]["name"], "echo");
    let call = post(url, &v, &echo_call(3, None)).await;
    assert_eq!(call.json(), echo_response(3));
    let discover = post(
        url,
        &v,
        &json!({"jsonrpc": "2.0", "id": 4, "method": "server/discover"}),
    )
    .await;
    assert_eq!(
        discover.json()["result"]["supportedVersions"],
        json!(["2026-07-28"])
    );
    let unknown = post(
        url,
        &v,
        &json!({"jsonrpc": "2.0", "id": 5, "method": "resources/list"}),
    )
    .await;
    assert_eq!(unknown.json()["error"]["code"], -32601);
    let get = raw_http::open(url, Method::GET, &[("accept", "text/event-stream")], None).await;
    assert_eq!(get.status(), 200);
    assert_eq!(get.headers()["content-type"], "text/event-stream");
    drop(get);
    assert_eq!(
        raw_http::request(url, Method::DELETE, &v, None)
            .await
            .status,
        200
    );
    let elsewhere = url.replace("/mcp", "/other");
    assert_eq!(
        raw_http::request(&elsewhere, Method::GET, &[], None)
            .await
            .status,
        404
    );

    let entries = log(url).await;
    let seen: Vec<(&str, &str, Option<&str>)> = entries
        .iter()
        .map(|e| {
            (
                e["method"].as_str().unwrap(),
                e["path"].as_str().unwrap(),
                e["json"]["method"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("POST", "/mcp", Some("initialize")),
            ("POST", "/mcp", Some("notifications/initialized")),
            ("POST", "/mcp", Some("tools/list")),
            ("POST", "/mcp", Some("tools/call")),
            ("POST", "/mcp", Some("server/discover")),
            ("POST", "/mcp", Some("resources/list")),
            ("GET", "/mcp", None),
            ("DELETE", "/mcp", None),
            ("GET", "/other", None),
        ]
    );
    let first = &entries[0];
    assert_eq!(first["seq"], 1);
    assert_eq!(first["listener"], "main");
    assert_eq!(
        first["headers"]["accept"],
        "application/json, text/event-stream"
    );
    assert_eq!(first["headers"]["content-type"], "application/json");
    assert_eq!(first["json"], initialize());
    assert_eq!(first["body"], initialize().to_string());
    assert_eq!(entries[1]["headers"]["mcp-protocol-version"], "2025-11-25");
    // DELETE /_log empties it.
    let cleared = raw_http::request(&url.replace("/mcp", "/_log"), Method::DELETE, &[], None).await;
    assert_eq!(cleared.body, "[]");
    assert_eq!(log(url).await, Vec::<Value>::new());
}

#[tokio::test]
async fn html_pages() {
    for (mode, status, page) in [("html-502", 502, PAGE_502), ("html-200", 200, PAGE_200)] {
        let server = faults(mode, &[]);
        for method in [Method::POST, Method::GET] {
            let reply = raw_http::request(
                server.url(),
                method,
                &[("accept", "text/event-stream")],
                Some(&initialize()),
            )
            .await;
            assert_eq!(
                (reply.status, reply.content_type()),
                (status, "text/html"),
                "{mode}"
            );
            assert_eq!(reply.body, page);
        }
    }
}

#[tokio::test]
async fn unauthorized_and_forbidden_unless_the_good_token() {
    for (mode, status, challenge, error) in [
        ("unauthorized", 401, UNAUTHORIZED_CHALLENGE, "invalid_token"),
        ("forbidden", 403, FORBIDDEN_CHALLENGE, "insufficient_scope"),
    ] {
        let server = faults(mode, &[]);
        for token in [None, Some("Bearer wrong")] {
            let headers: Vec<(&str, &str)> =
                token.map(|t| ("authorization", t)).into_iter().collect();
            let reply = post(server.url(), &headers, &initialize()).await;
            assert_eq!(reply.status, status, "{mode} {token:?}");
            assert_eq!(reply.header("www-authenticate"), Some(challenge));
            assert_eq!(reply.json()["error"], error);
        }
        let good = post(
            server.url(),
            &[("authorization", "Bearer good-token")],
            &initialize(),
        )
        .await;
        assert_eq!(good.status, 200);
        let sent: Vec<Value> = log(server.url())
            .await
            .iter()
            .map(|e| e["headers"]["authorization"].clone())
            .collect();
        assert_eq!(
            sent,
            [
                Value::Null,
                json!("Bearer wrong"),
                json!("Bearer good-token")
            ]
        );
    }
}

#[tokio::test]
async fn close_mid_stream_cuts_the_connection_after_one_notification() {
    let server = faults("close-mid-stream", &[]);
    let response = raw_http::open(
        server.url(),
        Method::POST,
        &[("accept", raw_http::ACCEPT_BOTH)],
        Some(&echo_call(3, Some(json!({"progressToken": "t"})))),
    )
    .await;
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let mut body = response.into_body();
    let first = next_chunk(&mut body, Duration::from_secs(5))
        .await
        .unwrap()
        .unwrap();
    let events = raw_http::events(&String::from_utf8_lossy(&first));
    let notification: Value = serde_json::from_str(&events[0].data).unwrap();
    assert_eq!(notification["method"], "notifications/progress");
    assert_eq!(notification["params"]["progressToken"], "t");
    let end = next_chunk(&mut body, Duration::from_secs(5)).await;
    assert!(
        matches!(end, Some(Err(_))),
        "the connection must fail, not end cleanly: {end:?}"
    );
    // Without a token the one notification is a log message.
    let reply = raw_http::open(
        server.url(),
        Method::POST,
        &[("accept", raw_http::ACCEPT_BOTH)],
        Some(&echo_call(4, None)),
    )
    .await;
    let mut body = reply.into_body();
    let first = next_chunk(&mut body, Duration::from_secs(5))
        .await
        .unwrap()
        .unwrap();
    assert!(String::from_utf8_lossy(&first).contains("notifications/message"));
}

#[tokio::test]
async fn slow_sse_keeps_alive_then_answers() {
    let server = faults("slow-sse", &["--delay-ms", "700"]);
    let start = Instant::now();
    let reply = post(server.url(), &[], &echo_call(3, None)).await;
    let elapsed = start.elapsed();
    assert!(elapsed >= Duration::from_millis(700), "{elapsed:?}");
    let events = reply.events();
    let comments: usize = events.iter().map(|e| e.comments).sum();
    // At 200, 400 and 600 ms (fewer when the machine is slow to wake the server).
    assert!((1..=3).contains(&comments), "{}", reply.body);
    assert!(reply.body.contains(": keepalive\n\n"));
    assert_eq!(reply.messages(), [echo_response(3)]);
}

#[tokio::test]
async fn sse_no_response_stays_open_and_silent() {
    let server = faults("sse-no-response", &[]);
    let response = raw_http::open(
        server.url(),
        Method::POST,
        &[("accept", raw_http::ACCEPT_BOTH)],
        Some(&echo_call(3, None)),
    )
    .await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let mut body = response.into_body();
    let waited = tokio::time::timeout(
        Duration::from_millis(700),
        http_body_util::BodyExt::frame(&mut body),
    )
    .await;
    assert!(waited.is_err(), "nothing may arrive: {waited:?}");
    // The server still answers other requests, and records the cancellation.
    let cancel =
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}});
    assert_eq!(post(server.url(), &[], &cancel).await.status, 202);
    assert_eq!(log(server.url()).await[1]["json"], cancel);
}

#[tokio::test]
async fn sse_invalid_json_then_the_response() {
    let server = faults("sse-invalid-json", &[]);
    let reply = post(server.url(), &[], &echo_call(3, None)).await;
    let events = reply.events();
    assert_eq!(events.len(), 2);
    assert_eq!(events[0].data, INVALID_JSON_DATA);
    assert_eq!(
        serde_json::from_str::<Value>(&events[1].data).unwrap(),
        echo_response(3)
    );
}

#[tokio::test]
async fn unknown_id_then_the_response() {
    let server = faults("unknown-id", &[]);
    let reply = post(server.url(), &[], &echo_call(3, None)).await;
    let messages = reply.messages();
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[0]["id"], UNKNOWN_ID);
    assert_eq!(messages[1], echo_response(3));
}

#[tokio::test]
async fn huge_body_and_huge_event() {
    let size = 5 * 1024 * 1024 + 3;
    let flag = size.to_string();
    let server = faults("huge-body", &["--size", &flag]);
    let reply = post(server.url(), &[], &echo_call(3, None)).await;
    assert_eq!(reply.content_type(), "application/json");
    assert_eq!(reply.header("content-length"), Some(flag.as_str()));
    assert_eq!(reply.body.len(), size);
    assert_eq!(reply.json()["id"], 3);
    let list = post(
        server.url(),
        &[],
        &json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}),
    )
    .await;
    assert_eq!(list.status, 200);

    let server = faults("huge-event", &["--size", &flag]);
    let reply = post(server.url(), &[], &echo_call(3, None)).await;
    assert_eq!(reply.content_type(), "text/event-stream");
    let events = reply.events();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].data.len(), size);
    assert_eq!(reply.messages()[0]["id"], 3);
}

/// The default size is 80 MiB.
#[tokio::test]
async fn huge_body_defaults_to_80_mib() {
    let server = faults("huge-body", &[]);
    let reply = post(server.url(), &[], &echo_call(3, None)).await;
    assert_eq!(reply.body.len(), 80 * 1024 * 1024);
}

#[tokio::test]
async fn expire_session_404s_after_n_requests_and_renews_on_initialize() {
    let server = faults("expire-session", &["--after", "2"]);
    let url = server.url();
    let discover = post(
        url,
        &[],
        &json!({"jsonrpc": "2.0", "id": 0, "method": "server/discover"}),
    )
    .await;
    assert_eq!(
        (discover.status, discover.json()["error"]["code"].clone()),
        (200, json!(-32601))
    );
    let init = post(url, &[], &initialize()).await;
    assert_eq!(init.header("mcp-session-id"), Some("session-1"));
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    assert_eq!(post(url, &[], &list).await.status, 400, "no session id");
    let s1 = [("mcp-session-id", "session-1")];
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(url, &s1, &note).await.status, 202);
    assert_eq!(post(url, &s1, &list).await.status, 200);
    assert_eq!(
        post(url, &s1, &echo_call(3, None)).await.json(),
        echo_response(3)
    );
    let third = post(url, &s1, &list).await;
    assert_eq!(
        (third.status, third.body.as_str()),
        (404, "Not Found: Session not found")
    );
    assert_eq!(post(url, &s1, &note).await.status, 404);
    assert_eq!(
        raw_http::request(url, Method::GET, &s1, None).await.status,
        404
    );

    let init = post(url, &[], &initialize()).await;
    assert_eq!(init.header("mcp-session-id"), Some("session-2"));
    let s2 = [("mcp-session-id", "session-2")];
    assert_eq!(post(url, &s2, &list).await.status, 200);
    assert_eq!(
        raw_http::request(url, Method::DELETE, &s2, None)
            .await
            .status,
        200
    );
    assert_eq!(
        post(url, &s2, &list).await.status,
        404,
        "a DELETE ends the session"
    );
    let sessions: Vec<Value> = log(url)
        .await
        .iter()
        .map(|e| e["headers"]["mcp-session-id"].clone())
        .collect();
    assert_eq!(sessions.iter().filter(|s| *s == "session-1").count(), 6);
}

#[tokio::test]
async fn redirects() {
    let server = faults("redirect-loop", &[]);
    let reply = post(server.url(), &[], &initialize()).await;
    assert_eq!(
        (reply.status, reply.header("location")),
        (307, Some(server.url()))
    );

    let server = faults("redirect-cross-origin", &[]);
    let auth = [("authorization", "Bearer secret")];
    let reply = post(server.url(), &auth, &initialize()).await;
    assert_eq!(reply.status, 307);
    let other = reply.header("location").unwrap().to_owned();
    assert_ne!(other, server.url());
    assert!(
        other.starts_with("http://127.0.0.1:") && other.ends_with("/mcp"),
        "{other}"
    );
    // The other origin answers MCP (here without the token, as a client must send it).
    let there = post(&other, &[], &initialize()).await;
    assert_eq!(
        there.json()["result"]["serverInfo"]["name"],
        "oma-mcp-http-faults"
    );
    let entries = log(server.url()).await;
    let seen: Vec<(&str, &Value)> = entries
        .iter()
        .map(|e| {
            (
                e["listener"].as_str().unwrap(),
                &e["headers"]["authorization"],
            )
        })
        .collect();
    assert_eq!(
        seen,
        [("main", &json!("Bearer secret")), ("other", &Value::Null)]
    );
    assert_eq!(log(&other).await, entries, "one log for both listeners");
}

#[tokio::test]
async fn resumable_streams_resume_with_last_event_id() {
    let server = faults("resumable", &[]);
    let url = server.url();
    for (meta, first_data) in [
        (Some(json!({"progressToken": 9})), "notifications/progress"),
        (None, ""),
    ] {
        let reply = post(url, &[], &echo_call(3, meta)).await;
        let events = reply.events();
        assert_eq!(events.len(), 1, "{}", reply.body);
        assert_eq!(events[0].retry, Some(100));
        let id = events[0].id.clone().unwrap();
        assert!(id.ends_with("-1"), "{id}");
        assert!(events[0].data.contains(first_data));
        assert_eq!(events[0].data.is_empty(), first_data.is_empty());
        let headers = [
            ("accept", "text/event-stream"),
            ("last-event-id", id.as_str()),
        ];
        let resumed = raw_http::request(url, Method::GET, &headers, None).await;
        assert_eq!(
            (resumed.status, resumed.content_type()),
            (200, "text/event-stream")
        );
        let events = resumed.events();
        assert_eq!(events.len(), 1);
        assert_eq!(
            events[0].id.as_deref(),
            Some(id.replace("-1", "-2").as_str())
        );
        assert_eq!(resumed.messages(), [echo_response(3)]);
        // Delivered once.
        let again = raw_http::request(url, Method::GET, &headers, None).await;
        assert_eq!(again.status, 400);
    }
    let resumes: Vec<Value> = log(url)
        .await
        .iter()
        .filter(|e| e["method"] == "GET")
        .map(|e| e["headers"]["last-event-id"].clone())
        .collect();
    assert_eq!(
        resumes,
        [json!("1-1"), json!("1-1"), json!("2-1"), json!("2-1")]
    );
}

#[tokio::test]
async fn no_get_stream_answers_405() {
    let server = faults("no-get-stream", &[]);
    for method in [Method::GET, Method::DELETE] {
        let reply = raw_http::request(
            server.url(),
            method,
            &[("accept", "text/event-stream")],
            None,
        )
        .await;
        assert_eq!((reply.status, reply.header("allow")), (405, Some("POST")));
    }
    assert_eq!(
        post(server.url(), &[], &echo_call(3, None)).await.json(),
        echo_response(3)
    );
}

#[tokio::test]
async fn hang_call_holds_only_the_call_that_asks_for_it() {
    let server = faults("hang-call", &[]);
    let url = server.url();
    let mut hang = echo_call(3, None);
    hang["params"]["arguments"]["message"] = json!(HANG_MESSAGE);
    let response = raw_http::open(
        url,
        Method::POST,
        &[("accept", raw_http::ACCEPT_BOTH)],
        Some(&hang),
    )
    .await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    // Another call is answered at once while the first hangs.
    assert_eq!(
        post(url, &[], &echo_call(4, None)).await.json(),
        echo_response(4)
    );
    let mut body = response.into_body();
    let waited = tokio::time::timeout(
        Duration::from_millis(500),
        http_body_util::BodyExt::frame(&mut body),
    )
    .await;
    assert!(waited.is_err(), "nothing may arrive: {waited:?}");
}

#[tokio::test]
async fn legacy_session_rejects_requests_without_a_session() {
    let discover = json!({"jsonrpc": "2.0", "id": 0, "method": "server/discover"});
    for (flags, status, content_type, body) in [
        (&[][..], 400, "text/plain", REJECT_TEXT),
        (
            &["--reject-body", "html"][..],
            400,
            "text/html",
            REJECT_HTML,
        ),
        (
            &["--reject-body", "json", "--reject-status", "405"][..],
            405,
            "application/json",
            REJECT_JSON,
        ),
    ] {
        let server = faults("legacy-session", flags);
        let url = server.url();
        let rejected = post(url, &[], &discover).await;
        assert_eq!(
            (
                rejected.status,
                rejected.content_type(),
                rejected.body.as_str()
            ),
            (status, content_type, body),
            "{flags:?}"
        );
        let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
        assert_eq!(post(url, &[], &list).await.status, status);
        assert_eq!(
            raw_http::request(url, Method::GET, &[], None).await.status,
            status
        );
        let init = post(url, &[], &initialize()).await;
        assert_eq!(init.header("mcp-session-id"), Some("session-1"));
        assert_eq!(init.json()["result"]["protocolVersion"], "2025-11-25");
        let s1 = [("mcp-session-id", "session-1")];
        // With the session, `server/discover` is still unknown: a server before 2026-07-28.
        assert_eq!(
            post(url, &s1, &discover).await.json()["error"]["code"],
            json!(-32601)
        );
        assert_eq!(
            post(url, &s1, &list).await.json()["result"]["tools"][0]["name"],
            "echo"
        );
        assert_eq!(
            post(url, &s1, &echo_call(3, None)).await.json(),
            echo_response(3)
        );
        let unknown = [("mcp-session-id", "session-9")];
        assert_eq!(post(url, &unknown, &list).await.status, 404);
        assert_eq!(
            REJECT_JSON,
            r#"{"error":"Bad Request: No valid session ID provided"}"#
        );
    }
}
