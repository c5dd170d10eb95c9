//! What a front end can change: [`Settings`], the search settings and
//! how they are checked.

use super::*;

/// What a front end can change (no secrets: the API key is in the keyring).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Settings {
    /// `ollama`, `openai`, `lmstudio`, `llamacpp`, `vllm`, `openrouter`, `gemini`, or none.
    #[serde(default)]
    pub preset: Option<String>,
    #[serde(default)]
    pub base_url: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    /// The browser executable; none: found on the machine.
    #[serde(default)]
    pub chromium: Option<String>,
    /// `en` or `vi`; none: the system's.
    #[serde(default)]
    pub language: Option<String>,
    /// Start Halley (in the tray) when the user logs in.
    #[serde(default)]
    pub autostart: bool,
    /// Open the managed browser's tabs again when the desktop app starts
    /// (by their addresses; a page that answered a form is not reopened).
    /// On unless turned off.
    #[serde(default = "on")]
    #[ts(as = "Option<bool>", optional)]
    pub reopen_tabs: bool,
    /// Where `web_search` searches (the Brave key is in the OS keyring).
    #[serde(default)]
    pub search: SearchSettings,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            preset: None,
            base_url: None,
            model: None,
            chromium: None,
            language: None,
            autostart: false,
            reopen_tabs: true,
            search: SearchSettings::default(),
        }
    }
}

fn on() -> bool {
    true
}

/// A web search provider of `web_search`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SearchProvider {
    /// A SearXNG instance's JSON API (its URL in the settings).
    Searxng,
    /// The Brave Search API (its key in the OS keyring).
    Brave,
    /// DuckDuckGo's HTML results, read in the managed browser (no key).
    Duckduckgo,
}

/// The search settings: which providers `web_search` asks, in which order,
/// and where they are.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
pub struct SearchSettings {
    /// The providers to ask, in order (the next when one fails); empty:
    /// SearXNG (when its URL is set), Brave (when a key is saved), DuckDuckGo.
    #[serde(default)]
    pub order: Vec<SearchProvider>,
    /// The SearXNG instance, e.g. `https://searx.example.org` (none: not used).
    #[serde(default)]
    pub searxng_url: Option<String>,
    /// DuckDuckGo's HTML endpoint (none: `https://html.duckduckgo.com`).
    #[serde(default)]
    pub duckduckgo_url: Option<String>,
    /// The Brave Search API (none: `https://api.search.brave.com`).
    #[serde(default)]
    pub brave_url: Option<String>,
}

/// Check and tidy the search settings (blank is none; URLs must be http(s)).
pub fn tidy_search_settings(s: SearchSettings) -> crate::error::Result<SearchSettings> {
    let url = |v: Option<String>, what: &str| -> crate::error::Result<Option<String>> {
        let Some(v) = v.map(|s| s.trim().trim_end_matches('/').to_owned()).filter(|s| !s.is_empty()) else {
            return Ok(None);
        };
        match url::Url::parse(&v) {
            Ok(u) if matches!(u.scheme(), "http" | "https") && u.host_str().is_some() => Ok(Some(v)),
            _ => Err(crate::error::Error::invalid_arguments(format!("the {what} `{v}` is not an http(s) URL"))),
        }
    };
    let mut order = Vec::new();
    for p in s.order {
        if !order.contains(&p) {
            order.push(p);
        }
    }
    Ok(SearchSettings {
        order,
        searxng_url: url(s.searxng_url, "SearXNG URL")?,
        duckduckgo_url: url(s.duckduckgo_url, "DuckDuckGo URL")?,
        brave_url: url(s.brave_url, "Brave Search API URL")?,
    })
}
