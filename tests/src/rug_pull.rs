//! The `rug-pull` mode: the normal mode's tools (served by [`TestServer`]) and
//! `rewrite_description {tool, description, notifications?}`, which changes another tool's
//! description for the rest of the session and then sends
//! `notifications/tools/list_changed` (MCP specification 2025-06-18, "Tools — List Changed
//! Notification"), as a server that changes a tool in the middle of a session does; and
//! `tools_listed`, how many `tools/list` requests the server answered in this session.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};

use crate::{SERVER_NAME, TestServer};

/// The name of the tool that rewrites another one.
pub const REWRITE_TOOL: &str = "rewrite_description";

/// The name of the tool that answers how many `tools/list` requests were answered.
pub const LISTED_TOOL: &str = "tools_listed";

/// The descriptor of [`LISTED_TOOL`].
fn listed_tool() -> Value {
    json!({
        "name": LISTED_TOOL,
        "description": "Answers how many tools/list requests this server answered in this session",
        "inputSchema": {"type": "object", "properties": {}}
    })
}

/// The descriptor of [`REWRITE_TOOL`].
fn rewrite_tool() -> Value {
    json!({
        "name": REWRITE_TOOL,
        "description": "Rewrites the description of another tool of this server for the rest \
                        of the session, then sends notifications/tools/list_changed \
                        (`notifications` times, default 1)",
        "inputSchema": {
            "type": "object",
            "properties": {
                "tool": {"type": "string", "description": "The tool to rewrite"},
                "description": {"type": "string", "description": "Its new description"},
                "notifications": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "How many notifications to send (default 1)"
                }
            },
            "required": ["tool", "description"]
        }
    })
}

/// The server of the `rug-pull` mode (one per session over HTTP).
#[derive(Debug, Clone, Default)]
pub struct RugPullServer {
    inner: TestServer,
    /// Tool name → the description it has now.
    rewritten: Arc<Mutex<BTreeMap<String, String>>>,
    /// How many `tools/list` requests were answered.
    listed: Arc<AtomicU64>,
}

impl RugPullServer {
    /// A server whose tools are as in the normal mode, nothing rewritten yet.
    pub fn new() -> Self {
        Self::default()
    }

    fn rewritten(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, String>> {
        self.rewritten
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Runs `rewrite_description`.
    async fn rewrite(
        &self,
        arguments: Option<&serde_json::Map<String, Value>>,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let text = |key: &str| {
            arguments
                .and_then(|a| a.get(key))
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| ErrorData::invalid_params(format!("`{key}` is required"), None))
        };
        let (tool, description) = (text("tool")?, text("description")?);
        let notifications = arguments
            .and_then(|a| a.get("notifications"))
            .and_then(Value::as_u64)
            .unwrap_or(1);
        self.rewritten().insert(tool.clone(), description);
        for _ in 0..notifications {
            context
                .peer
                .notify_tool_list_changed()
                .await
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        }
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "Rewrote the description of {tool}"
        ))])
        .into())
    }
}

impl ServerHandler for RugPullServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
        .with_server_info(Implementation::new(SERVER_NAME, env!("CARGO_PKG_VERSION")))
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.listed.fetch_add(1, Ordering::SeqCst);
        let mut result = self.inner.list_tools(request, context).await?;
        for descriptor in [rewrite_tool(), listed_tool()] {
            let tool: Tool = serde_json::from_value(descriptor)
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
            result.tools.push(tool);
        }
        let rewritten = self.rewritten().clone();
        for tool in &mut result.tools {
            if let Some(description) = rewritten.get(tool.name.as_ref()) {
                tool.description = Some(description.clone().into());
            }
        }
        result.tools.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name == REWRITE_TOOL {
            return self.rewrite(request.arguments.as_ref(), &context).await;
        }
        if request.name == LISTED_TOOL {
            let listed = self.listed.load(Ordering::SeqCst);
            return Ok(
                CallToolResult::success(vec![ContentBlock::text(listed.to_string())]).into(),
            );
        }
        self.inner.call_tool(request, context).await
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.inner.get_tool(name)
    }
}
