//! The transport against a scripted HTTP/1.1 server on loopback ([`script`]): each test answers
//! the requests the transport must send, records what it sent, and holds both to MCP's
//! streamable HTTP rules (2025-11-25, and 2026-07-28 for its headers). The request timeout is
//! short, so a transport that stops answering fails a test in seconds.

mod answers;
mod script;
mod session;
mod tokens;
