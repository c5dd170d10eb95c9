//! Providers: presets for Google, GitHub and Microsoft, and any OpenID
//! Connect issuer found by discovery. Scopes written short for Google
//! (`youtube.upload`) become the full scope URL.

use serde::Deserialize;

use crate::error::{Error, ErrorCode, Result};

/// The kinds of provider Halley knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderKind {
    Google,
    Github,
    Microsoft,
    /// Any OpenID Connect issuer, by its discovery document.
    Oidc,
}

impl ProviderKind {
    pub const NAMES: [&str; 4] = ["google", "github", "microsoft", "oidc"];

    pub fn parse(name: &str) -> Result<ProviderKind> {
        match name.trim().to_ascii_lowercase().as_str() {
            "google" => Ok(Self::Google),
            "github" => Ok(Self::Github),
            "microsoft" => Ok(Self::Microsoft),
            "oidc" => Ok(Self::Oidc),
            other => Err(Error::invalid_arguments(format!(
                "unknown OAuth provider `{other}`: use one of {}",
                Self::NAMES.join(", ")
            ))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Google => "google",
            Self::Github => "github",
            Self::Microsoft => "microsoft",
            Self::Oidc => "oidc",
        }
    }

    /// The scopes asked for when the user names none.
    pub fn default_scopes(self) -> Vec<String> {
        let scopes: &[&str] = match self {
            Self::Google | Self::Microsoft => &["openid", "email"],
            Self::Github => &["read:user"],
            Self::Oidc => &["openid", "email", "offline_access"],
        };
        scopes.iter().map(|s| (*s).to_owned()).collect()
    }

    /// `scopes` as the provider spells them: Google's short names get their
    /// URL (`youtube.upload` -> `https://www.googleapis.com/auth/youtube.upload`);
    /// Microsoft needs `offline_access` for a refresh token. Duplicates dropped.
    pub fn expand_scopes(self, scopes: &[String]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut push = |s: String| {
            if !s.is_empty() && !out.contains(&s) {
                out.push(s);
            }
        };
        for scope in scopes.iter().flat_map(|s| s.split_whitespace()) {
            match self {
                Self::Google if !matches!(scope, "openid" | "email" | "profile") && !scope.contains(':') => {
                    push(format!("https://www.googleapis.com/auth/{scope}"));
                }
                _ => push(scope.to_owned()),
            }
        }
        if self == Self::Microsoft {
            push("offline_access".to_owned());
        }
        out
    }
}

/// Where a provider's endpoints are and what it promises.
#[derive(Debug, Clone, PartialEq)]
pub struct Endpoints {
    /// The issuer, checked against the callback's `iss` when the provider sends one.
    pub issuer: Option<String>,
    pub authorization: String,
    pub token: String,
    pub revocation: Option<String>,
    pub userinfo: Option<String>,
    /// The provider always sends `iss` in the callback (RFC 9207): a
    /// callback without it is refused.
    pub iss_in_response: bool,
}

impl Endpoints {
    /// The endpoints of a preset; an OpenID issuer needs [`discover`].
    pub fn preset(kind: ProviderKind) -> Option<Endpoints> {
        let e = |issuer: Option<&str>, authorization: &str, token: &str, revocation: Option<&str>, userinfo: &str| {
            Endpoints {
                issuer: issuer.map(str::to_owned),
                authorization: authorization.to_owned(),
                token: token.to_owned(),
                revocation: revocation.map(str::to_owned),
                userinfo: Some(userinfo.to_owned()),
                iss_in_response: false,
            }
        };
        match kind {
            ProviderKind::Google => Some(e(
                Some("https://accounts.google.com"),
                "https://accounts.google.com/o/oauth2/v2/auth",
                "https://oauth2.googleapis.com/token",
                Some("https://oauth2.googleapis.com/revoke"),
                "https://openidconnect.googleapis.com/v1/userinfo",
            )),
            // GitHub revokes a grant only with the client's secret
            // (`DELETE /applications/{id}/grant`): not offered to a desktop app.
            ProviderKind::Github => Some(e(
                None,
                "https://github.com/login/oauth/authorize",
                "https://github.com/login/oauth/access_token",
                None,
                "https://api.github.com/user",
            )),
            // Microsoft has no revocation endpoint; `common` sends a
            // per-tenant issuer, so `iss` is not compared.
            ProviderKind::Microsoft => Some(e(
                None,
                "https://login.microsoftonline.com/common/oauth2/v2.0/authorize",
                "https://login.microsoftonline.com/common/oauth2/v2.0/token",
                None,
                "https://graph.microsoft.com/oidc/userinfo",
            )),
            ProviderKind::Oidc => None,
        }
    }
}

#[derive(Deserialize)]
struct Discovery {
    issuer: String,
    authorization_endpoint: String,
    token_endpoint: String,
    #[serde(default)]
    revocation_endpoint: Option<String>,
    #[serde(default)]
    userinfo_endpoint: Option<String>,
    #[serde(default)]
    authorization_response_iss_parameter_supported: bool,
    #[serde(default)]
    code_challenge_methods_supported: Option<Vec<String>>,
}

/// The trimmed issuer URL, without a trailing slash.
pub fn normalize_issuer(issuer: &str) -> Result<String> {
    let issuer = issuer.trim().trim_end_matches('/');
    let url = url::Url::parse(issuer)
        .map_err(|e| Error::invalid_arguments(format!("the issuer `{issuer}` is not a URL: {e}")))?;
    let loopback = matches!(url.host_str(), Some("127.0.0.1" | "localhost" | "[::1]"));
    if url.scheme() != "https" && !(url.scheme() == "http" && loopback) {
        return Err(Error::invalid_arguments(format!(
            "the issuer `{issuer}` must be an https URL (plain http only on this machine)"
        )));
    }
    Ok(issuer.to_owned())
}

/// Read the issuer's discovery document (`/.well-known/openid-configuration`).
pub async fn discover(http: &reqwest::Client, issuer: &str) -> Result<Endpoints> {
    let issuer = normalize_issuer(issuer)?;
    let url = format!("{issuer}/.well-known/openid-configuration");
    let fail = |why: String| Error::new(ErrorCode::AuthFailed, format!("OpenID discovery at {url} failed: {why}"));
    let response = http.get(&url).send().await.map_err(|e| fail(e.to_string()))?;
    let status = response.status();
    if !status.is_success() {
        return Err(fail(format!("HTTP {status}")));
    }
    let body = response.bytes().await.map_err(|e| fail(e.to_string()))?;
    let doc: Discovery =
        serde_json::from_slice(&body).map_err(|e| fail(format!("not an OpenID configuration ({e})")))?;
    if doc.issuer.trim_end_matches('/') != issuer {
        return Err(fail(format!("it names the issuer `{}`, not `{issuer}`", doc.issuer)));
    }
    if let Some(methods) = &doc.code_challenge_methods_supported
        && !methods.iter().any(|m| m == "S256")
    {
        return Err(fail("the provider does not support PKCE with S256".to_owned()));
    }
    Ok(Endpoints {
        issuer: Some(doc.issuer),
        authorization: doc.authorization_endpoint,
        token: doc.token_endpoint,
        revocation: doc.revocation_endpoint,
        userinfo: doc.userinfo_endpoint,
        iss_in_response: doc.authorization_response_iss_parameter_supported,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn google_scopes_written_short_get_their_url() {
        assert_eq!(
            ProviderKind::Google.expand_scopes(&v(&["youtube.upload", "openid", "email", "email"])),
            v(&["https://www.googleapis.com/auth/youtube.upload", "openid", "email"])
        );
        assert_eq!(
            ProviderKind::Google.expand_scopes(&v(&["https://www.googleapis.com/auth/drive.file"])),
            v(&["https://www.googleapis.com/auth/drive.file"])
        );
        assert_eq!(ProviderKind::Oidc.expand_scopes(&v(&["openid email"])), v(&["openid", "email"]));
        assert_eq!(ProviderKind::Microsoft.expand_scopes(&v(&["User.Read"])), v(&["User.Read", "offline_access"]));
    }

    #[test]
    fn providers_and_issuers_are_checked() {
        assert_eq!(ProviderKind::parse("Google").unwrap(), ProviderKind::Google);
        assert_eq!(ProviderKind::parse("yahoo").unwrap_err().code(), ErrorCode::InvalidArguments);
        assert_eq!(normalize_issuer("http://127.0.0.1:9000/").unwrap(), "http://127.0.0.1:9000");
        assert!(normalize_issuer("http://example.com").is_err());
        assert!(normalize_issuer("not a url").is_err());
        assert!(Endpoints::preset(ProviderKind::Google).unwrap().revocation.is_some());
    }
}
