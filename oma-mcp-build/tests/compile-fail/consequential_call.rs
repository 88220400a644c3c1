//! `files/delete` is consequential (the golden case's `consequential` glob `files/*` lists
//! it): the plain calls do not compile for it, with the arguments alone or with the marker.

#[allow(dead_code)]
mod golden {
    include!("../fixtures/golden.rs");
}

async fn delete(client: &oma_mcp_runtime::McpClient) {
    let args = golden::FilesDeleteArgs::new(vec!["a.txt".to_owned()], None);
    let _ = client.invoke(args.clone()).await;
    let _ = client.call_typed(golden::FilesDelete, args).await;
}

fn main() {
    let _ = delete;
}
