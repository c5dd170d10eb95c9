//! Interaction and form tools (click, type, scroll, keys, select, checkboxes)
//! and files in the browser (upload, download).
//!
//! Element tools flatten a [`Target`]: `selector` (CSS, `text=...`,
//! `role=...`) or `ref` from the page snapshot, plus an optional `frame`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::common::{Target, default_timeout_ms};
use super::{Decl, declare};
use crate::tools::spec::{PermissionScope as Scope, RiskLevel as Risk, ToolSpec};

/// Arguments of `browser_click`. Needs `selector` or `ref` (checked at execution).
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BrowserClickArgs {
    #[serde(flatten)]
    pub target: Target,
    /// Which mouse button.
    #[serde(default)]
    pub button: MouseButton,
    /// 2 for a double click.
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = 3))]
    pub click_count: u8,
}

fn one() -> u8 {
    1
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MouseButton {
    #[default]
    Left,
    Right,
    Middle,
}

/// `data` of the element tools that report what they acted on.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct ElementActionOutput {
    /// A short description of the element acted on (tag, role, visible text).
    pub element: String,
    /// True when the action started a navigation.
    pub navigated: bool,
}

/// Arguments of `browser_type`. Needs `selector` or `ref` (checked at execution).
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BrowserTypeArgs {
    #[serde(flatten)]
    pub target: Target,
    /// The text to type (Vietnamese diacritics are typed as-is). Typing never
    /// presses Enter; use `browser_press_key` for that.
    pub text: String,
    /// Clear the field before typing.
    #[serde(default)]
    pub clear_first: bool,
}

/// Arguments of `browser_scroll`: scroll the page by `amount_px`, scroll the
/// element given by `selector`/`ref` into view, or, with both, scroll inside
/// that element by `amount_px`. Needs at least one (checked at execution).
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BrowserScrollArgs {
    #[serde(flatten)]
    pub target: Target,
    /// Pixels to scroll: positive scrolls down, negative up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amount_px: Option<i32>,
}

/// `data` of `browser_scroll`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct BrowserScrollOutput {
    /// Vertical scroll position of the page (or of the scrolled element) afterwards.
    pub scroll_y: f64,
    /// True when the end of the page (or element) has been reached.
    pub at_end: bool,
}

/// Arguments of `browser_press_key`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BrowserPressKeyArgs {
    /// Keys pressed one after the other. Named keys are case-insensitive
    /// (`Enter`/`ENTER`, `Tab`, `Escape`, `Backspace`, `ArrowDown`, `PageDown`,
    /// `F5`...), a single character types it, and chords join keys with `+`
    /// (`Ctrl+A`, `Shift+Tab`, `Meta+Enter`).
    #[schemars(length(min = 1, max = 50), inner(length(min = 1)))]
    pub keys: Vec<String>,
    /// Optional element to focus first; without it, keys go to the focused element.
    #[serde(flatten)]
    pub target: Target,
}

/// `data` of `browser_press_key`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct BrowserPressKeyOutput {
    /// How many keys (or chords) were pressed.
    pub pressed: u32,
    /// True when a key press started a navigation (e.g. Enter submitted a form).
    pub navigated: bool,
}

/// Arguments of `browser_select_option`. Needs `selector` or `ref`, and
/// `value` or `label` (both checked at execution).
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BrowserSelectOptionArgs {
    /// The `<select>` or custom dropdown.
    #[serde(flatten)]
    pub target: Target,
    /// The option's `value` attribute (e.g. `economy`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// The option's visible label (e.g. `Phổ thông` or `Economy`), used when
    /// the value is unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// `data` of `browser_select_option`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct BrowserSelectOptionOutput {
    /// The value now selected.
    pub value: String,
    /// Its visible label.
    pub label: String,
}

/// Arguments of `browser_check` and `browser_uncheck`. Needs `selector` or
/// `ref` (checked at execution).
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BrowserCheckArgs {
    /// The checkbox, radio button or switch.
    #[serde(flatten)]
    pub target: Target,
}

/// `data` of `browser_check` and `browser_uncheck`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct BrowserCheckOutput {
    /// The element's checked state afterwards.
    pub checked: bool,
    /// False when it already was in the wanted state.
    pub changed: bool,
}

/// Arguments of `browser_upload_file`. Needs `selector` or `ref` (checked at execution).
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BrowserUploadFileArgs {
    /// The `input[type=file]` element.
    #[serde(flatten)]
    pub target: Target,
    /// The file to upload: a `file://` path (`file://passport.png`) or the id
    /// of a file kept with `files_store`.
    #[schemars(length(min = 1))]
    pub file_ref: String,
}

