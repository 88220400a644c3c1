//! Text scanner benchmark: detection on a labelled set and false findings on the corpus of
//! real servers, plus throughput.
//!
//! - The labelled set is `bench/scan/labelled.json`: each case has an `id`, a `label`
//!   (`positive`: a published attack; `negative`: a hard negative, a real description that
//!   says "IMPORTANT", takes an API key, names its own server's tools or is written in
//!   another language), its `source`, `why`, and the texts (`tools`, `prompts`, `resources`,
//!   `instructions`), with `other_servers` (pinned beside it, for shadowing) and
//!   `sibling_tools` (the names of its own server's other tools). A case is flagged when
//!   some finding is at warning or above.
//! - The corpus is every `*.json` of `$OMA_MCP_CORPUS`, default `corpus/servers` of the
//!   shared reference folder (`$OMA_MCP_SHARED`, `oma_mcp_test_support::shared_path`): each
//!   `{"_source": {...}, "tools": [...]}`, scanned as one server.
//!
//! ```sh
//! cargo run --release -p oma-mcp-bench --bin scan-bench -- [--repeat 20] [--list]
//! ```
//!
//! `--list` prints every finding (labelled set and corpus); `--repeat N` scans the whole
//! corpus N times for the throughput figure (the median run).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use oma_mcp_bench::{load_average, median, ms};
use oma_mcp_core::scan::{Finding, Level, ScanInput, scan};
use serde_json::Value;

type Res<T> = Result<T, String>;

fn main() -> ExitCode {
    let mut repeat = 20usize;
    let mut list = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--repeat" => match args.next().and_then(|n| n.parse().ok()) {
                Some(n) if n > 0 => repeat = n,
                _ => return usage("--repeat takes a positive number"),
            },
            "--list" => list = true,
            other => return usage(&format!("unknown argument {other:?}")),
        }
    }
    println!("load average before: {}", load_average());
    match run(repeat, list) {
        Ok(()) => {
            println!("load average after: {}", load_average());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("scan-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn usage(problem: &str) -> ExitCode {
    eprintln!("scan-bench: {problem}\nusage: scan-bench [--repeat N] [--list]");
    ExitCode::from(2)
}

fn read_json(path: &std::path::Path) -> Res<Value> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", path.display()))
}

fn array<'a>(case: &'a Value, key: &str) -> Vec<&'a Value> {
    case.get(key)
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default()
}

/// Scans one labelled case as one server.
fn scan_case(case: &Value) -> Vec<Finding> {
    let siblings: Vec<Value> = array(case, "sibling_tools")
        .into_iter()
        .filter_map(Value::as_str)
        .map(|name| serde_json::json!({ "name": name }))
        .collect();
    let mut input = ScanInput::new()
        .tools(array(case, "tools"))
        .tools(siblings.iter())
        .prompts(array(case, "prompts"))
        .resources(array(case, "resources"))
        .resource_templates(array(case, "resource_templates"))
        .instructions(case.get("instructions").and_then(Value::as_str));
    if let Some(Value::Object(others)) = case.get("other_servers") {
        for (server, tools) in others {
            let names: Vec<&str> = tools
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            input = input.other_servers(server.clone(), names);
        }
    }
    scan(&input)
}

fn line(f: &Finding) -> String {
    format!(
        "{} {} {} {}: {} | {}",
        f.level, f.rule, f.subject, f.pointer, f.message, f.excerpt
    )
}

