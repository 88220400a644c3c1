//! Recorded sessions from the command line: `oma-mcp check` of a pin's `cassettes` (each call
//! that no longer fits the pinned snapshot a breaking `cassette_stale` change), and
//! `oma-mcp record` and `oma-mcp replay` as MCP servers on stdio.

use crate::common::{assert_exit, json_out, oma_mcp, run, test_server, toml_string, workspace};

/// A pin's cassettes are checked against its snapshot: the committed cassette of the own
/// server passes; one edited into a stale state (in a subdirectory), one that is no JSON and a
/// missing one are breaking `cassette_stale` changes naming the file and the JSON pointer.
#[test]
fn check_reports_stale_cassettes() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::copy(
        workspace().join("examples/demo/mcp/demo.snapshot.json"),
        dir.path().join("own.snapshot.json"),
    )
    .expect("copy snapshot");
    let cassettes = dir.path().join("cassettes");
    std::fs::create_dir(&cassettes).expect("mkdir");
    let committed = workspace().join("tests/cassettes/own.cassette.json");
    std::fs::copy(&committed, cassettes.join("a-current.json")).expect("copy cassette");
    let text = std::fs::read_to_string(&committed).expect("read cassette");
    let stale = text
        .replacen("\"tool\": \"echo\"", "\"tool\": \"shout\"", 1)
        .replacen("\"a\": 40", "\"a\": \"forty\"", 1);
    // Subdirectories are searched, and `.JSON` is JSON.
    std::fs::create_dir(cassettes.join("old")).expect("mkdir");
    std::fs::write(cassettes.join("old/b-stale.JSON"), stale).expect("write");
    std::fs::write(cassettes.join("c-broken.json"), "{\"calls\": [").expect("write");
    let manifest = dir.path().join("oma-mcp.toml");
    let toml = |list: &str| {
        format!(
            "[servers.own]\ncommand = {}\nprefix = \"demo\"\nsnapshot = \"own.snapshot.json\"\ncassettes = {list}\n",
            toml_string(&test_server())
        )
    };
    // The committed cassette fits the pinned snapshot (the server is the test server of
    // this build, wherever `CARGO_TARGET_DIR` puts it).
    std::fs::write(&manifest, toml("[\"cassettes/a-current.json\"]")).expect("manifest");
    let out = run(oma_mcp()
        .current_dir(dir.path())
        .args(["check", "--manifest"])
        .arg(&manifest));
    assert_exit(&out, 0);

    std::fs::write(&manifest, toml("[\"cassettes\", \"gone.json\"]")).expect("manifest");
    let out = run(oma_mcp()
        .current_dir(dir.path())
        .args(["check", "--format", "json", "--manifest"])
        .arg(&manifest));
    assert_exit(&out, 1);
    let changes: Vec<(String, String, String)> = json_out(&out)["changes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            let s = |k: &str| c[k].as_str().unwrap_or("").to_owned();
            (s("tool"), s("kind"), s("message"))
        })
        .collect();
    let s = |t: &str, m: &str| (t.to_owned(), "cassette_stale".to_owned(), m.to_owned());
    assert_eq!(
        changes,
        [
            s(
                "",
                "cassette cassettes/c-broken.json is not valid: at /: not JSON: EOF while \
                 parsing a list at line 1 column 11; fix it or record it again"
            ),
            s(
                "",
                "cassette gone.json does not exist; record it, or remove it from the pin's \
                 `cassettes`"
            ),
            s(
                "add",
                "cassette cassettes/old/b-stale.JSON: call 1 of tool \"add\" (at \
                 /calls/1/arguments/a): \"forty\" is not of type \"integer\" (the tool's \
                 inputSchema); record the session again"
            ),
            s(
                "shout",
                "cassette cassettes/old/b-stale.JSON: call 0 of tool \"shout\" (at /calls/0/tool): \
                 the snapshot has no tool \"shout\"; record the session again"
            ),
        ]
    );
}

