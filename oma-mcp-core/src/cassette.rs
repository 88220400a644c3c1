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
//! whose name ends with one of `redacted` (compared lowercase, without `-` and `_`; pagination
//! cursors such as `nextPageToken` excepted) becomes `"<redacted>"`, in arguments, results and
//! error data alike, as do such URL query parameters and `name`/`value` pairs; each value
//! removed that way is also replaced wherever a string of the recording repeats it (a text
//! block holding `structuredContent` as JSON text, an error message, a later call)
//! ([`Redaction`]). A replay redacts the arguments it receives the same way before it looks
//! them up ([`Cassette::matching`]), so a recorded call still matches; identical calls are
//! answered in recorded order.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::snapshot::sorted_keys;

mod redaction;

pub use redaction::{DEFAULT_REDACTED, NOT_SECRET, Redaction};
use redaction::{Known, replace_in_text, replace_secrets, search_forms};

/// The `format` value of cassette files this version writes and reads.
pub const CASSETTE_FORMAT: &str = "oma-mcp-cassette/1";

/// What a redacted value is replaced with.
pub const REDACTED: &str = "<redacted>";

/// A cassette could not be read, parsed or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CassetteError {
    /// The file could not be read or written.
    #[error("cannot {action} cassette {path}")]
    #[non_exhaustive]
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
    #[non_exhaustive]
    Format {
        /// The cassette file.
        path: PathBuf,
        /// Where in the file (a JSON pointer; `/` for the root).
        pointer: String,
        /// What is wrong.
        reason: String,
    },
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

impl RecordedCall {
    /// Each of `forms` replaced by [`REDACTED`] in every string of the call.
    fn redact_recurrences(&mut self, forms: &[String]) {
        self.arguments = replace_secrets(std::mem::take(&mut self.arguments), forms);
        match &mut self.answer {
            RecordedAnswer::Result(result) => {
                *result = replace_secrets(std::mem::take(result), forms);
            }
            RecordedAnswer::Error { message, data, .. } => {
                *message = replace_in_text(message, forms);
                if let Some(data) = data {
                    *data = replace_secrets(std::mem::take(data), forms);
                }
            }
        }
    }
}

/// A recorded session (see the [module docs](self)).
///
/// Two cassettes are equal when their `serverInfo`, redaction and calls are.
#[derive(Debug, Clone, PartialEq)]
pub struct Cassette {
    /// The `serverInfo` of the recorded server, raw.
    pub server_info: Option<Value>,
    /// What was redacted.
    pub redaction: Redaction,
    /// The calls, in the order they were made.
    pub calls: Vec<RecordedCall>,
    /// What [`record`](Self::record) removed, to remove it from later calls too.
    learned: Known,
}

impl Cassette {
    /// An empty cassette that will redact with `redaction`.
    pub fn new(server_info: Option<Value>, redaction: Redaction) -> Self {
        Self {
            server_info,
            redaction,
            calls: Vec::new(),
            learned: Known::default(),
        }
    }

    /// Records a call: `arguments` and the answer are redacted first ([`Redaction::apply_all`]),
    /// and every secret removed in any call of this recording so far is removed wherever it
    /// recurs in any call (a token sent in the first call and echoed in the tenth does not
    /// leak, nor one learned in the tenth that an earlier answer held).
    pub fn record(&mut self, tool: &str, arguments: &Value, answer: RecordedAnswer) {
        let secrets = &mut self.learned.0;
        secrets.extend(self.redaction.known_values().iter().cloned());
        let before = secrets.len();
        let arguments = self.redaction.mask(arguments, secrets);
        let answer = match answer {
            RecordedAnswer::Result(result) => {
                RecordedAnswer::Result(self.redaction.mask(&result, secrets))
            }
            RecordedAnswer::Error {
                code,
                message,
                data,
            } => {
                self.redaction.query_secrets(&message, secrets);
                RecordedAnswer::Error {
                    code,
                    message,
                    data: data.map(|d| self.redaction.mask(&d, secrets)),
                }
            }
        };
        self.calls.push(RecordedCall {
            tool: tool.to_owned(),
            arguments,
            answer,
        });
        let forms = search_forms(&self.learned.0);
        let from = if self.learned.0.len() > before {
            0
        } else {
            self.calls.len() - 1
        };
        for call in &mut self.calls[from..] {
            call.redact_recurrences(&forms);
        }
    }

