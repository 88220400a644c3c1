//! [`ToolCall`]: one `tools/call` request, built the way reqwest's `RequestBuilder` builds an
//! HTTP request: start it on the client, add settings, end it with one ending.
//!
//! - Start: [`McpClient::call_tool`]`(raw_name)` for a tool by the raw name the server lists
//!   (untyped, [`Untyped`]), or [`McpClient::call`]`(args)` from a generated `<Tool>Args`
//!   value, which knows its tool ([`ToolArgs`], typed, [`Typed`]).
//! - Settings, each taking and returning the builder: [`arguments`](ToolCall::arguments)
//!   (untyped), [`cancel_on`](ToolCall::cancel_on), [`progress`](ToolCall::progress),
//!   [`timeout`](ToolCall::timeout), [`answering`](ToolCall::answering) (untyped) and
//!   [`confirmed`](ToolCall::confirmed) (typed).
//! - Endings (async, each sends one `tools/call`): [`raw`](ToolCall::raw) (the JSON-RPC
//!   result as sent), [`outcome`](ToolCall::outcome) (the result by its `resultType`) and
//!   [`mapped`](ToolCall::mapped) (open-multi-agent's mapping, never failing) for untyped
//!   calls; [`mapped`](ToolCall::mapped) and [`typed`](ToolCall::typed) (validated arguments
//!   in, a typed output back) for typed calls.
//!
//! ```no_run
//! # async fn demo(client: &oma_mcp_runtime::McpClient) -> Result<(), oma_mcp_runtime::Error> {
//! use std::time::Duration;
//!
//! let arguments = serde_json::json!({"message": "hi"}).as_object().cloned();
//! let result = client.call_tool("echo").arguments(arguments).mapped().await;
//! assert_eq!(result.data, "Echo: hi");
//!
//! let cancel = oma_mcp_runtime::CancellationToken::new();
//! let raw = client
//!     .call_tool("longRunningOperation")
//!     .cancel_on(&cancel)
//!     .timeout(Duration::from_secs(5))
//!     .progress(|p| println!("{:?} of {:?}", p.progress, p.total))
//!     .raw()
//!     .await?;
//! # Ok(()) }
//! ```
//!
//! # Task-backed calls
//! A long call may be answered with a task (MCP 2025-11-25's experimental tasks, the MCP
//! 2026-07-28 tasks extension; see [`oma_mcp_core::task`]). Every ending drives the task to
//! its result, so code written for direct results needs no change:
//!
//! - **Asking.** A call asks for a task where the negotiated revision and the server allow
//!   it: in 2026-07-28 it declares the extension when the server advertises it (the server
//!   then decides); in 2025-11-25 it sends `params.task` for a tool whose
//!   `execution.taskSupport` is `required` or `optional`, on a server whose capabilities have
//!   `tasks.requests.tools.call` (without it the revision forbids asking). A server may
//!   always answer directly.
//! - **Polling.** `tasks/get` at the server's `pollInterval`/`pollIntervalMs`, held between
//!   100 ms and 30 s (1 s without a hint), plus 0–10 % jitter. Each new status (and status
//!   message) reaches the [`progress`](ToolCall::progress) callback as a [`Progress`] whose
//!   `task` is set; `notifications/progress` keep arriving as before.
//! - **Input.** A task waiting for input (`input_required`) is answered by the connection's
//!   elicitation handler ([`ConnectConfig::with_elicitation`](crate::ConnectConfig)): in
//!   2025-11-25 the server's `elicitation/create` arrives while `tasks/result` waits, in
//!   2026-07-28 the call answers the task's `inputRequests` with `tasks/update`. A request
//!   nobody can answer ends the call with [`RequestError::Task`](crate::error::RequestError).
//! - **The result.** The `tools/call` result the task ended with (from `tasks/result` in
//!   2025-11-25, inline in `tasks/get` in 2026-07-28), mapped, typed or returned raw as a
//!   direct result is; a tool error (`isError: true`) stays a tool error. A task that failed
//!   with a JSON-RPC error, was cancelled by the server or is gone is a
//!   [`RequestError::Task`](crate::error::RequestError) naming the task, its status and its
//!   status message.
//! - **Time and cancellation.** The call's timeout ([`timeout`](ToolCall::timeout), else the
//!   request timeout) bounds the whole task, polls and input included. When the call ends
//!   before its task (timeout, [`cancel_on`](ToolCall::cancel_on), an error, or the ending's
//!   future dropped), the server gets `tasks/cancel` for it (in 2025-11-25 when its
//!   capabilities have `tasks.cancel`).
//!
//! # Confirmation of consequential tools
//! A typed call of a consequential tool ([`McpTool::CONSEQUENTIAL`]; its marker does not
//! implement [`NotConsequential`]) does not compile unless the call went through
//! [`confirmed`](ToolCall::confirmed): its endings require [`Permit`] of the call's
//! confirmation state, which [`Confirmed`] has for every tool and [`Unconfirmed`] only for
//! tools that are [`NotConsequential`].
//!
//! ```ignore
//! let text = client.call(ReadTextFileArgs::new(path.clone())).typed().await?;
//! // `write_file` is consequential: without `.confirmed()` this does not compile.
//! let written = client.call(WriteFileArgs::new(path, text)).confirmed().mapped().await;
//! ```

