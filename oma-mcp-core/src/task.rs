//! Task-backed `tools/call`s: the pure rules of MCP tasks in the two revisions that have them,
//! which oma-mcp-runtime's calls follow to drive a task to its result.
//!
//! - **MCP 2025-11-25, the experimental tasks utility.** A tool's `execution.taskSupport`
//!   (`"forbidden"`, the default, `"optional"` or `"required"`) says whether a call may or must
//!   ask for a task. The client asks with `params.task` (`{"ttl": ms}`) where the server's
//!   capabilities have `tasks.requests.tools.call`; the server answers `{"task": {…}}`; the
//!   client polls `tasks/get`, fetches the result with `tasks/result` (which blocks while the
//!   task works; the server's requests for input arrive meanwhile) and cancels with
//!   `tasks/cancel`.
//! - **MCP 2026-07-28, the `io.modelcontextprotocol/tasks` extension.** The client declares the
//!   extension in each request's `_meta["io.modelcontextprotocol/clientCapabilities"]`; the
//!   server alone decides to answer with a task (`"resultType": "task"`, the task's members
//!   flat); `tasks/get` carries the `result`, the `error` or the `inputRequests` inline;
//!   `tasks/update` answers the input requests; `tasks/cancel` cancels. Tools have no
//!   `execution` member in this revision.
//!
//! Both forms have the same task: an id, a status (`working`, `input_required`, `completed`,
//! `failed`, `cancelled`), an optional status message, and the server's hints, the poll
//! interval (`pollInterval`, `pollIntervalMs` in 2026-07-28) and the time to live (`ttl`,
//! `ttlMs`), both in milliseconds.
//!
//! ```
//! use oma_mcp_core::task::{Task, TaskDialect, TaskStatus, TaskSupport};
//! use serde_json::json;
//!
//! let tool = json!({"name": "research", "execution": {"taskSupport": "required"}});
//! let support = TaskSupport::of(&tool);
//! assert_eq!(support, TaskSupport::Required);
//! let server = json!({"tasks": {"requests": {"tools": {"call": {}}}}});
//! let dialect = TaskDialect::for_call("2025-11-25", Some(&server), support);
//! assert_eq!(dialect, Some(TaskDialect::Experimental));
//!
//! let created = json!({"task": {"taskId": "t-1", "status": "working", "pollInterval": 1000}});
//! let task = Task::started(&created, TaskDialect::Experimental).unwrap().unwrap();
//! assert_eq!((task.id.as_str(), &task.status), ("t-1", &TaskStatus::Working));
//! ```

use std::time::Duration;

use serde_json::{Map, Value};

use crate::quote::cut;

/// The identifier of the MCP 2026-07-28 tasks extension: the key a client declares under
/// `_meta["io.modelcontextprotocol/clientCapabilities"].extensions` and a server advertises
/// under `capabilities.extensions`.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The first revision whose tasks are the extension ([`TaskDialect::Extension`]).
const EXTENSION_REVISION: &str = "2026-07-28";

/// The first revision with the experimental tasks utility ([`TaskDialect::Experimental`]).
const EXPERIMENTAL_REVISION: &str = "2025-11-25";

/// The shortest wait between two `tasks/get` polls, whatever the server's hint: 100 ms.
pub const MIN_POLL_INTERVAL: Duration = Duration::from_millis(100);

/// The longest wait between two polls, whatever the server's hint: 30 s (a server that asks
/// for more is polled at this pace; a call's timeout still bounds the whole task).
pub const MAX_POLL_INTERVAL: Duration = Duration::from_secs(30);

/// The wait between polls when the server gives no hint: 1 s, as the TypeScript SDK and rmcp
/// use.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(1);

/// A tool's `execution.taskSupport` (MCP 2025-11-25): whether a call of it may or must be
/// answered with a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TaskSupport {
    /// `"forbidden"`, the default (also when `execution` or `taskSupport` is absent, or an
    /// unknown value): the client must not ask for a task.
    #[default]
    Forbidden,
    /// `"optional"`: the client may ask for a task.
    Optional,
    /// `"required"`: the client must ask for a task; the server refuses a call without one.
    Required,
}

