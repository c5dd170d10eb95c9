//! OAuth accounts (issue #16): connect with the authorization code flow and
//! PKCE through the browser (RFC 8252), keep the refresh token in the OS
//! keyring only, hand out access tokens (kept in memory, refreshed a minute
//! before they expire, one refresh at a time per account) to the tools that
//! need them, and disconnect (revoked at the provider when it offers it).
//!
//! SQLite (`oauth_accounts`, `oauth_clients`) holds what is connected, never
//! a token; nothing is stored when a sign-in fails.

mod connect;
pub mod flow;
pub mod provider;
mod request;
mod tokens;
pub mod vault;

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::secrets::{Secret, SecretStore};
use crate::store::Store;
pub use crate::store::oauth::{AccountRow, AccountStatus};
pub use connect::{Connected, Pending};
pub use request::{ClientConfig, ConnectRequest};
use tokens::Slot;

/// The OAuth accounts of one data directory.
pub struct OAuth {
    store: Store,
    http: reqwest::Client,
    /// Per account: its access token, behind a lock held while refreshing.
    live: Mutex<HashMap<String, Slot>>,
}

impl std::fmt::Debug for OAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuth").finish_non_exhaustive()
    }
}

impl OAuth {
    pub fn new(store: Store) -> Result<OAuth> {
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("Halley/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| Error::internal(format!("cannot build the HTTP client: {e}")))?;
        Ok(OAuth { store, http, live: Mutex::new(HashMap::new()) })
    }

    /// Every connected account (no secret in any).
    pub async fn list(&self) -> Result<Vec<AccountRow>> {
        self.store.oauth().accounts().await
    }

    /// Disconnect `name`: revoke the refresh token at the provider when it
    /// offers revocation, delete the keyring entry and the row. Returns
    /// whether the provider confirmed the revocation.
    pub async fn disconnect(&self, name: &str) -> Result<Disconnected> {
        let row = self.row(name).await?;
        let secrets = SecretStore::os()?;
        let account = vault::token_account(name);
        let refresh = vault::get(&secrets, &account).await?;
        let revoked = match (&row.revocation_endpoint, &refresh) {
            (Some(endpoint), Some(token)) => {
                let client_secret = vault::get(&secrets, &vault::client_account(&row.provider)).await?;
                Some(self.revoke(endpoint, &row.client_id, client_secret.as_ref(), token).await)
            }
            _ => None,
        };
        vault::delete(&secrets, &account).await?;
        self.store.oauth().delete_account(name).await?;
        self.live.lock().unwrap_or_else(|e| e.into_inner()).remove(name);
        Ok(Disconnected { name: name.to_owned(), revoked })
    }

    async fn revoke(&self, endpoint: &str, client_id: &str, secret: Option<&Secret>, token: &Secret) -> bool {
        let mut form = vec![("token", token.expose()), ("token_type_hint", "refresh_token"), ("client_id", client_id)];
        if let Some(secret) = secret {
            form.push(("client_secret", secret.expose()));
        }
        let body = url::form_urlencoded::Serializer::new(String::new()).extend_pairs(&form).finish();
        let sent = self
            .http
            .post(endpoint)
            .header(http::header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await;
        match sent {
            Ok(r) if r.status().is_success() => true,
            Ok(r) => {
                tracing::warn!(status = %r.status(), "the provider refused to revoke the token");
                false
            }
            Err(e) => {
                tracing::warn!(error = %e.without_url(), "the provider's revocation endpoint cannot be reached");
                false
            }
        }
    }
}

/// Open the sign-in page in a new tab of the managed Chromium, where the
/// user's own logins are (the system browser of RFC 8252).
pub async fn open_in_browser(browser: &crate::browser::BrowserSession, url: &str) -> Result<()> {
    let mut guard = browser.acquire(None, true).await?;
    guard.new_tab(url).await?;
    Ok(())
}

/// What disconnecting did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Disconnected {
    pub name: String,
    /// `Some(true)`: revoked at the provider; `Some(false)`: the provider
    /// refused or could not be reached; `None`: it offers no revocation.
    pub revoked: Option<bool>,
}
