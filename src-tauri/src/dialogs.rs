//! The native dialogs: a small always-on-top window per kind of question
//! (`confirm` for a confirmation, `challenge` for a CAPTCHA/OTP/login
//! hand-off), opened when the core says one is waiting and closed when it
//! says it is over. A window shows one question; the next waiting one of the
//! same kind replaces it when it closes. The page reads its question with
//! the `dialog_request` command and answers with `op`.
//!
//! Each window gets a label of its own (`confirm-3`): Tauri forgets a
//! webview by its label when it is destroyed, so a new window under the
//! label of one still closing would be forgotten with it and its page's
//! calls refused ("failed to acquire webview reference").

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use halley::protocol::{Event, Op};
use tauri::{AppHandle, Manager, WebviewUrl, WebviewWindow, WebviewWindowBuilder, WindowEvent};

use crate::shell::Shell;
use crate::words;

pub const CONFIRM: &str = "confirm";
pub const CHALLENGE: &str = "challenge";

/// The two kinds of dialog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Confirm,
    Challenge,
}

impl Kind {
    /// The kind's name, the first part of its windows' labels.
    pub fn label(self) -> &'static str {
        match self {
            Kind::Confirm => CONFIRM,
            Kind::Challenge => CHALLENGE,
        }
    }

    /// The label of this kind's window number `serial`.
    fn window_label(self, serial: u64) -> String {
        format!("{}-{serial}", self.label())
    }

    /// The kind of a dialog window, from its label (`confirm-3`).
    pub fn of_window(label: &str) -> Option<Kind> {
        let (kind, serial) = label.split_once('-')?;
        if serial.is_empty() || !serial.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        [Kind::Confirm, Kind::Challenge].into_iter().find(|k| k.label() == kind)
    }

    /// The page relative to the app's root, with the question's id and the
    /// language to speak (the settings' language now, `words::current`).
    fn page(self, id: &str, lang: words::Lang) -> String {
        let page = match self {
            Kind::Confirm => "confirm.html",
            Kind::Challenge => "challenge.html",
        };
        let lang = match lang {
            words::Lang::En => "en",
            words::Lang::Vi => "vi",
        };
        format!("{page}?id={}&lang={lang}", query_escape(id))
    }

    /// The window's title, in the language spoken now.
    fn title(self) -> &'static str {
        match self {
            Kind::Confirm => words::CONFIRM_TITLE.get(),
            Kind::Challenge => words::CHALLENGE_TITLE.get(),
        }
    }
}

/// Managed state: the questions waiting (in arrival order) and which one
/// each dialog window shows.
#[derive(Default)]
pub struct Dialogs {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    waiting: Vec<(Kind, String, Event)>,
    shown: HashMap<Kind, String>,
    /// Which window of each kind is the open one: a window destroyed late,
    /// after a new one took its label, must not forget the new one's
    /// question (its answer would then never close it).
    opened: HashMap<Kind, u64>,
    windows: u64,
}

impl Inner {
    /// A window of `kind` is about to be built: its serial, and the one it
    /// replaces (to put back if it cannot be built).
    fn opening(&mut self, kind: Kind) -> (u64, Option<u64>) {
        self.windows += 1;
        (self.windows, self.opened.insert(kind, self.windows))
    }

    /// Window `serial` of `kind` could not be built: the older one (if
    /// any) is still the one whose end counts.
    fn not_built(&mut self, kind: Kind, serial: u64, before: Option<u64>) {
        if self.opened.get(&kind) == Some(&serial) {
            match before {
                Some(before) => self.opened.insert(kind, before),
                None => self.opened.remove(&kind),
            };
        }
    }

    /// Window `serial` of `kind` is gone: `Some(was)` (the question it
    /// showed, if any) when it was the open one; `None` for an older
    /// window gone after the open one took its label, whose question must
    /// not be forgotten (its answer would then never close it).
    fn gone(&mut self, kind: Kind, serial: u64) -> Option<Option<String>> {
        if self.opened.get(&kind) != Some(&serial) {
            return None;
        }
        self.opened.remove(&kind);
        Some(self.shown.remove(&kind))
    }

