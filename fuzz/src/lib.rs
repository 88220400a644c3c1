//! Property-based fuzzing of oma-mcp on stable Rust.
//!
//! oma-mcp reads untrusted input: a server's stdout, its `tools/list` and `tools/call`
//! results, committed snapshots, manifests. Each [target](targets::TARGETS) generates such
//! input with a proptest strategy ([`generators`]) and checks invariants on what oma-mcp makes of it:
//!
//! - `codegen`: never panics, bounded time and size, output parses as a Rust file (`syn`),
//!   deterministic (also over tool and key order);
//! - `mapping`: every `text` block's text appears in `data`, an `isError` result has no
//!   `modelOutput`, the same output for a re-serialized result;
//! - `drift`: `diff(a, a)` is empty, tools added in `diff(a, b)` are those removed in
//!   `diff(b, a)` and the other way round;
//! - `framing`: a byte stream split anywhere yields the same messages as unsplit;
//! - `http`: any answer to a `POST` (status, headers, body, framing) over real loopback ends
//!   its request as the transport's rules say, and the session goes on ([`http_answer`]);
//! - `snapshot`: canonicalizing twice equals once, the digest ignores key order and
//!   whitespace, `parse(write(s)) == s`;
//! - `manifest` and `validation`: an error or a value, never a panic;
//! - `provider`: each provider's form of a tool breaks none of its rules, or is refused for
//!   an expected reason, and the argument converter round-trips ([`providers`]).
//!
//! Why proptest (not `cargo-fuzz`, `arbitrary` or `bolero`): `cargo-fuzz` needs a nightly
//! toolchain; the inputs here are structured (JSON Schemas, tool lists, TOML), which
//! proptest's combinators generate directly where `arbitrary` would need hand-written
//! builders; proptest shrinks a failing input to a small one before it is saved; and its
//! `TestRunner` runs on a fixed seed, so `--seed` reproduces a run. `bolero` drives the same
//! kind of generators but adds an engine layer not needed on stable.
//!
//! The runner ([`runner`]) runs each case under a time budget on a watched thread and saves a
//! failing input as `regressions/<target>/<hash>.json`, which the crate's `regressions` test
//! replays on every `cargo test`. [`sample`] compiles generated code from random schemas.

pub mod generators;
pub mod http_answer;
pub mod providers;
pub mod runner;
pub mod sample;
pub mod targets;
