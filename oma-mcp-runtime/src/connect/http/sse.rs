//! Reading an SSE response (`text/event-stream`, WHATWG HTML "Server-sent events", parsed by
//! `sse-stream`): each event's `data` goes to the [`Inbox`], raw, as a stdout line would; the
//! answers to the server's requests go back through the transport's [`Queue`]. One event is
//! bounded by the message size limit before the parser sees its end ([`EventCap`]).

use std::time::Duration;

use futures_util::StreamExt as _;
use reqwest::Response;

use super::super::inbox::Inbox;
use super::outgoing::Queue;
use crate::quote::cut;

/// The wait before resuming a stream whose events set no `retry`.
pub(super) const DEFAULT_RETRY: Duration = Duration::from_secs(1);

/// Extra bytes an SSE event may take beyond its data (field names, `id`, line ends).
const EVENT_OVERHEAD: usize = 64 * 1024;

/// How an SSE response ended.
#[derive(Debug)]
pub(crate) enum StreamEnd {
    /// The request it carried was answered.
    Answered,
    /// An event was over the size limit.
    TooLarge,
    /// The body broke (connection reset, invalid UTF-8 in a field).
    Broken(String),
    /// The server closed it.
    Ended {
        /// The `id` of the last event that had one: where to resume.
        last_event_id: Option<String>,
        /// The last `retry` an event set: how long to wait before resuming.
        retry: Option<Duration>,
        /// How many events it carried.
        events: usize,
    },
}

/// Why the byte stream under the SSE parser stopped.
#[derive(Debug)]
enum StreamError {
    TooLarge,
    Body(String),
}

