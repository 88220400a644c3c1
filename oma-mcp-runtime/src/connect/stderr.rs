//! A stdio server's stderr: drained line by line into `tracing` ([`Stderr`], target
//! `oma_mcp::server_stderr`) so a chatty server never blocks, and the lines errors quote: a
//! bounded selection of the first lines, the lines that look like errors and the last lines.
//!
//! A server that fails to start often prints its error first and its usage text after it, so
//! the last lines alone would hide the cause; a server that fails later prints the cause last.
//! [`StderrLines`] keeps both ends and the error-looking lines between them, each line cut to
//! [`LINE_CHARS`], so an error message stays bounded whatever the server writes.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::BufReader;
use tokio::process::ChildStderr;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::framing::{self, LineRead};
use super::message::lock;
use crate::quote::cut;

/// The longest stderr line logged whole; longer ones are logged as their length only.
const STDERR_MAX_LINE: usize = 64 * 1024;

/// How many of the first lines are kept.
pub(crate) const HEAD_LINES: usize = 5;
/// How many of the last lines are kept.
pub(crate) const TAIL_LINES: usize = 10;
/// How many lines between the first and the last ones are kept because they look like errors
/// (the first such lines).
pub(crate) const ERROR_LINES: usize = 5;
/// The longest line kept (longer ones are cut, in chars, with `…`).
pub(crate) const LINE_CHARS: usize = 300;

/// Words (lower case) that make a line look like an error.
const ERROR_WORDS: [&str; 9] = [
    "error",
    "fatal",
    "panic",
    "fail",
    "exception",
    "cannot",
    "can't",
    "unable",
    "denied",
];

/// Whether `line` looks like an error message (one of [`ERROR_WORDS`], any case).
pub(crate) fn looks_like_error(line: &str) -> bool {
    let lower = line.to_lowercase();
    ERROR_WORDS.iter().any(|word| lower.contains(word))
}

/// The kept stderr lines, each with its number (0-based) in the whole stream.
#[derive(Debug, Default)]
pub(crate) struct StderrLines {
    head: Vec<String>,
    errors: Vec<(usize, String)>,
    tail: VecDeque<(usize, String)>,
    total: usize,
}

impl StderrLines {
    /// Adds the next line (without its newline).
    pub(crate) fn push(&mut self, line: &str) {
        let line = cut(line, LINE_CHARS);
        let number = self.total;
        self.total += 1;
        if self.head.len() < HEAD_LINES {
            self.head.push(line);
            return;
        }
        self.tail.push_back((number, line));
        if self.tail.len() > TAIL_LINES
            && let Some((number, line)) = self.tail.pop_front()
            && self.errors.len() < ERROR_LINES
            && looks_like_error(&line)
        {
            self.errors.push((number, line));
        }
    }

    /// The selection for an error message: `"; server stderr: a | b"` when every line is
    /// kept; else `"; server stderr (K of N lines: the first 5, those that look like errors,
    /// the last 10): a | … | e | … | z"`, `…` standing for left-out lines. Empty when the
    /// server wrote nothing.
    pub(crate) fn render(&self) -> String {
        if self.total == 0 {
            return String::new();
        }
        let numbered = self
            .head
            .iter()
            .enumerate()
            .map(|(number, line)| (number, line.as_str()))
            .chain(self.errors.iter().map(|(n, line)| (*n, line.as_str())))
            .chain(self.tail.iter().map(|(n, line)| (*n, line.as_str())));
        let mut parts = Vec::new();
        let mut next = 0;
        let mut kept = 0;
        for (number, line) in numbered {
            if number > next {
                parts.push("…");
            }
            parts.push(line);
            next = number + 1;
            kept += 1;
        }
        if kept == self.total {
            format!("; server stderr: {}", parts.join(" | "))
        } else {
            format!(
                "; server stderr ({kept} of {} lines: the first {HEAD_LINES}, those that look \
                 like errors, the last {TAIL_LINES}): {}",
                self.total,
                parts.join(" | ")
            )
        }
    }
}

/// A task draining a server's stderr: every line is logged at `INFO` (target
/// `oma_mcp::server_stderr`) and kept for errors ([`StderrLines`]).
pub(super) struct Stderr {
    lines: Arc<Mutex<StderrLines>>,
    /// Cancelled when the task ends (EOF, a read error, or aborted).
    done: CancellationToken,
    task: Mutex<Option<JoinHandle<()>>>,
}

impl Stderr {
    /// Starts draining `stderr` of the server `server` (as messages name it).
    pub(super) fn drain(stderr: ChildStderr, server: String) -> Self {
        let lines = Arc::new(Mutex::new(StderrLines::default()));
        let done = CancellationToken::new();
        let task = tokio::spawn(drain(stderr, server, Arc::clone(&lines), done.clone()));
        Self {
            lines,
            done,
            task: Mutex::new(Some(task)),
        }
    }

