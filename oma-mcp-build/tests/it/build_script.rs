//! The `build.rs` integration end to end, as a downstream crate hits it.
//!
//! Each cargo-driven test writes a tiny crate into a temp dir (its own `[workspace]`, so it is
//! not part of ours): `oma-mcp-runtime` and `tokio` as dependencies, `oma-mcp-build` as a
//! build-dependency (with its feature `refresh` where the test refreshes), `build.rs` calling `oma_mcp_build::configure().compile()?`, an
//! `oma-mcp.toml` pinning the project's own test server, and a `src/main.rs` that calls `echo`
//! through the generated, typed API. It then runs `cargo build` / `cargo run --offline` on it
//! with `CARGO_TARGET_DIR=<workspace>/target/build-script-check` (its own lock, so it never
//! waits on the outer build; compiled dependencies are reused between runs) and checks what a
//! user sees: exit status, cargo's stdout and stderr, the snapshot and generated files, and
//! the build script's `output` file.
//!
//! The first run compiles the dependencies into that target dir (about a minute on two
//! cores); later runs take a few seconds. Needs the test server binary:
//! `cargo build --workspace` (./scripts/test does it).
//!
//! The builder is also driven in-process (`.out_dir(..)`, `.emit_rerun_if_changed(false)`)
//! for its return values. Scenarios that depend on environment variables go through the
//! subprocess only: `std::env::set_var` is unsafe in Rust 2024 and the workspace forbids
//! unsafe code.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::SystemTime;

use oma_mcp_runtime::Snapshot;

use crate::nested_cargo;

/// `OMA_TEST_SERVER_MODE` value set for cargo runs in which the server must not be started:
/// the manifest passes the variable to the server (`pass-env`), so a server started by
/// mistake exits during the handshake and fails the build.
const TRAP: &str = "exit-on-initialize";

/// The rerun lines every successful run of the build script prints, in its order.
fn rerun_lines(manifest: &Path, snapshot: &Path) -> String {
    format!(
        "cargo::rerun-if-changed={}\n\
         cargo::rerun-if-env-changed=OMA_MCP_REFRESH\n\
         cargo::rerun-if-env-changed=OMA_MCP_OFFLINE\n\
         cargo::rerun-if-env-changed=DOCS_RS\n\
         cargo::rerun-if-changed={}\n",
        manifest.display(),
        snapshot.display()
    )
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// `target/<profile>`, from this test binary's path (`target/<profile>/deps/build_script-…`).
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    exe.parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .expect("the test binary is in target/<profile>/deps")
}

/// The target dir holding [`profile_dir`].
fn target_dir() -> PathBuf {
    profile_dir()
        .parent()
        .map(Path::to_path_buf)
        .expect("target/<profile>")
}

/// `<profile>/<bin>`: a binary of this build, relative to [`target_dir`] (as a manifest
/// would write it).
fn in_profile(bin: &str) -> String {
    let profile = profile_dir()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("{profile}/{bin}")
}