/// `data` of `browser_upload_file`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct BrowserUploadFileOutput {
    /// The file name the page received.
    pub file_name: String,
    pub size: u64,
    pub mime: String,
}

/// Arguments of `browser_download`: download `url` directly, or click the
/// element given by `selector`/`ref` and capture the download it starts.
/// Needs one of them (checked at execution).
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BrowserDownloadArgs {
    /// Direct link to the file (e.g. a booking PDF).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(url)]
    pub url: Option<String>,
    /// The link or button that starts the download (click-to-download).
    #[serde(flatten)]
    pub target: Target,
    /// File name to save as; defaults to the server's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub save_as: Option<String>,
    /// Give up after this many milliseconds.
    #[serde(default = "default_timeout_ms")]
    #[schemars(range(min = 1, max = 600_000))]
    pub timeout_ms: u32,
}

/// `data` of `browser_download`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct BrowserDownloadOutput {
    /// `file://` URL of the downloaded file (also listed as a `download` artifact).
    #[serde(rename = "ref")]
    pub reference: String,
    /// Its id in the files store (for `files_get`, `files_tag`, `browser_upload_file`).
    pub id: String,
    pub file_name: String,
    pub size: u64,
    pub mime: String,
    pub sha256: String,
}

pub(super) fn tools() -> Vec<ToolSpec> {
    use Risk::*;
    use Scope::*;
    let primitive = Decl::primitive;
    vec![
        declare::<BrowserClickArgs, ElementActionOutput>(primitive(
            "browser_click",
            WriteNonDestructive,
            Low,
            false,
            "Click an element, found by `selector` (CSS, `text=...` or `role=button[name=\"...\"]`) or by a `ref` from the page snapshot; give at least one. A click on a Pay/Submit/Delete button is gated as that action. Returns the element clicked and whether a navigation started.",
        )),
        declare::<BrowserTypeArgs, ElementActionOutput>(primitive(
            "browser_type",
            WriteNonDestructive,
            Low,
            false,
            "Type text into an input or textarea (give `selector` or `ref`), optionally clearing it first. Never submits; press Enter with `browser_press_key` if needed.",
        )),
        declare::<BrowserScrollArgs, BrowserScrollOutput>(primitive(
            "browser_scroll",
            WriteNonDestructive,
            Low,
            false,
            "Scroll the page by `amount_px`, scroll the element given by `selector`/`ref` into view, or, with both, scroll inside that element; give at least one. Use it to load more results on infinite lists. Returns the new position and whether the end was reached.",
        )),
        declare::<BrowserPressKeyArgs, BrowserPressKeyOutput>(primitive(
            "browser_press_key",
            WriteNonDestructive,
            Low,
            false,
            "Press keys in order: named keys (Enter, Tab, Escape, ArrowDown...), characters, or chords like Ctrl+A, optionally after focusing an element. Enter inside a form is gated as a submit.",
        )),
        declare::<BrowserSelectOptionArgs, BrowserSelectOptionOutput>(primitive(
            "browser_select_option",
            WriteNonDestructive,
            Low,
            false,
            "Choose an option in a <select> or dropdown (give `selector` or `ref`) by its `value` or visible `label` (give one). Returns the selected value and label.",
        )),
        declare::<BrowserCheckArgs, BrowserCheckOutput>(primitive(
            "browser_check",
            WriteNonDestructive,
            Low,
            false,
            "Tick a checkbox, radio button or switch, given by `selector` or `ref` (no-op if already ticked). Returns the checked state.",
        )),
        declare::<BrowserCheckArgs, BrowserCheckOutput>(primitive(
            "browser_uncheck",
            WriteNonDestructive,
            Low,
            false,
            "Untick a checkbox or switch, given by `selector` or `ref` (no-op if already unticked). Returns the checked state.",
        )),
        declare::<BrowserUploadFileArgs, BrowserUploadFileOutput>(primitive(
            "browser_upload_file",
            Submit,
            High,
            true,
            "Attach a file (a `file://` path or a files_store id, e.g. a passport scan) to the file input given by `selector` or `ref`. The file leaves the user's machine, so the user confirms every upload.",
        )),
        declare::<BrowserDownloadArgs, BrowserDownloadOutput>(primitive(
            "browser_download",
            WriteNonDestructive,
            Low,
            false,
            "Download a file from `url`, or by clicking the link/button given by `selector`/`ref` (give one). The file is kept in the files store. Returns its id, a `file://` ref, its name, size, type and SHA-256.",
        )),
    ]
}
