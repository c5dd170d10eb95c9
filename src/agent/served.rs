//! The context a local OpenAI-compatible server other than Ollama gives a
//! model, read where its own API says it: vLLM's `GET /v1/models`
//! (`max_model_len` of the model's entry), llama.cpp server's `GET /props`
//! (`default_generation_settings.n_ctx`, or `n_ctx`), LM Studio's
//! `GET /api/v0/models/{id}` (`loaded_context_length`, else
//! `max_context_length`). The client asks these only of a server on this
//! machine, once per model; a run then keeps its prompt within it
//! (`ModelClient::prompt_budget`). A server that says nothing leaves the
//! run's configured budget.

use serde_json::Value;

/// Where one kind of server says its context, and how it is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// vLLM: `GET {base}/models`.
    ModelList,
    /// llama.cpp server: `GET {root}/props`.
    Props,
    /// LM Studio: `GET {root}/api/v0/models/{model}`.
    LmStudio,
}

impl Source {
    /// The URL to ask, from the OpenAI-compatible base URL (`…/v1`).
    pub fn url(self, base_url: &str, model: &str) -> String {
        let base = base_url.trim_end_matches('/');
        let root = base.strip_suffix("/v1").unwrap_or(base);
        match self {
            Source::ModelList => format!("{base}/models"),
            Source::Props => format!("{root}/props"),
            Source::LmStudio => match url::Url::parse(root) {
                Ok(mut url) => {
                    if let Ok(mut path) = url.path_segments_mut() {
                        path.pop_if_empty().extend(["api", "v0", "models"]).extend(model.split('/'));
                    }
                    url.to_string()
                }
                Err(_) => format!("{root}/api/v0/models/{model}"),
            },
        }
    }

    /// The context `body` gives `model`, if it says.
    pub fn read(self, body: &Value, model: &str) -> Option<usize> {
        let n = |v: &Value| v.as_u64().filter(|n| *n > 0).and_then(|n| usize::try_from(n).ok());
        match self {
            Source::ModelList => {
                let list = body.get("data")?.as_array()?;
                let entry = list.iter().find(|m| m.get("id").and_then(Value::as_str) == Some(model))?;
                n(entry.get("max_model_len")?)
            }
            Source::Props => body
                .get("default_generation_settings")
                .and_then(|s| s.get("n_ctx"))
                .or_else(|| body.get("n_ctx"))
                .and_then(n),
            Source::LmStudio => {
                body.get("loaded_context_length").and_then(n).or_else(|| body.get("max_context_length").and_then(n))
            }
        }
    }
}

/// The sources to try, in order, for a server recognised as `preset` (or
/// none): its own first, the others after (a server of unknown kind).
pub fn sources(preset: Option<super::provider::Preset>) -> Vec<Source> {
    use super::provider::Preset;
    let first = match preset {
        Some(Preset::Vllm) => Source::ModelList,
        Some(Preset::LmStudio) => Source::LmStudio,
        _ => Source::Props,
    };
    let mut all = vec![first];
    for s in [Source::ModelList, Source::Props, Source::LmStudio] {
        if s != first {
            all.push(s);
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Each server's answer as it really is shaped (trimmed).
    #[test]
    fn each_server_says_its_context_its_own_way() {
        let vllm = json!({"object": "list", "data": [
            {"id": "Qwen/Qwen2.5-7B-Instruct", "object": "model", "owned_by": "vllm", "max_model_len": 32768},
            {"id": "other", "object": "model", "max_model_len": 4096}]});
        assert_eq!(Source::ModelList.read(&vllm, "Qwen/Qwen2.5-7B-Instruct"), Some(32768));
        assert_eq!(Source::ModelList.read(&vllm, "missing"), None);
        let plain = json!({"object": "list", "data": [{"id": "m", "object": "model"}]});
        assert_eq!(Source::ModelList.read(&plain, "m"), None, "an OpenAI-style list says nothing");
        let llama = json!({"default_generation_settings": {"n_ctx": 8192, "params": {}}, "total_slots": 1});
        assert_eq!(Source::Props.read(&llama, "any"), Some(8192));
        assert_eq!(Source::Props.read(&json!({"n_ctx": 4096}), "any"), Some(4096));
        let lms = json!({"id": "qwen2.5-7b-instruct", "state": "loaded", "max_context_length": 32768,
            "loaded_context_length": 4096});
        assert_eq!(Source::LmStudio.read(&lms, "qwen2.5-7b-instruct"), Some(4096));
        let unloaded = json!({"id": "q", "state": "not-loaded", "max_context_length": 32768});
        assert_eq!(Source::LmStudio.read(&unloaded, "q"), Some(32768));
        assert_eq!(Source::Props.read(&json!({"n_ctx": -1}), "x"), None);
        assert_eq!(Source::Props.read(&json!("garbage"), "x"), None);
    }

    #[test]
    fn urls_from_the_base() {
        assert_eq!(Source::ModelList.url("http://127.0.0.1:8000/v1/", "m"), "http://127.0.0.1:8000/v1/models");
        assert_eq!(Source::Props.url("http://127.0.0.1:8080/v1", "m"), "http://127.0.0.1:8080/props");
        assert_eq!(
            Source::LmStudio.url("http://127.0.0.1:1234/v1", "qwen/qwen3 8b"),
            "http://127.0.0.1:1234/api/v0/models/qwen/qwen3%208b"
        );
    }
}
