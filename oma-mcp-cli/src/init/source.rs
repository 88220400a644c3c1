//! A client's configuration file read into pins: which servers it names, and how each one
//! maps onto `[servers.<name>]` of `oma-mcp.toml`, with a warning for everything the pin
//! cannot carry over as the client has it.

use std::collections::BTreeMap;

use oma_mcp_build::manifest::{UrlProblem, check_url, is_header_name, looks_like_credential};
use serde_json::{Map, Value};

use super::jsonc::{self, JsonError};
use super::reference::{Part, Reference, exact, has_reference, parts};

/// A client configuration file to read.
#[derive(Debug, Clone, Copy)]
pub struct SourceFile<'a> {
    /// The file as the user named it (warnings name it).
    pub path: &'a str,
    /// Its text.
    pub text: &'a str,
    /// What `${workspaceFolder}` stands for in the manifest: `.` when the client's workspace
    /// is the manifest's directory, else its absolute path.
    pub workspace: &'a str,
}

/// One server of a client's configuration, as a pin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The manifest name (`[servers.<name>]`).
    pub name: String,
    /// The name in the client's file.
    pub source_name: String,
    /// The file it came from.
    pub file: String,
    /// How the server is reached.
    pub transport: Transport,
}

/// How a found server is reached: the keys of its pin that `init` writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// Started over stdio.
    Command {
        /// `command`.
        command: String,
        /// `args`.
        args: Vec<String>,
        /// `cwd`.
        cwd: Option<String>,
        /// `env`: literal values.
        env: BTreeMap<String, String>,
        /// `pass-env`: names copied from the environment.
        pass_env: Vec<String>,
    },
    /// Reached over streamable HTTP.
    Url {
        /// `url`.
        url: String,
        /// `headers`: literal values.
        headers: BTreeMap<String, String>,
        /// `bearer-env`.
        bearer_env: Option<String>,
        /// `header-env`: header name → variable name.
        header_env: BTreeMap<String, String>,
    },
}

/// What one file holds: its servers and the warnings for the user.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Reading {
    /// The servers that map onto pins, in the file's order.
    pub servers: Vec<Found>,
    /// One line each, naming the file, the server and the key.
    pub warnings: Vec<String>,
}

/// How the file writes a reference to an environment variable, for the advice of warnings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Syntax {
    /// `${VAR}` (Claude Code's `.mcp.json`).
    Braced,
    /// `${env:VAR}` (VS Code, Cursor, Windsurf).
    EnvColon,
    /// The client expands nothing (Claude Desktop) or the file is not one we know by name.
    Unknown,
}

impl Syntax {
    fn of(path: &str) -> Self {
        let normal = path.replace('\\', "/");
        let file = normal.rsplit('/').next().unwrap_or(&normal);
        if file == ".mcp.json" {
            Syntax::Braced
        } else if normal.ends_with(".vscode/mcp.json")
            || normal.ends_with(".cursor/mcp.json")
            || file == "mcp_config.json"
        {
            Syntax::EnvColon
        } else {
            Syntax::Unknown
        }
    }

    /// `, and write "${VAR}" in its place` in the file's own syntax.
    fn in_place(self, var: &str) -> String {
        match self {
            Syntax::Braced => format!(", and write \"${{{var}}}\" in its place"),
            Syntax::EnvColon => format!(", and write \"${{env:{var}}}\" in its place"),
            Syntax::Unknown => String::new(),
        }
    }
}

