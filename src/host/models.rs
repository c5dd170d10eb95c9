//! What the model endpoint serves and what a run uses, for the panel's
//! first-run screen and settings and for `halley models`
//! ([`ModelStatus`]): Ollama's models with their size, tool calling and
//! context; the context a run gives the model in use; and warnings when it
//! cannot call tools (calls are then emulated) or its context is small.

use crate::agent::ModelClient;
use crate::agent::ollama::SMALL_CONTEXT;
use crate::agent::run::RunLimits;
use crate::protocol::{ModelDetails, ModelInUse, ModelStatus, ModelWarning, ToolCalling};

/// The status of a reachable endpoint that listed `models`, with `chosen`
/// the model the settings (or the front end) name.
pub async fn describe(client: &ModelClient, models: Vec<String>, chosen: Option<String>) -> ModelStatus {
    let base_url = client.config().base_url.clone();
    let described = match client.describe_models().await {
        Ok(found) => found,
        Err(e) => {
            tracing::warn!("the models at {base_url} could not be described: {}", e.message());
            None
        }
    };
    let server = described.as_ref().map(|_| "ollama".to_owned());
    let details: Vec<ModelDetails> = described
        .unwrap_or_default()
        .into_iter()
        .map(|d| ModelDetails {
            tools: d.info.as_ref().and_then(|i| i.can("tools")),
            context_length: d.info.as_ref().and_then(|i| i.context_length).map(to_u64),
            name: d.tag.name,
            size: d.tag.size,
            parameter_size: d.tag.parameter_size,
            quantization: d.tag.quantization,
            family: d.tag.family,
        })
        .collect();
    let model = chosen.clone().or_else(|| models.first().cloned());
    let mut warnings = Vec::new();
    if let Some(name) = &chosen
        && !models.is_empty()
        && !models.iter().any(|m| same_model(m, name))
    {
        warnings.push(ModelWarning::NotServed { model: name.clone() });
    }
    let budget = RunLimits::default().context_tokens;
    let in_use = match &model {
        Some(name) => {
            let in_use = match client.context_in_use(name).await {
                Some(c) => ModelInUse {
                    model: name.clone(),
                    context_length: c.info.context_length.map(to_u64),
                    num_ctx: Some(to_u64(c.window)),
                    prompt_budget: to_u64(c.prompt_budget.min(budget)),
                    tool_calling: if c.info.can("tools") == Some(false) {
                        ToolCalling::Emulated
                    } else {
                        ToolCalling::Native
                    },
                },
                None => ModelInUse {
                    model: name.clone(),
                    context_length: None,
                    num_ctx: None,
                    prompt_budget: to_u64(budget),
                    tool_calling: ToolCalling::Native,
                },
            };
            if in_use.tool_calling == ToolCalling::Emulated {
                warnings.push(ModelWarning::NoTools { model: name.clone() });
            }
            if let Some(context) = in_use.num_ctx.filter(|c| *c < to_u64(SMALL_CONTEXT)) {
                warnings.push(ModelWarning::SmallContext {
                    model: name.clone(),
                    context,
                    needed: to_u64(SMALL_CONTEXT),
                });
            }
            Some(in_use)
        }
        None => None,
    };
    ModelStatus {
        reachable: true,
        base_url,
        models,
        model,
        message: None,
        problem: None,
        product: None,
        server,
        chosen: chosen.is_some(),
        details,
        in_use,
        warnings,
        min_context: to_u64(SMALL_CONTEXT),
    }
}

/// Ollama reads `qwen3` as `qwen3:latest`.
fn same_model(listed: &str, name: &str) -> bool {
    listed == name || (!name.contains(':') && listed.strip_suffix(":latest") == Some(name))
}

fn to_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}
