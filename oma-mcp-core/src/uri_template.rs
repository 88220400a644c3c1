//! URI templates (RFC 6570), the form of a resource template's `uriTemplate` (MCP
//! "Resources", `resources/templates/list`): parsing, the variables a template names, and
//! expansion with percent-encoding exactly as the RFC says.
//!
//! Parsing and expansion are the `iri-string` crate's (every level of RFC 6570: the operators
//! `+ # . / ; ? &`, the explode modifier `*` and the prefix modifier `:n`); this module adds
//! what code generation needs on top, each variable's operator and modifiers, and values of
//! the two kinds a generated template type holds, a string and a list.
//!
//! ```
//! use oma_mcp_core::uri_template::{Operator, TemplateValue, UriTemplate};
//!
//! let template = UriTemplate::parse("repo://{owner}/{repo}/contents{/path*}").unwrap();
//! let path = &template.variables()[2];
//! assert_eq!((path.name.as_str(), path.operator, path.explode), ("path", Operator::Path, true));
//! let uri = template
//!     .expand(&[
//!         ("owner", TemplateValue::from("octo cat")),
//!         ("repo", TemplateValue::from("hello")),
//!         ("path", TemplateValue::List(vec!["src".into(), "main.rs".into()])),
//!     ])
//!     .unwrap();
//! assert_eq!(uri, "repo://octo%20cat/hello/contents/src/main.rs");
//! ```

use std::fmt;

use iri_string::spec::UriSpec;
use iri_string::template::UriTemplateStr;
use iri_string::template::simple_context::{SimpleContext, Value};

/// An RFC 6570 expression's operator (section 2.2); [`Operator::Simple`] when there is none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Operator {
    /// `{var}`: simple string expansion, reserved characters percent-encoded.
    Simple,
    /// `{+var}`: reserved expansion, reserved characters kept.
    Reserved,
    /// `{#var}`: fragment expansion, `#` first.
    Fragment,
    /// `{.var}`: label expansion, `.` before each value.
    Label,
    /// `{/var}`: path segments, `/` before each value.
    Path,
    /// `{;var}`: path-style parameters, `;name=value`.
    PathParameter,
    /// `{?var}`: form-style query, `?name=value&…`.
    Query,
    /// `{&var}`: form-style query continuation, `&name=value`.
    QueryContinuation,
}

impl Operator {
    /// The operator of an expression whose first character is `c`; `None` when `c` starts a
    /// variable name (no operator).
    fn of(c: char) -> Option<Self> {
        Some(match c {
            '+' => Self::Reserved,
            '#' => Self::Fragment,
            '.' => Self::Label,
            '/' => Self::Path,
            ';' => Self::PathParameter,
            '?' => Self::Query,
            '&' => Self::QueryContinuation,
            _ => return None,
        })
    }

    /// Whether the expression is a form-style query (`?` or `&`): its variables are
    /// conventionally optional, and an undefined one leaves no `name=` behind.
    pub fn is_query(self) -> bool {
        matches!(self, Self::Query | Self::QueryContinuation)
    }
}

/// One variable of a template, as its first expression names it (RFC 6570 section 2.3).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct TemplateVariable {
    /// The variable name as written (letters, digits, `_`, `.` and percent-encoded triplets).
    pub name: String,
    /// The operator of the expression that names it first.
    pub operator: Operator,
    /// Whether some expression explodes it (`{/path*}`): its value is meant to be a list.
    pub explode: bool,
    /// Whether some expression takes a prefix of it (`{var:3}`): its value must then be a
    /// string (section 2.4.1: prefixes do not apply to lists).
    pub prefix: bool,
}

/// A value to expand a variable with (RFC 6570 section 2.3: a string, a list, or undefined;
/// associative arrays are not offered).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateValue {
    /// A string, percent-encoded as the operator says (UTF-8, then `%XX`).
    Text(String),
    /// A list of strings; an empty list is undefined (section 2.3).
    List(Vec<String>),
    /// No value: the variable is left out of the expansion.
    Undefined,
}

impl From<&str> for TemplateValue {
    fn from(text: &str) -> Self {
        Self::Text(text.to_owned())
    }
}

impl From<String> for TemplateValue {
    fn from(text: String) -> Self {
        Self::Text(text)
    }
}

impl<T: Into<TemplateValue>> From<Option<T>> for TemplateValue {
    fn from(value: Option<T>) -> Self {
        value.map_or(Self::Undefined, Into::into)
    }
}

impl From<Vec<String>> for TemplateValue {
    fn from(list: Vec<String>) -> Self {
        Self::List(list)
    }
}

/// A template that is not RFC 6570, or a value that does not fit its variable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("URI template {template:?}: {reason}")]
#[non_exhaustive]
pub struct UriTemplateError {
    /// The template, as given.
    pub template: String,
    /// What is wrong, with the byte position where the parser found it.
    pub reason: String,
}

/// A parsed RFC 6570 URI template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    text: String,
    /// `text` with every non-ASCII character outside expressions percent-encoded (UTF-8),
    /// as expansion writes them (RFC 6570 section 3.1), which is what `iri-string` parses
    /// and expands: it takes ASCII literals only.
    encoded: String,
    variables: Vec<TemplateVariable>,
}

