//! `client-bench`: oma-mcp's stdio client side by side with a bare rmcp client and a raw
//! JSON-RPC floor, against the pinned `@modelcontextprotocol/server-everything`.
//!
//! Run `cargo run --release -p oma-mcp-bench --bin client-bench` (see `bench/README.md`).
//!
//! Why a plain `fn main` and not criterion: the figures include each client's **peak RSS**,
//! which is per process (`VmHWM` in `/proc/self/status`). So the parent process only
//! orchestrates: it runs itself once per client (`client-bench --client ours|ours-mapped|
//! rmcp|raw|map16`), each child spawns its own server-everything, measures, reads its
//! `VmHWM` and prints one JSON line; the parent collects the lines and prints a table with
//! ratios to the raw floor (and the numbers as JSON with `--json`). In one criterion process
//! the clients would share (and inflate) one high-water mark.
//!
//! Clients:
//! - `raw`: the floor. Spawns the server, writes the `initialize` / `initialized` /
//!   `tools/call` lines to its stdin and reads its stdout line by line (tokio, no SDK); every
//!   response line is parsed into a `serde_json::Value` and matched by `id` (as any real
//!   client must). For concurrent calls it pipelines: all requests are written in one go,
//!   then responses are matched by `id` in a single task.
//! - `rmcp`: bare rmcp 3.11: `().serve(TokioChildProcess)` then `Peer::call_tool`.
//! - `ours`: `oma_mcp_runtime::connect_mcp_tools` + `McpClient::call_tool_raw`.
//! - `ours-mapped`: `McpClient::call_tool` (the raw call plus `map_call_result`).
//! - `map16`: no server; `map_call_result` on a 16 MiB base64 image result.

use std::collections::HashSet;
use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout, Command};
use tokio::task::JoinSet;

type BoxError = Box<dyn Error + Send + Sync>;
type Res<T> = Result<T, BoxError>;

/// The clients measured against the server, in table order (the floor first).
const CLIENTS: [&str; 4] = ["raw", "rmcp", "ours", "ours-mapped"];
/// The size of the base64 `data` string of the `map16` case.
const MAP_PAYLOAD: usize = 16 * 1024 * 1024;

/// Command-line options (hand-parsed to keep the bench's dependencies lean).
#[derive(Debug, Clone)]
struct Opts {
    client: Option<String>,
    json: bool,
    server: PathBuf,
    warmup: usize,
    calls: usize,
    concurrency: usize,
    rounds: usize,
    repeat: usize,
    flavor: String,
    only: Option<Vec<String>>,
}

const USAGE: &str = "\
usage: client-bench [--json] [--repeat K] [--calls N] [--warmup N] [--concurrency N]
                    [--rounds N] [--flavor multi|current] [--only raw,rmcp,ours,ours-mapped,map16]
                    [--server PATH]
       client-bench --client raw|rmcp|ours|ours-mapped|map16 [same options]   (one worker)

The server defaults to $OMA_MCP_BENCH_SERVER, else tests/servers/node_modules/.bin/
mcp-server-everything (install with `npm ci --prefix tests/servers`); it is run as `<server> stdio`.";

fn default_server() -> PathBuf {
    if let Some(path) = std::env::var_os("OMA_MCP_BENCH_SERVER") {
        return PathBuf::from(path);
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/servers/node_modules/.bin/mcp-server-everything")
}

fn parse_opts() -> Res<Opts> {
    let mut o = Opts {
        client: None,
        json: false,
        server: default_server(),
        warmup: 100,
        calls: 1000,
        concurrency: 64,
        rounds: 15,
        repeat: 3,
        flavor: "multi".to_owned(),
        only: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| format!("{arg} needs a value\n{USAGE}"))
        };
        match arg.as_str() {
            "--client" => o.client = Some(value()?),
            "--json" => o.json = true,
            "--server" => o.server = PathBuf::from(value()?),
            "--warmup" => o.warmup = value()?.parse()?,
            "--calls" => o.calls = value()?.parse()?,
            "--concurrency" => o.concurrency = value()?.parse()?,
            "--rounds" => o.rounds = value()?.parse()?,
            "--repeat" => o.repeat = value()?.parse()?,
            "--flavor" => o.flavor = value()?,
            "--only" => o.only = Some(value()?.split(',').map(str::to_owned).collect()),
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other:?}\n{USAGE}").into()),
        }
    }
    if o.calls == 0 || o.rounds == 0 || o.repeat == 0 || o.concurrency == 0 {
        return Err("--calls, --rounds, --repeat and --concurrency must be at least 1".into());
    }
    if o.flavor != "multi" && o.flavor != "current" {
        return Err(format!("--flavor is multi or current, not {:?}", o.flavor).into());
    }
    Ok(o)
}