/// The project's test server, beside this test binary's `deps/` folder.
#[cfg(feature = "refresh")]
fn test_server() -> PathBuf {
    let bin = profile_dir().join(format!(
        "oma-mcp-test-server{}",
        std::env::consts::EXE_SUFFIX
    ));
    assert!(
        bin.exists(),
        "{} is missing: run `cargo build --workspace` first (./scripts/test does)",
        bin.display()
    );
    bin
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn describe(out: &Output) -> String {
    format!(
        "status: {}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    )
}

fn assert_success(out: &Output) {
    assert!(out.status.success(), "cargo failed\n{}", describe(out));
}

/// Cargo exits with 101 when a build script fails; the script's stderr follows
/// `--- stderr`, each line indented by two spaces.
fn assert_build_script_error(out: &Output, message: &str) {
    assert_eq!(out.status.code(), Some(101), "{}", describe(out));
    let stderr = text(&out.stderr);
    let expected: String = format!("Error: {message}")
        .lines()
        .map(|line| format!("\n  {line}"))
        .collect();
    assert!(
        stderr.contains(&format!("--- stderr{expected}\n")),
        "expected in cargo's stderr:{expected}\n{}",
        describe(out)
    );
}

/// A file's bytes and modification time.
fn stamp(path: &Path) -> (Vec<u8>, SystemTime) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let mtime = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .unwrap_or_else(|e| panic!("mtime of {}: {e}", path.display()));
    (bytes, mtime)
}

fn mtime(path: &Path) -> SystemTime {
    stamp(path).1
}

/// One entry of [`source_tree`]: a relative path, and a file's [`stamp`] (`None` for a
/// directory).
type TreeEntry = (PathBuf, Option<(Vec<u8>, SystemTime)>);

/// Every file and directory under `root`, except `Cargo.lock`, which cargo itself rewrites.
fn source_tree(root: &Path) -> Vec<TreeEntry> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<TreeEntry>) {
        let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries.flatten() {
            let path = entry.path();
            let relative = path.strip_prefix(root).expect("under root").to_path_buf();
            if path.is_dir() {
                out.push((relative, None));
                walk(root, &path, out);
            } else if relative != Path::new("Cargo.lock") {
                out.push((relative, Some(stamp(&path))));
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// PIDs of running processes whose command line contains `token`, other than this one.
fn processes_with(token: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let own = std::process::id().to_string();
    entries
        .flatten()
        .filter_map(|e| {
            let pid = e.file_name().to_string_lossy().into_owned();
            if !pid.bytes().all(|b| b.is_ascii_digit()) || pid == own {
                return None;
            }
            let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
            text(&cmdline).contains(token).then_some(pid)
        })
        .collect()
}

/// A downstream crate in a temp dir, built with its own target dir.
struct Downstream {
    _dir: tempfile::TempDir,
    /// The crate's directory (canonical, as cargo reports it); also the unique argument
    /// passed to every test server this crate starts.
    root: PathBuf,
    package: &'static str,
    target: PathBuf,
}

impl Downstream {
    /// `refresh`: whether the build-dependency on `oma-mcp-build` has its feature `refresh`
    /// (a build that refreshes needs it).
    fn new(package: &'static str, refresh: bool) -> Self {
        let dir = tempfile::Builder::new()
            .prefix("oma-mcp-build-script-")
            .tempdir()
            .expect("temp dir");
        let root = std::fs::canonicalize(dir.path()).expect("canonical temp dir");
        let ws = workspace();
        let target = ws.join("target/build-script-check");
        purge_previous_runs(&target, package);
        let manifest = format!(
            r#"[package]
name = "{package}"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
oma-mcp-runtime = {{ path = {runtime:?} }}
tokio = {{ version = "1", default-features = false, features = ["rt", "macros"] }}

[build-dependencies]
oma-mcp-build = {{ path = {build:?}{features} }}

[profile.dev]
debug = false
incremental = false

# Its own workspace, not part of any workspace above the temp dir.
[workspace]
"#,
            runtime = ws.join("oma-mcp-runtime").display().to_string(),
            build = ws.join("oma-mcp-build").display().to_string(),
            features = if refresh {
                r#", features = ["refresh"]"#
            } else {
                ""
            },
        );
        let build_rs = "fn main() -> Result<(), oma_mcp_build::Report> {\n    \
                        oma_mcp_build::configure().compile()?;\n    Ok(())\n}\n";
        let main_rs = r#"mod own {
    oma_mcp_runtime::include_tools!("own");
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The pinned connection the build script generated from the manifest, without its
    // `pass-env`: the test's trap variable guards the build script, not this run.
    let mut config = own::connect_config();
    config.pass_env.clear();
    let client = oma_mcp_runtime::connect_mcp_tools(config).await?;
    let result = client.call(own::EchoArgs::new("typed")).mapped().await;
    println!("{}", result.data);
    client.disconnect().await;
    Ok(())
}
"#;
        std::fs::create_dir_all(root.join("src")).expect("mkdir src");
        std::fs::write(root.join("Cargo.toml"), manifest).expect("write Cargo.toml");
        std::fs::write(root.join("build.rs"), build_rs).expect("write build.rs");
        std::fs::write(root.join("src/main.rs"), main_rs).expect("write main.rs");
        // The workspace's versions, which are already downloaded: `--offline` then works.
        std::fs::copy(ws.join("Cargo.lock"), root.join("Cargo.lock")).expect("copy Cargo.lock");
        Self {
            _dir: dir,
            root,
            package,
            target,
        }
    }

    fn token(&self) -> String {
        self.root.display().to_string()
    }

    fn manifest(&self) -> PathBuf {
        self.root.join("oma-mcp.toml")
    }

    fn snapshot(&self) -> PathBuf {
        self.root.join("mcp/own.snapshot.json")
    }

    /// Writes `oma-mcp.toml` pinning `command` (relative to `cwd`, the target dir), with
    /// the crate's unique path as its only argument, plus `extra` lines.
    fn pin(&self, command: &str, extra: &str) {
        let text = format!(
            "[servers.own]\ncommand = {command:?}\nargs = [{token:?}]\ncwd = {cwd:?}\n\
             prefix = \"own\"\nconsequential = [\"exit\"]\nrequest-timeout-ms = 20000\n{extra}",
            token = self.token(),
            cwd = target_dir().display().to_string(),
        );
        std::fs::write(self.manifest(), text).expect("write oma-mcp.toml");
    }

    /// The absolute program the pin of `command` starts.
    fn program(command: &str) -> String {
        target_dir().join(command).display().to_string()
    }

    /// Runs `cargo <args> --offline` in the crate with exactly the oma-mcp variables in `env`.
    fn cargo(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut cmd = nested_cargo::cargo(&self.target);
        cmd.args(args).arg("--offline").current_dir(&self.root);
        for name in [
            "OMA_MCP_REFRESH",
            "OMA_MCP_OFFLINE",
            "DOCS_RS",
            "OMA_TEST_SERVER_MODE",
        ] {
            cmd.env_remove(name);
        }
        cmd.envs(env.iter().copied());
        cmd.output().expect("cargo runs")
    }

    /// The `cargo::warning=` lines of this crate's build script, as cargo shows them.
    fn warnings(&self, out: &Output) -> Vec<String> {
        let prefix = format!("warning: {}@0.1.0: ", self.package);
        text(&out.stderr)
            .lines()
            .filter_map(|l| l.strip_prefix(&prefix).map(str::to_owned))
            .collect()
    }

    /// `target/.../build/<package>-<hash>`: the build script run's directory (holding
    /// `output` and `out/`), the one whose `output` names this crate's manifest.
    fn build_run_dir(&self) -> PathBuf {
        let build = self.target.join("debug/build");
        let needle = self.manifest().display().to_string();
        std::fs::read_dir(&build)
            .expect("build dir")
            .flatten()
            .map(|e| e.path())
            .find(|p| {
                p.file_name().is_some_and(|n| {
                    n.to_string_lossy()
                        .starts_with(&format!("{}-", self.package))
                }) && std::fs::read_to_string(p.join("output")).is_ok_and(|o| o.contains(&needle))
            })
            .unwrap_or_else(|| panic!("no build script output for {needle} in {}", build.display()))
    }

    fn output_file(&self) -> PathBuf {
        self.build_run_dir().join("output")
    }

    fn generated(&self) -> PathBuf {
        self.build_run_dir().join("out/own.rs")
    }

    /// Fails if a test server started for this crate is still running.
    fn assert_no_server_left(&self) {
        let left = processes_with(&self.token());
        assert!(
            left.is_empty(),
            "processes still running with {} in their command line: {left:?}",
            self.token()
        );
    }
}

/// Removes what earlier runs of this test left for `package` in the check target dir (each
/// run is a new temp path, so a new hash), keeping the shared dependencies.
fn purge_previous_runs(target: &Path, package: &str) {
    let prefixes = [
        format!("{package}-"),
        format!("{}-", package.replace('-', "_")),
    ];
    for sub in ["debug/build", "debug/deps", "debug/.fingerprint"] {
        let Ok(entries) = std::fs::read_dir(target.join(sub)) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if prefixes.iter().any(|p| name.starts_with(p.as_str())) {
                let path = entry.path();
                let _ = if path.is_dir() {
                    std::fs::remove_dir_all(&path)
                } else {
                    std::fs::remove_file(&path)
                };
            }
        }
    }
}

/// Scenarios 1-5 and 7 on one crate, in order (each step depends on the state the one
/// before left): a missing snapshot fails and an explicit refresh takes it, build and run,
/// nothing changed, refresh, refresh while offline, missing while offline, rerun lines.
#[test]
#[ignore = "slow tier (a downstream crate built by a nested cargo, minutes): scripts/test runs it; alone: cargo test -p oma-mcp-build --all-features --test it -- --ignored build_script::downstream_"]
fn downstream_crate_snapshot_build_run_refresh_offline() {
    let d = Downstream::new("oma-bsc-happy", true);
    // `exclude-tools`: the refresh still pins every tool; the module leaves `big` out.
    d.pin(
        &in_profile("oma-mcp-test-server"),
        "pass-env = [\"OMA_TEST_SERVER_MODE\"]\nexclude-tools = [\"big\"]\n",
    );
    let manifest = d.manifest();
    let snap = d.snapshot();
    let trap = [("OMA_TEST_SERVER_MODE", TRAP)];

    // 1. No snapshot: the build fails naming the file and the commands that take it, starts
    // no server (the trap would fail it otherwise) and writes nothing into the source tree.
    assert!(!snap.exists());
    let before = source_tree(&d.root);
    let out = d.cargo(&["build"], &trap);
    assert_build_script_error(
        &out,
        &format!(
            "snapshot {snap} of server `own` (manifest {manifest}) is missing, and a build \
             starts a server only when asked; take it with `OMA_MCP_REFRESH=own cargo build` or \
             `oma-mcp snapshot --manifest {manifest} --server own`, then review and commit it",
            snap = snap.display(),
            manifest = manifest.display()
        ),
    );
    assert_eq!(source_tree(&d.root), before);
    assert!(!snap.exists() && !d.root.join("mcp").exists());
    d.assert_no_server_left();

    // An explicit refresh starts the server, writes the snapshot and says so.
    let out = d.cargo(&["build"], &[("OMA_MCP_REFRESH", "own")]);
    assert_success(&out);
    let snapshot = Snapshot::read(&snap).expect("the snapshot parses");
    let source = snapshot
        .source
        .as_ref()
        .expect("the snapshot records its source");
    assert_eq!(source.command, in_profile("oma-mcp-test-server"));
    assert_eq!(source.args, vec![d.token()]);
    assert!(
        ["echo", "big"]
            .iter()
            .all(|name| snapshot.tools.iter().any(|t| t.name() == *name)),
        "no echo or big tool in {}",
        snap.display()
    );
    let took = format!(
        "took a snapshot of server `own` ({} tools) into {}; review and commit it",
        snapshot.tools.len(),
        snap.display()
    );
    assert_eq!(d.warnings(&out), vec![took], "{}", describe(&out));
    // The generated file is exactly the generator's output for that snapshot and the pin's
    // options: its prefix and consequential patterns, and its connection, which ends the
    // module as `connect_config()` and `connect()`.
    let pinned = oma_mcp_build::Manifest::read(&manifest).expect("manifest");
    let options = pinned.servers["own"].generate_options();
    assert_eq!(
        (
            options.name_prefix.as_deref(),
            options.consequential.as_slice()
        ),
        (Some("own"), ["exit".to_owned()].as_slice())
    );
    let expected_code = oma_mcp_build::generate(&snapshot, &options)
        .expect("generate")
        .code;
    // The items below in the emitter's layout (one builder call a line, a signature on one
    // line), which formatting changes only in whitespace: it does not depend on how long
    // this machine's paths make a line.
    let plain_code = oma_mcp_build::generate(&snapshot, &options.clone().with_format(false))
        .expect("generate")
        .code;
    let config_text = format!(
        "/// The connection to server `own` as the manifest pins it (command, arguments, \
         working directory,\n/// environment, prefix, request timeout), with paths as resolved \
         when the build script ran.\n#[allow(dead_code, clippy::pedantic, missing_docs)]\n\
         pub fn connect_config() -> ::oma_mcp_runtime::ConnectConfig {{\n    \
         ::oma_mcp_runtime::ConnectConfig::new({:?})\n        .with_args([{:?}])\n        \
         .with_cwd({:?})\n        .with_pass_env([\"OMA_TEST_SERVER_MODE\"])\n        \
         .with_name_prefix(\"own\")\n        \
         .with_request_timeout(::core::time::Duration::from_millis(20000))\n        \
         .with_consequential([\"exit\"])\n        .with_exclude_tools([\"big\"])\n}}\n",
        Downstream::program(&in_profile("oma-mcp-test-server")),
        d.token(),
        target_dir().display().to_string(),
    );
    // `connect(policy)` uses the drift engine: inside `drift_items!`, indented one level.
    let indented = "    /// Connects to server `own` with [`connect_config()`] and checks its live \
         tools\n    /// against [`SNAPSHOT`] under `policy`, in one call \
         ([`oma_mcp_runtime::connect_checked`]):\n    /// returns the client and the drift report.\n    \
         ///\n    /// # Errors\n    /// A connection error, or [`oma_mcp_runtime::Error::Drift`] \
         when `policy` refuses\n    /// the drift (the server is disconnected first).\n    \
         #[allow(dead_code, clippy::pedantic, missing_docs)]\n    pub async fn \
         connect(policy: ::oma_mcp_runtime::DriftPolicy) -> \
         ::core::result::Result<(::oma_mcp_runtime::McpClient, \
         ::oma_mcp_runtime::DriftReport), ::oma_mcp_runtime::Error> {\n        \
         ::oma_mcp_runtime::connect_checked(connect_config(), SNAPSHOT, \"own\", policy)\
         .await\n    }\n";
    // `connect_config()` ends the plain items; `connect(policy)` is the last item of the
    // `drift_items!` block, and `fake()` in the `fake_items!` block ends the module.
    assert!(
        plain_code.contains(&config_text),
        "the module does not hold\n{config_text}\n--- module ---\n{plain_code}"
    );
    let drift_end = format!("{indented}}}\n\n::oma_mcp_runtime::fake_items! {{\n");
    assert!(
        plain_code.contains(&drift_end),
        "the module does not hold\n{drift_end}\n--- module ---\n{plain_code}"
    );
    let fake_end = "::oma_mcp_runtime::fake::FakeServer::start(SNAPSHOT, \
                    ::core::option::Option::Some(\"own\")).await\n    }\n}\n";
    assert!(
        plain_code.ends_with(fake_end),
        "the module does not end with\n{fake_end}\n--- module ---\n{plain_code}"
    );
    assert!(!expected_code.contains("pub struct Big;"));
    assert_eq!(
        std::fs::read_to_string(d.generated()).expect("generated file"),
        expected_code
    );
    // `oma-mcp generate --manifest` prints this file too: oma-mcp-cli's tests compare the two
    // (`cli::generate_manifest_prints_the_build_scripts_file`).
    let taken = stamp(&snap);
    let generated = stamp(&d.generated());
    d.assert_no_server_left();

    // The typed call. Cargo reruns the build script here (`OMA_MCP_REFRESH` is no longer set,
    // and the snapshot was written while it ran): that rerun reads the snapshot without
    // starting the server (the trap would fail it) and leaves both files untouched.
    let out = d.cargo(&["run"], &trap);
    assert_success(&out);
    assert_eq!(text(&out.stdout), "Echo: typed\n");
    assert_eq!(d.warnings(&out), Vec::<String>::new());
    assert_eq!(stamp(&snap), taken);
    assert_eq!(stamp(&d.generated()), generated);
    d.assert_no_server_left();

    // 2. Nothing changed: cargo does not rerun the build script (fresh; its output file is
    // not rewritten) and no file is touched.
    let output_before = stamp(&d.output_file());
    let out = d.cargo(&["build", "-v"], &trap);
    assert_success(&out);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "Fresh {} v0.1.0 ({})",
            d.package,
            d.root.display()
        )),
        "{}",
        describe(&out)
    );
    assert!(
        !stderr.contains("build-script-build`"),
        "{}",
        describe(&out)
    );
    assert_eq!(stamp(&d.output_file()), output_before);
    assert_eq!(stamp(&snap), taken);
    assert_eq!(stamp(&d.generated()), generated);

    // 7. The rerun lines, and nothing else, in the build script's output file.
    assert_eq!(
        text(&output_before.0),
        rerun_lines(&manifest, &snap),
        "{}",
        d.output_file().display()
    );

    // 3. A refresh naming the server starts it again; the snapshot is byte-identical, so
    // neither it nor the generated file is rewritten.
    let out = d.cargo(&["build"], &[("OMA_MCP_REFRESH", "own")]);
    assert_success(&out);
    let tools = Snapshot::read(&snap).expect("snapshot").tools.len();
    assert_eq!(
        d.warnings(&out),
        vec![format!(
            "refreshed the snapshot of server `own` ({tools} tools): no change to its tools"
        )],
        "{}",
        describe(&out)
    );
    assert_eq!(stamp(&snap), taken);
    assert_eq!(stamp(&d.generated()), generated);
    d.assert_no_server_left();

    // A refresh naming another server: the script reruns (the variable changed) but does
    // not start the server.
    let before = mtime(&d.output_file());
    let out = d.cargo(&["build"], &[("OMA_MCP_REFRESH", "other"), trap[0]]);
    assert_success(&out);
    assert_eq!(d.warnings(&out), Vec::<String>::new(), "{}", describe(&out));
    assert_ne!(
        mtime(&d.output_file()),
        before,
        "the build script did not rerun"
    );
    assert_eq!(stamp(&snap), taken);

    // The trap works: a server that is started with it fails the build, and a failed
    // refresh keeps the committed snapshot.
    let out = d.cargo(&["build"], &[("OMA_MCP_REFRESH", "own"), trap[0]]);
    assert_build_script_error(
        &out,
        &format!(
            "cannot take a snapshot of server `own` (manifest {}, command `{command} {token}`; \
             check the command and that the server is installed, e.g. `npm ci`): the MCP \
             server/discover handshake with `{} {token}` failed (the server exited (exit status: \
             3); server stderr: fatal: this server refuses to initialize): MCP error -32601: \
             Method not found; the fallback `initialize` handshake failed too: MCP error -32000: \
             Connection closed",
            manifest.display(),
            Downstream::program(&in_profile("oma-mcp-test-server")),
            command = in_profile("oma-mcp-test-server"),
            token = d.token(),
        ),
    );
    assert_eq!(stamp(&snap), taken);
    d.assert_no_server_left();

    // 5. A refresh while connecting is off: ignored with a warning, the snapshot is used.
    let ignored = format!(
        "OMA_MCP_REFRESH asks to refresh server `own`, but connecting is off (DOCS_RS or \
         OMA_MCP_OFFLINE); using {}",
        snap.display()
    );
    let out = d.cargo(
        &["build"],
        &[("OMA_MCP_REFRESH", "1"), ("DOCS_RS", "1"), trap[0]],
    );
    assert_success(&out);
    assert_eq!(
        d.warnings(&out),
        vec![ignored.clone()],
        "{}",
        describe(&out)
    );
    assert_eq!(stamp(&snap), taken);
    let out = d.cargo(
        &["build"],
        &[
            ("OMA_MCP_REFRESH", "own"),
            ("OMA_MCP_OFFLINE", "1"),
            trap[0],
        ],
    );
    assert_success(&out);
    assert_eq!(
        d.warnings(&out),
        vec![ignored.clone()],
        "{}",
        describe(&out)
    );
    assert_eq!(stamp(&snap), taken);
    assert_eq!(stamp(&d.generated()), generated);
    // Every variable is declared whatever their values (the offline one being set must not
    // hide `DOCS_RS`).
    assert_eq!(
        std::fs::read_to_string(d.output_file()).expect("output file"),
        format!(
            "{}cargo::warning={ignored}\n",
            rerun_lines(&manifest, &snap)
        )
    );

    // 4. Snapshot missing while connecting is off: the build fails and says what to do.
    std::fs::remove_file(&snap).expect("remove snapshot");
    let missing = format!(
        "snapshot {snap} of server `own` (manifest {manifest}) is missing, and starting \
         servers is off (DOCS_RS or OMA_MCP_OFFLINE is set); take it with `oma-mcp snapshot \
         --manifest {manifest}` and commit it",
        snap = snap.display(),
        manifest = manifest.display()
    );
    for env in [("OMA_MCP_OFFLINE", "1"), ("DOCS_RS", "1")] {
        let out = d.cargo(&["build"], &[env, trap[0]]);
        assert_build_script_error(&out, &missing);
        assert!(!snap.exists(), "{} was written", snap.display());
    }
    d.assert_no_server_left();

    // 8. The runtime without its default `drift` feature: the generated module leaves out
    // `drift()` and `connect(policy)` and the rest still builds and runs; a call to
    // `connect(policy)` is a compile error naming it.
    std::fs::write(&snap, &taken.0).expect("restore the snapshot");
    let cargo_toml = d.root.join("Cargo.toml");
    let with_drift = std::fs::read_to_string(&cargo_toml).expect("read Cargo.toml");
    let runtime_line = with_drift
        .lines()
        .find(|l| l.starts_with("oma-mcp-runtime = "))
        .expect("the runtime dependency");
    let without = runtime_line.replace(" }", ", default-features = false }");
    std::fs::write(&cargo_toml, with_drift.replace(runtime_line, &without))
        .expect("write Cargo.toml");
    let out = d.cargo(&["run"], &trap);
    assert_success(&out);
    assert_eq!(text(&out.stdout), "Echo: typed\n");
    let main_rs = d.root.join("src/main.rs");
    let main = std::fs::read_to_string(&main_rs).expect("read main.rs");
    std::fs::write(
        &main_rs,
        main.replace(
            "let mut config = own::connect_config();",
            "let _ = own::connect(oma_mcp_runtime::DriftPolicy::Ignore);\n    \
             let mut config = own::connect_config();",
        ),
    )
    .expect("write main.rs");
    let out = d.cargo(&["build"], &trap);
    assert_eq!(out.status.code(), Some(101), "{}", describe(&out));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("cannot find function `connect` in module `own`"),
        "{stderr}"
    );
    d.assert_no_server_left();
}

