//! A session over the transport: the handshake and its headers, SSE answers and the server's
//! requests, a new session after `404`, resumption, the server's stream, parameter headers.

use std::time::Duration;

use serde_json::json;

use super::script::*;
use crate::Error;
use crate::error::RequestError;

/// Connecting with a session: `initialize` without a session id, every later message with
/// the one the server assigned and the negotiated protocol version, the `GET` of the server's
/// stream (refused: the server offers none), and a `DELETE` of the session at the end.
#[tokio::test]
async fn a_session_from_handshake_to_delete() {
    let script = Script::start(|r, _| match r.what().as_str() {
        "initialize" => initialized(r, Some("s-1")),
        "tools/list" => json_response(200, &[], &tools(r, &["echo"])),
        "DELETE" => response(200, &[], ""),
        "GET" => not_allowed(),
        _ => accepted(),
    })
    .await;
    let client = script.connect().await.unwrap();
    assert_eq!(names(&client.list_tools_raw().await.unwrap()), ["echo"]);
    client.disconnect().await;

    assert_eq!(
        script.seen(),
        [
            "initialize",
            "notifications/initialized @s-1",
            "tools/list @s-1",
            "tools/list @s-1",
            "DELETE @s-1",
        ]
    );
    let requests = script.requests();
    for request in &requests {
        let version = request.header("mcp-protocol-version");
        if request.what() == "initialize" {
            assert_eq!(version, None);
        } else {
            assert_eq!(version, Some("2025-11-25"), "{request:?}");
        }
        if request.method == "POST" {
            assert_eq!(request.header("content-type"), Some("application/json"));
            assert_eq!(
                request.header("accept"),
                Some("application/json, text/event-stream")
            );
        }
    }
    let get = requests.iter().find(|r| r.method == "GET").unwrap();
    assert_eq!(
        (get.header("accept"), get.header("mcp-session-id")),
        (Some("text/event-stream"), Some("s-1"))
    );
}

