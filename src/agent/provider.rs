//! Model providers: the OpenAI-compatible endpoints Halley knows by name, and
//! how the model settings are resolved (flags, then environment, then preset;
//! the API key last from the OS keyring).

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use crate::error::{Error, Result};

/// An OpenAI-compatible endpoint Halley knows by name. Local servers first:
/// [`Preset::Ollama`] is the default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Preset {
    OpenAi,
    Ollama,
    LmStudio,
    LlamaCpp,
    Vllm,
    OpenRouter,
    Gemini,
}

impl Preset {
    /// Every preset, in the order shown to the user.
    pub const ALL: [Preset; 7] = [
        Preset::Ollama,
        Preset::LmStudio,
        Preset::LlamaCpp,
        Preset::Vllm,
        Preset::OpenAi,
        Preset::OpenRouter,
        Preset::Gemini,
    ];

    /// The preset used when nothing is configured: a local Ollama.
    pub const DEFAULT: Preset = Preset::Ollama;

    /// The name used on the command line (`--preset NAME`).
    pub fn name(self) -> &'static str {
        match self {
            Self::OpenAi => "openai",
            Self::Ollama => "ollama",
            Self::LmStudio => "lmstudio",
            Self::LlamaCpp => "llamacpp",
            Self::Vllm => "vllm",
            Self::OpenRouter => "openrouter",
            Self::Gemini => "gemini",
        }
    }

    /// The product name, for messages.
    pub fn label(self) -> &'static str {
        match self {
            Self::OpenAi => "OpenAI",
            Self::Ollama => "Ollama",
            Self::LmStudio => "LM Studio",
            Self::LlamaCpp => "llama.cpp",
            Self::Vllm => "vLLM",
            Self::OpenRouter => "OpenRouter",
            Self::Gemini => "Gemini",
        }
    }

    /// The OpenAI-compatible base URL (the part before `/chat/completions`).
    pub fn base_url(self) -> &'static str {
        match self {
            Self::OpenAi => "https://api.openai.com/v1",
            Self::Ollama => "http://127.0.0.1:11434/v1",
            Self::LmStudio => "http://127.0.0.1:1234/v1",
            Self::LlamaCpp => "http://127.0.0.1:8080/v1",
            Self::Vllm => "http://127.0.0.1:8000/v1",
            Self::OpenRouter => "https://openrouter.ai/api/v1",
            Self::Gemini => "https://generativelanguage.googleapis.com/v1beta/openai",
        }
    }

    /// The provider's own API-key variable, read before `OPENAI_API_KEY` so
    /// an OpenAI key is not sent to another provider by accident.
    pub fn api_key_env(self) -> Option<&'static str> {
        match self {
            Self::OpenRouter => Some("OPENROUTER_API_KEY"),
            Self::Gemini => Some("GEMINI_API_KEY"),
            Self::OpenAi | Self::Ollama | Self::LmStudio | Self::LlamaCpp | Self::Vllm => None,
        }
    }

    /// Whether the server runs on this machine.
    pub fn is_local(self) -> bool {
        matches!(self, Self::Ollama | Self::LmStudio | Self::LlamaCpp | Self::Vllm)
    }

    /// How to get a model answering at this preset's endpoint; shown when
    /// none is reachable.
    pub fn hint(self) -> &'static str {
        match self {
            Self::Ollama => {
                "start it with `ollama serve` and pull a model with `ollama pull qwen2.5:7b`, or pass --base-url"
            }
            Self::LmStudio => {
                "open LM Studio, load a model and start its local server (Developer tab, or `lms server start`), or pass --base-url"
            }
            Self::LlamaCpp => "start it with `llama-server -m MODEL.gguf --jinja` (port 8080), or pass --base-url",
            Self::Vllm => {
                "start it with `vllm serve Qwen/Qwen2.5-7B-Instruct --enable-auto-tool-choice --tool-call-parser hermes`, or pass --base-url"
            }
            Self::OpenAi => {
                "check the network and save the key with `halley models key set --preset openai` (or set OPENAI_API_KEY); for a local model run `ollama serve` and pass --preset ollama"
            }
            Self::OpenRouter => {
                "check the network and save the key with `halley models key set --preset openrouter` (or set OPENROUTER_API_KEY)"
            }
            Self::Gemini => {
                "check the network and save the key with `halley models key set --preset gemini` (or set GEMINI_API_KEY)"
            }
        }
    }

    /// The preset whose endpoint this URL is (same scheme, host and port), if any.
    pub fn for_base_url(url: &str) -> Option<Preset> {
        let url = url::Url::parse(url).ok()?;
        Preset::ALL.into_iter().find(|p| {
            url::Url::parse(p.base_url()).is_ok_and(|known| {
                known.scheme() == url.scheme()
                    && same_host(known.host_str(), url.host_str())
                    && known.port_or_known_default() == url.port_or_known_default()
            })
        })
    }

    /// The preset with this name (case-insensitive; `lm-studio`, `lm_studio`
    /// and `llama.cpp` work too).
    pub fn from_name(name: &str) -> Option<Preset> {
        let key: String =
            name.trim().to_ascii_lowercase().chars().filter(|c| !matches!(c, '-' | '_' | ' ' | '.')).collect();
        Preset::ALL.into_iter().find(|p| p.name() == key)
    }
}

