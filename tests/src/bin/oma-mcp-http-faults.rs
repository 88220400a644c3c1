//! oma-mcp's fault server for HTTP failure tests: an MCP server over streamable HTTP that
//! fails on purpose in the way `--mode` says; see `--help` and the
//! `oma_mcp_test_server::faults` docs.

use oma_mcp_test_server::faults::{FaultOptions, serve_faults, usage};

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let options = match FaultOptions::parse(std::env::args().skip(1)) {
        Ok(Some(options)) => options,
        Ok(None) => {
            print!("{}", usage());
            return std::process::ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("oma-mcp-http-faults: {message}");
            return std::process::ExitCode::from(2);
        }
    };
    match serve_faults(options).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("oma-mcp-http-faults: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
