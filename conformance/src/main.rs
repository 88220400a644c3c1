//! `oma-mcp-conformance-client`: the MCP client that the official conformance suite (npm
//! `@modelcontextprotocol/conformance`) starts against each of its mock servers, built on
//! `oma-mcp-runtime`'s streamable HTTP transport. `scripts/conformance` installs the pinned
//! suite, builds this binary and runs every client scenario of protocol revisions 2025-06-18,
//! 2025-11-25 and 2026-07-28.
//!
//! The suite runs `oma-mcp-conformance-client <server-url>` (the URL is the last argument) with:
//!
//! - `MCP_CONFORMANCE_SCENARIO`: the scenario, which decides what this client does after it
//!   connected (which tool it calls, with which arguments);
//! - `MCP_CONFORMANCE_PROTOCOL_VERSION`: the protocol revision of the run; 2026-07-28 and later
//!   connect with the `server/discover` lifecycle ([`Lifecycle::Discover`]), earlier ones with
//!   `initialize` ([`Lifecycle::Initialize`]). Default `2025-11-25`, as the suite's;
//! - `MCP_CONFORMANCE_CONTEXT`: JSON with data for the scenario (`http-custom-headers` passes
//!   the tool calls to make, `auth/pre-registration` the pre-registered `client_id` and
//!   `client_secret`).
//!
//! In the `auth/…` scenarios the client connects with the runtime's OAuth client (cargo
//! feature `oauth`): the authorization code grant, the identity of the context when it has
//! one, the suite's Client ID Metadata Document URL where the server supports it, dynamic
//! client registration otherwise, and [`FollowRedirect`] as the user's approval (the suite's
//! mock authorization server redirects at once). It then calls every listed tool, as the
//! scope scenarios need.
//!
//! The suite judges the client by what its mock server receives. This program only does what a
//! scenario asks for, through the runtime's public API, so that every check measures the
//! runtime: it never shapes a request itself. As an application would, it answers elicitation
//! requests (with [`accept_defaults`], whether they come as server requests or inside an
//! `input_required` result, SEP-2322) and drives the `input_required` rounds with
//! [`ToolCall::outcome`](oma_mcp_runtime::ToolCall::outcome) and
//! [`ToolCall::answering`](oma_mcp_runtime::ToolCall::answering). It logs each step on
//! stderr (the suite keeps it in `stderr.txt` beside `checks.json`) and exits 0 when every step
//! succeeded, 1 when one failed (a connect or call error, an `isError` result, a task result, an
//! input request it cannot answer) and 2 on a usage error (no URL, no or unknown scenario, bad
//! JSON context). The runtime's log goes to stderr too: warnings by default, more with a
//! `tracing` filter in `OMA_MCP_LOG` (`OMA_MCP_LOG=debug`), which the suite passes through.

use std::process::ExitCode;
use std::time::Duration;

use oma_mcp_runtime::connect::{
    Authorizer, Elicitation, OAuthConfig, OAuthGrant, Secret, TokenSource, accept_defaults,
};
use oma_mcp_runtime::oauth::{FollowRedirect, OAuthClient};
use oma_mcp_runtime::{
    CallOutcome, ConnectConfig, Lifecycle, McpClient, Validator, connect_mcp_tools,
};
use serde_json::{Map, Value, json};

/// The `clientInfo.name` this client reports.
const CLIENT_NAME: &str = "oma-mcp-conformance-client";

/// The first protocol revision without the `initialize` handshake (`server/discover` and
/// per-request `_meta` instead).
const FIRST_DISCOVER_REVISION: &str = "2026-07-28";

/// The revision assumed when `MCP_CONFORMANCE_PROTOCOL_VERSION` is not set: the one the suite
/// sets for a scenario introduced before 2026-07-28 when it is run without `--spec-version`.
const DEFAULT_REVISION: &str = "2025-11-25";

