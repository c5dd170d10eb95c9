//! What each built-in tool declares about its calls ([`Effects`]), copied
//! into its spec: whether its result carries the page's own words (fenced
//! as untrusted data), whether it edits the prompt's memory or the profile,
//! whether it asks the user, which argument names a tool it runs, and
//! whether it changes the user's watches.
//! Tools not named here declare nothing.

use crate::tools::spec::Effects;

/// The declarations of the built-in tool `name`.
pub fn of(name: &str) -> Effects {
    let page = Effects { page_content: true, ..Effects::default() };
    match name {
        // The readers, and those that report a title (navigation, tabs),
        // an element's text (click, type), an option's label or a
        // download's file name.
        "browser_snapshot"
        | "browser_find"
        | "browser_read_text"
        | "browser_get_dom"
        | "browser_extract"
        | "browser_extract_table"
        | "browser_detect_state"
        | "browser_navigate"
        | "browser_new_tab"
        | "browser_switch_tab"
        | "browser_list_tabs"
        | "browser_click"
        | "browser_type"
        | "browser_select_option"
        | "browser_download" => page,
        // The declarations of the tool it runs.
        "browser_retry" => Effects { runs_tool_at: Some("/action/tool"), ..Effects::default() },
        // The hand-off asks the user.
        "human_solve_challenge" | "request_user_confirmation" => Effects { asks_user: true, ..Effects::default() },
        "core_memory_append" | "core_memory_replace" | "user_profile_set" => {
            Effects { edits_memory: true, ..Effects::default() }
        }
        // Results are what pages say; a CAPTCHA on the search page is
        // handed to the user.
        "web_search" => Effects { page_content: true, asks_user: true, ..Effects::default() },
        // What pages say (prices, fields, product names) comes back; the
        // user's watches or alerts change.
        "watch_create" | "watch_poll" => Effects { page_content: true, changes_watches: true, ..Effects::default() },
        "watch_list" | "watch_history" => page,
        "watch_pause" | "watch_resume" | "watch_update" | "watch_delete" | "notify_send" => {
            Effects { changes_watches: true, ..Effects::default() }
        }
        _ => Effects::default(),
    }
}

/// Whether the built-in tool `name` sends its arguments off this machine:
/// a search query to the search provider, a watch's URL fetched again and
/// again, an alert's link. (Every tool of another program, an MCP server or
/// an API client, does too: `core.rs` adds them.) The gate looks for the
/// user's values in them.
pub fn sends_arguments(name: &str) -> bool {
    matches!(name, "web_search" | "watch_create" | "watch_update" | "notify_send")
}
