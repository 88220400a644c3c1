//! Task-backed calls through every ending: the own test server's `tasks` mode (the MCP
//! 2026-07-28 tasks extension, rmcp's task manager) over stdio and streamable HTTP, and the
//! pinned server-everything's `simulate-research-query` (MCP 2025-11-25 tasks,
//! `taskSupport: "required"`) over stdio and streamable HTTP.

use std::time::Duration;

use oma_mcp_runtime::connect::Lifecycle;
use oma_mcp_runtime::error::RequestError;
use oma_mcp_runtime::{
    CallOutcome, CancellationToken, ConnectConfig, Error, McpClient, Progress, connect_mcp_tools,
};
use oma_mcp_test_support::HttpServer;
use serde_json::{Value, json};

use crate::{args, everything_config, everything_http, own, own_http};

/// The task's statuses a call reported, as `(status, status message)`, deduplicated.
fn statuses(seen: &[Progress]) -> Vec<(String, Option<String>)> {
    seen.iter()
        .filter_map(|p| {
            p.task
                .as_ref()
                .map(|t| (t.status.as_str().to_owned(), t.status_message.clone()))
        })
        .collect()
}

/// `config` with an elicitation handler that accepts every default of the requested schema.
fn accepting_defaults(config: ConnectConfig) -> ConnectConfig {
    config.with_elicitation(oma_mcp_runtime::connect::Elicitation::new(
        oma_mcp_runtime::connect::accept_defaults,
    ))
}

/// The raw result of a call of `tool` with `arguments`, and the task statuses it reported
/// ([`statuses`]).
async fn raw_with_statuses(
    client: &McpClient,
    tool: &str,
    arguments: Value,
) -> (Value, Vec<(String, Option<String>)>) {
    let mut seen = Vec::new();
    let result = client
        .call_tool(tool)
        .arguments(args(arguments))
        .progress(|p| seen.push(p))
        .raw()
        .await
        .unwrap();
    (result, statuses(&seen))
}

/// The own server in the `tasks` mode over stdio, and over HTTP (stateless, 2026-07-28).
async fn task_servers() -> Vec<(&'static str, Option<HttpServer>, McpClient)> {
    let stdio = connect_mcp_tools(own("tasks")).await.unwrap();
    let server = own_http("tasks", &["--stateless"]);
    let http = connect_mcp_tools(
        ConnectConfig::http(server.url()).with_request_timeout(Duration::from_secs(20)),
    )
    .await
    .unwrap();
    vec![("stdio", None, stdio), ("http", Some(server), http)]
}

/// How many tasks the server saw cancelled (its `cancelled_tasks` tool), once it reaches
/// `at_least` or after 5 s.
async fn cancelled_tasks(client: &McpClient, at_least: u64) -> u64 {
    let mut last = 0;
    for _ in 0..250 {
        last = client
            .call_tool("cancelled_tasks")
            .mapped()
            .await
            .data
            .parse()
            .unwrap();
        if last >= at_least {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    last
}

/// A token that is cancelled `after` from now.
fn cancelled_after(after: Duration) -> CancellationToken {
    let token = CancellationToken::new();
    let cancel = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(after).await;
        cancel.cancel();
    });
    token
}

/// A task that completes after several polls ends every ending as a direct result would,
/// its statuses reaching the progress callback in order.
#[tokio::test]
async fn a_task_completes_after_several_polls_through_every_ending() {
    for (transport, _server, client) in task_servers().await {
        assert_eq!(client.protocol_version(), "2026-07-28", "{transport}");
        let (result, seen) = raw_with_statuses(&client, "count", json!({"steps": 3})).await;
        assert_eq!(
            result,
            json!({"resultType": "complete", "content": [{"type": "text", "text": "Counted to 3 in a task"}], "isError": false}),
            "{transport}"
        );
        // The first status is the answer to `tools/call`, the last the completed task; the
        // steps between are those the polls met (at 100 ms, steps of 150 ms).
        assert_eq!(
            seen[0],
            ("working".to_owned(), Some("started".to_owned())),
            "{transport}"
        );
        assert_eq!(
            seen.last().unwrap(),
            &("completed".to_owned(), Some("step 3 of 3".to_owned())),
            "{transport}"
        );
        let steps: Vec<_> = seen[1..seen.len() - 1]
            .iter()
            .map(|s| s.1.clone().unwrap())
            .collect();
        assert!(!steps.is_empty(), "{transport}: {seen:?}");
        let mut sorted = steps.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(
            steps, sorted,
            "{transport}: each step once, in order: {seen:?}"
        );

        // GUIDE: begin task-call
        let report = client
            .call_tool("count")
            .arguments(args(json!({"steps": 2})))
            .timeout(Duration::from_secs(60)) // the whole task, polls included
            .progress(|p| {
                if let Some(task) = &p.task {
                    println!("task {} is {}", task.id, task.status);
                }
            })
            .mapped()
            .await;
        // GUIDE: end
        assert_eq!(report.data, "Counted to 2 in a task", "{transport}");

        let mapped = client
            .call_tool("count")
            .arguments(args(json!({"steps": 1})))
            .mapped()
            .await;
        assert_eq!(
            (mapped.data.as_str(), mapped.is_error),
            ("Counted to 1 in a task", false)
        );
        let outcome = client
            .call_tool("count")
            .arguments(args(json!({"steps": 1})))
            .outcome()
            .await;
        assert_eq!(
            outcome.unwrap(),
            CallOutcome::Complete(json!({
                "resultType": "complete",
                "content": [{"type": "text", "text": "Counted to 1 in a task"}],
                "isError": false
            }))
        );
        // A tool error in a task is a tool error, not a failed call.
        let tool_error = client.call_tool("tool_error").mapped().await;
        assert_eq!(
            (tool_error.data.as_str(), tool_error.is_error),
            ("the tool failed in a task", true),
            "{transport}"
        );
        client.disconnect().await;
    }
}

