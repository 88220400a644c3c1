//! A test browser for OAuth logins: plain HTTP/1.1 over [`TcpStream`], cookies kept, HTML
//! forms submitted, no JavaScript.
//!
//! [`authorize`] plays the user of an authorization code grant: it opens the authorization
//! URL, follows the redirects (keeping the cookies the authorization server sets), submits the
//! form of each page it lands on (a login or consent page) with the values the form holds, and
//! stops at the redirect to the request's own `redirect_uri` (a loopback callback such as
//! `http://127.0.0.1:PORT/callback`), which it returns without fetching. The caller hands that
//! URL to the client under test, or fetches it ([`Browser::get`]) when a listener waits
//! there, as `oma-mcp login` does.
//!
//! Only what the tests' authorization servers need: `http` URLs (no TLS), `Location`
//! redirects, `Set-Cookie` with `Path`, `Expires` and `Max-Age`, bodies with
//! `Content-Length`, chunked or ended by the connection's close, and forms of `<input>`
//! elements (`application/x-www-form-urlencoded`).

use std::fmt::Write as _;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long one request may take (connect, send, read the whole answer).
const TIMEOUT: Duration = Duration::from_secs(30);

/// How many requests one [`Browser::authorize`] makes at most (a redirect loop fails).
const MAX_STEPS: usize = 20;

/// An HTTP answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// The header fields in order, names lowercased.
    pub headers: Vec<(String, String)>,
    /// The body, as UTF-8 (lossy).
    pub body: String,
}

impl Response {
    /// The first header `name` (lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// An `http://host:port/path?query` URL, split.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Url {
    host: String,
    port: u16,
    /// The path and query, starting with `/`.
    target: String,
}

impl Url {
    fn parse(url: &str) -> Result<Self, String> {
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| format!("not an http URL: {url}"))?;
        let (authority, target) = match rest.find(['/', '?']) {
            Some(i) if rest[i..].starts_with('/') => (&rest[..i], rest[i..].to_owned()),
            Some(i) => (&rest[..i], format!("/{}", &rest[i..])),
            None => (rest, "/".to_owned()),
        };
        let target = target.split('#').next().unwrap_or("/").to_owned();
        let (host, port) = match authority.rsplit_once(':') {
            Some((host, port)) if !port.contains(']') => (
                host,
                port.parse()
                    .map_err(|_| format!("bad port in the URL {url}"))?,
            ),
            _ => (authority, 80),
        };
        if host.is_empty() || host.contains('@') {
            return Err(format!("unsupported authority in the URL {url}"));
        }
        Ok(Self {
            host: host.to_owned(),
            port,
            target,
        })
    }

    /// The path without the query.
    fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or("/")
    }

    /// `reference` (absolute, absolute-path or relative) resolved against this URL.
    fn join(&self, reference: &str) -> Result<Self, String> {
        if reference.starts_with("http://") {
            return Self::parse(reference);
        }
        if reference.contains("://") {
            return Err(format!("unsupported URL scheme: {reference}"));
        }
        let target = if reference.starts_with('/') {
            reference.to_owned()
        } else if reference.is_empty() {
            self.target.clone()
        } else if reference.starts_with('?') {
            format!("{}{reference}", self.path())
        } else {
            let path = self.path();
            let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
            format!("{dir}{reference}")
        };
        Ok(Self {
            host: self.host.clone(),
            port: self.port,
            target,
        })
    }
}

impl std::fmt::Display for Url {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "http://{}:{}{}", self.host, self.port, self.target)
    }
}

/// A cookie the browser holds.
#[derive(Debug, Clone)]
struct Cookie {
    host: String,
    name: String,
    value: String,
    path: String,
}

/// A browser session: its cookie jar and the requests it made.
#[derive(Debug, Default)]
pub struct Browser {
    cookies: Vec<Cookie>,
    /// `METHOD URL -> STATUS` of each request, for error messages (query strings cut).
    history: Vec<String>,
}

impl Browser {
    /// A browser with no cookies.
    pub fn new() -> Self {
        Self::default()
    }

    /// The requests made so far, one `METHOD URL -> STATUS` line each (queries left out).
    pub fn history(&self) -> &[String] {
        &self.history
    }