fn main() -> Res<()> {
    let opts = parse_opts()?;
    match opts.client.clone() {
        Some(client) => worker(&client, &opts),
        None => parent(&opts),
    }
}

// ---------------------------------------------------------------------------------------
// Measurements shared by the clients
// ---------------------------------------------------------------------------------------

/// Reads a `kB` field (`VmHWM`, `VmRSS`) of `/proc/self/status`, in KiB.
fn proc_status_kib(field: &str) -> Res<u64> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    for line in status.lines() {
        if let Some(rest) = line.strip_prefix(field).and_then(|r| r.strip_prefix(':')) {
            let kib = rest.trim().trim_end_matches("kB").trim();
            return Ok(kib.parse()?);
        }
    }
    Err(format!("no {field} in /proc/self/status").into())
}

/// CPU use of this process so far (all threads alive now), from
/// `/proc/self/task/*/schedstat`: the CPU time in ns and the number of times a thread was
/// scheduled in (about one per wake-up). The client's own cost, without the server's and
/// without waiting, so much less noisy than latency on a busy machine.
#[derive(Debug, Clone, Copy, Default)]
struct Cpu {
    ns: u64,
    slices: u64,
}

impl Cpu {
    fn now() -> Res<Self> {
        let mut total = Self::default();
        for task in std::fs::read_dir("/proc/self/task")? {
            let path = task?.path().join("schedstat");
            // A thread may end between listing and reading.
            if let Ok(text) = std::fs::read_to_string(path) {
                let mut fields = text.split_whitespace();
                total.ns += fields.next().unwrap_or("0").parse::<u64>()?;
                total.slices += fields.nth(1).unwrap_or("0").parse::<u64>()?;
            }
        }
        Ok(total)
    }

    /// `{"cpu_us_per_call", "wakeups_per_call"}` since `start`, over `calls` calls.
    fn per_call(start: Self, calls: usize) -> Res<Value> {
        let end = Self::now()?;
        let calls = calls as f64;
        Ok(json!({
            "cpu_us_per_call": end.ns.saturating_sub(start.ns) as f64 / 1e3 / calls,
            "wakeups_per_call": end.slices.saturating_sub(start.slices) as f64 / calls,
        }))
    }
}

/// Nearest-rank percentile of sorted samples.
fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let n = sorted.len();
    // ceil(p/100 * n) - 1, clamped; `as` is fine for sample counts.
    let rank = ((p / 100.0) * n as f64).ceil() as usize;
    sorted[rank.clamp(1, n) - 1]
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// Summary of `calls` sequential call latencies.
fn summarize_seq(mut samples: Vec<Duration>) -> Value {
    samples.sort_unstable();
    let total: Duration = samples.iter().sum();
    let mean = total / u32::try_from(samples.len()).unwrap_or(u32::MAX);
    json!({
        "n": samples.len(),
        "mean_us": micros(mean),
        "p50_us": micros(percentile(&samples, 50.0)),
        "p99_us": micros(percentile(&samples, 99.0)),
        "min_us": micros(samples[0]),
        "max_us": micros(samples[samples.len() - 1]),
    })
}

/// Summary of the wall times of the concurrent rounds.
fn summarize_conc(mut rounds: Vec<Duration>, concurrency: usize) -> Value {
    rounds.sort_unstable();
    json!({
        "n": concurrency,
        "rounds": rounds.len(),
        "median_us": micros(percentile(&rounds, 50.0)),
        "min_us": micros(rounds[0]),
        "max_us": micros(rounds[rounds.len() - 1]),
    })
}