fn run(repeat: usize, list: bool) -> Res<()> {
    let labelled = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scan/labelled.json");
    let set = read_json(&labelled)?;
    let cases = set
        .get("cases")
        .and_then(Value::as_array)
        .ok_or("labelled.json has no `cases` array")?;
    // Per set (`tuning`, `held-out`): positives, caught, negatives, flagged negatives.
    let mut sets: std::collections::BTreeMap<String, [usize; 4]> = Default::default();
    let mut missed = Vec::new();
    let mut flagged_negatives = Vec::new();
    for case in cases {
        let id = case.get("id").and_then(Value::as_str).unwrap_or("?");
        let findings = scan_case(case);
        let flagged = findings.iter().any(|f| f.level >= Level::Warning);
        let set = case.get("set").and_then(Value::as_str).unwrap_or("tuning");
        let counts = sets.entry(set.to_owned()).or_default();
        match case.get("label").and_then(Value::as_str) {
            Some("positive") => {
                counts[0] += 1;
                if flagged {
                    counts[1] += 1;
                } else {
                    missed.push(id.to_owned());
                }
            }
            Some("negative") => {
                counts[2] += 1;
                if flagged {
                    counts[3] += 1;
                    flagged_negatives.push(id.to_owned());
                }
            }
            other => {
                return Err(format!(
                    "case {id}: label {other:?} is neither positive nor negative"
                ));
            }
        }
        if list {
            for f in &findings {
                println!("  [{id}] {}", line(f));
            }
        }
    }
    let pct = |a: usize, b: usize| {
        if b == 0 {
            0.0
        } else {
            100.0 * a as f64 / b as f64
        }
    };
    println!("\nlabelled set ({}):", labelled.display());
    println!("| set | positives flagged | rate | hard negatives flagged | rate |");
    println!("|---|---:|---:|---:|---:|");
    let mut all = [0usize; 4];
    for c in sets.values() {
        for (a, x) in all.iter_mut().zip(c) {
            *a += x;
        }
    }
    for (set, c) in sets
        .iter()
        .map(|(s, c)| (s.as_str(), c))
        .chain([("all", &all)])
    {
        println!(
            "| {set} | {} of {} | {:.1} % | {} of {} | {:.1} % |",
            c[1],
            c[0],
            pct(c[1], c[0]),
            c[3],
            c[2],
            pct(c[3], c[2])
        );
    }
    println!(
        "missed positives: {}",
        if missed.is_empty() {
            "none".into()
        } else {
            missed.join(", ")
        }
    );
    println!(
        "flagged negatives: {}",
        if flagged_negatives.is_empty() {
            "none".into()
        } else {
            flagged_negatives.join(", ")
        }
    );

    let dir = std::env::var_os("OMA_MCP_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| oma_mcp_test_support::shared_path().join("corpus/servers"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("cannot read the corpus {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut servers = Vec::new();
    let mut bytes = 0usize;
    for path in &files {
        let value = read_json(path)?;
        bytes += serde_json::to_string(&value["tools"]).map_or(0, |s| s.len());
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        servers.push((name, value));
    }
    let tools: usize = servers
        .iter()
        .map(|(_, v)| v["tools"].as_array().map_or(0, Vec::len))
        .sum();
    let scan_all = || -> Vec<(String, Vec<Finding>)> {
        servers
            .iter()
            .map(|(name, v)| {
                let tools: Vec<&Value> = v["tools"].as_array().into_iter().flatten().collect();
                (name.clone(), scan(&ScanInput::new().tools(tools)))
            })
            .collect()
    };
    let findings = scan_all();
    let mut by_level = [0usize; 3];
    for (server, list_of) in &findings {
        for f in list_of {
            by_level[f.level as usize] += 1;
            if list {
                println!("  [{server}] {}", line(f));
            }
        }
    }
    println!(
        "\ncorpus ({}): {} servers, {tools} tools, {:.2} MiB of tool JSON",
        dir.display(),
        servers.len(),
        bytes as f64 / 1048576.0
    );
    println!("| level | findings |");
    println!("|---|---:|");
    println!("| high | {} |", by_level[Level::High as usize]);
    println!("| warning | {} |", by_level[Level::Warning as usize]);
    println!("| info | {} |", by_level[Level::Info as usize]);

    let mut times: Vec<Duration> = Vec::with_capacity(repeat);
    let _ = scan_all(); // warm-up
    for _ in 0..repeat {
        let start = Instant::now();
        std::hint::black_box(scan_all());
        times.push(start.elapsed());
    }
    let t = median(&mut times);
    println!(
        "\nthroughput (median of {repeat} scans of the whole corpus): {:.1} ms, {:.0} tools/s, {:.1} MiB/s",
        ms(t),
        tools as f64 / t.as_secs_f64(),
        bytes as f64 / 1048576.0 / t.as_secs_f64()
    );
    Ok(())
}
