//! The panel window: docked at a screen edge with the managed browser given
//! the rest of the screen (on start, on show, and after the user moves or
//! resizes it), hidden rather than closed. Also the rule that no webview
//! ever leaves the app's own pages.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use halley::host::Rect;
use tauri::plugin::TauriPlugin;
use tauri::{AppHandle, Manager, PhysicalPosition, PhysicalSize, Runtime, Url, WebviewWindow, WindowEvent};

use crate::layout::{self, Layout};
use crate::notify;
use crate::shell::Shell;

pub const PANEL: &str = "panel";
/// Moves and resizes come in bursts while the user drags: act once it stops.
const SETTLE: Duration = Duration::from_millis(400);

/// Managed state: the latest panel change (to act only on the last of a
/// burst) and the browser area last asked for.
#[derive(Default)]
pub struct Dock {
    generation: AtomicU64,
    browser: Mutex<Option<Rect>>,
}

/// Show, raise and dock the panel (tray "Open panel", a second launch, a
/// notification click).
pub fn show_panel(app: &AppHandle) {
    let Some(panel) = app.get_webview_window(PANEL) else {
        return;
    };
    let _ = panel.show();
    let _ = panel.unminimize();
    if let Err(e) = panel.set_focus() {
        eprintln!("halley-desktop: cannot focus the panel: {e}");
    }
    // A second launch can ask while the app is still starting (its
    // single-instance name is taken before setup ends): the panel is shown
    // now and docked when setup ends.
    if app.try_state::<Shell>().is_none() || app.try_state::<Dock>().is_none() {
        return;
    }
    dock_panel(app, &panel);
}

/// Whether the panel is on screen, and whether it has the focus.
pub fn panel_state(app: &AppHandle) -> (bool, bool) {
    let Some(panel) = app.get_webview_window(PANEL) else {
        return (false, false);
    };
    let visible = panel.is_visible().unwrap_or(false) && !panel.is_minimized().unwrap_or(false);
    (visible, visible && panel.is_focused().unwrap_or(false))
}

/// Whether one of the app's windows (the panel, a dialog) has the focus.
pub fn app_focused(app: &AppHandle) -> bool {
    app.webview_windows().values().any(|w| w.is_visible().unwrap_or(false) && w.is_focused().unwrap_or(false))
}

/// Hide the panel instead of closing it (Halley stays in the tray), and
/// follow its moves and resizes.
pub fn watch_panel(app: &AppHandle) {
    let Some(panel) = app.get_webview_window(PANEL) else {
        return;
    };
    let handle = app.clone();
    let window = panel.clone();
    panel.on_window_event(move |event| match event {
        WindowEvent::CloseRequested { api, .. } => {
            api.prevent_close();
            if let Err(e) = window.hide() {
                eprintln!("halley-desktop: cannot hide the panel: {e}");
            }
            notify::tray_hint_once(&handle);
        }
        WindowEvent::Moved(_) | WindowEvent::Resized(_) => panel_changed(&handle),
        _ => {}
    });
}

/// Put the panel at its remembered side and width, full height.
fn dock_panel(app: &AppHandle, panel: &WebviewWindow) {
    let saved = load_layout(app);
    let Some((work, scale)) = work_area(panel) else {
        return;
    };
    let target = layout::dock(work, logical_to_physical(saved.width, scale), min_width(scale), saved.side);
    // `set_size` is the inner size: leave room for the window frame.
    let frame = match (panel.outer_size(), panel.inner_size()) {
        (Ok(outer), Ok(inner)) => (outer.width.saturating_sub(inner.width), outer.height.saturating_sub(inner.height)),
        _ => (0, 0),
    };
    let inner = PhysicalSize::new(target.width.saturating_sub(frame.0), target.height.saturating_sub(frame.1));
    if let Err(e) = panel.set_size(inner).and_then(|()| panel.set_position(PhysicalPosition::new(target.x, target.y))) {
        eprintln!("halley-desktop: cannot dock the panel: {e}");
    }
    panel_changed(app);
}

/// The panel moved or changed size: once it settles, remember its side and
/// width and give the browser the rest of the screen.
fn panel_changed(app: &AppHandle) {
    let dock = app.state::<Dock>();
    let generation = dock.generation.fetch_add(1, Ordering::SeqCst) + 1;
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        tokio::time::sleep(SETTLE).await;
        if app.state::<Dock>().generation.load(Ordering::SeqCst) == generation && !crate::shutdown::quitting() {
            settle(&app);
        }
    });
}

