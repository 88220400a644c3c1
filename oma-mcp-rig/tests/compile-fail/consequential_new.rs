// A consequential tool given to a rig agent without a gate.
use std::sync::Arc;

use oma_mcp_rig::{McpRigTool, Provider};
use oma_mcp_runtime::McpClient;

/// What generated code declares for a tool the manifest (or `destructiveHint`) marks
/// consequential: no `NotConsequential` impl.
pub struct DeleteNote;

impl oma_mcp_runtime::McpTool for DeleteNote {
    type Args = serde_json::Value;
    type Output = Option<serde_json::Value>;
    const MCP_NAME: &'static str = "delete_note";
    const NAME: &'static str = "notes_delete_note";
    const DESCRIPTION: Option<&'static str> = None;
    const INPUT_SCHEMA: &'static str = r#"{"type":"object"}"#;
    const DIGEST: &'static str = "sha256:0";
    const CONSEQUENTIAL: bool = true;
    fn validators() -> &'static oma_mcp_runtime::typed::ToolValidators {
        static V: oma_mcp_runtime::typed::ToolValidators =
            oma_mcp_runtime::typed::ToolValidators::new();
        &V
    }
}

fn agent_tools(client: &Arc<McpClient>) {
    let _ = McpRigTool::<DeleteNote>::new(client, Provider::OpenAi);
}

fn main() {}
