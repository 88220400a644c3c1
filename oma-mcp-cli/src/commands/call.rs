//! `oma-mcp call`: start a server and call one tool.

use std::io::{IsTerminal, Write};

use oma_mcp_runtime::error::{ProtocolError, RequestError};
use oma_mcp_runtime::validate::{Validator, invalid_input_message};
use oma_mcp_runtime::{CallOutcome, McpClient};
use serde_json::Value;

use crate::error::CliError;
use crate::exit::Outcome;
use crate::flags::{Format, timeout_ms};
use crate::output::{pretty, print};
use crate::progress::CallProgress;
use crate::server::connect::{connect, stop_listed};
use crate::server::resolve::resolve;
use crate::server::target::Target;
use crate::terminal;

/// Flags of `call`.
#[derive(Debug, clap::Args)]
pub struct CallArgs {
    /// The tool's framework name (after the prefix and `/` → `_` rule).
    #[arg(value_name = "TOOL")]
    pub tool: String,
    /// The arguments, a JSON object.
    #[arg(long, value_name = "JSON")]
    pub args: Option<String>,
    /// The tool name prefix, open-multi-agent's namePrefix: tools are named
    /// `<prefix>_<name>` (default: the manifest's `prefix`).
    #[arg(long, value_name = "P")]
    pub prefix: Option<String>,
    /// The per-request timeout in milliseconds, at least 1 (default: the manifest's, else
    /// 60000).
    #[arg(long, value_name = "N", value_parser = timeout_ms)]
    pub timeout_ms: Option<u64>,
    /// Call a consequential tool (the confirmation the executor's gate asks for).
    #[arg(long)]
    pub yes: bool,
    /// Send the arguments without checking them against the tool's input schema.
    #[arg(long)]
    pub no_validate: bool,
    /// Answer the server's request for input (a result with `resultType: "input_required"`,
    /// MCP 2026-07-28): NAME is a key of its `inputRequests`, JSON the answer, e.g.
    /// `confirm={"action":"accept","content":{"confirmed":true}}` for an
    /// `elicitation/create`. Repeatable. When the tool asks for input, the call is sent again
    /// with these answers and the server's exact `requestState`.
    #[arg(long = "input", value_name = "NAME=JSON")]
    pub inputs: Vec<String>,
    /// Output format: `text` prints the result's text (control characters escaped on a
    /// terminal, exactly as sent when piped); `json` the whole mapped result.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// The server to start.
    #[command(flatten)]
    pub target: Target,
}

/// Runs `call`: the executor's checks (confirmation, then the arguments against the input
/// schema), the call, and the mapped result printed as text or JSON.
pub async fn run(call: CallArgs) -> Result<Outcome, CliError> {
    let CallArgs {
        tool,
        args,
        prefix,
        timeout_ms,
        yes,
        no_validate,
        inputs,
        format,
        target,
    } = call;
    let inputs = parse_inputs(&inputs)?;
    let arguments = match args.as_deref() {
        None => None,
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => Some(map),
            Ok(other) => {
                return Err(CliError::BadArgs {
                    reason: format!("got {}", oma_mcp_runtime::quote::json_kind(&other)),
                });
            }
            Err(e) => {
                return Err(CliError::BadArgs {
                    reason: e.to_string(),
                });
            }
        },
    };
    let (config, policy) = resolve(target, prefix, timeout_ms, Some(&tool))?;
    let client = connect(config).await?;
    let Some(found) = client.tools().iter().find(|t| t.name == tool) else {
        let available = client
            .tools()
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        stop_listed(&client).await;
        return Err(CliError::UnknownTool { tool, available });
    };
    // The executor's rules, before anything is sent: the confirmation of a consequential tool
    // (here `--yes`), then the arguments against the tool's input schema. Both are checked,
    // so that one run reports every reason for a refusal.
    let mut refusals = Vec::new();
    if !yes
        && let Some(reason) = policy.reason(&found.mcp_name, found.descriptor.get("annotations"))
    {
        refusals.push(CliError::NeedsConfirmation {
            tool: tool.clone(),
            reason,
        });
    }
    if !no_validate {
        let schema = oma_mcp_runtime::descriptor::mcp_llm_input_schema(&found.descriptor);
        let instance = Value::Object(arguments.clone().unwrap_or_default());
        // Unlike the runtime (which logs and sends), the CLI does not send arguments it was
        // asked to check but cannot: the user is there to decide.
        let checked = match Validator::new(&tool, &schema) {
            Ok(validator) => {
                validator
                    .validate(&instance)
                    .map_err(|problems| CliError::InvalidArgs {
                        message: invalid_input_message(&tool, &problems),
                    })
            }
            Err(oma_mcp_runtime::Error::Protocol(ProtocolError::InvalidSchema {
                tool,
                pointer,
                reason,
                ..
            })) => Err(CliError::UncheckableArgs {
                reason: format!(
                    "the input schema of tool \"{tool}\" is invalid at {pointer}: {reason}"
                ),
            }),
            Err(e) => Err(CliError::UncheckableArgs {
                reason: e.to_string(),
            }),
        };
        if let Err(e) = checked {
            refusals.push(e);
        }
    }
    if !refusals.is_empty() {
        stop_listed(&client).await;
        return Err(match refusals.len() {
            1 => refusals.remove(0),
            _ => CliError::Refused { problems: refusals },
        });
    }
    let mcp_name = found.mcp_name.clone();
    let result = call_showing_progress(&client, &tool, &mcp_name, arguments, inputs).await;
    // A tool ran: the server gets the full grace to finish its work and exit.
    client.disconnect().await;
    let text = match format {
        Format::Json => pretty(&result.to_json()),
        Format::Text => {
            // The tool's text as sent when piped; on a terminal, its control characters are
            // shown escaped like every other piece of server text the CLI prints there.
            let mut text = if std::io::stdout().is_terminal() {
                terminal::safe(&result.data)
            } else {
                result.data.clone()
            };
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text
        }
    };
    print(&text)?;
    Ok(if result.is_error {
        Outcome::ToolError
    } else {
        Outcome::Success
    })
}

