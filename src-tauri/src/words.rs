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

/// A run ended: its status, and which task when its conversation has a
/// title (the person's own words, sealed: a card, passport or phone in
/// it shows as `•••`; at most 60 characters).
pub fn run_ended(status: Text, task: Option<&str>) -> String {
    let Some(task) = task.map(shown_task).filter(|t| !t.is_empty()) else { return status.get().to_owned() };
    format!("{}: «{task}»", status.get())
}

fn shown_task(title: &str) -> String {
    let sealed = halley::secrets::message::seal(title.trim());
    let mut plain = sealed.text;
    for value in &sealed.values {
        plain = plain.replace(&format!("{{{{{}}}}}", value.name), "•••");
    }
    let one_line = plain.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > 60 {
        format!("{}…", one_line.chars().take(59).collect::<String>())
    } else {
        one_line
    }
}

/// The UI's words for a tool (`ui/src/i18n.ts`'s `tool.NAME`, the same
/// table the panel shows), else its name (another program's tool).
pub fn tool_label(tool: &str, lang: Lang) -> String {
    static TABLES: std::sync::OnceLock<(
        std::collections::HashMap<String, String>,
        std::collections::HashMap<String, String>,
    )> = std::sync::OnceLock::new();
    let (en, vi) = TABLES.get_or_init(|| {
        let ui = include_str!("../../ui/src/i18n.ts");
        // The English table comes first, the Vietnamese one after `const vi`.
        let split = ui.find("\nconst vi").unwrap_or(ui.len());
        let read = |part: &str| {
            part.lines()
                .filter_map(|line| {
                    let rest = line.trim().strip_prefix("\"tool.")?;
                    let (name, label) = rest.split_once("\": \"")?;
                    Some((name.to_owned(), label.strip_suffix("\",")?.to_owned()))
                })
                .collect()
        };
        (read(&ui[..split]), read(&ui[split..]))
    });
    let table = if lang == Lang::Vi { vi } else { en };
    table.get(tool).cloned().unwrap_or_else(|| tool.to_owned())
}

/// A confirmation waits: what (the tool in the UI's words), and where
/// when known.
pub fn waits_approval(tool: &str, site: Option<&str>) -> String {
    let tool = tool_label(tool, current());
    match (current(), site) {
        (Lang::En, Some(site)) => format!("“{tool}” on {site} waits for your approval."),
        (Lang::En, None) => format!("“{tool}” waits for your approval."),
        (Lang::Vi, Some(site)) => format!("“{tool}” trên {site} đang chờ bạn đồng ý."),
        (Lang::Vi, None) => format!("“{tool}” đang chờ bạn đồng ý."),
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
    fn notifications_name_the_task_and_the_tool_in_words_never_a_value() {
        assert_eq!(tool_label("browser_click", Lang::Vi), "Bấm trên trang");
        assert_eq!(tool_label("browser_click", Lang::En), "Click on the page");
        assert_eq!(tool_label("shop__order", Lang::Vi), "shop__order");
        let ended = run_ended(FINISHED, Some("Tìm laptop rẻ nhất\ntrên Tiki"));
        assert!(ended.ends_with("«Tìm laptop rẻ nhất trên Tiki»"), "{ended}");
        // The person's passport and phone in the title never reach the daemon.
        let sealed = run_ended(FAILED, Some("Đặt vé, hộ chiếu C7654321, gọi 0912 345 678"));
        assert!(!sealed.contains("7654321") && !sealed.contains("345 678"), "{sealed}");
        assert!(sealed.contains("•••"), "{sealed}");
        let long = run_ended(FINISHED, Some(&"so sánh giá ".repeat(20)));
        assert!(long.chars().count() < 100 && long.ends_with("…»"), "{long}");
        assert_eq!(run_ended(STOPPED, Some("  ")), STOPPED.get());
        assert_eq!(run_ended(STOPPED, None), STOPPED.get());
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
