//! How a pin reaches its server: `command` (+ `args`, `cwd`, `env`, `pass-env`), started over
//! stdio, or `url` (+ `headers`, `bearer-env`, `header-env`), reached over streamable HTTP.
//! Each kind takes only its own keys; what a URL pin records (its URL, its literal headers)
//! must hold no credential, since the snapshot and the generated code keep it.

use std::collections::BTreeMap;

use super::RawServer;

/// What a server table pins, checked.
#[derive(Debug, PartialEq)]
pub(super) enum Transport {
    /// A server started over stdio.
    Command {
        /// As written.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Literal environment values.
        env: BTreeMap<String, String>,
        /// Names copied from the caller's environment.
        pass_env: Vec<String>,
    },
    /// A server reached over streamable HTTP at this URL (as written); its headers stay in
    /// the raw table.
    Url(String),
}

/// The keys of a server started by `command`, as the messages list them.
const STDIO_KEYS: &str = "`args`, `cwd`, `env` and `pass-env`";
/// The keys of a server reached by `url`, as the messages list them.
const HTTP_KEYS: &str = "`headers`, `bearer-env` and `header-env`";
/// The URL the messages give as an example of a streamable HTTP endpoint.
const EXAMPLE_URL: &str = "https://api.githubcopilot.com/mcp/";

/// The transport of `servers.<name>`, or the message (without the manifest's name) of what
/// is wrong with it: both `command` and `url` or neither, a key of the other kind, an empty
/// command, a URL that is not http(s) or holds userinfo, a header name that is not an HTTP
/// token, a literal header that looks like a credential or holds a control character, an
/// unusable variable name, a header sent twice.
pub(super) fn transport(name: &str, raw: &RawServer) -> Result<Transport, String> {
    let stdio = [
        ("args", raw.args.is_some()),
        ("cwd", raw.cwd.is_some()),
        ("env", raw.env.is_some()),
        ("pass-env", raw.pass_env.is_some()),
    ];
    let http = [
        ("headers", raw.headers.is_some()),
        ("bearer-env", raw.bearer_env.is_some()),
        ("header-env", raw.header_env.is_some()),
    ];
    let first_set = |keys: &[(&'static str, bool)]| keys.iter().find(|(_, set)| *set).map(|k| k.0);
    match (&raw.command, &raw.url) {
        (Some(_), Some(_)) => Err(format!(
            "servers.{name} has both `command` and `url`; a server is either started over stdio \
             (`command`) or reached over streamable HTTP (`url`)"
        )),
        (None, None) => Err(format!(
            "servers.{name} has neither `command` nor `url`; give `command` to start the server \
             over stdio, or `url` to reach it over streamable HTTP"
        )),
        (Some(command), None) => {
            if let Some(key) = first_set(&http) {
                return Err(format!(
                    "servers.{name}.{key} belongs to a server reached by `url`; servers.{name} is \
                     started by `command`, whose own keys are {STDIO_KEYS}"
                ));
            }
            if command.trim().is_empty() {
                return Err(format!("servers.{name}.command is empty"));
            }
            let env = raw.env.clone().unwrap_or_default();
            let pass_env = raw.pass_env.clone().unwrap_or_default();
            // An environment variable name cannot be empty or hold `=` or NUL (POSIX); the
            // spawn would fail with an error that points at the command instead.
            variable_names(
                name,
                env.keys()
                    .map(|k| ("env", k.as_str()))
                    .chain(pass_env.iter().map(|k| ("pass-env", k.as_str()))),
            )?;
            Ok(Transport::Command {
                command: command.clone(),
                args: raw.args.clone().unwrap_or_default(),
                env,
                pass_env,
            })
        }
        (None, Some(url)) => {
            if let Some(key) = first_set(&stdio) {
                return Err(format!(
                    "servers.{name}.{key} belongs to a server started by `command`; \
                     servers.{name} is reached by `url`, whose own keys are {HTTP_KEYS}"
                ));
            }
            check_pin_url(name, url)?;
            let headers = raw.headers.clone().unwrap_or_default();
            let header_env = raw.header_env.clone().unwrap_or_default();
            check_headers(name, &headers, raw.bearer_env.as_deref(), &header_env)?;
            Ok(Transport::Url(url.clone()))
        }
    }
}

/// What makes a URL unusable as a pin's (manifest `url`, the CLI's `--url`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum UrlProblem {
    /// It does not parse as an absolute URL; the parser's reason (it never quotes the URL).
    NotAbsolute(String),
    /// Its scheme is not `http` or `https`.
    NotHttp,
    /// It holds a user name or password, a credential that would be recorded with the URL.
    Userinfo,
}

/// Checks that `url` is usable as the streamable HTTP endpoint of a pin: an absolute `http`
/// or `https` URL without a user name or password (credentials come from environment
/// variables: `bearer-env`, `header-env`). Query values are allowed; they are recorded
/// redacted ([`redact_url`](oma_mcp_core::redact::redact_url)).
///
/// ```
/// use oma_mcp_build::manifest::{UrlProblem, check_url};
/// assert_eq!(check_url("https://api.githubcopilot.com/mcp/"), Ok(()));
/// assert_eq!(check_url("ftp://h/mcp"), Err(UrlProblem::NotHttp));
/// assert_eq!(check_url("https://me:pw@h/mcp"), Err(UrlProblem::Userinfo));
/// ```
///
/// # Errors
/// The [`UrlProblem`].
pub fn check_url(url: &str) -> Result<(), UrlProblem> {
    let parsed = url::Url::parse(url).map_err(|e| UrlProblem::NotAbsolute(e.to_string()))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(UrlProblem::NotHttp);
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(UrlProblem::Userinfo);
    }
    Ok(())
}

