//! The subcommands, a thin layer over `oma-mcp-build` and `oma-mcp-runtime`.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use oma_mcp_build::codegen::{self, ConsequentialPolicy, GenerateOptions};
use oma_mcp_build::manifest::{DEFAULT_MANIFEST, Manifest, ServerPin};
use oma_mcp_runtime::snapshot::SnapshotSource;
use oma_mcp_runtime::validate::{Validator, invalid_input_message};
use oma_mcp_runtime::{ConnectConfig, DiscoveredTool, McpClient, Snapshot};
use serde_json::{Value, json};

use crate::args::{CallArgs, Command, Format, Target};
use crate::terminal;

/// Errors of the command line itself; library errors are wrapped with what was being done.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The async runtime could not start.
    #[error("cannot start the async runtime")]
    AsyncRuntime(#[source] std::io::Error),
    /// The SIGINT/SIGTERM/SIGHUP handlers could not be installed.
    #[error("cannot install the signal handlers that stop the server on Ctrl-C")]
    Signals(#[source] std::io::Error),
    /// Writing to stdout failed (a closed pipe is not reported).
    #[error("cannot write to stdout")]
    Stdout(#[source] std::io::Error),
    /// An error of `oma-mcp-build` (manifest, codegen, snapshot, build step).
    #[error(transparent)]
    Build(#[from] oma_mcp_build::Error),
    /// An error of `oma-mcp-runtime` (connection, snapshot file).
    #[error(transparent)]
    Runtime(#[from] oma_mcp_runtime::Error),
    /// Connecting to the server failed.
    #[error("cannot connect to the MCP server `{command}`")]
    Connect {
        /// The command line.
        command: String,
        /// Why (boxed: large, and this path is cold).
        #[source]
        source: Box<oma_mcp_runtime::Error>,
    },
    /// Writing generated code failed.
    #[error("cannot write {path}")]
    Write {
        /// The output file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The flags do not name a server.
    #[error(
        "no server given: pass `--manifest PATH [--server NAME]` or the server command after `--` \
         (e.g. `oma-mcp list -- node_modules/.bin/mcp-server-everything stdio` after `npm ci`)"
    )]
    NoServer,
    /// `--out` with several servers.
    #[error("--out needs a single server, but {manifest} pins {count}; add --server NAME")]
    OutNeedsOneServer {
        /// The manifest.
        manifest: PathBuf,
        /// How many servers it pins.
        count: usize,
    },
    /// `--args` is not a JSON object.
    #[error("--args must be a JSON object like '{{\"message\": \"hi\"}}': {reason}")]
    BadArgs {
        /// What is wrong.
        reason: String,
    },
    /// The tool is consequential and `--yes` was not given.
    #[error(
        "tool \"{tool}\" is consequential ({reason}), so it was not called; pass --yes to \
         call it anyway"
    )]
    NeedsConfirmation {
        /// The framework name.
        tool: String,
        /// Why it is consequential.
        reason: &'static str,
    },
    /// `--args` does not fit the tool's input schema.
    #[error(
        "{message}\nnothing was sent; fix --args, or pass --no-validate to let the server \
         judge them"
    )]
    InvalidArgs {
        /// `Invalid input for tool "<name>":` and one `- <pointer>: <problem>` line each.
        message: String,
    },
    /// The tool's input schema does not compile, so `--args` cannot be checked.
    #[error(
        "cannot check --args: {reason}; nothing was sent; pass --no-validate to send them \
         unchecked"
    )]
    UncheckableArgs {
        /// The schema error.
        reason: String,
    },
    /// The tool is not listed by the server.
    #[error("the server has no tool named \"{tool}\"; it lists: {available}")]
    UnknownTool {
        /// The requested name.
        tool: String,
        /// The framework names it does list, comma-separated.
        available: String,
    },
}

/// How a successful run ended.
pub enum Outcome {
    /// Exit 0.
    Success,
    /// `call` printed a result with `is_error: true`: exit 2.
    ToolError,
    /// `check` or `diff` found drift at or above the `--fail-on` level: exit 1.
    Drift,
    /// `check` reported the servers it could check, and its errors for the others are
    /// already on stderr: exit 2.
    Failed,
    /// A signal ended the run before the command did: exit 128 + its number.
    Interrupted(crate::interrupt::Signal),
}

