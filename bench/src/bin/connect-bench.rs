//! Connect benchmark: what each MCP lifecycle costs at connect, per kind of server, with the
//! project's test server (`oma-mcp-test-server`, one `OMA_TEST_SERVER_MODE` per row). The
//! figure is the wall time of `connect_mcp_tools` (spawn, lifecycle, `tools/list`) plus
//! `disconnect_within(0)`, the median of `--repeat` runs after one warm-up run.
//!
//! ```sh
//! cargo build --release -p oma-mcp-test-server --bin oma-mcp-test-server
//! cargo run --release -p oma-mcp-bench --bin connect-bench -- [--repeat 7] [--server PATH]
//! ```
//!
//! The server is `--server PATH`, else `oma-mcp-test-server` beside this binary. Rows: a
//! server that answers `server/discover` (`normal`, rmcp), one that answers it with -32601
//! (`legacy-2025-06-18`), one that ignores it (`ignore-discover`: the 2 s probe bound of
//! `Lifecycle::Auto`), and one that exits on it (`exit-on-discover`: `Auto` starts it again);
//! each with `Auto` and with the lifecycle a user would pin.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use oma_mcp_bench::{TestServerArgs, load_average, median, ms, runtime};
use oma_mcp_runtime::{ConnectConfig, Lifecycle, connect_mcp_tools};

/// (test server mode, the lifecycle a user would pin for it).
const ROWS: [(&str, Lifecycle); 4] = [
    ("normal", Lifecycle::Discover),
    ("legacy-2025-06-18", Lifecycle::Initialize),
    ("ignore-discover", Lifecycle::Initialize),
    ("exit-on-discover", Lifecycle::Initialize),
];

fn main() -> ExitCode {
    let (TestServerArgs { server, repeat }, runtime) =
        match TestServerArgs::from_env("connect-bench", 7)
            .and_then(|args| Ok((args, runtime("connect-bench")?)))
        {
            Ok(ready) => ready,
            Err(message) => {
                eprintln!("{message}");
                return ExitCode::from(2);
            }
        };
    println!("load average before: {}", load_average());
    println!(
        "{:<20} {:<11} {:>10} {:>10}",
        "server mode", "lifecycle", "median ms", "max ms"
    );
    for (mode, pinned) in ROWS {
        for lifecycle in [Lifecycle::Auto, pinned] {
            let config = ConnectConfig::new(server.to_string_lossy())
                .with_env("OMA_TEST_SERVER_MODE", mode)
                .with_lifecycle(lifecycle);
            let mut times = Vec::with_capacity(repeat);
            for run in 0..=repeat {
                let started = Instant::now();
                match runtime.block_on(connect_once(config.clone())) {
                    Ok(()) if run > 0 => times.push(started.elapsed()),
                    Ok(()) => {}
                    Err(e) => {
                        eprintln!("connect-bench: {mode} with {lifecycle:?}: {e}");
                        return ExitCode::FAILURE;
                    }
                }
            }
            let max = times.iter().max().copied().unwrap_or_default();
            println!(
                "{mode:<20} {:<11} {:>10.1} {:>10.1}",
                format!("{lifecycle:?}"),
                ms(median(&mut times)),
                ms(max)
            );
        }
    }
    println!("load average after: {}", load_average());
    ExitCode::SUCCESS
}

/// Connects, lists (as `connect_mcp_tools` does) and stops the server at once.
async fn connect_once(config: ConnectConfig) -> Result<(), oma_mcp_runtime::Error> {
    let client = connect_mcp_tools(config).await?;
    client.disconnect_within(Duration::ZERO).await;
    Ok(())
}
