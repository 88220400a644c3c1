//! Redaction: which values a cassette never holds, and where else they are removed from
//! (see the [cassette module docs](super)).

use std::collections::BTreeSet;

use serde_json::Value;

use super::REDACTED;

/// The member names redacted by default: credentials a tool call may carry. A member is
/// redacted when its name, lowercase and without `-` and `_`, ends with one of these (so
/// `accessToken`, `client_secret`, `X-Api-Key`, `aws_secret_access_key` and `github_token`
/// are), unless it names a pagination cursor ([`NOT_SECRET`]).
pub const DEFAULT_REDACTED: [&str; 11] = [
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
];

/// Names that end like a redacted name but hold no credential: the pagination cursors of
/// common APIs (`nextPageToken`, `pageToken`, `NextToken`, `continuationToken`). A replay
/// must see them as recorded, or a paginating client asks for the same page forever. They are
/// still redacted when a redacted name is one of them (or ends with one of them).
pub const NOT_SECRET: [&str; 4] = ["pagetoken", "nexttoken", "continuationtoken", "synctoken"];

/// Secret values shorter than this many bytes are only redacted where their member is, not
/// wherever the same text occurs (a short value such as `1` would blank out unrelated text).
const MIN_SECRET_LEN: usize = 4;

/// The member names whose values a cassette never holds (see the [cassette module
/// docs](super)), and secret values known beforehand
/// ([`with_values`](Redaction::with_values)).
///
/// Two redactions are equal when their names are; the values are never compared or shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redaction {
    /// Names as written (for the file's `redacted`), and normalized for matching.
    fields: BTreeSet<String>,
    /// Values redacted wherever they occur.
    values: Known,
}

/// Secret values (known beforehand, or learned while recording): never written, never shown
/// (`Debug` gives their number), never compared (any two are equal).
#[derive(Clone, Default)]
pub(super) struct Known(pub(super) Secrets);

impl std::fmt::Debug for Known {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} secrets", self.0.len())
    }
}

impl PartialEq for Known {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Known {}

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

/// Secrets found while redacting: the values removed, to be removed wherever they recur.
pub(super) type Secrets = BTreeSet<String>;

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
            values: Known::default(),
        }
    }

    /// This redaction, and `values` replaced by [`REDACTED`] wherever they occur (each of at
    /// least 4 bytes; as written and in the encodings [`apply_all`](Self::apply_all)
    /// searches): secrets known beforehand, such as the API key a server was started with,
    /// which it may echo under any name. The values are not written to a cassette (its
    /// `redacted` lists the names only).
    #[must_use]
    pub fn with_values(mut self, values: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.values.0.extend(values.into_iter().map(Into::into));
        self
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

    /// The [known values](Self::with_values).
    pub(super) fn known_values(&self) -> &Secrets {
        &self.values.0
    }

    /// The normalized names, sorted.
    pub fn fields(&self) -> impl Iterator<Item = &str> {
        self.fields.iter().map(String::as_str)
    }

    /// Whether the member (or URL query parameter, or `name` of a `name`/`value` pair)
    /// `name` is redacted: its normalized form ends with one of the names, and not with a
    /// longer [`NOT_SECRET`] name that ends with that one (`nextPageToken` is not redacted by
    /// `token`, but is by `pagetoken`).
    pub fn redacts(&self, name: &str) -> bool {
        let name = normalized(name);
        self.fields.iter().any(|f| {
            name.ends_with(f.as_str())
                && !NOT_SECRET
                    .iter()
                    .any(|e| e.len() > f.len() && e.ends_with(f.as_str()) && name.ends_with(e))
        })
    }

    /// `values` with every redacted value replaced by [`REDACTED`], at any depth, and then
    /// every secret found that way (a string, or the JSON text of a number, array or object,
    /// of at least 4 bytes) and every [known value](Self::with_values) replaced by
    /// [`REDACTED`] wherever it occurs in a string of any of `values`: as written,
    /// JSON-escaped (with non-ASCII characters as is and as `\uXXXX`, as Python writes them)
    /// and percent-encoded (every byte but RFC 3986's unreserved characters): a server that
    /// repeats `structuredContent` as JSON text in a text block, puts a token into a URL or
    /// echoes it in a message does not leak it.
    ///
    /// A redacted value is that of a member with a redacted name; the `value` of an object
    /// whose `name` (or `key`) is a redacted name (`{"name": "Authorization", "value": …}`,
    /// as HTTP header lists are written); and a URL query parameter with a redacted name
    /// (`?access_token=…`) in any string. `null` and booleans are kept: they are no secrets.
    pub fn apply_all(&self, values: &[&Value]) -> Vec<Value> {
        let mut secrets = self.values.0.clone();
        let masked: Vec<Value> = values.iter().map(|v| self.mask(v, &mut secrets)).collect();
        let forms = search_forms(&secrets);
        masked
            .into_iter()
            .map(|v| replace_secrets(v, &forms))
            .collect()
    }

    /// [`apply_all`](Self::apply_all) of one value.
    pub fn apply(&self, value: &Value) -> Value {
        self.apply_all(&[value]).pop().unwrap_or(Value::Null)
    }

    /// `text` with every secret of `values` and of `text`'s own URL queries (as
    /// [`apply_all`](Self::apply_all) finds them) replaced by [`REDACTED`].
    pub fn apply_text(&self, text: &str, values: &[&Value]) -> String {
        let mut secrets = self.values.0.clone();
        for v in values {
            self.mask(v, &mut secrets);
        }
        self.query_secrets(text, &mut secrets);
        replace_in_text(text, &search_forms(&secrets))
    }

    /// `value` with redacted values replaced, the values removed added to `secrets`.
    pub(super) fn mask(&self, value: &Value, secrets: &mut Secrets) -> Value {
        match value {
            Value::Object(map) => {
                let pair_secret = ["name", "key"].iter().any(|k| {
                    map.get(*k)
                        .and_then(Value::as_str)
                        .is_some_and(|n| self.redacts(n))
                });
                Value::Object(
                    map.iter()
                        .map(|(k, v)| {
                            let v = if self.redacts(k) || (pair_secret && k == "value") {
                                redacted(v, secrets)
                            } else {
                                self.mask(v, secrets)
                            };
                            (k.clone(), v)
                        })
                        .collect(),
                )
            }
            Value::Array(items) => {
                Value::Array(items.iter().map(|v| self.mask(v, secrets)).collect())
            }
            Value::String(s) => {
                self.query_secrets(s, secrets);
                value.clone()
            }
            other => other.clone(),
        }
    }

    /// Adds the values of redacted URL query (or form body) parameters in `s` to `secrets`:
    /// `x` of `…?access_token=x&…`.
    pub(super) fn query_secrets(&self, s: &str, secrets: &mut Secrets) {
        for (i, _) in s.match_indices(['?', '&', ';']) {
            let rest = &s[i + 1..];
            let Some(eq) = rest.find('=') else { continue };
            let name = &rest[..eq];
            let is_name = !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
            if !is_name || !self.redacts(name) {
                continue;
            }
            let value = &rest[eq + 1..];
            let end = value
                .find(|c: char| {
                    matches!(c, '&' | '#' | ';' | '"' | '\'' | '<' | '>' | '\\')
                        || c.is_whitespace()
                })
                .unwrap_or(value.len());
            if end > 0 {
                secrets.insert(value[..end].to_owned());
            }
        }
    }
}

