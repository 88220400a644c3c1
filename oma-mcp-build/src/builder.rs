//! The `build.rs` API: read the manifest, read each server's committed snapshot (or take it
//! when asked), generate code into `OUT_DIR`.
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     oma_mcp_build::configure().compile()?;
//!     Ok(())
//! }
//! ```
//!
//! and in the crate:
//!
//! ```ignore
//! mod everything {
//!     oma_mcp_runtime::include_tools!("everything");
//! }
//! ```
//!
//! # When the server is started
//! Never by default: a build reads the committed snapshot, is offline and deterministic, and
//! writes only into `OUT_DIR` (as `prost-build` and `tonic-build` do; `cargo package`
//! rejects a build script that modifies the sources). The pinned server is started, and its
//! snapshot written into the source tree, only when the refresh variable (default
//! `OMA_MCP_REFRESH`) is `1`, `true` or `all`, or a comma-separated list naming the server.
//!
//! Starting it needs this crate's cargo feature `refresh` (off by default: a build script
//! without it compiles no MCP client and no async runtime):
//!
//! ```toml
//! [build-dependencies]
//! oma-mcp-build = { version = "0.1", features = ["refresh"] }
//! ```
//!
//! Without it, a refresh request is [`Error::RefreshFeatureDisabled`], which says to add the
//! feature or to take the snapshot with `oma-mcp snapshot --manifest <manifest> --server
//! <server>` (the command-line tool builds its own client).
//!
//! A missing snapshot is an error ([`Error::SnapshotMissing`]) naming the file and the two
//! commands that take it: `OMA_MCP_REFRESH=<server> cargo build`, or
//! `oma-mcp snapshot --manifest <manifest> --server <server>`.
//!
//! With `DOCS_RS` set, or the offline variable (default `OMA_MCP_OFFLINE`) set to anything
//! but empty or `0`, the server is never started: a missing snapshot is then
//! [`Error::SnapshotMissingOffline`], and a refresh request is ignored with a warning.
//!
//! # What cargo is told
//! `cargo::rerun-if-changed` for the manifest and every snapshot, and
//! `cargo::rerun-if-env-changed` for every variable read here (`OMA_MCP_REFRESH`,
//! `OMA_MCP_OFFLINE`, `DOCS_RS`, or the names you set). Generated files are written only
//! when their bytes change, so an unchanged snapshot does not rebuild the crate.

use std::path::{Path, PathBuf};

use oma_mcp_core::Snapshot;

use crate::Error;
#[cfg(feature = "refresh")]
use crate::WriteSnapshot;
use crate::codegen;
use crate::manifest::{DEFAULT_MANIFEST, Manifest, ServerPin};

/// Starts a [`Builder`] with the defaults (manifest `$CARGO_MANIFEST_DIR/oma-mcp.toml`, every
/// server, output into `$OUT_DIR`).
pub fn configure() -> Builder {
    Builder::default()
}

/// Reads the manifest at `path` and generates code for every server into `OUT_DIR`: the
/// one-call form of [`configure`]`().manifest(path).compile()`.
///
/// # Errors
/// As [`Builder::compile`].
pub fn compile_manifest(path: impl AsRef<Path>) -> Result<Vec<Compiled>, Error> {
    configure().manifest(path).compile()
}

/// The chainable `build.rs` configuration. Owned: each setter takes and returns `self`.
#[derive(Debug, Clone)]
#[must_use = "a Builder does nothing until .compile() is called"]
pub struct Builder {
    manifest: Option<PathBuf>,
    servers: Vec<String>,
    out_dir: Option<PathBuf>,
    refresh_env: String,
    offline_env: String,
    emit_rerun: bool,
    format: bool,
}

impl Default for Builder {
    fn default() -> Self {
        Self {
            manifest: None,
            servers: Vec::new(),
            out_dir: None,
            refresh_env: "OMA_MCP_REFRESH".into(),
            offline_env: "OMA_MCP_OFFLINE".into(),
            emit_rerun: true,
            format: true,
        }
    }
}

/// What [`Builder::compile`] did for one server.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Compiled {
    /// The server's table name in the manifest.
    pub server: String,
    /// The generated file (`<out_dir>/<server>.rs`).
    pub path: PathBuf,
    /// Whether the generated file's bytes changed (it is not rewritten otherwise).
    pub written: bool,
    /// Whether the server was started to take a snapshot (only on a refresh request).
    pub connected: bool,
    /// Generator warnings (schema parts that fell back to `serde_json::Value`).
    pub warnings: Vec<String>,
}

