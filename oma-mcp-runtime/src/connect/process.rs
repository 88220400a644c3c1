//! The server's child process: environment hygiene, spawning in its own process group, and
//! shutdown (stdin EOF → SIGTERM → SIGKILL to the whole group).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::process::{ExitStatus, Stdio};
use std::sync::Mutex;
use std::time::Duration;

use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::config::ConnectConfig;
use crate::error::{ConnectError, Error};

/// Parent environment variables every server inherits when they are set, as the MCP
/// TypeScript SDK's `getDefaultEnvironment()` does (`DEFAULT_INHERITED_ENV_VARS`).
#[cfg(not(windows))]
pub const DEFAULT_INHERITED_ENV: &[&str] = &["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/// Parent environment variables every server inherits when they are set, as the MCP
/// TypeScript SDK's `getDefaultEnvironment()` does (`DEFAULT_INHERITED_ENV_VARS`).
#[cfg(windows)]
pub const DEFAULT_INHERITED_ENV: &[&str] = &[
    "APPDATA",
    "HOMEDRIVE",
    "HOMEPATH",
    "LOCALAPPDATA",
    "PATH",
    "PROCESSOR_ARCHITECTURE",
    "SYSTEMDRIVE",
    "SYSTEMROOT",
    "TEMP",
    "USERNAME",
    "USERPROFILE",
    "PROGRAMFILES",
];

/// How long [`McpClient::disconnect`](crate::McpClient::disconnect) waits for the server to
/// exit after its stdin is closed.
pub const EOF_GRACE: Duration = Duration::from_secs(2);
/// How long [`McpClient::disconnect`](crate::McpClient::disconnect) waits after SIGTERM to the
/// server's process group before sending SIGKILL.
pub const TERM_GRACE: Duration = Duration::from_secs(2);

/// The complete environment of the child (it starts from an empty one).
///
/// In order, later entries winning: [`DEFAULT_INHERITED_ENV`] from the parent (values starting
/// with `()`, exported shell functions, are skipped as the TypeScript SDK does), then the
/// `pass_env` names from the parent when set, then the literal `env` values.
pub(crate) fn child_env(
    env: &BTreeMap<String, String>,
    pass_env: &[String],
    parent: impl Fn(&str) -> Option<OsString>,
) -> BTreeMap<OsString, OsString> {
    let mut out = BTreeMap::new();
    for &name in DEFAULT_INHERITED_ENV {
        if let Some(value) = parent(name) {
            if value.to_string_lossy().starts_with("()") {
                continue;
            }
            out.insert(OsString::from(name), value);
        }
    }
    for name in pass_env {
        if let Some(value) = parent(name) {
            out.insert(OsString::from(name), value);
        }
    }
    for (name, value) in env {
        out.insert(OsString::from(name), OsString::from(value));
    }
    out
}

/// The command line for messages: command and arguments separated by spaces, an argument
/// quoted (Rust debug syntax) when it is empty or contains whitespace or quotes.
pub(crate) fn command_line(command: &str, args: &[String]) -> String {
    let mut out = command.to_owned();
    for arg in args {
        out.push(' ');
        if arg.is_empty()
            || arg
                .chars()
                .any(|c| c.is_whitespace() || c == '"' || c == '\'')
        {
            out.push_str(&format!("{arg:?}"));
        } else {
            out.push_str(arg);
        }
    }
    out
}

/// A spawned server with its three pipes.
pub(crate) struct Spawned {
    pub(crate) child: Child,
    pub(crate) pid: Option<u32>,
    pub(crate) stdin: ChildStdin,
    pub(crate) stdout: ChildStdout,
    pub(crate) stderr: ChildStderr,
}

/// The program to run: a relative path with a `/` (`node_modules/.bin/x`) is made absolute
/// against the parent's working directory, so it does not depend on the child's `cwd`
/// (where the OS would otherwise look it up, and where `std` leaves it unspecified); a bare
/// name (`node`) is looked up in `PATH`.
fn program(command: &str) -> std::path::PathBuf {
    let path = std::path::Path::new(command);
    if command.contains('/') && path.is_relative() {
        std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
    } else {
        path.to_path_buf()
    }
}

/// Spawns the server: cleared environment (see [`child_env`]), piped stdio, its own process
/// group on unix (so the whole tree can be signalled), killed when dropped.
///
/// # Errors
/// [`ConnectError::Spawn`] naming the command line.
pub(crate) fn spawn(config: &ConnectConfig) -> Result<Spawned, Error> {
    let mut cmd = Command::new(program(&config.command));
    cmd.args(&config.args)
        .env_clear()
        .envs(child_env(&config.env, &config.pass_env, |name| {
            std::env::var_os(name)
        }))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(cwd) = &config.cwd {
        cmd.current_dir(cwd);
    }
    #[cfg(unix)]
    cmd.process_group(0);
    let spawn_error = |source| {
        Error::Connect(ConnectError::Spawn {
            command: command_line(&config.command, &config.args),
            source,
        })
    };
    let mut child = cmd.spawn().map_err(spawn_error)?;
    let missing = || std::io::Error::other("a stdio pipe of the child is missing");
    let stdin = child
        .stdin
        .take()
        .ok_or_else(missing)
        .map_err(spawn_error)?;
    let stdout = child
        .stdout
        .take()
        .ok_or_else(missing)
        .map_err(spawn_error)?;
    let stderr = child
        .stderr
        .take()
        .ok_or_else(missing)
        .map_err(spawn_error)?;
    Ok(Spawned {
        pid: child.id(),
        child,
        stdin,
        stdout,
        stderr,
    })
}

/// Signals a process group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GroupSignal {
    /// SIGTERM.
    Term,
    /// SIGKILL.
    Kill,
}