impl TaskSupport {
    /// The task support of a `tools/list` tool descriptor, from `execution.taskSupport`.
    pub fn of(descriptor: &Value) -> Self {
        match descriptor
            .pointer("/execution/taskSupport")
            .and_then(Value::as_str)
        {
            Some("optional") => TaskSupport::Optional,
            Some("required") => TaskSupport::Required,
            _ => TaskSupport::Forbidden,
        }
    }

    /// The wire value: `"forbidden"`, `"optional"` or `"required"`.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Forbidden => "forbidden",
            TaskSupport::Optional => "optional",
            TaskSupport::Required => "required",
        }
    }
}

/// How a call asks for a task: the form of the negotiated revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TaskDialect {
    /// MCP 2025-11-25's experimental tasks: `params.task` on the request, a nested `task` in
    /// the answer, `tasks/result` for the result.
    Experimental,
    /// MCP 2026-07-28's `io.modelcontextprotocol/tasks` extension: declared in the request's
    /// `_meta`, a flat task with `"resultType": "task"` in the answer, the result inline in
    /// `tasks/get`, input answered with `tasks/update`.
    Extension,
}

impl TaskDialect {
    /// Whether, and how, a `tools/call` of a tool with `support` asks for a task, given the
    /// negotiated `protocol_version` and the server's `capabilities`:
    ///
    /// - 2026-07-28 and later: [`TaskDialect::Extension`] when the server advertises
    ///   [`TASKS_EXTENSION`] under `capabilities.extensions` (the server then decides; the
    ///   client must take a task or a plain result), and for a `required` tool whatever the
    ///   server advertises, since it would refuse the call otherwise (declaring is harmless).
    /// - 2025-11-25: [`TaskDialect::Experimental`] for a `required` or `optional` tool when
    ///   the server's capabilities have `tasks.requests.tools.call`; without it "clients MUST
    ///   NOT attempt to use task augmentation", whatever the tool says (MCP 2025-11-25,
    ///   "Tasks"), so a `required` tool is then called directly and the server's refusal is
    ///   the call's error.
    /// - Earlier revisions: `None`.
    pub fn for_call(
        protocol_version: &str,
        capabilities: Option<&Value>,
        support: TaskSupport,
    ) -> Option<Self> {
        let has = |pointer: &str| capabilities.and_then(|c| c.pointer(pointer)).is_some();
        // Revisions are dates (YYYY-MM-DD), so their order is the strings' order.
        if protocol_version >= EXTENSION_REVISION {
            let advertised = capabilities
                .and_then(|c| c.get("extensions"))
                .and_then(|e| e.get(TASKS_EXTENSION))
                .is_some();
            (advertised || support == TaskSupport::Required).then_some(TaskDialect::Extension)
        } else if protocol_version >= EXPERIMENTAL_REVISION {
            let asks = support != TaskSupport::Forbidden && has("/tasks/requests/tools/call");
            asks.then_some(TaskDialect::Experimental)
        } else {
            None
        }
    }

    /// Whether the server said it accepts `tasks/cancel`: always in 2026-07-28; in
    /// 2025-11-25 when its capabilities have `tasks.cancel`.
    pub fn can_cancel(self, capabilities: Option<&Value>) -> bool {
        match self {
            TaskDialect::Extension => true,
            TaskDialect::Experimental => capabilities
                .and_then(|c| c.pointer("/tasks/cancel"))
                .is_some(),
        }
    }
}

/// A task's status.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TaskStatus {
    /// `"working"`: the request is being processed.
    Working,
    /// `"input_required"`: the server waits for the client's answers to its requests.
    InputRequired,
    /// `"completed"`: the result is ready (it may be a tool error, `isError: true`).
    Completed,
    /// `"failed"`: the task ended without a result (2026-07-28: a JSON-RPC `error`;
    /// 2025-11-25: also a tool result with `isError: true`).
    Failed,
    /// `"cancelled"`: the task was cancelled.
    Cancelled,
    /// A status this client does not know, as sent; treated as still running.
    Other(String),
}

