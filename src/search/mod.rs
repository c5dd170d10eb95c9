//! `web_search`: providers behind one trait ([`Provider`]): a SearXNG
//! instance (its JSON API), the Brave Search API (its key in the OS
//! keyring) and DuckDuckGo's HTML results read in the managed browser (no
//! key). The settings choose the order; a provider that fails (HTTP error,
//! timeout, an answer it cannot read, no results) hands over to the next,
//! with a note. Results are normalised to `{title, url, snippet, source,
//! rank}`, de-duplicated by URL ([`urls::key`]) and asked in the search's
//! locale ([`locale::choose`]).

pub mod brave;
pub mod ddg;
pub mod locale;
pub mod searxng;
pub mod urls;

use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use crate::context::CallContext;
use crate::error::{Error, ErrorCode, Result};
use crate::paths::DataDir;
pub use crate::protocol::tidy_search_settings as tidy_settings;
use crate::protocol::{SearchProvider, SearchSettings};
use crate::secrets::{KEYRING_PEEK, Secret, SecretStore};
use std::sync::Arc;

use crate::builtin::handle;
use crate::handler::{FnHandler, Handler, Invocation, RunFn, Services, to_output};
use crate::tools::catalogue::data::{SearchResult, WebSearchArgs, WebSearchOutput};
use locale::Locale;

/// The keyring account of the Brave Search API key of the install at
/// `dir` (one per data directory, as the local API's token).
pub fn brave_key_account(dir: &DataDir) -> String {
    format!("search-brave:{}", dir.install_id())
}

/// How long an API provider may take to answer.
pub const API_TIMEOUT: Duration = Duration::from_secs(15);

impl SearchProvider {
    pub const ALL: [SearchProvider; 3] = [SearchProvider::Searxng, SearchProvider::Brave, SearchProvider::Duckduckgo];

    /// `searxng`, `brave`, `duckduckgo` (the result's `source`).
    pub fn name(self) -> &'static str {
        match self {
            SearchProvider::Searxng => "searxng",
            SearchProvider::Brave => "brave",
            SearchProvider::Duckduckgo => "duckduckgo",
        }
    }

    pub fn from_name(name: &str) -> Option<SearchProvider> {
        Self::ALL.into_iter().find(|p| p.name().eq_ignore_ascii_case(name.trim()))
    }
}

/// One search as the providers see it.
#[derive(Debug, Clone)]
pub struct Query {
    pub text: String,
    pub locale: Locale,
    /// How many results to ask for (a few more than wanted: duplicates go).
    pub count: usize,
}

/// A result as a provider read it.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub title: String,
    pub url: String,
    pub snippet: String,
}

/// What a provider runs with: the executors' context and the call's.
pub struct Env<'a> {
    pub ctx: &'a Services,
    pub cx: &'a CallContext,
}

/// Why a provider gave nothing, in words for the result's notes.
pub type Failure = String;

pub type Searching<'a> = Pin<Box<dyn Future<Output = std::result::Result<Vec<Hit>, Failure>> + Send + 'a>>;

/// A web search provider.
pub trait Provider: Send + Sync {
    fn kind(&self) -> SearchProvider;
    /// The results for `query`, best first; `Err` says why there are none.
    fn search<'a>(&'a self, env: &'a Env<'a>, query: &'a Query) -> Searching<'a>;
}

/// The Brave Search API key saved in the OS keyring.
pub async fn brave_key(dir: &DataDir) -> Result<Option<Secret>> {
    let store = SecretStore::os()?;
    tokio::time::timeout(KEYRING_PEEK, store.get(&brave_key_account(dir)))
        .await
        .map_err(|_| Error::new(ErrorCode::Keyring, "the OS keyring did not answer in time"))?
}

/// Save the Brave Search API key (one line) in the OS keyring.
pub async fn save_brave_key(dir: &DataDir, key: &str) -> Result<()> {
    let key = crate::secrets::check_key(key)?;
    SecretStore::os()?.set(&brave_key_account(dir), &key).await
}

/// Forget the Brave Search API key; whether one was saved.
pub async fn delete_brave_key(dir: &DataDir) -> Result<bool> {
    SecretStore::os()?.delete(&brave_key_account(dir)).await
}

