//! oma-mcp's own MCP test server and helpers for the workspace integration tests.
//!
//! The server ([`serve_stdio`], binary `oma-mcp-test-server`) is built with rmcp's server
//! side and offers small deterministic tools:
//!
//! | tool | result |
//! |---|---|
//! | `echo {message}` | text `Echo: <message>` |
//! | `add {a, b}` (i64) | text sum |
//! | `tiny_image` | image block ([`TINY_PNG_BASE64`], `image/png`) then text `A 1x1 PNG.` |
//! | `resource_links` | `resource_link` to `https://example.com/docs/readme.md` (with description), `resource_link` to `file:///tmp/oma-mcp/notes.txt` |
//! | `embedded_resource` | text resource `memo://greeting`, blob resource `memo://data.bin` ([`BLOB_BASE64`]) |
//! | `audio` | audio block ([`AUDIO_WAV_BASE64`], `audio/wav`) |
//! | `fail` | `isError: true`, text `This tool always fails` |
//! | `sleep {ms}` | sleeps, then text `Slept <ms> ms` |
//! | `describe_pet {pet: {name, kind: cat\|dog}, tags?}` | text `<name> is a <kind>[, tagged: a, b]` |
//! | `structured {city}` | `structuredContent` `{city, temperature_c: 21, conditions: "sunny"}` with an `outputSchema` |
//! | `get_env {name}` | the server's value of the variable, or `<unset>` |
//! | `exit {code?}` | exits the process without answering |
//! | `big {bytes}` | text of `bytes` times `x` |
//!
//! The environment variable [`MODE_VAR`] (`OMA_TEST_SERVER_MODE`) selects a misbehaving
//! mode, see [`Mode`].
//!
//! **Over streamable HTTP** ([`serve_http`], `oma-mcp-test-server --http 127.0.0.1:0`): the
//! same tools through rmcp's server side at `/mcp`, stateful (sessions) or `--stateless`,
//! with sessions that can be made to expire; see [`http`] and [`http::USAGE`]. It prints one
//! line, `listening on http://127.0.0.1:PORT/mcp`, then serves until killed or its stdin
//! closes.
//!
//! **HTTP failures** ([`faults`], binary `oma-mcp-http-faults --mode MODE`): a small MCP
//! server on hyper that fails at the step its mode says (HTML error pages, 401/403, streams
//! that close, stall, carry invalid JSON or unknown ids, huge bodies, expiring sessions,
//! redirects, resumable streams, no GET stream) and records every request it receives, served
//! as JSON at `GET /_log`.

pub mod faults;
pub mod http;
mod listen;
mod progress;
mod raw;
mod rug_pull;
mod server;
mod surface;
mod tasks;
mod tasks_2025;

pub use http::{HttpOptions, serve_http};
pub use listen::{LOOPBACK_ANY_PORT, MCP_PATH};
pub use rug_pull::{LISTED_TOOL, REWRITE_TOOL, RugPullServer};
pub use server::TestServer;
pub use tasks::{TASK_POLL_INTERVAL_MS, TasksServer};

/// The environment variable selecting the server's [`Mode`].
pub const MODE_VAR: &str = "OMA_TEST_SERVER_MODE";
/// The `serverInfo.name` of the normal mode.
pub const SERVER_NAME: &str = "oma-mcp-test-server";
/// A 1x1 RGBA PNG, base64 (96 characters).
pub const TINY_PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP438DwHwAGgAJ/EEwb4QAAAABJRU5ErkJggg==";
/// The blob of `embedded_resource` (bytes 0..=4), base64 (8 characters).
pub const BLOB_BASE64: &str = "AAECAwQ=";
/// The data of `audio` (a WAV header start), base64 (16 characters).
pub const AUDIO_WAV_BASE64: &str = "UklGRiQAAABXQVZF";
/// How many bytes `stderr-flood` writes to stderr before serving (4 MiB, far over a pipe's
/// buffer, so a client that does not drain stderr hangs).
pub const STDERR_FLOOD_BYTES: usize = 4 * 1024 * 1024;

