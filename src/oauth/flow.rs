//! The authorization code flow of RFC 8252 (OAuth for native apps): PKCE
//! S256, a one-shot loopback listener on `127.0.0.1` (the same literal in
//! the `redirect_uri`), a single-use `state` compared in constant time, the
//! callback's `iss` checked, and the token endpoint's answers read without
//! ever putting a token in a message.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::Deserialize;
use sha2::{Digest, Sha256};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::error::{Error, ErrorCode, Result};
use crate::secrets::{Secret, same};

/// How long the listener waits for the provider's callback.
pub const CALLBACK_TIMEOUT: Duration = Duration::from_secs(5 * 60);

/// Random text from the OS: `n` v4 UUIDs (122 random bits each) as hex.
fn random_hex(n: usize) -> String {
    (0..n).map(|_| uuid::Uuid::new_v4().simple().to_string()).collect()
}

/// A PKCE pair: the verifier stays here, the S256 challenge goes in the URL.
#[derive(Debug)]
pub struct Pkce {
    pub verifier: Secret,
    pub challenge: String,
}

impl Default for Pkce {
    fn default() -> Pkce {
        Pkce::new()
    }
}

impl Pkce {
    pub fn new() -> Pkce {
        let verifier = random_hex(2);
        let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
        Pkce { verifier: Secret::new(verifier), challenge }
    }
}

/// A fresh `state`.
pub fn new_state() -> Secret {
    Secret::new(random_hex(1))
}

/// What a callback must carry to be the one awaited.
#[derive(Debug)]
pub struct Expect {
    pub state: Secret,
    /// The issuer the callback's `iss` must name.
    pub issuer: Option<String>,
    /// The provider always sends `iss`: a callback without it is refused.
    pub iss_required: bool,
}

/// The one-shot loopback listener.
#[derive(Debug)]
pub struct Listener {
    listener: TcpListener,
    pub redirect_uri: String,
}

impl Listener {
    /// Listen on a free port of 127.0.0.1.
    pub async fn bind() -> Result<Listener> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await.map_err(|e| {
            Error::new(ErrorCode::Io, "cannot listen on 127.0.0.1 for the sign-in callback").with_source(e)
        })?;
        let port = listener.local_addr().map_err(|e| Error::new(ErrorCode::Io, e.to_string()))?.port();
        Ok(Listener { listener, redirect_uri: format!("http://127.0.0.1:{port}/callback") })
    }

    /// Answer callbacks from now on, in a task of its own: the provider
    /// may send the browser straight back (a returning user whose consent
    /// it remembers) while the caller is still opening the sign-in page,
    /// and that page's load must not wait for [`Callback::wait`]. The task
    /// takes the callback carrying `expect.state`, answers the browser and
    /// closes; callbacks with another `state` get an error page and are
    /// ignored. Dropping the [`Callback`] stops it.
    pub fn answer(self, expect: Expect) -> Callback {
        let refused = Arc::new(AtomicU32::new(0));
        let counted = Arc::clone(&refused);
        let task = tokio::spawn(async move { self.take(&expect, &counted).await });
        Callback { task, refused }
    }

    /// The accept loop: the awaited callback's verdict (the code, or why the
    /// sign-in failed).
    async fn take(self, expect: &Expect, refused: &AtomicU32) -> Result<Secret> {
        loop {
            let Ok((mut stream, _)) = self.listener.accept().await else { continue };
            let Some(query) = read_request(&mut stream).await else {
                respond(&mut stream, 404, PAGE_NOT_FOUND).await;
                continue;
            };
            let params: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes()).into_owned().collect();
            let get = |k: &str| params.iter().find(|(key, _)| key == k).map(|(_, v)| v.as_str());
            let state_ok = get("state").is_some_and(|s| same(s.as_bytes(), expect.state.expose().as_bytes()));
            if !state_ok {
                refused.fetch_add(1, Ordering::Relaxed);
                respond(&mut stream, 400, PAGE_WRONG_STATE).await;
                continue;
            }
            // The awaited callback: whatever it says, the listener closes.
            let outcome = judge(expect, get("iss"), get("error"), get("error_description"), get("code"));
            match &outcome {
                Ok(_) => respond(&mut stream, 200, PAGE_DONE).await,
                Err(_) => respond(&mut stream, 400, PAGE_FAILED).await,
            }
            return outcome;
        }
    }
}

/// The loopback listener answering in its own task ([`Listener::answer`]).
#[derive(Debug)]
pub struct Callback {
    task: tokio::task::JoinHandle<Result<Secret>>,
    refused: Arc<AtomicU32>,
}

