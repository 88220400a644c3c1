//! The fake on stdio (MCP 2025-11-25, "stdio"): newline-delimited JSON-RPC messages on any
//! reader and writer, as `oma-mcp replay` and `oma-mcp record` serve them to code that starts
//! its server as a command.

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

use super::dispatch::{Handled, State};
use crate::connect::framing::{LineRead, read_line};

/// The longest message (one line) the fake reads: 64 MiB, as the HTTP side's body.
const MAX_LINE: usize = 64 * 1024 * 1024;

/// Serves `state` on `input` and `output` until `input` ends (then waits for the answers still
/// being made) or `output` fails. Messages are handled concurrently, as a server does: a slow
/// call does not hold up a `ping`. A request gets its answer, a notification or a response
/// nothing; a line that is no JSON (`-32700`), no JSON-RPC message or longer than 64 MiB
/// (`-32600`) gets an error with `id` `null` and is a problem. Blank lines are skipped.
pub(super) async fn serve<R, W>(state: Arc<State>, mut input: R, output: W) -> std::io::Result<()>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (answers, mut to_write) = mpsc::unbounded_channel::<Value>();
    let writer = tokio::spawn(async move {
        let mut output = output;
        while let Some(answer) = to_write.recv().await {
            let mut bytes = answer.to_string().into_bytes();
            bytes.push(b'\n');
            output.write_all(&bytes).await?;
            output.flush().await?;
        }
        Ok::<(), std::io::Error>(())
    });
    let mut handling = tokio::task::JoinSet::new();
    let mut line = Vec::new();
    loop {
        let read = tokio::select! {
            read = read_line(&mut input, &mut line, MAX_LINE) => read?,
            // The writer stopped: its error says why.
            () = answers.closed() => break,
        };
        let message = match read {
            LineRead::Eof => break,
            LineRead::TooLong { len } => {
                let _ = answers.send(refused(
                    &state,
                    -32600,
                    format!(
                        "Invalid Request: a message of {len} bytes is over the fake's limit of \
                         64 MiB"
                    ),
                ));
                continue;
            }
            LineRead::Line if line.iter().all(u8::is_ascii_whitespace) => continue,
            LineRead::Line => match serde_json::from_slice::<Value>(&line) {
                Ok(message) => message,
                Err(e) => {
                    let _ = answers.send(refused(&state, -32700, format!("Parse error: {e}")));
                    continue;
                }
            },
        };
        let state = Arc::clone(&state);
        let answers = answers.clone();
        handling.spawn(async move {
            let answer = match state.handle(&message).await {
                Handled::Answer(answer) => answer,
                Handled::Accepted => return,
                Handled::Invalid(error) => {
                    let why = error["error"]["message"].as_str().unwrap_or_default();
                    state.problem(format!("stdio: {why}"));
                    error
                }
            };
            let _ = answers.send(answer);
        });
        while handling.try_join_next().is_some() {}
    }
    while handling.join_next().await.is_some() {}
    drop(answers);
    match writer.await {
        Ok(written) => written,
        Err(e) => Err(std::io::Error::other(e)),
    }
}

/// The error answer to a line that is no message, kept as a problem.
fn refused(state: &State, code: i64, message: String) -> Value {
    state.problem(format!("stdio: {message}"));
    json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}})
}