/// Bounds the lifecycle, each `tools/list` page and each `tools/call`: well below the suite's
/// 30 s limit for the whole client, so a request that hangs is reported here, with the request
/// named, instead of the suite killing the process.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// The Client ID Metadata Document URL the suite's `auth/basic-cimd` scenario expects as the
/// client id.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The redirect URI registered in the `auth/…` scenarios (read from the authorization server's
/// `Location`, never listened on).
const REDIRECT_URI: &str = "http://localhost:3000/callback";

/// The most `input_required` rounds answered for one call (SEP-2322) before giving up.
const MAX_INPUT_ROUNDS: usize = 16;

const USAGE: &str = "usage: MCP_CONFORMANCE_SCENARIO=<scenario> \
[MCP_CONFORMANCE_PROTOCOL_VERSION=<revision>] [MCP_CONFORMANCE_CONTEXT=<json>] \
oma-mcp-conformance-client <server-url>";

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    init_logging();
    let invocation = match Invocation::read(&args) {
        Ok(invocation) => invocation,
        Err(message) => {
            eprintln!("{CLIENT_NAME}: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    log(format!(
        "scenario `{}`, protocol revision {} ({:?} lifecycle), server {}",
        invocation.scenario.name(),
        invocation.revision,
        invocation.lifecycle,
        invocation.url
    ));
    match run(&invocation).await {
        Ok(()) => {
            log("every step succeeded");
            ExitCode::SUCCESS
        }
        Err(message) => {
            log(format!("failed: {message}"));
            ExitCode::FAILURE
        }
    }
}

/// A tool's MCP name and the arguments to call it with.
type ToolCall = (String, Map<String, Value>);

/// What the suite asked for, from the arguments and the environment.
#[derive(Debug)]
struct Invocation {
    url: String,
    scenario: Scenario,
    revision: String,
    lifecycle: Lifecycle,
    /// `MCP_CONFORMANCE_CONTEXT`, parsed.
    context: Option<Value>,
}

impl Invocation {
    fn read(args: &[String]) -> Result<Self, String> {
        let url = args
            .last()
            .cloned()
            .ok_or("no server URL (the last argument)")?;
        let name = env("MCP_CONFORMANCE_SCENARIO")?.ok_or("MCP_CONFORMANCE_SCENARIO is not set")?;
        let scenario = Scenario::from_name(&name)?;
        let revision =
            env("MCP_CONFORMANCE_PROTOCOL_VERSION")?.unwrap_or_else(|| DEFAULT_REVISION.to_owned());
        let lifecycle = lifecycle_for(&revision)?;
        let context = match env("MCP_CONFORMANCE_CONTEXT")? {
            Some(text) => Some(
                serde_json::from_str(&text)
                    .map_err(|e| format!("MCP_CONFORMANCE_CONTEXT is not JSON: {e}"))?,
            ),
            None => None,
        };
        Ok(Self {
            url,
            scenario,
            revision,
            lifecycle,
            context,
        })
    }
}

/// The variable's value; `None` when unset or empty.
fn env(name: &str) -> Result<Option<String>, String> {
    match std::env::var(name) {
        Ok(value) if value.is_empty() => Ok(None),
        Ok(value) => Ok(Some(value)),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => Err(format!("{name} is not UTF-8")),
    }
}

/// The lifecycle of a protocol revision (`YYYY-MM-DD`, so dates compare as text): the
/// `server/discover` lifecycle from 2026-07-28 on, `initialize` before.
fn lifecycle_for(revision: &str) -> Result<Lifecycle, String> {
    let is_date = revision.len() == 10
        && revision.char_indices().all(|(i, c)| {
            if i == 4 || i == 7 {
                c == '-'
            } else {
                c.is_ascii_digit()
            }
        });
    if !is_date {
        return Err(format!(
            "MCP_CONFORMANCE_PROTOCOL_VERSION `{revision}` is not a protocol revision (YYYY-MM-DD)"
        ));
    }
    Ok(if revision >= FIRST_DISCOVER_REVISION {
        Lifecycle::Discover
    } else {
        Lifecycle::Initialize
    })
}