/// Sends `signal` to the process group `pgid` (the server's pid, see [`spawn`]). A group that
/// no longer exists is fine; other failures are logged. No-op off unix.
pub(crate) fn signal_group(pgid: Option<u32>, signal: GroupSignal) {
    #[cfg(unix)]
    {
        use rustix::process::{Pid, Signal, kill_process_group};
        let Some(pid) = pgid
            .and_then(|p| i32::try_from(p).ok())
            .and_then(Pid::from_raw)
        else {
            return;
        };
        let sig = match signal {
            GroupSignal::Term => Signal::TERM,
            GroupSignal::Kill => Signal::KILL,
        };
        match kill_process_group(pid, sig) {
            Ok(()) => tracing::debug!(pgid = pid.as_raw_nonzero().get(), ?signal, "signalled"),
            Err(rustix::io::Errno::SRCH) => {}
            Err(e) => tracing::warn!(
                pgid = pid.as_raw_nonzero().get(),
                ?signal,
                "cannot signal the MCP server's process group: {e}"
            ),
        }
    }
    #[cfg(not(unix))]
    let _ = (pgid, signal);
}

/// How the server process ended: its exit status, or `None` when waiting for it failed.
pub(crate) type Exit = Option<ExitStatus>;

/// The server process, owned by a task that awaits its exit (so the client learns of it
/// even when no EOF arrives on stdout: a grandchild of `sh -c` may hold the pipe open).
///
/// When the server exits, the task publishes the status, SIGKILLs what is left of its process
/// group (on unix) and then runs the `on_exit` future given to [`watch()`] (the session closes
/// there). Dropping the task (the runtime shuts down) drops the [`Child`], which
/// `kill_on_drop` kills.
pub(crate) struct Watched {
    exit: watch::Receiver<Option<Exit>>,
    kill: CancellationToken,
    task: Mutex<Option<JoinHandle<()>>>,
    pgid: Option<u32>,
}

impl std::fmt::Debug for Watched {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watched")
            .field("pgid", &self.pgid)
            .field("exit", &*self.exit.borrow())
            .finish_non_exhaustive()
    }
}

/// Hands `child` (whose process group is `pgid`, see [`spawn`]) to a task on the current
/// Tokio runtime that awaits its exit, SIGKILLs the rest of its group, then awaits `on_exit`.
pub(crate) fn watch<F>(mut child: Child, pgid: Option<u32>, on_exit: F) -> Watched
where
    F: Future<Output = ()> + Send + 'static,
{
    let (tx, exit) = watch::channel(None);
    let kill = CancellationToken::new();
    let killed = kill.clone();
    let task = tokio::spawn(async move {
        let status = tokio::select! {
            status = child.wait() => status,
            () = killed.cancelled() => {
                let _ = child.start_kill();
                child.wait().await
            }
        };
        let status = status.ok();
        tracing::debug!(?status, "MCP server process exited");
        let _ = tx.send(Some(status));
        // Grandchildren (`sh -c 'x & exec server'`, `npx`) may hold stdout open: without them
        // the session's reader sees EOF after the server's last lines.
        signal_group(pgid, GroupSignal::Kill);
        on_exit.await;
    });
    Watched {
        exit,
        kill,
        task: Mutex::new(Some(task)),
        pgid,
    }
}

