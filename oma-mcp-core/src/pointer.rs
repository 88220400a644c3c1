//! JSON pointers (RFC 6901): reference tokens and local `$ref`s, shared by the drift engine
//! and the code generator so both write a pointer and read a reference the same way.

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
/// use oma_mcp_core::pointer::decode_fragment;
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

/// One reference token escaped for a JSON pointer (RFC 6901 §3: `~` → `~0`, then `/` → `~1`).
///
/// ```
/// use oma_mcp_core::pointer::escape_token;
/// assert_eq!(escape_token("a/b~c"), "a~1b~0c");
/// ```
pub fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// One reference token of a JSON pointer decoded (RFC 6901 §4: `~1` → `/`, then `~0` → `~`,
/// so `~01` decodes to `~1`).
///
/// ```
/// use oma_mcp_core::pointer::unescape_token;
/// assert_eq!(unescape_token("a~1b~0c"), "a/b~c");
/// assert_eq!(unescape_token("~01"), "~1");
/// ```
pub fn unescape_token(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// `pointer` with the reference token `token` appended (escaped with [`escape_token`]).
///
/// ```
/// use oma_mcp_core::pointer::push;
/// assert_eq!(push("/properties", "a/b"), "/properties/a~1b");
/// ```
pub fn push(pointer: &str, token: &str) -> String {
    format!("{pointer}/{}", escape_token(token))
}
