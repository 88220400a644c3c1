//! Generates typed tools for the server pinned in `oma-mcp.toml`, from its committed snapshot.

fn main() -> Result<(), oma_mcp_build::Report> {
    oma_mcp_build::configure().compile()?;
    Ok(())
}
