//! [`RequestError`]: this request failed; the session goes on.

/// This request failed, and the session goes on: the server answered with a JSON-RPC error,
/// did not answer in time, the caller cancelled the call, the answer was larger than the
/// configured limit, or the server did not read its stdin. Later requests of the same client
/// are sent as usual; whether retrying this one helps depends on the variant (its message
/// says).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RequestError {
    /// The server answered a request with a JSON-RPC error. `Display` is exactly the contract's
    /// `MCP error <code>: <message>`.
    #[error("MCP error {code}: {message}")]
    #[non_exhaustive]
    Rpc {
        /// The JSON-RPC error code.
        code: i64,
        /// The JSON-RPC error message.
        message: String,
        /// The error's `data` member, raw, when present.
        data: Option<serde_json::Value>,
    },

    /// A request got no answer within the request timeout (open-multi-agent's `requestTimeoutMs`,
    /// default 60 s) or within its call's own timeout
    /// ([`ToolCall::timeout`](crate::ToolCall::timeout)). `Display` is exactly the contract's
    /// text, `MCP error -32001: Request timed out`; for a call's own timeout it goes on with
    /// the duration used: `MCP error -32001: Request timed out after 250ms (the call's own
    /// timeout)` (the duration as `Duration`'s `Debug` writes it). A
    /// `notifications/cancelled` was sent (except for
    /// [`Lifecycle::Auto`](crate::connect::Lifecycle::Auto)'s `server/discover` and the
    /// `initialize` sent beside it, which are abandoned silently, as rmcp does).
    #[error("MCP error -32001: Request timed out{}", per_call_suffix(*per_call, *timeout))]
    #[non_exhaustive]
    Timeout {
        /// The JSON-RPC method that timed out (`server/discover`, `initialize`, `tools/list`,
        /// `tools/call`).
        method: String,
        /// The timeout that elapsed: the call's own timeout when `per_call`, else the request
        /// timeout; for the lifecycle requests (`server/discover`, `initialize`) the request
        /// timeout too, the one deadline of the whole lifecycle.
        timeout: std::time::Duration,
        /// `true` when `timeout` is the call's own ([`ToolCall::timeout`](crate::ToolCall::timeout)),
        /// `false` for the request timeout.
        per_call: bool,
    },

    /// A call was cancelled through its [`CancellationToken`](crate::CancellationToken) (the
    /// open-multi-agent's abort signal) before an answer arrived. `Display` is the message of the
    /// abort reason the TypeScript SDK rejects with (`AbortController.abort()` without a reason:
    /// a `DOMException` `AbortError`); a `notifications/cancelled` was sent when the request
    /// had been sent.
    #[error("This operation was aborted")]
    #[non_exhaustive]
    Cancelled {
        /// The JSON-RPC method that was cancelled (`tools/call`).
        method: String,
    },

    /// A task-backed call's task (MCP 2025-11-25 tasks, the MCP 2026-07-28 tasks extension;
    /// see [`oma_mcp_core::task`]) ended without a result to return: it failed with a
    /// JSON-RPC error, the server cancelled it, the server no longer knows it, or it waits
    /// for input this client cannot give (a request other than `elicitation/create`, or no
    /// [`ConnectConfig::elicitation`](crate::ConnectConfig) handler). `Display`:
    /// `task <id> <what happened> (status "<status>": <status message>)`, e.g. `task t-1
    /// failed: MCP error -32603: rate limited (status "failed": Analysis failed)`. A task
    /// that ended with a tool error (`isError: true`) is not this error: its result is
    /// returned as any result. When the call ended early (timeout, cancellation, this
    /// error), the server got `tasks/cancel` for the task, where it accepts one.
    #[error(
        "task {task_id} {reason} (status \"{status}\"{})",
        status_message_suffix(status_message.as_deref())
    )]
    #[non_exhaustive]
    Task {
        /// The task's id (`taskId`), cut to 100 characters.
        task_id: String,
        /// The task's last status as the server sent it (`failed`, `cancelled`,
        /// `input_required`, …).
        status: String,
        /// The task's last `statusMessage`, when sent, cut to 200 characters.
        status_message: Option<String>,
        /// What happened, e.g. `failed: MCP error -32603: rate limited` or `was cancelled
        /// by the server`.
        reason: String,
    },

    /// The server sent a message (one line) larger than the configured limit; the session goes
    /// on with the next line. When the message's first 4 KiB show a response with an `id`
    /// (`{"jsonrpc":"2.0","id":7,"result":…`, the order rmcp and the Python SDK write), only
    /// that request fails with this error; an oversized server request or notification fails
    /// none. When the `id` cannot be read there (the TypeScript SDK writes it after `result`),
    /// every request pending at that moment fails with this error, as the lost answer may be
    /// any of theirs. Raise the limit to get such answers.
    #[error(
        "the MCP server sent a message larger than the limit of {limit} bytes; raise it with \
         `ConnectConfig::with_max_message_size` (manifest key `max-message-bytes`)"
    )]
    MessageTooLarge {
        /// The limit in bytes ([`crate::ConnectConfig::max_message_size`]).
        limit: usize,
    },

    /// A stdio server does not read its stdin: with this request's line, more than
    /// [`MAX_STDIN_BACKLOG`](crate::connect::MAX_STDIN_BACKLOG) bytes would wait for it, so the
    /// request was not sent. Once the server reads what waits, requests are sent as usual.
    #[error(
        "the MCP server `{command}` does not read its stdin: {waiting} bytes already wait to be \
         written and this request would pass the limit of {limit} bytes, so it was not sent; \
         the server is stuck or busy (retry later, or restart it)"
    )]
    ServerNotReading {
        /// The server's command line.
        command: String,
        /// The bytes that waited for the server's stdin.
        waiting: usize,
        /// The limit in bytes ([`MAX_STDIN_BACKLOG`](crate::connect::MAX_STDIN_BACKLOG)).
        limit: usize,
    },

    /// The server does not offer what the request needs, as its capabilities or its answer
    /// say (a resource subscription to a server without `resources.subscribe`, a
    /// `subscriptions/listen` whose acknowledgment accepts none of the resources). Nothing
    /// more was asked of the server; the session goes on.
    #[error("{method}: the MCP server `{server}` {reason}")]
    #[non_exhaustive]
    Unsupported {
        /// The method that was not sent, or whose answer refused (`resources/subscribe`,
        /// `subscriptions/listen`).
        method: String,
        /// The server's command line or redacted URL.
        server: String,
        /// What the server does not offer, and what to do.
        reason: String,
    },
}

/// What [`RequestError::Task`]'s text adds for a status message: `: <message>`.
fn status_message_suffix(message: Option<&str>) -> String {
    message.map(|m| format!(": {m}")).unwrap_or_default()
}

/// What [`RequestError::Timeout`]'s text adds for a call's own timeout: ` after 250ms (the call's
/// own timeout)`; nothing for the request timeout (the contract's text alone).
fn per_call_suffix(per_call: bool, timeout: std::time::Duration) -> String {
    if per_call {
        format!(" after {timeout:?} (the call's own timeout)")
    } else {
        String::new()
    }
}
