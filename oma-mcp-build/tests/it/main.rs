//! The integration tests of `oma-mcp-build`, one binary (each test binary links the crate and
//! its dependencies again; one binary links once):
//!
//! - `golden`: the generator's output for each `fixtures/<case>.json` is `fixtures/<case>.rs`;
//! - `names_property`: generated names, property-tested;
//! - `compile_fail`: what generated code must refuse to compile (trybuild, exact messages in
//!   `compile-fail/*.stderr`);
//! - `build_script`: downstream crates whose `build.rs` runs `oma_mcp_build::configure()`;
//! - with feature `cli`, the `oma-mcp` binary: `cli`, `connect_cli`, `drift_cli`, `hostile`,
//!   `url_cli` (servers pinned by URL: flags, errors, secrets) and `help` (the `--help` goldens
//!   in `fixtures/help/`).
//!
//! Two stay binaries of their own: `golden_behavior` compiles the goldens (so regenerating
//! them works when the old ones no longer compile against its checks) and `corpus` compiles
//! the code generated for real servers' captures.
//!
//! Run one module's tests with a filter: `cargo test -p oma-mcp-build --all-features --test it
//! golden::`.

mod build_script;
#[cfg(feature = "cli")]
mod cli;
#[cfg(feature = "cli")]
#[path = "../common/mod.rs"]
mod common;
mod compile_fail;
#[cfg(feature = "cli")]
mod connect_cli;
#[cfg(feature = "cli")]
mod drift_cli;
#[path = "../common/generated.rs"]
mod generated;
mod golden;
#[cfg(feature = "cli")]
mod help;
#[cfg(feature = "cli")]
mod hostile;
mod names_property;
#[path = "../common/nested_cargo.rs"]
mod nested_cargo;
#[cfg(feature = "cli")]
mod url_cli;
