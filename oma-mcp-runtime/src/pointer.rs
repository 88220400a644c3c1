//! JSON pointers (RFC 6901) in local `$ref`s, shared by the drift engine and the code
//! generator so both read a reference the same way.

use percent_encoding::percent_decode_str;

/// The JSON pointer that a `$ref`'s URI fragment (the text after `#`) spells.
///
/// A `$ref` is a URI reference, and a JSON pointer in a URI fragment is percent-encoded
/// (RFC 6901 §6, RFC 3986 §2.1), so the fragment is percent-decoded first: `/$defs/My%20Model`
/// is the pointer `/$defs/My Model`. Its reference tokens still escape `~` and `/` as `~0` and
/// `~1` (RFC 6901 §4), as [`serde_json::Value::pointer`] expects. `None` when the decoded
/// bytes are not UTF-8. Whether the result is a pointer at all (empty or starting with `/`,
/// not an anchor such as `node`) is the caller's question.
///
/// ```
/// use oma_mcp_runtime::pointer::decode_fragment;
/// assert_eq!(decode_fragment("/$defs/My%20Model").as_deref(), Some("/$defs/My Model"));
/// assert_eq!(decode_fragment("/$defs/a~1b%25").as_deref(), Some("/$defs/a~1b%"));
/// assert_eq!(decode_fragment("/$defs/%FF"), None);
/// ```
pub fn decode_fragment(fragment: &str) -> Option<String> {
    percent_decode_str(fragment)
        .decode_utf8()
        .ok()
        .map(|decoded| decoded.into_owned())
}
