//! The rules of the lifecycle's negotiation, pure (rmcp 3.11's client, `service/client.rs`:
//! `select_protocol_version`, `is_modern_rejection_code`): the versions offered in
//! `server/discover`, the version selected from its answer, the next one to try after
//! -32022, what a failed `server/discover` means, and how long [`Lifecycle::Auto`] waits for
//! it alone.

use std::time::Duration;

use rmcp::model::{ErrorCode, ProtocolVersion};
use serde_json::Value;

use super::config::DISCOVER_PROBE_TIMEOUT;
#[cfg(doc)]
use super::config::Lifecycle;
use crate::error::{ConnectError, Error, RequestError};

/// How long [`Lifecycle::Auto`] waits for `server/discover` alone before it sends
/// `initialize` too: the smaller of half the request timeout and [`DISCOVER_PROBE_TIMEOUT`].
/// `server/discover` is still awaited after it, up to the one connect deadline
/// (`request_timeout` from the start), so a server that answers it late keeps its revision;
/// a server that ignores it is reached through `initialize` after this bound.
pub(crate) fn probe_bound(request_timeout: Duration) -> Duration {
    (request_timeout / 2).min(DISCOVER_PROBE_TIMEOUT)
}

/// The versions offered in `server/discover`, most preferred first: every known revision
/// without the `initialize` handshake, newest first (rmcp 3.11: 2026-07-28).
pub(crate) fn preferred_versions() -> Vec<ProtocolVersion> {
    ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .rev()
        .filter(|v| !v.has_initialize())
        .cloned()
        .collect()
}

/// The first of `preferred` that the server lists in `supported` (rmcp's
/// `select_protocol_version`, on the raw list: entries that are not strings are ignored).
pub(crate) fn select_protocol_version(
    preferred: &[ProtocolVersion],
    supported: &[Value],
) -> Option<ProtocolVersion> {
    preferred
        .iter()
        .find(|v| supported.iter().any(|s| s.as_str() == Some(v.as_str())))
        .cloned()
}

/// How a failed `server/discover` is read (rmcp's `discover_startup` and
/// `is_modern_rejection_code`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum DiscoverError {
    /// A JSON-RPC error that is no 2026-07-28 rejection (e.g. -32601 Method not found): a
    /// server before 2026-07-28, still usable for `initialize` on the same connection.
    Legacy,
    /// No answer within the bound: [`Lifecycle::Auto`] falls back (rmcp does), `Discover`
    /// fails.
    Timeout,
    /// -32022 (`UNSUPPORTED_PROTOCOL_VERSION`): retry with a version of `error.data.supported`.
    UnsupportedVersion {
        /// The string entries of `error.data.supported`.
        supported: Vec<Value>,
    },
    /// Streamable HTTP: `400`, `404` or `405` with a body that is no JSON-RPC error (plain
    /// text, an HTML page, a JSON object): how a stateful server before 2026-07-28 refuses a
    /// request without a session. [`Lifecycle::Auto`] falls back to `initialize` on the same
    /// URL; `Discover` fails with it. (`401`/`403` are [`ConnectError::HttpAuth`], fatal.)
    HttpRejected,
    /// A 2026-07-28 rejection (-32020 header mismatch, -32021 missing required client
    /// capability), an authentication error or a broken connection: no fallback.
    Fatal,
}

/// The HTTP statuses of [`DiscoverError::HttpRejected`].
const REJECTED_STATUSES: [u16; 3] = [400, 404, 405];

/// Classifies the error `server/discover` ended with.
pub(crate) fn classify_discover_error(error: &Error) -> DiscoverError {
    match error {
        Error::Request(RequestError::Rpc { code, data, .. }) => {
            let Ok(code) = i32::try_from(*code) else {
                return DiscoverError::Legacy;
            };
            let code = ErrorCode(code);
            if code == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION {
                let supported = data
                    .as_ref()
                    .and_then(|d| d.get("supported"))
                    .and_then(Value::as_array)
                    .map(|list| list.iter().filter(|v| v.is_string()).cloned().collect())
                    .unwrap_or_default();
                DiscoverError::UnsupportedVersion { supported }
            } else if code == ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
                || code == ErrorCode::HEADER_MISMATCH
            {
                DiscoverError::Fatal
            } else {
                DiscoverError::Legacy
            }
        }
        Error::Request(RequestError::Timeout { .. }) => DiscoverError::Timeout,
        Error::Connect(ConnectError::Http {
            status: Some(status),
            ..
        }) if REJECTED_STATUSES.contains(status) => DiscoverError::HttpRejected,
        _ => DiscoverError::Fatal,
    }
}

/// The version to try after -32022 (rmcp's rule): the first preferred version the server
/// lists that was not tried yet, or the current one once more if it was tried only once.
pub(crate) fn next_candidate(
    preferred: &[ProtocolVersion],
    attempted: &[ProtocolVersion],
    current: &ProtocolVersion,
    supported: &[Value],
) -> Option<ProtocolVersion> {
    let may_retry_current = attempted.iter().filter(|v| *v == current).count() == 1;
    preferred
        .iter()
        .find(|v| {
            supported.iter().any(|s| s.as_str() == Some(v.as_str()))
                && (!attempted.contains(v) || (may_retry_current && *v == current))
        })
        .cloned()
}

