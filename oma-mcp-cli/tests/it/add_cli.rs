//! `oma-mcp add` against an MCP registry served on loopback by the test itself from the
//! entries in `fixtures/registry/` (the official registry's published format, see its
//! README): the exact pin of each package type (npm, PyPI, OCI) and of a remote, `@latest`
//! recorded as the version it is, MCPB refused, an unknown server and an unknown version,
//! and `check` warning about a deprecated entry of a pin of the project's test server.
//!
//! No test takes a snapshot through `add`: the packages of the fixtures are made up, and a
//! real one (npx, uvx, docker) would need the network; `check`'s test takes the test
//! server's snapshot with `oma-mcp snapshot`.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};

use crate::common::{assert_exit, oma_mcp, run, test_server, text, toml_string};

/// A registry of the `/v0.1` API on 127.0.0.1 answering from `fixtures/registry/`, for the
/// life of the test process; its base URL.
fn registry() -> String {
    static BASE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    BASE.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/registry");
        let mut entries: BTreeMap<String, Vec<Value>> = BTreeMap::new();
        for file in std::fs::read_dir(&dir).unwrap() {
            let path = file.unwrap().path();
            if path.extension().is_some_and(|e| e == "json") {
                let entry: Value =
                    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
                let name = entry["server"]["name"].as_str().unwrap().to_owned();
                entries.entry(name).or_default().push(entry);
            }
        }
        // Newest first, as the registry lists them.
        for list in entries.values_mut() {
            list.sort_by_key(|e| {
                std::cmp::Reverse(
                    e["_meta"]["io.modelcontextprotocol.registry/official"]["publishedAt"]
                        .as_str()
                        .unwrap()
                        .to_owned(),
                )
            });
        }
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut line = String::new();
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                if reader.read_line(&mut line).is_err() {
                    continue;
                }
                loop {
                    let mut header = String::new();
                    match reader.read_line(&mut header) {
                        Ok(0) | Err(_) => break,
                        Ok(_) if header.trim().is_empty() => break,
                        Ok(_) => {}
                    }
                }
                let path = line.split(' ').nth(1).unwrap_or("").to_owned();
                let (status, body) = answer(&entries, &path);
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: \
                     {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        base
    })
    .clone()
}

/// The registry's answer to `GET path`: a version (`latest` too), a version list, or 404.
fn answer(entries: &BTreeMap<String, Vec<Value>>, path: &str) -> (&'static str, String) {
    let not_found = (
        "404 Not Found",
        json!({"error": "Server not found"}).to_string(),
    );
    let Some(rest) = path.strip_prefix("/v0.1/servers/") else {
        return not_found;
    };
    let parts: Vec<&str> = rest.split('/').collect();
    let decode = |s: &str| s.replace("%2F", "/").replace("%2f", "/");
    let Some(list) = entries.get(&decode(parts[0])) else {
        return not_found;
    };
    match parts.as_slice() {
        [_, "versions"] => (
            "200 OK",
            json!({"servers": list, "metadata": {"count": list.len()}}).to_string(),
        ),
        [_, "versions", version] => {
            let official = "io.modelcontextprotocol.registry/official";
            list.iter()
                .find(|e| {
                    if *version == "latest" {
                        e["_meta"][official]["isLatest"] == json!(true)
                    } else {
                        e["server"]["version"] == json!(decode(version))
                    }
                })
                .map_or(not_found.clone(), |e| ("200 OK", e.to_string()))
        }
        _ => not_found,
    }
}

/// `oma-mcp add SERVER --registry <loopback> --no-snapshot ARGS` in `dir`.
fn add(dir: &Path, server: &str, args: &[&str]) -> Output {
    run(oma_mcp()
        .current_dir(dir)
        .args(["add", server, "--registry", &registry(), "--no-snapshot"])
        .args(args))
}

fn manifest(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("oma-mcp.toml")).unwrap()
}

