//! The `progress` mode over HTTP: the raw mode's `slow_count` tool, served by rmcp (which sends
//! the progress notifications on the request's SSE stream).

use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};

/// The descriptor of `slow_count`, the same over stdio (raw) and HTTP (rmcp).
pub(crate) fn slow_count_tool() -> Value {
    json!({
        "name": "slow_count",
        "description": "Counts to `steps`, one step every `ms` milliseconds, reporting progress",
        "inputSchema": {"type": "object", "properties": {
            "steps": {"type": "integer", "minimum": 1},
            "ms": {"type": "integer", "minimum": 0}
        }}
    })
}

/// `slow_count`'s arguments, with the raw mode's defaults (3 steps of 50 ms).
pub(crate) fn steps_and_ms(arguments: Option<&serde_json::Map<String, Value>>) -> (u64, u64) {
    let get = |key: &str| arguments.and_then(|a| a.get(key)).and_then(Value::as_u64);
    (get("steps").unwrap_or(3), get("ms").unwrap_or(50))
}

/// The server of the `progress` mode over HTTP.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ProgressServer;

impl ServerHandler for ProgressServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_server_info(
            Implementation::new(crate::SERVER_NAME, env!("CARGO_PKG_VERSION")),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tool: Tool = serde_json::from_value(slow_count_tool())
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(ListToolsResult::with_all_items(vec![tool]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != "slow_count" {
            return Err(ErrorData::invalid_params(
                format!("unknown tool: {}", request.name),
                None,
            ));
        }
        let (steps, ms) = steps_and_ms(request.arguments.as_ref());
        let token = context.meta.get_progress_token();
        for step in 1..=steps {
            tokio::select! {
                () = tokio::time::sleep(Duration::from_millis(ms)) => {}
                () = context.ct.cancelled() => {
                    return Err(ErrorData::internal_error("cancelled", None));
                }
            }
            if let Some(token) = &token {
                #[allow(clippy::cast_precision_loss)] // small step counts
                let param = ProgressNotificationParam::new(token.clone(), step as f64)
                    .with_total(steps as f64)
                    .with_message(format!("step {step} of {steps}"));
                context
                    .peer
                    .notify_progress(param)
                    .await
                    .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
            }
        }
        Ok(
            CallToolResult::success(vec![rmcp::model::ContentBlock::text(format!(
                "Counted to {steps}"
            ))])
            .into(),
        )
    }
}
