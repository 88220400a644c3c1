//! Generates typed tools for the servers pinned in `oma-mcp.toml`, from their committed
//! snapshots (offline, deterministic). See the manifest for how to refresh a pin.

// README: begin (the README's and the guide's `build.rs`)
fn main() -> Result<(), oma_mcp_build::Report> {
    oma_mcp_build::configure().compile()?;
    Ok(())
}
// README: end
