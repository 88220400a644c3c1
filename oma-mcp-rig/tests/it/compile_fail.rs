//! Compile-fail tests of the bridge (trybuild), each `compile-fail/<case>.rs` with the exact
//! compiler output in `compile-fail/<case>.stderr`:
//!
//! - `consequential_new`: `McpRigTool::<T>::new` of a consequential tool is error E0277 with
//!   the message the README quotes (use `gated` for such a tool).
//!
//! After an intended change of the compiler output (a new Rust release words it differently),
//! regenerate and review: `TRYBUILD=overwrite cargo test -p oma-mcp-rig --test it -- --ignored
//! compile_fail::`.

#[test]
#[ignore = "slow tier (trybuild, a nested cargo build): scripts/test runs it; alone: cargo test -p oma-mcp-rig --test it -- --ignored compile_fail::"]
fn the_bridge_refuses_what_it_must() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/compile-fail/*.rs");
}
