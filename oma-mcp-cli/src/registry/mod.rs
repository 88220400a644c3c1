//! `oma-mcp add` without I/O: an entry of an MCP registry (the official MCP Registry's
//! `/v0.1` API: a `ServerResponse`, the publisher's `server.json` under `server` and the
//! registry's `_meta`) read defensively (`entry`), and one of its packages or remotes turned
//! into a pin (`pin`). The HTTP requests are `fetch`'s.
//!
//! How an entry becomes a pin:
//!
//! - npm: `npx -y <identifier>@<version>` (the package's `runtimeHint` replaces `npx`);
//! - PyPI: `uvx <identifier>==<version>` (or the `runtimeHint`);
//! - OCI: `docker run -i --rm -e NAME… <image>`, the image as the identifier gives it (a
//!   digest `@sha256:…` or a tag), else `<identifier>:<version>`; each environment variable
//!   is passed into the container by name, so its value comes from the environment;
//! - MCPB: refused (a bundle is a file to download, verify and unpack, not a command);
//! - a remote: its `url` (streamable HTTP only), literal headers in `headers`, the others
//!   (`isSecret`, or without a value) from the environment: `Authorization` as `bearer-env`,
//!   any other as `header-env`, the variable named after the pin and the header as `init`
//!   names them (`WEATHER_TOKEN`, `WEATHER_X_API_KEY`).
//!
//! `runtimeArguments` go before the package, `packageArguments` after it, each as the entry
//! gives its value (`{variables}` replaced by their `value` or `default`); an optional one
//! without a value is left out with a warning, a required one refuses the entry. An
//! environment variable with `isSecret`, or without a value or default, becomes a `pass-env`
//! name; any other goes to `env` with its value.

pub mod fetch;

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::init::source::{Transport, input_variable};

/// The key of the official registry's metadata in an entry's `_meta`.
const OFFICIAL_META: &str = "io.modelcontextprotocol.registry/official";

/// A registry entry's lifecycle status (`_meta["io.modelcontextprotocol.registry/official"]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// `active`, or no status given.
    Active,
    /// `deprecated`.
    Deprecated,
    /// `deleted`.
    Deleted,
}

/// One entry of the registry: a server at one version.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// `server.name` (`io.github.owner/server`).
    pub name: String,
    /// `server.version`.
    pub version: String,
    /// The registry's status of this version.
    pub status: Status,
    /// The registry's `statusMessage`, if any (why it is deprecated).
    pub status_message: Option<String>,
    /// The registry's `isLatest`, if given.
    pub is_latest: Option<bool>,
    /// `server.packages`, each as published.
    packages: Vec<Value>,
    /// `server.remotes`, each as published.
    remotes: Vec<Value>,
}

/// Reads a `ServerResponse` (`{"server": {…server.json…}, "_meta": {…}}`).
///
/// # Errors
/// What is missing or of the wrong type, with its JSON path.
pub fn entry(json: &Value) -> Result<Entry, String> {
    let server = json
        .get("server")
        .and_then(Value::as_object)
        .ok_or("it has no `server` object")?;
    let text = |key: &str| -> Result<String, String> {
        server
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| format!("`server.{key}` is not a string"))
    };
    let name = text("name")?;
    let version = text("version")?;
    let list = |key: &str| -> Result<Vec<Value>, String> {
        match server.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => Ok(items.clone()),
            Some(_) => Err(format!("`server.{key}` is not an array")),
        }
    };
    let packages = list("packages")?;
    let remotes = list("remotes")?;
    let official = json
        .get("_meta")
        .and_then(|m| m.get(OFFICIAL_META))
        .and_then(Value::as_object);
    let field = |key: &str| official.and_then(|o| o.get(key));
    let status = match field("status").and_then(Value::as_str) {
        Some("deprecated") => Status::Deprecated,
        Some("deleted") => Status::Deleted,
        _ => Status::Active,
    };
    Ok(Entry {
        name,
        version,
        status,
        status_message: field("statusMessage")
            .and_then(Value::as_str)
            .filter(|m| !m.trim().is_empty())
            .map(str::to_owned),
        is_latest: field("isLatest").and_then(Value::as_bool),
        packages,
        remotes,
    })
}