    /// Makes `values` secrets of this recording from now on, as if the server had been
    /// given them ([`Redaction::with_values`]): the credentials the recording client itself
    /// sends (an OAuth access token, a refreshed one, a `bearer-env` value), which a server
    /// may echo. Each is removed from every call recorded so far and from every later one,
    /// wherever it recurs; values under 4 bytes are not searched for (they would blank
    /// ordinary words).
    pub fn learn(&mut self, values: impl IntoIterator<Item = impl Into<String>>) {
        let before = self.learned.0.len();
        self.learned.0.extend(values.into_iter().map(Into::into));
        if self.learned.0.len() > before {
            let forms = search_forms(&self.learned.0);
            for call in &mut self.calls {
                call.redact_recurrences(&forms);
            }
        }
    }

    /// The indices of the recorded calls of `tool` whose arguments equal `arguments` once
    /// redacted (JSON equality: key order does not matter, `1` and `1.0` differ), in recorded
    /// order. A replay answers the n-th identical call with the n-th of them, and every later
    /// one with the last (a client that polls sees the recorded sequence, then its end).
    pub fn matching(&self, tool: &str, arguments: &Value) -> Vec<usize> {
        let arguments = self.redaction.apply(arguments);
        self.calls
            .iter()
            .enumerate()
            .filter(|(_, c)| c.tool == tool && c.arguments == arguments)
            .map(|(i, _)| i)
            .collect()
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
    /// [`CassetteError::Format`] with the JSON pointer of what is wrong: not JSON, a member
    /// name repeated in its object, another `format`, no `calls` array, a call without a string `tool`, with neither or both of
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
        if let Some(pointer) = first_duplicate(text) {
            return Err(bad(
                &pointer,
                "this member's name repeats an earlier one of its object, and JSON keeps only \
                 the last: merge the two"
                    .into(),
            ));
        }
        let Value::Object(root) = root else {
            return Err(bad("/", "not a JSON object".into()));
        };
        match root.get("format").and_then(Value::as_str) {
            Some(CASSETTE_FORMAT) => {}
            Some(other) if other.starts_with("oma-mcp-cassette/") => {
                return Err(bad(
                    "/format",
                    format!(
                        "{} was written by another version of oma-mcp; this one reads \
                         \"{CASSETTE_FORMAT}\": use the version that wrote it",
                        Value::from(other)
                    ),
                ));
            }
            other => {
                return Err(bad(
                    "/format",
                    format!(
                        "expected \"{CASSETTE_FORMAT}\", found {}",
                        other.map_or_else(|| "none".to_owned(), |f| Value::from(f).to_string())
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
            learned: Known::default(),
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

    /// Writes the canonical text to `path`, whole or not at all: into a temporary file beside
    /// it (`.<name>.tmp`), then renamed over it, so a reader (or a recording stopped midway)
    /// never sees half a cassette.
    ///
    /// # Errors
    /// [`CassetteError::Io`] (the temporary file is removed).
    pub fn write(&self, path: &Path) -> Result<(), CassetteError> {
        let io = |source| CassetteError::Io {
            action: "write",
            path: path.to_owned(),
            source,
        };
        let name = path.file_name().map_or_else(
            || std::ffi::OsString::from("cassette"),
            std::ffi::OsStr::to_os_string,
        );
        let mut temporary_name = std::ffi::OsString::from(".");
        temporary_name.push(name);
        temporary_name.push(".tmp");
        let temporary = path.with_file_name(temporary_name);
        std::fs::write(&temporary, self.to_canonical_string())
            .and_then(|()| std::fs::rename(&temporary, path))
            .map_err(|e| {
                let _ = std::fs::remove_file(&temporary);
                io(e)
            })
    }
}

/// The JSON pointer of the first member of the JSON `text` whose name repeats an earlier
/// member of the same object, or `None` (also for text that is no JSON). `serde_json` keeps
/// the last of such members silently: a cassette edited by hand with a second `calls` would
/// lose the first one's calls.
fn first_duplicate(text: &str) -> Option<String> {
    use std::cell::RefCell;

    use serde::de::{DeserializeSeed, Deserializer, Error, MapAccess, SeqAccess, Visitor};

    /// Walks a value at `pointer`, noting the first duplicate in `found`.
    struct Walk<'a> {
        pointer: String,
        found: &'a RefCell<Option<String>>,
    }

    impl<'de> DeserializeSeed<'de> for Walk<'_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
            deserializer.deserialize_any(self)
        }
    }

    impl<'de> Visitor<'de> for Walk<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON value")
        }
        fn visit_bool<E>(self, _: bool) -> Result<(), E> {
            Ok(())
        }
        fn visit_i64<E>(self, _: i64) -> Result<(), E> {
            Ok(())
        }
        fn visit_u64<E>(self, _: u64) -> Result<(), E> {
            Ok(())
        }
        fn visit_f64<E>(self, _: f64) -> Result<(), E> {
            Ok(())
        }
        fn visit_str<E>(self, _: &str) -> Result<(), E> {
            Ok(())
        }
        fn visit_unit<E>(self) -> Result<(), E> {
            Ok(())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<(), A::Error> {
            let mut index = 0usize;
            loop {
                let walk = Walk {
                    pointer: format!("{}/{index}", self.pointer),
                    found: self.found,
                };
                if items.next_element_seed(walk)?.is_none() {
                    return Ok(());
                }
                index += 1;
            }
        }
        fn visit_map<A: MapAccess<'de>>(self, mut members: A) -> Result<(), A::Error> {
            let mut names = BTreeSet::new();
            while let Some(name) = members.next_key::<String>()? {
                let pointer = crate::pointer::push(&self.pointer, &name);
                if !names.insert(name) {
                    *self.found.borrow_mut() = Some(pointer);
                    return Err(A::Error::custom("duplicate member"));
                }
                members.next_value_seed(Walk {
                    pointer,
                    found: self.found,
                })?;
            }
            Ok(())
        }
    }

    let found = RefCell::new(None);
    let walk = Walk {
        pointer: String::new(),
        found: &found,
    };
    let _ = walk.deserialize(&mut serde_json::Deserializer::from_str(text));
    found.into_inner()
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
        assert_eq!(
            back.matching(
                "login",
                &json!({"nested": [{"x-session": "zzz"}], "Token": "other", "user": "ada"}),
            ),
            [0]
        );
        assert!(back.matching("login", &json!({"user": "bob"})).is_empty());
        assert_eq!(
            back.calls[back.matching("read", &Value::Null)[0]].answer,
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
                "accesskey",
                "apikey",
                "authorization",
                "cookie",
                "credential",
                "credentials",
                "passphrase",
                "password",
                "privatekey",
                "secret",
                "token",
                "xsession"
            ]
        );
    }

    /// What hostile or careless servers send does not leak: escaped secrets in JSON text,
    /// credentials under other names, header pairs, URL queries, secrets learned in one call
    /// and echoed in another; and what is no secret stays (cursors, `null`, booleans).
    #[test]
    fn secrets_do_not_leak_and_the_rest_stays() {
        let mut cassette = Cassette::new(None, Redaction::default());
        cassette.record(
            "early",
            &json!({"q": "x"}),
            RecordedAnswer::Result(
                json!({"content": [{"type": "text", "text": "then: pa55-later"}]}),
            ),
        );
        cassette.record(
            "login",
            &json!({
                "password": "q\"uote\\d",
                "credentials": {"user": "ada", "pin": 1234},
                "passphrase": "open sesame",
                "aws_secret_access_key": "AKIAXYZ",
                "headers": [{"name": "Authorization", "value": "Bearer abcdef"}, {"name": "Accept", "value": "text/plain"}],
                "url": "https://h.example/cb?state=1&access_token=tok123&x=2",
                "nextPageToken": "page-2",
                "refresh_token": null,
                "remember_token": true,
                "session": "pa55-later"
            }),
            RecordedAnswer::Result(json!({"content": [{"type": "text",
                "text": "{\"password\":\"q\\\"uote\\\\d\",\"key\":\"AKIAXYZ\"} open sesame"}]})),
        );
        cassette.record(
            "later",
            &json!({"apiKey": "pa55-later"}),
            RecordedAnswer::Error {
                code: -1,
                message: "bad key AKIAXYZ at https://h.example/?api_key=zz99zz".into(),
                data: None,
            },
        );
        let text = cassette.to_canonical_string();
        for secret in [
            "uote", "1234", "sesame", "AKIAXYZ", "abcdef", "tok123", "pa55", "zz99zz",
        ] {
            assert!(!text.contains(secret), "{secret} leaked:\n{text}");
        }
        assert_eq!(
            cassette.calls[1].arguments,
            json!({
                "password": "<redacted>",
                "credentials": "<redacted>",
                "passphrase": "<redacted>",
                "aws_secret_access_key": "<redacted>",
                "headers": [{"name": "Authorization", "value": "<redacted>"}, {"name": "Accept", "value": "text/plain"}],
                "url": "https://h.example/cb?state=1&access_token=<redacted>&x=2",
                "nextPageToken": "page-2",
                "refresh_token": null,
                "remember_token": true,
                "session": "<redacted>"
            })
        );
        assert_eq!(
            cassette.calls[0].answer,
            RecordedAnswer::Result(
                json!({"content": [{"type": "text", "text": "then: <redacted>"}]})
            )
        );
        assert_eq!(
            cassette.calls[2].answer,
            RecordedAnswer::Error {
                code: -1,
                message: "bad key <redacted> at https://h.example/?api_key=<redacted>".into(),
                data: None,
            }
        );
        // A cursor is redacted when asked for by name; `Debug` shows no secret.
        assert!(
            Redaction::default()
                .with(["pageToken"])
                .redacts("nextPageToken")
        );
        assert!(!format!("{cassette:?}").contains("AKIAXYZ"));
    }

    /// A secret comes back in other encodings (Python's `\uXXXX` JSON, a percent-encoded
    /// URL), and a value known beforehand is redacted under any name, never shown.
    #[test]
    fn other_encodings_and_known_values() {
        let mut cassette = Cassette::new(None, Redaction::default().with_values(["ENV-KEY-1"]));
        cassette.record(
            "dump",
            &json!({"password": "pässwörd 😀"}),
            RecordedAnswer::Result(json!({"content": [
                {"type": "text", "text": "{\"password\": \"p\\u00e4ssw\\u00f6rd \\ud83d\\ude00\"}"},
                {"type": "text", "text": "https://h.example/?p=p%C3%A4ssw%C3%B6rd%20%F0%9F%98%80"},
                {"type": "text", "text": "env says ENV-KEY-1"}
            ]})),
        );
        assert_eq!(
            cassette.calls[0].answer,
            RecordedAnswer::Result(json!({"content": [
                {"type": "text", "text": "{\"password\": \"<redacted>\"}"},
                {"type": "text", "text": "https://h.example/?p=<redacted>"},
                {"type": "text", "text": "env says <redacted>"}
            ]}))
        );
        let redaction = Redaction::default().with_values(["ENV-KEY-1"]);
        assert_eq!(redaction, Redaction::default());
        assert!(!format!("{redaction:?}").contains("ENV-KEY"));
        assert!(!cassette.to_canonical_string().contains("ENV-KEY"));
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
            err(r#"{"format": "oma-mcp-cassette/2", "calls": []}"#),
            "cassette t.json is not valid: at /format: \"oma-mcp-cassette/2\" was written by \
             another version of oma-mcp; this one reads \"oma-mcp-cassette/1\": use the version \
             that wrote it; fix it or record it again"
        );
        assert_eq!(
            err(
                r#"{"format": "oma-mcp-cassette/1", "calls": [{"tool": "a", "result": {}, "tool": "b"}]}"#
            ),
            "cassette t.json is not valid: at /calls/0/tool: this member's name repeats an \
             earlier one of its object, and JSON keeps only the last: merge the two; fix it or \
             record it again"
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
