//! `[servers.<name>.registry]`: where a pin came from in an MCP registry (the official MCP
//! Registry's `/v0.1` API, or another registry of the same API), as `oma-mcp add` writes it
//! and `oma-mcp check` asks about it (a deprecated or deleted entry, a newer version).

use serde::Deserialize;

/// The official MCP Registry, the registry of a pin without `url`.
pub const OFFICIAL_REGISTRY: &str = "https://registry.modelcontextprotocol.io";

/// `[servers.<name>.registry]`: the entry of an MCP registry a pin was made from, as
/// `oma-mcp add` writes it; `oma-mcp check` asks the registry about that entry (never with
/// `--offline`).
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawRegistry {
    /// The server's name in the registry, in reverse-DNS form with one `/`
    /// (`io.github.owner/server`).
    #[cfg_attr(feature = "json-schema", schemars(length(min = 3)))]
    name: String,
    /// The exact version of the registry entry the pin was made from (never `latest`).
    #[cfg_attr(feature = "json-schema", schemars(length(min = 1)))]
    version: String,
    /// The registry's base URL (default: the official MCP Registry,
    /// `https://registry.modelcontextprotocol.io`).
    url: Option<String>,
    /// The package's registry type (`npm`, `pypi`, `oci`, …); absent for a remote pinned by
    /// its URL.
    registry_type: Option<String>,
    /// The package's identifier (an npm or PyPI name, an OCI image reference); absent for a
    /// remote.
    identifier: Option<String>,
    /// The package's version where the entry gives one apart from the identifier.
    package_version: Option<String>,
    /// The SHA-256 of the package file, as the entry gives it (64 lowercase hex digits).
    file_sha256: Option<String>,
}

/// Where a pin came from in an MCP registry (`[servers.<name>.registry]`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RegistryPin {
    /// The server's name in the registry (`io.github.owner/server`).
    pub name: String,
    /// The exact version of the entry.
    pub version: String,
    /// The registry's base URL, without a trailing `/` ([`OFFICIAL_REGISTRY`] by default).
    pub url: String,
    /// The package's registry type (`npm`, `pypi`, `oci`, …); `None` for a remote.
    pub registry_type: Option<String>,
    /// The package's identifier; `None` for a remote.
    pub identifier: Option<String>,
    /// The package's version, where the entry gives one.
    pub package_version: Option<String>,
    /// The SHA-256 of the package file, where the entry gives one.
    pub file_sha256: Option<String>,
}

/// `servers.<server>.registry`, checked: a name with one `/`, a version that is not `latest`,
/// an http(s) URL, a SHA-256 of 64 hex digits.
pub(super) fn registry(server: &str, raw: RawRegistry) -> Result<RegistryPin, String> {
    let at = format!("servers.{server}.registry");
    let parts: Vec<&str> = raw.name.split('/').collect();
    if parts.len() != 2 || parts.iter().any(|p| p.is_empty()) {
        return Err(format!(
            "{at}.name {:?} is not a registry server name; give it in reverse-DNS form with one \
             `/`, such as \"io.github.owner/server\"",
            raw.name
        ));
    }
    if raw.version.trim().is_empty() || raw.version == "latest" {
        return Err(format!(
            "{at}.version {:?} is not an exact version; give the version the pin was made \
             from, such as \"1.2.3\"",
            raw.version
        ));
    }
    let url = match raw.url {
        None => OFFICIAL_REGISTRY.to_owned(),
        Some(url) => {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(format!(
                    "{at}.url {url:?} is not an http or https URL; give the registry's base \
                     URL, such as \"{OFFICIAL_REGISTRY}\""
                ));
            }
            url.trim_end_matches('/').to_owned()
        }
    };
    if let Some(sha) = &raw.file_sha256
        && (sha.len() != 64 || !sha.bytes().all(|b| b.is_ascii_hexdigit()))
    {
        return Err(format!(
            "{at}.file-sha256 {sha:?} is not a SHA-256 (64 hexadecimal digits)"
        ));
    }
    Ok(RegistryPin {
        name: raw.name,
        version: raw.version,
        url,
        registry_type: raw.registry_type,
        identifier: raw.identifier,
        package_version: raw.package_version,
        file_sha256: raw.file_sha256,
    })
}