impl TaskStatus {
    /// The status of its wire value.
    pub fn parse(status: &str) -> Self {
        match status {
            "working" => TaskStatus::Working,
            "input_required" => TaskStatus::InputRequired,
            "completed" => TaskStatus::Completed,
            "failed" => TaskStatus::Failed,
            "cancelled" => TaskStatus::Cancelled,
            other => TaskStatus::Other(other.to_owned()),
        }
    }

    /// The wire value (an unknown one as sent).
    pub fn as_str(&self) -> &str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
            TaskStatus::Other(other) => other,
        }
    }

    /// `completed`, `failed` or `cancelled`: the status cannot change any more.
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

impl std::fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A task as a server describes it (a `CreateTaskResult`, a `tasks/get` result, a status
/// notification): its id, status and hints.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Task {
    /// `taskId`.
    pub id: String,
    /// `status`.
    pub status: TaskStatus,
    /// `statusMessage`, when sent.
    pub status_message: Option<String>,
    /// `pollIntervalMs` (2026-07-28) or `pollInterval` (2025-11-25), when sent: how long the
    /// server asks the client to wait between polls.
    pub poll_interval: Option<Duration>,
    /// `ttlMs` or `ttl`, when sent and not `null` (`null` means no limit): how long after its
    /// creation the server keeps the task.
    pub ttl: Option<Duration>,
}

/// A task description that is not one: what is wrong, for the error of the call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TaskShapeError(String);

impl Task {
    /// The task a `tools/call` result started in `dialect`, or `None` when the result is not
    /// a task: in [`TaskDialect::Extension`] a result with `"resultType": "task"` holding the
    /// task's members (MCP 2026-07-28); in [`TaskDialect::Experimental`] a result without
    /// `resultType` whose `task` member is an object holding them (MCP 2025-11-25's
    /// `CreateTaskResult`). A plain result is never a task, whatever the call asked for: both
    /// revisions let a server answer a task request directly.
    ///
    /// # Errors
    /// [`TaskShapeError`] when the result is a task without a string `taskId` or `status`.
    pub fn started(result: &Value, dialect: TaskDialect) -> Option<Result<Task, TaskShapeError>> {
        let result_type = result.get("resultType").and_then(Value::as_str);
        match (dialect, result_type) {
            (TaskDialect::Extension, Some("task")) => Some(Task::from_members(result)),
            (TaskDialect::Experimental, None) => match result.get("task") {
                Some(task @ Value::Object(_)) => Some(Task::from_members(task)),
                _ => None,
            },
            _ => None,
        }
    }

    /// The task of an object holding a task's members (a `tasks/get` result in both
    /// revisions, a 2025-11-25 `tasks/cancel` result, a `notifications/tasks/status`'s
    /// `params`).
    ///
    /// # Errors
    /// [`TaskShapeError`] when `taskId` or `status` is missing or not a string.
    pub fn from_members(members: &Value) -> Result<Task, TaskShapeError> {
        let text = |name: &str| members.get(name).and_then(Value::as_str);
        let id = text("taskId").ok_or_else(|| {
            TaskShapeError(format!(
                "the task has no string `taskId`: {}",
                cut(&members.to_string(), 200)
            ))
        })?;
        let status = text("status").ok_or_else(|| {
            TaskShapeError(format!("the task {} has no string `status`", cut(id, 100)))
        })?;
        let millis = |names: [&str; 2]| {
            names
                .iter()
                .find_map(|name| members.get(*name).and_then(Value::as_f64))
                .filter(|ms| ms.is_finite() && *ms >= 0.0)
                .map(|ms| Duration::from_secs_f64(ms.min(u32::MAX as f64) / 1000.0))
        };
        Ok(Task {
            id: id.to_owned(),
            status: TaskStatus::parse(status),
            status_message: text("statusMessage").map(str::to_owned),
            poll_interval: millis(["pollIntervalMs", "pollInterval"]),
            ttl: millis(["ttlMs", "ttl"]),
        })
    }

