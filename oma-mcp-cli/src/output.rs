//! What the program writes: text on stdout (a closed pipe is not an error), and the one
//! error line on stderr with the program prefix and the cause chain.

use std::io::Write;
use std::process::ExitCode;

use serde_json::Value;

use crate::error::CliError;
use crate::terminal;

/// `value` as pretty JSON and a newline.
pub fn pretty(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

/// Writes `text` to stdout. A reader that went away (`oma-mcp diff … | head -1`) is not an
/// error: the rest of the output has nowhere to go, and the command still ends with its own
/// exit code (1 for drift, 2 for a tool error), which scripts rely on.
pub fn print(text: &str) -> Result<(), CliError> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(CliError::Stdout),
    }
}

/// Prints `oma-mcp: <error>: <cause>: …` to stderr, the one program prefix and then the
/// error's whole cause chain (no error repeats its cause in its message), control characters
/// escaped (the message carries what the server sent); returns exit code 2.
pub fn print_error(error: &dyn std::error::Error) -> ExitCode {
    let message = format!("oma-mcp: {}", error_chain(error));
    let _ = writeln!(std::io::stderr(), "{}", terminal::safe(&message));
    ExitCode::from(2)
}

/// `<error>: <cause>: …`, as [`oma_mcp_runtime::error::Chain`] prints it (no error repeats
/// its cause in its message).
pub fn error_chain(error: &dyn std::error::Error) -> String {
    oma_mcp_runtime::error::Chain(error).to_string()
}
