//! The scripted HTTP/1.1 server the transport's tests run against: it answers each request
//! from the test's script, records every request, and can hold an answer back until another
//! request came ([`after`]).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::error::ConnectError;
use crate::{ConnectConfig, Error, Lifecycle, McpClient, connect_mcp_tools};

/// One request as the server read it.
#[derive(Debug, Clone)]
pub(super) struct Request {
    /// When the request's head arrived.
    pub(super) at: std::time::Instant,
    pub(super) method: String,
    pub(super) path: String,
    pub(super) headers: Vec<(String, String)>,
    pub(super) body: Value,
}

impl Request {
    pub(super) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The JSON-RPC method of a `POST`, `-` for a response, and the HTTP method otherwise.
    pub(super) fn what(&self) -> String {
        match (self.method.as_str(), self.body["method"].as_str()) {
            ("POST", Some(method)) => method.to_owned(),
            ("POST", None) => "-".to_owned(),
            (other, _) => other.to_owned(),
        }
    }

    pub(super) fn id(&self) -> u64 {
        self.body["id"].as_u64().unwrap_or(0)
    }
}

/// A scripted server: the answer to each request comes from its script, given the request and
/// how many requests of the same [`Request::what`] came before it.
pub(super) struct Script {
    pub(super) url: String,
    pub(super) log: Arc<Mutex<Vec<Request>>>,
    pub(super) task: tokio::task::JoinHandle<()>,
}

pub(super) type Answer = dyn Fn(&Request, usize) -> Vec<u8> + Send + Sync;

/// The mark of an answer to hold back until the server saw a request (see [`after`]).
pub(super) const AFTER: &[u8] = b"after ";

/// The mark of an SSE answer that stays open (see [`open_stream`]).
pub(super) const OPEN: &[u8] = b"open\n";

/// The head of an SSE answer and a comment, then nothing: the stream stays open until the
/// client closes its connection, which the log records as a request `CLOSED` whose path is
/// what the stream answered.
pub(super) fn open_stream() -> Vec<u8> {
    let mut marked = OPEN.to_vec();
    marked.extend_from_slice(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n\
          d\r\n: keep going\n\r\n",
    );
    marked
}

/// The mark of an answer to hold back for a time (see [`paused`]).
pub(super) const PAUSE: &[u8] = b"pause ";

/// `bytes`, written `ms` milliseconds after the request came.
pub(super) fn paused(ms: u64, bytes: Vec<u8>) -> Vec<u8> {
    let mut marked = format!("pause {ms}\n").into_bytes();
    marked.extend(bytes);
    marked
}

/// `bytes`, written once the server has seen `count` requests of the kind `what` (a
/// [`Request::what`]): an answer on the server's stream to a request sent after it opened.
pub(super) fn after(what: &str, count: usize, bytes: Vec<u8>) -> Vec<u8> {
    let mut marked = format!("after {what} {count}\n").into_bytes();
    marked.extend(bytes);
    marked
}

impl Script {
    pub(super) async fn start(
        answer: impl Fn(&Request, usize) -> Vec<u8> + Send + Sync + 'static,
    ) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let log = Arc::new(Mutex::new(Vec::new()));
        let answer: Arc<Answer> = Arc::new(answer);
        let task = tokio::spawn({
            let log = log.clone();
            async move {
                while let Ok((stream, _)) = listener.accept().await {
                    tokio::spawn(connection(stream, answer.clone(), log.clone()));
                }
            }
        });
        Self { url, log, task }
    }

    /// What came but `GET`s (whose timing is the stream's), in order: each
    /// [`Request::what`], with ` @<session id>` when it carried one.
    pub(super) fn seen(&self) -> Vec<String> {
        self.requests()
            .iter()
            .filter(|r| r.method != "GET")
            .map(|r| match r.header("mcp-session-id") {
                Some(session) => format!("{} @{session}", r.what()),
                None => r.what(),
            })
            .collect()
    }

    pub(super) fn requests(&self) -> Vec<Request> {
        self.log.lock().unwrap().clone()
    }

    /// The settings of a client of the server: the `initialize` lifecycle, a short request
    /// timeout and a message size limit of 1000 bytes.
    pub(super) fn config(&self) -> ConnectConfig {
        ConnectConfig::http(&self.url)
            .with_lifecycle(Lifecycle::Initialize)
            .with_request_timeout(Duration::from_secs(3))
            .with_max_message_size(1000)
    }

    /// A client of the server with [`Script::config`].
    pub(super) async fn connect(&self) -> Result<McpClient, Error> {
        connect_mcp_tools(self.config()).await
    }
}

impl Drop for Script {
    fn drop(&mut self) {
        self.task.abort();
    }
}

