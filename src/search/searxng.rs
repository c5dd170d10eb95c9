//! A SearXNG instance: `GET {url}/search?q=..&format=json&language=..`
//! (the instance must allow the `json` format in its settings).

use serde_json::Value;

use super::{Env, Hit, Provider, Query, Searching};
use crate::protocol::SearchProvider;

#[derive(Debug, Clone)]
pub struct Searxng {
    /// The instance, e.g. `https://searx.example.org`.
    pub base: String,
}

impl Searxng {
    pub fn url(&self, query: &Query) -> String {
        let mut url = format!("{}/search?", self.base.trim_end_matches('/'));
        url.push_str(
            &url::form_urlencoded::Serializer::new(String::new())
                .append_pair("q", &query.text)
                .append_pair("format", "json")
                .append_pair("language", &query.locale.tag())
                .append_pair("pageno", "1")
                .finish(),
        );
        url
    }
}

/// The results of a SearXNG JSON answer (`results[].{title, url, content}`).
pub fn hits(answer: &Value) -> Result<Vec<Hit>, String> {
    let results = answer.get("results").and_then(Value::as_array).ok_or("the answer has no `results`")?;
    Ok(super::hits_of(results, "content"))
}

impl Provider for Searxng {
    fn kind(&self) -> SearchProvider {
        SearchProvider::Searxng
    }

    fn search<'a>(&'a self, env: &'a Env<'a>, query: &'a Query) -> Searching<'a> {
        Box::pin(async move { hits(&super::get_json(env, &self.url(query), &[]).await?) })
    }
}
