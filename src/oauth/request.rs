//! What to connect: the OAuth client the user brought ([`ClientConfig`]) and
//! a checked [`ConnectRequest`].

use std::time::Duration;

use serde_json::Value;

use super::provider::ProviderKind;
use crate::error::{Error, Result};
use crate::secrets::Secret;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

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
}
