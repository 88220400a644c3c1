//! One tool call with a bare rmcp client: spawn the server, `initialize`, `tools/call`.

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use tokio::process::Command;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut cmd = Command::new("@WORKSPACE@/tests/servers/node_modules/.bin/mcp-server-everything");
    cmd.arg("stdio");
    let client = ().serve(TokioChildProcess::new(cmd)?).await?;
    let mut args = serde_json::Map::new();
    args.insert("message".into(), "hi".into());
    let result = client
        .call_tool(CallToolRequestParams::new("echo").with_arguments(args))
        .await?;
    let text = result.content.first().and_then(|c| c.as_text());
    println!("{}", text.map_or("", |t| t.text.as_str()));
    client.cancel().await?;
    Ok(())
}
