//! OAuth connect (issue #16) against a real OpenID Connect server
//! (`oidc-provider`, tests/common/oidc.rs) with a native public client, PKCE
//! required and short-lived access tokens: the CLI connects, the refresh
//! token is in the Secret Service (read back with `secret-tool`), access
//! tokens are refreshed after expiry, a rotated refresh token is kept, a
//! reused one marks the account "needs reconnecting", disconnect revokes
//! and deletes; every failed sign-in stores nothing. Token strings never
//! reach the data directory or the CLI's output.

use std::process::Stdio;
use std::time::Duration;

use pretty_assertions::assert_eq;
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::common::browser::OwnChrome;
use crate::common::oidc::{Consent, OidcServer, User, visit};
use crate::common::{Halley, Run, files_containing, in_session, secret_tool_lookup};

/// A login of its own per test: the session's keyring is shared by the tests.
pub(super) fn login() -> (String, String) {
    let login = format!("u{}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
    let name = format!("oidc:{login}@example.test");
    (login, name)
}

/// A test's OpenID server (access tokens living `ttl` seconds), its own
/// Halley and login; `None` outside a test session (no keyring).
struct Signed {
    server: OidcServer,
    h: Halley,
    who: String,
    name: String,
}

fn signed(ttl: u64) -> Option<Signed> {
    if !in_session() {
        return None;
    }
    let (who, name) = login();
    Some(Signed { server: OidcServer::start(ttl), h: Halley::new(), who, name })
}

/// `halley auth connect --provider oidc ...` started; the sign-in URL it prints.
pub(super) struct Connect {
    child: tokio::process::Child,
    pub(super) url: String,
    /// The rest of stderr, read on while the sign-in goes on.
    stderr: tokio::task::JoinHandle<String>,
}

pub(super) async fn connect(h: &Halley, issuer: &str, extra: &[&str], env: &[(&str, &str)]) -> Result<Connect, Run> {
    let data = h.data_dir();
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_halley"));
    cmd.arg("--data-dir").arg(&data);
    cmd.args(["auth", "connect", "--provider", "oidc", "--issuer", issuer, "--client-id", OidcServer::CLIENT_ID]);
    cmd.args(["--no-browser", "--json"]).args(extra).envs(env.iter().copied());
    if !extra.contains(&"--confirm") {
        cmd.arg("--yes");
    }
    cmd.env_remove("HALLEY_DATA_DIR").stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true);
    let mut child = cmd.spawn().expect("halley");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let mut seen = String::new();
    while let Ok(Some(line)) = lines.next_line().await {
        if let Some(url) = line.strip_prefix("Sign in at oidc: ") {
            let url = url.to_owned();
            let stderr = tokio::spawn(async move {
                while let Ok(Some(line)) = lines.next_line().await {
                    seen.push_str(&line);
                    seen.push('\n');
                }
                seen
            });
            return Ok(Connect { child, url, stderr });
        }
        seen.push_str(&line);
        seen.push('\n');
    }
    let out = child.wait_with_output().await.expect("wait");
    Err(Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into(),
        stderr: seen,
    })
}

impl Connect {
    pub(super) async fn finish(self) -> Run {
        let out = tokio::time::timeout(Duration::from_secs(30), self.child.wait_with_output())
            .await
            .expect("halley auth connect ends")
            .expect("wait");
        let stderr = self.stderr.await.expect("stderr");
        Run { code: out.status.code().unwrap_or(-1), stdout: String::from_utf8_lossy(&out.stdout).into(), stderr }
    }
}

