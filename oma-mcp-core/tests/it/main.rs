//! The integration tests of `oma-mcp-core`: `drift_history`, the drift engine over the
//! version histories of real servers.
//!
//! The naming and result-mapping cases of the reference implementation (`fixtures/`) are unit
//! tests (`src/reference_cases.rs`), so that `cargo test --lib`, which the mutation-testing
//! configuration runs, checks the mapping's exact outputs too.
//!
//! Run one module's tests with a filter: `cargo test -p oma-mcp-core --test it
//! drift_history::`.

mod drift_history;
