//! `files/delete` is consequential (the golden case's `consequential` glob `files/*` lists
//! it): an unconfirmed call of it does not compile, whichever its ending.

#[allow(dead_code)]
mod golden {
    include!("../fixtures/golden.rs");
}

async fn delete(client: &oma_mcp_runtime::McpClient) {
    let args = golden::FilesDeleteArgs::new(vec!["a.txt".to_owned()], None);
    let _ = client.call(args.clone()).mapped().await;
    let _ = client.call(args).typed().await;
}

fn main() {
    let _ = delete;
}
