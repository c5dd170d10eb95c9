//! `web_search` end to end: each provider's format served on loopback
//! (DuckDuckGo's HTML page read in the real headless Chromium, a SearXNG
//! JSON answer, the Brave Search API with its key in the session's real
//! keyring), a CAPTCHA handed to the user, a failing provider handing over
//! to the next, de-duplication, the locale each provider is asked in, and a
//! run of the scripted model whose tool message comes back fenced.

use std::sync::Arc;
use std::time::{Duration, Instant};

use halley::DataDir;
use halley::core::BrowserSettings;
use halley::host::Host;
use halley::protocol::{Event, Op, Reply, SearchProvider, SearchSettings, Settings};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::browser::have_browser;
use crate::common::fixtures::FixtureServer;
use crate::common::model_server::{ModelServer, ToolCall, Turn};
use crate::common::{Halley, Run, files_containing, in_session};

/// `halley search settings ARGS`, which must succeed.
fn settings(h: &Halley, args: &[&str]) {
    let run = h.run(&[&["search", "settings"], args].concat());
    assert_eq!(run.code, 0, "{}", run.stderr);
}

/// `halley --headless tools call web_search ARGS`.
fn search(h: &Halley, args: &Value) -> Run {
    h.run(&["--headless", "tools", "call", "web_search", "--args", &args.to_string()])
}

/// The `data` of a successful call.
fn ok(run: &Run) -> Value {
    let r = run.result();
    assert_eq!(r["status"], "ok", "{r}\nstderr:\n{}", run.stderr);
    r["data"].clone()
}

fn urls(data: &Value) -> Vec<&str> {
    data["results"].as_array().unwrap().iter().map(|r| r["url"].as_str().unwrap()).collect()
}

/// The query pairs of the requests `path` received.
fn asked(site: &FixtureServer, path: &str) -> Vec<Vec<(String, String)>> {
    site.requests().iter().filter(|r| r.path == path).map(|r| r.query_pairs()).collect()
}

fn pair<'a>(pairs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

#[test]
fn duckduckgo_results_are_read_in_the_browser_in_the_querys_locale() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    settings(&h, &["--order", "duckduckgo", "--duckduckgo-url", &site.url("ddg")]);
    // No locale given: a Vietnamese query is searched in Vietnam.
    let run = search(&h, &json!({"query": "giá iPhone 16", "max_results": 5}));
    let data = ok(&run);
    assert_eq!((data["provider"].as_str(), data["locale"].as_str()), (Some("duckduckgo"), Some("vi-VN")));
    // The ad is gone, redirects unwrapped, tracking dropped, the same page once.
    assert_eq!(
        urls(&data),
        [
            "https://www.thegioididong.com/dtdd/iphone-16",
            "https://cellphones.com.vn/iphone-16.html",
            "https://vnexpress.net/gia-iphone-16-giam-4801234.html"
        ]
    );
    let first = &data["results"][0];
    assert_eq!(
        first,
        &json!({"title": "iPhone 16 128GB | Chính hãng VN/A, giá rẻ", "url": "https://www.thegioididong.com/dtdd/iphone-16",
                "snippet": "Giá iPhone 16 128GB chính hãng từ 19.990.000₫, trả góp 0%.", "source": "duckduckgo", "rank": 1})
    );
    let ranks: Vec<u64> = data["results"].as_array().unwrap().iter().map(|r| r["rank"].as_u64().unwrap()).collect();
    assert_eq!(ranks, [1, 2, 3]);
    let asked = asked(&site, "/ddg/html/");
    assert_eq!(asked.len(), 1);
    assert_eq!((pair(&asked[0], "q"), pair(&asked[0], "kl")), (Some("giá iPhone 16"), Some("vn-vi")));
    // An explicit locale wins, and max_results cuts.
    let data = ok(&search(&h, &json!({"query": "giá iPhone 16", "locale": "en-US", "max_results": 1})));
    assert_eq!((data["locale"].as_str(), data["results"].as_array().unwrap().len()), (Some("en-US"), 1));
    assert_eq!(pair(&asked_last(&site, "/ddg/html/"), "kl"), Some("us-en"));
}