/// The versions of a `ServerList` (`{"servers": [ServerResponse…]}`), in the list's order;
/// entries that do not read are left out.
pub fn versions(json: &Value) -> Vec<String> {
    json.get("servers")
        .and_then(Value::as_array)
        .map(|servers| {
            servers
                .iter()
                .filter_map(|s| entry(s).ok())
                .map(|e| e.version)
                .collect()
        })
        .unwrap_or_default()
}

/// Which of an entry's packages or remotes to pin (`--type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// An npm package, started with `npx`.
    Npm,
    /// A PyPI package, started with `uvx`.
    Pypi,
    /// An OCI image, started with `docker run`.
    Oci,
    /// An MCP bundle (refused: see the error).
    Mcpb,
    /// A remote, reached by its URL.
    Remote,
}

impl Kind {
    /// The `registryType` of a package of this kind (`remote` for a remote).
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Npm => "npm",
            Kind::Pypi => "pypi",
            Kind::Oci => "oci",
            Kind::Mcpb => "mcpb",
            Kind::Remote => "remote",
        }
    }
}

/// `[servers.<name>.registry]` of a new pin, in the order it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistryTable {
    /// The entry's name.
    pub name: String,
    /// The entry's exact version.
    pub version: String,
    /// The registry's base URL, when it is not the official registry.
    pub url: Option<String>,
    /// The package's `registryType` (none for a remote).
    pub registry_type: Option<String>,
    /// The package's `identifier` (none for a remote).
    pub identifier: Option<String>,
    /// The package's `version`, where given.
    pub package_version: Option<String>,
    /// The package's `fileSha256`, where given.
    pub file_sha256: Option<String>,
}

impl RegistryTable {
    /// The keys and values to write, in order.
    pub fn keys(&self) -> Vec<(&'static str, &str)> {
        let mut keys = vec![("name", self.name.as_str()), ("version", &self.version)];
        let optional = [
            ("url", &self.url),
            ("registry-type", &self.registry_type),
            ("identifier", &self.identifier),
            ("package-version", &self.package_version),
            ("file-sha256", &self.file_sha256),
        ];
        keys.extend(
            optional
                .into_iter()
                .filter_map(|(k, v)| v.as_deref().map(|v| (k, v))),
        );
        keys
    }
}

/// A pin made from an entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pinned {
    /// How the server is started or reached.
    pub transport: Transport,
    /// Where it came from.
    pub registry: RegistryTable,
    /// What the user should know (a left-out argument, a tag an image registry can move).
    pub warnings: Vec<String>,
}

