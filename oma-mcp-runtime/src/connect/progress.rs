//! [`Progress`]: what a server reports about a long call in `notifications/progress` (MCP
//! specification 2025-03-26 and later, "Utilities" → "Progress").

use serde_json::Value;

/// One `notifications/progress` the server sent for a call made with
/// [`ToolCall::progress`](crate::ToolCall::progress), or a new status of the call's task
/// ([`Progress::task`]).
///
/// The units are the server's (steps, bytes, files, …): only `progress / total` has a
/// meaning across servers. `progress` grows with each notification (the specification
/// requires it; oma-mcp passes on what the server sent).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Progress {
    /// The progress so far (`params.progress`).
    pub progress: f64,
    /// The total in the same units, when the server knows it (`params.total`).
    pub total: Option<f64>,
    /// A human-readable status, when sent (`params.message`, protocol 2025-03-26 and
    /// later).
    pub message: Option<String>,
    /// For a task-backed call ([`oma_mcp_core::task`]), a new status of its task (each change
    /// of status or status message once, the first when the server answers with the task):
    /// the task's id, status and hints, with [`Progress::message`] its status message and
    /// [`Progress::progress`] and [`Progress::total`] those of the last
    /// `notifications/progress` (0 and none before any). `None` for a
    /// `notifications/progress`.
    pub task: Option<oma_mcp_core::task::Task>,
}

impl Progress {
    /// Reads the `params` of a `notifications/progress`; `None` when `progress` is not a
    /// number (such a notification is skipped). A `total` that is not a number and a
    /// `message` that is not a string count as absent.
    pub(crate) fn from_params(params: &Value) -> Option<Self> {
        Some(Self {
            progress: params.get("progress")?.as_f64()?,
            total: params.get("total").and_then(Value::as_f64),
            message: params
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_owned),
            task: None,
        })
    }

    /// This progress with a new status of the call's task.
    pub(crate) fn with_task(&self, task: oma_mcp_core::task::Task) -> Self {
        Self {
            progress: self.progress,
            total: self.total,
            message: task.status_message.clone(),
            task: Some(task),
        }
    }

    /// `progress / total` between 0 and 1, when the total is known and positive.
    pub fn fraction(&self) -> Option<f64> {
        self.total
            .filter(|total| *total > 0.0)
            .map(|total| (self.progress / total).clamp(0.0, 1.0))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::Progress;

    #[test]
    fn reads_progress_params() {
        let p = Progress::from_params(
            &json!({"progressToken": 1, "progress": 2, "total": 4, "message": "step 2 of 4"}),
        )
        .unwrap();
        assert_eq!(
            p,
            Progress {
                progress: 2.0,
                total: Some(4.0),
                message: Some("step 2 of 4".to_owned()),
                task: None,
            }
        );
        assert_eq!(p.fraction(), Some(0.5));
        let p =
            Progress::from_params(&json!({"progress": 7.5, "total": "x", "message": 3})).unwrap();
        assert_eq!((p.total, p.fraction(), p.message), (None, None, None));
        assert_eq!(Progress::from_params(&json!({"progress": "1"})), None);
        assert_eq!(Progress::from_params(&json!({})), None);
        let over = Progress::from_params(&json!({"progress": 9, "total": 4})).unwrap();
        assert_eq!(over.fraction(), Some(1.0));
        let zero = Progress::from_params(&json!({"progress": 0, "total": 0})).unwrap();
        assert_eq!(zero.fraction(), None);
    }
}