mod task;
mod typed;

#[cfg(doc)]
use crate::error::{DisconnectedError, RequestError};
use std::marker::PhantomData;
use std::time::Duration;

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::{
    CallOutcome, Error, InputRequired, McpClient, McpTool, NotConsequential, Progress, ToolArgs,
    ToolResult, map_call_result,
};

/// What a progress callback of a [`ToolCall`] is kept as.
type OnProgress<'c> = Box<dyn FnMut(Progress) + Send + 'c>;

/// One `tools/call` request being built: made by [`McpClient::call_tool`] (`K` = [`Untyped`])
/// or [`McpClient::call`] (`K` = [`Typed`]), changed by its settings, sent by one of its
/// endings (see the [module docs](self)). `C` is the confirmation state of a typed call,
/// [`Unconfirmed`] until [`confirmed`](ToolCall::confirmed) makes it [`Confirmed`].
///
/// Nothing is sent before an ending is awaited; a builder dropped without an ending sends
/// nothing.
pub struct ToolCall<'c, K, C = Unconfirmed> {
    parts: Parts<'c>,
    kind: K,
    confirmation: PhantomData<C>,
}

/// The settings every kind of call has.
struct Parts<'c> {
    client: &'c McpClient,
    /// The raw MCP name, as sent in `tools/call`.
    name: &'c str,
    cancel: Option<CancellationToken>,
    progress: Option<OnProgress<'c>>,
    timeout: Option<Duration>,
    /// Members of `params` beside `name` and `arguments` (`inputResponses`, `requestState`).
    extra: Map<String, Value>,
}

/// The kind of an untyped [`ToolCall`] ([`McpClient::call_tool`]): the tool by its raw name,
/// the arguments as a JSON object ([`ToolCall::arguments`]).
#[derive(Debug, Clone, Default)]
pub struct Untyped {
    arguments: Option<Map<String, Value>>,
}

/// The kind of a typed [`ToolCall`] ([`McpClient::call`]): the generated arguments `A`, which
/// know their tool (`A::Tool`).
#[derive(Debug, Clone)]
pub struct Typed<A> {
    args: A,
}

/// The confirmation state of a typed [`ToolCall`] before [`ToolCall::confirmed`]: its endings
/// compile only for tools that are [`NotConsequential`]. A type, never a value.
#[derive(Debug)]
pub enum Unconfirmed {}

