//! Where a snapshot was taken from: [`SnapshotSource`].

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use crate::redact::redact_url;

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
    pub(super) fn to_json(&self) -> Value {
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
    pub(super) fn from_json(source: &Map<String, Value>) -> Option<Self> {
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
