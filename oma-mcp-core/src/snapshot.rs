//! The snapshot: a canonical, committed JSON file holding a server's `tools/list`, its
//! per-tool digests, and where it was taken from. The format is in the crate docs,
//! [The snapshot format](crate#the-snapshot-format).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::redact::redact_url;

/// A snapshot cannot be read, or its text is not a snapshot.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SnapshotError {
    /// A snapshot file could not be read or written.
    #[error("cannot {action} snapshot {path}")]
    Io {
        /// `read` or `write`.
        action: &'static str,
        /// The snapshot file.
        path: PathBuf,
        /// The underlying I/O error.
        #[source]
        source: std::io::Error,
    },

    /// A snapshot file is not valid JSON or not in a known shape.
    #[error("snapshot {path} is not valid: {reason}; regenerate it with `oma-mcp snapshot`")]
    Format {
        /// The snapshot file (`<tools/list>` for descriptors from a server,
        /// `<embedded snapshot>` for text embedded in generated code).
        path: PathBuf,
        /// What is wrong, with the JSON pointer where there is one.
        reason: String,
    },
}

/// The `format` value of snapshot files this version writes and reads.
pub const SNAPSHOT_FORMAT: &str = "oma-mcp-snapshot/1";

/// Where a snapshot was taken from: the command of a server started over stdio, or the URL of
/// one reached over streamable HTTP; never a value taken from the environment.
///
/// ```
/// use oma_mcp_core::snapshot::SnapshotSource;
/// let stdio = SnapshotSource::new("node_modules/.bin/mcp-server-everything", ["stdio"]);
/// assert_eq!(stdio.url, None);
/// let http = SnapshotSource::http("https://me:s3cret@mcp.example.com/mcp?key=abc")
///     .with_header("X-MCP-Toolsets", "repos,issues")
///     .with_env_header("Authorization");
/// assert_eq!(http.url.as_deref(), Some("https://***@mcp.example.com/mcp?key=***"));
/// assert_eq!(http.command, "");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct SnapshotSource {
    /// The executable, as configured (not resolved against `PATH`); empty for a server
    /// reached by URL.
    pub command: String,
    /// Its arguments, as configured; empty for a server reached by URL.
    pub args: Vec<String>,
    /// The streamable HTTP endpoint, redacted ([`redact_url`]: userinfo and query values
    /// are `***`); `None` for a server started over stdio.
    pub url: Option<String>,
    /// The literal HTTP headers sent to [`SnapshotSource::url`] (name → value). Literal
    /// headers are never secrets (oma-mcp-runtime's `ConnectConfig::headers`).
    pub headers: BTreeMap<String, String>,
    /// The names of the HTTP headers whose values come from environment variables
    /// (`Authorization` for a bearer token, or a header named by the pin's `header-env`):
    /// names only, never the values nor the variables.
    pub env_headers: BTreeSet<String>,
}

impl SnapshotSource {
    /// A source from a command and its arguments.
    pub fn new(
        command: impl Into<String>,
        args: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        Self {
            command: command.into(),
            args: args.into_iter().map(Into::into).collect(),
            ..Self::default()
        }
    }

    /// A source for the streamable HTTP server at `url`, recorded redacted
    /// ([`redact_url`]), with no headers yet.
    pub fn http(url: &str) -> Self {
        Self {
            url: Some(redact_url(url)),
            ..Self::default()
        }
    }

