//! Finds the shared reference folder for oma-mcp's tests and benches.
//!
//! Some tests check oma-mcp against real data that is not part of the repository: the
//! `tools/list` captures, `tools/call` results and failure cases of public MCP servers in the
//! folder's `corpus/`. (Tool naming and result mapping are tested from committed fixtures and
//! do not need it.)
//!
//! The folder is the value of [`VAR`] (`OMA_MCP_SHARED`), else the folder named `shared`
//! beside the workspace. A test asks for it with [`shared_dir`]:
//!
//! - it holds `corpus/`: `Some(folder)`;
//! - it does not, and the `CI` variable is set (to anything but empty, `0` or `false`, as
//!   CI services set `CI=true`): the test fails, so a CI job can never pass by skipping;
//! - it does not, locally: one line naming the test, the path tried and [`VAR`] is printed
//!   (shown with `cargo test -- --nocapture`) and `None` is returned, so a plain clone
//!   still passes.
//!
//! It also starts MCP servers that listen on loopback HTTP for a test ([`http`]:
//! [`spawn_http_server`] waits for the server's `listening on <url>` line or its port, and
//! kills it on drop), plays the browser of an OAuth login ([`browser`]: follows redirects with
//! cookies and submits the login page's form), and runs the OpenID provider test server
//! ([`oidc`]: `tests/servers/oidc-login.mjs`). Tests that need the pinned npm packages ask
//! with [`npm_package`], which skips or fails as [`shared_dir`] does.
//!
//! One crate, a dev-dependency of `oma-mcp-runtime`, `oma-mcp-build` and
//! `oma-mcp-test-server` (a normal dependency of the benches): the only place that knows where
//! the folder is and what a missing one means. It has no dependencies, so it adds nothing to
//! their builds, and it is not published (cargo drops a path-only dev-dependency from a
//! packaged manifest).

pub mod browser;
pub mod http;
pub mod oidc;
pub mod secret_service;

pub use http::{HttpServer, Ready, free_port, spawn_http_server};

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The environment variable naming the shared reference folder.
pub const VAR: &str = "OMA_MCP_SHARED";

/// The environment variable that turns a missing folder from a skip into a test failure.
pub const CI_VAR: &str = "CI";

/// The folder tried and where its path came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tried {
    /// The shared reference folder (it may not exist).
    pub path: PathBuf,
    /// Whether the path is the value of [`VAR`] (else it is the default beside the workspace).
    pub from_var: bool,
}

/// The shared reference folder to use: the value of [`VAR`] when it is set and not empty,
/// else the folder named `shared` beside the workspace. Whether it exists is not checked
/// (benches report their own read errors; tests use [`shared_dir`]).
pub fn shared_path() -> PathBuf {
    locate(std::env::var_os(VAR).as_deref()).path
}

/// The shared reference folder for the test running on this thread, when it holds `corpus/`.
///
/// When it does not: under CI (see [`ci_is_set`]) this panics, failing the test, with the
/// message of [`missing_message`]; otherwise it prints that message's one line and returns
/// `None`, and the caller skips what needs the folder. The test is named by the current
/// thread's name, which the Rust test harness sets to the test's path.
///
/// # Panics
/// Under CI when the folder or its `corpus/` is missing: that is the point.
#[track_caller]
pub fn shared_dir() -> Option<PathBuf> {
    let tried = locate(std::env::var_os(VAR).as_deref());
    if tried.path.join("corpus").is_dir() {
        return Some(tried.path);
    }
    let ci = ci_is_set(std::env::var_os(CI_VAR).as_deref());
    let thread = std::thread::current();
    let message = missing_message(thread.name().unwrap_or("this test"), &tried, ci);
    if ci {
        panic!("{message}");
    }
    println!("{message}");
    log_skip(
        thread.name().unwrap_or("this test"),
        &format!("no reference corpus at {}", tried.path.display()),
    );
    None
}

/// The variable naming a file that every skipped test appends one line to
/// (`OMA_MCP_SKIP_LOG`): the test command sets it and prints the count at the end of its
/// fast tier, so a local green run says what it did not run.
pub const SKIP_LOG_VAR: &str = "OMA_MCP_SKIP_LOG";

