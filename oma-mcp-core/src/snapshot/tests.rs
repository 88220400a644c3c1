use std::path::Path;

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::*;

fn sample() -> Snapshot {
    Snapshot::from_descriptors(
            Some(json!({"version": "1.0", "name": "srv"})),
            Some("2025-06-18".into()),
            Some(SnapshotSource::new("node", ["server.js", "stdio"])),
            vec![
                json!({"name": "zeta", "inputSchema": {"type": "object"}, "_meta": {"x": 1}}),
                json!({"name": "alpha", "description": "A", "inputSchema": {"type": "object", "properties": {}}}),
            ],
        )
        .unwrap()
}

#[test]
fn canonical_text_is_sorted_and_stable() {
    let text = sample().to_canonical_string();
    let expected = r#"{
  "format": "oma-mcp-snapshot/1",
  "protocolVersion": "2025-06-18",
  "serverInfo": {
    "name": "srv",
    "version": "1.0"
  },
  "source": {
    "args": [
      "server.js",
      "stdio"
    ],
    "command": "node"
  },
  "tools": [
    {
      "descriptor": {
        "description": "A",
        "inputSchema": {
          "properties": {},
          "type": "object"
        },
        "name": "alpha"
      },
      "digest": "sha256:DIGEST_ALPHA"
    },
    {
      "descriptor": {
        "_meta": {
          "x": 1
        },
        "inputSchema": {
          "type": "object"
        },
        "name": "zeta"
      },
      "digest": "sha256:DIGEST_ZETA"
    }
  ]
}
"#;
    let snap = sample();
    let expected = expected
        .replace("sha256:DIGEST_ALPHA", &snap.tools[0].digest)
        .replace("sha256:DIGEST_ZETA", &snap.tools[1].digest);
    assert_eq!(text, expected);
    let reparsed = Snapshot::parse(&text, Path::new("x.json")).unwrap();
    assert_eq!(reparsed, snap);
    assert_eq!(reparsed.to_canonical_string(), text);
}

/// A URL source: the redacted URL, the literal headers and the names of the headers
/// from the environment, in a fixed layout; read back equal.
#[test]
fn a_url_source_round_trips_with_names_only() {
    let source = SnapshotSource::http("https://me:s3cret@api.example.com/mcp/?key=abc")
        .with_header("X-MCP-Toolsets", "repos,issues")
        .with_env_header("Authorization")
        .with_env_header("X-Api-Key");
    assert_eq!(
        source.url.as_deref(),
        Some("https://***@api.example.com/mcp/?key=***")
    );
    let snap = Snapshot::from_descriptors(None, None, Some(source), Vec::new()).unwrap();
    let text = snap.to_canonical_string();
    assert_eq!(
        text,
        r#"{
  "format": "oma-mcp-snapshot/1",
  "source": {
    "headers": {
      "X-MCP-Toolsets": "repos,issues"
    },
    "headersFromEnv": [
      "Authorization",
      "X-Api-Key"
    ],
    "url": "https://***@api.example.com/mcp/?key=***"
  },
  "tools": []
}
"#
    );
    let reparsed = Snapshot::parse(&text, Path::new("s.json")).unwrap();
    assert_eq!(reparsed, snap);
    assert_eq!(reparsed.to_canonical_string(), text);
    // No header of either kind: both keys are still written, empty.
    let bare = Snapshot::from_descriptors(
        None,
        None,
        Some(SnapshotSource::http("http://127.0.0.1:8080/mcp")),
        Vec::new(),
    )
    .unwrap();
    assert_eq!(
        bare.to_canonical_string(),
        "{\n  \"format\": \"oma-mcp-snapshot/1\",\n  \"source\": {\n    \"headers\": {},\n    \
             \"headersFromEnv\": [],\n    \"url\": \"http://127.0.0.1:8080/mcp\"\n  },\n  \
             \"tools\": []\n}\n"
    );
    // `headers` and `headersFromEnv` may be left out by a hand-written file.
    let short =
        r#"{"format": "oma-mcp-snapshot/1", "source": {"url": "http://h/mcp"}, "tools": []}"#;
    assert_eq!(
        Snapshot::parse(short, Path::new("s.json")).unwrap().source,
        Some(SnapshotSource::http("http://h/mcp"))
    );
}

