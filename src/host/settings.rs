//! The model settings of every front end, in one place: the settings kept
//! in the store (never a secret), the endpoint they name with a front end's
//! overrides (the CLI's flags) and the environment, its API key (flag, then
//! the provider's variable, then `OPENAI_API_KEY`, then the OS keyring),
//! the model a run uses, and whether the endpoint answers. The desktop's
//! panel and `halley run`/`chat`/`models`/`models key` all resolve here.

use std::time::Duration;

use serde_json::Value;

use crate::agent::ModelClient;
use crate::agent::provider::{ModelConfig, ModelFlags, Preset, api_key_var};
use crate::error::{Error, ErrorCode, Result};
use crate::paths::DataDir;
use crate::protocol::{LocalServer, ModelEndpoint, ModelProblem, ModelStatus, ModelWarning, Settings};
use crate::secrets::KEYRING_PEEK;
pub use crate::secrets::check_key;
use crate::secrets::{Secret, SecretStore};
use crate::store::Store;
pub use crate::store::settings::load;

/// How long [`check_model`] waits for the endpoint's model list.
pub const CHECK_WITHIN: Duration = Duration::from_secs(5);

/// The settings saved in `dir`, without creating anything (defaults when
/// it has no database yet), for a front end that reads them before (or
/// without) opening a [`super::Host`].
pub async fn read(dir: &DataDir) -> Result<Settings> {
    if !dir.db_path().exists() {
        return Ok(Settings::default());
    }
    let store = Store::open(&dir.db_path()).await?;
    let saved = load(&store).await;
    store.close().await;
    saved
}

/// Check, tidy (blank is none) and save `settings`; returns them as saved.
pub async fn save(store: &Store, settings: Settings) -> Result<Settings> {
    let settings = tidy(settings)?;
    let value = serde_json::to_value(&settings).map_err(|e| Error::internal(format!("settings: {e}")))?;
    let Value::Object(values) = value else { return Err(Error::internal("settings are not an object")) };
    store.settings().replace(&values).await?;
    Ok(settings)
}

fn tidy(settings: Settings) -> Result<Settings> {
    let blank = |v: Option<String>| v.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
    let settings = Settings {
        preset: blank(settings.preset).map(|p| p.to_ascii_lowercase()),
        base_url: blank(settings.base_url),
        model: blank(settings.model),
        chromium: blank(settings.chromium),
        language: blank(settings.language).map(|l| l.to_ascii_lowercase()),
        autostart: settings.autostart,
        reopen_tabs: settings.reopen_tabs,
        search: crate::protocol::tidy_search_settings(settings.search)?,
    };
    if let Some(p) = &settings.preset
        && Preset::from_name(p).is_none()
    {
        let names: Vec<&str> = Preset::ALL.iter().map(|p| p.name()).collect();
        return Err(Error::invalid_arguments(format!("unknown preset `{p}`; use one of {}", names.join(", "))));
    }
    if let Some(lang) = &settings.language
        && !matches!(lang.as_str(), "en" | "vi")
    {
        return Err(Error::invalid_arguments(format!("unknown language `{lang}`; use `en` or `vi`")));
    }
    // The URL must read as a model endpoint.
    config_without_key(&settings)?;
    Ok(settings)
}

/// The endpoint the settings name: settings beat the environment, which
/// beats the preset's defaults (as flags do for the CLI). No key yet.
pub fn config_without_key(settings: &Settings) -> Result<ModelConfig> {
    let flags = ModelFlags {
        preset: settings.preset.clone(),
        base_url: settings.base_url.clone(),
        model: settings.model.clone(),
        api_key: None,
        timeout: None,
    };
    ModelConfig::resolve(flags, |k| std::env::var(k).ok())
}

/// [`config_without_key`] with the key saved in the OS keyring as the last
/// source; a keyring that cannot be read means no key (a local model needs
/// none), with a warning in the log.
pub async fn model_config(settings: &Settings) -> Result<ModelConfig> {
    let config = config_without_key(settings)?;
    if config.api_key.is_some() {
        return Ok(config);
    }
    match saved_key(&config).await {
        Ok(key) => Ok(config.with_saved_key(key.map(Secret::into_exposed))),
        Err(e) => {
            if !config.is_loopback() {
                tracing::warn!("going on without a saved API key: {}", e.to_wire().message);
            }
            Ok(config)
        }
    }
}

