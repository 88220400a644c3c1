//! `oma-mcp`: snapshot, generate, list and call the tools of pinned MCP servers, and check
//! them for drift. Everything is in the `oma_mcp_cli` library; see its crate docs.

fn main() -> std::process::ExitCode {
    oma_mcp_cli::run()
}
