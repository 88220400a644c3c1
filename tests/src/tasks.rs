//! The `tasks` mode: tools answered with tasks of the MCP 2026-07-28 tasks extension
//! (`io.modelcontextprotocol/tasks`), run by rmcp's `TaskManager`, over stdio and HTTP.
//!
//! | tool | the task |
//! |---|---|
//! | `count {steps?}` | `steps` (default 3) steps of 150 ms, status message `step <n> of <steps>`, then text `Counted to <steps> in a task` |
//! | `fail_job` | fails with the JSON-RPC error -32603 `the job failed` |
//! | `tool_error` | completes with an `isError` result, text `the tool failed in a task` |
//! | `ask_name` | waits for the input `name` (an `elicitation/create` asking for `name`), then text `Hello, <name>!` |
//! | `ask_roots` | waits for the input `roots` (a `roots/list`), which a client may not answer |
//! | `forever` | works until cancelled; a cancelled task is counted |
//! | `cancelled_tasks` | (no task) text: how many tasks were cancelled on this server |
//! | `task_gets` | (no task) text: how many `tasks/get` this server answered |
//! | `echo {message}` | (no task) text `Echo: <message>` |
//!
//! The server advertises the extension; rmcp refuses to answer with a task a request that
//! does not declare it (-32021), so each task tool answers such a request directly: text
//! `no task: <tool>`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ContentBlock,
    CreateTaskResult, GetTaskParams, GetTaskResult, Implementation, InputRequest, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool, UpdateTaskParams,
};
use rmcp::service::RequestContext;
use rmcp::task_manager::{TaskExit, TaskFuture, TaskManager, TaskOptions};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};

/// The poll interval the tasks ask for (ms): short, so tests poll several times quickly.
pub const TASK_POLL_INTERVAL_MS: u64 = 100;

/// The server of the `tasks` mode.
#[derive(Clone, Default)]
pub struct TasksServer {
    tasks: TaskManager,
    cancelled: Arc<AtomicU64>,
    gets: Arc<AtomicU64>,
}

impl std::fmt::Debug for TasksServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TasksServer")
            .field("cancelled", &self.cancelled.load(Ordering::SeqCst))
            .finish_non_exhaustive()
    }
}

impl TasksServer {
    /// A server with no task yet.
    pub fn new() -> Self {
        Self::default()
    }

    fn task_tools() -> [(&'static str, &'static str); 6] {
        [
            ("count", "Counts `steps` steps of 150 ms in a task"),
            ("fail_job", "A task that fails with a JSON-RPC error"),
            ("tool_error", "A task that completes with an isError result"),
            ("ask_name", "A task that asks for a name, then greets"),
            ("ask_roots", "A task that asks for the client's roots"),
            ("forever", "A task that works until cancelled"),
        ]
    }

    /// The operation of the task tool `name`, or `None` for another name.
    fn operation(
        &self,
        name: &str,
        steps: u64,
    ) -> Option<impl FnOnce(rmcp::task_manager::TaskContext) -> TaskFuture + use<>> {
        let name = name.to_owned();
        let cancelled = Arc::clone(&self.cancelled);
        Self::task_tools()
            .iter()
            .any(|(tool, _)| *tool == name)
            .then_some(
                move |context: rmcp::task_manager::TaskContext| -> TaskFuture {
                    Box::pin(async move {
                        let result = run(&name, steps, context).await;
                        if matches!(result, Err(TaskExit::Cancelled)) {
                            cancelled.fetch_add(1, Ordering::SeqCst);
                        }
                        result
                    })
                },
            )
    }
}

