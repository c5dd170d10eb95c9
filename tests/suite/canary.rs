//! Canary secrets (issue #19): distinct values planted as a sensitive
//! profile value (a passport number), a model provider's API key, an
//! OAuth account's refresh and access tokens (the real `oidc-provider`
//! flow) and a client-tool result marked sensitive (a card number), each
//! used the normal way: a run where the model fills a form with the
//! passport number through the profile, its requests carrying the key in
//! `Authorization`, a sign-in, a refresh and a userinfo call, and a run of
//! the local API (a host on the same data dir) where the model calls a tool
//! a client registered, the client answers `"sensitive": true` and the model
//! types the placeholder it got (`{{secret.<call id>.number}}`) into the
//! same form (a snapshot of the filled form shows it the placeholder, not
//! the number), which the site receives with the card number. Then every
//! byte Halley wrote (the data directory, the database with its WAL and SHM
//! copied while a core still has them open, the files store, logs, provider
//! traces, the test HOME) and every request the model received are scanned
//! for each value in plain, URL-encoded, base64 (three alignments, both
//! alphabets), hex (either case) and JSON-escaped forms: no hit.
//!
//! Left out of the scan, and why:
//! - the OS keyring's own store (`$XDG_DATA_HOME/keyrings`): where the key
//!   and the refresh token are meant to be, encrypted by the keyring;
//! - the `Authorization` header of the model's requests, which must carry
//!   the key (asserted).
//!
//! Nothing of the browser profile is left out: Chromium kept the passport
//! number typed into the login form in its password manager's `Login Data`
//! until Halley turned the password manager and autofill off in the
//! profile's preferences (`browser::launch`); its session, history and cache
//! files hold none of the values (the form is POSTed).

use std::path::{Path, PathBuf};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE_NO_PAD};
use halley::protocol::{Event, RunStatus};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::api::served_in;
use super::api_clients::{App, next_data, tool_message, use_model};
use super::oauth::{connect, login};
use crate::common::browser::have_browser;
use crate::common::fixtures::FixtureServer;
use crate::common::model_server::{MODEL_ID, ModelServer, ToolCall, Turn};
use crate::common::oidc::{Consent, OidcServer, User, visit};
use crate::common::{Halley, in_session, secret_tool_lookup, tree};

/// Variables that would give a key or an endpoint before the keyring.
const MODEL_ENV: [&str; 6] =
    ["OPENAI_API_KEY", "OPENAI_BASE_URL", "HALLEY_MODEL", "OPENROUTER_API_KEY", "GEMINI_API_KEY", "HALLEY_DATA_DIR"];

/// One planted value and what it is.
struct Canary {
    what: &'static str,
    value: String,
}

/// The ways `value` could be written: plain, percent-encoded (every byte
/// but unreserved ones, and as a form field), JSON-escaped (as serde writes
/// it, and every character `\uXXXX`), hex in either case, and base64 in
/// both alphabets at each of the three alignments it can have inside a
/// larger blob (the characters that also hold bits of the neighbours cut).
fn forms(value: &str) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = vec![("plain".into(), value.as_bytes().to_vec())];
    let percent: String = value
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    out.push(("percent-encoded".into(), percent.into_bytes()));
    let form: String = url::form_urlencoded::byte_serialize(value.as_bytes()).collect();
    out.push(("form-encoded".into(), form.into_bytes()));
    let escaped = serde_json::to_string(value).expect("a string");
    out.push(("JSON-escaped".into(), escaped.trim_matches('"').as_bytes().to_vec()));
    let unicode: String = value.encode_utf16().map(|u| format!("\\u{u:04x}")).collect();
    out.push(("JSON \\u-escaped".into(), unicode.into_bytes()));
    out.push(("hex".into(), hex::encode(value).into_bytes()));
    out.push(("HEX".into(), hex::encode_upper(value).into_bytes()));
    for (prefix, cut) in [(0usize, 0usize), (1, 2), (2, 3)] {
        let mut buf = vec![0u8; prefix];
        buf.extend_from_slice(value.as_bytes());
        for (alphabet, enc) in [("base64", STANDARD_NO_PAD.encode(&buf)), ("base64url", URL_SAFE_NO_PAD.encode(&buf))] {
            let end = if buf.len() % 3 == 0 { enc.len() } else { enc.len() - 1 };
            out.push((format!("{alphabet} (offset {prefix})"), enc.as_bytes()[cut..end].to_vec()));
        }
    }
    out.sort_by(|a, b| a.1.cmp(&b.1));
    out.dedup_by(|a, b| a.1 == b.1);
    out
}