fn asked_last(site: &FixtureServer, path: &str) -> Vec<(String, String)> {
    asked(site, path).pop().unwrap_or_default()
}

/// A host on a temp data dir with a headless browser and these search settings.
async fn host_with(tmp: &std::path::Path, search: SearchSettings, model: Option<&ModelServer>) -> Arc<Host> {
    let browser = BrowserSettings { headless: true, ..BrowserSettings::default() };
    let host: Arc<Host> = Host::open(DataDir::at(tmp.join("data")), browser).await.unwrap();
    let settings = Settings {
        base_url: model.map(ModelServer::base_url),
        model: model.map(|_| "m".to_owned()),
        search,
        ..Settings::default()
    };
    host.handle(Op::SaveSettings { settings }).await.unwrap();
    host
}

/// The panel's `/` palette calls `web_search`; the challenge it hands over
/// is answered `done` (the user solved it) or not (they gave up). Returns
/// the result and the challenge's request.
async fn call_answering(host: &Arc<Host>, args: Value, done: bool) -> (Value, Option<halley::gate::ChallengeRequest>) {
    let mut rx = host.subscribe();
    let call = {
        let host = Arc::clone(host);
        tokio::spawn(async move { host.handle(Op::CallTool { name: "web_search".into(), args }).await })
    };
    let mut asked = None;
    let deadline = Instant::now() + Duration::from_secs(30);
    while !call.is_finished() && asked.is_none() {
        let left = deadline.saturating_duration_since(Instant::now()).min(Duration::from_millis(200));
        if let Ok(Ok(Event::ChallengeWaiting { id, request })) = tokio::time::timeout(left, rx.recv()).await {
            host.handle(Op::AnswerChallenge { id, done }).await.unwrap();
            asked = Some(request);
        }
        assert!(Instant::now() < deadline, "no challenge and no result");
    }
    let Reply::ToolResult { result } = call.await.unwrap().unwrap() else { panic!("not a tool result") };
    (serde_json::to_value(result).unwrap(), asked)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_captcha_on_the_search_page_is_handed_to_the_user_and_the_search_goes_on() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let search = SearchSettings {
        order: vec![SearchProvider::Duckduckgo, SearchProvider::Searxng],
        duckduckgo_url: Some(site.url("ddg-captcha")),
        searxng_url: Some(site.url("searxng")),
        ..SearchSettings::default()
    };
    let host = host_with(tmp.path(), search, None).await;
    // The user solves it (the fixture's script plays them, 1.5 s after it
    // shows) and says so: the results are read.
    let (result, asked) =
        call_answering(&host, json!({"query": "carry-on size ANA 2025", "max_results": 5}), true).await;
    assert_eq!(result["status"], "ok", "{result}");
    let asked = asked.expect("the CAPTCHA was handed to the user");
    assert_eq!(asked.challenge_type.to_string(), "captcha");
    assert!(asked.url.contains("/ddg-captcha/html/?q=carry-on"), "{}", asked.url);
    let data = &result["data"];
    assert_eq!(data["provider"], "duckduckgo");
    assert_eq!(data["locale"], "en-US", "an English query with no language set");
    assert_eq!(
        urls(data),
        [
            "https://www.ana.co.jp/en/jp/travel-information/baggage-information/carry-on/",
            "https://www.example.com/ana-carry-on-2025"
        ]
    );
    assert_eq!(site.hits("/searxng/search"), 0);

    // The user gives up: the next provider answers, with a note.
    let (result, asked) = call_answering(&host, json!({"query": "giá iPhone 16"}), false).await;
    assert!(asked.is_some());
    assert_eq!(result["status"], "ok", "{result}");
    assert_eq!(result["data"]["provider"], "searxng");
    assert_eq!(result["data"]["notes"], json!(["duckduckgo: showed a CAPTCHA and it was given up"]));
    host.close().await;
}

