//! The person's data bound to where it was given (issue 42, item 3), on
//! real Chromium with hostile pages of our own (`tests/fixtures/site/sealed/`):
//!
//! - what the person writes in their own message reaches the model sealed:
//!   the model's requests never hold their passport, phone, email, card or
//!   address (in clear or in the spellings a page could ask for), only
//!   placeholders, which `browser_type` fills in for real where the person
//!   approves;
//! - once a value of theirs is typed into a page, the tab's requests to any
//!   other site are asked about, whatever their encoding (base64 of the
//!   reverse, hex, spelled out in Vietnamese words, shifted by one, base64
//!   twice in a frame, reversed in a navigation, 1.5 s later): refused, the
//!   other site receives nothing; approved, what the dialog showed, once.
//!   The page's own site still gets it, and what the tab sent another site
//!   before the value was typed goes on unasked.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use halley::agent::ModelFlags;
use halley::agent::run::AgentEvent;
use halley::core::BrowserSettings;
use halley::gate::Confirmer;
use halley::host::{Host as Halley, RunModel, RunRequest};
use halley::protocol::Event;
use halley::{DataDir, FrontEnd};
use serde_json::json;

use super::gate_browser::{Scripted, core_with};
use crate::common::browser::have_browser;
use crate::common::fixtures::{FixtureServer, Host, Recorded};
use crate::common::model_server::{ModelServer, ToolCall, Turn};

const PASSPORT: &str = "B7654321";

fn elsewhere(site: &FixtureServer) -> String {
    site.other_origin().replace("127.0.0.1", "localhost")
}

/// Every spelling of `value` a request could carry that this test knows
/// of (the gate knows none of them: it asks whatever the encoding).
fn spellings(value: &str) -> Vec<String> {
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    let rev: String = value.chars().rev().collect();
    let hex: String = value.bytes().map(|b| format!("{b:02x}")).collect();
    let shift: String = value.chars().map(|c| char::from_u32(c as u32 + 1).unwrap_or(c)).collect();
    vec![value.to_owned(), value.to_lowercase(), rev.clone(), b64(&rev), hex, shift, b64(&b64(value)), b64(value)]
}

/// What a recorded request carries, all of it as text.
fn carried(r: &Recorded) -> String {
    let form: Vec<String> = r.form.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!(
        "{} {}?{} {} {} {}",
        r.method,
        r.path,
        r.query.as_deref().unwrap_or_default(),
        r.referer.as_deref().unwrap_or_default(),
        r.body.as_deref().unwrap_or_default(),
        form.join("&")
    )
}

fn holds_passport(text: &str) -> bool {
    let decoded = percent_decode(text);
    spellings(PASSPORT).iter().any(|s| decoded.contains(s.as_str())) || decoded.contains("bảy sáu năm bốn ba hai một")
}

fn percent_decode(s: &str) -> String {
    url::form_urlencoded::parse(s.replace('+', "%2B").as_bytes())
        .map(|(k, v)| format!("{k}{v}"))
        .collect::<Vec<_>>()
        .join("&")
        + s
}

/// Type the person's passport (a profile placeholder) into a hostile page
/// that sends it to another site, encoded its own way: the typing is asked
/// (approved), then the leak is asked and refused, and the other site gets
/// nothing of it, in any spelling; approved (the control), it gets what
/// the dialog showed, once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_fill_the_tabs_requests_to_other_sites_are_asked_whatever_their_encoding() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let cases = [
        ("img-b64rev", false),
        ("img-b64rev", true),
        ("fetch-hex", false),
        ("beacon-words", false),
        ("shift", false),
        ("frame-b64x2", false),
        ("navigate-rev", false),
    ];
    for (v, yes) in cases {
        site.clear();
        let tmp = tempfile::tempdir().unwrap();
        let confirmer = Scripted::new(&[true, yes]);
        let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
        let set = core.call_tool(&cx, "user_profile_set", json!({"set": {"travel.passportNumber": PASSPORT}})).await;
        assert!(set.is_ok(), "{set:?}");
        let page = format!("{}?v={v}&to={}", site.url("sealed/fill.html"), elsewhere(&site));
        let r = core.call_tool(&cx, "browser_navigate", json!({"url": page})).await;
        assert!(r.is_ok(), "{r:?}");
        let typed = core
            .call_tool(
                &cx,
                "browser_type",
                json!({"selector": "#passport", "text": "{{profile.travel.passportNumber}}"}),
            )
            .await;
        tokio::time::sleep(Duration::from_millis(2500)).await;
        // The next call reports what the page tried meanwhile.
        let next = core.call_tool(&cx, "browser_read_text", json!({})).await;
        let asked = confirmer.asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 2, "{v} (answer {yes}): the typing, then the leak: {asked:#?}");
        assert!(asked[0].risks.iter().any(|w| w.contains("passportNumber")), "{v}: {:?}", asked[0].risks);
        let leak = &asked[1];
        assert!(
            leak.risks.iter().any(|w| w.contains("typed into") && w.contains("another site")),
            "{v}: the question does not say why: {:?}",
            leak.risks
        );
        assert!(leak.destination.as_deref().unwrap_or_default().contains("localhost"), "{v}: {leak:?}");
        let away: Vec<Recorded> = site.requests().into_iter().filter(|r| r.host == Host::Other).collect();
        let leaked: Vec<&Recorded> = away.iter().filter(|r| holds_passport(&carried(r))).collect();
        if yes {
            assert_eq!(leaked.len(), 1, "{v}: approved, sent once: {away:?}");
            let shown = leak.destination.as_deref().unwrap_or_default();
            assert!(shown.ends_with(&leaked[0].path), "{v}: the dialog showed {shown}, the site got {:?}", leaked[0]);
        } else {
            assert!(away.is_empty(), "{v}: refused, yet the other site got {away:?}");
            let told = [&typed, &next].iter().any(|r| r.error.as_ref().is_some_and(|e| e.code.as_str() == "denied"));
            assert!(told, "{v}: the model was not told: {typed:?} / {next:?}");
        }
        core.close().await;
    }
}

