use serde_json::json;

use super::*;

fn tool(schema: Value) -> ToolDescriptor {
    ToolDescriptor::from_mcp(
        Some("t"),
        &json!({"name": "echo", "description": "Echoes", "inputSchema": schema}),
    )
    .unwrap()
}