    /// The lines that matter, rendered (see [`StderrLines::render`]).
    pub(super) fn render(&self) -> String {
        lock(&self.lines).render()
    }

    /// Waits up to `bound` for stderr to reach its end (after the server exited).
    pub(super) async fn drained(&self, bound: Duration) {
        let _ = tokio::time::timeout(bound, self.done.cancelled()).await;
    }

    /// Gives the task up to `bound` to drain what the (now dead) server wrote, then stops it.
    pub(super) async fn finish(&self, bound: Duration) {
        let task = lock(&self.task).take();
        if let Some(mut task) = task
            && tokio::time::timeout(bound, &mut task).await.is_err()
        {
            task.abort();
        }
    }

    /// Stops the task now.
    pub(super) fn abort(&self) {
        if let Some(task) = lock(&self.task).take() {
            task.abort();
        }
    }
}

/// The task of [`Stderr::drain`].
async fn drain(
    stderr: ChildStderr,
    server: String,
    lines: Arc<Mutex<StderrLines>>,
    done: CancellationToken,
) {
    let _done = done.drop_guard();
    let mut reader = BufReader::new(stderr);
    let mut buf = Vec::new();
    loop {
        match framing::read_line(&mut reader, &mut buf, STDERR_MAX_LINE).await {
            Ok(LineRead::Eof) | Err(_) => break,
            Ok(LineRead::TooLong { len }) => {
                tracing::info!(target: "oma_mcp::server_stderr", %server, "<{len}-byte line>");
            }
            Ok(LineRead::Line) => {
                let text = String::from_utf8_lossy(&buf);
                tracing::info!(target: "oma_mcp::server_stderr", %server, "{text}");
                lock(&lines).push(&text);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[&str]) -> StderrLines {
        let mut kept = StderrLines::default();
        for line in input {
            kept.push(line);
        }
        kept
    }

    #[test]
    fn few_lines_are_quoted_whole() {
        assert_eq!(lines(&[]).render(), "");
        assert_eq!(lines(&["a", "b"]).render(), "; server stderr: a | b");
        let fifteen: Vec<String> = (1..=15).map(|n| format!("l{n}")).collect();
        let fifteen: Vec<&str> = fifteen.iter().map(String::as_str).collect();
        assert_eq!(
            lines(&fifteen).render(),
            "; server stderr: l1 | l2 | l3 | l4 | l5 | l6 | l7 | l8 | l9 | l10 | l11 | l12 | \
             l13 | l14 | l15"
        );
    }

    /// A Go server's start failure: the cause first, then the usage text.
    #[test]
    fn the_first_lines_error_lines_and_last_lines_are_kept() {
        let mut input = vec![
            "Error: unknown flag: --bogus".to_owned(),
            "Usage:".to_owned(),
        ];
        input.extend((1..=10).map(|n| format!("  --flag-{n} string   the flag {n}")));
        input.push("panic: runtime error in the middle".to_owned());
        input.extend((11..=25).map(|n| format!("  --flag-{n} string   the flag {n}")));
        let input: Vec<&str> = input.iter().map(String::as_str).collect();
        assert_eq!(
            lines(&input).render(),
            "; server stderr (16 of 28 lines: the first 5, those that look like errors, the \
             last 10): Error: unknown flag: --bogus | Usage: |   --flag-1 string   the flag 1 \
             |   --flag-2 string   the flag 2 |   --flag-3 string   the flag 3 | … | panic: \
             runtime error in the middle | … |   --flag-16 string   the flag 16 |   --flag-17 \
             string   the flag 17 |   --flag-18 string   the flag 18 |   --flag-19 string   \
             the flag 19 |   --flag-20 string   the flag 20 |   --flag-21 string   the flag 21 \
             |   --flag-22 string   the flag 22 |   --flag-23 string   the flag 23 |   \
             --flag-24 string   the flag 24 |   --flag-25 string   the flag 25"
        );
    }

    #[test]
    fn the_selection_is_bounded() {
        let mut kept = StderrLines::default();
        let long = "E".repeat(1000);
        for _ in 0..10_000 {
            kept.push(&format!("error {long}"));
        }
        let rendered = kept.render();
        assert!(rendered.starts_with("; server stderr (20 of 10000 lines: "));
        assert_eq!(rendered.matches("error EEE").count(), 20);
        assert_eq!(rendered.matches('…').count(), 20 + 1);
        assert!(rendered.chars().count() < 20 * (LINE_CHARS + 4) + 200);
    }

    #[test]
    fn error_words_and_cutting() {
        assert!(looks_like_error("FATAL: no config"));
        assert!(looks_like_error("Failed to bind port"));
        assert!(looks_like_error("can't open /x"));
        assert!(!looks_like_error("  --metrics-port int   the port"));
        assert_eq!(cut("héllo", 2), "hé…");
        assert_eq!(cut("hé", 2), "hé");
    }
}
