//! Halley closing (the desktop app's Quit or a signal: `Host::close`) while
//! runs go on: each is interrupted, not cancelled. It ends `paused` with the
//! stop reason `interrupted`, told in `RunEnded`; its call in flight keeps
//! the journal's placeholder instead of a cancelled result, and a question
//! it waited on is not answered "no" for the person. Opened again, the run
//! resumes: the call runs once, the question is asked again, the model
//! answers. A run someone stopped before the close stays cancelled.

use std::sync::Arc;
use std::time::{Duration, Instant};

use halley::agent::ModelFlags;
use halley::core::BrowserSettings;
use halley::gate::Confirmer;
use halley::host::{Host, RunModel, RunRequest};
use halley::protocol::Event;
use halley::store::runs::{RunStatus, StopReason};
use halley::{DataDir, FrontEnd};
use serde_json::json;

use super::gate_browser::Scripted;
use crate::common::browser::have_browser;
use crate::common::model_server::{ModelServer, ToolCall, Turn};

async fn host(dir: &std::path::Path) -> Arc<Host> {
    let browser = BrowserSettings { headless: true, ..BrowserSettings::default() };
    Host::open(DataDir::at(dir.join("data")), browser).await.unwrap()
}

fn request(model: &ModelServer, text: &str, user: &Arc<Scripted>) -> RunRequest {
    let flags = ModelFlags { base_url: Some(model.base_url()), model: Some("m".into()), ..ModelFlags::default() };
    RunRequest {
        model: RunModel::Flags(flags),
        confirmer: Some(Arc::clone(user) as Arc<dyn Confirmer>),
        ..RunRequest::new(FrontEnd::Panel, text)
    }
}

/// The `RunEnded` of `run_id`: its status and stop reason.
async fn ended(rx: &mut tokio::sync::broadcast::Receiver<Event>, run_id: &str) -> (RunStatus, StopReason) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, rx.recv()).await.expect("the run ends").unwrap() {
            Event::RunEnded { run_id: id, status, stop_reason, .. } if id == run_id => return (status, stop_reason),
            _ => {}
        }
    }
}