/// `localhost` and `127.0.0.1` are the same machine.
fn same_host(a: Option<&str>, b: Option<&str>) -> bool {
    let norm = |h: Option<&str>| match h {
        Some("localhost" | "[::1]" | "::1") => Some("127.0.0.1".to_owned()),
        other => other.map(str::to_ascii_lowercase),
    };
    norm(a) == norm(b)
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Preset {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        Preset::from_name(s).ok_or_else(|| {
            let known: Vec<&str> = Preset::ALL.iter().map(|p| p.name()).collect();
            Error::invalid_arguments(format!("unknown model preset `{s}` (known: {})", known.join(", ")))
        })
    }
}

/// Model settings given explicitly (command-line flags, or a config file
/// the caller merged in). Every field is optional; empty strings count as absent.
#[derive(Clone, Default)]
pub struct ModelFlags {
    /// A preset name (`--preset`).
    pub preset: Option<String>,
    pub base_url: Option<String>,
    pub model: Option<String>,
    pub api_key: Option<String>,
    /// How long to wait for the next bytes of a response.
    pub timeout: Option<Duration>,
}

impl fmt::Debug for ModelFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModelFlags")
            .field("preset", &self.preset)
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &redacted(self.api_key.as_deref()))
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// Where and how to reach the model. The API key is never printed: `Debug`
/// redacts it, and the client sends it only in the `Authorization` header.
#[derive(Clone, PartialEq, Eq)]
pub struct ModelConfig {
    /// The preset this endpoint is (chosen, or recognized from the URL);
    /// used for the "how to start a model" hint.
    pub preset: Option<Preset>,
    /// OpenAI-compatible base URL, without a trailing slash.
    pub base_url: String,
    /// The model id; `None` when nothing chose one (the request may carry it).
    pub model: Option<String>,
    pub api_key: Option<String>,
    /// How long to wait for the next bytes of a response (a local model may
    /// take a while to load before its first token).
    pub timeout: Duration,
    /// Which API to speak (`HALLEY_MODEL_API`): Ollama's native one when
    /// the server is Ollama, unless told otherwise.
    pub api: ModelApi,
    /// The largest context (`num_ctx`) asked of a local Ollama model
    /// (`HALLEY_MAX_CONTEXT`): its KV cache costs the user's memory.
    pub max_context: usize,
    /// Whether a model that can think is asked to (`HALLEY_THINK`); its
    /// thinking stays out of the answer.
    pub think: bool,
}

/// Which API the client speaks (`HALLEY_MODEL_API`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ModelApi {
    /// Ollama's native `/api/chat` when the server is Ollama (its preset,
    /// or a root that answers "Ollama is running"); else OpenAI-compatible.
    #[default]
    Auto,
    /// OpenAI-compatible chat completions, whatever the server. On Ollama
    /// this endpoint ignores `num_ctx` (it runs at the server's default,
    /// 4,096 tokens): a longer prompt is cut, which the client reports.
    OpenAi,
    /// Ollama's native API, without asking the server what it is.
    Ollama,
}

impl FromStr for ModelApi {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" | "" => Ok(ModelApi::Auto),
            "openai" | "openai-compatible" => Ok(ModelApi::OpenAi),
            "ollama" | "native" => Ok(ModelApi::Ollama),
            other => Err(Error::invalid_arguments(format!(
                "unknown model API `{other}` in {ENV_MODEL_API} (use auto, openai or ollama)"
            ))),
        }
    }
}

