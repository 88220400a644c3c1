//! The `oma-mcp` CLI contract, driven as a user's script would: real processes, real servers.
//!
//! Uses the project's own test server (`target/<profile>/oma-mcp-test-server`, built by
//! `cargo build --workspace`) and the pinned server-everything (`npm ci --prefix tests/servers`).

use std::path::PathBuf;

use crate::common::{assert_exit, oma_mcp, run, test_server, text, workspace};

/// server-everything's entry point, or `None` (with one printed line) when not installed.
fn everything() -> Option<PathBuf> {
    let path = workspace().join("tests/servers/node_modules/.bin/mcp-server-everything");
    if path.exists() {
        Some(path)
    } else {
        oma_mcp_test_support::skip(
            std::thread::current().name().unwrap_or("cli"),
            "server-everything is not installed (npm ci --prefix tests/servers)",
        );
        None
    }
}

#[test]
fn call_echo_json_on_own_server() {
    let out = run(oma_mcp()
        .args([
            "call",
            "echo",
            "--args",
            r#"{"message":"hi"}"#,
            "--format",
            "json",
            "--",
        ])
        .arg(test_server()));
    assert_exit(&out, 0);
    assert_eq!(
        text(&out.stdout),
        "{\n  \"data\": \"Echo: hi\",\n  \"isError\": false,\n  \"modelOutput\": null\n}\n"
    );
}

#[test]
fn call_with_prefix_uses_the_framework_name() {
    let out = run(oma_mcp()
        .args([
            "call",
            "demo_add",
            "--prefix",
            "demo",
            "--args",
            r#"{"a":2,"b":40}"#,
            "--",
        ])
        .arg(test_server()));
    assert_exit(&out, 0);
    assert_eq!(text(&out.stdout), "42\n");
}

#[test]
fn call_tool_error_result_exits_2_and_prints_it() {
    let out = run(oma_mcp()
        .args(["call", "fail", "--format", "json", "--"])
        .arg(test_server()));
    assert_exit(&out, 2);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["isError"], true);
    assert_eq!(json["modelOutput"], serde_json::Value::Null);
}

#[test]
fn skipped_stdout_lines_are_warned_about_on_stderr() {
    // A server that writes lines that are not JSON-RPC (a Python server's `NaN`, stray
    // prints): the lines are skipped, and the user sees why, not just a later timeout.
    let server = test_server().display().to_string();
    let list = |log: Option<&str>| {
        let mut cmd = oma_mcp();
        cmd.args([
            "list",
            "--",
            "env",
            "OMA_TEST_SERVER_MODE=stdout-noise",
            &server,
        ]);
        if let Some(log) = log {
            cmd.env("OMA_MCP_LOG", log);
        }
        run(&mut cmd)
    };
    let out = list(None);
    assert_exit(&out, 0);
    let stderr = text(&out.stderr);
    assert_eq!(
        stderr.lines().next(),
        Some(
            format!(
                " WARN skipped a line on the MCP server's stdout that is not a JSON-RPC message \
                 (not JSON (expected ident at line 1 column 2)): this line is not JSON \
                 server=env OMA_TEST_SERVER_MODE=stdout-noise {server}"
            )
            .as_str()
        ),
        "{stderr}"
    );
    let out = list(Some("error"));
    assert_exit(&out, 0);
    assert_eq!(text(&out.stderr), "");
    let out = list(Some("["));
    assert_exit(&out, 0);
    assert_eq!(
        text(&out.stderr).lines().next(),
        Some(
            "oma-mcp: OMA_MCP_LOG=\"[\" is not a tracing filter (invalid filter directive); \
             logging warnings only"
        )
    );
}

