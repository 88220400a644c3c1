//! Snapshot → Rust code.
