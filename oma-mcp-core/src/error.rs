//! Printing errors: [`Chain`] and [`Report`] show any error with its causes.
//!
//! Each oma-mcp error's `Display` is its own message; its cause is reachable through
//! [`std::error::Error::source`] and is never repeated in the message. Print an error with its
//! causes as `<message>: <cause>: <cause>` with [`Chain`], the way ripgrep prints its errors;
//! `Display` alone shows only the top message. The errors of this crate live beside the rules
//! that raise them: [`NameCollision`](crate::naming::NameCollision),
//! [`SnapshotError`](crate::snapshot::SnapshotError) and
//! [`DriftRefused`](crate::drift::DriftRefused).

use std::fmt;

/// An error and its causes, displayed as `<message>: <cause>: <cause>`: each error of the
/// [`source`](std::error::Error::source) chain once, in order, joined by `": "`, the way
/// ripgrep prints an error (`{:#}` of an `anyhow::Error`). The `oma-mcp` CLI prints it after
/// its `oma-mcp: ` prefix.
///
/// Works for any error, so a caller wrapping an oma-mcp error in its own type prints the same
/// chain.
///
/// ```
/// use oma_mcp_core::error::Chain;
///
/// let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
/// let err = oma_mcp_core::SnapshotError::io("read", "mcp/a.snapshot.json", io);
/// assert_eq!(err.to_string(), "cannot read snapshot mcp/a.snapshot.json");
/// assert_eq!(
///     Chain(&err).to_string(),
///     "cannot read snapshot mcp/a.snapshot.json: no such file"
/// );
/// ```
#[derive(Clone, Copy)]
pub struct Chain<'a>(pub &'a (dyn std::error::Error + 'a));

impl fmt::Display for Chain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)?;
        let mut source = self.0.source();
        while let Some(cause) = source {
            write!(f, ": {cause}")?;
            source = cause.source();
        }
        Ok(())
    }
}

impl fmt::Debug for Chain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// An error to return from `main` (a program's or a build script's): its `Debug`, which Rust
/// prints as `Error: <…>` when `main` returns `Err`, is the [`Chain`] of the error, one line,
/// not the variant's fields. Any error converts into it with `?`:
///
/// ```no_run
/// fn main() -> Result<(), oma_mcp_core::error::Report> {
///     let snapshot = oma_mcp_core::Snapshot::read("mcp/demo.snapshot.json".as_ref())?;
///     println!("{} tools", snapshot.tools.len());
///     Ok(())
/// }
/// ```
///
/// It deliberately does not implement [`std::error::Error`] (so that the blanket `From`
/// conversion exists, as with `anyhow::Error`); [`Report::error`] gives the error back.
pub struct Report(Box<dyn std::error::Error + Send + Sync + 'static>);

impl Report {
    /// The error this report prints.
    pub fn error(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        &*self.0
    }
}

impl<E: std::error::Error + Send + Sync + 'static> From<E> for Report {
    fn from(error: E) -> Self {
        Report(Box::new(error))
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&Chain(&*self.0), f)
    }
}

/// The [`Chain`], as `main` prints it: `Error: <message>: <cause>: …`.
impl fmt::Debug for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&Chain(&*self.0), f)
    }
}