    /// Question `id` is over: forgotten. `None` when no window shows it;
    /// else `Some(next)`: the next waiting question of the kind, which the
    /// window shows now, or none (the window closes).
    fn over(&mut self, kind: Kind, id: &str) -> Option<Option<String>> {
        self.waiting.retain(|(_, i, _)| i != id);
        if self.shown.get(&kind).map(String::as_str) != Some(id) {
            return None;
        }
        let next = self.waiting.iter().find(|(k, _, _)| *k == kind).map(|(_, i, _)| i.clone());
        match &next {
            Some(next) => self.shown.insert(kind, next.clone()),
            None => self.shown.remove(&kind),
        };
        Some(next)
    }
}

impl Dialogs {
    /// The open window of this kind, if any.
    fn window(&self, app: &AppHandle, kind: Kind) -> Option<WebviewWindow> {
        let serial = *self.lock().opened.get(&kind)?;
        app.get_webview_window(&kind.window_label(serial))
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The waiting event for question `id`.
    pub fn waiting(&self, id: &str) -> Option<Event> {
        self.lock().waiting.iter().find(|(_, i, _)| i == id).map(|(_, _, e)| e.clone())
    }

    fn wait(&self, kind: Kind, id: &str, event: &Event) {
        let mut inner = self.lock();
        if !inner.waiting.iter().any(|(_, i, _)| i == id) {
            inner.waiting.push((kind, id.to_owned(), event.clone()));
        }
    }
}

/// Open, replace or close the dialogs as the core's events say.
pub fn on_event(app: &AppHandle, event: &Event) {
    let dialogs = app.state::<Dialogs>();
    match event {
        Event::ConfirmationWaiting { request } => {
            dialogs.wait(Kind::Confirm, &request.id, event);
            show_next(app, Kind::Confirm);
        }
        Event::ChallengeWaiting { id, .. } => {
            dialogs.wait(Kind::Challenge, id, event);
            show_next(app, Kind::Challenge);
            bring_challenge_tab_forward(app, id.clone());
        }
        Event::ConfirmationClosed { id, .. } => closed(app, Kind::Confirm, id),
        Event::ChallengeClosed { id } => closed(app, Kind::Challenge, id),
        _ => {}
    }
}

/// Bring the dialog of this kind to the front, opening it again if the user
/// closed it while its question still waits.
pub fn focus(app: &AppHandle, kind: Kind) {
    match app.state::<Dialogs>().window(app, kind) {
        Some(window) => raise(&window),
        None => show_next(app, kind),
    }
}

/// Show the first waiting question of this kind unless its window is open.
fn show_next(app: &AppHandle, kind: Kind) {
    show_next_but(app, kind, None);
}

/// [`show_next`], passing over the question `skip` (the user just closed it).
fn show_next_but(app: &AppHandle, kind: Kind, skip: Option<&str>) {
    let dialogs = app.state::<Dialogs>();
    if dialogs.window(app, kind).is_some() {
        return;
    }
    let id = {
        let mut inner = dialogs.lock();
        let first = inner.waiting.iter().find(|(k, id, _)| *k == kind && Some(id.as_str()) != skip);
        let Some(id) = first.map(|(_, id, _)| id.clone()) else {
            return;
        };
        inner.shown.insert(kind, id.clone());
        id
    };
    if let Err(e) = open(app, kind, &id) {
        eprintln!("halley-desktop: cannot open the {} dialog: {e}", kind.label());
        dialogs.lock().shown.remove(&kind);
    }
}

/// The question is over: forget it; its window shows the next one of the
/// same kind, or closes.
fn closed(app: &AppHandle, kind: Kind, id: &str) {
    let dialogs = app.state::<Dialogs>();
    let Some(next) = dialogs.lock().over(kind, id) else {
        return;
    };
    let Some(window) = dialogs.window(app, kind) else {
        dialogs.lock().shown.remove(&kind);
        show_next(app, kind);
        return;
    };
    let replaced = next
        .and_then(|next| window.url().ok()?.join(&kind.page(&next, words::current())).ok())
        .map(|url| window.navigate(url));
    match replaced {
        Some(Ok(())) => {
            // The language may have changed since the window opened.
            let _ = window.set_title(kind.title());
            raise(&window);
        }
        _ => {
            if let Err(e) = window.destroy() {
                eprintln!("halley-desktop: cannot close the {} dialog: {e}", kind.label());
            }
        }
    }
}

/// The hand-off window's size (logical pixels): what it says, and its buttons.
const HAND_OFF: (f64, f64) = (400.0, 330.0);

fn open(app: &AppHandle, kind: Kind, id: &str) -> tauri::Result<()> {
    let dialogs = app.state::<Dialogs>();
    // Taken before the window exists: an older window's end may come
    // while this one is built.
    let (serial, before) = dialogs.lock().opening(kind);
    let label = kind.window_label(serial);
    let builder = WebviewWindowBuilder::new(app, &label, WebviewUrl::App(kind.page(id, words::current()).into()))
        .title(kind.title())
        .always_on_top(true)
        .focused(true);
    let built = match kind {
        Kind::Confirm => builder.inner_size(440.0, 560.0).min_inner_size(360.0, 400.0).center(),
        // The hand-off is short, and must not cover the page the person
        // solves it on: over the panel, else in a top corner.
        Kind::Challenge => {
            let builder = builder.inner_size(HAND_OFF.0, HAND_OFF.1).min_inner_size(340.0, 260.0);
            match crate::windows::hand_off_spot(app, HAND_OFF) {
                Some((x, y)) => builder.position(x, y),
                None => builder.center(),
            }
        }
    }
    .build();
    let window = match built {
        Ok(window) => window,
        Err(e) => {
            dialogs.lock().not_built(kind, serial, before);
            return Err(e);
        }
    };
    let handle = app.clone();
    window.on_window_event(move |event| {
        if !matches!(event, WindowEvent::Destroyed) {
            return;
        }
        // Closed by the user, its question still waits (the panel can answer
        // it, a notification click opens the dialog again); or closed by
        // `closed` as its question is over. Either way another question of
        // the same kind that came meanwhile gets a window, once the old
        // one is gone.
        let Some(was) = handle.state::<Dialogs>().lock().gone(kind, serial) else {
            // An older window, gone after a newer one opened.
            return;
        };
        show_next_but(&handle, kind, was.as_deref());
    });
    raise(&window);
    Ok(())
}

fn raise(window: &WebviewWindow) {
    let _ = window.show();
    let _ = window.unminimize();
    if let Err(e) = window.set_focus() {
        eprintln!("halley-desktop: cannot focus {}: {e}", window.label());
    }
}

/// The user must act in the browser: ask the core to bring its window and
/// the challenge's tab to the front, then the hand-off window above it
/// (the browser coming forward would hide it otherwise).
fn bring_challenge_tab_forward(app: &AppHandle, id: String) {
    let Ok(host) = app.state::<Shell>().host().cloned() else {
        return;
    };
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        if let Err(e) = host.handle(Op::ShowChallenge { id }).await {
            eprintln!("halley-desktop: cannot show the challenge's tab: {e}");
        }
        keep_in_front_soon(&app, Kind::Challenge).await;
    });
}