/// The controls: the page sending the value to its own site (where the
/// person gave it) asks nothing more than the typing; what the tab sent
/// another site before the value was typed, sent again, asks nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pages_own_site_and_what_went_before_the_fill_ask_nothing_more() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    for v in ["home", "again"] {
        site.clear();
        let tmp = tempfile::tempdir().unwrap();
        let confirmer = Scripted::new(&[true]);
        let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
        let set = core.call_tool(&cx, "user_profile_set", json!({"set": {"travel.passportNumber": PASSPORT}})).await;
        assert!(set.is_ok(), "{set:?}");
        let page = format!("{}?v={v}&to={}", site.url("sealed/fill.html"), elsewhere(&site));
        assert!(core.call_tool(&cx, "browser_navigate", json!({"url": page})).await.is_ok());
        let typed = core
            .call_tool(
                &cx,
                "browser_type",
                json!({"selector": "#passport", "text": "{{profile.travel.passportNumber}}"}),
            )
            .await;
        assert!(typed.is_ok(), "{v}: {typed:?}");
        tokio::time::sleep(Duration::from_millis(1200)).await;
        let next = core.call_tool(&cx, "browser_read_text", json!({})).await;
        assert!(next.is_ok(), "{v}: {next:?}");
        let asked = confirmer.asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 1, "{v}: only the typing is asked: {asked:#?}");
        if v == "home" {
            let home: Vec<Recorded> =
                site.requests().into_iter().filter(|r| r.host == Host::Main && r.path == "/api/pax/check").collect();
            assert_eq!(home.len(), 1, "the page's own site did not get it: {home:?}");
            assert!(carried(&home[0]).contains(PASSPORT), "{:?}", home[0]);
        } else {
            let pixels = site.requests().into_iter().filter(|r| r.host == Host::Other && r.path == "/pixel").count();
            assert!(pixels >= 1, "the pixel before the fill did not go");
        }
        core.close().await;
    }
}

