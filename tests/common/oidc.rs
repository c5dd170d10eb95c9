//! The OpenID Connect server of the OAuth tests: `oidc-provider` (npm, as
//! published) run by node from tests/peers/oidc (npm ci'd there on first
//! use), and a user at its development login and consent pages, played by
//! HTTP requests with the server's cookies.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;

/// The OpenID server; killed on drop.
pub struct OidcServer {
    pub issuer: String,
    child: Child,
}

impl Drop for OidcServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// tests/peers/oidc of the repository (this file is also included by the
/// desktop crate's tests, one directory down).
fn peer_dir() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let here = manifest.join("tests/peers/oidc");
    if here.is_dir() { here } else { manifest.join("../tests/peers/oidc") }
}

/// `npm ci` in tests/peers/oidc unless node_modules matches the lock file.
fn install() {
    static ONCE: Mutex<bool> = Mutex::new(false);
    let mut done = ONCE.lock().unwrap_or_else(|e| e.into_inner());
    if *done {
        return;
    }
    let dir = peer_dir();
    let stamp = dir.join("node_modules/.package-lock.json");
    let modified = |p: PathBuf| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    if modified(stamp) < modified(dir.join("package-lock.json")) {
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(&dir)
            .status()
            .expect("npm (nodejs) is needed for the OAuth tests: make deps");
        assert!(status.success(), "npm ci in {} failed", dir.display());
    }
    *done = true;
}

impl OidcServer {
    /// Start the server with access tokens living `access_ttl` seconds.
    pub fn start(access_ttl: u64) -> OidcServer {
        OidcServer::spawn(access_ttl, None)
    }

    /// Start the server as a provider that remembers `login` signed in and
    /// its consent given: every sign-in sends the browser straight back to
    /// the callback, no page shown (server.mjs, REMEMBERED_LOGIN).
    pub fn remembering(access_ttl: u64, login: &str) -> OidcServer {
        OidcServer::spawn(access_ttl, Some(login))
    }

    fn spawn(access_ttl: u64, remembered: Option<&str>) -> OidcServer {
        install();
        let mut child = Command::new("node")
            .arg("server.mjs")
            .arg("0")
            .arg(access_ttl.to_string())
            .args(remembered)
            .current_dir(peer_dir())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("node");
        let stdout = child.stdout.take().expect("stdout");
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).expect("the OpenID server's first line");
        let issuer = line.trim().strip_prefix("listening ").unwrap_or_else(|| panic!("unexpected: {line}")).to_owned();
        OidcServer { issuer, child }
    }

    /// The test client registered in server.mjs.
    pub const CLIENT_ID: &str = "halley-test";
}

/// What the user does at the provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Consent {
    Grant,
    Deny,
}

/// A browser with cookies, no redirect followed by itself.
pub struct User {
    http: reqwest::Client,
    cookies: BTreeMap<String, String>,
}

impl User {
    pub fn new() -> User {
        let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().expect("client");
        User { http, cookies: BTreeMap::new() }
    }

    async fn send(&mut self, req: reqwest::RequestBuilder) -> reqwest::Response {
        let cookie = self.cookies.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("; ");
        let res = req.header("cookie", cookie).send().await.expect("request to the OpenID server");
        for c in res.headers().get_all("set-cookie") {
            let c = c.to_str().unwrap_or_default();
            if let Some((name, value)) = c.split(';').next().and_then(|kv| kv.split_once('=')) {
                self.cookies.insert(name.trim().to_owned(), value.to_owned());
            }
        }
        res
    }

    /// Open `authorize_url`, sign in as `login`, grant or deny consent, and
    /// return the URL the provider sends the browser back to (the loopback
    /// callback), not yet visited.
    pub async fn sign_in(&mut self, authorize_url: &str, login: &str, consent: Consent) -> String {
        let base = url::Url::parse(authorize_url).expect("authorize URL");
        let mut next = self.send(self.http.get(authorize_url)).await;
        for _ in 0..12 {
            let location = next.headers().get("location").map(|l| l.to_str().unwrap_or_default().to_owned());
            let status = next.status();
            let Some(location) = location else { panic!("no redirect from the OpenID server: {status}") };
            let target = base.join(&location).expect("location");
            if target.path() == "/callback" {
                return target.into();
            }
            let page = self.send(self.http.get(target.clone())).await;
            if page.status().is_redirection() {
                next = page;
                continue;
            }
            let html = page.text().await.unwrap_or_default();
            let prompt = if html.contains(r#"value="login""#) { "login" } else { "consent" };
            next = match (consent, prompt) {
                (Consent::Deny, "consent") => {
                    self.send(self.http.get(format!("{}/abort", target.as_str().trim_end_matches('/')))).await
                }
                _ => {
                    let form = url::form_urlencoded::Serializer::new(String::new())
                        .extend_pairs([("prompt", prompt), ("login", login), ("password", "pw")])
                        .finish();
                    let post = self.http.post(target).header("content-type", "application/x-www-form-urlencoded");
                    self.send(post.body(form)).await
                }
            };
        }
        panic!("the sign-in did not come back to the callback");
    }
}

/// GET `url` (the loopback callback): status and body; `None` when nothing
/// listens any more.
pub async fn visit(url: &str) -> Option<(u16, String)> {
    let res = reqwest::get(url).await.ok()?;
    Some((res.status().as_u16(), res.text().await.unwrap_or_default()))
}