impl Callback {
    /// The callback's verdict: the authorization code, or why the sign-in
    /// failed; a timeout after `timeout` (counted from this call, so the
    /// time the user took to approve the sign-in is not taken from it).
    pub async fn wait(mut self, timeout: Duration) -> Result<Secret> {
        match tokio::time::timeout(timeout, &mut self.task).await {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(e)) => Err(Error::internal("the sign-in's listener stopped").with_source(e)),
            Err(_) => {
                let also = match self.refused.load(Ordering::Relaxed) {
                    0 => String::new(),
                    n => format!(" ({n} callback(s) with a wrong `state` were refused)"),
                };
                Err(Error::new(
                    ErrorCode::Timeout,
                    format!(
                        "the sign-in did not come back within {} s{also}; nothing was stored: start again",
                        timeout.as_secs()
                    ),
                ))
            }
        }
    }
}

impl Drop for Callback {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The verdict on the callback with the right `state`.
fn judge(
    expect: &Expect,
    iss: Option<&str>,
    error: Option<&str>,
    description: Option<&str>,
    code: Option<&str>,
) -> Result<Secret> {
    match (iss, &expect.issuer) {
        (Some(iss), Some(issuer)) if iss.trim_end_matches('/') != issuer.trim_end_matches('/') => {
            return Err(Error::new(
                ErrorCode::AuthFailed,
                format!(
                    "the sign-in callback names the issuer `{iss}`, not `{issuer}` (a mix-up attack?); nothing was stored"
                ),
            ));
        }
        (None, Some(_)) if expect.iss_required => {
            return Err(Error::new(
                ErrorCode::AuthFailed,
                "the sign-in callback has no `iss` although the provider always sends one; nothing was stored",
            ));
        }
        _ => {}
    }
    let clean = |s: &str| s.chars().filter(|c| !c.is_control()).take(300).collect::<String>();
    if let Some(error) = error {
        let why = description.map(|d| format!(": {}", clean(d))).unwrap_or_default();
        let (code, what) = match error {
            "access_denied" => (ErrorCode::Denied, "the sign-in was declined at the provider".to_owned()),
            other => (ErrorCode::AuthFailed, format!("the provider refused the sign-in ({})", clean(other))),
        };
        return Err(Error::new(code, format!("{what}{why}; nothing was stored")));
    }
    match code {
        Some(code) if !code.is_empty() => Ok(Secret::new(code)),
        _ => Err(Error::new(ErrorCode::AuthFailed, "the sign-in callback carries no code; nothing was stored")),
    }
}

/// The query of a `GET /callback` request, `None` for anything else.
async fn read_request(stream: &mut TcpStream) -> Option<String> {
    let mut buf = Vec::with_capacity(2048);
    let mut chunk = [0u8; 2048];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut chunk)).await.ok()?.ok()?;
        if n == 0 || buf.len() > 16 * 1024 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let head = String::from_utf8_lossy(&buf);
    let target = head.lines().next()?.strip_prefix("GET ")?.split(' ').next()?;
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    (path == "/callback").then(|| query.to_owned())
}

async fn respond(stream: &mut TcpStream, status: u16, body: &str) {
    let reason = match status {
        200 => "OK",
        404 => "Not Found",
        _ => "Bad Request",
    };
    let page = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Halley</title></head>\
         <body style=\"font-family:sans-serif;margin:3em\">{body}</body></html>"
    );
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nReferrer-Policy: no-referrer\r\nConnection: close\r\n\r\n",
        page.len()
    );
    let _ = stream.write_all(head.as_bytes()).await;
    let _ = stream.write_all(page.as_bytes()).await;
    let _ = stream.shutdown().await;
}

const PAGE_DONE: &str = "<h1>Halley: signed in</h1><p>You can close this tab.</p>\
     <p lang=\"vi\">Đã đăng nhập. Bạn có thể đóng thẻ này.</p>";
const PAGE_FAILED: &str = "<h1>Halley: the sign-in failed</h1><p>Halley says why. You can close this tab.</p>\
     <p lang=\"vi\">Đăng nhập không thành công. Bạn có thể đóng thẻ này.</p>";
const PAGE_WRONG_STATE: &str = "<h1>Halley: not the sign-in Halley is waiting for</h1>\
     <p>This link does not match the sign-in Halley started; it was ignored.</p>\
     <p lang=\"vi\">Liên kết này không khớp với lần đăng nhập Halley đã bắt đầu.</p>";
const PAGE_NOT_FOUND: &str = "<h1>Not found</h1>";

