//! oma-mcp's own MCP test server, on stdio or (`--http ADDR`) over streamable HTTP; see the
//! `oma_mcp_test_server` crate docs for its tools and `OMA_TEST_SERVER_MODE` modes, and
//! `--help` for the flags.

use oma_mcp_test_server::http::{Command, USAGE};

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let result = match Command::parse(std::env::args().skip(1)) {
        Ok(Command::Help) => {
            print!("{USAGE}");
            return std::process::ExitCode::SUCCESS;
        }
        Ok(Command::Http(options)) => oma_mcp_test_server::serve_http(options).await,
        Ok(_) => oma_mcp_test_server::serve_stdio().await,
        Err(message) => {
            eprintln!("oma-mcp-test-server: {message}");
            return std::process::ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("oma-mcp-test-server: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
