//! Code generation benchmark: generates every server of the shared corpus
//! (`$OMA_MCP_SHARED/corpus/servers/*.json`, 23 real `tools/list` captures, 744 tools) and prints
//! the time per server and in total (median of `--repeat` runs), beside typify 0.8
//! (`typify-impl`) over the same schemas in the same run: every tool's `inputSchema` and
//! `outputSchema`, each through its own `TypeSpace`, its tokens formatted with prettyplease (as
//! its users do; ours writes text and, by default, formats it with prettyplease too, and is also
//! timed without that step). The ratio ours ÷ typify carries across machines where absolute
//! times do not.
//! Schemas typify rejects (an error, or a panic caught with `catch_unwind`) are counted and
//! listed, not fatal. Then, with `--check`, the `cargo check` time of one generated module
//! (default: github-mcp-server, 117 tools) in a crate that depends only on `oma-mcp-runtime`.
//!
//! ```sh
//! cargo run --release -p oma-mcp-bench --bin codegen-bench -- [--repeat 5] [--no-typify] [--out DIR] [--check [SERVER]] [--check-against FILE]
//! ```
//!
//! `--out DIR` writes each server's generated module (first run) to `DIR/<server>.rs`, so that a
//! change to the generator can be checked against the output before it: byte for byte, or for
//! a change of layout token for token (parse both files and compare).
//!
//! The corpus is `corpus/` of the shared reference folder: `$OMA_MCP_SHARED`, default `shared`
//! beside the workspace (`oma_mcp_test_support::shared_path`).

use oma_mcp_bench::{load_average, median, ms};
use serde_json::Value;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use oma_mcp_build::codegen::{GenerateOptions, generate};
use oma_mcp_runtime::Snapshot;

