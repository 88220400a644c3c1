//! The MCP lifecycle at connect: the 2026-07-28 `server/discover` (SEP-2567 removed the
//! `initialize` handshake; SEP-2575 moved the client context into every request's `_meta`),
//! the legacy `initialize` handshake (revisions 2024-11-05 to 2025-11-25), and
//! [`Lifecycle::Auto`]'s probe with fallback between them.
//!
//! The semantics are rmcp 3.11's client (`service/client.rs`: `discover_startup`,
//! `legacy_startup`); the messages are built with rmcp's model types. The pure rules (version
//! selection, what a failed `server/discover` means) are in [`super::negotiate`]; the request
//! parameters and the reading of a `server/discover` result are unit-tested here.

use std::time::Duration;

use rmcp::model::{
    ClientCapabilities, DiscoverRequestParams, Implementation, InitializeRequestParams,
    ProtocolVersion, RequestMetaObject,
};
use serde_json::{Map, Value};
use tokio::time::Instant;

use oma_mcp_core::task::TASKS_EXTENSION;

use super::config::{ConnectConfig, Lifecycle};
use super::framing;
use super::negotiate::{
    DiscoverError, classify_discover_error, next_candidate, preferred_versions, probe_bound,
    same_http_status, select_protocol_version,
};
use super::session::Session;
use crate::error::{ConnectError, DisconnectedError, Error, ProtocolError, RequestError};
use crate::quote::excerpt;

/// The method of the 2026-07-28 discovery request.
pub(crate) const DISCOVER: &str = "server/discover";
/// The method of the legacy handshake request.
pub(crate) const INITIALIZE: &str = "initialize";

/// The `_meta` key of the server's `Implementation` in a 2026-07-28 result (`ResultMetaObject`).
const SERVER_INFO_META_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// Who the client says it is: `clientInfo` and its capabilities (`elicitation` when
/// [`ConnectConfig::elicitation`] is set, else none).
#[derive(Debug, Clone)]
pub(crate) struct Client {
    pub(crate) info: Implementation,
    pub(crate) capabilities: ClientCapabilities,
}

impl Client {
    pub(crate) fn of(config: &ConnectConfig) -> Self {
        let mut capabilities = ClientCapabilities::default();
        if config.elicitation.is_some() {
            capabilities.elicitation = Some(Default::default());
        }
        Self {
            info: Implementation::new(config.client_name.clone(), config.client_version.clone()),
            capabilities,
        }
    }
}

/// What the lifecycle established.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Negotiated {
    /// The protocol version in use: selected from `server/discover`'s `supportedVersions`, or
    /// the `initialize` result's `protocolVersion`.
    pub(crate) protocol_version: String,
    /// The raw `serverInfo`: the `initialize` result's, or the `server/discover` result's
    /// `_meta["io.modelcontextprotocol/serverInfo"]`.
    pub(crate) server_info: Option<Value>,
    /// The server's `capabilities` object as sent (`None` when it sent no object).
    pub(crate) capabilities: Option<Value>,
    /// The server's `instructions`, when it sent a string.
    pub(crate) instructions: Option<String>,
    /// The client context (SEP-2575) every later request carries in its `_meta`; `None` for a
    /// version with the `initialize` handshake.
    pub(crate) client_context: Option<Map<String, Value>>,
    /// The same client context with the tasks extension declared ([`task_context`]), which a
    /// task-backed `tools/call` and the `tasks/*` requests of its task carry instead; `None`
    /// when `client_context` is.
    pub(crate) task_context: Option<Map<String, Value>>,
}

/// A failed lifecycle: the request that started it and what went wrong.
#[derive(Debug)]
pub(crate) struct Failure {
    /// [`DISCOVER`] or [`INITIALIZE`] (for a failed fallback: [`DISCOVER`], and `error` is
    /// [`ConnectError::FallbackFailed`]).
    pub(crate) method: &'static str,
    /// The error.
    pub(crate) error: Error,
    /// [`Lifecycle::Auto`] only: the server went away after `server/discover` without
    /// answering it (nor `initialize`, when that was sent too): a server before 2026-07-28
    /// that exits when its first message is not `initialize`. Start it again with
    /// [`Lifecycle::Initialize`].
    pub(crate) restart_with_initialize: bool,
}

impl Failure {
    fn new(method: &'static str, error: Error) -> Self {
        Self {
            method,
            error,
            restart_with_initialize: false,
        }
    }
}

