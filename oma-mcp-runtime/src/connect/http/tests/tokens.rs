//! Tokens from a provider: a refused token replaced and the request sent again, a bound on
//! refusals in a row, and what the endpoint shows of itself.

use std::sync::{Arc, Mutex};

use super::script::*;
use crate::connect::config::{AuthFailure, BoxFuture, Refusal, TokenProvider, TokenSource};
use crate::error::ConnectError;
use crate::{ConnectConfig, Error, connect_mcp_tools};

/// A token provider that hands out `token-1`, `token-2`, …: a new one after each refusal,
/// which it records.
#[derive(Default)]
struct Tokens {
    issued: Mutex<usize>,
    refusals: Mutex<Vec<Refusal>>,
}

impl TokenProvider for Tokens {
    fn access_token(&self) -> BoxFuture<'_, Result<Option<String>, AuthFailure>> {
        let token = format!("token-{}", *self.issued.lock().unwrap() + 1);
        Box::pin(async move { Ok(Some(token)) })
    }

    fn refused<'a>(&'a self, refusal: &'a Refusal) -> BoxFuture<'a, Result<(), AuthFailure>> {
        self.refusals.lock().unwrap().push(refusal.clone());
        *self.issued.lock().unwrap() += 1;
        Box::pin(async { Ok(()) })
    }
}

/// A `401` to a request with the provider's token: the provider hears of it (status,
/// challenge, the refused token), and the request goes again with the new token, once per
/// token; the endpoint remembers each token it sent (for a recording to redact).
#[tokio::test]
async fn a_refused_token_is_replaced_and_the_request_sent_again() {
    let script = Script::start(|r, _| match r.what().as_str() {
        "initialize" => initialized(r, None),
        "tools/list" if r.header("authorization") == Some("Bearer token-2") => {
            json_response(200, &[], &tools(r, &["ok"]))
        }
        "tools/list" if r.body["params"].is_object() && r.id() == 2 => response(
            401,
            &[("WWW-Authenticate", "Bearer error=\"invalid_token\"")],
            "",
        ),
        "tools/list" => json_response(200, &[], &tools(r, &[])),
        "GET" => not_allowed(),
        _ => accepted(),
    })
    .await;
    let tokens = Arc::new(Tokens::default());
    let client = connect_mcp_tools(
        script
            .config()
            .with_token_provider(TokenSource(tokens.clone())),
    )
    .await
    .unwrap();
    assert_eq!(names(&client.list_tools_raw().await.unwrap()), ["ok"]);
    let refusals = tokens.refusals.lock().unwrap().clone();
    assert_eq!(
        refusals,
        [Refusal::new(
            401,
            Some("Bearer error=\"invalid_token\"".to_owned()),
            Some("token-1".to_owned())
        )]
    );
    let lists: Vec<_> = script
        .requests()
        .into_iter()
        .filter(|r| r.what() == "tools/list")
        .map(|r| r.header("authorization").map(str::to_owned))
        .collect();
    assert_eq!(
        lists,
        ["Bearer token-1", "Bearer token-1", "Bearer token-2"].map(|t| Some(t.to_owned()))
    );
    assert_eq!(client.sent_credentials(), ["token-1", "token-2"]);
    client.disconnect().await;
}

/// A server that refuses every token: the request goes again after each of three refusals,
/// then fails with the refusal.
#[tokio::test]
async fn refusals_in_a_row_end_after_three() {
    let script = Script::start(|r, n| match (r.what().as_str(), n) {
        ("initialize", _) => initialized(r, None),
        ("tools/list", 0) => json_response(200, &[], &tools(r, &[])),
        ("tools/list", _) => response(401, &[], ""),
        ("GET", _) => not_allowed(),
        _ => accepted(),
    })
    .await;
    let tokens = Arc::new(Tokens::default());
    let client = connect_mcp_tools(
        script
            .config()
            .with_token_provider(TokenSource(tokens.clone())),
    )
    .await
    .unwrap();
    let error = client.list_tools_raw().await.unwrap_err();
    assert!(
        matches!(
            error,
            Error::Connect(ConnectError::HttpAuth { status: 401, .. })
        ),
        "{error:?}"
    );
    assert_eq!(tokens.refusals.lock().unwrap().len(), 3);
    let sent = script
        .requests()
        .iter()
        .filter(|r| r.what() == "tools/list")
        .count();
    assert_eq!(sent, 1 + 4);
    client.disconnect().await;
}

/// The endpoint's `Debug` names its URL, redacted, and nothing else (no header, no token).
#[test]
fn the_endpoint_shows_its_url_redacted() {
    let url = "http://127.0.0.1:1/mcp?key=k1";
    let config = ConnectConfig::http(url).with_header("X-Api-Key", "SECRET");
    let http = crate::connect::http::Http::new(&config, url).unwrap();
    assert_eq!(
        format!("{http:?}"),
        "Http { url: \"http://127.0.0.1:1/mcp?key=***\" }"
    );
}