fn main() -> ExitCode {
    let mut repeat = 5usize;
    let mut check: Option<String> = None;
    let mut against: Option<PathBuf> = None;
    let mut with_typify = true;
    let mut out: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1).peekable();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--repeat" => match args.next().and_then(|n| n.parse().ok()) {
                Some(n) if n > 0 => repeat = n,
                _ => return usage("--repeat takes a positive number"),
            },
            "--no-typify" => with_typify = false,
            "--out" => match args.next() {
                Some(dir) => out = Some(PathBuf::from(dir)),
                None => return usage("--out takes a directory"),
            },
            "--check-against" => match args.next() {
                Some(file) => against = Some(PathBuf::from(file)),
                None => return usage("--check-against takes a file"),
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
    let unformatted = GenerateOptions::default().with_format(false);
    let mut unformatted_totals = Vec::with_capacity(repeat);
    let load_before = load_average();
    let mut totals = Vec::with_capacity(repeat);
    let mut per_server = vec![Vec::with_capacity(repeat); snapshots.len()];
    let mut lines = 0;
    // typify: per server the schemas, converted once (outside the timing) to schemars 0.8.
    let inputs: Vec<Vec<typify::Input>> =
        snapshots.iter().map(|(_, s)| typify::inputs(s)).collect();
    let mut typify_totals = Vec::with_capacity(repeat);
    let mut typify_gen_totals = Vec::with_capacity(repeat);
    let mut typify_per_server = vec![Vec::with_capacity(repeat); snapshots.len()];
    let mut typify_lines = 0;
    let mut rejected: Vec<String> = Vec::new();
    for run in 0..repeat {
        let start = Instant::now();
        lines = 0;
        for (i, (_, snapshot)) in snapshots.iter().enumerate() {
            let one = Instant::now();
            match generate(snapshot, &options) {
                Ok(g) => {
                    lines += g.code.lines().count();
                    if let Some(dir) = out.as_ref().filter(|_| run == 0) {
                        let path = dir.join(format!("{}.rs", snapshots[i].0));
                        if let Err(e) = std::fs::create_dir_all(dir)
                            .and_then(|()| std::fs::write(&path, &g.code))
                        {
                            eprintln!("codegen-bench: cannot write {}: {e}", path.display());
                            return ExitCode::FAILURE;
                        }
                    }
                }
                Err(e) => {
                    eprintln!("codegen-bench: {e}");
                    return ExitCode::FAILURE;
                }
            }
            per_server[i].push(one.elapsed());
        }
        totals.push(start.elapsed());
        // The same without the formatting step (the emitter's own layout).
        let start = Instant::now();
        for (_, snapshot) in &snapshots {
            if let Err(e) = generate(snapshot, &unformatted) {
                eprintln!("codegen-bench: {e}");
                return ExitCode::FAILURE;
            }
        }
        unformatted_totals.push(start.elapsed());
        if with_typify {
            // The same loop, right after ours, so that load changes hit both.
            let hook = std::panic::take_hook();
            std::panic::set_hook(Box::new(|_| {}));
            let start = Instant::now();
            let mut generating = Duration::ZERO;
            typify_lines = 0;
            for (i, server) in inputs.iter().enumerate() {
                let one = Instant::now();
                for input in server {
                    match typify::generate(input) {
                        Ok((code, gen_time)) => {
                            typify_lines += code.lines().count();
                            generating += gen_time;
                        }
                        Err(reason) if run == 0 => {
                            rejected.push(format!("{}: {reason}", input.label(&snapshots[i].0)))
                        }
                        Err(_) => {}
                    }
                }
                typify_per_server[i].push(one.elapsed());
            }
            typify_totals.push(start.elapsed());
            typify_gen_totals.push(generating);
            std::panic::set_hook(hook);
        }
    }
    let load_after = load_average();
    let tools: usize = snapshots.iter().map(|(_, s)| s.tools.len()).sum();
    if !with_typify {
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
            "| **all {} servers** | **{tools}** | **{:.1} ms** ({lines} lines; {:.1} ms unformatted) |",
            snapshots.len(),
            ms(median(&mut totals)),
            ms(median(&mut unformatted_totals))
        );
    } else {
        println!(
            "| server | tools | schemas | typify rejects | ours (median of {repeat}) | typify | ours ÷ typify |"
        );
        println!("|---|---:|---:|---:|---:|---:|---:|");
        for (i, (name, snapshot)) in snapshots.iter().enumerate() {
            let ours = median(&mut per_server[i]);
            let theirs = median(&mut typify_per_server[i]);
            let prefix = format!("{name}/");
            println!(
                "| {name} | {} | {} | {} | {:.1} ms | {:.1} ms | {:.2} |",
                snapshot.tools.len(),
                inputs[i].len(),
                rejected.iter().filter(|r| r.starts_with(&prefix)).count(),
                ms(ours),
                ms(theirs),
                ratio(ours, theirs)
            );
        }
        let ours = median(&mut totals);
        let theirs = median(&mut typify_totals);
        let schemas: usize = inputs.iter().map(Vec::len).sum();
        println!(
            "| **all {} servers** | **{tools}** | **{schemas}** | **{}** | **{:.1} ms** | **{:.1} ms** | **{:.2}** |",
            snapshots.len(),
            rejected.len(),
            ms(ours),
            ms(theirs),
            ratio(ours, theirs)
        );
        let generating = median(&mut typify_gen_totals);
        let plain = median(&mut unformatted_totals);
        println!(
            "\nours: {lines} lines (per tool: marker, arguments with constructors and setters, \
             output types, validation statics, tool table; per server: connect functions), \
             formatted with prettyplease; without formatting (the feature `format` off) {:.1} \
             ms, ÷ typify {:.2}. typify: {typify_lines} lines (types only: the argument and \
             output types with serde derives, builders off). typify without prettyplease \
             (TypeSpace + to_stream only): {:.1} ms, ours ÷ that {:.2}. Goal: ours, formatted, \
             ≤ typify: {}. Load average {} before, {} after.",
            ms(plain),
            ratio(plain, theirs),
            ms(generating),
            ratio(ours, generating),
            if ratio(ours, theirs) <= 1.0 {
                "met"
            } else {
                "missed"
            },
            load_before,
            load_after
        );
        if !rejected.is_empty() {
            println!("\nschemas typify rejected ({}):", rejected.len());
            for r in &rejected {
                println!("- {r}");
            }
        }
    }
    if let Some(server) = check {
        let Some((_, snapshot)) = snapshots.iter().find(|(n, _)| *n == server) else {
            return usage(&format!("no corpus server {server:?}"));
        };
        let code = match generate(snapshot, &GenerateOptions::default()) {
            Ok(generated) => generated.code,
            Err(e) => return usage(&e.to_string()),
        };
        let other = match against.as_ref().map(std::fs::read_to_string).transpose() {
            Ok(other) => other,
            Err(e) => return usage(&format!("cannot read the --check-against file: {e}")),
        };
        match cargo_check(&workspace, &server, &code, other.as_deref()) {
            Ok(times) => {
                println!(
                    "cargo check of the generated {server} module ({} tools): {:.2} s after a \
                     change to the module, median of 3 (first build with dependencies: {:.1} s)",
                    snapshot.tools.len(),
                    times.ours.as_secs_f64(),
                    times.first.as_secs_f64()
                );
                if let (Some(theirs), Some(path)) = (times.theirs, &against) {
                    println!(
                        "cargo check of {} in the same crate, alternating: {:.2} s (ours ÷ \
                         that {:.2})",
                        path.display(),
                        theirs.as_secs_f64(),
                        ratio(times.ours, theirs)
                    );
                }
            }
            Err(e) => {
                eprintln!("codegen-bench: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}

/// The times of [`cargo_check`].
struct CheckTimes {
    /// The first check, dependencies included.
    first: Duration,
    /// The median of 3 checks after a change to the generated module.
    ours: Duration,
    /// The same for the other module (`--check-against`), checked alternately with ours.
    theirs: Option<Duration>,
}

/// Writes a crate with the generated module `code` into `target/codegen-bench`, checks it
/// once (dependencies included), then 3 times after a change to the module (a blank line
/// more each time), and as many times the module `other` in the same crate, alternating.
fn cargo_check(
    workspace: &Path,
    server: &str,
    code: &str,
    other: Option<&str>,
) -> Result<CheckTimes, String> {
    let target = workspace.join("target/codegen-bench");
    let krate = target.join("crate");
    std::fs::create_dir_all(krate.join("src")).map_err(|e| e.to_string())?;
    let runtime = workspace.join("oma-mcp-runtime");
    let manifest = format!(
        "[package]\nname = \"oma-mcp-codegen-bench\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
         publish = false\n\n[dependencies]\noma-mcp-runtime = {{ path = {:?} }}\n\n[workspace]\n",
        runtime.display().to_string()
    );
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
    let module = krate.join(format!("src/{server}.rs"));
    let check = |text: &str| -> Result<Duration, String> {
        write(module.clone(), text)?;
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
    let first = check(code)?;
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for round in 1..=3 {
        // A change to the generated module only: what a snapshot refresh costs.
        let blank = "\n".repeat(round);
        ours.push(check(&format!("{code}{blank}"))?);
        if let Some(other) = other {
            theirs.push(check(&format!("{other}{blank}"))?);
        }
    }
    Ok(CheckTimes {
        first,
        ours: median(&mut ours),
        theirs: (!theirs.is_empty()).then(|| median(&mut theirs)),
    })
}

/// `a ÷ b` (zero when `b` is zero).
fn ratio(a: Duration, b: Duration) -> f64 {
    if b.is_zero() {
        0.0
    } else {
        a.as_secs_f64() / b.as_secs_f64()
    }
}

/// typify 0.8 over one tool schema, as its users run it on a JSON Schema with definitions:
/// `add_ref_types` for the definitions, `add_type_with_name` for the root, `to_stream`, and
/// prettyplease for the source text.
mod typify {
    use super::{AssertUnwindSafe, Duration, Instant, Value, catch_unwind};
    use heck::ToUpperCamelCase;
    use oma_mcp_runtime::Snapshot;
    use schemars08::schema::{RootSchema, Schema};
    use typify_impl::{TypeSpace, TypeSpaceSettings};

    /// One schema: its tool, which one (`inputSchema` or `outputSchema`), the type name
    /// typify is given, and the schema as schemars 0.8 reads it (or why it does not).
    pub struct Input {
        tool: String,
        which: &'static str,
        name: String,
        schema: Result<RootSchema, String>,
    }

    impl Input {
        /// `server/tool inputSchema`, for the list of rejected schemas.
        pub fn label(&self, server: &str) -> String {
            format!("{server}/{} {}", self.tool, self.which)
        }
    }

    /// Every `inputSchema` and `outputSchema` of `snapshot`'s tools.
    pub fn inputs(snapshot: &Snapshot) -> Vec<Input> {
        let mut out = Vec::new();
        for tool in &snapshot.tools {
            let stem = tool.name().to_upper_camel_case();
            for (which, suffix, schema) in [
                ("inputSchema", "Args", tool.input_schema()),
                ("outputSchema", "Output", tool.output_schema()),
            ] {
                if let Some(schema) = schema {
                    out.push(Input {
                        tool: tool.name().to_owned(),
                        which,
                        name: format!("{stem}{suffix}"),
                        schema: root_schema(schema),
                    });
                }
            }
        }
        out
    }

    /// A JSON Schema as schemars 0.8's `RootSchema`: `$defs` (2019-09 and later, what MCP
    /// servers send) and `definitions` (draft 7) both become its `definitions`, which typify
    /// reads; `$ref`s keep their text (typify resolves them by their last segment).
    fn root_schema(schema: &Value) -> Result<RootSchema, String> {
        let mut schema = schema.clone();
        if let Some(object) = schema.as_object_mut() {
            let mut definitions = serde_json::Map::new();
            for key in ["definitions", "$defs"] {
                if let Some(Value::Object(defs)) = object.remove(key) {
                    definitions.extend(defs);
                }
            }
            if !definitions.is_empty() {
                object.insert("definitions".to_owned(), Value::Object(definitions));
            }
        }
        serde_json::from_value(schema).map_err(|e| format!("not a schemars 0.8 schema: {e}"))
    }

    /// typify's source text for `input` and the time of its type generation alone (without
    /// prettyplease), or why it failed: an error, or a panic.
    pub fn generate(input: &Input) -> Result<(String, Duration), String> {
        let root = input.schema.as_ref().map_err(Clone::clone)?.clone();
        let result = catch_unwind(AssertUnwindSafe(
            || -> Result<(String, Duration), String> {
                let start = Instant::now();
                let mut space = TypeSpace::new(&TypeSpaceSettings::default());
                space
                    .add_ref_types(root.definitions)
                    .map_err(|e| e.to_string())?;
                space
                    .add_type_with_name(&Schema::Object(root.schema), Some(input.name.clone()))
                    .map_err(|e| e.to_string())?;
                let tokens = space.to_stream();
                let generating = start.elapsed();
                let file: syn::File =
                    syn::parse2(tokens).map_err(|e| format!("unparsable tokens: {e}"))?;
                Ok((prettyplease::unparse(&file), generating))
            },
        ));
        match result {
            Ok(outcome) => outcome,
            Err(panic) => Err(format!(
                "panicked: {}",
                panic
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| panic.downcast_ref::<&str>().copied())
                    .unwrap_or("(no message)")
            )),
        }
    }
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn usage(message: &str) -> ExitCode {
    eprintln!(
        "codegen-bench: {message}\nusage: codegen-bench [--repeat N] [--no-typify] [--out DIR] [--check [SERVER]] \
         [--check-against FILE]"
    );
    ExitCode::from(2)
}