fn nothing_stored(h: &Halley, name: &str) {
    let list = h.run(&["auth", "list", "--json"]);
    assert_eq!(list.code, 0, "{list:?}");
    assert_eq!(list.json(), serde_json::json!([]), "{list:?}");
    assert_eq!(secret_tool_lookup(&format!("oauth:{name}")), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_connect_keeps_the_refresh_token_in_the_keyring_refreshes_rotates_and_disconnects() {
    let Some(Signed { server, h, who, name }) = signed(4) else {
        return;
    };
    let (who, acct) = (who.as_str(), name.as_str());
    let mut outputs = Vec::new();

    let pending = connect(&h, &server.issuer, &[], &[]).await.expect("a sign-in URL");
    assert!(pending.url.contains("code_challenge_method=S256"), "{}", pending.url);
    assert!(pending.url.contains("redirect_uri=http%3A%2F%2F127.0.0.1%3A"), "{}", pending.url);
    let callback = User::new().sign_in(&pending.url, who, Consent::Grant).await;
    let (status, page) = visit(&callback).await.expect("the listener answers");
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("You can close this tab"), "{page}");
    let done = pending.finish().await;
    assert_eq!(done.code, 0, "{done:?}");
    let connected = done.json();
    assert_eq!(connected["name"], acct);
    assert_eq!(connected["status"], "connected");
    let mut granted: Vec<&str> =
        connected["scopes_granted"].as_array().expect("scopes").iter().filter_map(|s| s.as_str()).collect();
    granted.sort_unstable();
    assert_eq!(granted, ["email", "offline_access", "openid"]);
    // The listener closed after the first valid callback: a replay finds nobody.
    assert_eq!(visit(&callback).await, None);
    outputs.push(done);

    let list = h.run(&["auth", "list", "--json"]);
    assert_eq!(list.code, 0, "{list:?}");
    assert_eq!(list.json()[0]["name"], acct);
    assert_eq!(list.json()[0]["status"], "connected");
    let first = secret_tool_lookup(&format!("oauth:{acct}")).expect("the refresh token in the Secret Service");
    assert!(first.len() > 20, "{first}");
    outputs.push(list);

    // A call that needs an access token: refreshed from the keyring's token,
    // which the server rotates; the new one replaces the old.
    let check = h.run(&["auth", "check", acct]);
    assert_eq!(check.code, 0, "{check:?}");
    assert!(check.stdout.contains(&format!("signed in as {who}@example.test")), "{check:?}");
    let second = secret_tool_lookup(&format!("oauth:{acct}")).expect("rotated");
    assert_ne!(first, second);
    outputs.push(check);

    // In one process: the access token is kept while valid, then refreshed.
    let core = halley::host::open_core(halley::paths::DataDir::at(h.data_dir())).await.expect("core");
    let a = core.oauth().access_token(acct).await.expect("access token");
    assert_eq!(core.oauth().access_token(acct).await.expect("same"), a);
    tokio::time::sleep(Duration::from_secs(3)).await;
    let b = core.oauth().access_token(acct).await.expect("refreshed after expiry");
    assert_ne!(a, b);
    assert_eq!(core.oauth().userinfo(acct).await.expect("userinfo")["email"], format!("{who}@example.test"));
    let third = secret_tool_lookup(&format!("oauth:{acct}")).expect("rotated again");
    assert_ne!(third, second);
    // Two refreshes at once: one refresh, one token.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let (c, d) = tokio::join!(core.oauth().access_token(acct), core.oauth().access_token(acct));
    assert_eq!(c.expect("c"), d.expect("d"));
    let tokens = [a.expose().to_owned(), b.expose().to_owned(), first.clone(), second.clone(), third.clone()];
    drop(core);

    // An old refresh token used elsewhere: the server revokes the grant, and
    // the account needs reconnecting.
    let reuse = reqwest::Client::new()
        .post(format!("{}/token", server.issuer))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!("grant_type=refresh_token&client_id={}&refresh_token={first}", OidcServer::CLIENT_ID))
        .send()
        .await
        .expect("token endpoint");
    assert_eq!(reuse.status().as_u16(), 400);
    let check = h.run(&["auth", "check", acct]);
    assert_eq!(check.code, 1, "{check:?}");
    assert!(check.stderr.contains("[auth_failed]") && check.stderr.contains("needs reconnecting"), "{check:?}");
    assert_eq!(h.run(&["auth", "list", "--json"]).json()[0]["status"], "needs_reconnect");
    outputs.push(check);

    let gone = h.run(&["auth", "disconnect", acct]);
    assert_eq!(gone.code, 0, "{gone:?}");
    assert!(gone.stdout.contains("keyring entry deleted"), "{gone:?}");
    outputs.push(gone);
    nothing_stored(&h, acct);
    let again = h.run(&["auth", "disconnect", acct]);
    assert_eq!(again.code, 1, "{again:?}");
    assert!(again.stderr.contains("no OAuth account"), "{again:?}");

    for token in tokens.iter().map(|t| t.trim()) {
        assert_eq!(files_containing(&h.data_dir(), token), Vec::<String>::new(), "a token in the data dir");
        for run in &outputs {
            assert!(!run.stdout.contains(token) && !run.stderr.contains(token), "a token printed: {run:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_sign_ins_say_why_and_store_nothing() {
    let Some(Signed { server, h, who, name }) = signed(60) else {
        return;
    };
    let (who, acct) = (who.as_str(), name.as_str());

    // A callback with another `state` is refused; the real one never comes.
    let pending = connect(&h, &server.issuer, &["--timeout", "3"], &[]).await.expect("url");
    let callback = User::new().sign_in(&pending.url, who, Consent::Grant).await;
    let forged = regex::Regex::new("state=[^&]+").expect("re").replace(&callback, "state=forged").into_owned();
    let (status, page) = visit(&forged).await.expect("the listener answers");
    assert_eq!(status, 400);
    assert!(page.contains("not the sign-in Halley is waiting for"), "{page}");
    let run = pending.finish().await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("[timeout]") && run.stderr.contains("wrong `state`"), "{run:?}");
    assert_eq!(visit(&callback).await, None, "the listener closed after its time");
    nothing_stored(&h, acct);

    // A callback naming another issuer (a mix-up).
    let pending = connect(&h, &server.issuer, &[], &[]).await.expect("url");
    let callback = User::new().sign_in(&pending.url, who, Consent::Grant).await;
    let mixed = regex::Regex::new("iss=[^&]+").expect("re").replace(&callback, "iss=https%3A%2F%2Fevil.example");
    let (status, _) = visit(&mixed).await.expect("answers");
    assert_eq!(status, 400);
    let run = pending.finish().await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("[auth_failed]") && run.stderr.contains("mix-up"), "{run:?}");
    nothing_stored(&h, acct);

    // The user declines consent.
    let pending = connect(&h, &server.issuer, &[], &[]).await.expect("url");
    let callback = User::new().sign_in(&pending.url, who, Consent::Deny).await;
    assert!(callback.contains("error=access_denied"), "{callback}");
    let (status, page) = visit(&callback).await.expect("answers");
    assert_eq!(status, 400);
    assert!(page.contains("You can close this tab"), "{page}");
    let run = pending.finish().await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("[denied]") && run.stderr.contains("declined"), "{run:?}");
    nothing_stored(&h, acct);

    // No keyring: a clear error before any sign-in starts.
    let none = connect(&h, &server.issuer, &[], &[("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus")]).await;
    let run = none.err().expect("no sign-in URL without a keyring");
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("[keyring]") && run.stderr.contains("plain text"), "{run:?}");
    nothing_stored(&h, acct);

    // Asked first like the tool: refused, nothing stored, the refusal audited.
    let refused = connect(&h, &server.issuer, &["--confirm", "deny"], &[]).await;
    let run = refused.err().expect("refused before any sign-in URL is shown");
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("[denied]"), "{run:?}");
    nothing_stored(&h, acct);
    let audit = h.run(&["audit", "--json"]);
    assert!(audit.stdout.contains("auth_oauth_connect"), "{audit:?}");

    // Usage errors.
    let bad = h.run(&["auth", "connect", "--provider", "yahoo", "--client-id", "x"]);
    assert_eq!(bad.code, 2, "{bad:?}");
    assert!(bad.stderr.contains("unknown OAuth provider"), "{bad:?}");
    let no_client = h.run(&["auth", "connect", "--provider", "google", "--no-browser"]);
    assert_eq!(no_client.code, 1, "{no_client:?}");
    assert!(no_client.stderr.contains("no OAuth client is set up for google"), "{no_client:?}");
    nothing_stored(&h, acct);
}

