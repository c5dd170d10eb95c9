//! OAuth accounts (issue #16): connect with the authorization code flow and
//! PKCE through the browser (RFC 8252), keep the refresh token in the OS
//! keyring only, hand out access tokens (kept in memory, refreshed a minute
//! before they expire, one refresh at a time per account) to the tools that
//! need them, and disconnect (revoked at the provider when it offers it).
//!
//! SQLite (`oauth_accounts`, `oauth_clients`) holds what is connected, never
//! a token; nothing is stored when a sign-in fails.

pub mod flow;
pub mod provider;
pub mod vault;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use serde::Serialize;
use serde_json::Value;
use sqlx::types::Json;
use tokio::time::Instant;

use self::flow::{Expect, Listener, Pkce, Tokens, token_request};
use self::provider::{Endpoints, ProviderKind};
use crate::error::{Error, ErrorCode, Result};
use crate::secrets::{Secret, SecretStore};
use crate::store::Store;
use crate::store::oauth::ClientRow;
pub use crate::store::oauth::{AccountRow, AccountStatus};

/// The client the user brought: its id and, for Google's "Desktop app"
/// clients, the `client_secret` Google does not treat as a secret.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    pub client_id: String,
    pub client_secret: Option<Secret>,
}

impl ClientConfig {
    /// Read a Google `client_secret_*.json` download (`installed` or `web`).
    pub fn from_google_json(text: &str) -> Result<ClientConfig> {
        let bad = || {
            Error::invalid_arguments(
                "not a client_secret_*.json file: expected {\"installed\": {\"client_id\": ..., \"client_secret\": ...}}",
            )
        };
        let doc: Value = serde_json::from_str(text).map_err(|_| bad())?;
        let inner = doc.get("installed").or_else(|| doc.get("web")).ok_or_else(bad)?;
        let client_id = inner.get("client_id").and_then(Value::as_str).filter(|s| !s.is_empty()).ok_or_else(bad)?;
        let client_secret = inner.get("client_secret").and_then(Value::as_str).filter(|s| !s.is_empty());
        Ok(ClientConfig { client_id: client_id.to_owned(), client_secret: client_secret.map(Secret::new) })
    }
}

impl ClientConfig {
    /// A client id and optional secret as a front end got them (flags, a
    /// form; blank means absent): `None` without an id.
    pub fn from_parts(client_id: Option<String>, client_secret: Option<String>) -> Result<Option<ClientConfig>> {
        let blank = |s: Option<String>| s.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
        match (blank(client_id), blank(client_secret)) {
            (Some(client_id), secret) => Ok(Some(ClientConfig { client_id, client_secret: secret.map(Secret::new) })),
            (None, Some(_)) => Err(Error::invalid_arguments("a client secret goes with a client id")),
            (None, None) => Ok(None),
        }
    }
}

/// What to connect.
#[derive(Debug, Clone)]
pub struct ConnectRequest {
    pub provider: ProviderKind,
    /// The OpenID issuer (`oidc`; else the one saved with the client).
    pub issuer: Option<String>,
    /// The client to use; `None`: the one saved for the provider.
    pub client: Option<ClientConfig>,
    /// Scopes as the user writes them (Google's short names allowed); empty:
    /// the provider's defaults.
    pub scopes: Vec<String>,
    /// How long to wait for the callback.
    pub timeout: Duration,
}

impl ConnectRequest {
    /// A request from what a front end gathered, checked.
    pub fn new(
        provider: &str,
        issuer: Option<String>,
        client: Option<ClientConfig>,
        scopes: Vec<String>,
        timeout: Duration,
    ) -> Result<ConnectRequest> {
        let provider = ProviderKind::parse(provider)?;
        let issuer = issuer.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
        if provider == ProviderKind::Oidc && issuer.is_none() && client.is_some() {
            return Err(Error::invalid_arguments("an OpenID Connect provider needs its issuer URL (--issuer)"));
        }
        if timeout.is_zero() {
            return Err(Error::invalid_arguments("the sign-in timeout must be at least 1 second"));
        }
        let scopes = scopes.iter().flat_map(|s| s.split_whitespace()).map(str::to_owned).collect();
        Ok(ConnectRequest { provider, issuer, client, scopes, timeout })
    }
}

/// A sign-in under way: open `authorize_url` in the browser, then
/// [`OAuth::finish`].
#[derive(Debug)]
pub struct Pending {
    pub authorize_url: String,
    pub provider: ProviderKind,
    pub scopes: Vec<String>,
    endpoints: Endpoints,
    client: ClientConfig,
    listener: Listener,
    expect: Expect,
    pkce: Pkce,
    timeout: Duration,
}