/// The environment variable name of a VS Code input: its id in upper case, every character
/// other than an ASCII letter or digit replaced by `_` (`github-token` → `GITHUB_TOKEN`).
pub fn input_variable(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// A manifest name for a client's server name: ASCII letters, digits, `-` and `_` kept, every
/// run of other characters replaced by one `-`, none at either end (`GitHub Copilot` →
/// `GitHub-Copilot`); `server` when nothing is left.
pub fn manifest_name(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_matches('-');
    if out.is_empty() {
        "server".to_owned()
    } else {
        out.to_owned()
    }
}

/// Whether a literal value looks like a secret by its key (an environment variable or header
/// name: `Authorization`, `Cookie`, or a name holding `token`, `key`, `secret`, `password`,
/// `passwd`, `credential` or `auth`) or by its shape (the prefixes of common tokens: `ghp_`,
/// `github_pat_`, `glpat-`, `sk-`, `xoxb-`, `AKIA`, a JWT's `eyJ`, `Bearer `).
pub fn looks_secret(key: &str, value: &str) -> bool {
    let lower = key.to_ascii_lowercase();
    let by_name = looks_like_credential(key)
        || ["password", "passwd", "credential", "auth"]
            .iter()
            .any(|w| lower.contains(w));
    let by_shape = [
        "ghp_",
        "gho_",
        "ghu_",
        "ghs_",
        "github_pat_",
        "glpat-",
        "sk-",
        "sk_live_",
        "xoxb-",
        "xoxp-",
        "AKIA",
        "eyJ",
        "Bearer ",
        "bearer ",
    ]
    .iter()
    .any(|p| value.starts_with(p));
    by_name || by_shape
}

/// Reads one client configuration file: `mcpServers` (Claude Code, Claude Desktop, Cursor,
/// Windsurf, Cline, Roo Code), `servers` and `inputs` (VS Code's `mcp.json`, or its
/// `settings.json` under `mcp`), or `context_servers` (Zed's `settings.json`).
///
/// # Errors
/// [`JsonError`] when the text is neither JSON nor JSONC.
pub fn read(file: SourceFile<'_>) -> Result<Reading, JsonError> {
    let value = jsonc::parse(file.text)?;
    let mut reading = Reading::default();
    let Some(top) = value.as_object() else {
        reading
            .warnings
            .push(format!("{}: not a JSON object; no servers read", file.path));
        return Ok(reading);
    };
    let (key, servers, inputs) = if let Some(servers) = top.get("mcpServers") {
        ("mcpServers", servers, None)
    } else if let Some(servers) = top.get("servers") {
        ("servers", servers, top.get("inputs"))
    } else if let Some(servers) = top.get("mcp").and_then(|m| m.get("servers")) {
        (
            "mcp.servers",
            servers,
            top.get("mcp").and_then(|m| m.get("inputs")),
        )
    } else if let Some(servers) = top.get("context_servers") {
        ("context_servers", servers, None)
    } else {
        reading.warnings.push(format!(
            "{}: no `mcpServers`, `servers` or `context_servers` object; no servers read",
            file.path
        ));
        return Ok(reading);
    };
    let Some(servers) = servers.as_object() else {
        reading.warnings.push(format!(
            "{}: `{key}` is not an object; no servers read",
            file.path
        ));
        return Ok(reading);
    };
    let inputs: BTreeMap<String, bool> = inputs
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|i| {
                    let id = i.get("id")?.as_str()?;
                    let password = i.get("password").and_then(Value::as_bool) == Some(true);
                    Some((id.to_owned(), password))
                })
                .collect()
        })
        .unwrap_or_default();
    for (name, entry) in servers {
        let mut server = Server {
            file,
            at: format!("{}: {key}.{name}", file.path),
            syntax: Syntax::of(file.path),
            name: manifest_name(name),
            inputs: &inputs,
            warnings: &mut reading.warnings,
        };
        if server.name != *name {
            let message = format!(
                "pinned as `{}` (a manifest name is ASCII letters, digits, `-` and `_`)",
                server.name
            );
            server.warn(&message);
        }
        let Some(entry) = entry.as_object() else {
            server.warn("is not an object; skipped");
            continue;
        };
        if let Some(transport) = server.transport(entry) {
            reading.servers.push(Found {
                name: server.name.clone(),
                source_name: name.clone(),
                file: file.path.to_owned(),
                transport,
            });
        }
    }
    Ok(reading)
}

/// One server entry being mapped, and where its warnings go.
struct Server<'a, 'w> {
    file: SourceFile<'a>,
    /// `FILE: mcpServers.NAME`, the start of every warning.
    at: String,
    syntax: Syntax,
    name: String,
    /// VS Code's inputs by id: whether each is a password.
    inputs: &'a BTreeMap<String, bool>,
    warnings: &'w mut Vec<String>,
}

impl Server<'_, '_> {
    fn warn(&mut self, message: &str) {
        self.warnings.push(format!("{}: {message}", self.at));
    }

    fn warn_key(&mut self, key: &str, message: &str) {
        self.warnings.push(format!("{}.{key}: {message}", self.at));
    }