/// The key saved in the OS keyring for the endpoint of `config`.
pub async fn saved_key(config: &ModelConfig) -> Result<Option<Secret>> {
    let store = SecretStore::os()?;
    tokio::time::timeout(KEYRING_PEEK, store.get(&config.key_account()))
        .await
        .map_err(|_| Error::new(ErrorCode::Keyring, "the OS keyring did not answer in time"))?
}

/// Whether a key is saved for the endpoint the settings name (false when
/// the keyring cannot be read).
pub async fn api_key_saved(settings: &Settings) -> bool {
    match config_without_key(settings) {
        Ok(config) => saved_key(&config).await.is_ok_and(|k| k.is_some()),
        Err(_) => false,
    }
}

/// Save `key` for the endpoint the settings name, in the OS keyring only.
pub async fn save_key(settings: &Settings, key: &str) -> Result<()> {
    let key = check_key(key)?;
    let config = config_without_key(settings)?;
    SecretStore::os()?.set(&config.key_account(), &key).await
}

/// Forget the key of the endpoint the settings name; whether one was saved.
pub async fn delete_key(settings: &Settings) -> Result<bool> {
    let config = config_without_key(settings)?;
    SecretStore::os()?.delete(&config.key_account()).await
}

/// The environment variable that gives the endpoint of `config` its key
/// before the keyring, when one is set.
pub fn key_from_env(config: &ModelConfig) -> Option<&'static str> {
    api_key_var(config.preset, |k| std::env::var(k).ok())
}

/// The settings a run uses when its front end names a model endpoint
/// (the CLI's flags): an endpoint named there (preset or URL) replaces the
/// saved one with its model; a model named alone replaces the saved model.
pub fn with_overrides(settings: &Settings, flags: Option<&ModelFlags>) -> Settings {
    let Some(flags) = flags else { return settings.clone() };
    if flags.preset.is_some() || flags.base_url.is_some() {
        Settings {
            preset: flags.preset.clone(),
            base_url: flags.base_url.clone(),
            model: flags.model.clone(),
            ..settings.clone()
        }
    } else {
        Settings { model: flags.model.clone().or_else(|| settings.model.clone()), ..settings.clone() }
    }
}

/// The client and the model a run uses: the configured model (the front
/// end's `overrides` first), else the endpoint's first. Fails with the
/// "how to start a model" message when no model answers.
pub async fn agent_model(settings: &Settings, overrides: Option<ModelFlags>) -> Result<(ModelClient, String)> {
    let settings = with_overrides(settings, overrides.as_ref());
    let config = model_config(&settings).await?;
    let chosen = config.model.clone();
    let client = ModelClient::new(config)?;
    if let Some(model) = chosen {
        return Ok((client, model));
    }
    let models = client.list_models().await?;
    match models.into_iter().next() {
        Some(first) => Ok((client, first)),
        None => Err(Error::new(
            ErrorCode::ModelUnavailable,
            format!(
                "the model server at {} serves no model; name one (the settings, --model or HALLEY_MODEL), or {}",
                client.config().base_url,
                client.config().hint()
            ),
        )),
    }
}

/// Whether the endpoint answers (within [`CHECK_WITHIN`]), its models (Ollama's
/// described) and the model runs would use, with what they give it
/// ([`super::models::describe`]), and what is wrong when a run could not
/// use it ([`ModelProblem`]).
pub async fn check_model(settings: &Settings) -> Result<ModelStatus> {
    let config = model_config(settings).await?;
    Ok(check_config(config).await)
}

/// [`check_model`] of an endpoint as typed (the settings form, the
/// first-run card), nothing saved: `endpoint`'s blanks are the preset's
/// values (its key: the one saved for that endpoint). A URL that is not one
/// is a status with [`ModelProblem::BadAddress`], not an error.
pub async fn check_typed(saved: &Settings, endpoint: ModelEndpoint) -> Result<ModelStatus> {
    let typed =
        Settings { preset: endpoint.preset, base_url: endpoint.base_url, model: endpoint.model, ..saved.clone() };
    let typed = match tidy(typed) {
        Ok(t) => t,
        Err(e) => {
            return Ok(ModelStatus {
                base_url: saved.base_url.clone().unwrap_or_default(),
                message: Some(e.to_wire().message),
                problem: Some(ModelProblem::BadAddress),
                ..ModelStatus::default()
            });
        }
    };
    let key = endpoint.api_key.map(|k| k.trim().to_owned()).filter(|k| !k.is_empty());
    let config = match key {
        Some(key) => config_without_key(&typed)?.with_saved_key(Some(check_key(&key)?.into_exposed())),
        None => model_config(&typed).await?,
    };
    Ok(check_config(config).await)
}

