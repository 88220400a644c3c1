//! `--url URL`, `--header 'Name: value'`, `--bearer-env VAR` and `--header-env Name=VAR`: a
//! server reached over streamable HTTP, as the manifest's `url`, `headers`, `bearer-env` and
//! `header-env` give it. Credentials come from the environment only: their values never
//! reach a snapshot, stdout, stderr or an error (an error names the flag and the variable);
//! the URL is shown redacted, a literal header that looks like a credential is refused (it
//! would be recorded, and it shows in the process list).

use oma_mcp_build::manifest::{UrlProblem, check_url, is_header_name, looks_like_credential};
use oma_mcp_runtime::ConnectConfig;
use oma_mcp_runtime::connect::redact_url;

use crate::error::CliError;

/// A command-line argument taken as it is: checked by [`HttpFlags::validate`] and
/// [`checked_url`], whose errors leave a value out (clap's own error would repeat the whole
/// argument). Its `Debug` shows nothing of it.
#[derive(Clone)]
pub struct Unchecked(String);

impl std::fmt::Debug for Unchecked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Unchecked(…)")
    }
}

/// Accepts any text (see [`Unchecked`]).
pub fn unchecked(text: &str) -> Result<Unchecked, std::convert::Infallible> {
    Ok(Unchecked(text.to_owned()))
}

/// The URL of `--url`: an absolute http(s) URL without userinfo.
///
/// # Errors
/// [`CliError::BadHttpFlag`] showing the URL redacted.
pub fn checked_url(url: &Unchecked) -> Result<String, CliError> {
    let shown = redact_url(&url.0);
    check_url(&url.0).map_err(|problem| CliError::BadHttpFlag {
        problem: match problem {
            UrlProblem::Userinfo => format!(
                "--url {shown:?} holds a user name or password; send the credential from an \
                 environment variable with --bearer-env or --header-env instead"
            ),
            UrlProblem::NotHttp => format!(
                "--url {shown:?} is not an http or https URL; give the server's streamable \
                 HTTP endpoint, such as \"https://api.githubcopilot.com/mcp/\""
            ),
            UrlProblem::NotAbsolute(reason) => format!(
                "--url {shown:?} is not an absolute URL ({reason}); give the server's \
                 streamable HTTP endpoint, such as \"https://api.githubcopilot.com/mcp/\""
            ),
            _ => format!("--url {shown:?} cannot be used"),
        },
    })?;
    Ok(url.0.clone())
}

/// The headers of a server reached by URL (`--url`, or a manifest pin with `url`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct HttpFlags {
    /// Send an HTTP header to a server reached by URL (repeatable). Not for credentials (a
    /// name such as Authorization or X-Api-Key is refused): a literal header is recorded by
    /// `snapshot --url` and shows in the process list; use --bearer-env or --header-env.
    /// Added to the manifest's `headers`, replacing one of the same name.
    #[arg(long = "header", value_name = "NAME: VALUE", value_parser = unchecked)]
    pub header: Vec<Unchecked>,
    /// Send `Authorization: Bearer $VAR` to a server reached by URL, VAR read from this
    /// environment (never printed, never recorded). Replaces the manifest's `bearer-env`.
    #[arg(long = "bearer-env", value_name = "VAR", value_parser = unchecked)]
    pub bearer_env: Option<Unchecked>,
    /// Send the header NAME with the value of the variable VAR of this environment to a server
    /// reached by URL (repeatable; the value is never printed, never recorded). Added to the
    /// manifest's `header-env`, replacing one of the same name.
    #[arg(long = "header-env", value_name = "NAME=VAR", value_parser = unchecked)]
    pub header_env: Vec<Unchecked>,
    /// OAuth for a server reached by URL.
    #[command(flatten)]
    pub oauth: super::oauth::OAuthFlags,
}

/// [`HttpFlags`], checked: every header by name and where it comes from.
#[derive(Debug, Default)]
pub struct Headers {
    /// `--header` (name, value).
    literal: Vec<(String, String)>,
    /// `--bearer-env` (the variable).
    bearer: Option<String>,
    /// `--header-env` (name, variable).
    from_env: Vec<(String, String)>,
    /// The OAuth flags.
    pub oauth: super::oauth::OAuthFlags,
}

