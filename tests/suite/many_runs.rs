//! One host, many runs at once, on real headless Chromium with scripted
//! models: the panel's run, a background run and a run of another front
//! end each have their own context (questions, tabs, cancel, audit), and
//! tools registered while runs go are offered from the next turn.

use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use halley::agent::ModelFlags;
use halley::agent::run::AgentEvent;
use halley::core::BrowserSettings;
use halley::gate::{ConfirmationRequest, Confirmer};
use halley::host::{Host, RunModel, RunRequest};
use halley::protocol::{Event, Op, Reply, RunInfo, Settings};
use halley::tools::catalogue::safety::ConfirmResultV1;
use halley::{DataDir, ErrorCode, FrontEnd};
use pretty_assertions::assert_eq;
use serde_json::{Map, Value, json};
use tokio::sync::{Notify, broadcast};

use crate::common::browser::have_browser;
use crate::common::fixtures::FixtureServer;
use crate::common::model_server::{ModelServer, ToolCall, Turn};

async fn open_host(dir: &std::path::Path, model: &ModelServer) -> Arc<Host> {
    let browser = BrowserSettings { headless: true, ..BrowserSettings::default() };
    let host = Host::open(DataDir::at(dir.join("data")), browser).await.unwrap();
    let settings = Settings { base_url: Some(model.base_url()), model: Some("m".into()), ..Settings::default() };
    host.handle(Op::SaveSettings { settings }).await.unwrap();
    host
}

/// The model endpoint a front end names for its run.
fn flags(model: &ModelServer) -> RunModel {
    RunModel::Flags(ModelFlags { base_url: Some(model.base_url()), model: Some("m".into()), ..ModelFlags::default() })
}

fn call(name: &str, args: Value) -> Turn {
    Turn::tool_calls(vec![ToolCall::new(name, args)])
}

/// Another front end's own question channel: it records what it is asked
/// and never answers (its run is stopped while it waits).
#[derive(Debug, Default)]
struct Unanswered {
    asked: Mutex<Vec<ConfirmationRequest>>,
    notify: Notify,
}

impl Confirmer for Unanswered {
    fn confirm<'a>(
        &'a self,
        request: &'a ConfirmationRequest,
    ) -> Pin<Box<dyn Future<Output = ConfirmResultV1> + Send + 'a>> {
        self.asked.lock().unwrap().push(request.clone());
        self.notify.notify_waiters();
        Box::pin(std::future::pending())
    }
}

/// Events until `until` says so (panics after `within`).
async fn events_until(
    rx: &mut broadcast::Receiver<Event>,
    seen: &mut Vec<Event>,
    within: Duration,
    mut until: impl FnMut(&[Event]) -> bool,
) {
    let deadline = Instant::now() + within;
    while !until(seen) {
        let left = deadline.saturating_duration_since(Instant::now());
        let ev = tokio::time::timeout(left, rx.recv()).await.unwrap_or_else(|_| panic!("timed out; saw {seen:#?}"));
        seen.push(ev.unwrap());
    }
}

fn ended_status(events: &[Event], run: &str) -> Option<String> {
    events.iter().find_map(|e| match e {
        Event::RunEnded { run_id, status, .. } if run_id == run => {
            Some(serde_json::to_value(status).ok()?.as_str()?.to_owned())
        }
        _ => None,
    })
}