impl Watched {
    /// How the server ended, if it ends within `bound`; `None` while it still runs.
    pub(crate) async fn exited_within(&self, bound: Duration) -> Option<Exit> {
        let mut exit = self.exit.clone();
        match tokio::time::timeout(bound, exit.wait_for(Option::is_some)).await {
            Ok(Ok(seen)) => *seen,
            // The task is gone (only when the runtime shut down): its `Child` was killed.
            Ok(Err(_)) => Some(None),
            Err(_) => None,
        }
    }

    /// SIGKILLs the server's process group and asks the task to kill the server itself (off
    /// unix, the only way); does not wait. For `Drop`.
    pub(crate) fn kill_now(&self) {
        signal_group(self.pgid, GroupSignal::Kill);
        self.kill.cancel();
    }

    /// Stops a server whose session the caller has already closed (stdin EOF): waits
    /// `eof_grace` ([`EOF_GRACE`] for `disconnect()`) for it to exit, then SIGTERMs its process
    /// group and waits [`TERM_GRACE`], then SIGKILLs the group (and the server) and waits for
    /// it. Whatever is left of the group once the server itself has exited (grandchildren of
    /// `sh -c`, `npx`, …) gets SIGKILL. At most about `eof_grace` + 4 s.
    pub(crate) async fn shutdown(&self, eof_grace: Duration) {
        if self.exited_within(eof_grace).await.is_none() {
            signal_group(self.pgid, GroupSignal::Term);
            #[cfg(not(unix))]
            self.kill.cancel();
            if self.exited_within(TERM_GRACE).await.is_none() {
                self.kill_now();
                // SIGKILL cannot be ignored; the bound only guards against a process stuck
                // in the kernel.
                let _ = self.exited_within(TERM_GRACE).await;
            }
        }
        signal_group(self.pgid, GroupSignal::Kill);
        let task = self
            .task
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(task) = task {
            // The server is gone; what the task has left (closing the session) the caller
            // has done.
            task.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_program_paths_are_made_absolute_against_our_cwd() {
        let here = std::env::current_dir().unwrap();
        assert_eq!(program("node"), std::path::PathBuf::from("node"));
        assert_eq!(
            program("/usr/bin/node"),
            std::path::PathBuf::from("/usr/bin/node")
        );
        assert_eq!(
            program("node_modules/.bin/srv"),
            here.join("node_modules/.bin/srv")
        );
    }

    #[cfg(unix)]
    #[test]
    fn env_is_defaults_then_pass_env_then_literals() {
        let parent = |name: &str| match name {
            "HOME" => Some(OsString::from("/home/u")),
            "SHELL" => Some(OsString::from("() { :; }")),
            "SECRET_KEY" => Some(OsString::from("s3cr3t")),
            "WANTED" => Some(OsString::from("yes")),
            "PATH" => Some(OsString::from("/bin")),
            _ => None,
        };
        let env = BTreeMap::from([("PATH".to_owned(), "/custom".to_owned())]);
        let got = child_env(&env, &["WANTED".to_owned(), "ABSENT".to_owned()], parent);
        let got: Vec<(String, String)> = got
            .into_iter()
            .map(|(k, v)| (k.into_string().unwrap(), v.into_string().unwrap()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("HOME".to_owned(), "/home/u".to_owned()),
                ("PATH".to_owned(), "/custom".to_owned()),
                ("WANTED".to_owned(), "yes".to_owned()),
            ]
        );
    }

    #[test]
    fn command_line_quotes_only_when_needed() {
        assert_eq!(
            command_line(
                "node",
                &["a b".to_owned(), "stdio".to_owned(), String::new()]
            ),
            "node \"a b\" stdio \"\""
        );
    }
}