/// The client scenarios of the suite (0.2.0-alpha.12) for revisions 2025-06-18, 2025-11-25 and
/// 2026-07-28, and what this client does in each after connecting.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Scenario {
    /// `initialize`: the handshake and `tools/list`, nothing more.
    Initialize,
    /// `tools_call`: `add_numbers` with `{"a": 2, "b": 3}`.
    ToolsCall,
    /// `elicitation-sep1034-client-defaults`: `test_client_elicitation_defaults`, which makes
    /// the server send `elicitation/create`; the client must accept it with the schema's defaults.
    ElicitationDefaults,
    /// `sse-retry`: `test_reconnection`, whose response stream the server ends before the
    /// result; the result comes on the resumed stream (`Last-Event-ID`).
    SseRetry,
    /// `request-metadata`: `server/discover` (first rejected with -32022) and `tools/list`,
    /// each with the client context in `_meta` and the `MCP-Protocol-Version` header.
    RequestMetadata,
    /// `sep-2322-client-request-state`: the four MRTR tools; two answer with an
    /// `input_required` round, answered through the runtime (exact `requestState`, new id).
    RequestState,
    /// `http-standard-headers`: every listed tool with `{}` (`Mcp-Method`, `Mcp-Name`).
    StandardHeaders,
    /// `http-custom-headers`: the tool calls of `MCP_CONFORMANCE_CONTEXT` (`Mcp-Param-*`).
    CustomHeaders,
    /// `http-invalid-tool-headers`: every tool the runtime kept, with arguments made from the
    /// required properties' types (tools with an invalid `x-mcp-header` must not be among them).
    InvalidToolHeaders,
    /// `json-schema-ref-no-deref`: compiles `lookup_user`'s input schema, whose network `$ref`
    /// must never be fetched.
    RefNoDeref,
    /// `json-schema-2020-12-preservation`: echoes `json_schema_2020_12_tool`'s input schema, as
    /// listed, to `json_schema_echo`.
    SchemaPreservation,
    /// `auth/…`: an OAuth scenario: connect with OAuth and call every listed tool (with
    /// [`required_arguments`]). In `auth/scope-retry-limit`, whose server refuses every scope,
    /// the calls must fail with the runtime's authorization error.
    OAuth(String),
}

impl Scenario {
    fn from_name(name: &str) -> Result<Self, String> {
        Ok(match name {
            "initialize" => Self::Initialize,
            "tools_call" => Self::ToolsCall,
            "elicitation-sep1034-client-defaults" => Self::ElicitationDefaults,
            "sse-retry" => Self::SseRetry,
            "request-metadata" => Self::RequestMetadata,
            "sep-2322-client-request-state" => Self::RequestState,
            "http-standard-headers" => Self::StandardHeaders,
            "http-custom-headers" => Self::CustomHeaders,
            "http-invalid-tool-headers" => Self::InvalidToolHeaders,
            "json-schema-ref-no-deref" => Self::RefNoDeref,
            "json-schema-2020-12-preservation" => Self::SchemaPreservation,
            _ if name.starts_with("auth/") => Self::OAuth(name.to_owned()),
            _ => return Err(format!("unknown scenario `{name}`")),
        })
    }

    fn name(&self) -> &str {
        match self {
            Self::Initialize => "initialize",
            Self::ToolsCall => "tools_call",
            Self::ElicitationDefaults => "elicitation-sep1034-client-defaults",
            Self::SseRetry => "sse-retry",
            Self::RequestMetadata => "request-metadata",
            Self::RequestState => "sep-2322-client-request-state",
            Self::StandardHeaders => "http-standard-headers",
            Self::CustomHeaders => "http-custom-headers",
            Self::InvalidToolHeaders => "http-invalid-tool-headers",
            Self::RefNoDeref => "json-schema-ref-no-deref",
            Self::SchemaPreservation => "json-schema-2020-12-preservation",
            Self::OAuth(name) => name,
        }
    }
}

