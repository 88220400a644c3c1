//! The small rules behind open-multi-agent's model-visible parts (open-multi-agent's `docs/mcp.md`,
//! "Result mapping", "Model-visible parts"): UTF-16 lengths, bare MIME types, HTTP(S) links and
//! file names. Each follows the JavaScript semantics of the reference implementation.

use percent_encoding::percent_decode_str;
use serde_json::{Map, Value};
use url::Url;

use crate::naming::js_trim;

/// The media type used when a blob or link has a missing or malformed `mimeType`.
pub(crate) const DEFAULT_MEDIA_TYPE: &str = "application/octet-stream";

/// The file name used when neither `name` nor the URI gives one.
pub(crate) const DEFAULT_FILENAME: &str = "mcp-resource";

/// JavaScript's `s.length`: the number of UTF-16 code units in `s`.
///
/// Every char is one unit except those outside the BMP (4-byte UTF-8), which are two; counted
/// per byte so a 16 MiB base64 payload costs one linear scan (ASCII takes the fast path).
pub(crate) fn utf16_len(s: &str) -> usize {
    if s.is_ascii() {
        return s.len();
    }
    s.bytes()
        .map(|b| usize::from(b & 0xc0 != 0x80) + usize::from(b >= 0xf0))
        .sum()
}

/// Whether `s` is a bare `type/subtype` media type without parameters, as the reference's
/// pattern `^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*$`.
pub(crate) fn is_bare_media_type(s: &str) -> bool {
    fn token(t: &str) -> bool {
        let mut bytes = t.bytes();
        bytes.next().is_some_and(|b| b.is_ascii_alphanumeric())
            && bytes.all(|b| b.is_ascii_alphanumeric() || b"!#$&^_.+-".contains(&b))
    }
    s.split_once('/')
        .is_some_and(|(ty, sub)| token(ty) && token(sub))
}

/// The `mimeType` string of `fields` when it is a bare media type, else
/// [`DEFAULT_MEDIA_TYPE`].
pub(crate) fn media_type_or_default(fields: &Map<String, Value>) -> &str {
    fields
        .get("mimeType")
        .and_then(Value::as_str)
        .filter(|m| is_bare_media_type(m))
        .unwrap_or(DEFAULT_MEDIA_TYPE)
}

/// `Some(uri)`, unchanged, when `uri` parses as a WHATWG URL whose scheme is `http` or
/// `https` (the reference's `new URL(uri).protocol` check; schemes compare lowercased).
pub(crate) fn http_url(uri: &str) -> Option<&str> {
    let parsed = Url::parse(uri).ok()?;
    matches!(parsed.scheme(), "http" | "https").then_some(uri)
}

/// The file name of a blob resource or a resource link (`fields` is the resource object or
/// the `resource_link` block):
///
/// 1. `name` when it is a string that is not blank for JavaScript's `trim`;
/// 2. else, when `uri` parses as a URL, its last non-empty path segment decoded with
///    `decodeURIComponent`; if decoding fails, the last non-empty `/`-separated piece of the
///    raw `uri` string (query included); if the path has no segment, step 3;
/// 3. when `uri` does not parse, the last non-empty `/`-separated piece of the raw string;
/// 4. else [`DEFAULT_FILENAME`].
pub(crate) fn filename(fields: &Map<String, Value>) -> String {
    if let Some(name) = fields.get("name").and_then(Value::as_str)
        && !js_trim(name).is_empty()
    {
        return name.to_owned();
    }
    let Some(uri) = fields.get("uri").and_then(Value::as_str) else {
        return DEFAULT_FILENAME.to_owned();
    };
    let raw_last = || last_segment(uri).map(str::to_owned);
    let from_uri = match Url::parse(uri) {
        Ok(parsed) => match last_segment(parsed.path()) {
            Some(segment) => decode_uri_component(segment).or_else(raw_last),
            None => None,
        },
        Err(_) => raw_last(),
    };
    from_uri.unwrap_or_else(|| DEFAULT_FILENAME.to_owned())
}

/// The last non-empty piece of `s` split on `/` (JavaScript
/// `s.split('/').filter(Boolean).at(-1)`).
fn last_segment(s: &str) -> Option<&str> {
    s.split('/').rfind(|piece| !piece.is_empty())
}

