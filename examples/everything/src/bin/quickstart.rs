//! The `src/main.rs` of the README's "Use it in your crate" and of the guide's "Getting
//! started": the region between the README markers is shown in both verbatim
//! (`tests/integration/guide.rs` checks every such region). Run from the repository root after
//! `npm ci --prefix examples/everything`:
//! `cargo run -p oma-mcp-example-everything --bin quickstart`.

// README: begin
mod everything {
    oma_mcp_runtime::include_tools!("everything");
}

// `?` takes any error: `Report` prints it with its causes on one line (`Error: cannot start
// the MCP server `…`: No such file or directory (os error 2)`), not in debug form.
#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), oma_mcp_runtime::error::Report> {
    // The server as oma-mcp.toml pins it: command, args, cwd, env, prefix, timeout.
    let client = oma_mcp_runtime::connect_mcp_tools(everything::connect_config()).await?;
    // The arguments know their tool: `call(args)` starts the call, `.mapped()` ends it.
    let result = client.call(everything::EchoArgs::new("hi")).mapped().await;
    assert_eq!(result.data, "Echo: hi");
    client.disconnect().await;
    Ok(())
}
// README: end
