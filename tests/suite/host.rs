//! The host as the desktop app drives it: ops in, events out, on real
//! headless Chromium with the scripted model and the fixture site.

use std::sync::Arc;
use std::time::{Duration, Instant};

use halley::agent::run::AgentEvent;
use halley::core::BrowserSettings;
use halley::host::Host;
use halley::protocol::{
    Event, Op, Reply, Role, RuleDecision, RuleKind, RunStatus, Settings, StopReason, ToolCallStatus,
};
use halley::{DataDir, ErrorCode};
use pretty_assertions::assert_eq;
use serde_json::{Map, json};
use tokio::sync::broadcast;

use crate::common::browser::have_browser;
use crate::common::fixtures::{FixtureServer, WatchedPage};
use crate::common::model_server::{ModelServer, ToolCall, Turn};

async fn open(dir: &std::path::Path) -> Arc<Host> {
    let browser = BrowserSettings { headless: true, ..BrowserSettings::default() };
    Host::open(DataDir::at(dir.join("data")), browser).await.unwrap()
}

/// A host whose model is the scripted one (or whatever answers at `base_url`).
async fn host_with_model(dir: &std::path::Path, base_url: &str, model: Option<&str>) -> Arc<Host> {
    let host = open(dir).await;
    let settings =
        Settings { base_url: Some(base_url.to_owned()), model: model.map(str::to_owned), ..Settings::default() };
    host.handle(Op::SaveSettings { settings }).await.unwrap();
    host
}

/// Events until the run ends (panics after `within`), answering questions with `answer`.
async fn until_ended(
    host: &Arc<Host>,
    rx: &mut broadcast::Receiver<Event>,
    within: Duration,
    mut answer: impl FnMut(&Event) -> Option<Op>,
) -> Vec<Event> {
    let deadline = Instant::now() + within;
    let mut seen = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let ev = tokio::time::timeout(left, rx.recv()).await.expect("the run did not end in time").unwrap();
        if let Some(op) = answer(&ev) {
            assert_eq!(host.handle(op).await.unwrap(), Reply::Done);
        }
        let ended = matches!(ev, Event::RunEnded { .. });
        seen.push(ev);
        if ended {
            return seen;
        }
    }
}

fn ended(events: &[Event]) -> (RunStatus, StopReason, Option<String>) {
    match events.last() {
        Some(Event::RunEnded { status, stop_reason, answer, .. }) => (*status, *stop_reason, answer.clone()),
        other => panic!("not ended: {other:?}"),
    }
}

/// The panel's answer to confirmation `id`.
fn answer(id: &str, approved: bool) -> Op {
    let reason = if approved { String::new() } else { "không".into() };
    Op::AnswerConfirmation { id: id.to_owned(), approved, user_edits: Map::new(), reason }
}

fn started(reply: Reply) -> (String, String) {
    match reply {
        Reply::RunStarted { run_id, conversation_id } => (run_id, conversation_id),
        other => panic!("not started: {other:?}"),
    }
}