impl Builder {
    /// The manifest file. Default: `oma-mcp.toml` in `CARGO_MANIFEST_DIR`. A relative path is
    /// taken relative to `CARGO_MANIFEST_DIR` (the directory cargo runs build scripts in).
    pub fn manifest(mut self, path: impl AsRef<Path>) -> Self {
        self.manifest = Some(path.as_ref().to_path_buf());
        self
    }

    /// Generates only this server (call again to add more). Default: every server.
    pub fn server(mut self, name: impl Into<String>) -> Self {
        self.servers.push(name.into());
        self
    }

    /// Where generated files go. Default: `OUT_DIR`.
    pub fn out_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.out_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// The environment variable that asks for a refresh (default `OMA_MCP_REFRESH`):
    /// `1`/`true`/`all` refreshes every server, else a comma-separated list of server names.
    pub fn refresh_env(mut self, name: impl Into<String>) -> Self {
        self.refresh_env = name.into();
        self
    }

    /// The environment variable that forbids starting servers (default `OMA_MCP_OFFLINE`).
    pub fn offline_env(mut self, name: impl Into<String>) -> Self {
        self.offline_env = name.into();
        self
    }

    /// Whether to print `cargo::rerun-if-*` lines (default `true`; turn off when calling
    /// the builder outside a build script).
    pub fn emit_rerun_if_changed(mut self, emit: bool) -> Self {
        self.emit_rerun = emit;
        self
    }

    /// Whether generated code is formatted with prettyplease (default `true`;
    /// [`GenerateOptions::format`](crate::codegen::GenerateOptions::format), which needs this
    /// crate's cargo feature `format`, on by default).
    pub fn format(mut self, format: bool) -> Self {
        self.format = format;
        self
    }

    /// Runs the build step for the selected servers; returns what was done, in name order.
    ///
    /// Prints `cargo::warning=` lines for generator warnings and for snapshots taken.
    ///
    /// # Errors
    /// - [`Error::ManifestIo`] / [`Error::ManifestParse`]: the manifest cannot be read or is
    ///   invalid; [`Error::UnknownServer`] for a selected name it does not pin.
    /// - [`Error::OutDirMissing`]: no `out_dir` and no `OUT_DIR` (not in a build script).
    /// - [`Error::SnapshotMissing`]: a snapshot is missing and no refresh of its server was
    ///   asked for.
    /// - [`Error::SnapshotMissingOffline`]: a snapshot is missing and connecting is forbidden.
    /// - [`Error::RefreshFeatureDisabled`]: a refresh was asked for, and this crate was built
    ///   without its feature `refresh`.
    /// - `Error::Connect` / `Error::ConnectUrl` (feature `refresh`): the pinned server could
    ///   not be started, reached or queried.
    /// - [`Error::Snapshot`]: a snapshot file is unreadable, invalid or cannot be written.
    /// - [`Error::WriteOutput`]: the generated file cannot be written.
    /// - generator errors from [`codegen::generate`].
    pub fn compile(self) -> Result<Vec<Compiled>, Error> {
        let crate_dir = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
        let manifest_path = match (&self.manifest, &crate_dir) {
            (Some(p), Some(dir)) if p.is_relative() => dir.join(p),
            (Some(p), _) => p.clone(),
            (None, Some(dir)) => dir.join(DEFAULT_MANIFEST),
            (None, None) => PathBuf::from(DEFAULT_MANIFEST),
        };
        self.rerun(&format!("rerun-if-changed={}", manifest_path.display()));
        let manifest = Manifest::read(&manifest_path)?;
        let out_dir = match &self.out_dir {
            Some(d) => d.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or(Error::OutDirMissing)?,
        };
        // Read all three before deciding, so cargo is told about each of them whatever their
        // values (a short-circuit here left out `DOCS_RS` when the offline variable was set).
        let refresh = self.read_env(&self.refresh_env);
        let offline_value = self.read_env(&self.offline_env);
        let docs_rs = self.read_env("DOCS_RS");
        let offline = offline_value.is_some_and(|v| !v.is_empty() && v != "0") || docs_rs.is_some();

        let selected: Vec<&ServerPin> = if self.servers.is_empty() {
            manifest.servers.values().collect()
        } else {
            let mut names = self.servers.clone();
            names.sort();
            names.dedup();
            names
                .iter()
                .map(|n| manifest.server(n))
                .collect::<Result<_, _>>()?
        };

        let mut done = Vec::with_capacity(selected.len());
        for pin in selected {
            self.rerun(&format!("rerun-if-changed={}", pin.snapshot.display()));
            let wants_refresh = refresh
                .as_deref()
                .is_some_and(|r| refresh_names(r, &pin.name));
            let (snapshot, connected) = self.snapshot_of(pin, &manifest, wants_refresh, offline)?;
            let generated =
                codegen::generate(&snapshot, &pin.generate_options().with_format(self.format))?;
            let warnings: Vec<String> =
                generated.warnings.iter().map(ToString::to_string).collect();
            for w in &warnings {
                warn(&format!("server `{}`: {w}", pin.name));
            }
            let path = out_dir.join(format!("{}.rs", pin.name));
            let written = crate::write::write_if_changed(&path, generated.code.as_bytes())
                .map_err(|source| Error::WriteOutput {
                    path: path.clone(),
                    source,
                })?;
            done.push(Compiled {
                server: pin.name.clone(),
                path,
                written,
                connected,
                warnings,
            });
        }
        Ok(done)
    }