/// [`REDACTED`] for a redacted `value` (kept as is when `null` or a boolean, which hold no
/// secret), adding what it held to `secrets`.
fn redacted(value: &Value, secrets: &mut Secrets) -> Value {
    match value {
        Value::Null | Value::Bool(_) => value.clone(),
        Value::String(s) => {
            secrets.insert(s.clone());
            Value::from(REDACTED)
        }
        other => {
            secrets.insert(other.to_string());
            Value::from(REDACTED)
        }
    }
}

/// What to search strings for: each secret of at least [`MIN_SECRET_LEN`] bytes, as written,
/// JSON-escaped (a secret with a `"` inside JSON text in a text block), JSON-escaped with
/// non-ASCII characters as `\uXXXX` (Python's `json.dumps`) and percent-encoded; longest
/// first (a secret that holds another goes as a whole).
pub(super) fn search_forms(secrets: &Secrets) -> Vec<String> {
    let mut forms: Vec<String> = Vec::new();
    for secret in secrets
        .iter()
        .filter(|s| s.len() >= MIN_SECRET_LEN && *s != REDACTED)
    {
        forms.push(secret.clone());
        let escaped = Value::from(secret.as_str()).to_string();
        let escaped = &escaped[1..escaped.len() - 1];
        forms.push(escaped.to_owned());
        let mut ascii = String::with_capacity(escaped.len());
        for c in escaped.chars() {
            if c.is_ascii() {
                ascii.push(c);
            } else {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    ascii.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
        forms.push(ascii);
        forms.push(percent_encoding::utf8_percent_encode(secret, NOT_UNRESERVED).to_string());
    }
    forms.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    forms.dedup();
    forms
}

/// What percent-encoding encodes: every byte but RFC 3986's unreserved characters
/// (`A-Z a-z 0-9 - . _ ~`).
const NOT_UNRESERVED: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// `text` with each of `forms` replaced by [`REDACTED`].
pub(super) fn replace_in_text(text: &str, forms: &[String]) -> String {
    let mut text = text.to_owned();
    for form in forms {
        if text.contains(form.as_str()) {
            text = text.replace(form.as_str(), REDACTED);
        }
    }
    text
}

/// `value` with each of `forms` replaced by [`REDACTED`] in every string.
pub(super) fn replace_secrets(value: Value, forms: &[String]) -> Value {
    if forms.is_empty() {
        return value;
    }
    match value {
        Value::String(s) => Value::String(replace_in_text(&s, forms)),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (k, replace_secrets(v, forms)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|v| replace_secrets(v, forms))
                .collect(),
        ),
        other => other,
    }
}