/// A token endpoint's answer. `Debug` shows no token.
#[derive(Debug, Deserialize)]
pub struct Tokens {
    #[serde(deserialize_with = "secret")]
    pub access_token: Secret,
    #[serde(default, deserialize_with = "opt_secret")]
    pub refresh_token: Option<Secret>,
    #[serde(default)]
    pub expires_in: Option<u64>,
    #[serde(default)]
    pub scope: Option<String>,
    #[serde(default, deserialize_with = "opt_secret")]
    pub id_token: Option<Secret>,
}

fn secret<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Secret, D::Error> {
    String::deserialize(d).map(Secret::new)
}

fn opt_secret<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Option<Secret>, D::Error> {
    Ok(Option::<String>::deserialize(d)?.filter(|s| !s.is_empty()).map(Secret::new))
}

/// A token request that failed: the OAuth `error` when the provider sent one.
#[derive(Debug)]
pub struct TokenFailure {
    pub oauth_error: Option<String>,
    pub error: Error,
}

#[derive(Deserialize)]
struct OAuthError {
    error: String,
    #[serde(default)]
    error_description: Option<String>,
}

/// POST `form` to the token endpoint and read the tokens.
pub async fn token_request(
    http: &reqwest::Client,
    endpoint: &str,
    form: &[(&str, &str)],
) -> std::result::Result<Tokens, TokenFailure> {
    let fail = |oauth_error: Option<String>, message: String| TokenFailure {
        oauth_error,
        error: Error::new(ErrorCode::AuthFailed, message),
    };
    let body = url::form_urlencoded::Serializer::new(String::new()).extend_pairs(form).finish();
    let response = http
        .post(endpoint)
        .header(http::header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header(http::header::ACCEPT, "application/json")
        .body(body)
        .send()
        .await
        .map_err(|e| fail(None, format!("the token endpoint {endpoint} cannot be reached: {e}")))?;
    let status = response.status();
    let bytes =
        response.bytes().await.map_err(|e| fail(None, format!("the token endpoint's answer broke off: {e}")))?;
    // GitHub answers errors with HTTP 200 and an `error` field.
    if let Ok(err) = serde_json::from_slice::<OAuthError>(&bytes) {
        let why = err.error_description.map(|d| format!(": {}", d.chars().take(300).collect::<String>()));
        let message = format!("the provider refused the token request ({}{})", err.error, why.unwrap_or_default());
        return Err(fail(Some(err.error), message));
    }
    if !status.is_success() {
        return Err(fail(None, format!("the token endpoint answered HTTP {status}")));
    }
    serde_json::from_slice(&bytes)
        .map_err(|_| fail(None, "the token endpoint's answer has no usable access token".to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expect(issuer: Option<&str>, iss_required: bool) -> Expect {
        Expect { state: Secret::new("s1"), issuer: issuer.map(str::to_owned), iss_required }
    }

    #[test]
    fn pkce_is_s256_of_the_verifier() {
        let p = Pkce::new();
        assert!((43..=128).contains(&p.verifier.expose().len()));
        assert_eq!(p.challenge, URL_SAFE_NO_PAD.encode(Sha256::digest(p.verifier.expose().as_bytes())));
        assert_ne!(Pkce::new().challenge, p.challenge);
        assert_ne!(new_state(), new_state());
    }

    #[test]
    fn callbacks_are_judged() {
        let e = expect(Some("http://127.0.0.1:1"), true);
        assert_eq!(judge(&e, Some("http://127.0.0.1:1"), None, None, Some("c")).unwrap().expose(), "c");
        let wrong = judge(&e, Some("http://evil"), None, None, Some("c")).unwrap_err();
        assert_eq!(wrong.code(), ErrorCode::AuthFailed);
        assert!(wrong.message().contains("mix-up"), "{}", wrong.message());
        assert_eq!(judge(&e, None, None, None, Some("c")).unwrap_err().code(), ErrorCode::AuthFailed);
        assert!(judge(&expect(Some("x"), false), None, None, None, Some("c")).is_ok());
        let denied = judge(&e, Some("http://127.0.0.1:1"), Some("access_denied"), Some("no\u{7}"), None).unwrap_err();
        assert_eq!(denied.code(), ErrorCode::Denied);
        assert!(denied.message().contains("declined"), "{}", denied.message());
        assert_eq!(judge(&e, Some("http://127.0.0.1:1"), None, None, None).unwrap_err().code(), ErrorCode::AuthFailed);
    }

    #[test]
    fn token_answers_never_show_tokens() {
        let t: Tokens =
            serde_json::from_str(r#"{"access_token":"at-123","refresh_token":"rt-456","expires_in":60}"#).unwrap();
        let shown = format!("{t:?}");
        assert!(!shown.contains("at-123") && !shown.contains("rt-456"), "{shown}");
    }
}