/// A failed task is an error naming the task, its status and the server's error.
#[tokio::test]
async fn a_failed_task_is_an_error_naming_it() {
    for (transport, _server, client) in task_servers().await {
        let err = client.call_tool("fail_job").raw().await.unwrap_err();
        let Error::Request(RequestError::Task {
            task_id,
            status,
            status_message,
            reason,
            ..
        }) = &err
        else {
            panic!("{transport}: {err:?}");
        };
        assert_eq!(
            (status.as_str(), status_message.as_deref(), reason.as_str()),
            (
                "failed",
                Some("started"),
                "failed: MCP error -32603: the job failed"
            ),
            "{transport}"
        );
        assert_eq!(
            err.to_string(),
            format!(
                "task {task_id} failed: MCP error -32603: the job failed (status \"failed\": started)"
            )
        );
        let mapped = client.call_tool("fail_job").mapped().await;
        assert!(mapped.is_error, "{transport}");
        assert!(
            mapped
                .data
                .starts_with("MCP tool \"fail_job\" failed: task ")
                && mapped.data.ends_with(
                    " failed: MCP error -32603: the job failed (status \"failed\": started)"
                ),
            "{transport}: {}",
            mapped.data
        );
        client.disconnect().await;
    }
}

/// A task waiting for input: an `elicitation/create` is answered by the connection's
/// handler with `tasks/update`; without one, or for another request, the call fails naming
/// what was asked, and the task is cancelled on the server.
#[tokio::test]
async fn input_a_task_asks_for_goes_through_the_elicitation_handler() {
    let server = own_http("tasks", &["--stateless"]);
    let configs = [
        ("stdio", own("tasks")),
        (
            "http",
            ConnectConfig::http(server.url()).with_request_timeout(Duration::from_secs(20)),
        ),
    ];
    for (transport, config) in configs {
        let client = connect_mcp_tools(accepting_defaults(config.clone()))
            .await
            .unwrap();
        let mut seen = Vec::new();
        let hello = client
            .call_tool("ask_name")
            .progress(|p| seen.push(p))
            .mapped()
            .await;
        assert_eq!(
            (hello.data.as_str(), hello.is_error),
            ("Hello, Ada!", false),
            "{transport}"
        );
        assert!(
            statuses(&seen).iter().any(|s| s.0 == "input_required"),
            "{transport}: {seen:?}"
        );
        let err = client.call_tool("ask_roots").raw().await.unwrap_err();
        let text = err.to_string();
        assert!(
            text.ends_with(
                " needs input this client cannot give: roots: roots/list (an \
                 `elicitation/create` is answered by ConnectConfig::with_elicitation; other \
                 requests are not) (status \"input_required\": started)"
            ),
            "{transport}: {text}"
        );
        assert_eq!(cancelled_tasks(&client, 1).await, 1, "{transport}");
        client.disconnect().await;

        let client = connect_mcp_tools(config).await.unwrap();
        let err = client.call_tool("ask_name").raw().await.unwrap_err();
        assert!(
            err.to_string()
                .contains(" needs input this client cannot give: name: elicitation/create (an "),
            "{transport}: {err}"
        );
        client.disconnect().await;
    }
}