#[test]
fn an_npm_package_at_latest_is_pinned_at_the_version_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let out = add(dir.path(), "io.github.example/weather@latest", &[]);
    assert_exit(&out, 0);
    let base = registry();
    assert_eq!(
        manifest(dir.path()),
        format!(
            r#"[servers.weather]
command = "npx"
args = ["-y", "@example/weather-mcp@1.1.0", "--units", "celsius", "stdio"]
env = {{ WEATHER_LOG_LEVEL = "warn" }}
pass-env = ["WEATHER_API_KEY", "WEATHER_REGION"]

[servers.weather.registry]
name = "io.github.example/weather"
version = "1.1.0"
url = "{base}"
registry-type = "npm"
identifier = "@example/weather-mcp"
package-version = "1.1.0"
file-sha256 = "9f2a1c3b4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8"
"#
        )
    );
    assert_eq!(
        text(&out.stderr),
        "oma-mcp: added server `weather` (io.github.example/weather@1.1.0) in oma-mcp.toml\n"
    );
    // Again at the same version: nothing changes.
    let again = add(dir.path(), "io.github.example/weather@1.1.0", &[]);
    assert_exit(&again, 0);
    assert_eq!(
        text(&again.stderr),
        "oma-mcp: unchanged: server `weather` (io.github.example/weather@1.1.0) in oma-mcp.toml\n"
    );
    // An older version updates the same pin in place, its other keys kept.
    let mut edited = manifest(dir.path());
    edited = edited.replace(
        "[servers.weather]\n",
        "[servers.weather]\nprefix = \"wx\"\n",
    );
    std::fs::write(dir.path().join("oma-mcp.toml"), &edited).unwrap();
    let older = add(dir.path(), "io.github.example/weather@1.0.0", &[]);
    assert_exit(&older, 0);
    assert_eq!(
        manifest(dir.path()),
        format!(
            r#"[servers.weather]
prefix = "wx"
command = "npx"
args = ["-y", "@example/weather-mcp@1.0.0"]

[servers.weather.registry]
name = "io.github.example/weather"
version = "1.0.0"
url = "{base}"
registry-type = "npm"
identifier = "@example/weather-mcp"
package-version = "1.0.0"
"#
        )
    );
}

#[test]
fn a_pypi_package_is_pinned_with_uvx() {
    let dir = tempfile::tempdir().unwrap();
    let out = add(
        dir.path(),
        "io.github.example/database-query@0.5.0",
        &["--name", "db"],
    );
    assert_exit(&out, 0);
    assert_eq!(
        manifest(dir.path()),
        format!(
            r#"[servers.db]
command = "uvx"
args = ["database-query-mcp==0.5.0", "--read-only", "true"]
env = {{ QUERY_TIMEOUT = "30" }}
pass-env = ["DATABASE_URL"]

[servers.db.registry]
name = "io.github.example/database-query"
version = "0.5.0"
url = "{}"
registry-type = "pypi"
identifier = "database-query-mcp"
package-version = "0.5.0"
"#,
            registry()
        )
    );
    assert_eq!(
        text(&out.stderr),
        "oma-mcp: warning: io.github.example/database-query 0.5.0: the optional argument \
         packageArguments[1] `--schema` has no value in the registry; left out (add it to \
         `args` if you need it)\n\
         oma-mcp: added server `db` (io.github.example/database-query@0.5.0) in oma-mcp.toml\n"
    );
}

#[test]
fn an_oci_image_is_pinned_by_its_digest_with_its_variables_passed_in() {
    let dir = tempfile::tempdir().unwrap();
    let out = add(
        dir.path(),
        "io.github.example/kubernetes-manager@1.0.0",
        &[],
    );
    assert_exit(&out, 0);
    assert_eq!(
        manifest(dir.path()),
        format!(
            r#"[servers.kubernetes-manager]
command = "docker"
args = ["run", "-i", "--rm", "--network", "host", "--mount", "type=bind,src=/etc/kubernetes/admin.conf,dst=/home/app/.kube/config,readonly", "-e", "KUBE_NAMESPACE", "-e", "KUBE_TOKEN", "ghcr.io/example/kubernetes-manager-mcp@sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae"]
env = {{ KUBE_NAMESPACE = "default" }}
pass-env = ["KUBE_TOKEN"]

[servers.kubernetes-manager.registry]
name = "io.github.example/kubernetes-manager"
version = "1.0.0"
url = "{}"
registry-type = "oci"
identifier = "ghcr.io/example/kubernetes-manager-mcp@sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae"
"#,
            registry()
        )
    );
    assert_eq!(
        text(&out.stderr),
        "oma-mcp: added server `kubernetes-manager` (io.github.example/kubernetes-manager@1.0.0) \
         in oma-mcp.toml\n"
    );
}

