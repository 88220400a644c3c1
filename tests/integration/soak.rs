//! Soak and faults at the library level: many connect → call → disconnect cycles (against
//! the own server and the `stubborn` one, which ignores EOF and SIGTERM and starts a
//! grandchild), many calls on one connection with timeouts and cancellations at random, a
//! server that floods notifications while a call is pending, and one that answers one byte
//! per second.
//!
//! Every scenario runs in a child process of this test binary (the ignored [`worker`]), so
//! the open file descriptors, the RSS and the processes it measures are its own, not those of
//! the tests running beside it; the child prints one `soak report:` line, shown with
//! `--nocapture`. The sizes are parameters: `cargo test` runs a short version of each
//! (`short_*`, a few seconds each); the full sizes are ignored tests (`full_*`):
//!
//! ```sh
//! cargo test --release -p oma-mcp-test-server --test integration soak::full -- --ignored --nocapture --test-threads=1
//! ```

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use oma_mcp_runtime::{CancellationToken, ConnectConfig, McpClient, Progress, connect_mcp_tools};
use oma_mcp_test_server::MODE_VAR;
use serde_json::{Value, json};

use crate::{args, server_bin};

/// The scenario a [`worker`] runs (see [`Scenario::parse`]).
const SCENARIO_VAR: &str = "OMA_SOAK_SCENARIO";
/// The run a [`worker`] belongs to: the prefix of its servers' [`MARKER_VAR`] (the worker
/// does not carry that variable itself, so it is not among the processes left).
const RUN_VAR: &str = "OMA_SOAK_RUN";
/// Set in every server a scenario starts (and so in the `stubborn` server's grandchild):
/// `<run>-<n>`, so the processes left behind are found in `/proc/*/environ`.
const MARKER_VAR: &str = "OMA_SOAK_MARKER";

/// How much higher the RSS may be at the end than at the reference point (after the first
/// 10 cycles, after the first tenth of the calls): 4 MiB. Freed memory stays in the
/// allocator (glibc keeps it in per-thread arenas and trims them only now and then), and
/// which pages a run touches last varies with the scheduling of the runtime's threads, so
/// a flat run still moves by a few hundred KiB; a leak of a pending request (a few hundred
/// bytes with its channel) per call over 90,000 calls, or of a session's tasks and buffers
/// (over 64 KiB of read buffer alone) per cycle over 990 cycles, is far above it.
const RSS_TOLERANCE_KIB: u64 = 4 * 1024;

/// How much later than its timeout a call may return with the timeout error: 2 s (the
/// timer fires on a runtime thread while the reader is busy; on a loaded 2-core machine a
/// thread can wait a second or more to run).
const TIMEOUT_SLACK: Duration = Duration::from_secs(2);

/// How much the peak RSS may grow while a server floods notifications: 32 MiB, against the
/// over 60 MiB (100,000) or 600 MiB (1,000,000) of notifications the short and full runs
/// send. Each notification is parsed, logged and dropped (a progress notification handed to
/// its call's callback first): nothing accumulates.
const FLOOD_RSS_BOUND_KIB: u64 = 32 * 1024;

/// How long a short scenario may run before its worker is killed (they take seconds).
const SHORT_LIMIT: Duration = Duration::from_secs(180);
/// How long a full scenario may run before its worker is killed (the longest, 1,000 cycles
/// of a stubborn server at 4 s each, 10 at a time, takes about 7 minutes).
const FULL_LIMIT: Duration = Duration::from_secs(3600);

/// One soak scenario and its sizes.
#[derive(Debug, Clone, PartialEq)]
enum Scenario {
    /// `cycles <own|stubborn> <cycles> <concurrency>`: connect → call `echo` → disconnect,
    /// `concurrency` cycles at a time (the first 10 as one wave, then waves of
    /// `concurrency`).
    Cycles {
        stubborn: bool,
        cycles: usize,
        concurrency: usize,
    },
    /// `calls <calls> <concurrency> <timeout_ms> <draw_key>`: calls on one connection, about
    /// 10 % of them timed out or cancelled (see [`Kind`]).
    Calls {
        calls: usize,
        concurrency: usize,
        timeout: Duration,
        draw_key: u64,
    },
    /// `flood <notifications> <message|progress> <timeout_ms>`: a call to a server that
    /// writes `notifications` notifications and never answers.
    Flood {
        notifications: u64,
        progress: bool,
        timeout: Duration,
    },
    /// `drip <timeout_ms>`: a call to a server that answers one byte per second.
    Drip { timeout: Duration },
}

impl Scenario {
    /// The scenario as [`SCENARIO_VAR`] carries it.
    fn spec(&self) -> String {
        match self {
            Scenario::Cycles {
                stubborn,
                cycles,
                concurrency,
            } => {
                let server = if *stubborn { "stubborn" } else { "own" };
                format!("cycles {server} {cycles} {concurrency}")
            }
            Scenario::Calls {
                calls,
                concurrency,
                timeout,
                draw_key,
            } => format!(
                "calls {calls} {concurrency} {} {draw_key}",
                timeout.as_millis()
            ),
            Scenario::Flood {
                notifications,
                progress,
                timeout,
            } => {
                let kind = if *progress { "progress" } else { "message" };
                format!("flood {notifications} {kind} {}", timeout.as_millis())
            }
            Scenario::Drip { timeout } => format!("drip {}", timeout.as_millis()),
        }
    }