/// A task about more tabs than "Compare these tabs" takes is refused with
/// a clear error before anything is recorded or read.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_about_too_many_tabs_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let model = ModelServer::start(vec![]);
    let host = host_with_model(tmp.path(), &model.base_url(), None).await;
    let tabs: Vec<String> = (1..=9).map(|i| format!("tab-{i}")).collect();
    let err = host.handle(Op::SendMessage { text: "So sánh".into(), conversation_id: None, tabs }).await.unwrap_err();
    assert_eq!(err.code(), halley::ErrorCode::InvalidArguments, "{err}");
    assert!(err.message().contains("8 tabs at most"), "{err}");
    assert!(model.requests().is_empty());
    let Reply::Conversations { conversations } =
        host.handle(Op::ListConversations { limit: 10, query: None }).await.unwrap()
    else {
        panic!("not conversations")
    };
    assert!(conversations.is_empty(), "a refused task was recorded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_streams_tokens_and_the_run_ends_completed() {
    let tmp = tempfile::tempdir().unwrap();
    let model = ModelServer::start(vec![Turn::text("Giá hiện tại là 21.490.000 ₫ nhé")]);
    let host = host_with_model(tmp.path(), &model.base_url(), None).await;
    let mut rx = host.subscribe();
    let reply =
        host.handle(Op::SendMessage { text: "Giá laptop?".into(), conversation_id: None, tabs: vec![] }).await.unwrap();
    let (run_id, conversation_id) = started(reply);
    let events = until_ended(&host, &mut rx, Duration::from_secs(30), |_| None).await;
    let tokens: String = events
        .iter()
        .filter_map(|e| match e {
            Event::Agent { run_id: r, event: AgentEvent::Token { text } } if *r == run_id => Some(text.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(tokens, "Giá hiện tại là 21.490.000 ₫ nhé");
    assert_eq!(ended(&events), (RunStatus::Completed, StopReason::EndTurn, Some(tokens.clone())));
    // The model chosen was the endpoint's first.
    assert_eq!(model.requests()[0]["model"], "scripted-model");

    let Reply::Conversations { conversations } =
        host.handle(Op::ListConversations { limit: 10, query: None }).await.unwrap()
    else {
        panic!()
    };
    assert_eq!(conversations.len(), 1);
    assert_eq!(
        (conversations[0].id.as_str(), conversations[0].title.as_str()),
        (conversation_id.as_str(), "Giá laptop?")
    );
    let Reply::Conversation { messages, .. } =
        host.handle(Op::OpenConversation { id: conversation_id.clone() }).await.unwrap()
    else {
        panic!()
    };
    let shown: Vec<(Role, Option<String>)> = messages.iter().map(|m| (m.role, m.content.clone())).collect();
    assert_eq!(shown, vec![(Role::User, Some("Giá laptop?".into())), (Role::Assistant, Some(tokens))]);
    assert_eq!(host.handle(Op::RunTimeline { run_id }).await.unwrap(), Reply::Timeline { calls: vec![] });
    let err = host.handle(Op::OpenConversation { id: "conv-nope".into() }).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound);
    host.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_submit_waits_for_the_user_deny_sends_nothing_approve_sends_once() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let buy = || {
        vec![
            Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site.url("shop-vn.html")}))]),
            Turn::tool_calls(vec![ToolCall::new("browser_click", json!({"selector": "#buy-now"}))]),
        ]
    };
    let mut script = buy();
    script.push(Turn::text("Bạn đã từ chối."));
    script.extend(buy());
    script.push(Turn::text("Đã đặt mua."));
    let model = ModelServer::start(script);
    let host = host_with_model(tmp.path(), &model.base_url(), Some("m")).await;
    let mut rx = host.subscribe();

    // Denied: nothing reaches the site.
    let (_, conversation) = started(
        host.handle(Op::SendMessage { text: "Mua laptop".into(), conversation_id: None, tabs: vec![] }).await.unwrap(),
    );
    let mut asked = Vec::new();
    let events = until_ended(&host, &mut rx, Duration::from_secs(60), |ev| match ev {
        Event::ConfirmationWaiting { request } => {
            asked.push(request.id.clone());
            Some(answer(&request.id, false))
        }
        _ => None,
    })
    .await;
    assert_eq!(asked.len(), 1, "{events:?}");
    assert!(events.contains(&Event::ConfirmationClosed { id: asked[0].clone(), approved: false }));
    let denied = events.iter().any(|e| {
        matches!(e, Event::Agent { event: AgentEvent::ToolResult { name, result, .. }, .. }
            if name == "browser_click" && result.error.as_ref().is_some_and(|e| e.code == ErrorCode::Denied))
    });
    assert!(denied, "{events:?}");
    assert_eq!(ended(&events).0, RunStatus::Completed);
    assert!(site.posts().is_empty());
    // The question is gone: answering it again is not_found.
    assert_eq!(host.handle(answer(&asked[0], true)).await.unwrap_err().code(), ErrorCode::NotFound);

    // Approved, in the same conversation: exactly one POST.
    let reply = host
        .handle(Op::SendMessage { text: "Mua đi".into(), conversation_id: Some(conversation.clone()), tabs: vec![] })
        .await;
    let (run_id, same) = started(reply.unwrap());
    assert_eq!(same, conversation);
    let events = until_ended(&host, &mut rx, Duration::from_secs(60), |ev| match ev {
        Event::ConfirmationWaiting { request } => Some(answer(&request.id, true)),
        _ => None,
    })
    .await;
    assert_eq!(ended(&events), (RunStatus::Completed, StopReason::EndTurn, Some("Đã đặt mua.".into())));
    let posts: Vec<String> = site.posts().iter().map(|p| p.path.clone()).collect();
    assert_eq!(posts, vec!["/checkout".to_owned()]);
    let Reply::Timeline { calls } = host.handle(Op::RunTimeline { run_id }).await.unwrap() else { panic!() };
    let tools: Vec<(&str, ToolCallStatus)> = calls.iter().map(|c| (c.tool.as_str(), c.status)).collect();
    assert_eq!(tools, vec![("browser_navigate", ToolCallStatus::Ok), ("browser_click", ToolCallStatus::Ok)]);
    // Headless: no window to steer, and moving it is a no-op.
    assert_eq!(host.browser_window().await.unwrap(), None);
    host.set_browser_window(halley::host::Rect { x: 0, y: 0, width: 800, height: 600 }).await.unwrap();
    host.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_panel_is_told_the_scope_the_gate_graded_each_call() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let click = |selector: &str| Turn::tool_calls(vec![ToolCall::new("browser_click", json!({"selector": selector}))]);
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site.url("shop-vn.html")}))]),
        click("#buy-now"),
        click("text=Chính sách bảo mật"),
        Turn::text("Tôi không mua."),
    ]);
    let host = host_with_model(tmp.path(), &model.base_url(), Some("m")).await;
    let mut rx = host.subscribe();
    started(
        host.handle(Op::SendMessage { text: "Mua laptop".into(), conversation_id: None, tabs: vec![] }).await.unwrap(),
    );
    let events = until_ended(&host, &mut rx, Duration::from_secs(60), |ev| match ev {
        Event::ConfirmationWaiting { request } => Some(answer(&request.id, false)),
        _ => None,
    })
    .await;
    assert_eq!(ended(&events).0, RunStatus::Completed, "{events:?}");
    // As the panel reads them: the JSON of each tool_result event.
    let results: Vec<serde_json::Value> = events
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .filter(|e| e["type"] == "agent" && e["event"]["type"] == "tool_result")
        .map(|e| {
            let r = &e["event"]["result"];
            json!([e["event"]["name"], r["status"], r["permission_scope"], r["risk_level"], r["error"]["code"]])
        })
        .collect();
    assert_eq!(
        results,
        vec![
            json!(["browser_navigate", "ok", "WRITE_NON_DESTRUCTIVE", "low", null]),
            json!(["browser_click", "error", "PAYMENT", "high", "denied"]),
            json!(["browser_click", "ok", "WRITE_NON_DESTRUCTIVE", "low", null]),
        ]
    );
    // The same scope as the question the user was asked.
    let asked: Vec<(String, String)> = events
        .iter()
        .filter_map(|e| match e {
            Event::ConfirmationWaiting { request } => {
                Some((request.scope.as_str().to_owned(), request.risk_level.as_str().to_owned()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(asked, vec![("PAYMENT".to_owned(), "high".to_owned())]);
    assert!(site.posts().is_empty());
    host.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_cancels_the_run_and_a_pause_refuses_new_messages() {
    let tmp = tempfile::tempdir().unwrap();
    let model = ModelServer::start(vec![Turn::text("chậm quá").delay_ms(10_000)]);
    let host = host_with_model(tmp.path(), &model.base_url(), Some("m")).await;
    let mut rx = host.subscribe();
    started(
        host.handle(Op::SendMessage { text: "Chờ nhé".into(), conversation_id: None, tabs: vec![] }).await.unwrap(),
    );
    let busy =
        host.handle(Op::SendMessage { text: "Thêm".into(), conversation_id: None, tabs: vec![] }).await.unwrap_err();
    assert_eq!(busy.code(), ErrorCode::InvalidArguments);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let t = Instant::now();
    assert_eq!(host.handle(Op::Stop { run_id: None }).await.unwrap(), Reply::Done);
    let events = until_ended(&host, &mut rx, Duration::from_secs(5), |_| None).await;
    assert!(t.elapsed() < Duration::from_secs(5));
    assert_eq!(ended(&events), (RunStatus::Cancelled, StopReason::Cancelled, None));

    assert_eq!(host.handle(Op::SetPaused { paused: true }).await.unwrap(), Reply::Done);
    assert_eq!(rx.recv().await.unwrap(), Event::Paused { paused: true });
    let refused = host
        .handle(Op::SendMessage { text: "Làm tiếp".into(), conversation_id: None, tabs: vec![] })
        .await
        .unwrap_err();
    assert_eq!(refused.code(), ErrorCode::InvalidArguments);
    host.handle(Op::SetPaused { paused: false }).await.unwrap();
    assert_eq!(rx.recv().await.unwrap(), Event::Paused { paused: false });
    host.close().await;
}

/// A loopback port nothing listens on.
fn dead_url() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    drop(l);
    format!("http://127.0.0.1:{port}/v1")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_model_is_said_clearly_and_quickly() {
    let tmp = tempfile::tempdir().unwrap();
    let host = host_with_model(tmp.path(), &dead_url(), None).await;
    let t = Instant::now();
    let Reply::ModelStatus { status } = host.handle(Op::CheckModel { endpoint: None }).await.unwrap() else { panic!() };
    assert!(t.elapsed() < Duration::from_secs(6));
    assert!(!status.reachable);
    assert!(status.models.is_empty());
    let message = status.message.unwrap();
    assert!(message.contains("no model server is reachable"), "{message}");
    assert!(message.contains("ollama serve"), "{message}");

    // A run ends failed with the same message, never hangs.
    let mut rx = host.subscribe();
    let (run_id, _) = started(
        host.handle(Op::SendMessage { text: "Xin chào".into(), conversation_id: None, tabs: vec![] }).await.unwrap(),
    );
    let events = until_ended(&host, &mut rx, Duration::from_secs(10), |_| None).await;
    let error = events.iter().find_map(|e| match e {
        Event::Agent { event: AgentEvent::Error { code, message, .. }, .. } => Some((*code, message.clone())),
        _ => None,
    });
    let (code, msg) = error.expect("an error event");
    assert_eq!(code, ErrorCode::ModelUnavailable);
    assert!(msg.contains("ollama serve"), "{msg}");
    assert_eq!(ended(&events), (RunStatus::Failed, StopReason::ModelUnavailable, None));
    let run = host.core().store().runs().get(&run_id).await.unwrap().unwrap();
    assert!(run.status.is_terminal());
    // Reopened, the conversation shows the failed question once.
    let Reply::Conversations { conversations } =
        host.handle(Op::ListConversations { limit: 10, query: None }).await.unwrap()
    else {
        panic!()
    };
    let Reply::Conversation { messages, .. } =
        host.handle(Op::OpenConversation { id: conversations[0].id.clone() }).await.unwrap()
    else {
        panic!()
    };
    let shown: Vec<(String, Option<String>)> =
        messages.iter().map(|m| (format!("{:?}", m.role), m.content.clone())).collect();
    assert_eq!(shown.iter().filter(|(_, c)| c.as_deref() == Some("Xin chào")).count(), 1, "{shown:#?}");
    host.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_round_trip_and_the_api_key_stays_in_the_keyring() {
    let tmp = tempfile::tempdir().unwrap();
    let host = open(tmp.path()).await;
    let Reply::Settings { settings, api_key_saved, .. } = host.handle(Op::GetSettings).await.unwrap() else { panic!() };
    assert_eq!((settings, api_key_saved), (Settings::default(), false));
    let box_host = format!("gpu-{}.test", uuid::Uuid::new_v4().simple());
    let wanted = Settings {
        preset: None,
        base_url: Some(format!("http://{box_host}:8000/v1")),
        model: Some("qwen2.5:7b".into()),
        chromium: None,
        language: Some("vi".into()),
        autostart: true,
        reopen_tabs: false,
        search: halley::protocol::SearchSettings {
            order: vec![halley::protocol::SearchProvider::Duckduckgo],
            searxng_url: Some("https://searx.example.org".into()),
            ..Default::default()
        },
    };
    let saved = host.handle(Op::SaveSettings { settings: wanted.clone() }).await.unwrap();
    assert_eq!(saved, Reply::Settings { settings: wanted.clone(), api_key_saved: false, search_key_saved: false });
    let bad = Settings { language: Some("klingon".into()), ..wanted.clone() };
    assert_eq!(host.handle(Op::SaveSettings { settings: bad }).await.unwrap_err().code(), ErrorCode::InvalidArguments);
    host.close().await;

    // Read again after a restart.
    let host = open(tmp.path()).await;
    assert_eq!(
        host.handle(Op::GetSettings).await.unwrap(),
        Reply::Settings { settings: wanted.clone(), api_key_saved: false, search_key_saved: false }
    );
    let key = format!("sk-halley-test-{}", uuid::Uuid::new_v4().simple());
    match host.handle(Op::SaveApiKey { key: key.clone() }).await {
        Ok(reply) => assert_eq!(
            reply,
            Reply::Settings { settings: wanted.clone(), api_key_saved: true, search_key_saved: false }
        ),
        Err(e) if e.code() == ErrorCode::Keyring && std::env::var_os("HALLEY_TEST_SESSION").is_none() => {
            eprintln!("skipped the keyring part: {}", e.message());
            host.close().await;
            return;
        }
        Err(e) => panic!("{e:?}"),
    }
    let account = halley::secrets::api_key_account(&format!("{box_host}:8000"));
    let stored = halley::secrets::SecretStore::os().unwrap().get(&account).await.unwrap();
    assert_eq!(stored.map(|s| s.into_exposed()), Some(key.clone()));
    host.close().await;
    let data = tmp.path().join("data");
    for entry in std::fs::read_dir(&data).unwrap().flatten() {
        if entry.path().is_file() {
            let bytes = std::fs::read(entry.path()).unwrap();
            assert!(!bytes.windows(key.len()).any(|w| w == key.as_bytes()), "the key is in {:?}", entry.path());
        }
    }
    let host = open(tmp.path()).await;
    assert_eq!(
        host.handle(Op::DeleteApiKey).await.unwrap(),
        Reply::Settings { settings: wanted, api_key_saved: false, search_key_saved: false }
    );
    host.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_rules_and_artifacts() {
    let tmp = tempfile::tempdir().unwrap();
    let host = open(tmp.path()).await;
    let Reply::Tools { tools } = host.handle(Op::ListTools).await.unwrap() else { panic!() };
    assert!(tools.iter().any(|t| t.name == "browser_click"));
    let Reply::ToolResult { result } = host
        .handle(Op::CallTool { name: "user_profile_set".into(), args: json!({"set": {"name": "Nguyễn An"}}) })
        .await
        .unwrap()
    else {
        panic!()
    };
    assert!(result.is_ok(), "{result:?}");

    let Reply::Rules { rules } = host
        .handle(Op::AddRule {
            site: None,
            tool: Some("browser_upload_file".into()),
            min_scope: None,
            decision: RuleDecision::Never,
            note: None,
        })
        .await
        .unwrap()
    else {
        panic!()
    };
    assert_eq!(rules.len(), 1);
    assert_eq!(
        (rules[0].kind, rules[0].tool.as_deref(), rules[0].decision),
        (RuleKind::Tool, Some("browser_upload_file"), RuleDecision::Never)
    );
    // The gate decides on it at once.
    assert_eq!(host.core().gate().policy().rules().len(), 1);
    let bad = Op::AddRule { site: None, tool: None, min_scope: None, decision: RuleDecision::Allow, note: None };
    assert_eq!(host.handle(bad).await.unwrap_err().code(), ErrorCode::InvalidArguments);
    let id = rules[0].id.clone();
    assert_eq!(host.handle(Op::RemoveRule { id }).await.unwrap(), Reply::Rules { rules: vec![] });
    assert!(host.core().gate().policy().rules().is_empty());

    let refused = host.handle(Op::ReadArtifact { reference: "/etc/passwd".into() }).await.unwrap_err();
    assert_eq!(refused.code(), ErrorCode::InvalidArguments);
    let refused = host.handle(Op::ReadArtifact { reference: "file:///etc/passwd".into() }).await.unwrap_err();
    assert_eq!(refused.code(), ErrorCode::InvalidArguments);
    let shot = tmp.path().join("data").join("shot.png");
    std::fs::write(&shot, b"\x89PNG").unwrap();
    let reference = format!("file://{}", shot.display());
    assert_eq!(
        host.handle(Op::ReadArtifact { reference }).await.unwrap(),
        Reply::Artifact { mime: "image/png".into(), data: "iVBORw==".into() }
    );
    assert_eq!(
        host.handle(Op::AnswerChallenge { id: "x".into(), done: true }).await.unwrap_err().code(),
        ErrorCode::NotFound
    );
    host.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_browser_window_can_be_docked_where_the_panel_wants_it() {
    if std::env::var_os("DISPLAY").is_none() {
        eprintln!("skipped: no DISPLAY for a headed browser");
        return;
    }
    if !have_browser() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let host = Host::open(DataDir::at(tmp.path().join("data")), BrowserSettings::default()).await.unwrap();
    assert_eq!(host.browser_window().await.unwrap(), None, "no browser yet");
    let want = halley::host::Rect { x: 100, y: 50, width: 900, height: 700 };
    host.set_browser_window(want).await.unwrap();
    let got = host.browser_window().await.unwrap().expect("a window");
    assert_eq!(got, want);
    host.close().await;
}

/// The next [`Event::Watches`] (panics after a few seconds).
async fn next_watches(rx: &mut broadcast::Receiver<Event>) -> (u32, u32) {
    loop {
        let ev = tokio::time::timeout(Duration::from_secs(10), rx.recv()).await.expect("no Watches event").unwrap();
        if let Event::Watches { checked, unread } = ev {
            return (checked, unread);
        }
    }
}

/// A watch a run makes (the model calls `watch_create`) reaches the panel
/// and the tray as `Event::Watches`, as one made from the panel does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_a_run_makes_reaches_the_panel() {
    let tmp = tempfile::tempdir().unwrap();
    let site = FixtureServer::start();
    site.set_page(
        "run-made",
        WatchedPage { name: "Tai nghe W7".into(), price: 2_490_000, in_stock: true, ..WatchedPage::default() },
    );
    let args = json!({"target": {"url": site.url("watched/run-made")}, "label": "Tai nghe W7", "frequency": "1h",
                      "trigger_rules": [{"op": "<", "value": "2.000.000 ₫"}]});
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("watch_create", args)]),
        Turn::text("Đã theo dõi giá."),
    ]);
    let host = host_with_model(tmp.path(), &model.base_url(), None).await;
    let mut rx = host.subscribe();
    let reply = host
        .handle(Op::SendMessage { text: "Theo dõi giá tai nghe W7".into(), conversation_id: None, tabs: vec![] })
        .await
        .unwrap();
    started(reply);
    let events = until_ended(&host, &mut rx, Duration::from_secs(60), |_| None).await;
    assert_eq!(ended(&events).0, RunStatus::Completed, "{events:#?}");
    let told = events.iter().any(|e| matches!(e, Event::Watches { .. }));
    // It may come just after the run's end (it is counted on a task of its own).
    let told = told || tokio::time::timeout(Duration::from_secs(5), next_watches(&mut rx)).await.is_ok();
    assert!(told, "no Watches event after the run's watch_create");
    let Reply::ToolResult { result } =
        host.handle(Op::CallTool { name: "watch_list".into(), args: json!({}) }).await.unwrap()
    else {
        panic!()
    };
    assert_eq!(result.data["watches"].as_array().map(Vec::len), Some(1), "{:?}", result.data);
    host.close().await;
}

/// What the panel's Watches view does: create a watch (its target price as
/// the user wrote it, read by the core's money parser), check it, read the
/// inbox (unread first) and mark alerts read; every change tells the tray
/// its unread count, a read never does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_watches_view_creates_checks_and_reads_its_inbox() {
    let tmp = tempfile::tempdir().unwrap();
    let host = open(tmp.path()).await;
    let site = FixtureServer::start();
    site.set_page(
        "panel-inbox",
        WatchedPage { name: "Điện thoại X".into(), price: 21_490_000, in_stock: true, ..WatchedPage::default() },
    );
    let mut rx = host.subscribe();
    let call = |name: &str, args: serde_json::Value| Op::CallTool { name: name.into(), args };
    let ok = |reply: Reply| match reply {
        Reply::ToolResult { result } if result.is_ok() => result.data,
        other => panic!("{other:?}"),
    };
    let label = format!("Inbox {}", &uuid::Uuid::new_v4().to_string()[..8]);
    let args = json!({"target": {"url": site.url("watched/panel-inbox")}, "label": label, "frequency": "1h",
                      "cooldown": "0m", "trigger_rules": [{"op": "<", "value": "19.990.000 ₫"}]});
    let created = ok(host.handle(call("watch_create", args)).await.unwrap());
    let id = created["watch_id"].as_str().unwrap().to_owned();
    assert_eq!(created["check"]["price"], json!(21_490_000.0));
    assert_eq!(next_watches(&mut rx).await, (0, 0));
    // Created and checked at once: a scheduler's pass meanwhile leaves it.
    let due = ok(host.handle(call("watch_poll", json!({}))).await.unwrap());
    assert_eq!(due["checks"], json!([]));
    assert_eq!(next_watches(&mut rx).await, (0, 0));

    // The price drops: a check now alerts, once.
    site.change_page("panel-inbox", |p| p.price = 18_990_000);
    let polled = ok(host.handle(call("watch_poll", json!({"watch_id": id}))).await.unwrap());
    assert_eq!(polled["checks"][0]["fired_rules"][0]["rule"], json!("price<19990000"), "{polled}");
    assert_eq!(next_watches(&mut rx).await, (1, 1));
    ok(host.handle(call("watch_poll", json!({"watch_id": id}))).await.unwrap());
    assert_eq!(next_watches(&mut rx).await, (1, 1));

    // A direct notification goes in the inbox too, newest first among the unread.
    let note = json!({"title": "Ghi chú", "message": "Xem lại giá", "channel": "in-app"});
    ok(host.handle(call("notify_send", note)).await.unwrap());
    assert_eq!(next_watches(&mut rx).await, (0, 2));
    let Reply::Alerts { alerts, unread } = host.handle(Op::ListAlerts { limit: 10 }).await.unwrap() else { panic!() };
    assert_eq!(unread, 2);
    let titles: Vec<(&str, bool)> = alerts.iter().map(|a| (a.title.as_str(), a.read)).collect();
    assert_eq!(titles, [("Ghi chú", false), (label.as_str(), false)]);
    assert_eq!(alerts[1].watch_id.as_deref(), Some(id.as_str()));
    assert!(alerts[1].message.contains("18.990.000 ₫"), "{}", alerts[1].message);

    // Marking one read puts it after the unread ones; then all.
    let Reply::Alerts { alerts, unread } =
        host.handle(Op::MarkAlertsRead { ids: Some(vec![alerts[0].id]) }).await.unwrap()
    else {
        panic!()
    };
    assert_eq!((unread, alerts[0].title.as_str(), alerts[0].read, alerts[1].read), (1, label.as_str(), false, true));
    assert_eq!(next_watches(&mut rx).await, (0, 1));
    // Bad input says so and changes nothing.
    let unknown = host.handle(Op::MarkAlertsRead { ids: Some(vec![alerts[0].id, 999_999]) }).await.unwrap_err();
    assert_eq!(unknown.code(), ErrorCode::NotFound);
    assert_eq!(host.handle(Op::ListAlerts { limit: 0 }).await.unwrap_err().code(), ErrorCode::InvalidArguments);
    let Reply::Alerts { unread, .. } = host.handle(Op::ListAlerts { limit: 50 }).await.unwrap() else { panic!() };
    assert_eq!(unread, 1);
    let Reply::Alerts { unread, .. } = host.handle(Op::MarkAlertsRead { ids: None }).await.unwrap() else { panic!() };
    assert_eq!(unread, 0);
    assert_eq!(next_watches(&mut rx).await, (0, 0));

    // Reading the watches changes nothing, so says nothing; a failed call neither.
    let listed = ok(host.handle(call("watch_list", json!({}))).await.unwrap());
    assert_eq!(listed["watches"][0]["price"], json!(18_990_000.0));
    let history = ok(host.handle(call("watch_history", json!({"watch_id": id}))).await.unwrap());
    assert_eq!(history["observations"].as_array().unwrap().len(), 3);
    let Reply::ToolResult { result } = host.handle(call("watch_pause", json!({"watch_id": "nope"}))).await.unwrap()
    else {
        panic!()
    };
    assert_eq!(result.error.unwrap().code, ErrorCode::NotFound);
    assert!(matches!(rx.try_recv(), Err(broadcast::error::TryRecvError::Empty)));
    host.close().await;
}

/// "Watch this page": the user's current tab, never starting the browser.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_current_tab_is_read_without_starting_the_browser() {
    if !have_browser() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let host = open(tmp.path()).await;
    let none = Reply::CurrentTab { url: None, title: None };
    assert_eq!(host.handle(Op::CurrentTab).await.unwrap(), none);
    assert!(!host.core().browser().is_running().await, "asking started the browser");

    let site = FixtureServer::start();
    let url = site.url("shop-vn.html");
    let go = Op::CallTool { name: "browser_navigate".into(), args: json!({"url": url}) };
    let Reply::ToolResult { result } = host.handle(go).await.unwrap() else { panic!() };
    assert!(result.is_ok(), "{result:?}");
    let Reply::CurrentTab { url: Some(at), title: Some(title) } = host.handle(Op::CurrentTab).await.unwrap() else {
        panic!("no current tab")
    };
    assert_eq!(at, url);
    assert!(!title.is_empty());
    host.close().await;
}
