//! Writing files at build time: generated code into `OUT_DIR` and snapshots into the source
//! tree, each only when its bytes changed (as `prost-build` writes its output), so an
//! unchanged file keeps its modification time and cargo does not rebuild what depends on it.
//!
//! This is build-time only: a program that uses the generated code never writes a snapshot,
//! so it lives here and not in `oma-mcp-runtime`.

use std::path::Path;

use oma_mcp_core::Snapshot;

/// Writing a [`Snapshot`] file: what `oma-mcp snapshot` and a build script's refresh do.
///
/// An extension trait rather than a method of [`Snapshot`] because writing a snapshot is a
/// build-time step (the runtime only reads them), so the code that writes files stays out of
/// `oma-mcp-runtime`; import it with `use oma_mcp_build::WriteSnapshot;`.
pub trait WriteSnapshot {
    /// Writes the canonical text to `path` atomically (a temporary file in the same
    /// directory, then a rename), creating missing parent directories. An existing file with
    /// the same bytes is left untouched, so its modification time does not change
    /// ([`write_if_changed`]).
    ///
    /// Returns `true` when the file was written, `false` when it already held these bytes.
    ///
    /// # Errors
    /// [`SnapshotError::Io`](oma_mcp_core::SnapshotError::Io) naming `path`, with the I/O error as its source.
    fn write(&self, path: &Path) -> Result<bool, oma_mcp_core::SnapshotError>;
}

impl WriteSnapshot for Snapshot {
    fn write(&self, path: &Path) -> Result<bool, oma_mcp_core::SnapshotError> {
        write_if_changed(path, self.to_canonical_string().as_bytes())
            .map_err(|source| oma_mcp_core::SnapshotError::io("write", path, source))
    }
}

/// Writes `bytes` to `path` atomically unless the file already holds exactly these bytes.
///
/// Returns `Ok(true)` when written. Parent directories are created. The temporary file
/// (`.<name>.<pid>.<n>.tmp` beside `path`) is created exclusively (`O_EXCL`: an existing file
/// or a symbolic link planted under that name is never followed or overwritten; the next `n`
/// is tried) and removed on failure.
///
/// A symbolic link is followed: the file it points to is written (atomically, in that file's
/// directory) and the link stays. A path that exists but is not a regular file (a pipe, a
/// terminal, `/dev/stdout`) is written to directly, without reading it first or replacing
/// it.
///
/// # Errors
/// The underlying I/O error; a link whose target does not exist is
/// [`std::io::ErrorKind::NotFound`] naming the target.
pub fn write_if_changed(path: &Path, bytes: &[u8]) -> std::io::Result<bool> {
    let resolved;
    let path = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            resolved = std::fs::canonicalize(path).map_err(|e| {
                std::io::Error::new(
                    e.kind(),
                    format!(
                        "{} is a symbolic link whose target cannot be resolved ({e}); \
                         remove the link or point it at a file",
                        path.display()
                    ),
                )
            })?;
            resolved.as_path()
        }
        _ => path,
    };
    match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() && !meta.is_dir() => {
            use std::io::Write;
            let mut file = std::fs::OpenOptions::new().write(true).open(path)?;
            file.write_all(bytes)?;
            file.flush()?;
            return Ok(true);
        }
        Ok(meta) if meta.is_file() && std::fs::read(path).is_ok_and(|old| old == bytes) => {
            return Ok(false);
        }
        _ => {}
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir)?;
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "snapshot".into());
    let (tmp, mut file) = create_temp(dir, &file_name)?;
    let result = {
        use std::io::Write;
        file.write_all(bytes)
            .and_then(|()| file.flush())
            .and_then(|()| {
                drop(file);
                std::fs::rename(&tmp, path)
            })
    };
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map(|()| true)
}

/// A new file `.<name>.<pid>.<n>.tmp` in `dir`, created exclusively (never an existing file,
/// never through a symbolic link), with the first free `n` below 100.
fn create_temp(dir: &Path, name: &str) -> std::io::Result<(std::path::PathBuf, std::fs::File)> {
    let pid = std::process::id();
    let mut last = None;
    for n in 0..100 {
        let tmp = dir.join(format!(".{name}.{pid}.{n}.tmp"));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(file) => return Ok((tmp, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free temporary file name")))
}

#[cfg(test)]
mod tests {
    use oma_mcp_core::snapshot::SnapshotSource;
    use serde_json::json;

    use super::*;

    fn sample() -> Snapshot {
        Snapshot::from_descriptors(
            Some(json!({"version": "1.0", "name": "srv"})),
            Some("2025-06-18".into()),
            Some(SnapshotSource::new("node", ["server.js", "stdio"])),
            vec![
                json!({"name": "zeta", "inputSchema": {"type": "object"}, "_meta": {"x": 1}}),
                json!({"name": "alpha", "description": "A", "inputSchema": {"type": "object", "properties": {}}}),
            ],
        )
        .unwrap()
    }

    #[test]
    fn write_is_atomic_and_skips_identical_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/snap.json");
        let snap = sample();
        assert!(snap.write(&path).unwrap());
        assert!(!snap.write(&path).unwrap());
        assert_eq!(Snapshot::read(&path).unwrap(), snap);
        let leftovers: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers, vec![std::ffi::OsString::from("snap.json")]);
    }

    #[cfg(unix)]
    #[test]
    fn writes_through_links_and_into_pipes() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("real.json");
        std::fs::write(&target, "old").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(write_if_changed(&link, b"new").unwrap());
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        assert!(!write_if_changed(&link, b"new").unwrap());

        let dangling = dir.path().join("dangling.json");
        std::os::unix::fs::symlink(dir.path().join("missing/x.json"), &dangling).unwrap();
        let err = write_if_changed(&dangling, b"x").unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
        assert!(
            err.to_string().starts_with(&format!(
                "{} is a symbolic link whose target cannot be resolved",
                dangling.display()
            )),
            "{err}"
        );

        // A named pipe is written to, never read first (reading it would wait for a writer).
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            oma_mcp_test_support::skip("write (the named-pipe part)", "mkfifo is not available");
            return;
        }
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
        };
        assert!(write_if_changed(&fifo, b"through the pipe").unwrap());
        assert_eq!(reader.join().unwrap(), "through the pipe");
        use std::os::unix::fs::FileTypeExt;
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    }

    #[cfg(unix)]
    #[test]
    fn a_planted_temp_file_link_is_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim.txt");
        std::fs::write(&victim, "precious").unwrap();
        // The name the first temporary file would get, linked to an unrelated file.
        let planted = dir
            .path()
            .join(format!(".out.json.{}.0.tmp", std::process::id()));
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        let out = dir.path().join("out.json");
        assert!(write_if_changed(&out, b"generated").unwrap());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "generated");
        assert!(!std::fs::symlink_metadata(&out).unwrap().is_symlink());
        assert!(std::fs::symlink_metadata(&planted).unwrap().is_symlink());
    }
}
