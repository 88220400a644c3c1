//! `--format json`: one JSON document, the drift report's own JSON for one pair.

use serde_json::{Value, json};

use super::compared::{Compared, Failed};

/// One JSON document: the report itself for one pair; for several servers, every change
/// also names its `server`, and the summary adds up. `check` adds `errors`:
/// `[{"server", "message"}]`, one per server that could not be compared.
pub fn render(compared: &[Compared], failed: Option<&[Failed]>) -> String {
    let mut value = match compared {
        [one] if one.server.is_none() => one.report.to_json(),
        _ => {
            let mut changes = Vec::new();
            let (mut breaking, mut warning, mut info) = (0, 0, 0);
            for c in compared {
                breaking += c.report.summary.breaking;
                warning += c.report.summary.warning;
                info += c.report.summary.info;
                for change in c.report.to_json()["changes"]
                    .as_array()
                    .into_iter()
                    .flatten()
                {
                    let mut change = change.clone();
                    if let (Value::Object(map), Some(server)) = (&mut change, &c.server) {
                        map.insert("server".into(), Value::from(server.as_str()));
                    }
                    changes.push(change);
                }
            }
            json!({"changes": changes, "summary": {"breaking": breaking, "warning": warning, "info": info}})
        }
    };
    if let (Some(failed), Value::Object(map)) = (failed, &mut value) {
        let errors = failed
            .iter()
            .map(|f| json!({"server": f.server, "message": f.message}))
            .collect();
        map.insert("errors".into(), Value::Array(errors));
    }
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}
