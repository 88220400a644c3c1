//! The fake's MCP server side, without I/O: one JSON-RPC message in, the answer out.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{Value, json};

use super::offers::{Offers, Refused};
use super::{FakeCall, FakeRpcError, lock};
use crate::McpClient;
use crate::cassette::{Cassette, RecordedAnswer, Redaction};
use crate::quote::{excerpt, quoted};
use crate::snapshot::{ItemKind, Snapshot, SnapshotTool};
use crate::validate::{Problem, Validator};

/// A registered handler: validated `arguments` in, the `CallToolResult` (or why there is
/// none) out.
pub(super) type Handler = Arc<dyn Fn(Value) -> Result<Value, String> + Send + Sync>;

/// The fake's answer to one `tools/call`.
enum Answer {
    /// A `CallToolResult`.
    Result(Value),
    /// A JSON-RPC error the server sent (recorded, or forwarded).
    Error(FakeRpcError),
    /// A JSON-RPC error for a call the fake cannot answer as the server would (kept as a
    /// problem).
    Problem(i64, String),
}

/// What the transport does with one message.
pub(super) enum Handled {
    /// `200` with this JSON-RPC answer.
    Answer(Value),
    /// `202 Accepted`, no body.
    Accepted,
    /// `400 Bad Request` with this JSON-RPC error.
    Invalid(Value),
}

/// Who answers a call no handler takes.
pub(super) enum Fallback {
    /// Nobody: the call is a problem.
    None,
    /// A cassette: the recorded answer to the same tool and arguments.
    Replay {
        /// The cassette.
        cassette: Cassette,
        /// Its file, for messages.
        file: String,
        /// The indices of the recorded calls replayed so far.
        replayed: Mutex<std::collections::BTreeSet<usize>>,
    },
    /// The real server: the call is forwarded and recorded.
    Record {
        /// The connection to the real server.
        client: Arc<McpClient>,
        /// What was recorded so far.
        cassette: Mutex<Cassette>,
        /// Where the cassette is written after each recorded call, if anywhere.
        autosave: Mutex<Option<std::path::PathBuf>>,
    },
}

/// The revision the fake speaks in `initialize` when the client asks for one it does not know
/// and the snapshot's has no `initialize`.
const FALLBACK_REVISION: &str = "2025-11-25";

/// The revisions with the `initialize` handshake that the fake accepts as asked.
const REVISIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// The most recorded calls (or tools) a message lists.
const LISTED: usize = 5;

/// The `_meta` key of `serverInfo` in a `server/discover` result (MCP 2026-07-28).
const SERVER_INFO_META_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// One tool of the snapshot and its schemas, compiled on first use.
struct FakeTool {
    tool: SnapshotTool,
    input: OnceLock<Option<Validator>>,
    output: OnceLock<Option<Validator>>,
}

impl FakeTool {
    fn input(&self) -> Option<&Validator> {
        self.input
            .get_or_init(|| compile(self.tool.name(), self.tool.input_schema()))
            .as_ref()
    }

    fn output(&self) -> Option<&Validator> {
        self.output
            .get_or_init(|| compile(self.tool.name(), self.tool.output_schema()))
            .as_ref()
    }
}

/// A schema that is a JSON object and compiles; anything else validates nothing (as the
/// client's own validation, [`crate::validate`]).
fn compile(tool: &str, schema: Option<&Value>) -> Option<Validator> {
    let schema = schema.filter(|s| s.is_object())?;
    Validator::new(tool, schema).ok()
}

/// What the fake serves and what it saw.
pub(super) struct State {
    snapshot: Snapshot,
    tools: BTreeMap<String, FakeTool>,
    handlers: Mutex<BTreeMap<String, Handler>>,
    pub(super) fallback: Mutex<Arc<Fallback>>,
    calls: Mutex<Vec<FakeCall>>,
    /// Every problem, in arrival order: calls' and the transport's.
    problems: Mutex<Vec<String>>,
    /// What answers `prompts/get` and `resources/read`.
    pub(super) offers: Offers,
}

impl State {
    pub(super) fn new(snapshot: Snapshot) -> Self {
        let tools = snapshot
            .tools
            .iter()
            .map(|tool| {
                let fake = FakeTool {
                    tool: tool.clone(),
                    input: OnceLock::new(),
                    output: OnceLock::new(),
                };
                (tool.name().to_owned(), fake)
            })
            .collect();
        Self {
            snapshot,
            tools,
            handlers: Mutex::new(BTreeMap::new()),
            fallback: Mutex::new(Arc::new(Fallback::None)),
            calls: Mutex::new(Vec::new()),
            problems: Mutex::new(Vec::new()),
            offers: Offers::default(),
        }
    }

