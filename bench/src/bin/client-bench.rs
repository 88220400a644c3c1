//! `client-bench`: oma-mcp's stdio client side by side with a bare rmcp client and a raw
//! JSON-RPC floor, against the pinned `@modelcontextprotocol/server-everything`; with `--http`,
//! oma-mcp's streamable HTTP client side by side with rmcp's and a raw `reqwest` floor, against
//! the project's own test server over HTTP.
//!
//! Run `cargo run --release -p oma-mcp-bench --bin client-bench [-- --http]` (see
//! `bench/README.md`).
//!
//! Why a plain `fn main` and not criterion: the figures include each client's **peak RSS**,
//! which is per process (`VmHWM` in `/proc/self/status`). So the parent process only
//! orchestrates: it runs itself once per client (`client-bench --client ours|ours-mapped|
//! rmcp|raw|map16|map-small`), each child spawns its own server-everything, measures, reads its
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
//! - `ours`: `oma_mcp_runtime::connect_mcp_tools` + `client.call_tool(name).arguments(..).raw()`.
//! - `ours-mapped`: the same call ended with `.mapped()` (the raw call plus `map_call_result`).
//! - `map16`: no server; `map_call_result` on a 16 MiB base64 image result.
//! - `map-small`: no server; `map_call_result` on a one-line text result, ns per mapping.
//!
//! With `--http` the parent starts `oma-mcp-test-server --http 127.0.0.1:0` once per mode
//! (`sse`: stateful, a session and SSE answers; `json`: `--stateless`, JSON answers) and every
//! worker (`--client … --url URL`) talks to that one process, so the server's cost is the same
//! in every row. Clients:
//! - `raw`: the floor. One `reqwest::Client` (pooled connections): `initialize` (keeping
//!   `Mcp-Session-Id`), `notifications/initialized`, then one `POST` of the same JSON-RPC bytes
//!   per call with the session and `MCP-Protocol-Version` headers; a JSON body is read to its
//!   end, an SSE body chunk by chunk until the `data:` line of the response (then dropped).
//! - `rmcp`: bare rmcp 3.11: `().serve(StreamableHttpClientTransport::from_uri(url))` (its
//!   default reqwest client) then `Peer::call_tool`.
//! - `ours`, `ours-mapped`: `ConnectConfig::http(url)` with `Lifecycle::Initialize` (what rmcp's
//!   `serve` does; `Auto` would pick the sessionless 2026-07-28 revision this server offers).

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
/// The HTTP server modes of `--http`: name, extra arguments, what it means.
const HTTP_MODES: [(&str, &[&str], &str); 2] = [
    ("sse", &[], "stateful: a session, SSE answers"),
    (
        "json",
        &["--stateless"],
        "stateless: no session, JSON answers",
    ),
];
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
    /// `--http`: the streamable HTTP comparison instead of stdio.
    http: bool,
    /// `--url`: the server of an HTTP worker; for the parent, a running server to measure
    /// instead of starting the test server.
    url: Option<String>,
    /// `--http-modes`: which of [`HTTP_MODES`] the parent starts.
    modes: Vec<String>,
    /// `--test-server`: the `oma-mcp-test-server` binary of `--http`.
    test_server: PathBuf,
}

const USAGE: &str = "\
usage: client-bench [--json] [--repeat K] [--calls N] [--warmup N] [--concurrency N]
                    [--rounds N] [--flavor multi|current]
                    [--only raw,rmcp,ours,ours-mapped,map16,map-small]
                    [--server PATH]
       client-bench --http [--http-modes sse,json] [--test-server PATH | --url URL]
                    [same options but --server]
       client-bench --client raw|rmcp|ours|ours-mapped|map16|map-small [--url URL]
                    [same options]
                    (one worker; with --url over streamable HTTP)