/// A code that is not this sign-in's own reaches the listener with the right
/// `state` (an injected code, or one already redeemed): the provider refuses
/// the exchange because the code was issued for another PKCE challenge or
/// was already used, and Halley says so and stores nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_injected_or_reused_code_is_refused_at_the_exchange_and_nothing_is_stored() {
    let Some(Signed { server, h, who, name }) = signed(60) else {
        return;
    };
    let (who, acct) = (who.as_str(), name.as_str());
    let code_of = |callback: &str| {
        let re = regex::Regex::new("code=([^&]+)").expect("re");
        re.captures(callback).expect("a code in the callback")[1].to_owned()
    };
    let with_code = |callback: &str, code: &str| {
        regex::Regex::new("code=[^&]+").expect("re").replace(callback, format!("code={code}")).into_owned()
    };
    let refused = |run: &Run| {
        assert_eq!(run.code, 1, "{run:?}");
        assert!(run.stderr.contains("[auth_failed]") && run.stderr.contains("invalid_grant"), "{run:?}");
        assert!(run.stderr.contains("nothing was stored"), "{run:?}");
    };

    // Another sign-in's code (its PKCE verifier is not this one's).
    let first = connect(&h, &server.issuer, &[], &[]).await.expect("url");
    let first_callback = User::new().sign_in(&first.url, who, Consent::Grant).await;
    let second = connect(&h, &server.issuer, &[], &[]).await.expect("url");
    let second_callback = User::new().sign_in(&second.url, who, Consent::Grant).await;
    let injected = with_code(&second_callback, &code_of(&first_callback));
    visit(&injected).await.expect("the listener answers");
    refused(&second.finish().await);
    nothing_stored(&h, acct);
    drop(first);

    // A code already redeemed: a sign-in completes, then its code is
    // delivered to a new sign-in.
    let done = connect(&h, &server.issuer, &[], &[]).await.expect("url");
    let done_callback = User::new().sign_in(&done.url, who, Consent::Grant).await;
    visit(&done_callback).await.expect("the listener answers");
    assert_eq!(done.finish().await.code, 0);
    let disconnect = h.run(&["auth", "disconnect", acct]);
    assert_eq!(disconnect.code, 0, "{disconnect:?}");
    let again = connect(&h, &server.issuer, &[], &[]).await.expect("url");
    let again_callback = User::new().sign_in(&again.url, who, Consent::Grant).await;
    visit(&with_code(&again_callback, &code_of(&done_callback))).await.expect("the listener answers");
    refused(&again.finish().await);
    nothing_stored(&h, acct);
}

