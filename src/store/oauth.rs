//! The `oauth_accounts` and `oauth_clients` tables: which accounts are
//! connected and with which client, never a token (those are in the OS
//! keyring, see `crate::oauth`).

use serde::Serialize;
use sqlx::types::Json;

use crate::error::Result;
use crate::store::{Store, now};
pub use crate::tools::catalogue::data::AccountStatus;

impl AccountStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Connected => "connected",
            Self::Partial => "partial",
            Self::NeedsReconnect => "needs_reconnect",
        }
    }
}

/// One connected account (no secret in it).
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow)]
pub struct AccountRow {
    pub name: String,
    pub provider: String,
    pub issuer: Option<String>,
    pub account: String,
    pub client_id: String,
    pub token_endpoint: String,
    pub revocation_endpoint: Option<String>,
    pub userinfo_endpoint: Option<String>,
    pub scopes_requested: Json<Vec<String>>,
    pub scopes_granted: Json<Vec<String>>,
    pub status: AccountStatus,
    pub created_at: String,
    pub updated_at: String,
}

/// The client the user brought for a provider.
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow)]
pub struct ClientRow {
    pub provider: String,
    pub issuer: Option<String>,
    pub client_id: String,
}

/// Accessor for the OAuth tables.
pub struct OAuthTables<'a> {
    store: &'a Store,
}

impl Store {
    pub fn oauth(&self) -> OAuthTables<'_> {
        OAuthTables { store: self }
    }
}

impl OAuthTables<'_> {
    /// Insert or replace the account `row.name` (created_at kept on replace).
    pub async fn put_account(&self, row: &AccountRow) -> Result<()> {
        let at = now();
        sqlx::query(
            "INSERT INTO oauth_accounts (name, provider, issuer, account, client_id, token_endpoint,
                 revocation_endpoint, userinfo_endpoint, scopes_requested, scopes_granted, status, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12)
             ON CONFLICT (name) DO UPDATE SET provider = excluded.provider, issuer = excluded.issuer,
                 account = excluded.account, client_id = excluded.client_id, token_endpoint = excluded.token_endpoint,
                 revocation_endpoint = excluded.revocation_endpoint, userinfo_endpoint = excluded.userinfo_endpoint,
                 scopes_requested = excluded.scopes_requested, scopes_granted = excluded.scopes_granted,
                 status = excluded.status, updated_at = excluded.updated_at",
        )
        .bind(&row.name)
        .bind(&row.provider)
        .bind(&row.issuer)
        .bind(&row.account)
        .bind(&row.client_id)
        .bind(&row.token_endpoint)
        .bind(&row.revocation_endpoint)
        .bind(&row.userinfo_endpoint)
        .bind(&row.scopes_requested)
        .bind(&row.scopes_granted)
        .bind(row.status)
        .bind(&at)
        .execute(self.store.pool())
        .await?;
        Ok(())
    }

    pub async fn account(&self, name: &str) -> Result<Option<AccountRow>> {
        Ok(sqlx::query_as("SELECT * FROM oauth_accounts WHERE name = ?1")
            .bind(name)
            .fetch_optional(self.store.pool())
            .await?)
    }

    pub async fn accounts(&self) -> Result<Vec<AccountRow>> {
        Ok(sqlx::query_as("SELECT * FROM oauth_accounts ORDER BY name").fetch_all(self.store.pool()).await?)
    }

    pub async fn set_status(&self, name: &str, status: AccountStatus) -> Result<()> {
        sqlx::query("UPDATE oauth_accounts SET status = ?2, updated_at = ?3 WHERE name = ?1")
            .bind(name)
            .bind(status)
            .bind(now())
            .execute(self.store.pool())
            .await?;
        Ok(())
    }

    /// Remove the account; `false` when there was none.
    pub async fn delete_account(&self, name: &str) -> Result<bool> {
        let done =
            sqlx::query("DELETE FROM oauth_accounts WHERE name = ?1").bind(name).execute(self.store.pool()).await?;
        Ok(done.rows_affected() > 0)
    }

    pub async fn put_client(&self, row: &ClientRow) -> Result<()> {
        sqlx::query(
            "INSERT INTO oauth_clients (provider, issuer, client_id, updated_at) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (provider) DO UPDATE SET issuer = excluded.issuer, client_id = excluded.client_id,
                 updated_at = excluded.updated_at",
        )
        .bind(&row.provider)
        .bind(&row.issuer)
        .bind(&row.client_id)
        .bind(now())
        .execute(self.store.pool())
        .await?;
        Ok(())
    }

    pub async fn client(&self, provider: &str) -> Result<Option<ClientRow>> {
        Ok(sqlx::query_as("SELECT provider, issuer, client_id FROM oauth_clients WHERE provider = ?1")
            .bind(provider)
            .fetch_optional(self.store.pool())
            .await?)
    }
}
