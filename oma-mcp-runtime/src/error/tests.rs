//! The groups' kinds and predicates, a few messages through the top-level `Display`, and the
//! `source()` chains.

use super::connect::details;
use super::*;

fn rpc(code: i64, message: &str) -> Error {
    RequestError::Rpc {
        code,
        message: message.to_owned(),
        data: None,
    }
    .into()
}

fn timeout(method: &str) -> Error {
    RequestError::Timeout {
        method: method.to_owned(),
        timeout: std::time::Duration::from_secs(60),
        per_call: false,
    }
    .into()
}

fn handshake(source: Error) -> Error {
    ConnectError::Handshake {
        command: "srv".to_owned(),
        method: "initialize".to_owned(),
        source: Box::new(source),
        exit: String::new(),
        stderr_tail: String::new(),
    }
    .into()
}

/// The predicates of one error, in the order kind, is_config, is_connect, is_protocol,
/// is_rpc, is_timeout, is_cancelled, is_connection_lost, rpc_code.
fn answers(err: &Error) -> (ErrorKind, [bool; 7], Option<i64>) {
    (
        err.kind(),
        [
            err.is_config(),
            err.is_connect(),
            err.is_protocol(),
            err.is_rpc(),
            err.is_timeout(),
            err.is_cancelled(),
            err.is_connection_lost(),
        ],
        err.rpc_code(),
    )
}

#[test]
fn each_group_has_its_kind_and_predicates() {
    let config = Error::from(ConfigError::DuplicateTool {
        name: "x".to_owned(),
    });
    let connect = Error::from(ConnectError::Spawn {
        command: "srv".to_owned(),
        source: std::io::Error::from(std::io::ErrorKind::NotFound),
    });
    let disconnected = Error::from(DisconnectedError::NotConnected);
    let protocol = Error::from(ProtocolError::MessageTooDeep { limit: 128 });
    let cancelled = Error::from(RequestError::Cancelled {
        method: "tools/call".to_owned(),
    });
    let snapshot = Error::from(oma_mcp_core::SnapshotError::format(
        "a.snapshot.json",
        "no tools",
    ));
    let f = false;
    assert_eq!(
        answers(&config),
        (ErrorKind::Config, [true, f, f, f, f, f, f], None)
    );
    assert_eq!(
        answers(&connect),
        (ErrorKind::Connect, [f, true, f, f, f, f, f], None)
    );
    assert_eq!(
        answers(&disconnected),
        (ErrorKind::Disconnected, [f, f, f, f, f, f, true], None)
    );
    assert_eq!(
        answers(&protocol),
        (ErrorKind::Protocol, [f, f, true, f, f, f, f], None)
    );
    assert_eq!(
        answers(&rpc(-32602, "bad")),
        (ErrorKind::Request, [f, f, f, true, f, f, f], Some(-32602))
    );
    assert_eq!(
        answers(&timeout("tools/call")),
        (ErrorKind::Request, [f, f, f, f, true, f, f], Some(-32001))
    );
    assert_eq!(
        answers(&cancelled),
        (ErrorKind::Request, [f, f, f, f, f, true, f], None)
    );
    assert_eq!(answers(&snapshot), (ErrorKind::Snapshot, [f; 7], None));
}

#[test]
fn a_name_collision_is_a_protocol_error() {
    let err = Error::from(oma_mcp_core::naming::normalize_all(None, ["a/b", "a_b"]).unwrap_err());
    assert!(matches!(
        err,
        Error::Protocol(ProtocolError::NameCollision(_))
    ));
    assert_eq!(err.kind(), ErrorKind::Protocol);
    assert_eq!(
        err.to_string(),
        "Duplicate MCP tool name after normalization: \"a_b\" from \"a/b\" and \"a_b\"."
    );
}

