//! `oma-mcp export SNAPSHOT --provider openai|anthropic|gemini`: a snapshot's tools as the
//! tool definitions of a model provider's request, so a user sees what a model will see.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use oma_mcp_runtime::descriptor::ToolDescriptor;
use oma_mcp_runtime::provider::{Provider, provider_tools};
use serde_json::Value;

use crate::error::CliError;
use crate::exit::Outcome;
use crate::output::{pretty, print};
use crate::terminal;

/// A model provider's tool format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProviderFormat {
    /// OpenAI function calling in strict mode: `{"type": "function", "function": {"name",
    /// "description", "parameters", "strict": true}}`.
    Openai,
    /// Anthropic tool use: `{"name", "description", "input_schema"}`.
    Anthropic,
    /// Gemini function declarations: `{"name", "description", "parameters"}`.
    Gemini,
}

impl From<ProviderFormat> for Provider {
    fn from(format: ProviderFormat) -> Self {
        match format {
            ProviderFormat::Openai => Provider::OpenAi,
            ProviderFormat::Anthropic => Provider::Anthropic,
            ProviderFormat::Gemini => Provider::Gemini,
        }
    }
}

/// Flags of `export`.
#[derive(Debug, Args)]
#[command(
    after_help = "Each tool's parameters follow the provider's JSON Schema subset: \
OpenAI's strict mode makes every property required (an optional one may be null, which means \
absent) and closes every object; Gemini gets its OpenAPI subset without $ref; a value of any \
shape becomes a string of JSON text. Names a provider refuses are shortened or escaped, with \
an 8-hex-digit tag. A tool that cannot be expressed for the provider is named on stderr, and \
the exit status is then 2."
)]
pub struct ExportArgs {
    /// The snapshot (or bare `{"tools": [...]}`) file.
    #[arg(value_name = "SNAPSHOT")]
    pub snapshot: PathBuf,
    /// The provider whose request format to write.
    #[arg(long, value_enum, value_name = "PROVIDER")]
    pub provider: ProviderFormat,
    /// The prefix of the tools' names, as the runtime gives them (`<prefix>_<name>`).
    #[arg(long, value_name = "PREFIX")]
    pub prefix: Option<String>,
}

/// Runs `export`: the JSON array of tool definitions on stdout; exit 2 when a tool cannot be
/// expressed for the provider (the others are still written) or two tools get one name.
pub fn run(args: &ExportArgs) -> Result<Outcome, CliError> {
    let snapshot = crate::snapshot_file::read(&args.snapshot)?;
    let descriptors: Vec<ToolDescriptor> = snapshot
        .tools
        .iter()
        .map(|t| ToolDescriptor::from_snapshot(args.prefix.as_deref(), t))
        .collect();
    let provider = Provider::from(args.provider);
    let (tools, refused) =
        provider_tools(&descriptors, provider).map_err(|e| CliError::BadInput {
            reason: format!("{}: {e}", args.snapshot.display()),
        })?;
    let array: Vec<Value> = tools.iter().map(|t| t.request_json()).collect();
    print(&pretty(&Value::Array(array)))?;
    for e in &refused {
        eprintln!(
            "oma-mcp: {}: skipped: {}",
            args.snapshot.display(),
            terminal::safe(&e.to_string())
        );
    }
    Ok(if refused.is_empty() {
        Outcome::Success
    } else {
        Outcome::Failed
    })
}
