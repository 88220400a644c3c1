//! `oma-mcp add NAME@VERSION`: a pin from an MCP registry (the official MCP Registry, or
//! another registry of its `/v0.1` API with `--registry`): the entry's package or remote
//! written into `oma-mcp.toml` with where it came from (`[servers.<name>.registry]`), then
//! its snapshot taken. The mapping is `crate::registry`'s; the manifest is edited as `init`
//! edits it.

use std::path::PathBuf;

use clap::Args;
use oma_mcp_build::manifest::{DEFAULT_MANIFEST, Manifest, OFFICIAL_REGISTRY};
use toml_edit::{DocumentMut, Item, Table};

use crate::commands::snapshot;
use crate::error::CliError;
use crate::exit::Outcome;
use crate::init::edit::{Change, merge};
use crate::init::source::{Found, manifest_name};
use crate::registry::fetch::{Answer, Registry};
use crate::registry::{Kind, Pinned, RegistryTable, Status, entry, pin, versions};
use crate::terminal;

/// Flags of `add`.
#[derive(Debug, Args)]
pub struct AddArgs {
    /// The server's name in the registry and its exact version, such as
    /// `io.github.owner/server@1.2.3`; `@latest` takes the newest version and records the
    /// version it is.
    #[arg(value_name = "NAME@VERSION")]
    pub server: String,
    /// The registry's base URL (the `/v0.1` API of the official MCP Registry).
    #[arg(long, value_name = "URL", default_value = OFFICIAL_REGISTRY)]
    pub registry: String,
    /// Which of the entry's packages or remotes to pin (default: the first npm, PyPI or OCI
    /// package started over stdio, else the first streamable HTTP remote).
    #[arg(long = "type", value_enum, value_name = "TYPE")]
    pub kind: Option<Kind>,
    /// The pin's name in the manifest (default: the registry name after its `/`).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// The manifest to create or update (default: ./oma-mcp.toml).
    #[arg(long, value_name = "PATH")]
    pub manifest: Option<PathBuf>,
    /// Write the manifest but take no snapshot.
    #[arg(long)]
    pub no_snapshot: bool,
}