    /// The `serverInfo.name` of the snapshot, quoted, or `the server` when it has none.
    pub(super) fn server_name(&self) -> String {
        self.snapshot
            .server_info
            .as_ref()
            .and_then(|info| info.get("name"))
            .and_then(Value::as_str)
            .map_or_else(|| "the server".to_owned(), quoted)
    }

    /// The redaction of the cassette replayed or recorded, or the default one: what no
    /// message of the fake quotes.
    fn redaction(&self) -> Redaction {
        match &**lock(&self.fallback) {
            Fallback::Replay { cassette, .. } => cassette.redaction.clone(),
            Fallback::Record { cassette, .. } => lock(cassette).redaction.clone(),
            Fallback::None => Redaction::default(),
        }
    }

    /// The snapshot served.
    pub(super) fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    /// The snapshot's digest of tool `name`.
    pub(super) fn digest(&self, name: &str) -> Option<String> {
        self.tools.get(name).map(|t| t.tool.digest.clone())
    }

    pub(super) fn set_handler(&self, name: &str, handler: Handler) {
        lock(&self.handlers).insert(name.to_owned(), handler);
    }

    pub(super) fn calls(&self) -> Vec<FakeCall> {
        lock(&self.calls).clone()
    }

    pub(super) fn problems(&self) -> Vec<String> {
        lock(&self.problems).clone()
    }

    /// Keeps `problem`: something the fake saw that the server would have refused.
    pub(super) fn problem(&self, problem: String) {
        lock(&self.problems).push(problem);
    }

    /// Whether the fake speaks the revision `version` (in an `MCP-Protocol-Version` header).
    pub(super) fn speaks(&self, version: &str) -> bool {
        REVISIONS.contains(&version) || self.discover_revision() == Some(version)
    }

    /// The revisions the fake speaks, oldest first.
    pub(super) fn revisions(&self) -> Vec<&str> {
        REVISIONS
            .iter()
            .copied()
            .chain(self.discover_revision())
            .collect()
    }