/// Ends a call of `forever` (a task that runs until cancelled, on a server counting the tasks
/// it saw cancelled) by its timeout, by its cancellation token and by dropping it, and
/// checks after each that the server saw one more task cancelled.
async fn every_early_end_cancels_the_task(client: &McpClient, label: &str) {
    let err = client
        .call_tool("forever")
        .timeout(Duration::from_millis(400))
        .raw()
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "MCP error -32001: Request timed out after 400ms (the call's own timeout)",
        "{label}"
    );
    assert_eq!(
        cancelled_tasks(client, 1).await,
        1,
        "{label}: after the timeout"
    );

    let token = cancelled_after(Duration::from_millis(300));
    let err = client
        .call_tool("forever")
        .cancel_on(&token)
        .raw()
        .await
        .unwrap_err();
    assert!(err.is_cancelled(), "{label}: {err:?}");
    assert_eq!(
        cancelled_tasks(client, 2).await,
        2,
        "{label}: after the cancel"
    );

    let dropped = tokio::time::timeout(
        Duration::from_millis(300),
        client.call_tool("forever").raw(),
    )
    .await;
    assert!(dropped.is_err(), "{label}");
    assert_eq!(
        cancelled_tasks(client, 3).await,
        3,
        "{label}: after the drop"
    );
}

/// A task that outlives its call is cancelled on the server with `tasks/cancel`, whether the
/// call timed out, was cancelled, or was dropped.
#[tokio::test]
async fn a_task_outliving_its_call_is_cancelled_on_the_server() {
    for (transport, _server, client) in task_servers().await {
        every_early_end_cancels_the_task(&client, transport).await;
        client.disconnect().await;
    }
}

/// A 2025-11-25 session (HTTP with `initialize`) does not declare the extension, so the
/// server answers directly; the server never sends a task unasked.
#[tokio::test]
async fn without_the_extension_the_server_answers_directly() {
    let server = own_http("tasks", &[]);
    let client = connect_mcp_tools(
        ConnectConfig::http(server.url())
            .with_lifecycle(Lifecycle::Initialize)
            .with_request_timeout(Duration::from_secs(20)),
    )
    .await
    .unwrap();
    assert_eq!(client.protocol_version(), "2025-11-25");
    let result = client.call_tool("count").mapped().await;
    assert_eq!(
        (result.data.as_str(), result.is_error),
        ("no task: count", false)
    );
    client.disconnect().await;
}

/// The research report server-everything's `simulate-research-query` ends with, for `topic`
/// with `clarification`.
fn research_report(topic: &str, clarification: Option<&str>) -> String {
    let title = match clarification {
        Some(c) => format!("{topic} ({c})"),
        None => topic.to_owned(),
    };
    let clarification_line = match clarification {
        Some(c) => format!("- **Clarification**: {c}"),
        None => String::new(),
    };
    let status = if clarification.is_some() {
        "`working` → `input_required` → `working` → `completed`"
    } else {
        "`working` → `completed`"
    };
    let flow = match clarification {
        Some(c) => format!(
            "**Elicitation Flow:**\nWhen the query was ambiguous, the server sent an \
             `elicitation/create` request\nto the client. The task status changed to \
             `input_required` while awaiting user input.\nAfter receiving clarification \
             (\"{c}\"), the task resumed processing and completed.\n"
        ),
        None => String::new(),
    };
    format!(
        "# Research Report: {title}\n\n## Research Parameters\n- **Topic**: {topic}\n\
         {clarification_line}\n\n## Synthesis\nThis research query was processed through 4 \
         stages:\n- Stage 1: Gathering sources ✓\n- Stage 2: Analyzing content ✓\n- Stage 3: \
         Synthesizing findings ✓\n- Stage 4: Generating report ✓\n\n---\n\n## About This Demo \
         (SEP-1686: Tasks)\n\nThis tool demonstrates MCP's task-based execution pattern for \
         long-running operations:\n\n**Task Lifecycle Demonstrated:**\n1. `tools/call` with \
         `task` parameter → Server returns `CreateTaskResult` (not the final result)\n2. Client \
         polls `tasks/get` → Server returns current status and `statusMessage`\n3. Status \
         progressed: {status}\n4. Client calls `tasks/result` → Server returns this final \
         result\n\n{flow}\n**Key Concepts:**\n- Tasks enable \"call now, fetch later\" patterns\n- \
         `statusMessage` provides human-readable progress updates\n- Tasks have TTL \
         (time-to-live) for automatic cleanup\n- `pollInterval` suggests how often to check \
         status\n- Elicitation requests use `relatedTask` to queue via tasks/result (works on \
         all transports)\n\n*This is a simulated research report from the Everything MCP \
         Server.*\n"
    )
}