async fn wait_requests(model: &ModelServer, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while model.request_count() < n {
        assert!(Instant::now() < deadline, "the model was asked {} times, not {n}", model.request_count());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_in_flight_is_interrupted_by_the_close_and_resumes_after_it() {
    if !have_browser() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let host1 = host(dir.path()).await;
    let model = ModelServer::start(vec![Turn::tool_calls(vec![ToolCall::new(
        "browser_wait",
        json!({"until": "timeout", "timeout_ms": 20000, "_reasoningForCall": "đợi trang"}),
    )])]);
    let user = Scripted::new(&[]);
    let mut rx = host1.subscribe();
    let run = host1.start_run(request(&model, "đợi rồi trả lời", &user)).await.unwrap();
    wait_requests(&model, 1).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;

    let closing = Instant::now();
    host1.close().await;
    assert!(closing.elapsed() < Duration::from_secs(10), "the close took {:?}", closing.elapsed());
    assert_eq!(ended(&mut rx, &run.run_id).await, (RunStatus::Paused, StopReason::Interrupted));
    drop(host1);

    let host2 = host(dir.path()).await;
    let store = host2.core().store();
    let row = store.runs().get(&run.run_id).await.unwrap().unwrap();
    assert_eq!((row.status, row.stop_reason.as_deref()), (RunStatus::Paused, Some("interrupted")));
    // No cancelled result stands in for the call: it never finished.
    let calls = store.tool_calls().for_run(&run.run_id).await.unwrap();
    assert!(calls.iter().all(|c| c.status != halley::store::tool_calls::ToolCallStatus::Cancelled), "{calls:#?}");

    // Resumed: the wait runs (once), then the model answers.
    let model = ModelServer::start(vec![Turn::text("Đã đợi xong.")]);
    let mut rx = host2.subscribe();
    let resumed =
        host2.start_run(RunRequest { resume: Some(run.run_id.clone()), ..request(&model, "", &user) }).await.unwrap();
    assert_eq!(resumed.run_id, run.run_id);
    assert_eq!(ended(&mut rx, &run.run_id).await, (RunStatus::Completed, StopReason::EndTurn));
    let calls = store.tool_calls().for_run(&run.run_id).await.unwrap();
    let waits: Vec<_> = calls.iter().filter(|c| c.tool == "browser_wait").collect();
    assert_eq!(waits.len(), 1, "{calls:#?}");
    assert_eq!(waits[0].status, halley::store::tool_calls::ToolCallStatus::Ok);
    assert_eq!(model.request_count(), 1);
    host2.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_waiting_at_the_close_is_not_answered_no_and_is_asked_again() {
    let dir = tempfile::tempdir().unwrap();
    let host1 = host(dir.path()).await;
    let order = json!({"action_summary": "Đặt vé HAN→NRT ngày 2026-02-10",
        "cost_estimate": {"amount": 12500000, "currency": "VND"}});
    let model =
        ModelServer::start(vec![Turn::tool_calls(vec![ToolCall::new("request_user_confirmation", order.clone())])]);
    // The person has the dialog open and has not answered when Halley closes.
    let slow = Arc::new(Scripted { think_ms: 120_000, ..Scripted::default() });
    let mut rx = host1.subscribe();
    let run = host1.start_run(request(&model, "Đặt vé cho tôi", &slow)).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while slow.asked.lock().unwrap().is_empty() {
        assert!(Instant::now() < deadline, "nobody was asked");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    host1.close().await;
    assert_eq!(ended(&mut rx, &run.run_id).await, (RunStatus::Paused, StopReason::Interrupted));
    drop(host1);

    let host2 = host(dir.path()).await;
    let store = host2.core().store();
    let calls = store.tool_calls().for_run(&run.run_id).await.unwrap();
    assert!(calls.iter().all(|c| c.status != halley::store::tool_calls::ToolCallStatus::Cancelled), "{calls:#?}");
    let conversation = store.runs().get(&run.run_id).await.unwrap().unwrap().conversation_id.unwrap();
    let messages = store.messages().for_conversation(&conversation).await.unwrap();
    let said: String = messages.iter().filter_map(|m| m.content.clone()).collect();
    assert!(!said.contains("\"approved\":false"), "a refusal was recorded for the person: {said}");

    // Resumed: asked again, approved this time, then the model answers.
    let user = Scripted::new(&[true]);
    let model = ModelServer::start(vec![Turn::text("Đã đặt vé.")]);
    let mut rx = host2.subscribe();
    host2.start_run(RunRequest { resume: Some(run.run_id.clone()), ..request(&model, "", &user) }).await.unwrap();
    assert_eq!(ended(&mut rx, &run.run_id).await, (RunStatus::Completed, StopReason::EndTurn));
    let asked = user.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "{asked:#?}");
    assert!(asked[0].action_summary.contains("HAN→NRT"), "{:?}", asked[0].action_summary);
    let sent = model.requests();
    let last = sent.last().unwrap().to_string();
    assert!(last.contains("\\\"approved\\\":true") || last.contains("\"approved\":true"), "{last}");
    host2.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_stopped_before_the_close_stays_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let host1 = host(dir.path()).await;
    let order = json!({"action_summary": "Mua vé", "cost_estimate": {"amount": 500000, "currency": "VND"}});
    let model = ModelServer::start(vec![Turn::tool_calls(vec![ToolCall::new("request_user_confirmation", order)])]);
    let slow = Arc::new(Scripted { think_ms: 120_000, ..Scripted::default() });
    let mut rx = host1.subscribe();
    let run = host1.start_run(request(&model, "Mua vé", &slow)).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while slow.asked.lock().unwrap().is_empty() {
        assert!(Instant::now() < deadline, "nobody was asked");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    host1.stop(Some(&run.run_id)).unwrap();
    host1.close().await;
    assert_eq!(ended(&mut rx, &run.run_id).await, (RunStatus::Cancelled, StopReason::Cancelled));
}
