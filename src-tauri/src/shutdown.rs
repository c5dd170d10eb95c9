//! Clean exit on SIGTERM, SIGINT and SIGHUP: the app goes through Tauri's
//! normal exit path (`RunEvent::Exit` -> `Host::close`: the run stopped,
//! the managed browser closed and reaped, the store closed) instead of
//! dying mid-frame with its browser left running.

use tauri::AppHandle;

/// Exits the app when the process gets SIGTERM, SIGINT or SIGHUP (a
/// logout, Ctrl-C in the terminal that started it, that terminal closing),
/// with the status a shell reports for a command the signal ended (128 +
/// its number).
#[cfg(unix)]
pub fn exit_on_signals(app: AppHandle) {
    use tokio::signal::unix::{SignalKind, signal};

    tauri::async_runtime::spawn(async move {
        let (Ok(mut term), Ok(mut int), Ok(mut hup)) =
            (signal(SignalKind::terminate()), signal(SignalKind::interrupt()), signal(SignalKind::hangup()))
        else {
            // Without handlers the default action (terminate) still applies.
            return;
        };
        let number = tokio::select! {
            _ = term.recv() => 15,
            _ = int.recv() => 2,
            _ = hup.recv() => 1,
        };
        app.exit(128 + number);
    });
}

/// Other platforms keep their default signal handling.
#[cfg(not(unix))]
pub fn exit_on_signals(_app: AppHandle) {}
