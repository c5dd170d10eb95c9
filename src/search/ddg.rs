//! DuckDuckGo's HTML results (`{base}/html/?q=..&kl=..`), opened in a
//! background tab of the managed Chromium through the browser tools (each
//! passing the gate, in a run of its own that is released at the end) and
//! read from the DOM: `.result` blocks, `.result__a` links (DuckDuckGo's
//! `//duckduckgo.com/l/?uddg=` redirects unwrapped), `.result__snippet`;
//! ads dropped. A page that shows a CAPTCHA is handed to the user
//! (`human_solve_challenge`, through the run's confirmer, in the tab); once
//! it is gone the results are read, else the search goes on elsewhere.

use dom_query::Document;
use serde_json::{Value, json};

use super::{Env, Failure, Hit, Provider, Query, Searching};
use crate::builtin::browser::BrowserTool;
use crate::context::{CallContext, FrontEnd};
use crate::protocol::SearchProvider;
use crate::store::new_id;

pub const DEFAULT_BASE: &str = "https://html.duckduckgo.com";

/// How long the user has to solve a CAPTCHA.
const CHALLENGE_TIMEOUT_MS: u32 = 120_000;

#[derive(Debug, Clone)]
pub struct DuckDuckGo {
    /// Where `/html/` is served (`https://html.duckduckgo.com`).
    pub base: String,
}

impl DuckDuckGo {
    pub fn url(&self, query: &Query) -> String {
        let params = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("q", &query.text)
            .append_pair("kl", &query.locale.ddg_region())
            .finish();
        format!("{}/html/?{params}", self.base.trim_end_matches('/'))
    }
}

impl Provider for DuckDuckGo {
    fn kind(&self) -> SearchProvider {
        SearchProvider::Duckduckgo
    }

    fn search<'a>(&'a self, env: &'a Env<'a>, query: &'a Query) -> Searching<'a> {
        Box::pin(async move {
            let url = self.url(query);
            // A run of its own, in the background, asking whoever the
            // call's run asks.
            let run = new_id("web-search");
            let cx = CallContext {
                run_id: Some(run.clone()),
                front_end: FrontEnd::Background,
                allowed_origins: None,
                ..env.cx.clone()
            };
            // A search stopped meanwhile still closes its tab.
            let mut cleanup = Cleanup { ctx: Some(env.ctx.clone()), run: run.clone(), tab: None };
            let opened = BrowserTool::NewTab.run(env.ctx, &cx, json!({"url": url, "wait_until": "load"})).await.output;
            let tab = opened.as_ref().ok().and_then(|o| o.data.pointer("/tab/id")).and_then(Value::as_str);
            let tab = tab.map(str::to_owned);
            cleanup.tab.clone_from(&tab);
            let read = match (&opened, &tab) {
                (Err(e), _) => Err(format!("the browser could not open the results page: {}", e.message())),
                (Ok(_), None) => Err("the browser opened no tab".to_owned()),
                (Ok(_), Some(tab)) => read_tab(env, &cx, tab, &url).await,
            };
            cleanup.ctx = None;
            crate::builtin::fetch::close_run(env.ctx, &run, tab).await;
            read
        })
    }
}

/// Closes the search's tab and releases its run when the search is dropped
/// before it did so itself (the call was stopped).
struct Cleanup {
    ctx: Option<crate::handler::Services>,
    run: String,
    tab: Option<String>,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        let Some(ctx) = self.ctx.take() else { return };
        let (run, tab) = (std::mem::take(&mut self.run), self.tab.take());
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move { crate::builtin::fetch::close_run(&ctx, &run, tab).await });
        }
    }
}

/// The results in the tab, after the user solved a CAPTCHA if it shows one.
async fn read_tab(env: &Env<'_>, cx: &CallContext, tab: &str, url: &str) -> Result<Vec<Hit>, Failure> {
    let state = BrowserTool::DetectState.run(env.ctx, cx, json!({})).await.output;
    let challenge = state.ok().and_then(|s| s.data.get("challenge").and_then(Value::as_str).map(str::to_owned));
    if challenge.is_some() {
        // In front of the user when the call's run is.
        let asking = CallContext { front_end: env.cx.front_end, ..cx.clone() };
        let args = json!({"challenge_type": "captcha", "page_hint": "DuckDuckGo search", "tab_id": tab,
                          "timeout_ms": CHALLENGE_TIMEOUT_MS});
        let solved = BrowserTool::SolveChallenge.run(env.ctx, &asking, args).await.output;
        match solved {
            Err(e) => return Err(format!("showed a CAPTCHA that could not be handed to you: {}", e.message())),
            Ok(o) => match o.data.get("outcome").and_then(Value::as_str) {
                Some("resolved") => {}
                other => {
                    let why = match other {
                        Some("timeout") => "nobody solved it in time",
                        _ => "it was given up",
                    };
                    return Err(format!("showed a CAPTCHA and {why}"));
                }
            },
        }
    }
    let hits = dom_hits(env, cx, url).await?;
    if hits.is_empty() && challenge.is_some() {
        // Some challenges lead back to the home page: search again.
        let again = BrowserTool::Navigate.run(env.ctx, cx, json!({"url": url, "wait_until": "load"})).await.output;
        again.map_err(|e| format!("the results page did not load again after the CAPTCHA: {}", e.message()))?;
        return dom_hits(env, cx, url).await;
    }
    Ok(hits)
}