    /// `GET url` with the cookies for it; the cookies the answer sets are kept. Redirects are
    /// not followed.
    ///
    /// # Errors
    /// The URL is not `http`, the server cannot be reached, or its answer is not HTTP.
    pub fn get(&mut self, url: &str) -> Result<Response, String> {
        self.request("GET", &Url::parse(url)?, None)
    }

    /// Plays the user of an authorization code grant from `authorization_url` (see the module
    /// docs): returns the URL the authorization server redirected to, the request's
    /// `redirect_uri` with `code` and `state` (or `error`), without fetching it.
    ///
    /// # Errors
    /// The URL has no `redirect_uri`, a request fails, a page has no form to submit, an
    /// answer is neither a redirect nor a page with a form, or the redirects do not end
    /// within 20 requests; the message lists the requests made.
    pub fn authorize(&mut self, authorization_url: &str) -> Result<String, String> {
        let mut url = Url::parse(authorization_url)?;
        let redirect_uri = query_value(&url.target, "redirect_uri")
            .ok_or_else(|| format!("no redirect_uri in the authorization URL {url}"))?;
        let callback = Url::parse(&redirect_uri)?;
        let mut form: Option<Vec<(String, String)>> = None;
        for _ in 0..MAX_STEPS {
            let method = if form.is_some() { "POST" } else { "GET" };
            let response = self.request(method, &url, form.take().as_deref())?;
            if let Some(location) = response
                .header("location")
                .filter(|_| matches!(response.status, 301 | 302 | 303 | 307 | 308))
            {
                let next = url.join(location)?;
                if (&next.host, next.port, next.path())
                    == (&callback.host, callback.port, callback.path())
                {
                    return Ok(next.to_string());
                }
                url = next;
                continue;
            }
            if response.status != 200 {
                return Err(self.failed(&format!(
                    "the answer was HTTP {} without a redirect: {}",
                    response.status,
                    response.body.chars().take(500).collect::<String>()
                )));
            }
            let Some(page_form) = Form::first(&response.body) else {
                return Err(self.failed(&format!(
                    "the page has no form to submit: {}",
                    response.body.chars().take(500).collect::<String>()
                )));
            };
            if !page_form.method.eq_ignore_ascii_case("post") {
                let mut target = url.join(&page_form.action)?;
                let query = encode_form(&page_form.fields);
                target.target = format!("{}?{query}", target.path());
                url = target;
                continue;
            }
            url = url.join(&page_form.action)?;
            form = Some(page_form.fields);
        }
        Err(self.failed(&format!(
            "no redirect to {callback} within {MAX_STEPS} requests"
        )))
    }

    fn failed(&self, why: &str) -> String {
        format!("{why}\nrequests:\n{}", self.history.join("\n"))
    }

    /// One request (`form`: an urlencoded body), its cookies sent and kept.
    fn request(
        &mut self,
        method: &str,
        url: &Url,
        form: Option<&[(String, String)]>,
    ) -> Result<Response, String> {
        let shown = format!("{method} http://{}:{}{}", url.host, url.port, url.path());
        let response = self
            .send(method, url, form)
            .map_err(|e| self.failed(&format!("{shown}: {e}")))?;
        self.history.push(format!("{shown} -> {}", response.status));
        let now = unix_now();
        for (_, value) in response.headers.iter().filter(|(n, _)| n == "set-cookie") {
            self.set_cookie(url, value, now);
        }
        Ok(response)
    }

