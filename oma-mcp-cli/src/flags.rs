//! Flag values several subcommands share (clap stays in this crate, out of the libraries).

use clap::ValueEnum;

/// Output formats of `list` and `call`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Human-readable text.
    Text,
    /// JSON for scripts.
    Json,
}

/// Parses `--timeout-ms`: a whole number of milliseconds greater than 0 (0 would time out
/// every request before the server could answer).
pub fn timeout_ms(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(0) => Err("the timeout must be at least 1 millisecond".to_owned()),
        Ok(ms) => Ok(ms),
        Err(e) => Err(format!("expected a whole number of milliseconds ({e})")),
    }
}

/// One `--rename TOOL=NAME` value: split at the last `=` (a tool name may hold `=`, a Rust
/// name cannot).
pub fn rename_entry(value: &str) -> Result<(String, String), String> {
    match value.rsplit_once('=') {
        Some((tool, name)) if !tool.is_empty() => Ok((tool.to_owned(), name.to_owned())),
        _ => Err(format!(
            "expected TOOL=NAME (a raw MCP tool name, `=`, the stem of its Rust names), e.g. \
             search-a=SearchHyphen; got {value:?}"
        )),
    }
}