    /// The pin's transport, or `None` (with a warning) when the entry cannot be pinned.
    fn transport(&mut self, entry: &Map<String, Value>) -> Option<Transport> {
        if entry.get("disabled").and_then(Value::as_bool) == Some(true)
            || entry.get("enabled").and_then(Value::as_bool) == Some(false)
        {
            self.warn("is disabled in the client; skipped");
            return None;
        }
        let url = entry
            .get("url")
            .map(|v| ("url", v))
            .or_else(|| entry.get("serverUrl").map(|v| ("serverUrl", v)));
        let kind = entry.get("type").and_then(Value::as_str);
        let sse = |server: &mut Self| {
            server.warn_key(
                "type",
                "is \"sse\", the HTTP+SSE transport of MCP 2024-11-05; oma-mcp speaks \
                 streamable HTTP (MCP 2025-03-26 and later), so the URL is pinned as it is: \
                 if `oma-mcp snapshot` cannot reach it, pin the server's streamable HTTP \
                 endpoint instead (often the same URL ending in `/mcp` instead of `/sse`)",
            );
        };
        match (kind, entry.get("command"), url) {
            (Some("stdio"), Some(command), _) | (None, Some(command), None) => {
                self.command(entry, command)
            }
            (Some("http" | "streamable-http" | "streamableHttp" | "sse"), _, Some(url))
            | (None, None, Some(url)) => {
                if kind == Some("sse") {
                    sse(self);
                }
                self.url(entry, url)
            }
            (Some("stdio"), None, _) => {
                self.warn("is a stdio server without `command`; skipped");
                None
            }
            (Some("http" | "streamable-http" | "streamableHttp" | "sse"), _, None) => {
                self.warn("is an HTTP server without `url`; skipped");
                None
            }
            (Some(other), _, _) => {
                let message = format!(
                    "is {other:?}, a transport oma-mcp does not pin (it pins \"stdio\", \
                     \"http\" and \"sse\" servers); skipped"
                );
                self.warn_key("type", &message);
                None
            }
            (None, Some(_), Some(_)) => {
                self.warn("has both `command` and `url` and no `type`; skipped");
                None
            }
            (None, None, None) => {
                if entry.get("source").and_then(Value::as_str) == Some("extension") {
                    self.warn(
                        "is started by a Zed extension, which does not write its command in \
                         the settings; skipped (pin the extension's server by its command)",
                    );
                } else {
                    self.warn("has neither `command` nor `url`; skipped");
                }
                None
            }
        }
    }