/// A run whose task holds the person's passport, phone and email: no
/// request to the model holds any of them (in clear or in a spelling a
/// page could ask for), only placeholders; the model types the passport's
/// placeholder, the person is asked (naming it as theirs, from their
/// message) and approves, and the page's own site gets the real value.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_persons_own_values_reach_the_model_sealed_and_are_typed_for_real() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let page = format!("{}?v=home&to={}", site.url("sealed/fill.html"), elsewhere(&site));
    let task = format!(
        "Điền hộ chiếu {PASSPORT} vào trang {page}. Số điện thoại của tôi là 0901 234 567, email lan.nguyen@example.vn."
    );
    let sealed = halley::secrets::message::seal(&task);
    let passport = sealed.values.iter().find(|v| v.value == PASSPORT).expect("the passport is sealed");
    let placeholder = format!("{{{{{}}}}}", passport.name);
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": page}))]),
        Turn::tool_calls(vec![ToolCall::new("browser_type", json!({"selector": "#passport", "text": placeholder}))]),
        Turn::text("Đã điền."),
    ]);
    let tmp = tempfile::tempdir().unwrap();
    let browser = BrowserSettings { headless: true, ..BrowserSettings::default() };
    let host = Halley::open(DataDir::at(tmp.path().join("data")), browser).await.unwrap();
    let user = Scripted::new(&[true]);
    let flags = ModelFlags { base_url: Some(model.base_url()), model: Some("m".into()), ..ModelFlags::default() };
    let mut rx = host.subscribe();
    let run = host
        .start_run(RunRequest {
            model: RunModel::Flags(flags),
            confirmer: Some(Arc::clone(&user) as Arc<dyn Confirmer>),
            ..RunRequest::new(FrontEnd::Panel, task.clone())
        })
        .await
        .unwrap();
    let mut results = Vec::new();
    loop {
        match tokio::time::timeout(Duration::from_secs(90), rx.recv()).await.expect("the run ends").unwrap() {
            Event::Agent { run_id, event: AgentEvent::ToolResult { name, result, .. } } if run_id == run.run_id => {
                results.push((name, result));
            }
            Event::RunEnded { run_id, .. } if run_id == run.run_id => break,
            _ => {}
        }
    }
    let typed = results.iter().find(|(n, _)| n == "browser_type").expect("typed");
    assert!(typed.1.is_ok(), "{typed:?}");

    // What the model was sent: placeholders, never the values.
    let sent: Vec<String> = model.requests().iter().map(|r| r.to_string()).collect();
    assert_eq!(sent.len(), 3);
    for (i, body) in sent.iter().enumerate() {
        for raw in [PASSPORT, "0901 234 567", "0901234567", "lan.nguyen@example.vn"] {
            assert!(!body.contains(raw), "request {i} to the model holds {raw}");
        }
        assert!(!holds_passport(body), "request {i} to the model holds a spelling of the passport");
        assert!(body.contains("{{secret.msg.passport_"), "request {i}: no placeholder: {body}");
        assert!(body.contains("{{secret.msg.phone_") && body.contains("{{secret.msg.email_"), "request {i}");
    }
    // The person was asked, the value named as theirs, from their message.
    let asked = user.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "{asked:#?}");
    assert!(asked[0].risks.iter().any(|w| w.contains("passport number from your message")), "{:?}", asked[0].risks);
    // The page's own site got the real value, typed for real.
    let home: Vec<Recorded> =
        site.requests().into_iter().filter(|r| r.host == Host::Main && r.path == "/api/pax/check").collect();
    assert_eq!(home.len(), 1, "{home:?}");
    assert!(carried(&home[0]).contains(PASSPORT), "{:?}", home[0]);
    // The run's values are gone with it.
    assert_eq!(host.core().store().sensitive_results().len(), 0);
    host.close().await;
}

/// Another program's words are sealed as the person's own are: a file read
/// through an MCP server (the real `server-filesystem`) holds the person's
/// passport, phone and email; the model's next request holds placeholders
/// only, and the result the run records too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_tools_result_reaches_the_model_sealed() {
    use crate::common::{Halley as Cli, mcp};
    let h = Cli::new();
    let note = h.write_file(
        "ho-so.txt",
        "Hồ sơ\nHộ chiếu: B7654321\nSĐT: 0901 234 567\nEmail: lan.nguyen@example.vn\n".as_bytes(),
    );
    let fs = mcp::bin("mcp-server-filesystem");
    let root = h.work_dir();
    let added = h.run(&["mcp", "add", "fs", "--", fs.to_str().unwrap(), root.to_str().unwrap()]);
    assert_eq!(added.code, 0, "{}\n{}", added.stdout, added.stderr);
    assert_eq!(h.run(&["rules", "add", "--tool", "fs__read_text_file", "allow"]).code, 0);
    let host = super::lasts_profile::host(&h).await;
    let user = Scripted::new(&[]);
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("fs__read_text_file", json!({"path": note.to_str().unwrap()}))]),
        Turn::text("Đã đọc."),
    ]);
    let ran = super::lasts_profile::run(&host, &model, "Đọc hồ sơ của tôi", None, &user).await;
    let read = ran.result("fs__read_text_file");
    assert!(read.is_ok(), "{read:?}");
    let shown = read.data.to_string();
    assert!(!shown.contains(PASSPORT) && !shown.contains("0901 234 567"), "{shown}");
    assert!(shown.contains("{{secret.msg.passport_"), "{shown}");
    let sent: Vec<String> = model.requests().iter().map(|r| r.to_string()).collect();
    assert_eq!(sent.len(), 2);
    for raw in [PASSPORT, "0901 234 567", "lan.nguyen@example.vn"] {
        assert!(!sent[1].contains(raw), "the model got {raw}");
    }
    assert!(!holds_passport(&sent[1]));
    assert!(sent[1].contains("{{secret.msg.phone_") && sent[1].contains("{{secret.msg.email_"), "{}", sent[1]);
    host.close().await;
}
