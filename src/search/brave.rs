//! The Brave Search API: `GET {base}/res/v1/web/search?q=..&count=..&search_lang=..&country=..`
//! with the key (OS keyring) in `X-Subscription-Token`.

use serde_json::Value;

use super::{Env, Hit, Provider, Query, Searching};
use crate::protocol::SearchProvider;
use crate::secrets::Secret;

pub const DEFAULT_BASE: &str = "https://api.search.brave.com";

#[derive(Debug, Clone)]
pub struct Brave {
    pub base: String,
    pub key: Secret,
}

impl Brave {
    pub fn url(&self, query: &Query) -> String {
        let mut params = url::form_urlencoded::Serializer::new(String::new());
        params
            .append_pair("q", &query.text)
            .append_pair("count", &query.count.to_string())
            .append_pair("search_lang", &query.locale.lang);
        if let Some(region) = &query.locale.region {
            params.append_pair("country", region);
        }
        format!("{}/res/v1/web/search?{}", self.base.trim_end_matches('/'), params.finish())
    }
}

/// The web results of a Brave answer (`web.results[].{title, url, description}`;
/// an answer without `web` has none).
pub fn hits(answer: &Value) -> Result<Vec<Hit>, String> {
    if !answer.is_object() {
        return Err("the answer is not a JSON object".into());
    }
    let results = answer.pointer("/web/results").and_then(Value::as_array).cloned().unwrap_or_default();
    Ok(super::hits_of(&results, "description"))
}

impl Provider for Brave {
    fn kind(&self) -> SearchProvider {
        SearchProvider::Brave
    }

    fn search<'a>(&'a self, env: &'a Env<'a>, query: &'a Query) -> Searching<'a> {
        Box::pin(async move {
            let answer = super::get_json(env, &self.url(query), &[("X-Subscription-Token", self.key.expose())]).await;
            hits(&answer.map_err(|e| {
                if e == "HTTP 401" || e == "HTTP 403" { format!("{e}: the API key was refused") } else { e }
            })?)
        })
    }
}