/// `invalidTools` is written only when the server sent an entry that is not a tool
/// object (so a snapshot of a server that sent none is what it always was), between
/// `format` and `protocolVersion`, and read back; anything but a non-negative integer is
/// refused.
#[test]
fn the_count_of_invalid_entries_is_written_only_when_there_are_some() {
    let none = sample();
    assert_eq!(none.invalid_tools, 0);
    assert!(!none.to_canonical_string().contains("invalidTools"));
    let three = sample().with_invalid_tools(3);
    let text = three.to_canonical_string();
    assert_eq!(
        text,
        none.to_canonical_string().replace(
            "  \"format\": \"oma-mcp-snapshot/1\",\n",
            "  \"format\": \"oma-mcp-snapshot/1\",\n  \"invalidTools\": 3,\n"
        )
    );
    let reparsed = Snapshot::parse(&text, Path::new("s.json")).unwrap();
    assert_eq!(reparsed.invalid_tools, 3);
    assert_eq!(reparsed, three);
    assert_eq!(reparsed.to_canonical_string(), text);
    // An explicit 0 reads as none (and is not written back).
    let zero = r#"{"format": "oma-mcp-snapshot/1", "invalidTools": 0, "tools": []}"#;
    assert_eq!(
        Snapshot::parse(zero, Path::new("s.json"))
            .unwrap()
            .invalid_tools,
        0
    );
    let err = |count: &str| {
        Snapshot::parse(
            &format!(r#"{{"format": "oma-mcp-snapshot/1", "invalidTools": {count}, "tools": []}}"#),
            Path::new("s.json"),
        )
        .unwrap_err()
        .to_string()
    };
    for (count, shown) in [
        ("-1", "-1"),
        ("1.5", "1.5"),
        ("\"3\"", "\"3\""),
        ("null", "null"),
        ("[1]", "[1]"),
    ] {
        assert_eq!(
            err(count),
            format!(
                "snapshot s.json is not valid: /invalidTools is {shown}, not a non-negative \
                     integer (the count of `tools/list` entries that are not tool objects); \
                     regenerate it with `oma-mcp snapshot`"
            ),
            "{count}"
        );
    }
    // A snapshot file with a tool that has no name is still not valid.
    let nameless = text.replace("\"name\": \"alpha\"", "\"title\": \"alpha\"");
    assert_eq!(
        Snapshot::parse(&nameless, Path::new("s.json"))
            .unwrap_err()
            .to_string(),
        "snapshot s.json is not valid: /tools/0/descriptor/name is missing or not a string; \
             regenerate it with `oma-mcp snapshot`"
    );
    assert!(SnapshotTool::from_descriptor(json!({"title": "alpha"})).is_err());
}

#[test]
fn a_source_that_is_neither_form_is_refused() {
    let err = |source: &str| {
        Snapshot::parse(
            &format!(r#"{{"format": "oma-mcp-snapshot/1", "source": {source}, "tools": []}}"#),
            Path::new("s.json"),
        )
        .unwrap_err()
        .to_string()
    };
    let expected = "snapshot s.json is not valid: /source must be {\"command\": string, \
                        \"args\": [string]} or {\"url\": string, \"headers\": {string: \
                        string}, \"headersFromEnv\": [string]}; regenerate it with `oma-mcp \
                        snapshot`";
    for source in [
        r#"{"command": "x", "args": [], "url": "http://h/"}"#,
        r#"{"url": 1}"#,
        r#"{"url": "http://h/", "headers": {"A": 1}}"#,
        r#"{"url": "http://h/", "headersFromEnv": "Authorization"}"#,
        r#"{"command": "x"}"#,
    ] {
        assert_eq!(err(source), expected, "{source}");
    }
}

#[test]
fn a_hand_edited_descriptor_is_refused_with_what_to_do() {
    let snap = sample();
    let text = snap
        .to_canonical_string()
        .replace("\"description\": \"A\"", "\"description\": \"B\"");
    let edited = SnapshotTool::from_descriptor(
            json!({"description": "B", "inputSchema": {"properties": {}, "type": "object"}, "name": "alpha"}),
        )
        .unwrap();
    let err = Snapshot::parse(&text, Path::new("mcp/x.json")).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "snapshot mcp/x.json is not valid: /tools/0/digest of tool \"alpha\" is {} but \
                 its descriptor hashes to {}; the file was edited by hand (to keep the edit, set \
                 the digest to the new value); regenerate it with `oma-mcp snapshot`",
            snap.tools[0].digest, edited.digest
        )
    );
}

