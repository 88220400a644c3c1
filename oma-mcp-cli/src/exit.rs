//! How a run that did not fail ended, and the exit code of each ending.

use std::process::ExitCode;

use crate::interrupt;

/// How a successful run ended.
pub enum Outcome {
    /// Exit 0.
    Success,
    /// `call` printed a result with `is_error: true`: exit 2.
    ToolError,
    /// `check` or `diff` found drift, or `scan` a finding, at or above the `--fail-on`
    /// level: exit 1.
    Drift,
    /// `check` reported the servers it could check, and its errors for the others are
    /// already on stderr: exit 2.
    Failed,
    /// A signal ended the run before the command did: exit 128 + its number.
    Interrupted(interrupt::Signal),
}

impl Outcome {
    /// The process's exit code: 0 for [`Outcome::Success`], 1 for [`Outcome::Drift`], 2 for
    /// [`Outcome::ToolError`] and [`Outcome::Failed`], 128 + the signal's number for
    /// [`Outcome::Interrupted`].
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Outcome::Success => ExitCode::SUCCESS,
            Outcome::Drift => ExitCode::from(1),
            Outcome::ToolError | Outcome::Failed => ExitCode::from(2),
            Outcome::Interrupted(signal) => ExitCode::from(signal.exit_code()),
        }
    }
}
