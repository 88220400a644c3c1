//! The integration tests of `oma-mcp-build`, one binary (each test binary links the crate and
//! its dependencies again; one binary links once):
//!
//! - `golden`: the generator's output for each `fixtures/<case>.json` is `fixtures/<case>.rs`;
//! - `stable_names`: a generated name always refers to the same tool or property,
//!   property-tested;
//! - `compile_fail`: what generated code must refuse to compile (trybuild, exact messages in
//!   `compile-fail/*.stderr`);
//! - `build_script`: downstream crates whose `build.rs` runs `oma_mcp_build::configure()`;
//! - `manifest_reference`: the guide's manifest reference is the manifest's JSON Schema,
//!   rendered (feature `json-schema`).
//!
//! Two stay binaries of their own: `golden_behavior` compiles the goldens (so regenerating
//! them works when the old ones no longer compile against its checks) and `corpus` compiles
//! the code generated for real servers' captures. The tests of the `oma-mcp` command-line
//! tool are oma-mcp-cli's.
//!
//! Run one module's tests with a filter: `cargo test -p oma-mcp-build --test it golden::`.

mod build_script;
mod compile_fail;
#[path = "../common/generated.rs"]
mod generated;
mod golden;
mod manifest_reference;
#[path = "../common/nested_cargo.rs"]
mod nested_cargo;
mod stable_names;
