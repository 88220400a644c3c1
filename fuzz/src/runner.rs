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
    /// The most CPU time one case may use before it counts as a failure (a hang or a
    /// blow-up); see [`run_check`].
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
    /// Whether this thread is inside [`check_catching`] (then panics are recorded, not
    /// printed).
    static CATCHING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Wraps the panic hook: inside [`check_catching`], a panic's location and message are
/// recorded for the failure report instead of printed (a target runs thousands of cases;
/// panics inside libraries that catch them themselves would flood the output); elsewhere
/// the previous hook runs.
fn quiet_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !CATCHING.with(std::cell::Cell::get) {
                previous(info);
                return;
            }
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
pub fn check_catching(
    check: fn(&Value) -> Result<(), String>,
    input: &Value,
) -> Result<(), String> {
    quiet_panics();
    LAST_PANIC.with(|p| p.borrow_mut().take());
    CATCHING.with(|c| c.set(true));
    let result = catch_unwind(AssertUnwindSafe(|| check(input)));
    CATCHING.with(|c| c.set(false));
    match result {
        Ok(result) => result,
        Err(_) => Err(LAST_PANIC
            .with(|p| p.borrow_mut().take())
            .unwrap_or_else(|| "panicked".to_owned())),
    }
}

/// The 32-byte ChaCha seed of a `u64` seed (its little-endian bytes, repeated).
pub(crate) fn rng(seed: u64) -> TestRng {
    let bytes: Vec<u8> = seed
        .to_le_bytes()
        .iter()
        .copied()
        .cycle()
        .take(32)
        .collect();
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

/// The case in progress: its number (counting from 1) and input.
type Current = Arc<Mutex<Option<(u64, Value)>>>;

/// This process's CPU time (user + system) from `/proc/self/stat`, in clock ticks of 10 ms
/// (Linux's `USER_HZ` of 100); `None` where there is no such file.
fn process_cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: skip past it.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace().skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    Some(Duration::from_millis((user + system).saturating_mul(10)))
}

/// How long the case being watched has run: CPU time where the process's is known (so a
/// case starved by a loaded machine or `nice` is not blamed), else wall time. A case that
/// waits without using CPU fails after ten times the budget in wall time.
#[derive(Debug)]
struct Watch {
    case: u64,
    wall: Instant,
    cpu: Option<Duration>,
}

impl Watch {
    fn over(&self, budget: Duration) -> bool {
        let wall = self.wall.elapsed();
        let cpu = match (self.cpu, process_cpu_time()) {
            (Some(start), Some(now)) => now.saturating_sub(start),
            _ => wall,
        };
        cpu > budget || wall > budget.saturating_mul(10)
    }
}

/// Runs `target` as `config` says; see [`run_check`].
pub fn run(target: &Target, config: &RunConfig) -> Outcome {
    run_check(target.name, target.strategy, target.check, config)
}

