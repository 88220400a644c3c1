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
}
