//! A Secret Service of its own for keyring tests: a private D-Bus session bus and GNOME
//! Keyring's daemon (`gnome-keyring-daemon --components=secrets`), unlocked with a throwaway
//! password, with its keyrings in a directory the test owns. Nothing touches the user's own
//! session or keyring. Dropping it stops both processes.
//!
//! GNOME Keyring comes from Debian's packages, pinned by version, which `scripts/test`
//! downloads and unpacks into `tests/servers/keyring/root` ([`INSTALL_DIR`]); `dbus-daemon`
//! is the machine's own.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// Where `scripts/test` unpacks GNOME Keyring, relative to the workspace.
pub const INSTALL_DIR: &str = "tests/servers/keyring/root";

/// A running private Secret Service.
#[derive(Debug)]
pub struct SecretService {
    bus: Child,
    daemon: Child,
    address: String,
    data: PathBuf,
}

impl SecretService {
    /// Starts a bus and the keyring daemon with their files under `dir` (which must exist
    /// and outlive the service); `Ok(None)` when GNOME Keyring is not installed in
    /// `workspace` (see [`INSTALL_DIR`]).
    ///
    /// # Errors
    /// `dbus-daemon` or the keyring daemon cannot be started, or the bus prints no address.
    pub fn start(workspace: &Path, dir: &Path) -> Result<Option<Self>, String> {
        let root = workspace.join(INSTALL_DIR);
        let daemon_bin = root.join("usr/bin/gnome-keyring-daemon");
        if !daemon_bin.exists() {
            return Ok(None);
        }
        let socket = dir.join("bus");
        let mut bus = Command::new("dbus-daemon")
            .args(["--session", "--nofork", "--nopidfile", "--print-address=1"])
            .arg(format!("--address=unix:path={}", socket.display()))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start dbus-daemon: {e}"))?;
        let mut address = String::new();
        let read = bus
            .stdout
            .take()
            .map(|out| BufReader::new(out).read_line(&mut address));
        let address = address.trim().to_owned();
        if !matches!(read, Some(Ok(n)) if n > 0) || address.is_empty() {
            let _ = bus.kill();
            let _ = bus.wait();
            return Err("dbus-daemon printed no address".to_owned());
        }
        let run = dir.join("run");
        let data = dir.join("data");
        for d in [&run, &data] {
            std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o700));
        }
        let spawned = Command::new(&daemon_bin)
            .args(["--foreground", "--unlock", "--components=secrets"])
            .env("DBUS_SESSION_BUS_ADDRESS", &address)
            .env("HOME", dir)
            .env("XDG_RUNTIME_DIR", &run)
            .env("XDG_DATA_HOME", &data)
            .env("XDG_CONFIG_HOME", dir.join("config"))
            .env("LD_LIBRARY_PATH", library_dir(&root))
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let mut daemon = match spawned {
            Ok(daemon) => daemon,
            Err(e) => {
                let _ = bus.kill();
                let _ = bus.wait();
                return Err(format!("cannot start {}: {e}", daemon_bin.display()));
            }
        };
        // The login keyring's password, then end of input.
        if let Some(mut stdin) = daemon.stdin.take() {
            let _ = stdin.write_all(b"oma-mcp-test");
        }
        Ok(Some(Self {
            bus,
            daemon,
            address,
            data,
        }))
    }

    /// The session bus address (`DBUS_SESSION_BUS_ADDRESS`) a client uses to reach it.
    pub fn address(&self) -> &str {
        &self.address
    }

    /// The directory where the daemon keeps its keyring files (`keyrings/login.keyring`).
    pub fn keyrings(&self) -> PathBuf {
        self.data.join("keyrings")
    }
}

/// The unpacked packages' library folder (`usr/lib/<multiarch triple>`, e.g.
/// `usr/lib/x86_64-linux-gnu`).
fn library_dir(root: &Path) -> PathBuf {
    let lib = root.join("usr/lib");
    std::fs::read_dir(&lib)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().ends_with("-linux-gnu"))
        })
        .unwrap_or(lib)
}

impl Drop for SecretService {
    fn drop(&mut self) {
        for child in [&mut self.daemon, &mut self.bus] {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
