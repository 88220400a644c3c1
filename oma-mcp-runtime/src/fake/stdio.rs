//! The fake on stdio (MCP 2025-11-25, "stdio"): newline-delimited JSON-RPC messages on any
//! reader and writer, as `oma-mcp replay` and `oma-mcp record` serve them to code that starts
//! its server as a command.

use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncWrite, AsyncWriteExt};

use super::dispatch::{Handled, State};
use crate::connect::framing::{LineRead, read_line};

/// The longest message (one line) the fake reads: 64 MiB, as the HTTP side's body.
const MAX_LINE: usize = 64 * 1024 * 1024;

/// Serves `state` on `input` and `output` until `input` ends. A request gets its answer, a
/// notification or a response nothing; a line that is no JSON (`-32700`), no JSON-RPC
/// message or longer than 64 MiB (`-32600`) gets an error with `id` `null` and is a problem.
/// Blank lines are skipped.
pub(super) async fn serve<R, W>(state: &State, mut input: R, mut output: W) -> std::io::Result<()>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut line = Vec::new();
    loop {
        let answer = match read_line(&mut input, &mut line, MAX_LINE).await? {
            LineRead::Eof => return Ok(()),
            LineRead::TooLong { len } => refused(
                state,
                -32600,
                format!(
                    "Invalid Request: a message of {len} bytes is over the fake's limit of 64 MiB"
                ),
            ),
            LineRead::Line if line.iter().all(u8::is_ascii_whitespace) => None,
            LineRead::Line => match serde_json::from_slice::<Value>(&line) {
                Err(e) => refused(state, -32700, format!("Parse error: {e}")),
                Ok(message) => match state.handle(&message).await {
                    Handled::Answer(answer) => Some(answer),
                    Handled::Accepted => None,
                    Handled::Invalid(error) => {
                        let why = error["error"]["message"].as_str().unwrap_or_default();
                        state.problem(format!("stdio: {why}"));
                        Some(error)
                    }
                },
            },
        };
        if let Some(answer) = answer {
            let mut bytes = answer.to_string().into_bytes();
            bytes.push(b'\n');
            output.write_all(&bytes).await?;
            output.flush().await?;
        }
    }
}

/// The error answer to a line that is no message, kept as a problem.
fn refused(state: &State, code: i64, message: String) -> Option<Value> {
    state.problem(format!("stdio: {message}"));
    Some(json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}}))
}