pub(super) async fn connection(
    mut stream: TcpStream,
    answer: Arc<Answer>,
    log: Arc<Mutex<Vec<Request>>>,
) {
    let mut buf = Vec::new();
    while let Some(request) = read_request(&mut stream, &mut buf).await {
        let count = {
            let mut log = log.lock().unwrap();
            let count = log.iter().filter(|r| r.what() == request.what()).count();
            log.push(request.clone());
            count
        };
        let mut bytes = answer(&request, count);
        if let Some(rest) = bytes.strip_prefix(PAUSE) {
            let line_end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
            let ms: u64 = String::from_utf8_lossy(&rest[..line_end]).parse().unwrap();
            tokio::time::sleep(Duration::from_millis(ms)).await;
            bytes = rest[line_end + 1..].to_vec();
        }
        if let Some(rest) = bytes.strip_prefix(AFTER) {
            let line_end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
            let mark = String::from_utf8_lossy(&rest[..line_end]).into_owned();
            let (what, count) = mark.rsplit_once(' ').unwrap();
            let count: usize = count.parse().unwrap();
            for _ in 0..500 {
                if log
                    .lock()
                    .unwrap()
                    .iter()
                    .filter(|r| r.what() == what)
                    .count()
                    >= count
                {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            bytes = rest[line_end + 1..].to_vec();
        }
        if let Some(rest) = bytes.strip_prefix(OPEN) {
            if stream.write_all(rest).await.is_ok() {
                // Nothing more comes from the client on this connection: wait for its end.
                let mut byte = [0u8; 1];
                while matches!(stream.read(&mut byte).await, Ok(n) if n > 0) {}
            }
            log.lock().unwrap().push(Request {
                at: std::time::Instant::now(),
                method: "CLOSED".to_owned(),
                path: request.what(),
                headers: Vec::new(),
                body: Value::Null,
            });
            return;
        }
        if stream.write_all(&bytes).await.is_err() {
            return;
        }
    }
}

pub(super) async fn read_request(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Option<Request> {
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = stream.read(&mut chunk).await.ok().filter(|&n| n > 0)?;
        buf.extend_from_slice(&chunk[..n]);
    };
    let at = std::time::Instant::now();
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.lines();
    let mut request_line = lines.next()?.split(' ');
    let method = request_line.next()?.to_owned();
    let path = request_line.next()?.to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let length = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        let n = stream.read(&mut chunk).await.ok().filter(|&n| n > 0)?;
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = serde_json::from_slice(&buf[head_end..head_end + length]).unwrap_or(Value::Null);
    buf.drain(..head_end + length);
    Some(Request {
        at,
        method,
        path,
        headers,
        body,
    })
}

/// An HTTP response with `status`, extra `headers` and `body` (with its `Content-Length`).
pub(super) fn response(status: u16, headers: &[(&str, &str)], body: &str) -> Vec<u8> {
    let mut text = format!("HTTP/1.1 {status} Scripted\r\n");
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    text.into_bytes()
}

pub(super) fn json_response(status: u16, headers: &[(&str, &str)], body: &Value) -> Vec<u8> {
    let mut all = vec![("Content-Type", "application/json")];
    all.extend_from_slice(headers);
    response(status, &all, &body.to_string())
}

pub(super) fn sse_response(events: &str) -> Vec<u8> {
    response(200, &[("Content-Type", "text/event-stream")], events)
}

pub(super) fn accepted() -> Vec<u8> {
    response(202, &[], "")
}

pub(super) fn not_allowed() -> Vec<u8> {
    response(405, &[("Allow", "POST")], "")
}

/// The answer to `initialize`, with `session` as its `Mcp-Session-Id` when given.
pub(super) fn initialized(request: &Request, session: Option<&str>) -> Vec<u8> {
    let headers: Vec<(&str, &str)> = session.map(|s| ("Mcp-Session-Id", s)).into_iter().collect();
    json_response(
        200,
        &headers,
        &json!({"jsonrpc": "2.0", "id": request.id(), "result": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "scripted", "version": "1"}
        }}),
    )
}

/// A `tools/list` result of the tools named `names`.
pub(super) fn tools(request: &Request, names: &[&str]) -> Value {
    let tools: Vec<Value> = names
        .iter()
        .map(|n| json!({"name": n, "inputSchema": {"type": "object"}}))
        .collect();
    json!({"jsonrpc": "2.0", "id": request.id(), "result": {"tools": tools}})
}

pub(super) fn names(tools: &[Value]) -> Vec<&str> {
    tools.iter().filter_map(|t| t["name"].as_str()).collect()
}

/// A server without sessions that answers the second `tools/list` (the first after
/// connecting) with `second` and every `GET` with `get`; the other `tools/list`s list no
/// tools.
pub(super) async fn answering(
    second: impl Fn(&Request) -> Vec<u8> + Send + Sync + 'static,
    get: impl Fn(&Request) -> Vec<u8> + Send + Sync + 'static,
) -> Script {
    Script::start(move |r, n| match (r.what().as_str(), n) {
        ("initialize", _) => initialized(r, None),
        ("tools/list", 1) => second(r),
        ("tools/list", _) => json_response(200, &[], &tools(r, &[])),
        ("GET", _) => get(r),
        _ => accepted(),
    })
    .await
}

/// The status and reason of a [`ConnectError::Http`].
pub(super) fn http_error(error: &Error) -> (Option<u16>, String) {
    match error {
        Error::Connect(ConnectError::Http { status, reason, .. }) => (*status, reason.clone()),
        other => panic!("not an HTTP error: {other:?}"),
    }
}