/// The accessors read the descriptor's own fields, `None` when absent (or, for the
/// description, not a string); `tool` finds a tool by its raw name.
#[test]
fn tools_are_found_by_name_and_read_by_field() {
    let snap = Snapshot::from_descriptors(
        None,
        None,
        None,
        vec![
            json!({"name": "m", "description": 7}),
            json!({"name": "z"}),
            json!({
                "name": "a", "description": "Adds.", "inputSchema": {"type": "object"},
                "outputSchema": {"type": "object", "required": ["sum"]},
                "annotations": {"readOnlyHint": true},
            }),
        ],
    )
    .unwrap();
    let a = snap.tool("a").unwrap();
    assert_eq!(a.name(), "a");
    assert_eq!(a.description(), Some("Adds."));
    assert_eq!(a.input_schema(), Some(&json!({"type": "object"})));
    assert_eq!(
        a.output_schema(),
        Some(&json!({"type": "object", "required": ["sum"]}))
    );
    assert_eq!(a.annotations(), Some(&json!({"readOnlyHint": true})));
    let m = snap.tool("m").unwrap();
    assert_eq!(m.name(), "m");
    assert_eq!(m.description(), None);
    assert_eq!(m.input_schema(), None);
    assert_eq!(m.output_schema(), None);
    assert_eq!(m.annotations(), None);
    assert_eq!(snap.tool("z").unwrap().name(), "z");
    assert_eq!(snap.tool("b"), None);
    assert_eq!(snap.tool(""), None);
}

#[test]
fn digest_is_key_order_independent() {
    let a = digest(&json!({"b": 1, "a": [{"y": 2, "x": 1}]}));
    let b = digest(&json!({"a": [{"x": 1, "y": 2}], "b": 1}));
    assert_eq!(a, b);
    assert_eq!(
        canonical_json(&json!({"b": 1, "a": "é"})),
        r#"{"a":"é","b":1}"#
    );
    // SHA-256 of the 2-byte text `{}`.
    assert_eq!(
        digest(&json!({})),
        "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
    );
}

/// A bare listing keeps its tools and leaves out what is no tool, as a live one does.
#[test]
fn a_bare_listing_leaves_out_entries_that_are_no_tools() {
    let bare = r#"{"tools": [{"name": "b"}, null, {"name": "a"}, {"title": "x"}]}"#;
    let snap = Snapshot::parse(bare, Path::new("bare.json")).unwrap();
    let names: Vec<&str> = snap.tools.iter().map(SnapshotTool::name).collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(snap.invalid_tools, 2);
    let left_out: Vec<String> = snap.left_out.iter().map(ToString::to_string).collect();
    assert_eq!(
        left_out,
        [
            "entry 1 of `tools/list` is `null`, not a tool object",
            r#"entry 3 of `tools/list` is an object without a string `name`: {"title":"x"}"#
        ]
    );
    let written = Snapshot::parse(&snap.to_canonical_string(), Path::new("s.json")).unwrap();
    assert_eq!((written.invalid_tools, written.left_out.len()), (2, 0));
}

#[test]
fn bare_tools_list_and_jsonrpc_response_are_read() {
    let bare = r#"{"tools": [{"name": "b"}, {"name": "a"}]}"#;
    let snap = Snapshot::parse(bare, Path::new("bare.json")).unwrap();
    assert_eq!(
        snap.tools.iter().map(|t| t.name()).collect::<Vec<_>>(),
        ["a", "b"]
    );
    assert_eq!(snap.source, None);
    let rpc = r#"{"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "x"}]}}"#;
    assert_eq!(
        Snapshot::parse(rpc, Path::new("r.json")).unwrap().tools[0].name(),
        "x"
    );
}

