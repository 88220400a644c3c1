//! What the runtime logs: warnings to stderr (a line on the server's stdout that is not
//! JSON-RPC, an over-size message, a failed signal), more with a `tracing` filter in
//! `OMA_MCP_LOG`.

use std::io::{IsTerminal, Write};

use crate::terminal;

/// Runtime warnings to stderr (filter: `OMA_MCP_LOG`, default `warn`), coloured only on a
/// terminal; the subscriber escapes control characters in what a server sent.
pub fn init() {
    let filter = match std::env::var("OMA_MCP_LOG") {
        Err(_) => tracing_subscriber::EnvFilter::new("warn"),
        Ok(text) => tracing_subscriber::EnvFilter::try_new(&text).unwrap_or_else(|e| {
            let _ = writeln!(
                std::io::stderr(),
                "oma-mcp: OMA_MCP_LOG={} is not a tracing filter ({e}); logging warnings only",
                terminal::safe(&format!("{text:?}"))
            );
            tracing_subscriber::EnvFilter::new("warn")
        }),
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .without_time()
        .with_target(false)
        .try_init();
}