/// server-everything's task tool (MCP 2025-11-25, `taskSupport: "required"`): `params.task`
/// sent, `tasks/get` polled at its 1 s interval, `tasks/result` fetched; with `ambiguous`,
/// its `elicitation/create` arrives during `tasks/result` and the connection's handler
/// answers it. Over stdio and streamable HTTP.
#[tokio::test]
async fn server_everything_research_tasks_over_stdio_and_http() {
    let test = "server_everything_research_tasks_over_stdio_and_http";
    let (Some(stdio), Some(server)) = (everything_config(test), everything_http(test)) else {
        return;
    };
    let http = ConnectConfig::http(server.url()).with_request_timeout(Duration::from_secs(20));
    for (transport, config) in [("stdio", stdio), ("http", http)] {
        let client = connect_mcp_tools(accepting_defaults(config)).await.unwrap();
        assert_eq!(client.protocol_version(), "2025-11-25", "{transport}");
        let mut seen = Vec::new();
        let report = client
            .call_tool("simulate-research-query")
            .arguments(args(json!({"topic": "rust"})))
            .progress(|p| seen.push(p))
            .mapped()
            .await;
        assert_eq!(
            (report.data.as_str(), report.is_error),
            (research_report("rust", None).as_str(), false),
            "{transport}"
        );
        let seen = statuses(&seen);
        assert_eq!(seen[0].0, "working", "{transport}: {seen:?}");
        // The stages the polls met (one a second, polled about once a second), in order.
        let stages = [
            "Gathering sources...",
            "Analyzing content...",
            "Synthesizing findings...",
            "Generating report...",
        ];
        let mut met: Vec<usize> = seen
            .iter()
            .filter_map(|s| stages.iter().position(|st| Some(*st) == s.1.as_deref()))
            .collect();
        met.dedup(); // the completed task keeps the last stage's message
        assert!(
            met.len() >= 2 && met.windows(2).all(|w| w[0] < w[1]),
            "{transport}: {seen:?}"
        );

        let ambiguous = client
            .call_tool("simulate-research-query")
            .arguments(args(json!({"topic": "rust", "ambiguous": true})))
            .raw()
            .await
            .unwrap();
        assert_eq!(
            ambiguous["content"][0]["text"],
            Value::String(research_report(
                "rust",
                Some("User accepted without selection")
            )),
            "{transport}"
        );
        client.disconnect().await;
    }
}

/// The own server's `tasks-2025` mode (MCP 2025-11-25's experimental tasks, stdio): a
/// `required` tool polled to its result, a failed task, input asked during `tasks/result`,
/// and an `optional` tool's task cancelled with `tasks/cancel` on timeout, cancel and drop.
#[tokio::test]
async fn experimental_tasks_of_2025_11_25_through_every_ending() {
    let config = own("tasks-2025");
    let client = connect_mcp_tools(accepting_defaults(config.clone()))
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), "2025-11-25");
    let (result, seen) = raw_with_statuses(&client, "research", json!({"steps": 3})).await;
    assert_eq!(
        result,
        json!({"content": [{"type": "text", "text": "Researched in 3 steps"}],
               "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "task-1"}}})
    );
    assert_eq!(
        seen[0],
        ("working".to_owned(), Some("step 1 of 3".to_owned()))
    );
    assert_eq!(
        seen.last().unwrap(),
        &("completed".to_owned(), Some("step 3 of 3".to_owned()))
    );

    let err = client.call_tool("fail_job").raw().await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "task task-2 failed: MCP error -32603: the job failed (status \"failed\": the job failed)"
    );
    let clarified = client.call_tool("clarify").mapped().await;
    assert_eq!(
        (clarified.data.as_str(), clarified.is_error),
        ("Clarified: tasks", false)
    );

    every_early_end_cancels_the_task(&client, "2025-11-25").await;
    // An answer about another task is refused, not followed (and the task asked about is
    // cancelled: the server saw a fourth).
    let err = client.call_tool("wrong_id").raw().await.unwrap_err();
    assert!(
        err.to_string().ends_with(
            "sent an invalid `tasks/get` response: asked about task task-7, the server \
             answered about task other-task"
        ),
        "{err}"
    );
    assert_eq!(cancelled_tasks(&client, 4).await, 4);
    client.disconnect().await;

    // Without an elicitation handler nobody could answer the server's question: the call
    // ends at once, and the task is cancelled on the server.
    let client = connect_mcp_tools(config).await.unwrap();
    let err = client.call_tool("clarify").raw().await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "task task-1 needs input this client cannot give: an `elicitation/create` is answered \
         by ConnectConfig::with_elicitation, which is not set (status \"input_required\": \
         Which topic?)"
    );
    assert_eq!(cancelled_tasks(&client, 1).await, 1);
    client.disconnect().await;
}