#[test]
fn a_remote_is_pinned_by_url_with_its_secrets_from_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let out = add(dir.path(), "com.example/remote-search@2.0.0", &[]);
    assert_exit(&out, 0);
    assert_eq!(
        manifest(dir.path()),
        format!(
            r#"[servers.remote-search]
url = "https://eu.mcp.example.com/mcp"
headers = {{ X-Index = "web" }}
bearer-env = "REMOTE_SEARCH_TOKEN"
header-env = {{ X-Workspace-Id = "REMOTE_SEARCH_X_WORKSPACE_ID" }}

[servers.remote-search.registry]
name = "com.example/remote-search"
version = "2.0.0"
url = "{}"
"#,
            registry()
        )
    );
}

#[test]
fn an_mcp_bundle_is_refused_with_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let out = add(dir.path(), "io.github.example/image-processor@1.0.0", &[]);
    assert_exit(&out, 2);
    assert_eq!(
        text(&out.stderr),
        "oma-mcp: io.github.example/image-processor 1.0.0 is an MCP bundle (mcpb): \
         https://github.com/example/image-processor-mcp/releases/download/v1.0.0/image-processor.mcpb \
         (SHA-256 fe333e598595000ae021bd27117db32ec69af6987f507ba7a63c90638ff633ce). oma-mcp \
         pins a command or a URL and does not download or unpack bundles: download the bundle, \
         check its SHA-256, unpack it and pin the command its manifest.json names (try it first \
         with `oma-mcp list -- COMMAND ARGS...`), or add another package of the entry with \
         --type\n"
    );
    assert!(!dir.path().join("oma-mcp.toml").exists());
    // Asked for a type the entry does not have.
    let npm = add(
        dir.path(),
        "io.github.example/image-processor@1.0.0",
        &["--type", "npm"],
    );
    assert_exit(&npm, 2);
    assert_eq!(
        text(&npm.stderr),
        "oma-mcp: io.github.example/image-processor 1.0.0 has no npm package; it has: \
         mcpb\n"
    );
}

#[test]
fn an_unknown_server_or_version_says_what_the_registry_has() {
    let dir = tempfile::tempdir().unwrap();
    let base = registry();
    let out = add(dir.path(), "io.github.example/nothing@1.0.0", &[]);
    assert_exit(&out, 2);
    assert_eq!(
        text(&out.stderr),
        format!(
            "oma-mcp: io.github.example/nothing@1.0.0 is not in the registry \
             ({base}/v0.1/servers/io.github.example%2Fnothing/versions/1.0.0 answered 404): \
             the registry at {base} has no server named \"io.github.example/nothing\" \
             ({base}/v0.1/servers/io.github.example%2Fnothing/versions answered 404; search it \
             with {base}/v0.1/servers?search=NAME)\n"
        )
    );
    let version = add(dir.path(), "io.github.example/weather@9.9.9", &[]);
    assert_exit(&version, 2);
    assert_eq!(
        text(&version.stderr),
        format!(
            "oma-mcp: io.github.example/weather@9.9.9 is not in the registry \
             ({base}/v0.1/servers/io.github.example%2Fweather/versions/9.9.9 answered 404): \
             its versions, newest first: 1.1.0, 1.0.0\n"
        )
    );
    let bare = add(dir.path(), "io.github.example/weather", &[]);
    assert_exit(&bare, 2);
    assert_eq!(
        text(&bare.stderr),
        "oma-mcp: give the version to pin: `oma-mcp add io.github.example/weather@VERSION` \
         (its versions, newest first: 1.1.0, 1.0.0), or `io.github.example/weather@latest` for \
         the newest\n"
    );
    assert!(!dir.path().join("oma-mcp.toml").exists());
}

