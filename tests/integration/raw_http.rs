//! Plain HTTP/1.1 requests (hyper's client connection, one connection per request) and a
//! small SSE reader: what the HTTP server tests need to check the servers themselves, without
//! oma-mcp's client.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::{Method, Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::Value;

/// What every request waits at most.
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// The `Accept` of an MCP POST (MCP 2025-03-26 and later).
pub const ACCEPT_BOTH: &str = "application/json, text/event-stream";

/// A whole response.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: hyper::HeaderMap,
    pub body: String,
}

impl Reply {
    /// A header's value as text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The `Content-Type` without parameters.
    pub fn content_type(&self) -> &str {
        self.header("content-type")
            .map_or("", |t| t.split(';').next().unwrap_or("").trim())
    }

    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    /// The SSE events of the body.
    pub fn events(&self) -> Vec<Event> {
        events(&self.body)
    }

    /// The JSON-RPC messages: the body itself when it is JSON, else the data of every SSE
    /// event that has any (priming events have none).
    pub fn messages(&self) -> Vec<Value> {
        if self.content_type() == "application/json" {
            return vec![self.json()];
        }
        self.events()
            .into_iter()
            .filter(|e| !e.data.is_empty())
            .map(|e| {
                serde_json::from_str(&e.data)
                    .unwrap_or_else(|err| panic!("event data is not JSON ({err}): {}", e.data))
            })
            .collect()
    }
}

/// One SSE event (comments are counted in `comments`).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Event {
    pub id: Option<String>,
    pub retry: Option<u64>,
    pub data: String,
    pub comments: usize,
}

/// Splits an SSE text into events (as the HTML standard's parser does, for what the servers
/// send: `id`, `retry`, `data` and comment lines).
pub fn events(text: &str) -> Vec<Event> {
    let mut out = Vec::new();
    let mut event = Event::default();
    let mut data: Vec<&str> = Vec::new();
    let mut seen = false;
    for line in text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)) {
        if line.is_empty() {
            if seen {
                event.data = data.join("\n");
                out.push(std::mem::take(&mut event));
                data.clear();
                seen = false;
            }
            continue;
        }
        seen = true;
        if line.starts_with(':') {
            event.comments += 1;
            continue;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "id" => event.id = Some(value.to_owned()),
            "retry" => event.retry = value.parse().ok(),
            "data" => data.push(value),
            _ => {}
        }
    }
    out
}

/// Sends a request and returns the response head, its body still streaming.
pub async fn open(
    url: &str,
    method: Method,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> Response<Incoming> {
    let uri: hyper::Uri = url.parse().unwrap();
    let authority = uri.authority().unwrap().clone();
    let stream = tokio::net::TcpStream::connect(authority.as_str())
        .await
        .unwrap_or_else(|e| panic!("cannot connect to {url}: {e}"));
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(connection);
    let mut request = Request::builder()
        .method(method)
        .uri(uri.path_and_query().map_or("/", |p| p.as_str()))
        .header("host", authority.as_str());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let body = match body {
        Some(body) => {
            request = request.header("content-type", "application/json");
            http_body_util::Full::new(Bytes::from(body.to_string()))
        }
        None => http_body_util::Full::new(Bytes::new()),
    };
    tokio::time::timeout(TIMEOUT, sender.send_request(request.body(body).unwrap()))
        .await
        .expect("no response head in time")
        .unwrap()
}

/// Sends a request and reads the whole response.
pub async fn request(
    url: &str,
    method: Method,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> Reply {
    read(open(url, method, headers, body).await).await
}

/// Reads the rest of a response [`open`] returned.
pub async fn read(response: Response<Incoming>) -> Reply {
    let (parts, body) = response.into_parts();
    let body = tokio::time::timeout(TIMEOUT, body.collect())
        .await
        .expect("no whole body in time")
        .unwrap()
        .to_bytes();
    Reply {
        status: parts.status.as_u16(),
        headers: parts.headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    }
}

/// POSTs an MCP message with `Accept: application/json, text/event-stream` and `headers`.
pub async fn post(url: &str, headers: &[(&str, &str)], message: &Value) -> Reply {
    let mut all = vec![("accept", ACCEPT_BOTH)];
    all.extend_from_slice(headers);
    request(url, Method::POST, &all, Some(message)).await
}

/// The next data chunk of a streaming body: `Some(Ok)` data, `Some(Err)` the connection
/// failed, `None` the body ended; panics after `wait`.
pub async fn next_chunk(
    body: &mut Incoming,
    wait: Duration,
) -> Option<Result<Bytes, hyper::Error>> {
    loop {
        let frame = tokio::time::timeout(wait, body.frame())
            .await
            .expect("no chunk in time")?;
        match frame {
            Ok(frame) => {
                if let Ok(data) = frame.into_data() {
                    return Some(Ok(data));
                }
            }
            Err(e) => return Some(Err(e)),
        }
    }
}

/// The `_log` of a fault server at `url` (its `/mcp` URL).
pub async fn log(url: &str) -> Vec<Value> {
    let url = url.replace("/mcp", "/_log");
    let reply = request(&url, Method::GET, &[], None).await;
    assert_eq!(reply.status, 200);
    match reply.json() {
        Value::Array(entries) => entries,
        other => panic!("not an array: {other}"),
    }
}

#[test]
fn sse_parsing() {
    let text = "data: \nid: 0\nretry: 3000\n\n: keepalive\n\nid: 1-2\r\ndata: {\"a\":1}\r\n\r\n\
                data: a\ndata: b\n\n";
    assert_eq!(
        events(text),
        [
            Event {
                id: Some("0".into()),
                retry: Some(3000),
                ..Event::default()
            },
            Event {
                comments: 1,
                ..Event::default()
            },
            Event {
                id: Some("1-2".into()),
                data: "{\"a\":1}".into(),
                ..Event::default()
            },
            Event {
                data: "a\nb".into(),
                ..Event::default()
            },
        ]
    );
}
