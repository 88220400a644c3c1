//! Misbehaving modes, as a tiny line-based JSON-RPC loop (rmcp's server cannot be made to
//! write garbage to stdout, repeat a cursor or ignore EOF).

use std::io::{BufRead, Write};

use serde_json::{Value, json};

use crate::Mode;

/// The `serverInfo` of every raw mode.
fn server_info() -> Value {
    json!({"name": "oma-mcp-test-server-raw", "version": env!("CARGO_PKG_VERSION")})
}

/// A tool descriptor with a single required string property.
fn tool(name: &str) -> Value {
    json!({
        "name": name,
        "description": format!("The raw-mode tool {name}"),
        "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}},
                        "required": ["message"]}
    })
}

/// A tool descriptor with one optional integer property `property`.
fn counted_tool(name: &str, property: &str, description: &str) -> Value {
    json!({
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": {property: {"type": "integer", "minimum": 0}}}
    })
}

/// Writes one message line and flushes (after a byte-order mark in the `bom` mode).
pub(crate) fn send(out: &mut impl Write, msg: &Value) -> std::io::Result<()> {
    if BOM.load(std::sync::atomic::Ordering::Relaxed) {
        out.write_all("\u{feff}".as_bytes())?;
    }
    writeln!(out, "{msg}")?;
    out.flush()
}

/// Whether [`send`] writes a byte-order mark first (the `bom` mode).
static BOM: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The `server/discover` result of the 2026-07-28 modes.
fn discover_result() -> Value {
    json!({
        "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
        "_meta": {"io.modelcontextprotocol/serverInfo": server_info()}
    })
}

/// `usage-on-start`: the cause first, then the usage text, then exit 2.
fn usage_on_start() -> ! {
    eprintln!("{}", crate::USAGE_ERROR_LINE);
    eprintln!("Usage:");
    for n in 1..=20 {
        eprintln!("  --flag-{n} string   the flag {n}");
    }
    std::process::exit(2)
}

/// `progress`: the `slow_count` tool (see [`Mode::Progress`]).
fn slow_count(params: &Value, out: &mut impl Write) -> std::io::Result<Value> {
    let (steps, ms) =
        crate::progress::steps_and_ms(params.get("arguments").and_then(Value::as_object));
    let token = params.pointer("/_meta/progressToken").cloned();
    for step in 1..=steps {
        std::thread::sleep(std::time::Duration::from_millis(ms));
        if let Some(token) = &token {
            send(
                out,
                &json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {
                    "progressToken": token, "progress": step, "total": steps,
                    "message": format!("step {step} of {steps}")
                }}),
            )?;
        }
    }
    Ok(json!({"content": [{"type": "text", "text": format!("Counted to {steps}")}]}))
}