/// Runs `check` on `config.cases` inputs from `strategy()`, on a worker thread watched by this
/// one: a case over `config.case_timeout` of CPU time (measured from when the watcher, which
/// looks every 20 ms, first sees it; wall time where CPU time is unknown, and ten times the
/// budget in wall time in any case) fails the run at once (its input saved as it was);
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
                let case = std::cell::Cell::new(0u64);
                runner.run(&strategy(), |input| {
                    case.set(case.get() + 1);
                    *current.lock().unwrap_or_else(PoisonError::into_inner) =
                        Some((case.get(), input.clone()));
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
    let mut watch: Option<Watch> = None;
    while !worker.is_finished() {
        std::thread::sleep(Duration::from_millis(20));
        let running = current
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .map(|(case, _)| *case);
        watch = match (running, watch) {
            (None, _) => None,
            (Some(case), Some(w)) if w.case == case => Some(w),
            (Some(case), _) => Some(Watch {
                case,
                wall: Instant::now(),
                cpu: process_cpu_time(),
            }),
        };
        let stuck = watch
            .as_ref()
            .is_some_and(|w| w.over(config.case_timeout))
            .then(|| {
                current
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .as_ref()
                    .map(|(_, input)| input.clone())
            })
            .flatten();
        if let Some(input) = stuck {
            let reason = format!(
                "one case ran longer than {} s of CPU time (a hang or a blow-up)",
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
    let read =
        |d: &Path| std::fs::read_dir(d).map_err(|e| format!("cannot read {}: {e}", d.display()));
    for entry in read(dir)? {
        let folder = entry
            .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
            .path();
        if !folder.is_dir() {
            continue;
        }
        for file in read(&folder)? {
            let path = file
                .map_err(|e| format!("cannot read {}: {e}", folder.display()))?
                .path();
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

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn numbers() -> BoxedStrategy<Value> {
        (0u32..1000).prop_map(Value::from).boxed()
    }

    fn config(dir: &Path, timeout: Duration) -> RunConfig {
        RunConfig {
            cases: 200,
            seed: 7,
            case_timeout: timeout,
            regressions: dir.to_path_buf(),
        }
    }

    fn under_100(input: &Value) -> Result<(), String> {
        match input.as_u64() {
            Some(n) if n >= 100 => Err(format!("{n} is not under 100")),
            _ => Ok(()),
        }
    }

    fn panics_on_odd(input: &Value) -> Result<(), String> {
        let n = input.as_u64().unwrap_or_default();
        assert!(n.is_multiple_of(2), "odd: {n}");
        Ok(())
    }

    /// Spins for 3 s of wall time (using CPU, as a blow-up does).
    fn spins(_: &Value) -> Result<(), String> {
        let start = Instant::now();
        let mut n = 0u64;
        while start.elapsed() < Duration::from_secs(3) {
            n = std::hint::black_box(n.wrapping_add(1));
        }
        Ok(())
    }

    #[test]
    fn a_failure_is_shrunk_saved_and_read_back() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let outcome = run_check(
            "t",
            numbers,
            under_100,
            &config(dir.path(), Duration::from_secs(30)),
        );
        let Outcome::Failed {
            reason,
            input,
            fixture,
            timed_out,
        } = outcome
        else {
            panic!("expected a failure, got {outcome:?}");
        };
        // Shrunk to the smallest failing input.
        assert_eq!(
            (reason.as_str(), &input, timed_out),
            ("100 is not under 100", &json!(100), false)
        );
        let path = fixture.unwrap_or_else(|e| panic!("{e}"));
        let saved: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_default())
                .unwrap_or_default();
        assert_eq!(
            saved,
            json!({"target": "t", "seed": 7, "failure": "100 is not under 100", "input": 100})
        );
        let read = fixtures(dir.path()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read.len(), 1);
        assert_eq!(
            (read[0].target.as_str(), &read[0].input),
            ("t", &json!(100))
        );
    }

    #[test]
    fn a_panic_is_a_failure_with_its_location() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let outcome = run_check(
            "p",
            numbers,
            panics_on_odd,
            &config(dir.path(), Duration::from_secs(30)),
        );
        let Outcome::Failed { reason, input, .. } = outcome else {
            panic!("expected a failure, got {outcome:?}");
        };
        let n = input.as_u64().unwrap_or_default();
        assert_eq!(n % 2, 1, "{input}");
        assert!(
            reason.starts_with("panicked at fuzz/src/runner.rs:")
                && reason.ends_with(&format!(": odd: {n}")),
            "{reason}"
        );
    }

    #[test]
    fn a_case_over_the_time_budget_fails_the_run() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let outcome = run_check(
            "slow",
            numbers,
            spins,
            &config(dir.path(), Duration::from_millis(200)),
        );
        let Outcome::Failed {
            reason,
            timed_out,
            fixture,
            ..
        } = outcome
        else {
            panic!("expected a failure, got {outcome:?}");
        };
        assert_eq!(
            (reason.as_str(), timed_out),
            (
                "one case ran longer than 0.2 s of CPU time (a hang or a blow-up)",
                true
            )
        );
        assert!(fixture.is_ok_and(|p| p.starts_with(dir.path().join("slow"))));
    }

    #[test]
    fn passing_checks_run_every_case() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let outcome = run_check(
            "ok",
            numbers,
            |_| Ok(()),
            &config(dir.path(), Duration::from_secs(30)),
        );
        assert!(
            matches!(outcome, Outcome::Passed { cases: 200 }),
            "{outcome:?}"
        );
        assert!(fixtures(dir.path()).is_ok_and(|f| f.is_empty()));
    }
}