impl fmt::Debug for ModelConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModelConfig")
            .field("preset", &self.preset)
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &redacted(self.api_key.as_deref()))
            .field("timeout", &self.timeout)
            .field("api", &self.api)
            .field("max_context", &self.max_context)
            .field("think", &self.think)
            .finish()
    }
}

fn redacted(key: Option<&str>) -> Option<&'static str> {
    key.map(|_| "<redacted>")
}

/// Environment variable for the base URL.
pub const ENV_BASE_URL: &str = "OPENAI_BASE_URL";
/// Environment variable for the API key.
pub const ENV_API_KEY: &str = "OPENAI_API_KEY";
/// Environment variable for the model id.
pub const ENV_MODEL: &str = "HALLEY_MODEL";
/// Environment variable for the API spoken ([`ModelApi`]).
pub const ENV_MODEL_API: &str = "HALLEY_MODEL_API";
/// Environment variable for [`ModelConfig::max_context`].
pub const ENV_MAX_CONTEXT: &str = "HALLEY_MAX_CONTEXT";
/// Environment variable for [`ModelConfig::think`] (`0`, `no`, `false`: off).
pub const ENV_THINK: &str = "HALLEY_THINK";

impl ModelConfig {
    /// Default wait for the next bytes of a response.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);
    /// Default [`ModelConfig::max_context`]: room for the default
    /// `--context-tokens` (24,000) with headroom and an answer.
    pub const DEFAULT_MAX_CONTEXT: usize = 32_768;
    /// The smallest [`ModelConfig::max_context`] accepted.
    pub const MIN_MAX_CONTEXT: usize = 2_048;

    /// The settings of a preset with nothing else configured.
    pub fn for_preset(preset: Preset) -> ModelConfig {
        ModelConfig {
            preset: Some(preset),
            base_url: preset.base_url().to_owned(),
            model: None,
            api_key: None,
            timeout: Self::DEFAULT_TIMEOUT,
            api: ModelApi::Auto,
            max_context: Self::DEFAULT_MAX_CONTEXT,
            think: true,
        }
    }

    /// Resolve the settings: flags beat the environment, which beats the
    /// preset's defaults. Base URL: `--base-url`, else `--preset`'s URL, else
    /// `OPENAI_BASE_URL`, else Ollama on this machine. Model: `--model`, else
    /// `HALLEY_MODEL`. API key: `--api-key`, else the preset's own variable
    /// (`OPENROUTER_API_KEY`, `GEMINI_API_KEY`), else `OPENAI_API_KEY`; then
    /// [`ModelConfig::with_saved_key`] adds the OS keyring's. The API, the
    /// largest context and thinking come from `HALLEY_MODEL_API`,
    /// `HALLEY_MAX_CONTEXT` and `HALLEY_THINK`.
    pub fn resolve(flags: ModelFlags, env: impl Fn(&str) -> Option<String>) -> Result<ModelConfig> {
        let env = |name: &str| non_empty(env(name));
        let chosen = non_empty(flags.preset).map(|name| name.parse::<Preset>()).transpose()?;
        let base_url = non_empty(flags.base_url)
            .or_else(|| chosen.map(|p| p.base_url().to_owned()))
            .or_else(|| env(ENV_BASE_URL))
            .unwrap_or_else(|| Preset::DEFAULT.base_url().to_owned());
        let base_url = normalize_base_url(&base_url)?;
        let preset = chosen.or_else(|| Preset::for_base_url(&base_url));
        let api_key = non_empty(flags.api_key).or_else(|| api_key_var(preset, env).and_then(env));
        let api = env(ENV_MODEL_API).map(|a| a.parse::<ModelApi>()).transpose()?.unwrap_or_default();
        let max_context = match env(ENV_MAX_CONTEXT) {
            None => Self::DEFAULT_MAX_CONTEXT,
            Some(raw) => {
                raw.replace(['_', ','], "").parse::<usize>().ok().filter(|n| *n >= Self::MIN_MAX_CONTEXT).ok_or_else(
                    || {
                        Error::invalid_arguments(format!(
                            "{ENV_MAX_CONTEXT}=`{raw}` must be a number of tokens, at least {}",
                            Self::MIN_MAX_CONTEXT
                        ))
                    },
                )?
            }
        };
        let think =
            !env(ENV_THINK).is_some_and(|v| matches!(v.to_ascii_lowercase().as_str(), "0" | "no" | "false" | "off"));
        Ok(ModelConfig {
            preset,
            base_url,
            model: non_empty(flags.model).or_else(|| env(ENV_MODEL)),
            api_key,
            timeout: flags.timeout.unwrap_or(Self::DEFAULT_TIMEOUT),
            api,
            max_context,
            think,
        })
    }