/// One client, as the worker drives it.
trait Bench {
    /// One sequential `echo` call (checked).
    async fn call(&mut self) -> Res<()>;
    /// `n` concurrent `echo` calls on the one connection (all checked).
    async fn concurrent(&mut self, n: usize) -> Res<()>;
    /// Stops the server.
    async fn shutdown(self) -> Res<()>;
}

fn echo_args() -> Map<String, Value> {
    let mut args = Map::new();
    args.insert("message".to_owned(), Value::String("hi".to_owned()));
    args
}

/// Checks a raw `tools/call` result of `echo`.
fn check_echo(result: &Value) -> Res<()> {
    // Plain lookups: `Value::pointer` (which unescapes each segment) showed up in profiles.
    let text = result
        .get("content")
        .and_then(|c| c.get(0))
        .and_then(|b| b.get("text"));
    match text {
        Some(Value::String(text)) if text == "Echo: hi" => Ok(()),
        _ => Err(format!("unexpected echo result: {result}").into()),
    }
}

async fn run_bench<B: Bench>(mut b: B, opts: &Opts, rss_before: u64) -> Res<Value> {
    for _ in 0..opts.warmup {
        b.call().await?;
    }
    let mut samples = Vec::with_capacity(opts.calls);
    let cpu_start = Cpu::now()?;
    for _ in 0..opts.calls {
        let start = Instant::now();
        b.call().await?;
        samples.push(start.elapsed());
    }
    let seq_cpu = Cpu::per_call(cpu_start, opts.calls)?;
    // One unmeasured round warms the concurrent path (task spawning, buffers).
    b.concurrent(opts.concurrency).await?;
    let mut rounds = Vec::with_capacity(opts.rounds);
    let cpu_start = Cpu::now()?;
    for _ in 0..opts.rounds {
        let start = Instant::now();
        b.concurrent(opts.concurrency).await?;
        rounds.push(start.elapsed());
    }
    let conc_cpu = Cpu::per_call(cpu_start, opts.rounds * opts.concurrency)?;
    let peak = proc_status_kib("VmHWM")?;
    b.shutdown().await?;
    let mut seq = summarize_seq(samples);
    seq["cpu_us_per_call"] = seq_cpu["cpu_us_per_call"].clone();
    seq["wakeups_per_call"] = seq_cpu["wakeups_per_call"].clone();
    let mut conc = summarize_conc(rounds, opts.concurrency);
    conc["cpu_us_per_call"] = conc_cpu["cpu_us_per_call"].clone();
    conc["wakeups_per_call"] = conc_cpu["wakeups_per_call"].clone();
    Ok(json!({
        "seq": seq,
        "concurrent": conc,
        "peak_rss_kib": peak,
        "rss_before_connect_kib": rss_before,
    }))
}

// ---------------------------------------------------------------------------------------
// The clients
// ---------------------------------------------------------------------------------------

/// Our client; `mapped` uses `call_tool` (raw call + `map_call_result`).
struct Ours {
    client: Arc<oma_mcp_runtime::McpClient>,
    mapped: bool,
}

impl Ours {
    async fn connect(server: &Path, mapped: bool) -> Res<Self> {
        let config = oma_mcp_runtime::ConnectConfig::new(server.to_string_lossy().into_owned())
            .with_args(["stdio"]);
        let client = oma_mcp_runtime::connect_mcp_tools(config).await?;
        Ok(Self {
            client: Arc::new(client),
            mapped,
        })
    }

    async fn one(client: &oma_mcp_runtime::McpClient, mapped: bool) -> Res<()> {
        if mapped {
            let r = client.call_tool("echo", Some(echo_args())).await;
            if r.is_error || r.data != "Echo: hi" {
                return Err(format!("unexpected mapped echo result: {r:?}").into());
            }
            Ok(())
        } else {
            check_echo(&client.call_tool_raw("echo", Some(echo_args())).await?)
        }
    }
}

impl Bench for Ours {
    async fn call(&mut self) -> Res<()> {
        Self::one(&self.client, self.mapped).await
    }