impl HttpFlags {
    /// The flags given, in their help order (`--header`, `--bearer-env`, `--header-env`).
    pub fn given(&self) -> Vec<&'static str> {
        [
            (!self.header.is_empty()).then_some("--header"),
            self.bearer_env.is_some().then_some("--bearer-env"),
            (!self.header_env.is_empty()).then_some("--header-env"),
        ]
        .into_iter()
        .flatten()
        .chain(self.oauth.given())
        .collect()
    }

    /// Checks the flags before anything is read or sent, `is_set` telling whether a variable
    /// is set (as UTF-8) in this environment.
    ///
    /// # Errors
    /// [`CliError::BadHttpFlag`], naming the flag and the header or variable, never a value:
    /// a `--header` without `:`, with a name that is not an HTTP header name, that looks like
    /// a credential or whose value holds a control character; a `--header-env` without `=`;
    /// a variable name that is empty or holds `=` or NUL, or that is not set; a header given
    /// twice.
    pub fn validate(&self, is_set: impl Fn(&str) -> bool) -> Result<Headers, CliError> {
        let bad = |problem: String| CliError::BadHttpFlag { problem };
        let mut headers = Headers {
            oauth: self.oauth.clone(),
            ..Headers::default()
        };
        for (flag, var) in [
            ("--client-id-env", &self.oauth.client_id_env),
            ("--client-secret-env", &self.oauth.client_secret_env),
            ("--private-key-env", &self.oauth.private_key_env),
        ] {
            if let Some(var) = var {
                variable(flag, var, var, &is_set)?;
            }
        }
        for Unchecked(text) in &self.header {
            // Not quoted when malformed: it may be a credential pasted without its name.
            let Some((name, value)) = text.split_once(':') else {
                return Err(bad(
                    "--header takes 'NAME: VALUE' (a header name, `:`, its value), \
                                and one has no `:`"
                        .to_owned(),
                ));
            };
            header_name("--header", name)?;
            if looks_like_credential(name) {
                let fix = if name.eq_ignore_ascii_case("authorization") {
                    "--bearer-env VAR sends `Authorization: Bearer $VAR`, --header-env \
                     Authorization=VAR sends `$VAR` as it is"
                        .to_owned()
                } else {
                    format!("--header-env {name}=VAR")
                };
                return Err(bad(format!(
                    "--header {name:?} looks like a credential, and a literal header is \
                     recorded (in a snapshot's source) and shows in the process list; take its \
                     value from an environment variable: {fix}"
                )));
            }
            let value = value.trim_matches([' ', '\t']);
            if value.chars().any(|c| c.is_control() && c != '\t') {
                return Err(bad(format!(
                    "--header {name:?} has a control character (a line break, NUL, …) in its \
                     value, which an HTTP header cannot carry"
                )));
            }
            headers.literal.push((name.to_owned(), value.to_owned()));
        }
        if let Some(Unchecked(var)) = &self.bearer_env {
            variable("--bearer-env", var, var, &is_set)?;
            headers.bearer = Some(var.clone());
        }
        for Unchecked(text) in &self.header_env {
            let Some((name, var)) = text.split_once('=') else {
                return Err(bad(
                    "--header-env takes NAME=VAR (a header name, `=`, the name of \
                                the variable that holds its value), and one has no `=`"
                        .to_owned(),
                ));
            };
            header_name("--header-env", name)?;
            variable("--header-env", &format!("{name}={var}"), var, &is_set)?;
            headers.from_env.push((name.to_owned(), var.to_owned()));
        }
        let mut seen: Vec<(String, &'static str)> = Vec::new();
        for (name, flag) in headers.names() {
            if let Some((_, first)) = seen.iter().find(|(n, _)| n.eq_ignore_ascii_case(&name)) {
                return Err(bad(format!(
                    "the HTTP header {name:?} is given twice, by {first} and by {flag} (header \
                     names are case-insensitive); keep one"
                )));
            }
            seen.push((name, flag));
        }
        Ok(headers)
    }
}

impl Headers {
    /// Every header name with the flag that gives it, in flag order.
    fn names(&self) -> Vec<(String, &'static str)> {
        self.literal
            .iter()
            .map(|(n, _)| (n.clone(), "--header"))
            .chain(
                self.bearer
                    .as_ref()
                    .map(|_| ("Authorization".to_owned(), "--bearer-env")),
            )
            .chain(
                self.from_env
                    .iter()
                    .map(|(n, _)| (n.clone(), "--header-env")),
            )
            .collect()
    }

    /// `config` with these headers: each replaces a header of the same name (in any case)
    /// that `config` has, of either kind (`--bearer-env` replaces `Authorization`).
    pub fn apply(&self, mut config: ConnectConfig) -> ConnectConfig {
        for (name, _) in self.names() {
            config.headers.retain(|n, _| !n.eq_ignore_ascii_case(&name));
            config
                .header_env
                .retain(|n, _| !n.eq_ignore_ascii_case(&name));
            if name.eq_ignore_ascii_case("authorization") {
                config.bearer_env = None;
            }
        }
        for (name, value) in &self.literal {
            config = config.with_header(name, value);
        }
        if let Some(var) = &self.bearer {
            config = config.with_bearer_env(var);
        }
        for (name, var) in &self.from_env {
            config = config.with_header_env(name, var);
        }
        config
    }
}

/// `name` of `flag` is an HTTP header name.
fn header_name(flag: &str, name: &str) -> Result<(), CliError> {
    if is_header_name(name) {
        return Ok(());
    }
    Err(CliError::BadHttpFlag {
        problem: format!(
            "{flag} has the header name {name:?}; a header name is ASCII letters, digits and \
             the characters !#$%&'*+-.^_`|~ (RFC 9110, \"Tokens\")"
        ),
    })
}

/// `var`, given as `shown` to `flag`, is a variable name that is set. A name holding `=` is
/// most likely a value pasted in: only the part before it is shown.
fn variable(
    flag: &str,
    shown: &str,
    var: &str,
    is_set: &impl Fn(&str) -> bool,
) -> Result<(), CliError> {
    let bad = |problem: String| CliError::BadHttpFlag { problem };
    if let Some((before, _)) = var.split_once('=') {
        let given = shown.strip_suffix(var).unwrap_or_default();
        return Err(bad(format!(
            "{flag} takes the name of a variable, not its value ({flag} {given}{before}=… holds \
             `=`); put the value in a variable (in CI: from the secret store) and give its name"
        )));
    }
    if var.is_empty() || var.contains('\0') {
        return Err(bad(format!(
            "{flag} has the variable name {:?}; a name must be non-empty, without `=` or NUL",
            var.replace('\0', "\\0")
        )));
    }
    if !is_set(var) {
        return Err(bad(format!(
            "{flag} {shown}: the variable {var} is not set (or not UTF-8) in this environment; \
             set it (in CI: from the secret store) before running oma-mcp"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
