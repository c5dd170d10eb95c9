//! Access tokens: kept in memory per account, refreshed from the keyring's
//! refresh token a minute before they expire (one refresh at a time per
//! account), and the account marked "needs reconnecting" when refused.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

use super::flow::{Tokens, token_request};
use super::{AccountRow, AccountStatus, OAuth, vault};
use crate::error::{Error, ErrorCode, Result};
use crate::secrets::{Secret, SecretStore};

/// An access token in memory.
pub(super) struct Live {
    token: Secret,
    refresh_at: Instant,
}

pub(super) type Slot = Arc<tokio::sync::Mutex<Option<Live>>>;

impl OAuth {
    /// The user info of account `name`, fetched with a fresh access token:
    /// a call that needs one (`halley auth check`).
    pub async fn userinfo(&self, name: &str) -> Result<Value> {
        let row = self.row(name).await?;
        let url = row.userinfo_endpoint.ok_or_else(|| {
            Error::new(ErrorCode::NotAvailable, format!("{} offers no user info endpoint", row.provider))
        })?;
        let token = self.access_token(name).await?;
        self.userinfo_at(&url, &token).await
    }

    pub(super) async fn row(&self, name: &str) -> Result<AccountRow> {
        self.store
            .oauth()
            .account(name)
            .await?
            .ok_or_else(|| Error::not_found(format!("no OAuth account `{name}` is connected (see `halley auth list`)")))
    }

    fn slot(&self, name: &str) -> Slot {
        let mut live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        Arc::clone(live.entry(name.to_owned()).or_default())
    }

    pub(super) async fn remember(&self, name: &str, tokens: &Tokens) {
        let slot = self.slot(name);
        *slot.lock().await = Some(live(tokens));
    }

    /// A valid access token of account `name`: the one in memory, or a new
    /// one from the refresh token (one refresh at a time per account; a
    /// rotated refresh token replaces the old one in the keyring). A refused
    /// refresh token (`invalid_grant`) marks the account "needs reconnecting".
    pub async fn access_token(&self, name: &str) -> Result<Secret> {
        let row = self.row(name).await?;
        if row.status == AccountStatus::NeedsReconnect {
            return Err(needs_reconnect(&row));
        }
        let slot = self.slot(name);
        let mut held = slot.lock().await;
        if let Some(live) = held.as_ref()
            && Instant::now() < live.refresh_at
        {
            return Ok(live.token.clone());
        }
        let secrets = SecretStore::os()?;
        let refresh = vault::get(&secrets, &vault::token_account(name)).await?.ok_or_else(|| {
            Error::new(
                ErrorCode::Keyring,
                format!("the OS keyring holds no refresh token for `{name}`: connect the account again"),
            )
        })?;
        let client_secret = vault::get(&secrets, &vault::client_account(&row.provider)).await?;
        let mut form = vec![
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh.expose()),
            ("client_id", row.client_id.as_str()),
        ];
        if let Some(secret) = &client_secret {
            form.push(("client_secret", secret.expose()));
        }
        // The token request is a side effect: a provider that rotates
        // refresh tokens retires the old one as it answers, so a crash
        // between its answer and the keyring write below leaves a retired
        // token (the one unavoidable window; the next refresh is then
        // `invalid_grant`, and the account needs reconnecting).
        crate::crashpoint::point_with(|| format!("before side effect: token request {}", vault::token_account(name)));
        let answered = token_request(&self.http, &row.token_endpoint, &form).await;
        crate::crashpoint::point_with(|| format!("after side effect: token request {}", vault::token_account(name)));
        let tokens = match answered {
            Ok(tokens) => tokens,
            Err(f) if f.oauth_error.as_deref() == Some("invalid_grant") => {
                *held = None;
                self.store.oauth().set_status(name, AccountStatus::NeedsReconnect).await?;
                return Err(needs_reconnect(&row));
            }
            Err(f) => return Err(f.error),
        };
        if let Some(rotated) = &tokens.refresh_token
            && rotated != &refresh
        {
            vault::put(&secrets, &vault::token_account(name), rotated).await?;
        }
        let token = tokens.access_token.clone();
        *held = Some(live(&tokens));
        Ok(token)
    }
}

/// When to refresh: a minute before expiry, or halfway for short lifetimes.
fn live(tokens: &Tokens) -> Live {
    let lifetime = Duration::from_secs(tokens.expires_in.unwrap_or(3600));
    let margin = Duration::from_secs(60).min(lifetime / 2);
    Live { token: tokens.access_token.clone(), refresh_at: Instant::now() + lifetime - margin }
}

fn needs_reconnect(row: &AccountRow) -> Error {
    let issuer =
        row.issuer.as_deref().filter(|_| row.provider == "oidc").map(|i| format!(" --issuer {i}")).unwrap_or_default();
    Error::new(
        ErrorCode::AuthFailed,
        format!(
            "the account `{}` needs reconnecting: {} no longer accepts its refresh token (invalid_grant); run `halley auth \
             connect --provider {}{issuer}`",
            row.name, row.provider, row.provider
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn access_tokens_refresh_a_minute_early_or_halfway() {
        let t = |s: u64| Tokens {
            access_token: Secret::new("a"),
            refresh_token: None,
            expires_in: Some(s),
            scope: None,
            id_token: None,
        };
        let now = Instant::now();
        let hour = live(&t(3600)).refresh_at - now;
        assert!(hour >= Duration::from_secs(3540) && hour < Duration::from_secs(3541), "{hour:?}");
        let short = live(&t(10)).refresh_at - now;
        assert!(short >= Duration::from_secs(5) && short < Duration::from_secs(6), "{short:?}");
    }
}
