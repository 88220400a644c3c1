//! A spinner on stderr while a slow server starts (an `npx` server can take seconds), and the
//! progress bar of `oma-mcp call` fed by the server's `notifications/progress`: only when
//! stderr is a terminal, nothing otherwise.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use oma_mcp_runtime::CancellationToken;

use crate::terminal;

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
        let label = terminal::safe(&label);
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

/// The progress bar of a tool call (`indicatif`, on stderr): a bar with the percentage when
/// the server sends a `total`, a spinner with the progress count otherwise; the server's
/// `message` beside it.
pub struct CallProgress {
    bar: indicatif::ProgressBar,
    tool: String,
}

/// The bar's length: a fraction of the total in thousandths (the server's units may be
/// fractional).
const BAR_SCALE: u64 = 1000;

impl CallProgress {
    /// A hidden bar for `tool` when stderr is a terminal; `None` when it is not (piped,
    /// redirected to a file): then nothing is drawn.
    pub fn on_terminal(tool: &str) -> Option<Self> {
        if !std::io::stderr().is_terminal() {
            return None;
        }
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(BAR_SCALE),
            indicatif::ProgressDrawTarget::stderr(),
        );
        // Shown from the first notification on: a call without progress draws nothing.
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
        Some(Self {
            bar,
            tool: terminal::safe(tool),
        })
    }

    /// Shows one `notifications/progress`, or a new status of the call's task: `task <id>
    /// <status>: <status message>` beside the tool's name.
    pub fn update(&self, progress: &oma_mcp_runtime::Progress) {
        if self.bar.is_hidden() {
            self.bar
                .set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
        let message = progress
            .message
            .as_deref()
            .map(terminal::safe)
            .unwrap_or_default();
        let message = match &progress.task {
            Some(task) => task_line(task, &message),
            None => message,
        };
        match progress.fraction() {
            Some(fraction) => {
                self.bar.set_style(bar_style());
                // `fraction` is within 0..=1, so the product fits.
                self.bar
                    .set_position((fraction * BAR_SCALE as f64).round() as u64);
                self.bar.set_message(format!("{} {message}", self.tool));
            }
            None => {
                self.bar.set_style(spinner_style());
                self.bar.tick();
                self.bar
                    .set_message(format!("{} {} {message}", self.tool, progress.progress));
            }
        }
    }

    /// Clears the bar.
    pub fn finish(self) {
        self.bar.finish_and_clear();
    }
}

/// `task <id> <status>: <message>` (`: <message>` only when there is one), the id cut to
/// 40 characters and made safe for a terminal.
fn task_line(task: &oma_mcp_runtime::task::Task, message: &str) -> String {
    let id = terminal::safe(&oma_mcp_core::quote::cut(&task.id, 40));
    let status = terminal::safe(&oma_mcp_core::quote::cut(task.status.as_str(), 40));
    if message.is_empty() {
        format!("task {id} {status}")
    } else {
        format!("task {id} {status}: {message}")
    }
}

fn bar_style() -> indicatif::ProgressStyle {
    indicatif::ProgressStyle::with_template("[{bar:30}] {percent:>3}% {msg}")
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
        .progress_chars("=> ")
}

fn spinner_style() -> indicatif::ProgressStyle {
    indicatif::ProgressStyle::with_template("{spinner} {msg}")
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner())
}

#[cfg(test)]
mod tests {
    use oma_mcp_runtime::task::Task;
    use serde_json::json;

    #[test]
    fn task_lines_name_the_task_and_its_status() {
        let task = Task::from_members(&json!({"taskId": "t-1", "status": "working"})).unwrap();
        assert_eq!(super::task_line(&task, ""), "task t-1 working");
        assert_eq!(
            super::task_line(&task, "Analyzing content..."),
            "task t-1 working: Analyzing content..."
        );
        let hostile =
            Task::from_members(&json!({"taskId": "\u{1b}[2Jx", "status": "input_required"}))
                .unwrap();
        assert!(!super::task_line(&hostile, "").contains('\u{1b}'));
    }
}
