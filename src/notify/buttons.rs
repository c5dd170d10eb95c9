//! The buttons of a watch alert's notification, `(key, label)`, in the
//! user's language: "Open the page", "Snooze 1 day", "Stop watching" (what
//! a press does is `crate::host::actions`).

use crate::store::Store;

/// How long "Snooze 1 day" mutes a watch.
pub const SNOOZE_SECS: i64 = 86_400;

/// A notification button.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Button {
    Open,
    Snooze,
    Stop,
}

impl Button {
    pub const ALL: [Button; 3] = [Button::Open, Button::Snooze, Button::Stop];

    pub fn key(self) -> &'static str {
        match self {
            Button::Open => "open",
            Button::Snooze => "snooze",
            Button::Stop => "stop",
        }
    }

    /// A key from a signal; `default` is a click on the notification itself.
    pub fn parse(key: &str) -> Option<Button> {
        match key {
            "open" | "default" => Some(Button::Open),
            "snooze" => Some(Button::Snooze),
            "stop" => Some(Button::Stop),
            _ => None,
        }
    }

    pub fn label(self, vietnamese: bool) -> &'static str {
        match (self, vietnamese) {
            (Button::Open, false) => "Open the page",
            (Button::Snooze, false) => "Snooze 1 day",
            (Button::Stop, false) => "Stop watching",
            (Button::Open, true) => "Mở trang",
            (Button::Snooze, true) => "Tạm hoãn 1 ngày",
            (Button::Stop, true) => "Ngừng theo dõi",
        }
    }
}

/// Whether the user's language is Vietnamese: the `language` setting, else
/// the system's locale.
pub async fn vietnamese(store: &Store) -> bool {
    match store.settings().get("language").await {
        Ok(Some(serde_json::Value::String(lang))) if !lang.trim().is_empty() => lang.trim().eq_ignore_ascii_case("vi"),
        _ => ["LC_ALL", "LC_MESSAGES", "LANG"]
            .iter()
            .find_map(|v| std::env::var(v).ok().filter(|s| !s.is_empty()))
            .is_some_and(|l| l.to_ascii_lowercase().starts_with("vi")),
    }
}

/// A watch alert's buttons, `(key, label)`, in the user's language.
pub async fn labels(store: &Store) -> Vec<(String, String)> {
    let vi = vietnamese(store).await;
    Button::ALL.iter().map(|a| (a.key().to_owned(), a.label(vi).to_owned())).collect()
}