/// The providers to ask, in order; those skipped as the note saying why.
async fn providers(dir: &DataDir, settings: &SearchSettings) -> Vec<std::result::Result<Box<dyn Provider>, String>> {
    let order = if settings.order.is_empty() { SearchProvider::ALL.to_vec() } else { settings.order.clone() };
    let mut out: Vec<std::result::Result<Box<dyn Provider>, String>> = Vec::new();
    for kind in order {
        out.push(match kind {
            SearchProvider::Searxng => match &settings.searxng_url {
                Some(url) => Ok(Box::new(searxng::Searxng { base: url.clone() })),
                None => Err("searxng: skipped, no instance URL in the search settings".to_owned()),
            },
            SearchProvider::Brave => match brave_key(dir).await {
                Ok(Some(key)) => Ok(Box::new(brave::Brave {
                    base: settings.brave_url.clone().unwrap_or_else(|| brave::DEFAULT_BASE.to_owned()),
                    key,
                })),
                Ok(None) => Err("brave: skipped, no API key saved (`halley search key set`)".to_owned()),
                Err(e) => Err(format!("brave: skipped, its key cannot be read: {}", e.message())),
            },
            SearchProvider::Duckduckgo => Ok(Box::new(ddg::DuckDuckGo {
                base: settings.duckduckgo_url.clone().unwrap_or_else(|| ddg::DEFAULT_BASE.to_owned()),
            })),
        });
    }
    out
}

/// Run `web_search`: the providers in order until one gives results.
pub async fn web_search(ctx: &Services, cx: &CallContext, args: WebSearchArgs) -> Result<WebSearchOutput> {
    let text = args.query.trim().to_owned();
    if text.is_empty() {
        return Err(Error::invalid_arguments("the query is empty"));
    }
    let settings = crate::store::settings::load(&ctx.store).await?;
    let locale = locale::choose(args.locale.as_deref(), &text, settings.language.as_deref());
    let max = usize::from(args.max_results).clamp(1, 20);
    let query = Query { text, locale, count: (max + 5).min(20) };
    let mut notes = Vec::new();
    let env = Env { ctx, cx };
    for p in providers(&ctx.data_dir, &settings.search).await {
        let p = match p {
            Ok(p) => p,
            Err(skipped) => {
                notes.push(skipped);
                continue;
            }
        };
        let name = p.kind().name();
        let Some(found) = cx.cancel.or_cancelled(p.search(&env, &query)).await else {
            return Err(Error::new(ErrorCode::Cancelled, "the search was stopped"));
        };
        match found {
            Ok(hits) => {
                let results = normalise(hits, name, max);
                if results.is_empty() {
                    notes.push(format!("{name}: no results"));
                    continue;
                }
                return Ok(WebSearchOutput { results, provider: name.to_owned(), locale: query.locale.tag(), notes });
            }
            Err(why) => notes.push(format!("{name}: {why}")),
        }
    }
    Err(Error::new(
        ErrorCode::SearchFailed,
        format!("no search provider gave results for {:?} ({}): {}", query.text, query.locale.tag(), notes.join("; ")),
    ))
}

/// The hits as results: blank titles and non-web URLs dropped, the same
/// page once (its first place), at most `max`, ranked from 1.
pub fn normalise(hits: Vec<Hit>, source: &str, max: usize) -> Vec<SearchResult> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for hit in hits {
        let (Some(url), Some(key)) = (urls::clean(&hit.url), urls::key(&hit.url)) else { continue };
        let title = squash(&hit.title);
        if title.is_empty() || !seen.insert(key) {
            continue;
        }
        out.push(SearchResult {
            title,
            url,
            snippet: squash(&hit.snippet),
            source: source.to_owned(),
            rank: u32::try_from(out.len() + 1).unwrap_or(u32::MAX),
        });
        if out.len() == max {
            break;
        }
    }
    out
}

