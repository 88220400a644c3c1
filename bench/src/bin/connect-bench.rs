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

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use oma_mcp_bench::{load_average, median, ms};
use oma_mcp_runtime::{ConnectConfig, Lifecycle, connect_mcp_tools};

/// (test server mode, the lifecycle a user would pin for it).
const ROWS: [(&str, Lifecycle); 4] = [
    ("normal", Lifecycle::Discover),
    ("legacy-2025-06-18", Lifecycle::Initialize),
    ("ignore-discover", Lifecycle::Initialize),
    ("exit-on-discover", Lifecycle::Initialize),
];

fn main() -> ExitCode {
    let mut repeat = 7usize;
    let mut server: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--repeat", Some(n)) if n.parse::<usize>().is_ok_and(|n| n > 0) => {
                repeat = n.parse().unwrap_or(7);
            }
            ("--server", Some(path)) => server = Some(PathBuf::from(path)),
            _ => {
                eprintln!("usage: connect-bench [--repeat N (at least 1)] [--server PATH]");
                return ExitCode::from(2);
            }
        }
    }
    let server = server.unwrap_or_else(|| {
        std::env::current_exe()
            .map(|exe| exe.with_file_name("oma-mcp-test-server"))
            .unwrap_or_default()
    });
    if !server.exists() {
        eprintln!(
            "connect-bench: the test server {} does not exist; build it with `cargo build \
             --release -p oma-mcp-test-server --bin oma-mcp-test-server` or pass --server PATH",
            server.display()
        );
        return ExitCode::from(2);
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("connect-bench: cannot start the Tokio runtime: {e}");
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