impl std::fmt::Display for StreamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StreamError::TooLarge => f.write_str("an SSE event over the message size limit"),
            StreamError::Body(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for StreamError {}

/// Counts the bytes of the SSE event being received (since the last blank line) so one event
/// cannot grow without bound before the parser sees its end.
struct EventCap {
    limit: usize,
    in_event: usize,
    at_line_start: bool,
    after_cr: bool,
}

impl EventCap {
    fn new(limit: usize) -> Self {
        Self {
            limit,
            in_event: 0,
            at_line_start: true,
            after_cr: false,
        }
    }

    fn check(&mut self, chunk: &[u8]) -> Result<(), StreamError> {
        for &byte in chunk {
            match byte {
                b'\n' if self.after_cr => self.after_cr = false,
                b'\n' | b'\r' => {
                    if self.at_line_start {
                        self.in_event = 0;
                    }
                    self.at_line_start = true;
                    self.after_cr = byte == b'\r';
                }
                _ => {
                    self.at_line_start = false;
                    self.after_cr = false;
                    self.in_event += 1;
                }
            }
        }
        if self.in_event > self.limit {
            Err(StreamError::TooLarge)
        } else {
            Ok(())
        }
    }
}

/// Routes the events of one SSE response into `inbox` (a message's data is at most `limit`
/// bytes) until it ends or, with `id`, until that request is answered.
pub(super) async fn read_events(
    response: Response,
    limit: usize,
    inbox: &Inbox,
    queue: &Queue,
    id: Option<u64>,
) -> StreamEnd {
    each_message(response, limit, &inbox.server, |data| {
        if let Some(answer) = data.and_then(|data| inbox.receive(data.as_bytes())) {
            queue.respond(answer);
        }
        id.is_some_and(|id| !inbox.is_pending(id))
    })
    .await
}

/// Reads the events of one SSE response of `server`, each event's data at most `limit`
/// bytes, and calls `on_event` after each event with the JSON-RPC message it carries (`None`
/// for an event without data or a keep-alive, [`keep_alive`]), and once more with `None`
/// when the stream ends; `on_event` returns whether the stream has served its purpose (the
/// request it carried was answered), which ends it as [`StreamEnd::Answered`].
pub(crate) async fn each_message(
    response: Response,
    limit: usize,
    server: &str,
    mut on_event: impl FnMut(Option<&str>) -> bool,
) -> StreamEnd {
    let mut cap = EventCap::new(limit.saturating_add(EVENT_OVERHEAD));
    let bytes = response.bytes_stream().map(move |chunk| match chunk {
        Ok(chunk) => cap.check(&chunk).map(|()| chunk),
        // With its causes: reqwest's own message ("error decoding response body") does
        // not say what happened to the connection.
        Err(e) => Err(StreamError::Body(
            crate::error::Chain(&e.without_url()).to_string(),
        )),
    });
    let mut events = std::pin::pin!(sse_stream::SseByteStream::new(bytes));
    let mut last_event_id = None;
    let mut retry = None;
    let mut count = 0usize;
    while let Some(event) = events.next().await {
        match event {
            Ok(event) => {
                count += 1;
                if let Some(event_id) = event.id {
                    last_event_id = Some(event_id);
                }
                if let Some(ms) = event.retry {
                    retry = Some(Duration::from_millis(ms));
                }
                let mut message = None;
                if let Some(data) = &event.data {
                    if data.len() > limit {
                        return StreamEnd::TooLarge;
                    }
                    if let Some(kind) = keep_alive(event.event.as_deref(), data) {
                        tracing::debug!(
                            server = %server,
                            "skipped an SSE event that carries no JSON-RPC message ({kind}): {}",
                            cut(data, KEEP_ALIVE_EXCERPT)
                        );
                    } else {
                        message = Some(data.as_str());
                    }
                }
                if on_event(message) {
                    return StreamEnd::Answered;
                }
            }
            Err(sse_stream::Error::Body(e))
                if e.downcast_ref::<StreamError>()
                    .is_some_and(|e| matches!(e, StreamError::TooLarge)) =>
            {
                return StreamEnd::TooLarge;
            }
            // The body's own error, without the SSE parser's `body error: ` in front.
            Err(sse_stream::Error::Body(e)) => return StreamEnd::Broken(e.to_string()),
            Err(e) => return StreamEnd::Broken(e.to_string()),
        }
    }
    if on_event(None) {
        return StreamEnd::Answered;
    }
    StreamEnd::Ended {
        last_event_id,
        retry,
        events: count,
    }
}

/// The most chars of a keep-alive event's data a debug log quotes.
const KEEP_ALIVE_EXCERPT: usize = 80;

/// Why an SSE event with `data` is a keep-alive rather than a message, or `None`: an event
/// type other than `message` (`ping`, `keepalive`; the WHATWG default type is `message`, and
/// the MCP streamable HTTP transport sends JSON-RPC messages as plain events, so the
/// TypeScript SDK reads no other type either), or data that is empty or `{}`. Comments and
/// bare `retry:` lines carry no data and never reach the inbox at all.
fn keep_alive(event: Option<&str>, data: &str) -> Option<String> {
    match event {
        Some(kind) if !kind.is_empty() && kind != "message" => {
            Some(format!("`event: {}`", cut(kind, KEEP_ALIVE_EXCERPT)))
        }
        _ => match data.trim() {
            "" => Some("empty data".to_owned()),
            "{}" => Some("data `{}`".to_owned()),
            _ => None,
        },
    }
}

/// Reads an SSE response up to its first event with data, unrouted (the answer to the
/// `initialize` replayed for a new session: its id belongs to the first handshake).
pub(super) async fn skip_to_first_message(response: Response) {
    let events = response
        .bytes_stream()
        .map(|chunk| chunk.map_err(|e| StreamError::Body(e.without_url().to_string())));
    let mut events = std::pin::pin!(sse_stream::SseByteStream::new(events));
    while let Some(Ok(event)) = events.next().await {
        if event.data.is_some_and(|d| !d.is_empty()) {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keep_alives_are_events_of_another_type_or_without_a_message() {
        assert_eq!(
            keep_alive(Some("ping"), "{}").as_deref(),
            Some("`event: ping`")
        );
        assert_eq!(
            keep_alive(Some("keepalive"), r#"{"jsonrpc":"2.0","method":"x"}"#).as_deref(),
            Some("`event: keepalive`")
        );
        assert_eq!(keep_alive(None, " {} ").as_deref(), Some("data `{}`"));
        assert_eq!(
            keep_alive(Some("message"), "").as_deref(),
            Some("empty data")
        );
        assert_eq!(keep_alive(Some(""), r#"{"jsonrpc":"2.0"}"#), None);
        assert_eq!(keep_alive(Some("message"), r#"{"jsonrpc":"2.0"}"#), None);
        assert_eq!(keep_alive(None, "not json"), None);
    }

    #[test]
    fn the_event_cap_counts_bytes_since_the_last_blank_line() {
        let mut cap = EventCap::new(10);
        assert!(cap.check(b"data: 1234\n\n").is_ok());
        assert!(cap.check(b"data: 1234\r\n\r\ndata: 12").is_ok());
        assert!(cap.check(b"34\r\r").is_ok());
        assert!(matches!(
            cap.check(b"data: 12345"),
            Err(StreamError::TooLarge)
        ));
        let mut cap = EventCap::new(10);
        // Split CRLF CRLF across chunks still ends the event.
        assert!(cap.check(b"data: 1234\r").is_ok());
        assert!(cap.check(b"\n\r").is_ok());
        assert!(cap.check(b"\ndata: 1234").is_ok());
    }

    /// One event's lines ended by CRLF are one event: the `\n` of a CRLF ends no line of its
    /// own, so it never looks like the blank line that ends the event.
    #[test]
    fn crlf_line_ends_are_one_line_end_each() {
        let mut cap = EventCap::new(15);
        assert!(cap.check(b"id: 1\r\n").is_ok());
        assert!(cap.check(b"data: 12\r\n").is_ok());
        assert!(matches!(
            cap.check(b"data: 3\r\n"),
            Err(StreamError::TooLarge)
        ));
        // LF alone: each blank line ends an event, however many events come.
        let mut cap = EventCap::new(15);
        for _ in 0..10 {
            assert!(cap.check(b"data: 123456\n\n").is_ok());
        }
        // A lone CR ends a line, and a CR after it a blank one.
        assert!(cap.check(b"data: 123456\r\rdata: 123456\r\r").is_ok());
        assert!(matches!(
            cap.check(b"data: 123\rdata: 456\r"),
            Err(StreamError::TooLarge)
        ));
    }

    /// A response whose body arrives in `chunks`, as the network delivers it.
    fn response(chunks: &[&[u8]]) -> Response {
        response_of(chunks.iter().map(|c| Ok(c.to_vec())).collect())
    }

    /// A response whose body delivers `reads` in order: chunks, or a read error.
    fn response_of(reads: Vec<Result<Vec<u8>, std::io::Error>>) -> Response {
        let body = reqwest::Body::wrap_stream(futures_util::stream::iter(reads));
        http::Response::new(body).into()
    }

    /// The messages [`each_message`] hands on (`None` for an event without one) and the end,
    /// as `Debug` text.
    async fn read(chunks: &[&[u8]], limit: usize) -> (Vec<Option<String>>, String) {
        let mut messages = Vec::new();
        let end = each_message(response(chunks), limit, "test", |message| {
            messages.push(message.map(str::to_owned));
            false
        })
        .await;
        (messages, format!("{end:?}"))
    }

    /// Data of exactly the limit passes; one byte more ends the stream as too large.
    #[tokio::test]
    async fn data_of_the_limit_passes_and_one_byte_more_is_too_large() {
        assert_eq!(
            read(&[b"data: 12345\n\n"], 5).await,
            (
                vec![Some("12345".to_owned()), None],
                "Ended { last_event_id: None, retry: None, events: 1 }".to_owned()
            )
        );
        assert_eq!(
            read(&[b"data: 1\n\ndata: 123456\n\ndata: 2\n\n"], 5).await,
            (vec![Some("1".to_owned())], "TooLarge".to_owned())
        );
    }

    /// Beside its data an event may hold up to 64 KiB of field names, ids and comments; past
    /// that it is too large even before its end (checked as each chunk arrives).
    #[tokio::test]
    async fn an_event_may_take_64_kib_beyond_its_data() {
        // `: ` and the comment: the limit (5) and 64 KiB exactly, then one byte more.
        let fits = format!(": {}", "c".repeat(64 * 1024 + 3));
        assert_eq!(
            read(&[fits.as_bytes(), b"\ndata: 12345\n\n"], 5).await,
            (
                vec![Some("12345".to_owned()), None],
                "Ended { last_event_id: None, retry: None, events: 1 }".to_owned()
            )
        );
        let over = format!(": {}", "c".repeat(64 * 1024 + 4));
        assert_eq!(
            read(&[over.as_bytes(), b"\ndata: 12345\n\n"], 5).await,
            (vec![], "TooLarge".to_owned())
        );
    }

    /// The end counts every event (with data or not), keeps the last id and the last `retry`;
    /// the callback's `true` ends the stream as answered.
    #[tokio::test]
    async fn the_end_counts_events_and_keeps_the_last_id_and_retry() {
        let body: &[&[u8]] = &[
            b"id: 1\nretry: 20\ndata: {\"a\":1}\n\n",
            b"event: ping\ndata: {}\n\nid: 2\nretry: 30\n",
            b"data: x\n\n: comment\n\nid: 3\n\n",
        ];
        let (messages, end) = read(body, 100).await;
        assert_eq!(
            messages,
            [Some("{\"a\":1}"), None, Some("x"), None, None]
                .map(|m| m.map(str::to_owned))
                .to_vec()
        );
        assert_eq!(
            end,
            "Ended { last_event_id: Some(\"3\"), retry: Some(30ms), events: 4 }"
        );
        let mut seen = 0;
        let end = each_message(response(body), 100, "test", |_| {
            seen += 1;
            seen == 2
        })
        .await;
        assert_eq!((format!("{end:?}"), seen), ("Answered".to_owned(), 2));
        // Answered by the call that says the stream ended.
        let end = each_message(response(&[b": nothing\n\n"]), 100, "test", |m| m.is_none()).await;
        assert_eq!(format!("{end:?}"), "Answered");
    }

    /// The answer to a replayed `initialize` is read up to its first event with data (events
    /// without data and comments before it are passed over), and no further.
    #[tokio::test]
    async fn skipping_to_the_first_message_reads_no_further() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicUsize, Ordering};

        let pulled = Arc::new(AtomicUsize::new(0));
        let counter = pulled.clone();
        let chunks: Vec<&'static [u8]> = vec![
            b"data:\n\n",
            b": comment\nid: 1\n\n",
            b"data: {\"id\":1}\n\n",
            b"data: never read\n\n",
        ];
        let body = futures_util::stream::iter(chunks).map(move |chunk| {
            counter.fetch_add(1, Ordering::SeqCst);
            Ok::<_, std::io::Error>(chunk.to_vec())
        });
        let response = http::Response::new(reqwest::Body::wrap_stream(body));
        skip_to_first_message(response.into()).await;
        assert_eq!(pulled.load(Ordering::SeqCst), 3);
    }

    /// A body that breaks mid-stream ends it as broken, with the cause.
    #[tokio::test]
    async fn a_broken_body_ends_the_stream_with_its_cause() {
        let response = response_of(vec![
            Ok(b"data: 1\n\n".to_vec()),
            Err(std::io::Error::other("connection reset")),
        ]);
        let mut messages = Vec::new();
        let end = each_message(response, 100, "test", |m| {
            messages.push(m.map(str::to_owned));
            false
        })
        .await;
        assert_eq!(messages, vec![Some("1".to_owned())]);
        let StreamEnd::Broken(reason) = end else {
            panic!("{end:?}");
        };
        assert!(reason.contains("connection reset"), "{reason}");
    }
}