/// The tool is available, gated as SUBMIT and always confirmed: refused
/// with `--confirm deny`, nothing opened or stored.
#[test]
fn the_tool_asks_first_and_a_refusal_stores_nothing() {
    if !in_session() {
        return;
    }
    let h = Halley::new();
    let show = h.run(&["tools", "show", "auth_oauth_connect"]);
    assert_eq!(show.code, 0, "{show:?}");
    assert!(show.stdout.contains("available"), "{show:?}");
    let args = serde_json::json!({"provider": "google", "scopes": ["youtube.upload", "openid", "email"]});
    let run = h.run(&["tools", "call", "auth_oauth_connect", "--args", &args.to_string(), "--confirm", "deny"]);
    let result = run.result();
    assert_eq!(result["error"]["code"], "denied", "{run:?}");
    nothing_stored(&h, "google:nobody");
}

/// The model's way in: `auth_oauth_connect` (confirmed with `--yes`) opens
/// the sign-in in the browser Halley drives (here a Chrome the test started,
/// attached with `--cdp-url`); the user signs in and consents on the pages
/// in that browser (played through DevTools); the result names the account,
/// the scopes and the status, never a token.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tool_signs_in_in_the_browser_and_returns_no_token() {
    if !in_session() || !crate::common::browser::have_browser() {
        return;
    }
    let server = OidcServer::start(60);
    let h = Halley::new();
    // The client is set up once, by a connect from the CLI.
    let (first, _) = login();
    let pending = connect(&h, &server.issuer, &[], &[]).await.expect("url");
    let callback = User::new().sign_in(&pending.url, &first, Consent::Grant).await;
    visit(&callback).await.expect("answers");
    assert_eq!(pending.finish().await.code, 0);

    let chrome = OwnChrome::start(&h.work_dir().join("chrome"));
    let (who, acct) = login();
    let args = serde_json::json!({"provider": "oidc", "scopes": ["openid", "email", "offline_access"]});
    let tool = tokio::process::Command::new(env!("CARGO_BIN_EXE_halley"))
        .arg("--data-dir")
        .arg(h.data_dir())
        .args(["--cdp-url", &chrome.endpoint, "tools", "call", "auth_oauth_connect", "--yes"])
        .args(["--args", &args.to_string()])
        .env_remove("HALLEY_DATA_DIR")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("halley");
    let signed_in = sign_in_in_chrome(&chrome.endpoint, &who).await;
    assert_eq!(signed_in, Ok(()));
    let out = tokio::time::timeout(Duration::from_secs(60), tool.wait_with_output()).await.expect("ends").expect("out");
    let run = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into(),
        stderr: String::from_utf8_lossy(&out.stderr).into(),
    };
    assert_eq!(signed_in, Ok(()), "{run:?}");
    assert_eq!(run.code, 0, "{run:?}");
    let result = run.result();
    assert_eq!(result["status"], "ok", "{run:?}");
    assert_eq!(result["data"]["provider"], "oidc");
    assert_eq!(result["data"]["account"], format!("{who}@example.test"));
    assert_eq!(result["data"]["status"], "connected");
    let refresh = secret_tool_lookup(&format!("oauth:{acct}")).expect("the refresh token in the keyring");
    assert!(!run.stdout.contains(refresh.trim()) && !run.stderr.contains(refresh.trim()));
    assert_eq!(files_containing(&h.data_dir(), refresh.trim()), Vec::<String>::new());
    let gone = h.run(&["auth", "disconnect", &acct]);
    assert_eq!(gone.code, 0, "{gone:?}");
}