/// Pins one package or remote of `entry` as the manifest's server `pin_name`; `registry` is
/// the registry's base URL, written into the pin when it is not `official`.
///
/// Without `kind`, the first package oma-mcp can start (npm, PyPI or OCI over stdio), else
/// the first streamable HTTP remote.
///
/// # Errors
/// Why the entry (or the package `kind` names) cannot be pinned, and what to do instead.
pub fn pin(
    entry: &Entry,
    kind: Option<Kind>,
    pin_name: &str,
    registry: &str,
    official: &str,
) -> Result<Pinned, String> {
    let at = format!("{} {}", entry.name, entry.version);
    let package_type = |p: &Value| {
        p.get("registryType")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let remote_type = |r: &Value| {
        r.get("type")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let has: Vec<String> = entry
        .packages
        .iter()
        .map(|p| match package_type(p) {
            t if t.is_empty() => "untyped".to_owned(),
            t => t,
        })
        .chain(
            entry
                .remotes
                .iter()
                .map(|r| format!("remote ({})", remote_type(r))),
        )
        .collect();
    let listed = if has.is_empty() {
        "nothing".to_owned()
    } else {
        has.join(", ")
    };
    let chosen: Candidate<'_> = match kind {
        Some(Kind::Remote) => entry
            .remotes
            .iter()
            .find(|r| remote_type(r) == "streamable-http")
            .or_else(|| entry.remotes.first())
            .map(Candidate::Remote)
            .ok_or_else(|| format!("{at} has no remote; it has: {listed}"))?,
        Some(kind) => entry
            .packages
            .iter()
            .find(|p| package_type(p) == kind.as_str())
            .map(Candidate::Package)
            .ok_or_else(|| format!("{at} has no {} package; it has: {listed}", kind.as_str()))?,
        None => entry
            .packages
            .iter()
            .find(|p| matches!(package_type(p).as_str(), "npm" | "pypi" | "oci") && stdio(p))
            .map(Candidate::Package)
            .or_else(|| {
                entry
                    .remotes
                    .iter()
                    .find(|r| remote_type(r) == "streamable-http")
                    .map(Candidate::Remote)
            })
            .or_else(|| {
                entry
                    .packages
                    .iter()
                    .find(|p| package_type(p) == "mcpb")
                    .map(Candidate::Package)
            })
            .ok_or_else(|| {
                format!(
                    "{at} has no package or remote oma-mcp can pin (an npm, PyPI or OCI package \
                     over stdio, or a streamable HTTP remote); it has: {listed}"
                )
            })?,
    };
    let mut table = RegistryTable {
        name: entry.name.clone(),
        version: entry.version.clone(),
        url: (registry != official).then(|| registry.to_owned()),
        registry_type: None,
        identifier: None,
        package_version: None,
        file_sha256: None,
    };
    let mut warnings = Vec::new();
    let transport = match chosen {
        Candidate::Remote(remote) => remote_pin(remote, &at, pin_name)?,
        Candidate::Package(package) => {
            let text = |key: &str| package.get(key).and_then(Value::as_str).map(str::to_owned);
            table.registry_type = Some(package_type(package));
            table.identifier = text("identifier");
            table.package_version = text("version");
            table.file_sha256 = text("fileSha256");
            package_pin(package, &at, &mut warnings)?
        }
    };
    Ok(Pinned {
        transport,
        registry: table,
        warnings,
    })
}

/// The package or remote chosen.
enum Candidate<'a> {
    Package(&'a Value),
    Remote(&'a Value),
}

/// Whether a package is started over stdio (its `transport.type`, `stdio` when absent).
fn stdio(package: &Value) -> bool {
    matches!(
        package
            .get("transport")
            .and_then(|t| t.get("type"))
            .and_then(Value::as_str),
        None | Some("stdio")
    )
}

/// A value of an input (`value`, else `default`) with its `{variables}` replaced by their
/// own `value` or `default`; `None` when there is none or a variable has none.
fn resolved(input: &Value) -> Option<String> {
    let raw = input
        .get("value")
        .and_then(Value::as_str)
        .or_else(|| input.get("default").and_then(Value::as_str))?;
    let variables = input.get("variables").and_then(Value::as_object);
    substitute(raw, variables)
}

/// `text` with each `{name}` replaced from `variables` (`value`, else `default`); `None`
/// when one has neither.
fn substitute(text: &str, variables: Option<&Map<String, Value>>) -> Option<String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let close = rest[open..].find('}')? + open;
        let name = &rest[open + 1..close];
        let variable = variables.and_then(|v| v.get(name))?;
        let value = variable
            .get("value")
            .and_then(Value::as_str)
            .or_else(|| variable.get("default").and_then(Value::as_str))?;
        out.push_str(&rest[..open]);
        out.push_str(value);
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    Some(out)
}

/// The command-line words of `runtimeArguments` or `packageArguments` (`key`).
fn arguments(
    package: &Value,
    key: &str,
    at: &str,
    warnings: &mut Vec<String>,
) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let Some(list) = package.get(key).and_then(Value::as_array) else {
        return Ok(words);
    };
    for (i, argument) in list.iter().enumerate() {
        let named = argument.get("type").and_then(Value::as_str) == Some("named");
        let flag = argument.get("name").and_then(Value::as_str);
        let label = flag
            .or_else(|| argument.get("valueHint").and_then(Value::as_str))
            .map_or_else(|| format!("{key}[{i}]"), |l| format!("{key}[{i}] `{l}`"));
        let required = argument
            .get("isRequired")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        match (resolved(argument), named, flag) {
            (Some(value), true, Some(flag)) => words.extend([flag.to_owned(), value]),
            (Some(value), false, _) => words.push(value),
            (_, true, None) => {
                return Err(format!("{at}: the named argument {label} has no `name`"));
            }
            (None, _, _) if required => {
                return Err(format!(
                    "{at}: the required argument {label} has no value in the registry (the \
                     user chooses it); oma-mcp pins only a literal command line: write the pin \
                     into oma-mcp.toml by hand with your value"
                ));
            }
            (None, _, _) => warnings.push(format!(
                "{at}: the optional argument {label} has no value in the registry; left out \
                 (add it to `args` if you need it)"
            )),
        }
    }
    Ok(words)
}