/// Text with its runs of white space as one space.
fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Results of a JSON API answer: `title`, `url` and the snippet at
/// `snippet` of each object, their markup removed.
pub(crate) fn hits_of(results: &[serde_json::Value], snippet: &str) -> Vec<Hit> {
    let text =
        |r: &serde_json::Value, k: &str| r.get(k).and_then(serde_json::Value::as_str).unwrap_or_default().to_owned();
    results
        .iter()
        .map(|r| Hit { title: plain(&text(r, "title")), url: text(r, "url"), snippet: plain(&text(r, snippet)) })
        .collect()
}

/// The text of an HTML fragment (a snippet with `<strong>` and entities).
pub fn plain(html: &str) -> String {
    if !html.contains(['<', '&']) {
        return squash(html);
    }
    squash(&dom_query::Document::fragment(html).root().text())
}

/// The answer of an API provider as JSON: HTTP errors, timeouts and
/// unreadable bodies as a failure in words. The fetch passes the gate like
/// a navigation to `url` (a site set to `never` is not asked).
pub(crate) async fn get_json(
    env: &Env<'_>,
    url: &str,
    headers: &[(&str, &str)],
) -> std::result::Result<serde_json::Value, Failure> {
    crate::builtin::fetch::gated(env.ctx, env.cx, "web_search", url).await?;
    let client = crate::builtin::fetch::client(url).map_err(|e| e.message().to_owned())?;
    let mut req = client.get(url).timeout(API_TIMEOUT).header("Accept", "application/json");
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let resp = req.send().await.map_err(|e| {
        if e.is_timeout() {
            format!("no answer within {} s", API_TIMEOUT.as_secs())
        } else {
            format!("cannot reach it: {e}")
        }
    })?;
    let status = resp.status();
    if !status.is_success() {
        return Err(format!("HTTP {}", status.as_u16()));
    }
    let body = resp.bytes().await.map_err(|e| format!("the answer was cut: {e}"))?;
    serde_json::from_slice(&body).map_err(|e| format!("the answer is not the JSON expected: {e}"))
}

/// `web_search`'s handler.
pub fn handlers() -> Vec<(String, Arc<dyn Handler>)> {
    vec![("web_search".to_owned(), handle!(|c| to_output(&web_search(c.services, c.cx, c.parse()?).await?)))]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(title: &str, url: &str) -> Hit {
        Hit { title: title.into(), url: url.into(), snippet: "  a \n snippet ".into() }
    }

    #[test]
    fn results_are_deduplicated_ranked_and_cut() {
        let hits = vec![
            hit("A", "https://a.vn/x?utm_source=ddg"),
            hit("A again", "https://A.vn/x/"),
            hit("", "https://b.vn/"),
            hit("Not the web", "ftp://c.vn/"),
            hit("C", "https://c.vn/"),
            hit("D", "https://d.vn/"),
        ];
        let out = normalise(hits, "searxng", 2);
        assert_eq!(out.len(), 2);
        assert_eq!((out[0].title.as_str(), out[0].url.as_str(), out[0].rank), ("A", "https://a.vn/x", 1));
        assert_eq!((out[1].title.as_str(), out[1].rank, out[1].source.as_str()), ("C", 2, "searxng"));
        assert_eq!(out[0].snippet, "a snippet");
    }

    #[test]
    fn snippets_lose_their_markup() {
        assert_eq!(plain("The <strong>iPhone 16</strong> costs 22.990.000&nbsp;₫"), "The iPhone 16 costs 22.990.000 ₫");
        assert_eq!(plain("plain"), "plain");
    }

    #[test]
    fn settings_are_checked() {
        let s = SearchSettings {
            order: vec![SearchProvider::Brave, SearchProvider::Brave, SearchProvider::Duckduckgo],
            searxng_url: Some(" https://searx.example.org/ ".into()),
            duckduckgo_url: Some("  ".into()),
            brave_url: None,
        };
        let t = tidy_settings(s).unwrap();
        assert_eq!(t.order, vec![SearchProvider::Brave, SearchProvider::Duckduckgo]);
        assert_eq!(t.searxng_url.as_deref(), Some("https://searx.example.org"));
        assert_eq!(t.duckduckgo_url, None);
        let bad = SearchSettings { searxng_url: Some("searx".into()), ..SearchSettings::default() };
        assert_eq!(tidy_settings(bad).unwrap_err().code(), ErrorCode::InvalidArguments);
    }
}
