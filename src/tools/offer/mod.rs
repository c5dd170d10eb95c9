//! Which tools a model request offers: a small core set at first (the
//! browsing primitives a task starts with, confirmation and hand-off,
//! `web_search` and the loader, [`LOADER`]); the other tools come in
//! groups, loaded when the model asks ([`load`]), when the user's words
//! call for them ([`Offer::note_words`]: "theo dõi", "so sánh", a skill's
//! name...) or when the model calls one of them. What is loaded stays
//! offered for the rest of the conversation ([`Offer::from_history`]).
//! `compact.rs` is the short form of each tool the model reads.

mod compact;

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::error::{Error, ErrorCode};
use crate::tools::{Executor, PermissionScope, Registry, RiskLevel, ToolKind, ToolOutput, ToolResultV2, ToolSpec};
use crate::tools::{ToolStatus, blueprint};
use crate::vocab::text::fold;

pub use compact::{compact, for_model};

/// The tool that offers more tools: `tools_load {group | query}`. It is the
/// agent's own (never in the registry, nor listed to MCP or API clients,
/// which see every tool anyway).
pub const LOADER: &str = "tools_load";

/// Offered from the first request on.
pub const CORE: [&str; 10] = [
    "browser_navigate",
    "browser_snapshot",
    "browser_read_text",
    "browser_click",
    "browser_type",
    "browser_press_key",
    "browser_extract",
    "web_search",
    "request_user_confirmation",
    "human_solve_challenge",
];

/// A group of tools offered together, and the words of a task that call
/// for it (lowercase; a word ending in `*` matches any word it begins; a
/// phrase matches consecutive words). Vietnamese words are written with
/// their marks and, where unambiguous, without.
pub struct Group {
    pub name: &'static str,
    /// What the group is for, in a few words (the loader's description).
    pub about: &'static str,
    pub tools: &'static [&'static str],
    pub words: &'static [&'static str],
}

/// The built-in groups; every available built-in tool outside [`CORE`] is
/// in at least one. MCP tools are the group `mcp` and a group named after
/// their server.
pub const GROUPS: [Group; 11] = [
    Group {
        name: "page",
        about: "scroll, wait, find, screenshot, DOM, tables, page state, retry",
        tools: &[
            "browser_scroll",
            "browser_wait",
            "browser_find",
            "browser_screenshot",
            "browser_get_dom",
            "browser_extract_table",
            "browser_detect_state",
            "browser_retry",
        ],
        words: &["scroll*", "screenshot*", "table", "tables", "wait*", "cuộn", "chụp", "bảng", "chờ", "đợi", "retry"],
    },
    Group {
        name: "forms",
        about: "select options, checkboxes, upload files",
        tools: &["browser_select_option", "browser_check", "browser_uncheck", "browser_upload_file"],
        words: &["form", "forms", "fill*", "checkbox*", "dropdown*", "select*", "biểu mẫu", "điền", "đánh dấu"],
    },
    Group {
        name: "tabs",
        about: "open, list, switch, close tabs",
        tools: &["browser_new_tab", "browser_switch_tab", "browser_list_tabs", "browser_close_tab"],
        words: &["tab", "tabs", "thẻ"],
    },
    Group {
        name: "files",
        about: "store, read, tag files; downloads and uploads",
        tools: &["files_store", "files_get", "files_tag", "browser_download", "browser_upload_file"],
        words: &["file*", "download*", "upload*", "pdf", "tệp", "tập tin", "tải xuống", "tải về", "tải lên"],
    },
    Group {
        name: "profile",
        about: "the user's saved profile and OAuth accounts",
        tools: &["user_profile_get", "user_profile_set", "auth_oauth_connect"],
        words: &[
            "profile",
            "passport",
            "login",
            "log in",
            "sign in",
            "oauth",
            "account*",
            "hồ sơ",
            "hộ chiếu",
            "đăng nhập",
            "tài khoản",
        ],
    },
    Group {
        name: "memory",
        about: "remember facts about the user across conversations",
        tools: &["core_memory_append", "core_memory_replace", "archival_memory_insert", "archival_memory_search"],
        words: &["remember*", "memory", "memories", "forget*", "recall", "nhớ", "ghi nhớ", "quên", "ghi lại"],
    },
    Group {
        name: "watch",
        about: "watch a page's price, stock or status on a schedule and alert the user",
        tools: &[
            "watch_create",
            "watch_poll",
            "watch_list",
            "watch_pause",
            "watch_resume",
            "watch_update",
            "watch_delete",
            "watch_history",
            "notify_send",
            "shopping_track_price",
            "travel_monitor_trip",
        ],
        words: &[
            "watch*",
            "track*",
            "monitor*",
            "alert*",
            "notify*",
            "notification*",
            "theo dõi",
            "theo doi",
            "báo cho tôi",
            "báo tôi",
            "báo khi",
            "cảnh báo",
            "thông báo",
            "khi giá",
            "giá giảm",
        ],
    },
    Group {
        name: "compare",
        about: "compare products or offers field by field",
        tools: &["normalize_compare", "shopping_compare_options", "shopping_extract_specs"],
        words: &["compar*", "versus", "vs", "cheapest", "so sánh", "so sanh", "rẻ nhất", "re nhat"],
    },
    Group {
        name: "travel",
        about: "plan trips, search flights and hotels, fill travel forms",
        tools: &["travel_plan_itinerary", "travel_search_options", "travel_fill_forms", "travel_monitor_trip"],
        words: &[
            "travel*",
            "trip*",
            "flight*",
            "hotel*",
            "itinerar*",
            "du lịch",
            "chuyến bay",
            "vé máy bay",
            "khách sạn",
            "lịch trình",
            "chuyến đi",
            "đặt vé",
            "đặt phòng",
        ],
    },
    Group {
        name: "shopping",
        about: "product specs, price tracking, comparison, checkout up to payment",
        tools: &[
            "shopping_extract_specs",
            "shopping_track_price",
            "shopping_compare_options",
            "shopping_prepare_checkout",
        ],
        words: &[
            "checkout",
            "cart",
            "spec",
            "specs",
            "specification*",
            "thông số",
            "cấu hình",
            "thanh toán",
            "đặt hàng",
            "giỏ hàng",
        ],
    },
    Group {
        name: "creator",
        about: "research, content calendar, scheduled posts, inbox triage",
        tools: &["creator_collect_research", "creator_plan_calendar", "creator_schedule_post", "creator_triage_inbox"],
        words: &[
            "post",
            "posts",
            "publish*",
            "schedule*",
            "calendar",
            "inbox",
            "research*",
            "đăng bài",
            "bài đăng",
            "lịch đăng",
            "hộp thư",
            "nghiên cứu",
        ],
    },
];

