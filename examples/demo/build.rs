//! Generates typed tools for the project's own MCP server from the committed snapshot
//! `mcp/demo.snapshot.json` (offline and deterministic; see `oma-mcp.toml` to refresh it).

fn main() -> Result<(), oma_mcp_build::Report> {
    oma_mcp_build::configure().compile()?;
    Ok(())
}