/// The name of an environment variable or header of a package or remote, checked.
fn input_name<'a>(input: &'a Value, at: &str, what: &str) -> Result<&'a str, String> {
    match input.get("name").and_then(Value::as_str) {
        Some(name) if !name.is_empty() && !name.contains(['=', '\0']) => Ok(name),
        _ => Err(format!("{at}: an entry of `{what}` has no usable `name`")),
    }
}

/// The runners a `runtimeHint` may name, per registry type (the MCP Registry's package types:
/// npm packages run with npx or bunx, PyPI packages with uvx or pipx, OCI images with docker
/// or podman).
const RUNNERS: &[(&str, &[&str])] = &[
    ("npm", &["npx", "bunx"]),
    ("pypi", &["uvx", "pipx"]),
    ("oci", &["docker", "podman"]),
];

/// Whether `identifier` is a package name of its registry type: npm's (`@scope/name`,
/// lowercase letters, digits, `-`, `.`, `_`, `~`), PyPI's (PEP 508 names: letters, digits,
/// `-`, `.`, `_`, starting and ending with a letter or digit), or an OCI image reference
/// (registry host, path, `:tag` or `@sha256:digest`; no leading `-`, no spaces). Anything that
/// starts with `-` is refused, as it would be read as an option.
fn valid_identifier(kind: &str, identifier: &str) -> bool {
    let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~');
    let starts_well = identifier
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '@');
    if !starts_well {
        return false;
    }
    match kind {
        "npm" => {
            let name = match identifier.strip_prefix('@') {
                Some(scoped) => match scoped.split_once('/') {
                    Some((scope, name)) if !scope.is_empty() && scope.chars().all(plain) => name,
                    _ => return false,
                },
                None => identifier,
            };
            !name.is_empty()
                && name.chars().all(plain)
                && !name.starts_with(['-', '.', '_'])
                && identifier == identifier.to_ascii_lowercase()
        }
        "pypi" => {
            identifier
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
                && identifier
                    .chars()
                    .last()
                    .is_some_and(|c| c.is_ascii_alphanumeric())
        }
        "oci" => identifier
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '/' | ':' | '@')),
        _ => false,
    }
}

