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
    /// The install whose keyring token is followed ([`Live::follow`]), and
    /// the rotation marker's time last seen.
    follows: Option<(DataDir, Option<std::time::SystemTime>)>,
}

impl Live {
    /// The API serves on `port` and accepts `token`.
    pub fn serving(&self, port: u16, token: &str) {
        *self.0.write().unwrap_or_else(std::sync::PoisonError::into_inner) =
            Some(Serving { port, token: token.into(), follows: None });
    }

    /// Follow the keyring's token of the install at `dir`: a rotation
    /// another process makes (`halley api token --rotate` beside the app)
    /// takes effect at the next request ([`Live::catch_up`]), the old token
    /// refused from then on. No-op while nothing is served.
    pub fn follow(&self, dir: DataDir) {
        let seen = rotated_at(&dir);
        if let Some(s) = self.0.write().unwrap_or_else(std::sync::PoisonError::into_inner).as_mut() {
            s.follows = Some((dir, seen));
        }
    }

    /// Before a request is checked: when the followed install's token was
    /// rotated since last seen (one look at a file's time), read it from
    /// the keyring once and accept it instead.
    pub async fn catch_up(&self) {
        let (dir, seen) = {
            let guard = self.0.read().unwrap_or_else(std::sync::PoisonError::into_inner);
            let Some((dir, seen)) = guard.as_ref().and_then(|s| s.follows.clone()) else { return };
            (dir, seen)
        };
        let now = rotated_at(&dir);
        if now.is_none() || now == seen {
            return;
        }
        let read = match SecretStore::os() {
            Ok(secrets) => current(&secrets, &dir).await,
            Err(e) => Err(e),
        };
        match read {
            Ok(Some(token)) => {
                if let Some(s) = self.0.write().unwrap_or_else(std::sync::PoisonError::into_inner).as_mut() {
                    s.token = token.expose().into();
                    if let Some((_, seen)) = s.follows.as_mut() {
                        *seen = now;
                    }
                }
                tracing::info!("the local API's token was rotated: the new one is accepted");
            }
            Ok(None) => {}
            Err(e) => tracing::warn!("cannot read the rotated API token: {}", e.message()),
        }
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
/// Processes of one install (the desktop app starting, `halley api token`)
/// take turns ([`one_at_a_time`]): two first uses at once would each make a
/// token, and one would serve a token the keyring no longer holds.
pub async fn get_or_create(secrets: &SecretStore, dir: &DataDir) -> Result<Secret> {
    let account = account(dir);
    if let Some(token) = secrets.get(&account).await? {
        return Ok(token);
    }
    let _turn = one_at_a_time(dir).await?;
    if let Some(token) = secrets.get(&account).await? {
        return Ok(token);
    }
    let token = fresh();
    secrets.set(&account, &token).await?;
    Ok(token)
}

/// The token the keyring holds for the install at `dir` now, if any (never
/// makes one).
pub async fn current(secrets: &SecretStore, dir: &DataDir) -> Result<Option<Secret>> {
    secrets.get(&account(dir)).await
}

/// Replace the token with a new one and return it. The data dir's
/// `api-token.rotated` is written after (it holds no secret: the time), so
/// an API served by another process of the install takes the new token at
/// its next request ([`Live::follow`]).
pub async fn rotate(secrets: &SecretStore, dir: &DataDir) -> Result<Secret> {
    let _turn = one_at_a_time(dir).await?;
    let token = fresh();
    secrets.set(&account(dir), &token).await?;
    let stamp = format!("{:?}\n", std::time::SystemTime::now());
    if let Err(e) = std::fs::write(rotated_file(dir), stamp) {
        tracing::warn!("cannot mark the API token rotated (a running API keeps the old one): {e}");
    }
    Ok(token)
}

/// The marker a rotation writes.
fn rotated_file(dir: &DataDir) -> std::path::PathBuf {
    dir.root().join("api-token.rotated")
}

/// When the marker was last written, if it was.
fn rotated_at(dir: &DataDir) -> Option<std::time::SystemTime> {
    std::fs::metadata(rotated_file(dir)).and_then(|m| m.modified()).ok()
}

/// An exclusive lock on the install's `api-token.lock`, held until the
/// file is dropped (the OS releases it with a process that dies).
async fn one_at_a_time(dir: &DataDir) -> Result<std::fs::File> {
    dir.ensure()?;
    let path = dir.root().join("api-token.lock");
    let locked = tokio::task::spawn_blocking(move || {
        let file = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&path)?;
        file.lock()?;
        Ok::<_, std::io::Error>(file)
    })
    .await
    .map_err(|e| crate::error::Error::internal(format!("the API token's lock: {e}")))?;
    locked.map_err(|e| crate::error::Error::internal(format!("cannot lock the API token's file: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two first uses at once (the app starting while `halley api token`
    /// runs) agree on one token, the one the keyring keeps.
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn first_uses_at_once_agree_on_one_token() {
        let secrets = SecretStore::os().unwrap();
        let home = tempfile::tempdir().unwrap();
        let dir = DataDir::at(home.path().join("data"));
        let got = futures::future::join_all((0..8).map(|_| {
            let (secrets, dir) = (secrets.clone(), dir.clone());
            tokio::spawn(async move { get_or_create(&secrets, &dir).await.unwrap().expose().to_owned() })
        }))
        .await;
        let kept = secrets.get(&account(&dir)).await.unwrap().unwrap();
        for token in got {
            assert_eq!(token.unwrap(), kept.expose());
        }
        let _ = secrets.delete(&account(&dir)).await;
    }

    #[test]
    fn tokens_are_long_random_and_per_install() {
        assert_ne!(fresh().expose(), fresh().expose());
        assert_eq!(fresh().expose().len(), 4 + 64);
        let (a, b) = (DataDir::at("/tmp/a"), DataDir::at("/tmp/b"));
        assert_ne!(account(&a), account(&b));
        assert_eq!(account(&a), account(&DataDir::at("/tmp/a")));
    }
}
