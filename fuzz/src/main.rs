//! `oma-mcp-fuzz`: runs the fuzz targets (see the crate docs), one line per target:
//! `<target>: N cases, 0 failures`. Exits 1 on a failure, after saving the failing input as a
//! regression fixture; 2 on a usage error.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;
use oma_mcp_fuzz::runner::{self, Outcome, RunConfig};
use oma_mcp_fuzz::{sample, targets};

/// Fuzzes oma-mcp's parsers and generators with random structured input (proptest).
#[derive(Debug, Parser)]
#[command(name = "oma-mcp-fuzz")]
struct Args {
    /// Run only these targets (repeatable): codegen, mapping, drift, framing, snapshot,
    /// manifest, validation. Default: all.
    #[arg(long = "target", value_name = "NAME")]
    targets: Vec<String>,
    /// Cases per target.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    cases: u32,
    /// Seed of the random generator; a run with the same seed and case count generates the
    /// same inputs. Default: from the clock (printed first).
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
    /// Most CPU time one case may use, in seconds, before it counts as a failure.
    #[arg(long, default_value_t = 10, value_name = "SECS")]
    case_timeout: u64,
    /// Folder for failing inputs (`<dir>/<target>/<hash>.json`). Default: the crate's
    /// `regressions/`, which its `regressions` test replays.
    #[arg(long, value_name = "DIR")]
    regressions: Option<PathBuf>,
    /// Also compile code generated from N random tool lists in one `cargo check`.
    #[arg(long, value_name = "N")]
    compile_sample: Option<usize>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    for name in &args.targets {
        if targets::target(name).is_none() {
            let known: Vec<&str> = targets::TARGETS.iter().map(|t| t.name).collect();
            eprintln!(
                "oma-mcp-fuzz: unknown target {name:?}; the targets are {}",
                known.join(", ")
            );
            return ExitCode::from(2);
        }
    }
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    println!("seed {seed} (rerun with --seed {seed})");
    let config = RunConfig {
        cases: args.cases,
        seed,
        case_timeout: Duration::from_secs(args.case_timeout),
        regressions: args
            .regressions
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("regressions")),
    };
    let mut failed = false;
    for target in targets::TARGETS
        .iter()
        .filter(|t| args.targets.is_empty() || args.targets.iter().any(|n| n == t.name))
    {
        let start = Instant::now();
        match runner::run(target, &config) {
            Outcome::Passed { cases } => {
                let secs = start.elapsed().as_secs_f64();
                println!("{}: {cases} cases, 0 failures", target.name);
                eprintln!(
                    "  ({secs:.1} s, {:.0} cases/s)",
                    f64::from(cases) / secs.max(1e-9)
                );
            }
            Outcome::Failed {
                reason,
                input,
                fixture,
                timed_out,
            } => {
                println!("{}: {} cases, 1 failure", target.name, config.cases);
                eprintln!("  failure: {reason}");
                eprintln!("  input: {input}");
                match fixture {
                    Ok(path) => eprintln!(
                        "  saved to {}; `cargo test -p oma-mcp-fuzz --test regressions` replays it",
                        path.display()
                    ),
                    Err(e) => eprintln!("  not saved: {e}"),
                }
                if timed_out {
                    // The case is still running on its thread; it cannot be stopped.
                    return ExitCode::FAILURE;
                }
                failed = true;
            }
        }
    }
    if let Some(n) = args.compile_sample {
        let start = Instant::now();
        let inputs = sample::random_inputs(n, seed);
        let target_dir = std::env::var_os("CARGO_TARGET_DIR")
            .map_or_else(|| sample::workspace_root().join("target"), PathBuf::from);
        match sample::compile(&inputs, &target_dir) {
            Ok(report) if report.failures.is_empty() => {
                println!(
                    "compile-sample: {} modules from {n} tool lists, 0 failures",
                    report.modules
                );
                eprintln!("  ({:.1} s)", start.elapsed().as_secs_f64());
            }
            Ok(report) => {
                println!(
                    "compile-sample: {} modules from {n} tool lists, {} failures",
                    report.modules,
                    report.failures.len()
                );
                for (input, messages) in &report.failures {
                    eprintln!("  {messages}");
                    match runner::save_fixture(
                        &config.regressions,
                        "compile",
                        seed,
                        messages,
                        input,
                    ) {
                        Ok(path) => eprintln!("  saved to {}", path.display()),
                        Err(e) => eprintln!("  not saved: {e}"),
                    }
                }
                failed = true;
            }
            Err(e) => {
                println!("compile-sample: 1 failure");
                eprintln!("  {e}");
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