async fn dom_hits(env: &Env<'_>, cx: &CallContext, url: &str) -> Result<Vec<Hit>, Failure> {
    let dom = BrowserTool::GetDom.run(env.ctx, cx, json!({"max_chars": 500_000})).await.output;
    let dom = dom.map_err(|e| format!("the results page could not be read: {}", e.message()))?;
    let html = dom.data.get("html").and_then(Value::as_str).unwrap_or_default();
    Ok(parse(html, url))
}

/// The results of a DuckDuckGo HTML page, ads left out; links relative to
/// `page_url` resolved and DuckDuckGo's redirects unwrapped.
pub fn parse(html: &str, page_url: &str) -> Vec<Hit> {
    let doc = Document::from(html);
    let base = url::Url::parse(page_url).ok();
    let mut hits = Vec::new();
    for result in doc.select(".result").iter() {
        let ad = result.has_class("result--ad")
            || result.select(".badge--ad, .result__extras__url .badge--ad").exists()
            || result.attr("data-nrn").is_some_and(|v| v.as_ref() == "ad");
        let link = result.select("a.result__a").first();
        let Some(href) = link.attr("href") else { continue };
        let Some(target) = unwrap(href.as_ref(), base.as_ref()) else { continue };
        if ad || is_ad_link(&target) {
            continue;
        }
        hits.push(Hit {
            title: link.text().to_string(),
            url: target,
            snippet: result.select(".result__snippet").first().text().to_string(),
        });
    }
    hits
}

/// DuckDuckGo's ad clicks go through `duckduckgo.com/y.js`.
fn is_ad_link(url: &str) -> bool {
    url::Url::parse(url).is_ok_and(|u| {
        u.host_str().is_some_and(|h| h == "duckduckgo.com" || h.ends_with(".duckduckgo.com")) && u.path() == "/y.js"
    })
}

/// The page a result link leads to: absolute, with `/l/?uddg=TARGET`
/// redirects unwrapped.
fn unwrap(href: &str, base: Option<&url::Url>) -> Option<String> {
    let url = match base {
        Some(b) => b.join(href).ok()?,
        None => url::Url::parse(href).ok()?,
    };
    if (url.path() == "/l/" || url.path() == "/l")
        && let Some((_, target)) = url.query_pairs().find(|(k, _)| k == "uddg")
    {
        return Some(target.into_owned());
    }
    Some(url.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r#"<html><body><div id="links" class="results">
      <div class="result results_links results_links_deep result--ad">
        <div class="links_main links_deep result__body">
          <h2 class="result__title"><a rel="nofollow" class="result__a" href="https://duckduckgo.com/y.js?ad_domain=shop.vn&amp;u3=x">Mua iPhone 16 giá rẻ</a></h2>
          <a class="result__snippet" href="https://duckduckgo.com/y.js?u3=x">Quảng cáo</a>
        </div>
      </div>
      <div class="result results_links results_links_deep web-result ">
        <div class="links_main links_deep result__body">
          <h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fwww.thegioididong.com%2Fdtdd%2Fiphone-16%3Futm_source%3Dddg&amp;rut=abc">iPhone 16 128GB | Giá rẻ</a></h2>
          <a class="result__snippet" href="//duckduckgo.com/l/?uddg=x">Giá <b>iPhone 16</b> từ 19.990.000₫</a>
        </div>
      </div>
      <div class="result results_links results_links_deep web-result ">
        <h2 class="result__title"><a class="result__a" href="https://cellphones.com.vn/iphone-16.html">iPhone 16 chính hãng</a></h2>
        <a class="result__snippet">Trả góp 0%</a>
      </div>
    </div></body></html>"#;

    #[test]
    fn results_are_read_redirects_unwrapped_and_ads_dropped() {
        let hits = parse(PAGE, "https://html.duckduckgo.com/html/?q=gi%C3%A1+iPhone+16&kl=vn-vi");
        assert_eq!(hits.len(), 2, "{hits:?}");
        assert_eq!(hits[0].url, "https://www.thegioididong.com/dtdd/iphone-16?utm_source=ddg");
        assert_eq!(hits[0].title, "iPhone 16 128GB | Giá rẻ");
        assert_eq!(hits[0].snippet, "Giá iPhone 16 từ 19.990.000₫");
        assert_eq!(hits[1].url, "https://cellphones.com.vn/iphone-16.html");
    }

    #[test]
    fn the_url_carries_the_region() {
        let q = Query {
            text: "giá iPhone 16".into(),
            locale: super::super::locale::Locale::parse("vi-VN").unwrap(),
            count: 10,
        };
        let d = DuckDuckGo { base: "https://html.duckduckgo.com/".into() };
        assert_eq!(d.url(&q), "https://html.duckduckgo.com/html/?q=gi%C3%A1+iPhone+16&kl=vn-vi");
    }
}