/// The confirmation state of a typed [`ToolCall`] after [`ToolCall::confirmed`]: its endings
/// compile for every tool, consequential ones included. A type, never a value.
#[derive(Debug)]
pub enum Confirmed {}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Unconfirmed {}
    impl Sealed for super::Confirmed {}
}

/// Whether a typed call in this confirmation state (`Self`) may run the tool `T`: implemented
/// for [`Confirmed`] with every tool and for [`Unconfirmed`] with tools that are
/// [`NotConsequential`]. Sealed: only these two states exist.
#[diagnostic::on_unimplemented(
    message = "`{T}` is a consequential MCP tool: calling it needs an explicit confirmation",
    label = "consequential: not callable without a confirmation",
    note = "once your program has confirmed the call, add `.confirmed()` before the ending: `client.call(args).confirmed().mapped()` (or `.typed()`)"
)]
pub trait Permit<T: McpTool>: sealed::Sealed {
    /// `true` for [`Confirmed`]: the endings check at compile time that an unconfirmed call
    /// is of a tool whose [`McpTool::CONSEQUENTIAL`] is `false` (a hand-written
    /// [`NotConsequential`] implementation cannot lie).
    const CONFIRMED: bool;
}

impl<T: McpTool> Permit<T> for Confirmed {
    const CONFIRMED: bool = true;
}

impl<T: NotConsequential> Permit<T> for Unconfirmed {
    const CONFIRMED: bool = false;
}

impl McpClient {
    /// Starts an untyped call of the tool with the raw MCP name `raw_name` (as the server lists
    /// it and as `tools/call` sends it), without arguments until
    /// [`ToolCall::arguments`]. open-multi-agent validates nothing locally (its
    /// `docs/mcp.md`, "Input validation is delegated to the server"), and neither does an
    /// untyped call. See [`ToolCall`] for the settings and the endings.
    pub fn call_tool<'c>(&'c self, raw_name: &'c str) -> ToolCall<'c, Untyped> {
        ToolCall::new(self, raw_name, Untyped::default())
    }

    /// Starts a typed call from generated arguments, which know their tool
    /// ([`ToolArgs::Tool`]): `client.call(EchoArgs::new("hi")).mapped()`. The call goes to
    /// the tool's [`McpTool::MCP_NAME`]. A consequential tool's call compiles only after
    /// [`ToolCall::confirmed`]. See [`ToolCall`] for the settings and the endings.
    pub fn call<A: ToolArgs>(&self, args: A) -> ToolCall<'_, Typed<A>> {
        ToolCall::new(self, <A::Tool as McpTool>::MCP_NAME, Typed { args })
    }
}

impl<'c, K> ToolCall<'c, K> {
    fn new(client: &'c McpClient, name: &'c str, kind: K) -> Self {
        Self {
            parts: Parts {
                client,
                name,
                cancel: None,
                progress: None,
                timeout: None,
                extra: Map::new(),
            },
            kind,
            confirmation: PhantomData,
        }
    }
}

/// The settings of every kind of call.
impl<'c, K, C> ToolCall<'c, K, C> {
    /// The raw MCP name the call goes to.
    pub fn tool_name(&self) -> &str {
        self.parts.name
    }

    /// Ends the call when `cancel` is cancelled (open-multi-agent's abort signal): the ending
    /// fails at once with [`RequestError::Cancelled`] (`This operation was aborted`, what the
    /// TypeScript SDK rejects with for `AbortController.abort()`) and, if the request was
    /// already sent, the server gets `notifications/cancelled` with its request id and the
    /// reason `AbortError: This operation was aborted`. A token cancelled before the ending
    /// sends nothing. The connection stays usable (open-multi-agent's `docs/mcp.md`,
    /// "Errors": "an aborted run cancels an in-flight MCP request"). The call keeps a clone
    /// of the token (clones share one cancellation).
    #[must_use]
    pub fn cancel_on(mut self, cancel: &CancellationToken) -> Self {
        self.parts.cancel = Some(cancel.clone());
        self
    }

