//! The `tasks-2025` mode (raw, stdio): MCP 2025-11-25's experimental tasks, written line by
//! line as that revision's schema has them, for the client's other task dialect.
//!
//! `initialize` answers `2025-11-25` with `capabilities.tasks` (`list`, `cancel`,
//! `requests.tools.call`). Tools:
//!
//! | tool | `execution.taskSupport` | the task |
//! |---|---|---|
//! | `research {steps?}` | `required` | `steps` (default 3) steps of 100 ms, status message `step <n> of <steps>`; result text `Researched in <steps> steps` |
//! | `clarify` | `required` | `input_required` at once; during `tasks/result` the server asks `elicitation/create` for `topic`, then text `Clarified: <topic>` |
//! | `fail_job` | `required` | `failed`; `tasks/result` answers the JSON-RPC error -32603 `the job failed` |
//! | `wrong_id` | `required` | `working`; `tasks/get` answers about another task, `other-task` |
//! | `forever` | `optional` | `working` until `tasks/cancel` |
//! | `cancelled_tasks` | — | text: how many tasks `tasks/cancel` cancelled |
//! | `task_gets` | — | text: how many `tasks/get` the server answered |
//!
//! A `tools/call` of a `required` tool without `params.task` gets -32601 (the revision's
//! "Servers MUST return a -32601 (Method not found) error"), one of an `optional` tool
//! without it is answered directly (text `no task: forever`). Answers to `tasks/get` and
//! `tasks/cancel` are the task's members, flat (`GetTaskResult = Result & Task`); the
//! answer to `tools/call` nests them under `task` (`CreateTaskResult`); the `tasks/result`
//! answer carries `_meta["io.modelcontextprotocol/related-task"]`.

use std::collections::HashMap;
use std::io::Write;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The poll interval the tasks ask for (ms).
pub const POLL_INTERVAL_MS: u64 = 100;

/// The `_meta` key naming the task a message belongs to.
const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

struct Task {
    tool: String,
    steps: u64,
    started: Instant,
    cancelled: bool,
}

/// The tasks of one session.
#[derive(Default)]
pub(crate) struct Tasks {
    tasks: HashMap<String, Task>,
    cancelled: u64,
    gets: u64,
}

/// A JSON-RPC answer: a result, or an error's code and message.
pub(crate) type Answer = Result<Value, (i64, String)>;

impl Tasks {
    /// The answer to `method` with `params`, or `None` for a method this mode leaves to the
    /// raw server (`ping`). `lines` and `out` serve the elicitation of `clarify`.
    pub(crate) fn answer(
        &mut self,
        method: &str,
        params: &Value,
        lines: &mut impl Iterator<Item = std::io::Result<String>>,
        out: &mut impl Write,
    ) -> std::io::Result<Option<Answer>> {
        let task_id = params
            .get("taskId")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        Ok(Some(match method {
            "initialize" => Ok(json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}, "tasks": {
                    "list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}
                }},
                "serverInfo": {"name": "oma-mcp-test-server-tasks-2025", "version": "1.0.0"}
            })),
            "tools/list" => Ok(json!({"tools": tools()})),
            "tools/call" => self.call(params),
            "tasks/get" => {
                self.gets += 1;
                let answer = self.members(&task_id);
                match self.tasks.get(&task_id) {
                    Some(task) if task.tool == "wrong_id" => answer.map(|mut members| {
                        members["taskId"] = json!("other-task");
                        members
                    }),
                    _ => answer,
                }
            }
            "tasks/cancel" => match self.tasks.get_mut(&task_id) {
                Some(task) if !matches!(status(task).0, "completed" | "failed" | "cancelled") => {
                    task.cancelled = true;
                    self.cancelled += 1;
                    self.members(&task_id)
                }
                Some(_) => Err((
                    -32602,
                    "Cannot cancel a task in a terminal status".to_owned(),
                )),
                None => Err((-32602, "Failed to retrieve task: Task not found".to_owned())),
            },
            "tasks/result" => self.result(&task_id, lines, out)?,
            _ => return Ok(None),
        }))
    }

    fn call(&mut self, params: &Value) -> Answer {
        let name = params.get("name").and_then(Value::as_str).unwrap_or("");
        if name == "cancelled_tasks" {
            return Ok(text(&self.cancelled.to_string()));
        }
        if name == "task_gets" {
            return Ok(text(&self.gets.to_string()));
        }
        if params.get("task").is_none() {
            return if name == "forever" {
                Ok(text(&format!("no task: {name}")))
            } else {
                Err((-32601, format!("Tool {name} requires task augmentation")))
            };
        }
        let steps = params
            .pointer("/arguments/steps")
            .and_then(Value::as_u64)
            .unwrap_or(3);
        let id = format!("task-{}", self.tasks.len() + 1);
        self.tasks.insert(
            id.clone(),
            Task {
                tool: name.to_owned(),
                steps,
                started: Instant::now(),
                cancelled: false,
            },
        );
        let members = self.members(&id).unwrap_or(Value::Null);
        Ok(json!({"task": members}))
    }

    /// The task's members (`Task`), as `tasks/get` and `tasks/cancel` answer them.
    fn members(&self, id: &str) -> Answer {
        let task = self
            .tasks
            .get(id)
            .ok_or((-32602, "Failed to retrieve task: Task not found".to_owned()))?;
        let (status, message) = status(task);
        let mut members = json!({
            "taskId": id, "status": status,
            "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:30:00Z",
            "ttl": 60000, "pollInterval": POLL_INTERVAL_MS
        });
        if let Some(message) = message {
            members["statusMessage"] = json!(message);
        }
        Ok(members)
    }

    /// `tasks/result`: waits until the task ends (`clarify` asks its question first) and
    /// answers its result, or the error it failed with.
    fn result(
        &mut self,
        id: &str,
        lines: &mut impl Iterator<Item = std::io::Result<String>>,
        out: &mut impl Write,
    ) -> std::io::Result<Answer> {
        let Some(task) = self.tasks.get(id) else {
            return Ok(Err((
                -32602,
                "Failed to retrieve task: Task not found".to_owned(),
            )));
        };
        let related = json!({RELATED_TASK: {"taskId": id}});
        let result = match task.tool.as_str() {
            "research" => {
                let done = task.started + step() * u32::try_from(task.steps).unwrap_or(u32::MAX);
                std::thread::sleep(done.saturating_duration_since(Instant::now()));
                text(&format!("Researched in {} steps", task.steps))
            }
            "clarify" => {
                let topic = elicit(id, lines, out)?;
                text(&format!("Clarified: {topic}"))
            }
            "fail_job" => return Ok(Err((-32603, "the job failed".to_owned()))),
            _ => return Ok(Err((-32603, "the task never ends".to_owned()))),
        };
        let mut result = result;
        result["_meta"] = related;
        Ok(Ok(result))
    }
}