/// Calls the tool and maps the result as `ToolCall::mapped` does; on a terminal, with a
/// progress bar on stderr fed by the server's `notifications/progress` (the call then
/// carries a `progressToken`). Piped, nothing is drawn and no token is sent.
async fn call_showing_progress(
    client: &McpClient,
    tool: &str,
    mcp_name: &str,
    arguments: Option<serde_json::Map<String, Value>>,
    inputs: serde_json::Map<String, Value>,
) -> oma_mcp_runtime::ToolResult {
    let call = client.call_tool(mcp_name).arguments(arguments.clone());
    let mut raw = match CallProgress::on_terminal(tool) {
        None => call.raw().await,
        Some(bar) => {
            let raw = call.progress(|p| bar.update(&p)).raw().await;
            bar.finish();
            raw
        }
    };
    // One answer round with the `--input` answers; a tool that asks again is explained.
    if !inputs.is_empty()
        && let Ok(result) = raw
    {
        raw = match CallOutcome::from_result(result) {
            CallOutcome::InputRequired(required) => client
                .call_tool(mcp_name)
                .arguments(arguments)
                .answering(&required, inputs)
                .outcome()
                .await
                .map(CallOutcome::into_result),
            other => Ok(other.into_result()),
        };
    }
    match raw {
        // A result that asks for input or is a task is explained, not mapped as content.
        Ok(result) => oma_mcp_runtime::call_outcome::not_complete(mcp_name, &result)
            .unwrap_or_else(|| oma_mcp_runtime::map_call_result(&result)),
        Err(e) => {
            // The runtime's message names the library setting and the manifest key; the
            // flag that raises the limit for this command is the CLI's to name.
            if matches!(
                e,
                oma_mcp_runtime::Error::Request(RequestError::MessageTooLarge { .. })
            ) {
                let _ = writeln!(
                    std::io::stderr(),
                    "oma-mcp: raise the limit with --max-message-bytes BYTES"
                );
            }
            oma_mcp_runtime::ToolResult::failed(mcp_name, &e.chain().to_string())
        }
    }
}

/// The `--input NAME=JSON` answers, keyed by NAME.
fn parse_inputs(inputs: &[String]) -> Result<serde_json::Map<String, Value>, CliError> {
    let mut answers = serde_json::Map::new();
    for input in inputs {
        let Some((name, json)) = input.split_once('=') else {
            return Err(CliError::BadInput {
                reason: format!(
                    "--input takes NAME=JSON (a key of the tool's inputRequests and its answer), \
                     got `{}`",
                    oma_mcp_runtime::quote::cut(input, 100)
                ),
            });
        };
        let answer = serde_json::from_str::<Value>(json).map_err(|e| CliError::BadInput {
            reason: format!("--input {name}: the answer is not JSON: {e}"),
        })?;
        answers.insert(name.to_owned(), answer);
    }
    Ok(answers)
}
