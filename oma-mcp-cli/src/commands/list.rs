//! `oma-mcp list`: start a server and list its tools.

use clap::Args;
use oma_mcp_runtime::DiscoveredTool;
use serde_json::{Value, json};

use crate::error::CliError;
use crate::exit::Outcome;
use crate::flags::{Format, timeout_ms};
use crate::output::{pretty, print};
use crate::server::connect::{connect, stop_listed};
use crate::server::resolve::resolve;
use crate::server::target::Target;
use crate::terminal;

/// Flags of `list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// The tool name prefix, open-multi-agent's namePrefix: tools are named
    /// `<prefix>_<name>` (default: the manifest's `prefix`).
    #[arg(long, value_name = "P")]
    pub prefix: Option<String>,
    /// The per-request timeout in milliseconds, at least 1 (default: the manifest's, else
    /// 60000).
    #[arg(long, value_name = "N", value_parser = timeout_ms)]
    pub timeout_ms: Option<u64>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// The server to start.
    #[command(flatten)]
    pub target: Target,
}

/// Runs `list`: the server's tools by framework name, with the first line of each
/// description and a `[consequential]` mark, as text or JSON.
pub async fn run(args: ListArgs) -> Result<Outcome, CliError> {
    let ListArgs {
        prefix,
        timeout_ms,
        format,
        target,
    } = args;
    let (config, policy) = resolve(target, prefix, timeout_ms, None)?;
    let client = connect(config).await?;
    let consequential =
        |t: &DiscoveredTool| policy.is_consequential(&t.mcp_name, t.descriptor.get("annotations"));
    let rows: Vec<Value> = client
        .tools()
        .iter()
        .map(|t| {
            json!({
                "name": t.name,
                "mcpName": t.mcp_name,
                "description": t.descriptor.get("description").and_then(Value::as_str),
                "consequential": consequential(t),
            })
        })
        .collect();
    stop_listed(&client).await;
    let text = match format {
        Format::Json => pretty(&Value::Array(rows)),
        Format::Text => {
            let width = client
                .tools()
                .iter()
                .map(|t| terminal::safe(&t.name).chars().count())
                .max()
                .unwrap_or(0);
            let mut text = String::new();
            for t in client.tools() {
                let description = t
                    .descriptor
                    .get("description")
                    .and_then(Value::as_str)
                    .and_then(|d| d.lines().next())
                    .unwrap_or("");
                let mark = if consequential(t) {
                    " [consequential]"
                } else {
                    ""
                };
                let name = terminal::safe(&t.name);
                let description = terminal::safe(description);
                text.push_str(&format!("{name:width$}  {description}{mark}\n"));
            }
            text
        }
    };
    print(&text)?;
    Ok(Outcome::Success)
}
