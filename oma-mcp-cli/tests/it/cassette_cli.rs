//! `oma-mcp check` and a pin's `cassettes`: recorded sessions checked against the pinned
//! snapshot, each call that no longer fits a breaking `cassette_stale` change.

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
