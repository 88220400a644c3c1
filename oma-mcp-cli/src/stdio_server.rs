//! Serving a fake as an MCP server on this process's stdin and stdout (`record`, `replay`):
//! the streams, and how a served fake ends the run.

use oma_mcp_runtime::fake::FakeServer;
use tokio::io::{BufReader, Stdin, Stdout};

use crate::exit::Outcome;

/// The process's stdin (buffered) and stdout, where a stdio MCP server speaks.
pub fn stdio() -> (BufReader<Stdin>, Stdout) {
    (BufReader::new(tokio::io::stdin()), tokio::io::stdout())
}

/// How a served fake ended: success, or its problems on stderr and exit 2.
pub fn served(fake: &FakeServer) -> Outcome {
    match fake.verify() {
        Ok(()) => Outcome::Success,
        Err(problems) => {
            eprintln!("oma-mcp: {problems}");
            Outcome::Failed
        }
    }
}