#[test]
fn call_checks_arguments_before_sending() {
    let out = run(oma_mcp()
        .args(["call", "echo", "--args", r#"{"message": 5}"#, "--"])
        .arg(test_server()));
    assert_exit(&out, 2);
    assert_eq!(
        text(&out.stderr),
        "oma-mcp: Invalid input for tool \"echo\":\n- /message: 5 is not of type \"string\"\n\
         nothing was sent; fix --args, or pass --no-validate to let the server judge them\n"
    );
    // --no-validate: the server judges (and rejects) them.
    let out = run(oma_mcp()
        .args([
            "call",
            "echo",
            "--no-validate",
            "--args",
            r#"{"message": 5}"#,
            "--",
        ])
        .arg(test_server()));
    assert_exit(&out, 2);
    assert_eq!(
        text(&out.stdout),
        "failed to deserialize parameters: invalid type: integer `5`, expected a string\n"
    );
}

#[test]
fn call_does_not_send_arguments_it_cannot_check() {
    let call = |extra: &[&str]| {
        run(oma_mcp()
            .args(["call", "broken", "--args", r#"{"message": "hi"}"#])
            .args(extra)
            .args(["--", "env", "OMA_TEST_SERVER_MODE=bad-schema"])
            .arg(test_server()))
    };
    let out = call(&[]);
    assert_exit(&out, 2);
    assert_eq!(
        text(&out.stderr),
        "oma-mcp: cannot check --args: the input schema of tool \"broken\" is invalid at \
         /properties/message/type: \"strin\" is not valid under any of the schemas listed in \
         the 'anyOf' keyword; nothing was sent; pass --no-validate to send them unchecked\n"
    );
    let out = call(&["--no-validate"]);
    assert_exit(&out, 0);
    assert_eq!(text(&out.stdout), "Echo: hi\n");
}

#[test]
fn call_needs_yes_for_a_consequential_tool() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("oma-mcp.toml");
    std::fs::write(
        &manifest,
        format!(
            "[servers.own]\ncommand = {:?}\nprefix = \"own\"\nconsequential = [\"echo\"]\n",
            test_server().display().to_string()
        ),
    )
    .unwrap();
    let call = |yes: bool| {
        let mut cmd = oma_mcp();
        cmd.args([
            "call",
            "own_echo",
            "--args",
            r#"{"message": "hi"}"#,
            "--manifest",
        ])
        .arg(&manifest);
        if yes {
            cmd.arg("--yes");
        }
        run(&mut cmd)
    };
    let out = call(false);
    assert_exit(&out, 2);
    assert_eq!(
        (text(&out.stdout).as_str(), text(&out.stderr).as_str()),
        (
            "",
            "oma-mcp: tool \"own_echo\" is consequential (the manifest's consequential entries \
             list it), so it was not called; pass --yes to call it anyway\n"
        )
    );
    let out = call(true);
    assert_exit(&out, 0);
    assert_eq!(text(&out.stdout), "Echo: hi\n");
}

#[test]
fn max_message_bytes_bounds_what_the_server_may_send() {
    let call = |bytes: &str| {
        run(oma_mcp()
            .args(["call", "big", "--args", r#"{"bytes": 100000}"#])
            .args(["--max-message-bytes", bytes, "--"])
            .arg(test_server()))
    };
    let out = call("65536");
    assert_exit(&out, 2);
    assert_eq!(
        text(&out.stdout),
        "MCP tool \"big\" failed: the MCP server sent a message larger than the limit of 65536 \
         bytes; raise it with `ConnectConfig::with_max_message_size` (manifest key \
         `max-message-bytes`)\n"
    );
    // After the runtime's warning about the skipped message, the flag that raises the limit.
    let stderr = text(&out.stderr);
    assert!(
        stderr.ends_with(&format!(
            " over the limit of 65536 bytes server={}\noma-mcp: raise the limit with \
             --max-message-bytes BYTES\n",
            test_server().display()
        )),
        "{stderr}"
    );
    let out = call("200000");
    assert_exit(&out, 0);
    assert_eq!(text(&out.stdout), format!("{}\n", "x".repeat(100_000)));
}

#[test]
fn a_closed_stdout_keeps_the_tool_error_exit_code() {
    let (code, stderr) = crate::common::run_with_closed_stdout(
        oma_mcp().args(["call", "fail", "--"]).arg(test_server()),
    );
    assert_eq!((code, stderr.as_str()), (Some(2), ""));
}

#[test]
fn call_errors_are_clear() {
    let out = run(oma_mcp()
        .args(["call", "echo", "--args", "[1]", "--"])
        .arg(test_server()));
    assert_exit(&out, 2);
    assert_eq!(
        text(&out.stderr),
        "oma-mcp: --args must be a JSON object like '{\"message\": \"hi\"}': got an array\n"
    );

    let out = run(oma_mcp()
        .args(["call", "echo", "--input", "confirm", "--"])
        .arg(test_server()));
    assert_exit(&out, 2);
    assert_eq!(
        text(&out.stderr),
        "oma-mcp: --input takes NAME=JSON (a key of the tool's inputRequests and its answer), \
         got `confirm`\n"
    );
    let out = run(oma_mcp()
        .args(["call", "echo", "--input", "confirm={", "--"])
        .arg(test_server()));
    assert_exit(&out, 2);
    assert_eq!(
        text(&out.stderr),
        "oma-mcp: --input confirm: the answer is not JSON: EOF while parsing an object at line 1 \
         column 1\n"
    );

    let out = run(oma_mcp().args(["call", "nope", "--"]).arg(test_server()));
    assert_exit(&out, 2);
    assert!(
        text(&out.stderr).starts_with("oma-mcp: the server has no tool named \"nope\"; it lists: "),
        "{}",
        text(&out.stderr)
    );

    let empty = tempfile::tempdir().unwrap();
    let out = run(oma_mcp().current_dir(empty.path()).args(["list"]));
    assert_exit(&out, 2);
    assert_eq!(
        text(&out.stderr),
        "oma-mcp: no server given and no oma-mcp.toml in the current directory: pass \
         `--manifest PATH [--server NAME]`, `--url URL`, or the server command after `--` (e.g. \
         `oma-mcp list -- node_modules/.bin/mcp-server-everything stdio` after `npm ci`)\n"
    );

    let out = run(oma_mcp().args(["list", "--", "/nonexistent/mcp-server"]));
    assert_exit(&out, 2);
    // The command and the OS error are named once each (the runtime's message names the
    // command and has the OS error as its source; the CLI adds nothing).
    assert_eq!(
        text(&out.stderr),
        "oma-mcp: cannot start the MCP server `/nonexistent/mcp-server` (check that the command \
         path is right and that the server is installed; a pinned npm server: run `npm ci` where \
         its package-lock.json is): No such file or directory (os error 2)\n"
    );

    let out = run(oma_mcp().args(["list", "--manifest", "/nonexistent/oma-mcp.toml"]));
    assert_exit(&out, 2);
    assert_eq!(
        text(&out.stderr),
        "oma-mcp: cannot read manifest /nonexistent/oma-mcp.toml (check its path, or write one: \
         the README's \"Use it in your crate\"): No such file or directory (os error 2)\n"
    );
}

#[test]
fn list_json_shape() {
    let out = run(oma_mcp()
        .args(["list", "--format", "json", "--prefix", "demo", "--"])
        .arg(test_server()));
    assert_exit(&out, 0);
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let echo = rows.iter().find(|r| r["mcpName"] == "echo").unwrap();
    assert_eq!(
        echo,
        &serde_json::json!({
            "name": "demo_echo",
            "mcpName": "echo",
            "description": echo["description"].clone(),
            "consequential": false,
        })
    );
    assert!(echo["description"].is_string());
}

#[test]
fn manifest_snapshot_list_and_consequential() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("oma-mcp.toml");
    std::fs::write(
        &manifest,
        format!(
            "[servers.own]\ncommand = {:?}\nprefix = \"own\"\nconsequential = [\"ec*\"]\n",
            test_server().display().to_string()
        ),
    )
    .unwrap();
    let out = run(oma_mcp().arg("snapshot").arg("--manifest").arg(&manifest));
    assert_exit(&out, 0);
    let snapshot = dir.path().join("mcp/own.snapshot.json");
    let first = std::fs::read(&snapshot).unwrap();
    assert_eq!(
        text(&out.stderr),
        format!(
            "oma-mcp: wrote {} ({} tools, 2 prompts, 2 resource templates, 2 resources) for \
             server `own`\n",
            snapshot.display(),
            oma_mcp_runtime::Snapshot::read(&snapshot)
                .unwrap()
                .tools
                .len()
        )
    );
    let out = run(oma_mcp().arg("snapshot").arg("--manifest").arg(&manifest));
    assert_exit(&out, 0);
    assert_eq!(std::fs::read(&snapshot).unwrap(), first);
    assert!(text(&out.stderr).starts_with("oma-mcp: unchanged: "));

    let out = run(oma_mcp()
        .args(["list", "--format", "json", "--manifest"])
        .arg(&manifest));
    assert_exit(&out, 0);
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let echo = rows.iter().find(|r| r["mcpName"] == "echo").unwrap();
    assert_eq!(echo["name"], "own_echo");
    assert_eq!(echo["consequential"], true);
}

#[test]
fn snapshot_of_server_everything_is_byte_identical_twice() {
    let Some(server) = everything() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    for path in [&a, &b] {
        let out = run(oma_mcp()
            .arg("snapshot")
            .arg("--out")
            .arg(path)
            .arg("--")
            .arg(&server)
            .arg("stdio"));
        assert_exit(&out, 0);
    }
    let first = std::fs::read(&a).unwrap();
    assert_eq!(first, std::fs::read(&b).unwrap());

    // Every tool the server lists is in the snapshot.
    let out = run(oma_mcp()
        .args(["list", "--format", "json", "--"])
        .arg(&server)
        .arg("stdio"));
    assert_exit(&out, 0);
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let mut listed: Vec<String> = rows
        .iter()
        .map(|r| r["mcpName"].as_str().unwrap().to_owned())
        .collect();
    listed.sort();
    let snapshot = oma_mcp_runtime::Snapshot::read(&a).unwrap();
    let names: Vec<String> = snapshot.tools.iter().map(|t| t.name().to_owned()).collect();
    assert_eq!(names, listed);
    assert!(names.iter().any(|n| n == "echo"));
}

#[test]
fn call_server_everything_get_sum() {
    let Some(server) = everything() else { return };
    let out = run(oma_mcp()
        .args([
            "call",
            "get-sum",
            "--args",
            r#"{"a":2,"b":3}"#,
            "--format",
            "json",
            "--",
        ])
        .arg(&server)
        .arg("stdio"));
    assert_exit(&out, 0);
    assert_eq!(
        text(&out.stdout),
        "{\n  \"data\": \"The sum of 2 and 3 is 5.\",\n  \"isError\": false,\n  \"modelOutput\": null\n}\n"
    );
}

/// Regression: a relative `--manifest` path and a relative `command` in it. The command is
/// relative to the manifest's directory, wherever `oma-mcp` runs from (the child's `cwd` is
/// that directory too, and must not be applied twice).
#[test]
fn relative_manifest_path_and_relative_command() {
    let dir = tempfile::tempdir().unwrap();
    let pinned = dir.path().join("project");
    std::fs::create_dir_all(pinned.join("bin")).unwrap();
    std::os::unix::fs::symlink(test_server(), pinned.join("bin/server")).unwrap();
    std::fs::write(
        pinned.join("oma-mcp.toml"),
        "[servers.own]\ncommand = \"bin/server\"\nprefix = \"own\"\n",
    )
    .unwrap();
    let out = run(oma_mcp()
        .current_dir(dir.path())
        .args(["call", "own_echo", "--args", r#"{"message":"rel"}"#])
        .args(["--manifest", "project/oma-mcp.toml"]));
    assert_exit(&out, 0);
    assert_eq!(text(&out.stdout), "Echo: rel\n");
}

/// `list` takes `--timeout-ms` like `call` and `snapshot`: a server that never answers fails
/// fast (both handshakes are tried, within the one connect deadline).
#[test]
fn list_timeout_bounds_a_silent_server() {
    let started = std::time::Instant::now();
    let out = run(oma_mcp().args([
        "list",
        "--timeout-ms",
        "300",
        "--",
        "sh",
        "-c",
        "cat >/dev/null",
    ]));
    assert_exit(&out, 2);
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    assert!(
        text(&out.stderr).ends_with(
            "failed: MCP error -32001: Request timed out; the fallback `initialize` handshake \
             failed too: MCP error -32001: Request timed out\n"
        ),
        "{}",
        text(&out.stderr)
    );
}

/// Whether `pid` is a live process (a zombie, killed and waiting for its parent, is not).
fn alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z'))
    })
}

/// A signal to `oma-mcp` (the terminal's Ctrl-C reaches only it: the server has a process
/// group of its own) stops the server's whole group, grandchildren too, and exits 128 + the
/// signal number.
#[cfg(target_os = "linux")]
#[test]
fn a_signal_stops_the_server_and_its_group() {
    for (signal, code) in [("INT", 130), ("TERM", 143), ("HUP", 129)] {
        let dir = tempfile::tempdir().expect("tempdir");
        let pid_file = dir.path().join("grandchild.pid");
        let script = format!(
            "sleep 300 & echo $! > '{}'; exec '{}'",
            pid_file.display(),
            test_server().display()
        );
        let child = oma_mcp()
            .args([
                "call",
                "sleep",
                "--args",
                r#"{"ms": 60000}"#,
                "--",
                "sh",
                "-c",
            ])
            .arg(&script)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("oma-mcp starts");
        // The grandchild's pid is written before the server starts; the call is in flight
        // once the server has answered `tools/list`, which takes well under the 60 s sleep.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        let grandchild = loop {
            match std::fs::read_to_string(&pid_file) {
                Ok(pid) if pid.ends_with('\n') => break pid.trim().to_owned(),
                _ if std::time::Instant::now() > deadline => panic!("no grandchild started"),
                _ => std::thread::sleep(std::time::Duration::from_millis(20)),
            }
        };
        std::thread::sleep(std::time::Duration::from_millis(500));
        assert!(
            alive(&grandchild),
            "the grandchild {grandchild} is not running yet"
        );
        let kill = std::process::Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(child.id().to_string())
            .status()
            .expect("kill runs");
        assert!(kill.success());
        let out = child.wait_with_output().expect("oma-mcp ends");
        assert_exit(&out, code);
        assert_eq!(
            text(&out.stderr),
            format!("oma-mcp: interrupted by SIG{signal}; stopped the server\n")
        );
        assert_eq!(text(&out.stdout), "");
        // SIGKILL went to the group when the client was dropped, before `oma-mcp` exited;
        // the kernel takes a moment to end the process.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while alive(&grandchild) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(
            !alive(&grandchild),
            "SIG{signal}: grandchild {grandchild} outlived oma-mcp"
        );
    }
}

/// The two ways of naming a server exclude each other (clap's usage error, exit 2).
#[test]
fn manifest_and_command_are_alternatives() {
    for sub in [&["list"][..], &["call", "echo"], &["snapshot"]] {
        for flag in [["--manifest", "oma-mcp.toml"], ["--server", "own"]] {
            let out = run(oma_mcp().args(sub).args(flag).arg("--").arg(test_server()));
            assert_exit(&out, 2);
            assert!(
                text(&out.stderr).starts_with(&format!(
                    "error: the argument '{} <{}>' cannot be used with '[COMMAND ARGS]...'",
                    flag[0],
                    if flag[0] == "--manifest" {
                        "PATH"
                    } else {
                        "NAME"
                    }
                )),
                "{sub:?} {flag:?}: {}",
                text(&out.stderr)
            );
        }
    }
}

/// Commands that start no server keep the default signal action: `generate` blocked opening
/// a FIFO nobody writes ends at SIGTERM (no handler swallows it).
#[cfg(target_os = "linux")]
#[test]
fn a_signal_ends_a_command_that_starts_no_server() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("tools.json");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let mut child = oma_mcp()
        .arg("generate")
        .arg(&fifo)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("oma-mcp starts");
    std::thread::sleep(std::time::Duration::from_millis(300));
    let kill = std::process::Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status()
        .expect("kill runs");
    assert!(kill.success());
    let status = child.wait().expect("oma-mcp ends");
    assert_eq!(status.signal(), Some(15), "{status:?}");
}

