//! Compiles code generated from random tool lists: one crate with a module per list, checked
//! with `cargo check` in one batch. A wrong generator shows up as a compile error more often
//! than as a panic or a parse error.

use std::path::{Path, PathBuf};
use std::process::Command;

use oma_mcp_runtime::snapshot::Snapshot;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, TestRunner};
use serde_json::Value;

use crate::targets::{self, codegen_options};

/// The workspace root (this crate's parent folder).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from(".."), Path::to_path_buf)
}

/// `count` codegen inputs from the codegen target's generator, seeded with `seed`.
pub fn random_inputs(count: usize, seed: u64) -> Vec<Value> {
    let mut runner = TestRunner::new_with_rng(Config::default(), crate::runner::rng(seed));
    let strategy = targets::target("codegen").map(|t| (t.strategy)());
    let Some(strategy) = strategy else {
        return Vec::new();
    };
    (0..count)
        .filter_map(|_| strategy.new_tree(&mut runner).ok().map(|t| t.current()))
        .collect()
}

/// The result of compiling a sample.
#[derive(Debug)]
pub struct SampleReport {
    /// How many inputs generated code (the others were rejected with an error).
    pub modules: usize,
    /// The inputs whose module failed to compile, with the compiler's messages for it.
    pub failures: Vec<(Value, String)>,
}

/// Generates code for each of `inputs` (those that generate), writes them as modules
/// `m0`, `m1`, … of one crate in a temporary folder that depends on this workspace's
/// `oma-mcp-runtime` (feature `schemars`, as some inputs ask for it), and runs
/// `cargo check --offline` on it with `target_dir` (share the workspace's, so dependencies
/// are already built). The workspace's `Cargo.lock` is copied in, so dependency versions
/// match.
///
/// # Errors
/// When the crate cannot be written or cargo cannot run, or cargo fails with no message that
/// points at a module.
pub fn compile(inputs: &[Value], target_dir: &Path) -> Result<SampleReport, String> {
    let dir = tempfile::tempdir().map_err(|e| format!("cannot create a temporary folder: {e}"))?;
    let root = workspace_root();
    let runtime = root.join("oma-mcp-runtime");
    let write = |path: PathBuf, text: &str| {
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    std::fs::create_dir_all(dir.path().join("src"))
        .map_err(|e| format!("cannot create the sample crate: {e}"))?;
    write(
        dir.path().join("Cargo.toml"),
        &format!(
            "[package]\nname = \"oma-mcp-fuzz-sample\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
             publish = false\n\n[dependencies]\noma-mcp-runtime = {{ path = {:?}, features = \
             [\"schemars\"] }}\n\n[workspace]\n",
            runtime.display().to_string()
        ),
    )?;
    if let Ok(lock) = std::fs::read_to_string(root.join("Cargo.lock")) {
        write(dir.path().join("Cargo.lock"), &lock)?;
    }
    let mut lib = String::new();
    let mut modules = Vec::new();
    for input in inputs {
        let tools = input["tools"].as_array().cloned().unwrap_or_default();
        let Ok(snapshot) = Snapshot::from_descriptors(None, None, None, tools) else {
            continue;
        };
        let Ok(generated) = oma_mcp_build::generate(&snapshot, &codegen_options(input)) else {
            continue;
        };
        let m = modules.len();
        write(dir.path().join(format!("src/m{m}.rs")), &generated.code)?;
        lib.push_str(&format!(
            "pub mod m{m} {{\n    include!(\"m{m}.rs\");\n}}\n"
        ));
        modules.push(input.clone());
    }
    write(dir.path().join("src/lib.rs"), &lib)?;
    let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
        .args(["check", "--offline", "--quiet", "--message-format", "short"])
        .current_dir(dir.path())
        .env("CARGO_TARGET_DIR", target_dir)
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if output.status.success() {
        return Ok(SampleReport {
            modules: modules.len(),
            failures: Vec::new(),
        });
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let mut failures = Vec::new();
    for (m, input) in modules.iter().enumerate() {
        let file = format!("src/m{m}.rs:");
        let messages: Vec<&str> = stderr.lines().filter(|l| l.contains(&file)).collect();
        if !messages.is_empty() {
            failures.push((input.clone(), messages.join("\n")));
        }
    }
    if failures.is_empty() {
        return Err(format!("cargo check of the sample crate failed:\n{stderr}"));
    }
    Ok(SampleReport {
        modules: modules.len(),
        failures,
    })
}