    /// `task t-1 (status "working": Analyzing sources)`: the id, status and message, cut
    /// for an error message.
    pub fn describe(&self) -> String {
        match &self.status_message {
            Some(message) => format!(
                "task {} (status \"{}\": {})",
                cut(&self.id, 100),
                self.status,
                cut(message, 200)
            ),
            None => format!("task {} (status \"{}\")", cut(&self.id, 100), self.status),
        }
    }
}

/// What a `tasks/get` answered: the task, and in MCP 2026-07-28 the payload of its status
/// inline (`result` when completed, `error` when failed, `inputRequests` when it waits for
/// input). A 2025-11-25 server sends the task alone (its result comes from `tasks/result`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TaskState {
    /// The task.
    pub task: Task,
    /// `result`: the `tools/call` result of a completed task, raw (a tool error included).
    pub result: Option<Value>,
    /// `error`: the JSON-RPC error object (`code`, `message`, `data`) of a failed task.
    pub error: Option<Value>,
    /// `inputRequests`: key → `{ "method": …, "params": … }`, the requests to answer with
    /// `tasks/update` (empty when absent).
    pub input_requests: Map<String, Value>,
}

impl TaskState {
    /// The state in a `tasks/get` result. Its `resultType` is ignored: the 2026-07-28 schema
    /// says `"complete"`, examples of the same revision show `"task"`.
    ///
    /// # Errors
    /// As [`Task::from_members`].
    pub fn from_get(result: &Value) -> Result<TaskState, TaskShapeError> {
        Ok(TaskState {
            task: Task::from_members(result)?,
            result: result.get("result").filter(|r| r.is_object()).cloned(),
            error: result.get("error").filter(|e| e.is_object()).cloned(),
            input_requests: match result.get("inputRequests") {
                Some(Value::Object(requests)) => requests.clone(),
                _ => Map::new(),
            },
        })
    }
}

/// A task's state without a payload: what a `tools/call` that started it says.
impl From<Task> for TaskState {
    fn from(task: Task) -> Self {
        TaskState {
            task,
            result: None,
            error: None,
            input_requests: Map::new(),
        }
    }
}