#[test]
fn check_warns_about_a_deprecated_entry_and_a_newer_version() {
    let dir = tempfile::tempdir().unwrap();
    let base = registry();
    std::fs::write(
        dir.path().join("oma-mcp.toml"),
        format!(
            "[servers.echo]\ncommand = {}\n\n[servers.echo.registry]\n\
             name = \"io.github.example/legacy-echo\"\nversion = \"0.9.0\"\nurl = \"{base}\"\n\
             registry-type = \"npm\"\nidentifier = \"@example/legacy-echo\"\n",
            toml_string(&test_server())
        ),
    )
    .unwrap();
    let snapshot = run(oma_mcp().current_dir(dir.path()).arg("snapshot"));
    assert_exit(&snapshot, 0);
    let out = run(oma_mcp().current_dir(dir.path()).arg("check"));
    assert_exit(&out, 0);
    assert_eq!(
        text(&out.stdout),
        "(server)\n  warning  server /  io.github.example/legacy-echo@0.9.0 is deprecated in \
         the registry: \"Use 1.0.0: 0.9.0 echoes secrets into its logs\"\n  info     server \
         /  io.github.example/legacy-echo 1.0.0 is published in the registry (pinned: 0.9.0); \
         `oma-mcp add io.github.example/legacy-echo@1.0.0` updates the pin\n0 breaking, 1 \
         warning, 1 info\n"
    );
    assert_eq!(text(&out.stderr), "");
    let out = run(oma_mcp()
        .current_dir(dir.path())
        .args(["check", "--format", "json"]));
    assert_exit(&out, 0);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        report,
        json!({
            "changes": [
                {
                    "tool": "",
                    "pointer": "",
                    "kind": "registry_status",
                    "severity": "warning",
                    "direction": "server",
                    "message": "io.github.example/legacy-echo@0.9.0 is deprecated in the \
                                registry: \"Use 1.0.0: 0.9.0 echoes secrets into its logs\""
                },
                {
                    "tool": "",
                    "pointer": "",
                    "kind": "registry_status",
                    "severity": "info",
                    "direction": "server",
                    "message": "io.github.example/legacy-echo 1.0.0 is published in the \
                                registry (pinned: 0.9.0); `oma-mcp add \
                                io.github.example/legacy-echo@1.0.0` updates the pin"
                }
            ],
            "summary": {"breaking": 0, "warning": 1, "info": 1},
            "errors": []
        })
    );
    // `--fail-on warning` fails on it; `--offline` asks no registry.
    let out = run(oma_mcp()
        .current_dir(dir.path())
        .args(["check", "--fail-on", "warning"]));
    assert_exit(&out, 1);
    let offline = run(oma_mcp()
        .current_dir(dir.path())
        .args(["check", "--offline"]));
    assert_exit(&offline, 0);
    assert!(!text(&offline.stdout).contains("registry"));
    // A registry that cannot be reached is a warning, not a failure.
    let unreachable = std::fs::read_to_string(dir.path().join("oma-mcp.toml"))
        .unwrap()
        .replace(&base, "http://127.0.0.1:9");
    std::fs::write(dir.path().join("oma-mcp.toml"), unreachable).unwrap();
    let out = run(oma_mcp().current_dir(dir.path()).arg("check"));
    assert_exit(&out, 0);
    assert_eq!(text(&out.stdout), "no drift\n");
    assert_eq!(
        text(&out.stderr),
        "oma-mcp: warning: server `echo`: cannot ask the registry about \
         io.github.example/legacy-echo@0.9.0: cannot reach the registry at \
         http://127.0.0.1:9/v0.1/servers/io.github.example%2Flegacy-echo/versions/0.9.0: \
         Connection refused (os error 111)\n"
    );
}