/// Behaviour switches for bad-input tests, from [`MODE_VAR`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Mode {
    /// Unset or `normal`: the rmcp server with every tool.
    Normal,
    /// `stderr-flood`: writes [`STDERR_FLOOD_BYTES`] to stderr, then serves normally (over
    /// HTTP too, before the `listening on` line).
    StderrFlood,
    /// `exit-on-initialize` (raw): writes a line to stderr and exits with code 3 on
    /// `initialize`.
    ExitOnInitialize,
    /// `error-on-initialize` (raw): answers `initialize` with JSON-RPC error -32603.
    ErrorOnInitialize,
    /// `bad-protocol-version` (raw): answers `initialize` with protocol version `1999-01-01`.
    BadProtocolVersion,
    /// `never-answer` (raw): reads everything, answers nothing, exits at EOF.
    NeverAnswer,
    /// `repeat-cursor` (raw): every `tools/list` page has `nextCursor: "again"`.
    RepeatCursor,
    /// `two-pages` (raw): `alpha` on page 1 (cursor `page-2`); `beta/nested` with extra
    /// `execution` and `x-vendor` fields on page 2 (cursor `""`, which ends paging).
    TwoPages,
    /// `stdout-noise` (raw): writes non-JSON lines (and an empty one) before every answer.
    StdoutNoise,
    /// `colliding-names` (raw): tools `a/b` and `a_b`.
    CollidingNames,
    /// `stubborn` (raw): ignores stdin EOF and SIGTERM; only SIGKILL stops it. At start it
    /// starts a grandchild of the client that is as stubborn: the same binary in this mode
    /// with [`STUBBORN_GRANDCHILD_VAR`] set (so it starts none itself), stdin from
    /// `/dev/null`, stdout and stderr inherited (it holds the client's pipes open, as a
    /// worker of `sh -c 'worker & exec server'` does), in the server's process group; it
    /// writes its pid to stderr as [`STUBBORN_GRANDCHILD_LINE`]`<pid>`, then sleeps. Each
    /// ignores SIGTERM once its handler is set, a moment after it starts (the server before
    /// it answers `initialize`, the grandchild on its own time).
    Stubborn,
    /// `legacy-2025-06-18` (raw): a server on protocol 2025-06-18 only: answers
    /// `server/discover` with -32601 Method not found (as every raw mode) and `initialize`
    /// with `protocolVersion` `2025-06-18` whatever the client offered.
    Legacy20250618,
    /// `hostile-names` (raw): a tool whose name holds terminal escape sequences
    /// ([`HOSTILE_TOOL_NAME`], description [`HOSTILE_DESCRIPTION`]) besides `echo`.
    HostileNames,
    /// `endless-cursor` (raw): every `tools/list` page is empty and has a new `nextCursor`
    /// (`page-1`, `page-2`, …), forever.
    EndlessCursor,
    /// `huge-tools` (raw): `tools/list` answers `{"tools": "xxx…"}`, a 1 MiB string.
    HugeTools,
    /// `sloppy` (raw): what rmcp 3.11's typed parsing rejects or drops: a tool with an icon
    /// `theme` of `sepia`, `execution` and a vendor key, a page with `cacheScope: ""`; a call
    /// result with unknown annotation values, an unknown block type, a `resource_link`
    /// without `name`, null and non-object blocks, `cacheScope: ""` and an extra key.
    Sloppy,
    /// `bad-schema` (raw): `tools/list` has `broken`, whose input schema does not compile
    /// (`"type": "strin"`), and `echo`.
    BadSchema,
    /// `huge-line` (raw): messages of over [`HUGE_LINE_BYTES`] on one line. Tools:
    /// `deferred {message}` is answered (`Echo: <message>`) only right after the next huge
    /// line; `huge_id_first` answers with a huge text result whose line starts
    /// `{"jsonrpc":"2.0","id":<id>,"result":…`; `huge_id_last` the same with the `id` last
    /// (the TypeScript SDK's order, `{"result":…,"jsonrpc":"2.0","id":<id>}`);
    /// `huge_notification` first sends a huge `notifications/message`, then answers
    /// `Echo: ` normally.
    HugeLine,
    /// `stall-second-page` (raw): the first `tools/list` page has `echo` and the cursor
    /// `page-2`; the request for page 2 is never answered (later requests are).
    StallSecondPage,
    /// `client-info` (raw): one tool, `client_info` (no arguments), whose text is the
    /// `clientInfo` the client sent in `initialize`, as compact JSON (`null` when none).
    ClientInfo,
    /// `wide-enum` (raw): one tool, `pick {level}`, whose `level` is an `enum` of 25 strings
    /// (`level-01` … `level-25`); a call answers `Picked <level>`.
    WideEnum,
    /// `exit-on-discover` (raw): a server that accepts only `initialize` as its first message:
    /// when the first message is anything else it writes [`EXIT_ON_DISCOVER_STDERR`] to
    /// stderr and exits with code 1; after `initialize` it serves as the other raw modes.
    ExitOnDiscover,
    /// `modern` (raw): a 2026-07-28 server: answers `server/discover` with
    /// `supportedVersions: ["2026-07-28"]` and `serverInfo` in `_meta`, and refuses
    /// `initialize` with -32022 (`data.supported: ["2026-07-28"]`). With
    /// [`START_DELAY_VAR`], a server that starts slowly.
    Modern,
    /// `dual` (raw): answers both `server/discover` (2026-07-28) and `initialize` (the
    /// offered version), as a server supporting every revision does.
    Dual,
    /// `ignore-discover` (raw): never answers `server/discover` (reads it and goes on);
    /// answers `initialize` with the offered version.
    IgnoreDiscover,
    /// `bom` (raw): writes a byte-order mark (U+FEFF) before every message.
    Bom,
    /// `crash-on-call` (raw): on `tools/call`, writes [`CRASH_STDERR`] to stderr and exits
    /// with code 5 without answering.
    CrashOnCall,
    /// `usage-on-start` (raw): writes [`USAGE_ERROR_LINE`], then `Usage:` and 20 lines of
    /// flags (`  --flag-<n> string   the flag <n>`) to stderr and exits with code 2, before
    /// reading anything (a Go server started with a wrong flag).
    UsageOnStart,
    /// `noisy-shutdown` (raw): at stdin EOF writes [`SHUTDOWN_STDOUT`] on stdout (as some npm
    /// wrappers do when they are stopped), then exits.
    NoisyShutdown,
    /// `flood` (raw): tools `flood {count}` and `echo`. A `flood` call writes `count`
    /// notifications (default [`FLOOD_DEFAULT_COUNT`]) as fast as the pipe takes them and
    /// never answers: `notifications/progress` for the call's `_meta.progressToken` when it
    /// has one (`progress` 1 … `count`), else `notifications/message` (`level` `info`,
    /// `data` `flood <n>`). Later requests are answered as usual, after the flood.
    Flood,
    /// `drip` (raw): tools `drip {ms}` and `echo`. A `drip` call's answer (text
    /// [`DRIP_TEXT`]) is written one byte every `ms` milliseconds (default 1000), the
    /// newline last; the server reads nothing meanwhile.
    Drip,
    /// `progress` (raw): one tool, `slow_count {steps, ms}`: for each step it sleeps `ms`
    /// milliseconds and, when the call's `_meta.progressToken` is set, sends
    /// `notifications/progress` (`progress` = the step, `total` = `steps`, `message`
    /// `step <n> of <steps>`); then answers `Counted to <steps>`. Over HTTP the same tool
    /// through rmcp (`serverInfo.name` [`SERVER_NAME`]; the progress values are sent as JSON
    /// floats, `1.0`), its notifications on the request's SSE stream; a cancelled call stops.
    Progress,
    /// `rug-pull`: the normal mode's tools (rmcp) and [`REWRITE_TOOL`]
    /// `rewrite_description {tool, description, notifications?}`, which changes the
    /// description `tools/list` gives `tool` for the rest of the session, then sends
    /// `notifications/tools/list_changed` `notifications` times (default 1) before it answers
    /// `Rewrote the description of <tool>`; and [`LISTED_TOOL`] `tools_listed`, whose text is
    /// how many `tools/list` requests the server answered in this session (a stdio process, an
    /// HTTP session). Its capabilities say `tools.listChanged: true`.
    /// Over HTTP too (in a session, the notifications go on the server's `GET` stream).
    RugPull,
    /// `invalid-entries` (raw): `tools/list` in two pages whose entries are not all tool
    /// objects: page 1 `echo`, then `null` (cursor `page-2`); page 2 `7`,
    /// `{"description": "no name"}` and `greet {name?}`, whose `inputSchema` has
    /// `"required": null` (as a Go server writes an empty list). A `greet` call answers
    /// `Hello, <name>!` (`Hello, stranger!` without a `name`), `echo` as in the other raw
    /// modes.
    InvalidEntries,
    /// `tasks`: tools answered with tasks of the MCP 2026-07-28 tasks extension, run by rmcp's
    /// task manager, over stdio and HTTP; see [`TasksServer`] for the tools.
    Tasks,
    /// `tasks-2025` (raw): MCP 2025-11-25's experimental tasks, line by line, with
    /// `capabilities.tasks`: `research {steps?}` (`required`, 100 ms steps, then `Researched
    /// in <steps> steps`), `clarify` (`required`, asks `elicitation/create` for `topic`
    /// during `tasks/result`), `fail_job` (`required`, fails with -32603), `forever`
    /// (`optional`, until `tasks/cancel`) and `cancelled_tasks`.
    Tasks2025,
}