    /// Records a literal header (name and value); replaces one of the same name.
    #[must_use]
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.insert(name.into(), value.into());
        self
    }

    /// Records the name of a header whose value comes from the environment.
    #[must_use]
    pub fn with_env_header(mut self, name: impl Into<String>) -> Self {
        self.env_headers.insert(name.into());
        self
    }

    /// The source as the snapshot file writes it: `{"args", "command"}`, or `{"headers",
    /// "headersFromEnv", "url"}` for a URL.
    fn to_json(&self) -> Value {
        let mut source = Map::new();
        match &self.url {
            None => {
                source.insert("args".into(), Value::from(self.args.clone()));
                source.insert("command".into(), Value::from(self.command.as_str()));
            }
            Some(url) => {
                let headers = self
                    .headers
                    .iter()
                    .map(|(name, value)| (name.clone(), Value::from(value.as_str())))
                    .collect();
                source.insert("headers".into(), Value::Object(headers));
                let names: Vec<&str> = self.env_headers.iter().map(String::as_str).collect();
                source.insert("headersFromEnv".into(), Value::from(names));
                source.insert("url".into(), Value::from(url.as_str()));
            }
        }
        Value::Object(source)
    }

    /// Reads `/source`: the command form or the URL form (`headers` and `headersFromEnv` may
    /// be left out; other keys are ignored); `None` when it is neither, or both.
    fn from_json(source: &Map<String, Value>) -> Option<Self> {
        let strings = |value: &Value| {
            value
                .as_array()?
                .iter()
                .map(|v| v.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
        };
        if let Some(url) = source.get("url") {
            if source.contains_key("command") {
                return None;
            }
            let headers = match source.get("headers") {
                None => BTreeMap::new(),
                Some(headers) => headers
                    .as_object()?
                    .iter()
                    .map(|(name, value)| Some((name.clone(), value.as_str()?.to_owned())))
                    .collect::<Option<_>>()?,
            };
            let env_headers = match source.get("headersFromEnv") {
                None => BTreeSet::new(),
                Some(names) => strings(names)?.into_iter().collect(),
            };
            return Some(Self {
                url: Some(url.as_str()?.to_owned()),
                headers,
                env_headers,
                ..Self::default()
            });
        }
        let command = source.get("command")?.as_str()?;
        Some(Self::new(command, strings(source.get("args")?)?))
    }
}

/// One tool of a snapshot: the raw descriptor and its digest.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SnapshotTool {
    /// `sha256:<hex>` of [`canonical_json`] of `descriptor`.
    pub digest: String,
    /// The tool descriptor exactly as the server sent it in `tools/list` (keys sorted).
    pub descriptor: Value,
}

impl SnapshotTool {
    /// A snapshot tool from a raw descriptor; computes the digest and sorts the keys.
    ///
    /// # Errors
    /// [`SnapshotError::Format`] when the descriptor is not an object with a string `name`.
    pub fn from_descriptor(descriptor: Value) -> Result<Self, SnapshotError> {
        if descriptor.get("name").and_then(Value::as_str).is_none() {
            return Err(SnapshotError::Format {
                path: PathBuf::from("<tools/list>"),
                reason: format!(
                    "a tool descriptor has no string `name`: {}",
                    crate::quote::excerpt(&descriptor)
                ),
            });
        }
        let descriptor = sorted_keys(descriptor);
        Ok(Self {
            digest: digest(&descriptor),
            descriptor,
        })
    }

    /// The raw MCP tool name (`descriptor.name`).
    pub fn name(&self) -> &str {
        self.descriptor
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// The tool's `description`, if it has a string one.
    pub fn description(&self) -> Option<&str> {
        self.descriptor.get("description").and_then(Value::as_str)
    }

    /// The tool's `inputSchema` as sent (`None` when absent).
    pub fn input_schema(&self) -> Option<&Value> {
        self.descriptor.get("inputSchema")
    }

    /// The tool's `outputSchema` as sent (`None` when absent).
    pub fn output_schema(&self) -> Option<&Value> {
        self.descriptor.get("outputSchema")
    }

    /// The tool's `annotations` object as sent (`None` when absent).
    pub fn annotations(&self) -> Option<&Value> {
        self.descriptor.get("annotations")
    }
}

/// A server's `tools/list`, canonicalized. The file format is in the crate docs,
/// [The snapshot format](crate#the-snapshot-format).
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct Snapshot {
    /// The `serverInfo` the server sent in its `initialize` result, raw (`None` for a bare
    /// `tools/list` file).
    pub server_info: Option<Value>,
    /// The negotiated MCP protocol version (`None` for a bare `tools/list` file).
    pub protocol_version: Option<String>,
    /// The command the snapshot was taken from (`None` for a bare `tools/list` file).
    pub source: Option<SnapshotSource>,
    /// The tools, sorted by raw MCP name.
    pub tools: Vec<SnapshotTool>,
    /// How many `tools/list` entries the server sent that are not tool objects (`null`, a
    /// number, an object without a string `name`), which were left out of
    /// [`Snapshot::tools`] ([`split_tool_entries`](crate::descriptor::split_tool_entries)).
    /// The file's `invalidTools`, written only when it is not 0; drift reports a change of it.
    pub invalid_tools: usize,
    /// The entries of a bare `tools/list` file ([`Snapshot::parse`]) that are not tool
    /// objects, each with its index and what it is, left out as a live listing leaves them
    /// out (their count is [`Snapshot::invalid_tools`]); for a reader to warn about. Empty
    /// for an oma-mcp snapshot, which records only the count. Not written to a file.
    pub left_out: Vec<crate::entries::InvalidToolEntry>,
}

impl Snapshot {
    /// Builds a snapshot from raw `tools/list` descriptors (all pages, in any order).
    ///
    /// # Errors
    /// [`SnapshotError::Format`] when a descriptor has no string `name`, or two descriptors
    /// share one raw name.
    pub fn from_descriptors(
        server_info: Option<Value>,
        protocol_version: Option<String>,
        source: Option<SnapshotSource>,
        descriptors: impl IntoIterator<Item = Value>,
    ) -> Result<Self, SnapshotError> {
        let mut tools = descriptors
            .into_iter()
            .map(SnapshotTool::from_descriptor)
            .collect::<Result<Vec<_>, _>>()?;
        tools.sort_by(|a, b| a.name().cmp(b.name()));
        if let Some(pair) = tools.windows(2).find(|w| w[0].name() == w[1].name()) {
            return Err(SnapshotError::Format {
                path: PathBuf::from("<tools/list>"),
                reason: format!("the server lists the tool \"{}\" twice", pair[0].name()),
            });
        }
        Ok(Self {
            server_info: server_info.map(sorted_keys),
            protocol_version,
            source,
            tools,
            invalid_tools: 0,
            left_out: Vec::new(),
        })
    }