#[test]
fn the_predicates_about_the_cause_look_through_a_handshake() {
    let timed_out = handshake(timeout("initialize"));
    assert_eq!(
        answers(&timed_out),
        (
            ErrorKind::Connect,
            [false, true, false, false, true, false, false],
            Some(-32001)
        )
    );
    let closed = handshake(DisconnectedError::ConnectionClosed.into());
    assert_eq!(
        answers(&closed),
        (
            ErrorKind::Connect,
            [false, true, false, false, false, false, true],
            Some(-32000)
        )
    );
    let unsupported = Error::from(ConnectError::DiscoverUnsupported {
        source: Box::new(rpc(-32601, "Method not found")),
    });
    assert!(unsupported.is_rpc());
    assert_eq!(unsupported.rpc_code(), Some(-32601));
    let fallback = handshake(
        ConnectError::FallbackFailed {
            discover: Box::new(rpc(-32601, "Method not found")),
            fallback: Box::new(timeout("initialize")),
        }
        .into(),
    );
    assert!(fallback.is_timeout());
    assert!(!fallback.is_rpc());
    // An invalid response inside a handshake is a failed connect, not a protocol error.
    let invalid = handshake(
        ProtocolError::InvalidResponse {
            command: "srv".to_owned(),
            method: "initialize".to_owned(),
            reason: "no result".to_owned(),
        }
        .into(),
    );
    assert!(invalid.is_connect());
    assert!(!invalid.is_protocol());
}

#[test]
fn command_names_the_server_in_the_message() {
    let fallback = Error::from(ConnectError::FallbackFailed {
        discover: Box::new(
            ConnectError::HttpUnreachable {
                server: "https://x.example/mcp".to_owned(),
                method: "server/discover".to_owned(),
                source: "refused".into(),
            }
            .into(),
        ),
        fallback: Box::new(DisconnectedError::ConnectionClosed.into()),
    });
    assert_eq!(fallback.command(), Some("https://x.example/mcp"));
    let cursor = Error::from(ProtocolError::RepeatedCursor {
        method: "tools/list".to_owned(),
        cursor: "c".to_owned(),
        command: "srv --stdio".to_owned(),
    });
    assert_eq!(cursor.command(), Some("srv --stdio"));
    let url = Error::from(ConfigError::InvalidUrl {
        url: "<invalid URL>".to_owned(),
    });
    assert_eq!(url.command(), Some("<invalid URL>"));
    assert_eq!(timeout("tools/call").command(), None);
}

#[test]
fn representative_messages_are_the_variants_own() {
    let texts: Vec<String> = [
        Error::from(ConfigError::DuplicateTool {
            name: "github_search".to_owned(),
        }),
        Error::from(ConnectError::HttpAuth {
            server: "https://x.example/mcp".to_owned(),
            method: "initialize".to_owned(),
            status: 401,
            challenge: Some("Bearer realm=\"x\"".to_owned()),
            hint: "set TOKEN".to_owned(),
        }),
        Error::from(DisconnectedError::NotConnected),
        Error::from(ProtocolError::InvalidResponse {
            command: "srv".to_owned(),
            method: "tools/list".to_owned(),
            reason: "no `tools` array".to_owned(),
        }),
        Error::from(RequestError::MessageTooLarge { limit: 100 }),
        rpc(-32602, "Invalid params"),
        timeout("tools/call"),
    ]
    .iter()
    .map(ToString::to_string)
    .collect();
    assert_eq!(
        texts,
        [
            "ToolRegistry: a tool named \"github_search\" is already registered. Use a unique \
             name or deregister the existing one first.",
            "the MCP server `https://x.example/mcp` answered `initialize` with HTTP 401 \
             (unauthorized), challenge: Bearer realm=\"x\"; set TOKEN",
            "Not connected",
            "the MCP server `srv` sent an invalid `tools/list` response: no `tools` array",
            "the MCP server sent a message larger than the limit of 100 bytes; raise it with \
             `ConnectConfig::with_max_message_size` (manifest key `max-message-bytes`)",
            "MCP error -32602: Invalid params",
            "MCP error -32001: Request timed out",
        ]
    );
}

#[test]
fn each_cause_is_printed_once() {
    let err = Error::from(ConnectError::Handshake {
        command: "srv".to_owned(),
        method: "server/discover".to_owned(),
        source: Box::new(
            ConnectError::FallbackFailed {
                discover: Box::new(rpc(-32601, "Method not found")),
                fallback: Box::new(
                    ConnectError::NotMcpServer {
                        command: "srv".to_owned(),
                        method: "initialize".to_owned(),
                        source: Box::new(rpc(-32601, "Method not found")),
                    }
                    .into(),
                ),
            }
            .into(),
        ),
        exit: String::new(),
        stderr_tail: "; server stderr: a | b".to_owned(),
    });
    assert_eq!(
        err.to_string(),
        "the MCP server/discover handshake with `srv` failed (server stderr: a | b)"
    );
    assert_eq!(
        err.chain().to_string(),
        "the MCP server/discover handshake with `srv` failed (server stderr: a | b): MCP \
         error -32601: Method not found; the fallback `initialize` handshake failed too: \
         `srv` does not seem to be an MCP server (it does not know `initialize`; check the \
         command and its arguments): MCP error -32601: Method not found"
    );
    let chain = err.chain().to_string();
    assert_eq!(format!("{:?}", Report::from(err)), chain);
}

