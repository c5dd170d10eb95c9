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
use crate::protocol::{ModelStatus, Settings};
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
/// ([`super::models::describe`]).
pub async fn check_model(settings: &Settings) -> Result<ModelStatus> {
    let config = model_config(settings).await?;
    let base_url = config.base_url.clone();
    let chosen = config.model.clone();
    let hint = config.hint();
    let client = ModelClient::new(config)?;
    let listed = tokio::time::timeout(CHECK_WITHIN, client.list_models()).await.unwrap_or_else(|_| {
        Err(Error::new(
            ErrorCode::ModelUnavailable,
            format!("the model server at {base_url} did not answer within {} s; {hint}", CHECK_WITHIN.as_secs()),
        ))
    });
    Ok(match listed {
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
            }
            status
        }
        Err(e) => ModelStatus {
            reachable: false,
            base_url,
            chosen: chosen.is_some(),
            model: chosen,
            message: Some(e.to_wire().message),
            ..ModelStatus::default()
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
