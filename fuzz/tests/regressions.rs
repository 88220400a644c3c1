//! Replays every saved failing input (`regressions/<target>/*.json`) through its target's
//! check; a fixed bug stays fixed. `compile` fixtures (code that did not compile) are
//! compiled again in one batch.

use std::path::Path;

use oma_mcp_fuzz::runner::{check_catching, fixtures};
use oma_mcp_fuzz::{sample, targets};

fn regressions() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("regressions")
}

#[test]
fn saved_inputs_pass_their_checks() {
    let all = fixtures(&regressions()).unwrap_or_else(|e| panic!("{e}"));
    let mut failures = Vec::new();
    for fixture in all.iter().filter(|f| f.target != "compile") {
        let Some(target) = targets::target(&fixture.target) else {
            failures.push(format!(
                "{}: unknown target {:?}",
                fixture.path.display(),
                fixture.target
            ));
            continue;
        };
        if let Err(e) = check_catching(target.check, &fixture.input) {
            failures.push(format!("{}: {e}", fixture.path.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn saved_inputs_that_did_not_compile_compile() {
    let inputs: Vec<_> = fixtures(&regressions())
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .filter(|f| f.target == "compile")
        .map(|f| f.input)
        .collect();
    if inputs.is_empty() {
        return;
    }
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| sample::workspace_root().join("target"), Into::into);
    let report = sample::compile(&inputs, &target_dir).unwrap_or_else(|e| panic!("{e}"));
    let messages: Vec<&str> = report.failures.iter().map(|(_, m)| m.as_str()).collect();
    assert!(messages.is_empty(), "{}", messages.join("\n"));
}
