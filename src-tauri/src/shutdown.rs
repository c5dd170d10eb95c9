//! Quit, and the signals that mean it. The tray's Quit and SIGTERM, SIGINT
//! or SIGHUP (a logout, `systemctl`, `kill`, Ctrl-C in the terminal that
//! started the app, that terminal closing) all go through [`quit`]: the
//! panel's layout saved, the local API stopped, the core closed (runs
//! interrupted to be resumed, the tabs saved, the managed browser closed
//! and reaped, the store closed), then exit 0. A second signal while that
//! goes on ends the process at once, with the status a shell reports for a
//! command the signal ended (128 + its number).
//!
//! The work runs on the async runtime while the event loop still turns: the
//! layout is read through window calls that wait for the main thread, so
//! the main thread must not be blocked on that work (it was, in
//! `RunEvent::Exit`: a settling panel's window call then waited on it for
//! ever).

use std::sync::atomic::{AtomicBool, Ordering};

use tauri::{AppHandle, Manager};

use crate::shell::Shell;
use crate::windows;

/// Set once [`quit`] (or the exit path) began closing.
static QUITTING: AtomicBool = AtomicBool::new(false);

/// Whether Halley is closing: the panel stops settling the browser's place.
pub fn quitting() -> bool {
    QUITTING.load(Ordering::SeqCst)
}

/// What Quit does, once: the layout, the API, the core; then the exit.
pub async fn quit(app: AppHandle) {
    if QUITTING.swap(true, Ordering::SeqCst) {
        return;
    }
    windows::remember_layout(&app);
    close(&app).await;
    app.exit(0);
}

/// The process exits without [`quit`] having run (another exit request):
/// close the core from the exit path, as well as it can there.
pub fn on_exit(app: &AppHandle) {
    if QUITTING.swap(true, Ordering::SeqCst) {
        return;
    }
    tauri::async_runtime::block_on(close(app));
}

/// The local API stopped (no new requests during the rest), then the core
/// closed.
async fn close(app: &AppHandle) {
    let Some(shell) = app.try_state::<Shell>() else {
        return;
    };
    shell.stop_api().await;
    if let Ok(host) = shell.host() {
        host.close().await;
    }
}

#[cfg(unix)]
pub fn quit_on_signals(app: AppHandle) {
    use tokio::signal::unix::{SignalKind, signal};

    tauri::async_runtime::spawn(async move {
        let (Ok(mut term), Ok(mut int), Ok(mut hup)) =
            (signal(SignalKind::terminate()), signal(SignalKind::interrupt()), signal(SignalKind::hangup()))
        else {
            // Without handlers the default action (terminate) still applies.
            eprintln!("halley-desktop: no signal handlers: a signal ends the app without saving");
            return;
        };
        let mut first = true;
        loop {
            let number = tokio::select! {
                _ = term.recv() => 15,
                _ = int.recv() => 2,
                _ = hup.recv() => 1,
            };
            if !first {
                eprintln!("halley-desktop: a second signal: ending now");
                std::process::exit(128 + number);
            }
            first = false;
            tauri::async_runtime::spawn(quit(app.clone()));
        }
    });
}

/// Other platforms keep their default signal handling.
#[cfg(not(unix))]
pub fn quit_on_signals(_app: AppHandle) {}