/// The calls of the committed cassette's session, made through `client`: `isError` and the
/// mapped text of each.
async fn the_recorded_session(client: &oma_mcp_runtime::McpClient) -> Vec<(bool, String)> {
    let calls = [
        ("echo", serde_json::json!({"message": "hi"})),
        ("add", serde_json::json!({"a": 40, "b": 2})),
        ("fail", serde_json::json!({})),
        ("structured", serde_json::json!({"city": "Oslo"})),
    ];
    let mut seen = Vec::new();
    for (tool, arguments) in calls {
        let r = client
            .call_tool(tool)
            .arguments(arguments.as_object().cloned())
            .mapped()
            .await;
        seen.push((r.is_error, r.data));
    }
    seen
}

/// `oma-mcp record` and `oma-mcp replay` are MCP servers on stdio, for code that starts its
/// server as a command: a client records a session through `record` in front of the own
/// server (the cassette is the committed one, byte for byte), and gets the same answers from
/// `replay` of it without the server; a line that is no JSON and a call the cassette has not
/// recorded get JSON-RPC errors and make `replay` exit 2 with the problems on stderr.
#[tokio::test]
async fn record_and_replay_on_stdio() {
    use oma_mcp_runtime::{ConnectConfig, connect_mcp_tools};

    let oma = env!("CARGO_BIN_EXE_oma-mcp");
    let committed = workspace().join("tests/cassettes/own.cassette.json");
    let snapshot = workspace().join("examples/demo/mcp/demo.snapshot.json");
    let expected = [
        (false, "Echo: hi".to_owned()),
        (false, "42".to_owned()),
        (true, "This tool always fails".to_owned()),
        (
            false,
            "{\"city\":\"Oslo\",\"temperature_c\":21,\"conditions\":\"sunny\"}".to_owned(),
        ),
    ];

    let dir = tempfile::tempdir().expect("tempdir");
    let recorded = dir.path().join("own.cassette.json");
    let record = ConnectConfig::new(oma).with_args([
        "record".to_owned(),
        "--out".to_owned(),
        recorded.display().to_string(),
        "--".to_owned(),
        test_server().display().to_string(),
    ]);
    let client = connect_mcp_tools(record).await.expect("record starts");
    assert_eq!(client.tools().len(), 13);
    assert_eq!(the_recorded_session(&client).await, expected);
    client.disconnect().await;
    assert_eq!(
        std::fs::read_to_string(&recorded).expect("the cassette is written"),
        std::fs::read_to_string(&committed).expect("committed cassette")
    );

    let replay = ConnectConfig::new(oma).with_args([
        "replay".to_owned(),
        committed.display().to_string(),
        "--snapshot".to_owned(),
        snapshot.display().to_string(),
    ]);
    let client = connect_mcp_tools(replay).await.expect("replay starts");
    assert_eq!(the_recorded_session(&client).await, expected);
    client.disconnect().await;

    let mut child = tokio::process::Command::new(oma)
        .arg("replay")
        .arg(&committed)
        .arg("--snapshot")
        .arg(&snapshot)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("replay starts");
    let mut stdin = child.stdin.take().expect("stdin");
    tokio::io::AsyncWriteExt::write_all(
        &mut stdin,
        b"not json\n\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":\
          {\"name\":\"echo\",\"arguments\":{\"message\":\"bye\"}}}\n",
    )
    .await
    .expect("write");
    drop(stdin);
    let out = child.wait_with_output().await.expect("replay ends");
    let why = format!(
        "tool \\\"echo\\\" was called with arguments {{\\\"message\\\":\\\"bye\\\"}} that the \
         cassette {} has not recorded (recorded for it: {{\\\"message\\\":\\\"hi\\\"}}); record \
         the session again, or add a handler",
        committed.display()
    );
    assert_eq!(
        (out.status.code(), String::from_utf8_lossy(&out.stdout)),
        (
            Some(2),
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{{\"code\":-32700,\"message\":\
                 \"Parse error: expected ident at line 1 column 2\"}}}}\n\
                 {{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{{\"code\":-32603,\"message\":\"{why}\"}}}}\n"
            )
            .into()
        )
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "oma-mcp: the fake of \"oma-mcp-test-server\" saw 2 problem(s):\n- stdio: Parse \
             error: expected ident at line 1 column 2\n- {}\n",
            why.replace("\\\"", "\"")
        )
    );
    // The two files swapped: said so.
    let out = run(oma_mcp()
        .arg("replay")
        .arg(&snapshot)
        .arg("--snapshot")
        .arg(&committed));
    assert_exit(&out, 2);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "oma-mcp: --snapshot {} is a cassette, not a snapshot: the order is `oma-mcp replay \
             CASSETTE --snapshot SNAPSHOT`\n",
            committed.display()
        )
    );
}