/// Runs the raw loop of `mode` on stdin/stdout until stdin closes (or the mode exits).
///
/// # Errors
/// I/O errors on stdio.
pub fn run(mode: Mode) -> std::io::Result<()> {
    if let Some(path) = std::env::var_os(crate::START_LOG_VAR) {
        let mut log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        writeln!(log, "started")?;
    }
    if mode == Mode::UsageOnStart {
        usage_on_start();
    }
    BOM.store(mode == Mode::Bom, std::sync::atomic::Ordering::Relaxed);
    if mode == Mode::Stubborn && std::env::var_os(crate::STUBBORN_GRANDCHILD_VAR).is_none() {
        start_stubborn_grandchild()?;
    }
    if let Some(ms) = std::env::var(crate::START_DELAY_VAR)
        .ok()
        .and_then(|ms| ms.parse().ok())
    {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
    let mut first = true;
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut out = std::io::stdout().lock();
    // `huge-line`: the id and message of the `deferred` call waiting for the next huge line.
    let mut deferred: Option<(Value, String)> = None;
    // `client-info`: the `clientInfo` of `initialize`.
    let mut client_info = Value::Null;
    // `tasks-2025`: the session's tasks.
    let mut tasks = crate::tasks_2025::Tasks::default();
    while let Some(line) = lines.next() {
        let line = line?;
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let Some(method) = msg.get("method").and_then(Value::as_str) else {
            continue;
        };
        if mode == Mode::ExitOnDiscover && first && method != "initialize" {
            eprintln!("{}", crate::EXIT_ON_DISCOVER_STDERR);
            std::process::exit(1);
        }
        first = false;
        let Some(id) = msg.get("id").cloned() else {
            continue; // a notification
        };
        let params = msg.get("params").cloned().unwrap_or(Value::Null);
        if mode == Mode::NeverAnswer
            || (mode == Mode::IgnoreDiscover && method == "server/discover")
        {
            continue;
        }
        if mode == Mode::StallSecondPage
            && method == "tools/list"
            && params.get("cursor").is_some_and(|c| !c.is_null())
        {
            continue;
        }
        if mode == Mode::HugeLine && method == "tools/call" {
            let name = params.get("name").and_then(Value::as_str).unwrap_or("");
            let message = params
                .pointer("/arguments/message")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned();
            if huge_line(name, &id, &mut out)? {
                if let Some((deferred_id, message)) = deferred.take() {
                    let text = json!([{"type": "text", "text": format!("Echo: {message}")}]);
                    let answer = json!({"jsonrpc": "2.0", "id": deferred_id,
                                        "result": {"content": text}});
                    send(&mut out, &answer)?;
                }
                if name != "huge_notification" {
                    continue;
                }
            } else if name == "deferred" {
                deferred = Some((id, message));
                continue;
            }
        }
        if mode == Mode::StdoutNoise {
            writeln!(out, "this line is not JSON")?;
            writeln!(out, "{{\"broken\": ")?;
            writeln!(out, "[1, 2, 3]")?;
            writeln!(out)?;
        }
        if method == "initialize" {
            client_info = params.get("clientInfo").cloned().unwrap_or(Value::Null);
        }
        if mode == Mode::Tasks2025
            && let Some(answer) = tasks.answer(method, &params, &mut lines, &mut out)?
        {
            let response = match answer {
                Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                Err((code, message)) => json!({"jsonrpc": "2.0", "id": id,
                    "error": {"code": code, "message": message}}),
            };
            send(&mut out, &response)?;
            continue;
        }
        let reply = match method {
            "server/discover" if matches!(mode, Mode::Modern | Mode::Dual) => Ok(discover_result()),
            "initialize" if mode == Mode::Modern => {
                send(
                    &mut out,
                    &json!({"jsonrpc": "2.0", "id": id, "error": {
                        "code": -32022, "message": "Unsupported protocol version",
                        "data": {"supported": ["2026-07-28"]}
                    }}),
                )?;
                continue;
            }
            "initialize" => match mode {
                Mode::ExitOnInitialize => {
                    eprintln!("fatal: this server refuses to initialize");
                    std::process::exit(3);
                }
                Mode::ErrorOnInitialize => Err((-32603, "initialize is broken on purpose")),
                Mode::Legacy20250618 => Ok(json!({
                    "protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                    "serverInfo": server_info()
                })),
                Mode::BadProtocolVersion => Ok(json!({
                    "protocolVersion": "1999-01-01", "capabilities": {"tools": {}},
                    "serverInfo": server_info()
                })),
                _ => Ok(json!({
                    "protocolVersion": params.get("protocolVersion").cloned()
                        .unwrap_or(json!("2025-11-25")),
                    "capabilities": {"tools": {}},
                    "serverInfo": server_info()
                })),
            },
            "ping" => Ok(json!({})),
            "tools/list" => Ok(list_page(
                mode,
                params.get("cursor").and_then(Value::as_str),
            )),
            "tools/call" => {
                let name = params.get("name").and_then(Value::as_str).unwrap_or("");
                if mode == Mode::Flood && name == "flood" {
                    flood(&params, &mut out)?;
                    continue;
                }
                if mode == Mode::Drip && name == "drip" {
                    drip(&id, &params, &mut out)?;
                    continue;
                }
                if mode == Mode::CrashOnCall {
                    eprintln!("{}", crate::CRASH_STDERR);
                    std::process::exit(5);
                }
                if name == "probe_client" {
                    Ok(probe_client(&mut lines, &mut out)?)
                } else if mode == Mode::WideEnum {
                    let level = params.pointer("/arguments/level").and_then(Value::as_str);
                    let text = format!("Picked {}", level.unwrap_or(""));
                    Ok(json!({"content": [{"type": "text", "text": text}]}))
                } else if mode == Mode::ClientInfo {
                    let text = client_info.to_string();
                    Ok(json!({"content": [{"type": "text", "text": text}]}))
                } else if mode == Mode::Progress {
                    Ok(slow_count(&params, &mut out)?)
                } else if mode == Mode::Sloppy {
                    Ok(sloppy_result())
                } else if mode == Mode::InvalidEntries && name == "greet" {
                    let who = params.pointer("/arguments/name").and_then(Value::as_str);
                    let text = format!("Hello, {}!", who.unwrap_or("stranger"));
                    Ok(json!({"content": [{"type": "text", "text": text}]}))
                } else {
                    let message = params
                        .pointer("/arguments/message")
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    Ok(json!({"content": [{"type": "text", "text": format!("Echo: {message}")}]}))
                }
            }
            _ => Err((-32601, "Method not found")),
        };
        let response = match reply {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err((code, message)) => {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
            }
        };
        send(&mut out, &response)?;
    }
    if mode == Mode::NoisyShutdown {
        writeln!(out, "{}", crate::SHUTDOWN_STDOUT)?;
        out.flush()?;
    }
    if mode == Mode::Stubborn {
        // Ignore EOF (and SIGTERM, see `serve_stdio`): only SIGKILL ends this process.
        loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
    }
    Ok(())
}

/// `stubborn`: starts the grandchild (see [`Mode::Stubborn`]) and does not wait for it.
fn start_stubborn_grandchild() -> std::io::Result<()> {
    let grandchild = std::process::Command::new(std::env::current_exe()?)
        .env(crate::STUBBORN_GRANDCHILD_VAR, "1")
        .stdin(std::process::Stdio::null())
        .spawn()?;
    eprintln!("{}{}", crate::STUBBORN_GRANDCHILD_LINE, grandchild.id());
    Ok(())
}

/// `flood`: writes the call's `count` notifications (see [`Mode::Flood`]), in writes of
/// about 64 KiB.
fn flood(params: &Value, out: &mut impl Write) -> std::io::Result<()> {
    let count = params
        .pointer("/arguments/count")
        .and_then(Value::as_u64)
        .unwrap_or(crate::FLOOD_DEFAULT_COUNT);
    let token = params.pointer("/_meta/progressToken").map(Value::to_string);
    let mut batched = std::io::BufWriter::with_capacity(64 * 1024, out);
    for n in 1..=count {
        match &token {
            Some(token) => writeln!(
                batched,
                r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{token},"progress":{n},"total":{count}}}}}"#
            )?,
            None => writeln!(
                batched,
                r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":"flood {n}"}}}}"#
            )?,
        }
    }
    batched.flush()
}

