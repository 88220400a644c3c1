//! Provider forms benchmark: every tool of the shared corpus's servers
//! (`$OMA_MCP_SHARED/corpus/servers/*.json`, 23 real `tools/list` captures) turned into each
//! model provider's tool definition, side by side with the floor every peer stops at (the
//! `inputSchema` passed on as is, as open-multi-agent's `connectMCPTools()` and rig-rmcp do).
//!
//! Rows, per provider (OpenAI strict mode, Anthropic, Gemini):
//!
//! - `convert`: `ProviderTool::new` + `request_json()` for every tool (the refused ones
//!   included: their cost is the conversion up to the refusal);
//! - `as is`: the same request JSON with the `inputSchema` cloned unchanged;
//! - `to_server`: the argument converter on the model's side of `{}` (for every tool whose
//!   schema requires nothing: what a model sends for "no arguments", in OpenAI's strict form
//!   every property `null`), back to what the server expects.
//!
//! Every figure is the median of `--repeat` runs (after one warm-up run).
//!
//! ```sh
//! cargo run --release -p oma-mcp-bench --bin provider-bench -- [--repeat 15]
//! ```

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use oma_mcp_bench::{load_average, median, ms};
use oma_mcp_runtime::Snapshot;
use oma_mcp_runtime::descriptor::ToolDescriptor;
use oma_mcp_runtime::provider::{Provider, ProviderTool};
use serde_json::{Value, json};

fn main() -> ExitCode {
    let mut repeat = 15usize;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--repeat" => match args.next().and_then(|n| n.parse().ok()) {
                Some(n) if n > 0 => repeat = n,
                _ => return usage("--repeat takes a positive number"),
            },
            other => return usage(&format!("unknown argument {other:?}")),
        }
    }
    let tools = match corpus_tools() {
        Ok(tools) => tools,
        Err(e) => {
            eprintln!("provider-bench: {e}");
            return ExitCode::from(2);
        }
    };
    println!("load average before: {}", load_average());
    println!(
        "{} tools of the corpus's servers; median of {repeat} runs\n",
        tools.len()
    );
    println!(
        "{:<10} {:>9} {:>11} {:>9} {:>11} {:>8} {:>10} {:>12}",
        "provider",
        "refused",
        "convert ms",
        "µs/tool",
        "as is ms",
        "×as is",
        "to_server",
        "µs/call"
    );
    for provider in Provider::ALL {
        let refused = tools
            .iter()
            .filter(|t| ProviderTool::new(t, provider).is_err())
            .count();
        let convert = time(repeat, || {
            let mut bytes = 0;
            for tool in &tools {
                if let Ok(p) = ProviderTool::new(tool, provider) {
                    bytes += p.request_json().as_object().map_or(0, |o| o.len());
                }
            }
            bytes
        });
        let as_is = time(repeat, || {
            let mut bytes = 0;
            for tool in &tools {
                let definition = json!({
                    "name": tool.name,
                    "description": tool.description,
                    "input_schema": tool.input_schema.clone(),
                });
                bytes += definition.as_object().map_or(0, |o| o.len());
            }
            bytes
        });
        // The model's side of `{}` for every tool that requires nothing.
        let calls: Vec<(ProviderTool, Value)> = tools
            .iter()
            .filter(|t| {
                t.input_schema
                    .get("required")
                    .is_none_or(|r| r == &json!([]))
            })
            .filter_map(|t| {
                let p = ProviderTool::new(t, provider).ok()?;
                let model = p.arguments.to_model(&json!({})).ok()?;
                (p.arguments.to_server(&model).ok()? == json!({})).then_some((p, model))
            })
            .collect();
        let to_server = time(repeat, || {
            calls
                .iter()
                .filter_map(|(p, model)| p.arguments.to_server(model).ok())
                .count()
        });
        println!(
            "{:<10} {:>9} {:>11.2} {:>9.2} {:>11.2} {:>8.1} {:>10} {:>12.3}",
            provider.name(),
            refused,
            ms(convert),
            micros(convert) / tools.len() as f64,
            ms(as_is),
            convert.as_secs_f64() / as_is.as_secs_f64(),
            calls.len(),
            micros(to_server) / calls.len().max(1) as f64,
        );
    }
    println!("\nload average after: {}", load_average());
    ExitCode::SUCCESS
}

/// The median wall time of `repeat` runs of `run` (after one warm-up run); what `run` returns
/// is kept alive so that the work is not optimized away.
fn time(repeat: usize, mut run: impl FnMut() -> usize) -> Duration {
    std::hint::black_box(run());
    let mut times: Vec<Duration> = (0..repeat)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(run());
            start.elapsed()
        })
        .collect();
    median(&mut times)
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// Every tool of every server file of the corpus, in file order.
fn corpus_tools() -> Result<Vec<ToolDescriptor>, String> {
    let servers = oma_mcp_test_support::shared_path().join("corpus/servers");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&servers)
        .map_err(|e| format!("cannot read {}: {e}", servers.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut tools = Vec::new();
    for path in &files {
        let snapshot = Snapshot::read(path).map_err(|e| e.to_string())?;
        tools.extend(
            snapshot
                .tools
                .iter()
                .map(|t| ToolDescriptor::from_snapshot(None, t)),
        );
    }
    Ok(tools)
}

fn usage(problem: &str) -> ExitCode {
    eprintln!("provider-bench: {problem}\nusage: provider-bench [--repeat N]");
    ExitCode::from(2)
}