    /// The snapshot, recording that the server sent `count` `tools/list` entries that are
    /// not tool objects ([`Snapshot::invalid_tools`]).
    ///
    /// ```
    /// use oma_mcp_core::Snapshot;
    /// let snapshot = Snapshot::from_descriptors(None, None, None, Vec::new())
    ///     .unwrap()
    ///     .with_invalid_tools(3);
    /// assert!(snapshot.to_canonical_string().contains("\"invalidTools\": 3,"));
    /// ```
    #[must_use]
    pub fn with_invalid_tools(mut self, count: usize) -> Self {
        self.invalid_tools = count;
        self
    }

    /// The tool with the raw MCP name `name`.
    pub fn tool(&self, name: &str) -> Option<&SnapshotTool> {
        self.tools
            .binary_search_by(|t| t.name().cmp(name))
            .ok()
            .map(|i| &self.tools[i])
    }

    /// The canonical file text: keys sorted, 2-space indent, trailing newline.
    pub fn to_canonical_string(&self) -> String {
        let mut root = Map::new();
        root.insert("format".into(), Value::from(SNAPSHOT_FORMAT));
        if self.invalid_tools > 0 {
            root.insert("invalidTools".into(), Value::from(self.invalid_tools));
        }
        if let Some(v) = &self.protocol_version {
            root.insert("protocolVersion".into(), Value::from(v.as_str()));
        }
        if let Some(v) = &self.server_info {
            root.insert("serverInfo".into(), v.clone());
        }
        if let Some(s) = &self.source {
            root.insert("source".into(), s.to_json());
        }
        let tools = self
            .tools
            .iter()
            .map(|t| {
                let mut entry = Map::new();
                entry.insert("descriptor".into(), t.descriptor.clone());
                entry.insert("digest".into(), Value::from(t.digest.as_str()));
                Value::Object(entry)
            })
            .collect();
        root.insert("tools".into(), Value::Array(tools));
        let mut text = serde_json::to_string_pretty(&sorted_keys(Value::Object(root)))
            .unwrap_or_else(unreachable_json);
        text.push('\n');
        text
    }