async fn check_config(config: ModelConfig) -> ModelStatus {
    let base_url = config.base_url.clone();
    let chosen = config.model.clone();
    let hint = config.hint();
    let product = product_of(&config);
    let hosted = config.preset.is_some_and(|p| !p.is_local()) || !config.is_loopback();
    let keyless = config.api_key.is_none();
    let client = match ModelClient::new(config) {
        Ok(c) => c,
        Err(e) => {
            return ModelStatus {
                base_url,
                message: Some(e.to_wire().message),
                problem: Some(ModelProblem::Other),
                product,
                ..ModelStatus::default()
            };
        }
    };
    let listed = tokio::time::timeout(CHECK_WITHIN, client.list_models()).await.unwrap_or_else(|_| {
        Err(Error::new(
            ErrorCode::ModelUnavailable,
            format!("the model server at {base_url} did not answer within {} s; {hint}", CHECK_WITHIN.as_secs()),
        ))
    });
    let mut status = match listed {
        Ok(models) => {
            let empty = models.is_empty();
            let described =
                tokio::time::timeout(CHECK_WITHIN, super::models::describe(&client, models.clone(), chosen.clone()));
            let mut status = described.await.unwrap_or_else(|_| {
                let model = chosen.clone().or_else(|| models.first().cloned());
                let chosen = chosen.is_some();
                ModelStatus {
                    reachable: true,
                    base_url: base_url.clone(),
                    models,
                    model,
                    chosen,
                    ..ModelStatus::default()
                }
            });
            if empty {
                status.message = Some(format!("the model server at {base_url} serves no model; {hint}"));
                status.problem = Some(ModelProblem::NoModels);
            } else if let Some(model) = status.warnings.iter().find_map(|w| match w {
                ModelWarning::NotServed { model } => Some(model.clone()),
                _ => None,
            }) {
                status.problem = Some(ModelProblem::NotPulled { model });
            }
            status
        }
        Err(e) => ModelStatus {
            reachable: false,
            base_url,
            chosen: chosen.is_some(),
            model: chosen,
            problem: Some(problem_of(&e, hosted && keyless)),
            message: Some(e.to_wire().message),
            ..ModelStatus::default()
        },
    };
    // Ollama answers as itself whatever its address.
    status.product = product.or_else(|| (status.server.as_deref() == Some("ollama")).then(|| "Ollama".to_owned()));
    status
}

/// What a failed model listing means for a person: the HTTP status when
/// the server answered one, else the kind of failure.
fn problem_of(e: &Error, keyless_hosted: bool) -> ModelProblem {
    match crate::agent::raw_response_of(e).and_then(|r| r.status) {
        Some(401 | 403) if keyless_hosted => ModelProblem::KeyMissing,
        Some(401 | 403) => ModelProblem::KeyRefused,
        Some(404 | 405) => ModelProblem::WrongAddress,
        Some(_) => ModelProblem::Other,
        None => match e.code() {
            ErrorCode::ModelUnavailable | ErrorCode::Timeout => ModelProblem::NotRunning,
            // An answer that is not a model list: another program is there.
            ErrorCode::ModelError => ModelProblem::WrongAddress,
            _ => ModelProblem::Other,
        },
    }
}

/// The product an endpoint is, by its preset (named or recognised by its address).
fn product_of(config: &ModelConfig) -> Option<String> {
    config.preset.map(|p| p.label().to_owned())
}

/// The local servers [`find_local`] looks at when
/// `HALLEY_LOCAL_MODEL_URLS` does not name others.
const LOCAL_PRESETS: [Preset; 4] = [Preset::Ollama, Preset::LmStudio, Preset::LlamaCpp, Preset::Vllm];

/// Where [`find_local`] looks instead of the local presets' own ports: base
/// URLs, comma-separated (tests and unusual set-ups).
pub const ENV_LOCAL_URLS: &str = "HALLEY_LOCAL_MODEL_URLS";