/// A connected account, as the model and the user see it: no token.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Connected {
    pub name: String,
    pub provider: String,
    pub account: String,
    pub scopes_granted: Vec<String>,
    /// Asked for and not granted (a partial consent).
    pub scopes_missing: Vec<String>,
    pub status: AccountStatus,
}

/// An access token in memory.
struct Live {
    token: Secret,
    refresh_at: Instant,
}

type Slot = Arc<tokio::sync::Mutex<Option<Live>>>;

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

    /// Start a sign-in: check the keyring answers (before anything else, so
    /// a missing keyring fails first), resolve the client and endpoints,
    /// listen on a loopback port and build the authorization URL.
    pub async fn begin(&self, req: ConnectRequest) -> Result<Pending> {
        let secrets = SecretStore::os()?;
        secrets.get(&vault::client_account(req.provider.name())).await?;
        let saved = self.store.oauth().client(req.provider.name()).await?;
        let client = match req.client {
            Some(client) => client,
            None => {
                let saved = saved.as_ref().ok_or_else(|| no_client(req.provider))?;
                let secret = vault::get(&secrets, &vault::client_account(req.provider.name())).await?;
                ClientConfig { client_id: saved.client_id.clone(), client_secret: secret }
            }
        };
        if client.client_id.trim().is_empty() {
            return Err(Error::invalid_arguments("the client id is empty"));
        }
        let endpoints = match Endpoints::preset(req.provider) {
            Some(e) => e,
            None => {
                let issuer = req.issuer.or_else(|| saved.and_then(|s| s.issuer)).ok_or_else(|| {
                    Error::invalid_arguments("an OpenID Connect provider needs its issuer URL (--issuer)")
                })?;
                provider::discover(&self.http, &issuer).await?
            }
        };
        let requested = if req.scopes.is_empty() { req.provider.default_scopes() } else { req.scopes };
        let scopes = req.provider.expand_scopes(&requested);
        let listener = Listener::bind().await?;
        let pkce = Pkce::new();
        let state = flow::new_state();
        let mut url = url::Url::parse(&endpoints.authorization)
            .map_err(|e| Error::new(ErrorCode::AuthFailed, format!("the authorization endpoint is not a URL: {e}")))?;
        {
            let mut q = url.query_pairs_mut();
            q.append_pair("response_type", "code")
                .append_pair("client_id", &client.client_id)
                .append_pair("redirect_uri", &listener.redirect_uri)
                .append_pair("scope", &scopes.join(" "))
                .append_pair("state", state.expose())
                .append_pair("code_challenge", &pkce.challenge)
                .append_pair("code_challenge_method", "S256");
            match req.provider {
                ProviderKind::Google => {
                    q.append_pair("access_type", "offline").append_pair("prompt", "consent");
                }
                // OpenID Connect grants `offline_access` only with a consent prompt.
                ProviderKind::Oidc if scopes.iter().any(|s| s == "offline_access") => {
                    q.append_pair("prompt", "consent");
                }
                _ => {}
            }
        }
        let expect = Expect { state, issuer: endpoints.issuer.clone(), iss_required: endpoints.iss_in_response };
        Ok(Pending {
            authorize_url: url.into(),
            provider: req.provider,
            scopes,
            endpoints,
            client,
            listener,
            expect,
            pkce,
            timeout: req.timeout,
        })
    }

    /// Wait for the callback, exchange the code, find the account and save
    /// it: the refresh token in the keyring, the rest in SQLite. Nothing is
    /// stored when any step fails.
    pub async fn finish(&self, pending: Pending) -> Result<Connected> {
        let Pending { provider, scopes, endpoints, client, listener, expect, pkce, timeout, .. } = pending;
        let redirect_uri = listener.redirect_uri.clone();
        let code = listener.wait(&expect, timeout).await?;
        let mut form = vec![
            ("grant_type", "authorization_code"),
            ("code", code.expose()),
            ("redirect_uri", redirect_uri.as_str()),
            ("client_id", client.client_id.as_str()),
            ("code_verifier", pkce.verifier.expose()),
        ];
        if let Some(secret) = &client.client_secret {
            form.push(("client_secret", secret.expose()));
        }
        let tokens = token_request(&self.http, &endpoints.token, &form).await.map_err(|f| nothing_stored(f.error))?;
        let refresh = tokens.refresh_token.clone().ok_or_else(|| {
            Error::new(
                ErrorCode::AuthFailed,
                format!(
                    "{} gave no refresh token, so Halley could not keep the account connected{}; nothing was stored",
                    provider.name(),
                    match provider {
                        ProviderKind::Oidc => " (ask for the `offline_access` scope)",
                        ProviderKind::Github => " (turn on expiring user tokens in the GitHub app's settings)",
                        _ => "",
                    }
                ),
            )
        })?;
        let account = self.account_of(&endpoints, &client, &tokens).await.map_err(nothing_stored)?;
        let (granted, missing) = granted_scopes(&scopes, tokens.scope.as_deref());
        let status = if missing.is_empty() { AccountStatus::Connected } else { AccountStatus::Partial };
        let name = format!("{}:{account}", provider.name());
        let row = AccountRow {
            name: name.clone(),
            provider: provider.name().to_owned(),
            issuer: endpoints.issuer.clone(),
            account: account.clone(),
            client_id: client.client_id.clone(),
            token_endpoint: endpoints.token.clone(),
            revocation_endpoint: endpoints.revocation.clone(),
            userinfo_endpoint: endpoints.userinfo.clone(),
            scopes_requested: Json(scopes),
            scopes_granted: Json(granted.clone()),
            status,
            created_at: String::new(),
            updated_at: String::new(),
        };
        self.save(&row, &client, &refresh).await?;
        self.remember(&name, &tokens).await;
        Ok(Connected {
            name,
            provider: provider.name().to_owned(),
            account,
            scopes_granted: granted,
            scopes_missing: missing,
            status,
        })
    }

    /// Keyring first, then SQLite; a failure undoes the keyring write.
    async fn save(&self, row: &AccountRow, client: &ClientConfig, refresh: &Secret) -> Result<()> {
        let secrets = SecretStore::os()?;
        let token_account = vault::token_account(&row.name);
        vault::put(&secrets, &token_account, refresh).await?;
        let client_account = vault::client_account(&row.provider);
        let written = async {
            match &client.client_secret {
                Some(secret) => vault::put(&secrets, &client_account, secret).await?,
                None => {
                    vault::delete(&secrets, &client_account).await?;
                }
            }
            self.store.oauth().put_account(row).await?;
            self.store
                .oauth()
                .put_client(&ClientRow {
                    provider: row.provider.clone(),
                    issuer: row.issuer.clone(),
                    client_id: client.client_id.clone(),
                })
                .await
        }
        .await;
        if let Err(e) = written {
            let _ = vault::delete(&secrets, &token_account).await;
            let _ = self.store.oauth().delete_account(&row.name).await;
            return Err(e);
        }
        Ok(())
    }

    /// Who signed in: the userinfo endpoint's e-mail, login or subject, else
    /// the ID token's.
    async fn account_of(&self, endpoints: &Endpoints, client: &ClientConfig, tokens: &Tokens) -> Result<String> {
        let claims = match &endpoints.userinfo {
            Some(url) => Some(self.userinfo_at(url, &tokens.access_token).await?),
            None => tokens.id_token.as_ref().map(|t| id_token_claims(t, endpoints, client)).transpose()?,
        };
        let pick = |c: &Value| {
            ["email", "login", "preferred_username", "sub"].iter().find_map(|k| {
                c.get(*k).and_then(|v| v.as_str().map(str::to_owned).or_else(|| v.as_i64().map(|n| n.to_string())))
            })
        };
        claims.as_ref().and_then(pick).filter(|a| !a.is_empty()).ok_or_else(|| {
            Error::new(
                ErrorCode::AuthFailed,
                "the provider did not say which account signed in (no e-mail, login or subject)",
            )
        })
    }

    async fn userinfo_at(&self, url: &str, access: &Secret) -> Result<Value> {
        let fail =
            |why: String| Error::new(ErrorCode::AuthFailed, format!("the provider's user info ({url}) failed: {why}"));
        let response = self
            .http
            .get(url)
            .bearer_auth(access.expose())
            .header(http::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|e| fail(e.without_url().to_string()))?;
        let status = response.status();
        if !status.is_success() {
            return Err(fail(format!("HTTP {status}")));
        }
        let bytes = response.bytes().await.map_err(|e| fail(e.to_string()))?;
        serde_json::from_slice(&bytes).map_err(|_| fail("not JSON".to_owned()))
    }

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

    async fn row(&self, name: &str) -> Result<AccountRow> {
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

    async fn remember(&self, name: &str, tokens: &Tokens) {
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

/// The scopes granted (the token answer's `scope`, space- or, at GitHub,
/// comma-separated; absent: as asked, RFC 6749 5.1) and those asked for but
/// not granted (a partial consent).
fn granted_scopes(requested: &[String], answered: Option<&str>) -> (Vec<String>, Vec<String>) {
    let granted: Vec<String> = match answered {
        Some(s) => s.split([' ', ',']).filter(|s| !s.is_empty()).map(str::to_owned).collect(),
        None => requested.to_vec(),
    };
    let missing = requested.iter().filter(|s| !granted.contains(s)).cloned().collect();
    (granted, missing)
}

/// When to refresh: a minute before expiry, or halfway for short lifetimes.
fn live(tokens: &Tokens) -> Live {
    let lifetime = Duration::from_secs(tokens.expires_in.unwrap_or(3600));
    let margin = Duration::from_secs(60).min(lifetime / 2);
    Live { token: tokens.access_token.clone(), refresh_at: Instant::now() + lifetime - margin }
}

fn no_client(provider: ProviderKind) -> Error {
    Error::new(
        ErrorCode::NotAvailable,
        format!(
            "no OAuth client is set up for {p}: bring your own (Halley ships none), e.g. `halley auth connect --provider {p} \
             --client-id ID` (Google: `--client-file client_secret_....json`), then try again",
            p = provider.name()
        ),
    )
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

fn nothing_stored(e: Error) -> Error {
    if e.message().contains("nothing was stored") {
        return e;
    }
    Error::new(e.code(), format!("{}; nothing was stored", e.message()))
}

/// The claims of an ID token received straight from the token endpoint over
/// TLS (OpenID Connect Core 3.1.3.7: its signature may then go unchecked),
/// with its issuer and audience checked.
fn id_token_claims(token: &Secret, endpoints: &Endpoints, client: &ClientConfig) -> Result<Value> {
    let bad = |why: &str| Error::new(ErrorCode::AuthFailed, format!("the ID token is unusable: {why}"));
    let payload = token.expose().split('.').nth(1).ok_or_else(|| bad("not a JWT"))?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .map_err(|_| bad("not base64url"))?;
    let claims: Value = serde_json::from_slice(&bytes).map_err(|_| bad("not JSON"))?;
    if let Some(issuer) = &endpoints.issuer
        && claims.get("iss").and_then(Value::as_str).map(|i| i.trim_end_matches('/'))
            != Some(issuer.trim_end_matches('/'))
    {
        return Err(bad("it was issued by another issuer"));
    }
    let aud_ok = match claims.get("aud") {
        Some(Value::String(a)) => a == &client.client_id,
        Some(Value::Array(a)) => a.iter().any(|a| a.as_str() == Some(&client.client_id)),
        _ => false,
    };
    if !aud_ok {
        return Err(bad("it is meant for another client"));
    }
    Ok(claims)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn google_client_files_are_read() {
        let c = ClientConfig::from_google_json(
            r#"{"installed":{"client_id":"123.apps.googleusercontent.com","client_secret":"GOCSPX-x","redirect_uris":["http://localhost"]}}"#,
        )
        .unwrap();
        assert_eq!(c.client_id, "123.apps.googleusercontent.com");
        assert_eq!(c.client_secret.unwrap().expose(), "GOCSPX-x");
        assert_eq!(ClientConfig::from_google_json("{}").unwrap_err().code(), ErrorCode::InvalidArguments);
    }

    #[test]
    fn a_partial_consent_is_seen() {
        let asked: Vec<String> =
            ["openid", "email", "https://www.googleapis.com/auth/youtube.upload"].map(String::from).to_vec();
        let (granted, missing) = granted_scopes(&asked, Some("openid email"));
        assert_eq!(granted, ["openid", "email"]);
        assert_eq!(missing, ["https://www.googleapis.com/auth/youtube.upload"]);
        assert_eq!(granted_scopes(&asked, None), (asked.clone(), vec![]));
        let (granted, missing) = granted_scopes(&["repo".to_owned()], Some("repo,read:user"));
        assert_eq!((granted.len(), missing.len()), (2, 0));
    }

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

    #[test]
    fn id_tokens_are_checked_for_issuer_and_audience() {
        let enc = |v: Value| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string());
        let jwt = |v: Value| Secret::new(format!("h.{}.s", enc(v)));
        let endpoints = Endpoints {
            issuer: Some("https://id.example".into()),
            authorization: String::new(),
            token: String::new(),
            revocation: None,
            userinfo: None,
            iss_in_response: false,
        };
        let client = ClientConfig { client_id: "c1".into(), client_secret: None };
        let ok = jwt(serde_json::json!({"iss":"https://id.example","aud":"c1","sub":"42"}));
        assert_eq!(id_token_claims(&ok, &endpoints, &client).unwrap()["sub"], "42");
        let other = jwt(serde_json::json!({"iss":"https://evil","aud":"c1"}));
        assert!(id_token_claims(&other, &endpoints, &client).is_err());
        let aud = jwt(serde_json::json!({"iss":"https://id.example","aud":["c2"]}));
        assert!(id_token_claims(&aud, &endpoints, &client).is_err());
    }
}