/// Records that `test` skipped its work, or part of it, for the reason `why` (a server, a
/// tool or the reference corpus is missing; never under CI, where the caller fails instead):
/// prints `skipped <test>: <why>` (shown with `cargo test -- --nocapture`) and appends that
/// line to the file [`SKIP_LOG_VAR`] names, when it is set.
pub fn skipped(test: &str, why: &str) {
    println!("skipped {test}: {why}");
    log_skip(test, why);
}

/// Appends `<test>\t<why>` to the file [`SKIP_LOG_VAR`] names, when it is set (tabs and line
/// breaks in either made spaces).
fn log_skip(test: &str, why: &str) {
    let Some(path) = std::env::var_os(SKIP_LOG_VAR) else {
        return;
    };
    use std::io::Write as _;
    let flat = |text: &str| text.replace(['\t', '\n', '\r'], " ");
    // One `write` of the whole line to a file opened for appending: lines of tests that skip
    // at the same time do not interleave.
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path);
    if let Ok(mut file) = file {
        let _ = file.write_all(format!("{}\t{}\n", flat(test), flat(why)).as_bytes());
    }
}

/// Skips `test`, or the part of it that needs what is missing (`why`: a server, a tool), as
/// [`skipped`] records it; under CI (the `CI` variable set, see [`ci_is_set`]) it fails
/// instead, since the test command installs all of it.
///
/// # Panics
/// Under CI: that is the point.
#[track_caller]
pub fn skip(test: &str, why: &str) {
    if ci_is_set(std::env::var_os(CI_VAR).as_deref()) {
        panic!("{test}: {why}, and {CI_VAR} is set, so this fails instead of skipping");
    }
    skipped(test, why);
}

/// The id mdBook 0.5 and GitHub give a Markdown heading, for the tests that check the guide's
/// links: its text (less inline-code backticks) in lower case, letters, digits, `_` and `-`
/// kept, whitespace as `-`, the rest dropped (`In CI` → `in-ci`).
pub fn heading_anchor(heading: &str) -> String {
    heading
        .replace('`', "")
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c)
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// Where the folder is, given the value of [`VAR`] (`None` when unset).
pub fn locate(var: Option<&OsStr>) -> Tried {
    match var {
        Some(value) if !value.is_empty() => Tried {
            path: PathBuf::from(value),
            from_var: true,
        },
        _ => Tried {
            path: beside_workspace(),
            from_var: false,
        },
    }
}

/// Whether the value of [`CI_VAR`] (`None` when unset) asks for strict tests: anything but
/// empty, `0` or `false` (any case).
pub fn ci_is_set(value: Option<&OsStr>) -> bool {
    value.is_some_and(|v| {
        let v = v.to_string_lossy();
        let v = v.trim();
        !(v.is_empty() || v == "0" || v.eq_ignore_ascii_case("false"))
    })
}

/// The one-line message for a missing folder: a skip notice locally, the failure under CI.
/// Both name the test, the path tried, where it came from and what to set.
pub fn missing_message(test: &str, tried: &Tried, ci: bool) -> String {
    let origin = if tried.from_var {
        format!("the value of {VAR}")
    } else {
        format!("{VAR} is not set")
    };
    let path = tried.path.display();
    if ci {
        format!(
            "{test}: no corpus/ in the shared reference folder {path} ({origin}), and {CI_VAR} \
             is set, so this fails instead of skipping; set {VAR} to the folder that holds \
             corpus/"
        )
    } else {
        format!(
            "skipped the shared-corpus checks of {test}: no corpus/ in {path} ({origin}; set it \
             to the folder that holds corpus/ to run them)"
        )
    }
}

/// The workspace root (this crate is `<workspace>/test-support`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from(".."), Path::to_path_buf)
}