/// [`keep_in_front`] now and once more a moment later: the browser's own
/// raise lands after its CDP answer.
pub async fn keep_in_front_soon(app: &AppHandle, kind: Kind) {
    keep_in_front(app, kind);
    tokio::time::sleep(Duration::from_millis(400)).await;
    keep_in_front(app, kind);
}

/// The dialog of this kind, if open, raised above the other windows (the
/// managed browser just brought forward): focus alone does not restack a
/// window on every desktop (nor without a window manager), so its GDK
/// window is raised too, on the main thread.
pub fn keep_in_front(app: &AppHandle, kind: Kind) {
    let Some(window) = app.state::<Dialogs>().window(app, kind) else {
        return;
    };
    let _ = window.set_always_on_top(true);
    raise(&window);
    #[cfg(target_os = "linux")]
    {
        let on_main = window.clone();
        let restacked = window.run_on_main_thread(move || {
            use gtk::prelude::{GtkWindowExt, WidgetExt};
            if let Ok(gtk_window) = on_main.gtk_window() {
                gtk_window.present();
                if let Some(gdk) = gtk_window.window() {
                    gdk.raise();
                }
            }
        });
        if let Err(e) = restacked {
            eprintln!("halley-desktop: cannot raise the {} dialog: {e}", kind.label());
        }
    }
}