/// The group is transparent: the top-level error's `source()` is the variant's own.
#[test]
fn sources_are_the_variants_own() {
    let spawn = Error::from(ConnectError::Spawn {
        command: "srv".to_owned(),
        source: std::io::Error::other("no such file"),
    });
    let source = std::error::Error::source(&spawn).expect("the OS error");
    assert_eq!(source.to_string(), "no such file");
    assert!(std::error::Error::source(source).is_none());
    let wrapped = handshake(rpc(-32603, "boom"));
    let source = std::error::Error::source(&wrapped).expect("the handshake's cause");
    assert_eq!(source.to_string(), "MCP error -32603: boom");
    assert!(std::error::Error::source(source).is_none());
    assert!(std::error::Error::source(&rpc(-1, "x")).is_none());
}

#[test]
fn server_exited_starts_with_the_contract_text_and_has_no_source() {
    let err = Error::from(DisconnectedError::ServerExited {
        command: "srv".to_owned(),
        method: "tools/call".to_owned(),
        exit: "; the server exited (exit status: 5)".to_owned(),
        stderr: "; server stderr: error: the database is gone".to_owned(),
    });
    assert_eq!(
        err.chain().to_string(),
        "MCP error -32000: Connection closed: the MCP server `srv` went away during \
         `tools/call`; the server exited (exit status: 5); server stderr: error: the \
         database is gone"
    );
    assert!(std::error::Error::source(&err).is_none());
    assert!(err.is_connection_lost());
    assert_eq!(err.kind(), ErrorKind::Disconnected);
    assert_eq!(err.rpc_code(), Some(-32000));
    assert_eq!(err.command(), Some("srv"));
}

/// Messages written over several source lines read as one sentence (single spaces).
#[test]
fn http_messages_are_single_spaced() {
    let errors = [
        Error::from(ConfigError::MissingEnv {
            var: "TOKEN".to_owned(),
            header: "Authorization".to_owned(),
        }),
        Error::from(ConfigError::HttpFeatureDisabled {
            server: "https://x.example/mcp".to_owned(),
        }),
        Error::from(ConnectError::HttpUnreachable {
            server: "https://x.example/mcp".to_owned(),
            method: "initialize".to_owned(),
            source: "refused".into(),
        }),
    ];
    let texts: Vec<String> = errors.iter().map(|e| e.chain().to_string()).collect();
    assert_eq!(
        texts,
        [
            "the environment variable `TOKEN` (for the HTTP header `Authorization`) is not \
             set or not UTF-8; set it (in CI: from the secret store) before connecting",
            "cannot connect to the MCP server `https://x.example/mcp` over streamable HTTP: \
             oma-mcp-runtime was built without its cargo feature `http` (add `features = \
             [\"http\"]` to its dependency)",
            "cannot reach the MCP server `https://x.example/mcp` for `initialize` (check the \
             URL, that the server is running, and the network): refused",
        ]
    );
}

#[test]
fn handshake_details_are_parenthesized_only_when_known() {
    assert_eq!(details("", ""), "");
    assert_eq!(
        details("; the server exited (exit status: 3)", "; server stderr: x"),
        " (the server exited (exit status: 3); server stderr: x)"
    );
    assert_eq!(details("", "; server stderr: x"), " (server stderr: x)");
}

/// The request timeout's text is the contract's alone; a call's own timeout names its
/// duration after it.
#[test]
fn a_call_s_own_timeout_names_its_duration() {
    let timeout = |ms, per_call| {
        Error::Request(RequestError::Timeout {
            method: "tools/call".to_owned(),
            timeout: std::time::Duration::from_millis(ms),
            per_call,
        })
    };
    assert_eq!(
        timeout(60_000, false).to_string(),
        "MCP error -32001: Request timed out"
    );
    assert_eq!(
        timeout(250, true).to_string(),
        "MCP error -32001: Request timed out after 250ms (the call's own timeout)"
    );
    assert_eq!(
        timeout(1500, true).chain().to_string(),
        "MCP error -32001: Request timed out after 1.5s (the call's own timeout)"
    );
    assert!(timeout(250, true).is_timeout());
    assert_eq!(timeout(250, true).rpc_code(), Some(-32001));
}