    fn send(
        &self,
        method: &str,
        url: &Url,
        form: Option<&[(String, String)]>,
    ) -> std::io::Result<Response> {
        let mut stream = TcpStream::connect((url.host.as_str(), url.port))?;
        stream.set_read_timeout(Some(TIMEOUT))?;
        stream.set_write_timeout(Some(TIMEOUT))?;
        let mut head = format!(
            "{method} {} HTTP/1.1\r\nHost: {}:{}\r\nConnection: close\r\nAccept: \
             text/html\r\nUser-Agent: oma-mcp-test-browser\r\n",
            url.target, url.host, url.port
        );
        let cookies = self.cookie_header(url);
        if !cookies.is_empty() {
            let _ = write!(head, "Cookie: {cookies}\r\n");
        }
        let body = form.map(encode_form).unwrap_or_default();
        if form.is_some() {
            let _ = write!(
                head,
                "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n",
                body.len()
            );
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes())?;
        stream.write_all(body.as_bytes())?;
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw)?;
        parse_response(&raw)
    }

    /// The `Cookie` header for `url`: the host's cookies whose path covers the URL's.
    fn cookie_header(&self, url: &Url) -> String {
        let path = url.path();
        self.cookies
            .iter()
            .filter(|c| c.host == url.host && path_matches(path, &c.path))
            .map(|c| format!("{}={}", c.name, c.value))
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// Keeps (or, when expired, removes) the cookie of a `Set-Cookie` header from `url`.
    fn set_cookie(&mut self, url: &Url, header: &str, now: i64) {
        let mut parts = header.split(';');
        let Some((name, value)) = parts.next().and_then(|p| p.split_once('=')) else {
            return;
        };
        let (name, value) = (name.trim().to_owned(), value.trim().to_owned());
        let request_path = url.path();
        let mut path = request_path[..request_path.rfind('/').unwrap_or(0).max(1)].to_owned();
        let mut expired = false;
        for attribute in parts {
            let (key, val) = attribute.split_once('=').unwrap_or((attribute, ""));
            match key.trim().to_ascii_lowercase().as_str() {
                "path" if val.trim().starts_with('/') => path = val.trim().to_owned(),
                "max-age" => expired |= val.trim().parse::<i64>().is_ok_and(|s| s <= 0),
                "expires" => expired |= http_date(val.trim()).is_some_and(|t| t <= now),
                _ => {}
            }
        }
        self.cookies
            .retain(|c| !(c.host == url.host && c.name == name && c.path == path));
        if !expired {
            self.cookies.push(Cookie {
                host: url.host.clone(),
                name,
                value,
                path,
            });
        }
    }
}

/// [`Browser::authorize`] with a new browser.
///
/// # Errors
/// As [`Browser::authorize`].
pub fn authorize(authorization_url: &str) -> Result<String, String> {
    Browser::new().authorize(authorization_url)
}

/// Whether a request path is within a cookie's path (RFC 6265 section 5.1.4).
fn path_matches(path: &str, cookie_path: &str) -> bool {
    path == cookie_path
        || path.starts_with(cookie_path)
            && (cookie_path.ends_with('/') || path[cookie_path.len()..].starts_with('/'))
}

/// The seconds since the Unix epoch now.
fn unix_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) as seconds since the Unix epoch.
fn http_date(value: &str) -> Option<i64> {
    let mut fields = value.split([' ', ':']).filter(|f| !f.is_empty()).skip(1);
    let day: i64 = fields.next()?.parse().ok()?;
    let month = fields.next()?;
    let month = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ]
    .iter()
    .position(|m| month.eq_ignore_ascii_case(m))? as i64
        + 1;
    let year: i64 = fields.next()?.parse().ok()?;
    let (h, m, s): (i64, i64, i64) = (
        fields.next()?.parse().ok()?,
        fields.next()?.parse().ok()?,
        fields.next()?.parse().ok()?,
    );
    // Days from the civil date (proleptic Gregorian calendar).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + h * 3600 + m * 60 + s)
}

/// Parses an HTTP/1.x answer read to its end.
fn parse_response(raw: &[u8]) -> std::io::Result<Response> {
    let bad = |why: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, why.to_owned());
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| bad("the answer has no end of headers"))?;
    let head = String::from_utf8_lossy(&raw[..end]);
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| bad("the answer has no status line"))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let mut body = &raw[end + 4..];
    let chunked = headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.eq_ignore_ascii_case("chunked"));
    let decoded;
    if chunked {
        decoded = dechunk(body).ok_or_else(|| bad("a malformed chunked body"))?;
        body = &decoded;
    } else if let Some(length) = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse::<usize>().ok())
    {
        body = &body[..length.min(body.len())];
    }
    Ok(Response {
        status,
        headers,
        body: String::from_utf8_lossy(body).into_owned(),
    })
}

/// The data of a chunked body.
fn dechunk(mut raw: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = raw.windows(2).position(|w| w == b"\r\n")?;
        let size_text = std::str::from_utf8(&raw[..line_end]).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        raw = &raw[line_end + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(raw.get(..size)?);
        raw = raw.get(size + 2..)?;
    }
}

/// An HTML form: where it goes and the values it sends.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Form {
    method: String,
    action: String,
    fields: Vec<(String, String)>,
}

