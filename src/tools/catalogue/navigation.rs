//! Navigation and tab tools: open pages, manage tabs, wait for the page.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::common::default_timeout_ms;
use super::{Decl, declare};
use crate::tools::spec::{PermissionScope as Scope, RiskLevel as Risk, ToolSpec};

/// When a navigation counts as finished.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WaitUntil {
    DomContentLoaded,
    #[default]
    Load,
    NetworkIdle,
}

/// Arguments of `browser_navigate`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BrowserNavigateArgs {
    /// The absolute URL to open in the current tab (`https://...`).
    #[schemars(url)]
    pub url: String,
    /// When the page counts as loaded: `domcontentloaded` (HTML parsed),
    /// `load` (page and its resources loaded) or `networkidle` (no network
    /// activity for 500 ms; best for pages that load results with scripts).
    #[serde(default)]
    pub wait_until: WaitUntil,
    /// Give up after this many milliseconds.
    #[serde(default = "default_timeout_ms")]
    #[schemars(range(min = 1, max = 300_000))]
    pub timeout_ms: u32,
}

/// `data` of `browser_navigate`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct BrowserNavigateOutput {
    /// The URL after redirects.
    pub url: String,
    /// The page title.
    pub title: String,
    /// HTTP status of the main document, when known.
    pub http_status: Option<u16>,
}

/// Arguments of `browser_new_tab`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BrowserNewTabArgs {
    /// URL to open in the new tab; omit for a blank tab.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(url)]
    pub url: Option<String>,
    /// When the page counts as loaded (only with `url`).
    #[serde(default)]
    pub wait_until: WaitUntil,
}

/// A tab as the tab tools return it.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct TabInfo {
    /// The tab's id (`tab-3`), for `browser_switch_tab` / `browser_close_tab`.
    pub id: String,
    pub title: String,
    pub url: String,
    /// True for the tab the browser tools act on.
    pub current: bool,
    /// The favicon's URL, when asked for with `include_favicons`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub favicon: Option<String>,
}

/// `data` of `browser_new_tab` and `browser_switch_tab`: the tab that is now current.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct TabOutput {
    pub tab: TabInfo,
}

/// Arguments of `browser_switch_tab`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BrowserSwitchTabArgs {
    /// Id of the tab to make current, from `browser_list_tabs` (e.g. `tab-3`).
    pub tab_id: String,
}

/// Arguments of `browser_list_tabs`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BrowserListTabsArgs {
    /// Also return each tab's favicon (larger output).
    #[serde(default)]
    pub include_favicons: bool,
}

/// `data` of `browser_list_tabs`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct BrowserListTabsOutput {
    /// Open tabs in window order.
    pub tabs: Vec<TabInfo>,
}

/// Arguments of `browser_close_tab`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BrowserCloseTabArgs {
    /// Id of the tab to close (e.g. `tab-3`). Required: closing a tab can
    /// lose a half-filled form, so the tab is always named explicitly.
    pub tab_id: String,
}

/// `data` of `browser_close_tab`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct BrowserCloseTabOutput {
    /// The id of the closed tab.
    pub closed: String,
    /// The tab that is current now, if any is left.
    pub current_tab_id: Option<String>,
}

/// What `browser_wait` waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WaitFor {
    Timeout,
    Selector,
    NetworkIdle,
    Text,
}

/// The state a waited-for element must reach.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ElementState {
    #[default]
    Visible,
    Hidden,
    Attached,
}

/// Arguments of `browser_wait`.
///
/// `selector` is required with `until: "selector"` and `text` with
/// `until: "text"`; the executor enforces it (no top-level `oneOf`).
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BrowserWaitArgs {
    /// `timeout`: just wait `timeout_ms`; `selector`: until `selector`
    /// reaches `state`; `networkidle`: until the network is quiet;
    /// `text`: until `text` appears on the page.
    pub until: WaitFor,
    /// With `until: "selector"`: the element to wait for (CSS, `text=...` or `role=...`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    /// With `until: "selector"`: wait until the element is `visible`
    /// (default), `hidden` (e.g. a spinner going away) or merely `attached`.
    #[serde(default)]
    pub state: ElementState,
    /// With `until: "text"`: the text to wait for (case-insensitive substring).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The longest wait in milliseconds (the exact wait for `until: "timeout"`).
    #[serde(default = "default_wait_ms")]
    #[schemars(range(min = 1, max = 300_000))]
    pub timeout_ms: u32,
}

fn default_wait_ms() -> u32 {
    10_000
}

/// `data` of `browser_wait`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct BrowserWaitOutput {
    /// False when `timeout_ms` ran out before the condition held.
    pub condition_met: bool,
    pub waited_ms: u64,
}

pub(super) fn tools() -> Vec<ToolSpec> {
    use Risk::*;
    use Scope::*;
    let primitive = Decl::primitive;
    vec![
        declare::<BrowserNavigateArgs, BrowserNavigateOutput>(primitive(
            "browser_navigate",
            WriteNonDestructive,
            Low,
            false,
            "Open a URL in the current tab and wait until it has loaded (`wait_until`: domcontentloaded, load or networkidle). Returns the final URL after redirects and the page title.",
        )),
        declare::<BrowserNewTabArgs, TabOutput>(primitive(
            "browser_new_tab",
            WriteNonDestructive,
            Low,
            false,
            "Open a new tab, optionally at a URL, and make it current. Use it to keep several options (flights, hotels, stores) open side by side. Returns the new tab.",
        )),
        declare::<BrowserSwitchTabArgs, TabOutput>(primitive(
            "browser_switch_tab",
            WriteNonDestructive,
            Low,
            false,
            "Make another open tab current, by the id `browser_list_tabs` gives. Returns that tab.",
        )),
        declare::<BrowserListTabsArgs, BrowserListTabsOutput>(primitive(
            "browser_list_tabs",
            ReadOnly,
            Low,
            false,
            "List the open tabs with their id, title and URL, and which one is current.",
        )),
        declare::<BrowserCloseTabArgs, BrowserCloseTabOutput>(primitive(
            "browser_close_tab",
            Destructive,
            Medium,
            // tools.md: confirmation recommended when the tab holds a form
            // being filled. Declared true (defensive); the gatekeeper decides
            // per call whether the tab really holds unsaved input.
            true,
            "Close a tab by id. Anything typed into a form in that tab is lost, so the user may be asked first. Returns the tab that is current afterwards.",
        )),
        declare::<BrowserWaitArgs, BrowserWaitOutput>(primitive(
            "browser_wait",
            ReadOnly,
            Low,
            false,
            "Wait for a condition on the current page: a fixed time (`until: timeout`), an element becoming visible or hidden (`until: selector` with `selector`), text appearing (`until: text` with `text`), or the network going idle (`until: networkidle`). Returns whether the condition held before `timeout_ms`.",
        )),
    ]
}