/// The operation of the task tool `name`.
async fn run(
    name: &str,
    steps: u64,
    context: rmcp::task_manager::TaskContext,
) -> Result<CallToolResult, TaskExit> {
    let text = |t: String| CallToolResult::success(vec![ContentBlock::text(t)]);
    match name {
        "count" => {
            for step in 1..=steps {
                context.set_status_message(format!("step {step} of {steps}"));
                tokio::select! {
                    () = tokio::time::sleep(Duration::from_millis(150)) => {}
                    () = context.cancelled() => return Err(TaskExit::Cancelled),
                }
            }
            Ok(text(format!("Counted to {steps} in a task")))
        }
        "fail_job" => Err(TaskExit::Error(ErrorData::internal_error(
            "the job failed",
            None,
        ))),
        "tool_error" => Ok(CallToolResult::error(vec![ContentBlock::text(
            "the tool failed in a task",
        )])),
        "ask_name" => {
            let request = input_request(json!({
                "method": "elicitation/create",
                "params": {
                    "message": "Your name?",
                    "requestedSchema": {"type": "object", "properties": {
                        "name": {"type": "string", "default": "Ada"}
                    }, "required": ["name"]}
                }
            }))?;
            let answer = context.request_input("name", request).await?;
            let who = answer
                .pointer("/content/name")
                .and_then(Value::as_str)
                .unwrap_or("nobody");
            Ok(text(format!("Hello, {who}!")))
        }
        "ask_roots" => {
            let request = input_request(json!({"method": "roots/list"}))?;
            context.request_input("roots", request).await?;
            Ok(text("got the roots".to_owned()))
        }
        _ => {
            context.set_status_message("working forever");
            context.cancelled().await;
            Err(TaskExit::Cancelled)
        }
    }
}

/// An `InputRequest` from its JSON form.
fn input_request(request: Value) -> Result<InputRequest, TaskExit> {
    serde_json::from_value(request)
        .map_err(|e| TaskExit::Error(ErrorData::internal_error(e.to_string(), None)))
}

impl ServerHandler for TasksServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tasks()
                .build(),
        )
        .with_server_info(Implementation::new(
            crate::SERVER_NAME,
            env!("CARGO_PKG_VERSION"),
        ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut tools = Vec::new();
        for (name, description) in Self::task_tools() {
            tools.push(
                json!({"name": name, "description": description, "inputSchema": {
                    "type": "object", "properties": {"steps": {"type": "integer", "minimum": 1}}
                }}),
            );
        }
        tools.push(
            json!({"name": "cancelled_tasks", "description": "How many tasks were cancelled",
            "inputSchema": {"type": "object", "properties": {}}}),
        );
        tools.push(
            json!({"name": "echo", "description": "Echoes the message back",
            "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}}}),
        );
        let tools = tools
            .into_iter()
            .map(serde_json::from_value::<Tool>)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let argument = |key: &str| request.arguments.as_ref().and_then(|a| a.get(key)).cloned();
        match request.name.as_ref() {
            "echo" => {
                let message = argument("message").and_then(|m| m.as_str().map(str::to_owned));
                return Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                    "Echo: {}",
                    message.unwrap_or_default()
                ))])
                .into());
            }
            "cancelled_tasks" | "task_gets" => {
                let counter = if request.name == "task_gets" {
                    &self.gets
                } else {
                    &self.cancelled
                };
                let count = counter.load(Ordering::SeqCst);
                return Ok(
                    CallToolResult::success(vec![ContentBlock::text(count.to_string())]).into(),
                );
            }
            _ => {}
        }
        let steps = argument("steps").and_then(|s| s.as_u64()).unwrap_or(3);
        let Some(operation) = self.operation(&request.name, steps) else {
            return Err(ErrorData::invalid_params(
                format!("unknown tool: {}", request.name),
                None,
            ));
        };
        if !declares_tasks(&context) {
            return Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                "no task: {}",
                request.name
            ))])
            .into());
        }
        let options = TaskOptions::new()
            .with_poll_interval_ms(TASK_POLL_INTERVAL_MS)
            .with_status_message("started");
        let task = self.tasks.spawn(options, operation);
        Ok(CallToolResponse::Task(CreateTaskResult::new(task)))
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.gets.fetch_add(1, Ordering::SeqCst);
        self.tasks
            .get_task(&request.task_id)
            .map(GetTaskResult::new)
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks
            .update_task(&request.task_id, request.input_responses)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks.cancel_task(&request.task_id)
    }
}

/// Whether the request declared the tasks extension in its client context.
fn declares_tasks(context: &RequestContext<RoleServer>) -> bool {
    let meta = serde_json::to_value(&context.meta).unwrap_or(Value::Null);
    meta.pointer("/io.modelcontextprotocol~1clientCapabilities/extensions")
        .and_then(|e| e.get(rmcp::model::TASKS_EXTENSION_ID))
        .is_some()
}