/// The group of every MCP tool.
const MCP_GROUP: &str = "mcp";

/// What one request offers: the core, the user's and client applications'
/// own tools, and what was loaded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Offer {
    loaded: BTreeSet<String>,
}

impl Offer {
    /// Nothing loaded yet.
    pub fn new() -> Offer {
        Offer::default()
    }

    /// What a conversation had loaded, read again from its messages (as the
    /// model reads them): the users' words, the tools the model called and
    /// what the loader answered.
    pub fn from_history<'a>(messages: impl IntoIterator<Item = &'a Value>, registry: &Registry) -> Offer {
        let mut offer = Offer::new();
        for m in messages {
            match m.get("role").and_then(Value::as_str) {
                Some("user") => {
                    if let Some(text) = m.get("content").and_then(Value::as_str) {
                        offer.note_words(text, registry);
                    }
                }
                Some("assistant") => {
                    let calls = m.get("tool_calls").and_then(Value::as_array).into_iter().flatten();
                    for name in calls.filter_map(|c| c.pointer("/function/name").and_then(Value::as_str)) {
                        offer.note_call(name, registry);
                    }
                }
                Some("tool") => {
                    let content = m.get("content").and_then(Value::as_str).unwrap_or_default();
                    if let Ok(result) = serde_json::from_str::<ToolResultV2>(content) {
                        offer.note_result(&result, registry);
                    }
                }
                _ => {}
            }
        }
        offer
    }

    /// Whether `spec` is offered now.
    pub fn offers(&self, spec: &ToolSpec) -> bool {
        CORE.contains(&spec.name.as_str())
            // The user's own blueprints and client applications' tools:
            // registered for this very purpose.
            || (spec.kind == ToolKind::Custom && spec.executor != Executor::Mcp)
            || self.loaded.contains(&spec.name)
    }

    /// The names loaded so far, in order.
    pub fn loaded(&self) -> impl Iterator<Item = &str> {
        self.loaded.iter().map(String::as_str)
    }

    /// Load `name` (a known, available tool); `true` when it was not offered yet.
    pub fn add(&mut self, name: &str, registry: &Registry) -> bool {
        match registry.get(name) {
            Some(spec) if spec.status == ToolStatus::Available && !self.offers(spec) => {
                self.loaded.insert(name.to_owned())
            }
            _ => false,
        }
    }

    /// A user's words: the groups they call for, the tools and MCP servers
    /// they name. `true` when something new is offered.
    pub fn note_words(&mut self, text: &str, registry: &Registry) -> bool {
        let mut added = false;
        for name in triggered(text, registry) {
            added |= self.add(&name, registry);
        }
        added
    }

    /// The model called `name`: a known tool is offered from now on.
    pub fn note_call(&mut self, name: &str, registry: &Registry) -> bool {
        self.add(name, registry)
    }

    /// A loader's result: what it loaded is offered from now on.
    pub fn note_result(&mut self, result: &ToolResultV2, registry: &Registry) -> bool {
        let names = result.data.get("loaded").and_then(Value::as_array).into_iter().flatten();
        let mut added = false;
        for name in names.filter_map(Value::as_str) {
            added |= self.add(name, registry);
        }
        added
    }
}