/// JavaScript's `decodeURIComponent`: every `%XX` escape is decoded (also reserved characters
/// such as `%2F`); `None` (a `URIError` in JavaScript) when a `%` is not followed by two hex
/// digits or the decoded bytes are not valid UTF-8 (overlong forms and surrogates included).
pub(crate) fn decode_uri_component(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut i = 0;
    while let Some(offset) = bytes
        .get(i..)
        .and_then(|rest| rest.iter().position(|&b| b == b'%'))
    {
        let at = i + offset;
        let hex_pair = bytes.get(at + 1..at + 3)?;
        if !hex_pair.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        i = at + 3;
    }
    percent_decode_str(s)
        .decode_utf8()
        .ok()
        .map(|decoded| decoded.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fields(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => panic!("object expected"),
        }
    }

    #[test]
    fn utf16_length() {
        assert_eq!(utf16_len(""), 0);
        assert_eq!(utf16_len("AAAA"), 4);
        assert_eq!(utf16_len("é😀"), 3);
        assert_eq!(utf16_len("✓"), 1);
        assert_eq!(utf16_len("a\u{10ffff}b"), 4);
        let mixed = "héllo wörld 😀\r\nend ✓ 𝄞";
        assert_eq!(utf16_len(mixed), mixed.encode_utf16().count());
    }

    #[test]
    fn bare_media_types() {
        for ok in [
            "image/png",
            "image/svg+xml",
            "application/vnd.ms-excel",
            "A/b",
            "x/y!#$&^_.+-",
        ] {
            assert!(is_bare_media_type(ok), "{ok}");
        }
        for bad in [
            "",
            "image",
            "image/",
            "/png",
            "image/png; charset=utf-8",
            "text/csv;x=1",
            "image/png ",
            " image/png",
            "image/png\n",
            "a/b/c",
            "-a/b",
            "a/.b",
            "image/*",
            "ïmage/png",
        ] {
            assert!(!is_bare_media_type(bad), "{bad:?}");
        }
    }

    #[test]
    fn media_type_fallback() {
        assert_eq!(
            media_type_or_default(&fields(json!({"mimeType": "text/csv"}))),
            "text/csv"
        );
        assert_eq!(
            media_type_or_default(&fields(json!({"mimeType": "text/csv; a=b"}))),
            DEFAULT_MEDIA_TYPE
        );
        assert_eq!(
            media_type_or_default(&fields(json!({"mimeType": 5}))),
            DEFAULT_MEDIA_TYPE
        );
        assert_eq!(
            media_type_or_default(&fields(json!({}))),
            DEFAULT_MEDIA_TYPE
        );
    }

    #[test]
    fn http_urls() {
        assert_eq!(http_url("https://e.com/f"), Some("https://e.com/f"));
        assert_eq!(http_url("HTTP://E.COM/x"), Some("HTTP://E.COM/x"));
        assert_eq!(http_url(" https://e.com/f "), Some(" https://e.com/f "));
        assert_eq!(http_url("http://"), None);
        assert_eq!(http_url("ftp://h/x.bin"), None);
        assert_eq!(http_url("file:///tmp/x"), None);
        assert_eq!(http_url("mailto:a@b"), None);
        assert_eq!(http_url("/relative"), None);
        assert_eq!(http_url(""), None);
    }

    #[test]
    fn filenames() {
        let cases = [
            (
                json!({"name": "report.pdf", "uri": "file:///x/y.pdf"}),
                "report.pdf",
            ),
            (json!({"name": "   ", "uri": "http://e.com/dl?id=1"}), "dl"),
            (
                json!({"name": "\u{85}", "uri": "file:///p/q.bin"}),
                "\u{85}",
            ),
            (
                json!({"name": "\u{feff}", "uri": "file:///p/q.bin"}),
                "q.bin",
            ),
            (json!({"name": 42, "uri": "https://e.com/a/b.txt"}), "b.txt"),
            (
                json!({"uri": "https://h.example/dir/my%20file.pdf?sig=1"}),
                "my file.pdf",
            ),
            (json!({"uri": "https://e.com/dir/a%2Fb.txt"}), "a/b.txt"),
            (json!({"uri": "https://e.com\\a\\b.txt"}), "b.txt"),
            (json!({"uri": "https://bücher.example/dir/ü.pdf"}), "ü.pdf"),
            (json!({"uri": "demo://resource/dynamic/blob/2"}), "2"),
            (json!({"uri": "mailto:a@b"}), "a@b"),
            // Decoding fails: the raw last piece of the whole URI, query included.
            (
                json!({"uri": "https://e.com/d/a%ZZ.txt?x=1"}),
                "a%ZZ.txt?x=1",
            ),
            (json!({"uri": "https://e.com/d/%C3%28"}), "%C3%28"),
            // Parses, but no path segment: no raw fallback.
            (json!({"uri": "https://e.com/"}), DEFAULT_FILENAME),
            (json!({"uri": "https://e.com//"}), DEFAULT_FILENAME),
            // Does not parse: raw last piece.
            (json!({"uri": "not a url/with/pieces/"}), "pieces"),
            (json!({"uri": "plain"}), "plain"),
            (json!({"uri": ""}), DEFAULT_FILENAME),
            (json!({"uri": "///"}), DEFAULT_FILENAME),
            (json!({"uri": 7}), DEFAULT_FILENAME),
            (json!({}), DEFAULT_FILENAME),
        ];
        for (input, want) in cases {
            assert_eq!(filename(&fields(input.clone())), want, "{input}");
        }
    }

    #[test]
    fn decode_uri_component_semantics() {
        assert_eq!(
            decode_uri_component("my%20file.pdf").as_deref(),
            Some("my file.pdf")
        );
        assert_eq!(
            decode_uri_component("a%2Fb%3f%23").as_deref(),
            Some("a/b?#")
        );
        assert_eq!(decode_uri_component("%C3%BC").as_deref(), Some("ü"));
        assert_eq!(decode_uri_component("%F0%9F%98%80").as_deref(), Some("😀"));
        assert_eq!(decode_uri_component("plain").as_deref(), Some("plain"));
        assert_eq!(decode_uri_component("%00").as_deref(), Some("\0"));
        for bad in [
            "%",
            "%2",
            "a%zz",
            "%C3",
            "%C3%28",
            "%C0%AF",
            "%ED%A0%80",
            "%F4%90%80%80",
            "%80",
            "100%",
        ] {
            assert_eq!(decode_uri_component(bad), None, "{bad}");
        }
    }
}
