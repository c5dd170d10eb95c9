//! The shell's own words (the tray menu, the notifications) in the user's
//! language: the `language` setting, else the system's. Saving another
//! language in the settings changes them at once (`commands::op` sets it,
//! the tray is relabelled), with no restart.

use std::sync::atomic::{AtomicBool, Ordering};

/// Whether the shell speaks Vietnamese now (else English).
static VIETNAMESE: AtomicBool = AtomicBool::new(false);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    En,
    Vi,
}

/// The language a `language` setting means: `vi`/`en`, else the system's
/// (`LC_ALL`, `LC_MESSAGES`, `LANGUAGE`, `LANG`: the first one set).
pub fn from_setting(setting: Option<&str>) -> Lang {
    match setting.map(str::trim) {
        Some(l) if l.eq_ignore_ascii_case("vi") => Lang::Vi,
        Some(l) if l.eq_ignore_ascii_case("en") => Lang::En,
        _ => system(),
    }
}

fn system() -> Lang {
    let tag = ["LC_ALL", "LC_MESSAGES", "LANGUAGE", "LANG"]
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .find(|v| !v.trim().is_empty())
        .unwrap_or_default();
    if tag.trim().to_ascii_lowercase().starts_with("vi") { Lang::Vi } else { Lang::En }
}

pub fn set(lang: Lang) {
    VIETNAMESE.store(lang == Lang::Vi, Ordering::SeqCst);
}

pub fn current() -> Lang {
    if VIETNAMESE.load(Ordering::SeqCst) { Lang::Vi } else { Lang::En }
}

/// One text in both languages.
pub struct Text {
    pub en: &'static str,
    pub vi: &'static str,
}

impl Text {
    pub fn get(&self) -> &'static str {
        self.in_(current())
    }

    pub fn in_(&self, lang: Lang) -> &'static str {
        match lang {
            Lang::En => self.en,
            Lang::Vi => self.vi,
        }
    }
}

pub const OPEN_PANEL: Text = Text { en: "Open panel", vi: "Mở bảng điều khiển" };
pub const PAUSE: Text = Text { en: "Pause agent", vi: "Tạm dừng trợ lý" };
pub const QUIT: Text = Text { en: "Quit", vi: "Thoát" };
pub const FINISHED: Text = Text { en: "Halley finished the task", vi: "Halley đã xong việc" };
pub const STOPPED: Text = Text { en: "Halley stopped the task", vi: "Halley đã dừng việc" };
pub const FAILED: Text = Text { en: "Halley could not finish the task", vi: "Halley không làm xong việc" };
pub const SEE_WHAT_HAPPENED: Text = Text {
    en: "Open the panel to see what happened.",
    vi: "Mở bảng điều khiển để xem chuyện gì đã xảy ra.",
};
pub const ASKS_FIRST: Text = Text { en: "Halley asks before it acts", vi: "Halley hỏi bạn trước khi làm" };
pub const NEEDS_HELP: Text = Text { en: "Halley needs your help", vi: "Halley cần bạn giúp" };
pub const IN_TRAY: Text = Text { en: "Halley is running in the tray", vi: "Halley đang chạy ở khay hệ thống" };
pub const IN_TRAY_BODY: Text = Text {
    en: "Open the panel from the tray icon; Quit there stops Halley.",
    vi: "Mở bảng điều khiển từ biểu tượng ở khay; chọn Thoát ở đó để tắt Halley.",
};
pub const OPEN_HALLEY: Text = Text { en: "Open Halley", vi: "Mở Halley" };
/// The dialogs' window titles (the taskbar's and the window list's words;
/// the pages say the same in `document.title`: `ui/src/i18n.ts`'s
/// `confirmWindowTitle` / `challengeWindowTitle`).
pub const CONFIRM_TITLE: Text = Text { en: "Halley: confirm", vi: "Halley: xác nhận" };
pub const CHALLENGE_TITLE: Text =
    Text { en: "Halley: your turn in the browser", vi: "Halley: đến lượt bạn trong trình duyệt" };

/// The tray's "Watches" item: `Watches (3 new alerts)` when some are unread.
pub fn watches(unread: u32, lang: Lang) -> String {
    match (lang, unread) {
        (Lang::En, 0) => "Watches".to_owned(),
        (Lang::En, 1) => "Watches (1 new alert)".to_owned(),
        (Lang::En, n) => format!("Watches ({n} new alerts)"),
        (Lang::Vi, 0) => "Theo dõi".to_owned(),
        (Lang::Vi, n) => format!("Theo dõi ({n} cảnh báo mới)"),
    }
}

/// A confirmation waits: what, and where when known.
pub fn waits_approval(tool: &str, site: Option<&str>) -> String {
    match (current(), site) {
        (Lang::En, Some(site)) => format!("{tool} on {site} waits for your approval."),
        (Lang::En, None) => format!("{tool} waits for your approval."),
        (Lang::Vi, Some(site)) => format!("{tool} trên {site} đang chờ bạn đồng ý."),
        (Lang::Vi, None) => format!("{tool} đang chờ bạn đồng ý."),
    }
}

/// A challenge waits in the browser: what, and where when known.
pub fn needs_you(kind: &str, site: Option<&str>) -> String {
    let vi_kind = match kind {
        "captcha" => "CAPTCHA",
        "otp" => "mã dùng một lần",
        "2fa" => "xác minh hai bước",
        "login" => "đăng nhập",
        _ => "bước kiểm tra",
    };
    match (current(), site) {
        (Lang::En, Some(site)) => format!("A {kind} on {site} needs you in the browser."),
        (Lang::En, None) => format!("A {kind} needs you in the browser."),
        (Lang::Vi, Some(site)) => format!("Một {vi_kind} trên {site} cần bạn trong trình duyệt."),
        (Lang::Vi, None) => format!("Một {vi_kind} cần bạn trong trình duyệt."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_setting_wins_over_the_system_and_words_follow_the_language() {
        assert_eq!(from_setting(Some("VI")), Lang::Vi);
        assert_eq!(from_setting(Some("en")), Lang::En);
        assert_eq!(watches(3, Lang::Vi), "Theo dõi (3 cảnh báo mới)");
        assert_eq!(watches(1, Lang::En), "Watches (1 new alert)");
        assert_eq!(watches(0, Lang::Vi), "Theo dõi");
        assert_eq!(QUIT.in_(Lang::Vi), "Thoát");
        assert_eq!(FINISHED.in_(Lang::En), "Halley finished the task");
    }

    #[test]
    fn the_dialog_titles_speak_both_languages_as_the_pages_do() {
        assert_eq!(CONFIRM_TITLE.in_(Lang::Vi), "Halley: xác nhận");
        assert_eq!(CHALLENGE_TITLE.in_(Lang::Vi), "Halley: đến lượt bạn trong trình duyệt");
        // The same words as the UI's tables (the page's own title).
        let ui = include_str!("../../ui/src/i18n.ts");
        for text in [CONFIRM_TITLE, CHALLENGE_TITLE] {
            for words in [text.en, text.vi] {
                assert!(ui.contains(&format!("\"{words}\"")), "ui/src/i18n.ts lacks {words:?}");
            }
        }
    }
}