    async fn concurrent(&mut self, n: usize) -> Res<()> {
        let mut set = JoinSet::new();
        for _ in 0..n {
            let client = Arc::clone(&self.client);
            let mapped = self.mapped;
            set.spawn(async move { Self::one(&client, mapped).await });
        }
        while let Some(r) = set.join_next().await {
            r??;
        }
        Ok(())
    }

    async fn shutdown(self) -> Res<()> {
        self.client.disconnect().await;
        Ok(())
    }
}

/// Bare rmcp 3.11.
struct Rmcp {
    service: rmcp::service::RunningService<rmcp::RoleClient, ()>,
}

impl Rmcp {
    async fn connect(server: &Path) -> Res<Self> {
        use rmcp::ServiceExt;
        use rmcp::transport::TokioChildProcess;
        let mut cmd = Command::new(server);
        cmd.arg("stdio");
        // stderr to /dev/null (rmcp inherits it by default; ours drains it into `tracing`).
        let (transport, _stderr) = TokioChildProcess::builder(cmd)
            .stderr(Stdio::null())
            .spawn()?;
        let service = ().serve(transport).await?;
        Ok(Self { service })
    }

    async fn one(peer: &rmcp::Peer<rmcp::RoleClient>) -> Res<()> {
        let params = rmcp::model::CallToolRequestParams::new("echo").with_arguments(echo_args());
        let result = peer.call_tool(params).await?;
        match result.content.first().and_then(|c| c.as_text()) {
            Some(t) if t.text == "Echo: hi" => Ok(()),
            _ => Err(format!("unexpected rmcp echo result: {result:?}").into()),
        }
    }
}

impl Bench for Rmcp {
    async fn call(&mut self) -> Res<()> {
        Self::one(self.service.peer()).await
    }

    async fn concurrent(&mut self, n: usize) -> Res<()> {
        let mut set = JoinSet::new();
        for _ in 0..n {
            let peer = self.service.peer().clone();
            set.spawn(async move { Self::one(&peer).await });
        }
        while let Some(r) = set.join_next().await {
            r??;
        }
        Ok(())
    }

    async fn shutdown(self) -> Res<()> {
        self.service.cancel().await?;
        Ok(())
    }
}

/// The raw floor: JSON-RPC lines over the pipes, no SDK, one task.
struct Raw {
    child: tokio::process::Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    line: String,
    next_id: u64,
    out: Vec<u8>,
}

impl Raw {
    async fn connect(server: &Path) -> Res<Self> {
        let mut child = Command::new(server)
            .arg("stdio")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let mut raw = Self {
            child,
            stdin,
            stdout: BufReader::with_capacity(64 * 1024, stdout),
            line: String::new(),
            next_id: 1,
            out: Vec::new(),
        };
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw-floor", "version": "0"}}});
        raw.out = format!("{init}\n").into_bytes();
        raw.flush_out().await?;
        raw.read_response(0).await?;
        raw.out = b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n".to_vec();
        raw.flush_out().await?;
        Ok(raw)
    }

    fn push_call(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        // A request line as a minimal client formats it.
        let line = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"message\":\"hi\"}}}}}}\n"
        );
        self.out.extend_from_slice(line.as_bytes());
        id
    }

    async fn flush_out(&mut self) -> Res<()> {
        self.stdin.write_all(&self.out).await?;
        self.stdin.flush().await?;
        self.out.clear();
        Ok(())
    }

    /// Reads the next response line (notifications and server requests are skipped): its id
    /// and result.
    async fn next_response(&mut self) -> Res<(u64, Value)> {
        loop {
            self.line.clear();
            if self.stdout.read_line(&mut self.line).await? == 0 {
                return Err("server closed stdout".into());
            }
            let Ok(Value::Object(mut msg)) = serde_json::from_str::<Value>(&self.line) else {
                continue;
            };
            if msg.contains_key("method") {
                continue;
            }
            let id = msg.get("id").and_then(Value::as_u64).ok_or("no id")?;
            let result = msg
                .remove("result")
                .ok_or_else(|| format!("error response: {}", Value::Object(msg)))?;
            return Ok((id, result));
        }
    }

    async fn read_response(&mut self, want: u64) -> Res<Value> {
        loop {
            let (id, result) = self.next_response().await?;
            if id == want {
                return Ok(result);
            }
        }
    }
}

