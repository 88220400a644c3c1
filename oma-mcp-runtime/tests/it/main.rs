//! The integration tests of `oma-mcp-runtime`: `drift_history`, the drift engine over the
//! version histories of real servers (with the default feature `drift`).
//!
//! The naming and result-mapping cases of the reference implementation (`fixtures/`) are unit
//! tests (`src/spec_cases.rs`), so that `cargo test --lib`, which the mutation-testing
//! configuration runs, checks the mapping's exact outputs too.
//!
//! Run one module's tests with a filter: `cargo test -p oma-mcp-runtime --test it
//! drift_history::`.

#[cfg(feature = "drift")]
mod drift_history;
