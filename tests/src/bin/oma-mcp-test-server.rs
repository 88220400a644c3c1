//! oma-mcp's own MCP test server on stdio; see the `oma_mcp_test_server` crate docs for its tools
//! and `OMA_TEST_SERVER_MODE` modes.

#[tokio::main]
async fn main() -> std::process::ExitCode {
    match oma_mcp_test_server::serve_stdio().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("oma-mcp-test-server: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
