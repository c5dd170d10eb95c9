//! Native notifications (notify-rust, the desktop's notification service):
//! a run ended while the panel is not in front of the user (hidden,
//! minimised, or the user in another program: neither the panel, one of
//! its dialogs nor the managed browser docked beside it has the focus); a
//! confirmation or a challenge waits while the panel is hidden; once, that
//! Halley keeps running in the tray. Clicking one opens the panel (and the
//! waiting dialog). They name a tool, a status, a site or the task's title
//! (sealed: a card, passport or phone in it shows as `•••`), never page
//! content, field values or answers: nothing secret goes to the
//! notification daemon.

use halley::protocol::{Event, RunStatus};
use notify_rust::Notification;
use tauri::{AppHandle, Url};

use crate::dialogs::{self, Kind};
use crate::windows;
use crate::words;

/// What a click on the notification brings forward.
#[derive(Debug, Clone, Copy)]
enum Target {
    Panel,
    Dialog(Kind),
}

/// Whether the user is in front of Halley: the panel on screen and the
/// focus in it, in one of its dialogs, or in the managed browser beside it.
pub fn in_front(visible: bool, app_focused: bool, browser_focused: bool) -> bool {
    visible && (app_focused || browser_focused)
}

/// Notify about the core's event if the user would otherwise miss it
/// (`browser_focused`: the managed browser's window has the focus).
/// `task`: the title of the ended run's conversation, if any.
pub fn on_event(app: &AppHandle, event: &Event, browser_focused: bool, task: Option<&str>) {
    let (visible, _) = windows::panel_state(app);
    match event {
        Event::RunEnded { status, .. } if !in_front(visible, windows::app_focused(app), browser_focused) => {
            let status = match status {
                RunStatus::Completed => words::FINISHED,
                RunStatus::Cancelled => words::STOPPED,
                _ => words::FAILED,
            };
            send(app, &words::run_ended(status, task), words::SEE_WHAT_HAPPENED.get().into(), Target::Panel);
        }
        Event::ConfirmationWaiting { request } if !visible => {
            let place = request.origin.as_deref().or(request.url.as_deref()).and_then(site);
            let body = words::waits_approval(&request.tool, place.as_deref());
            send(app, words::ASKS_FIRST.get(), body, Target::Dialog(Kind::Confirm));
        }
        Event::ChallengeWaiting { request, .. } if !visible => {
            let body = words::needs_you(request.challenge_type.as_str(), site(&request.url).as_deref());
            send(app, words::NEEDS_HELP.get(), body, Target::Dialog(Kind::Challenge));
        }
        _ => {}
    }
}

/// The first time the panel goes away (closed, or a start in the tray),
/// say that Halley is still running and where to find it.
pub fn tray_hint_once(app: &AppHandle) {
    let mut layout = windows::load_layout(app);
    if layout.tray_hint_shown {
        return;
    }
    layout.tray_hint_shown = true;
    windows::save_layout(app, &layout);
    send(app, words::IN_TRAY.get(), words::IN_TRAY_BODY.get().into(), Target::Panel);
}

/// Just the host of a URL: no path or query (they may carry tokens).
fn site(url: &str) -> Option<String> {
    Url::parse(url).ok()?.host_str().map(str::to_owned)
}

/// Show it from a thread of its own, which waits for a click.
fn send(app: &AppHandle, summary: &str, body: String, target: Target) {
    let app = app.clone();
    let summary = summary.to_owned();
    let spawned = std::thread::Builder::new().name("notification".into()).spawn(move || {
        let shown = Notification::new()
            .appname("Halley")
            .summary(&summary)
            .body(&body)
            .action("default", words::OPEN_HALLEY.get())
            .show();
        match shown {
            Ok(handle) => handle.wait_for_action(|action| {
                if action == "default" {
                    open(&app, target);
                }
            }),
            Err(e) => eprintln!("halley-desktop: cannot show a notification: {e}"),
        }
    });
    if let Err(e) = spawned {
        eprintln!("halley-desktop: cannot start a notification thread: {e}");
    }
}

fn open(app: &AppHandle, target: Target) {
    windows::show_panel(app);
    if let Target::Dialog(kind) = target {
        dialogs::focus(app, kind);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_end_of_a_task_is_told_only_when_the_panel_is_not_in_front() {
        // Hidden or minimised: whatever has the focus.
        assert!(!in_front(false, false, false));
        assert!(!in_front(false, true, true));
        // On screen, the user in the panel, a dialog or the browser beside it.
        assert!(in_front(true, true, false));
        assert!(in_front(true, false, true));
        // On screen, the user in another program.
        assert!(!in_front(true, false, false));
    }

    #[test]
    fn only_the_host_of_a_page_is_named() {
        assert_eq!(site("https://shop.example/checkout?token=s3cret#x").as_deref(), Some("shop.example"));
        assert_eq!(site("not a url"), None);
    }
}