impl Form {
    /// The first `<form>` of `html`, its `<input>` fields with a name (checkboxes and radio
    /// buttons only when checked; no buttons).
    fn first(html: &str) -> Option<Self> {
        let lower = html.to_ascii_lowercase();
        let start = lower.find("<form")?;
        let open_end = start + lower[start..].find('>')?;
        let end = lower[open_end..]
            .find("</form")
            .map_or(html.len(), |i| open_end + i);
        let form = attributes(&html[start + 5..open_end]);
        let attribute = |name: &str| form.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
        let mut fields = Vec::new();
        let mut rest = open_end;
        while let Some(i) = lower[rest..end].find("<input") {
            let tag_start = rest + i + 6;
            let tag_end = tag_start + lower[tag_start..end].find('>')?;
            let input = attributes(&html[tag_start..tag_end]);
            let get = |name: &str| input.iter().find(|(n, _)| n == name).map(|(_, v)| v);
            let kind = get("type").map_or("text".to_owned(), |t| t.to_ascii_lowercase());
            let checked = input.iter().any(|(n, _)| n == "checked");
            let skip = matches!(
                kind.as_str(),
                "submit" | "button" | "image" | "reset" | "file"
            ) || matches!(kind.as_str(), "checkbox" | "radio") && !checked;
            if let (Some(name), false) = (get("name"), skip) {
                let default = if matches!(kind.as_str(), "checkbox" | "radio") {
                    "on"
                } else {
                    ""
                };
                let value = get("value").map_or(default, String::as_str);
                fields.push((name.clone(), value.to_owned()));
            }
            rest = tag_end;
        }
        Some(Self {
            method: attribute("method").unwrap_or_else(|| "get".to_owned()),
            action: attribute("action").unwrap_or_default(),
            fields,
        })
    }
}

/// The attributes of a tag's inside (`name="value"`, `name='value'`, `name=value`, `name`),
/// names lowercased, values with character references decoded.
fn attributes(tag: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = tag.trim_start();
    while !rest.is_empty() {
        let name_end = rest
            .find(|c: char| c.is_whitespace() || c == '=' || c == '/')
            .unwrap_or(rest.len());
        let name = rest[..name_end].to_ascii_lowercase();
        rest = rest[name_end..].trim_start();
        let mut value = String::new();
        if let Some(after) = rest.strip_prefix('=') {
            let after = after.trim_start();
            let (raw, remaining) = match after.chars().next() {
                Some(quote @ ('"' | '\'')) => {
                    let inner = &after[1..];
                    let close = inner.find(quote).unwrap_or(inner.len());
                    (&inner[..close], inner.get(close + 1..).unwrap_or(""))
                }
                _ => {
                    let close = after.find(char::is_whitespace).unwrap_or(after.len());
                    (&after[..close], &after[close..])
                }
            };
            value = decode_entities(raw);
            rest = remaining;
        } else if name.is_empty() {
            // A stray `/` (self-closing tag).
            rest = rest.get(1..).unwrap_or("");
        }
        if !name.is_empty() {
            out.push((name, value));
        }
        rest = rest.trim_start();
    }
    out
}