/// An SSE answer: a server request before the answer is answered with its own `POST`, and the
/// answer after it is the request's.
#[tokio::test]
async fn an_sse_answer_with_a_server_request_first() {
    let script = Script::start(|r, n| match (r.what().as_str(), n) {
        ("initialize", _) => initialized(r, None),
        ("tools/list", 1) => sse_response(&format!(
            "event: message\ndata: {}\n\ndata: {}\n\n",
            json!({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"}),
            tools(r, &["a", "b"])
        )),
        ("tools/list", _) => json_response(200, &[], &tools(r, &[])),
        ("GET", _) => not_allowed(),
        _ => accepted(),
    })
    .await;
    let client = script.connect().await.unwrap();
    assert_eq!(names(&client.list_tools_raw().await.unwrap()), ["a", "b"]);
    // The answer to the ping may still be on its way.
    for _ in 0..50 {
        if script.requests().iter().any(|r| r.what() == "-") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let answer = script
        .requests()
        .into_iter()
        .find(|r| r.what() == "-")
        .unwrap();
    assert_eq!(
        answer.body,
        json!({"jsonrpc": "2.0", "id": "srv-1", "result": {}})
    );
    client.disconnect().await;
}

/// A `404` to a request of a session starts a new one (`initialize` without the old id, then
/// `notifications/initialized` with the new one), the request goes again with the new id,
/// and the new session's stream of server messages opens.
#[tokio::test]
async fn an_expired_session_is_started_again() {
    let script = Script::start(|r, n| match (r.what().as_str(), n) {
        ("initialize", 0) => initialized(r, Some("s-1")),
        ("initialize", _) => initialized(r, Some("s-2")),
        ("tools/list", 1) => response(404, &[], "no such session"),
        ("tools/list", _) => json_response(200, &[], &tools(r, &["t"])),
        ("GET" | "DELETE", _) => not_allowed(),
        _ => accepted(),
    })
    .await;
    let client = script.connect().await.unwrap();
    assert_eq!(names(&client.list_tools_raw().await.unwrap()), ["t"]);
    // The new session's stream of server messages opens too.
    for _ in 0..100 {
        if script
            .requests()
            .iter()
            .any(|r| r.method == "GET" && r.header("mcp-session-id") == Some("s-2"))
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let streams: Vec<_> = script
        .requests()
        .into_iter()
        .filter(|r| r.method == "GET")
        .map(|r| r.header("mcp-session-id").map(str::to_owned))
        .collect();
    assert_eq!(streams, [Some("s-1".to_owned()), Some("s-2".to_owned())]);
    client.disconnect().await;
    assert_eq!(
        script.seen(),
        [
            "initialize",
            "notifications/initialized @s-1",
            "tools/list @s-1",
            "tools/list @s-1",
            "initialize",
            "notifications/initialized @s-2",
            "tools/list @s-2",
            "DELETE @s-2",
        ]
    );
}

/// A stream that ends before the answer, after an event with an id, is resumed with a `GET`
/// that carries `Last-Event-ID`, and the answer on the resumed stream is the request's.
#[tokio::test]
async fn a_dropped_stream_is_resumed_from_its_last_event() {
    let script = answering(
        |_| sse_response("retry: 10\nid: ev-7\ndata: {}\n\n"),
        |r| match r.header("last-event-id") {
            Some("ev-7") => sse_response(&format!(
                "data: {}\n\n",
                json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": [{"name": "resumed",
                    "inputSchema": {"type": "object"}}]}})
            )),
            _ => not_allowed(),
        },
    )
    .await;
    let client = script.connect().await.unwrap();
    let listed = client.list_tools_raw().await;
    let gets: Vec<_> = script
        .requests()
        .into_iter()
        .filter(|r| r.method == "GET")
        .map(|r| r.header("last-event-id").map(str::to_owned))
        .collect();
    assert_eq!(names(&listed.unwrap()), ["resumed"], "GETs: {gets:?}");
    assert!(gets.contains(&Some("ev-7".to_owned())), "{gets:?}");
    client.disconnect().await;
}

/// A request accepted with `202` is answered on the server's stream: the request waits for
/// that answer rather than failing.
#[tokio::test]
async fn a_request_accepted_with_202_is_answered_on_the_server_stream() {
    let script = Script::start(|r, n| match (r.what().as_str(), n) {
        ("initialize", _) => initialized(r, Some("s-1")),
        ("tools/list", 0) => json_response(200, &[], &tools(r, &[])),
        ("tools/list", _) => accepted(),
        // Held until the request came (connect waits for the stream briefly, then goes on
        // and opens it again later).
        ("GET", _) => after(
            "tools/list",
            2,
            sse_response(&format!(
                "data: {}\n\n",
                json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": [{"name": "streamed",
                    "inputSchema": {"type": "object"}}]}})
            )),
        ),
        ("DELETE", _) => not_allowed(),
        _ => accepted(),
    })
    .await;
    let client = script.connect().await.unwrap();
    assert_eq!(names(&client.list_tools_raw().await.unwrap()), ["streamed"]);
    client.disconnect().await;
}

/// A JSON answer of exactly the message size limit is read, whether its length is declared
/// (`Content-Length`) or not (chunked); the limit is in bytes of the body.
#[tokio::test]
async fn an_answer_of_exactly_the_limit_is_read() {
    let script = Script::start(|r, n| {
        let exact = || {
            let short = tools(r, &["t"]).to_string().len();
            let body = tools(r, &[&format!("t{}", "x".repeat(1000 - short))]).to_string();
            assert_eq!(body.len(), 1000);
            body
        };
        match (r.what().as_str(), n) {
            ("initialize", _) => initialized(r, None),
            ("tools/list", 0) => json_response(200, &[], &tools(r, &[])),
            ("tools/list", 1) => response(200, &[("Content-Type", "application/json")], &exact()),
            ("tools/list", _) => {
                let body = exact();
                let (a, b) = body.split_at(600);
                format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\
                     Transfer-Encoding: chunked\r\n\r\n{:x}\r\n{a}\r\n{:x}\r\n{b}\r\n0\r\n\r\n",
                    a.len(),
                    b.len()
                )
                .into_bytes()
            }
            ("GET", _) => not_allowed(),
            _ => accepted(),
        }
    })
    .await;
    let client = script.connect().await.unwrap();
    for framing in ["Content-Length", "chunked"] {
        let listed = client.list_tools_raw().await.unwrap();
        let name = listed[0]["name"].as_str().unwrap();
        assert!(
            name.starts_with("tx") && name.len() > 800,
            "{framing}: {name}"
        );
    }
    client.disconnect().await;
}