#[test]
fn errors_name_the_file_and_place() {
    let err = |text: &str| {
        Snapshot::parse(text, Path::new("mcp/s.json"))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        err("{"),
        "snapshot mcp/s.json is not valid: not JSON (EOF while parsing an object at line 1 column 1); regenerate it with `oma-mcp snapshot`"
    );
    assert_eq!(
        err(r#"{"format": "oma-mcp-snapshot/9", "tools": []}"#),
        "snapshot mcp/s.json is not valid: /format is \"oma-mcp-snapshot/9\", this oma-mcp reads \"oma-mcp-snapshot/2\" and \"oma-mcp-snapshot/1\"; regenerate it with `oma-mcp snapshot`"
    );
    assert_eq!(
        err(r#"{"tools": [{"name": "a"}, {"name": "a"}]}"#),
        "snapshot mcp/s.json is not valid: the server lists the tool \"a\" twice; regenerate it with `oma-mcp snapshot`"
    );
    let mut tampered = sample().to_canonical_string();
    tampered = tampered.replace("\"description\": \"A\"", "\"description\": \"B\"");
    assert!(err(&tampered).starts_with(
        "snapshot mcp/s.json is not valid: /tools/0/digest of tool \"alpha\" is sha256:"
    ));
}

#[test]
fn byte_order_mark_is_ignored_and_non_utf8_is_located() {
    let dir = tempfile::tempdir().unwrap();
    let text = sample().to_canonical_string();
    let bom = dir.path().join("bom.json");
    std::fs::write(&bom, format!("\u{feff}{text}")).unwrap();
    assert_eq!(Snapshot::read(&bom).unwrap(), sample());

    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, b"{\n  \"tools\": [\"\xc3\xa9\xff\"]\n}\n").unwrap();
    assert_eq!(
        Snapshot::read(&bad).unwrap_err().to_string(),
        format!(
            "snapshot {} is not valid: not UTF-8 (an invalid byte at line 2 column 15, byte \
                 offset 17); regenerate it with `oma-mcp snapshot`",
            bad.display()
        )
    );
}

/// A snapshot of a server's whole surface: capabilities, instructions, prompts, resources
/// and templates, each list sorted by its key, each item with its digest, the cut list
/// named; written as format 2 and read back equal.
#[test]
fn a_whole_surface_is_written_as_format_2_and_read_back() {
    let items = |kind, entries: Vec<Value>| SnapshotItems::from_entries(kind, entries).items;
    let snap = Snapshot::from_descriptors(None, None, None, vec![json!({"name": "echo"})])
        .unwrap()
        .with_capabilities(json!({"tools": {}, "prompts": {"listChanged": true}}))
        .with_instructions(Some("Call echo first.".into()))
        .with_items(
            ItemKind::Prompt,
            items(
                ItemKind::Prompt,
                vec![json!({"name": "greet", "arguments": [{"name": "who", "required": true}]})],
            ),
            None,
        )
        .with_items(
            ItemKind::Resource,
            items(
                ItemKind::Resource,
                vec![
                    json!({"uri": "memo://b", "name": "b"}),
                    json!({"uri": "memo://a", "name": "a"}),
                ],
            ),
            Some(2),
        )
        .with_items(ItemKind::ResourceTemplate, Vec::new(), None);
    assert_eq!(snap.format_version(), 2);
    let text = snap.to_canonical_string();
    let digest_of = |kind, key| snap.item(kind, key).unwrap().digest.clone();
    let expected = r#"{
  "capabilities": {
    "prompts": {
      "listChanged": true
    },
    "tools": {}
  },
  "cut": {
    "resources": 2
  },
  "format": "oma-mcp-snapshot/2",
  "instructions": "Call echo first.",
  "prompts": [
    {
      "descriptor": {
        "arguments": [
          {
            "name": "who",
            "required": true
          }
        ],
        "name": "greet"
      },
      "digest": "PROMPT"
    }
  ],
  "resourceTemplates": [],
  "resources": [
    {
      "descriptor": {
        "name": "a",
        "uri": "memo://a"
      },
      "digest": "RESOURCE_A"
    },
    {
      "descriptor": {
        "name": "b",
        "uri": "memo://b"
      },
      "digest": "RESOURCE_B"
    }
  ],
  "tools": [
    {
      "descriptor": {
        "name": "echo"
      },
      "digest": "TOOL"
    }
  ]
}
"#
    .replace("PROMPT", &digest_of(ItemKind::Prompt, "greet"))
    .replace("RESOURCE_A", &digest_of(ItemKind::Resource, "memo://a"))
    .replace("RESOURCE_B", &digest_of(ItemKind::Resource, "memo://b"))
    .replace("TOOL", &snap.tools[0].digest);
    assert_eq!(text, expected);
    let reparsed = Snapshot::parse(&text, Path::new("s.json")).unwrap();
    assert_eq!(reparsed, snap);
    assert_eq!(
        reparsed.pins,
        BTreeSet::from([Pin::Instructions, Pin::Prompts, Pin::Resources, Pin::Tools])
    );
}