/// The tools of group `name` in `registry` (MCP tools by `mcp` or by their
/// server's name); `None` when there is no such group.
pub fn group_tools(registry: &Registry, name: &str) -> Option<Vec<String>> {
    let wanted = fold(name.trim()).replace([' ', '-'], "_");
    if let Some(group) = GROUPS.iter().find(|g| g.name == wanted) {
        return Some(group.tools.iter().filter(|t| registry.get(t).is_some()).map(|t| (*t).to_owned()).collect());
    }
    let mcp: Vec<&ToolSpec> = registry.list().filter(|t| t.executor == Executor::Mcp).collect();
    let of_server: Vec<String> = mcp
        .iter()
        .filter(|t| wanted == MCP_GROUP || server_of(&t.name).is_some_and(|s| fold(s) == wanted))
        .map(|t| t.name.clone())
        .collect();
    (!of_server.is_empty() || wanted == MCP_GROUP).then_some(of_server)
}

/// The MCP server of a tool named `<server>__<tool>`.
fn server_of(name: &str) -> Option<&str> {
    name.split_once("__").map(|(server, _)| server)
}

/// Every group name there is: the built-in ones, then `mcp` and each MCP
/// server's, when any is attached.
pub fn group_names(registry: &Registry) -> Vec<String> {
    let mut names: Vec<String> = GROUPS.iter().map(|g| g.name.to_owned()).collect();
    let servers: BTreeSet<&str> =
        registry.list().filter(|t| t.executor == Executor::Mcp).filter_map(|t| server_of(&t.name)).collect();
    if !servers.is_empty() {
        names.push(MCP_GROUP.to_owned());
        names.extend(servers.into_iter().filter(|s| !GROUPS.iter().any(|g| g.name == *s)).map(str::to_owned));
    }
    names
}

/// The tools `text` calls for: its groups' (by their words), the tools it
/// names and the tools of the MCP servers it names.
pub fn triggered(text: &str, registry: &Registry) -> Vec<String> {
    let words = Words::of(text);
    let mut out = Vec::new();
    for group in &GROUPS {
        if group.words.iter().any(|w| words.has(w)) {
            out.extend(group.tools.iter().map(|t| (*t).to_owned()));
        }
    }
    for spec in registry.list() {
        let named = words.has_name(&spec.name);
        let server = spec.executor == Executor::Mcp && server_of(&spec.name).is_some_and(|s| words.has_name(s));
        if named || server {
            out.push(spec.name.clone());
        }
    }
    out
}

/// A text as lowercase words (letters and digits), for matching the groups'
/// words, and as written, for tool names (`shopping_track_price`).
struct Words {
    words: Vec<String>,
    names: Vec<String>,
}

impl Words {
    fn of(text: &str) -> Words {
        let lower = text.to_lowercase();
        let words = lower.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_owned).collect();
        let names = lower
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect();
        Words { words, names }
    }

    /// `phrase` (one or more words, the last maybe ending in `*`) appears.
    fn has(&self, phrase: &str) -> bool {
        let wanted: Vec<&str> = phrase.split(' ').collect();
        let n = wanted.len();
        self.words.windows(n).any(|w| {
            w.iter().zip(&wanted).enumerate().all(|(i, (have, want))| match want.strip_suffix('*') {
                Some(stem) if i + 1 == n => have.starts_with(stem),
                _ => have == want,
            })
        })
    }

    fn has_name(&self, name: &str) -> bool {
        let name = name.to_lowercase();
        name.len() >= 3 && self.names.contains(&name)
    }
}

