//! Drift benchmark: (a) the diff of two full github-mcp-server files, as the
//! engine call (`oma_mcp_runtime::drift::diff`) and as an `oma-mcp diff` process; (b) the
//! wall time of `oma-mcp check` against the pinned server-everything versus the bare server
//! start-up + `initialize` + `tools/list` of a raw, minimal JSON-RPC client. Every figure is
//! the median of `--repeat` runs (after one warm-up run); the `check` and raw runs alternate,
//! so a change of machine load hits both.
//!
//! ```sh
//! npm ci --prefix tests/servers          # once: the pinned server-everything
//! cargo build -p oma-mcp-cli --bin oma-mcp   # the CLI measured (any profile)
//! cargo run --release -p oma-mcp-bench --bin drift-bench -- [--repeat 7] [--oma-mcp PATH]
//! ```
//!
//! The corpus is `corpus/` of the shared reference folder: `$OMA_MCP_SHARED`, default `shared`
//! beside the workspace (`oma_mcp_test_support::shared_path`); the CLI
//! is `--oma-mcp PATH`, else `target/release/oma-mcp`, else `target/debug/oma-mcp`
//! (`$CARGO_TARGET_DIR` instead of `target` when set); `check` runs with
//! `--manifest tests/oma-mcp.toml --server everything`.

use oma_mcp_bench::{load_average, median, ms};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use oma_mcp_runtime::{ConnectConfig, Snapshot, connect_mcp_tools, drift};
use serde_json::{Value, json};

/// The github-mcp-server pairs of the shared corpus: (label, old, new), relative to `corpus/`.
const PAIRS: [(&str, &str, &str); 2] = [
    (
        "2026-05-21 → current",
        "history/github-mcp-server@2026-05-21-f39f758d.json",
        "servers/github-mcp-server.json",
    ),
    (
        "2025-06-18 → 2025-09-12",
        "history/github-mcp-server@2025-06-18-3e988d5a.json",
        "history/github-mcp-server@2025-09-12-b6486a38.json",
    ),
];

/// How many engine calls make one engine sample (a diff takes about a millisecond).
const ENGINE_CALLS: u32 = 20;

type Res<T> = Result<T, String>;