/// Set (to anything) in the grandchild the `stubborn` mode starts: it starts none itself.
pub const STUBBORN_GRANDCHILD_VAR: &str = "OMA_TEST_SERVER_STUBBORN_GRANDCHILD";
/// What the `stubborn` mode writes to stderr before the pid of the grandchild it started.
pub const STUBBORN_GRANDCHILD_LINE: &str = "stubborn: started grandchild ";
/// How many notifications a `flood` call writes when it names no `count`.
pub const FLOOD_DEFAULT_COUNT: u64 = 1_000_000;
/// The text of the `drip` tool's answer.
pub const DRIP_TEXT: &str = "dripped";

/// The environment variable that delays a raw mode's start: milliseconds before it reads its
/// first message (a server on a cold `npx`/`uvx` launch).
pub const START_DELAY_VAR: &str = "OMA_TEST_SERVER_START_DELAY_MS";
/// The environment variable naming a file to which every raw mode appends the line
/// `started` when it starts, before anything else: how a test counts the starts of a server.
pub const START_LOG_VAR: &str = "OMA_TEST_SERVER_START_LOG";
/// What `exit-on-discover` writes to stderr before exiting.
pub const EXIT_ON_DISCOVER_STDERR: &str = "error: expected `initialize` as the first message";
/// What `crash-on-call` writes to stderr before exiting.
pub const CRASH_STDERR: &str = "error: the database is gone";
/// The first stderr line of `usage-on-start`.
pub const USAGE_ERROR_LINE: &str = "Error: unknown flag: --bogus";
/// What `noisy-shutdown` writes on stdout at stdin EOF (two lines).
pub const SHUTDOWN_STDOUT: &str = "Shutting down the server...\nGoodbye.";

