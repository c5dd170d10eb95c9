//! The commands the webviews may call (each window's capability file says
//! which): `op` forwards to the core; the rest are the shell's own.

use halley::error::WireError;
use halley::protocol::{Event, Op, Reply};
use tauri::{AppHandle, Manager, State, Webview};
use tauri_plugin_autostart::ManagerExt;

use crate::dialogs::{self, Dialogs};
use crate::shell::{Shell, not_available};
use crate::{tray, words};

/// Carry out one [`Op`] in the core: its [`Reply`], or the core's error as
/// `{code, message}`. The dialogs may only answer their own question.
#[tauri::command]
pub async fn op(webview: Webview, shell: State<'_, Shell>, op: Op) -> Result<Reply, WireError> {
    let label = webview.label();
    if !allowed(label, &op) {
        return Err(halley::Error::new(
            halley::ErrorCode::Denied,
            format!("the {label} window may not send this request"),
        )
        .to_wire());
    }
    let host = shell.host()?.clone();
    let shows_browser = matches!(op, Op::ShowChallenge { .. });
    let reply = host.handle(op).await.map_err(|e| e.to_wire())?;
    if shows_browser {
        // The browser came forward: the hand-off window stays above it.
        dialogs::keep_in_front_soon(webview.app_handle(), dialogs::Kind::Challenge).await;
    }
    if let Reply::Settings { settings, .. } = &reply {
        // Another language applies at once to the tray and notifications.
        let lang = words::from_setting(settings.language.as_deref());
        if lang != words::current() {
            words::set(lang);
            tray::relabel(webview.app_handle());
        }
    }
    Ok(reply)
}

/// Which window may send which op: the panel anything, a dialog only the
/// answer it exists for (and the settings, for its language).
fn allowed(label: &str, op: &Op) -> bool {
    if label == "panel" {
        return true;
    }
    match dialogs::Kind::of_window(label) {
        Some(dialogs::Kind::Confirm) => matches!(op, Op::AnswerConfirmation { .. } | Op::GetSettings),
        Some(dialogs::Kind::Challenge) => {
            matches!(op, Op::AnswerChallenge { .. } | Op::ShowChallenge { .. } | Op::GetSettings)
        }
        None => false,
    }
}

/// Start Halley (in the tray) at login, or stop doing so, as
/// `Settings.autostart` says. Answers whether it is now on.
#[tauri::command]
pub fn set_autostart(app: AppHandle, enabled: bool) -> Result<bool, WireError> {
    let autostart = app.autolaunch();
    let result = if enabled { autostart.enable() } else { autostart.disable() };
    result.map_err(|e| not_available(format!("cannot change the login item: {e}")))?;
    autostart.is_enabled().map_err(|e| not_available(format!("cannot read the login item: {e}")))
}

/// The question a dialog window shows (`confirm.html?id=...`,
/// `challenge.html?id=...`): the waiting event as the core sent it, or
/// none when it is no longer waiting.
#[tauri::command]
pub fn dialog_request(dialogs: State<'_, Dialogs>, id: String) -> Option<Event> {
    dialogs.waiting(&id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dialogs_may_only_answer_their_question() {
        let answer = Op::AnswerConfirmation {
            id: "c1".into(),
            approved: true,
            user_edits: Default::default(),
            reason: String::new(),
        };
        let send = Op::SendMessage { text: "hi".into(), conversation_id: None, tabs: vec![] };
        let challenge = Op::AnswerChallenge { id: "h1".into(), done: true };
        assert!(allowed("panel", &send));
        assert!(allowed("confirm-1", &answer));
        assert!(!allowed("confirm-1", &send));
        assert!(!allowed("confirm-12", &challenge));
        assert!(allowed("challenge-2", &challenge));
        assert!(allowed("challenge-2", &Op::ShowChallenge { id: "h1".into() }));
        assert!(!allowed("challenge-2", &answer));
        assert!(!allowed("other", &Op::ListTools));
        // Only a dialog's own labels: not the kind alone, nor look-alikes.
        for label in ["confirm", "confirm-", "confirm-x", "confirm-1-2", "panel-1", "challengex-1"] {
            assert!(!allowed(label, &answer) && !allowed(label, &challenge), "{label}");
        }
    }
}
