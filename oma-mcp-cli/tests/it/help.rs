//! Goldens of `oma-mcp --help` and of each subcommand's `--help`:
//! `fixtures/help/<command>.txt` (`oma-mcp.txt` for the top level), compared exactly, so a
//! change to a flag or its text shows in review.
//!
//! Regenerate after an intended change, then review the diff:
//!
//! ```text
//! OMA_MCP_BLESS=1 cargo test -p oma-mcp-cli --test it help::
//! git diff oma-mcp-cli/tests/fixtures/help/
//! ```
//!
//! The output does not depend on the terminal: clap is built without `wrap_help`, so it never
//! wraps to the terminal's width; `COLUMNS` is still fixed at 100 for the run, should that
//! feature ever come in through another crate.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use crate::common::{assert_exit, oma_mcp, run, text};

/// The subcommands, in `oma-mcp --help` order.
const SUBCOMMANDS: [&str; 17] = [
    "snapshot",
    "generate",
    "list",
    "call",
    "check",
    "diff",
    "export",
    "record",
    "replay",
    "login",
    "logout",
    "auth",
    "scan",
    "schema",
    "completions",
    "init",
    "add",
];

fn golden(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/help")
        .join(format!("{name}.txt"))
}

/// `oma-mcp <args> --help` against `fixtures/help/<name>.txt`; the mismatch, if any.
fn check(name: &str, args: &[&str]) -> Option<String> {
    let out = run(oma_mcp()
        .args(args)
        .arg("--help")
        .env("COLUMNS", "100")
        .env_remove("CLICOLOR_FORCE"));
    assert_exit(&out, 0);
    let help = text(&out.stdout);
    let path = golden(name);
    if std::env::var_os("OMA_MCP_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &help).unwrap();
        return None;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    (help != expected).then(|| {
        format!(
            "`oma-mcp {} --help` differs from {}:\n{help}",
            args.join(" "),
            path.display()
        )
    })
}

#[test]
fn help_of_oma_mcp_and_each_subcommand_matches_its_golden() {
    let mut failures: Vec<String> = check("oma-mcp", &[]).into_iter().collect();
    failures.extend(SUBCOMMANDS.iter().filter_map(|c| check(c, &[c])));
    assert!(
        failures.is_empty(),
        "{}\nif the change is intended, run `OMA_MCP_BLESS=1 cargo test -p oma-mcp-cli --test \
         it help::` and review the diff",
        failures.join("\n")
    );
}

/// The list above is every subcommand `oma-mcp --help` shows, so none goes without a golden.
#[test]
fn every_subcommand_has_a_help_golden() {
    let top = std::fs::read_to_string(golden("oma-mcp")).unwrap();
    let listed: Vec<&str> = top
        .lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert_eq!(listed, SUBCOMMANDS);
}
