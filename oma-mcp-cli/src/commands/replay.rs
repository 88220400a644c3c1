//! `oma-mcp replay CASSETTE --snapshot SNAPSHOT`: a recorded session served on stdio, for code
//! under test that starts its MCP server as a command.

use std::path::PathBuf;

use clap::Args;
use oma_mcp_runtime::fake::FakeServer;

use crate::error::CliError;
use crate::exit::Outcome;
use crate::stdio_server::{served, stdio};

/// Flags of `replay`.
#[derive(Debug, Args)]
#[command(
    after_help = "Put `oma-mcp replay CASSETTE --snapshot SNAPSHOT` where the code under \
test starts its server. It serves the snapshot's tools and answers each call with the answer \
recorded for the same tool and arguments (identical calls in recorded order), on stdin and \
stdout. A cassette that no longer fits the snapshot is refused before anything is served. A \
call the cassette has not recorded gets a JSON-RPC error naming the cassette. Exit 0 when \
every call was answered from the cassette, 2 otherwise (the problems on stderr)."
)]
pub struct ReplayArgs {
    /// The cassette to answer from (written by `oma-mcp record` or a library recorder).
    #[arg(value_name = "CASSETTE")]
    pub cassette: PathBuf,
    /// The snapshot of the recorded server, whose tools are served as pinned.
    #[arg(long, value_name = "SNAPSHOT")]
    pub snapshot: PathBuf,
}

/// Runs `replay`: serves the cassette on stdio until stdin ends.
pub async fn run(args: ReplayArgs) -> Result<Outcome, CliError> {
    let snapshot = crate::snapshot_file::read(&args.snapshot).map_err(|e| {
        let text = std::fs::read_to_string(&args.snapshot).unwrap_or_default();
        if text.contains("\"oma-mcp-cassette/") {
            CliError::BadInput {
                reason: format!(
                    "--snapshot {} is a cassette, not a snapshot: the order is `oma-mcp replay \
                     CASSETTE --snapshot SNAPSHOT`",
                    args.snapshot.display()
                ),
            }
        } else {
            e.into()
        }
    })?;
    let fake = FakeServer::start_with(snapshot, None).await?;
    fake.replay_file(&args.cassette)?;
    let (input, output) = stdio();
    fake.serve_stdio(input, output)
        .await
        .map_err(CliError::Stdio)?;
    Ok(served(&fake))
}
