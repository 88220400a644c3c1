//! Task benchmark: what a task-backed `tools/call` costs over a direct one, with the project's
//! test server over stdio in both task dialects: `tasks` (the MCP 2026-07-28 tasks
//! extension, rmcp's task manager, 100 ms poll interval) and `tasks-2025` (MCP 2025-11-25's
//! experimental tasks, written line by line, 100 ms poll interval).
//!
//! ```sh
//! cargo build --release -p oma-mcp-test-server --bin oma-mcp-test-server
//! cargo run --release -p oma-mcp-bench --bin task-bench -- [--repeat 20] [--server PATH]
//! ```
//!
//! Per dialect, three rows, each the median and the largest of `--repeat` calls after one
//! warm-up call: a direct call (no task), a task whose work takes no time, and a task whose
//! work takes 300 ms (three steps of 100 ms in 2025-11-25, two of 150 ms in 2026-07-28).
//! "polls" is how many `tasks/get` the server answered per call (its `task_gets` tool), and
//! "added" the median less the direct call's median and less the work.

use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use oma_mcp_bench::{load_average, median, ms};
use oma_mcp_runtime::{ConnectConfig, McpClient, connect_mcp_tools};
use serde_json::{Map, Value, json};

/// One row: a label, the tool, its arguments, and the work it does.
struct Row {
    label: &'static str,
    tool: &'static str,
    arguments: Value,
    work: Duration,
}

/// (server mode, dialect, rows).
fn dialects() -> [(&'static str, &'static str, Vec<Row>); 2] {
    let row = |label, tool, arguments, work_ms| Row {
        label,
        tool,
        arguments,
        work: Duration::from_millis(work_ms),
    };
    [
        (
            "tasks",
            "2026-07-28 extension",
            vec![
                row("direct call", "echo", json!({"message": "hi"}), 0),
                row("task, no work", "count", json!({"steps": 0}), 0),
                row("task, 300 ms of work", "count", json!({"steps": 2}), 300),
            ],
        ),
        (
            "tasks-2025",
            "2025-11-25 experimental",
            vec![
                row("direct call", "cancelled_tasks", json!({}), 0),
                row("task, no work", "research", json!({"steps": 0}), 0),
                row("task, 300 ms of work", "research", json!({"steps": 3}), 300),
            ],
        ),
    ]
}

async fn task_gets(client: &McpClient) -> u64 {
    client
        .call_tool("task_gets")
        .mapped()
        .await
        .data
        .parse()
        .unwrap_or(0)
}

async fn run(server: &Path, repeat: usize) -> Result<(), String> {
    println!("load average before: {}", load_average());
    println!(
        "{:<24} {:<22} {:>10} {:>8} {:>9} {:>10}",
        "dialect", "call", "median ms", "max ms", "polls", "added ms"
    );
    for (mode, dialect, rows) in dialects() {
        let config = ConnectConfig::new(server.to_string_lossy())
            .with_env("OMA_TEST_SERVER_MODE", mode)
            .with_request_timeout(Duration::from_secs(30));
        let client = connect_mcp_tools(config)
            .await
            .map_err(|e| format!("{mode}: {}", e.chain()))?;
        let mut direct = Duration::ZERO;
        for row in rows {
            let arguments: Option<Map<String, Value>> = row.arguments.as_object().cloned();
            let call = || {
                client
                    .call_tool(row.tool)
                    .arguments(arguments.clone())
                    .mapped()
            };
            let warm = call().await;
            if warm.is_error {
                return Err(format!("{mode} {}: {}", row.tool, warm.data));
            }
            let gets_before = task_gets(&client).await;
            let mut times = Vec::with_capacity(repeat);
            for _ in 0..repeat {
                let start = Instant::now();
                let result = call().await;
                times.push(start.elapsed());
                if result.is_error {
                    return Err(format!("{mode} {}: {}", row.tool, result.data));
                }
            }
            let polls = (task_gets(&client).await - gets_before) as f64 / repeat as f64;
            let max = times.iter().max().copied().unwrap_or_default();
            let median = median(&mut times);
            if row.label == "direct call" {
                direct = median;
            }
            let added = median.saturating_sub(direct).saturating_sub(row.work);
            println!(
                "{:<24} {:<22} {:>10.2} {:>8.2} {:>9.2} {:>10.2}",
                dialect,
                row.label,
                ms(median),
                ms(max),
                polls,
                ms(added)
            );
        }
        client.disconnect().await;
    }
    println!("load average after: {}", load_average());
    Ok(())
}

fn main() -> ExitCode {
    oma_mcp_bench::main_against_test_server("task-bench", 20, |server, repeat| async move {
        run(&server, repeat).await
    })
}