/// The size of the large text in the `huge-line` mode's messages: 256 KiB.
pub const HUGE_LINE_BYTES: usize = 256 * 1024;

/// The tool name of the `hostile-names` mode: clears the screen and turns text red in a
/// terminal that interprets it.
pub const HOSTILE_TOOL_NAME: &str = "a\u{1b}[2J\u{1b}[31mb\u{7}";
/// The description of [`HOSTILE_TOOL_NAME`]: retitles a terminal window (OSC 0), then a
/// right-to-left override.
pub const HOSTILE_DESCRIPTION: &str = "evil\u{1b}]0;pwned\u{7} text\u{202e}reversed";

impl Mode {
    /// Reads [`MODE_VAR`].
    ///
    /// # Errors
    /// The unknown mode name.
    pub fn from_env() -> Result<Self, String> {
        match std::env::var(MODE_VAR).as_deref() {
            Err(_) | Ok("") | Ok("normal") => Ok(Self::Normal),
            Ok("stderr-flood") => Ok(Self::StderrFlood),
            Ok("exit-on-initialize") => Ok(Self::ExitOnInitialize),
            Ok("error-on-initialize") => Ok(Self::ErrorOnInitialize),
            Ok("bad-protocol-version") => Ok(Self::BadProtocolVersion),
            Ok("never-answer") => Ok(Self::NeverAnswer),
            Ok("repeat-cursor") => Ok(Self::RepeatCursor),
            Ok("two-pages") => Ok(Self::TwoPages),
            Ok("stdout-noise") => Ok(Self::StdoutNoise),
            Ok("colliding-names") => Ok(Self::CollidingNames),
            Ok("stubborn") => Ok(Self::Stubborn),
            Ok("legacy-2025-06-18") => Ok(Self::Legacy20250618),
            Ok("hostile-names") => Ok(Self::HostileNames),
            Ok("endless-cursor") => Ok(Self::EndlessCursor),
            Ok("huge-tools") => Ok(Self::HugeTools),
            Ok("sloppy") => Ok(Self::Sloppy),
            Ok("bad-schema") => Ok(Self::BadSchema),
            Ok("huge-line") => Ok(Self::HugeLine),
            Ok("stall-second-page") => Ok(Self::StallSecondPage),
            Ok("client-info") => Ok(Self::ClientInfo),
            Ok("wide-enum") => Ok(Self::WideEnum),
            Ok("exit-on-discover") => Ok(Self::ExitOnDiscover),
            Ok("modern") => Ok(Self::Modern),
            Ok("dual") => Ok(Self::Dual),
            Ok("ignore-discover") => Ok(Self::IgnoreDiscover),
            Ok("bom") => Ok(Self::Bom),
            Ok("crash-on-call") => Ok(Self::CrashOnCall),
            Ok("usage-on-start") => Ok(Self::UsageOnStart),
            Ok("noisy-shutdown") => Ok(Self::NoisyShutdown),
            Ok("progress") => Ok(Self::Progress),
            Ok("flood") => Ok(Self::Flood),
            Ok("drip") => Ok(Self::Drip),
            Ok("invalid-entries") => Ok(Self::InvalidEntries),
            Ok("rug-pull") => Ok(Self::RugPull),
            Ok("tasks") => Ok(Self::Tasks),
            Ok("tasks-2025") => Ok(Self::Tasks2025),
            Ok(other) => Err(format!("unknown {MODE_VAR} value: {other}")),
        }
    }
}