/// Runs one subcommand.
pub async fn run(command: Command) -> Result<Outcome, CliError> {
    match command {
        Command::Snapshot {
            manifest,
            server,
            out,
            timeout_ms,
            command,
        } => snapshot(manifest, server, out, timeout_ms, command).await,
        Command::Generate {
            snapshot,
            prefix,
            consequential,
            rename,
            out,
        } => generate(&snapshot, prefix, consequential, rename, out.as_deref()),
        Command::List {
            prefix,
            timeout_ms,
            format,
            target,
        } => list(prefix, timeout_ms, format, target).await,
        Command::Call(args) => call(args).await,
        Command::Check(args) => crate::check::run(args).await,
        Command::Diff(args) => crate::diff::run(args),
        Command::Schema(args) => crate::schema::schema(&args),
        Command::Completions(args) => crate::schema::completions(&args),
    }
}

async fn snapshot(
    manifest: Option<PathBuf>,
    server: Option<String>,
    out: Option<PathBuf>,
    timeout_ms: Option<u64>,
    command: Vec<String>,
) -> Result<Outcome, CliError> {
    if let [program, args @ ..] = command.as_slice() {
        let mut config = ConnectConfig::new(program.clone()).with_args(args.to_vec());
        if let Some(ms) = timeout_ms {
            config = config.with_request_timeout(Duration::from_millis(ms));
        }
        let client = connect(config).await?;
        let snapshot =
            client.snapshot_with_source(SnapshotSource::new(program.clone(), args.to_vec()));
        stop_listed(&client).await;
        let snapshot = snapshot?;
        match out {
            Some(path) => {
                snapshot.write(&path)?;
                eprintln!(
                    "oma-mcp: wrote {} ({} tools)",
                    path.display(),
                    snapshot.tools.len()
                );
            }
            None => print(&snapshot.to_canonical_string())?,
        }
        return Ok(Outcome::Success);
    }
    let manifest_path = manifest.unwrap_or_else(|| PathBuf::from(DEFAULT_MANIFEST));
    let manifest = Manifest::read(&manifest_path)?;
    let pins: Vec<&ServerPin> = match &server {
        Some(name) => vec![manifest.server(name)?],
        None => manifest.servers.values().collect(),
    };
    if out.is_some() && pins.len() != 1 {
        return Err(CliError::OutNeedsOneServer {
            manifest: manifest_path,
            count: pins.len(),
        });
    }
    for pin in pins {
        let mut config = pin.connect_config();
        if let Some(ms) = timeout_ms {
            config = config.with_request_timeout(Duration::from_millis(ms));
        }
        let client = connect(config).await?;
        let snapshot = client.snapshot_with_source(pin.snapshot_source());
        stop_listed(&client).await;
        let snapshot = snapshot?;
        let path = out.clone().unwrap_or_else(|| pin.snapshot.clone());
        let changed = snapshot.write(&path)?;
        eprintln!(
            "oma-mcp: {} {} ({} tools) for server `{}`",
            if changed { "wrote" } else { "unchanged:" },
            path.display(),
            snapshot.tools.len(),
            pin.name
        );
    }
    Ok(Outcome::Success)
}

fn generate(
    snapshot: &Path,
    prefix: Option<String>,
    consequential: Vec<String>,
    rename: Vec<(String, String)>,
    out: Option<&Path>,
) -> Result<Outcome, CliError> {
    let snapshot = Snapshot::read(snapshot)?;
    let mut options = GenerateOptions::default()
        .with_consequential(consequential)
        .with_rename(rename)
        .with_rename_table("--rename");
    if let Some(prefix) = prefix {
        options = options.with_name_prefix(prefix);
    }
    let generated = codegen::generate(&snapshot, &options)?;
    for warning in &generated.warnings {
        eprintln!("oma-mcp: warning: {}", terminal::safe(&warning.to_string()));
    }
    match out {
        Some(path) => {
            oma_mcp_runtime::snapshot::write_if_changed(path, generated.code.as_bytes()).map_err(
                |source| CliError::Write {
                    path: path.to_path_buf(),
                    source,
                },
            )?;
        }
        None => print(&generated.code)?,
    }
    Ok(Outcome::Success)
}