/// Runs `lifecycle` on `session` (see [`Lifecycle`]), all of it before `deadline`
/// (`timeout`, [`ConnectConfig::request_timeout`], is what a timeout error reports).
///
/// # Errors
/// The [`Failure`], for [`ConnectError::Handshake`].
pub(crate) async fn establish(
    session: &Session,
    config: &ConnectConfig,
    lifecycle: Lifecycle,
    deadline: Instant,
    command_line: &str,
) -> Result<Negotiated, Failure> {
    let client = Client::of(config);
    let timeout = config.request_timeout;
    match lifecycle {
        Lifecycle::Initialize => initialize(session, client, command_line, deadline, timeout, true)
            .await
            .map_err(|error| Failure::new(INITIALIZE, error)),
        Lifecycle::Discover => {
            match discover(session, &client, command_line, deadline, timeout).await {
                Ok(Discovered::Modern(negotiated)) => Ok(*negotiated),
                Ok(Discovered::Legacy(error)) => Err(Failure::new(
                    DISCOVER,
                    match error {
                        // The request timeout: plain, as for any other request.
                        e @ Error::Request(RequestError::Timeout { .. }) => e,
                        e => Error::Connect(ConnectError::DiscoverUnsupported {
                            source: Box::new(e),
                        }),
                    },
                )),
                // No fallback here: the HTTP error as it came.
                Ok(Discovered::Rejected(error)) | Err(error) => Err(Failure::new(DISCOVER, error)),
            }
        }
        Lifecycle::Auto => auto(session, client, command_line, deadline, timeout).await,
    }
}

/// [`Lifecycle::Auto`]: `server/discover`, waited for until `deadline`; after
/// [`probe_bound`] without an answer, `initialize` is sent too, and the first success wins
/// (a server reads its stdin in order, so one that answers `server/discover` at all answers
/// it before the `initialize` queued behind it, however slowly it starts). A JSON-RPC error
/// to `server/discover` (not -32020/-32021) means a server before 2026-07-28: `initialize`
/// follows at once; so does an HTTP `400`, `404` or `405` without one (see
/// [`DiscoverError::HttpRejected`]). The server going away before it answered is
/// [`Failure::restart_with_initialize`].
async fn auto(
    session: &Session,
    client: Client,
    command_line: &str,
    deadline: Instant,
    timeout: Duration,
) -> Result<Negotiated, Failure> {
    let fallback_failed = |discover: Error, fallback: Error| {
        if same_http_status(&discover, &fallback) {
            // The endpoint refuses every request alike (a wrong path): `initialize` adds
            // nothing to what `server/discover` got.
            return Failure::new(DISCOVER, discover);
        }
        Failure::new(
            DISCOVER,
            Error::Connect(ConnectError::FallbackFailed {
                discover: Box::new(discover),
                fallback: Box::new(fallback),
            }),
        )
    };
    // The server went away without answering: restart it with `initialize` (unless it had
    // answered `initialize` with an error: then `initialize` first would not help).
    let gone = |error: Error, initialize_error: Option<&Error>| Failure {
        restart_with_initialize: error.is_connection_lost()
            && initialize_error.is_none_or(Error::is_connection_lost),
        ..Failure::new(DISCOVER, error)
    };
    let discovering = discover(session, &client, command_line, deadline, timeout);
    tokio::pin!(discovering);
    let bound = probe_bound(timeout);
    match tokio::time::timeout(bound, &mut discovering).await {
        Ok(Ok(Discovered::Modern(negotiated))) => return Ok(*negotiated),
        Ok(Ok(Discovered::Legacy(discover_error) | Discovered::Rejected(discover_error))) => {
            log_fallback(command_line, &discover_error);
            return initialize(
                session,
                client.clone(),
                command_line,
                deadline,
                timeout,
                true,
            )
            .await
            .map_err(|fallback| fallback_failed(discover_error, fallback));
        }
        Ok(Err(error)) => return Err(gone(error, None)),
        Err(_) => {}
    }
    tracing::debug!(
        server = %command_line,
        "no answer to `server/discover` within {bound:?}; sending `initialize` too (an answer \
         to `server/discover` still wins)"
    );
    // Not cancelled when `server/discover` wins (a client must not cancel `initialize`).
    let initializing = initialize(
        session,
        client.clone(),
        command_line,
        deadline,
        timeout,
        false,
    );
    tokio::pin!(initializing);
    let mut discover_error: Option<Error> = None;
    let mut initialize_error: Option<Error> = None;
    loop {
        tokio::select! {
            // `server/discover` first: when both answers are there (a busy machine polls this
            // task late), the one the server wrote first wins, not a random one.
            biased;
            discovered = &mut discovering, if discover_error.is_none() => match discovered {
                Ok(Discovered::Modern(negotiated)) => return Ok(*negotiated),
                Ok(Discovered::Legacy(error) | Discovered::Rejected(error)) => match initialize_error.take() {
                    Some(fallback) => return Err(fallback_failed(error, fallback)),
                    None => discover_error = Some(error),
                },
                Err(error) => return Err(gone(error, initialize_error.as_ref())),
            },
            initialized = &mut initializing, if initialize_error.is_none() => match initialized {
                Ok(negotiated) => {
                    tracing::debug!(
                        server = %command_line,
                        "`initialize` answered, `server/discover` did not: a server before \
                         2026-07-28"
                    );
                    return Ok(negotiated);
                }
                Err(error) => match discover_error.take() {
                    Some(discover) => return Err(fallback_failed(discover, error)),
                    None => initialize_error = Some(error),
                },
            },
            else => return Err(Failure::new(DISCOVER, Error::Disconnected(DisconnectedError::NotConnected))),
        }
    }
}

