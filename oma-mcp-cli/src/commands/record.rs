//! `oma-mcp record --out CASSETTE SERVER`: a recording proxy on stdio. Code under test starts
//! it as its MCP server; every call is forwarded to the real server, answered as it answers,
//! and recorded; when stdin ends, the cassette is written.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use oma_mcp_runtime::ConnectConfig;
use oma_mcp_runtime::cassette::Redaction;
use oma_mcp_runtime::fake::FakeServer;

use crate::error::CliError;
use crate::exit::Outcome;
use crate::flags::timeout_ms;
use crate::server::connect::connect;
use crate::server::resolve::resolve;
use crate::server::target::Target;
use crate::stdio_server::{served, stdio};

/// Flags of `record`.
#[derive(Debug, Args)]
#[command(
    after_help = "Put `oma-mcp record --out FILE ...` where the code under test starts \
its server (the same flags as `list` name the real one: --manifest/--server, --url or \
`-- COMMAND`). The proxy serves the server's tools as listed and speaks MCP on stdin and \
stdout; oma-mcp's messages go to stderr (the server's stderr is kept and quoted in errors about \
it). The cassette is written after every call, whole, so a session that ends early (a signal, a \
closed pipe) keeps what was recorded; a session without calls leaves FILE as it was. It is \
canonical JSON: credentials (members named like token, password, secret, api key, \
authorization, cookie, credential(s), passphrase, private or access key, and --redact names) \
are replaced by \"<redacted>\", in URL queries and header pairs too, and wherever a removed \
value recurs, as are the values of --bearer-env, --header-env and of the server's environment \
variables with such names. Exit 0 when every call was answered by the server and fits its \
schemas, 2 otherwise (the problems on stderr)."
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

/// Runs `record`: serves the proxy on stdio until stdin ends, writing the cassette after
/// every recorded call.
pub async fn run(args: RecordArgs) -> Result<Outcome, CliError> {
    let out = args.out;
    let directory = match out.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
        _ => PathBuf::from("."),
    };
    if !directory.is_dir() {
        return Err(CliError::BadInput {
            reason: format!(
                "--out {}: the directory {} does not exist; create it first",
                out.display(),
                directory.display()
            ),
        });
    }
    let (config, _) = resolve(args.target, None, args.timeout_ms, None)?;
    let redaction = Redaction::default().with(&args.redact);
    let redaction = redaction
        .clone()
        .with_values(secret_values(&config, &redaction));
    let client = Arc::new(connect(config).await?);
    let proxy = match FakeServer::record(Arc::clone(&client), redaction, None).await {
        Ok(proxy) => proxy,
        Err(e) => {
            client.disconnect().await;
            return Err(e.into());
        }
    };
    proxy.save_cassette_after_each_call(&out)?;
    let (input, output) = stdio();
    let result = proxy.serve_stdio(input, output).await;
    client.disconnect().await;
    let recorded = proxy.cassette().map_or(0, |c| c.calls.len());
    if let Err(e) = result {
        if recorded > 0 {
            eprintln!(
                "oma-mcp: {} holds the {recorded} call(s) recorded before",
                out.display()
            );
        }
        return Err(CliError::Stdio(e));
    }
    if recorded == 0 {
        eprintln!(
            "oma-mcp: no tools/call was made, so {} was left as it was",
            out.display()
        );
        return Ok(Outcome::Failed);
    }
    // Written after each call already; a write that failed is among the problems.
    Ok(served(&proxy))
}

/// The values the server is given that are secrets: those of `--bearer-env` and
/// `--header-env` (and the manifest's), and of its environment variables whose names
/// `redaction` redacts (`GITHUB_TOKEN`, `API_KEY`), literal or passed on. The server may echo
/// them under any name.
fn secret_values(config: &ConnectConfig, redaction: &Redaction) -> Vec<String> {
    let from_here = |var: &String| std::env::var(var).ok();
    let mut values: Vec<String> = config
        .bearer_env
        .iter()
        .chain(config.header_env.values())
        .filter_map(from_here)
        .collect();
    values.extend(
        config
            .env
            .iter()
            .filter(|(name, _)| redaction.redacts(name))
            .map(|(_, value)| value.clone()),
    );
    values.extend(
        config
            .pass_env
            .iter()
            .filter(|name| redaction.redacts(name))
            .filter_map(from_here),
    );
    values
}
