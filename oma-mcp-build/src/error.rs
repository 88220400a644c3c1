//! The error type of `oma-mcp-build`.

use std::path::PathBuf;

#[cfg(feature = "refresh")]
use oma_mcp_runtime::error::{ConfigError, ConnectError};

/// Everything that can go wrong in `oma-mcp-build`.
///
/// Every variant names what it is about (the tool, the pattern, the JSON pointer), so the
/// message says where to look and what to change. A variant that wraps a cause (an I/O error,
/// the runtime's error) has it as its [`source`](std::error::Error::source) only, never also
/// in the message: print the whole chain with [`Error::chain`], or return
/// [`Report`](crate::Report) from a build script's `main`, whose `Debug` is that chain:
///
/// ```no_run
/// fn main() -> Result<(), oma_mcp_build::Report> {
///     oma_mcp_build::configure().compile()?;
///     Ok(())
/// }
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A `consequential`, `not-consequential`, `tools` or `exclude-tools` entry is not a valid
    /// glob (the error names the key).
    #[error(transparent)]
    InvalidGlob(#[from] oma_mcp_core::select::InvalidPattern),

    /// An identifier computed for a tool is not a valid Rust identifier: a bug in
    /// oma-mcp-build.
    #[error(
        "internal error: \"{ident}\" computed for tool \"{tool}\" at {pointer} is not a valid \
         Rust identifier; please report this with the tool's descriptor"
    )]
    #[non_exhaustive]
    InvalidIdentifier {
        /// The raw MCP name of the tool.
        tool: String,
        /// JSON pointer into the tool descriptor the identifier was made for.
        pointer: String,
        /// The offending identifier.
        ident: String,
    },

    /// A rename entry (manifest `[servers.<name>.rename]`, `GenerateOptions::rename`,
    /// `oma-mcp generate --rename`) names a tool the snapshot does not have.
    #[error(
        "{entry}: the snapshot has no tool of that name; use a raw MCP tool name as the \
         snapshot lists it, or remove the entry"
    )]
    #[non_exhaustive]
    RenameUnknownTool {
        /// The entry's key, e.g. `servers.x.rename."search-a"`.
        entry: String,
    },

    /// A rename entry's target cannot name a type.
    #[error(
        "{entry} = \"{target}\" is not a usable Rust type name; give an identifier of ASCII \
         letters, digits and `_` that is not a keyword or Some/None/Ok/Err, such as \
         \"SearchHyphen\""
    )]
    #[non_exhaustive]
    RenameInvalid {
        /// The entry's key, e.g. `servers.x.rename."search-a"`.
        entry: String,
        /// The target as written.
        target: String,
    },

    /// A name generated from a rename entry's target is also generated for another tool (or
    /// is a prelude constructor).
    #[error(
        "{entry} = \"{target}\": the Rust name {name} is also generated for {other}; choose another name"
    )]
    #[non_exhaustive]
    RenameCollision {
        /// The entry's key, e.g. `servers.x.rename."search-a"`.
        entry: String,
        /// The target as written.
        target: String,
        /// The generated name both would use (`<target>`, `<target>Args`, a nested type).
        name: String,
        /// What else generates it: `the tool "x"`.
        other: String,
    },

    /// Two tools would get the same tagged name (equal UpperCamelCase stems and equal 32-bit
    /// name tags): too unlikely to design around, so a rename entry settles it.
    #[error(
        "the tools \"{}\" and \"{}\" would both be named {name}; add a rename entry for one of \
         them (manifest: [servers.<name>.rename])",
        tools[0], tools[1]
    )]
    #[non_exhaustive]
    TagCollision {
        /// The raw MCP names of the two tools.
        tools: [String; 2],
        /// The tagged name both would get.
        name: String,
    },

    /// The manifest file cannot be read.
    #[error(
        "cannot read manifest {path} (check its path, or write one: the README's \"Use it in \
         your crate\")"
    )]
    #[non_exhaustive]
    ManifestIo {
        /// The manifest file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },

    /// The manifest is not valid TOML of the expected shape, or a value is unusable.
    #[error("manifest {path} is not valid: {message}")]
    #[non_exhaustive]
    ManifestParse {
        /// The manifest file.
        path: PathBuf,
        /// What is wrong (TOML's message has the line and column).
        message: String,
    },

    /// A server name was asked for that the manifest does not pin.
    #[error("manifest {path} pins no server named \"{name}\"; it pins: {}", available.join(", "))]
    #[non_exhaustive]
    UnknownServer {
        /// The requested name.
        name: String,
        /// The manifest file.
        path: PathBuf,
        /// The names it does pin.
        available: Vec<String>,
    },

    /// No server name was given and the manifest does not pin exactly one.
    #[error("{}", server_not_chosen(path, available))]
    #[non_exhaustive]
    ServerNotChosen {
        /// The manifest file.
        path: PathBuf,
        /// The names it pins.
        available: Vec<String>,
    },

    /// The build step has no output directory.
    #[error(
        "OUT_DIR is not set: call oma-mcp-build from a build script (build.rs), or set an output \
         directory with `.out_dir(...)`"
    )]
    OutDirMissing,

    /// A snapshot is missing and no refresh was asked for: a build never starts a server or
    /// writes into the source tree on its own.
    #[error(
        "snapshot {snapshot} of server `{server}` (manifest {manifest}) is missing, and a build \
         starts a server only when asked; take it with `{refresh_env}={server} cargo build` or \
         `oma-mcp snapshot --manifest {manifest} --server {server}`, then review and commit it"
    )]
    #[non_exhaustive]
    SnapshotMissing {
        /// The server's name.
        server: String,
        /// The missing snapshot file.
        snapshot: PathBuf,
        /// The manifest file.
        manifest: PathBuf,
        /// The variable that asks the build for a refresh (default `OMA_MCP_REFRESH`, see
        /// [`Builder::refresh_env`](crate::Builder::refresh_env)).
        refresh_env: String,
    },

    /// A snapshot is missing and starting servers is not allowed (docs.rs or offline).
    #[error(
        "snapshot {snapshot} of server `{server}` (manifest {manifest}) is missing, and starting \
         servers is off (DOCS_RS or OMA_MCP_OFFLINE is set); take it with `oma-mcp snapshot \
         --manifest {manifest}` and commit it"
    )]
    #[non_exhaustive]
    SnapshotMissingOffline {
        /// The server's name.
        server: String,
        /// The missing snapshot file.
        snapshot: PathBuf,
        /// The manifest file.
        manifest: PathBuf,
    },

    /// A refresh was asked for (the refresh variable, default `OMA_MCP_REFRESH`), but this
    /// oma-mcp-build was built without its cargo feature `refresh`, so it has no client to
    /// start the server with.
    #[error(
        "{refresh_env} asks to refresh server `{server}` (manifest {manifest}), but this \
         oma-mcp-build was built without its cargo feature `refresh`, so a build cannot start \
         the server; add `features = [\"refresh\"]` to the `oma-mcp-build` build-dependency, \
         or take the snapshot with `oma-mcp snapshot --manifest {manifest} --server {server}`"
    )]
    #[non_exhaustive]
    RefreshFeatureDisabled {
        /// The server's name.
        server: String,
        /// The manifest file.
        manifest: PathBuf,
        /// The variable that asked for the refresh (default `OMA_MCP_REFRESH`, see
        /// [`Builder::refresh_env`](crate::Builder::refresh_env)).
        refresh_env: String,
    },

    /// The pinned server could not be started or queried for a snapshot (feature `refresh`).
    #[cfg(feature = "refresh")]
    #[error(
        "cannot take a snapshot of server `{server}` (manifest {manifest}, command \
         `{command}`{hint})",
        hint = install_hint(source)
    )]
    #[non_exhaustive]
    Connect {
        /// The server's name.
        server: String,
        /// The manifest file.
        manifest: PathBuf,
        /// The command line as written in the manifest.
        command: String,
        /// The runtime's error (boxed: it is large and this path is cold).
        #[source]
        source: Box<oma_mcp_runtime::Error>,
    },

    /// The server pinned by URL could not be reached or queried for a snapshot (feature
    /// `refresh`).
    #[cfg(feature = "refresh")]
    #[error(
        "cannot take a snapshot of server `{server}` (manifest {manifest}, URL `{url}`{hint})",
        hint = url_hint(source)
    )]
    #[non_exhaustive]
    ConnectUrl {
        /// The server's name.
        server: String,
        /// The manifest file.
        manifest: PathBuf,
        /// The URL as written in the manifest, redacted
        /// ([`redact_url`](oma_mcp_core::redact::redact_url)).
        url: String,
        /// The runtime's error (boxed: it is large and this path is cold).
        #[source]
        source: Box<oma_mcp_runtime::Error>,
    },

    /// A snapshot file that is unreadable, invalid or cannot be written.
    #[error(transparent)]
    Snapshot(#[from] oma_mcp_core::SnapshotError),

    /// Two tools of the server get the same framework name (open-multi-agent's `docs/mcp.md`,
    /// "Tool names").
    #[error(transparent)]
    NameCollision(#[from] oma_mcp_core::NameCollision),

    /// The async runtime for taking a snapshot could not start (feature `refresh`).
    #[cfg(feature = "refresh")]
    #[error("cannot start the async runtime to take a snapshot")]
    #[non_exhaustive]
    AsyncRuntime {
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },

    /// A generated file cannot be written.
    #[error("cannot write generated code to {path}")]
    #[non_exhaustive]
    WriteOutput {
        /// The output file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// The advice after a failed connect, unless the runtime's error already gives it (a server
/// that cannot be started says to check the path and the install itself).
#[cfg(feature = "refresh")]
fn install_hint(source: &oma_mcp_runtime::Error) -> &'static str {
    match source {
        oma_mcp_runtime::Error::Connect(ConnectError::Spawn { .. }) => "",
        _ => "; check the command and that the server is installed, e.g. `npm ci`",
    }
}

/// The advice after a URL pin could not be reached from a build script: the runtime it links
/// lacks the HTTP transport. Other failures (unreachable, refused credentials) say what to do
/// themselves.
#[cfg(feature = "refresh")]
fn url_hint(source: &oma_mcp_runtime::Error) -> &'static str {
    match source {
        oma_mcp_runtime::Error::Config(ConfigError::HttpFeatureDisabled { .. }) => {
            "; a build script reaches a server pinned by URL only with oma-mcp-runtime's cargo \
             feature `http`: add `oma-mcp-runtime` with `features = [\"http\"]` to \
             [build-dependencies], or take the snapshot with `oma-mcp snapshot`"
        }
        _ => "",
    }
}

fn server_not_chosen(path: &std::path::Path, available: &[String]) -> String {
    if available.is_empty() {
        format!(
            "manifest {} pins no servers; add a [servers.<name>] table",
            path.display()
        )
    } else {
        format!(
            "manifest {} pins several servers ({}); choose one by name \
             (`Manifest::single(Some(name))`)",
            path.display(),
            available.join(", ")
        )
    }
}

impl Error {
    /// [`Error::ManifestIo`]: the manifest file `path` cannot be read (`source`), for a tool
    /// that reads the manifest's text itself (to edit it) and reports as this crate does.
    pub fn manifest_io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::ManifestIo {
            path: path.into(),
            source,
        }
    }

    /// `<message>: <cause>: <cause>`: this error with its whole cause chain, each cause once
    /// (see [`oma_mcp_core::error::Chain`]).
    pub fn chain(&self) -> oma_mcp_core::error::Chain<'_> {
        oma_mcp_core::error::Chain(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A refresh request without the feature names the variable, the server, the feature and
    /// the command that takes the snapshot instead.
    #[test]
    fn a_refresh_without_the_feature_says_how_to_take_the_snapshot() {
        let error = Error::RefreshFeatureDisabled {
            server: "everything".into(),
            manifest: PathBuf::from("/w/app/oma-mcp.toml"),
            refresh_env: "OMA_MCP_REFRESH".into(),
        };
        assert_eq!(
            error.to_string(),
            "OMA_MCP_REFRESH asks to refresh server `everything` (manifest \
             /w/app/oma-mcp.toml), but this oma-mcp-build was built without its cargo feature \
             `refresh`, so a build cannot start the server; add `features = [\"refresh\"]` to \
             the `oma-mcp-build` build-dependency, or take the snapshot with `oma-mcp snapshot \
             --manifest /w/app/oma-mcp.toml --server everything`"
        );
    }

    /// A URL pin's refresh names the redacted URL; without the runtime's feature `http`, it
    /// says where a build script gets it.
    #[cfg(feature = "refresh")]
    #[test]
    fn a_url_pin_that_cannot_be_reached_names_its_url() {
        let failed = |source| Error::ConnectUrl {
            server: "github".into(),
            manifest: PathBuf::from("oma-mcp.toml"),
            url: "https://api.githubcopilot.com/mcp/?key=***".into(),
            source: Box::new(source),
        };
        let disabled = failed(oma_mcp_runtime::Error::Config(
            ConfigError::HttpFeatureDisabled {
                server: "https://api.githubcopilot.com/mcp/?key=***".into(),
            },
        ));
        assert_eq!(
            disabled.to_string(),
            "cannot take a snapshot of server `github` (manifest oma-mcp.toml, URL \
             `https://api.githubcopilot.com/mcp/?key=***`; a build script reaches a server \
             pinned by URL only with oma-mcp-runtime's cargo feature `http`: add \
             `oma-mcp-runtime` with `features = [\"http\"]` to [build-dependencies], or take \
             the snapshot with `oma-mcp snapshot`)"
        );
        let missing = failed(oma_mcp_runtime::Error::Config(ConfigError::MissingEnv {
            var: "GITHUB_TOKEN".into(),
            header: "Authorization".into(),
        }));
        assert_eq!(
            missing.to_string(),
            "cannot take a snapshot of server `github` (manifest oma-mcp.toml, URL \
             `https://api.githubcopilot.com/mcp/?key=***`)"
        );
    }
}