/// `text` with each non-ASCII character outside `{…}` percent-encoded as UTF-8 (RFC 6570
/// section 3.1: a literal character a URI may not hold is written that way).
fn encode_literals(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_expression = false;
    for c in text.chars() {
        match c {
            '{' => in_expression = true,
            '}' => in_expression = false,
            _ => {}
        }
        if in_expression || c.is_ascii() {
            out.push(c);
        } else {
            let mut bytes = [0; 4];
            for byte in c.encode_utf8(&mut bytes).bytes() {
                out.push_str(&format!("%{byte:02X}"));
            }
        }
    }
    out
}

impl UriTemplate {
    /// Parses `text` as an RFC 6570 template (every level). Literal characters outside the
    /// ASCII range (`file:///文档/{name}`) are allowed, as the RFC allows them, and expand
    /// percent-encoded.
    ///
    /// # Errors
    /// [`UriTemplateError`] naming the template and what is wrong: an expression not closed,
    /// a character a template may not hold, an operator RFC 6570 reserves (`=`, `,`, `!`, `@`,
    /// `|`), a malformed modifier.
    pub fn parse(text: &str) -> Result<Self, UriTemplateError> {
        let encoded = encode_literals(text);
        // Variable names are ASCII (section 2.3); what is left outside ASCII is inside an
        // expression. Refused here, so `iri-string` only ever reads ASCII (it slices
        // percent-encoded triplets by bytes).
        if let Some(position) = encoded.find(|c: char| !c.is_ascii()) {
            return Err(UriTemplateError {
                template: text.to_owned(),
                reason: format!(
                    "a character outside ASCII inside an expression (at byte {position} of \
                     the template with its literals percent-encoded); variable names are \
                     ASCII letters, digits, `_`, `.` and percent-encoded triplets"
                ),
            });
        }
        let parsed = UriTemplateStr::new(&encoded).map_err(|e| UriTemplateError {
            template: text.to_owned(),
            reason: e.to_string(),
        })?;
        let mut variables: Vec<TemplateVariable> = Vec::new();
        // The template is valid: every `{` opens an expression that a `}` closes, holding an
        // optional operator and comma-separated `name`, `name*` or `name:digits`.
        let mut rest = parsed.as_str();
        while let Some(open) = rest.find('{') {
            let after = &rest[open + 1..];
            let close = after.find('}').unwrap_or(after.len());
            let mut expression = &after[..close];
            rest = after.get(close + 1..).unwrap_or_default();
            let operator = match expression.chars().next().and_then(Operator::of) {
                Some(operator) => {
                    expression = &expression[1..];
                    operator
                }
                None => Operator::Simple,
            };
            for spec in expression.split(',') {
                let (name, explode, prefix) = match spec.split_once(':') {
                    Some((name, _)) => (name, false, true),
                    None => match spec.strip_suffix('*') {
                        Some(name) => (name, true, false),
                        None => (spec, false, false),
                    },
                };
                match variables.iter_mut().find(|v| v.name == name) {
                    Some(known) => {
                        known.explode |= explode;
                        known.prefix |= prefix;
                    }
                    None => variables.push(TemplateVariable {
                        name: name.to_owned(),
                        operator,
                        explode,
                        prefix,
                    }),
                }
            }
        }
        Ok(Self {
            text: text.to_owned(),
            encoded,
            variables,
        })
    }

    /// The template text, as given.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Each variable once, in the order the template first names them.
    pub fn variables(&self) -> &[TemplateVariable] {
        &self.variables
    }

    /// The URI: the template with each expression expanded from `values` (name, value), as
    /// RFC 6570 section 3 says; a variable without a value is undefined.
    ///
    /// # Errors
    /// [`UriTemplateError`] when a list is given for a variable the template takes a prefix
    /// of (section 2.4.1).
    pub fn expand(&self, values: &[(&str, TemplateValue)]) -> Result<String, UriTemplateError> {
        let mut context = SimpleContext::new();
        for (name, value) in values {
            let value = match value {
                TemplateValue::Text(text) => Value::String(text.clone()),
                TemplateValue::List(list) => Value::List(list.clone()),
                TemplateValue::Undefined => Value::Undefined,
            };
            context.insert(*name, value);
        }
        let failed = |e: iri_string::template::Error| UriTemplateError {
            template: self.text.clone(),
            reason: e.to_string(),
        };
        // Parsed once in `parse`; this only borrows the text again.
        let template = UriTemplateStr::new(&self.encoded).map_err(failed)?;
        let expanded = template.expand::<UriSpec, _>(&context).map_err(failed)?;
        // `expand` checked every value's kind; writing into a `String` cannot fail.
        let mut uri = String::new();
        fmt::write(&mut uri, format_args!("{expanded}")).map_err(|_| UriTemplateError {
            template: self.text.clone(),
            reason: "the expansion could not be written".to_owned(),
        })?;
        Ok(uri)
    }
}

/// Expands `template` with `values` in one step ([`UriTemplate::parse`], then
/// [`UriTemplate::expand`]); what generated resource template types call.
///
/// # Errors
/// As [`UriTemplate::parse`] and [`UriTemplate::expand`].
pub fn expand(
    template: &str,
    values: &[(&str, TemplateValue)],
) -> Result<String, UriTemplateError> {
    UriTemplate::parse(template)?.expand(values)
}

#[cfg(test)]
mod tests;