/// Each `(canary, form)` found in `bytes`, as `what in <form> in <place>`.
fn hits(bytes: &[u8], place: &str, canaries: &[Canary]) -> Vec<String> {
    let mut out = Vec::new();
    for c in canaries {
        for (form, needle) in forms(&c.value) {
            if bytes.windows(needle.len()).any(|w| w == needle.as_slice()) {
                out.push(format!("{} ({form}) in {place}", c.what));
            }
        }
    }
    out
}

/// Every file below `root` but those `skip` names: how many were scanned,
/// and the hits.
fn scan_tree(root: &Path, label: &str, canaries: &[Canary], skip: &dyn Fn(&str) -> bool) -> (usize, Vec<String>) {
    let mut found = Vec::new();
    let mut scanned = 0;
    for rel in tree(root).into_iter().filter(|rel| !skip(rel)) {
        let Ok(bytes) = std::fs::read(root.join(&rel)) else { continue };
        scanned += 1;
        found.extend(hits(&bytes, &format!("{label}/{rel}"), canaries));
    }
    (scanned, found)
}

/// A client application registers its tool through the local API of a
/// host on `h`'s data dir; the model calls it in a run, the client answers
/// with `card` marked sensitive, and the model types the placeholder it got
/// into the login form and sends it: the site receives the card number.
/// The snapshot of the filled form shows the model the placeholder, not the
/// number. A direct call with the placeholder once the run ended fails
/// `not_found`.
async fn sensitive_client_result(h: &Halley, site: &FixtureServer, model: &ModelServer, card: &str) {
    let s = served_in(h.data_dir()).await;
    use_model(&s, model, MODEL_ID).await;
    let app = App::new(&s, "vault");
    let post = |path: &str, body: Value| app.post(path, body);
    let source = "def card_details(name: str) -> dict:\n    \"\"\"The user's saved card, from the vault.\n\n    Args:\n        name: Which card.\n    \"\"\"\n";
    let r = post("/api/letta/agents/tools", json!({"name": "card_details", "sourceCode": source})).await.unwrap();
    assert_eq!(r.status(), 201);
    let (mut stream, mut buf) = (app.listen().await.unwrap().bytes_stream(), String::new());
    model.push(Turn::tool_calls(vec![ToolCall::new("card_details", json!({"name": "Visa"}))]));
    let mut events = s.host.subscribe();
    let r = post("/api/v1/runs", json!({"text": "Đăng nhập bằng số thẻ Visa của tôi"})).await.unwrap();
    assert_eq!(r.status(), 201);
    let run: Value = serde_json::from_slice(&r.bytes().await.unwrap()).unwrap();
    let asked = next_data(&mut stream, &mut buf).await;
    let placeholder = format!("{{{{secret.{}.number}}}}", asked["tool_call_id"].as_str().unwrap());
    for call in [
        ToolCall::new("browser_navigate", json!({"url": site.url("login.html")})),
        ToolCall::new("browser_type", json!({"selector": "#username", "text": placeholder})),
        ToolCall::new("browser_snapshot", json!({})),
        ToolCall::new("browser_type", json!({"selector": "#password", "text": "mật khẩu"})),
        ToolCall::new("browser_click", json!({"selector": "#login-button"})),
    ] {
        model.push(Turn::tool_calls(vec![call]));
    }
    model.push(Turn::text("Đã đăng nhập bằng thẻ của bạn."));
    let answer =
        json!({"tool_call_id": asked["tool_call_id"], "result": {"number": card, "brand": "Visa"}, "sensitive": true});
    assert_eq!(post("/api/v1/tool_results", answer).await.unwrap().status(), 200);
    loop {
        match tokio::time::timeout(Duration::from_secs(60), events.recv()).await.unwrap().unwrap() {
            Event::RunEnded { run_id, status, .. } if run_id == run["run_id"] => {
                assert_eq!(status, RunStatus::Completed);
                break;
            }
            _ => {}
        }
    }
    let posts = site.posts();
    assert_eq!(posts.len(), 2, "the form was sent once more: {posts:?}");
    assert_eq!(posts[1].field("username"), Some(card), "the page got the card number");
    assert_eq!(model.request_count(), 13);
    // The page shows the typed card number: the model read the placeholder.
    let snapshot = tool_message(model, 10);
    assert!(snapshot.contains(&placeholder), "the snapshot of the filled form: {snapshot}");

    // The run ended: its sensitive values are gone.
    let typed = json!({"args": {"selector": "#username", "text": placeholder}});
    let r = post("/api/v1/tools/browser_type/call", typed).await.unwrap();
    let result: Value = serde_json::from_slice(&r.bytes().await.unwrap()).unwrap();
    assert_eq!(result["error"]["code"], "not_found", "{result}");
    assert!(result["error"]["message"].as_str().unwrap().contains("gone"), "{result}");
    s.host.close().await;
}