/// `oma-mcp record` answers messages concurrently (a slow call does not hold up the next),
/// keeps the server's secrets out of the cassette (an `--env` value with a credential's name,
/// echoed by the server), refuses an `--out` in a directory that does not exist before it
/// starts anything, and leaves an existing cassette as it was when no call is made.
#[tokio::test]
async fn record_keeps_secrets_out_and_answers_concurrently() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("session.json");
    let record = |out: &std::path::Path| {
        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_oma-mcp"));
        command
            .arg("record")
            .arg("--out")
            .arg(out)
            .args(["--env", "API_TOKEN=env-secret-4242", "--"])
            .arg(test_server())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        command.spawn().expect("record starts")
    };
    let mut child = record(&out);
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"sleep\",\
              \"arguments\":{\"ms\":1500}}}\n\
              {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\
              \"get_env\",\"arguments\":{\"name\":\"API_TOKEN\"}}}\n",
        )
        .await
        .expect("write");
    let mut stdout = tokio::io::BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    stdout.read_line(&mut first).await.expect("an answer");
    // The code under test gets the server's answer; the cassette its redacted copy.
    assert_eq!(
        first,
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"resultType\":\"complete\",\"content\":\
         [{\"type\":\"text\",\"text\":\"env-secret-4242\"}],\"isError\":false}}\n"
    );
    drop(stdin);
    let mut second = String::new();
    stdout.read_line(&mut second).await.expect("an answer");
    assert!(
        second.starts_with("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":"),
        "{second}"
    );
    let status = child.wait().await.expect("record ends");
    assert_eq!(status.code(), Some(0));
    let cassette = std::fs::read_to_string(&out).expect("cassette");
    assert!(!cassette.contains("env-secret-4242"), "{cassette}");
    let recorded: serde_json::Value = serde_json::from_str(&cassette).expect("JSON");
    assert_eq!(
        (
            recorded["calls"][0]["tool"].as_str(),
            recorded["calls"][0]["result"]["content"][0]["text"].as_str(),
            recorded["calls"][1]["tool"].as_str()
        ),
        (Some("get_env"), Some("<redacted>"), Some("sleep"))
    );

    // No call: the cassette stays as it was.
    let mut child = record(&out);
    drop(child.stdin.take());
    let ended = child.wait_with_output().await.expect("record ends");
    assert_eq!(
        (ended.status.code(), String::from_utf8_lossy(&ended.stderr)),
        (
            Some(2),
            format!(
                "oma-mcp: no tools/call was made, so {} was left as it was\n",
                out.display()
            )
            .into()
        )
    );
    assert_eq!(std::fs::read_to_string(&out).expect("cassette"), cassette);

    let nowhere = dir.path().join("missing/session.json");
    let ended = record(&nowhere)
        .wait_with_output()
        .await
        .expect("record ends");
    assert_eq!(
        (ended.status.code(), String::from_utf8_lossy(&ended.stderr)),
        (
            Some(2),
            format!(
                "oma-mcp: --out {}: the directory {} does not exist; create it first\n",
                nowhere.display(),
                dir.path().join("missing").display()
            )
            .into()
        )
    );
}
