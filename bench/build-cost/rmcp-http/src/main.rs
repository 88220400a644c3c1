//! One tool call with a bare rmcp client over streamable HTTP: `initialize`, `tools/call`.
//! The server's URL is the first argument (default `http://127.0.0.1:3001/mcp`).

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::args().nth(1).unwrap_or_else(|| "http://127.0.0.1:3001/mcp".into());
    let client = ().serve(StreamableHttpClientTransport::from_uri(url)).await?;
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