/// Whether `discover` and `fallback` are both [`ConnectError::Http`] with one status: the endpoint
/// refused both requests alike.
pub(crate) fn same_http_status(discover: &Error, fallback: &Error) -> bool {
    matches!(
        (discover, fallback),
        (Error::Connect(ConnectError::Http { status: Some(a), .. }), Error::Connect(ConnectError::Http { status: Some(b), .. })) if a == b
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::error::DisconnectedError;

    /// The method the errors below name.
    const DISCOVER: &str = "server/discover";

    #[test]
    fn selects_the_first_preferred_version_the_server_lists() {
        assert_eq!(preferred_versions(), [ProtocolVersion::V_2026_07_28]);
        let preferred = [ProtocolVersion::V_2026_07_28, ProtocolVersion::V_2025_11_25];
        assert_eq!(
            select_protocol_version(&preferred, &[json!("2025-11-25"), json!("2026-07-28")]),
            Some(ProtocolVersion::V_2026_07_28)
        );
        assert_eq!(
            select_protocol_version(&preferred, &[json!(2026), json!("2025-11-25")]),
            Some(ProtocolVersion::V_2025_11_25)
        );
        assert_eq!(
            select_protocol_version(&preferred, &[json!("2099-01-01")]),
            None
        );
        assert_eq!(select_protocol_version(&preferred, &[]), None);
        assert_eq!(probe_bound(Duration::from_secs(60)), Duration::from_secs(2));
        assert_eq!(probe_bound(Duration::from_secs(4)), Duration::from_secs(2));
        assert_eq!(
            probe_bound(Duration::from_secs(3)),
            Duration::from_millis(1500)
        );
        assert_eq!(
            probe_bound(Duration::from_millis(600)),
            Duration::from_millis(300)
        );
    }

    #[test]
    fn retries_after_unsupported_version_as_rmcp() {
        let v26 = ProtocolVersion::V_2026_07_28;
        let v25 = ProtocolVersion::V_2025_11_25;
        let preferred = [v26.clone(), v25.clone()];
        let supported = [json!("2025-11-25"), json!("2026-07-28")];
        // The current version once more, if tried only once; then the next one.
        assert_eq!(
            next_candidate(&preferred, std::slice::from_ref(&v26), &v26, &supported),
            Some(v26.clone())
        );
        assert_eq!(
            next_candidate(&preferred, &[v26.clone(), v26.clone()], &v26, &supported),
            Some(v25.clone())
        );
        assert_eq!(
            next_candidate(
                &preferred,
                &[v26.clone(), v26.clone(), v25.clone()],
                &v25,
                &supported
            ),
            Some(v25.clone())
        );
        assert_eq!(
            next_candidate(
                &preferred,
                &[v26.clone(), v25.clone(), v25.clone()],
                &v25,
                &supported
            ),
            None
        );
        assert_eq!(
            next_candidate(&preferred, std::slice::from_ref(&v26), &v26, &[]),
            None
        );
    }

    fn rpc(code: i64, data: Option<Value>) -> Error {
        Error::Request(RequestError::Rpc {
            code,
            message: "m".to_owned(),
            data,
        })
    }

    #[test]
    fn classifies_discover_errors() {
        assert_eq!(
            classify_discover_error(&rpc(-32601, None)),
            DiscoverError::Legacy
        );
        assert_eq!(
            classify_discover_error(&rpc(-32602, None)),
            DiscoverError::Legacy
        );
        assert_eq!(
            classify_discover_error(&rpc(-32603, None)),
            DiscoverError::Legacy
        );
        assert_eq!(
            classify_discover_error(&rpc(1 << 40, None)),
            DiscoverError::Legacy
        );
        assert_eq!(
            classify_discover_error(&rpc(-32020, None)),
            DiscoverError::Fatal
        );
        assert_eq!(
            classify_discover_error(&rpc(-32021, None)),
            DiscoverError::Fatal
        );
        assert_eq!(
            classify_discover_error(&rpc(-32022, Some(json!({"supported": ["2026-07-28", 5]})))),
            DiscoverError::UnsupportedVersion {
                supported: vec![json!("2026-07-28")]
            }
        );
        assert_eq!(
            classify_discover_error(&rpc(-32022, Some(json!("nope")))),
            DiscoverError::UnsupportedVersion { supported: vec![] }
        );
        assert_eq!(
            classify_discover_error(&Error::Request(RequestError::Timeout {
                method: DISCOVER.to_owned(),
                timeout: Duration::from_secs(10),
                per_call: false,
            })),
            DiscoverError::Timeout
        );
        for e in [
            Error::Disconnected(DisconnectedError::ConnectionClosed),
            Error::Disconnected(DisconnectedError::NotConnected),
            Error::Request(RequestError::MessageTooLarge { limit: 1 }),
            http(Some(502)),
            http(Some(500)),
            http(None),
            Error::Connect(ConnectError::HttpAuth {
                server: "u".to_owned(),
                method: DISCOVER.to_owned(),
                status: 401,
                challenge: None,
                hint: "h".to_owned(),
            }),
        ] {
            assert_eq!(classify_discover_error(&e), DiscoverError::Fatal, "{e}");
        }
        for status in [400, 404, 405] {
            assert_eq!(
                classify_discover_error(&http(Some(status))),
                DiscoverError::HttpRejected
            );
        }
    }

    fn http(status: Option<u16>) -> Error {
        Error::Connect(ConnectError::Http {
            server: "u".to_owned(),
            method: DISCOVER.to_owned(),
            status,
            reason: "body: \"Bad Request\"".to_owned(),
        })
    }

    /// A fallback refused with the same status as `server/discover` adds nothing: the
    /// endpoint refuses every request alike.
    #[test]
    fn the_same_http_status_twice_is_the_endpoints_refusal() {
        assert!(same_http_status(&http(Some(404)), &http(Some(404))));
        assert!(!same_http_status(&http(Some(400)), &http(Some(404))));
        assert!(!same_http_status(&http(None), &http(None)));
        assert!(!same_http_status(&http(Some(400)), &rpc(-32601, None)));
    }
}
