//! The requests of a task-backed call ([`oma_mcp_core::task`]): whether a call asks for a
//! task, and `tasks/get`, `tasks/result`, `tasks/update` and `tasks/cancel` for one task
//! (in MCP 2026-07-28 with the client context that declares the tasks extension, built at
//! connect by `lifecycle::task_context`).

use std::time::Duration;

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use oma_mcp_core::task::{TaskDialect, TaskSupport};

use super::McpClient;
use super::config::Elicitation;
use super::framing;
use crate::Error;

impl McpClient {
    /// How a call of the tool with raw MCP name `raw_name` asks for a task, if at all
    /// ([`TaskDialect::for_call`] with the tool's `execution.taskSupport` as discovered at
    /// connect; a tool outside [`McpClient::tools`] counts as `forbidden`).
    pub(crate) fn task_dialect(&self, raw_name: &str) -> Option<TaskDialect> {
        let support = self
            .tools
            .iter()
            .find(|t| t.mcp_name == raw_name)
            .map(|t| TaskSupport::of(&t.descriptor))
            .unwrap_or_default();
        TaskDialect::for_call(&self.protocol_version, self.capabilities.as_ref(), support)
    }

    /// The request timeout ([`ConnectConfig::request_timeout`](crate::ConnectConfig)).
    pub(crate) fn request_timeout(&self) -> Duration {
        self.link.session.request_timeout()
    }

    /// The elicitation handler of this connection
    /// ([`ConnectConfig::elicitation`](crate::ConnectConfig)), which answers a task's
    /// `elicitation/create` input requests too.
    pub(crate) fn elicitation(&self) -> Option<&Elicitation> {
        self.elicitation.as_ref()
    }

    /// The `params` of a `tasks/*` request for the task `task_id`: `taskId`, the `extra`
    /// members, and in the extension's form the client context that declares it.
    fn task_params(&self, task_id: &str, dialect: TaskDialect, extra: Map<String, Value>) -> Value {
        let mut params = Map::new();
        params.insert("taskId".to_owned(), Value::String(task_id.to_owned()));
        params.extend(extra);
        let params = Value::Object(params);
        match (dialect, &self.task_context) {
            (TaskDialect::Extension, Some(context)) => {
                framing::with_client_context(params, context)
            }
            _ => params,
        }
    }

    /// Sends `method` (`tasks/get`, `tasks/result`, `tasks/update`) for the task `task_id`,
    /// bounded by `timeout` and ended by `cancel`, and returns the raw result.
    ///
    /// # Errors
    /// As [`ToolCall::raw`](crate::ToolCall::raw) (the method named is `method`).
    pub(crate) async fn task_request(
        &self,
        method: &str,
        task_id: &str,
        dialect: TaskDialect,
        extra: Map<String, Value>,
        cancel: Option<&CancellationToken>,
        timeout: Duration,
    ) -> Result<Value, Error> {
        let params = self.task_params(task_id, dialect, extra);
        match self
            .link
            .session
            .request_cancellable(method, &params, cancel, Some(timeout))
            .await
        {
            Ok(result) => Ok(result),
            Err(e) => Err(self.link.explain(method, e).await),
        }
    }

    /// Sends `tasks/cancel` for the task `task_id` without waiting for the answer (the
    /// call that drove the task has ended); nothing when the server did not say it accepts
    /// it ([`TaskDialect::can_cancel`]).
    pub(crate) fn cancel_task(&self, task_id: &str, dialect: TaskDialect) {
        if dialect.can_cancel(self.capabilities.as_ref()) {
            let params = self.task_params(task_id, dialect, Map::new());
            tracing::debug!(task = task_id, "cancelling the task of an ended call");
            self.link
                .session
                .request_unanswered("tasks/cancel", &params);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn tasks_methods_name_their_task_in_mcp_name() {
        assert_eq!(
            super::super::message::name_member("tasks/get"),
            Some("taskId")
        );
        assert_eq!(
            super::super::message::name_member("tasks/cancel"),
            Some("taskId")
        );
        assert_eq!(
            super::super::message::name_member("tasks/update"),
            Some("taskId")
        );
        assert_eq!(super::super::message::name_member("tasks/result"), None);
    }
}
