//! What the bench binaries share: the median of timed runs, milliseconds for tables, and the
//! machine's load average printed beside the figures.

use std::time::Duration;

/// The median of `times` (the upper one of the middle two for an even count; zero when
/// empty); sorts `times` in place.
pub fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times.get(times.len() / 2).copied().unwrap_or_default()
}

/// `d` in milliseconds, for printing.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// `/proc/loadavg`'s three load averages (1, 5 and 15 minutes) as one line, or `?` where it
/// cannot be read (not Linux).
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".to_owned())
}

/// What a bench binary run against the project's test server was given: the server binary
/// and how many timed runs each row takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestServerArgs {
    /// `--server PATH`, else `oma-mcp-test-server` beside the running binary.
    pub server: std::path::PathBuf,
    /// `--repeat N` (at least 1), else the binary's default.
    pub repeat: usize,
}

impl TestServerArgs {
    /// Reads `--repeat N` and `--server PATH` from the command line of the bench `name`.
    ///
    /// # Errors
    /// The message to print (a usage line for an unknown or malformed flag, how to build the
    /// server when its binary does not exist); exit with 2 after printing it.
    pub fn from_env(name: &str, default_repeat: usize) -> Result<Self, String> {
        let mut repeat = default_repeat;
        let mut server = None;
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            match (arg.as_str(), args.next()) {
                ("--repeat", Some(n)) if n.parse::<usize>().is_ok_and(|n| n > 0) => {
                    repeat = n.parse().unwrap_or(default_repeat);
                }
                ("--server", Some(path)) => server = Some(std::path::PathBuf::from(path)),
                _ => {
                    return Err(format!(
                        "usage: {name} [--repeat N (at least 1)] [--server PATH]"
                    ));
                }
            }
        }
        let server = server.unwrap_or_else(|| {
            std::env::current_exe()
                .map(|exe| exe.with_file_name("oma-mcp-test-server"))
                .unwrap_or_default()
        });
        if !server.exists() {
            return Err(format!(
                "{name}: the test server {} does not exist; build it with `cargo build \
                 --release -p oma-mcp-test-server --bin oma-mcp-test-server` or pass --server PATH",
                server.display()
            ));
        }
        Ok(Self { server, repeat })
    }
}

/// A multi-threaded Tokio runtime with every driver, or the message to print.
///
/// # Errors
/// `<name>: cannot start the Tokio runtime: <why>`.
pub fn runtime(name: &str) -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("{name}: cannot start the Tokio runtime: {e}"))
}

/// The `main` of a bench binary run against the project's test server: reads its
/// [`TestServerArgs`] (exit 2 with the message on a bad command line or a missing server),
/// then runs `run(server, repeat)` on [`runtime`] (exit 1 with `<name>: <message>` when it
/// fails).
pub fn main_against_test_server<F, Fut>(
    name: &str,
    default_repeat: usize,
    run: F,
) -> std::process::ExitCode
where
    F: FnOnce(std::path::PathBuf, usize) -> Fut,
    Fut: std::future::Future<Output = Result<(), String>>,
{
    let (args, runtime) = match TestServerArgs::from_env(name, default_repeat)
        .and_then(|args| Ok((args, runtime(name)?)))
    {
        Ok(ready) => ready,
        Err(message) => {
            eprintln!("{message}");
            return std::process::ExitCode::from(2);
        }
    };
    match runtime.block_on(run(args.server, args.repeat)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{name}: {message}");
            std::process::ExitCode::FAILURE
        }
    }
}