/// A server pinned by URL: the build script reads its committed snapshot and generates its
/// module without the runtime's feature `http` (it needs no HTTP); the crate that includes
/// the module fails to compile with the `__require_http!` message naming the server and the
/// feature (`golden_behavior` compiles such a module with the feature). Its `oma-mcp-build`
/// has no feature `refresh` (the default): a refresh request fails the build script, saying
/// how to take the snapshot, and leaves the committed one as it was.
#[test]
#[ignore = "slow tier (a downstream crate built by a nested cargo, minutes): scripts/test runs it; alone: cargo test -p oma-mcp-build --all-features --test it -- --ignored build_script::downstream_"]
fn downstream_crate_url_pin_needs_the_http_feature() {
    let d = Downstream::new("oma-bsc-url", false);
    std::fs::write(
        d.manifest(),
        "[servers.own]\nurl = \"https://api.githubcopilot.com/mcp/\"\n\
         bearer-env = \"GITHUB_TOKEN\"\nheaders = { \"X-MCP-Toolsets\" = \"repos,issues\" }\n",
    )
    .expect("write oma-mcp.toml");
    std::fs::create_dir_all(d.root.join("mcp")).expect("mkdir mcp");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/remote.json"),
        d.snapshot(),
    )
    .expect("copy the snapshot");
    std::fs::write(
        d.root.join("src/main.rs"),
        "mod own {\n    oma_mcp_runtime::include_tools!(\"own\");\n}\n\n\
         fn main() {\n    println!(\"{:?}\", own::connect_config().url);\n}\n",
    )
    .expect("write main.rs");
    let out = d.cargo(&["build"], &[("GITHUB_TOKEN", "s3cret-value")]);
    assert_eq!(out.status.code(), Some(101), "{}", describe(&out));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "error: the MCP server `own` is pinned by URL, and its generated `connect_config()` \
             connects over streamable HTTP: enable oma-mcp-runtime's cargo feature `http` \
             (`features = [\"http\"]` on the oma-mcp-runtime dependency in Cargo.toml; \
             `http-ring` for rustls on ring)\n"
        ),
        "{}",
        describe(&out)
    );
    assert!(!stderr.contains("s3cret-value"), "{}", describe(&out));
    // The build script itself succeeded: the module is written, with the variable's name.
    let generated = std::fs::read_to_string(d.generated()).expect("generated file");
    assert!(
        generated.contains("::oma_mcp_runtime::__require_http!(\"own\");\n")
            && generated.contains(".with_bearer_env(\"GITHUB_TOKEN\")"),
        "{generated}"
    );
    assert!(!generated.contains("s3cret-value"));

    let committed = stamp(&d.snapshot());
    let out = d.cargo(&["build"], &[("OMA_MCP_REFRESH", "1")]);
    assert_build_script_error(
        &out,
        &format!(
            "OMA_MCP_REFRESH asks to refresh server `own` (manifest {manifest}), but this \
             oma-mcp-build was built without its cargo feature `refresh`, so a build cannot start \
             the server; add `features = [\"refresh\"]` to the `oma-mcp-build` build-dependency, \
             or take the snapshot with `oma-mcp snapshot --manifest {manifest} --server own`",
            manifest = d.manifest().display()
        ),
    );
    assert_eq!(stamp(&d.snapshot()), committed);
}