    /// The OS keyring account of this endpoint's API key: the preset's name
    /// (`api-key:openrouter`), else the base URL's host, with its port when
    /// the URL names one (`api-key:gpu-box:8000`).
    pub fn key_account(&self) -> String {
        let name = match self.preset {
            Some(p) => p.name().to_owned(),
            None => match url::Url::parse(&self.base_url) {
                Ok(u) => {
                    let host = u.host_str().unwrap_or_default().to_ascii_lowercase();
                    match u.port() {
                        Some(port) => format!("{host}:{port}"),
                        None => host,
                    }
                }
                Err(_) => self.base_url.clone(),
            },
        };
        crate::secrets::api_key_account(&name)
    }

    /// The last source of the API key: the one saved in the OS keyring for
    /// [`ModelConfig::key_account`], used only when no flag or environment
    /// variable gave one. The caller looks it up (the keyring is I/O; this
    /// stays pure).
    pub fn with_saved_key(mut self, saved: Option<String>) -> ModelConfig {
        if self.api_key.is_none() {
            self.api_key = non_empty(saved);
        }
        self
    }

    /// How to get a model answering at this endpoint.
    pub fn hint(&self) -> String {
        match self.preset {
            Some(p) => p.hint().to_owned(),
            None => format!(
                "start an OpenAI-compatible server there, or run a local one with `ollama serve` and `ollama pull qwen2.5:7b` and pass --preset ollama (presets: {})",
                Preset::ALL.iter().map(|p| p.name()).collect::<Vec<_>>().join(", ")
            ),
        }
    }

    /// Whether the endpoint is on this machine (by its host).
    pub fn is_loopback(&self) -> bool {
        url::Url::parse(&self.base_url).is_ok_and(|u| match u.host() {
            Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        })
    }
}

/// The environment variable that gives the key of an endpoint (of
/// `preset`) before the OS keyring: the provider's own variable when it is
/// set, else `OPENAI_API_KEY` when that is; `None` when neither is.
pub fn api_key_var(preset: Option<Preset>, env: impl Fn(&str) -> Option<String>) -> Option<&'static str> {
    let set = |name: &str| non_empty(env(name)).is_some();
    preset.and_then(Preset::api_key_env).filter(|v| set(v)).or_else(|| set(ENV_API_KEY).then_some(ENV_API_KEY))
}

fn non_empty(value: Option<String>) -> Option<String> {
    value.map(|v| v.trim().to_owned()).filter(|v| !v.is_empty())
}

