//! Cassettes: the `tools/call` requests of a recorded session and what the server answered,
//! in a reviewable file, for tests that replay them without the server.
//!
//! The file (`oma-mcp-cassette/1`) is canonical JSON (keys sorted, two-space indentation, a
//! final newline), so a re-recording shows in review as a diff of what changed:
//!
//! ```json
//! {
//!   "calls": [
//!     {
//!       "arguments": { "message": "hi" },
//!       "result": { "content": [ { "text": "Echo: hi", "type": "text" } ] },
//!       "tool": "echo"
//!     },
//!     {
//!       "arguments": { "path": "/nope" },
//!       "error": { "code": -32602, "message": "No such file" },
//!       "tool": "read_file"
//!     }
//!   ],
//!   "format": "oma-mcp-cassette/1",
//!   "redacted": [ "apikey", "authorization", "token" ],
//!   "serverInfo": { "name": "example", "version": "1.0.0" }
//! }
//! ```
//!
//! Each call holds the raw tool name, the `arguments` as sent (`null` when none were) and
//! either the raw `CallToolResult` (`result`) or the JSON-RPC error the server sent (`error`,
//! with `data` when it had one). Before anything is written, the value of every object member
//! whose name ends with one of `redacted` (compared lowercase, without `-` and `_`) becomes
//! `"<redacted>"`, in arguments, results and error data alike, and each value removed that way
//! is also replaced wherever a string repeats it (a text block holding `structuredContent` as
//! JSON text, an error message) ([`Redaction`]); a replay redacts the arguments it receives the
//! same way before it looks them up ([`Cassette::find`]), so a recorded call still matches.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::snapshot::sorted_keys;

/// The `format` value of cassette files this version writes and reads.
pub const CASSETTE_FORMAT: &str = "oma-mcp-cassette/1";

/// What a redacted value is replaced with.
pub const REDACTED: &str = "<redacted>";

/// The member names redacted by default: credentials a tool call may carry. A member is
/// redacted when its name, lowercase and without `-` and `_`, ends with one of these (so
/// `accessToken`, `client_secret`, `X-Api-Key` and `github_token` are).
pub const DEFAULT_REDACTED: [&str; 8] = [
    "apikey",
    "authorization",
    "cookie",
    "credential",
    "password",
    "privatekey",
    "secret",
    "token",
];

/// Secret values shorter than this many bytes are only redacted where their member is, not
/// wherever the same text occurs (a short value such as `1` would blank out unrelated text).
const MIN_SECRET_LEN: usize = 4;

/// A cassette could not be read, parsed or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CassetteError {
    /// The file could not be read or written.
    #[error("cannot {action} cassette {path}")]
    Io {
        /// `read` or `write`.
        action: &'static str,
        /// The cassette file.
        path: PathBuf,
        /// The underlying I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a cassette.
    #[error("cassette {path} is not valid: at {pointer}: {reason}; fix it or record it again")]
    Format {
        /// The cassette file.
        path: PathBuf,
        /// Where in the file (a JSON pointer; `/` for the root).
        pointer: String,
        /// What is wrong.
        reason: String,
    },
}

/// The member names whose values a cassette never holds (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redaction {
    /// Names as written (for the file's `redacted`), and normalized for matching.
    fields: BTreeSet<String>,
}