    fn command(&mut self, entry: &Map<String, Value>, command: &Value) -> Option<Transport> {
        // Zed's older form: `"command": { "path", "args", "env" }`.
        let (program, args, env) = match command {
            Value::Object(inner) => (
                inner.get("path").cloned().unwrap_or(Value::Null),
                inner.get("args").or(entry.get("args")),
                inner.get("env").or(entry.get("env")),
            ),
            other => (other.clone(), entry.get("args"), entry.get("env")),
        };
        let Some(program) = program.as_str().filter(|p| !p.trim().is_empty()) else {
            self.warn_key("command", "is not a non-empty string; skipped");
            return None;
        };
        let command = self.literal("command", program)?;
        let mut list = Vec::new();
        match args {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    let Some(text) = item.as_str() else {
                        self.warn_key(&format!("args[{i}]"), "is not a string; skipped");
                        return None;
                    };
                    list.push(self.literal(&format!("args[{i}]"), text)?);
                }
            }
            Some(_) => {
                self.warn_key("args", "is not an array of strings; skipped");
                return None;
            }
        }
        let secrets = crate::secrets::argument_secrets(&list);
        if !secrets.is_empty() {
            for (i, what) in secrets {
                self.warn_key(
                    &format!("args[{i}]"),
                    &format!(
                        "{what}, and a pin's arguments are recorded in oma-mcp.toml and the \
                         snapshot; skipped: give the server that value from an environment \
                         variable (`env` with a reference, then `pass-env`) and run `oma-mcp \
                         init` again"
                    ),
                );
            }
            return None;
        }
        let cwd = match entry.get("cwd") {
            Some(Value::String(cwd)) => Some(self.literal("cwd", cwd)?),
            _ => None,
        };
        if matches!(command.as_str(), "npx" | "uvx" | "bunx" | "pnpx") {
            let message = format!(
                "starts the server with `{command}`, which resolves a version when it starts; \
                 for a pin that holds still, install an exact version and point `command` at it \
                 (see \"How to pin a server\" in the oma-mcp guide's \"Getting started\")"
            );
            self.warn_key("command", &message);
        }
        if entry.contains_key("envFile") {
            self.warn_key(
                "envFile",
                "is not read (a pin holds no values from files); export its variables and add \
                 their names to `pass-env`",
            );
        }
        let (env, pass_env) = self.environment(env);
        Some(Transport::Command {
            command,
            args: list,
            cwd,
            env,
            pass_env,
        })
    }

    /// A command, argument or directory: `${workspaceFolder}` becomes the workspace, a
    /// `${VAR:-default}` its default (with a warning); any other reference cannot be pinned.
    fn literal(&mut self, key: &str, value: &str) -> Option<String> {
        let mut out = String::new();
        for part in parts(value) {
            match part {
                Part::Text(text) => out.push_str(&text),
                Part::Ref(Reference::WorkspaceFolder) => out.push_str(self.file.workspace),
                Part::Ref(Reference::Env {
                    name,
                    default: Some(default),
                }) => {
                    let message = format!(
                        "takes ${{{name}}} from the environment, and a pin's `{}` is literal: \
                         pinned with its default {default:?}",
                        key.split('[').next().unwrap_or(key)
                    );
                    self.warn_key(key, &message);
                    out.push_str(&default);
                }
                Part::Ref(other) => {
                    let message = format!(
                        "uses {}, which the client fills in when it starts the server; a pin's \
                         command, arguments and directory are literal (the server reads \
                         variables from its environment: `env`, `pass-env`), so the server \
                         was skipped; write its pin by hand",
                        shown(&other)
                    );
                    self.warn_key(key, &message);
                    return None;
                }
            }
        }
        Some(out)
    }

    /// `env` into literal values and names passed from the environment.
    fn environment(&mut self, env: Option<&Value>) -> (BTreeMap<String, String>, Vec<String>) {
        let mut literal = BTreeMap::new();
        let mut pass = Vec::new();
        let Some(env) = env else {
            return (literal, pass);
        };
        let Some(env) = env.as_object() else {
            self.warn_key("env", "is not an object; left out");
            return (literal, pass);
        };
        for (name, value) in env {
            let key = format!("env.{name}");
            let value = match value {
                Value::String(s) => s.clone(),
                Value::Number(_) | Value::Bool(_) => value.to_string(),
                _ => {
                    self.warn_key(&key, "is not a string; left out");
                    continue;
                }
            };
            match exact(&value) {
                Some(Reference::Env { name: var, default }) => {
                    if var != *name {
                        let message = format!(
                            "passes ${var} to the server as {name}, and `pass-env` passes a \
                             variable under its own name: the pin passes {name}; set it \
                             (export {name}=\"${var}\")"
                        );
                        self.warn_key(&key, &message);
                    }
                    if let Some(default) = default {
                        let message = format!(
                            "has the default {default:?}, which `pass-env` does not apply: \
                             set {name} when it is needed"
                        );
                        self.warn_key(&key, &message);
                    }
                    pass.push(name.clone());
                }
                Some(Reference::Input(id)) => {
                    let message = self.input_advice(&id, name);
                    self.warn_key(&key, &message);
                    pass.push(name.clone());
                }
                _ if has_reference(&value) => {
                    let message = format!(
                        "is built from references ({value:?}), which a pin cannot express: \
                         the pin passes {name} from your environment; set it to the whole value"
                    );
                    self.warn_key(&key, &message);
                    pass.push(name.clone());
                }
                _ if looks_secret(name, &value) => {
                    let message = format!(
                        "is a literal value that looks like a secret, so it was not copied: \
                         the pin passes {name} from your environment (`pass-env`); move the \
                         value out of {} into your environment or secret store (export \
                         {name}=…){}",
                        self.file.path,
                        self.syntax.in_place(name)
                    );
                    self.warn_key(&key, &message);
                    pass.push(name.clone());
                }
                _ => {
                    literal.insert(name.clone(), value);
                }
            }
        }
        pass.dedup();
        (literal, pass)
    }

    /// What to say of a VS Code input that now comes from the variable `var`.
    fn input_advice(&self, id: &str, var: &str) -> String {
        match self.inputs.get(id) {
            Some(true) => format!(
                "is the VS Code input `{id}`, a password VS Code asks for; the pin reads it \
                 from the variable {var}: export {var} before `oma-mcp snapshot`"
            ),
            Some(false) => format!(
                "is the VS Code input `{id}`, which VS Code asks for; the pin reads it from the \
                 variable {var}: export {var} before `oma-mcp snapshot`"
            ),
            None => format!(
                "is ${{input:{id}}}, and the file defines no input `{id}`; the pin reads it \
                 from the variable {var}: export {var} before `oma-mcp snapshot`"
            ),
        }
    }

    fn url(&mut self, entry: &Map<String, Value>, url: (&str, &Value)) -> Option<Transport> {
        let (key, value) = url;
        let Some(text) = value.as_str() else {
            self.warn_key(key, "is not a string; skipped");
            return None;
        };
        let url = self.literal(key, text)?;
        match check_url(&url) {
            Ok(()) => {}
            Err(UrlProblem::Userinfo) => {
                self.warn_key(
                    key,
                    "holds a user name or password, and a pinned URL is recorded; skipped: \
                     send the credential in a header from a variable (`bearer-env`, \
                     `header-env`) and pin the URL without it",
                );
                return None;
            }
            Err(UrlProblem::NotHttp) => {
                self.warn_key(key, "is not an http or https URL; skipped");
                return None;
            }
            Err(UrlProblem::NotAbsolute(reason)) => {
                let message = format!("is not an absolute URL ({reason}); skipped");
                self.warn_key(key, &message);
                return None;
            }
            Err(_) => {
                self.warn_key(key, "is not a URL a pin can hold; skipped");
                return None;
            }
        }
        let secrets = crate::secrets::url_secrets(&url);
        if !secrets.is_empty() {
            let message = format!(
                "holds {}, and a pinned URL is recorded; skipped: send the credential in a \
                 header from a variable (`bearer-env`, `header-env`) and pin the URL without it",
                secrets.join(" and ")
            );
            self.warn_key(key, &message);
            return None;
        }
        let mut headers = BTreeMap::new();
        let mut bearer_env = None;
        let mut header_env = BTreeMap::new();
        let given = match entry.get("headers") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(map)) => map.clone(),
            Some(_) => {
                self.warn_key("headers", "is not an object; left out");
                Map::new()
            }
        };
        for (header, value) in &given {
            let key = format!("headers.{header}");
            let Some(value) = value.as_str() else {
                self.warn_key(&key, "is not a string; left out");
                continue;
            };
            if !is_header_name(header) {
                self.warn_key(&key, "is not an HTTP header name; left out");
                continue;
            }
            let is_authorization = header.eq_ignore_ascii_case("authorization");
            let bearer = value
                .get(..7)
                .filter(|p| p.eq_ignore_ascii_case("bearer "))
                .map(|_| value[7..].trim());
            match (is_authorization, bearer) {
                (true, Some(token)) => match exact(token) {
                    Some(Reference::Env { name, default }) => {
                        if default.is_some() {
                            self.warn_key(&key, "has a default, which `bearer-env` does not apply");
                        }
                        bearer_env = Some(name);
                    }
                    Some(Reference::Input(id)) => {
                        let var = input_variable(&id);
                        let message = self.input_advice(&id, &var);
                        self.warn_key(&key, &message);
                        bearer_env = Some(var);
                    }
                    _ if has_reference(token) => {
                        let var = self.invented(header);
                        let message = format!(
                            "is built from references ({token:?}), which a pin cannot \
                             express: the pin sends `Bearer $${var}`; set {var} to the whole \
                             token"
                        );
                        self.warn_key(&key, &message);
                        bearer_env = Some(var);
                    }
                    _ => {
                        let var = self.invented(header);
                        let message = format!(
                            "is a literal token, so it was not copied: the pin sends \
                             `Authorization: Bearer ${var}` (`bearer-env`); move the token \
                             out of {} into your environment or secret store as {var}{}",
                            self.file.path,
                            self.syntax.in_place(&var)
                        );
                        self.warn_key(&key, &message);
                        bearer_env = Some(var);
                    }
                },
                _ => match exact(value) {
                    Some(Reference::Env { name, default }) => {
                        if default.is_some() {
                            self.warn_key(&key, "has a default, which `header-env` does not apply");
                        }
                        header_env.insert(header.clone(), name);
                    }
                    Some(Reference::Input(id)) => {
                        let var = input_variable(&id);
                        let message = self.input_advice(&id, &var);
                        self.warn_key(&key, &message);
                        header_env.insert(header.clone(), var);
                    }
                    _ if has_reference(value) => {
                        let var = self.invented(header);
                        let message = format!(
                            "is built from references ({value:?}), which a pin cannot \
                             express: the pin sends ${var} as the whole value (`header-env`); \
                             set {var} to it"
                        );
                        self.warn_key(&key, &message);
                        header_env.insert(header.clone(), var);
                    }
                    _ if is_authorization || looks_secret(header, value) => {
                        let var = self.invented(header);
                        let message = format!(
                            "is a literal value that looks like a secret, so it was not \
                             copied: the pin sends ${var} (`header-env`); move the value out \
                             of {} into your environment or secret store as {var}{}",
                            self.file.path,
                            self.syntax.in_place(&var)
                        );
                        self.warn_key(&key, &message);
                        header_env.insert(header.clone(), var);
                    }
                    _ => {
                        headers.insert(header.clone(), value.to_owned());
                    }
                },
            }
        }
        Some(Transport::Url {
            url,
            headers,
            bearer_env,
            header_env,
        })
    }

    /// A variable name for a literal secret: the server's and the header's names in upper
    /// case, other characters as `_` (`github`, `Authorization` → `GITHUB_TOKEN`;
    /// `X-Api-Key` → `GITHUB_X_API_KEY`).
    fn invented(&self, header: &str) -> String {
        let server = input_variable(&self.name);
        if header.eq_ignore_ascii_case("authorization") {
            format!("{server}_TOKEN")
        } else {
            format!("{server}_{}", input_variable(header))
        }
    }
}

