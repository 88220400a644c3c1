//! Driving a task-backed `tools/call` to its result ([`oma_mcp_core::task`]): polling
//! `tasks/get` at the server's interval, answering input, fetching or reading the result,
//! and cancelling the task on the server when the call ends first.
//!
//! The call's timeout (its own, or the request timeout) bounds the whole task: the
//! `tools/call`, every poll, every answer and the result. When the call ends before its task
//! (timeout, cancellation, an error, the future dropped), the server gets `tasks/cancel`
//! (never `notifications/cancelled`, which both revisions reserve for requests).

use std::collections::HashSet;
use std::hash::{BuildHasher, Hasher};

use serde_json::{Map, Value};
use tokio::sync::mpsc::UnboundedSender;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use oma_mcp_core::quote::cut;
use oma_mcp_core::task::{Task, TaskDialect, TaskState, TaskStatus, poll_delay};

use crate::connect::framing;
use crate::error::RequestError;
use crate::{Error, McpClient};

/// One task-backed call between its `tools/call` and its result.
pub(super) struct Driver<'a> {
    pub(super) client: &'a McpClient,
    pub(super) dialect: TaskDialect,
    /// When the whole call times out.
    pub(super) deadline: Instant,
    /// The call's timeout, for its error, and whether it was the call's own.
    pub(super) timeout: std::time::Duration,
    pub(super) per_call: bool,
    pub(super) cancel: Option<&'a CancellationToken>,
    /// Where each new status goes (to the call's progress callback).
    pub(super) statuses: Option<UnboundedSender<Task>>,
}

/// How many unanswerable input requests an error lists before `and N more`.
const MAX_LISTED: usize = 5;

/// Sends `tasks/cancel` for a task when dropped armed: the call ended before its task.
struct CancelOnDrop<'a> {
    client: &'a McpClient,
    task_id: String,
    dialect: TaskDialect,
    armed: bool,
}

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.client.cancel_task(&self.task_id, self.dialect);
        }
    }
}