/// `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;` and numeric character references decoded.
fn decode_entities(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let Some(end) = rest.find(';').filter(|&e| e <= 10) else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let entity = &rest[1..end];
        let decoded = match entity {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => entity
                .strip_prefix("#x")
                .or_else(|| entity.strip_prefix("#X"))
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| entity.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// `application/x-www-form-urlencoded` of `fields`.
fn encode_form(fields: &[(String, String)]) -> String {
    fields
        .iter()
        .map(|(n, v)| format!("{}={}", form_encode(n), form_encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

fn form_encode(text: &str) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                out.push(char::from(byte));
            }
            b' ' => out.push('+'),
            _ => {
                let _ = write!(out, "%{byte:02X}");
            }
        }
    }
    out
}

/// The decoded value of query parameter `name` in a request target.
fn query_value(target: &str, name: &str) -> Option<String> {
    let query = target.split_once('?')?.1;
    query.split('&').find_map(|pair| {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        (percent_decode(key) == name).then(|| percent_decode(value))
    })
}

fn percent_decode(text: &str) -> String {
    let hex = |b: u8| char::from(b).to_digit(16);
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(high), Some(low)) => {
                    out.push(u8::try_from(high * 16 + low).unwrap_or(b'?'));
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_and_join() {
        let base = Url::parse("http://localhost:4000/auth/abc?x=1#f").unwrap();
        assert_eq!(
            (base.host.as_str(), base.port, base.target.as_str()),
            ("localhost", 4000, "/auth/abc?x=1")
        );
        assert_eq!(
            base.join("/interaction/u1").unwrap().to_string(),
            "http://localhost:4000/interaction/u1"
        );
        assert_eq!(
            base.join("next").unwrap().to_string(),
            "http://localhost:4000/auth/next"
        );
        assert_eq!(
            base.join("http://127.0.0.1:5/cb?code=1")
                .unwrap()
                .to_string(),
            "http://127.0.0.1:5/cb?code=1"
        );
        assert_eq!(
            Url::parse("http://h?q=1").unwrap().to_string(),
            "http://h:80/?q=1"
        );
        assert!(Url::parse("https://h/").is_err());
    }

    #[test]
    fn forms_are_read_with_their_values() {
        let html = r#"<p>x</p><FORM method="post" action="/interaction/a&#38;b">
            <input type="text" name="login" value="test-user">
            <input type=hidden name='approve' value=yes />
            <input type="checkbox" name="remember">
            <input type="checkbox" name="agree" checked>
            <input type="submit" name="go" value="Go">
            <button type="submit">Sign in</button></form>"#;
        assert_eq!(
            Form::first(html),
            Some(Form {
                method: "post".to_owned(),
                action: "/interaction/a&b".to_owned(),
                fields: vec![
                    ("login".to_owned(), "test-user".to_owned()),
                    ("approve".to_owned(), "yes".to_owned()),
                    ("agree".to_owned(), "on".to_owned()),
                ],
            })
        );
        assert_eq!(Form::first("<p>no form</p>"), None);
        assert_eq!(
            encode_form(&[("a b".to_owned(), "x&y=é".to_owned())]),
            "a+b=x%26y%3D%C3%A9"
        );
    }

    #[test]
    fn cookies_follow_path_and_expiry() {
        let mut browser = Browser::new();
        let url = Url::parse("http://localhost:1/auth/abc").unwrap();
        let now = 1_000_000_000;
        browser.set_cookie(&url, "a=1; path=/interaction/u; httponly", now);
        browser.set_cookie(&url, "b=2", now);
        browser.set_cookie(
            &url,
            "c=3; path=/; expires=Sun, 06 Dec 2099 03:14:36 GMT",
            now,
        );
        let at = |browser: &Browser, path: &str| browser.cookie_header(&url.join(path).unwrap());
        assert_eq!(at(&browser, "/interaction/u"), "a=1; c=3");
        assert_eq!(at(&browser, "/interaction/u/x"), "a=1; c=3");
        assert_eq!(at(&browser, "/interaction/uv"), "c=3");
        assert_eq!(at(&browser, "/auth/def"), "b=2; c=3");
        assert_eq!(at(&browser, "/other"), "c=3");
        browser.set_cookie(
            &url,
            "c=; path=/; expires=Thu, 01 Jan 1970 00:00:00 GMT",
            now,
        );
        browser.set_cookie(&url, "b=; max-age=0", now);
        assert_eq!(at(&browser, "/auth/def"), "");
        let other_host = Url::parse("http://127.0.0.1:1/interaction/u").unwrap();
        assert_eq!(browser.cookie_header(&other_host), "");
    }

    #[test]
    fn dates_bodies_and_queries() {
        assert_eq!(
            http_date("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(784_111_777)
        );
        assert_eq!(http_date("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
        assert_eq!(http_date("yesterday"), None);
        let response =
            parse_response(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x\r\nde\r\n0\r\n\r\n")
                .unwrap();
        assert_eq!((response.status, response.body.as_str()), (200, "abcde"));
        let response = parse_response(
            b"HTTP/1.1 303 See Other\r\nLocation: /x\r\nContent-Length: 2\r\n\r\nokextra",
        )
        .unwrap();
        assert_eq!(
            (
                response.status,
                response.header("location"),
                response.body.as_str()
            ),
            (303, Some("/x"), "ok")
        );
        assert_eq!(
            query_value(
                "/auth?client_id=c&redirect_uri=http%3A%2F%2F127.0.0.1%3A5%2Fcallback",
                "redirect_uri"
            )
            .as_deref(),
            Some("http://127.0.0.1:5/callback")
        );
        assert_eq!(query_value("/auth?a=1", "redirect_uri"), None);
        assert_eq!(percent_decode("a%2"), "a%2");
    }
}