/// `name` lowercase, without `-` and `_`.
fn normalized(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '-' && *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

impl Default for Redaction {
    /// [`DEFAULT_REDACTED`].
    fn default() -> Self {
        Self::new(DEFAULT_REDACTED)
    }
}

impl Redaction {
    /// Redacts members whose normalized name (lowercase, without `-` and `_`) ends with the
    /// normalized form of one of `fields`.
    pub fn new(fields: impl IntoIterator<Item = impl AsRef<str>>) -> Self {
        Self {
            fields: fields
                .into_iter()
                .map(|f| normalized(f.as_ref()))
                .filter(|f| !f.is_empty())
                .collect(),
        }
    }

    /// This redaction's names and `more`.
    #[must_use]
    pub fn with(mut self, more: impl IntoIterator<Item = impl AsRef<str>>) -> Self {
        self.fields.extend(
            more.into_iter()
                .map(|f| normalized(f.as_ref()))
                .filter(|f| !f.is_empty()),
        );
        self
    }

    /// The normalized names, sorted.
    pub fn fields(&self) -> impl Iterator<Item = &str> {
        self.fields.iter().map(String::as_str)
    }

    /// Whether the member `name` is redacted.
    pub fn redacts(&self, name: &str) -> bool {
        let name = normalized(name);
        self.fields.iter().any(|f| name.ends_with(f.as_str()))
    }

    /// `values` with every redacted member's value replaced by [`REDACTED`], at any depth,
    /// and then every secret found that way (a string, or the JSON text of another value, of
    /// at least 4 bytes) replaced by [`REDACTED`] wherever it occurs in a string of any of
    /// `values`: a server that repeats `structuredContent` as JSON text in a text block, or
    /// echoes a token in a message, does not leak it.
    pub fn apply_all(&self, values: &[&Value]) -> Vec<Value> {
        let mut secrets = BTreeSet::new();
        let masked: Vec<Value> = values.iter().map(|v| self.mask(v, &mut secrets)).collect();
        let secrets: Vec<String> = secrets
            .into_iter()
            .filter(|s| s.len() >= MIN_SECRET_LEN && s != REDACTED)
            .collect();
        masked
            .into_iter()
            .map(|v| replace_secrets(v, &secrets))
            .collect()
    }

    /// [`apply_all`](Self::apply_all) of one value.
    pub fn apply(&self, value: &Value) -> Value {
        self.apply_all(&[value]).pop().unwrap_or(Value::Null)
    }

    /// `text` with every secret of `values` (as [`apply_all`](Self::apply_all) finds them)
    /// replaced by [`REDACTED`].
    pub fn apply_text(&self, text: &str, values: &[&Value]) -> String {
        let mut secrets = BTreeSet::new();
        for v in values {
            self.mask(v, &mut secrets);
        }
        let mut text = text.to_owned();
        for secret in secrets.iter().filter(|s| s.len() >= MIN_SECRET_LEN) {
            text = text.replace(secret.as_str(), REDACTED);
        }
        text
    }

    fn mask(&self, value: &Value, secrets: &mut BTreeSet<String>) -> Value {
        match value {
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| {
                        let v = if self.redacts(k) {
                            secrets.insert(match v {
                                Value::String(s) => s.clone(),
                                other => other.to_string(),
                            });
                            Value::from(REDACTED)
                        } else {
                            self.mask(v, secrets)
                        };
                        (k.clone(), v)
                    })
                    .collect(),
            ),
            Value::Array(items) => {
                Value::Array(items.iter().map(|v| self.mask(v, secrets)).collect())
            }
            other => other.clone(),
        }
    }
}

/// `value` with each of `secrets` replaced by [`REDACTED`] in every string.
fn replace_secrets(value: Value, secrets: &[String]) -> Value {
    if secrets.is_empty() {
        return value;
    }
    match value {
        Value::String(mut s) => {
            for secret in secrets {
                if s.contains(secret.as_str()) {
                    s = s.replace(secret.as_str(), REDACTED);
                }
            }
            Value::String(s)
        }
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (k, replace_secrets(v, secrets)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|v| replace_secrets(v, secrets))
                .collect(),
        ),
        other => other,
    }
}

/// What the server answered a recorded call.
#[derive(Debug, Clone, PartialEq)]
pub enum RecordedAnswer {
    /// The raw `CallToolResult`.
    Result(Value),
    /// A JSON-RPC error the server sent.
    Error {
        /// The error code.
        code: i64,
        /// The error message, as the server sent it.
        message: String,
        /// The error's `data` member, when it had one.
        data: Option<Value>,
    },
}