impl Driver<'_> {
    /// Drives the task `task` (as the `tools/call` answered) to the call's result: the
    /// `tools/call` result the task ended with, raw.
    ///
    /// # Errors
    /// [`RequestError::Timeout`] when the call's deadline passes (method `tools/call`), or a
    /// poll its request timeout, [`RequestError::Cancelled`], [`RequestError::Task`] for a
    /// failed, cancelled, lost or unanswerable task, and the other errors of the `tasks/*`
    /// requests.
    pub(super) async fn drive(&self, task: Task) -> Result<Value, Error> {
        // Armed while the task may still run on the server: every path on which the server
        // said the task ended disarms it; on the others (timeout, cancellation, an error, the
        // future dropped at any await) its drop sends `tasks/cancel`.
        let mut guard = CancelOnDrop {
            client: self.client,
            task_id: task.id.clone(),
            dialect: self.dialect,
            armed: !task.status.is_terminal(),
        };
        self.run(task, &mut guard).await
    }

    async fn run(&self, task: Task, guard: &mut CancelOnDrop<'_>) -> Result<Value, Error> {
        let mut state = TaskState::from(task);
        let mut from_get = false;
        let mut polls: u64 = 0;
        let mut answered = HashSet::new();
        let mut last_reported: Option<(TaskStatus, Option<String>)> = None;
        loop {
            let seen = (state.task.status.clone(), state.task.status_message.clone());
            if last_reported.as_ref() != Some(&seen) {
                if let Some(statuses) = &self.statuses {
                    let _ = statuses.send(state.task.clone());
                }
                last_reported = Some(seen);
            }
            let status = state.task.status.clone();
            match (self.dialect, status) {
                (_, TaskStatus::Cancelled) => {
                    guard.armed = false;
                    return Err(task_error(
                        &state.task,
                        "was cancelled by the server".into(),
                    ));
                }
                // 2025-11-25: the server asks for input with `elicitation/create` (with the
                // related task in `_meta`) while the client waits on `tasks/result`; without
                // a handler nobody can answer, so the call ends now and the task is cancelled.
                (TaskDialect::Experimental, TaskStatus::InputRequired)
                    if self.client.elicitation().is_none() =>
                {
                    return Err(task_error(
                        &state.task,
                        "needs input this client cannot give: an `elicitation/create` is \
                         answered by ConnectConfig::with_elicitation, which is not set"
                            .into(),
                    ));
                }
                // 2025-11-25: `tasks/result` gives the result (or the JSON-RPC error) once the
                // task ended, and blocks while it waits for input.
                (
                    TaskDialect::Experimental,
                    TaskStatus::Completed | TaskStatus::Failed | TaskStatus::InputRequired,
                ) => return self.fetch_result(&state.task, guard).await,
                (TaskDialect::Extension, TaskStatus::Completed | TaskStatus::Failed)
                    if from_get =>
                {
                    guard.armed = false;
                    // A failed task may still carry a result (a tool error filed as failed).
                    if let Some(result) = state.result.take() {
                        return Ok(result);
                    }
                    if state.task.status == TaskStatus::Completed {
                        return Err(self.client.invalid(
                            "tasks/get",
                            format!(
                                "{} is completed but `tasks/get` carried no `result` object",
                                state.task.describe()
                            ),
                        ));
                    }
                    let reason = match &state.error {
                        Some(error) => format!("failed: {}", rpc_text(error)),
                        None => "failed".to_owned(),
                    };
                    return Err(task_error(&state.task, reason));
                }
                (TaskDialect::Extension, TaskStatus::InputRequired) if from_get => {
                    self.answer(&state, &mut answered, guard).await?;
                }
                // An ended task as the `tools/call` answered it: its payload is one poll away.
                (TaskDialect::Extension, status) if status.is_terminal() => {}
                _ => {
                    let noise = noise(&state.task.id, polls);
                    self.sleep(poll_delay(state.task.poll_interval, noise))
                        .await?;
                }
            }
            polls += 1;
            let result = self
                .request("tasks/get", &state.task, Map::new(), guard)
                .await?;
            let polled = TaskState::from_get(&result)
                .map_err(|e| self.client.invalid("tasks/get", e.to_string()))?;
            // The answer must be about the task asked for: never follow another id.
            if polled.task.id != state.task.id {
                return Err(self.client.invalid(
                    "tasks/get",
                    format!(
                        "asked about task {}, the server answered about task {}",
                        cut(&state.task.id, 100),
                        cut(&polled.task.id, 100)
                    ),
                ));
            }
            state = polled;
            from_get = true;
        }
    }

    /// 2025-11-25: the task's result from `tasks/result`: a `tools/call` result (a tool
    /// error included), or the JSON-RPC error the request ended with as a failed task. Either
    /// way the task ended on the server.
    async fn fetch_result(
        &self,
        task: &Task,
        guard: &mut CancelOnDrop<'_>,
    ) -> Result<Value, Error> {
        let reply = self.request("tasks/result", task, Map::new(), guard).await;
        if let Ok(_) | Err(Error::Request(RequestError::Task { .. })) = &reply {
            guard.armed = false;
        }
        reply
    }

    /// 2026-07-28: answers the task's `inputRequests` not answered yet with `tasks/update`:
    /// each `elicitation/create` by the connection's elicitation handler.
    ///
    /// # Errors
    /// [`RequestError::Task`] naming the requests this client cannot answer (another method,
    /// or no handler; the first five, and how many more), and the errors of `tasks/update`.
    async fn answer(
        &self,
        state: &TaskState,
        answered: &mut HashSet<String>,
        guard: &mut CancelOnDrop<'_>,
    ) -> Result<(), Error> {
        let mut responses = Map::new();
        let mut unanswerable = Vec::new();
        for (key, request) in &state.input_requests {
            if answered.contains(key) {
                continue;
            }
            let method = request.get("method").and_then(Value::as_str);
            match (method, self.client.elicitation()) {
                (Some("elicitation/create"), Some(handler)) => {
                    let params = request.get("params").unwrap_or(&Value::Null);
                    responses.insert(key.clone(), handler.answer(params));
                }
                _ => unanswerable.push(format!(
                    "{}: {}",
                    cut(key, 100),
                    cut(method.unwrap_or("(no method)"), 100)
                )),
            }
        }
        if !unanswerable.is_empty() {
            let more = unanswerable.len().saturating_sub(MAX_LISTED);
            unanswerable.truncate(MAX_LISTED);
            let mut listed = unanswerable.join("; ");
            if more > 0 {
                listed.push_str(&format!("; and {more} more"));
            }
            return Err(task_error(
                &state.task,
                format!(
                    "needs input this client cannot give: {listed} (an `elicitation/create` is \
                     answered by ConnectConfig::with_elicitation; other requests are not)"
                ),
            ));
        }
        if responses.is_empty() {
            // Everything asked was answered; the server has not caught up yet.
            return self
                .sleep(poll_delay(
                    state.task.poll_interval,
                    noise(&state.task.id, u64::MAX),
                ))
                .await;
        }
        answered.extend(responses.keys().cloned());
        let mut extra = Map::new();
        extra.insert("inputResponses".to_owned(), Value::Object(responses));
        self.request("tasks/update", &state.task, extra, guard)
            .await?;
        Ok(())
    }

    /// Sends a `tasks/*` request for `task`, bounded by the request timeout and the rest of
    /// the call's deadline (`tasks/result`, which blocks while the task works, by the deadline
    /// alone). The deadline's expiry is the call's timeout; a request timeout names the
    /// method. A JSON-RPC error is a [`RequestError::Task`] naming the method: `-32602` means
    /// the server no longer knows the task (`guard` disarmed: nothing to cancel); an error of
    /// `tasks/result` is the error the task failed with.
    async fn request(
        &self,
        method: &str,
        task: &Task,
        extra: Map<String, Value>,
        guard: &mut CancelOnDrop<'_>,
    ) -> Result<Value, Error> {
        let left = self.left()?;
        let request_timeout = self.client.request_timeout();
        let bound = if method == "tasks/result" {
            left
        } else {
            left.min(request_timeout)
        };
        let reply = self
            .client
            .task_request(method, &task.id, self.dialect, extra, self.cancel, bound)
            .await;
        match reply {
            Err(Error::Request(RequestError::Timeout { .. })) if bound == left => {
                Err(self.timed_out())
            }
            Err(Error::Request(RequestError::Timeout { .. })) => {
                Err(Error::Request(RequestError::Timeout {
                    method: method.to_owned(),
                    timeout: request_timeout,
                    per_call: false,
                }))
            }
            Err(Error::Request(RequestError::Rpc { code, message, .. })) => {
                let message = cut(&message, 200);
                if method == "tasks/result" {
                    // The error the task failed with: the task ended, whatever it said last.
                    let mut failed = task.clone();
                    failed.status = TaskStatus::Failed;
                    return Err(task_error(
                        &failed,
                        format!("failed: MCP error {code}: {message}"),
                    ));
                }
                let reason = if code == -32602 {
                    guard.armed = false;
                    format!(
                        "is gone from the server: {method} answered MCP error {code}: {message}"
                    )
                } else {
                    format!("{method} answered MCP error {code}: {message}")
                };
                Err(task_error(task, reason))
            }
            other => other,
        }
    }

    /// Waits `delay` (at most until the deadline), ended by the call's cancellation.
    async fn sleep(&self, delay: std::time::Duration) -> Result<(), Error> {
        let left = self.left()?;
        let cancelled = async {
            match self.cancel {
                Some(token) => token.cancelled().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            biased;
            () = cancelled => Err(Error::Request(RequestError::Cancelled {
                method: "tools/call".to_owned(),
            })),
            () = tokio::time::sleep(delay.min(left)) => {
                if delay >= left { Err(self.timed_out()) } else { Ok(()) }
            }
        }
    }

    /// What is left of the call's deadline; the call's timeout when nothing is.
    fn left(&self) -> Result<std::time::Duration, Error> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            Err(self.timed_out())
        } else {
            Ok(left)
        }
    }

    fn timed_out(&self) -> Error {
        Error::Request(RequestError::Timeout {
            method: "tools/call".to_owned(),
            timeout: self.timeout,
            per_call: self.per_call,
        })
    }
}

/// A [`RequestError::Task`] for `task` with `reason`.
fn task_error(task: &Task, reason: String) -> Error {
    Error::Request(RequestError::Task {
        task_id: cut(&task.id, 100),
        status: cut(task.status.as_str(), 100),
        status_message: task.status_message.as_deref().map(|m| cut(m, 200)),
        reason,
    })
}

/// `MCP error <code>: <message>` of a failed task's JSON-RPC `error` object, read as every
/// JSON-RPC error is ([`framing::rpc_failure`]), the message cut to 500 characters.
fn rpc_text(error: &Value) -> String {
    let failure = framing::rpc_failure(error.clone());
    format!("MCP error {}: {}", failure.code, cut(&failure.message, 500))
}

/// A number for the poll's jitter: the task id and the poll's number hashed with a key
/// std draws at random per process, so clients polling one server spread out.
fn noise(task_id: &str, poll: u64) -> u64 {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write(task_id.as_bytes());
    hasher.write_u64(poll);
    hasher.finish()
}
