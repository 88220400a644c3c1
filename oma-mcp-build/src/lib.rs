//! Build-time side of oma-mcp: snapshot a pinned MCP server and generate typed Rust tools.

pub mod codegen;
pub mod error;

pub use codegen::{GenerateOptions, Generated, Warning, generate};
pub use error::Error;
