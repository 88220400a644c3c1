//! Runs a target for N cases with a seeded proptest [`TestRunner`], under a per-case time
//! budget, and saves a failing (shrunk) input as a regression fixture.

use std::cell::RefCell;
use std::hash::{Hash, Hasher};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Once, PoisonError};
use std::time::{Duration, Instant};

use proptest::strategy::BoxedStrategy;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};
use serde_json::{Value, json};

use crate::targets::Target;

/// How to run a target.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// Number of generated cases.
    pub cases: u32,
    /// The random generator's seed: the same seed generates the same cases.
    pub seed: u64,
    /// The longest one case may run before it counts as a failure (hang or blow-up).
    pub case_timeout: Duration,
    /// Where failing inputs are saved: `<regressions>/<target>/<name>.json`.
    pub regressions: PathBuf,
}

/// What a run found.
#[derive(Debug)]
pub enum Outcome {
    /// Every case held.
    Passed {
        /// How many cases ran.
        cases: u32,
    },
    /// A case broke an invariant, panicked or ran over the time budget. When it ran over,
    /// the case is still running on its thread: the caller should exit the process.
    Failed {
        /// What broke.
        reason: String,
        /// The (shrunk, unless timed out) input.
        input: Value,
        /// The fixture it was saved to, or why saving failed.
        fixture: Result<PathBuf, String>,
        /// Whether the case ran over the time budget.
        timed_out: bool,
    },
}

thread_local! {
    /// The last panic's location and message on this thread, set by the hook installed by
    /// [`quiet_panics`].
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Replaces the panic hook with one that records the location and message for the failure
/// report instead of printing them (a target runs thousands of cases; panics inside
/// libraries that catch them themselves would flood the output).
fn quiet_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let message = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "<non-string panic payload>".to_owned());
            let at = info
                .location()
                .map(|l| format!(" at {}:{}", l.file(), l.line()))
                .unwrap_or_default();
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("panicked{at}: {message}")));
        }));
    });
}

/// Runs `check` on `input`, turning a panic into `Err("panicked at …: …")`.
pub fn check_catching(check: fn(&Value) -> Result<(), String>, input: &Value) -> Result<(), String> {
    quiet_panics();
    LAST_PANIC.with(|p| p.borrow_mut().take());
    match catch_unwind(AssertUnwindSafe(|| check(input))) {
        Ok(result) => result,
        Err(_) => Err(LAST_PANIC
            .with(|p| p.borrow_mut().take())
            .unwrap_or_else(|| "panicked".to_owned())),
    }
}

/// The 32-byte ChaCha seed of a `u64` seed (its little-endian bytes, repeated).
fn rng(seed: u64) -> TestRng {
    let bytes: Vec<u8> = seed.to_le_bytes().iter().copied().cycle().take(32).collect();
    TestRng::from_seed(RngAlgorithm::ChaCha, &bytes)
}

/// The file name of a saved input: a stable hash of its JSON text.
fn fixture_name(input: &Value) -> String {
    let mut hasher = std::hash::DefaultHasher::new();
    input.to_string().hash(&mut hasher);
    format!("{:016x}.json", hasher.finish())
}

