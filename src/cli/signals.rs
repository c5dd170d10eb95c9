//! SIGTERM, SIGINT and SIGHUP for the commands that may start the browser
//! (`tools call|script`, `run`, `chat`, `watch`, `mcp serve`, `serve`,
//! `auth connect`; the desktop app has its own, `src-tauri/src/shutdown.rs`).
//! Caught from the moment such a
//! command starts, a signal drops the work in flight (a dropped tool call
//! releases the browser at once), then the browser is closed and reaped
//! and the process exits with 128 + the signal's number (130 for Ctrl-C),
//! as a shell expects. Other commands keep the default handling: they
//! start no process that could outlive them. Whatever ends Halley, the
//! browser it launched does not outlive it (`browser/process.rs`).

use std::future::Future;
use std::process::ExitCode;
use std::time::Duration;

use crate::core::Core;

/// How long closing may take after a signal before the process exits anyway.
const CLOSE_LIMIT: Duration = Duration::from_secs(15);

/// A signal that asks the process to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// SIGINT (Ctrl-C).
    Interrupt,
    /// SIGTERM.
    Terminate,
    /// SIGHUP (the terminal went away).
    Hangup,
}

impl Stop {
    /// The signal's number (the same on every Unix).
    pub fn number(self) -> u8 {
        match self {
            Stop::Hangup => 1,
            Stop::Interrupt => 2,
            Stop::Terminate => 15,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Stop::Hangup => "SIGHUP",
            Stop::Interrupt => "SIGINT",
            Stop::Terminate => "SIGTERM",
        }
    }

    /// 128 + the signal's number: what a shell reports for a command the
    /// signal ended.
    pub fn exit_code(self) -> ExitCode {
        ExitCode::from(128 + self.number())
    }
}

/// The caught signals. Once installed, the default action (die at once) no
/// longer applies: whoever holds this must answer them.
pub(crate) struct Signals {
    #[cfg(unix)]
    caught: Vec<(Stop, tokio::signal::unix::Signal)>,
}

impl Signals {
    /// Catch SIGTERM, SIGINT and SIGHUP (Ctrl-C elsewhere). A signal whose
    /// handler cannot be installed keeps its default action.
    #[cfg(unix)]
    pub fn install() -> Signals {
        use tokio::signal::unix::{SignalKind, signal};
        let kinds = [
            (Stop::Terminate, SignalKind::terminate()),
            (Stop::Interrupt, SignalKind::interrupt()),
            (Stop::Hangup, SignalKind::hangup()),
        ];
        let mut caught = Vec::new();
        for (stop, kind) in kinds {
            match signal(kind) {
                Ok(s) => caught.push((stop, s)),
                Err(e) => tracing::warn!("cannot catch {}: {e}", stop.name()),
            }
        }
        Signals { caught }
    }

    #[cfg(not(unix))]
    pub fn install() -> Signals {
        Signals {}
    }

    /// The next signal.
    #[cfg(unix)]
    pub async fn recv(&mut self) -> Stop {
        let waits = self.caught.iter_mut().map(|(stop, s)| {
            let stop = *stop;
            Box::pin(async move {
                s.recv().await;
                stop
            })
        });
        let waits: Vec<_> = waits.collect();
        if waits.is_empty() {
            return std::future::pending().await;
        }
        futures::future::select_all(waits).await.0
    }

    #[cfg(not(unix))]
    pub async fn recv(&mut self) -> Stop {
        match tokio::signal::ctrl_c().await {
            Ok(()) => Stop::Interrupt,
            Err(_) => std::future::pending().await,
        }
    }

    /// Run `work` to its end, or until a signal comes (then `work` is
    /// dropped where it stands).
    pub async fn during<F: Future>(&mut self, work: F) -> Result<F::Output, Stop> {
        tokio::select! {
            biased;
            stop = self.recv() => Err(stop),
            out = work => Ok(out),
        }
    }
}

/// After `stop`: close the core (the browser closed and reaped, the store
/// closed), within [`CLOSE_LIMIT`], and return the exit code for `stop`.
#[allow(clippy::print_stderr)]
pub(crate) async fn close_for(core: &Core, stop: Stop) -> ExitCode {
    eprintln!("\nhalley: {}: closing the browser", stop.name());
    if tokio::time::timeout(CLOSE_LIMIT, core.close()).await.is_err() {
        eprintln!("halley: the browser did not close within {} s", CLOSE_LIMIT.as_secs());
    }
    stop.exit_code()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_are_128_plus_the_signal() {
        assert_eq!(Stop::Hangup.exit_code(), ExitCode::from(129));
        assert_eq!(Stop::Interrupt.exit_code(), ExitCode::from(130));
        assert_eq!(Stop::Terminate.exit_code(), ExitCode::from(143));
    }
}
