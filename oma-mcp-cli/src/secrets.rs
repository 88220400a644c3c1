//! Credentials in command lines: what `snapshot`, `check --offline` and `init` refuse to
//! record. A pin's arguments are written into the manifest and the snapshot as they are, so
//! a value that sets a credential (`--token=…`, `API_KEY=…`) or a URL holding one (userinfo, a
//! query value) must come from the environment instead.

use oma_mcp_build::manifest::looks_like_credential;

/// Every argument of `args` that holds a credential, with its index and what it holds, for a
/// message that names it without its value: `sets "api-key", named like a credential, to a
/// value` ([`credential_arguments`]), or `is a URL that holds a user name or password` (an
/// `http`/`https` argument with userinfo, or with a query parameter named like a credential,
/// [`url_secrets`]).
pub fn argument_secrets(args: &[String]) -> Vec<(usize, String)> {
    let mut found: Vec<(usize, String)> = credential_arguments(args)
        .into_iter()
        .map(|(i, name)| {
            (
                i,
                format!(
                    "sets {}, named like a credential, to a value",
                    oma_mcp_core::quote::quoted(name)
                ),
            )
        })
        .collect();
    for (i, arg) in args.iter().enumerate() {
        let is_url = |s: &str| s.starts_with("https://") || s.starts_with("http://");
        // The argument itself, or the value of `--flag=URL`.
        let url = match arg.split_once('=') {
            _ if is_url(arg) => arg.as_str(),
            Some((_, value)) => value,
            None => arg.as_str(),
        };
        if (url.starts_with("https://") || url.starts_with("http://"))
            && !found.iter().any(|(j, _)| *j == i)
        {
            let parts = url_secrets(url);
            if !parts.is_empty() {
                found.push((i, format!("is a URL that holds {}", parts.join(" and "))));
            }
        }
    }
    found.sort_by_key(|(i, _)| *i);
    found
}

/// What an `http`/`https` URL holds that may be a credential: `a user name or password`
/// (userinfo that is not `***`), `the value of the query parameter "key"` for each parameter
/// named like one ([`credential_name`]) whose value is not `***`.
pub fn url_secrets(url: &str) -> Vec<String> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let mut parts = Vec::new();
    if let Some((userinfo, _)) = authority.rsplit_once('@')
        && userinfo != "***"
        && !userinfo.is_empty()
    {
        parts.push("a user name or password".to_owned());
    }
    let query = rest.split_once('?').map_or("", |(_, q)| q);
    let query = query.split('#').next().unwrap_or_default();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        if credential_name(key) && !value.is_empty() && value != "***" {
            parts.push(format!(
                "the value of the query parameter {}",
                oma_mcp_core::quote::quoted(key)
            ));
        }
    }
    parts
}

/// The arguments that set a value whose name looks like a credential, with their index (of
/// the value's argument): `NAME=VALUE` (as `env NAME=VALUE server` has), `--name=VALUE` and
/// `--name VALUE`. A value that is empty, `***` or a variable reference (`$NAME`) is not a
/// credential; neither is a name for where one is kept (`--token-file`, `API_KEY_ENV`).
pub fn credential_arguments(args: &[String]) -> Vec<(usize, &str)> {
    let literal = |value: &str| !value.is_empty() && value != "***" && !value.starts_with('$');
    let mut found = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        let flag = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-'));
        match (flag, arg.split_once('=')) {
            (Some(_), Some((name, value))) => {
                let name = name.trim_start_matches('-');
                if credential_name(name) && literal(value) {
                    found.push((i, name));
                }
            }
            (Some(name), None) => {
                if credential_name(name)
                    && let Some(value) = args.get(i + 1)
                    && !value.starts_with('-')
                    && literal(value)
                {
                    found.push((i + 1, name));
                    i += 1;
                }
            }
            (None, Some((name, value))) => {
                let variable =
                    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if variable && credential_name(name) && literal(value) {
                    found.push((i, name));
                }
            }
            (None, None) => {}
        }
        i += 1;
    }
    found
}

/// Whether an argument or variable name says its value is a credential: the manifest's
/// rule for header names ([`looks_like_credential`]: `token`, `key`, `secret`, …) or
/// `password`, `passwd`, `credential`; not a name for where one is kept (ending in `file`,
/// `path`, `dir`, `env` or `var`).
pub fn credential_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let place = ["file", "path", "dir", "env", "var"]
        .iter()
        .any(|end| lower.ends_with(end));
    !place
        && (looks_like_credential(&lower)
            || ["password", "passwd", "credential"]
                .iter()
                .any(|w| lower.contains(w)))
}