/// Saves a failing input as `<dir>/<target>/<hash>.json`: `{"target", "seed", "failure",
/// "input"}`, pretty-printed.
///
/// # Errors
/// The I/O error, as text with the path.
pub fn save_fixture(
    dir: &Path,
    target: &str,
    seed: u64,
    failure: &str,
    input: &Value,
) -> Result<PathBuf, String> {
    let folder = dir.join(target);
    std::fs::create_dir_all(&folder)
        .map_err(|e| format!("cannot create {}: {e}", folder.display()))?;
    let path = folder.join(fixture_name(input));
    let fixture = json!({"target": target, "seed": seed, "failure": failure, "input": input});
    let mut text = serde_json::to_string_pretty(&fixture)
        .map_err(|e| format!("cannot serialize the fixture: {e}"))?;
    text.push('\n');
    std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

/// The case in progress: when it started and its input.
type Current = Arc<Mutex<Option<(Instant, Value)>>>;

/// Runs `target` as `config` says; see [`run_check`].
pub fn run(target: &Target, config: &RunConfig) -> Outcome {
    run_check(target.name, target.strategy, target.check, config)
}

/// Runs `check` on `config.cases` inputs from `strategy()`, on a worker thread watched by this
/// one: a case over `config.case_timeout` fails the run at once (its input saved as it was);
/// a failing case is shrunk to a smaller failing input first. A failing input is saved under
/// `config.regressions/<name>/`.
pub fn run_check(
    name: &'static str,
    strategy: fn() -> BoxedStrategy<Value>,
    check: fn(&Value) -> Result<(), String>,
    config: &RunConfig,
) -> Outcome {
    let current: Current = Arc::new(Mutex::new(None));
    let worker = {
        let current = Arc::clone(&current);
        let cases = config.cases;
        let seed = config.seed;
        std::thread::Builder::new()
            .name(format!("fuzz-{name}"))
            .stack_size(64 * 1024 * 1024)
            .spawn(move || {
                let proptest_config = Config {
                    cases,
                    failure_persistence: None,
                    max_shrink_iters: 4096,
                    max_shrink_time: 60_000,
                    ..Config::default()
                };
                let mut runner = TestRunner::new_with_rng(proptest_config, rng(seed));
                runner.run(&strategy(), |input| {
                    *current.lock().unwrap_or_else(PoisonError::into_inner) =
                        Some((Instant::now(), input.clone()));
                    let result = check_catching(check, &input);
                    *current.lock().unwrap_or_else(PoisonError::into_inner) = None;
                    result.map_err(TestCaseError::fail)
                })
            })
    };
    let worker = match worker {
        Ok(w) => w,
        Err(e) => {
            return Outcome::Failed {
                reason: format!("cannot start the worker thread: {e}"),
                input: Value::Null,
                fixture: Err("nothing to save".into()),
                timed_out: false,
            };
        }
    };
    let failed = |reason: String, input: Value, timed_out: bool| {
        let fixture = save_fixture(&config.regressions, name, config.seed, &reason, &input);
        Outcome::Failed {
            reason,
            input,
            fixture,
            timed_out,
        }
    };
    while !worker.is_finished() {
        std::thread::sleep(Duration::from_millis(20));
        let stuck = current
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .filter(|(start, _)| start.elapsed() > config.case_timeout)
            .map(|(_, input)| input.clone());
        if let Some(input) = stuck {
            let reason = format!(
                "one case ran longer than {} s (a hang or a blow-up)",
                config.case_timeout.as_secs_f64()
            );
            return failed(reason, input, true);
        }
    }
    match worker.join() {
        Ok(Ok(())) => Outcome::Passed {
            cases: config.cases,
        },
        Ok(Err(TestError::Fail(reason, input))) => failed(reason.to_string(), input, false),
        Ok(Err(TestError::Abort(reason))) => failed(
            format!("the generator gave up: {reason}"),
            Value::Null,
            false,
        ),
        Err(_) => failed("the runner itself panicked".into(), Value::Null, false),
    }
}

/// A saved fixture: its target and input.
#[derive(Debug, Clone)]
pub struct Fixture {
    /// Where it was read from.
    pub path: PathBuf,
    /// The target's name.
    pub target: String,
    /// The input.
    pub input: Value,
}

/// Every fixture under `dir` (`<dir>/<target>/*.json`), sorted by path.
///
/// # Errors
/// A directory or file that cannot be read, or a file that is not a fixture, as text with
/// its path.
pub fn fixtures(dir: &Path) -> Result<Vec<Fixture>, String> {
    let mut paths = Vec::new();
    let read = |d: &Path| std::fs::read_dir(d).map_err(|e| format!("cannot read {}: {e}", d.display()));
    for entry in read(dir)? {
        let folder = entry.map_err(|e| format!("cannot read {}: {e}", dir.display()))?.path();
        if !folder.is_dir() {
            continue;
        }
        for file in read(&folder)? {
            let path = file.map_err(|e| format!("cannot read {}: {e}", folder.display()))?.path();
            if path.extension().is_some_and(|e| e == "json") {
                paths.push(path);
            }
        }
    }
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let value: Value = serde_json::from_str(&text)
                .map_err(|e| format!("{} is not JSON: {e}", path.display()))?;
            let target = value["target"]
                .as_str()
                .ok_or_else(|| format!("{} has no string \"target\"", path.display()))?
                .to_owned();
            let input = value
                .get("input")
                .cloned()
                .ok_or_else(|| format!("{} has no \"input\"", path.display()))?;
            Ok(Fixture {
                path,
                target,
                input,
            })
        })
        .collect()
}