/// Check the base URL is http(s) and drop a trailing slash (paths are appended).
fn normalize_base_url(raw: &str) -> Result<String> {
    let url = url::Url::parse(raw)
        .map_err(|e| Error::invalid_arguments(format!("the model base URL `{raw}` is not a URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(Error::invalid_arguments(format!(
            "the model base URL `{raw}` must be an http:// or https:// URL, e.g. {}",
            Preset::DEFAULT.base_url()
        )));
    }
    Ok(raw.trim_end_matches('/').to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        move |name| pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    #[test]
    fn nothing_configured_means_local_ollama() {
        let cfg = ModelConfig::resolve(ModelFlags::default(), env_of(&[])).unwrap();
        assert_eq!(cfg, ModelConfig::for_preset(Preset::Ollama));
        assert!(cfg.is_loopback());
        assert!(cfg.hint().contains("ollama serve"));
    }

    #[test]
    fn flags_beat_env_beat_preset() {
        let env = env_of(&[
            ("OPENAI_BASE_URL", "http://10.0.0.5:8080/v1/"),
            ("OPENAI_API_KEY", "sk-env"),
            ("HALLEY_MODEL", "env-model"),
        ]);
        let cfg = ModelConfig::resolve(ModelFlags::default(), &env).unwrap();
        assert_eq!(cfg.base_url, "http://10.0.0.5:8080/v1");
        assert_eq!(cfg.preset, None);
        assert_eq!(cfg.model.as_deref(), Some("env-model"));
        assert_eq!(cfg.api_key.as_deref(), Some("sk-env"));

        let flags = ModelFlags {
            base_url: Some("http://localhost:1234/v1".into()),
            model: Some("flag-model".into()),
            api_key: Some("sk-flag".into()),
            timeout: Some(Duration::from_secs(5)),
            ..ModelFlags::default()
        };
        let cfg = ModelConfig::resolve(flags, &env).unwrap();
        assert_eq!(
            cfg,
            ModelConfig {
                preset: Some(Preset::LmStudio),
                base_url: "http://localhost:1234/v1".into(),
                model: Some("flag-model".into()),
                api_key: Some("sk-flag".into()),
                timeout: Duration::from_secs(5),
                api: ModelApi::Auto,
                max_context: ModelConfig::DEFAULT_MAX_CONTEXT,
                think: true,
            }
        );

        // --preset is a flag: it beats OPENAI_BASE_URL; --base-url beats it.
        let flags = ModelFlags { preset: Some("vLLM".into()), ..ModelFlags::default() };
        assert_eq!(ModelConfig::resolve(flags, &env).unwrap().base_url, "http://127.0.0.1:8000/v1");
        let flags = ModelFlags {
            preset: Some("vllm".into()),
            base_url: Some("http://gpu-box:8000/v1".into()),
            ..ModelFlags::default()
        };
        let cfg = ModelConfig::resolve(flags, &env).unwrap();
        assert_eq!((cfg.preset, cfg.base_url.as_str()), (Some(Preset::Vllm), "http://gpu-box:8000/v1"));
    }

    #[test]
    fn provider_keys_are_preferred_and_empty_values_ignored() {
        let env = env_of(&[("OPENAI_API_KEY", "sk-openai"), ("OPENROUTER_API_KEY", "sk-or"), ("HALLEY_MODEL", " ")]);
        let flags = ModelFlags { preset: Some("openrouter".into()), ..ModelFlags::default() };
        let cfg = ModelConfig::resolve(flags, &env).unwrap();
        assert_eq!(cfg.api_key.as_deref(), Some("sk-or"));
        assert_eq!(cfg.model, None);
        let flags = ModelFlags { preset: Some("gemini".into()), ..ModelFlags::default() };
        assert_eq!(ModelConfig::resolve(flags, &env).unwrap().api_key.as_deref(), Some("sk-openai"));
        // The variable that gives the key, as `halley models key status` names it.
        assert_eq!(api_key_var(Some(Preset::OpenRouter), &env), Some("OPENROUTER_API_KEY"));
        assert_eq!(api_key_var(Some(Preset::Gemini), &env), Some("OPENAI_API_KEY"));
        assert_eq!(api_key_var(None, env_of(&[("OPENAI_API_KEY", " ")])), None);
    }

    #[test]
    fn bad_preset_and_url_are_usage_errors() {
        let flags = ModelFlags { preset: Some("claude".into()), ..ModelFlags::default() };
        let err = ModelConfig::resolve(flags, env_of(&[])).unwrap_err();
        assert_eq!(err.code(), crate::ErrorCode::InvalidArguments);
        assert!(err.message().contains("ollama, lmstudio"), "{}", err.message());
        for bad in ["127.0.0.1:11434", "ftp://x/v1", "not a url"] {
            let flags = ModelFlags { base_url: Some(bad.into()), ..ModelFlags::default() };
            let err = ModelConfig::resolve(flags, env_of(&[])).unwrap_err();
            assert_eq!(err.code(), crate::ErrorCode::InvalidArguments, "{bad}");
        }
    }

    #[test]
    fn presets_round_trip_and_are_recognized_by_url() {
        for p in Preset::ALL {
            assert_eq!(p.name().parse::<Preset>().unwrap(), p);
            assert_eq!(Preset::for_base_url(p.base_url()), Some(p));
            assert!(!p.hint().is_empty());
        }
        assert_eq!(Preset::from_name("LM-Studio"), Some(Preset::LmStudio));
        assert_eq!(Preset::from_name("llama.cpp"), Some(Preset::LlamaCpp));
        assert_eq!(Preset::for_base_url("http://localhost:11434/v1"), Some(Preset::Ollama));
        assert_eq!(Preset::for_base_url("http://127.0.0.1:9999/v1"), None);
    }

    /// The panel lists the providers by their product names with their
    /// addresses (ui/src/protocol.ts `PRESET_INFO`): the same as these.
    #[test]
    fn the_panels_providers_are_these_presets() {
        let ts = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/ui/src/protocol.ts")).unwrap();
        for p in Preset::ALL {
            let line = format!(
                r#"{{ id: "{}", label: "{}", url: "{}", local: {} }}"#,
                p.name(),
                p.label(),
                p.base_url(),
                p.is_local()
            );
            assert!(ts.contains(&line), "ui/src/protocol.ts lacks {line}");
        }
        assert_eq!(ts.matches("{ id: \"").count(), Preset::ALL.len());
    }

    #[test]
    fn the_saved_key_comes_last_and_is_keyed_by_preset_or_host() {
        let env = env_of(&[("OPENROUTER_API_KEY", "sk-or")]);
        let flags = ModelFlags { preset: Some("openrouter".into()), ..ModelFlags::default() };
        let cfg = ModelConfig::resolve(flags, &env).unwrap();
        assert_eq!(cfg.key_account(), "api-key:openrouter");
        assert_eq!(cfg.with_saved_key(Some("sk-saved".into())).api_key.as_deref(), Some("sk-or"));

        let flags = ModelFlags { preset: Some("openai".into()), ..ModelFlags::default() };
        let cfg = ModelConfig::resolve(flags, env_of(&[])).unwrap();
        assert_eq!(cfg.clone().with_saved_key(Some(" sk-saved\n".into())).api_key.as_deref(), Some("sk-saved"));
        assert_eq!(cfg.clone().with_saved_key(Some("  ".into())).api_key, None);
        assert_eq!(cfg.with_saved_key(None).api_key, None);

        let account = |url: &str| {
            let flags = ModelFlags { base_url: Some(url.into()), ..ModelFlags::default() };
            ModelConfig::resolve(flags, env_of(&[])).unwrap().key_account()
        };
        assert_eq!(account("http://GPU-Box:8000/v1"), "api-key:gpu-box:8000");
        assert_eq!(account("https://llm.example.com/v1"), "api-key:llm.example.com");
        assert_eq!(account("http://localhost:11434/v1"), "api-key:ollama");
        assert_eq!(account("http://[::1]:9/v1"), "api-key:[::1]:9");
    }

    #[test]
    fn api_max_context_and_thinking_come_from_the_environment() {
        let cfg = ModelConfig::resolve(ModelFlags::default(), env_of(&[])).unwrap();
        assert_eq!((cfg.api, cfg.max_context, cfg.think), (ModelApi::Auto, 32_768, true));
        let env = env_of(&[("HALLEY_MODEL_API", "OpenAI"), ("HALLEY_MAX_CONTEXT", "65_536"), ("HALLEY_THINK", "no")]);
        let cfg = ModelConfig::resolve(ModelFlags::default(), env).unwrap();
        assert_eq!((cfg.api, cfg.max_context, cfg.think), (ModelApi::OpenAi, 65_536, false));
        for (name, bad) in [("HALLEY_MODEL_API", "grpc"), ("HALLEY_MAX_CONTEXT", "lots"), ("HALLEY_MAX_CONTEXT", "512")]
        {
            let err = ModelConfig::resolve(ModelFlags::default(), env_of(&[(name, bad)])).unwrap_err();
            assert_eq!(err.code(), crate::ErrorCode::InvalidArguments, "{name}={bad}");
            assert!(err.message().contains(name), "{}", err.message());
        }
    }

    #[test]
    fn debug_never_shows_the_key() {
        let mut cfg = ModelConfig::for_preset(Preset::OpenAi);
        cfg.api_key = Some("sk-secret-123".into());
        let text = format!("{cfg:?} {:?}", ModelFlags { api_key: Some("sk-secret-123".into()), ..Default::default() });
        assert!(!text.contains("sk-secret"), "{text}");
        assert!(text.contains("<redacted>"));
    }
}
