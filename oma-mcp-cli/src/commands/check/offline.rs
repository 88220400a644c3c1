//! `oma-mcp check --offline`: the committed files alone, as a pre-commit hook or a CI job
//! without the servers checks them. It starts no server, opens no connection and reads no
//! environment variable (no credential, no `OMA_MCP_LOG`): everything it reads is the
//! manifest, the snapshots and the cassettes the manifest names.
//!
//! For each pin of the manifest (or the one `--server` names):
//!
//! - the snapshot is read and its digests verified; a snapshot that cannot be read (missing,
//!   not JSON, a digest that does not match its descriptor) is an error naming the file;
//! - its bytes are the canonical text of what it holds (`snapshot_not_canonical`, breaking);
//! - its `source` holds no credential (`snapshot_secret`, breaking);
//! - the text scanner's findings in it: a warning or high finding the pin does not `accept`
//!   is breaking (so it fails the default `--fail-on breaking`), an info or accepted finding
//!   is info (`scan_finding`);
//! - its cassettes fit it (`cassette_stale`, breaking).
//!
//! A finding in a tool the pin's `tools` and `exclude-tools` leave out is info, as `check`
//! reports every change of such a tool.

use std::path::Path;

use oma_mcp_build::manifest::{Manifest, ServerPin, looks_like_credential};
use oma_mcp_core::pointer::escape_token;
use oma_mcp_core::redact::unredacted;
use oma_mcp_core::snapshot::SnapshotSource;
use oma_mcp_runtime::{Change, DriftReport, Snapshot};

use super::{CheckArgs, file_outcome, finish};
use crate::error::CliError;
use crate::exit::Outcome;
use crate::report::relative;
use crate::scan_findings::{Extras, pinned_tools, scan_snapshot};
use crate::secrets::argument_secrets;

/// Runs `check --offline` on the manifest at `path`: exit codes as `check` (0 clean, 1 a
/// change at or above `--fail-on`, 2 an error: the manifest is not valid, a snapshot cannot
/// be read).
pub fn run(args: &CheckArgs, path: &Path) -> Result<Outcome, CliError> {
    let manifest = Manifest::read(path)?;
    let pins: Vec<&ServerPin> = match &args.server {
        Some(name) => vec![manifest.server(name)?],
        None => manifest.servers.values().collect(),
    };
    let several = pins.len() > 1;
    let others = pinned_tools(&manifest);
    let mut compared = Vec::with_capacity(pins.len());
    let mut failed = Vec::new();
    for pin in pins {
        let outcome = check_pin(pin, path, &others);
        file_outcome(
            pin,
            outcome,
            several,
            args,
            path,
            &mut compared,
            &mut failed,
        )?;
    }
    finish(&compared, &failed, path, args)
}

/// The problems of one pin's committed files, and the raw names of the tools its snapshot
/// and cassettes name (sorted, without repeats).
fn check_pin(
    pin: &ServerPin,
    manifest: &Path,
    others: &[(String, Vec<String>)],
) -> Result<(DriftReport, Vec<String>), CliError> {
    let snapshot = crate::snapshot_file::read(&pin.snapshot)?;
    let bytes = std::fs::read(&pin.snapshot).map_err(|source| {
        oma_mcp_runtime::snapshot::SnapshotError::io("read", &pin.snapshot, source)
    })?;
    let mut changes = Vec::new();
    changes.extend(not_canonical(&bytes, &snapshot, pin, manifest));
    if let Some(source) = &snapshot.source {
        changes.extend(source_secrets(source));
    }
    let found = scan_snapshot(
        &snapshot,
        &Extras::default(),
        others,
        &pin.name,
        &pin.accept,
    );
    changes.extend(oma_mcp_core::scan::finding_changes(&found));
    let cassettes = crate::cassette_drift::changes(&pin.cassettes, &snapshot);
    let tools = snapshot
        .tools
        .iter()
        .map(|t| t.name().to_owned())
        .chain(cassettes.iter().map(|c| c.tool.clone()))
        .filter(|t| !t.is_empty())
        .collect::<std::collections::BTreeSet<String>>();
    changes.extend(cassettes);
    let mut report = DriftReport::default();
    report.extend(changes);
    Ok((
        report.for_selection(&pin.tools),
        tools.into_iter().collect(),
    ))
}

/// A `snapshot_not_canonical` change when `bytes`, the snapshot file, are not the canonical
/// text of `snapshot`, naming the first line that differs and the command that rewrites it.
fn not_canonical(
    bytes: &[u8],
    snapshot: &Snapshot,
    pin: &ServerPin,
    manifest: &Path,
) -> Option<Change> {
    let canonical = snapshot.to_canonical_string();
    if bytes == canonical.as_bytes() {
        return None;
    }
    let text = String::from_utf8_lossy(bytes);
    let line = first_different_line(&text, &canonical);
    Some(Change::snapshot_not_canonical(format!(
        "snapshot {} is not in canonical form (line {line} differs: reformatted or edited by \
         hand?); take it again with `oma-mcp snapshot --manifest {} --server {}`, or restore \
         the file as oma-mcp wrote it",
        relative(&pin.snapshot),
        relative(manifest),
        pin.name
    )))
}

/// The 1-based number of the first line where `a` and `b` differ (a line one of them lacks
/// counts, as does a missing final newline).
fn first_different_line(a: &str, b: &str) -> usize {
    let (mut a_lines, mut b_lines) = (a.split_inclusive('\n'), b.split_inclusive('\n'));
    let mut line = 1;
    loop {
        match (a_lines.next(), b_lines.next()) {
            (Some(x), Some(y)) if x == y => line += 1,
            _ => return line,
        }
    }
}

