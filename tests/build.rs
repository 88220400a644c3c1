//! Generates typed tools for the servers pinned in `oma-mcp.toml` (the project's own test
//! server and server-everything) from the examples' committed snapshots, offline. The
//! integration tests (`integration/typed.rs`) include them with `include_tools!`.

fn main() -> Result<(), oma_mcp_build::Report> {
    oma_mcp_build::configure().compile()?;
    Ok(())
}
