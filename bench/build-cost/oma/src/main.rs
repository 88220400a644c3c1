//! One typed tool call through the code that build.rs generated.

mod everything {
    oma_mcp_runtime::include_tools!("everything");
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), oma_mcp_runtime::Error> {
    let client = oma_mcp_runtime::connect_mcp_tools(everything::connect_config()).await?;
    let result = client
        .call(everything::EchoArgs::new("hi"))
        .mapped()
        .await;
    println!("{}", result.data);
    client.disconnect().await;
    Ok(())
}
