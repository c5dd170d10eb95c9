//! Where the panel goes: the geometry of docking it at a screen edge beside
//! the managed browser (pure), and the small JSON file that remembers the
//! panel's side and width (and the shell's one-time hints) across starts.

use std::path::Path;

use halley::host::Rect;
use serde::{Deserialize, Serialize};

/// The file in the data directory.
pub const FILE: &str = "desktop.json";
/// The panel's default width, in logical pixels.
pub const DEFAULT_WIDTH: f64 = 420.0;
/// Neither the panel nor the browser gets narrower than this (logical).
pub const MIN_WIDTH: f64 = 320.0;

/// The screen edge the panel is docked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Left,
    #[default]
    Right,
}

/// What is remembered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Layout {
    pub side: Side,
    /// The panel's outer width in logical pixels (docked, it takes the full height).
    pub width: f64,
    /// "Halley is running in the tray" was shown once already.
    pub tray_hint_shown: bool,
}

impl Default for Layout {
    fn default() -> Self {
        Layout { side: Side::Right, width: DEFAULT_WIDTH, tray_hint_shown: false }
    }
}

impl Layout {
    /// The saved layout; the default when there is none or it is unreadable.
    pub fn load(path: &Path) -> Layout {
        std::fs::read(path).ok().and_then(|bytes| serde_json::from_slice(&bytes).ok()).unwrap_or_default()
    }

    /// Save it (write then rename, so a crash never leaves half a file).
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, serde_json::to_vec_pretty(self)?)?;
        std::fs::rename(tmp, path)
    }
}

/// The panel's rectangle docked at `side` of the work area, `width`
/// physical pixels wide (kept within what leaves the browser `min` pixels).
pub fn dock(work: Rect, width: u32, min: u32, side: Side) -> Rect {
    let width = width.max(min).min(work.width.saturating_sub(min).max(min)).min(work.width);
    let x = match side {
        Side::Left => work.x,
        Side::Right => work.x + i32::try_from(work.width - width).unwrap_or(0),
    };
    Rect { x, y: work.y, width, height: work.height }
}

/// The side of the work area the panel's centre is on.
pub fn side_of(work: Rect, panel: Rect) -> Side {
    let centre = i64::from(panel.x) + i64::from(panel.width) / 2;
    let middle = i64::from(work.x) + i64::from(work.width) / 2;
    if centre < middle { Side::Left } else { Side::Right }
}

/// What the panel leaves of the work area for the browser: everything on
/// the other side of it, full height; none when that is narrower than `min`.
pub fn browser_area(work: Rect, panel: Rect, side: Side, min: u32) -> Option<Rect> {
    let (left, right) = (i64::from(work.x), i64::from(work.x) + i64::from(work.width));
    let (x, end) = match side {
        Side::Right => (left, i64::from(panel.x).clamp(left, right)),
        Side::Left => ((i64::from(panel.x) + i64::from(panel.width)).clamp(left, right), right),
    };
    let width = u32::try_from(end - x).ok().filter(|w| *w >= min)?;
    Some(Rect { x: i32::try_from(x).ok()?, y: work.y, width, height: work.height })
}

