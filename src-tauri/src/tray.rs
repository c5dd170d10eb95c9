//! The tray icon and its menu: Open panel, Watches, Pause agent, Quit, in
//! the user's language (`words`), relabelled at once when it changes. On
//! Linux a tray click only opens the menu, so everything is a menu item.

use std::sync::atomic::{AtomicU32, Ordering};

use halley::protocol::{Event, Op};
use tauri::menu::{CheckMenuItem, Menu, MenuEvent, MenuItem, PredefinedMenuItem};
use tauri::tray::TrayIconBuilder;
use tauri::{AppHandle, Emitter, Manager, Wry};

use crate::shell::Shell;
use crate::windows::{self, PANEL};
use crate::words;

const OPEN: &str = "open";
const WATCHES: &str = "watches";
const PAUSE: &str = "pause";
const QUIT: &str = "quit";

/// Managed state: the "Pause agent" item, kept in step with the core.
struct PauseItem(CheckMenuItem<Wry>);

/// Managed state: the "Watches" item, which shows the unread alerts (their
/// count kept for a relabelling).
struct WatchesItem(MenuItem<Wry>, AtomicU32);

/// Managed state: the items whose text is fixed, for a relabelling.
struct FixedItems {
    open: MenuItem<Wry>,
    quit: MenuItem<Wry>,
}

/// The "Watches" item's text: `Watches (3 new alerts)` when some are unread.
pub fn watches_label(unread: u32) -> String {
    words::watches(unread, words::current())
}

/// Add the tray icon (the app icon from `assets/icons`).
pub fn install(app: &AppHandle) -> tauri::Result<()> {
    let pause = CheckMenuItem::with_id(app, PAUSE, words::PAUSE.get(), true, false, None::<&str>)?;
    let watches = MenuItem::with_id(app, WATCHES, watches_label(0), true, None::<&str>)?;
    let open = MenuItem::with_id(app, OPEN, words::OPEN_PANEL.get(), true, None::<&str>)?;
    let quit = MenuItem::with_id(app, QUIT, words::QUIT.get(), true, None::<&str>)?;
    let menu = Menu::with_items(app, &[&open, &watches, &pause, &PredefinedMenuItem::separator(app)?, &quit])?;
    let mut tray = TrayIconBuilder::with_id("halley")
        .tooltip("Halley")
        .menu(&menu)
        .show_menu_on_left_click(true)
        .on_menu_event(on_menu);
    if let Some(icon) = app.default_window_icon() {
        tray = tray.icon(icon.clone());
    }
    tray.build(app)?;
    app.manage(PauseItem(pause));
    app.manage(WatchesItem(watches, AtomicU32::new(0)));
    app.manage(FixedItems { open, quit });
    Ok(())
}

/// The menu in the language now in use (the settings just changed it).
pub fn relabel(app: &AppHandle) {
    if let Some(items) = app.try_state::<FixedItems>() {
        let _ = items.open.set_text(words::OPEN_PANEL.get());
        let _ = items.quit.set_text(words::QUIT.get());
    }
    if let Some(item) = app.try_state::<PauseItem>() {
        let _ = item.0.set_text(words::PAUSE.get());
    }
    if let Some(item) = app.try_state::<WatchesItem>() {
        let unread = item.1.load(Ordering::SeqCst);
        let _ = item.0.set_text(watches_label(unread));
        set_tooltip(app, unread);
    }
}

fn set_tooltip(app: &AppHandle, unread: u32) {
    if let Some(tray) = app.tray_by_id("halley") {
        let tip = if unread == 0 { "Halley".to_owned() } else { format!("Halley: {}", watches_label(unread)) };
        let _ = tray.set_tooltip(Some(tip));
    }
}

fn on_menu(app: &AppHandle, event: MenuEvent) {
    match event.id().as_ref() {
        OPEN => windows::show_panel(app),
        WATCHES => {
            windows::show_panel(app);
            if let Err(e) = app.emit_to(PANEL, crate::NAVIGATE, "watches") {
                eprintln!("halley-desktop: cannot open the watches view: {e}");
            }
        }
        PAUSE => set_paused(app),
        QUIT => {
            tauri::async_runtime::spawn(crate::shutdown::quit(app.clone()));
        }
        _ => {}
    }
}

/// The item toggled itself: tell the core; put it back if the core refuses.
fn set_paused(app: &AppHandle) {
    let Some(item) = app.try_state::<PauseItem>().map(|p| p.0.clone()) else {
        return;
    };
    let paused = item.is_checked().unwrap_or(false);
    let host = app.state::<Shell>().host().cloned();
    tauri::async_runtime::spawn(async move {
        let result = match host {
            Ok(host) => host.handle(Op::SetPaused { paused }).await.map(|_| ()).map_err(|e| e.to_string()),
            Err(e) => Err(e.message),
        };
        if let Err(e) = result {
            eprintln!("halley-desktop: cannot {} the agent: {e}", if paused { "pause" } else { "resume" });
            let _ = item.set_checked(!paused);
        }
    });
}

/// Keep "Pause agent" checked while the agent is paused (from the panel
/// too), and the unread alert count on "Watches" and the tooltip.
pub fn on_event(app: &AppHandle, event: &Event) {
    match event {
        Event::Paused { paused } => {
            if let Some(item) = app.try_state::<PauseItem>() {
                let _ = item.0.set_checked(*paused);
            }
        }
        Event::Watches { unread, .. } => {
            if let Some(item) = app.try_state::<WatchesItem>() {
                item.1.store(*unread, Ordering::SeqCst);
                let _ = item.0.set_text(watches_label(*unread));
            }
            set_tooltip(app, *unread);
        }
        _ => {}
    }
}