/// One step of `research`.
fn step() -> Duration {
    Duration::from_millis(100)
}

/// A task's status and status message now.
fn status(task: &Task) -> (&'static str, Option<String>) {
    if task.cancelled {
        return ("cancelled", None);
    }
    match task.tool.as_str() {
        "research" => {
            let elapsed = task.started.elapsed().as_millis() / step().as_millis();
            let elapsed = u64::try_from(elapsed).unwrap_or(u64::MAX);
            if elapsed >= task.steps {
                (
                    "completed",
                    Some(format!("step {} of {}", task.steps, task.steps)),
                )
            } else {
                (
                    "working",
                    Some(format!("step {} of {}", elapsed + 1, task.steps)),
                )
            }
        }
        "clarify" => ("input_required", Some("Which topic?".to_owned())),
        "fail_job" => ("failed", Some("the job failed".to_owned())),
        _ => ("working", Some("working forever".to_owned())),
    }
}

/// Sends `elicitation/create` for `topic` with the related task and reads the client's
/// answer; the topic accepted, or `(declined)`.
fn elicit(
    task_id: &str,
    lines: &mut impl Iterator<Item = std::io::Result<String>>,
    out: &mut impl Write,
) -> std::io::Result<String> {
    let request = json!({"jsonrpc": "2.0", "id": "s-elicit", "method": "elicitation/create",
    "params": {
        "message": "Which topic?",
        "requestedSchema": {"type": "object", "properties": {
            "topic": {"type": "string", "default": "tasks"}
        }, "required": ["topic"]},
        "_meta": {RELATED_TASK: {"taskId": task_id}}
    }});
    crate::raw::send(out, &request)?;
    for line in lines {
        let Ok(msg) = serde_json::from_str::<Value>(&line?) else {
            continue;
        };
        if msg.get("id").and_then(Value::as_str) == Some("s-elicit") {
            return Ok(msg
                .pointer("/result/content/topic")
                .and_then(Value::as_str)
                .unwrap_or("(declined)")
                .to_owned());
        }
    }
    Ok("(no answer)".to_owned())
}

fn text(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}]})
}

fn tools() -> Value {
    let tool = |name: &str, support: &str| {
        json!({"name": name, "description": format!("A {support} task tool"),
            "inputSchema": {"type": "object", "properties": {"steps": {"type": "integer"}}},
            "execution": {"taskSupport": support}})
    };
    json!([
        tool("research", "required"),
        tool("clarify", "required"),
        tool("fail_job", "required"),
        tool("wrong_id", "required"),
        tool("forever", "optional"),
        {"name": "cancelled_tasks", "description": "How many tasks were cancelled",
         "inputSchema": {"type": "object", "properties": {}}},
        {"name": "task_gets", "description": "How many tasks/get were answered",
         "inputSchema": {"type": "object", "properties": {}}}
    ])
}