/// `servers.<name>.url` passes [`check_url`]; the message shows it redacted
/// ([`oma_mcp_core::redact::redact_url`]).
fn check_pin_url(name: &str, url: &str) -> Result<(), String> {
    let shown = oma_mcp_core::redact::redact_url(url);
    check_url(url).map_err(|problem| match problem {
        UrlProblem::NotAbsolute(reason) => format!(
            "servers.{name}.url = {shown:?} is not an absolute URL ({reason}); give the \
             server's streamable HTTP endpoint, such as {EXAMPLE_URL:?}"
        ),
        UrlProblem::NotHttp => format!(
            "servers.{name}.url = {shown:?} is not an http or https URL; give the server's \
             streamable HTTP endpoint, such as {EXAMPLE_URL:?}"
        ),
        UrlProblem::Userinfo => format!(
            "servers.{name}.url = {shown:?} holds a user name or password, and the URL is \
             recorded (in the generated code); send the credential from an environment \
             variable with `bearer-env` or `header-env` instead"
        ),
    })
}

/// The header names of `headers` and `header-env` are HTTP tokens, no literal header looks
/// like a credential or holds a control character, the variable names are usable, and no
/// header is sent twice (names compared without case, `bearer-env` sending `Authorization`).
fn check_headers(
    name: &str,
    headers: &BTreeMap<String, String>,
    bearer_env: Option<&str>,
    header_env: &BTreeMap<String, String>,
) -> Result<(), String> {
    let names = headers
        .keys()
        .map(|h| ("headers", h))
        .chain(header_env.keys().map(|h| ("header-env", h)));
    for (key, header) in names {
        if !is_header_name(header) {
            return Err(format!(
                "servers.{name}.{key} has the header name {header:?}; a header name is ASCII \
                 letters, digits and the characters !#$%&'*+-.^_`|~ (RFC 9110, \"Tokens\")"
            ));
        }
    }
    for (header, value) in headers {
        if looks_like_credential(header) {
            let fix = if header.eq_ignore_ascii_case("authorization") {
                format!(
                    "`bearer-env = \"VAR\"` sends `Authorization: Bearer $VAR`, `header-env = \
                     {{ {header:?} = \"VAR\" }}` sends `$VAR` as it is"
                )
            } else {
                format!("`header-env = {{ {header:?} = \"VAR\" }}`")
            };
            return Err(format!(
                "servers.{name}.headers.{header:?} looks like a credential, and `headers` are \
                 recorded (in the snapshot and the generated code); take its value from an \
                 environment variable: {fix}"
            ));
        }
        if value.chars().any(|c| c.is_control() && c != '\t') {
            return Err(format!(
                "servers.{name}.headers.{header:?} has a control character (a line break, NUL, \
                 …) in its value, which an HTTP header cannot carry"
            ));
        }
    }
    variable_names(
        name,
        bearer_env
            .map(|v| ("bearer-env", v))
            .into_iter()
            .chain(header_env.values().map(|v| ("header-env", v.as_str()))),
    )?;
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    let sent = headers
        .keys()
        .map(|h| (h.as_str(), format!("headers.{h:?}")))
        .chain(bearer_env.map(|_| ("Authorization", "bearer-env".to_owned())))
        .chain(
            header_env
                .keys()
                .map(|h| (h.as_str(), format!("header-env.{h:?}"))),
        );
    for (header, entry) in sent {
        if let Some(first) = seen.insert(header.to_ascii_lowercase(), entry.clone()) {
            return Err(format!(
                "servers.{name} sends the HTTP header {header:?} twice, from {first} and from \
                 {entry} (header names are case-insensitive); keep one"
            ));
        }
    }
    Ok(())
}

/// Each `(key, variable)` names a usable environment variable: non-empty, without `=` or NUL.
fn variable_names<'a>(
    name: &str,
    mut variables: impl Iterator<Item = (&'static str, &'a str)>,
) -> Result<(), String> {
    match variables.find(|(_, var)| var.is_empty() || var.contains(['=', '\0'])) {
        Some((key, var)) => Err(format!(
            "servers.{name}.{key} has the variable name {var:?}; a name must be non-empty, \
             without `=` or NUL"
        )),
        None => Ok(()),
    }
}

/// Whether `name` is an HTTP header name: a non-empty RFC 9110 token (ASCII letters, digits
/// and ``!#$%&'*+-.^_`|~``).
pub fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c))
}

/// Whether a header's value is a credential by its name: `Authorization`, `Cookie`,
/// `Proxy-Authorization`, or a name that holds `token`, `key` or `secret` (in any case).
/// Such a header may not be a literal (manifest `headers`, the CLI's `--header`), which is
/// recorded; its value comes from an environment variable (`bearer-env`, `header-env`).
pub fn looks_like_credential(header: &str) -> bool {
    let lower = header.to_ascii_lowercase();
    matches!(
        lower.as_str(),
        "authorization" | "cookie" | "proxy-authorization"
    ) || ["token", "key", "secret"].iter().any(|w| lower.contains(w))
}

#[cfg(test)]
mod tests;
