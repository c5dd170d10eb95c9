//! What the model endpoint serves and what a run uses: [`ModelStatus`]
//! (the panel's first-run screen and settings, `halley models`), each
//! model described when the server says more than its id (Ollama: size,
//! tool calling, context), and the warnings about the model in use.

use super::*;

/// Whether the model endpoint answers, what it serves and what runs use.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
pub struct ModelStatus {
    pub reachable: bool,
    pub base_url: String,
    pub models: Vec<String>,
    /// The model runs will use (configured, or the endpoint's first).
    pub model: Option<String>,
    /// When unreachable: what is wrong and how to start a model, in the
    /// CLI's words (the panel shows [`ModelStatus::problem`] and this only
    /// when the person asks for the commands).
    pub message: Option<String>,
    /// What stops a run from using a model here, for a person.
    #[serde(default)]
    pub problem: Option<ModelProblem>,
    /// The product the endpoint is (`Ollama`, `LM Studio`, `OpenAI`), when
    /// Halley knows it by its address or its settings.
    #[serde(default)]
    pub product: Option<String>,
    /// `ollama` when the server is Ollama; none: an OpenAI-compatible server.
    #[serde(default)]
    pub server: Option<String>,
    /// Whether the settings (or the front end) name the model; else the
    /// endpoint's first is used and the panel offers a choice.
    #[serde(default)]
    pub chosen: bool,
    /// The models described, in the server's order (Ollama's); empty when
    /// the server gives only ids.
    #[serde(default)]
    pub details: Vec<ModelDetails>,
    /// What a run gives [`ModelStatus::model`].
    #[serde(default)]
    pub in_use: Option<ModelInUse>,
    /// About the model in use (and a chosen model the server lacks).
    #[serde(default)]
    pub warnings: Vec<ModelWarning>,
    /// Below this context, in tokens, a model is too small for a browsing
    /// task (the panel marks such models in the list).
    #[serde(default)]
    pub min_context: u64,
}

/// What stops a run from using a model at an endpoint, said for a person
/// (the panel has its own words for each; [`ModelStatus::message`] keeps
/// the CLI's).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ModelProblem {
    /// Nothing answers at the address (refused, no such host, no answer in time).
    NotRunning,
    /// The server answers but serves no model (nothing pulled or loaded).
    NoModels,
    /// The chosen model is not among those the server serves.
    NotPulled { model: String },
    /// A hosted provider with no API key saved or given.
    KeyMissing,
    /// The server refused the API key (HTTP 401 or 403).
    KeyRefused,
    /// Something answers that is not a model server's API (HTTP 404, not
    /// JSON): the address is wrong.
    WrongAddress,
    /// The address typed is not an http(s) URL.
    BadAddress,
    /// Anything else; [`ModelStatus::message`] has the server's words.
    Other,
}

/// A model endpoint as typed in the settings or the first-run card, to be
/// tested before it is saved ([`super::Op::CheckModel`]). Blank is none: the
/// preset's (or saved) value.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
pub struct ModelEndpoint {
    #[serde(default)]
    #[ts(optional = nullable)]
    pub preset: Option<String>,
    #[serde(default)]
    #[ts(optional = nullable)]
    pub base_url: Option<String>,
    #[serde(default)]
    #[ts(optional = nullable)]
    pub model: Option<String>,
    /// A key typed and not saved yet; none: the one saved for this endpoint.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub api_key: Option<String>,
}

/// A model server found on this computer ([`super::Op::FindLocalModels`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct LocalServer {
    /// `Ollama`, `LM Studio`, `llama.cpp`, `vLLM`.
    pub product: String,
    /// The preset to save with it (`ollama`); none: an unknown server.
    pub preset: Option<String>,
    pub base_url: String,
    /// Its models (described when it says more than their ids).
    pub status: ModelStatus,
}

/// One model as the server describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ModelDetails {
    pub name: String,
    /// On disk, in bytes.
    pub size: Option<u64>,
    /// `8.2B`.
    pub parameter_size: Option<String>,
    /// `Q4_K_M`.
    pub quantization: Option<String>,
    pub family: Option<String>,
    /// Whether it calls tools natively (`tools` in its capabilities); none:
    /// the server did not say.
    pub tools: Option<bool>,
    /// The longest context it was trained for, in tokens.
    pub context_length: Option<u64>,
}

/// How a run's model calls tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ToolCalling {
    /// The server's own tool calling.
    Native,
    /// The model lacks it: the tools are described in its prompt and its
    /// calls read from its text.
    Emulated,
}

/// What a run gives the model in use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ModelInUse {
    pub model: String,
    /// The model's own context, when the server says it.
    pub context_length: Option<u64>,
    /// The most context a request gets: on Ollama, the largest `num_ctx`
    /// asked (the model's context capped by `HALLEY_MAX_CONTEXT`); elsewhere
    /// none (the server's own).
    pub num_ctx: Option<u64>,
    /// The prompt tokens a run keeps under (history compacted to fit).
    pub prompt_budget: u64,
    pub tool_calling: ToolCalling,
}

/// Something the user should know about the model in use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ModelWarning {
    /// The model cannot call tools: calling them is emulated (tools
    /// described in the prompt, calls read from its text), less reliably.
    NoTools { model: String },
    /// The context a run gets is smaller than `needed`: pages are cut and
    /// long tasks compacted or stopped.
    SmallContext { model: String, context: u64, needed: u64 },
    /// The chosen model is not among those the server serves.
    NotServed { model: String },
}

impl ModelWarning {
    /// The warning in English (the CLI's line; the panel has its own words).
    pub fn text(&self) -> String {
        match self {
            ModelWarning::NoTools { model } => format!(
                "`{model}` cannot call tools: Halley describes the tools in its prompt and reads the calls from its \
                 text (emulated, less reliable); a model with tool calling (e.g. qwen3:8b) does better"
            ),
            ModelWarning::SmallContext { model, context, needed } => format!(
                "`{model}` gets a context of {context} tokens, less than the {needed} a browsing task needs: long \
                 pages are cut and conversations compacted early; choose a model with a longer context (or raise \
                 HALLEY_MAX_CONTEXT)"
            ),
            ModelWarning::NotServed { model } => {
                format!("the chosen model `{model}` is not served by this endpoint")
            }
        }
    }
}
