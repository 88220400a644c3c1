//! Hostile servers: whatever they send, a connect ends with a clear, bounded error.

use std::time::{Duration, Instant};

use oma_mcp_runtime::connect::MAX_TOOLS_LIST_PAGES;
use oma_mcp_runtime::connect_mcp_tools;

use crate::{own, server_bin};

fn command() -> String {
    server_bin().to_string_lossy().into_owned()
}

#[tokio::test]
async fn endless_new_cursors_stop_after_the_page_limit() {
    let start = Instant::now();
    let err = connect_mcp_tools(own("endless-cursor")).await.unwrap_err();
    assert_eq!(MAX_TOOLS_LIST_PAGES, 1000);
    assert_eq!(
        err.chain().to_string(),
        format!(
            "the MCP server `{}` sent an invalid `tools/list` response: the server sent more \
             than 1000 pages, each with a new `nextCursor`; stopped paging instead of looping \
             forever (this is a server bug)",
            command()
        )
    );
    // It ends (not a speed check: 1,000 round trips of two debug builds on a loaded machine).
    assert!(
        start.elapsed() < Duration::from_secs(120),
        "{:?}",
        start.elapsed()
    );
}

#[tokio::test]
async fn a_huge_invalid_value_is_quoted_cut_in_the_error() {
    let err = connect_mcp_tools(own("huge-tools")).await.unwrap_err();
    assert_eq!(
        err.chain().to_string(),
        format!(
            "the MCP server `{}` sent an invalid `tools/list` response: `tools` is not an array: \
             \"{}…",
            command(),
            "x".repeat(199)
        )
    );
}
