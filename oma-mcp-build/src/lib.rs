//! Build-time side of oma-mcp: snapshot a pinned MCP server and generate typed Rust tools.

pub mod codegen;