    /// What one message `POST`ed to the fake gets (MCP 2025-11-25, "Streamable HTTP"):
    /// a request its answer; a notification or a response `202 Accepted`; anything else
    /// (a batch, which MCP 2025-06-18 removed, a value that is no JSON-RPC message or whose
    /// `jsonrpc` is not `"2.0"`, a request whose `id` is no string or integer) a `-32600`
    /// error with `400 Bad Request`.
    pub(super) async fn handle(&self, message: &Value) -> Handled {
        let invalid = |id: &Value, why: &str| {
            Handled::Invalid(json!({"jsonrpc": "2.0", "id": id, "error": {
                "code": -32600, "message": format!("Invalid Request: {why}")
            }}))
        };
        let Value::Object(object) = message else {
            return invalid(
                &Value::Null,
                if message.is_array() {
                    "JSON-RPC batches are not supported (MCP 2025-06-18 removed them): send one \
                     message at a time"
                } else {
                    "the body is no JSON-RPC message object"
                },
            );
        };
        if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return invalid(
                object.get("id").unwrap_or(&Value::Null),
                "`jsonrpc` must be \"2.0\"",
            );
        }
        let Some(method) = object.get("method") else {
            if object.contains_key("result") || object.contains_key("error") {
                return Handled::Accepted;
            }
            return invalid(
                object.get("id").unwrap_or(&Value::Null),
                "no `method`, and no `result` or `error`",
            );
        };
        let Some(method) = method.as_str() else {
            return invalid(
                object.get("id").unwrap_or(&Value::Null),
                "`method` is not a string",
            );
        };
        let Some(id) = object.get("id") else {
            return Handled::Accepted;
        };
        if !(id.is_string() || id.is_i64() || id.is_u64()) {
            return invalid(
                &Value::Null,
                "a request `id` must be a string or an integer",
            );
        }
        let params = object.get("params").cloned().unwrap_or(Value::Null);
        let outcome = match method {
            "initialize" => Ok(self.initialize(&params)),
            "server/discover" => self.discover(),
            "ping" => Ok(json!({})),
            "tools/list" => Ok(json!({
                "tools": self.snapshot.tools.iter().map(|t| &t.descriptor).collect::<Vec<_>>()
            })),
            "prompts/list" => self.list(ItemKind::Prompt),
            "resources/list" => self.list(ItemKind::Resource),
            "resources/templates/list" => self.list(ItemKind::ResourceTemplate),
            "tools/call" => self.call(&params).await,
            "prompts/get" => self.offered(self.offers.get_prompt(&self.snapshot, &params)),
            "resources/read" => self.offered(self.offers.read(&self.snapshot, &params)),
            other => Err(FakeRpcError::new(
                -32601,
                format!("Method not found: {other}"),
            )),
        };
        Handled::Answer(match outcome {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error.to_json()}),
        })
    }

    /// The answer to a `prompts/get` or `resources/read`; a refusal for want of a handler is
    /// also a problem of the test.
    fn offered(&self, outcome: Result<Value, Refused>) -> Result<Value, FakeRpcError> {
        outcome.map_err(|refused| {
            if refused.problem {
                self.problem(refused.error.message.clone());
            }
            refused.error
        })
    }

    /// A list the snapshot pins, in one page; "Method not found" for one it does not pin.
    fn list(&self, kind: ItemKind) -> Result<Value, FakeRpcError> {
        if !self.snapshot.pins(kind.pin()) {
            return Err(FakeRpcError::new(
                -32601,
                format!("Method not found: {}", kind.method()),
            ));
        }
        let items: Vec<&Value> = self
            .snapshot
            .items(kind)
            .iter()
            .map(|i| &i.descriptor)
            .collect();
        Ok(json!({ kind.result_member(): items }))
    }

    /// The snapshot's capabilities, or (for a snapshot that records none) tools alone.
    fn capabilities(&self) -> Value {
        self.snapshot
            .capabilities
            .clone()
            .unwrap_or_else(|| json!({"tools": {"listChanged": false}}))
    }

    /// The lifecycle result's members beside the version: capabilities, `instructions` when
    /// the snapshot pins them.
    fn announce(&self, mut result: Value) -> Value {
        result["capabilities"] = self.capabilities();
        if let Some(text) = &self.snapshot.instructions {
            result["instructions"] = Value::from(text.as_str());
        }
        result
    }

    /// The snapshot's `serverInfo`, or the fake's own.
    fn server_info(&self) -> Value {
        self.snapshot.server_info.clone().unwrap_or_else(
            || json!({"name": "oma-mcp-fake", "version": env!("CARGO_PKG_VERSION")}),
        )
    }

    /// The snapshot's revision when it has no `initialize` handshake (MCP 2026-07-28 and
    /// later), which the fake then offers in `server/discover`.
    fn discover_revision(&self) -> Option<&str> {
        self.snapshot
            .protocol_version
            .as_deref()
            .filter(|v| !REVISIONS.contains(v))
    }

    /// `initialize`: the revision the client asks for when the fake knows it, else the
    /// snapshot's (when it has the handshake), else 2025-11-25.
    fn initialize(&self, params: &Value) -> Value {
        let asked = params.get("protocolVersion").and_then(Value::as_str);
        let pinned = self
            .snapshot
            .protocol_version
            .as_deref()
            .filter(|v| REVISIONS.contains(v));
        let revision = asked
            .filter(|v| REVISIONS.contains(v))
            .or(pinned)
            .unwrap_or(FALLBACK_REVISION);
        self.announce(json!({
            "protocolVersion": revision,
            "serverInfo": self.server_info(),
        }))
    }

    /// `server/discover` (MCP 2026-07-28): the snapshot's revision, when the snapshot was
    /// taken on one without `initialize`; else "Method not found", as servers before it answer
    /// (the client then sends `initialize`).
    fn discover(&self) -> Result<Value, FakeRpcError> {
        let Some(revision) = self.discover_revision() else {
            return Err(FakeRpcError::new(
                -32601,
                "Method not found: server/discover".to_owned(),
            ));
        };
        Ok(self.announce(json!({
            "supportedVersions": [revision],
            "_meta": {SERVER_INFO_META_KEY: self.server_info()},
        })))
    }

    /// `tools/call`: every outcome is kept; a problem is a JSON-RPC error (-32602 for the
    /// caller's mistakes, -32603 for the handler's).
    async fn call(&self, params: &Value) -> Result<Value, FakeRpcError> {
        let name = params.get("name").and_then(Value::as_str);
        let arguments = params.get("arguments").cloned().unwrap_or(Value::Null);
        let answer = match name {
            Some(name) => self.run(name, &arguments).await,
            None => Answer::Problem(
                -32602,
                "tools/call without a tool: `params.name` is missing or not a string (MCP \
                 2025-11-25, \"Calling Tools\")"
                    .to_owned(),
            ),
        };
        let name = name.unwrap_or_default();
        let (result, problem) = match answer {
            Answer::Result(result) => (Ok(result), None),
            Answer::Error(error) => (Err(error), None),
            Answer::Problem(code, message) => {
                // A problem may quote what the server said about the arguments (its stderr
                // when it died, an error): no secret of theirs.
                let message = self.redaction().apply_text(&message, &[&arguments]);
                self.problem(message.clone());
                (Err(FakeRpcError::new(code, message.clone())), Some(message))
            }
        };
        lock(&self.calls).push(FakeCall {
            tool: name.to_owned(),
            arguments,
            answer: result.clone(),
            problem,
        });
        result
    }

    async fn run(&self, name: &str, arguments: &Value) -> Answer {
        let Some(tool) = self.tools.get(name) else {
            let known: Vec<String> = self.tools.keys().map(|k| quoted(k)).collect();
            return Answer::Problem(
                -32602,
                format!(
                    "Unknown tool {}: the snapshot of {} has {}",
                    quoted(name),
                    self.server_name(),
                    bounded_list(&known, "no tools")
                ),
            );
        };
        let instance = if arguments.is_null() {
            json!({})
        } else {
            arguments.clone()
        };
        if let Some(validator) = tool.input()
            && let Err(problems) = validator.validate(&instance)
        {
            // The problems quote the values they are about: quote those of the redacted
            // arguments instead (a secret of any length stays out of the message).
            let masked = self.redaction().apply(&instance);
            let shown = if masked == instance {
                problem_list(&problems)
            } else {
                match validator.validate(&masked) {
                    Err(problems) => problem_list(&problems),
                    Ok(()) => "a redacted value does not fit it".to_owned(),
                }
            };
            return Answer::Problem(
                -32602,
                format!(
                    "tool {}: the arguments do not match its pinned inputSchema: {shown}",
                    quoted(name)
                ),
            );
        }
        let handler = lock(&self.handlers).get(name).cloned();
        if let Some(handler) = handler {
            let answered =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handler(instance)))
                    .unwrap_or_else(|panic| {
                        let why = crate::unwind::panic_message(&*panic);
                        Err(format!(
                            "tool {}: the handler panicked: {}",
                            quoted(name),
                            excerpt(&why)
                        ))
                    });
            let checked = answered.and_then(|result| {
                self.check_result(tool, &result, Whose::Handler)
                    .map(|()| result)
            });
            return match checked {
                Ok(result) => Answer::Result(result),
                Err(message) => Answer::Problem(-32603, message),
            };
        }
        let fallback = Arc::clone(&lock(&self.fallback));
        match &*fallback {
            Fallback::None => Answer::Problem(
                -32603,
                format!(
                    "tool {} was called, but the fake has no handler for it (register one with \
                     `on::<Tool>` or `on_raw`)",
                    quoted(name)
                ),
            ),
            Fallback::Replay {
                cassette,
                file,
                replayed,
            } => match replay_index(cassette, replayed, name, arguments) {
                Some(index) => match &cassette.calls[index].answer {
                    RecordedAnswer::Result(result) => Answer::Result(result.clone()),
                    RecordedAnswer::Error {
                        code,
                        message,
                        data,
                    } => Answer::Error(FakeRpcError {
                        code: *code,
                        message: message.clone(),
                        data: data.clone(),
                    }),
                },
                None => Answer::Problem(
                    -32603,
                    format!(
                        "tool {} was called with arguments {} that the cassette {file} has not \
                         recorded ({}); record the session again, or add a handler",
                        quoted(name),
                        excerpt(&cassette.redaction.apply(arguments)),
                        recorded_for(cassette, name)
                    ),
                ),
            },
            Fallback::Record {
                client,
                cassette,
                autosave,
            } => {
                let answer = client
                    .call_tool(name)
                    .arguments(arguments.as_object().cloned())
                    .raw()
                    .await;
                let recorded = match answer {
                    Ok(result) => RecordedAnswer::Result(result),
                    Err(crate::Error::Request(crate::error::RequestError::Rpc {
                        code,
                        message,
                        data,
                    })) => RecordedAnswer::Error {
                        code,
                        message,
                        data,
                    },
                    // Not the server's answer (a timeout, a lost connection): not recorded.
                    Err(e) => {
                        return Answer::Problem(
                            -32603,
                            format!(
                                "tool {}: the recorded server gave no answer, so the call was \
                                 not recorded: {}",
                                quoted(name),
                                e.chain()
                            ),
                        );
                    }
                };
                // The code under test gets the server's answer; the cassette its redacted copy.
                let answer = match &recorded {
                    RecordedAnswer::Result(result) => Answer::Result(result.clone()),
                    RecordedAnswer::Error {
                        code,
                        message,
                        data,
                    } => Answer::Error(FakeRpcError {
                        code: *code,
                        message: message.clone(),
                        data: data.clone(),
                    }),
                };
                if let RecordedAnswer::Result(result) = &recorded
                    && let Err(why) = self.check_result(tool, result, Whose::Server)
                {
                    self.problem(format!(
                        "{why}; it was passed on and recorded as sent, and a replay of the \
                         cassette will refuse it"
                    ));
                }
                let mut cassette = lock(cassette);
                // What the client itself sends (its access token, a refreshed one, a
                // `bearer-env` value) is a secret of the recording too: a server may echo it.
                cassette.learn(client.sent_credentials());
                cassette.record(name, arguments, recorded);
                if let Some(path) = &*lock(autosave)
                    && let Err(e) = cassette.write(path)
                {
                    self.problem(format!(
                        "after a call of {}: {}",
                        quoted(name),
                        crate::error::Chain(&e)
                    ));
                }
                answer
            }
        }
    }

    /// Checks a `CallToolResult` of `whose`: an object with a `content` array, and when the
    /// tool declares an `outputSchema` and the result is no error, `structuredContent` that
    /// validates against it.
    fn check_result(&self, tool: &FakeTool, result: &Value, whose: Whose) -> Result<(), String> {
        let name = quoted(tool.tool.name());
        let noun = whose.noun();
        if !result.get("content").is_some_and(Value::is_array) {
            return Err(format!(
                "tool {name}: {noun} result has no `content` array, so it is no \
                 CallToolResult: {}",
                excerpt(result)
            ));
        }
        let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
        if is_error || tool.tool.output_schema().is_none() {
            return Ok(());
        }
        let Some(structured) = result.get("structuredContent") else {
            return Err(format!(
                "tool {name} declares an outputSchema, so its result needs \
                 `structuredContent` (MCP 2025-06-18, \"Structured Content\"){}",
                match whose {
                    Whose::Handler => ": reply with `Reply::Output`",
                    Whose::Server => "",
                }
            ));
        };
        if let Some(validator) = tool.output()
            && let Err(problems) = validator.validate(structured)
        {
            return Err(format!(
                "tool {name}: {noun} output does not match its pinned outputSchema: {}",
                problem_list(&problems)
            ));
        }
        Ok(())
    }
}