/// A package over stdio as a command pin.
fn package_pin(package: &Value, at: &str, warnings: &mut Vec<String>) -> Result<Transport, String> {
    let kind = package
        .get("registryType")
        .and_then(Value::as_str)
        .unwrap_or("");
    let identifier = package
        .get("identifier")
        .and_then(Value::as_str)
        .filter(|i| !i.trim().is_empty())
        .ok_or_else(|| format!("{at}: its {kind} package has no `identifier`"))?;
    if kind == "mcpb" {
        let sha = package
            .get("fileSha256")
            .and_then(Value::as_str)
            .map(|s| format!(" (SHA-256 {s})"))
            .unwrap_or_default();
        return Err(format!(
            "{at} is an MCP bundle (mcpb): {identifier}{sha}. oma-mcp pins a command or a URL \
             and does not download or unpack bundles: download the bundle, check its SHA-256, \
             unpack it and pin the command its manifest.json names (try it first with \
             `oma-mcp list -- COMMAND ARGS...`), or add another package of the entry with \
             --type"
        ));
    }
    // The entry's text becomes a command line that `add` runs at once to take the snapshot:
    // nothing in it may read as an option or name another program than the package type's.
    if !valid_identifier(kind, identifier) {
        return Err(format!(
            "{at}: its {kind} package's identifier {} is not a valid {kind} package name; \
             refusing to pin it (an identifier that starts with `-` or holds spaces or shell \
             characters would be read as options or commands)",
            crate::terminal::one_line(&format!("{identifier:?}"))
        ));
    }
    if !stdio(package) {
        return Err(format!(
            "{at}: its {kind} package serves MCP over HTTP once started, and oma-mcp pins a \
             server started over stdio or a URL it reaches; start it yourself and pin its URL"
        ));
    }
    let version = package
        .get("version")
        .and_then(Value::as_str)
        .filter(|v| !v.trim().is_empty());
    let exact = |what: &str| -> Result<&str, String> {
        match version {
            Some(v) if v != "latest" && !v.contains(['^', '~', '*', '>', '<', ' ']) => Ok(v),
            Some(v) => Err(format!(
                "{at}: its {what} package's version {v:?} is not an exact version, and a pin \
                 must not move"
            )),
            None => Err(format!(
                "{at}: its {what} package gives no version, and a pin must not move"
            )),
        }
    };
    let runtime = arguments(package, "runtimeArguments", at, warnings)?;
    let after = arguments(package, "packageArguments", at, warnings)?;
    let hint = package
        .get("runtimeHint")
        .and_then(Value::as_str)
        .filter(|h| !h.trim().is_empty());
    if let Some(hint) = hint
        && !RUNNERS
            .iter()
            .any(|(k, runners)| *k == kind && runners.contains(&hint))
    {
        let known: Vec<&str> = RUNNERS
            .iter()
            .filter(|(k, _)| *k == kind)
            .flat_map(|(_, runners)| runners.iter().copied())
            .collect();
        return Err(format!(
            "{at}: its {kind} package's runtimeHint {} is not a runner oma-mcp knows for {kind} \
             packages ({}); refusing to pin a command the entry chose (pin it by hand with \
             `oma-mcp.toml`'s `command` after reading what it runs)",
            crate::terminal::one_line(&format!("{hint:?}")),
            known.join(", ")
        ));
    }
    let mut env = BTreeMap::new();
    let mut pass_env = Vec::new();
    let mut names = Vec::new();
    if let Some(list) = package
        .get("environmentVariables")
        .and_then(Value::as_array)
    {
        for variable in list {
            let name = input_name(variable, at, "environmentVariables")?;
            let secret = variable
                .get("isSecret")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            match resolved(variable) {
                Some(value) if !secret => {
                    env.insert(name.to_owned(), value);
                }
                _ => pass_env.push(name.to_owned()),
            }
            names.push(name.to_owned());
        }
    }
    let (command, args) = match kind {
        "npm" => {
            let command = hint.unwrap_or("npx").to_owned();
            let mut args = runtime;
            if command == "npx" && !args.iter().any(|a| a == "-y" || a == "--yes") {
                args.push("-y".to_owned());
            }
            args.push(format!("{identifier}@{}", exact("npm")?));
            args.extend(after);
            (command, args)
        }
        "pypi" => {
            let mut args = runtime;
            args.push(format!("{identifier}=={}", exact("PyPI")?));
            args.extend(after);
            (hint.unwrap_or("uvx").to_owned(), args)
        }
        "oci" => {
            let last = identifier.rsplit('/').next().unwrap_or(identifier);
            let image = if identifier.contains('@') || last.contains(':') {
                identifier.to_owned()
            } else {
                format!("{identifier}:{}", exact("OCI")?)
            };
            if !image.contains("@sha256:") {
                warnings.push(format!(
                    "{at}: the image {image} is pinned by its tag, which the image registry can \
                     move to other content; pin its digest (`image@sha256:…`) in `args` for a \
                     pin that cannot"
                ));
            }
            let mut args: Vec<String> = ["run", "-i", "--rm"].map(str::to_owned).to_vec();
            args.extend(runtime);
            for name in &names {
                args.extend(["-e".to_owned(), name.clone()]);
            }
            args.push(image);
            args.extend(after);
            (hint.unwrap_or("docker").to_owned(), args)
        }
        other => {
            return Err(format!(
                "{at}: oma-mcp does not pin {} packages; it pins npm, PyPI and OCI packages and \
                 streamable HTTP remotes",
                if other.is_empty() { "untyped" } else { other }
            ));
        }
    };
    Ok(Transport::Command {
        command,
        args,
        cwd: None,
        env,
        pass_env,
    })
}

