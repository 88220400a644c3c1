//! The stdio reader's framing and the streamable HTTP transport's SSE reader, reachable from
//! outside the crate for the `oma-mcp-fuzz` property tests only (cargo feature `fuzzing`, off
//! by default, hidden from the docs).
//!
//! Why a feature and not a public API: the framing is an implementation detail of
//! [`connect_mcp_tools`](crate::connect_mcp_tools) that may change with any release; the
//! feature keeps it out of every normal build (nothing here exists without it), and these two
//! functions are the whole surface, so the fuzzer drives the exact code the session's reader
//! loop runs (`read_line`, then `classify` for a line or `oversized_head` for one over the
//! limit), and the exact code that reads an SSE response (the event size cap, `sse-stream`'s
//! parser, the keep-alive rule), without making those functions public.

use std::io;

use tokio::io::AsyncBufRead;

use super::framing::{self, LineRead};

/// One message as the stdio reader sees it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Frame {
    /// A complete line (without `\n` and a trailing `\r`) that is not all ASCII whitespace,
    /// and how the reader classifies it (the `Debug` text of the classification: response,
    /// request, notification, too deep or invalid, with the reason).
    Message {
        /// The line's bytes.
        line: Vec<u8>,
        /// The classification, as `Debug` text.
        incoming: String,
    },
    /// A line over the size limit, skipped.
    TooLong {
        /// Its length in bytes (without the `\n`).
        len: usize,
        /// The first bytes kept of it (at most 4096).
        head: Vec<u8>,
        /// What those bytes say about it (response to an id, server message, unknown), as
        /// `Debug` text.
        head_says: String,
    },
}

/// Reads `reader` to its end as the session's reader loop does, with lines limited to
/// `limit` bytes, and returns every message in order (all-whitespace lines are skipped, as
/// the loop skips them).
///
/// # Errors
/// The reader's I/O error.
pub async fn read_frames<R>(reader: &mut R, limit: usize) -> io::Result<Vec<Frame>>
where
    R: AsyncBufRead + Unpin,
{
    let mut frames = Vec::new();
    let mut buf = Vec::new();
    loop {
        match framing::read_line(reader, &mut buf, limit).await? {
            LineRead::Eof => return Ok(frames),
            LineRead::TooLong { len } => frames.push(Frame::TooLong {
                len,
                head_says: format!("{:?}", framing::oversized_head(&buf)),
                head: buf.clone(),
            }),
            LineRead::Line => {
                if !buf.iter().all(u8::is_ascii_whitespace) {
                    frames.push(Frame::Message {
                        incoming: format!("{:?}", framing::classify(&buf)),
                        line: buf.clone(),
                    });
                }
            }
        }
    }
}

/// The JSON-RPC messages an SSE response body carries, as the streamable HTTP transport reads
/// them, each event's data at most `limit` bytes, given the body in `chunks` as the network
/// delivers it, and how the stream ended (the `Debug` text of the end: `TooLarge`, `Broken`
/// with the reason, or `Ended` with the last event id, the last `retry` and the number of
/// events). The transport routes each message into the session as a stdout line would be.
pub async fn sse_messages(chunks: Vec<Vec<u8>>, limit: usize) -> (Vec<String>, String) {
    let body = futures_util::stream::iter(chunks.into_iter().map(Ok::<_, io::Error>));
    let mut response = http::Response::new(reqwest::Body::wrap_stream(body));
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("text/event-stream"),
    );
    let mut messages = Vec::new();
    let end = super::http::sse::each_message(response.into(), limit, "fuzz", |message| {
        messages.extend(message.map(str::to_owned));
        false
    })
    .await;
    (messages, format!("{end:?}"))
}

#[cfg(test)]
mod tests {
    use super::{Frame, read_frames, sse_messages};

    /// Messages are the data of message events; keep-alives, comments and other event types
    /// are not; the end names the last event id, the retry and the number of events.
    #[tokio::test]
    async fn sse_messages_are_the_data_of_message_events() {
        let body =
            b": comment\n\nevent: ping\ndata: {\"x\":1}\n\nid: 7\nretry: 250\ndata: {\"a\":\n\
                     data: 1}\n\ndata: {}\n\ndata: last";
        let cuts = [3, 20, 21, 40];
        let mut chunks = Vec::new();
        let mut start = 0;
        for cut in cuts.into_iter().chain([body.len()]) {
            chunks.push(body[start..cut].to_vec());
            start = cut;
        }
        assert_eq!(
            sse_messages(chunks, 1024).await,
            (
                vec!["{\"a\":\n1}".to_owned()],
                "Ended { last_event_id: Some(\"7\"), retry: Some(250ms), events: 3 }".to_owned()
            )
        );
    }

    #[tokio::test]
    async fn frames_are_the_reader_loops_messages() {
        let stream: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n \t\n{\"id\":2,\"error\":\"x\",\"pad\":\"aaaa\"}\nnot json";
        let frames = read_frames(&mut &stream[..], 32)
            .await
            .map_err(|e| e.to_string());
        assert_eq!(
            frames,
            Ok(vec![
                Frame::TooLong {
                    len: 37,
                    head: b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r".to_vec(),
                    head_says: "Response(Number(1))".to_owned(),
                },
                Frame::TooLong {
                    len: 33,
                    head: b"{\"id\":2,\"error\":\"x\",\"pad\":\"aaaa\"}".to_vec(),
                    head_says: "Response(Number(2))".to_owned(),
                },
                Frame::Message {
                    line: b"not json".to_vec(),
                    incoming:
                        "Invalid { reason: \"not JSON (expected ident at line 1 column 2)\" }"
                            .to_owned(),
                },
            ])
        );
        let frames = read_frames(&mut &stream[..41], 1024)
            .await
            .map_err(|e| e.to_string());
        assert_eq!(
            frames,
            Ok(vec![Frame::Message {
                line: b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}".to_vec(),
                incoming: "Response { id: Number(1), outcome: Ok(Object {}) }".to_owned(),
            }])
        );
    }
}
