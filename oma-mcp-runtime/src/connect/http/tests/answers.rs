//! What each answer to a request becomes: a JSON answer, or the exact error of a status, a
//! content type, an encoding, a body over a limit or a stream without the answer.

use serde_json::json;

use super::script::*;
use crate::Error;
use crate::error::{ConnectError, RequestError};

/// `application/json` in any case and with parameters, any `application/…+json`, and
/// `Content-Encoding: identity` make a JSON answer.
#[tokio::test]
async fn what_counts_as_a_json_answer() {
    let script = Script::start(|r, n| {
        let answer = |content_type: &str, encoding: &str, name: &str| {
            let mut headers = vec![("Content-Type", content_type)];
            if !encoding.is_empty() {
                headers.push(("Content-Encoding", encoding));
            }
            response(200, &headers, &tools(r, &[name]).to_string())
        };
        match (r.what().as_str(), n) {
            ("initialize", _) => initialized(r, None),
            ("tools/list", 1) => answer("Application/JSON; charset=utf-8", "", "a"),
            ("tools/list", 2) => answer("application/vnd.example+json", "", "b"),
            ("tools/list", 3) => answer("application/json", "Identity", "c"),
            ("tools/list", _) => json_response(200, &[], &tools(r, &[])),
            ("GET", _) => not_allowed(),
            _ => accepted(),
        }
    })
    .await;
    let client = script.connect().await.unwrap();
    for expected in ["a", "b", "c"] {
        assert_eq!(names(&client.list_tools_raw().await.unwrap()), [expected]);
    }
    client.disconnect().await;
}

/// What the second `tools/list` fails with, when `answer` answers it.
async fn failure(answer: impl Fn(&Request) -> Vec<u8> + Send + Sync + 'static) -> Error {
    let script = answering(answer, |_| not_allowed()).await;
    let client = script.connect().await.unwrap();
    let error = client.list_tools_raw().await.unwrap_err();
    // A bad answer fails its request, not the session.
    assert_eq!(
        names(&client.list_tools_raw().await.unwrap()),
        [] as [&str; 0]
    );
    client.disconnect().await;
    error
}

#[tokio::test]
async fn an_error_status_quotes_the_body() {
    let error =
        failure(|_| response(500, &[("Content-Type", "text/plain")], "boom\r\nagain")).await;
    assert_eq!(
        http_error(&error),
        (Some(500), "body: \"boom  again\"".to_owned())
    );
    let error = failure(|_| response(404, &[], "")).await;
    assert_eq!(
        http_error(&error),
        (
            Some(404),
            "empty body (check the URL's path: many servers serve MCP at /mcp)".to_owned()
        )
    );
}

#[tokio::test]
async fn a_json_rpc_error_in_an_error_status_is_the_servers_answer() {
    let error = failure(|r| {
        json_response(
            400,
            &[],
            &json!({"jsonrpc": "2.0", "id": r.id(), "error": {"code": -32600, "message": "bad"}}),
        )
    })
    .await;
    let Error::Request(RequestError::Rpc { code, message, .. }) = error else {
        panic!("{error:?}");
    };
    assert_eq!((code, message.as_str()), (-32600, "bad"));
}

/// Of an error status's body the first 64 KiB are read: a JSON-RPC error of exactly that
/// size is the server's answer; one byte more is cut, no JSON, and quoted.
#[tokio::test]
async fn an_error_body_is_read_up_to_64_kib() {
    fn error_body(r: &Request, size: usize) -> String {
        let error = |data: &str| {
            json!({"jsonrpc": "2.0", "id": r.id(), "error": {"code": -32000, "message": "m",
                "data": data}})
            .to_string()
        };
        let body = error(&"d".repeat(size - error("").len()));
        assert_eq!(body.len(), size);
        body
    }
    let error = failure(|r| {
        response(
            500,
            &[("Content-Type", "application/json")],
            &error_body(r, 64 * 1024),
        )
    })
    .await;
    let Error::Request(RequestError::Rpc { code, data, .. }) = error else {
        panic!("{error:?}");
    };
    assert_eq!(
        (code, data.and_then(|d| d.as_str().map(str::len))),
        (-32000, Some(64 * 1024 - 72))
    );
    let error = failure(|r| {
        response(
            500,
            &[("Content-Type", "application/json")],
            &error_body(r, 64 * 1024 + 1),
        )
    })
    .await;
    let (status, reason) = http_error(&error);
    assert_eq!(status, Some(500));
    assert!(
        reason.starts_with("body: \"{\"jsonrpc\":\"2.0\""),
        "{reason}"
    );
}

