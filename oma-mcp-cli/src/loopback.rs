//! The browser side of `oma-mcp login`: a redirect URI on the loopback interface (RFC 8252
//! section 7.3: `http://127.0.0.1:<port>/callback`, a free port), the authorization URL shown
//! and opened in a browser, and the one request the authorization server's redirect makes.

use std::time::Duration;

use oma_mcp_runtime::connect::{Authorize, BoxFuture};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// The longest request head read from the browser.
const MAX_HEAD: usize = 16 * 1024;

/// The page the browser shows after the redirect.
const DONE_PAGE: &str = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>oma-mcp</title>\
</head><body><p>oma-mcp received the authorization. You can close this tab and return to the \
terminal.</p></body></html>";

/// An [`Authorize`] for `oma-mcp login`: listens on `127.0.0.1` at a free port, prints the
/// authorization URL on stderr, opens it in a browser unless told not to, and waits for the
/// redirect to `/callback`.
pub struct Loopback {
    listener: tokio::sync::Mutex<TcpListener>,
    port: u16,
    /// Whether to open a browser (off with `--no-browser`, when `CI` is set, or without a
    /// display on Linux).
    browser: bool,
    /// How long to wait for the redirect.
    timeout: Duration,
    /// The server as the messages name it.
    server: String,
}

impl Loopback {
    /// A listener on `127.0.0.1` at a free port.
    ///
    /// # Errors
    /// The OS error when no port can be bound.
    pub async fn bind(server: String, browser: bool, timeout: Duration) -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let port = listener.local_addr()?.port();
        Ok(Self {
            listener: tokio::sync::Mutex::new(listener),
            port,
            browser,
            timeout,
            server,
        })
    }

    /// Waits for `GET /callback?…` and answers it; other requests (a browser's
    /// `/favicon.ico`) get 404. Returns the request's path and query.
    async fn callback(&self) -> std::io::Result<String> {
        let listener = self.listener.lock().await;
        loop {
            let (mut stream, _) = listener.accept().await?;
            let mut head = Vec::new();
            let mut buf = [0u8; 2048];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < MAX_HEAD {
                let n = match tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buf))
                    .await
                {
                    Ok(Ok(n)) => n,
                    _ => 0,
                };
                if n == 0 {
                    break;
                }
                head.extend_from_slice(&buf[..n]);
            }
            let text = String::from_utf8_lossy(&head);
            let target = text
                .lines()
                .next()
                .and_then(|line| line.strip_prefix("GET "))
                .and_then(|rest| rest.split(' ').next())
                .unwrap_or_default()
                .to_owned();
            if target == "/callback" || target.starts_with("/callback?") {
                let response = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\
                     Content-Length: {}\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n\
                     {DONE_PAGE}",
                    DONE_PAGE.len()
                );
                let _ = stream.write_all(response.as_bytes()).await;
                let _ = stream.shutdown().await;
                return Ok(target);
            }
            let _ = stream
                .write_all(
                    b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                )
                .await;
        }
    }
}

impl Authorize for Loopback {
    fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}/callback", self.port)
    }

    fn authorize<'a>(
        &'a self,
        authorization_url: &'a str,
    ) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(async move {
            eprintln!(
                "oma-mcp: to log in to {}, open this URL in a browser on this machine:\n\n  \
                 {authorization_url}\n",
                self.server
            );
            if self.browser {
                match open_browser(authorization_url) {
                    Ok(program) => eprintln!("oma-mcp: opened it with `{program}`"),
                    Err(reason) => eprintln!("oma-mcp: no browser was opened ({reason})"),
                }
            }
            eprintln!(
                "oma-mcp: waiting up to {} s for the authorization server to redirect to {}",
                self.timeout.as_secs(),
                self.redirect_uri()
            );
            match tokio::time::timeout(self.timeout, self.callback()).await {
                Ok(Ok(target)) => Ok(format!("http://127.0.0.1:{}{target}", self.port)),
                Ok(Err(e)) => Err(format!(
                    "the redirect listener on 127.0.0.1:{} failed: {e}",
                    self.port
                )),
                Err(_) => Err(format!(
                    "no redirect came back within {} s; open the URL printed above in a browser \
                     on this machine (the redirect goes to 127.0.0.1), or give more time with \
                     --timeout-secs",
                    self.timeout.as_secs()
                )),
            }
        })
    }
}

/// Whether a browser can be opened here: not when `CI` is set, and on Linux only with a
/// display (`DISPLAY` or `WAYLAND_DISPLAY`) or `BROWSER` set.
pub fn can_open_browser() -> bool {
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    if set("CI") {
        return false;
    }
    if cfg!(target_os = "linux") {
        return set("DISPLAY") || set("WAYLAND_DISPLAY") || set("BROWSER");
    }
    true
}

/// Opens `url` with `$BROWSER`, else the platform's opener (`xdg-open`, `open`, `start`);
/// the program used, or why none was.
fn open_browser(url: &str) -> Result<String, String> {
    let mut command = if let Some(browser) = std::env::var_os("BROWSER").filter(|b| !b.is_empty()) {
        let mut command = std::process::Command::new(browser);
        command.arg(url);
        command
    } else if cfg!(target_os = "macos") {
        let mut command = std::process::Command::new("open");
        command.arg(url);
        command
    } else if cfg!(windows) {
        let mut command = std::process::Command::new("cmd");
        command.args(["/C", "start", ""]).arg(url);
        command
    } else {
        let mut command = std::process::Command::new("xdg-open");
        command.arg(url);
        command
    };
    let program = command.get_program().to_string_lossy().into_owned();
    command
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(|mut child| {
            // Reaped when it exits (openers return at once; a browser may run on).
            std::thread::spawn(move || child.wait());
            program.clone()
        })
        .map_err(|e| format!("`{program}` could not be started: {e}"))
}