/// The `DEBUG` line of [`Lifecycle::Auto`]'s fallback to `initialize` after `error`.
fn log_fallback(command_line: &str, error: &Error) {
    match error {
        Error::Connect(ConnectError::Http {
            status: Some(status),
            ..
        }) => tracing::debug!(
            server = %command_line,
            "`server/discover` was refused with HTTP {status} and no JSON-RPC error (a server \
             before 2026-07-28); falling back to `initialize`"
        ),
        _ => tracing::debug!(
            server = %command_line,
            "`server/discover` got {error}; falling back to `initialize`"
        ),
    }
}

/// The `_meta` client context of SEP-2575 (`io.modelcontextprotocol/protocolVersion`,
/// `…/clientInfo`, `…/clientCapabilities`; no client capabilities), built with
/// [`RequestMetaObject::with_client_context`].
pub(crate) fn client_context(version: ProtocolVersion, client: &Client) -> Map<String, Value> {
    RequestMetaObject::with_client_context(
        version,
        client.info.clone(),
        client.capabilities.clone(),
    )
    .0
    .0
}

/// The client context of [`client_context`] with the MCP 2026-07-28 tasks extension
/// declared: `clientCapabilities.extensions["io.modelcontextprotocol/tasks"] = {}` (the
/// extension's "Capability negotiation": a client declares it on each request that may be
/// answered with a task).
pub(crate) fn task_context(version: ProtocolVersion, client: &Client) -> Map<String, Value> {
    let mut client = client.clone();
    client
        .capabilities
        .extensions
        .get_or_insert_with(Default::default)
        .insert(TASKS_EXTENSION.to_owned(), Map::new());
    client_context(version, &client)
}

/// The parameters of `server/discover` ([`DiscoverRequestParams`]) with the client context.
pub(crate) fn discover_params(version: ProtocolVersion, client: &Client) -> Value {
    let context = client_context(version, client);
    match framing::to_params(&DiscoverRequestParams {}) {
        Ok(params) => framing::with_client_context(params, &context),
        Err(_) => framing::with_client_context(Value::Object(Map::new()), &context),
    }
}

/// The outcome of the discover phase.
#[derive(Debug)]
enum Discovered {
    /// A 2026-07-28 session.
    Modern(Box<Negotiated>),
    /// A server without `server/discover` ([`DiscoverError::Legacy`] or
    /// [`DiscoverError::Timeout`]); the error it got.
    Legacy(Error),
    /// Streamable HTTP: `server/discover` refused with a status
    /// ([`DiscoverError::HttpRejected`]); the error it got.
    Rejected(Error),
}