/// A format 1 file reads as a snapshot of the tools alone and is written back byte for byte.
#[test]
fn a_format_1_file_stays_format_1() {
    let text = sample().to_canonical_string();
    assert!(text.starts_with("{\n  \"format\": \"oma-mcp-snapshot/1\",\n"));
    let read = Snapshot::parse(&text, Path::new("s.json")).unwrap();
    assert_eq!(read.format_version(), 1);
    assert_eq!(read.pins, BTreeSet::from([Pin::Tools]));
    assert_eq!(read.to_canonical_string(), text);
}

/// Entries without their key and repeated keys are left out with a line each; a hand edit
/// of an item, a repeated key and a `cut` of a list the file lacks are refused.
#[test]
fn items_without_a_key_are_left_out_and_hand_edits_refused() {
    let listed = SnapshotItems::from_entries(
        ItemKind::ResourceTemplate,
        vec![
            json!({"name": "file", "uriTemplate": "file:///{path}"}),
            json!({"uriTemplate": "x://{y}"}),
            json!({"name": "file", "uriTemplate": "other://{z}"}),
        ],
    );
    assert_eq!(listed.items.len(), 1);
    assert_eq!(
        listed.left_out,
        [
            "resources/templates/list entry 1 has no string `name`; left it out",
            "resources/templates/list entry 2 repeats the resource template \"file\"; kept the first"
        ]
    );
    let snap = Snapshot::default().with_items(ItemKind::ResourceTemplate, listed.items, None);
    let text = snap.to_canonical_string();
    let edited = text.replace("file:///{path}", "file:///{+path}");
    let err = |text: &str| {
        Snapshot::parse(text, Path::new("s.json"))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        err(&edited),
        format!(
            "snapshot s.json is not valid: /resourceTemplates/0/digest of resource template \
             \"file\" is {} but its descriptor hashes to {}; the file was edited by hand (to \
             keep the edit, set the digest to the new value); regenerate it with `oma-mcp \
             snapshot`",
            snap.resource_templates[0].digest,
            digest(&json!({"name": "file", "uriTemplate": "file:///{+path}"}))
        )
    );
    let wrong = text.replace(
        "\"format\"",
        "\"cut\": {\"resourceTemplates\": 0},\n  \"format\"",
    );
    assert_eq!(
        err(&wrong),
        "snapshot s.json is not valid: /cut/resourceTemplates is 0, but /resourceTemplates holds \
         1 entries (a cut list holds exactly its bound); regenerate it with `oma-mcp snapshot`"
    );
    let cut = text.replace("\"format\"", "\"cut\": {\"prompts\": 3},\n  \"format\"");
    assert_eq!(
        err(&cut),
        "snapshot s.json is not valid: /cut/prompts names a list the snapshot does not hold; \
         regenerate it with `oma-mcp snapshot`"
    );
}

/// A bare `tools/list` file may carry the server's `instructions` beside `tools`.
#[test]
fn a_bare_listing_keeps_its_instructions() {
    let bare = r#"{"instructions": "Use search first.", "tools": [{"name": "search"}]}"#;
    let snap = Snapshot::parse(bare, Path::new("bare.json")).unwrap();
    assert_eq!(snap.instructions.as_deref(), Some("Use search first."));
    assert!(snap.pins(Pin::Instructions));
}