    /// Parses snapshot text, or a bare `tools/list` result, or a JSON-RPC response holding one.
    ///
    /// `path` only names the input in error messages. A leading byte order mark (U+FEFF, as
    /// some Windows editors write) is ignored. In a bare `tools/list` result, an entry that is
    /// not a tool object (`null`, a number, an object without a string `name`) is left out
    /// and kept in [`Snapshot::left_out`], the other tools kept, as a live listing does
    /// ([`split_tool_entries`](crate::entries::split_tool_entries)).
    ///
    /// # Errors
    /// [`SnapshotError::Format`] naming `path` and what is wrong: not JSON, an unknown
    /// `format`, no `tools` array, a snapshot's tool without a string `name`, a digest that
    /// does not match its descriptor (the file was edited by hand; regenerate it), an
    /// `invalidTools` that is not a non-negative integer.
    pub fn parse(text: &str, path: &Path) -> Result<Self, SnapshotError> {
        let bad = |reason: String| SnapshotError::Format {
            path: path.to_path_buf(),
            reason,
        };
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let root: Value = serde_json::from_str(text).map_err(|e| bad(format!("not JSON ({e})")))?;
        let Value::Object(mut root) = root else {
            return Err(bad("the top level is not a JSON object".into()));
        };
        if let Some(format) = root.get("format") {
            if format.as_str() != Some(SNAPSHOT_FORMAT) {
                return Err(bad(format!(
                    "/format is {format}, this oma-mcp reads \"{SNAPSHOT_FORMAT}\""
                )));
            }
            return Self::parse_ours(root, path);
        }
        // A JSON-RPC response whose result is a tools/list result.
        if root.get("jsonrpc").is_some()
            && let Some(Value::Object(result)) = root.remove("result")
        {
            root = result;
        }
        let Some(Value::Array(tools)) = root.remove("tools") else {
            return Err(bad(
                "no `tools` array: expected an oma-mcp snapshot or a tools/list result {\"tools\": [...]}".into(),
            ));
        };
        // Entries that are not tool objects are left out, as a live listing leaves them out.
        let split = crate::entries::split_tool_entries(tools);
        let mut snapshot =
            Self::from_descriptors(None, None, None, split.tools).map_err(|e| match e {
                SnapshotError::Format { reason, .. } => bad(reason),
                other => other,
            })?;
        snapshot.invalid_tools = split.invalid.len();
        snapshot.left_out = split.invalid;
        // Keep what a corpus capture (`_source`) says about the server, when it says it.
        if let Some(Value::Object(src)) = root.get("_source") {
            snapshot.server_info = src.get("serverInfo").cloned().map(sorted_keys);
            snapshot.protocol_version = src
                .get("protocolVersion")
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        Ok(snapshot)
    }

    fn parse_ours(mut root: Map<String, Value>, path: &Path) -> Result<Self, SnapshotError> {
        let bad = |reason: String| SnapshotError::Format {
            path: path.to_path_buf(),
            reason,
        };
        let Some(Value::Array(entries)) = root.remove("tools") else {
            return Err(bad("/tools is missing or not an array".into()));
        };
        let mut tools = Vec::with_capacity(entries.len());
        for (i, entry) in entries.into_iter().enumerate() {
            let Value::Object(mut entry) = entry else {
                return Err(bad(format!("/tools/{i} is not an object")));
            };
            let Some(descriptor) = entry.remove("descriptor") else {
                return Err(bad(format!("/tools/{i}/descriptor is missing")));
            };
            let tool = SnapshotTool::from_descriptor(descriptor).map_err(|_| {
                bad(format!(
                    "/tools/{i}/descriptor/name is missing or not a string"
                ))
            })?;
            match entry.get("digest").and_then(Value::as_str) {
                Some(d) if d == tool.digest => {}
                Some(d) => {
                    return Err(bad(format!(
                        "/tools/{i}/digest of tool \"{}\" is {d} but its descriptor hashes to {}; \
                         the file was edited by hand (to keep the edit, set the digest to the \
                         new value)",
                        tool.name(),
                        tool.digest
                    )));
                }
                None => return Err(bad(format!("/tools/{i}/digest is missing"))),
            }
            tools.push(tool);
        }
        let source = match root.get("source") {
            None | Some(Value::Null) => None,
            Some(Value::Object(s)) => Some(SnapshotSource::from_json(s).ok_or_else(|| {
                bad(
                    "/source must be {\"command\": string, \"args\": [string]} or {\"url\": \
                     string, \"headers\": {string: string}, \"headersFromEnv\": [string]}"
                        .into(),
                )
            })?),
            Some(_) => return Err(bad("/source is not an object".into())),
        };
        let protocol_version = match root.get("protocolVersion") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err(bad("/protocolVersion is not a string".into())),
        };
        let invalid_tools = match root.get("invalidTools") {
            None => 0,
            Some(count) => count
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| {
                    bad(format!(
                        "/invalidTools is {}, not a non-negative integer (the count of \
                         `tools/list` entries that are not tool objects)",
                        crate::quote::excerpt(count)
                    ))
                })?,
        };
        Self::from_descriptors(
            root.remove("serverInfo"),
            protocol_version,
            source,
            tools.into_iter().map(|t| t.descriptor),
        )
        .map(|snapshot| snapshot.with_invalid_tools(invalid_tools))
        .map_err(|e| match e {
            SnapshotError::Format { reason, .. } => bad(reason),
            other => other,
        })
    }

