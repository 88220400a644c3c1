//! What both HTTP servers share: binding, the one `listening on <url>` line, exit at stdin EOF,
//! and hyper's HTTP/1 server loop.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;

use bytes::Bytes;
use http_body_util::BodyExt;
use http_body_util::combinators::BoxBody;
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

/// The response body of both servers: whole, streamed (SSE) or aborted mid-way (an error ends
/// the connection without the terminating chunk).
pub(crate) type Body = BoxBody<Bytes, std::io::Error>;

/// The path both servers serve MCP on.
pub const MCP_PATH: &str = "/mcp";

/// The loopback address with a free port: what `--http`/`--listen` default to in tests.
pub const LOOPBACK_ANY_PORT: &str = "127.0.0.1:0";

/// Binds `addr` and returns the listener with its MCP URL (`http://<ip>:<port>/mcp`).
pub(crate) async fn bind(addr: SocketAddr) -> std::io::Result<(TcpListener, String)> {
    let listener = TcpListener::bind(addr).await?;
    let url = format!("http://{}{MCP_PATH}", listener.local_addr()?);
    Ok((listener, url))
}

/// Prints the one line a test waits for, `listening on <url>`, and flushes stdout.
pub(crate) fn announce(url: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    writeln!(out, "listening on {url}")?;
    out.flush()
}

/// Exits the process (code 0) when stdin reaches end of file or fails: a test that drops the
/// server's stdin stops it even when the kill is missed.
pub(crate) fn exit_at_stdin_eof() {
    tokio::spawn(async {
        use tokio::io::AsyncReadExt;
        let mut stdin = tokio::io::stdin();
        let mut buf = [0u8; 1024];
        while let Ok(n) = stdin.read(&mut buf).await {
            if n == 0 {
                break;
            }
        }
        std::process::exit(0);
    });
}

/// Serves every connection of `listener` with hyper's HTTP/1 server, each request through
/// `handler`, until the process ends.
pub(crate) async fn serve<H, F>(listener: TcpListener, handler: H) -> std::io::Result<()>
where
    H: Fn(Request<Incoming>) -> F + Clone + Send + Sync + 'static,
    F: Future<Output = Response<Body>> + Send + 'static,
{
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(accepted) => accepted,
            // Out of file descriptors and the like: wait and go on, as servers do.
            Err(_) => {
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        // As Node's HTTP server does by default: without it, an SSE answer written in two
        // pieces waits for the client's delayed ACK (about 40 ms per call on a reused
        // connection; see bench/README.md, "HTTP").
        let _ = stream.set_nodelay(true);
        let handler = handler.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let response = handler(request);
                async move { Ok::<_, Infallible>(response.await) }
            });
            // A client that goes away mid-response is not an error of the server.
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// A whole response body.
pub(crate) fn full(bytes: impl Into<Bytes>) -> Body {
    http_body_util::Full::new(bytes.into())
        .map_err(|never| match never {})
        .boxed()
}

/// Parses a socket address argument (`127.0.0.1:0`, `[::1]:8080`).
pub(crate) fn parse_addr(flag: &str, value: &str) -> Result<SocketAddr, String> {
    value.parse().map_err(|_| {
        format!("{flag} wants an IP address and port such as 127.0.0.1:0, not `{value}`")
    })
}

/// Parses a number argument.
pub(crate) fn parse_number<T: std::str::FromStr>(flag: &str, value: &str) -> Result<T, String> {
    value
        .parse()
        .map_err(|_| format!("{flag} wants a non-negative integer, not `{value}`"))
}

/// The value after `flag` in `args`.
pub(crate) fn value_of(
    flag: &str,
    args: &mut impl Iterator<Item = String>,
) -> Result<String, String> {
    args.next()
        .ok_or_else(|| format!("{flag} needs a value (see --help)"))
}
