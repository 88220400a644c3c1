//! URLs as they may be shown: credentials in userinfo and query values replaced by `***`.
//!
//! A pinned server's URL can carry a credential (`https://user:token@host/…`, `?api_key=…`);
//! everything oma-mcp records or prints (a snapshot's `source`, generated code, errors, logs)
//! passes it through [`redact_url`] first.

/// `url` as it may be recorded or shown (in a snapshot's source, generated code, messages and
/// logs): userinfo (`user:password@`) becomes `***@` and every query value becomes `***`
/// (`?key=***`), as either may hold a credential; the fragment is dropped (it is never sent).
/// Text that is not an absolute URL becomes `<invalid URL>` (it could hold anything).
///
/// ```
/// use oma_mcp_core::redact::redact_url;
/// assert_eq!(
///     redact_url("https://me:s3cret@mcp.example.com/mcp?api_key=abc&v=2#top"),
///     "https://***@mcp.example.com/mcp?api_key=***&v=***"
/// );
/// assert_eq!(redact_url("http://127.0.0.1:8080/mcp"), "http://127.0.0.1:8080/mcp");
/// ```
pub fn redact_url(url: &str) -> String {
    let Ok(mut parsed) = url::Url::parse(url) else {
        return "<invalid URL>".to_owned();
    };
    let had_userinfo = !parsed.username().is_empty() || parsed.password().is_some();
    if had_userinfo {
        // Cannot fail for a URL with a host (userinfo needs one).
        let _ = parsed.set_password(None);
        let _ = parsed.set_username("***");
    }
    if parsed.query().is_some() {
        let keys: Vec<String> = parsed.query_pairs().map(|(k, _)| k.into_owned()).collect();
        let query = keys
            .iter()
            .map(|k| {
                format!(
                    "{}=***",
                    percent_encoding::utf8_percent_encode(k, QUERY_KEY)
                )
            })
            .collect::<Vec<_>>()
            .join("&");
        parsed.set_query(Some(&query));
    }
    parsed.set_fragment(None);
    parsed.to_string()
}

/// What of `url`, a URL as recorded, is not redacted as [`redact_url`] redacts it: `userinfo`
/// when it has userinfo other than `***`, and `the value of the query parameter "KEY"` for
/// each query value other than `***`; `text that is not a URL` for text that is neither an
/// absolute URL nor `<invalid URL>`. Empty for a URL [`redact_url`] wrote. The parts are
/// named, never their values.
///
/// ```
/// use oma_mcp_core::redact::{redact_url, unredacted};
/// let url = "https://me:s3cret@mcp.example.com/mcp?api_key=abc&v=2";
/// assert_eq!(
///     unredacted(url),
///     [
///         "userinfo",
///         "the value of the query parameter \"api_key\"",
///         "the value of the query parameter \"v\""
///     ]
/// );
/// assert!(unredacted(&redact_url(url)).is_empty());
/// ```
pub fn unredacted(url: &str) -> Vec<String> {
    if url == "<invalid URL>" {
        return Vec::new();
    }
    let Ok(parsed) = url::Url::parse(url) else {
        return vec!["text that is not a URL".to_owned()];
    };
    let mut parts = Vec::new();
    if (!parsed.username().is_empty() && parsed.username() != "***") || parsed.password().is_some()
    {
        parts.push("userinfo".to_owned());
    }
    for (key, value) in parsed.query_pairs() {
        if value != "***" {
            parts.push(format!(
                "the value of the query parameter {}",
                crate::quote::quoted(&key)
            ));
        }
    }
    parts
}

/// What is escaped in a redacted query key: controls, space and the query delimiters.
const QUERY_KEY: &percent_encoding::AsciiSet = &percent_encoding::CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'&')
    .add(b'=')
    .add(b'<')
    .add(b'>');

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_userinfo_and_query_values() {
        assert_eq!(
            redact_url("https://tok@h.example/mcp?token=x"),
            "https://***@h.example/mcp?token=***"
        );
        assert_eq!(
            redact_url("https://h.example/?a"),
            "https://h.example/?a=***"
        );
        assert_eq!(redact_url("not a url s3cret"), "<invalid URL>");
        assert_eq!(
            redact_url("https://h.example/a%20b?x%26y=1"),
            "https://h.example/a%20b?x%26y=***"
        );
    }

    /// Every URL `redact_url` writes is redacted; userinfo, each query value and text that is
    /// not a URL are named, never shown.
    #[test]
    fn unredacted_names_the_parts_that_may_hold_a_credential() {
        for url in [
            "https://tok@h.example/mcp?token=x",
            "https://u:p@h.example/?a",
            "not a url",
            "http://127.0.0.1:8080/mcp",
        ] {
            assert_eq!(unredacted(&redact_url(url)), Vec::<String>::new(), "{url}");
        }
        assert_eq!(unredacted("https://u@h.example/"), ["userinfo"]);
        assert_eq!(unredacted("https://***:pw@h.example/"), ["userinfo"]);
        assert_eq!(
            unredacted("https://h.example/?key=***&sig=abc"),
            ["the value of the query parameter \"sig\""]
        );
        assert_eq!(unredacted("h.example/mcp"), ["text that is not a URL"]);
    }
}