/// The folder of the npm package `package` pinned in `tests/servers/package.json` and
/// installed in `tests/servers/node_modules/` (`npm ci --prefix tests/servers
/// --ignore-scripts`), for the test running on this thread.
///
/// When it is not installed: under CI (see [`ci_is_set`]) this panics, failing the test;
/// otherwise it prints one line naming the test and what to run, and returns `None`, and the
/// caller skips.
///
/// # Panics
/// Under CI when the package is not installed.
#[track_caller]
pub fn npm_package(package: &str) -> Option<PathBuf> {
    let path = workspace_root()
        .join("tests/servers/node_modules")
        .join(package);
    if path.join("package.json").is_file() {
        return Some(path);
    }
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("this test");
    let missing = format!(
        "the npm package {package} is not installed in tests/servers/node_modules (run `npm ci \
         --prefix tests/servers --ignore-scripts`)"
    );
    if ci_is_set(std::env::var_os(CI_VAR).as_deref()) {
        panic!("{test}: {missing}, and {CI_VAR} is set, so this fails instead of skipping");
    }
    skipped(test, &missing);
    None
}

/// The default: `shared` in the directory that holds the workspace.
fn beside_workspace() -> PathBuf {
    // This crate is `<workspace>/test-support`.
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .map_or_else(|| PathBuf::from("shared"), |dir| dir.join("shared"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    fn the_variable_wins_unless_empty() {
        let default = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .and_then(Path::parent)
            .expect("the workspace has a parent")
            .join("shared");
        assert_eq!(
            locate(Some(OsStr::new("/data/ref"))),
            Tried {
                path: PathBuf::from("/data/ref"),
                from_var: true
            }
        );
        for unset in [None, Some(OsStr::new(""))] {
            assert_eq!(
                locate(unset),
                Tried {
                    path: default.clone(),
                    from_var: false
                }
            );
        }
    }

    #[test]
    fn ci_values() {
        for set in ["true", "1", "yes", "TRUE", "woodpecker"] {
            assert!(ci_is_set(Some(OsStr::new(set))), "{set}");
        }
        for unset in ["", " ", "0", "false", "False"] {
            assert!(!ci_is_set(Some(OsStr::new(unset))), "{unset:?}");
        }
        assert!(!ci_is_set(None));
    }

    #[test]
    fn messages() {
        let from_var = Tried {
            path: PathBuf::from("/nonexistent"),
            from_var: true,
        };
        let default = Tried {
            path: PathBuf::from("/src/shared"),
            from_var: false,
        };
        assert_eq!(
            missing_message("corpus::t", &from_var, false),
            "skipped the shared-corpus checks of corpus::t: no corpus/ in /nonexistent (the \
             value of OMA_MCP_SHARED; set it to the folder that holds corpus/ to run them)"
        );
        assert_eq!(
            missing_message("corpus::t", &default, false),
            "skipped the shared-corpus checks of corpus::t: no corpus/ in /src/shared \
             (OMA_MCP_SHARED is not set; set it to the folder that holds corpus/ to run them)"
        );
        assert_eq!(
            missing_message("corpus::t", &from_var, true),
            "corpus::t: no corpus/ in the shared reference folder /nonexistent (the value of \
             OMA_MCP_SHARED), and CI is set, so this fails instead of skipping; set \
             OMA_MCP_SHARED to the folder that holds corpus/"
        );
    }

    /// Run only by the two tests below, in a child process with the environment they set.
    #[test]
    #[ignore = "a probe run by the tests below in a child process"]
    fn probe() {
        println!("probe got {:?}", shared_dir());
    }

    /// Runs the ignored test `probe` (`tests::probe`, `tests::npm_probe`) in a child process
    /// of this test binary with `CI` as given and the shared folder pointing nowhere; returns
    /// its exit success, stdout and stderr.
    fn run_probe(probe: &str, ci: Option<&str>) -> (bool, String, String) {
        let (ok, stdout, stderr, _) = run_probe_logged(probe, ci);
        (ok, stdout, stderr)
    }

    /// [`run_probe`] with a skip log of its own ([`SKIP_LOG_VAR`]): also what the probe
    /// wrote to it.
    fn run_probe_logged(probe: &str, ci: Option<&str>) -> (bool, String, String, String) {
        static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let log =
            std::env::temp_dir().join(format!("oma-mcp-skip-log-{}-{run}.txt", std::process::id()));
        let _ = std::fs::remove_file(&log);
        let exe = std::env::current_exe().expect("the test binary's path");
        let mut cmd = Command::new(exe);
        cmd.args([probe, "--exact", "--ignored", "--nocapture"])
            .env(VAR, "/nonexistent/oma-mcp-shared")
            .env(SKIP_LOG_VAR, &log)
            .env_remove(CI_VAR);
        if let Some(ci) = ci {
            cmd.env(CI_VAR, ci);
        }
        let out = cmd.output().expect("the test binary runs");
        let logged = std::fs::read_to_string(&log).unwrap_or_default();
        let _ = std::fs::remove_file(&log);
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
            logged,
        )
    }

    /// Run only by [`a_missing_npm_package_skips_locally_and_fails_under_ci`].
    #[test]
    #[ignore = "a probe run by the test below in a child process"]
    fn npm_probe() {
        println!(
            "npm probe got {:?}",
            npm_package("oma-mcp-no-such-package").is_some()
        );
    }

    #[test]
    fn a_missing_npm_package_skips_locally_and_fails_under_ci() {
        let missing = "the npm package oma-mcp-no-such-package is not installed in \
                       tests/servers/node_modules (run `npm ci --prefix tests/servers \
                       --ignore-scripts`)";
        let (ok, stdout, stderr, logged) = run_probe_logged("tests::npm_probe", None);
        assert!(ok, "stdout:\n{stdout}\nstderr:\n{stderr}");
        assert_eq!(logged, format!("tests::npm_probe\t{missing}\n"));
        assert!(
            stdout.contains(&format!("skipped tests::npm_probe: {missing}\n")),
            "{stdout}"
        );
        assert!(stdout.contains("npm probe got false\n"), "{stdout}");
        let (ok, stdout, stderr, logged) = run_probe_logged("tests::npm_probe", Some("true"));
        assert!(!ok, "stdout:\n{stdout}\nstderr:\n{stderr}");
        assert_eq!(logged, "");
        assert!(
            stderr.contains(&format!(
                "tests::npm_probe: {missing}, and CI is set, so this fails instead of skipping"
            )),
            "{stderr}"
        );
        assert!(!stdout.contains("npm probe got"), "{stdout}");
    }

    #[test]
    fn locally_a_missing_folder_skips_with_one_line() {
        let (ok, stdout, stderr, logged) = run_probe_logged("tests::probe", None);
        assert!(ok, "stdout:\n{stdout}\nstderr:\n{stderr}");
        assert_eq!(
            logged,
            "tests::probe\tno reference corpus at /nonexistent/oma-mcp-shared\n"
        );
        let lines: Vec<&str> = stdout
            .lines()
            .filter(|l| l.contains("OMA_MCP_SHARED"))
            .collect();
        assert_eq!(
            lines,
            [
                "skipped the shared-corpus checks of tests::probe: no corpus/ in \
                 /nonexistent/oma-mcp-shared (the value of OMA_MCP_SHARED; set it to the folder \
                 that holds corpus/ to run them)"
            ]
        );
        assert!(stdout.contains("probe got None\n"), "{stdout}");
    }

    #[test]
    fn under_ci_a_missing_folder_fails_the_test() {
        for ci in ["true", "1"] {
            let (ok, stdout, stderr) = run_probe("tests::probe", Some(ci));
            assert!(
                !ok,
                "CI={ci}: the probe passed\nstdout:\n{stdout}\nstderr:\n{stderr}"
            );
            assert!(
                stderr.contains(
                    "\ntests::probe: no corpus/ in the shared reference folder \
                     /nonexistent/oma-mcp-shared (the value of OMA_MCP_SHARED), and CI is set, \
                     so this fails instead of skipping; set OMA_MCP_SHARED to the folder that \
                     holds corpus/\n"
                ),
                "CI={ci}: stderr:\n{stderr}"
            );
            assert!(!stdout.contains("probe got"), "{stdout}");
        }
        // `CI=false` is not CI.
        let (ok, stdout, stderr) = run_probe("tests::probe", Some("false"));
        assert!(ok, "stdout:\n{stdout}\nstderr:\n{stderr}");
    }
}
