//! The pure core of oma-mcp: the rules that need no connection, no async runtime and no I/O,
//! so a reader can test each of them with plain values.
//!
//! **The behaviour contract.** Tool names and result mapping follow open-multi-agent's
//! `connectMCPTools()` exactly, as its `docs/mcp.md` documents them; the docs here cite that
//! page's sections by title ("Tool names", "Result mapping"). Protocol behaviour cites the MCP
//! specification by revision, schema behaviour JSON Schema by keyword.
//!
//! - [`naming`]: `<prefix>_<name>` with every `/` replaced by `_`, and the collision check
//!   ("Tool names").
//! - [`result`]: the mapping from a raw `tools/call` result to a [`ToolResult`]
//!   ("Result mapping"); [`call_outcome`]: a result that asks for more input (MCP 2026-07-28).
//! - [`snapshot`]: the canonical, committed snapshot of a server's `tools/list` and its
//!   per-tool digests.
//! - [`descriptor`]: [`ToolDescriptor`], one MCP tool as a model sees it (name, description,
//!   input schema, whether it is consequential), independent of any agent framework.
//! - [`drift`]: what changed between two `tools/list`s, each change classified breaking,
//!   warning or info.
//! - [`redact`]: URLs as they may be shown (credentials replaced by `***`).
//! - [`pointer`](mod@pointer): JSON pointers of local `$ref`s; [`quote`]: how server-provided
//!   text is quoted in messages (cut to an excerpt, a JSON value's kind named) and the
//!   bidirectional formatting characters that must not reach a terminal or a doc comment.
//! - [`error`]: [`Chain`](error::Chain) and [`Report`](error::Report) print any error with its
//!   causes. Each rule's error lives beside it: [`NameCollision`], [`SnapshotError`],
//!   [`DriftRefused`].
//!
//! `oma-mcp-runtime` (the client: connections, typed calls, the tool layer) and
//! `oma-mcp-build` (code generation for `build.rs`) sit on top of this crate; it imports
//! neither. The only file access is [`Snapshot::read`], a convenience over `std::fs::read`
//! and [`Snapshot::parse`].
//!
//! Data flows one way: server → snapshot → generated code → typed call → drift report.

pub mod call_outcome;
pub mod descriptor;
pub mod drift;
pub mod error;
pub mod naming;
pub mod pointer;
pub mod quote;
pub mod redact;
#[cfg(test)]
mod reference_cases;
pub mod result;
pub mod snapshot;

pub use descriptor::ToolDescriptor;
pub use drift::{Change, ChangeKind, Direction, DriftPolicy, DriftRefused, DriftReport, Severity};
pub use naming::{NameCollision, normalize_tool_name};
pub use call_outcome::{CallOutcome, InputRequired};
pub use result::{FileSource, ImageSource, ModelPart, ToolResult, map_call_result};
pub use snapshot::{Snapshot, SnapshotError, SnapshotSource, SnapshotTool};
