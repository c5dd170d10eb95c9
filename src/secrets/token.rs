//! The local API's bearer token: random, one per install (per data
//! directory), kept only in the OS keyring. Made on first use; rotating it
//! makes every client's copy stale at once.

use crate::error::Result;
use crate::paths::DataDir;
use crate::secrets::{Secret, SecretStore};

/// What the running API accepts, shared by the host and the API's handlers
/// so that a rotation ([`crate::host::Host`]'s `RotateApiToken`) takes effect
/// at once, without a restart. Empty while no API is served.
#[derive(Clone, Default, Debug)]
pub struct Live(std::sync::Arc<std::sync::RwLock<Option<Serving>>>);

#[derive(Clone, Debug)]
struct Serving {
    port: u16,
    token: std::sync::Arc<str>,
}

impl Live {
    /// The API serves on `port` and accepts `token`.
    pub fn serving(&self, port: u16, token: &str) {
        *self.0.write().unwrap_or_else(std::sync::PoisonError::into_inner) =
            Some(Serving { port, token: token.into() });
    }

    /// The API stopped: no token is accepted.
    pub fn stopped(&self) {
        *self.0.write().unwrap_or_else(std::sync::PoisonError::into_inner) = None;
    }

    /// A new token replaces the old one (no-op while nothing is served).
    pub fn replace_token(&self, token: &str) {
        if let Some(s) = self.0.write().unwrap_or_else(std::sync::PoisonError::into_inner).as_mut() {
            s.token = token.into();
        }
    }

    /// The token accepted now, if the API is served.
    pub fn token(&self) -> Option<std::sync::Arc<str>> {
        self.0
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_ref()
            .map(|s| std::sync::Arc::clone(&s.token))
    }

    /// The port served on, if any.
    pub fn port(&self) -> Option<u16> {
        self.0.read().unwrap_or_else(std::sync::PoisonError::into_inner).as_ref().map(|s| s.port)
    }
}

/// The keyring account of the token of the install at `dir`.
fn account(dir: &DataDir) -> String {
    format!("api-token:{}", dir.install_id())
}

/// A fresh token: two v4 UUIDs (244 random bits from the OS), as hex.
fn fresh() -> Secret {
    let a = uuid::Uuid::new_v4();
    let b = uuid::Uuid::new_v4();
    Secret::new(format!("hly_{}{}", a.simple(), b.simple()))
}

/// The token of the install at `dir`, made and saved on first use.
pub async fn get_or_create(secrets: &SecretStore, dir: &DataDir) -> Result<Secret> {
    let account = account(dir);
    if let Some(token) = secrets.get(&account).await? {
        return Ok(token);
    }
    let token = fresh();
    secrets.set(&account, &token).await?;
    Ok(token)
}

/// Replace the token with a new one and return it.
pub async fn rotate(secrets: &SecretStore, dir: &DataDir) -> Result<Secret> {
    let token = fresh();
    secrets.set(&account(dir), &token).await?;
    Ok(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_long_random_and_per_install() {
        assert_ne!(fresh().expose(), fresh().expose());
        assert_eq!(fresh().expose().len(), 4 + 64);
        let (a, b) = (DataDir::at("/tmp/a"), DataDir::at("/tmp/b"));
        assert_ne!(account(&a), account(&b));
        assert_eq!(account(&a), account(&DataDir::at("/tmp/a")));
    }
}