/// A stream resumed again and again without a new event gives up after
/// [`MAX_RESUMES`](crate::connect::config::MAX_RESUMES) quiet resumptions, each from the last
/// event id, and says so.
#[tokio::test]
async fn quiet_resumptions_give_up_after_the_bound() {
    let script = answering(
        |_| sse_response("retry: 1\nid: ev-1\ndata: {}\n\n"),
        |_| sse_response(""),
    )
    .await;
    let client = script.connect().await.unwrap();
    let error = client.list_tools_raw().await.unwrap_err();
    assert_eq!(
        http_error(&error),
        (
            Some(200),
            "the SSE stream was resumed 5 times without a new event, and still no response"
                .to_owned()
        )
    );
    let resumed: Vec<_> = script
        .requests()
        .into_iter()
        .filter_map(|r| r.header("last-event-id").map(str::to_owned))
        .collect();
    assert_eq!(resumed, vec!["ev-1".to_owned(); 6]);
    client.disconnect().await;
}

/// A resumption answered with anything but an SSE stream fails the request, quoting it.
#[tokio::test]
async fn a_resumption_that_is_no_stream_fails() {
    let script = answering(
        |_| sse_response("retry: 1\nid: ev-1\ndata: {}\n\n"),
        |r| match r.header("last-event-id") {
            Some(_) => json_response(200, &[], &json!({"not": "a stream"})),
            None => not_allowed(),
        },
    )
    .await;
    let client = script.connect().await.unwrap();
    let error = client.list_tools_raw().await.unwrap_err();
    assert_eq!(
        http_error(&error),
        (
            Some(200),
            "the SSE stream ended before the response and resuming it (GET with Last-Event-ID) \
             failed: body: \"{\"not\":\"a stream\"}\""
                .to_owned()
        )
    );
    client.disconnect().await;
}

/// The SSE answer to a notification is read and ends there: an event id in it starts no
/// resumption (nothing waits for an answer).
#[tokio::test]
async fn a_notifications_stream_is_not_resumed() {
    let script = Script::start(|r, _| match r.what().as_str() {
        "initialize" => initialized(r, None),
        "notifications/initialized" => sse_response("retry: 1\nid: n-1\ndata: {}\n\n"),
        "tools/list" => json_response(200, &[], &tools(r, &[])),
        "GET" => not_allowed(),
        _ => accepted(),
    })
    .await;
    let client = script.connect().await.unwrap();
    client.list_tools_raw().await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let resumptions = script
        .requests()
        .iter()
        .filter(|r| r.header("last-event-id").is_some())
        .count();
    assert_eq!(resumptions, 0);
    client.disconnect().await;
}

