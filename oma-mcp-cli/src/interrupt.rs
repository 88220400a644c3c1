//! SIGINT, SIGTERM and SIGHUP end a run cleanly: the servers are stopped, not orphaned.

/// A signal that ends the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// SIGINT (Ctrl-C), number 2.
    Interrupt,
    /// SIGTERM, number 15 (`kill`, CI runners cancelling a job).
    Terminate,
    /// SIGHUP, number 1 (the terminal went away).
    Hangup,
}

impl Signal {
    /// The conventional name, e.g. `SIGINT`.
    pub fn name(self) -> &'static str {
        match self {
            Signal::Interrupt => "SIGINT",
            Signal::Terminate => "SIGTERM",
            Signal::Hangup => "SIGHUP",
        }
    }

    /// 128 + the signal number, the status a shell reports for a program the signal ended.
    pub fn exit_code(self) -> u8 {
        match self {
            Signal::Interrupt => 130,
            Signal::Terminate => 143,
            Signal::Hangup => 129,
        }
    }
}

/// The installed handlers; from [`Signals::install`] on, these signals no longer end the
/// process by themselves.
pub struct Signals {
    #[cfg(unix)]
    streams: [(Signal, tokio::signal::unix::Signal); 3],
}

impl Signals {
    /// Installs the handlers (inside the Tokio runtime).
    ///
    /// # Errors
    /// The operating system refused a handler.
    pub fn install() -> std::io::Result<Signals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Ok(Signals {
                streams: [
                    (Signal::Interrupt, signal(SignalKind::interrupt())?),
                    (Signal::Terminate, signal(SignalKind::terminate())?),
                    (Signal::Hangup, signal(SignalKind::hangup())?),
                ],
            })
        }
        #[cfg(not(unix))]
        Ok(Signals {})
    }

    /// Waits for the first of the signals.
    pub async fn recv(&mut self) -> Signal {
        #[cfg(unix)]
        {
            let [(a, sa), (b, sb), (c, sc)] = &mut self.streams;
            tokio::select! {
                _ = sa.recv() => *a,
                _ = sb.recv() => *b,
                _ = sc.recv() => *c,
            }
        }
        #[cfg(not(unix))]
        {
            match tokio::signal::ctrl_c().await {
                Ok(()) => Signal::Interrupt,
                // No handler: never report a signal that did not come.
                Err(_) => std::future::pending().await,
            }
        }
    }
}
