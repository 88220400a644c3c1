//! Offer benchmark: a prompt (`prompts/get`), a resource read (`resources/read`) and a
//! completion (`completion/complete`) through oma-mcp's client, side by side with a bare
//! rmcp 3.11 client, against the project's test server over stdio.
//!
//! ```sh
//! cargo build --release -p oma-mcp-test-server --bin oma-mcp-test-server
//! cargo run --release -p oma-mcp-bench --bin offer-bench -- [--repeat 200] [--server PATH]
//! ```
//!
//! Each row is the median and the largest of `--repeat` requests after ten warm-up ones, one
//! at a time. oma-mcp connects with `Lifecycle::Initialize`, as rmcp's `serve` does, so both
//! speak the same revision (2025-11-25) to the same server; each client spawns its own server
//! process. oma-mcp's figures include mapping the result (prompt messages mapped as tool
//! results, a blob decoded); rmcp's stop at its typed result.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{ExitCode, Stdio};
use std::time::{Duration, Instant};

use oma_mcp_bench::{load_average, median, ms};
use oma_mcp_runtime::completion::{Complete, CompletionRef};
use oma_mcp_runtime::{ConnectConfig, Lifecycle, McpClient, connect_mcp_tools};
use rmcp::model::{
    ArgumentInfo, CompleteRequestParams, GetPromptRequestParams, ReadResourceRequestParams,
    Reference,
};
use serde_json::json;

/// The requests measured, in table order.
const ROWS: [&str; 3] = ["prompts/get", "resources/read", "completion/complete"];

/// Times `repeat` runs of `request` after ten warm-up runs: (median, max).
async fn time<F, Fut>(repeat: usize, mut request: F) -> Result<(Duration, Duration), String>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<(), String>>,
{
    for _ in 0..10 {
        request().await?;
    }
    let mut times = Vec::with_capacity(repeat);
    for _ in 0..repeat {
        let start = Instant::now();
        request().await?;
        times.push(start.elapsed());
    }
    let max = times.iter().max().copied().unwrap_or_default();
    Ok((median(&mut times), max))
}

/// oma-mcp's figures, in [`ROWS`] order.
async fn ours(server: &Path, repeat: usize) -> Result<Vec<(Duration, Duration)>, String> {
    let config = ConnectConfig::new(server.to_string_lossy())
        .with_env("OMA_TEST_SERVER_MODE", "normal")
        .with_lifecycle(Lifecycle::Initialize);
    let client: McpClient = connect_mcp_tools(config)
        .await
        .map_err(|e| format!("oma-mcp: {}", e.chain()))?;
    let arguments = BTreeMap::from([("code".to_owned(), "fn main() {}".to_owned())]);
    let complete = Complete::new(CompletionRef::Prompt("review_code".into()), "style", "r");
    let fail = |e: oma_mcp_runtime::Error| e.chain().to_string();
    let rows = vec![
        time(repeat, || async {
            client
                .get_prompt("review_code", &arguments)
                .await
                .map(drop)
                .map_err(fail)
        })
        .await?,
        time(repeat, || async {
            client.read("memo://notes/1").await.map(drop).map_err(fail)
        })
        .await?,
        time(repeat, || async {
            client.complete(&complete).await.map(drop).map_err(fail)
        })
        .await?,
    ];
    client.disconnect().await;
    Ok(rows)
}

/// rmcp's figures, in [`ROWS`] order.
async fn rmcp(server: &Path, repeat: usize) -> Result<Vec<(Duration, Duration)>, String> {
    use rmcp::ServiceExt;
    use rmcp::transport::TokioChildProcess;
    let mut command = tokio::process::Command::new(server);
    command.env("OMA_TEST_SERVER_MODE", "normal");
    let (transport, _stderr) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("rmcp: {e}"))?;
    let service = ().serve(transport).await.map_err(|e| format!("rmcp: {e}"))?;
    let peer = service.peer().clone();
    let fail = |e: rmcp::ServiceError| e.to_string();
    let arguments = json!({"code": "fn main() {}"});
    let arguments = arguments.as_object().cloned().unwrap_or_default();
    let rows = vec![
        time(repeat, || async {
            let params =
                GetPromptRequestParams::new("review_code").with_arguments(arguments.clone());
            peer.get_prompt(params).await.map(drop).map_err(fail)
        })
        .await?,
        time(repeat, || async {
            let params = ReadResourceRequestParams::new("memo://notes/1");
            peer.read_resource(params).await.map(drop).map_err(fail)
        })
        .await?,
        time(repeat, || async {
            let params = CompleteRequestParams::new(
                Reference::for_prompt("review_code"),
                ArgumentInfo::new("style", "r"),
            );
            peer.complete(params).await.map(drop).map_err(fail)
        })
        .await?,
    ];
    let _ = service.cancel().await;
    Ok(rows)
}

async fn run(server: &Path, repeat: usize) -> Result<(), String> {
    println!("load average before: {}", load_average());
    let ours = ours(server, repeat).await?;
    let rmcp = rmcp(server, repeat).await?;
    println!(
        "{:<20} {:>14} {:>14} {:>14} {:>14} {:>8}",
        "request", "oma-mcp median", "oma-mcp max", "rmcp median", "rmcp max", "ratio"
    );
    for ((row, (our_median, our_max)), (rmcp_median, rmcp_max)) in ROWS.iter().zip(ours).zip(rmcp) {
        println!(
            "{:<20} {:>11.3} ms {:>11.3} ms {:>11.3} ms {:>11.3} ms {:>7.2}x",
            row,
            ms(our_median),
            ms(our_max),
            ms(rmcp_median),
            ms(rmcp_max),
            ms(our_median) / ms(rmcp_median).max(f64::EPSILON)
        );
    }
    println!("load average after: {}", load_average());
    Ok(())
}

fn main() -> ExitCode {
    oma_mcp_bench::main_against_test_server("offer-bench", 200, |server, repeat| async move {
        run(&server, repeat).await
    })
}