    /// Reports the server's progress: the request carries a `_meta.progressToken` (unique in
    /// this session), and each `notifications/progress` the server sends for it reaches
    /// `on_progress` as a [`Progress`], in the order sent, before the ending returns (the
    /// notifications that arrived before the result included). Once the
    /// [`cancel_on`](ToolCall::cancel_on) token fires, none reaches it any more (the call
    /// ends with [`RequestError::Cancelled`]); when the call fails (timeout, cancel, closed
    /// connection), the notifications still queued are dropped, so a slow `on_progress`
    /// cannot hold a failed call open. A notification whose `progress` is not a number is
    /// skipped. The timeout still bounds the whole call (progress does not extend it, as in
    /// open-multi-agent), however fast the server sends progress.
    ///
    /// Without this setting no `progressToken` is sent, so a server never spends work on
    /// notifications nobody reads. `on_progress` must be `Send`, so the call stays a `Send`
    /// future.
    #[must_use]
    pub fn progress(mut self, on_progress: impl FnMut(Progress) + Send + 'c) -> Self {
        self.parts.progress = Some(Box::new(on_progress));
        self
    }

    /// Bounds this call by `timeout` instead of the session's request timeout
    /// ([`ConnectConfig::request_timeout`](crate::ConnectConfig::request_timeout)), longer or
    /// shorter. When it elapses, the server gets `notifications/cancelled` as for the request
    /// timeout and the ending fails with [`RequestError::Timeout`] whose text names the duration:
    /// `MCP error -32001: Request timed out after 250ms (the call's own timeout)`.
    /// `Duration::ZERO` fails so without sending anything.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.parts.timeout = Some(timeout);
        self
    }
}

/// The settings and endings of an untyped call ([`McpClient::call_tool`]).
impl<'c> ToolCall<'c, Untyped> {
    /// The `arguments` of `tools/call`: a JSON object, or `None` to send no `arguments`
    /// member (the default).
    #[must_use]
    pub fn arguments(mut self, arguments: impl Into<Option<Map<String, Value>>>) -> Self {
        self.kind.arguments = arguments.into();
        self
    }

    /// Answers an `"input_required"` result (SEP-2322, MCP 2026-07-28) of an earlier call of
    /// the same tool with the same arguments: the call carries `inputResponses` = `responses`
    /// (name → the result of fulfilling that input request, e.g. `{"action": "accept",
    /// "content": {…}}` for an `elicitation/create`) and `requestState` exactly as the server
    /// sent it in `required` (omitted when it sent none). The answer may ask for input
    /// again; read it with [`outcome`](ToolCall::outcome).
    #[must_use]
    pub fn answering(mut self, required: &InputRequired, responses: Map<String, Value>) -> Self {
        self.parts
            .extra
            .insert("inputResponses".to_owned(), Value::Object(responses));
        match &required.request_state {
            Some(state) => self
                .parts
                .extra
                .insert("requestState".to_owned(), state.clone()),
            None => self.parts.extra.remove("requestState"),
        };
        self
    }

    /// Sends the call and returns the JSON-RPC result object exactly as the server sent it.
    ///
    /// # Errors
    /// [`RequestError::Rpc`] (`MCP error <code>: <message>`), [`RequestError::Timeout`]
    /// (`MCP error -32001: Request timed out`, after `notifications/cancelled` with the
    /// request's id and the TypeScript SDK's reason `McpError: MCP error -32001: Request timed
    /// out`; with [`timeout`](ToolCall::timeout), the text names the duration),
    /// [`RequestError::Cancelled`] (see [`cancel_on`](ToolCall::cancel_on)),
    /// [`DisconnectedError::ServerExited`] (`MCP error -32000: Connection closed: the MCP server `srv`
    /// went away during `tools/call`; the server exited (exit status: 5); server stderr: …`;
    /// [`DisconnectedError::ConnectionClosed`] when [`McpClient::disconnect`] ran meanwhile),
    /// [`DisconnectedError::NotConnected`] (`Not connected`), [`RequestError::MessageTooLarge`],
    /// [`RequestError::ServerNotReading`].
    pub async fn raw(self) -> Result<Value, Error> {
        self.parts.send(self.kind.arguments.as_ref()).await
    }

