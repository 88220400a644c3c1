//! Code generation benchmark: generates every server of the shared corpus
//! (`$OMA_MCP_SHARED/corpus/servers/*.json`, 23 real `tools/list` captures, 744 tools) and prints
//! the time per server and in total (median of `--repeat` runs), then, with `--check`, the `cargo
//! check` time of one generated module (default: github-mcp-server, 117 tools) in a crate that
//! depends only on `oma-mcp-runtime`.
//!
//! ```sh
//! cargo run --release -p oma-mcp-bench --bin codegen-bench -- [--repeat 5] [--check [SERVER]]
//! ```
//!
//! The corpus is `corpus/` of the shared reference folder: `$OMA_MCP_SHARED`, default `shared`
//! beside the workspace (`oma_mcp_test_support::shared_path`).

use oma_mcp_bench::{median, ms};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use oma_mcp_build::codegen::{GenerateOptions, generate};
use oma_mcp_runtime::Snapshot;

fn main() -> ExitCode {
    let mut repeat = 5usize;
    let mut check: Option<String> = None;
    let mut args = std::env::args().skip(1).peekable();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--repeat" => match args.next().and_then(|n| n.parse().ok()) {
                Some(n) if n > 0 => repeat = n,
                _ => return usage("--repeat takes a positive number"),
            },
            "--check" => {
                check = Some(match args.peek() {
                    Some(next) if !next.starts_with("--") => args.next().unwrap_or_default(),
                    _ => "github-mcp-server".to_owned(),
                });
            }
            other => return usage(&format!("unknown argument {other:?}")),
        }
    }
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let shared = oma_mcp_test_support::shared_path();
    let servers = shared.join("corpus/servers");
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&servers) {
        Ok(dir) => dir
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect(),
        Err(e) => {
            eprintln!("codegen-bench: cannot read {}: {e}", servers.display());
            return ExitCode::from(2);
        }
    };
    files.sort();
    let mut snapshots = Vec::new();
    for path in &files {
        match Snapshot::read(path) {
            Ok(s) => snapshots.push((stem(path), s)),
            Err(e) => {
                eprintln!("codegen-bench: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let options = GenerateOptions::default();
    let mut totals = Vec::with_capacity(repeat);
    let mut per_server = vec![Vec::with_capacity(repeat); snapshots.len()];
    let mut lines = 0;
    for _ in 0..repeat {
        let start = Instant::now();
        lines = 0;
        for (i, (_, snapshot)) in snapshots.iter().enumerate() {
            let one = Instant::now();
            match generate(snapshot, &options) {
                Ok(g) => lines += g.code.lines().count(),
                Err(e) => {
                    eprintln!("codegen-bench: {e}");
                    return ExitCode::FAILURE;
                }
            }
            per_server[i].push(one.elapsed());
        }
        totals.push(start.elapsed());
    }
    let tools: usize = snapshots.iter().map(|(_, s)| s.tools.len()).sum();
    println!("| server | tools | generate (median of {repeat}) |");
    println!("|---|---:|---:|");
    for ((name, snapshot), times) in snapshots.iter().zip(&mut per_server) {
        println!(
            "| {name} | {} | {:.1} ms |",
            snapshot.tools.len(),
            ms(median(times))
        );
    }
    println!(
        "| **all {} servers** | **{tools}** | **{:.1} ms** ({lines} lines) |",
        snapshots.len(),
        ms(median(&mut totals))
    );
    if let Some(server) = check {
        let Some((_, snapshot)) = snapshots.iter().find(|(n, _)| *n == server) else {
            return usage(&format!("no corpus server {server:?}"));
        };
        match cargo_check(&workspace, &server, snapshot) {
            Ok((cold, warm)) => println!(
                "cargo check of the generated {server} module ({} tools): {:.2} s after a \
                 change to the module (first build with dependencies: {:.1} s)",
                snapshot.tools.len(),
                warm.as_secs_f64(),
                cold.as_secs_f64()
            ),
            Err(e) => {
                eprintln!("codegen-bench: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}

/// Writes a crate with the generated module into `target/codegen-bench`, checks it once
/// (dependencies included), then again after touching the module: (first, re-check).
fn cargo_check(
    workspace: &Path,
    server: &str,
    snapshot: &Snapshot,
) -> Result<(Duration, Duration), String> {
    let target = workspace.join("target/codegen-bench");
    let krate = target.join("crate");
    std::fs::create_dir_all(krate.join("src")).map_err(|e| e.to_string())?;
    let runtime = workspace.join("oma-mcp-runtime");
    let manifest = format!(
        "[package]\nname = \"oma-mcp-codegen-bench\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
         publish = false\n\n[dependencies]\noma-mcp-runtime = {{ path = {:?} }}\n\n[workspace]\n",
        runtime.display().to_string()
    );
    let code = generate(snapshot, &GenerateOptions::default())
        .map_err(|e| e.to_string())?
        .code;
    let write = |path: PathBuf, text: &str| std::fs::write(path, text).map_err(|e| e.to_string());
    write(krate.join("Cargo.toml"), &manifest)?;
    if let Ok(lock) = std::fs::read_to_string(workspace.join("Cargo.lock")) {
        write(krate.join("Cargo.lock"), &lock)?;
    }
    write(
        krate.join("src/lib.rs"),
        &format!(
            "//! Bench.\n#![allow(missing_docs)]\npub mod tools {{\n    include!(\"{server}.rs\");\n}}\n"
        ),
    )?;
    write(krate.join(format!("src/{server}.rs")), &code)?;
    let check = || -> Result<Duration, String> {
        let start = Instant::now();
        let status = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .args(["check", "--quiet", "--manifest-path"])
            .arg(krate.join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", &target)
            .status()
            .map_err(|e| e.to_string())?;
        if !status.success() {
            return Err(format!("cargo check failed in {}", krate.display()));
        }
        Ok(start.elapsed())
    };
    let cold = check()?;
    // A change to the generated module only: what a snapshot refresh costs.
    write(krate.join(format!("src/{server}.rs")), &format!("{code}\n"))?;
    let warm = check()?;
    Ok((cold, warm))
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn usage(message: &str) -> ExitCode {
    eprintln!("codegen-bench: {message}\nusage: codegen-bench [--repeat N] [--check [SERVER]]");
    ExitCode::from(2)
}
