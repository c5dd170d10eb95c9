//! Halley desktop app: a thin Tauri shell over `halley::host::Host`. It maps
//! the panel's commands to `Op`s and the core's `Event`s to webview events,
//! windows (the docked panel, the confirm/challenge dialogs), the tray and
//! native notifications. No business logic here.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

mod commands;
mod dialogs;
mod layout;
mod notify;
mod shell;
mod shutdown;
mod tray;
mod webview;
mod windows;
mod words;

use std::sync::Arc;

use halley::host::Host;
use halley::protocol::Event;
use tauri::{AppHandle, Emitter, Manager, RunEvent};

use crate::shell::Shell;

/// The webview event every core [`Event`] is emitted as.
pub const EVENT: &str = "halley://event";
/// Asks the panel to show one of its views (payload: the view's name).
pub const NAVIGATE: &str = "halley://navigate";
/// Started by the login autostart entry: stay in the tray, panel hidden.
const TRAY_FLAG: &str = "--tray";

fn main() -> anyhow::Result<()> {
    webview::ensure_software_rendering();
    // Tauri's tasks run on this runtime (stacks large enough for a debug
    // build's futures); it lives as long as the app.
    let runtime = halley::runtime()?;
    tauri::async_runtime::set(runtime.handle().clone());
    let app = tauri::Builder::default()
        // First, so that a second launch stops before anything else runs.
        .plugin(tauri_plugin_single_instance::init(|app, _args, _cwd| windows::show_panel(app)))
        .plugin(tauri_plugin_autostart::Builder::new().arg(TRAY_FLAG).build())
        .plugin(windows::app_pages_only())
        .setup(|app| {
            let handle = app.handle().clone();
            shutdown::quit_on_signals(handle.clone());
            let shell = tauri::async_runtime::block_on(Shell::open());
            let host = shell.host().ok().cloned();
            // The tray and the notifications speak the user's language.
            let saved = host.as_ref().and_then(|h| {
                match tauri::async_runtime::block_on(h.handle(halley::protocol::Op::GetSettings)) {
                    Ok(halley::protocol::Reply::Settings { settings, .. }) => settings.language,
                    _ => None,
                }
            });
            words::set(words::from_setting(saved.as_deref()));
            app.manage(shell);
            app.manage(dialogs::Dialogs::default());
            app.manage(windows::Dock::default());
            if let Err(e) = tray::install(&handle) {
                // No tray host (or no appindicator library): the app still works.
                eprintln!("halley-desktop: no tray icon: {e}");
            }
            if let Some(host) = host {
                forward_events(handle.clone(), Arc::clone(&host));
                // The browser's tabs of the last time, open again (unless
                // the setting is off), and kept while the app runs.
                tauri::async_runtime::spawn(async move {
                    if let Err(e) = host.keep_tabs().await {
                        eprintln!("halley-desktop: the last tabs are not reopened: {}", e.to_wire().message);
                    }
                });
            }
            windows::watch_panel(&handle);
            if std::env::args().any(|a| a == TRAY_FLAG) {
                notify::tray_hint_once(&handle);
                // A second launch during the start showed the panel: dock it.
                if windows::panel_state(&handle).0 {
                    windows::show_panel(&handle);
                }
            } else {
                windows::show_panel(&handle);
            }
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![commands::op, commands::set_autostart, commands::dialog_request])
        .build(tauri::generate_context!("../tauri.conf.json"))?;
    app.run(|app, event| match event {
        // The panel hides instead of closing; a dialog closing last must not
        // end Halley either: only Quit (or a signal) does.
        RunEvent::ExitRequested { code: None, api, .. } => api.prevent_exit(),
        RunEvent::Exit => shutdown::on_exit(app),
        _ => {}
    });
    Ok(())
}

/// Every core event goes to the webviews as it is, then to the dialogs, the
/// tray and the notifications.
fn forward_events(app: AppHandle, host: Arc<Host>) {
    let mut events = host.subscribe();
    tauri::async_runtime::spawn(async move {
        use tokio::sync::broadcast::error::RecvError;
        loop {
            let event: Event = match events.recv().await {
                Ok(event) => event,
                Err(RecvError::Lagged(n)) => {
                    eprintln!("halley-desktop: {n} core events dropped (the shell fell behind)");
                    continue;
                }
                Err(RecvError::Closed) => break,
            };
            if let Err(e) = app.emit(EVENT, &event) {
                eprintln!("halley-desktop: cannot emit an event: {e}");
            }
            dialogs::on_event(&app, &event);
            tray::on_event(&app, &event);
            // Only asked when it decides: the panel on screen, not focused.
            let browser_focused = matches!(event, Event::RunEnded { .. })
                && windows::panel_state(&app) == (true, false)
                && host.browser_focused().await;
            // Which task ended, by its conversation's title.
            let shown = |app: &AppHandle| {
                let (visible, _) = windows::panel_state(app);
                notify::in_front(visible, windows::app_focused(app), browser_focused)
            };
            let task = match &event {
                // Read only when a notification will say it.
                Event::RunEnded { conversation_id, .. } if !shown(&app) => {
                    match host.handle(halley::protocol::Op::OpenConversation { id: conversation_id.clone() }).await {
                        Ok(halley::protocol::Reply::Conversation { title, .. }) => Some(title),
                        _ => None,
                    }
                }
                _ => None,
            };
            notify::on_event(&app, &event, browser_focused, task.as_deref());
        }
    });
}