    /// Reads and parses a snapshot (or bare `tools/list`) file.
    ///
    /// # Errors
    /// [`SnapshotError::Io`] when the file cannot be read, [`SnapshotError::Format`] as in
    /// [`Snapshot::parse`], or naming the line and column of the first byte that is not
    /// UTF-8.
    pub fn read(path: &Path) -> Result<Self, SnapshotError> {
        let bytes = std::fs::read(path).map_err(|source| SnapshotError::Io {
            action: "read",
            path: path.to_path_buf(),
            source,
        })?;
        let text = String::from_utf8(bytes).map_err(|e| {
            let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
            let line = valid.iter().filter(|&&b| b == b'\n').count() + 1;
            let line_start = valid.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            let column = String::from_utf8_lossy(&valid[line_start..])
                .chars()
                .count()
                + 1;
            SnapshotError::Format {
                path: path.to_path_buf(),
                reason: format!(
                    "not UTF-8 (an invalid byte at line {line} column {column}, byte offset {})",
                    valid.len()
                ),
            }
        })?;
        Self::parse(&text, path)
    }

    /// Parses snapshot text embedded in code (a generated module's `SNAPSHOT`), named
    /// `<embedded snapshot>` in errors.
    ///
    /// # Errors
    /// [`SnapshotError::Format`] as in [`Snapshot::parse`].
    pub fn parse_embedded(text: &str) -> Result<Self, SnapshotError> {
        Self::parse(text, Path::new("<embedded snapshot>"))
    }
}

/// `value` with the keys of every object sorted (by UTF-16 code units, as RFC 8785 says;
/// for ASCII keys that is byte order).
pub fn sorted_keys(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|(a, _), (b, _)| a.encode_utf16().cmp(b.encode_utf16()));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k, sorted_keys(v)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted_keys).collect()),
        other => other,
    }
}

/// The canonical JSON of `value` (RFC 8785 style): object keys sorted by UTF-16 code units,
/// no insignificant whitespace, strings and numbers as `serde_json` writes them.
pub fn canonical_json(value: &Value) -> String {
    serde_json::to_string(&sorted_keys(value.clone())).unwrap_or_else(unreachable_json)
}

