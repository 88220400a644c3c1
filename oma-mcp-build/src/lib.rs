//! Build-time side of oma-mcp: snapshot a pinned MCP server and generate typed Rust tools
//! from it, the way `prost-build` does for protobuf. Generated code calls
//! `oma_mcp_runtime` (the `oma-mcp-runtime` crate), whose crate docs describe the run-time
//! side.
//!
//! # Walkthrough
//!
//! **`Cargo.toml`**: the runtime as a dependency, this crate as a build dependency (until the
//! crates are published, as path or git dependencies; see the README's "Use it in your crate",
//! and the guide, `docs/guide` in the repository, for all of it):
//!
//! ```toml
//! [dependencies]
//! oma-mcp-runtime = "0.1"
//! tokio = { version = "1", features = ["rt", "macros"] }
//!
//! [build-dependencies]
//! oma-mcp-build = "0.1"
//! ```
//!
//! **`oma-mcp.toml`** beside it pins each server ([`manifest`] lists every key):
//!
//! ```toml
//! [servers.everything]
//! command = "node_modules/.bin/mcp-server-everything"
//! args = ["stdio"]
//! prefix = "everything"
//! snapshot = "mcp/everything.snapshot.json"   # committed; taken once, see below
//! ```
//!
//! A server reached over streamable HTTP is pinned by `url` instead, with `headers`,
//! `bearer-env` and `header-env`; its credentials come from environment variables when it
//! connects, and its generated module needs `oma-mcp-runtime`'s cargo feature `http`
//! ([`manifest`] has the rules).
//!
//! **The snapshot**: the server's `tools/list`, canonical and committed
//! ([The snapshot format](oma_mcp_core#the-snapshot-format)). A build never starts a server
//! on its own: a missing snapshot is [`Error::SnapshotMissing`], naming the commands that take it
//! (`OMA_MCP_REFRESH=everything cargo build`, which needs this crate's feature `refresh`, or
//! `oma-mcp snapshot` with the command-line tool of the `oma-mcp-cli` crate).
//!
//! **`build.rs`** generates one module per server into `OUT_DIR`, offline and
//! deterministically ([`builder`], [`codegen`]):
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), oma_mcp_build::Report> {
//!     oma_mcp_build::configure().compile()?;
//!     Ok(())
//! }
//! ```
//!
//! **`src/main.rs`** includes the module with `oma_mcp_runtime::include_tools!`: per tool a
//! marker type (its MCP name, prefixed name, description, digest and `CONSEQUENTIAL` flag),
//! an argument struct and, with an `outputSchema`, an output type; per server
//! `connect_config()` and `connect(policy)`. Calls are typed:
//!
//! ```ignore
//! mod everything {
//!     oma_mcp_runtime::include_tools!("everything");
//! }
//!
//! #[tokio::main(flavor = "current_thread")]
//! async fn main() -> Result<(), oma_mcp_runtime::Error> {
//!     let client = oma_mcp_runtime::connect_mcp_tools(everything::connect_config()).await?;
//!     let result = client.call(everything::EchoArgs::new("hi")).mapped().await;
//!     assert_eq!(result.data, "Echo: hi");
//!     client.disconnect().await;
//!     Ok(())
//! }
//! ```
//!
//! # Modules
//!
//! - [`builder`]: the `build.rs` API ([`configure`], [`Builder`]) and what it tells cargo.
//! - [`manifest`]: `oma-mcp.toml` ([`Manifest`], [`ServerPin`]).
//! - [`codegen`]: snapshot → type model → text, written by one writer in a layout of its own
//!   ([`generate`], [`GenerateOptions`]), including the stable Rust names of tools and
//!   properties.
//! - [`write`](mod@write): writing at build time: [`write_if_changed`] and [`WriteSnapshot`].
//! - [`error`]: the crate's [`Error`]; [`Report`] for a build script's `main`.
//!
//! # Cargo features
//!
//! - `refresh` (off by default): a build takes a snapshot when asked (`OMA_MCP_REFRESH`, see
//!   [`builder`]), starting the server with `oma-mcp-runtime`'s client on a tokio runtime
//!   (`builder::take_snapshot`). Without it this crate depends on neither: the connection
//!   settings it reads and writes are `oma-mcp-core`'s
//!   [`ConnectConfig`](oma_mcp_core::config::ConnectConfig), so a build script
//!   compiles no client, and cargo never compiles the runtime a second time for it when the
//!   program's runtime has other features. A refresh request then fails with
//!   [`Error::RefreshFeatureDisabled`], which says how to take the snapshot instead.
//! - `json-schema` (off by default): `manifest::json_schema()`, the JSON Schema of
//!   `oma-mcp.toml` derived from the parser's own types.
//!
//! The `oma-mcp` command-line tool, which takes snapshots, generates code, lists and calls
//! tools and checks pinned servers for drift in CI, is the `oma-mcp-cli` crate.

pub mod builder;
pub mod codegen;
pub mod error;
pub mod manifest;
pub mod write;

pub use builder::{Builder, Compiled, compile_manifest, configure};
pub use codegen::{
    ConsequentialPolicy, GenerateOptions, Generated, NamePatterns, PinnedConnection, ToolSelection,
    Warning, generate,
};
pub use error::Error;
pub use manifest::{Manifest, ServerPin};
/// An error to return from a build script's `main`: its `Debug` prints the error and its
/// causes on one line (`Error: <message>: <cause>: …`), where [`Error`]'s derived `Debug`
/// would print the variant's fields. Re-exported from [`oma_mcp_core::error::Report`].
pub use oma_mcp_core::error::Report;
pub use write::{WriteSnapshot, write_if_changed};