#[test]
fn searxng_answers_first_in_the_asked_language_and_duplicates_go() {
    let site = FixtureServer::start();
    let h = Halley::new();
    settings(&h, &["--searxng-url", &site.url("searxng")]);
    let data = ok(&search(&h, &json!({"query": "iPhone 16 price", "locale": "vi-VN", "max_results": 10})));
    assert_eq!(data["provider"], "searxng");
    assert_eq!(
        urls(&data),
        ["https://www.thegioididong.com/dtdd/iphone-16", "https://fptshop.com.vn/dien-thoai/iphone-16"]
    );
    assert_eq!(data["results"][1]["snippet"], "Trả góp & thu cũ");
    assert_eq!(data["results"][1]["rank"], 2);
    let asked = asked_last(&site, "/searxng/search");
    assert_eq!(
        (pair(&asked, "q"), pair(&asked, "format"), pair(&asked, "language")),
        (Some("iPhone 16 price"), Some("json"), Some("vi-VN"))
    );
    // SearXNG is first by default; DuckDuckGo was never needed.
    assert_eq!(site.hits("/ddg/html/"), 0);
}

#[test]
fn brave_is_asked_with_the_key_from_the_keyring() {
    if !in_session() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    settings(&h, &["--order", "brave", "--brave-url", &site.url("brave")]);
    // No key yet: Brave is skipped, and with nothing after it the call fails clearly.
    let run = search(&h, &json!({"query": "giá iPhone 16"}));
    assert_eq!(run.code, 1);
    let r = run.result();
    assert_eq!(r["error"]["code"], "search_failed", "{r}");
    assert!(r["error"]["message"].as_str().unwrap().contains("brave: skipped, no API key saved"), "{r}");

    let key = format!("BSA-test-{}", uuid::Uuid::new_v4().simple());
    let saved = h.run_with_stdin(&["search", "key", "set"], &format!("{key}\n"));
    assert_eq!(saved.code, 0, "{}", saved.stderr);
    let status = h.run(&["search", "settings", "--json"]);
    assert_eq!(status.json()["brave_key_saved"], true);
    let data = ok(&search(&h, &json!({"query": "giá iPhone 16", "max_results": 3})));
    assert_eq!(data["provider"], "brave");
    assert_eq!(
        data["results"][0],
        json!({"title": "Giá iPhone 16 mới nhất - CellphoneS", "url": "https://cellphones.com.vn/iphone-16.html",
               "snippet": "iPhone 16 128GB giá 19.690.000 ₫", "source": "brave", "rank": 1})
    );
    let request = site.requests().into_iter().rfind(|r| r.path == "/brave/res/v1/web/search").unwrap();
    assert_eq!(request.subscription_token.as_deref(), Some(key.as_str()));
    let q = request.query_pairs();
    assert_eq!(
        (pair(&q, "q"), pair(&q, "count"), pair(&q, "search_lang"), pair(&q, "country")),
        (Some("giá iPhone 16"), Some("8"), Some("vi"), Some("VN"))
    );
    // The key never lands in the data directory or the output.
    assert!(files_containing(&h.data_dir(), &key).is_empty());
    assert_eq!(h.run(&["search", "key", "delete"]).code, 0);
}