/// How long to wait before the next poll: the server's `hint` (or
/// [`DEFAULT_POLL_INTERVAL`]), held between [`MIN_POLL_INTERVAL`] and [`MAX_POLL_INTERVAL`],
/// plus a jitter of 0 to 10 % of it from `noise` (any number; the runtime hashes the task id
/// and the poll's number), so that many clients polling one server spread out. Never shorter
/// than the hint within the bounds: a server may refuse polls that come faster.
pub fn poll_delay(hint: Option<Duration>, noise: u64) -> Duration {
    let base = hint
        .unwrap_or(DEFAULT_POLL_INTERVAL)
        .clamp(MIN_POLL_INTERVAL, MAX_POLL_INTERVAL);
    // 0 to 1000 thousandths of a tenth: 0 % to 10 %.
    base + base.mul_f64((noise % 1001) as f64 / 10_000.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn task_support_of_descriptors() {
        let of = |execution: Value| TaskSupport::of(&json!({"name": "t", "execution": execution}));
        assert_eq!(
            of(json!({"taskSupport": "required"})),
            TaskSupport::Required
        );
        assert_eq!(
            of(json!({"taskSupport": "optional"})),
            TaskSupport::Optional
        );
        assert_eq!(
            of(json!({"taskSupport": "forbidden"})),
            TaskSupport::Forbidden
        );
        assert_eq!(
            of(json!({"taskSupport": "sometimes"})),
            TaskSupport::Forbidden
        );
        assert_eq!(of(json!({})), TaskSupport::Forbidden);
        assert_eq!(
            TaskSupport::of(&json!({"name": "t"})),
            TaskSupport::Forbidden
        );
        assert_eq!(
            [
                TaskSupport::Forbidden,
                TaskSupport::Optional,
                TaskSupport::Required
            ]
            .map(TaskSupport::as_str),
            ["forbidden", "optional", "required"]
        );
    }

    #[test]
    fn which_calls_ask_for_a_task() {
        use TaskSupport::{Forbidden, Optional, Required};
        let offers_2025 = json!({"tasks": {"cancel": {}, "requests": {"tools": {"call": {}}}}});
        let offers_2026 = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
        let ask = |version: &str, caps: Option<&Value>| {
            [Forbidden, Optional, Required].map(|s| TaskDialect::for_call(version, caps, s))
        };
        let x = Some(TaskDialect::Experimental);
        let e = Some(TaskDialect::Extension);
        assert_eq!(ask("2025-11-25", Some(&offers_2025)), [None, x, x]);
        assert_eq!(ask("2025-11-25", None), [None, None, None]);
        assert_eq!(ask("2025-11-25", Some(&offers_2026)), [None, None, None]);
        assert_eq!(ask("2026-07-28", Some(&offers_2026)), [e, e, e]);
        assert_eq!(ask("2026-07-28", Some(&offers_2025)), [None, None, e]);
        assert_eq!(ask("2026-12-01", Some(&offers_2026)), [e, e, e]);
        assert_eq!(ask("2025-06-18", Some(&offers_2025)), [None, None, None]);
        assert!(TaskDialect::Experimental.can_cancel(Some(&offers_2025)));
        assert!(!TaskDialect::Experimental.can_cancel(Some(&json!({"tasks": {}}))));
        assert!(TaskDialect::Extension.can_cancel(None));
    }

    #[test]
    fn started_tasks_in_both_forms() {
        // MCP 2025-11-25, tasks: the `CreateTaskResult` example.
        let nested = json!({"task": {
            "taskId": "786512e2-9e0d-44bd-8f29-789f320fe840",
            "status": "working",
            "statusMessage": "The operation is now in progress.",
            "createdAt": "2025-11-25T10:30:00Z",
            "lastUpdatedAt": "2025-11-25T10:40:00Z",
            "ttl": 60000,
            "pollInterval": 5000
        }});
        let task = Task::started(&nested, TaskDialect::Experimental)
            .unwrap()
            .unwrap();
        assert_eq!(
            task,
            Task {
                id: "786512e2-9e0d-44bd-8f29-789f320fe840".to_owned(),
                status: TaskStatus::Working,
                status_message: Some("The operation is now in progress.".to_owned()),
                poll_interval: Some(Duration::from_secs(5)),
                ttl: Some(Duration::from_secs(60)),
            }
        );
        // MCP 2026-07-28, the tasks extension: flat, `ttlMs` may be null.
        let flat = json!({"resultType": "task", "taskId": "t-2", "status": "working",
            "ttlMs": null, "pollIntervalMs": 250});
        let task = Task::started(&flat, TaskDialect::Extension)
            .unwrap()
            .unwrap();
        assert_eq!(
            (task.id.as_str(), task.poll_interval, task.ttl),
            ("t-2", Some(Duration::from_millis(250)), None)
        );
        // Plain results are never tasks, nor is the other revision's form.
        use TaskDialect::{Experimental, Extension};
        assert_eq!(Task::started(&json!({"content": []}), Experimental), None);
        assert_eq!(Task::started(&json!({"content": []}), Extension), None);
        let vendor = json!({"resultType": "complete", "task": {}});
        assert_eq!(Task::started(&vendor, Experimental), None);
        assert_eq!(
            Task::started(&json!({"content": [], "task": "x"}), Experimental),
            None
        );
        assert_eq!(Task::started(&nested, Extension), None);
        assert_eq!(Task::started(&flat, Experimental), None);
        assert_eq!(
            Task::started(
                &json!({"resultType": "task", "status": "working"}),
                Extension
            ),
            Some(Err(TaskShapeError(
                "the task has no string `taskId`: {\"resultType\":\"task\",\"status\":\"working\"}"
                    .to_owned()
            )))
        );
        assert_eq!(
            Task::started(&json!({"task": {"taskId": "t"}}), Experimental)
                .unwrap()
                .unwrap_err()
                .to_string(),
            "the task t has no string `status`"
        );
    }

    #[test]
    fn statuses_and_descriptions() {
        for (wire, terminal) in [
            ("working", false),
            ("input_required", false),
            ("completed", true),
            ("failed", true),
            ("cancelled", true),
            ("paused", false),
        ] {
            let status = TaskStatus::parse(wire);
            assert_eq!((status.as_str(), status.is_terminal()), (wire, terminal));
        }
        assert_eq!(
            TaskStatus::parse("paused"),
            TaskStatus::Other("paused".to_owned())
        );
        let task = Task::from_members(&json!({"taskId": "t-1", "status": "failed",
            "statusMessage": "rate limited"}))
        .unwrap();
        assert_eq!(
            task.describe(),
            "task t-1 (status \"failed\": rate limited)"
        );
        let task = Task::from_members(&json!({"taskId": "t-1", "status": "working"})).unwrap();
        assert_eq!(task.describe(), "task t-1 (status \"working\")");
    }

    #[test]
    fn task_states_carry_the_inline_payloads() {
        let completed = json!({"resultType": "complete", "taskId": "t", "status": "completed",
            "result": {"content": [{"type": "text", "text": "done"}], "isError": false}});
        let state = TaskState::from_get(&completed).unwrap();
        assert_eq!(state.task.status, TaskStatus::Completed);
        assert_eq!(state.result, completed.get("result").cloned());
        assert_eq!((state.error, state.input_requests.len()), (None, 0));
        let failed = json!({"taskId": "t", "status": "failed",
            "error": {"code": -32603, "message": "boom"}});
        let state = TaskState::from_get(&failed).unwrap();
        assert_eq!(
            state.error,
            Some(json!({"code": -32603, "message": "boom"}))
        );
        let waiting = json!({"taskId": "t", "status": "input_required", "inputRequests": {
            "name": {"method": "elicitation/create", "params": {"message": "Name?"}}}});
        let state = TaskState::from_get(&waiting).unwrap();
        assert_eq!(state.input_requests.keys().collect::<Vec<_>>(), ["name"]);
    }

    #[test]
    fn poll_delays_follow_the_hint_within_bounds_with_jitter() {
        let ms = Duration::from_millis;
        assert_eq!(poll_delay(Some(ms(2000)), 0), ms(2000));
        assert_eq!(poll_delay(Some(ms(2000)), 1000), ms(2200));
        assert_eq!(poll_delay(Some(ms(2000)), 1001), ms(2000));
        assert_eq!(poll_delay(Some(ms(2000)), 500), ms(2100));
        assert_eq!(poll_delay(None, 0), DEFAULT_POLL_INTERVAL);
        assert_eq!(poll_delay(Some(ms(1)), 0), MIN_POLL_INTERVAL);
        assert_eq!(
            poll_delay(Some(Duration::from_secs(600)), 0),
            MAX_POLL_INTERVAL
        );
        assert_eq!(poll_delay(Some(Duration::from_secs(600)), 1000), ms(33_000));
        // A zero or absurd hint from a task's members stays within the bounds too.
        let task = Task::from_members(&json!({"taskId": "t", "status": "working",
            "pollInterval": 1e300}))
        .unwrap();
        assert_eq!(poll_delay(task.poll_interval, 0), MAX_POLL_INTERVAL);
        let task = Task::from_members(&json!({"taskId": "t", "status": "working",
            "pollInterval": -5}))
        .unwrap();
        assert_eq!(task.poll_interval, None);
    }
}