fn home() -> PathBuf {
    PathBuf::from(std::env::var_os("HOME").expect("HOME"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn canary_secrets_are_written_nowhere_and_never_reach_the_model() {
    if !in_session() || !have_browser() {
        return;
    }
    let h = Halley::new();
    let site = FixtureServer::start();
    let unique = uuid::Uuid::new_v4();
    let passport = format!("N{:07}", unique.as_u128() % 10_000_000);
    let key = format!("sk-canary-{}", unique.simple());

    // The API key, from stdin into the keyring, as `halley models key set` takes it.
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("user_profile_get", json!({"keys": ["travel"]}))]),
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site.url("login.html")}))]),
        Turn::tool_calls(vec![ToolCall::new(
            "browser_type",
            json!({"selector": "#username", "text": "{{profile.travel.passport_no}}"}),
        )]),
        Turn::tool_calls(vec![ToolCall::new("browser_type", json!({"selector": "#password", "text": "mật khẩu"}))]),
        Turn::tool_calls(vec![ToolCall::new("browser_click", json!({"selector": "#login-button"}))]),
        Turn::text("Đã gửi biểu mẫu với số hộ chiếu của bạn."),
    ]);
    let base = model.base_url();
    let set = h.run_piped(&["models", "key", "set", "--base-url", &base], &format!("{key}\n"), &MODEL_ENV, &[]);
    assert_eq!(set.code, 0, "{set:?}");

    // The passport number, a sensitive profile value (sealed at rest).
    let profile = h.call("user_profile_set", &json!({"set": {"travel.passport_no": passport}}));
    assert_eq!(profile.code, 0, "{profile:?}");

    // The user lets Halley act on this site without asking.
    let origin = site.url("").trim_end_matches('/').to_owned();
    let rule = h.run(&["rules", "add", "--site", &origin, "allow"]);
    assert_eq!(rule.code, 0, "{rule:?}");

    // A run: the model reads the profile (a placeholder), types it into the
    // form and sends it; its requests carry the key.
    let run = h.run_piped(
        &[
            "--headless",
            "run",
            "Đăng nhập bằng số hộ chiếu của tôi",
            "--json",
            "--base-url",
            &base,
            "--model",
            MODEL_ID,
        ],
        "",
        &MODEL_ENV,
        &[],
    );
    assert_eq!(run.code, 0, "{run:?}");
    let posts = site.posts();
    assert_eq!(posts.len(), 1, "the form was sent once: {posts:?}\n{}", run.stdout);
    assert_eq!(posts[0].field("username"), Some(passport.as_str()), "the page got the passport number");
    assert_eq!(model.request_count(), 6);

    // A client tool's result marked sensitive: a card number.
    let card = format!("4111{:012}", unique.as_u128() % 1_000_000_000_000);
    sensitive_client_result(&h, &site, &model, &card).await;

    // OAuth: a sign-in, a refresh (rotating the refresh token), then in one
    // process an access token and a userinfo call with it.
    let oidc = OidcServer::start(60);
    let (who, acct) = login();
    let pending = connect(&h, &oidc.issuer, &[], &[]).await.expect("a sign-in URL");
    let callback = User::new().sign_in(&pending.url, &who, Consent::Grant).await;
    assert_eq!(visit(&callback).await.expect("the listener answers").0, 200);
    let connected = pending.finish().await;
    assert_eq!(connected.code, 0, "{connected:?}");
    let first = secret_tool_lookup(&format!("oauth:{acct}")).expect("the refresh token in the keyring");
    let check = h.run(&["auth", "check", &acct]);
    assert_eq!(check.code, 0, "{check:?}");
    let second = secret_tool_lookup(&format!("oauth:{acct}")).expect("rotated");
    assert_ne!(first, second);
    let core = halley::host::open_core(halley::paths::DataDir::at(h.data_dir())).await.expect("core");
    let access = core.oauth().access_token(&acct).await.expect("an access token");
    assert_eq!(core.oauth().userinfo(&acct).await.expect("userinfo")["email"], format!("{who}@example.test"));
    let third = secret_tool_lookup(&format!("oauth:{acct}")).expect("the refresh token now");

    // The database, its WAL and SHM as they are while a core has them open.
    let open_copy = h.tmp.path().join("open-db-copy");
    std::fs::create_dir_all(&open_copy).unwrap();
    for name in ["halley.db", "halley.db-wal", "halley.db-shm"] {
        if h.data_dir().join(name).is_file() {
            std::fs::copy(h.data_dir().join(name), open_copy.join(name)).unwrap();
        }
    }
    assert!(open_copy.join("halley.db-wal").is_file(), "a WAL to scan");
    let canaries = vec![
        Canary { what: "the passport number", value: passport.clone() },
        Canary { what: "the API key", value: key.clone() },
        Canary { what: "the first refresh token", value: first.trim().to_owned() },
        Canary { what: "the second refresh token", value: second.trim().to_owned() },
        Canary { what: "the current refresh token", value: third.trim().to_owned() },
        Canary { what: "the access token", value: access.expose().to_owned() },
        Canary { what: "the client's sensitive result", value: card.clone() },
    ];
    drop(core);
    tokio::time::sleep(Duration::from_millis(200)).await;

    let mut found = Vec::new();
    // Everything below the test's temp dir: the data dir (database, WAL,
    // SHM, the files store, logs, the browser profile), the work dir and
    // the copies made while the database was open.
    let (in_tmp, hits_tmp) = scan_tree(h.tmp.path(), "tmp", &canaries, &|_| false);
    found.extend(hits_tmp);
    // The test HOME, but the keyring's own encrypted store.
    let (in_home, hits_home) = scan_tree(&home(), "HOME", &canaries, &|rel| rel.starts_with(".local/share/keyrings/"));
    found.extend(hits_home);
    let profile_files = tree(&h.data_dir().join("browser-profile")).len();
    assert!(profile_files > 20, "{profile_files} files in the browser profile, all scanned");

    // Every request the model received: bodies, paths and headers, but the
    // Authorization header, which carries the key (and nothing else does).
    let bearer = format!("Bearer {key}");
    for (i, r) in model.raw_requests().iter().enumerate() {
        assert_eq!(r.header("authorization"), Some(bearer.as_str()), "request {i} {}", r.path);
        found.extend(hits(r.body.as_bytes(), &format!("model request {i} body"), &canaries));
        found.extend(hits(r.path.as_bytes(), &format!("model request {i} path"), &canaries));
        for (name, value) in r.headers.iter().filter(|(n, _)| !n.eq_ignore_ascii_case("authorization")) {
            found.extend(hits(value.as_bytes(), &format!("model request {i} header {name}"), &canaries));
        }
    }
    // What the CLI printed.
    for (what, out) in [("run", &run), ("key set", &set), ("connect", &connected), ("auth check", &check)] {
        found.extend(hits(out.stdout.as_bytes(), &format!("{what} stdout"), &canaries));
        found.extend(hits(out.stderr.as_bytes(), &format!("{what} stderr"), &canaries));
    }
    eprintln!("canary scan: {in_tmp} files under the test's temp dir, {in_home} in HOME");
    assert_eq!(found, Vec::<String>::new(), "canary values found");

    let _ = h.run(&["auth", "disconnect", &acct]);
    let _ = h.run_piped(&["models", "key", "delete", "--base-url", &base], "", &MODEL_ENV, &[]);
}