#[test]
fn a_provider_that_fails_hands_over_to_the_next_with_a_note() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    settings(&h, &["--searxng-url", &site.url("searxng-down"), "--duckduckgo-url", &site.url("ddg")]);
    let data = ok(&search(&h, &json!({"query": "giá iPhone 16", "max_results": 2})));
    assert_eq!(data["provider"], "duckduckgo");
    let notes: Vec<&str> = data["notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    assert_eq!(notes[0], "searxng: HTTP 500");
    assert!(notes[1].starts_with("brave: skipped"), "{notes:?}");
    assert_eq!(urls(&data).len(), 2);
    assert_eq!(pair(&asked_last(&site, "/searxng-down/search"), "language"), Some("vi-VN"));

    // Every provider failing is one clear error listing why.
    settings(&h, &["--order", "searxng"]);
    let run = search(&h, &json!({"query": "giá iPhone 16"}));
    assert_eq!(run.code, 1);
    let r = run.result();
    assert_eq!(r["error"]["code"], "search_failed");
    assert_eq!(
        r["error"]["message"],
        "no search provider gave results for \"giá iPhone 16\" (vi-VN): searxng: HTTP 500"
    );
    // Bad settings are refused before anything is saved.
    let bad = h.run(&["search", "settings", "--order", "google"]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("unknown search provider `google`"), "{}", bad.stderr);
    let bad = h.run(&["search", "settings", "--searxng-url", "searx.local"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_gets_the_search_results_fenced() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("web_search", json!({"query": "giá iPhone 16", "max_results": 3}))]),
        Turn::text("iPhone 16 có giá từ 19.690.000₫."),
    ]);
    let search = SearchSettings {
        order: vec![SearchProvider::Duckduckgo],
        duckduckgo_url: Some(site.url("ddg")),
        ..SearchSettings::default()
    };
    let host = host_with(tmp.path(), search, Some(&model)).await;
    let mut rx = host.subscribe();
    host.handle(Op::SendMessage { text: "Giá iPhone 16 bao nhiêu?".into(), conversation_id: None, tabs: vec![] })
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if let Event::RunEnded { status, .. } =
            tokio::time::timeout(left, rx.recv()).await.expect("the run did not end").unwrap()
        {
            assert_eq!(status, halley::protocol::RunStatus::Completed);
            break;
        }
    }
    host.close().await;
    let requests = model.requests();
    let last = requests.last().unwrap();
    let tool = last["messages"].as_array().unwrap().iter().find(|m| m["role"] == "tool").unwrap();
    let content = tool["content"].as_str().unwrap();
    assert!(content.starts_with("<<<PAGE_DATA ") && content.contains("<<<END_PAGE_DATA "), "{content}");
    assert!(content.contains("https://www.thegioididong.com/dtdd/iphone-16"), "{content}");
    assert!(content.contains("\"provider\":\"duckduckgo\""), "{content}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_stopped_while_the_captcha_waits_closes_its_tab() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("web_search", json!({"query": "giá iPhone 16"}))]),
        Turn::text("không tới đây"),
    ]);
    let search = SearchSettings {
        order: vec![SearchProvider::Duckduckgo],
        duckduckgo_url: Some(site.url("ddg-stuck")),
        ..SearchSettings::default()
    };
    let host = host_with(tmp.path(), search, Some(&model)).await;
    let mut rx = host.subscribe();
    host.handle(Op::SendMessage { text: "Giá iPhone 16?".into(), conversation_id: None, tabs: vec![] }).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    // What the run told, to say why if it ends otherwise.
    let mut told = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, rx.recv()).await.expect("no challenge").unwrap() {
            Event::ChallengeWaiting { .. } => {
                told.push("challenge waiting; stopped".to_owned());
                host.handle(Op::Stop { run_id: None }).await.unwrap();
            }
            Event::RunEnded { status, stop_reason, .. } => {
                assert_eq!(status, halley::protocol::RunStatus::Cancelled, "{stop_reason:?} after {told:#?}");
                break;
            }
            Event::Agent { event, .. } => told.push(format!("{event:?}").chars().take(600).collect()),
            _ => {}
        }
    }
    // The search's tab goes away with it.
    let stuck = || async {
        let args = json!({});
        let Reply::ToolResult { result } =
            host.handle(Op::CallTool { name: "browser_list_tabs".into(), args }).await.unwrap()
        else {
            panic!("not a tool result")
        };
        let tabs = serde_json::to_value(result).unwrap()["data"]["tabs"].clone();
        tabs.as_array().unwrap().iter().any(|t| t["url"].as_str().unwrap_or_default().contains("ddg-stuck"))
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while stuck().await {
        assert!(Instant::now() < deadline, "the stopped search left its tab open");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    host.close().await;
}