/// Whose `CallToolResult` [`State::check_result`] checks.
#[derive(Clone, Copy)]
enum Whose {
    /// A handler's: a result that does not fit is not sent.
    Handler,
    /// A recorded server's: it is sent and recorded as it is, and kept as a problem (a replay
    /// of the cassette would refuse it).
    Server,
}

impl Whose {
    fn noun(self) -> &'static str {
        match self {
            Self::Handler => "the handler's",
            Self::Server => "the server's",
        }
    }
}

/// The recorded call that answers this call of `tool` with `arguments`: of the matching
/// ones ([`Cassette::matching`]), the first not yet replayed, else the last.
fn replay_index(
    cassette: &Cassette,
    replayed: &Mutex<std::collections::BTreeSet<usize>>,
    tool: &str,
    arguments: &Value,
) -> Option<usize> {
    let matching = cassette.matching(tool, arguments);
    let mut replayed = lock(replayed);
    let index = matching
        .iter()
        .find(|i| !replayed.contains(i))
        .or(matching.last())
        .copied()?;
    replayed.insert(index);
    Some(index)
}

/// What a cassette holds for `tool`: `recorded for it: {…}, {…}` (at most [`LISTED`]) or
/// `it holds no call of this tool`.
fn recorded_for(cassette: &Cassette, tool: &str) -> String {
    let recorded: Vec<String> = cassette
        .calls
        .iter()
        .filter(|c| c.tool == tool)
        .map(|c| excerpt(&c.arguments))
        .collect();
    if recorded.is_empty() {
        "it holds no call of this tool".to_owned()
    } else {
        format!("recorded for it: {}", bounded_list(&recorded, ""))
    }
}

/// `items` joined by `, `, at most [`LISTED`] of them and then `and N more`; `empty` when
/// there are none.
fn bounded_list(items: &[String], empty: &str) -> String {
    if items.is_empty() {
        return empty.to_owned();
    }
    let mut text = items
        .iter()
        .take(LISTED)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > LISTED {
        text.push_str(&format!(" and {} more", items.len() - LISTED));
    }
    text
}

/// `<pointer>: <message>` per problem, joined by `; `.
fn problem_list(problems: &[Problem]) -> String {
    problems
        .iter()
        .map(|p| format!("{}: {}", p.pointer, p.message))
        .collect::<Vec<_>>()
        .join("; ")
}
