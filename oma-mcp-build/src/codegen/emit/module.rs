//! The module's own items: `TOOL_NAMES` with the table of tools as its doc, the embedded
//! `SNAPSHOT`, and `drift()`.

use super::super::docs;
use super::super::writer::{Json, Lit, Writer};
use super::UNUSED;
use crate::codegen::ToolModel;

/// The first items of the module: `TOOL_NAMES` (its doc is the tool table, [`tool_table`])
/// and `SNAPSHOT`, the canonical snapshot text (of the `selected` tools only, when the pin
/// selects some).
pub(super) fn head(w: &mut Writer, tools: &[ToolModel], snapshot: &str, selected: bool) {
    w.item();
    w.docs(&tool_table(tools));
    w.allow(UNUSED);
    let names: Vec<String> = tools.iter().map(|t| Lit(&t.mcp_name).to_string()).collect();
    w.line(format_args!(
        "pub const TOOL_NAMES: &[&str] = &[{}];",
        names.join(", ")
    ));

    w.item();
    if selected {
        w.docs(&[
            " The snapshot this module was generated from (canonical JSON text), with only the",
            " tools the pin's `tools` and `exclude-tools` select, for drift checks at run time:",
            " see `drift()` (oma-mcp-runtime's cargo feature `drift`).",
        ]);
    } else {
        w.docs(&[
            " The snapshot this module was generated from (canonical JSON text, as committed), for",
            " drift checks at run time: see `drift()` (oma-mcp-runtime's cargo feature `drift`).",
        ]);
    }
    w.allow(UNUSED);
    w.line(format_args!(
        "pub const SNAPSHOT: &str = {};",
        Json(snapshot)
    ));
}

/// The doc of `TOOL_NAMES`, the first item of the module: a table of its tools (Rust name,
/// MCP name, whether it is consequential, the first line of its description), then what
/// `TOOL_NAMES` holds.
fn tool_table(tools: &[ToolModel]) -> Vec<String> {
    let cell = |text: &str| docs::inline(text).replace('|', "\\|");
    let mut doc = vec![
        " The tools of this module, in snapshot order (a consequential tool runs only through"
            .to_owned(),
        " a confirmed call, `client.call(args).confirmed()`):".to_owned(),
        String::new(),
        " | Rust | MCP name | consequential | description |".to_owned(),
        " |---|---|---|---|".to_owned(),
    ];
    for tool in tools {
        let description = tool
            .description
            .as_deref()
            .and_then(|d| d.lines().find(|l| !l.trim().is_empty()))
            .map(|line| cell(&oma_mcp_core::quote::excerpt(&line.trim())))
            .unwrap_or_default();
        doc.push(format!(
            " | [`{}`] | `{}` | {} | {} |",
            tool.marker,
            cell(&tool.mcp_name.replace('`', "'")),
            if tool.consequential { "yes" } else { "no" },
            description
        ));
    }
    doc.push(String::new());
    doc.push(" `TOOL_NAMES` holds their raw MCP names, in this order.".to_owned());
    doc
}

/// `drift(client)`: the connected server's tools against `SNAPSHOT` (in the `drift_items!`
/// block: it uses the drift engine).
pub(super) fn drift(w: &mut Writer) {
    w.item();
    w.docs(&[
        " Compares the connected server's tools with [`SNAPSHOT`], the pin this code was",
        " generated from. The policy is the caller's, e.g.",
        " `drift(&client)?.apply(DriftPolicy::FailOnBreaking, \"server\")`.",
        "",
        " # Errors",
        " Only if [`SNAPSHOT`] were not a snapshot, which generated code never embeds.",
    ]);
    w.allow(UNUSED);
    w.open(
        "pub fn drift(client: &::oma_mcp_runtime::McpClient) -> \
         ::core::result::Result<::oma_mcp_runtime::DriftReport, ::oma_mcp_runtime::Error>",
    );
    w.line("client.drift_against_embedded(SNAPSHOT)");
    w.close("");
}

/// `fake()`: a fake of the server serving `SNAPSHOT` (in the `fake_items!` block: it needs
/// oma-mcp-runtime's feature `fake`), with the module's tool name prefix.
pub(super) fn fake(w: &mut Writer, prefix: Option<&str>) {
    w.item();
    w.docs(&[
        " Starts a fake of this server for tests: it serves [`SNAPSHOT`] over a real MCP",
        " session on loopback streamable HTTP and answers calls with the handlers registered",
        " with `on::<Tool>(..)`, checked against the pinned schemas (see",
        " [`oma_mcp_runtime::fake`]). Connect with `fake.connect()`.",
        "",
        " # Errors",
        " When no loopback port can be opened.",
    ]);
    w.allow(UNUSED);
    w.open(
        "pub async fn fake() -> ::core::result::Result<::oma_mcp_runtime::fake::FakeServer, \
         ::oma_mcp_runtime::fake::FakeError>",
    );
    let prefix = match prefix {
        Some(prefix) => format!("::core::option::Option::Some({})", Lit(prefix)),
        None => "::core::option::Option::None".to_owned(),
    };
    w.line(format_args!(
        "::oma_mcp_runtime::fake::FakeServer::start(SNAPSHOT, {prefix}).await"
    ));
    w.close("");
}