/// Sends `server/discover` (again after -32022, with another version), all attempts before
/// `deadline` (`timeout` is what a [`RequestError::Timeout`] reports).
async fn discover(
    session: &Session,
    client: &Client,
    command_line: &str,
    deadline: Instant,
    timeout: Duration,
) -> Result<Discovered, Error> {
    let preferred = preferred_versions();
    let Some(mut candidate) = preferred.first().cloned() else {
        return Err(invalid(
            command_line,
            DISCOVER,
            "this client knows no protocol version without `initialize`".to_owned(),
        ));
    };
    let mut attempted = Vec::new();
    loop {
        attempted.push(candidate.clone());
        let remaining = deadline.saturating_duration_since(Instant::now());
        let reply = session
            .probe(
                DISCOVER,
                discover_params(candidate.clone(), client),
                remaining,
            )
            .await;
        let error = match reply {
            Ok(result) => {
                return read_discover_result(result, &preferred, client, command_line)
                    .map(|negotiated| Discovered::Modern(Box::new(negotiated)));
            }
            Err(Error::Request(RequestError::Timeout { method, .. })) => {
                Error::Request(RequestError::Timeout {
                    method,
                    timeout,
                    per_call: false,
                })
            }
            Err(e) => e,
        };
        match classify_discover_error(&error) {
            DiscoverError::Legacy | DiscoverError::Timeout => {
                return Ok(Discovered::Legacy(error));
            }
            DiscoverError::HttpRejected => return Ok(Discovered::Rejected(error)),
            DiscoverError::Fatal => return Err(error),
            DiscoverError::UnsupportedVersion { supported } => {
                match next_candidate(&preferred, &attempted, &candidate, &supported) {
                    Some(next) => candidate = next,
                    None => {
                        return Err(no_common_version(command_line, &preferred, &supported));
                    }
                }
            }
        }
    }
}

/// Reads a `server/discover` result (`DiscoverResult`): selects the version and keeps the
/// raw `serverInfo` from `_meta`.
fn read_discover_result(
    result: Value,
    preferred: &[ProtocolVersion],
    client: &Client,
    command_line: &str,
) -> Result<Negotiated, Error> {
    let Value::Object(mut result) = result else {
        return Err(invalid(
            command_line,
            DISCOVER,
            format!("the result is not an object: {}", excerpt(&result)),
        ));
    };
    let supported = match result.remove("supportedVersions") {
        Some(Value::Array(list)) => list,
        other => {
            return Err(invalid(
                command_line,
                DISCOVER,
                format!(
                    "`supportedVersions` is not an array: {}",
                    excerpt(&other.unwrap_or(Value::Null))
                ),
            ));
        }
    };
    let Some(selected) = select_protocol_version(preferred, &supported) else {
        return Err(no_common_version(command_line, preferred, &supported));
    };
    let server_info = match result.remove("_meta") {
        Some(Value::Object(mut meta)) => meta.remove(SERVER_INFO_META_KEY),
        _ => None,
    };
    Ok(Negotiated {
        protocol_version: selected.as_str().to_owned(),
        server_info,
        capabilities: capabilities(&mut result),
        instructions: instructions(&mut result),
        client_context: Some(client_context(selected.clone(), client)),
        task_context: Some(task_context(selected, client)),
    })
}

/// `initialize` ([`ProtocolVersion::LATEST_WITH_INITIALIZE`], no client capabilities) and
/// `notifications/initialized`; rejects a `protocolVersion` rmcp does not know (as the
/// TypeScript SDK does). A version without the handshake in the answer (2026-07-28) gets the
/// client context on later requests, as in rmcp's `legacy_startup`.
///
/// The request is bounded by what is left until `deadline` (the connect deadline); when it
/// elapses the error is [`RequestError::Timeout`] with `timeout` = `request_timeout`, the bound of
/// the whole lifecycle that elapsed. `notify_cancel`: whether a timeout sends
/// `notifications/cancelled` (not for the `initialize` [`Lifecycle::Auto`] sends beside a
/// pending `server/discover`). -32601 Method not found is [`ConnectError::NotMcpServer`].
async fn initialize(
    session: &Session,
    client: Client,
    command_line: &str,
    deadline: Instant,
    request_timeout: Duration,
    notify_cancel: bool,
) -> Result<Negotiated, Error> {
    let params = InitializeRequestParams::new(client.capabilities.clone(), client.info.clone())
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE);
    let remaining = deadline.saturating_duration_since(Instant::now());
    let params = framing::to_params(&params)?;
    let reply = if notify_cancel {
        session.request_within(INITIALIZE, params, remaining).await
    } else {
        session.probe(INITIALIZE, params, remaining).await
    };
    let result = match reply {
        Err(Error::Request(RequestError::Timeout { method, .. })) => {
            return Err(Error::Request(RequestError::Timeout {
                method,
                timeout: request_timeout,
                per_call: false,
            }));
        }
        Err(error @ Error::Request(RequestError::Rpc { code: -32601, .. })) => {
            return Err(Error::Connect(ConnectError::NotMcpServer {
                command: command_line.to_owned(),
                method: INITIALIZE.to_owned(),
                source: Box::new(error),
            }));
        }
        other => other?,
    };
    let Value::Object(mut result) = result else {
        return Err(invalid(
            command_line,
            INITIALIZE,
            format!("the result is not an object: {}", excerpt(&result)),
        ));
    };
    let version = match result.remove("protocolVersion") {
        Some(Value::String(v)) => v,
        other => {
            return Err(invalid(
                command_line,
                INITIALIZE,
                format!(
                    "`protocolVersion` is not a string: {}",
                    excerpt(&other.unwrap_or(Value::Null))
                ),
            ));
        }
    };
    let Some(known) = ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .find(|known| known.as_str() == version)
    else {
        return Err(invalid(
            command_line,
            INITIALIZE,
            format!(
                "Server's protocol version is not supported: {}",
                excerpt(&version)
            ),
        ));
    };
    let client_context = (!known.has_initialize()).then(|| client_context(known.clone(), &client));
    let task_context = (!known.has_initialize()).then(|| task_context(known.clone(), &client));
    // The version goes on the notification too (a strict server refuses a request without
    // `MCP-Protocol-Version` after initialization): set it before the notification is queued.
    session.transport().negotiated(&version);
    session.notify("notifications/initialized", None);
    Ok(Negotiated {
        protocol_version: version,
        server_info: result.remove("serverInfo"),
        capabilities: capabilities(&mut result),
        instructions: instructions(&mut result),
        client_context,
        task_context,
    })
}