/// A returning user: the provider remembers the sign-in and the consent and
/// sends the browser straight back to the loopback callback while Halley
/// is still opening the sign-in page in its managed Chromium. `halley auth
/// connect` (no `--no-browser`) must complete, not wait for the page's load
/// while nobody answers the callback (issue 29: it hung for good).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_connect_completes_when_the_provider_redirects_at_once() {
    if !in_session() || !crate::common::browser::have_browser() {
        return;
    }
    let (who, name) = login();
    let server = OidcServer::remembering(60, &who);
    let h = Halley::new();
    let started = std::time::Instant::now();
    let child = tokio::process::Command::new(env!("CARGO_BIN_EXE_halley"))
        .arg("--data-dir")
        .arg(h.data_dir())
        .args(["--headless", "auth", "connect", "--provider", "oidc", "--issuer", &server.issuer])
        .args(["--client-id", OidcServer::CLIENT_ID, "--yes", "--json", "--timeout", "60"])
        .env_remove("HALLEY_DATA_DIR")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("halley");
    let out = tokio::time::timeout(Duration::from_secs(45), child.wait_with_output())
        .await
        .expect("`halley auth connect` ends when the provider redirects at once")
        .expect("out");
    let run = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into(),
        stderr: String::from_utf8_lossy(&out.stderr).into(),
    };
    assert_eq!(run.code, 0, "{run:?}");
    assert!(started.elapsed() < Duration::from_secs(30), "took {:?}: {run:?}", started.elapsed());
    let connected = run.json();
    assert_eq!(connected["name"], name.as_str(), "{run:?}");
    assert_eq!(connected["account"], format!("{who}@example.test"));
    assert_eq!(connected["status"], "connected");
    let refresh = secret_tool_lookup(&format!("oauth:{name}")).expect("the refresh token in the keyring");
    assert!(!run.stdout.contains(refresh.trim()) && !run.stderr.contains(refresh.trim()));
    let gone = h.run(&["auth", "disconnect", &name]);
    assert_eq!(gone.code, 0, "{gone:?}");
}

/// Sign in and consent on the provider's pages in the Chrome at `endpoint`,
/// as the user would: the sign-in page Halley opened is opened again in a
/// tab of the test's own (same profile, same cookies), where the login form
/// is filled and submitted, then the consent.
async fn sign_in_in_chrome(endpoint: &str, who: &str) -> Result<(), String> {
    let (mut browser, mut handler) = chromiumoxide::Browser::connect(endpoint).await.expect("DevTools");
    let events = tokio::spawn(async move { while futures::StreamExt::next(&mut handler).await.is_some() {} });
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let outcome = async {
        let url = loop {
            if tokio::time::Instant::now() > deadline {
                return Err("Halley never opened the sign-in page".to_owned());
            }
            let targets = browser.fetch_targets().await.unwrap_or_default();
            if let Some(t) = targets.into_iter().find(|t| t.url.contains("/interaction/")) {
                break t.url;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        };
        let page = browser.new_page(url.as_str()).await.map_err(|e| e.to_string())?;
        let fill = format!(
            r#"(() => {{
                const form = document.querySelector("form");
                const prompt = form && form.querySelector("input[name=prompt]");
                if (!prompt) return "";
                if (prompt.value === "login") {{
                    form.querySelector("input[name=login]").value = {who:?};
                    form.querySelector("input[name=password]").value = "pw";
                }}
                form.submit();
                return prompt.value;
            }})()"#
        );
        let (mut done, mut handled) = (Vec::<String>::new(), String::new());
        while !done.iter().any(|p| p == "consent") {
            if tokio::time::Instant::now() > deadline {
                return Err(format!("the sign-in pages did not go on (done: {done:?}, at {handled})"));
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
            let here = page.url().await.ok().flatten().unwrap_or_default();
            if here == handled || !here.contains("/interaction/") {
                continue;
            }
            let Ok(answer) = page.evaluate(fill.as_str()).await else { continue };
            if let Ok(prompt) = answer.into_value::<String>()
                && !prompt.is_empty()
            {
                done.push(prompt);
                handled = here;
            }
        }
        Ok(())
    }
    .await;
    events.abort();
    outcome
}