/// `--env NAME=VALUE` reaches the server and nothing else: not the snapshot (its `source`
/// records the command only), not stdout, not stderr; `--pass-env NAME` copies a variable of
/// oma-mcp's own environment. `-- env NAME=VALUE server` still works and is warned about, by
/// name only.
#[test]
fn env_values_reach_the_server_and_never_a_snapshot_or_output() {
    let dir = tempfile::tempdir().unwrap();
    let snapshot = dir.path().join("own.snapshot.json");
    let out = run(oma_mcp()
        .args(["snapshot", "--env", "SECRET=s3cr3t", "--out"])
        .arg(&snapshot)
        .arg("--")
        .arg(test_server()));
    assert_exit(&out, 0);
    let file = std::fs::read_to_string(&snapshot).unwrap();
    for (what, text) in [
        ("snapshot", file.as_str()),
        ("stdout", &text(&out.stdout)),
        ("stderr", &text(&out.stderr)),
    ] {
        assert!(!text.contains("s3cr3t"), "{what}: {text}");
    }
    let source = oma_mcp_runtime::Snapshot::read(&snapshot)
        .unwrap()
        .source
        .unwrap();
    assert_eq!(
        (source.command, source.args),
        (test_server().display().to_string(), Vec::<String>::new())
    );
    // The server saw the value (get_env echoes it: the tool's result is the only place).
    let get_env = |name: &str, flags: &[&str]| {
        let out = run(oma_mcp()
            .env("OMA_PASSED", "from-parent")
            .args(["call", "get_env", "--args"])
            .arg(format!(r#"{{"name": "{name}"}}"#))
            .args(flags)
            .arg("--")
            .arg(test_server()));
        assert_exit(&out, 0);
        assert_eq!(text(&out.stderr), "");
        text(&out.stdout)
    };
    assert_eq!(get_env("SECRET", &["--env", "SECRET=s3cr3t"]), "s3cr3t\n");
    assert_eq!(
        get_env("OMA_PASSED", &["--pass-env", "OMA_PASSED"]),
        "from-parent\n"
    );
    assert_eq!(get_env("OMA_PASSED", &[]), "<unset>\n");
    // The `env` wrapper: the value lands in `source.args`, and the user is told which names.
    let out = run(oma_mcp()
        .args(["snapshot", "--out"])
        .arg(&snapshot)
        .args(["--", "env", "SECRET=s3cr3t"])
        .arg(test_server()));
    assert_exit(&out, 0);
    assert_eq!(
        text(&out.stderr),
        format!(
            "oma-mcp: warning: the snapshot's source records the `env` assignments of SECRET, \
             values included; if one is a secret, take the snapshot again with --env NAME=VALUE \
             or --pass-env NAME instead (never recorded)\noma-mcp: wrote {} ({} tools, 2 \
             prompts, 2 resource templates, 2 resources)\n",
            snapshot.display(),
            oma_mcp_runtime::Snapshot::read(&snapshot)
                .unwrap()
                .tools
                .len()
        )
    );
}

/// A malformed `--env` or `--pass-env` is refused before a server starts, naming the flag,
/// never the value.
#[test]
fn a_malformed_env_flag_names_the_flag_and_not_the_value() {
    let cases: [(&[&str], &str); 4] = [
        (
            &["--env", "=s3cr3t"],
            "oma-mcp: --env has an empty variable name (the argument starts with `=`); give \
             NAME=VALUE\n",
        ),
        (
            &["--env", "SECRET"],
            "oma-mcp: --env \"SECRET\" has no `=`; give --env SECRET=VALUE, or copy the \
             variable from this environment with --pass-env SECRET\n",
        ),
        (
            &["--pass-env", "SECRET=s3cr3t"],
            "oma-mcp: --pass-env takes a variable name, not NAME=VALUE; to set a value, use \
             --env SECRET=VALUE\n",
        ),
        (
            &["--pass-env", ""],
            "oma-mcp: --pass-env has the variable name \"\"; a name must be non-empty, without \
             `=` or NUL\n",
        ),
    ];
    for (flags, expected) in cases {
        for sub in [&["list"][..], &["call", "echo"], &["snapshot"]] {
            let out = run(oma_mcp().args(sub).args(flags).arg("--").arg(test_server()));
            assert_exit(&out, 2);
            assert_eq!(text(&out.stderr), expected, "{sub:?} {flags:?}");
            assert_eq!(text(&out.stdout), "");
        }
    }
    // `check` checks them before reading its manifest.
    let out = run(oma_mcp().args([
        "check",
        "--manifest",
        "/nonexistent/oma-mcp.toml",
        "--env",
        "=s3cr3t",
    ]));
    assert_exit(&out, 2);
    assert_eq!(text(&out.stderr), cases[0].1);
}

/// `call` checks `--yes` and the arguments before anything is sent, and reports both
/// refusals at once.
#[test]
fn call_reports_a_missing_yes_and_bad_arguments_together() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("oma-mcp.toml");
    std::fs::write(
        &manifest,
        format!(
            "[servers.own]\ncommand = {}\nprefix = \"own\"\nconsequential = [\"echo\"]\n",
            crate::common::toml_string(&test_server())
        ),
    )
    .unwrap();
    let out = run(oma_mcp()
        .args([
            "call",
            "own_echo",
            "--args",
            r#"{"message": 5}"#,
            "--manifest",
        ])
        .arg(&manifest));
    assert_exit(&out, 2);
    assert_eq!(
        (text(&out.stdout).as_str(), text(&out.stderr).as_str()),
        (
            "",
            "oma-mcp: tool \"own_echo\" is consequential (the manifest's consequential entries \
             list it), so it was not called; pass --yes to call it anyway\n\
             oma-mcp: Invalid input for tool \"own_echo\":\n- /message: 5 is not of type \"string\"\n\
             nothing was sent; fix --args, or pass --no-validate to let the server judge them\n"
        )
    );
}

/// `list` and `call` read `./oma-mcp.toml` when neither `--manifest` nor `-- COMMAND` is
/// given, and `call` picks the server whose prefix the tool name carries.
#[test]
fn list_and_call_default_to_the_manifest_here_and_call_picks_by_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let server = crate::common::toml_string(&test_server());
    std::fs::write(
        dir.path().join("oma-mcp.toml"),
        format!(
            "[servers.one]\ncommand = {server}\nprefix = \"one\"\n\n\
             [servers.two]\ncommand = {server}\nprefix = \"two\"\nenv = {{ OMA_TEST_SERVER_MODE = \"client-info\" }}\n\n\
             [servers.three]\ncommand = {server}\nprefix = \"two_client\"\n"
        ),
    )
    .unwrap();
    let here = |args: &[&str]| run(oma_mcp().current_dir(dir.path()).args(args));
    let out = here(&["call", "one_echo", "--args", r#"{"message": "hi"}"#]);
    assert_exit(&out, 0);
    assert_eq!(text(&out.stdout), "Echo: hi\n");
    let out = here(&["call", "two_client_info"]);
    assert_exit(&out, 2);
    assert_eq!(
        text(&out.stderr),
        "oma-mcp: tool \"two_client_info\" carries the prefix of several servers of \
         oma-mcp.toml: three (prefix two_client), two (prefix two); add --server NAME\n"
    );
    let out = here(&["call", "two_client_info", "--server", "two"]);
    assert_exit(&out, 0);
    let out = here(&["list", "--server", "one", "--format", "json"]);
    assert_exit(&out, 0);
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert!(rows.iter().any(|r| r["name"] == "one_echo"), "{rows:?}");
    // A name that carries no prefix: the manifest's own "which server?" error.
    let out = here(&["call", "echo"]);
    assert_exit(&out, 2);
    assert_eq!(
        text(&out.stderr),
        "oma-mcp: manifest oma-mcp.toml pins several servers (one, three, two); choose one \
         with --server NAME\n"
    );
}

/// The CLI reports itself as `oma-mcp` with its version; a pin's `client-name` and
/// `client-version` win, and are what the library's `connect_config()` reports (the
/// library's own default stays `open-multi-agent` `0.0.0`).
#[test]
fn client_info_is_oma_mcp_unless_the_manifest_sets_it() {
    let out = run(oma_mcp()
        .args([
            "call",
            "client_info",
            "--env",
            "OMA_TEST_SERVER_MODE=client-info",
            "--",
        ])
        .arg(test_server()));
    assert_exit(&out, 0);
    assert_eq!(
        text(&out.stdout),
        format!(
            "{{\"name\":\"oma-mcp\",\"version\":\"{}\"}}\n",
            env!("CARGO_PKG_VERSION")
        )
    );
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("oma-mcp.toml");
    let pin = |extra: &str| {
        format!(
            "[servers.own]\ncommand = {}\nenv = {{ OMA_TEST_SERVER_MODE = \"client-info\" }}\n{extra}",
            crate::common::toml_string(&test_server())
        )
    };
    std::fs::write(
        &manifest,
        pin("client-name = \"my-agent\"\nclient-version = \"9.1.0\"\n"),
    )
    .unwrap();
    let out = run(oma_mcp()
        .args(["call", "client_info", "--manifest"])
        .arg(&manifest));
    assert_exit(&out, 0);
    assert_eq!(
        text(&out.stdout),
        "{\"name\":\"my-agent\",\"version\":\"9.1.0\"}\n"
    );

    // The library: the pin's `connect_config()` (what generated `connect_config()` is).
    let client_info = |toml: String| {
        let path = dir.path().join("lib.toml");
        std::fs::write(&path, toml).unwrap();
        let manifest = oma_mcp_build::Manifest::read(&path).unwrap();
        let config = manifest.servers["own"].connect_config();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let client = oma_mcp_runtime::connect_mcp_tools(config).await.unwrap();
            let result = client.call_tool("client_info").mapped().await;
            client.disconnect().await;
            result.data
        })
    };
    assert_eq!(
        client_info(pin("client-name = \"my-agent\"\n")),
        "{\"name\":\"my-agent\",\"version\":\"0.0.0\"}"
    );
    assert_eq!(
        client_info(pin("")),
        "{\"name\":\"open-multi-agent\",\"version\":\"0.0.0\"}"
    );
}

