//! What the server says about its models, beyond their ids: Ollama's
//! `/api/tags` (size, parameters, quantization, family) and `/api/show`
//! of each (capabilities, context length), asked together; and the
//! context a run gives a model on this server.

use futures::future::join_all;
use serde_json::Value;

use super::ModelClient;
use crate::agent::ollama::{self, ModelInfo, Tag};
use crate::error::{ErrorCode, Result};

/// A model as Ollama describes it; `info` is `None` when its `/api/show` failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Described {
    pub tag: Tag,
    pub info: Option<ModelInfo>,
}

/// The context a run gives a model: on Ollama's native API, the most
/// `num_ctx` asked (the model's own context capped by
/// `HALLEY_MAX_CONTEXT`) and the prompt budget under it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextInUse {
    pub info: ModelInfo,
    pub window: usize,
    pub prompt_budget: usize,
}

impl ModelClient {
    /// Ollama's models, described, in the server's order; `None` when the
    /// server is not Ollama (its models are only ids).
    pub async fn describe_models(&self) -> Result<Option<Vec<Described>>> {
        if !self.is_ollama().await {
            return Ok(None);
        }
        let url = format!("{}/api/tags", ollama::root_url(&self.config.base_url));
        let mut request = self.native.http.get(&url).timeout(super::LIST_TIMEOUT);
        if let Some(key) = self.config.api_key.as_deref().filter(|k| !k.is_empty()) {
            request = request.bearer_auth(key);
        }
        let resp = request.send().await.map_err(|e| self.transport_error(&e))?;
        let status = resp.status();
        let body = resp.text().await.map_err(|e| self.transport_error(&e))?;
        if !status.is_success() {
            return Err(self.fail(
                ErrorCode::ModelError,
                format!(
                    "the Ollama server at {} answered /api/tags with HTTP {status}: {}",
                    self.config.base_url,
                    super::clip(&body, 200)
                ),
            ));
        }
        let listing: Value = serde_json::from_str(&body).map_err(|e| {
            self.fail(
                ErrorCode::ModelError,
                format!(
                    "the Ollama server at {} answered /api/tags with something that is not JSON ({e})",
                    self.config.base_url
                ),
            )
        })?;
        let tags = ollama::tags(&listing);
        let infos = join_all(tags.iter().map(|t| self.show(&t.name))).await;
        Ok(Some(tags.into_iter().zip(infos).map(|(tag, info)| Described { tag, info: info.ok() }).collect()))
    }

    /// Whether `model` gets its tools as text (Ollama's native API, a model
    /// whose `/api/show` lacks `tools`; see `ollama::chat_body`).
    pub async fn emulates_tools(&self, model: &str) -> bool {
        self.speaks_native().await && self.show(model).await.is_ok_and(|info| info.can("tools") == Some(false))
    }

    /// The context a run gives `model` on Ollama's native API; `None`
    /// elsewhere (the run's configured budget holds), or when `/api/show`
    /// fails.
    pub async fn context_in_use(&self, model: &str) -> Option<ContextInUse> {
        if !self.speaks_native().await {
            return None;
        }
        let info = self.show(model).await.ok()?;
        let window = info.window(self.config.max_context);
        Some(ContextInUse { info, window, prompt_budget: ollama::prompt_budget(window) })
    }
}