/// Scenario 6: bad inputs, each a build error naming the file or command.
#[test]
#[ignore = "slow tier (a downstream crate built by a nested cargo, minutes): scripts/test runs it; alone: cargo test -p oma-mcp-build --all-features --test it -- --ignored build_script::downstream_"]
fn downstream_crate_bad_inputs() {
    let d = Downstream::new("oma-bsc-bad", true);
    let manifest = d.manifest();
    let snap = d.snapshot();
    let token = d.token();

    // No manifest.
    let out = d.cargo(&["build"], &[]);
    assert_build_script_error(
        &out,
        &format!(
            "cannot read manifest {} (check its path, or write one: the README's \"Use it in \
             your crate\"): No such file or directory (os error 2)",
            manifest.display()
        ),
    );

    // Not TOML.
    std::fs::write(&manifest, "[servers.own\ncommand = \"x\"\n").expect("write manifest");
    let out = d.cargo(&["build"], &[]);
    assert_build_script_error(
        &out,
        &format!(
            "manifest {} is not valid: TOML parse error at line 1, column 13\n  |\n\
             1 | [servers.own\n  |             ^\nunclosed table, expected `]`",
            manifest.display()
        ),
    );

    // A snapshot that is not JSON: named, with the way to regenerate it.
    d.pin(&in_profile("oma-mcp-test-server"), "");
    std::fs::create_dir_all(snap.parent().expect("mcp/")).expect("mkdir mcp");
    std::fs::write(&snap, "not json\n").expect("write snapshot");
    let out = d.cargo(&["build"], &[]);
    assert_build_script_error(
        &out,
        &format!(
            "snapshot {} is not valid: not JSON (expected ident at line 1 column 2); \
             regenerate it with `oma-mcp snapshot`",
            snap.display()
        ),
    );
    std::fs::remove_file(&snap).expect("remove snapshot");

    // A pinned command that does not exist (started on a refresh): the server, manifest and
    // command as written, what failed, and the hint to check the install (once).
    d.pin(&in_profile("no-such-server"), "");
    let out = d.cargo(&["build"], &[("OMA_MCP_REFRESH", "own")]);
    assert_build_script_error(
        &out,
        &format!(
            "cannot take a snapshot of server `own` (manifest {}, command `{command} {token}`): \
             cannot start the MCP server `{} {token}` (check that the command path is right and \
             that the server is installed; a pinned npm server: run `npm ci` where its \
             package-lock.json is): No such file or directory (os error 2)",
            manifest.display(),
            Downstream::program(&in_profile("no-such-server")),
            command = in_profile("no-such-server"),
        ),
    );
    assert!(!snap.exists());

    // A server that exits during the handshake of a refresh: its stderr is quoted, and it is
    // not left running.
    d.pin(
        &in_profile("oma-mcp-test-server"),
        "env = { OMA_TEST_SERVER_MODE = \"exit-on-initialize\" }\n",
    );
    let out = d.cargo(&["build"], &[("OMA_MCP_REFRESH", "own")]);
    assert_build_script_error(
        &out,
        &format!(
            "cannot take a snapshot of server `own` (manifest {}, command `{command} {token}`; \
             check the command and that the server is installed, e.g. `npm ci`): the MCP \
             server/discover handshake with `{} {token}` failed (the server exited (exit status: \
             3); server stderr: fatal: this server refuses to initialize): MCP error -32601: \
             Method not found; the fallback `initialize` handshake failed too: MCP error -32000: \
             Connection closed",
            manifest.display(),
            Downstream::program(&in_profile("oma-mcp-test-server")),
            command = in_profile("oma-mcp-test-server"),
        ),
    );
    assert!(!snap.exists());
    d.assert_no_server_left();
}