async fn list(
    prefix: Option<String>,
    timeout_ms: Option<u64>,
    format: Format,
    target: Target,
) -> Result<Outcome, CliError> {
    let (config, policy) = resolve(target, prefix, timeout_ms)?;
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

async fn call(call: CallArgs) -> Result<Outcome, CliError> {
    let CallArgs {
        tool,
        args,
        prefix,
        timeout_ms,
        yes,
        no_validate,
        format,
        target,
    } = call;
    let arguments = match args.as_deref() {
        None => None,
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => Some(map),
            Ok(other) => {
                return Err(CliError::BadArgs {
                    reason: format!("got {}", kind(&other)),
                });
            }
            Err(e) => {
                return Err(CliError::BadArgs {
                    reason: e.to_string(),
                });
            }
        },
    };
    let (config, policy) = resolve(target, prefix, timeout_ms)?;
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
    // (here `--yes`), then the arguments against the tool's input schema.
    if !yes
        && let Some(reason) = policy.reason(&found.mcp_name, found.descriptor.get("annotations"))
    {
        stop_listed(&client).await;
        return Err(CliError::NeedsConfirmation { tool, reason });
    }
    if !no_validate {
        let schema = oma_mcp_runtime::tool::mcp_llm_input_schema(&found.descriptor);
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
            Err(oma_mcp_runtime::Error::InvalidSchema {
                tool,
                pointer,
                reason,
            }) => Err(CliError::UncheckableArgs {
                reason: format!(
                    "the input schema of tool \"{tool}\" is invalid at {pointer}: {reason}"
                ),
            }),
            Err(e) => Err(CliError::UncheckableArgs {
                reason: e.to_string(),
            }),
        };
        if let Err(e) = checked {
            stop_listed(&client).await;
            return Err(e);
        }
    }
    let mcp_name = found.mcp_name.clone();
    let result = client.call_tool(&mcp_name, arguments).await;
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

/// The connection settings and consequential rules for a `--manifest`/`--` target (after
/// `--`: annotations only, as the generator's defaults).
fn resolve(
    target: Target,
    prefix: Option<String>,
    timeout_ms: Option<u64>,
) -> Result<(ConnectConfig, ConsequentialPolicy), CliError> {
    let (mut config, options) = if let [program, args @ ..] = target.command.as_slice() {
        (
            ConnectConfig::new(program.clone()).with_args(args.to_vec()),
            GenerateOptions::default(),
        )
    } else if let Some(path) = &target.manifest {
        let manifest = Manifest::read(path)?;
        let pin = manifest.single(target.server.as_deref())?;
        (pin.connect_config(), pin.generate_options())
    } else {
        return Err(CliError::NoServer);
    };
    if let Some(prefix) = prefix {
        config = config.with_name_prefix(prefix);
    }
    if let Some(ms) = timeout_ms {
        config = config.with_request_timeout(Duration::from_millis(ms));
    }
    if let Some(bytes) = target.max_message_bytes {
        config = config.with_max_message_size(bytes);
    }
    Ok((config, options.consequential_policy()?))
}

/// Connects, naming the command line in the error.
pub(crate) async fn connect(config: ConnectConfig) -> Result<McpClient, CliError> {
    let command = std::iter::once(config.command.as_str())
        .chain(config.args.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ");
    oma_mcp_runtime::connect_mcp_tools(config)
        .await
        .map_err(|source| match source.command() {
            // The runtime's message already names the command: do not say it twice.
            Some(_) => CliError::Runtime(source),
            None => CliError::Connect {
                command,
                source: Box::new(source),
            },
        })
}

fn pretty(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Writes `text` to stdout. A reader that went away (`oma-mcp diff … | head -1`) is not an
/// error: the rest of the output has nowhere to go, and the command still ends with its own
/// exit code (1 for drift, 2 for a tool error), which scripts rely on.
pub(crate) fn print(text: &str) -> Result<(), CliError> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(CliError::Stdout),
    }
}

/// Stops a server this run only listed the tools of (`snapshot`, `list`, `check`, a refused
/// `call`): SIGTERM right after the EOF instead of waiting for the server to exit on its own
/// (server-everything takes about 350 ms), since nothing it did needs a clean exit.
pub async fn stop_listed(client: &McpClient) {
    client.disconnect_within(Duration::ZERO).await;
}