/// A reference as the file writes it.
fn shown(reference: &Reference) -> String {
    match reference {
        Reference::Env {
            name,
            default: None,
        } => format!("${{{name}}}"),
        Reference::Env {
            name,
            default: Some(d),
        } => format!("${{{name}:-{d}}}"),
        Reference::Input(id) => format!("${{input:{id}}}"),
        Reference::WorkspaceFolder => "${workspaceFolder}".to_owned(),
        Reference::Other(body) => format!("${{{body}}}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pins(path: &str, text: &str) -> Reading {
        read(SourceFile {
            path,
            text,
            workspace: ".",
        })
        .unwrap()
    }

    #[test]
    fn names_and_secrets() {
        assert_eq!(manifest_name("GitHub Copilot"), "GitHub-Copilot");
        assert_eq!(manifest_name("a..b/"), "a-b");
        assert_eq!(manifest_name("💥"), "server");
        assert_eq!(input_variable("github-token"), "GITHUB_TOKEN");
        assert!(looks_secret("API_KEY", "x"));
        assert!(looks_secret("X", "ghp_abc"));
        assert!(!looks_secret("LOG_LEVEL", "debug"));
    }

    #[test]
    fn references_in_arguments_skip_the_server() {
        let reading = pins(
            ".mcp.json",
            r#"{"mcpServers": {"s": {"command": "x", "args": ["${HOME}/y"]}}}"#,
        );
        assert_eq!(reading.servers, Vec::new());
        assert_eq!(
            reading.warnings,
            vec![
                ".mcp.json: mcpServers.s.args[0]: uses ${HOME}, which the client fills in when \
                 it starts the server; a pin's command, arguments and directory are literal \
                 (the server reads variables from its environment: `env`, `pass-env`), so the \
                 server was skipped; write its pin by hand"
                    .to_owned()
            ]
        );
    }

    #[test]
    fn malformed_entries_are_warnings_not_panics() {
        for text in [
            "[]",
            "{}",
            r#"{"mcpServers": 3}"#,
            r#"{"mcpServers": {"a": 1, "b": {"command": 2}, "c": {"url": "ftp://x"}}}"#,
            r#"{"servers": {"a": {"type": "ws", "url": "https://x"}}}"#,
            r#"{"mcpServers": {"a": {"url": "https://u:p@x/mcp"}}}"#,
        ] {
            let reading = pins("f.json", text);
            assert!(reading.servers.is_empty(), "{text}");
            assert!(!reading.warnings.is_empty(), "{text}");
        }
    }
}