/// Where the hand-off window (a CAPTCHA, a code the person types in the
/// browser) goes, in physical pixels, for a window of `size`: over the
/// lower part of the panel when it is on screen (the page in the browser
/// beside it stays uncovered), else at the top corner of the work area on
/// the panel's usual side. Always inside the work area.
pub fn hand_off_spot(work: Rect, panel: Option<Rect>, side: Side, size: (u32, u32)) -> (i32, i32) {
    let (w, h) = (i32::try_from(size.0).unwrap_or(i32::MAX), i32::try_from(size.1).unwrap_or(i32::MAX));
    let (work_w, work_h) =
        (i32::try_from(work.width).unwrap_or(i32::MAX), i32::try_from(work.height).unwrap_or(i32::MAX));
    const GAP: i32 = 16;
    let (x, y) = match panel {
        Some(p) => {
            let (pw, ph) = (i32::try_from(p.width).unwrap_or(0), i32::try_from(p.height).unwrap_or(0));
            (p.x + (pw - w) / 2, p.y + ph - h - GAP * 3)
        }
        None => match side {
            Side::Right => (work.x + work_w - w - GAP, work.y + GAP),
            Side::Left => (work.x + GAP, work.y + GAP),
        },
    };
    let clamp = |v: i32, lo: i32, span: i32, len: i32| v.min(lo + span - len).max(lo);
    (clamp(x, work.x, work_w, w), clamp(y, work.y, work_h, h))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCREEN: Rect = Rect { x: 0, y: 0, width: 1920, height: 1080 };

    #[test]
    fn the_hand_off_window_covers_the_panel_never_the_page() {
        let panel = Rect { x: 1500, y: 0, width: 420, height: 1080 };
        let (x, y) = hand_off_spot(SCREEN, Some(panel), Side::Right, (400, 320));
        assert!(x >= panel.x && x + 400 <= panel.x + 420, "{x}");
        assert!(y + 320 <= 1080 && y > 500, "{y}");
        // The panel hidden: the top corner of its side, inside the screen.
        assert_eq!(hand_off_spot(SCREEN, None, Side::Right, (400, 320)), (1504, 16));
        assert_eq!(hand_off_spot(SCREEN, None, Side::Left, (400, 320)), (16, 16));
        // A panel narrower than the window, at the screen's edge: kept inside.
        let narrow = Rect { x: 1600, y: 0, width: 320, height: 1080 };
        let (x, _) = hand_off_spot(SCREEN, Some(narrow), Side::Right, (400, 320));
        assert_eq!(x, 1520);
    }

    #[test]
    fn docked_right_the_browser_gets_the_rest_on_the_left() {
        let panel = dock(SCREEN, 420, 320, Side::Right);
        assert_eq!(panel, Rect { x: 1500, y: 0, width: 420, height: 1080 });
        assert_eq!(side_of(SCREEN, panel), Side::Right);
        assert_eq!(browser_area(SCREEN, panel, Side::Right, 320), Some(Rect { x: 0, y: 0, width: 1500, height: 1080 }));
    }

    #[test]
    fn docked_left_the_browser_gets_the_rest_on_the_right() {
        let work = Rect { x: 1920, y: 32, width: 1280, height: 768 };
        let panel = dock(work, 500, 320, Side::Left);
        assert_eq!(panel, Rect { x: 1920, y: 32, width: 500, height: 768 });
        assert_eq!(side_of(work, panel), Side::Left);
        assert_eq!(browser_area(work, panel, Side::Left, 320), Some(Rect { x: 2420, y: 32, width: 780, height: 768 }));
    }

    #[test]
    fn widths_stay_usable() {
        assert_eq!(dock(SCREEN, 100, 320, Side::Right).width, 320);
        assert_eq!(dock(SCREEN, 5000, 320, Side::Right).width, 1600);
        let tiny = Rect { x: 0, y: 0, width: 500, height: 400 };
        assert_eq!(dock(tiny, 420, 320, Side::Right).width, 320);
        let wide = Rect { x: 1700, y: 0, width: 220, height: 1080 };
        assert_eq!(browser_area(SCREEN, wide, Side::Right, 320), Some(Rect { x: 0, y: 0, width: 1700, height: 1080 }));
        let narrow = Rect { x: 100, y: 0, width: 1820, height: 1080 };
        assert_eq!(browser_area(SCREEN, narrow, Side::Right, 320), None);
    }

    #[test]
    fn the_file_round_trips_and_a_bad_one_is_the_default() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        assert_eq!(Layout::load(&path), Layout::default());
        let layout = Layout { side: Side::Left, width: 512.0, tray_hint_shown: true };
        layout.save(&path).unwrap();
        assert_eq!(Layout::load(&path), layout);
        std::fs::write(&path, "{not json").unwrap();
        assert_eq!(Layout::load(&path), Layout::default());
    }
}