/// Percent-encode everything but unreserved characters.
fn query_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn waiting(inner: &mut Inner, id: &str) {
        let event = Event::ChallengeClosed { id: id.to_owned() };
        inner.waiting.push((Kind::Confirm, id.to_owned(), event));
    }

    /// The e2e flake of 2026-11-28: the next question came while the last
    /// one's window was being destroyed, got a new window, and the old
    /// window's late end forgot it: answered, it never closed.
    #[test]
    fn an_old_window_gone_late_does_not_forget_the_new_windows_question() {
        let mut inner = Inner::default();
        waiting(&mut inner, "c1");
        inner.shown.insert(Kind::Confirm, "c1".into());
        let (first, _) = inner.opening(Kind::Confirm);
        // c1 answered, nothing else waits: its window closes.
        assert_eq!(inner.over(Kind::Confirm, "c1"), Some(None));
        // c2 comes before the old window's end: a new window shows it.
        waiting(&mut inner, "c2");
        inner.shown.insert(Kind::Confirm, "c2".into());
        let (second, before) = inner.opening(Kind::Confirm);
        assert_eq!(before, Some(first));
        // The old window's end, late, is not the open one's.
        assert_eq!(inner.gone(Kind::Confirm, first), None);
        // c2 answered: its window closes (it did not before the fix).
        assert_eq!(inner.over(Kind::Confirm, "c2"), Some(None));
        assert_eq!(inner.gone(Kind::Confirm, second), Some(None));
    }

    #[test]
    fn a_window_closed_by_the_user_gives_its_question_back_and_a_failed_build_keeps_the_old_one() {
        let mut inner = Inner::default();
        waiting(&mut inner, "c1");
        waiting(&mut inner, "c2");
        inner.shown.insert(Kind::Confirm, "c1".into());
        let (first, _) = inner.opening(Kind::Confirm);
        // An answer shows the next waiting question in the same window.
        assert_eq!(inner.over(Kind::Confirm, "c1"), Some(Some("c2".into())));
        // A question no window shows changes nothing.
        waiting(&mut inner, "c3");
        assert_eq!(inner.over(Kind::Confirm, "c3"), None);
        // A window that cannot be built leaves the open one counting.
        let (failed, before) = inner.opening(Kind::Confirm);
        inner.not_built(Kind::Confirm, failed, before);
        // The user closes the window: its question (still waiting) is
        // passed over once when the next window opens.
        assert_eq!(inner.gone(Kind::Confirm, first), Some(Some("c2".into())));
        assert_eq!(inner.gone(Kind::Confirm, first), None);
    }

    #[test]
    fn pages_carry_the_escaped_id() {
        assert_eq!(Kind::Confirm.page("c-1", words::Lang::En), "confirm.html?id=c-1&lang=en");
        assert_eq!(Kind::Challenge.page("a b&c", words::Lang::Vi), "challenge.html?id=a%20b%26c&lang=vi");
    }
}