/// The `capabilities` object of an `initialize` or `server/discover` result (anything else
/// is not recorded).
fn capabilities(result: &mut Map<String, Value>) -> Option<Value> {
    result
        .remove("capabilities")
        .filter(|c| matches!(c, Value::Object(_)))
}

/// The `instructions` string of an `initialize` or `server/discover` result.
fn instructions(result: &mut Map<String, Value>) -> Option<String> {
    match result.remove("instructions") {
        Some(Value::String(text)) => Some(text),
        _ => None,
    }
}

fn invalid(command_line: &str, method: &str, reason: String) -> Error {
    Error::Protocol(ProtocolError::InvalidResponse {
        command: command_line.to_owned(),
        method: method.to_owned(),
        reason,
    })
}

fn no_common_version(
    command_line: &str,
    preferred: &[ProtocolVersion],
    supported: &[Value],
) -> Error {
    let client: Vec<&str> = preferred.iter().map(ProtocolVersion::as_str).collect();
    invalid(
        command_line,
        DISCOVER,
        format!(
            "no protocol version in common: the server supports {}, this client {}",
            excerpt(&Value::Array(supported.to_vec())),
            serde_json::json!(client)
        ),
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn client() -> Client {
        Client::of(&ConnectConfig::new("srv"))
    }

    #[test]
    fn an_elicitation_handler_declares_the_capability() {
        let config = ConnectConfig::new("srv").with_elicitation(
            super::super::config::Elicitation::new(super::super::config::accept_defaults),
        );
        let context = client_context(ProtocolVersion::V_2026_07_28, &Client::of(&config));
        assert_eq!(
            context["io.modelcontextprotocol/clientCapabilities"],
            json!({"elicitation": {}})
        );
    }

    const CONTEXT: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"open-multi-agent","version":"0.0.0"},"io.modelcontextprotocol/clientCapabilities":{}}"#;

    #[test]
    fn builds_the_discover_request_line() {
        let line = framing::request_line(
            0,
            DISCOVER,
            &discover_params(ProtocolVersion::V_2026_07_28, &client()),
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(line).unwrap(),
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"server/discover\",\"params\":{{\"_meta\":{CONTEXT}}}}}\n"
            )
        );
    }

    #[test]
    fn later_requests_carry_the_context_merged_with_the_callers_meta() {
        let context = client_context(ProtocolVersion::V_2026_07_28, &client());
        let line = framing::request_line(
            3,
            "tools/call",
            &framing::with_client_context(json!({"name": "echo", "arguments": {"m": 1}}), &context),
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(line).unwrap(),
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"m\":1}},\"_meta\":{CONTEXT}}}}}\n"
            )
        );
        let merged = framing::with_client_context(
            json!({"_meta": {"progressToken": 7, "io.modelcontextprotocol/protocolVersion": "x"}}),
            &context,
        );
        assert_eq!(
            merged,
            json!({"_meta": {
                "progressToken": 7,
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "open-multi-agent", "version": "0.0.0"},
                "io.modelcontextprotocol/clientCapabilities": {}
            }})
        );
        assert_eq!(
            framing::with_client_context(json!({"_meta": null}), &context)["_meta"],
            Value::Object(context.clone())
        );
        assert_eq!(
            framing::with_client_context(json!([1]), &context),
            json!([1])
        );
    }

    #[test]
    fn reads_the_discover_result() {
        let preferred = preferred_versions();
        let result = json!({
            "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "mcp-time", "version": "2026.10.19", "x": 1}},
            "resultType": "complete", "cacheScope": "private", "ttlMs": 0
        });
        let negotiated = read_discover_result(result, &preferred, &client(), "srv").unwrap();
        assert_eq!(negotiated.protocol_version, "2026-07-28");
        assert_eq!(
            negotiated.server_info,
            Some(json!({"name": "mcp-time", "version": "2026.10.19", "x": 1}))
        );
        assert_eq!(
            negotiated.client_context.map(Value::Object),
            Some(serde_json::from_str::<Value>(CONTEXT).unwrap())
        );
        let no_meta = json!({"supportedVersions": ["2026-07-28"], "_meta": 3});
        assert_eq!(
            read_discover_result(no_meta, &preferred, &client(), "srv")
                .unwrap()
                .server_info,
            None
        );
        let err = read_discover_result(
            json!({"supportedVersions": ["2025-11-25"]}),
            &preferred,
            &client(),
            "srv",
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "the MCP server `srv` sent an invalid `server/discover` response: no protocol version \
             in common: the server supports [\"2025-11-25\"], this client [\"2026-07-28\"]"
        );
        let err = read_discover_result(json!({}), &preferred, &client(), "srv").unwrap_err();
        assert_eq!(
            err.to_string(),
            "the MCP server `srv` sent an invalid `server/discover` response: `supportedVersions` \
             is not an array: null"
        );
        let err = read_discover_result(json!([]), &preferred, &client(), "srv").unwrap_err();
        assert_eq!(
            err.to_string(),
            "the MCP server `srv` sent an invalid `server/discover` response: the result is not \
             an object: []"
        );
        // A server-sent value enters the message cut to 200 characters.
        let long = "v".repeat(1000);
        let err = read_discover_result(
            json!({"supportedVersions": [long]}),
            &preferred,
            &client(),
            "srv",
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "the MCP server `srv` sent an invalid `server/discover` response: no protocol \
                 version in common: the server supports [\"{}…, this client [\"2026-07-28\"]",
                "v".repeat(198)
            )
        );
    }

    #[test]
    fn handshake_errors_say_both_phases() {
        let err = Error::Connect(ConnectError::Handshake {
            command: "srv".to_owned(),
            method: DISCOVER.to_owned(),
            source: Box::new(Error::Connect(ConnectError::FallbackFailed {
                discover: Box::new(Error::Request(RequestError::Rpc {
                    code: -32601,
                    message: "Method not found".to_owned(),
                    data: None,
                })),
                fallback: Box::new(Error::Disconnected(DisconnectedError::ConnectionClosed)),
            })),
            exit: String::new(),
            stderr_tail: String::new(),
        });
        assert_eq!(
            err.to_string(),
            "the MCP server/discover handshake with `srv` failed"
        );
        assert_eq!(
            err.chain().to_string(),
            "the MCP server/discover handshake with `srv` failed: MCP error -32601: Method not \
             found; the fallback `initialize` handshake failed too: MCP error -32000: Connection \
             closed"
        );
        assert!(err.is_connection_lost());
        assert_eq!(err.rpc_code(), Some(-32000));
        let err = Error::Connect(ConnectError::DiscoverUnsupported {
            source: Box::new(Error::Request(RequestError::Rpc {
                code: -32601,
                message: "m".to_owned(),
                data: None,
            })),
        });
        assert_eq!(err.rpc_code(), Some(-32601));
        assert_eq!(
            err.chain().to_string(),
            "the server does not speak the 2026-07-28 lifecycle (connect with \
             `ConnectConfig::with_lifecycle(Lifecycle::Auto)` or `Lifecycle::Initialize`; \
             manifest key `lifecycle`): MCP error -32601: m"
        );
    }
}
