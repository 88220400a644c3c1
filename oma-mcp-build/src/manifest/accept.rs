//! `accept`: findings of the text scanner (`oma_mcp_core::scan`) that a pin accepts, each
//! for one rule and one tool (or every item, `*`), with the reason a report shows.

use oma_mcp_core::scan::{Accept, RULES, rule};
use serde::Deserialize;

/// One accepted finding: `{ rule = "secret-parameter", tool = "login", reason = "takes the
/// user's API key by design" }`.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub(super) struct RawAccept {
    /// The rule id of the text scanner (`oma-mcp scan` names it in each finding), such as
    /// `secret-parameter` or `urgency-markup`.
    rule: String,
    /// The raw MCP name of the tool (a prompt's name, a resource's URI) whose finding is
    /// accepted, or `*` for every item and the server's instructions.
    tool: String,
    /// Why the finding is fine; reports show it beside the finding.
    #[cfg_attr(feature = "json-schema", schemars(length(min = 1)))]
    reason: String,
}

/// The entries of `servers.<name>.accept`, checked: a rule the scanner has, a tool, a
/// reason.
pub(super) fn accepts(server: &str, raw: &[RawAccept]) -> Result<Vec<Accept>, String> {
    raw.iter()
        .enumerate()
        .map(|(i, a)| {
            let at = format!("servers.{server}.accept[{i}]");
            if rule(&a.rule).is_none() {
                let ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
                return Err(format!(
                    "{at}.rule {:?} is not a rule of the text scanner; the rules are: {}",
                    a.rule,
                    ids.join(", ")
                ));
            }
            if a.tool.trim().is_empty() {
                return Err(format!(
                    "{at}.tool is empty; name the tool whose finding is accepted, or \"*\" for \
                     every tool"
                ));
            }
            if a.reason.trim().is_empty() {
                return Err(format!(
                    "{at}.reason is empty; say why the finding is fine (reports show it)"
                ));
            }
            Ok(Accept::new(
                a.rule.clone(),
                a.tool.clone(),
                a.reason.clone(),
            ))
        })
        .collect()
}