fn settle(app: &AppHandle) {
    let Some((work, rect, side, scale)) = remember_layout(app) else {
        return;
    };
    let Some(area) = layout::browser_area(work, rect, side, min_width(scale)) else {
        return;
    };
    {
        let dock = app.state::<Dock>();
        let mut last = dock.browser.lock().unwrap_or_else(PoisonError::into_inner);
        if *last == Some(area) {
            return;
        }
        *last = Some(area);
    }
    let Ok(host) = app.state::<Shell>().host().cloned() else {
        return;
    };
    tauri::async_runtime::spawn(async move {
        if let Err(e) = host.set_browser_window(area).await {
            eprintln!("halley-desktop: cannot place the browser window: {e}");
        }
    });
}

/// Save the docked panel's side and width as it is now (the panel settling,
/// or Quit before a last move settled): its monitor's work area, its
/// rectangle, side and scale factor; `None` when it is hidden or has none.
pub fn remember_layout(app: &AppHandle) -> Option<(Rect, Rect, layout::Side, f64)> {
    let panel = app.get_webview_window(PANEL)?;
    if !panel_state(app).0 {
        return None;
    }
    let (Ok(position), Ok(size), Some((work, scale))) = (panel.outer_position(), panel.outer_size(), work_area(&panel))
    else {
        return None;
    };
    let rect = Rect { x: position.x, y: position.y, width: size.width, height: size.height };
    let side = layout::side_of(work, rect);
    let mut saved = load_layout(app);
    let width = f64::from(size.width) / scale;
    if saved.side != side || (saved.width - width).abs() >= 1.0 {
        saved.side = side;
        saved.width = width.round();
        save_layout(app, &saved);
    }
    Some((work, rect, side, scale))
}

/// Where the hand-off window of `size` (logical pixels) goes, in logical
/// pixels ([`layout::hand_off_spot`]): over the panel's lower part, else a
/// top corner; `None` when no monitor is known (then it is centred).
pub fn hand_off_spot(app: &AppHandle, size: (f64, f64)) -> Option<(f64, f64)> {
    let panel = app.get_webview_window(PANEL)?;
    let (work, scale) = work_area(&panel)?;
    let shown = panel_state(app).0;
    let rect = match (shown, panel.outer_position(), panel.outer_size()) {
        (true, Ok(p), Ok(s)) => Some(Rect { x: p.x, y: p.y, width: s.width, height: s.height }),
        _ => None,
    };
    let side = load_layout(app).side;
    let (x, y) = layout::hand_off_spot(
        work,
        rect,
        side,
        (logical_to_physical(size.0, scale), logical_to_physical(size.1, scale)),
    );
    Some((f64::from(x) / scale, f64::from(y) / scale))
}

/// The work area (screen less panels and docks) of the panel's monitor, and
/// its scale factor.
fn work_area(panel: &WebviewWindow) -> Option<(Rect, f64)> {
    let monitor = panel.current_monitor().ok().flatten().or_else(|| panel.primary_monitor().ok().flatten())?;
    let area = monitor.work_area();
    let rect = Rect { x: area.position.x, y: area.position.y, width: area.size.width, height: area.size.height };
    Some((rect, monitor.scale_factor()))
}

fn logical_to_physical(value: f64, scale: f64) -> u32 {
    // Saturating float-to-int conversion; widths are far below u32::MAX.
    (value * scale).round().max(0.0) as u32
}

fn min_width(scale: f64) -> u32 {
    logical_to_physical(layout::MIN_WIDTH, scale)
}

pub fn load_layout(app: &AppHandle) -> Layout {
    app.state::<Shell>().file(layout::FILE).map(|p| Layout::load(&p)).unwrap_or_default()
}

pub fn save_layout(app: &AppHandle, layout: &Layout) {
    let Some(path) = app.state::<Shell>().file(layout::FILE) else {
        return;
    };
    if let Err(e) = layout.save(&path) {
        eprintln!("halley-desktop: cannot save {}: {e}", path.display());
    }
}

/// A plugin that refuses every navigation away from the app's own pages:
/// remote content loads only in the managed browser, never in a webview.
pub fn app_pages_only<R: Runtime>() -> TauriPlugin<R> {
    tauri::plugin::Builder::new("app-pages-only")
        .on_navigation(|webview, url| {
            let ok = is_app_url(url);
            if !ok {
                eprintln!("halley-desktop: refused to load {url} in {}", webview.label());
            }
            ok
        })
        .build()
}

fn is_app_url(url: &Url) -> bool {
    match url.scheme() {
        "tauri" => url.host_str() == Some("localhost"),
        "http" | "https" => url.host_str() == Some("tauri.localhost"),
        "about" => url.path() == "blank",
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_apps_pages_load() {
        let ok = |s: &str| is_app_url(&Url::parse(s).unwrap());
        assert!(ok("tauri://localhost/"));
        assert!(ok("tauri://localhost/confirm.html?id=c1"));
        assert!(ok("http://tauri.localhost/index.html"));
        assert!(!ok("https://example.com/"));
        assert!(!ok("http://localhost:8080/"));
        assert!(!ok("file:///etc/passwd"));
        assert!(!ok("tauri://evil.example/"));
    }
}