fn main() -> ExitCode {
    let mut repeat = 7usize;
    let mut cli: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--repeat" => match args.next().and_then(|n| n.parse().ok()) {
                Some(n) if n > 0 => repeat = n,
                _ => return usage("--repeat takes a positive number"),
            },
            "--oma-mcp" => match args.next() {
                Some(path) => cli = Some(PathBuf::from(path)),
                None => return usage("--oma-mcp takes a path"),
            },
            other => return usage(&format!("unknown argument {other:?}")),
        }
    }
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let cli = match cli.or_else(|| default_cli(&workspace)) {
        Some(cli) => cli,
        None => {
            return usage(
                "no oma-mcp binary in target/release or target/debug (cargo build -p \
                 oma-mcp-cli --bin oma-mcp), or pass --oma-mcp PATH",
            );
        }
    };
    println!("load average before: {}", load_average());
    println!("oma-mcp binary: {}", cli.display());
    match run(&workspace, &cli, repeat) {
        Ok(()) => {
            println!("load average after: {}", load_average());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("drift-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(workspace: &Path, cli: &Path, repeat: usize) -> Res<()> {
    let shared = oma_mcp_test_support::shared_path();
    let corpus = shared.join("corpus");
    println!();
    println!(
        "| github-mcp-server pair | tools old → new | changes (B/W/I) | engine diff | read + diff | `oma-mcp diff` process |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    for (label, old, new) in PAIRS {
        diff_pair(cli, &corpus, label, old, new, repeat)?;
    }
    check_vs_raw(workspace, cli, repeat)
}

/// (a) One pair: the engine call alone (files already parsed), reading both files and the
/// call, and the `oma-mcp diff --format json` process; its summary must equal the engine's.
fn diff_pair(
    cli: &Path,
    corpus: &Path,
    label: &str,
    old: &str,
    new: &str,
    repeat: usize,
) -> Res<()> {
    let (old, new) = (corpus.join(old), corpus.join(new));
    let read = |p: &Path| Snapshot::read(p).map_err(|e| e.to_string());
    let (a, b) = (read(&old)?, read(&new)?);
    let report = drift::diff(&a, &b);
    let mut engine = Vec::with_capacity(repeat);
    let mut with_read = Vec::with_capacity(repeat);
    let mut process = Vec::with_capacity(repeat);
    for i in 0..=repeat {
        let start = Instant::now();
        for _ in 0..ENGINE_CALLS {
            std::hint::black_box(drift::diff(std::hint::black_box(&a), &b));
        }
        let one_engine = start.elapsed() / ENGINE_CALLS;
        let start = Instant::now();
        let (x, y) = (read(&old)?, read(&new)?);
        std::hint::black_box(drift::diff(&x, &y));
        let one_read = start.elapsed();
        let start = Instant::now();
        let out = Command::new(cli)
            .args(["diff", "--format", "json"])
            .arg(&old)
            .arg(&new)
            .stderr(Stdio::null())
            .output()
            .map_err(|e| format!("{}: {e}", cli.display()))?;
        let one_process = start.elapsed();
        if out.status.code() != Some(1) {
            return Err(format!(
                "oma-mcp diff exited with {} (1 expected: breaking drift)",
                out.status
            ));
        }
        let json: Value = serde_json::from_slice(&out.stdout)
            .map_err(|e| format!("oma-mcp diff --format json: {e}"))?;
        let expected = json!({"breaking": report.summary.breaking,
            "warning": report.summary.warning, "info": report.summary.info});
        if json["summary"] != expected {
            return Err(format!(
                "oma-mcp diff summary {} differs from the engine's {expected}",
                json["summary"]
            ));
        }
        if i > 0 {
            // Run 0 warms the file cache and the allocator.
            engine.push(one_engine);
            with_read.push(one_read);
            process.push(one_process);
        }
    }
    println!(
        "| {label} | {} → {} | {} ({}/{}/{}) | {:.2} ms | {:.2} ms | {:.1} ms |",
        a.tools.len(),
        b.tools.len(),
        report.changes.len(),
        report.summary.breaking,
        report.summary.warning,
        report.summary.info,
        ms(median(&mut engine)),
        ms(median(&mut with_read)),
        ms(median(&mut process)),
    );
    Ok(())
}

/// (b) `oma-mcp check` against the pinned server-everything versus the raw floor, and the
/// same check in process (library calls: connect, diff, disconnect).
fn check_vs_raw(workspace: &Path, cli: &Path, repeat: usize) -> Res<()> {
    let servers = workspace.join("tests/servers");
    let bin = servers.join("node_modules/.bin/mcp-server-everything");
    if !bin.exists() {
        return Err(format!(
            "{} is not installed (npm ci --prefix tests/servers)",
            bin.display()
        ));
    }
    let manifest = workspace.join("tests/oma-mcp.toml");
    let snapshot =
        Snapshot::read(&workspace.join("examples/everything/mcp/everything.snapshot.json"))
            .map_err(|e| e.to_string())?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let config = ConnectConfig::new(bin.to_string_lossy())
        .with_args(["stdio"])
        .with_cwd(&servers)
        .with_name_prefix("everything");
    let (mut check, mut in_process, mut until_report) = (Vec::new(), Vec::new(), Vec::new());
    let (mut floor, mut floor_exit) = (Vec::new(), Vec::new());
    let mut tools = 0;
    for i in 0..=repeat {
        let start = Instant::now();
        let out = Command::new(cli)
            .args(["check", "--server", "everything", "--manifest"])
            .arg(&manifest)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .map_err(|e| format!("{}: {e}", cli.display()))?;
        let one_check = start.elapsed();
        if !out.status.success() {
            return Err(format!(
                "oma-mcp check exited with {}: {}",
                out.status,
                String::from_utf8_lossy(&out.stdout)
            ));
        }
        let (listed, one_floor, one_exit) = raw_list(&bin, &servers)?;
        tools = listed;
        let start = Instant::now();
        let (changes, one_until_report) = runtime.block_on(async {
            let client = connect_mcp_tools(config.clone())
                .await
                .map_err(|e| e.to_string())?;
            let report = client.drift_against(&snapshot);
            let reported = start.elapsed();
            client.disconnect().await;
            Ok::<_, String>((report.changes.len(), reported))
        })?;
        let one_in_process = start.elapsed();
        if changes != 0 {
            return Err(format!(
                "server-everything drifted from its snapshot ({changes} changes)"
            ));
        }
        if i > 0 {
            // Run 0 warms node's module cache.
            check.push(one_check);
            floor.push(one_floor);
            floor_exit.push(one_exit);
            in_process.push(one_in_process);
            until_report.push(one_until_report);
        }
    }
    let (check, floor, floor_exit, in_process, until_report) = (
        median(&mut check),
        median(&mut floor),
        median(&mut floor_exit),
        median(&mut in_process),
        median(&mut until_report),
    );
    println!();
    println!("server-everything ({tools} tools), median of {repeat} runs:");
    println!("| what | wall time | ÷ raw floor |");
    println!("|---|---:|---:|");
    let row = |what: &str, d: Duration| {
        println!(
            "| {what} | {:.1} ms | {:.3} |",
            ms(d),
            d.as_secs_f64() / floor.as_secs_f64()
        );
    };
    row(
        "raw floor: spawn, `initialize`, `initialized`, `tools/list` answered",
        floor,
    );
    row(
        "raw floor + close stdin, wait for the server to exit",
        floor_exit,
    );
    row(
        "in process: `connect_mcp_tools` + `drift_against` (the report is ready)",
        until_report,
    );
    row(
        "in process: the same + `disconnect` (the server has exited)",
        in_process,
    );
    row("`oma-mcp check --server everything` process", check);
    println!(
        "check ÷ raw floor: {:.3}; check ÷ (raw floor + exit): {:.3} (target ≤ 1.1)",
        check.as_secs_f64() / floor.as_secs_f64(),
        check.as_secs_f64() / floor_exit.as_secs_f64()
    );
    Ok(())
}

/// The raw floor: spawns `<bin> stdio` in `cwd`, writes `initialize`, reads its answer, writes
/// `notifications/initialized` and `tools/list` (following `nextCursor`), reads the tools.
/// Returns the tool count, the time until the last page arrived, and the time until the
/// server exited after its stdin was closed.
fn raw_list(bin: &Path, cwd: &Path) -> Res<(usize, Duration, Duration)> {
    let start = Instant::now();
    let mut child = Command::new(bin)
        .arg("stdio")
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("{}: {e}", bin.display()))?;
    let result = (|| {
        let mut stdin = child.stdin.take().ok_or("no stdin")?;
        let mut stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        let mut send = |v: Value| {
            writeln!(stdin, "{v}")
                .and_then(|()| stdin.flush())
                .map_err(|e| e.to_string())
        };
        send(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw-floor", "version": "0"}}}),
        )?;
        response(&mut stdout, 0)?;
        send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
        let (mut tools, mut cursor, mut id) = (0, None::<Value>, 1);
        loop {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params}))?;
            let page = response(&mut stdout, id)?;
            tools += page["tools"].as_array().map_or(0, Vec::len);
            cursor = page
                .get("nextCursor")
                .filter(|c| c.as_str().is_some_and(|s| !s.is_empty()))
                .cloned();
            if cursor.is_none() {
                break;
            }
            id += 1;
        }
        let listed = start.elapsed();
        // EOF on stdin: the server's signal to exit.
        drop(stdin);
        Ok::<_, String>((tools, listed))
    })();
    let (tools, listed) = match result {
        Ok(done) => done,
        Err(e) => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(e);
        }
    };
    child.wait().map_err(|e| e.to_string())?;
    Ok((tools, listed, start.elapsed()))
}

/// The `result` of the response with `id` (other lines are skipped).
fn response(stdout: &mut impl BufRead, id: u64) -> Res<Value> {
    let mut line = String::new();
    loop {
        line.clear();
        if stdout.read_line(&mut line).map_err(|e| e.to_string())? == 0 {
            return Err("server closed stdout".into());
        }
        let Ok(mut msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if msg.get("method").is_none() && msg["id"] == id {
            return match msg.get_mut("result") {
                Some(result) => Ok(result.take()),
                None => Err(format!("error response: {line}")),
            };
        }
    }
}

/// `target/release/oma-mcp`, else `target/debug/oma-mcp` (`$CARGO_TARGET_DIR` when set).
fn default_cli(workspace: &Path) -> Option<PathBuf> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace.join("target"));
    ["release", "debug"]
        .iter()
        .map(|profile| target.join(profile).join("oma-mcp"))
        .find(|p| p.exists())
}

fn usage(message: &str) -> ExitCode {
    eprintln!("drift-bench: {message}\nusage: drift-bench [--repeat N] [--oma-mcp PATH]");
    ExitCode::from(2)
}