/// The `snapshot_secret` changes of a snapshot's `source`: userinfo or a query value of its
/// URL that is not redacted, a literal header named like a credential, and a command
/// argument that sets a credential (`--token=…`, `--api-key …`, `env API_KEY=… server`),
/// each at its pointer into the file, never with its value.
fn source_secrets(source: &SnapshotSource) -> Vec<Change> {
    let mut changes = Vec::new();
    let fix = "take the snapshot again with `oma-mcp snapshot`, give the server the value \
               from an environment variable, and rotate the credential if the file was ever \
               shared";
    if let Some(url) = &source.url {
        for part in unredacted(url) {
            changes.push(Change::snapshot_secret(
                "/source/url",
                format!("the source URL holds {part} unredacted (it may be a credential); {fix}"),
            ));
        }
    }
    for name in source.headers.keys() {
        if looks_like_credential(name) {
            changes.push(Change::snapshot_secret(
                format!("/source/headers/{}", escape_token(name)),
                format!(
                    "the source records the value of the header {}, named like a credential; \
                     send it with `bearer-env` or `header-env` instead, then {fix}",
                    oma_mcp_core::quote::quoted(name)
                ),
            ));
        }
    }
    for (index, what) in argument_secrets(&source.args) {
        changes.push(Change::snapshot_secret(
            format!("/source/args/{index}"),
            format!(
                "argument {index} of the source command {what}; pass it with the manifest's \
                 `env` or `pass-env` (never recorded), then {fix}"
            ),
        ));
    }
    changes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|a| (*a).to_owned()).collect()
    }

    /// `NAME=VALUE`, `--name=VALUE` and `--name VALUE` with a credential's name and a
    /// literal value are found at the value's index; references, places and other names
    /// are not.
    #[test]
    fn credential_arguments_are_found_by_name() {
        let args = strings(&[
            "GITHUB_TOKEN=ghp_x",
            "MODE=fast",
            "server",
            "--api-key",
            "k1",
            "--token=t1",
            "--token-file",
            "/run/token",
            "--password",
            "$PASSWORD",
            "--secret=***",
            "-p",
            "8080",
            "API_KEY_ENV=KEY",
            "--client-secret",
            "--verbose",
        ]);
        assert_eq!(
            crate::secrets::credential_arguments(&args),
            [(0, "GITHUB_TOKEN"), (4, "api-key"), (5, "token")]
        );
        let with_url = strings(&[
            "--endpoint",
            "https://me:pw@h.example/mcp?key=k",
            "--token=t",
        ]);
        assert_eq!(
            argument_secrets(&with_url),
            [
                (1, "is a URL that holds a user name or password and the value of the query parameter \"key\"".to_owned()),
                (2, "sets \"token\", named like a credential, to a value".to_owned()),
            ]
        );
    }

    /// A URL source's unredacted userinfo and query values and its credential-named literal
    /// headers are secrets at their pointers, never with their values; a redacted URL and a
    /// harmless header are not.
    #[test]
    fn source_secrets_name_where_never_what() {
        let source = SnapshotSource::default();
        assert_eq!(source_secrets(&source), Vec::<Change>::new());
        let redacted = SnapshotSource::http("https://u:p@h.example/mcp?key=k")
            .with_header("X-MCP-Toolsets", "repos")
            .with_env_header("Authorization");
        assert_eq!(source_secrets(&redacted), Vec::<Change>::new());
        let mut leaky = SnapshotSource::http("http://192.0.2.1/mcp")
            .with_header("X-Api-Key", "k-123")
            .with_header("a/b~c-token", "t");
        leaky.url = Some("https://me:pw@h.example/mcp?key=k-123&v=***".to_owned());
        let found: Vec<(String, String)> = source_secrets(&leaky)
            .into_iter()
            .map(|c| {
                assert_eq!(c.kind.as_str(), "snapshot_secret");
                assert_eq!(c.severity.as_str(), "breaking");
                assert!(!c.message.contains("k-123") && !c.message.contains("pw"));
                (c.pointer, c.message)
            })
            .collect();
        let pointers: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            pointers,
            [
                "/source/url",
                "/source/url",
                "/source/headers/X-Api-Key",
                "/source/headers/a~1b~0c-token"
            ]
        );
        assert_eq!(
            found[0].1,
            "the source URL holds userinfo unredacted (it may be a credential); take the \
             snapshot again with `oma-mcp snapshot`, give the server the value from an \
             environment variable, and rotate the credential if the file was ever shared"
        );
        assert_eq!(
            found[1].1,
            "the source URL holds the value of the query parameter \"key\" unredacted (it may \
             be a credential); take the snapshot again with `oma-mcp snapshot`, give the \
             server the value from an environment variable, and rotate the credential if the \
             file was ever shared"
        );
    }

    /// The first differing line counts from 1; a missing final newline is a difference on
    /// the last line.
    #[test]
    fn first_different_line_counts_from_one() {
        assert_eq!(first_different_line("a\nb\n", "a\nc\n"), 2);
        assert_eq!(first_different_line("x\n", "a\n"), 1);
        assert_eq!(first_different_line("a\nb", "a\nb\n"), 2);
        assert_eq!(first_different_line("a\nb\n", "a\nb\nc\n"), 3);
    }
}