/// One recorded `tools/call`.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedCall {
    /// The raw MCP tool name.
    pub tool: String,
    /// The `arguments` as sent (redacted); `null` when none were.
    pub arguments: Value,
    /// The answer (redacted).
    pub answer: RecordedAnswer,
}

/// A recorded session (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq)]
pub struct Cassette {
    /// The `serverInfo` of the recorded server, raw.
    pub server_info: Option<Value>,
    /// What was redacted.
    pub redaction: Redaction,
    /// The calls, in the order they were made.
    pub calls: Vec<RecordedCall>,
}

impl Cassette {
    /// An empty cassette that will redact with `redaction`.
    pub fn new(server_info: Option<Value>, redaction: Redaction) -> Self {
        Self {
            server_info,
            redaction,
            calls: Vec::new(),
        }
    }

    /// Records a call: `arguments` and the answer are redacted first, together (a secret in
    /// the arguments is also redacted where the answer repeats it).
    pub fn record(&mut self, tool: &str, arguments: &Value, answer: RecordedAnswer) {
        let (arguments, answer) = match answer {
            RecordedAnswer::Result(result) => {
                let mut both = self.redaction.apply_all(&[arguments, &result]);
                let result = both.pop().unwrap_or(Value::Null);
                let arguments = both.pop().unwrap_or(Value::Null);
                (arguments, RecordedAnswer::Result(result))
            }
            RecordedAnswer::Error {
                code,
                message,
                data,
            } => {
                let data_value = data.clone().unwrap_or(Value::Null);
                let mut both = self.redaction.apply_all(&[arguments, &data_value]);
                let data = data.map(|_| both.pop().unwrap_or(Value::Null));
                let message = self
                    .redaction
                    .apply_text(&message, &[arguments, &data_value]);
                let arguments = both.swap_remove(0);
                (
                    arguments,
                    RecordedAnswer::Error {
                        code,
                        message,
                        data,
                    },
                )
            }
        };
        self.calls.push(RecordedCall {
            tool: tool.to_owned(),
            arguments,
            answer,
        });
    }

    /// The first recorded call of `tool` whose arguments equal `arguments` once redacted
    /// (JSON equality: key order does not matter, `1` and `1.0` differ).
    pub fn find(&self, tool: &str, arguments: &Value) -> Option<&RecordedCall> {
        let arguments = self.redaction.apply(arguments);
        self.calls
            .iter()
            .find(|c| c.tool == tool && c.arguments == arguments)
    }

    /// The cassette as canonical file text.
    pub fn to_canonical_string(&self) -> String {
        let calls = self
            .calls
            .iter()
            .map(|call| {
                let mut entry = Map::new();
                entry.insert("tool".into(), Value::from(call.tool.as_str()));
                entry.insert("arguments".into(), call.arguments.clone());
                match &call.answer {
                    RecordedAnswer::Result(result) => {
                        entry.insert("result".into(), result.clone());
                    }
                    RecordedAnswer::Error {
                        code,
                        message,
                        data,
                    } => {
                        let mut error = Map::new();
                        error.insert("code".into(), Value::from(*code));
                        error.insert("message".into(), Value::from(message.as_str()));
                        if let Some(data) = data {
                            error.insert("data".into(), data.clone());
                        }
                        entry.insert("error".into(), Value::Object(error));
                    }
                }
                Value::Object(entry)
            })
            .collect();
        let mut root = Map::new();
        root.insert("format".into(), Value::from(CASSETTE_FORMAT));
        root.insert(
            "redacted".into(),
            Value::Array(self.redaction.fields().map(Value::from).collect()),
        );
        if let Some(info) = &self.server_info {
            root.insert("serverInfo".into(), info.clone());
        }
        root.insert("calls".into(), Value::Array(calls));
        let mut text = serde_json::to_string_pretty(&sorted_keys(Value::Object(root)))
            .unwrap_or_else(|_| String::from("{}"));
        text.push('\n');
        text
    }