/// `sha256:` + the lowercase hex SHA-256 of [`canonical_json`] of `value`.
pub fn digest(value: &Value) -> String {
    let hash = Sha256::digest(canonical_json(value).as_bytes());
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in hash.iter() {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

/// Serializing a `serde_json::Value` to a `String` cannot fail (string keys, finite numbers);
/// this keeps the signature honest without an `unwrap`.
fn unreachable_json(e: serde_json::Error) -> String {
    format!("\"<unserializable JSON: {e}>\"")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn sample() -> Snapshot {
        Snapshot::from_descriptors(
            Some(json!({"version": "1.0", "name": "srv"})),
            Some("2025-06-18".into()),
            Some(SnapshotSource::new("node", ["server.js", "stdio"])),
            vec![
                json!({"name": "zeta", "inputSchema": {"type": "object"}, "_meta": {"x": 1}}),
                json!({"name": "alpha", "description": "A", "inputSchema": {"type": "object", "properties": {}}}),
            ],
        )
        .unwrap()
    }

    #[test]
    fn canonical_text_is_sorted_and_stable() {
        let text = sample().to_canonical_string();
        let expected = r#"{
  "format": "oma-mcp-snapshot/1",
  "protocolVersion": "2025-06-18",
  "serverInfo": {
    "name": "srv",
    "version": "1.0"
  },
  "source": {
    "args": [
      "server.js",
      "stdio"
    ],
    "command": "node"
  },
  "tools": [
    {
      "descriptor": {
        "description": "A",
        "inputSchema": {
          "properties": {},
          "type": "object"
        },
        "name": "alpha"
      },
      "digest": "sha256:DIGEST_ALPHA"
    },
    {
      "descriptor": {
        "_meta": {
          "x": 1
        },
        "inputSchema": {
          "type": "object"
        },
        "name": "zeta"
      },
      "digest": "sha256:DIGEST_ZETA"
    }
  ]
}
"#;
        let snap = sample();
        let expected = expected
            .replace("sha256:DIGEST_ALPHA", &snap.tools[0].digest)
            .replace("sha256:DIGEST_ZETA", &snap.tools[1].digest);
        assert_eq!(text, expected);
        let reparsed = Snapshot::parse(&text, Path::new("x.json")).unwrap();
        assert_eq!(reparsed, snap);
        assert_eq!(reparsed.to_canonical_string(), text);
    }

    /// A URL source: the redacted URL, the literal headers and the names of the headers
    /// from the environment, in a fixed layout; read back equal.
    #[test]
    fn a_url_source_round_trips_with_names_only() {
        let source = SnapshotSource::http("https://me:s3cret@api.example.com/mcp/?key=abc")
            .with_header("X-MCP-Toolsets", "repos,issues")
            .with_env_header("Authorization")
            .with_env_header("X-Api-Key");
        assert_eq!(
            source.url.as_deref(),
            Some("https://***@api.example.com/mcp/?key=***")
        );
        let snap = Snapshot::from_descriptors(None, None, Some(source), Vec::new()).unwrap();
        let text = snap.to_canonical_string();
        assert_eq!(
            text,
            r#"{
  "format": "oma-mcp-snapshot/1",
  "source": {
    "headers": {
      "X-MCP-Toolsets": "repos,issues"
    },
    "headersFromEnv": [
      "Authorization",
      "X-Api-Key"
    ],
    "url": "https://***@api.example.com/mcp/?key=***"
  },
  "tools": []
}
"#
        );
        let reparsed = Snapshot::parse(&text, Path::new("s.json")).unwrap();
        assert_eq!(reparsed, snap);
        assert_eq!(reparsed.to_canonical_string(), text);
        // No header of either kind: both keys are still written, empty.
        let bare = Snapshot::from_descriptors(
            None,
            None,
            Some(SnapshotSource::http("http://127.0.0.1:8080/mcp")),
            Vec::new(),
        )
        .unwrap();
        assert_eq!(
            bare.to_canonical_string(),
            "{\n  \"format\": \"oma-mcp-snapshot/1\",\n  \"source\": {\n    \"headers\": {},\n    \
             \"headersFromEnv\": [],\n    \"url\": \"http://127.0.0.1:8080/mcp\"\n  },\n  \
             \"tools\": []\n}\n"
        );
        // `headers` and `headersFromEnv` may be left out by a hand-written file.
        let short =
            r#"{"format": "oma-mcp-snapshot/1", "source": {"url": "http://h/mcp"}, "tools": []}"#;
        assert_eq!(
            Snapshot::parse(short, Path::new("s.json")).unwrap().source,
            Some(SnapshotSource::http("http://h/mcp"))
        );
    }

    /// `invalidTools` is written only when the server sent an entry that is not a tool
    /// object (so a snapshot of a server that sent none is what it always was), between
    /// `format` and `protocolVersion`, and read back; anything but a non-negative integer is
    /// refused.
    #[test]
    fn the_count_of_invalid_entries_is_written_only_when_there_are_some() {
        let none = sample();
        assert_eq!(none.invalid_tools, 0);
        assert!(!none.to_canonical_string().contains("invalidTools"));
        let three = sample().with_invalid_tools(3);
        let text = three.to_canonical_string();
        assert_eq!(
            text,
            none.to_canonical_string().replace(
                "  \"format\": \"oma-mcp-snapshot/1\",\n",
                "  \"format\": \"oma-mcp-snapshot/1\",\n  \"invalidTools\": 3,\n"
            )
        );
        let reparsed = Snapshot::parse(&text, Path::new("s.json")).unwrap();
        assert_eq!(reparsed.invalid_tools, 3);
        assert_eq!(reparsed, three);
        assert_eq!(reparsed.to_canonical_string(), text);
        // An explicit 0 reads as none (and is not written back).
        let zero = r#"{"format": "oma-mcp-snapshot/1", "invalidTools": 0, "tools": []}"#;
        assert_eq!(
            Snapshot::parse(zero, Path::new("s.json"))
                .unwrap()
                .invalid_tools,
            0
        );
        let err = |count: &str| {
            Snapshot::parse(
                &format!(
                    r#"{{"format": "oma-mcp-snapshot/1", "invalidTools": {count}, "tools": []}}"#
                ),
                Path::new("s.json"),
            )
            .unwrap_err()
            .to_string()
        };
        for (count, shown) in [
            ("-1", "-1"),
            ("1.5", "1.5"),
            ("\"3\"", "\"3\""),
            ("null", "null"),
            ("[1]", "[1]"),
        ] {
            assert_eq!(
                err(count),
                format!(
                    "snapshot s.json is not valid: /invalidTools is {shown}, not a non-negative \
                     integer (the count of `tools/list` entries that are not tool objects); \
                     regenerate it with `oma-mcp snapshot`"
                ),
                "{count}"
            );
        }
        // A snapshot file with a tool that has no name is still not valid.
        let nameless = text.replace("\"name\": \"alpha\"", "\"title\": \"alpha\"");
        assert_eq!(
            Snapshot::parse(&nameless, Path::new("s.json"))
                .unwrap_err()
                .to_string(),
            "snapshot s.json is not valid: /tools/0/descriptor/name is missing or not a string; \
             regenerate it with `oma-mcp snapshot`"
        );
        assert!(SnapshotTool::from_descriptor(json!({"title": "alpha"})).is_err());
    }

    #[test]
    fn a_source_that_is_neither_form_is_refused() {
        let err = |source: &str| {
            Snapshot::parse(
                &format!(r#"{{"format": "oma-mcp-snapshot/1", "source": {source}, "tools": []}}"#),
                Path::new("s.json"),
            )
            .unwrap_err()
            .to_string()
        };
        let expected = "snapshot s.json is not valid: /source must be {\"command\": string, \
                        \"args\": [string]} or {\"url\": string, \"headers\": {string: \
                        string}, \"headersFromEnv\": [string]}; regenerate it with `oma-mcp \
                        snapshot`";
        for source in [
            r#"{"command": "x", "args": [], "url": "http://h/"}"#,
            r#"{"url": 1}"#,
            r#"{"url": "http://h/", "headers": {"A": 1}}"#,
            r#"{"url": "http://h/", "headersFromEnv": "Authorization"}"#,
            r#"{"command": "x"}"#,
        ] {
            assert_eq!(err(source), expected, "{source}");
        }
    }

    #[test]
    fn a_hand_edited_descriptor_is_refused_with_what_to_do() {
        let snap = sample();
        let text = snap
            .to_canonical_string()
            .replace("\"description\": \"A\"", "\"description\": \"B\"");
        let edited = SnapshotTool::from_descriptor(
            json!({"description": "B", "inputSchema": {"properties": {}, "type": "object"}, "name": "alpha"}),
        )
        .unwrap();
        let err = Snapshot::parse(&text, Path::new("mcp/x.json")).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "snapshot mcp/x.json is not valid: /tools/0/digest of tool \"alpha\" is {} but \
                 its descriptor hashes to {}; the file was edited by hand (to keep the edit, set \
                 the digest to the new value); regenerate it with `oma-mcp snapshot`",
                snap.tools[0].digest, edited.digest
            )
        );
    }

    /// The accessors read the descriptor's own fields, `None` when absent (or, for the
    /// description, not a string); `tool` finds a tool by its raw name.
    #[test]
    fn tools_are_found_by_name_and_read_by_field() {
        let snap = Snapshot::from_descriptors(
            None,
            None,
            None,
            vec![
                json!({"name": "m", "description": 7}),
                json!({"name": "z"}),
                json!({
                    "name": "a", "description": "Adds.", "inputSchema": {"type": "object"},
                    "outputSchema": {"type": "object", "required": ["sum"]},
                    "annotations": {"readOnlyHint": true},
                }),
            ],
        )
        .unwrap();
        let a = snap.tool("a").unwrap();
        assert_eq!(a.name(), "a");
        assert_eq!(a.description(), Some("Adds."));
        assert_eq!(a.input_schema(), Some(&json!({"type": "object"})));
        assert_eq!(
            a.output_schema(),
            Some(&json!({"type": "object", "required": ["sum"]}))
        );
        assert_eq!(a.annotations(), Some(&json!({"readOnlyHint": true})));
        let m = snap.tool("m").unwrap();
        assert_eq!(m.name(), "m");
        assert_eq!(m.description(), None);
        assert_eq!(m.input_schema(), None);
        assert_eq!(m.output_schema(), None);
        assert_eq!(m.annotations(), None);
        assert_eq!(snap.tool("z").unwrap().name(), "z");
        assert_eq!(snap.tool("b"), None);
        assert_eq!(snap.tool(""), None);
    }

    #[test]
    fn digest_is_key_order_independent() {
        let a = digest(&json!({"b": 1, "a": [{"y": 2, "x": 1}]}));
        let b = digest(&json!({"a": [{"x": 1, "y": 2}], "b": 1}));
        assert_eq!(a, b);
        assert_eq!(
            canonical_json(&json!({"b": 1, "a": "é"})),
            r#"{"a":"é","b":1}"#
        );
        // SHA-256 of the 2-byte text `{}`.
        assert_eq!(
            digest(&json!({})),
            "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
    }

    /// A bare listing keeps its tools and leaves out what is no tool, as a live one does.
    #[test]
    fn a_bare_listing_leaves_out_entries_that_are_no_tools() {
        let bare = r#"{"tools": [{"name": "b"}, null, {"name": "a"}, {"title": "x"}]}"#;
        let snap = Snapshot::parse(bare, Path::new("bare.json")).unwrap();
        let names: Vec<&str> = snap.tools.iter().map(SnapshotTool::name).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(snap.invalid_tools, 2);
        let left_out: Vec<String> = snap.left_out.iter().map(ToString::to_string).collect();
        assert_eq!(
            left_out,
            [
                "entry 1 of `tools/list` is `null`, not a tool object",
                r#"entry 3 of `tools/list` is an object without a string `name`: {"title":"x"}"#
            ]
        );
        let written = Snapshot::parse(&snap.to_canonical_string(), Path::new("s.json")).unwrap();
        assert_eq!((written.invalid_tools, written.left_out.len()), (2, 0));
    }

    #[test]
    fn bare_tools_list_and_jsonrpc_response_are_read() {
        let bare = r#"{"tools": [{"name": "b"}, {"name": "a"}]}"#;
        let snap = Snapshot::parse(bare, Path::new("bare.json")).unwrap();
        assert_eq!(
            snap.tools.iter().map(|t| t.name()).collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert_eq!(snap.source, None);
        let rpc = r#"{"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "x"}]}}"#;
        assert_eq!(
            Snapshot::parse(rpc, Path::new("r.json")).unwrap().tools[0].name(),
            "x"
        );
    }

    #[test]
    fn errors_name_the_file_and_place() {
        let err = |text: &str| {
            Snapshot::parse(text, Path::new("mcp/s.json"))
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err("{"),
            "snapshot mcp/s.json is not valid: not JSON (EOF while parsing an object at line 1 column 1); regenerate it with `oma-mcp snapshot`"
        );
        assert_eq!(
            err(r#"{"format": "oma-mcp-snapshot/9", "tools": []}"#),
            "snapshot mcp/s.json is not valid: /format is \"oma-mcp-snapshot/9\", this oma-mcp reads \"oma-mcp-snapshot/1\"; regenerate it with `oma-mcp snapshot`"
        );
        assert_eq!(
            err(r#"{"tools": [{"name": "a"}, {"name": "a"}]}"#),
            "snapshot mcp/s.json is not valid: the server lists the tool \"a\" twice; regenerate it with `oma-mcp snapshot`"
        );
        let mut tampered = sample().to_canonical_string();
        tampered = tampered.replace("\"description\": \"A\"", "\"description\": \"B\"");
        assert!(err(&tampered).starts_with(
            "snapshot mcp/s.json is not valid: /tools/0/digest of tool \"alpha\" is sha256:"
        ));
    }

    #[test]
    fn byte_order_mark_is_ignored_and_non_utf8_is_located() {
        let dir = tempfile::tempdir().unwrap();
        let text = sample().to_canonical_string();
        let bom = dir.path().join("bom.json");
        std::fs::write(&bom, format!("\u{feff}{text}")).unwrap();
        assert_eq!(Snapshot::read(&bom).unwrap(), sample());

        let bad = dir.path().join("bad.json");
        std::fs::write(&bad, b"{\n  \"tools\": [\"\xc3\xa9\xff\"]\n}\n").unwrap();
        assert_eq!(
            Snapshot::read(&bad).unwrap_err().to_string(),
            format!(
                "snapshot {} is not valid: not UTF-8 (an invalid byte at line 2 column 15, byte \
                 offset 17); regenerate it with `oma-mcp snapshot`",
                bad.display()
            )
        );
    }
}
