//! The integration tests of `oma-mcp-runtime`, one binary (each test binary links the crate
//! and its dependencies again; one binary links once):
//!
//! - `spec_cases`: naming and result mapping against the committed cases of
//!   open-multi-agent's `connectMCPTools()` (`fixtures/`);
//! - `drift_history`: the drift engine over the version histories of real servers (with the
//!   default feature `drift`).
//!
//! Run one module's tests with a filter: `cargo test -p oma-mcp-runtime --test it
//! spec_cases::`.

#[cfg(feature = "drift")]
mod drift_history;
mod spec_cases;