impl Bench for Raw {
    async fn call(&mut self) -> Res<()> {
        let id = self.push_call();
        self.flush_out().await?;
        check_echo(&self.read_response(id).await?)
    }

    async fn concurrent(&mut self, n: usize) -> Res<()> {
        let mut waiting = HashSet::with_capacity(n);
        for _ in 0..n {
            waiting.insert(self.push_call());
        }
        self.flush_out().await?;
        while !waiting.is_empty() {
            let (id, result) = self.next_response().await?;
            if waiting.remove(&id) {
                check_echo(&result)?;
            }
        }
        Ok(())
    }

    async fn shutdown(mut self) -> Res<()> {
        drop(self.stdin);
        if tokio::time::timeout(Duration::from_secs(2), self.child.wait())
            .await
            .is_err()
        {
            self.child.kill().await?;
        }
        Ok(())
    }
}

/// `map_call_result` on a 16 MiB base64 image result: time and peak RSS increase.
fn map16(opts: &Opts) -> Res<Value> {
    // Built with exact capacities (no reallocation, no parse buffer freed before the
    // baseline), so the freed-but-resident heap cannot hide the mapping's allocations.
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut data = String::with_capacity(MAP_PAYLOAD);
    for i in 0..MAP_PAYLOAD {
        data.push(char::from(ALPHABET[(i * 7 + i / 64) % 64]));
    }
    let result = json!({"content": [{"type": "image", "mimeType": "image/png", "data": data}]});
    let rss_before = proc_status_kib("VmRSS")?;
    // Reset the high-water mark to the current RSS (Linux ≥ 4.0), so VmHWM below is the
    // peak during mapping only.
    let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
    let hwm_before = proc_status_kib("VmHWM")?;
    let iterations = opts.rounds.max(1);
    let mut times = Vec::with_capacity(iterations);
    let mut first_check = None;
    for _ in 0..iterations {
        let start = Instant::now();
        let mapped = oma_mcp_runtime::map_call_result(&result);
        times.push(start.elapsed());
        if first_check.is_none() {
            first_check = Some(mapped.model_output.as_ref().map_or(0, Vec::len));
        }
        drop(mapped);
    }
    let hwm = proc_status_kib("VmHWM")?;
    if first_check != Some(1) {
        return Err("the 16 MiB image did not map to one model part".into());
    }
    let first = times[0];
    times.sort_unstable();
    let base = if reset {
        rss_before
    } else {
        hwm_before.max(rss_before)
    };
    let increase = hwm.saturating_sub(base);
    let payload_kib = u64::try_from(MAP_PAYLOAD / 1024)?;
    Ok(json!({
        "payload_bytes": MAP_PAYLOAD,
        "iterations": iterations,
        "first_ms": first.as_secs_f64() * 1e3,
        "median_ms": percentile(&times, 50.0).as_secs_f64() * 1e3,
        "min_ms": times[0].as_secs_f64() * 1e3,
        "rss_before_kib": rss_before,
        "peak_rss_kib": hwm,
        "peak_increase_kib": increase,
        "increase_over_payload": increase as f64 / payload_kib as f64,
        "hwm_reset": reset,
    }))
}

// ---------------------------------------------------------------------------------------
// Worker and parent
// ---------------------------------------------------------------------------------------

fn worker(client: &str, opts: &Opts) -> Res<()> {
    if client == "map16" {
        let mut v = map16(opts)?;
        v["client"] = json!("map16");
        println!("{v}");
        return Ok(());
    }
    if !opts.server.exists() {
        return Err(format!(
            "server-everything not found at {} (run `npm ci --prefix tests/servers`, or pass --server)",
            opts.server.display()
        )
        .into());
    }
    let rt = match opts.flavor.as_str() {
        "current" => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?,
        _ => tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?,
    };
    let mut v = rt.block_on(async {
        let rss_before = proc_status_kib("VmRSS")?;
        match client {
            "raw" => run_bench(Raw::connect(&opts.server).await?, opts, rss_before).await,
            "rmcp" => run_bench(Rmcp::connect(&opts.server).await?, opts, rss_before).await,
            "ours" => run_bench(Ours::connect(&opts.server, false).await?, opts, rss_before).await,
            "ours-mapped" => {
                run_bench(Ours::connect(&opts.server, true).await?, opts, rss_before).await
            }
            other => Err(format!("unknown client {other:?}").into()),
        }
    })?;
    v["client"] = json!(client);
    v["flavor"] = json!(opts.flavor);
    println!("{v}");
    Ok(())
}