/// Connects, does what the scenario asks for, and disconnects (also after a failed step).
async fn run(invocation: &Invocation) -> Result<(), String> {
    // Every elicitation is accepted with the requested schema's defaults (SEP-1034): what the
    // `elicitation-sep1034-client-defaults` scenario checks, and an answer to the input requests
    // of `sep-2322-client-request-state`.
    let mut config = ConnectConfig::http(invocation.url.clone())
        .with_lifecycle(invocation.lifecycle)
        .with_client_name(CLIENT_NAME)
        .with_client_version(env!("CARGO_PKG_VERSION"))
        .with_request_timeout(REQUEST_TIMEOUT)
        .with_elicitation(elicitation());
    if let Scenario::OAuth(_) = invocation.scenario {
        // The runtime's OAuth client without a credential store: nothing is written to the
        // user's credential directory.
        let client = OAuthClient::new(
            &invocation.url,
            &oauth(invocation.scenario.name(), invocation.context.as_ref()),
            CLIENT_NAME,
        )
        .map_err(|e| format!("the OAuth settings are wrong: {e}"))?;
        config = config.with_token_provider(TokenSource::new(client));
    }
    let client = connect_mcp_tools(config)
        .await
        .map_err(|e| format!("connect failed: {}", e.chain()))?;
    log(format!(
        "connected: protocol version {}, tools [{}]",
        client.protocol_version(),
        client
            .tools()
            .iter()
            .map(|t| t.mcp_name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    ));
    let outcome = exercise(&client, invocation).await;
    client.disconnect().await;
    outcome
}

async fn exercise(client: &McpClient, invocation: &Invocation) -> Result<(), String> {
    match &invocation.scenario {
        // Connecting did everything these scenarios look at.
        Scenario::Initialize | Scenario::RequestMetadata => Ok(()),
        Scenario::OAuth(name) => {
            let refused_every_scope = name == "auth/scope-retry-limit";
            for tool in client.tools() {
                let arguments = required_arguments(tool.descriptor.get("inputSchema"));
                match call(client, &tool.mcp_name, arguments).await {
                    Err(e) if refused_every_scope && e.contains("OAuth authorization") => {
                        log(format!("gave up as the scenario expects: {e}"));
                    }
                    Err(e) => return Err(e),
                    Ok(_) if refused_every_scope => {
                        return Err(format!(
                            "`{}` succeeded although the server refuses every scope",
                            tool.mcp_name
                        ));
                    }
                    Ok(_) => {}
                }
            }
            Ok(())
        }
        Scenario::ToolsCall => {
            call(client, "add_numbers", object(json!({"a": 2, "b": 3}))).await?;
            Ok(())
        }
        Scenario::ElicitationDefaults => {
            call(client, "test_client_elicitation_defaults", Map::new()).await?;
            Ok(())
        }
        Scenario::SseRetry => {
            call(client, "test_reconnection", Map::new()).await?;
            Ok(())
        }
        Scenario::RequestState => {
            // The unrelated call comes right after the first MRTR tool, so that state leaking
            // from its rounds into another request would show.
            for tool in [
                "test_mrtr_echo_state",
                "test_mrtr_unrelated",
                "test_mrtr_no_state",
                "test_mrtr_no_result_type",
            ] {
                call(client, tool, Map::new()).await?;
            }
            Ok(())
        }
        Scenario::StandardHeaders => {
            let names: Vec<String> = client.tools().iter().map(|t| t.mcp_name.clone()).collect();
            if names.is_empty() {
                return Err("the server listed no tools".to_owned());
            }
            for name in names {
                call(client, &name, Map::new()).await?;
            }
            Ok(())
        }
        Scenario::CustomHeaders => {
            for (name, arguments) in context_tool_calls(invocation.context.as_ref())? {
                call(client, &name, arguments).await?;
            }
            Ok(())
        }
        Scenario::InvalidToolHeaders => {
            let tools: Vec<ToolCall> = client
                .tools()
                .iter()
                .map(|t| {
                    let arguments = required_arguments(t.descriptor.get("inputSchema"));
                    (t.mcp_name.clone(), arguments)
                })
                .collect();
            if tools.is_empty() {
                return Err("the runtime kept no tool (the server lists a valid one)".to_owned());
            }
            for (name, arguments) in tools {
                call(client, &name, arguments).await?;
            }
            Ok(())
        }
        Scenario::RefNoDeref => {
            let schema = input_schema(client, "lookup_user")?;
            // The validator is built offline: a `$ref` to a network URI must make it fail to
            // compile, never make it fetch the URI (the suite watches the URI).
            match Validator::new("lookup_user", &schema) {
                Ok(validator) => {
                    let verdict = match validator.validate(&json!({"id": "user-1"})) {
                        Ok(()) => "valid".to_owned(),
                        Err(problems) => format!("{} problem(s)", problems.len()),
                    };
                    log(format!(
                        "compiled lookup_user's input schema; {{\"id\": \"user-1\"}} is {verdict}"
                    ));
                }
                Err(e) => log(format!(
                    "lookup_user's input schema does not compile offline: {}",
                    e.chain()
                )),
            }
            Ok(())
        }
        Scenario::SchemaPreservation => {
            let schema = input_schema(client, "json_schema_2020_12_tool")?;
            call(
                client,
                "json_schema_echo",
                object(json!({ "schema": schema })),
            )
            .await?;
            Ok(())
        }
    }
}

/// The OAuth settings of the `auth/…` scenarios: the context's pre-registered `client_id` and
/// `client_secret` when it has them, the suite's Client ID Metadata Document URL, and the
/// authorization server's redirect read without a browser; in `auth/client-credentials-…`,
/// the client credentials grant with the context's secret or private key
/// (`private_key_pem`, `signing_algorithm`).
fn oauth(scenario: &str, context: Option<&Value>) -> OAuthConfig {
    let field = |name: &str| {
        context
            .and_then(|c| c.get(name))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let mut oauth = OAuthConfig::authorization_code()
        .with_client_metadata_url(CLIENT_METADATA_URL)
        .with_authorizer(Authorizer::new(FollowRedirect::new(REDIRECT_URI)));
    if scenario.starts_with("auth/client-credentials-") {
        oauth = oauth.with_grant(OAuthGrant::ClientCredentials);
        if let Some(key) = field("private_key_pem") {
            oauth = oauth.with_private_key(Secret::new(key), field("signing_algorithm").as_deref());
        }
    }
    if let Some(id) = field("client_id") {
        oauth = oauth.with_client_id(id);
    }
    if let Some(secret) = field("client_secret") {
        oauth = oauth.with_client_secret(Secret::new(secret));
    }
    oauth
}

/// The elicitation handler: accepts with the requested schema's defaults.
fn elicitation() -> Elicitation {
    Elicitation::new(|params| {
        let answer = accept_defaults(params);
        log(format!("elicitation/create {params} -> {answer}"));
        answer
    })
}

/// Calls `tool` (it must have been listed) and returns its final result, answering every
/// `input_required` round (SEP-2322) on the way; a call error, an `isError` or task result, or
/// an input request other than `elicitation/create` is an error.
async fn call(
    client: &McpClient,
    tool: &str,
    arguments: Map<String, Value>,
) -> Result<Value, String> {
    if !client.tools().iter().any(|t| t.mcp_name == tool) {
        return Err(format!("the server did not list the tool `{tool}`"));
    }
    log(format!(
        "tools/call `{tool}` {}",
        Value::Object(arguments.clone())
    ));
    let failed = |e: oma_mcp_runtime::Error| format!("tools/call `{tool}` failed: {}", e.chain());
    let mut outcome = client
        .call_tool(tool)
        .arguments(arguments.clone())
        .outcome()
        .await
        .map_err(failed)?;
    let mut rounds = 0;
    let result = loop {
        match outcome {
            CallOutcome::Complete(result) => break result,
            CallOutcome::InputRequired(required) => {
                rounds += 1;
                if rounds > MAX_INPUT_ROUNDS {
                    return Err(format!(
                        "`{tool}` still asks for input after {MAX_INPUT_ROUNDS} rounds"
                    ));
                }
                log(format!("`{tool}` needs input: {}", required.result));
                let responses = answer_input_requests(&required.input_requests)
                    .map_err(|e| format!("`{tool}`: {e}"))?;
                outcome = client
                    .call_tool(tool)
                    .arguments(arguments.clone())
                    .answering(&required, responses)
                    .outcome()
                    .await
                    .map_err(failed)?;
            }
            CallOutcome::Task(result) => {
                return Err(format!(
                    "`{tool}` answered with a task, which this client does not poll: {result}"
                ));
            }
            other => return Err(format!("`{tool}` answered with {other:?}")),
        }
    };
    log(format!("result of `{tool}`: {result}"));
    if result.get("isError") == Some(&Value::Bool(true)) {
        return Err(format!("`{tool}` returned an error result"));
    }
    Ok(result)
}

/// `inputResponses` for an `input_required` result's `inputRequests` (name → `{"method", "params"}`):
/// each `elicitation/create` answered by the [`elicitation`] handler.
fn answer_input_requests(requests: &Map<String, Value>) -> Result<Map<String, Value>, String> {
    let handler = elicitation();
    requests
        .iter()
        .map(
            |(name, request)| match request.get("method").and_then(Value::as_str) {
                Some("elicitation/create") => {
                    let params = request.get("params").cloned().unwrap_or(Value::Null);
                    Ok((name.clone(), handler.answer(&params)))
                }
                method => Err(format!(
                    "the input request `{name}` is `{}`, which this client does not answer",
                    method.unwrap_or("(no method)")
                )),
            },
        )
        .collect()
}

/// The `inputSchema` of the listed tool `tool`, exactly as the server sent it.
fn input_schema(client: &McpClient, tool: &str) -> Result<Value, String> {
    client
        .tools()
        .iter()
        .find(|t| t.mcp_name == tool)
        .and_then(|t| t.descriptor.get("inputSchema"))
        .cloned()
        .ok_or_else(|| format!("the server did not list the tool `{tool}` with an inputSchema"))
}

/// The tool calls `http-custom-headers` passes in its context:
/// `{"toolCalls": [{"name": …, "arguments": {…}}, …]}`, arguments kept as they are (also
/// `null` values, whose header the runtime must omit).
fn context_tool_calls(context: Option<&Value>) -> Result<Vec<ToolCall>, String> {
    let calls = context
        .and_then(|c| c.get("toolCalls"))
        .and_then(Value::as_array)
        .ok_or("MCP_CONFORMANCE_CONTEXT has no `toolCalls` array")?;
    calls
        .iter()
        .map(|c| {
            let name = c
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("a tool call of the context has no `name`: {c}"))?;
            let arguments = match c.get("arguments") {
                Some(Value::Object(arguments)) => arguments.clone(),
                None => Map::new(),
                Some(other) => {
                    return Err(format!(
                        "the arguments of `{name}` are not an object: {other}"
                    ));
                }
            };
            Ok((name.to_owned(), arguments))
        })
        .collect()
}

/// Arguments for a tool from its input schema: a value of the declared type for every
/// required top-level property (`"conformance"`, `1`, `true`, `{}`, `[]`, `null`; a string when
/// the type is not one of those).
fn required_arguments(schema: Option<&Value>) -> Map<String, Value> {
    let Some(schema) = schema else {
        return Map::new();
    };
    let properties = schema.get("properties").and_then(Value::as_object);
    schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|name| {
            let kind = properties
                .and_then(|p| p.get(name))
                .and_then(|p| p.get("type"))
                .and_then(Value::as_str);
            let value = match kind {
                Some("integer" | "number") => json!(1),
                Some("boolean") => json!(true),
                Some("object") => json!({}),
                Some("array") => json!([]),
                Some("null") => Value::Null,
                _ => json!("conformance"),
            };
            (name.to_owned(), value)
        })
        .collect()
}