    /// The snapshot of `pin`: the committed file, or a new one taken from the server when a
    /// refresh is asked for (and connecting is allowed). Returns it and whether the server was
    /// started.
    fn snapshot_of(
        &self,
        pin: &ServerPin,
        manifest: &Manifest,
        wants_refresh: bool,
        offline: bool,
    ) -> Result<(Snapshot, bool), Error> {
        let exists = pin.snapshot.exists();
        if exists && !wants_refresh {
            return Ok((Snapshot::read(&pin.snapshot)?, false));
        }
        if offline {
            if !exists {
                return Err(Error::SnapshotMissingOffline {
                    server: pin.name.clone(),
                    snapshot: pin.snapshot.clone(),
                    manifest: manifest.path.clone(),
                });
            }
            warn(&format!(
                "{} asks to refresh server `{}`, but connecting is off (DOCS_RS or {}); using {}",
                self.refresh_env,
                pin.name,
                self.offline_env,
                pin.snapshot.display()
            ));
            return Ok((Snapshot::read(&pin.snapshot)?, false));
        }
        if !wants_refresh {
            // Missing, and nobody asked for it: starting a server and writing into the source
            // tree is the user's call, never a side effect of a build.
            return Err(Error::SnapshotMissing {
                server: pin.name.clone(),
                snapshot: pin.snapshot.clone(),
                manifest: manifest.path.clone(),
                refresh_env: self.refresh_env.clone(),
            });
        }
        self.refresh(pin, manifest, exists)
    }

    /// Without the feature `refresh`: no client to take a snapshot with, so
    /// [`Error::RefreshFeatureDisabled`].
    #[cfg(not(feature = "refresh"))]
    fn refresh(
        &self,
        pin: &ServerPin,
        manifest: &Manifest,
        _exists: bool,
    ) -> Result<(Snapshot, bool), Error> {
        Err(Error::RefreshFeatureDisabled {
            server: pin.name.clone(),
            manifest: manifest.path.clone(),
            refresh_env: self.refresh_env.clone(),
        })
    }

    /// Takes `pin`'s snapshot from the server and writes it over the committed one (`exists`:
    /// there is one), with a build warning that says what changed.
    #[cfg(feature = "refresh")]
    fn refresh(
        &self,
        pin: &ServerPin,
        manifest: &Manifest,
        exists: bool,
    ) -> Result<(Snapshot, bool), Error> {
        // The committed snapshot, to say what a refresh changed (unreadable: nothing to say).
        let previous = exists.then(|| Snapshot::read(&pin.snapshot).ok()).flatten();
        let snapshot = take_snapshot(pin, &manifest.path)?;
        let written = snapshot.write(&pin.snapshot)?;
        warn(&snapshot_message(
            &pin.name,
            &pin.snapshot,
            previous.as_ref(),
            &snapshot,
            written,
        ));
        Ok((snapshot, true))
    }

    fn read_env(&self, name: &str) -> Option<String> {
        self.rerun(&format!("rerun-if-env-changed={name}"));
        std::env::var_os(name).map(|v| v.to_string_lossy().trim().to_owned())
    }

    fn rerun(&self, line: &str) {
        if self.emit_rerun {
            println!("cargo::{line}");
        }
    }
}