/// The results of `run`'s calls of `tool`, as JSON.
fn results_of<'a>(events: &'a [Event], run: &'a str, tool: &'a str) -> impl Iterator<Item = Value> + 'a {
    events.iter().filter_map(move |e| match e {
        Event::Agent { run_id, event: AgentEvent::ToolResult { name, result, .. } }
            if run_id == run && name == tool =>
        {
            serde_json::to_value(result).ok()
        }
        _ => None,
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_runs_at_once_each_with_its_own_questions_tabs_and_audit() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    // The panel's run buys, and waits for the user.
    let panel_model = ModelServer::start(vec![
        call("browser_navigate", json!({"url": site.url("shop-vn.html")})),
        call("browser_click", json!({"selector": "#buy-now"})),
        Turn::text("Đã đặt mua."),
    ]);
    // A background run (a watch) reads a price in a tab of its own.
    let watch_model = ModelServer::start(vec![
        call("browser_new_tab", json!({"url": site.url("shop-usd.html")})),
        call("browser_read_text", json!({"selector": "h1"})),
        call("browser_list_tabs", json!({})),
        Turn::text("Giá chưa đổi."),
    ]);
    // Another front end's run fills a form and is stopped while its client is asked.
    let api_model = ModelServer::start(vec![
        call("browser_navigate", json!({"url": site.url("form.html")})),
        call("browser_click", json!({"selector": "#submit"})),
        Turn::text("never reached"),
    ]);
    let host = open_host(tmp.path(), &panel_model).await;
    let mut rx = host.subscribe();
    let mut seen = Vec::new();

    let reply =
        host.handle(Op::SendMessage { text: "Mua laptop".into(), conversation_id: None, tabs: vec![] }).await.unwrap();
    let Reply::RunStarted { run_id: panel, .. } = reply else { panic!("{reply:?}") };
    // The panel's question waits; the panel does not answer yet.
    events_until(&mut rx, &mut seen, Duration::from_secs(60), |evs| {
        evs.iter().any(|e| matches!(e, Event::ConfirmationWaiting { .. }))
    })
    .await;

    let watch = host
        .start_run(RunRequest {
            model: flags(&watch_model), ..RunRequest::new(FrontEnd::Background, "Kiểm tra giá")
        })
        .await
        .unwrap();
    let client = Arc::new(Unanswered::default());
    let api = host
        .start_run(RunRequest {
            model: flags(&api_model),
            confirmer: Some(Arc::clone(&client) as Arc<dyn Confirmer>),
            ..RunRequest::new(FrontEnd::Api, "Nộp hồ sơ visa")
        })
        .await
        .unwrap();
    assert_eq!((watch.front_end, api.front_end), (FrontEnd::Background, FrontEnd::Api));
    let ids: HashSet<&str> = [panel.as_str(), watch.run_id.as_str(), api.run_id.as_str()].into();
    assert_eq!(ids.len(), 3);
    assert_eq!(
        host.runs_going().len(),
        3,
        "all three go on at once: {:?}",
        host.runs_going().iter().map(|r: &RunInfo| r.front_end).collect::<Vec<_>>()
    );
    // The panel's run holds the tab the user had; the others their own.
    let panel_tabs = host.core().browser().tabs_of(&panel).await;
    assert_eq!(panel_tabs.len(), 1, "{panel_tabs:?}");

    // The background run ends on its own while the panel's still waits.
    events_until(&mut rx, &mut seen, Duration::from_secs(60), |evs| ended_status(evs, &watch.run_id).is_some()).await;
    assert_eq!(ended_status(&seen, &watch.run_id).as_deref(), Some("completed"));
    let watch_tab = results_of(&seen, &watch.run_id, "browser_new_tab").next().unwrap()["data"]["tab"]["id"].clone();
    let listed = results_of(&seen, &watch.run_id, "browser_list_tabs").next().unwrap();
    let listed: Vec<(Value, Value)> =
        listed["data"]["tabs"].as_array().unwrap().iter().map(|t| (t["id"].clone(), t["current"].clone())).collect();
    // It sees its own tab as current, never the panel's tab (held by the panel's run).
    assert!(listed.contains(&(watch_tab.clone(), json!(true))), "{listed:?}");
    assert!(!listed.iter().any(|(id, _)| id.as_str() == Some(panel_tabs[0].as_str())), "{listed:?}");
    let read = results_of(&seen, &watch.run_id, "browser_read_text").next().unwrap();
    assert_eq!(read["status"], "ok", "{read}");

    // The API client is asked on its own channel, never the panel.
    let deadline = Instant::now() + Duration::from_secs(60);
    while client.asked.lock().unwrap().is_empty() {
        assert!(Instant::now() < deadline, "the API client was never asked");
        let _ = tokio::time::timeout(Duration::from_millis(200), client.notify.notified()).await;
    }
    let api_question = client.asked.lock().unwrap()[0].clone();
    assert_eq!(api_question.run_id.as_deref(), Some(api.run_id.as_str()));
    let api_tabs = host.core().browser().tabs_of(&api.run_id).await;
    assert_eq!(api_tabs.len(), 1);
    assert_ne!(api_tabs, panel_tabs, "two runs never share a tab");
    assert_ne!(json!(api_tabs[0]), watch_tab);

    // Stopping the API run stops it alone.
    assert_eq!(host.handle(Op::Stop { run_id: Some(api.run_id.clone()) }).await.unwrap(), Reply::Done);
    events_until(&mut rx, &mut seen, Duration::from_secs(30), |evs| ended_status(evs, &api.run_id).is_some()).await;
    assert_eq!(ended_status(&seen, &api.run_id).as_deref(), Some("cancelled"));
    assert_eq!(ended_status(&seen, &panel).as_deref(), None, "the panel's run still waits");
    assert!(site.posts().is_empty(), "nothing was submitted: {:?}", site.posts());

    // The panel's answer reaches the panel's run only.
    let panel_questions: Vec<ConfirmationRequest> = seen
        .iter()
        .filter_map(|e| match e {
            Event::ConfirmationWaiting { request } => Some(request.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(panel_questions.len(), 1, "only the panel's run asked the panel: {panel_questions:?}");
    assert_eq!(panel_questions[0].run_id.as_deref(), Some(panel.as_str()));
    let answer = Op::AnswerConfirmation {
        id: panel_questions[0].id.clone(),
        approved: true,
        user_edits: Map::new(),
        reason: String::new(),
    };
    assert_eq!(host.handle(answer).await.unwrap(), Reply::Done);
    // The API's question cannot be answered through the panel.
    let stray = Op::AnswerConfirmation {
        id: api_question.id.clone(),
        approved: true,
        user_edits: Map::new(),
        reason: String::new(),
    };
    assert_eq!(host.handle(stray).await.unwrap_err().code(), ErrorCode::NotFound);
    events_until(&mut rx, &mut seen, Duration::from_secs(60), |evs| ended_status(evs, &panel).is_some()).await;
    assert_eq!(ended_status(&seen, &panel).as_deref(), Some("completed"));
    let posts: Vec<String> = site.posts().iter().map(|p| p.path.clone()).collect();
    assert_eq!(posts, vec!["/checkout".to_owned()], "exactly the panel's order");
    assert!(host.runs_going().is_empty());

    // The audit names the run of every decision.
    let audit = host.core().store().audit_log().recent(100).await.unwrap();
    let decided = |run: &str, tool: &str| {
        audit.iter().any(|r| r.run_id.as_deref() == Some(run) && r.tool.as_deref() == Some(tool))
    };
    assert!(decided(&panel, "browser_navigate") && decided(&panel, "browser_click"));
    assert!(decided(&watch.run_id, "browser_new_tab") && decided(&watch.run_id, "browser_read_text"));
    assert!(decided(&api.run_id, "browser_navigate"));
    let user_approved = audit.iter().find(|r| r.tool.as_deref() == Some("browser_click") && r.actor == "user").unwrap();
    assert_eq!(user_approved.run_id.as_deref(), Some(panel.as_str()));
    // So do the stored confirmations.
    let stored = host.core().store().confirmations().for_run(&panel).await.unwrap();
    assert_eq!(stored.iter().map(|c| c.tool.as_str()).collect::<Vec<_>>(), vec!["browser_click"]);
    assert_eq!(stored[0].request["id"], json!(panel_questions[0].id));
    let stored = host.core().store().confirmations().for_run(&api.run_id).await.unwrap();
    assert_eq!(stored.iter().map(|c| c.tool.as_str()).collect::<Vec<_>>(), vec!["browser_click"]);
    host.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_registered_while_a_run_goes_is_offered_from_its_next_turn() {
    let tmp = tempfile::tempdir().unwrap();
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("normalize_compare", json!({"items": [], "schema": {}}))]).held(),
        call("tom_tat_gia", json!({"san_pham": "Laptop", "_output": {"tom_tat": "21.490.000 ₫"}})),
        call("tom_tat_gia", json!({"san_pham": "Laptop", "_output": {"tom_tat": "lần hai"}})).held(),
        Turn::text("Xong."),
    ]);
    let host = open_host(tmp.path(), &model).await;
    let mut rx = host.subscribe();
    let reply =
        host.handle(Op::SendMessage { text: "Tóm tắt giá".into(), conversation_id: None, tabs: vec![] }).await.unwrap();
    let Reply::RunStarted { run_id, .. } = reply else { panic!("{reply:?}") };
    let deadline = Instant::now() + Duration::from_secs(30);
    while model.request_count() == 0 {
        assert!(Instant::now() < deadline, "the run never asked the model");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let blueprint = json!({
        "type": "object",
        "description": "Tóm tắt giá một sản phẩm",
        "properties": {
            "_tool": {"type": "string", "const": "tom_tat_gia"},
            "san_pham": {"type": "string"},
            "_output": {"type": "object", "properties": {"tom_tat": {"type": "string"}}, "required": ["tom_tat"]}
        },
        "required": ["_tool", "san_pham"]
    });
    // Registered while the run's first turn is held: not in that turn, in the next.
    let Reply::Tool { tool } = host.handle(Op::RegisterTool { blueprint: blueprint.clone() }).await.unwrap() else {
        panic!()
    };
    assert_eq!(tool.name, "tom_tat_gia");
    let mut seen = Vec::new();
    events_until(&mut rx, &mut seen, Duration::from_secs(10), |evs| evs.contains(&Event::ToolsChanged)).await;
    let Reply::Tools { tools } = host.handle(Op::ListTools).await.unwrap() else { panic!() };
    assert!(tools.iter().any(|t| t.name == "tom_tat_gia"));
    model.release();
    // Unregister it once its first call is done: the second call is refused.
    events_until(&mut rx, &mut seen, Duration::from_secs(30), |evs| {
        evs.iter().any(
            |e| matches!(e, Event::Agent { event: AgentEvent::ToolResult { name, .. }, .. } if name == "tom_tat_gia"),
        )
    })
    .await;
    // The model's next turn (held) was offered the tool; it calls it after it is gone.
    let deadline = Instant::now() + Duration::from_secs(30);
    while model.request_count() < 3 {
        assert!(Instant::now() < deadline, "the run never asked for its third turn");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(host.handle(Op::UnregisterTool { name: "tom_tat_gia".into() }).await.unwrap(), Reply::Done);
    model.release();
    events_until(&mut rx, &mut seen, Duration::from_secs(30), |evs| ended_status(evs, &run_id).is_some()).await;
    let results: Vec<Value> = results_of(&seen, &run_id, "tom_tat_gia").collect();
    assert_eq!(results.len(), 2, "{seen:#?}");
    assert_eq!(results[0]["status"], "ok");
    assert_eq!(results[0]["data"], json!({"tom_tat": "21.490.000 ₫"}));
    assert_eq!(results[1]["error"]["code"], "not_found", "{}", results[1]);
    let offered = |i: usize| -> bool {
        model.requests()[i]["tools"].as_array().unwrap().iter().any(|t| t["function"]["name"] == "tom_tat_gia")
    };
    assert_eq!((offered(0), offered(1), offered(2), offered(3)), (false, true, true, false));
    // Unregistering what is not there is a clear not_found; built-ins stay.
    let err = host.handle(Op::UnregisterTool { name: "tom_tat_gia".into() }).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound);
    let err = host.handle(Op::UnregisterTool { name: "browser_click".into() }).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound);
    host.close().await;
}

/// The URLs of the open tabs, as a direct call sees them.
async fn tab_urls(host: &Host) -> Vec<String> {
    let cx = halley::CallContext::new(FrontEnd::Cli);
    let listed = host.core().call_tool(&cx, "browser_list_tabs", json!({})).await;
    let data = serde_json::to_value(&listed).unwrap()["data"]["tabs"].clone();
    data.as_array().unwrap().iter().map(|t| t["url"].as_str().unwrap_or_default().to_owned()).collect()
}

/// A run in the background closes the tabs it opened when it ends (a
/// long-lived core kept one renderer per API run: `make soak` found
/// Chromium growing by a process a conversation); a foreground run's tab
/// stays open, the user's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_background_runs_tabs_close_when_it_ends_a_foreground_runs_tab_stays() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let model = ModelServer::start(vec![]);
    let host = open_host(tmp.path(), &model).await;
    let mut rx = host.subscribe();
    let mut seen = Vec::new();
    let runs = [(FrontEnd::Api, "shop-vn.html"), (FrontEnd::Api, "form.html"), (FrontEnd::Cli, "shop-us.html")];
    for (front_end, page) in runs {
        model.push(call("browser_navigate", json!({"url": site.url(page)})));
        model.push(call("browser_new_tab", json!({"url": site.url("catalogue?rows=3")})));
        model.push(Turn::text("Xong."));
        let info = host.start_run(RunRequest::new(front_end, "Xem trang này.")).await.unwrap();
        events_until(&mut rx, &mut seen, Duration::from_secs(60), |evs| ended_status(evs, &info.run_id).is_some())
            .await;
        assert_eq!(ended_status(&seen, &info.run_id).as_deref(), Some("completed"), "{front_end}: {seen:#?}");
        // The tabs are given back just after the end is told.
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut urls = tab_urls(&host).await;
        while front_end == FrontEnd::Api && urls.len() > 1 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(50)).await;
            urls = tab_urls(&host).await;
        }
        if front_end == FrontEnd::Api {
            assert_eq!(urls, vec!["about:blank".to_owned()], "only the user's tab is left");
        } else {
            assert_eq!(urls, vec![site.url(page), site.url("catalogue?rows=3")], "the foreground run's tabs stay");
        }
    }
    host.close().await;
}
