//! The wording of drift messages: values quoted and cut for one line, and the message of a
//! changed text. Shared by the server- and tool-level rules and the schema walk.

use serde_json::Value;

/// A value quoted for a one-line message: JSON-style quotes, newlines and control characters
/// escaped (Rust's `Debug` for `str`).
pub(super) fn quote(text: &str) -> String {
    format!("{text:?}")
}

/// A JSON value for a one-line message (compact JSON; strings escaped as JSON does).
pub(super) fn show(value: &Value) -> String {
    match value {
        Value::String(s) => quote(s),
        other => other.to_string(),
    }
}

/// The message of a changed text (description or title): always old and new text.
pub(super) fn text_message(what: &str, old: Option<&Value>, new: Option<&Value>) -> String {
    match (old, new) {
        (Some(o), Some(n)) => format!("{what} changed: {} → {}", show(o), show(n)),
        (None, Some(n)) => format!("{what} added: {}", show(n)),
        (Some(o), None) => format!("{what} removed (was {})", show(o)),
        (None, None) => format!("{what} unchanged"),
    }
}

/// A JSON value for a one-line message, compact and cut to 200 characters
/// ([`crate::quote::excerpt`]).
pub(super) fn cut(value: &Value) -> String {
    crate::quote::excerpt(value)
}