/// A remote as a URL pin.
fn remote_pin(remote: &Value, at: &str, pin_name: &str) -> Result<Transport, String> {
    let kind = remote.get("type").and_then(Value::as_str).unwrap_or("");
    if kind != "streamable-http" {
        return Err(format!(
            "{at}: its remote is `{kind}`, and oma-mcp speaks streamable HTTP only"
        ));
    }
    let template = remote
        .get("url")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{at}: its remote has no `url`"))?;
    let url = substitute(template, remote.get("variables").and_then(Value::as_object)).ok_or_else(
        || {
            format!(
                "{at}: its remote's URL {template:?} has a variable without a value in the \
                 registry; write the pin into oma-mcp.toml by hand with your value"
            )
        },
    )?;
    if let Err(problem) = oma_mcp_build::manifest::check_url(&url) {
        use oma_mcp_build::manifest::UrlProblem;
        let why = match problem {
            UrlProblem::NotAbsolute(reason) => reason,
            UrlProblem::NotHttp => "not an http or https URL".to_owned(),
            UrlProblem::Userinfo => "it holds a user name or password".to_owned(),
            _ => "it cannot be used".to_owned(),
        };
        return Err(format!("{at}: its remote's URL cannot be pinned: {why}"));
    }
    let mut headers = BTreeMap::new();
    let mut bearer_env = None;
    let mut header_env = BTreeMap::new();
    let server = input_variable(pin_name);
    if let Some(list) = remote.get("headers").and_then(Value::as_array) {
        for header in list {
            let name = input_name(header, at, "headers")?;
            let secret = header
                .get("isSecret")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            let value = resolved(header);
            if name.eq_ignore_ascii_case("authorization") {
                match &value {
                    Some(v) if !secret && !v.starts_with("Bearer ") => {
                        header_env.insert(name.to_owned(), format!("{server}_AUTHORIZATION"));
                    }
                    _ => bearer_env = Some(format!("{server}_TOKEN")),
                }
                continue;
            }
            match value {
                Some(v) if !secret && !oma_mcp_build::manifest::looks_like_credential(name) => {
                    headers.insert(name.to_owned(), v);
                }
                _ => {
                    header_env.insert(
                        name.to_owned(),
                        format!("{server}_{}", input_variable(name)),
                    );
                }
            }
        }
    }
    Ok(Transport::Url {
        url,
        headers,
        bearer_env,
        header_env,
    })
}

