//! A spinner on stderr while a slow server starts (an `npx` server can take seconds): only
//! when stderr is a terminal, nothing otherwise.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use oma_mcp_runtime::CancellationToken;

/// A running spinner; [`Progress::finish`] clears its line.
pub struct Progress {
    stop: CancellationToken,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Progress {
    /// Starts `⠋ <label> (1.2s)` on stderr when it is a terminal.
    pub fn start(label: String) -> Self {
        let stop = CancellationToken::new();
        if !std::io::stderr().is_terminal() {
            return Self { stop, task: None };
        }
        let token = stop.clone();
        let label = crate::terminal::safe(&label);
        let task = tokio::spawn(async move {
            const FRAMES: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
            let started = Instant::now();
            for frame in FRAMES.iter().cycle() {
                let line = format!(
                    "\r{frame} {label} ({:.1}s)",
                    started.elapsed().as_secs_f32()
                );
                let _ = std::io::stderr().write_all(line.as_bytes());
                tokio::select! {
                    () = token.cancelled() => break,
                    () = tokio::time::sleep(Duration::from_millis(100)) => {}
                }
            }
            // Clear the spinner line.
            let _ = std::io::stderr().write_all(b"\r\x1b[2K");
        });
        Self {
            stop,
            task: Some(task),
        }
    }

    /// Stops the spinner and clears its line.
    pub async fn finish(mut self) {
        self.stop.cancel();
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}
