//! Signing in: the authorization URL with PKCE ([`OAuth::begin`]), then the
//! callback, the code exchange, who signed in and what was granted, saved
//! with the refresh token in the keyring ([`OAuth::finish`]).

use std::time::Duration;

use base64::Engine as _;
use serde::Serialize;
use serde_json::Value;
use sqlx::types::Json;

use super::flow::{self, Callback, Expect, Listener, Pkce, Tokens, token_request};
use super::provider::{self, Endpoints, ProviderKind};
use super::request::{ClientConfig, ConnectRequest};
use super::{AccountRow, AccountStatus, OAuth, vault};
use crate::error::{Error, ErrorCode, Result};
use crate::secrets::{Secret, SecretStore};
use crate::store::oauth::ClientRow;

/// A sign-in under way: open `authorize_url` in the browser, then
/// [`OAuth::finish`].
#[derive(Debug)]
pub struct Pending {
    pub authorize_url: String,
    pub provider: ProviderKind,
    pub scopes: Vec<String>,
    endpoints: Endpoints,
    client: ClientConfig,
    redirect_uri: String,
    /// Answering from [`OAuth::begin`] on, so a provider that redirects at
    /// once is answered while the page is still being opened.
    callback: Callback,
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

impl OAuth {
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
        let redirect_uri = listener.redirect_uri.clone();
        Ok(Pending {
            authorize_url: url.into(),
            provider: req.provider,
            scopes,
            endpoints,
            client,
            redirect_uri,
            callback: listener.answer(expect),
            pkce,
            timeout: req.timeout,
        })
    }

    /// Wait for the callback, exchange the code, find the account and save
    /// it: the refresh token in the keyring, the rest in SQLite. Nothing is
    /// stored when any step fails.
    pub async fn finish(&self, pending: Pending) -> Result<Connected> {
        let Pending { provider, scopes, endpoints, client, redirect_uri, callback, pkce, timeout, .. } = pending;
        let code = callback.wait(timeout).await?;
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

    pub(super) async fn userinfo_at(&self, url: &str, access: &Secret) -> Result<Value> {
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
