//! A nested `cargo` for the tests that build a crate of their own (`corpus.rs` compiles the
//! generated code, `it/build_script.rs` drives a downstream crate's `build.rs`).

use std::path::Path;
use std::process::{Command, Stdio};

/// `cargo` (the one running these tests) with `CARGO_TARGET_DIR` set to `target`, offline
/// (`CARGO_NET_OFFLINE`: the tests download nothing; every crate is in the workspace's
/// `Cargo.lock`, fetched by the outer build), no colour, standard input closed, and none of the
/// outer `cargo test`'s jobserver or flag variables: a nested cargo shares no file descriptors
/// or settings with the run around it.
///
/// Where `/dev/null` is not a character device (a regular file collecting what other
/// programs discard), cargo's `rustc -` target-info probe would read that file as Rust
/// source; rustc then runs through `scripts/rustc-empty-stdin`, which gives it an empty
/// standard input instead.
pub fn cargo(target: &Path) -> Command {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.env("CARGO_TARGET_DIR", target)
        .env("CARGO_TERM_COLOR", "never")
        .env("CARGO_NET_OFFLINE", "true")
        .stdin(Stdio::null());
    for name in [
        "CARGO_MAKEFLAGS",
        "MAKEFLAGS",
        "MFLAGS",
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
    ] {
        cmd.env_remove(name);
    }
    if !dev_null_is_device() {
        let guard = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/rustc-empty-stdin");
        cmd.env("RUSTC_WRAPPER", guard);
    }
    cmd
}

/// Whether `/dev/null` is the character device it should be (true off Unix).
fn dev_null_is_device() -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        std::fs::metadata("/dev/null").is_ok_and(|m| m.file_type().is_char_device())
    }
    #[cfg(not(unix))]
    {
        true
    }
}