/// Writes [`STDERR_FLOOD_BYTES`] to stderr (the `stderr-flood` mode).
fn flood_stderr() -> std::io::Result<()> {
    use std::io::Write;
    let line = format!("{}\n", "flood ".repeat(170));
    let mut stderr = std::io::stderr().lock();
    for _ in 0..STDERR_FLOOD_BYTES / line.len() {
        stderr.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// Runs the test server on stdin/stdout until stdin closes, in the mode [`MODE_VAR`] selects.
///
/// # Errors
/// An unknown mode, or an I/O or protocol error of the server.
pub async fn serve_stdio() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    use rmcp::ServiceExt;

    let mode = Mode::from_env()?;
    match mode {
        Mode::Normal | Mode::StderrFlood => {
            if mode == Mode::StderrFlood {
                flood_stderr()?;
            }
            let service = TestServer::new().serve(rmcp::transport::stdio()).await?;
            service.waiting().await?;
            Ok(())
        }
        Mode::RugPull => {
            let service = RugPullServer::new().serve(rmcp::transport::stdio()).await?;
            service.waiting().await?;
            Ok(())
        }
        Mode::Tasks => {
            let service = TasksServer::new().serve(rmcp::transport::stdio()).await?;
            service.waiting().await?;
            Ok(())
        }
        _ => {
            // Registering a SIGTERM listener replaces the default action (terminate).
            #[cfg(unix)]
            let _term = if mode == Mode::Stubborn {
                Some(tokio::signal::unix::signal(
                    tokio::signal::unix::SignalKind::terminate(),
                )?)
            } else {
                None
            };
            tokio::task::spawn_blocking(move || raw::run(mode)).await??;
            Ok(())
        }
    }
}