/// The loader as the model sees it: the groups there are, by name.
pub fn loader_definition(registry: &Registry) -> Value {
    let mut groups: Vec<String> = GROUPS.iter().map(|g| format!("{} ({})", g.name, g.about)).collect();
    let extra: Vec<String> = group_names(registry).into_iter().skip(GROUPS.len()).collect();
    if !extra.is_empty() {
        groups.push(format!("{} (other programs' tools)", extra.join(", ")));
    }
    json!({"type": "function", "function": {
        "name": LOADER,
        "description": format!(
            "Offer more tools from your next step on, by `group` or by `query` (words of what you need). Groups: {}.",
            groups.join("; ")),
        "parameters": {"type": "object", "properties": {
            blueprint::REASONING_FIELD: {"type": "string"},
            "group": {"type": "string"},
            "query": {"type": "string"}}}}})
}

/// Most tools one query loads.
const QUERY_LIMIT: usize = 6;

/// Run the loader: the tools of `group`, or those best matching `query`,
/// each with its one-line description; `data.loaded` names them. Anything
/// else (no object, unknown fields, neither given, an unknown group, a
/// query that matches nothing) is an error that says what to send.
pub fn load(registry: &Registry, args: &Value) -> ToolResultV2 {
    let fail = |code, message: String| {
        let hint = format!("{message}. Groups: {}.", group_names(registry).join(", "));
        ToolResultV2::error(PermissionScope::ReadOnly, RiskLevel::Low, &Error::new(code, hint))
    };
    let Some(obj) = args.as_object() else {
        return fail(
            ErrorCode::InvalidArguments,
            "`tools_load` takes an object: {\"group\": NAME} or {\"query\": WORDS}".into(),
        );
    };
    if let Some(other) = obj.keys().find(|k| !matches!(k.as_str(), "group" | "query" | blueprint::REASONING_FIELD)) {
        return fail(
            ErrorCode::InvalidArguments,
            format!("`tools_load` has no argument `{other}`; give `group` or `query`"),
        );
    }
    let text = |key: &str| obj.get(key).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty());
    let bad_type = ["group", "query"].into_iter().find(|k| obj.get(*k).is_some_and(|v| !v.is_string() && !v.is_null()));
    if let Some(key) = bad_type {
        return fail(ErrorCode::InvalidArguments, format!("`{key}` must be a string"));
    }
    let names = match (text("group"), text("query")) {
        (Some(group), _) => match group_tools(registry, group) {
            Some(names) => names,
            None => {
                return fail(ErrorCode::NotFound, format!("no group `{}`", group.chars().take(60).collect::<String>()));
            }
        },
        (None, Some(query)) => search(registry, query),
        (None, None) => return fail(ErrorCode::InvalidArguments, "give `group` or `query`".into()),
    };
    if names.is_empty() {
        return fail(ErrorCode::NotFound, "no tool matches".into());
    }
    let tools: Vec<Value> = names
        .iter()
        .filter_map(|n| registry.get(n))
        .map(|s| json!({"name": s.name, "description": compact::summary(s)}))
        .collect();
    let data = json!({"loaded": names, "tools": tools, "note": "These tools are offered from your next step on."});
    ToolResultV2::ok(PermissionScope::ReadOnly, RiskLevel::Low, ToolOutput::data(data))
}

/// The available tools best matching `query`'s words (in their names,
/// descriptions and groups), best first, at most [`QUERY_LIMIT`].
fn search(registry: &Registry, query: &str) -> Vec<String> {
    let wanted: Vec<String> =
        fold(query).split(|c: char| !c.is_alphanumeric()).filter(|w| w.len() >= 3).map(str::to_owned).collect();
    let mut scored: Vec<(usize, &str)> = registry
        .list()
        .filter(|t| t.status == ToolStatus::Available)
        .filter_map(|t| {
            let groups: Vec<&str> =
                GROUPS.iter().filter(|g| g.tools.contains(&t.name.as_str())).map(|g| g.name).collect();
            let hay = fold(&format!("{} {} {}", t.name.replace('_', " "), groups.join(" "), t.description));
            let name = fold(&t.name);
            let score: usize = wanted
                .iter()
                .map(|w| usize::from(hay.contains(w.as_str())) + 2 * usize::from(name.contains(w.as_str())))
                .sum();
            (score > 0).then_some((score, t.name.as_str()))
        })
        .collect();
    scored.sort_by_key(|s| std::cmp::Reverse(s.0));
    scored.into_iter().take(QUERY_LIMIT).map(|(_, n)| n.to_owned()).collect()
}

#[cfg(test)]
mod tests;
