//! `oma-mcp record --out CASSETTE SERVER`: a recording proxy on stdio. Code under test starts
//! it as its MCP server; every call is forwarded to the real server, answered as it answers,
//! and recorded; when stdin ends, the cassette is written.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use oma_mcp_runtime::cassette::Redaction;
use oma_mcp_runtime::fake::FakeServer;

use super::replay::{served, stdio};
use crate::error::CliError;
use crate::exit::Outcome;
use crate::flags::timeout_ms;
use crate::server::connect::connect;
use crate::server::resolve::resolve;
use crate::server::target::Target;

/// Flags of `record`.
#[derive(Debug, Args)]
#[command(
    after_help = "Put `oma-mcp record --out FILE ...` where the code under test starts \
its server (the same flags as `list` name the real one: --manifest/--server, --url or \
`-- COMMAND`). The proxy serves the server's tools as listed and speaks MCP on stdin and \
stdout; the server's own stderr and oma-mcp's messages go to stderr. The cassette is canonical \
JSON: credentials (members named like token, password, secret, api key, authorization, cookie, \
credential(s), passphrase, private or access key, and --redact names) are replaced by \
\"<redacted>\", in URL queries and header pairs too, and wherever a removed value recurs. Exit \
0 when every call was answered by the server, 2 otherwise (the problems on stderr)."
)]
pub struct RecordArgs {
    /// The cassette file written when stdin ends.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Another member name to redact (matched as a suffix, case, `-` and `_` ignored);
    /// repeatable.
    #[arg(long, value_name = "NAME")]
    pub redact: Vec<String>,
    /// The per-request timeout in milliseconds, at least 1 (default: the manifest's, else
    /// 60000).
    #[arg(long, value_name = "N", value_parser = timeout_ms)]
    pub timeout_ms: Option<u64>,
    /// The server to record.
    #[command(flatten)]
    pub target: Target,
}

/// Runs `record`: serves the proxy on stdio until stdin ends, then writes the cassette.
pub async fn run(args: RecordArgs) -> Result<Outcome, CliError> {
    let (config, _) = resolve(args.target, None, args.timeout_ms, None)?;
    let client = Arc::new(connect(config).await?);
    let redaction = Redaction::default().with(&args.redact);
    let proxy = match FakeServer::record(Arc::clone(&client), redaction, None).await {
        Ok(proxy) => proxy,
        Err(e) => {
            client.disconnect().await;
            return Err(e.into());
        }
    };
    let (input, output) = stdio();
    let result = proxy.serve_stdio(input, output).await;
    client.disconnect().await;
    result.map_err(CliError::Stdio)?;
    proxy.save_cassette(&args.out)?;
    Ok(served(&proxy))
}