    /// Sends the call and classifies the result by its `resultType` (MCP 2026-07-28): a
    /// complete result, a request for input (SEP-2322) to answer with
    /// [`answering`](ToolCall::answering), or a task this call did not ask for (a task it
    /// asked for is driven to its result first, see [Task-backed calls](self#task-backed-calls)). See
    /// [`crate::call_outcome`].
    ///
    /// # Errors
    /// As [`raw`](ToolCall::raw).
    pub async fn outcome(self) -> Result<CallOutcome, Error> {
        self.raw().await.map(CallOutcome::from_result)
    }

    /// Sends the call and maps the result as the contract maps it; never fails.
    ///
    /// A result is mapped with [`map_call_result`] (open-multi-agent's `docs/mcp.md`, "Result
    /// mapping"); a result that asks for input or is a task becomes an error result that says
    /// so ([`crate::call_outcome::not_complete`]); a failed call becomes [`ToolResult::failed`]:
    /// `MCP tool "<raw_name>" failed: <message>` with `is_error: true` (open-multi-agent's
    /// `docs/mcp.md`, "Errors"), e.g. `… failed: This operation was aborted` for a cancelled
    /// one.
    pub async fn mapped(self) -> ToolResult {
        let name = self.parts.name;
        mapped_reply(name, self.raw().await)
    }
}

impl Parts<'_> {
    /// Sends the `tools/call` with `arguments` (after the quarantine's check, [`admit`]) and,
    /// when the server answers with a task, drives it to its result ([`task`]); with a
    /// progress callback, reports the server's progress and the task's statuses while
    /// waiting (see [`ToolCall::progress`]).
    async fn send(self, arguments: Option<&Map<String, Value>>) -> Result<Value, Error> {
        admit(self.client, self.name, self.cancel.as_ref()).await?;
        let Parts {
            client,
            name,
            cancel,
            progress,
            timeout,
            extra,
        } = self;
        let cancel = cancel.as_ref();
        let dialect = client.task_dialect(name);
        let whole = timeout.unwrap_or_else(|| client.request_timeout());
        let deadline = tokio::time::Instant::now() + whole;
        let (statuses, mut status_updates) = match (&progress, dialect) {
            (Some(_), Some(_)) => {
                let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
                (Some(tx), Some(rx))
            }
            _ => (None, None),
        };
        // Registered until `token` is dropped at the end of this function (progress of a
        // 2025-11-25 task keeps its call's token for the task's lifetime).
        let watch = progress.as_ref().map(|_| client.watch_progress());
        let token = watch.as_ref().map(|(token, _)| token.value());
        let call = async {
            let result = client
                .tools_call(name, arguments, &extra, token, cancel, timeout, dialect)
                .await?;
            let Some(dialect) = dialect else {
                return Ok(result);
            };
            match oma_mcp_core::task::Task::started(&result, dialect) {
                None => Ok(result),
                Some(Err(shape)) => Err(client.invalid("tools/call", shape.to_string())),
                Some(Ok(task)) => {
                    task::Driver {
                        client,
                        dialect,
                        deadline,
                        timeout: whole,
                        per_call: timeout.is_some(),
                        cancel,
                        statuses,
                    }
                    .drive(task)
                    .await
                }
            }
        };
        let (Some(mut on_progress), Some((_token, mut updates))) = (progress, watch) else {
            return call.await;
        };
        let cancelled = || cancel.is_some_and(CancellationToken::is_cancelled);
        let mut last = Progress {
            progress: 0.0,
            total: None,
            message: None,
            task: None,
        };
        let mut report = |progress: Progress| {
            // Once the caller cancelled, what is still queued is not reported.
            if !cancelled() {
                on_progress(progress);
            }
        };
        let from_params = |params: Value, last: &mut Progress| match Progress::from_params(&params)
        {
            Some(progress) => {
                *last = progress.clone();
                Some(progress)
            }
            None => {
                tracing::debug!(%params, "skipped a progress notification without a numeric `progress`");
                None
            }
        };
        tokio::pin!(call);
        // The call first: a flood of progress into a slow `on_progress` must not keep its
        // timeout or cancel from being seen. The reader queues a call's progress before its
        // answer, so a result finds every earlier notification queued.
        let result = loop {
            tokio::select! {
                biased;
                result = &mut call => break result,
                Some(params) = updates.recv() => {
                    if let Some(progress) = from_params(params, &mut last) {
                        report(progress);
                    }
                }
                Some(task) = async {
                    match status_updates.as_mut() {
                        Some(rx) => rx.recv().await,
                        None => std::future::pending().await,
                    }
                } => report(last.with_task(task)),
            }
        };
        if result.is_ok() {
            while let Ok(params) = updates.try_recv() {
                if let Some(progress) = from_params(params, &mut last) {
                    report(progress);
                }
            }
        }
        // The task's last status (the one it ended or failed with) is queued after its
        // progress; reported unless the caller cancelled.
        while let Some(Ok(task)) = status_updates.as_mut().map(|rx| rx.try_recv()) {
            report(last.with_task(task));
        }
        result
    }
}

