//! A `tools/list` split into its tools and the entries that are not one (`null`, a number, an
//! object without a string `name`): [`split_tool_entries`]. A live listing
//! (`oma-mcp-runtime`'s connect) and a bare `{"tools": [...]}` file
//! ([`Snapshot::parse`](crate::Snapshot::parse)) leave such entries out this way and keep the
//! server's other tools; re-exported at [`crate::descriptor`].

use serde_json::Value;

use crate::quote::{excerpt, is_bidi_control, json_kind};

/// A `tools/list` entry that is not a tool object: left out of the server's tools
/// ([`split_tool_entries`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct InvalidToolEntry {
    /// The entry's position in the server's `tools/list`, counted from 0 in the order the
    /// server sent the entries, across all pages.
    pub index: usize,
    /// What the entry is instead of a tool object, its value quoted as compact JSON cut to
    /// an [`excerpt`], bidirectional formatting characters escaped: `` `null`, not a tool
    /// object ``, `a number, not a tool object: 7`, `` an object without a string `name`:
    /// {"description":"no name"} ``.
    pub reason: String,
}

impl std::fmt::Display for InvalidToolEntry {
    /// `entry <index> of `tools/list` is <reason>`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "entry {} of `tools/list` is {}", self.index, self.reason)
    }
}

/// A server's `tools/list` entries split into its tools and the entries that are not one
/// ([`split_tool_entries`]).
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct ToolEntries {
    /// The entries that are tool objects (a JSON object with a string `name`), as sent, in
    /// the server's order.
    pub tools: Vec<Value>,
    /// The entries that are not, in the server's order.
    pub invalid: Vec<InvalidToolEntry>,
}

/// Splits a server's `tools/list` entries (all pages, in the server's order) into the tool
/// objects (a JSON object with a string `name`, kept as sent) and the entries that are not
/// one, each with its index and what it is ([`InvalidToolEntry`]). No tool can be called
/// without a name, but one bad entry must not cost the server's other tools.
///
/// ```
/// use oma_mcp_core::descriptor::split_tool_entries;
/// use serde_json::json;
/// let split = split_tool_entries(vec![json!({"name": "echo"}), json!(null), json!({"name": 3})]);
/// assert_eq!(split.tools, [json!({"name": "echo"})]);
/// assert_eq!(split.invalid[0].to_string(), "entry 1 of `tools/list` is `null`, not a tool object");
/// assert_eq!(
///     split.invalid[1].to_string(),
///     r#"entry 2 of `tools/list` is an object without a string `name`: {"name":3}"#
/// );
/// ```
pub fn split_tool_entries(entries: impl IntoIterator<Item = Value>) -> ToolEntries {
    let mut split = ToolEntries::default();
    for (index, entry) in entries.into_iter().enumerate() {
        let reason = match &entry {
            Value::Object(map) if map.get("name").is_some_and(Value::is_string) => {
                split.tools.push(entry);
                continue;
            }
            Value::Object(_) => format!("an object without a string `name`: {}", quoted(&entry)),
            Value::Null => "`null`, not a tool object".to_owned(),
            other => format!("{}, not a tool object: {}", json_kind(other), quoted(other)),
        };
        split.invalid.push(InvalidToolEntry { index, reason });
    }
    split
}

/// `value` as a message quotes it: its compact JSON (control characters escaped) cut to an
/// [`excerpt`], with the bidirectional formatting characters escaped too (`\u202e`, as JSON
/// may write them), so the text reads in the order it is written wherever it is shown.
fn quoted(value: &Value) -> String {
    let mut text = String::new();
    for c in excerpt(value).chars() {
        if is_bidi_control(c) {
            text.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            text.push(c);
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Every kind of entry that is not a tool object, with its exact reason; the tools keep
    /// their order and every field as sent, and the indexes count every entry.
    #[test]
    fn entries_that_are_not_tool_objects_are_split_off_with_their_reason() {
        let long = "x".repeat(300);
        let split = split_tool_entries(vec![
            json!({"name": "echo", "x-vendor": 1}),
            json!(null),
            json!(7),
            json!({"description": "no name"}),
            json!({"name": "b", "inputSchema": {"type": "object", "required": null}}),
            json!(true),
            json!("echo"),
            json!([{"name": "in-an-array"}]),
            json!({"name": null}),
            json!({"name": long}),
            json!({"name": "\u{1b}[2J"}),
            json!({"name": 7, "description": "\u{1b}]0;pwned\u{7}"}),
            json!({"title": "evil \u{202e}desrever\u{2066}"}),
        ]);
        assert_eq!(
            split.tools,
            [
                json!({"name": "echo", "x-vendor": 1}),
                json!({"name": "b", "inputSchema": {"type": "object", "required": null}}),
                json!({"name": long}),
                json!({"name": "\u{1b}[2J"}),
            ]
        );
        let invalid: Vec<(usize, &str)> = split
            .invalid
            .iter()
            .map(|e| (e.index, e.reason.as_str()))
            .collect();
        assert_eq!(
            invalid,
            [
                (1, "`null`, not a tool object"),
                (2, "a number, not a tool object: 7"),
                (
                    3,
                    r#"an object without a string `name`: {"description":"no name"}"#
                ),
                (5, "a boolean, not a tool object: true"),
                (6, r#"a string, not a tool object: "echo""#),
                (
                    7,
                    r#"an array, not a tool object: [{"name":"in-an-array"}]"#
                ),
                (8, r#"an object without a string `name`: {"name":null}"#),
                (
                    11,
                    r#"an object without a string `name`: {"name":7,"description":"\u001b]0;pwned\u0007"}"#
                ),
                (
                    12,
                    r#"an object without a string `name`: {"title":"evil \u202edesrever\u2066"}"#
                ),
            ]
        );
        assert_eq!(
            split.invalid[2].to_string(),
            r#"entry 3 of `tools/list` is an object without a string `name`: {"description":"no name"}"#
        );
    }

    /// A huge entry is quoted cut to 200 characters.
    #[test]
    fn an_invalid_entry_is_quoted_cut() {
        let split = split_tool_entries(vec![json!({"description": "y".repeat(1000)})]);
        let quoted = format!("{{\"description\":\"{}…", "y".repeat(200 - 16));
        assert_eq!(
            split.invalid,
            [InvalidToolEntry {
                index: 0,
                reason: format!("an object without a string `name`: {quoted}")
            }]
        );
        assert_eq!(split_tool_entries(Vec::new()), ToolEntries::default());
    }
}