/// The builder in-process: a missing snapshot, return values, write-if-changed, selection
/// errors. The snapshot is taken with `take_snapshot` (feature `refresh`).
#[cfg(feature = "refresh")]
#[test]
fn builder_in_process_writes_only_when_changed() {
    use oma_mcp_build::{Error, WriteSnapshot};

    let dir = tempfile::tempdir().expect("temp dir");
    let root = std::fs::canonicalize(dir.path()).expect("canonical temp dir");
    let out_dir = root.join("out");
    std::fs::create_dir_all(&out_dir).expect("mkdir out");
    let manifest = root.join("oma-mcp.toml");
    std::fs::write(
        &manifest,
        format!(
            "[servers.own]\ncommand = {:?}\nprefix = \"own\"\nrequest-timeout-ms = 20000\n",
            test_server().display().to_string()
        ),
    )
    .expect("write manifest");
    let snap = root.join("mcp/own.snapshot.json");
    // Variables nobody sets, so the caller's environment cannot change the outcome.
    let builder = || {
        oma_mcp_build::configure()
            .manifest(&manifest)
            .out_dir(&out_dir)
            .refresh_env("OMA_MCP_BUILD_TEST_UNSET_REFRESH")
            .offline_env("OMA_MCP_BUILD_TEST_UNSET_OFFLINE")
            .emit_rerun_if_changed(false)
    };
    let generated = out_dir.join("own.rs");

    // Missing snapshot, no refresh asked for: an error naming the builder's refresh variable;
    // nothing is started or written.
    let err = builder().compile().unwrap_err();
    assert!(matches!(err, Error::SnapshotMissing { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!(
            "snapshot {snap} of server `own` (manifest {manifest}) is missing, and a build \
             starts a server only when asked; take it with \
             `OMA_MCP_BUILD_TEST_UNSET_REFRESH=own cargo build` or `oma-mcp snapshot \
             --manifest {manifest} --server own`, then review and commit it",
            snap = snap.display(),
            manifest = manifest.display()
        )
    );
    assert!(!snap.exists() && !generated.exists());

    // Taken as `oma-mcp snapshot` takes it, then generated.
    let pin = oma_mcp_build::Manifest::read(&manifest).expect("manifest");
    let taken = oma_mcp_build::builder::take_snapshot(&pin.servers["own"], &manifest)
        .expect("take the snapshot");
    assert!(taken.write(&snap).expect("write the snapshot"));
    let done = builder().compile().expect("first compile");
    assert_eq!(done.len(), 1);
    assert_eq!(done[0].server, "own");
    assert_eq!(done[0].path, generated);
    assert!(done[0].written);
    assert!(!done[0].connected);
    assert_eq!(done[0].warnings, Vec::<String>::new());
    let snapshot = Snapshot::read(&snap).expect("snapshot written");
    assert_eq!(snapshot, taken);
    let expected = oma_mcp_build::generate(&snapshot, &pin.servers["own"].generate_options())
        .expect("generate")
        .code;
    // Not `assert_eq!`: a failure would print the whole module twice.
    assert!(
        std::fs::read_to_string(&generated).expect("generated") == expected,
        "{} differs from the generator's output plus connect_config()",
        generated.display()
    );
    let first = stamp(&generated);
    let snap_first = stamp(&snap);

    // Again: nothing started, nothing rewritten.
    let done = builder().server("own").compile().expect("second compile");
    assert_eq!(done.len(), 1);
    assert!(!done[0].written);
    assert!(!done[0].connected);
    assert_eq!(stamp(&generated), first);
    assert_eq!(stamp(&snap), snap_first);

    // A stale generated file is rewritten from the snapshot.
    std::fs::write(&generated, "// stale\n").expect("write stale");
    let done = builder().compile().expect("third compile");
    assert!(done[0].written);
    assert!(!done[0].connected);
    assert_eq!(
        std::fs::read_to_string(&generated).expect("generated"),
        expected
    );

    // A server the manifest does not pin.
    let err = builder().server("nope").compile().unwrap_err();
    assert!(matches!(err, Error::UnknownServer { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!(
            "manifest {} pins no server named \"nope\"; it pins: own",
            manifest.display()
        )
    );

    // Outside a build script, without `.out_dir(...)`.
    if std::env::var_os("OUT_DIR").is_none() {
        let err = oma_mcp_build::configure()
            .manifest(&manifest)
            .emit_rerun_if_changed(false)
            .compile()
            .unwrap_err();
        assert!(matches!(err, Error::OutDirMissing), "{err:?}");
    }

    // A missing manifest, named.
    let err = oma_mcp_build::compile_manifest(root.join("absent.toml")).unwrap_err();
    assert!(matches!(err, Error::ManifestIo { .. }), "{err:?}");
    assert_eq!(
        err.chain().to_string(),
        format!(
            "cannot read manifest {} (check its path, or write one: the README's \"Use it in \
             your crate\"): No such file or directory (os error 2)",
            root.join("absent.toml").display()
        )
    );
}