/// The build warning after a snapshot was taken of server `server` into `path`: a first
/// snapshot asks for a review; a refresh of `previous` says what changed in its tools (the
/// drift engine's counts) or that nothing did. `written`: the file's bytes changed.
#[cfg(any(feature = "refresh", test))]
fn snapshot_message(
    server: &str,
    path: &Path,
    previous: Option<&Snapshot>,
    snapshot: &Snapshot,
    written: bool,
) -> String {
    let tools = snapshot.tools.len();
    let path = path.display();
    let Some(previous) = previous else {
        return format!(
            "took a snapshot of server `{server}` ({tools} tools) into {path}; review and commit it"
        );
    };
    let report = oma_mcp_core::drift::diff(previous, snapshot);
    if report.is_empty() {
        let other = if written {
            format!(" (other fields of {path} changed)")
        } else {
            String::new()
        };
        return format!(
            "refreshed the snapshot of server `{server}` ({tools} tools): no change to its \
             tools{other}"
        );
    }
    let summary = report.summary;
    format!(
        "refreshed the snapshot of server `{server}` ({tools} tools): {} breaking, {} warning, \
         {} info; review them with `oma-mcp diff` or `git diff {path}` before committing",
        summary.breaking, summary.warning, summary.info
    )
}

/// Whether the refresh variable's value `value` selects `server`.
fn refresh_names(value: &str, server: &str) -> bool {
    match value {
        "" | "0" | "false" => false,
        "1" | "true" | "all" => true,
        list => list.split(',').any(|n| n.trim() == server),
    }
}

/// Starts the pinned server (or connects to the one pinned by URL), takes its snapshot and
/// shuts it down (ends the session). Feature `refresh`.
///
/// # Errors
/// [`Error::Connect`] naming the server, the manifest and the command;
/// [`Error::ConnectUrl`] naming the server, the manifest and the redacted URL.
#[cfg(feature = "refresh")]
pub fn take_snapshot(pin: &ServerPin, manifest: &Path) -> Result<Snapshot, Error> {
    let connect_error = |source: oma_mcp_runtime::Error| match pin.url {
        Some(_) => Error::ConnectUrl {
            server: pin.name.clone(),
            manifest: manifest.to_path_buf(),
            url: pin.target(),
            source: Box::new(source),
        },
        None => Error::Connect {
            server: pin.name.clone(),
            manifest: manifest.to_path_buf(),
            command: pin.target(),
            source: Box::new(source),
        },
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| Error::AsyncRuntime { source })?;
    runtime.block_on(async {
        // The snapshot pins every tool, whatever the pin's `tools` and `exclude-tools` select.
        let config = pin
            .connect_config()
            .with_tools(Vec::<String>::new())
            .with_exclude_tools(Vec::<String>::new());
        let client = oma_mcp_runtime::connect_mcp_tools(config)
            .await
            .map_err(connect_error)?;
        let snapshot = client.snapshot_with_source(pin.snapshot_source());
        client.disconnect().await;
        snapshot.map_err(connect_error)
    })
}

fn warn(message: &str) {
    // One cargo warning per line: cargo shows only the first line of a multi-line value.
    for line in message.lines() {
        println!("cargo::warning={line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot_messages_say_what_a_refresh_changed() {
        let snapshot = |tools: Vec<serde_json::Value>| {
            Snapshot::from_descriptors(None, None, None, tools).expect("snapshot")
        };
        let tool = |name: &str, description: &str| {
            serde_json::json!({"name": name, "description": description,
                "inputSchema": {"type": "object"}})
        };
        let old = snapshot(vec![tool("a", "A"), tool("b", "B")]);
        let new = snapshot(vec![tool("a", "A, rewritten"), tool("c", "C")]);
        let path = Path::new("mcp/s.json");
        assert_eq!(
            snapshot_message("s", path, None, &new, true),
            "took a snapshot of server `s` (2 tools) into mcp/s.json; review and commit it"
        );
        assert_eq!(
            snapshot_message("s", path, Some(&old), &new, true),
            "refreshed the snapshot of server `s` (2 tools): 1 breaking, 1 warning, 1 info; \
             review them with `oma-mcp diff` or `git diff mcp/s.json` before committing"
        );
        assert_eq!(
            snapshot_message("s", path, Some(&new), &new, false),
            "refreshed the snapshot of server `s` (2 tools): no change to its tools"
        );
        assert_eq!(
            snapshot_message("s", path, Some(&new), &new, true),
            "refreshed the snapshot of server `s` (2 tools): no change to its tools (other \
             fields of mcp/s.json changed)"
        );
    }

    #[test]
    fn refresh_selection() {
        assert!(refresh_names("1", "a"));
        assert!(refresh_names("all", "a"));
        assert!(!refresh_names("0", "a"));
        assert!(!refresh_names("", "a"));
        assert!(refresh_names("b, a", "a"));
        assert!(!refresh_names("b,c", "a"));
    }
}
