//! oma-mcp-rig's integration tests (its agent loops run in the workspace's
//! `tests/integration/rig.rs`, against the project's own servers):
//!
//! - `compile_fail`: what the bridge must refuse to compile (trybuild, exact messages).

mod compile_fail;