The server defaults to $OMA_MCP_BENCH_SERVER, else tests/servers/node_modules/.bin/
mcp-server-everything (install with `npm ci --prefix tests/servers`); it is run as `<server> stdio`.
With --http the server is the project's test server over HTTP, started once per mode (sse:
stateful, SSE answers; json: --stateless, JSON answers): --test-server PATH, else
$OMA_MCP_BENCH_TEST_SERVER, else oma-mcp-test-server beside this binary (build it with
`cargo build --release -p oma-mcp-bench -p oma-mcp-test-server`); or --url URL, a server that
is already running (its echo tool must answer `Echo: <message>`).";

fn default_server() -> PathBuf {
    if let Some(path) = std::env::var_os("OMA_MCP_BENCH_SERVER") {
        return PathBuf::from(path);
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/servers/node_modules/.bin/mcp-server-everything")
}

fn default_test_server() -> PathBuf {
    if let Some(path) = std::env::var_os("OMA_MCP_BENCH_TEST_SERVER") {
        return PathBuf::from(path);
    }
    std::env::current_exe()
        .map(|exe| exe.with_file_name("oma-mcp-test-server"))
        .unwrap_or_else(|_| PathBuf::from("oma-mcp-test-server"))
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
        http: false,
        url: None,
        modes: HTTP_MODES.iter().map(|m| m.0.to_owned()).collect(),
        test_server: default_test_server(),
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
            "--http" => o.http = true,
            "--url" => o.url = Some(value()?),
            "--http-modes" => o.modes = value()?.split(',').map(str::to_owned).collect(),
            "--test-server" => o.test_server = PathBuf::from(value()?),
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
    if let Some(bad) = o
        .modes
        .iter()
        .find(|m| !HTTP_MODES.iter().any(|h| h.0 == m.as_str()))
    {
        return Err(format!("--http-modes takes sse,json, not {bad:?}").into());
    }
    Ok(o)
}

fn main() -> Res<()> {
    let opts = parse_opts()?;
    match opts.client.clone() {
        Some(client) => worker(&client, &opts),
        None if opts.http => http_parent(&opts),
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
///
/// Also the process CPU clock (`CLOCK_PROCESS_CPUTIME_ID`): user+sys time of every thread,
/// including threads that have ended (what `getrusage(RUSAGE_SELF)` adds up, in ns).
#[derive(Debug, Clone, Copy, Default)]
struct Cpu {
    ns: u64,
    slices: u64,
    process_ns: u64,
}

impl Cpu {
    fn now() -> Res<Self> {
        let clock = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
        let mut total = Self {
            process_ns: u64::try_from(clock.tv_sec)? * 1_000_000_000
                + u64::try_from(clock.tv_nsec)?,
            ..Self::default()
        };
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

    /// `{"cpu_us_per_call", "wakeups_per_call", "process_cpu_us_per_call"}` since `start`,
    /// over `calls` calls.
    fn per_call(start: Self, calls: usize) -> Res<Value> {
        let end = Self::now()?;
        let calls = calls as f64;
        Ok(json!({
            "cpu_us_per_call": end.ns.saturating_sub(start.ns) as f64 / 1e3 / calls,
            "wakeups_per_call": end.slices.saturating_sub(start.slices) as f64 / calls,
            "process_cpu_us_per_call":
                end.process_ns.saturating_sub(start.process_ns) as f64 / 1e3 / calls,
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
    let mut conc = summarize_conc(rounds, opts.concurrency);
    for key in [
        "cpu_us_per_call",
        "wakeups_per_call",
        "process_cpu_us_per_call",
    ] {
        seq[key] = seq_cpu[key].clone();
        conc[key] = conc_cpu[key].clone();
    }
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

/// Our client; `mapped` ends the call with `.mapped()` (raw call + `map_call_result`).
struct Ours {
    client: Arc<oma_mcp_runtime::McpClient>,
    mapped: bool,
}

impl Ours {
    async fn connect(config: oma_mcp_runtime::ConnectConfig, mapped: bool) -> Res<Self> {
        let client = oma_mcp_runtime::connect_mcp_tools(config).await?;
        Ok(Self {
            client: Arc::new(client),
            mapped,
        })
    }

    async fn one(client: &oma_mcp_runtime::McpClient, mapped: bool) -> Res<()> {
        if mapped {
            let r = client
                .call_tool("echo")
                .arguments(echo_args())
                .mapped()
                .await;
            if r.is_error || r.data != "Echo: hi" {
                return Err(format!("unexpected mapped echo result: {r:?}").into());
            }
            Ok(())
        } else {
            check_echo(
                &client
                    .call_tool("echo")
                    .arguments(echo_args())
                    .raw()
                    .await?,
            )
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

    /// Over streamable HTTP: `StreamableHttpClientTransport::from_uri` (rmcp's default reqwest
    /// client) and `serve` (the `initialize` lifecycle).
    async fn connect_http(url: &str) -> Res<Self> {
        use rmcp::ServiceExt;
        use rmcp::transport::StreamableHttpClientTransport;
        let transport = StreamableHttpClientTransport::from_uri(url);
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

/// The raw HTTP floor: one `reqwest::Client`, one `POST` of the JSON-RPC bytes per message, no
/// SDK.
struct RawHttp {
    client: reqwest::Client,
    url: reqwest::Url,
    /// `Accept`, `Content-Type`, and after the handshake `Mcp-Session-Id` (when the server
    /// gave one) and `MCP-Protocol-Version`.
    headers: reqwest::header::HeaderMap,
    next_id: u64,
}

impl RawHttp {
    async fn connect(url: &str) -> Res<Self> {
        use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderValue};
        oma_mcp_runtime::connect::ensure_tls_provider()?;
        let mut raw = Self {
            client: reqwest::Client::builder().build()?,
            url: reqwest::Url::parse(url)?,
            headers: reqwest::header::HeaderMap::new(),
            next_id: 1,
        };
        raw.headers.insert(
            ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        raw.headers
            .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw-floor", "version": "0"}}});
        let response = raw.post(init.to_string()).send().await?;
        if let Some(session) = response.headers().get("mcp-session-id") {
            raw.headers.insert("mcp-session-id", session.clone());
        }
        let result = read_http_response(response, 0).await?;
        let version = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .ok_or("initialize: no protocolVersion")?;
        raw.headers
            .insert("mcp-protocol-version", HeaderValue::from_str(version)?);
        let response = raw
            .post(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned())
            .send()
            .await?;
        if !response.status().is_success() {
            return Err(format!("notifications/initialized: HTTP {}", response.status()).into());
        }
        response.bytes().await?;
        Ok(raw)
    }

    fn post(&self, body: String) -> reqwest::RequestBuilder {
        self.client
            .post(self.url.clone())
            .headers(self.headers.clone())
            .body(body)
    }

    /// One `echo` call as a future that owns what it needs (so it can be spawned).
    fn call_future(&mut self) -> impl Future<Output = Res<()>> + Send + 'static {
        let id = self.next_id;
        self.next_id += 1;
        // A request body as a minimal client formats it.
        let request = self.post(format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"message\":\"hi\"}}}}}}"
        ));
        async move { check_echo(&read_http_response(request.send().await?, id).await?) }
    }
}

/// Returns the `result` of the response `want` from a `POST`'s answer: the JSON body (read to
/// its end), or the first SSE `data:` line that holds it, read chunk by chunk and returned as
/// soon as that line is complete (as a client must: the server may keep the stream open; other
/// events, such as rmcp's empty priming event, are skipped). The rest of the stream is dropped,
/// as `ours` does.
async fn read_http_response(mut response: reqwest::Response, want: u64) -> Res<Value> {
    let status = response.status();
    if !status.is_success() {
        let body = response.bytes().await?;
        return Err(format!("HTTP {status}: {}", String::from_utf8_lossy(&body)).into());
    }
    let sse = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .is_some_and(|ct| ct.as_bytes().starts_with(b"text/event-stream"));
    let response_result = |data: &[u8]| -> Res<Option<Value>> {
        let Value::Object(mut msg) = serde_json::from_slice::<Value>(data)? else {
            return Ok(None);
        };
        if msg.contains_key("method") || msg.get("id").and_then(Value::as_u64) != Some(want) {
            return Ok(None);
        }
        let result = msg
            .remove("result")
            .ok_or_else(|| format!("error response: {}", Value::Object(msg)))?;
        Ok(Some(result))
    };
    if !sse {
        let body = response.bytes().await?;
        return response_result(&body)?.ok_or_else(|| "the JSON body is not the response".into());
    }
    let mut buf = Vec::new();
    // How much of `buf` has been split into lines.
    let mut scanned = 0;
    while let Some(chunk) = response.chunk().await? {
        buf.extend_from_slice(&chunk);
        while let Some(end) = buf[scanned..].iter().position(|&b| b == b'\n') {
            let line = &buf[scanned..scanned + end];
            scanned += end + 1;
            let Some(data) = line.strip_prefix(b"data:") else {
                continue;
            };
            let data = data.strip_prefix(b" ").unwrap_or(data);
            let data = data.strip_suffix(b"\r").unwrap_or(data);
            if data.is_empty() {
                continue;
            }
            if let Some(result) = response_result(data)? {
                return Ok(result);
            }
        }
    }
    Err("the SSE stream ended without the response".into())
}

impl Bench for RawHttp {
    async fn call(&mut self) -> Res<()> {
        self.call_future().await
    }

    async fn concurrent(&mut self, n: usize) -> Res<()> {
        let mut set = JoinSet::new();
        for _ in 0..n {
            set.spawn(self.call_future());
        }
        while let Some(r) = set.join_next().await {
            r??;
        }
        Ok(())
    }

    async fn shutdown(self) -> Res<()> {
        // End the session (a stateless server answers 405).
        if self.headers.contains_key("mcp-session-id") {
            self.client
                .delete(self.url.clone())
                .headers(self.headers.clone())
                .send()
                .await?;
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

/// The one-line text result of the `map-small` case (what server-everything's `echo` answers).
const SMALL_RESULT: &str = r#"{"content":[{"type":"text","text":"Echo: hi"}]}"#;
/// [`SMALL_RESULT`] plus a `null` block, which the mapping skips: the same `data` through the
/// general path (what every result took before text-only results got their own), for
/// comparison.
const SMALL_RESULT_GENERAL: &str = r#"{"content":[{"type":"text","text":"Echo: hi"},null]}"#;
/// Mappings per timed batch of `map-small`.
const SMALL_BATCH: u32 = 100_000;

/// `map_call_result` on [`SMALL_RESULT`] held as a `serde_json::Value`, in batches of
/// [`SMALL_BATCH`] mappings (`--rounds` batches after one warm-up batch): ns per mapping, in
/// this thread's CPU time (steady on a busy machine) and in wall time.
fn map_small(opts: &Opts) -> Res<Value> {
    let small = timed_mappings(SMALL_RESULT, opts)?;
    let general = timed_mappings(SMALL_RESULT_GENERAL, opts)?;
    Ok(json!({
        "result": SMALL_RESULT,
        "batches": small["batches"],
        "mappings_per_batch": SMALL_BATCH,
        "median_cpu_ns": small["median_cpu_ns"],
        "min_cpu_ns": small["min_cpu_ns"],
        "max_cpu_ns": small["max_cpu_ns"],
        "median_wall_ns": small["median_wall_ns"],
        "general_path": general,
    }))
}

/// Batches of `map_call_result` on `text` (parsed into a `Value`, checked to map to
/// `Echo: hi`): CPU and wall ns per mapping.
fn timed_mappings(text: &str, opts: &Opts) -> Res<Value> {
    fn thread_cpu_ns() -> f64 {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
        t.tv_sec as f64 * 1e9 + t.tv_nsec as f64
    }
    let result: Value = serde_json::from_str(text)?;
    let mapped = oma_mcp_runtime::map_call_result(&result);
    if mapped.data != "Echo: hi" || mapped.is_error || mapped.model_output.is_some() {
        return Err(format!("unexpected mapping of {text}: {mapped:?}").into());
    }
    // (CPU ns, wall ns) per mapping of one batch.
    let batch = || {
        let cpu = thread_cpu_ns();
        let start = Instant::now();
        for _ in 0..SMALL_BATCH {
            std::hint::black_box(oma_mcp_runtime::map_call_result(std::hint::black_box(
                &result,
            )));
        }
        let wall = start.elapsed().as_secs_f64() * 1e9;
        let per = f64::from(SMALL_BATCH);
        ((thread_cpu_ns() - cpu) / per, wall / per)
    };
    batch();
    let runs: Vec<(f64, f64)> = (0..opts.rounds.max(1)).map(|_| batch()).collect();
    let sorted = |pick: fn(&(f64, f64)) -> f64| {
        let mut xs: Vec<f64> = runs.iter().map(pick).collect();
        xs.sort_by(f64::total_cmp);
        xs
    };
    let cpu = sorted(|r| r.0);
    let wall = sorted(|r| r.1);
    let mid = (runs.len() - 1) / 2;
    Ok(json!({
        "result": text,
        "batches": runs.len(),
        "median_cpu_ns": cpu[mid],
        "min_cpu_ns": cpu[0],
        "max_cpu_ns": cpu[cpu.len() - 1],
        "median_wall_ns": wall[mid],
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
    if client == "map-small" {
        let mut v = map_small(opts)?;
        v["client"] = json!("map-small");
        println!("{v}");
        return Ok(());
    }
    if opts.url.is_none() && !opts.server.exists() {
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
        if let Some(url) = &opts.url {
            // `initialize`, as rmcp's `serve` does (see the module docs).
            let ours = || {
                oma_mcp_runtime::ConnectConfig::http(url.clone())
                    .with_lifecycle(oma_mcp_runtime::Lifecycle::Initialize)
            };
            return match client {
                "raw" => run_bench(RawHttp::connect(url).await?, opts, rss_before).await,
                "rmcp" => run_bench(Rmcp::connect_http(url).await?, opts, rss_before).await,
                "ours" => run_bench(Ours::connect(ours(), false).await?, opts, rss_before).await,
                "ours-mapped" => {
                    run_bench(Ours::connect(ours(), true).await?, opts, rss_before).await
                }
                other => Err(format!("unknown HTTP client {other:?}").into()),
            };
        }
        let stdio = || {
            oma_mcp_runtime::ConnectConfig::new(opts.server.to_string_lossy().into_owned())
                .with_args(["stdio"])
        };
        match client {
            "raw" => run_bench(Raw::connect(&opts.server).await?, opts, rss_before).await,
            "rmcp" => run_bench(Rmcp::connect(&opts.server).await?, opts, rss_before).await,
            "ours" => run_bench(Ours::connect(stdio(), false).await?, opts, rss_before).await,
            "ours-mapped" => run_bench(Ours::connect(stdio(), true).await?, opts, rss_before).await,
            other => Err(format!("unknown client {other:?}").into()),
        }
    })?;
    v["client"] = json!(client);
    v["flavor"] = json!(opts.flavor);
    v["transport"] = json!(if opts.url.is_some() { "http" } else { "stdio" });
    println!("{v}");
    Ok(())
}

/// Runs one worker process (over HTTP to `url` when given) and returns its JSON line.
fn run_worker(client: &str, opts: &Opts, url: Option<&str>) -> Res<Value> {
    let exe = std::env::current_exe()?;
    let mut command = std::process::Command::new(exe);
    command
        .args(["--client", client])
        .args(["--server".as_ref(), opts.server.as_os_str()])
        .args(["--warmup", &opts.warmup.to_string()])
        .args(["--calls", &opts.calls.to_string()])
        .args(["--concurrency", &opts.concurrency.to_string()])
        .args(["--rounds", &opts.rounds.to_string()])
        .args(["--flavor", &opts.flavor]);
    if let Some(url) = url {
        command.args(["--url", url]);
    }
    let out = command
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

const METRICS: [&str; 13] = [
    "/seq/mean_us",
    "/seq/p50_us",
    "/seq/p99_us",
    "/seq/cpu_us_per_call",
    "/seq/wakeups_per_call",
    "/seq/process_cpu_us_per_call",
    "/concurrent/median_us",
    "/concurrent/cpu_us_per_call",
    "/concurrent/wakeups_per_call",
    "/concurrent/process_cpu_us_per_call",
    "/peak_rss_kib",
    "/rss_before_connect_kib",
    "/server_cpu_us_per_call",
];

/// Per client: the median of each metric over its runs (keys such as `seq_mean_us`; `null`
/// where a run lacks it), and the runs.
fn summarize(clients: &[&str], runs: &[Vec<Value>]) -> Map<String, Value> {
    let mut summary = Map::new();
    for (client, rs) in clients.iter().zip(runs) {
        let mut m = Map::new();
        for ptr in METRICS {
            let key = ptr.trim_start_matches('/').replace('/', "_");
            m.insert(key, json!(median_of(rs, ptr)));
        }
        m.insert("runs".to_owned(), Value::Array(rs.clone()));
        summary.insert((*client).to_owned(), Value::Object(m));
    }
    summary
}

/// The latency table (with ratios to `raw`) and the client-side cost table of one server.
/// `http`: the cost table shows the process CPU clock (user+sys) and the server's CPU;
/// otherwise the `schedstat` CPU of the threads alive.
fn client_tables(clients: &[&str], summary: &Map<String, Value>, http: bool) -> String {
    let floor = summary.get("raw").cloned();
    let ratio = |client: &str, key: &str| -> String {
        match (&floor, summary.get(client)) {
            (Some(f), Some(c)) => format!("{:.2}x", num(c, key) / num(f, key)),
            _ => "-".to_owned(),
        }
    };
    let mut table = String::new();
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
    for client in clients {
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
    if http {
        table.push_str(&format!(
            "\nclient-side cost per call (this process, user+sys of all threads: \
             CLOCK_PROCESS_CPUTIME_ID; wakeups: /proc/self/task/*/schedstat); server CPU per call \
             over the whole worker run (/proc/PID/stat, 10 ms ticks)\n\
             {:<12} {:>12} {:>12} {:>13} {:>13} {:>13}\n",
            "client", "seq CPU µs", "seq wakeups", "conc CPU µs", "conc wakeups", "server CPU µs"
        ));
    } else {
        table.push_str(&format!(
            "\nclient-side cost per call (this process only, /proc/self/task/*/schedstat)\n\
             {:<12} {:>12} {:>12} {:>13} {:>13}\n",
            "client", "seq CPU µs", "seq wakeups", "conc CPU µs", "conc wakeups"
        ));
    }
    let cpu = if http {
        "process_cpu_us_per_call"
    } else {
        "cpu_us_per_call"
    };
    for client in clients {
        let Some(c) = summary.get(*client) else {
            continue;
        };
        table.push_str(&format!(
            "{:<12} {:>12.1} {:>12.2} {:>13.1} {:>13.2}",
            client,
            num(c, &format!("/seq_{cpu}")),
            num(c, "/seq_wakeups_per_call"),
            num(c, &format!("/concurrent_{cpu}")),
            num(c, "/concurrent_wakeups_per_call"),
        ));
        if http {
            table.push_str(&format!(" {:>13.1}", num(c, "/server_cpu_us_per_call")));
        }
        table.push('\n');
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
    table
}

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
            runs[i].push(run_worker(client, opts, None)?);
        }
    }
    let map = if wanted("map16") {
        eprintln!("map16 …");
        Some(run_worker("map16", opts, None)?)
    } else {
        None
    };
    let small = if wanted("map-small") {
        eprintln!("map-small …");
        Some(run_worker("map-small", opts, None)?)
    } else {
        None
    };
    let load_end = oma_mcp_bench::load_average();
    let summary = summarize(&clients, &runs);

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
    table.push_str(&client_tables(&clients, &summary, false));
    if let (Some(ours), Some(raw)) = (summary.get("ours"), summary.get("raw")) {
        let cpu = num(ours, "/seq_cpu_us_per_call") / num(raw, "/seq_cpu_us_per_call");
        let conc = num(ours, "/concurrent_median_us") / num(raw, "/concurrent_median_us");
        table.push_str(&format!(
            "goal (ours <= 2x raw in client CPU per sequential call, <= 1.2x raw in 64-concurrent \
             wall time): CPU {cpu:.2}x, 64-concurrent {conc:.2}x: {}\n",
            if cpu <= 2.0 && conc <= 1.2 {
                "met"
            } else {
                "missed"
            }
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

    if let Some(m) = &small {
        table.push_str(&format!(
            "map_call_result on {SMALL_RESULT}: median {:.0} ns of CPU per mapping ({} batches of \
             {}; min {:.0}, max {:.0}; wall {:.0} ns; goal < 1000 ns); the same text through \
             the general path ({SMALL_RESULT_GENERAL}): {:.0} ns\n",
            num(m, "/median_cpu_ns"),
            num(m, "/batches"),
            num(m, "/mappings_per_batch"),
            num(m, "/min_cpu_ns"),
            num(m, "/max_cpu_ns"),
            num(m, "/median_wall_ns"),
            num(m, "/general_path/median_cpu_ns"),
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
            "map_small": small,
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!("{table}");
    }
    Ok(())
}

/// The user+sys CPU time of process `pid` so far (all threads), from `/proc/PID/stat`, in µs
/// (clock-tick resolution).
fn process_cpu_us(pid: u32) -> Res<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // Fields after the command (which may hold spaces), from field 3 (`state`): utime is field
    // 14 and stime field 15.
    let rest = stat.rsplit_once(')').ok_or("no `)` in /proc/PID/stat")?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields.get(11).ok_or("short stat")?.parse::<u64>()?
        + fields.get(12).ok_or("short stat")?.parse::<u64>()?;
    Ok(ticks as f64 * 1e6 / rustix::param::clock_ticks_per_second() as f64)
}

/// One HTTP server the workers are measured against.
struct HttpTarget {
    mode: String,
    about: String,
    url: String,
    /// The test server the bench started (killed when dropped); `None` for `--url`.
    process: Option<oma_mcp_test_support::HttpServer>,
}

fn http_parent(opts: &Opts) -> Res<()> {
    let wanted = |c: &str| opts.only.as_ref().is_none_or(|o| o.iter().any(|x| x == c));
    let clients: Vec<&str> = CLIENTS.iter().copied().filter(|c| wanted(c)).collect();
    let mut targets = Vec::new();
    if let Some(url) = &opts.url {
        targets.push(HttpTarget {
            mode: "url".to_owned(),
            about: format!("the server at {url}"),
            url: url.clone(),
            process: None,
        });
    } else {
        if !opts.test_server.exists() {
            return Err(format!(
                "the test server {} does not exist; build it with `cargo build --release -p \
                 oma-mcp-bench -p oma-mcp-test-server`, or pass --test-server PATH or --url URL",
                opts.test_server.display()
            )
            .into());
        }
        for (mode, args, about) in HTTP_MODES {
            if !opts.modes.iter().any(|m| m == mode) {
                continue;
            }
            let mut command = std::process::Command::new(&opts.test_server);
            command.args(["--http", "127.0.0.1:0"]).args(args);
            command.env_remove("OMA_TEST_SERVER_MODE");
            let server = oma_mcp_test_support::spawn_http_server(
                command,
                oma_mcp_test_support::Ready::ListeningLine,
                Duration::from_secs(10),
            )?;
            let mut line = "oma-mcp-test-server --http 127.0.0.1:0".to_owned();
            for arg in args {
                line = format!("{line} {arg}");
            }
            targets.push(HttpTarget {
                mode: mode.to_owned(),
                about: format!("{line} ({about})"),
                url: server.url().to_owned(),
                process: Some(server),
            });
        }
    }
    let load_start = oma_mcp_bench::load_average();
    let started = Instant::now();
    // Every call a worker makes: warm-up, sequential, the warm-up round and the rounds.
    let calls_per_worker = opts.warmup + opts.calls + (opts.rounds + 1) * opts.concurrency;
    let mut runs: Vec<Vec<Vec<Value>>> = vec![vec![Vec::new(); clients.len()]; targets.len()];
    // Interleaved repeats, so a noisy moment hits every client alike.
    for rep in 0..opts.repeat {
        for (t, target) in targets.iter().enumerate() {
            for (i, client) in clients.iter().enumerate() {
                eprintln!("[{}/{}] {} {client} …", rep + 1, opts.repeat, target.mode);
                let pid = target.process.as_ref().map(|p| p.id());
                let before = pid.map(process_cpu_us).transpose()?;
                let mut run = run_worker(client, opts, Some(&target.url))?;
                if let (Some(pid), Some(before)) = (pid, before) {
                    let used = process_cpu_us(pid)? - before;
                    run["server_cpu_us_per_call"] = json!(used / calls_per_worker as f64);
                }
                runs[t][i].push(run);
            }
        }
    }
    let load_end = oma_mcp_bench::load_average();
    let cpus = std::thread::available_parallelism().map_or(0, usize::from);

    let mut table = format!(
        "streamable HTTP, {} sequential echo calls after {} warm-up, {} concurrent x {} rounds, \
         runtime {}, median of {} process(es) per client, {cpus} CPUs, load avg {load_start} -> \
         {load_end}, {:.0} s\n",
        opts.calls,
        opts.warmup,
        opts.concurrency,
        opts.rounds,
        opts.flavor,
        opts.repeat,
        started.elapsed().as_secs_f64()
    );
    let mut modes = Map::new();
    for (target, runs) in targets.iter().zip(&runs) {
        let summary = summarize(&clients, runs);
        table.push_str(&format!("\n== {}: {}\n\n", target.mode, target.about));
        table.push_str(&client_tables(&clients, &summary, true));
        if let (Some(ours), Some(rmcp), Some(raw)) =
            (summary.get("ours"), summary.get("rmcp"), summary.get("raw"))
        {
            let vs_rmcp = num(ours, "/seq_mean_us") / num(rmcp, "/seq_mean_us");
            let vs_raw = num(ours, "/seq_mean_us") / num(raw, "/seq_mean_us");
            table.push_str(&format!(
                "goal (mean: ours <= rmcp, ours <= 1.2x raw): ours/rmcp {vs_rmcp:.2}x, ours/raw \
                 {vs_raw:.2}x: {}\n",
                if vs_rmcp <= 1.0 && vs_raw <= 1.2 {
                    "met"
                } else {
                    "missed"
                }
            ));
        }
        if summary
            .get("raw")
            .is_some_and(|raw| num(raw, "/seq_p50_us") > 10_000.0)
        {
            table.push_str(
                "note: the raw floor itself takes over 10 ms per call: the server probably writes \
                 each SSE answer in parts without TCP_NODELAY, so Nagle's algorithm holds the \
                 answer until the client's delayed ACK (40 ms on Linux) on a reused connection \
                 (see bench/README.md)\n",
            );
        }
        modes.insert(
            target.mode.clone(),
            json!({"server": target.about, "clients": Value::Object(summary)}),
        );
    }
    drop(targets);

    if opts.json {
        eprint!("{table}");
        let doc = json!({
            "config": {
                "transport": "http",
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
            "modes": Value::Object(modes),
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!("{table}");
    }
    Ok(())
}