/// Runs one worker process and returns its JSON line.
fn run_worker(client: &str, opts: &Opts) -> Res<Value> {
    let exe = std::env::current_exe()?;
    let out = std::process::Command::new(exe)
        .args(["--client", client])
        .args(["--server".as_ref(), opts.server.as_os_str()])
        .args(["--warmup", &opts.warmup.to_string()])
        .args(["--calls", &opts.calls.to_string()])
        .args(["--concurrency", &opts.concurrency.to_string()])
        .args(["--rounds", &opts.rounds.to_string()])
        .args(["--flavor", &opts.flavor])
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()?;
    if !out.status.success() {
        return Err(format!("worker {client} failed: {}", out.status).into());
    }
    let text = String::from_utf8(out.stdout)?;
    let line = text
        .lines()
        .rev()
        .find(|l| l.starts_with('{'))
        .ok_or_else(|| format!("worker {client} printed no JSON line"))?;
    Ok(serde_json::from_str(line)?)
}

fn num(v: &Value, ptr: &str) -> f64 {
    v.pointer(ptr).and_then(Value::as_f64).unwrap_or(f64::NAN)
}

/// The median of a metric over a client's repeats.
fn median_of(runs: &[Value], ptr: &str) -> f64 {
    let mut xs: Vec<f64> = runs.iter().map(|r| num(r, ptr)).collect();
    xs.sort_by(f64::total_cmp);
    xs[(xs.len() - 1) / 2]
}

const METRICS: [&str; 10] = [
    "/seq/mean_us",
    "/seq/p50_us",
    "/seq/p99_us",
    "/seq/cpu_us_per_call",
    "/seq/wakeups_per_call",
    "/concurrent/median_us",
    "/concurrent/cpu_us_per_call",
    "/concurrent/wakeups_per_call",
    "/peak_rss_kib",
    "/rss_before_connect_kib",
];