/// From MCP 2026-07-28 on, a call carries its method and tool name as headers, and each
/// argument whose property the listed tool annotates with `x-mcp-header` as an
/// `Mcp-Param-<name>` header.
#[tokio::test]
async fn annotated_arguments_travel_as_headers_from_2026_07_28_on() {
    let script = Script::start(|r, _| match r.what().as_str() {
        "initialize" => json_response(
            200,
            &[],
            &json!({"jsonrpc": "2.0", "id": r.id(), "result": {
                "protocolVersion": "2026-07-28",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "scripted", "version": "1"}
            }}),
        ),
        "tools/list" => json_response(
            200,
            &[],
            &json!({"jsonrpc": "2.0", "id": r.id(), "result": {"tools": [{
                "name": "weather",
                "inputSchema": {"type": "object", "properties": {
                    "region": {"type": "string", "x-mcp-header": "Region"},
                    "days": {"type": "integer"}
                }}
            }]}}),
        ),
        "tools/call" => json_response(
            200,
            &[],
            &json!({"jsonrpc": "2.0", "id": r.id(), "result": {"content": []}}),
        ),
        "GET" | "DELETE" => not_allowed(),
        _ => accepted(),
    })
    .await;
    let client = script.connect().await.unwrap();
    let arguments = json!({"region": "north", "days": 3});
    client
        .call_tool("weather")
        .arguments(arguments.as_object().cloned())
        .raw()
        .await
        .unwrap();
    let call = script
        .requests()
        .into_iter()
        .find(|r| r.what() == "tools/call")
        .unwrap();
    let headers: Vec<_> = [
        "mcp-method",
        "mcp-name",
        "mcp-param-region",
        "mcp-param-days",
    ]
    .map(|name| call.header(name))
    .to_vec();
    assert_eq!(
        headers,
        [Some("tools/call"), Some("weather"), Some("north"), None]
    );
    client.disconnect().await;
}

/// A `307` to the same origin is followed each time, a `308` once and then remembered, and
/// a `307` of the handshake is remembered too (the session lives there); the rest of the
/// session goes where it was sent.
#[tokio::test]
async fn redirects_to_the_same_origin_are_followed_and_permanent_ones_remembered() {
    let script = Script::start(|r, n| {
        let to = |status: u16, path: &str| response(status, &[("Location", path)], "");
        match (r.path.as_str(), r.what().as_str(), n) {
            ("/mcp", "initialize", _) => to(307, "/session"),
            ("/session", "initialize", _) => initialized(r, None),
            // `n` counts every `tools/list`: 0 is connect's, 2 the followed one at /temporary.
            ("/session", "tools/list", 1) => to(307, "/temporary"),
            ("/session", "tools/list", 3) => to(308, "/moved"),
            (_, "tools/list", _) => json_response(200, &[], &tools(r, &[])),
            (_, "GET", _) => not_allowed(),
            _ => accepted(),
        }
    })
    .await;
    let client = script.connect().await.unwrap();
    for _ in 0..4 {
        client.list_tools_raw().await.unwrap();
    }
    client.disconnect().await;
    let lists: Vec<_> = script
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST")
        .map(|r| format!("{} {}", r.what(), r.path))
        .collect();
    assert_eq!(
        lists,
        [
            "initialize /mcp",
            "initialize /session",
            "notifications/initialized /session",
            "tools/list /session",
            "tools/list /session",
            "tools/list /temporary",
            "tools/list /session",
            "tools/list /moved",
            "tools/list /moved",
            "tools/list /moved",
        ]
    );
}

/// The `GET` requests of a session's stream of server messages that resume it, by their
/// `Last-Event-ID`, once no more come (none for 200 ms), or after 3 s (a client that never
/// stops resuming fails the test's count instead of hanging it).
async fn resumptions(script: &Script) -> Vec<String> {
    let ids = || -> Vec<String> {
        script
            .requests()
            .iter()
            .filter(|r| r.method == "GET")
            .filter_map(|r| r.header("last-event-id").map(str::to_owned))
            .collect()
    };
    let mut seen = ids();
    for _ in 0..15 {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let now = ids();
        if now == seen {
            break;
        }
        seen = now;
    }
    seen
}