    /// Reads [`Scenario::spec`]'s format.
    fn parse(spec: &str) -> Self {
        let words: Vec<&str> = spec.split_whitespace().collect();
        let number = |i: usize| -> u64 {
            words
                .get(i)
                .and_then(|w| w.parse().ok())
                .unwrap_or_else(|| panic!("word {i} of the soak scenario {spec:?}"))
        };
        let ms = |i: usize| Duration::from_millis(number(i));
        match words.first().copied() {
            Some("cycles") => Scenario::Cycles {
                stubborn: words.get(1) == Some(&"stubborn"),
                cycles: number(2) as usize,
                concurrency: number(3) as usize,
            },
            Some("calls") => Scenario::Calls {
                calls: number(1) as usize,
                concurrency: number(2) as usize,
                timeout: ms(3),
                draw_key: number(4),
            },
            Some("flood") => Scenario::Flood {
                notifications: number(1),
                progress: words.get(2) == Some(&"progress"),
                timeout: ms(3),
            },
            Some("drip") => Scenario::Drip { timeout: ms(1) },
            _ => panic!("unknown soak scenario {spec:?}"),
        }
    }
}

/// What a scenario measured, printed as `soak report: key=value …` in insertion order.
#[derive(Default)]
struct Report(Vec<(&'static str, String)>);

impl Report {
    fn add(&mut self, key: &'static str, value: impl std::fmt::Display) {
        self.0.push((key, value.to_string()));
    }

    fn line(&self) -> String {
        let mut line = String::from("soak report:");
        for (key, value) in &self.0 {
            let _ = write!(line, " {key}={value}");
        }
        line
    }
}

/// Runs `scenario` in a child process of this test binary (the [`worker`]), at most `limit`
/// (then it is killed), and prints its report line; panics with the child's output when it
/// fails. Afterwards no process carrying the run's marker may be left (any that is gets
/// SIGKILL before the test fails).
fn run_isolated(scenario: &Scenario, limit: Duration) {
    let run = format!(
        "soak{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    );
    let (stdout, stderr) = (tempfile::tempfile().unwrap(), tempfile::tempfile().unwrap());
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "soak::worker",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(SCENARIO_VAR, scenario.spec())
        .env(RUN_VAR, &run)
        .stdin(std::process::Stdio::null())
        .stdout(stdout.try_clone().unwrap())
        .stderr(stderr.try_clone().unwrap())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let read = |mut file: std::fs::File| {
        use std::io::{Read, Seek};
        let mut text = String::new();
        file.rewind().unwrap();
        file.read_to_string(&mut text).unwrap();
        text
    };
    let (stdout, stderr) = (read(stdout), read(stderr));
    let left = marked_processes(&run);
    for (pid, _) in &left {
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status();
    }
    // After libtest's `test soak::worker ... ` on the same line.
    let report = stdout
        .lines()
        .find_map(|l| l.find("soak report:").map(|at| &l[at..]));
    let (Some(_), Some(report)) = (status.filter(|s| s.success()), report) else {
        panic!(
            "soak scenario `{}` failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
            scenario.spec(),
            status.map_or(format!("killed after {limit:?}"), |s| s.to_string()),
        );
    };
    assert!(
        left.is_empty(),
        "processes of `{}` left after its worker exited (killed now): {left:?}",
        scenario.spec()
    );
    eprintln!("{report} ({})", scenario.spec());
}

/// The child-process side of [`run_isolated`]: runs the scenario in [`SCENARIO_VAR`], which
/// prints its report line before it checks what it measured. Without the variable (a plain
/// `--ignored` run) it does nothing.
#[test]
#[ignore = "a helper: runs in a child process of each soak test"]
fn worker() {
    let (Ok(spec), Ok(run)) = (std::env::var(SCENARIO_VAR), std::env::var(RUN_VAR)) else {
        return;
    };
    crate::init_tracing();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        match Scenario::parse(&spec) {
            Scenario::Cycles {
                stubborn,
                cycles: n,
                concurrency,
            } => cycles(&run, stubborn, n, concurrency).await,
            Scenario::Calls {
                calls: n,
                concurrency,
                timeout,
                draw_key,
            } => calls(&run, n, concurrency, timeout, draw_key).await,
            Scenario::Flood {
                notifications,
                progress,
                timeout,
            } => flood(&run, notifications, progress, timeout).await,
            Scenario::Drip { timeout } => drip(&run, timeout).await,
        }
    });
}

// ---------------------------------------------------------------------------------------
// Measurements (Linux `/proc`)

/// The open file descriptors of this process (`/proc/self/fd`, less the one that reads it).
fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count() - 1
}

/// [`open_fds`] once it holds still: the pipes of a stopped session close when its aborted
/// tasks are dropped, a moment after `disconnect` returns. Reads every 50 ms until four
/// readings in a row agree, at most 5 s.
async fn settled_fds() -> usize {
    let start = Instant::now();
    let (mut last, mut same) = (open_fds(), 0);
    loop {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let now = open_fds();
        same = if now == last { same + 1 } else { 0 };
        if same == 3 || start.elapsed() > Duration::from_secs(5) {
            return now;
        }
        last = now;
    }
}