/// A value outside a wide `enum`: the message lists the allowed values (up to 20, then how
/// many more), not three and "or N other candidates".
#[test]
fn a_wrong_enum_value_lists_the_allowed_values() {
    let out = run(oma_mcp()
        .args(["call", "pick", "--args", r#"{"level": "level-99"}"#])
        .args(["--env", "OMA_TEST_SERVER_MODE=wide-enum", "--"])
        .arg(test_server()));
    assert_exit(&out, 2);
    let listed = (1..=20)
        .map(|n| format!("\"level-{n:02}\""))
        .collect::<Vec<_>>()
        .join(", ");
    assert_eq!(
        text(&out.stderr),
        format!(
            "oma-mcp: Invalid input for tool \"pick\":\n- /level: \"level-99\" is not one of \
             {listed} and 5 more\nnothing was sent; fix --args, or pass --no-validate to let the \
             server judge them\n"
        )
    );
}

/// A server whose `tools/list` has entries that are not tool objects (own test server mode
/// `invalid-entries`): `snapshot` warns about each one on stderr (index and what is wrong),
/// writes the other tools and `"invalidTools": 3`; `call` reaches `greet`, whose
/// `"required": null` is checked as no required properties.
#[test]
fn a_server_with_bad_tools_list_entries_is_snapshotted_and_called() {
    let server = test_server();
    let warning = |index: usize, reason: &str| {
        format!(
            " WARN entry {index} of `tools/list` is {reason}; left it out and kept the server's \
             other tools (a bug in the server: report it to the server's authors) server={} \
             index={index}\n",
            server.display()
        )
    };
    let warnings = [
        warning(1, "`null`, not a tool object"),
        warning(2, "a number, not a tool object: 7"),
        warning(
            3,
            r#"an object without a string `name`: {"description":"no name"}"#,
        ),
    ]
    .concat();
    let dir = tempfile::tempdir().unwrap();
    let snapshot = dir.path().join("bad.snapshot.json");
    let out = run(oma_mcp()
        .args(["snapshot", "--out"])
        .arg(&snapshot)
        .args(["--env", "OMA_TEST_SERVER_MODE=invalid-entries", "--"])
        .arg(&server));
    assert_exit(&out, 0);
    assert_eq!(
        text(&out.stderr),
        format!(
            "{warnings}oma-mcp: wrote {} (2 tools)\n",
            snapshot.display()
        )
    );
    let file = std::fs::read_to_string(&snapshot).unwrap();
    assert!(
        file.starts_with(
            "{\n  \"capabilities\": {\n    \"tools\": {}\n  },\n  \"format\": \
             \"oma-mcp-snapshot/2\",\n  \"instructions\": null,\n  \"invalidTools\": 3,\n"
        ),
        "{file}"
    );
    let read = oma_mcp_runtime::Snapshot::read(&snapshot).unwrap();
    let names: Vec<&str> = read.tools.iter().map(|t| t.name()).collect();
    assert_eq!((names, read.invalid_tools), (vec!["echo", "greet"], 3));

    let call = |arguments: &str| {
        run(oma_mcp()
            .args(["call", "greet", "--args", arguments])
            .args(["--env", "OMA_TEST_SERVER_MODE=invalid-entries", "--"])
            .arg(&server))
    };
    let out = call("{}");
    assert_exit(&out, 0);
    assert_eq!(
        (text(&out.stdout), text(&out.stderr)),
        ("Hello, stranger!\n".to_owned(), warnings.clone())
    );
    let out = call(r#"{"name": 7}"#);
    assert_exit(&out, 2);
    assert_eq!(
        text(&out.stderr),
        format!(
            "{warnings}oma-mcp: Invalid input for tool \"greet\":\n- /name: 7 is not of type \
             \"string\"\nnothing was sent; fix --args, or pass --no-validate to let the server \
             judge them\n"
        )
    );
}
