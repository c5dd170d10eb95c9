//! Clean exit on SIGTERM/SIGINT: the app closes its windows and the webview
//! processes through Tauri's normal exit path instead of dying mid-frame.

use tauri::AppHandle;

/// Exits the app with status 0 when the process gets SIGTERM or SIGINT.
#[cfg(unix)]
pub fn exit_on_signals(app: AppHandle) {
    use tokio::signal::unix::{SignalKind, signal};

    tauri::async_runtime::spawn(async move {
        let (Ok(mut term), Ok(mut int)) = (signal(SignalKind::terminate()), signal(SignalKind::interrupt())) else {
            // Without handlers the default action (terminate) still applies.
            return;
        };
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
        app.exit(0);
    });
}

/// Other platforms keep their default signal handling.
#[cfg(not(unix))]
pub fn exit_on_signals(_app: AppHandle) {}
