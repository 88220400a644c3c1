//! The stdio reader's framing, reachable from outside the crate for the `oma-mcp-fuzz`
//! property tests only (cargo feature `fuzzing`, off by default, hidden from the docs).
//!
//! Why a feature and not a public API: the framing is an implementation detail of
//! [`connect_mcp_tools`](crate::connect_mcp_tools) that may change with any release; the
//! feature keeps it out of every normal build (nothing here exists without it), and this one
//! function is the whole surface, so the fuzzer drives the exact code the session's reader
//! loop runs (`read_line`, then `classify` for a line or `oversized_head` for one over the
//! limit) without making those functions public.

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

#[cfg(test)]
mod tests {
    use super::{Frame, read_frames};

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