/// What `check` says about a pin's registry entry: the entry's answer (`None` for a 404),
/// and the newest version's when the entry is not the latest.
pub fn status_changes(
    pinned: &oma_mcp_build::manifest::RegistryPin,
    found: Option<&Entry>,
    latest: Option<&Entry>,
) -> Vec<oma_mcp_core::drift::Change> {
    use oma_mcp_core::drift::{Change, Severity};
    let at = format!("{}@{}", pinned.name, pinned.version);
    let mut changes = Vec::new();
    let Some(found) = found else {
        changes.push(Change::registry_status(
            Severity::Warning,
            format!(
                "{at} is no longer in the registry at {} (deleted, or never published there); \
                 pin another version with `oma-mcp add`",
                pinned.url
            ),
        ));
        return changes;
    };
    let reason = found
        .status_message
        .as_deref()
        .map(|m| format!(": {m:?}"))
        .unwrap_or_default();
    match found.status {
        Status::Deprecated => changes.push(Change::registry_status(
            Severity::Warning,
            format!("{at} is deprecated in the registry{reason}"),
        )),
        Status::Deleted => changes.push(Change::registry_status(
            Severity::Warning,
            format!("{at} is deleted from the registry{reason}"),
        )),
        Status::Active => {}
    }
    if let Some(latest) = latest.filter(|l| l.version != pinned.version) {
        changes.push(Change::registry_status(
            Severity::Info,
            format!(
                "{} {} is published in the registry (pinned: {}); `oma-mcp add {}@{}` updates \
                 the pin",
                pinned.name, latest.version, pinned.version, pinned.name, latest.version
            ),
        ));
    }
    changes
}