/// The object inside `value` (`json!` literals of objects only).
fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// The runtime's `tracing` events on stderr: filter `OMA_MCP_LOG`, default `warn` (e.g. the
/// tools left out for an invalid `x-mcp-header`).
fn init_logging() {
    let filter = std::env::var("OMA_MCP_LOG").ok();
    let filter = filter
        .as_deref()
        .and_then(|text| match tracing_subscriber::EnvFilter::try_new(text) {
            Ok(filter) => Some(filter),
            Err(e) => {
                log(format!(
                    "OMA_MCP_LOG={text:?} is not a tracing filter ({e}); logging warnings only"
                ));
                None
            }
        })
        .unwrap_or_else(|| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .without_time()
        .try_init();
}

fn log(message: impl std::fmt::Display) {
    eprintln!("{CLIENT_NAME}: {message}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_the_lifecycle_from_the_revision() {
        assert_eq!(lifecycle_for("2025-06-18"), Ok(Lifecycle::Initialize));
        assert_eq!(lifecycle_for("2025-11-25"), Ok(Lifecycle::Initialize));
        assert_eq!(lifecycle_for("2026-07-28"), Ok(Lifecycle::Discover));
        assert_eq!(lifecycle_for("2027-01-01"), Ok(Lifecycle::Discover));
        assert!(lifecycle_for("draft").is_err());
        assert!(lifecycle_for("2026-7-28").is_err());
    }

    #[test]
    fn knows_every_non_oauth_scenario_by_name() {
        for name in [
            "initialize",
            "tools_call",
            "elicitation-sep1034-client-defaults",
            "sse-retry",
            "request-metadata",
            "sep-2322-client-request-state",
            "http-standard-headers",
            "http-custom-headers",
            "http-invalid-tool-headers",
            "json-schema-ref-no-deref",
            "json-schema-2020-12-preservation",
            "auth/metadata-default",
        ] {
            let scenario = Scenario::from_name(name).unwrap();
            assert_eq!(scenario.name(), name);
        }
        assert!(Scenario::from_name("tools-call").is_err());
    }

    #[test]
    fn reads_the_tool_calls_of_the_context() {
        let context = json!({"name": "http-custom-headers", "toolCalls": [
            {"name": "a", "arguments": {"region": "us-west1", "verbose": null}},
            {"name": "b"}
        ]});
        let calls = context_tool_calls(Some(&context)).unwrap();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].0, "a");
        assert_eq!(calls[0].1.get("verbose"), Some(&Value::Null));
        assert!(calls[1].1.is_empty());
        assert!(context_tool_calls(None).is_err());
        assert!(context_tool_calls(Some(&json!({"toolCalls": [{"arguments": {}}]}))).is_err());
    }

    #[test]
    fn answers_elicitation_input_requests_with_defaults() {
        let requests = object(json!({
            "confirm": {"method": "elicitation/create", "params": {"message": "?",
                "requestedSchema": {"type": "object", "properties": {
                    "confirmed": {"type": "boolean"},
                    "name": {"type": "string", "default": "John Doe"}}}}}
        }));
        assert_eq!(
            Value::Object(answer_input_requests(&requests).unwrap()),
            json!({"confirm": {"action": "accept", "content": {"name": "John Doe"}}})
        );
        let sampling = object(json!({"s": {"method": "sampling/createMessage", "params": {}}}));
        assert!(answer_input_requests(&sampling).is_err());
    }

    #[test]
    fn makes_arguments_for_required_properties() {
        let schema = json!({
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "n": {"type": "integer"},
                "data": {"type": "object"},
                "optional": {"type": "string"}
            },
            "required": ["region", "n", "data", "untyped"]
        });
        let args = required_arguments(Some(&schema));
        assert_eq!(
            Value::Object(args),
            json!({"region": "conformance", "n": 1, "data": {}, "untyped": "conformance"})
        );
        assert!(required_arguments(None).is_empty());
    }
}
