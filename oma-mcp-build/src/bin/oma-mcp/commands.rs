//! The subcommands, a thin layer over `oma-mcp-build` and `oma-mcp-runtime`.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use oma_mcp_build::WriteSnapshot;
use oma_mcp_build::codegen::{self, ConsequentialPolicy, GenerateOptions};
use oma_mcp_build::manifest::{DEFAULT_MANIFEST, Manifest, ServerPin};
use oma_mcp_runtime::snapshot::SnapshotSource;
use oma_mcp_runtime::validate::{Validator, invalid_input_message};
use oma_mcp_runtime::{ConnectConfig, DiscoveredTool, McpClient, Snapshot};
use serde_json::{Value, json};

use crate::args::{CallArgs, Command, Format, LifecycleArg, Target};
use crate::server_env::ServerEnv;
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
    /// The flags do not name a server, and there is no `./oma-mcp.toml` to default to.
    #[error(
        "no server given and no oma-mcp.toml in the current directory: pass `--manifest PATH \
         [--server NAME]` or the server command after `--` (e.g. `oma-mcp list -- \
         node_modules/.bin/mcp-server-everything stdio` after `npm ci`)"
    )]
    NoServer,
    /// A malformed `--env` or `--pass-env` (the message names the flag and the variable,
    /// never a value).
    #[error("{problem}")]
    BadEnv {
        /// What is wrong and how to write it.
        problem: String,
    },
    /// `call`'s tool name carries the prefix of several servers of the manifest.
    #[error(
        "tool \"{tool}\" carries the prefix of several servers of {}: {}; add --server NAME",
        manifest.display(),
        servers.join(", ")
    )]
    AmbiguousTool {
        /// The framework name asked for.
        tool: String,
        /// The manifest.
        manifest: PathBuf,
        /// `<server> (prefix <prefix>)` of each server whose prefix matches.
        servers: Vec<String>,
    },
    /// `call` refused for several reasons at once (each on a line of its own), so the user
    /// fixes them all in one go: no `--yes` for a consequential tool, and `--args` that do
    /// not fit the input schema.
    #[error("{}", problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("\noma-mcp: "))]
    Refused {
        /// The refusals, in the executor's order (confirmation first).
        problems: Vec<CliError>,
    },
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
    /// The manifest pins several servers and the command names none: the library's error,
    /// with the flag that chooses one.
    #[error(
        "manifest {} pins several servers ({}); choose one with --server NAME",
        manifest.display(),
        available.join(", ")
    )]
    ServerNotChosen {
        /// The manifest.
        manifest: PathBuf,
        /// The servers it pins.
        available: Vec<String>,
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
            server_env,
            lifecycle,
            command,
        } => {
            snapshot(
                manifest,
                server,
                out,
                timeout_ms,
                &server_env,
                lifecycle,
                command,
            )
            .await
        }
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
    server_env: &ServerEnv,
    lifecycle: Option<LifecycleArg>,
    command: Vec<String>,
) -> Result<Outcome, CliError> {
    if let [program, args @ ..] = command.as_slice() {
        let mut config = server_env.apply(cli_client(
            ConnectConfig::new(program.clone()).with_args(args.to_vec()),
            None,
        ))?;
        if let Some(ms) = timeout_ms {
            config = config.with_request_timeout(Duration::from_millis(ms));
        }
        crate::server_env::warn_env_wrapper(program, args);
        if let Some(lifecycle) = lifecycle {
            config = config.with_lifecycle(lifecycle.into());
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
        let mut config = server_env.apply(cli_client(pin.connect_config(), Some(pin)))?;
        if let Some(ms) = timeout_ms {
            config = config.with_request_timeout(Duration::from_millis(ms));
        }
        crate::server_env::warn_env_wrapper(&pin.command, &pin.args);
        if let Some(lifecycle) = lifecycle {
            config = config.with_lifecycle(lifecycle.into());
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
            oma_mcp_build::write_if_changed(path, generated.code.as_bytes()).map_err(|source| {
                CliError::Write {
                    path: path.to_path_buf(),
                    source,
                }
            })?;
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
    let result = call_showing_progress(&client, &tool, &mcp_name, arguments).await;
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

/// Calls the tool and maps the result as `McpClient::call_tool` does; on a terminal, with a
/// progress bar on stderr fed by the server's `notifications/progress` (the call then
/// carries a `progressToken`). Piped, nothing is drawn and no token is sent.
async fn call_showing_progress(
    client: &McpClient,
    tool: &str,
    mcp_name: &str,
    arguments: Option<serde_json::Map<String, Value>>,
) -> oma_mcp_runtime::ToolResult {
    let raw = match crate::progress::CallProgress::on_terminal(tool) {
        None => client.call_tool_raw(mcp_name, arguments).await,
        Some(bar) => {
            let raw = client
                .call_tool_raw_with_progress(mcp_name, arguments, None, |p| bar.update(&p))
                .await;
            bar.finish();
            raw
        }
    };
    match raw {
        Ok(result) => oma_mcp_runtime::map_call_result(&result),
        Err(e) => {
            // The runtime's message names the library setting and the manifest key; the
            // flag that raises the limit for this command is the CLI's to name.
            if matches!(e, oma_mcp_runtime::Error::MessageTooLarge { .. }) {
                let _ = writeln!(
                    std::io::stderr(),
                    "oma-mcp: raise the limit with --max-message-bytes BYTES"
                );
            }
            oma_mcp_runtime::ToolResult::failed(mcp_name, &e.chain().to_string())
        }
    }
}

/// The connection settings and consequential rules for a `--manifest`/`--` target (after
/// `--`: annotations only, as the generator's defaults). Without either, `./oma-mcp.toml`
/// when it exists. `tool` (`call`) picks the server of a manifest that pins several when no
/// `--server` is given: the one whose `prefix` the tool name carries (`<prefix>_…`).
fn resolve(
    target: Target,
    prefix: Option<String>,
    timeout_ms: Option<u64>,
    tool: Option<&str>,
) -> Result<(ConnectConfig, ConsequentialPolicy), CliError> {
    let (config, options) = if let [program, args @ ..] = target.command.as_slice() {
        (
            cli_client(
                ConnectConfig::new(program.clone()).with_args(args.to_vec()),
                None,
            ),
            GenerateOptions::default(),
        )
    } else {
        let path = match target.manifest {
            Some(path) => path,
            None if Path::new(DEFAULT_MANIFEST).is_file() => PathBuf::from(DEFAULT_MANIFEST),
            None => return Err(CliError::NoServer),
        };
        let manifest = Manifest::read(&path)?;
        let pin = match (target.server.as_deref(), tool) {
            (None, Some(tool)) if manifest.servers.len() > 1 => by_prefix(&manifest, tool)?,
            (server, _) => manifest.single(server).map_err(server_hint)?,
        };
        (
            cli_client(pin.connect_config(), Some(pin)),
            pin.generate_options(),
        )
    };
    let mut config = target.server_env.apply(config)?;
    if let Some(prefix) = prefix {
        config = config.with_name_prefix(prefix);
    }
    if let Some(ms) = timeout_ms {
        config = config.with_request_timeout(Duration::from_millis(ms));
    }
    if let Some(bytes) = target.max_message_bytes {
        config = config.with_max_message_size(bytes);
    }
    if let Some(lifecycle) = target.lifecycle {
        config = config.with_lifecycle(lifecycle.into());
    }
    Ok((config, options.consequential_policy()?))
}

/// The library's "which server?" error of a manifest that pins several, as
/// [`CliError::ServerNotChosen`] naming `--server`; other errors unchanged.
fn server_hint(error: oma_mcp_build::Error) -> CliError {
    match error {
        oma_mcp_build::Error::ServerNotChosen { path, available } if !available.is_empty() => {
            CliError::ServerNotChosen {
                manifest: path,
                available,
            }
        }
        other => CliError::Build(other),
    }
}

/// The server of `manifest` whose `prefix` the framework name `tool` carries.
///
/// # Errors
/// [`CliError::AmbiguousTool`] when several prefixes match (`a` and `a_b` for `a_b_c`);
/// the manifest's "which server?" error when none does.
fn by_prefix<'m>(manifest: &'m Manifest, tool: &str) -> Result<&'m ServerPin, CliError> {
    let carried: Vec<&ServerPin> = manifest
        .servers
        .values()
        .filter(|pin| {
            pin.prefix
                .as_deref()
                .and_then(|p| tool.strip_prefix(p))
                .is_some_and(|rest| rest.starts_with('_'))
        })
        .collect();
    match carried.as_slice() {
        [one] => Ok(one),
        [] => Ok(manifest.single(None).map_err(server_hint)?),
        several => Err(CliError::AmbiguousTool {
            tool: tool.to_owned(),
            manifest: manifest.path.clone(),
            servers: several
                .iter()
                .map(|pin| {
                    format!(
                        "{} (prefix {})",
                        pin.name,
                        pin.prefix.as_deref().unwrap_or("")
                    )
                })
                .collect(),
        }),
    }
}

/// The CLI's `clientInfo`: `oma-mcp` and its version (the library's default is the
/// reference contract's `open-multi-agent` `0.0.0`), unless the manifest's pin sets
/// `client-name` / `client-version`.
pub(crate) fn cli_client(config: ConnectConfig, pin: Option<&ServerPin>) -> ConnectConfig {
    let mut config = config;
    if pin.is_none_or(|p| p.client_name.is_none()) {
        config = config.with_client_name("oma-mcp");
    }
    if pin.is_none_or(|p| p.client_version.is_none()) {
        config = config.with_client_version(env!("CARGO_PKG_VERSION"));
    }
    config
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