    /// Parses cassette text; `path` names it in errors.
    ///
    /// # Errors
    /// [`CassetteError::Format`] with the JSON pointer of what is wrong: not JSON, another
    /// `format`, no `calls` array, a call without a string `tool`, with neither or both of
    /// `result` and `error`, an `error` without an integer `code` and a string `message`,
    /// `redacted` not an array of strings.
    pub fn parse(text: &str, path: &Path) -> Result<Self, CassetteError> {
        let bad = |pointer: &str, reason: String| CassetteError::Format {
            path: path.to_owned(),
            pointer: pointer.to_owned(),
            reason,
        };
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let root: Value =
            serde_json::from_str(text).map_err(|e| bad("/", format!("not JSON: {e}")))?;
        let Value::Object(root) = root else {
            return Err(bad("/", "not a JSON object".into()));
        };
        match root.get("format").and_then(Value::as_str) {
            Some(CASSETTE_FORMAT) => {}
            other => {
                return Err(bad(
                    "/format",
                    format!(
                        "expected \"{CASSETTE_FORMAT}\", found {}",
                        other.map_or_else(|| "none".to_owned(), |f| format!("\"{f}\""))
                    ),
                ));
            }
        }
        let redaction = match root.get("redacted") {
            None => Redaction::default(),
            Some(Value::Array(items)) => {
                let mut fields = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    let Some(field) = item.as_str() else {
                        return Err(bad(&format!("/redacted/{i}"), "not a string".into()));
                    };
                    fields.push(field);
                }
                Redaction::new(fields)
            }
            Some(_) => return Err(bad("/redacted", "not an array of strings".into())),
        };
        let Some(Value::Array(entries)) = root.get("calls") else {
            return Err(bad("/calls", "missing, or not an array".into()));
        };
        let mut calls = Vec::with_capacity(entries.len());
        for (i, entry) in entries.iter().enumerate() {
            let at = |member: &str| format!("/calls/{i}{member}");
            let Some(tool) = entry.get("tool").and_then(Value::as_str) else {
                return Err(bad(&at("/tool"), "missing, or not a string".into()));
            };
            let arguments = entry.get("arguments").cloned().unwrap_or(Value::Null);
            let answer = match (entry.get("result"), entry.get("error")) {
                (Some(result), None) => RecordedAnswer::Result(result.clone()),
                (None, Some(error)) => {
                    let code = error.get("code").and_then(Value::as_i64);
                    let message = error.get("message").and_then(Value::as_str);
                    let (Some(code), Some(message)) = (code, message) else {
                        return Err(bad(
                            &at("/error"),
                            "needs an integer `code` and a string `message`".into(),
                        ));
                    };
                    RecordedAnswer::Error {
                        code,
                        message: message.to_owned(),
                        data: error.get("data").cloned(),
                    }
                }
                _ => {
                    return Err(bad(
                        &at(""),
                        "needs exactly one of `result` and `error`".into(),
                    ));
                }
            };
            calls.push(RecordedCall {
                tool: tool.to_owned(),
                arguments,
                answer,
            });
        }
        Ok(Self {
            server_info: root.get("serverInfo").cloned(),
            redaction,
            calls,
        })
    }

    /// Reads and parses the cassette file at `path`.
    ///
    /// # Errors
    /// [`CassetteError::Io`], or as [`Cassette::parse`].
    pub fn read(path: &Path) -> Result<Self, CassetteError> {
        let text = std::fs::read_to_string(path).map_err(|source| CassetteError::Io {
            action: "read",
            path: path.to_owned(),
            source,
        })?;
        Self::parse(&text, path)
    }

    /// Writes the canonical text to `path`.
    ///
    /// # Errors
    /// [`CassetteError::Io`].
    pub fn write(&self, path: &Path) -> Result<(), CassetteError> {
        std::fs::write(path, self.to_canonical_string()).map_err(|source| CassetteError::Io {
            action: "write",
            path: path.to_owned(),
            source,
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn records_redacts_writes_and_reads_back() {
        let mut cassette = Cassette::new(
            Some(json!({"name": "srv", "version": "1"})),
            Redaction::default().with(["X-Session"]),
        );
        cassette.record(
            "login",
            &json!({"user": "ada", "Token": "s3cret", "nested": [{"x-session": "abc"}]}),
            RecordedAnswer::Result(json!({
                "content": [{"type": "text", "text": "{\"user\":\"ada\",\"accessToken\":\"s3cret\"}"}],
                "structuredContent": {"user": "ada", "accessToken": "s3cret", "password": "pw"}
            })),
        );
        cassette.record(
            "read",
            &Value::Null,
            RecordedAnswer::Error {
                code: -32602,
                message: "No such file".into(),
                data: Some(json!({"client_secret": "abcd1234"})),
            },
        );
        let text = cassette.to_canonical_string();
        for secret in ["s3cret", "abc", "\"pw\"", "abcd1234"] {
            assert!(!text.contains(secret), "{secret} leaked:\n{text}");
        }
        let back = Cassette::parse(&text, Path::new("c.json")).unwrap();
        assert_eq!(back, cassette);
        assert_eq!(back.to_canonical_string(), text);
        assert_eq!(
            back.calls[0].arguments,
            json!({"user": "ada", "Token": "<redacted>", "nested": [{"x-session": "<redacted>"}]})
        );
        // Lookup redacts what it receives: another token still finds the call.
        let found = back
            .find(
                "login",
                &json!({"nested": [{"x-session": "zzz"}], "Token": "other", "user": "ada"}),
            )
            .unwrap();
        assert_eq!(found.tool, "login");
        assert!(back.find("login", &json!({"user": "bob"})).is_none());
        assert_eq!(
            back.find("read", &Value::Null).unwrap().answer,
            RecordedAnswer::Error {
                code: -32602,
                message: "No such file".into(),
                data: Some(json!({"client_secret": "<redacted>"})),
            }
        );
        assert_eq!(
            back.calls[0].answer,
            RecordedAnswer::Result(json!({
                "content": [{"type": "text", "text": "{\"user\":\"ada\",\"accessToken\":\"<redacted>\"}"}],
                "structuredContent": {"user": "ada", "accessToken": "<redacted>", "password": "<redacted>"}
            }))
        );
        assert_eq!(
            back.redaction.fields().collect::<Vec<_>>(),
            [
                "apikey",
                "authorization",
                "cookie",
                "credential",
                "password",
                "privatekey",
                "secret",
                "token",
                "xsession"
            ]
        );
    }

    #[test]
    fn a_broken_file_says_where() {
        let err = |text: &str| {
            Cassette::parse(text, Path::new("t.json"))
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err("{"),
            "cassette t.json is not valid: at /: not JSON: EOF while parsing an object at line 1 \
             column 1; fix it or record it again"
        );
        assert_eq!(
            err(r#"{"format": "x", "calls": []}"#),
            "cassette t.json is not valid: at /format: expected \"oma-mcp-cassette/1\", found \
             \"x\"; fix it or record it again"
        );
        assert_eq!(
            err(
                r#"{"format": "oma-mcp-cassette/1", "calls": [{"tool": "a", "result": {}}, {"tool": 1}]}"#
            ),
            "cassette t.json is not valid: at /calls/1/tool: missing, or not a string; fix it \
             or record it again"
        );
        assert_eq!(
            err(r#"{"format": "oma-mcp-cassette/1", "calls": [{"tool": "a"}]}"#),
            "cassette t.json is not valid: at /calls/0: needs exactly one of `result` and \
             `error`; fix it or record it again"
        );
        assert_eq!(
            err(
                r#"{"format": "oma-mcp-cassette/1", "calls": [{"tool": "a", "error": {"code": "x"}}]}"#
            ),
            "cassette t.json is not valid: at /calls/0/error: needs an integer `code` and a \
             string `message`; fix it or record it again"
        );
    }
}
