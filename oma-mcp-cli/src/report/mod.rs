//! The drift output of `check` and `diff`, and the findings of `scan` (`findings`): `--fail-on`, `--format`, and one module per
//! format (text, JSON, GitHub annotations, Markdown, SARIF, JUnit). The formats share the
//! compared pairs (`compared`) and where a change points (`location`); none imports another
//! format except the summary line Markdown takes from text.

mod compared;
pub mod findings;
mod github;
mod json;
mod junit;
mod location;
mod markdown;
mod sarif;
#[cfg(test)]
mod tests;
mod text;

pub use crate::flags::{FailOn, ReportFormat, ScanFailOn, ScanFormat};
pub use compared::{Compared, Failed, Outputs};
pub use location::relative;

use oma_mcp_runtime::Change;

/// What a change is about, as the reports name it: a tool by its raw name, `prompt NAME`,
/// `resource URI` or `resource template NAME`; empty for a server line.
pub(crate) fn subject(change: &Change) -> String {
    match change.direction.item_kind() {
        Some(kind) => format!("{} {}", kind.noun(), change.tool),
        None => change.tool.clone(),
    }
}

/// Whether any report has a change at or above `fail_on`.
pub fn fails(compared: &[Compared], fail_on: FailOn) -> bool {
    compared
        .iter()
        .any(|c| c.report.has_at_least(fail_on.severity()))
}

/// The whole output in `format`. Failed servers come first: JSON lists them in `errors`,
/// GitHub annotates the manifest with an `::error`, Markdown gives each a section, SARIF a
/// result, JUnit an `<error>`; text leaves them to stderr.
pub fn render(outputs: &Outputs<'_>, format: ReportFormat) -> String {
    let compared = outputs.compared;
    let failed = outputs.failed.unwrap_or_default();
    match format {
        ReportFormat::Json => json::render(compared, outputs.failed),
        ReportFormat::Text => text::render(compared),
        ReportFormat::Markdown => markdown::render(compared, failed),
        ReportFormat::Github => github::render(compared, failed),
        ReportFormat::Sarif => sarif::render(compared, failed),
        ReportFormat::Junit => junit::render(compared, failed, outputs.fail_on),
    }
}