/// Asks the registry about a pin's entry for `check`: its [`status_changes`], or why the
/// registry could not be asked (a warning for stderr, never a failure).
///
/// # Errors
/// The registry cannot be reached, or its answer is not an entry.
pub async fn check(
    pinned: &oma_mcp_build::manifest::RegistryPin,
) -> Result<Vec<oma_mcp_core::drift::Change>, String> {
    let registry = fetch::Registry::new(&pinned.url)?;
    let read = |answer: fetch::Answer, url: String| -> Result<Option<Entry>, String> {
        match answer {
            fetch::Answer::NotFound => Ok(None),
            fetch::Answer::Found(json) => entry(&json).map(Some).map_err(|problem| {
                format!("the registry's answer from {url} is not a server entry: {problem}")
            }),
        }
    };
    let found = read(
        registry.version(&pinned.name, &pinned.version).await?,
        registry.version_url(&pinned.name, &pinned.version),
    )?;
    let latest = match &found {
        Some(f) if f.is_latest == Some(false) => read(
            registry.version(&pinned.name, "latest").await?,
            registry.version_url(&pinned.name, "latest"),
        )?,
        _ => None,
    };
    Ok(status_changes(pinned, found.as_ref(), latest.as_ref()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What `add` would run is the package type's runner with a package name: an identifier
    /// that reads as an option or a command, and a runtimeHint that is not a known runner of
    /// its type, are refused before anything is written or run.
    #[test]
    fn identifiers_and_runners_from_the_registry_are_checked() {
        for (kind, good) in [
            ("npm", "@modelcontextprotocol/server-everything"),
            ("npm", "mcp-server-fetch"),
            ("pypi", "mcp-server-time"),
            ("pypi", "Mcp_Server.Git"),
            ("oci", "ghcr.io/github/github-mcp-server@sha256:abc123"),
            ("oci", "docker.io/mcp/time:1.0"),
        ] {
            assert!(valid_identifier(kind, good), "{kind} {good}");
        }
        for (kind, bad) in [
            ("npm", "--call=touch /tmp/x;echo"),
            ("npm", "-y"),
            ("npm", "Upper"),
            ("npm", "@scope/"),
            ("npm", "a b"),
            ("pypi", "--with=evil"),
            ("pypi", "name;rm"),
            ("oci", "--privileged"),
            ("oci", "image name"),
            ("mcpb", "https://x/y.mcpb"),
        ] {
            assert!(!valid_identifier(kind, bad), "{kind} {bad}");
        }
        let package = |hint: &str| {
            json!({"registryType": "npm", "identifier": "weather", "version": "1.0.0",
                   "runtimeHint": hint, "transport": {"type": "stdio"}})
        };
        let mut warnings = Vec::new();
        assert_eq!(
            package_pin(&package("sh"), "entry", &mut warnings).err(),
            Some(
                "entry: its npm package's runtimeHint \"sh\" is not a runner oma-mcp knows for \
                 npm packages (npx, bunx); refusing to pin a command the entry chose (pin it by \
                 hand with `oma-mcp.toml`'s `command` after reading what it runs)"
                    .to_owned()
            )
        );
        assert!(package_pin(&package("bunx"), "entry", &mut warnings).is_ok());
        let injected = json!({"registryType": "npm", "identifier": "--call=touch x", "version": "1.0.0",
                              "transport": {"type": "stdio"}});
        assert_eq!(
            package_pin(&injected, "entry", &mut warnings).err(),
            Some(
                "entry: its npm package's identifier \"--call=touch x\" is not a valid npm \
                 package name; refusing to pin it (an identifier that starts with `-` or holds \
                 spaces or shell characters would be read as options or commands)"
                    .to_owned()
            )
        );
    }

    /// Malformed answers are errors naming what is wrong, never panics; a package or remote
    /// of the wrong shape refuses the entry with its reason.
    #[test]
    fn malformed_entries_are_errors() {
        assert_eq!(
            entry(&json!([])),
            Err("it has no `server` object".to_owned())
        );
        assert_eq!(
            entry(&json!({"server": {"name": 1}})),
            Err("`server.name` is not a string".to_owned())
        );
        assert_eq!(
            entry(&json!({"server": {"name": "a.b/c", "version": "1", "packages": {}}})),
            Err("`server.packages` is not an array".to_owned())
        );
        assert_eq!(
            versions(&json!({"servers": [1, {"server": {}}]})),
            Vec::<String>::new()
        );
        let odd = entry(&json!({
            "server": {"name": "a.b/c", "version": "1", "packages": [
                7,
                {"registryType": "npm", "identifier": "x", "version": "^1.0"},
            ], "remotes": [{"type": "streamable-http", "url": "https://{host}/mcp"}]},
            "_meta": {"io.modelcontextprotocol.registry/official": "not an object"}
        }))
        .unwrap();
        assert_eq!(odd.status, Status::Active);
        assert_eq!(
            pin(&odd, None, "c", "r", "r"),
            Err(
                "a.b/c 1: its npm package's version \"^1.0\" is not an exact version, and a pin \
                 must not move"
                    .to_owned()
            )
        );
        assert_eq!(
            pin(&odd, Some(Kind::Remote), "c", "r", "r"),
            Err(
                "a.b/c 1: its remote's URL \"https://{host}/mcp\" has a variable without a value \
                 in the registry; write the pin into oma-mcp.toml by hand with your value"
                    .to_owned()
            )
        );
        assert_eq!(
            pin(&odd, Some(Kind::Pypi), "c", "r", "r"),
            Err(
                "a.b/c 1 has no pypi package; it has: untyped, npm, remote (streamable-http)"
                    .to_owned()
            )
        );
    }

    /// `{variables}` take their `value`, else their `default`; one without either leaves the
    /// text unresolved.
    #[test]
    fn variables_are_substituted() {
        let vars = json!({"a": {"value": "1"}, "b": {"default": "2"}, "c": {}});
        let vars = vars.as_object();
        assert_eq!(substitute("x{a}y{b}z", vars), Some("x1y2z".to_owned()));
        assert_eq!(substitute("{c}", vars), None);
        assert_eq!(substitute("open{", vars), None);
        assert_eq!(substitute("plain", None), Some("plain".to_owned()));
    }
}