fn parent(opts: &Opts) -> Res<()> {
    let wanted = |c: &str| opts.only.as_ref().is_none_or(|o| o.iter().any(|x| x == c));
    let load_start = oma_mcp_bench::load_average();
    let started = Instant::now();
    let clients: Vec<&str> = CLIENTS.iter().copied().filter(|c| wanted(c)).collect();
    let mut runs: Vec<Vec<Value>> = vec![Vec::new(); clients.len()];
    // Interleaved repeats, so a noisy moment hits every client alike.
    for rep in 0..opts.repeat {
        for (i, client) in clients.iter().enumerate() {
            eprintln!("[{}/{}] {client} …", rep + 1, opts.repeat);
            runs[i].push(run_worker(client, opts)?);
        }
    }
    let map = if wanted("map16") {
        eprintln!("map16 …");
        Some(run_worker("map16", opts)?)
    } else {
        None
    };
    let load_end = oma_mcp_bench::load_average();

    let mut summary = Map::new();
    for (client, rs) in clients.iter().zip(&runs) {
        let mut m = Map::new();
        for ptr in METRICS {
            let key = ptr.trim_start_matches('/').replace('/', "_");
            m.insert(key, json!(median_of(rs, ptr)));
        }
        m.insert("runs".to_owned(), Value::Array(rs.clone()));
        summary.insert((*client).to_owned(), Value::Object(m));
    }
    let floor = summary.get("raw").cloned();
    let ratio = |client: &str, key: &str| -> String {
        match (&floor, summary.get(client)) {
            (Some(f), Some(c)) => format!("{:.2}x", num(c, key) / num(f, key)),
            _ => "-".to_owned(),
        }
    };

    let mut table = String::new();
    let cpus = std::thread::available_parallelism().map_or(0, usize::from);
    table.push_str(&format!(
        "server-everything, {} sequential echo calls after {} warm-up, {} concurrent x {} rounds, \
         runtime {}, median of {} process(es) per client, {cpus} CPUs, load avg {load_start} -> {load_end}, {:.0} s\n\n",
        opts.calls,
        opts.warmup,
        opts.concurrency,
        opts.rounds,
        opts.flavor,
        opts.repeat,
        started.elapsed().as_secs_f64()
    ));
    table.push_str(&format!(
        "{:<12} {:>9} {:>9} {:>9} {:>8} {:>8} {:>11} {:>8} {:>10} {:>8}\n",
        "client",
        "mean µs",
        "p50 µs",
        "p99 µs",
        "mean/raw",
        "p50/raw",
        "64-conc µs",
        "conc/raw",
        "peak RSS",
        "RSS/raw",
    ));
    for client in &clients {
        let Some(c) = summary.get(*client) else {
            continue;
        };
        table.push_str(&format!(
            "{:<12} {:>9.1} {:>9.1} {:>9.1} {:>8} {:>8} {:>11.0} {:>8} {:>7.1}MiB {:>8}\n",
            client,
            num(c, "/seq_mean_us"),
            num(c, "/seq_p50_us"),
            num(c, "/seq_p99_us"),
            ratio(client, "/seq_mean_us"),
            ratio(client, "/seq_p50_us"),
            num(c, "/concurrent_median_us"),
            ratio(client, "/concurrent_median_us"),
            num(c, "/peak_rss_kib") / 1024.0,
            ratio(client, "/peak_rss_kib"),
        ));
    }
    table.push_str(&format!(
        "\nclient-side cost per call (this process only, /proc/self/task/*/schedstat)\n\
         {:<12} {:>12} {:>12} {:>13} {:>13}\n",
        "client", "seq CPU µs", "seq wakeups", "conc CPU µs", "conc wakeups"
    ));
    for client in &clients {
        let Some(c) = summary.get(*client) else {
            continue;
        };
        table.push_str(&format!(
            "{:<12} {:>12.1} {:>12.2} {:>13.1} {:>13.2}\n",
            client,
            num(c, "/seq_cpu_us_per_call"),
            num(c, "/seq_wakeups_per_call"),
            num(c, "/concurrent_cpu_us_per_call"),
            num(c, "/concurrent_wakeups_per_call"),
        ));
    }
    if let (Some(ours), Some(rmcp)) = (summary.get("ours"), summary.get("rmcp")) {
        table.push_str(&format!(
            "\nours vs bare rmcp: mean {:.2}x, p50 {:.2}x, 64-concurrent {:.2}x, peak RSS {:.2}x\n",
            num(ours, "/seq_mean_us") / num(rmcp, "/seq_mean_us"),
            num(ours, "/seq_p50_us") / num(rmcp, "/seq_p50_us"),
            num(ours, "/concurrent_median_us") / num(rmcp, "/concurrent_median_us"),
            num(ours, "/peak_rss_kib") / num(rmcp, "/peak_rss_kib"),
        ));
    }
    if let Some(m) = &map {
        table.push_str(&format!(
            "\nmap_call_result on a 16 MiB base64 image: first {:.2} ms, median {:.2} ms of {}; \
             peak RSS increase {:.1} MiB = {:.2}x the payload (target <= 2x){}\n",
            num(m, "/first_ms"),
            num(m, "/median_ms"),
            num(m, "/iterations"),
            num(m, "/peak_increase_kib") / 1024.0,
            num(m, "/increase_over_payload"),
            if m["hwm_reset"] == json!(true) {
                ""
            } else {
                " (VmHWM could not be reset: upper bound)"
            }
        ));
    }

    if opts.json {
        eprint!("{table}");
        let doc = json!({
            "config": {
                "server": opts.server.display().to_string(),
                "warmup": opts.warmup,
                "calls": opts.calls,
                "concurrency": opts.concurrency,
                "rounds": opts.rounds,
                "repeat": opts.repeat,
                "flavor": opts.flavor,
                "cpus": cpus,
            },
            "load_avg_start": load_start,
            "load_avg_end": load_end,
            "clients": Value::Object(summary),
            "map16": map,
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!("{table}");
    }
    Ok(())
}