/// Runs `add`.
pub async fn run(args: AddArgs) -> Result<Outcome, CliError> {
    let manifest_path = args
        .manifest
        .unwrap_or_else(|| PathBuf::from(DEFAULT_MANIFEST));
    let registry = Registry::new(&args.registry).map_err(CliError::Registry)?;
    let (name, version) = match args.server.split_once('@') {
        Some((name, version)) if !name.is_empty() && !version.is_empty() => (name, version),
        _ => {
            let name = args.server.trim_end_matches('@');
            let known = known_versions(&registry, name).await?;
            return Err(CliError::Registry(format!(
                "give the version to pin: `oma-mcp add {name}@VERSION` ({known}), or \
                 `{name}@latest` for the newest"
            )));
        }
    };
    let url = registry.version_url(name, version);
    let json = match registry
        .version(name, version)
        .await
        .map_err(CliError::Registry)?
    {
        Answer::Found(json) => json,
        Answer::NotFound => {
            let known = known_versions(&registry, name).await?;
            return Err(CliError::Registry(format!(
                "{name}@{version} is not in the registry ({url} answered 404): {known}"
            )));
        }
    };
    let found = entry(&json).map_err(|problem| {
        CliError::Registry(format!(
            "the registry's answer from {url} is not a server entry: {problem}"
        ))
    })?;
    if found.name != name {
        return Err(CliError::Registry(format!(
            "the registry answered {url} with the server {:?}, not {name:?}",
            found.name
        )));
    }
    if version != "latest" && found.version != version {
        return Err(CliError::Registry(format!(
            "the registry answered {url} with version {:?}, not {version:?}",
            found.version
        )));
    }
    let reason = found
        .status_message
        .as_deref()
        .map(|m| format!(": {}", terminal::safe(m)))
        .unwrap_or_default();
    match found.status {
        Status::Deleted => {
            return Err(CliError::Registry(format!(
                "{name}@{} is deleted from the registry{reason}; pin another version",
                found.version
            )));
        }
        Status::Deprecated => eprintln!(
            "oma-mcp: warning: {name}@{} is deprecated in the registry{reason}",
            found.version
        ),
        Status::Active => {}
    }
    let pin_name = args
        .name
        .clone()
        .unwrap_or_else(|| manifest_name(name.rsplit('/').next().unwrap_or(name)));
    let Pinned {
        transport,
        registry: table,
        warnings,
    } = pin(
        &found,
        args.kind,
        &pin_name,
        registry.base(),
        OFFICIAL_REGISTRY,
    )
    .map_err(CliError::Registry)?;
    for warning in &warnings {
        eprintln!("oma-mcp: warning: {}", terminal::safe(warning));
    }
    let existing = crate::init::edit::manifest_text(&manifest_path)?;
    let edit_error = |problem: String| CliError::ManifestEdit {
        path: manifest_path.clone(),
        problem,
    };
    let merged = merge(
        &existing,
        &[Found {
            name: pin_name.clone(),
            source_name: format!("{name}@{}", found.version),
            file: registry.base().to_owned(),
            transport,
        }],
    )
    .map_err(edit_error)?;
    let Some(change) = merged.changes.first() else {
        for warning in &merged.warnings {
            eprintln!("oma-mcp: warning: {}", terminal::safe(warning));
        }
        return Err(edit_error(format!(
            "{name}@{} is already pinned under another name; remove that pin or give it this \
             one with --name",
            found.version
        )));
    };
    let (text, registry_changed) =
        with_registry(&merged.text, &pin_name, &table).map_err(edit_error)?;
    // The result must read back as a manifest, or nothing is written.
    Manifest::parse(&text, &manifest_path)?;
    if text != existing {
        if let Some(parent) = manifest_path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|source| CliError::Write {
                path: manifest_path.clone(),
                source,
            })?;
        }
        std::fs::write(&manifest_path, &text).map_err(|source| CliError::Write {
            path: manifest_path.clone(),
            source,
        })?;
    }
    let verb = match change {
        Change::Added(_) => "added",
        Change::Updated(_) => "updated",
        Change::Unchanged(_) if registry_changed => "updated",
        Change::Unchanged(_) => "unchanged:",
    };
    eprintln!(
        "oma-mcp: {verb} server `{pin_name}` ({name}@{}) in {}",
        found.version,
        manifest_path.display()
    );
    if args.no_snapshot {
        return Ok(Outcome::Success);
    }
    if !snapshot::take_for_pin(&manifest_path, &pin_name).await {
        eprintln!(
            "oma-mcp: {} is written; take the snapshot with `oma-mcp snapshot --manifest {} \
             --server {pin_name}`",
            manifest_path.display(),
            manifest_path.display()
        );
        return Ok(Outcome::Failed);
    }
    Ok(Outcome::Success)
}

/// What the registry has of `name`, for an error: its versions, or that it has none.
async fn known_versions(registry: &Registry, name: &str) -> Result<String, CliError> {
    let url = registry.versions_url(name);
    Ok(
        match registry.versions(name).await.map_err(CliError::Registry)? {
            Answer::NotFound => format!(
                "the registry at {} has no server named {name:?} ({url} answered 404; search \
                 it with {}/v0.1/servers?search=NAME)",
                registry.base(),
                registry.base()
            ),
            Answer::Found(json) => {
                let list = versions(&json);
                if list.is_empty() {
                    format!("{url} lists no version")
                } else {
                    format!("its versions, newest first: {}", list.join(", "))
                }
            }
        },
    )
}

/// `text` with `[servers.<pin>.registry]` set to `table`, and whether that changed it.
fn with_registry(text: &str, pin: &str, table: &RegistryTable) -> Result<(String, bool), String> {
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| e.to_string())?;
    let server = doc["servers"][pin]
        .as_table_mut()
        .ok_or_else(|| format!("`servers.{pin}` is not a table"))?;
    let want: Vec<(String, String)> = table
        .keys()
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    let have: Option<Vec<(String, String)>> = server.get("registry").and_then(|item| {
        item.as_table_like().map(|t| {
            t.iter()
                .map(|(k, v)| (k.to_owned(), v.as_str().unwrap_or_default().to_owned()))
                .collect()
        })
    });
    if have.as_ref() == Some(&want) {
        return Ok((text.to_owned(), false));
    }
    let mut registry = Table::new();
    for (key, value) in &want {
        registry.insert(key, toml_edit::value(value.as_str()));
    }
    match server.get_mut("registry").and_then(Item::as_table_mut) {
        // In place: the table's position and comments stay.
        Some(old) => {
            old.clear();
            for (key, value) in registry.iter() {
                old.insert(key, value.clone());
            }
        }
        None => {
            server.insert("registry", Item::Table(registry));
        }
    }
    Ok((doc.to_string(), true))
}