/// The model servers that answer on this computer, each with its models
/// (Ollama's described), looked at side by side: Ollama, LM Studio,
/// llama.cpp and vLLM on their own ports (or the URLs of
/// [`ENV_LOCAL_URLS`]). Asks each for its model list only: pulls and loads
/// nothing. A server that does not answer is left out.
pub async fn find_local(saved: &Settings) -> Vec<LocalServer> {
    let urls: Vec<String> = match std::env::var(ENV_LOCAL_URLS).ok().filter(|v| !v.trim().is_empty()) {
        Some(list) => list.split(',').map(|u| u.trim().to_owned()).filter(|u| !u.is_empty()).collect(),
        None => LOCAL_PRESETS.iter().map(|p| p.base_url().to_owned()).collect(),
    };
    find_local_at(saved, urls).await
}

/// [`find_local`] at these base URLs.
pub async fn find_local_at(saved: &Settings, urls: Vec<String>) -> Vec<LocalServer> {
    let looks = urls.into_iter().map(|url| {
        let saved = saved.clone();
        async move {
            let typed = ModelEndpoint { base_url: Some(url.clone()), ..ModelEndpoint::default() };
            let status = check_typed(&Settings { model: None, preset: None, ..saved }, typed).await.ok()?;
            if !status.reachable {
                return None;
            }
            let preset = Preset::for_base_url(&status.base_url);
            // Known by its answer (Ollama) or its port; else by its address.
            let product = status.product.clone().unwrap_or_else(|| {
                url::Url::parse(&status.base_url)
                    .ok()
                    .and_then(|u| {
                        u.port_or_known_default().map(|p| format!("{}:{p}", u.host_str().unwrap_or_default()))
                    })
                    .unwrap_or_else(|| status.base_url.clone())
            });
            let preset = match status.server.as_deref() {
                Some("ollama") => Some(Preset::Ollama),
                _ => preset,
            };
            Some(LocalServer {
                product,
                preset: preset.map(|p| p.name().to_owned()),
                base_url: status.base_url.clone(),
                status,
            })
        }
    });
    futures::future::join_all(looks).await.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_listing_is_named_for_a_person() {
        let answered = |status: u16| {
            let mut raw = crate::agent::RawResponse::default();
            raw.status = Some(status);
            Error::new(ErrorCode::ModelError, format!("HTTP {status}")).with_source(crate::agent::raw::Partial(raw))
        };
        assert_eq!(problem_of(&answered(401), false), ModelProblem::KeyRefused);
        assert_eq!(problem_of(&answered(403), false), ModelProblem::KeyRefused);
        assert_eq!(problem_of(&answered(401), true), ModelProblem::KeyMissing);
        assert_eq!(problem_of(&answered(404), false), ModelProblem::WrongAddress);
        assert_eq!(problem_of(&answered(500), false), ModelProblem::Other);
        let refused = Error::new(ErrorCode::ModelUnavailable, "no model server is reachable");
        assert_eq!(problem_of(&refused, true), ModelProblem::NotRunning);
        assert_eq!(problem_of(&Error::new(ErrorCode::Timeout, "sent nothing"), false), ModelProblem::NotRunning);
        let not_json = Error::new(ErrorCode::ModelError, "not the JSON expected");
        assert_eq!(problem_of(&not_json, false), ModelProblem::WrongAddress);
    }

    #[test]
    fn settings_are_tidied_and_checked() {
        let s = Settings {
            preset: Some(" OpenAI ".into()),
            model: Some("  ".into()),
            language: Some("VI".into()),
            ..Settings::default()
        };
        let t = tidy(s).unwrap();
        assert_eq!(t.preset.as_deref(), Some("openai"));
        assert_eq!(t.model, None);
        assert_eq!(t.language.as_deref(), Some("vi"));
        let bad = Settings { preset: Some("skynet".into()), ..Settings::default() };
        assert_eq!(tidy(bad).unwrap_err().code(), ErrorCode::InvalidArguments);
        let bad = Settings { language: Some("fr".into()), ..Settings::default() };
        assert_eq!(tidy(bad).unwrap_err().code(), ErrorCode::InvalidArguments);
        let bad = Settings { base_url: Some("not a url".into()), ..Settings::default() };
        assert!(tidy(bad).is_err());
    }
}