#[tokio::test]
async fn a_refusal_names_the_status_and_the_challenge() {
    let error = failure(|_| {
        response(
            401,
            &[("WWW-Authenticate", "Bearer realm=\"mcp\"")],
            "no token",
        )
    })
    .await;
    let Error::Connect(ConnectError::HttpAuth {
        status, challenge, ..
    }) = error
    else {
        panic!("{error:?}");
    };
    assert_eq!(
        (status, challenge.as_deref()),
        (401, Some("Bearer realm=\"mcp\""))
    );
}

#[tokio::test]
async fn a_redirect_elsewhere_is_not_followed() {
    let error = failure(|_| response(302, &[("Location", "http://elsewhere.invalid/x")], "")).await;
    let (status, reason) = http_error(&error);
    assert_eq!(status, Some(302));
    assert!(
        reason
            .starts_with("a redirect to http://elsewhere.invalid/x, which oma-mcp does not follow"),
        "{reason}"
    );
}

#[tokio::test]
async fn a_success_that_is_no_mcp_answer_says_what_it_was() {
    let error = failure(|_| response(200, &[("Content-Type", "text/html")], "<html>")).await;
    assert_eq!(
        http_error(&error),
        (
            Some(200),
            "not an MCP response (Content-Type `text/html`; an MCP server answers with \
             application/json or text/event-stream; is the URL the server's MCP endpoint?): \
             body: \"<html>\""
                .to_owned()
        )
    );
    let error = failure(|r| {
        response(
            200,
            &[("Content-Type", "application/octet-stream")],
            &tools(r, &[]).to_string(),
        )
    })
    .await;
    let (status, reason) = http_error(&error);
    assert_eq!(status, Some(200));
    assert!(
        reason.starts_with("not an MCP response (Content-Type `application/octet-stream`;"),
        "{reason}"
    );
    let error =
        failure(|r| json_response(200, &[("Content-Encoding", "gzip")], &tools(r, &[]))).await;
    let (status, reason) = http_error(&error);
    assert_eq!(status, Some(200));
    assert!(
        reason.starts_with("the body is compressed (`Content-Encoding: gzip`)"),
        "{reason}"
    );
    let error = failure(|r| {
        let mut other = tools(r, &[]);
        other["id"] = json!(r.id() + 100);
        json_response(200, &[], &other)
    })
    .await;
    let (status, reason) = http_error(&error);
    assert_eq!(status, Some(200));
    assert!(
        reason.starts_with(
            "the JSON body holds no response to this request (id 2), and a JSON body is the \
             whole answer to its POST: body: \"{"
        ),
        "{reason}"
    );
}

#[tokio::test]
async fn a_stream_without_the_answer_fails() {
    let error = failure(|_| sse_response("data: {}\n\n")).await;
    assert_eq!(
        http_error(&error),
        (
            Some(200),
            "the SSE stream ended before the response, and no event had an id to resume it \
             with"
                .to_owned()
        )
    );
    // The status it came with, whichever 2xx.
    let error = failure(|_| {
        response(
            201,
            &[("Content-Type", "text/event-stream")],
            "data: {}\n\n",
        )
    })
    .await;
    assert_eq!(http_error(&error).0, Some(201));
    let error = failure(|_| sse_response("retry: 1\nid: 3\ndata: {}\n\n")).await;
    let (status, reason) = http_error(&error);
    assert_eq!(status, Some(405));
    assert!(
        reason.starts_with(
            "the SSE stream ended before the response and resuming it (GET with Last-Event-ID) \
             failed"
        ),
        "{reason}"
    );
}

#[tokio::test]
async fn an_answer_over_the_size_limit_is_too_large() {
    let error = failure(|r| json_response(200, &[], &tools(r, &[&"x".repeat(1000)]))).await;
    assert!(
        matches!(
            error,
            Error::Request(RequestError::MessageTooLarge { limit: 1000 })
        ),
        "{error:?}"
    );
    let error =
        failure(|r| sse_response(&format!("data: {}\n\n", tools(r, &[&"x".repeat(1000)])))).await;
    assert!(
        matches!(
            error,
            Error::Request(RequestError::MessageTooLarge { limit: 1000 })
        ),
        "{error:?}"
    );
}