/// The quarantine's check of a call of `name` on `client` ([`crate::drift`], cargo feature
/// `drift`): a tool withheld from the connection fails with [`Error::Withheld`] before
/// anything is sent. When the tools must be listed again first, `cancel` ends the wait with
/// [`RequestError::Cancelled`] (the listing's request is cancelled; the next call lists
/// again). (Of the client, name and token alone: a `&Parts` is not `Send`, as its progress
/// callback is not `Sync`.)
#[cfg(feature = "drift")]
async fn admit(
    client: &McpClient,
    name: &str,
    cancel: Option<&CancellationToken>,
) -> Result<(), Error> {
    let Some(cancel) = cancel else {
        return client.admit(name).await;
    };
    tokio::select! {
        biased;
        () = cancel.cancelled() => Err(Error::Request(crate::error::RequestError::Cancelled {
            method: "tools/call".to_owned(),
        })),
        admitted = client.admit(name) => admitted,
    }
}

/// Without cargo feature `drift` there is no quarantine: every call is let through.
#[cfg(not(feature = "drift"))]
async fn admit(
    _client: &McpClient,
    _name: &str,
    _cancel: Option<&CancellationToken>,
) -> Result<(), Error> {
    Ok(())
}

/// A reply mapped as the contract maps it: [`map_call_result`], except for a result that is
/// not complete ([`crate::call_outcome::not_complete`]); an error is [`ToolResult::failed`] with
/// its whole chain.
fn mapped_reply(raw_name: &str, reply: Result<Value, Error>) -> ToolResult {
    match reply {
        Ok(result) => crate::call_outcome::not_complete(raw_name, &result)
            .unwrap_or_else(|| map_call_result(&result)),
        Err(e) => ToolResult::failed(raw_name, &e.chain().to_string()),
    }
}

impl<K: std::fmt::Debug, C> std::fmt::Debug for ToolCall<'_, K, C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolCall")
            .field("tool", &self.parts.name)
            .field("kind", &self.kind)
            .field("confirmation", &std::any::type_name::<C>())
            .field("cancel", &self.parts.cancel)
            .field("progress", &self.parts.progress.is_some())
            .field("timeout", &self.parts.timeout)
            .field("extra", &self.parts.extra)
            .finish()
    }
}