/// The value of `field` in `/proc/<process>/status` (`process`: a pid or `self`), trimmed;
/// `None` when the process or the field is not there.
fn status_field(process: &str, field: &str) -> Option<String> {
    let status = std::fs::read_to_string(format!("/proc/{process}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .map(|v| v.trim().to_owned())
}

/// A `kB` field of `/proc/self/status` (`VmRSS`, `VmHWM`).
fn status_kib(field: &str) -> u64 {
    status_field("self", field)
        .and_then(|v| v.trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/self/status"))
}

fn rss_kib() -> u64 {
    status_kib("VmRSS")
}

/// Resets `VmHWM` to the current RSS (`/proc/self/clear_refs`, value 5).
fn reset_peak_rss() {
    std::fs::write("/proc/self/clear_refs", "5").unwrap();
}

/// Live (not zombie) processes whose environment has [`MARKER_VAR`] equal to `marker` or
/// starting with `<marker>-`: `(pid, command line)`.
fn marked_processes(marker: &str) -> Vec<(u32, String)> {
    let exact = format!("{MARKER_VAR}={marker}");
    let prefix = format!("{exact}-");
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        // Another user's process, or one that just ended.
        let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) else {
            continue;
        };
        let marked = environ
            .split(|&b| b == 0)
            .any(|var| var == exact.as_bytes() || var.starts_with(prefix.as_bytes()));
        if marked && crate::alive(pid) {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            found.push((pid, String::from_utf8_lossy(&cmdline).replace('\0', " ")));
        }
    }
    found
}

/// [`marked_processes`] once there are `count` of them, or after 2 s: a SIGKILLed process is
/// gone a moment after the signal, not at once, and a `/proc` scan under heavy load once
/// missed a running process (cycle 307 of a 1,000-cycle `stubborn` run).
async fn marked_processes_when(marker: &str, count: usize) -> Vec<(u32, String)> {
    crate::poll(
        Duration::from_secs(2),
        || marked_processes(marker),
        |found| found.len() == count,
    )
    .await
}

/// [`marked_processes`] after waiting up to 2 s for them to go.
async fn marked_processes_after_grace(marker: &str) -> Vec<(u32, String)> {
    marked_processes_when(marker, 0).await
}

/// Children of this process that exited and were never waited for.
fn zombie_children() -> usize {
    let me = std::process::id();
    let mut zombies = 0;
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid …`; `comm` may hold spaces and parentheses.
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let mut fields = rest.split_whitespace();
        let state = fields.next();
        let ppid = fields.next().and_then(|p| p.parse::<u32>().ok());
        if state == Some("Z") && ppid == Some(me) {
            zombies += 1;
        }
    }
    zombies
}

/// `splitmix64`: the per-call random numbers of [`calls`], from the draw key and the call's
/// index, so a call's fate does not depend on the order the tasks run in.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The random number of call `i` of a [`calls`] run with `draw_key`.
fn call_random(draw_key: u64, i: usize) -> u64 {
    splitmix64(draw_key ^ (i as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93))
}

/// The text of a `tools/call` result's first content block.
fn first_text(result: &Value) -> &str {
    result
        .pointer("/content/0/text")
        .and_then(Value::as_str)
        .unwrap_or("<no text>")
}

/// The own test server in `mode`, marked `<run>-<n>`.
fn marked(mode: &str, run: &str, n: usize) -> ConnectConfig {
    ConnectConfig::new(server_bin().to_string_lossy())
        .with_env(MODE_VAR, mode)
        .with_env(MARKER_VAR, format!("{run}-{n}"))
        .with_request_timeout(Duration::from_secs(20))
}

// ---------------------------------------------------------------------------------------
// Connect → call → disconnect cycles

/// One cycle: connect, check the server's processes (the server, and for `stubborn` its
/// grandchild), call `echo`, disconnect.
async fn cycle(run: &str, stubborn: bool, n: usize) -> Duration {
    let started = Instant::now();
    let mode = if stubborn { "stubborn" } else { "normal" };
    let client = connect_mcp_tools(marked(mode, run, n)).await.unwrap();
    let marker = format!("{run}-{n}");
    // The server (and its grandchild) are running now.
    let expected = if stubborn { 2 } else { 1 };
    let processes = marked_processes_when(&marker, expected).await;
    assert_eq!(processes.len(), expected, "cycle {n}: {processes:?}");
    let message = format!("cycle {n}");
    let result = client
        .call_tool("echo")
        .arguments(args(json!({ "message": message })))
        .raw()
        .await
        .unwrap();
    assert_eq!(first_text(&result), format!("Echo: {message}"));
    client.disconnect().await;
    assert_eq!(client.pending_requests(), 0);
    started.elapsed()
}

/// Runs cycles `from..to`, `concurrency` at a time; the longest cycle.
async fn cycle_waves(
    run: &str,
    stubborn: bool,
    from: usize,
    to: usize,
    concurrency: usize,
) -> Duration {
    let mut longest = Duration::ZERO;
    let mut next = from;
    while next < to {
        let wave_end = (next + concurrency.max(1)).min(to);
        let mut wave = tokio::task::JoinSet::new();
        for n in next..wave_end {
            let run = run.to_owned();
            wave.spawn(async move { cycle(&run, stubborn, n).await });
        }
        while let Some(took) = wave.join_next().await {
            longest = longest.max(took.unwrap());
        }
        next = wave_end;
    }
    longest
}

async fn cycles(run: &str, stubborn: bool, total: usize, concurrency: usize) {
    assert!(
        total > 10,
        "at least 11 cycles: the reference is taken after 10"
    );
    let started = Instant::now();
    let fds_before = open_fds();
    let rss_before = rss_kib();
    let first_longest = cycle_waves(run, stubborn, 0, 10, concurrency.min(10)).await;
    let left_after_10 = marked_processes_after_grace(run).await;
    assert!(left_after_10.is_empty(), "{left_after_10:?}");
    let (fds_10, rss_10) = (settled_fds().await, rss_kib());
    let rest_longest = cycle_waves(run, stubborn, 10, total, concurrency).await;
    let wall = started.elapsed();
    let left = marked_processes_after_grace(run).await;
    // Up to 5 s for the last session's pipes to close.
    let fds_end = crate::poll(Duration::from_secs(5), open_fds, |fds| *fds == fds_10).await;
    let rss_end = rss_kib();
    let zombies = zombie_children();

    let mut report = Report::default();
    report.add("server", if stubborn { "stubborn" } else { "own" });
    report.add("cycles", total);
    report.add("concurrency", concurrency);
    report.add("wall_s", format!("{:.1}", wall.as_secs_f64()));
    report.add(
        "longest_cycle_ms",
        first_longest.max(rest_longest).as_millis(),
    );
    report.add("processes_left", left.len());
    report.add("zombie_children", zombies);
    report.add("fds_before", fds_before);
    report.add("fds_at_10", fds_10);
    report.add("fds_end", fds_end);
    report.add("rss_before_kib", rss_before);
    report.add("rss_at_10_kib", rss_10);
    report.add("rss_end_kib", rss_end);
    println!("{}", report.line());
    assert!(left.is_empty(), "processes left: {left:?}");
    assert_eq!(zombies, 0, "children never waited for");
    assert_eq!(
        fds_end, fds_10,
        "open file descriptors after cycle 10 and at the end"
    );
    assert!(
        rss_end <= rss_10 + RSS_TOLERANCE_KIB,
        "RSS grew from {rss_10} KiB after 10 cycles to {rss_end} KiB after {total}"
    );
}

// ---------------------------------------------------------------------------------------
// Many calls on one connection, some timed out or cancelled

/// What a call of [`calls`] is made to do, decided from its random number `r % 100`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    /// 0–3: `sleep` 60 s, no cancellation: must time out.
    TimedOut,
    /// 4–7: `sleep` 60 s, cancelled after 0–199 ms: must be cancelled.
    Cancelled,
    /// 8–9: `echo`, cancelled after 0–2 ms: answered or cancelled, whichever comes first.
    Racing,
    /// 10–99: `echo`: must be answered with its own message.
    Answered,
}

impl Kind {
    fn of(r: u64) -> Self {
        match r % 100 {
            0..4 => Kind::TimedOut,
            4..8 => Kind::Cancelled,
            8..10 => Kind::Racing,
            _ => Kind::Answered,
        }
    }
}

/// How a call of [`calls`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    Ok = 1,
    TimedOut = 2,
    Cancelled = 3,
    /// No outcome 10 s after the timeout: the call hangs.
    Hung = 4,
    /// Anything else: a wrong answer or another error (kept in [`Tally::wrong`]).
    Wrong = 5,
}

impl Outcome {
    const ALL: [Outcome; 5] = [
        Outcome::Ok,
        Outcome::TimedOut,
        Outcome::Cancelled,
        Outcome::Hung,
        Outcome::Wrong,
    ];
}

/// The outcomes of a [`calls`] run, one byte per call, allocated (and touched) before the
/// first RSS reading, so the bookkeeping does not grow the RSS the run measures.
struct Tally {
    /// The [`Outcome`] of call `i` as its discriminant (0: none yet).
    outcome: Vec<AtomicU8>,
    /// How many times call `i` resolved.
    resolved: Vec<AtomicU8>,
    /// What the first 10 [`Outcome::Wrong`] calls got.
    wrong: Mutex<Vec<String>>,
}

impl Tally {
    fn new(calls: usize) -> Self {
        Self {
            outcome: (0..calls).map(|_| AtomicU8::new(0)).collect(),
            resolved: (0..calls).map(|_| AtomicU8::new(0)).collect(),
            wrong: Mutex::new(Vec::new()),
        }
    }

    fn record(&self, i: usize, outcome: Outcome, wrong: impl FnOnce() -> String) {
        self.outcome[i].store(outcome as u8, Ordering::Relaxed);
        self.resolved[i].fetch_add(1, Ordering::Relaxed);
        if outcome == Outcome::Wrong {
            let mut kept = self.wrong.lock().unwrap();
            if kept.len() < 10 {
                kept.push(wrong());
            }
        }
    }

    fn outcome(&self, i: usize) -> Option<Outcome> {
        let code = self.outcome[i].load(Ordering::Relaxed);
        Outcome::ALL.into_iter().find(|o| *o as u8 == code)
    }
}

/// Call `i`: does what [`Kind::of`] decides for it and records how it ended.
async fn one_call(client: &McpClient, tally: &Tally, i: usize, draw_key: u64, timeout: Duration) {
    let r = call_random(draw_key, i);
    let kind = Kind::of(r);
    let message = format!("call {i}");
    let echo = args(json!({ "message": message }));
    let sleep = args(json!({ "ms": 60_000 }));
    let token = CancellationToken::new();
    let cancel_after = |ms: u64| {
        let token = token.clone();
        async move {
            tokio::time::sleep(Duration::from_millis(ms)).await;
            token.cancel();
        }
    };
    let call = async {
        match kind {
            Kind::TimedOut => client.call_tool("sleep").arguments(sleep).raw().await,
            Kind::Cancelled => {
                let call = client
                    .call_tool("sleep")
                    .arguments(sleep)
                    .cancel_on(&token)
                    .raw();
                tokio::join!(call, cancel_after((r >> 8) % 200)).0
            }
            Kind::Racing => {
                let call = client
                    .call_tool("echo")
                    .arguments(echo)
                    .cancel_on(&token)
                    .raw();
                tokio::join!(call, cancel_after((r >> 8) % 3)).0
            }
            Kind::Answered => client.call_tool("echo").arguments(echo).raw().await,
        }
    };
    match tokio::time::timeout(timeout + Duration::from_secs(10), call).await {
        Err(_) => tally.record(i, Outcome::Hung, String::new),
        Ok(Ok(result)) if first_text(&result) == format!("Echo: {message}") => {
            tally.record(i, Outcome::Ok, String::new);
        }
        Ok(Ok(result)) => tally.record(i, Outcome::Wrong, || format!("call {i}: {result}")),
        Ok(Err(e)) if e.is_timeout() => tally.record(i, Outcome::TimedOut, String::new),
        Ok(Err(e)) if e.is_cancelled() => tally.record(i, Outcome::Cancelled, String::new),
        Ok(Err(e)) => tally.record(i, Outcome::Wrong, || format!("call {i}: {}", e.chain())),
    }
}

/// Runs calls `from..to` on `concurrency` tasks.
async fn call_phase(
    client: &Arc<McpClient>,
    tally: &Arc<Tally>,
    (from, to): (usize, usize),
    concurrency: usize,
    draw_key: u64,
    timeout: Duration,
) {
    let next = Arc::new(AtomicUsize::new(from));
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..concurrency {
        let (client, tally, next) = (Arc::clone(client), Arc::clone(tally), Arc::clone(&next));
        tasks.spawn(async move {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= to {
                    return;
                }
                one_call(&client, &tally, i, draw_key, timeout).await;
            }
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.unwrap();
    }
}

async fn calls(run: &str, total: usize, concurrency: usize, timeout: Duration, draw_key: u64) {
    let started = Instant::now();
    let tally = Arc::new(Tally::new(total));
    let client = Arc::new(
        connect_mcp_tools(marked("normal", run, 0).with_request_timeout(timeout))
            .await
            .unwrap(),
    );
    let rss_start = rss_kib();
    // The reference: after the first tenth of the calls (allocator and buffers warm).
    let warm = total / 10;
    call_phase(&client, &tally, (0, warm), concurrency, draw_key, timeout).await;
    let pending_after_warm = client.pending_requests();
    let rss_warm = rss_kib();
    call_phase(
        &client,
        &tally,
        (warm, total),
        concurrency,
        draw_key,
        timeout,
    )
    .await;
    let pending_end = client.pending_requests();
    let rss_end = rss_kib();
    let wall = started.elapsed();
    // The connection still serves.
    let after = client
        .call_tool("echo")
        .arguments(args(json!({"message": "after"})))
        .raw()
        .await
        .unwrap();
    assert_eq!(first_text(&after), "Echo: after");
    client.disconnect().await;
    let left = marked_processes_after_grace(run).await;

    // Every call resolved exactly once, as decided where that is determined.
    let mut counts: BTreeMap<(Kind, Option<Outcome>), usize> = BTreeMap::new();
    let mut unexpected = Vec::new();
    let mut not_once = Vec::new();
    for i in 0..total {
        let kind = Kind::of(call_random(draw_key, i));
        let outcome = tally.outcome(i);
        let resolved = tally.resolved[i].load(Ordering::Relaxed);
        if resolved != 1 && not_once.len() < 10 {
            not_once.push(format!("call {i} resolved {resolved} times"));
        }
        let expected = match kind {
            Kind::TimedOut => outcome == Some(Outcome::TimedOut),
            Kind::Cancelled => outcome == Some(Outcome::Cancelled),
            Kind::Racing => matches!(outcome, Some(Outcome::Ok | Outcome::Cancelled)),
            Kind::Answered => outcome == Some(Outcome::Ok),
        };
        if !expected && unexpected.len() < 10 {
            unexpected.push(format!("call {i} ({kind:?}): {outcome:?}"));
        }
        *counts.entry((kind, outcome)).or_default() += 1;
    }
    let outcomes = |o: Outcome| {
        counts
            .iter()
            .filter(|((_, x), _)| *x == Some(o))
            .map(|(_, n)| n)
            .sum::<usize>()
    };
    let kinds = |k: Kind| {
        counts
            .iter()
            .filter(|((x, _), _)| *x == k)
            .map(|(_, n)| n)
            .sum::<usize>()
    };
    let (ok, timed_out, cancelled) = (
        outcomes(Outcome::Ok),
        outcomes(Outcome::TimedOut),
        outcomes(Outcome::Cancelled),
    );

    let mut report = Report::default();
    report.add("calls", total);
    report.add("concurrency", concurrency);
    report.add("timeout_ms", timeout.as_millis());
    report.add("draw_key", draw_key);
    report.add("wall_s", format!("{:.1}", wall.as_secs_f64()));
    report.add("ok", ok);
    report.add("timed_out", timed_out);
    report.add("cancelled", cancelled);
    report.add("other", total - ok - timed_out - cancelled);
    report.add("racing", kinds(Kind::Racing));
    report.add(
        "racing_ok",
        counts
            .get(&(Kind::Racing, Some(Outcome::Ok)))
            .copied()
            .unwrap_or(0),
    );
    report.add("pending_after_warm", pending_after_warm);
    report.add("pending_end", pending_end);
    report.add("rss_start_kib", rss_start);
    report.add("rss_warm_kib", rss_warm);
    report.add("rss_end_kib", rss_end);
    report.add("processes_left", left.len());
    println!("{}", report.line());

    assert!(not_once.is_empty(), "{not_once:?}");
    assert_eq!(
        ok + timed_out + cancelled,
        total,
        "{counts:?}; {:?}",
        tally.wrong.lock().unwrap()
    );
    assert!(unexpected.is_empty(), "{unexpected:?}");
    assert_eq!(
        timed_out,
        kinds(Kind::TimedOut),
        "exactly the calls made to time out did"
    );
    assert_eq!((pending_after_warm, pending_end), (0, 0));
    assert!(left.is_empty(), "processes left: {left:?}");
    assert!(
        rss_end <= rss_warm + RSS_TOLERANCE_KIB,
        "RSS grew from {rss_warm} KiB after {warm} calls to {rss_end} KiB after {total}"
    );
}

// ---------------------------------------------------------------------------------------
// A flood of notifications, a server that drips its answer

async fn flood(run: &str, notifications: u64, progress: bool, timeout: Duration) {
    let client = connect_mcp_tools(marked("flood", run, 0).with_request_timeout(timeout))
        .await
        .unwrap();
    let rss_start = rss_kib();
    reset_peak_rss();
    let started = Instant::now();
    let arguments = args(json!({ "count": notifications }));
    // Progress values as received: in order, 1, 2, 3, … (checked as they arrive, so
    // nothing is kept per notification).
    let mut received = 0u64;
    let mut out_of_order = 0u64;
    let reply = if progress {
        client
            .call_tool("flood")
            .arguments(arguments)
            .progress(|p: Progress| {
                received += 1;
                if p.progress != received as f64 {
                    out_of_order += 1;
                }
            })
            .raw()
            .await
    } else {
        client.call_tool("flood").arguments(arguments).raw().await
    };
    let to_timeout = started.elapsed();
    let error = reply.expect_err("the flood call is never answered");
    assert!(error.is_timeout(), "{}", error.chain());
    assert_eq!(client.pending_requests(), 0);
    // The rest of the flood is read before this answer (one pipe, in order); each try is
    // bounded by the timeout, and all of them by 10 minutes (a debug build on a loaded
    // 2-core machine reads about 10,000 notifications a second).
    let mut tries = 0;
    let after = loop {
        tries += 1;
        match client
            .call_tool("echo")
            .arguments(args(json!({"message": "after"})))
            .raw()
            .await
        {
            Ok(result) => break result,
            Err(e) if e.is_timeout() && started.elapsed() < Duration::from_secs(600) => continue,
            Err(e) => panic!("after the flood: {}", e.chain()),
        }
    };
    assert_eq!(first_text(&after), "Echo: after");
    let drained = started.elapsed();
    let peak_growth = status_kib("VmHWM").saturating_sub(rss_start);
    let rss_end = rss_kib();
    client.disconnect().await;
    let left = marked_processes_after_grace(run).await;

    let mut report = Report::default();
    report.add("notifications", notifications);
    report.add("kind", if progress { "progress" } else { "message" });
    report.add("timeout_ms", timeout.as_millis());
    report.add("time_to_timeout_ms", to_timeout.as_millis());
    report.add("flood_read_s", format!("{:.1}", drained.as_secs_f64()));
    report.add("echo_tries", tries);
    if progress {
        report.add("progress_received", received);
    }
    report.add("rss_start_kib", rss_start);
    report.add("peak_rss_growth_kib", peak_growth);
    report.add("rss_end_kib", rss_end);
    report.add("processes_left", left.len());
    println!("{}", report.line());
    assert!(to_timeout >= timeout, "{to_timeout:?}");
    assert!(to_timeout <= timeout + TIMEOUT_SLACK, "{to_timeout:?}");
    assert!(
        peak_growth <= FLOOD_RSS_BOUND_KIB,
        "peak RSS grew {peak_growth} KiB while {notifications} notifications arrived"
    );
    assert_eq!(out_of_order, 0, "progress out of order");
    if progress {
        assert!(
            received > 0 && received <= notifications,
            "{received} progress notifications"
        );
    }
    assert!(left.is_empty(), "processes left: {left:?}");
}

async fn drip(run: &str, timeout: Duration) {
    let client = connect_mcp_tools(marked("drip", run, 0).with_request_timeout(timeout))
        .await
        .unwrap();
    let rss_start = rss_kib();
    reset_peak_rss();
    let started = Instant::now();
    let reply = client
        .call_tool("drip")
        .arguments(args(json!({"ms": 1000})))
        .raw()
        .await;
    let to_timeout = started.elapsed();
    let peak_growth = status_kib("VmHWM").saturating_sub(rss_start);
    let error = reply.expect_err("the answer takes over a minute to arrive");
    assert!(error.is_timeout(), "{}", error.chain());
    assert_eq!(client.pending_requests(), 0);
    let stopping = Instant::now();
    client.disconnect().await;
    let disconnect = stopping.elapsed();
    let left = marked_processes_after_grace(run).await;

    let mut report = Report::default();
    report.add("timeout_ms", timeout.as_millis());
    report.add("time_to_timeout_ms", to_timeout.as_millis());
    report.add("bytes_dripped_about", to_timeout.as_secs());
    report.add("rss_start_kib", rss_start);
    report.add("peak_rss_growth_kib", peak_growth);
    report.add("disconnect_ms", disconnect.as_millis());
    report.add("processes_left", left.len());
    println!("{}", report.line());
    assert!(to_timeout >= timeout, "{to_timeout:?}");
    assert!(to_timeout <= timeout + TIMEOUT_SLACK, "{to_timeout:?}");
    assert!(peak_growth <= RSS_TOLERANCE_KIB, "{peak_growth} KiB");
    assert!(left.is_empty(), "processes left: {left:?}");
}

// ---------------------------------------------------------------------------------------
// The tests: short versions (the slow tier of scripts/test) and full sizes (ignored, by hand)

#[cfg(target_os = "linux")]
#[test]
#[ignore = "slow tier (a short soak, a few seconds each): scripts/test runs it; alone: cargo test -p oma-mcp-test-server --all-features --test integration -- --ignored soak::short_"]
fn short_cycles_against_the_own_server() {
    run_isolated(
        &Scenario::Cycles {
            stubborn: false,
            cycles: 50,
            concurrency: 10,
        },
        SHORT_LIMIT,
    );
}

#[cfg(target_os = "linux")]
#[test]
#[ignore = "slow tier (a short soak, a few seconds each): scripts/test runs it; alone: cargo test -p oma-mcp-test-server --all-features --test integration -- --ignored soak::short_"]
fn short_cycles_against_a_stubborn_server() {
    run_isolated(
        &Scenario::Cycles {
            stubborn: true,
            cycles: 20,
            concurrency: 10,
        },
        SHORT_LIMIT,
    );
}

#[cfg(target_os = "linux")]
#[test]
#[ignore = "slow tier (a short soak, a few seconds each): scripts/test runs it; alone: cargo test -p oma-mcp-test-server --all-features --test integration -- --ignored soak::short_"]
fn short_calls_with_timeouts_and_cancellations() {
    run_isolated(
        &Scenario::Calls {
            calls: 5_000,
            concurrency: 64,
            timeout: Duration::from_secs(4),
            draw_key: 1,
        },
        SHORT_LIMIT,
    );
}

#[cfg(target_os = "linux")]
#[test]
#[ignore = "slow tier (a short soak, a few seconds each): scripts/test runs it; alone: cargo test -p oma-mcp-test-server --all-features --test integration -- --ignored soak::short_"]
fn short_flood_of_messages() {
    run_isolated(
        &Scenario::Flood {
            notifications: 100_000,
            progress: false,
            timeout: Duration::from_secs(2),
        },
        SHORT_LIMIT,
    );
}

#[cfg(target_os = "linux")]
#[test]
#[ignore = "slow tier (a short soak, a few seconds each): scripts/test runs it; alone: cargo test -p oma-mcp-test-server --all-features --test integration -- --ignored soak::short_"]
fn short_flood_of_progress() {
    run_isolated(
        &Scenario::Flood {
            notifications: 100_000,
            progress: true,
            timeout: Duration::from_secs(2),
        },
        SHORT_LIMIT,
    );
}

#[cfg(target_os = "linux")]
#[test]
#[ignore = "slow tier (a short soak, a few seconds each): scripts/test runs it; alone: cargo test -p oma-mcp-test-server --all-features --test integration -- --ignored soak::short_"]
fn short_drip() {
    run_isolated(
        &Scenario::Drip {
            timeout: Duration::from_secs(3),
        },
        SHORT_LIMIT,
    );
}

#[cfg(target_os = "linux")]
#[test]
#[ignore = "soak, minutes: cargo test --release -p oma-mcp-test-server --test integration soak::full -- --ignored --nocapture --test-threads=1"]
fn full_cycles_against_the_own_server() {
    run_isolated(
        &Scenario::Cycles {
            stubborn: false,
            cycles: 1_000,
            concurrency: 10,
        },
        FULL_LIMIT,
    );
}

#[cfg(target_os = "linux")]
#[test]
#[ignore = "soak, minutes: cargo test --release -p oma-mcp-test-server --test integration soak::full -- --ignored --nocapture --test-threads=1"]
fn full_cycles_against_a_stubborn_server() {
    run_isolated(
        &Scenario::Cycles {
            stubborn: true,
            cycles: 1_000,
            concurrency: 10,
        },
        FULL_LIMIT,
    );
}

#[cfg(target_os = "linux")]
#[test]
#[ignore = "soak, minutes: cargo test --release -p oma-mcp-test-server --test integration soak::full -- --ignored --nocapture --test-threads=1"]
fn full_calls_with_timeouts_and_cancellations() {
    run_isolated(
        &Scenario::Calls {
            calls: 100_000,
            concurrency: 64,
            timeout: Duration::from_secs(2),
            draw_key: 1,
        },
        FULL_LIMIT,
    );
}

#[cfg(target_os = "linux")]
#[test]
#[ignore = "soak, minutes: cargo test --release -p oma-mcp-test-server --test integration soak::full -- --ignored --nocapture --test-threads=1"]
fn full_flood_of_messages() {
    run_isolated(
        &Scenario::Flood {
            notifications: 1_000_000,
            progress: false,
            timeout: Duration::from_secs(1),
        },
        FULL_LIMIT,
    );
}

#[cfg(target_os = "linux")]
#[test]
#[ignore = "soak, minutes: cargo test --release -p oma-mcp-test-server --test integration soak::full -- --ignored --nocapture --test-threads=1"]
fn full_flood_of_progress() {
    run_isolated(
        &Scenario::Flood {
            notifications: 1_000_000,
            progress: true,
            timeout: Duration::from_secs(1),
        },
        FULL_LIMIT,
    );
}

#[cfg(target_os = "linux")]
#[test]
#[ignore = "soak, minutes: cargo test --release -p oma-mcp-test-server --test integration soak::full -- --ignored --nocapture --test-threads=1"]
fn full_drip() {
    run_isolated(
        &Scenario::Drip {
            timeout: Duration::from_secs(60),
        },
        FULL_LIMIT,
    );
}

/// The scenario text survives the trip through the environment.
#[test]
fn scenarios_round_trip_through_their_spec() {
    for scenario in [
        Scenario::Cycles {
            stubborn: true,
            cycles: 1000,
            concurrency: 10,
        },
        Scenario::Calls {
            calls: 5000,
            concurrency: 64,
            timeout: Duration::from_millis(1500),
            draw_key: 7,
        },
        Scenario::Flood {
            notifications: 100_000,
            progress: true,
            timeout: Duration::from_millis(500),
        },
        Scenario::Drip {
            timeout: Duration::from_secs(3),
        },
    ] {
        assert_eq!(Scenario::parse(&scenario.spec()), scenario);
    }
    assert_eq!(
        Scenario::parse("calls 5000 64 1500 7").spec(),
        "calls 5000 64 1500 7"
    );
}

/// The kinds of calls come in the stated shares: over 100,000 indices with draw key 1,
/// 4 % ± 0.3 each for timed out and cancelled, 2 % ± 0.3 racing.
#[test]
fn call_kinds_come_in_their_shares() {
    let mut counts = BTreeMap::new();
    for i in 0..100_000 {
        *counts
            .entry(format!("{:?}", Kind::of(call_random(1, i))))
            .or_insert(0u32) += 1;
    }
    let share = |k: &str| f64::from(counts[k]) / 1000.0;
    assert!((3.7..=4.3).contains(&share("TimedOut")), "{counts:?}");
    assert!((3.7..=4.3).contains(&share("Cancelled")), "{counts:?}");
    assert!((1.7..=2.3).contains(&share("Racing")), "{counts:?}");
    assert_eq!(counts.values().sum::<u32>(), 100_000);
}

/// A run marker for a test of this module that runs in the test process itself.
fn local_run(test: &str) -> String {
    format!("soak{}-{test}", std::process::id())
}

/// What the stubborn cycles rely on: the `stubborn` server starts a grandchild in its process
/// group; both ignore stdin EOF and SIGTERM; the client's disconnect still ends both.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn the_stubborn_server_and_its_grandchild_ignore_eof_and_sigterm() {
    use rustix::process::{Pid, Signal, getpgid, kill_process};

    let run = local_run("stubborn");
    let client = connect_mcp_tools(marked("stubborn", &run, 0))
        .await
        .unwrap();
    let server = client.pid().unwrap();
    let processes = marked_processes_when(&run, 2).await;
    assert_eq!(processes.len(), 2, "{processes:?}");
    let grandchild = processes
        .iter()
        .map(|(pid, _)| *pid)
        .find(|pid| *pid != server)
        .unwrap();
    let pid = |p: u32| Pid::from_raw(i32::try_from(p).unwrap()).unwrap();
    // The grandchild is the server's child, in the server's process group.
    let stat = std::fs::read_to_string(format!("/proc/{grandchild}/stat")).unwrap();
    let ppid: u32 = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(ppid, server);
    assert_eq!(getpgid(Some(pid(grandchild))).unwrap(), pid(server));
    // Its stdin is /dev/null (EOF at once). A process catches SIGTERM only once its handler
    // is set, a moment after it starts: wait for that, then SIGTERM to each.
    for process in [server, grandchild] {
        assert!(
            crate::poll(Duration::from_secs(5), || catches_sigterm(process), |c| *c).await,
            "{process} does not catch SIGTERM"
        );
    }
    kill_process(pid(grandchild), Signal::TERM).unwrap();
    kill_process(pid(server), Signal::TERM).unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(crate::alive(server), "the server died of SIGTERM");
    assert!(
        crate::alive(grandchild),
        "the grandchild died of SIGTERM or EOF"
    );
    // The server still serves.
    let result = client
        .call_tool("echo")
        .arguments(args(json!({"message": "still here"})))
        .raw()
        .await
        .unwrap();
    assert_eq!(first_text(&result), "Echo: still here");
    let started = Instant::now();
    client.disconnect().await;
    let took = started.elapsed();
    // EOF_GRACE and TERM_GRACE pass: the server ignores both, then SIGKILL ends the group.
    assert!(took >= Duration::from_secs(4), "{took:?}");
    let left = marked_processes_after_grace(&run).await;
    assert!(left.is_empty(), "{left:?}");
}

/// Whether `pid` catches SIGTERM: bit 15 of `SigCgt` in `/proc/<pid>/status` (see proc(5)).
#[cfg(target_os = "linux")]
fn catches_sigterm(pid: u32) -> bool {
    status_field(&pid.to_string(), "SigCgt")
        .and_then(|mask| u64::from_str_radix(&mask, 16).ok())
        .is_some_and(|mask| mask & (1 << (15 - 1)) != 0)
}

/// `pending_requests` counts the requests in flight; each leaves it however it ends: an
/// answer, a cancellation, a dropped call future, a timeout, a disconnect.
#[tokio::test]
async fn pending_requests_counts_the_calls_in_flight() {
    let client = Arc::new(connect_mcp_tools(crate::own("normal")).await.unwrap());
    assert_eq!(client.pending_requests(), 0);
    let sleep = || args(json!({"ms": 60_000}));
    let tokens: Vec<CancellationToken> = (0..3).map(|_| CancellationToken::new()).collect();
    let mut calls = Vec::new();
    for token in &tokens {
        let (client, token) = (Arc::clone(&client), token.clone());
        calls.push(tokio::spawn(async move {
            client
                .call_tool("sleep")
                .arguments(sleep())
                .cancel_on(&token)
                .raw()
                .await
        }));
    }
    let until = |n: usize| {
        let client = Arc::clone(&client);
        async move {
            let start = Instant::now();
            while client.pending_requests() != n && start.elapsed() < Duration::from_secs(10) {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            client.pending_requests()
        }
    };
    assert_eq!(until(3).await, 3);
    // Answered: an echo beside the three comes and goes.
    let result = client
        .call_tool("echo")
        .arguments(args(json!({"message": "beside"})))
        .raw()
        .await
        .unwrap();
    assert_eq!(first_text(&result), "Echo: beside");
    assert_eq!(client.pending_requests(), 3);
    // Cancelled.
    tokens[0].cancel();
    let mut calls = calls.into_iter();
    let first = calls.next().unwrap().await.unwrap().unwrap_err();
    assert!(first.is_cancelled(), "{}", first.chain());
    assert_eq!(client.pending_requests(), 2);
    // Dropped: the call's future is aborted.
    let second = calls.next().unwrap();
    second.abort();
    assert!(second.await.unwrap_err().is_cancelled());
    assert_eq!(client.pending_requests(), 1);
    // Disconnect: the last one fails with the connection.
    client.disconnect().await;
    let third = calls.next().unwrap().await.unwrap().unwrap_err();
    assert_eq!(
        third.chain().to_string(),
        "MCP error -32000: Connection closed"
    );
    assert_eq!(client.pending_requests(), 0);

    // Timed out.
    let client =
        connect_mcp_tools(crate::own("normal").with_request_timeout(Duration::from_secs(2)))
            .await
            .unwrap();
    let err = client
        .call_tool("sleep")
        .arguments(sleep())
        .raw()
        .await
        .unwrap_err();
    assert!(err.is_timeout(), "{}", err.chain());
    assert_eq!(client.pending_requests(), 0);
    client.disconnect().await;
}