/// The stream of server messages is resumed from its last event id, and after
/// [`MAX_RESUMES`](crate::connect::config::MAX_RESUMES) resumptions in a row without a new
/// event it is given up.
#[tokio::test]
async fn the_server_stream_is_resumed_until_it_stays_quiet() {
    let script = Script::start(|r, _| match r.what().as_str() {
        "initialize" => initialized(r, Some("s-1")),
        "tools/list" => json_response(200, &[], &tools(r, &[])),
        "GET" if r.header("last-event-id").is_none() => sse_response(&format!(
            "retry: 1\nid: g-1\ndata: {}\n\n",
            json!({"jsonrpc": "2.0", "method": "notifications/message",
                "params": {"level": "info", "data": "hello"}})
        )),
        "GET" => sse_response(""),
        "DELETE" => not_allowed(),
        _ => accepted(),
    })
    .await;
    let client = script.connect().await.unwrap();
    assert_eq!(resumptions(&script).await, vec!["g-1".to_owned(); 6]);
    client.disconnect().await;
}

/// A resumption of the stream of server messages answered with anything but an SSE stream
/// ends it, whatever its body holds.
#[tokio::test]
async fn a_server_stream_resumed_with_no_stream_ends() {
    let script = Script::start(|r, _| match r.what().as_str() {
        "initialize" => initialized(r, Some("s-1")),
        "tools/list" => json_response(200, &[], &tools(r, &[])),
        "GET" => match r.header("last-event-id") {
            None => sse_response("retry: 1\nid: g-1\ndata: {}\n\n"),
            Some(_) => response(
                200,
                &[("Content-Type", "text/plain")],
                "retry: 1\nid: g-2\ndata: {}\n\n",
            ),
        },
        "DELETE" => not_allowed(),
        _ => accepted(),
    })
    .await;
    let client = script.connect().await.unwrap();
    assert_eq!(resumptions(&script).await, ["g-1"]);
    client.disconnect().await;
}

/// `notifications/initialized` goes before every request queued after it (MCP 2025-11-25,
/// "Lifecycle": the client sends it before other requests): a slow answer to it holds them.
#[tokio::test]
async fn requests_wait_for_the_initialized_notification() {
    let script = Script::start(|r, _| match r.what().as_str() {
        "initialize" => initialized(r, None),
        "notifications/initialized" => paused(300, accepted()),
        "tools/list" => json_response(200, &[], &tools(r, &[])),
        "GET" => not_allowed(),
        _ => accepted(),
    })
    .await;
    let client = script.connect().await.unwrap();
    let requests = script.requests();
    let at = |what: &str| requests.iter().find(|r| r.what() == what).unwrap().at;
    let waited = at("tools/list") - at("notifications/initialized");
    assert!(waited >= Duration::from_millis(300), "{waited:?}");
    client.disconnect().await;
}

/// When the stream of `what` was closed by the client (its `CLOSED` entry), waiting up to 2 s.
async fn closed(script: &Script, what: &str) -> bool {
    for _ in 0..200 {
        if script
            .requests()
            .iter()
            .any(|r| r.method == "CLOSED" && r.path == what)
        {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

/// A request that times out stops reading its answer's stream (the connection is closed),
/// and disconnecting closes the stream of server messages.
#[tokio::test]
async fn streams_close_with_their_request_and_their_session() {
    let script = Script::start(|r, _| match r.what().as_str() {
        "initialize" => initialized(r, Some("s-1")),
        "tools/list" => json_response(200, &[], &tools(r, &["slow"])),
        "tools/call" | "GET" => open_stream(),
        "DELETE" => not_allowed(),
        _ => accepted(),
    })
    .await;
    let client = script.connect().await.unwrap();
    let error = client
        .call_tool("slow")
        .timeout(Duration::from_millis(200))
        .raw()
        .await
        .unwrap_err();
    assert!(
        matches!(error, Error::Request(RequestError::Timeout { .. })),
        "{error:?}"
    );
    assert!(
        closed(&script, "tools/call").await,
        "the call's stream stays open"
    );
    assert!(
        !closed(&script, "GET").await,
        "the session's stream closed early"
    );
    client.disconnect().await;
    assert!(
        closed(&script, "GET").await,
        "the session's stream stays open"
    );
}