/// `drip`: writes the answer to request `id` one byte every `ms` milliseconds (see
/// [`Mode::Drip`]).
fn drip(id: &Value, params: &Value, out: &mut impl Write) -> std::io::Result<()> {
    let ms = params
        .pointer("/arguments/ms")
        .and_then(Value::as_u64)
        .unwrap_or(1000);
    let answer = json!({"jsonrpc": "2.0", "id": id, "result": {
        "content": [{"type": "text", "text": crate::DRIP_TEXT}]
    }});
    for byte in format!("{answer}\n").bytes() {
        std::thread::sleep(std::time::Duration::from_millis(ms));
        out.write_all(&[byte])?;
        out.flush()?;
    }
    Ok(())
}

/// Writes the huge line of the `huge-line` tool `name` (answering request `id`, except for
/// `huge_notification`); `false` for other tools.
fn huge_line(name: &str, id: &Value, out: &mut impl Write) -> std::io::Result<bool> {
    let text = "x".repeat(crate::HUGE_LINE_BYTES);
    let result = format!(r#"{{"content":[{{"type":"text","text":"{text}"}}]}}"#);
    match name {
        "huge_id_first" => writeln!(out, r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#)?,
        "huge_id_last" => writeln!(out, r#"{{"result":{result},"jsonrpc":"2.0","id":{id}}}"#)?,
        "huge_notification" => writeln!(
            out,
            r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":"{text}"}}}}"#
        )?,
        _ => return Ok(false),
    }
    out.flush()?;
    Ok(true)
}

/// The `tools/call` result of `sloppy`: shapes rmcp 3.11's typed parsing rejects or drops
/// (annotations of the wrong type, an unknown content block type, a `resource_link` without
/// its `name`, a `null` and a string where a content block belongs, unknown result members),
/// which the mapping must still see raw.
fn sloppy_result() -> Value {
    json!({
        "content": [
            {"type": "text", "text": "kept", "annotations": {"audience": ["robot"], "priority": "high"}},
            {"type": "tool_reference", "tool_name": "search_issues"},
            {"type": "resource_link", "uri": "https://example.com/a.txt"},
            null,
            "not a block"
        ],
        "cacheScope": "",
        "x-extra": 1
    })
}

/// One `tools/list` page for `mode` and the request's `cursor`.
fn list_page(mode: Mode, cursor: Option<&str>) -> Value {
    match (mode, cursor) {
        (Mode::RepeatCursor, None) => json!({"tools": [tool("first")], "nextCursor": "again"}),
        (Mode::RepeatCursor, Some(_)) => json!({"tools": [tool("second")], "nextCursor": "again"}),
        (Mode::TwoPages, None) => json!({"tools": [tool("alpha")], "nextCursor": "page-2"}),
        (Mode::TwoPages, Some(_)) => {
            let mut beta = tool("beta/nested");
            beta["execution"] = json!({"taskSupport": "optional"});
            beta["x-vendor"] = json!({"kept": true});
            json!({"tools": [beta], "nextCursor": ""})
        }
        (Mode::CollidingNames, _) => json!({"tools": [tool("a/b"), tool("a_b")]}),
        (Mode::HostileNames, _) => {
            let mut hostile = tool(crate::HOSTILE_TOOL_NAME);
            hostile["description"] = json!(crate::HOSTILE_DESCRIPTION);
            json!({"tools": [hostile, tool("echo")]})
        }
        (Mode::EndlessCursor, cursor) => {
            let n = cursor
                .and_then(|c| c.strip_prefix("page-"))
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or(0);
            json!({"tools": [], "nextCursor": format!("page-{}", n + 1)})
        }
        (Mode::HugeLine, _) => json!({"tools": [
            tool("deferred"), tool("huge_id_first"), tool("huge_id_last"), tool("huge_notification")
        ]}),
        (Mode::StallSecondPage, _) => json!({"tools": [tool("echo")], "nextCursor": "page-2"}),
        (Mode::WideEnum, _) => {
            let levels: Vec<String> = (1..=25).map(|n| format!("level-{n:02}")).collect();
            json!({"tools": [{
                "name": "pick",
                "description": "Picks one of 25 levels",
                "inputSchema": {"type": "object", "properties": {"level": {"enum": levels}},
                                "required": ["level"]}
            }]})
        }
        (Mode::ClientInfo, _) => json!({"tools": [{
            "name": "client_info",
            "description": "The clientInfo this server received in initialize",
            "inputSchema": {"type": "object", "properties": {}}
        }]}),
        (Mode::Progress, _) => json!({"tools": [crate::progress::slow_count_tool()]}),
        (Mode::Flood, _) => json!({"tools": [
            counted_tool("flood", "count", "Writes `count` notifications and never answers"),
            tool("echo")
        ]}),
        (Mode::Drip, _) => json!({"tools": [
            counted_tool("drip", "ms", "Answers one byte every `ms` milliseconds"),
            tool("echo")
        ]}),
        (Mode::InvalidEntries, None) => {
            json!({"tools": [tool("echo"), null], "nextCursor": "page-2"})
        }
        (Mode::InvalidEntries, Some(_)) => json!({"tools": [
            7,
            {"description": "no name"},
            {
                "name": "greet",
                "description": "Greets by name",
                "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}},
                                "required": null}
            }
        ]}),
        (Mode::HugeTools, _) => json!({"tools": "x".repeat(1 << 20)}),
        (Mode::BadSchema, _) => {
            let mut broken = tool("broken");
            broken["inputSchema"]["properties"]["message"]["type"] = json!("strin");
            json!({"tools": [broken, tool("echo")]})
        }
        (Mode::Sloppy, _) => {
            let mut sloppy = tool("sloppy");
            sloppy["icons"] = json!([{"src": "https://example.com/i.png", "theme": "sepia"}]);
            sloppy["execution"] = json!({"taskSupport": "optional"});
            sloppy["x-vendor"] = json!({"kept": true});
            json!({"tools": [sloppy], "cacheScope": "", "ttlMs": "soon"})
        }
        _ => json!({"tools": [tool("echo"), tool("probe_client")]}),
    }
}

/// Sends the client a `ping`, an unsupported request and a notification, waits for both
/// answers and returns them as the text of the tool result (compact JSON array, in the
/// order ping, unsupported).
fn probe_client(
    lines: &mut impl Iterator<Item = std::io::Result<String>>,
    out: &mut impl Write,
) -> std::io::Result<Value> {
    send(
        out,
        &json!({"jsonrpc": "2.0", "method": "notifications/message",
                      "params": {"level": "info", "data": "probing"}}),
    )?;
    send(
        out,
        &json!({"jsonrpc": "2.0", "id": "s-ping", "method": "ping"}),
    )?;
    send(
        out,
        &json!({"jsonrpc": "2.0", "id": "s-sample", "method": "sampling/createMessage",
                      "params": {"messages": [], "maxTokens": 1}}),
    )?;
    let (mut ping, mut sample) = (None, None);
    while ping.is_none() || sample.is_none() {
        let Some(line) = lines.next() else { break };
        let Ok(msg) = serde_json::from_str::<Value>(&line?) else {
            continue;
        };
        match msg.get("id").and_then(Value::as_str) {
            Some("s-ping") => ping = Some(msg),
            Some("s-sample") => sample = Some(msg),
            _ => {}
        }
    }
    let text = json!([ping, sample]).to_string();
    Ok(json!({"content": [{"type": "text", "text": text}]}))
}
