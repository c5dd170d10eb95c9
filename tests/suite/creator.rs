//! The creator skills end to end: a `halley run` with the scripted model
//! (its language steps are plain chat requests to the same server), direct
//! calls without a model, real Chromium on the fixture sites, and the gate
//! asking before anything is posted, hidden, deleted or blocked.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use halley::agent::ModelFlags;
use halley::agent::run::AgentEvent;
use halley::core::BrowserSettings;
use halley::gate::{ConfirmationRequest, Confirmer};
use halley::host::{Host, RunModel, RunRequest};
use halley::protocol::Event;
use halley::tools::catalogue::safety::ConfirmResultV1;
use halley::{DataDir, FrontEnd};

use crate::common::browser::have_browser;
use crate::common::fixtures::FixtureServer;
use crate::common::model_server::{ModelServer, ToolCall, Turn};
use crate::common::{Halley, Run, ical};

fn events(stdout: &str) -> Vec<Value> {
    stdout.lines().filter(|l| l.starts_with('{')).map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// `halley --headless run TASK --json` against `model`, plus `extra` flags.
fn run_task(h: &Halley, model: &ModelServer, task: &str, extra: &[&str]) -> Run {
    let base = model.base_url();
    let mut args = vec!["--headless", "run", task, "--json", "--base-url", &base, "--model", "scripted-model"];
    args.extend_from_slice(extra);
    h.run(&args)
}

/// The skill's result in a run's events (its `data`), which must be ok.
fn skill_result(run: &Run, name: &str) -> Value {
    let evs = events(&run.stdout);
    let r = evs
        .iter()
        .find(|e| e["type"] == "tool_result" && e["name"] == name)
        .unwrap_or_else(|| panic!("no result of {name}:\n{}\n{}", run.stdout, run.stderr));
    assert_eq!(r["result"]["status"], "ok", "{r}");
    r["result"]["data"].clone()
}

/// The run's stored tool calls: (call id, tool, status).
fn timeline(h: &Halley, run: &Run) -> Vec<(String, String, String)> {
    let last = events(&run.stdout).pop().unwrap();
    let shown = h.run(&["runs", "show", last["run_id"].as_str().unwrap(), "--json"]);
    assert_eq!(shown.code, 0, "{}", shown.stderr);
    shown.json()["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let s = |k: &str| c[k].as_str().unwrap_or_default().to_owned();
            (s("call_id"), s("tool"), s("status"))
        })
        .collect()
}

fn row(id: &str, tool: &str, status: &str) -> (String, String, String) {
    (id.to_owned(), tool.to_owned(), status.to_owned())
}

/// The text of a stored file.
fn stored(h: &Halley, id: &str) -> String {
    let got = h.call("files_get", &json!({"id": id}));
    assert_eq!(got.code, 0, "{}", got.stderr);
    let reference = got.result()["data"]["files"][0]["ref"].as_str().unwrap().to_owned();
    std::fs::read_to_string(reference.trim_start_matches("file://")).unwrap()
}

/// The gate's questions in the audit log: (tool, effective scope, answer).
fn asked(h: &Halley) -> Vec<(String, String, String)> {
    let audit = h.run(&["audit", "--json", "--limit", "200"]);
    assert_eq!(audit.code, 0, "{}", audit.stderr);
    let mut rows: Vec<(String, String, String)> = audit
        .json()
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["event"] == "gate_decision" && e["answered_by"] != "policy")
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap_or_default().to_owned();
            (s("tool"), s("effective"), s("decision"))
        })
        .collect();
    rows.reverse();
    rows
}

#[test]
fn a_run_plans_a_calendar_in_the_users_zone_with_titles_from_the_model() {
    let h = Halley::new();
    let set = h.call("user_profile_set", &json!({"set": {"time_zone": "Asia/Tokyo"}}));
    assert_eq!(set.code, 0, "{}", set.stderr);
    let note =
        h.write_file("notes.md", "# AI browsers\n- Agents fill forms for users (source: example.org)\n".as_bytes());
    let kept = h.call("files_store", &json!({"file_path": note.display().to_string(), "tags": ["creator-research"]}));
    assert_eq!(kept.code, 0, "{}", kept.stderr);
    let args = json!({"channels": ["youtube", "tiktok"], "cadence": "3_per_week",
        "pillars": ["tech", "build-in-public"], "start_date": "2026-11-30", "weeks": 1});
    let titles = json!({"titles": [
        {"slot": 1, "title": "Trình duyệt AI điền form thay bạn"},
        {"slot": 2, "title": "Tuần 12: dựng bảng điều khiển"},
        {"slot": 3, "title": "5 việc agent làm tốt hơn người"}
    ], "backlog": ["So sánh Halley với Playwright MCP", "Hậu trường: kiểm thử với Chromium thật"]});
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("creator_plan_calendar", args)]),
        // The small-model quirk: a cut-off object first, the right one when told.
        Turn::text("Đây là lịch: {\"titles\": [{\"slot\": 1"),
        Turn::text(&titles.to_string()),
        Turn::text("Lịch đã sẵn sàng."),
    ]);
    let run = run_task(&h, &model, "Lên lịch nội dung tuần tới", &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let out = skill_result(&run, "creator_plan_calendar");
    let slots = out["calendar"].as_array().unwrap();
    let got: Vec<(&str, &str, &str, &str, &str)> = slots
        .iter()
        .map(|s| {
            let f = |k: &str| s[k].as_str().unwrap_or_default();
            (f("date"), f("start"), f("channel"), f("pillar"), f("title"))
        })
        .collect();
    let (t1, t2, t3) =
        ("Trình duyệt AI điền form thay bạn", "Tuần 12: dựng bảng điều khiển", "5 việc agent làm tốt hơn người");
    assert_eq!(
        got,
        vec![
            ("2026-11-30", "2026-11-30T19:00:00+09:00", "youtube", "tech", t1),
            ("2026-11-30", "2026-11-30T19:00:00+09:00", "tiktok", "tech", t1),
            ("2026-12-02", "2026-12-02T19:00:00+09:00", "youtube", "build-in-public", t2),
            ("2026-12-02", "2026-12-02T19:00:00+09:00", "tiktok", "build-in-public", t2),
            ("2026-12-04", "2026-12-04T19:00:00+09:00", "youtube", "tech", t3),
            ("2026-12-04", "2026-12-04T19:00:00+09:00", "tiktok", "tech", t3),
        ]
    );
    assert_eq!(out["backlog"], titles["backlog"]);
    assert_eq!((out["status"].as_str(), out["time_zone"].as_str()), (Some("ok"), Some("Asia/Tokyo")));
    assert_eq!(out["notes"], Value::Null, "nothing to note: {out}");

    // The iCalendar file, read back strictly: 19:00 in Tokyo is 10:00 UTC.
    let ics = stored(&h, out["calendar_ref"].as_str().unwrap());
    let vevents = ical::read(&ics);
    assert_eq!(vevents.len(), 6);
    assert_eq!(vevents[0]["DTSTART"], "20261130T100000Z");
    assert_eq!(ical::unescape(&vevents[3]["SUMMARY"]), format!("[tiktok] {t2}"));
    assert_eq!(vevents[4]["CATEGORIES"], "tech");

    // The language step saw the pillars, the slots and the research note;
    // the malformed answer was asked again.
    let reqs = model.requests();
    assert_eq!(reqs.len(), 4);
    let asked_model = reqs[1]["messages"].to_string();
    assert!(asked_model.contains("Agents fill forms for users") && asked_model.contains("build-in-public"));
    assert!(reqs[2]["messages"].to_string().contains("not usable"), "{}", reqs[2]["messages"]);
    // Every step in the run's timeline.
    assert_eq!(
        timeline(&h, &run),
        vec![
            row("call_1.1", "user_profile_get", "ok"),
            row("call_1.2", "files_get", "ok"),
            row("call_1.4", "files_store", "ok"),
            row("call_1", "creator_plan_calendar", "ok"),
        ]
    );
    // The skill's own call is audited beside its steps, under the same run.
    let run_id = events(&run.stdout).pop().unwrap()["run_id"].as_str().unwrap().to_owned();
    let audit: Vec<Value> = audit_rows(&h).into_iter().filter(|e| e["run_id"] == run_id.as_str()).collect();
    assert_eq!(audited(&audit), audited_calendar("cli"));
    let skill = &audit[3];
    assert_eq!(
        (&skill["call_id"], &skill["status"], &skill["outcome"], &skill["decision"]),
        (&json!("call_1"), &json!("ok"), &json!("ok"), &Value::Null)
    );
}

/// The audit log, oldest first (`halley audit --json`).
fn audit_rows(h: &Halley) -> Vec<Value> {
    let audit = h.run(&["audit", "--json", "--limit", "200"]);
    assert_eq!(audit.code, 0, "{}", audit.stderr);
    audit.json().as_array().unwrap().iter().rev().cloned().collect()
}

/// Audit rows as (event, tool, who).
fn audited(rows: &[Value]) -> Vec<(String, String, String)> {
    let s = |e: &Value, k: &str| e[k].as_str().unwrap_or_default().to_owned();
    rows.iter().map(|e| (s(e, "event"), s(e, "tool"), s(e, "answered_by"))).collect()
}

/// What a calendar's call leaves in the audit log: its steps' decisions,
/// then its own call by `caller`.
fn audited_calendar(caller: &str) -> Vec<(String, String, String)> {
    [("gate_decision", "user_profile_get", "policy"), ("gate_decision", "files_get", "policy")]
        .into_iter()
        .chain([("gate_decision", "files_store", "policy"), ("skill_call", "creator_plan_calendar", caller)])
        .map(|(e, t, w)| (e.to_owned(), t.to_owned(), w.to_owned()))
        .collect()
}

/// A skill called directly (no run, no model) is audited too: its steps'
/// gate decisions and its own call, the arguments as a hash only.
#[test]
fn a_skills_own_call_is_audited_with_its_steps_and_no_argument_values() {
    let h = Halley::new();
    let args = json!({"channels": ["zalo"], "cadence": "weekly", "pillars": ["Hậu trường bí mật"],
        "start_date": "2026-12-07", "weeks": 1});
    let run = h.call("creator_plan_calendar", &args);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let rows = audit_rows(&h);
    assert_eq!(audited(&rows), audited_calendar("cli"));
    let skill = &rows[3];
    assert_eq!(skill["args_hash"], json!(halley::gate::audit::args_hash(&args)));
    assert_eq!((&skill["declared"], &skill["effective"]), (&json!("READ_ONLY"), &json!("READ_ONLY")));
    // Ran without a model: the call is ok, the skill says its titles are placeholders.
    assert_eq!(
        (&skill["status"], &skill["outcome"], &skill["error_code"]),
        (&json!("ok"), &json!("partial"), &Value::Null)
    );
    let all = serde_json::to_string(&rows).unwrap();
    assert!(!all.contains("Hậu trường") && !all.contains("zalo"), "{all}");
    // The table names the skill and how it ended.
    let table = h.run(&["audit"]);
    assert!(table.stdout.contains("creator_plan_calendar (partial)"), "{}", table.stdout);

    // A call the skill refuses (blank channels) is audited as an error.
    let bad = h.call("creator_plan_calendar", &json!({"channels": ["  "], "cadence": "weekly"}));
    assert_ne!(bad.code, 0);
    let last = h.run(&["audit", "--json", "--limit", "1"]).json()[0].clone();
    assert_eq!(
        (&last["event"], &last["status"], &last["error_code"]),
        (&json!("skill_call"), &json!("error"), &json!("invalid_arguments"))
    );
}

#[test]
fn without_a_model_the_calendar_rotates_the_pillars_and_says_so() {
    let h = Halley::new();
    let args = json!({"channels": ["facebook"], "cadence": "2_per_month", "pillars": ["review", "tips", "vlog"],
        "start_date": "2026-12-01", "weeks": 6, "time_of_day": "20:30"});
    let run = h.call("creator_plan_calendar", &args);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let out = run.result()["data"].clone();
    let got: Vec<(&str, &str, &str)> = out["calendar"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["start"].as_str().unwrap(), s["pillar"].as_str().unwrap(), s["title"].as_str().unwrap()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("2026-12-01T20:30:00+07:00", "review", "review: topic to choose"),
            ("2026-12-16T20:30:00+07:00", "tips", "tips: topic to choose"),
            ("2027-01-01T20:30:00+07:00", "vlog", "vlog: topic to choose"),
        ]
    );
    assert_eq!((out["status"].as_str(), out["time_zone"].as_str()), (Some("partial"), Some("Asia/Ho_Chi_Minh")));
    let notes = out["notes"].to_string();
    assert!(notes.contains("no model") && notes.contains("3 of 3 slots"), "{notes}");
    assert_eq!(out["backlog"], json!([]));
    assert_eq!(ical::read(&stored(&h, out["calendar_ref"].as_str().unwrap())).len(), 3);

    let bad = h.call("creator_plan_calendar", &json!({"channels": ["x"], "cadence": "9_per_week"}));
    assert_ne!(bad.code, 0);
    assert!(bad.stdout.contains("invalid_arguments") && bad.stdout.contains("7_per_week"), "{}", bad.stdout);
}

const POLICY: &str = "# Reply policy\n- Answer questions briefly, in the commenter's language.\n\
    - Thank praise warmly.\n- Complaints: apologise and promise a fix.\n- Spam: hide. Insults: block, no reply.\n";

#[test]
fn a_run_triages_two_threads_and_suggests_replies_without_posting_anything() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    h.write_file("reply_policy.md", POLICY.as_bytes());
    let (t1, t2) = (site.url("creator/thread/1"), site.other_url("creator/thread/2"));
    let item = |id: &str, category: &str, priority: &str, lang: &str, reply: Value, action: &str| {
        json!({"comment_id": id, "category": category, "priority": priority, "summary": format!("{category} {id}"),
               "language": lang, "reply": reply, "action": action})
    };
    let sorted = json!({"items": [
        item("c1", "question", "high", "vi", json!("Chào Lan, mình dùng micro Rode NT-USB nhé!"), "none"),
        item("c2", "praise", "low", "vi", json!("Cảm ơn Minh đã xem!"), "none"),
        item("c3", "complaint", "high", "en", json!("Sorry Sarah, a fixed upload is coming."), "none"),
        item("c4", "spam", "low", "vi", Value::Null, "hide"),
        item("c5", "question", "medium", "en", json!("Plain TypeScript, no framework."), "none"),
        item("c6", "abuse", "medium", "vi", Value::Null, "block"),
    ]});
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new(
            "creator_triage_inbox",
            json!({"thread_urls": [t1, t2], "policy_ref": "file://reply_policy.md"}),
        )]),
        Turn::text(&sorted.to_string()),
        Turn::text("Đã phân loại 6 bình luận."),
    ]);
    let run = run_task(&h, &model, "Phân loại bình luận hai video mới", &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let out = skill_result(&run, "creator_triage_inbox");
    let triage: Vec<(String, String, String, String, String, String)> = out["triage"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let s = |k: &str| t[k].as_str().unwrap_or("-").to_owned();
            (s("url"), s("author"), s("category"), s("priority"), s("language"), s("suggested_action"))
        })
        .collect();
    let r = |url: &str, id: &str, author: &str, cat: &str, pr: &str, lang: &str, act: &str| {
        (format!("{url}#{id}"), author.to_owned(), cat.to_owned(), pr.to_owned(), lang.to_owned(), act.to_owned())
    };
    assert_eq!(
        triage,
        vec![
            r(&t1, "c1", "Lan Nguyễn", "question", "high", "vi", "-"),
            r(&t1, "c2", "Minh Trần", "praise", "low", "vi", "-"),
            r(&t1, "c3", "Sarah K.", "complaint", "high", "en", "-"),
            r(&t1, "c4", "kiemtien247", "spam", "low", "vi", "hide"),
            r(&t2, "c5", "Tom", "question", "medium", "en", "-"),
            r(&t2, "c6", "anon_77", "abuse", "medium", "vi", "block"),
        ],
        "{out}"
    );
    assert_eq!(out["triage"][2]["text"], "The audio is out of sync after minute 5, really annoying.");
    let replies: Vec<(&str, &str)> = out["suggested_replies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["comment_id"].as_str().unwrap(), r["reply"].as_str().unwrap()))
        .collect();
    assert_eq!(
        replies,
        vec![
            ("c1", "Chào Lan, mình dùng micro Rode NT-USB nhé!"),
            ("c2", "Cảm ơn Minh đã xem!"),
            ("c3", "Sorry Sarah, a fixed upload is coming."),
            ("c5", "Plain TypeScript, no framework."),
        ]
    );
    assert_eq!(out["status"], "ok");
    // The model was given the policy and the comments as data.
    let asked_model = model.requests()[1]["messages"].to_string();
    assert!(asked_model.contains("Spam: hide") && asked_model.contains("Kiếm 5 triệu mỗi ngày"), "{asked_model}");
    assert_eq!(
        timeline(&h, &run),
        vec![
            row("call_1.1", "browser_navigate", "ok"),
            row("call_1.2", "browser_get_dom", "ok"),
            row("call_1.3", "browser_navigate", "ok"),
            row("call_1.4", "browser_get_dom", "ok"),
            row("call_1.5", "files_store", "ok"),
            row("call_1", "creator_triage_inbox", "ok"),
        ]
    );
    assert_eq!(site.posts(), vec![], "a triage posts nothing");
    assert_eq!(asked(&h), vec![], "and asks nothing");
}

fn batch(site: &FixtureServer) -> Value {
    json!({
        "thread_urls": [site.url("creator/thread/1"), site.other_url("creator/thread/2")],
        "apply": [
            {"comment_id": "c1", "action": "reply", "text": "Chào Lan, mình dùng micro Rode NT-USB nhé!"},
            {"comment_id": "c4", "action": "hide"},
            {"comment_id": "c3", "action": "delete"},
            {"comment_id": "c6", "action": "block"},
        ]
    })
}

#[test]
fn an_approved_batch_is_confirmed_action_by_action_and_denied_it_sends_nothing() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let denied = h.run(&[
        "--headless",
        "tools",
        "call",
        "creator_triage_inbox",
        "--args",
        &batch(&site).to_string(),
        "--confirm",
        "deny",
    ]);
    assert_eq!(denied.code, 0, "{}\n{}", denied.stdout, denied.stderr);
    let out = denied.result()["data"].clone();
    assert_eq!(out["status"], "needs_confirmation", "{out}");
    let applied: Vec<(&str, &str, bool, &str)> = out["applied"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            let err = a["error"].as_str().unwrap_or("");
            (
                a["comment_id"].as_str().unwrap(),
                a["action"].as_str().unwrap(),
                a["done"].as_bool().unwrap(),
                &err[..err.find(':').unwrap_or(0)],
            )
        })
        .collect();
    assert_eq!(
        applied,
        vec![
            ("c1", "reply", false, "denied"),
            ("c4", "hide", false, "denied"),
            ("c3", "delete", false, "denied"),
            ("c6", "block", false, "denied")
        ]
    );
    assert_eq!(site.posts(), vec![], "nothing was posted, hidden, deleted or blocked");
    let questions = |answer: &str| {
        vec![
            ("browser_click".to_owned(), "PUBLISH".to_owned(), answer.to_owned()),
            ("browser_click".to_owned(), "DESTRUCTIVE".to_owned(), answer.to_owned()),
            ("browser_click".to_owned(), "DESTRUCTIVE".to_owned(), answer.to_owned()),
            ("browser_click".to_owned(), "DESTRUCTIVE".to_owned(), answer.to_owned()),
        ]
    };
    assert_eq!(asked(&h), questions("deny"));

    // Approved: each action done once, and asked once.
    let h = Halley::new();
    let approved =
        h.run(&["--headless", "tools", "call", "creator_triage_inbox", "--args", &batch(&site).to_string(), "--yes"]);
    assert_eq!(approved.code, 0, "{}\n{}", approved.stdout, approved.stderr);
    let out = approved.result()["data"].clone();
    assert_eq!(out["status"], "ok", "{out}");
    assert!(out["applied"].as_array().unwrap().iter().all(|a| a["done"] == true), "{out}");
    let posts: Vec<(String, Vec<(String, String)>)> = site.posts().into_iter().map(|p| (p.path, p.form)).collect();
    assert_eq!(
        posts,
        vec![
            (
                "/creator/comments/c1/reply".to_owned(),
                vec![("reply".to_owned(), "Chào Lan, mình dùng micro Rode NT-USB nhé!".to_owned())]
            ),
            ("/creator/comments/c4/hide".to_owned(), vec![]),
            ("/creator/comments/c3/delete".to_owned(), vec![]),
            ("/creator/comments/c6/block".to_owned(), vec![]),
        ]
    );
    assert_eq!(asked(&h), questions("allow"));
}

fn post_args(site: &FixtureServer) -> Value {
    json!({"channel": "youtube", "title": "Trình duyệt AI: 5 điều bạn chưa biết",
        "description": "Tập 12 của series build-in-public.", "media_refs": ["file://video.mp4"],
        "schedule_time": "2026-12-15T19:00:00+07:00", "studio_url": site.url("creator/studio.html?solve_after=1500")})
}

/// The user at the panel: approves every question and keeps it.
#[derive(Debug, Default)]
struct Approver {
    asked: std::sync::Mutex<Vec<ConfirmationRequest>>,
}

impl Confirmer for Approver {
    fn confirm<'a>(
        &'a self,
        request: &'a ConfirmationRequest,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ConfirmResultV1> + Send + 'a>> {
        self.asked.lock().unwrap().push(request.clone());
        Box::pin(async { ConfirmResultV1 { approved: true, user_edits: Default::default(), reason: String::new() } })
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_drafts_a_post_past_the_2fa_and_schedules_it_once_approved() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let video = b"\x00\x00\x00\x18ftypmp42 fixture video bytes";
    let video_path = tmp.path().join("video.mp4");
    std::fs::write(&video_path, video).unwrap();
    let mut args = post_args(&site);
    args["media_refs"] = json!([format!("file://{}", video_path.display())]);
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("creator_schedule_post", args)]),
        Turn::text("Đã lên lịch video."),
    ]);
    let browser = BrowserSettings { headless: true, ..BrowserSettings::default() };
    let host = Host::open(DataDir::at(tmp.path().join("data")), browser).await.unwrap();
    let mut rx = host.subscribe();
    let user = std::sync::Arc::new(Approver::default());
    let flags = ModelFlags { base_url: Some(model.base_url()), model: Some("m".into()), ..ModelFlags::default() };
    let run = host
        .start_run(RunRequest {
            model: RunModel::Flags(flags),
            confirmer: Some(user.clone() as std::sync::Arc<dyn Confirmer>),
            ..RunRequest::new(FrontEnd::Panel, "Lên lịch video mới lúc 19h ngày 15/12")
        })
        .await
        .unwrap();
    let mut out = None;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(90);
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match tokio::time::timeout(left, rx.recv()).await.expect("the run ends").unwrap() {
            Event::Agent { run_id, event: AgentEvent::ToolResult { name, result, .. } }
                if run_id == run.run_id && name == "creator_schedule_post" =>
            {
                assert!(result.is_ok(), "{result:?}");
                out = Some(result.data);
            }
            Event::RunEnded { run_id, .. } if run_id == run.run_id => break,
            _ => {}
        }
    }
    assert_eq!(
        out.unwrap(),
        json!({"draft_links": [site.url("creator/studio/drafts/d-1")], "publish_ready": true, "status": "ok",
               "visibility": "public", "published": true})
    );
    // Exactly one draft (with the video) and one publish, scheduled publicly.
    let posts = site.posts();
    let pairs = |v: &[(&str, &str)]| v.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect::<Vec<_>>();
    let got: Vec<(String, Vec<(String, String)>)> = posts.iter().map(|p| (p.path.clone(), p.form.clone())).collect();
    assert_eq!(
        got,
        vec![
            (
                "/creator/studio/draft".to_owned(),
                pairs(&[
                    ("title", "Trình duyệt AI: 5 điều bạn chưa biết"),
                    ("description", "Tập 12 của series build-in-public.")
                ])
            ),
            (
                "/creator/studio/publish".to_owned(),
                pairs(&[("draft_id", "d-1"), ("visibility", "public"), ("publish_at", "2026-12-15T19:00:00+07:00")])
            ),
        ]
    );
    use sha2::Digest;
    let file = &posts[0].files;
    assert_eq!(file.len(), 1);
    assert_eq!(
        (file[0].file_name.as_str(), file[0].sha256.clone()),
        ("video.mp4", hex::encode(sha2::Sha256::digest(video)))
    );
    // Asked before the upload, at the draft's form (it sends the media),
    // before publishing (with the post's details) and at the publish click.
    let asked = user.asked.lock().unwrap().clone();
    let tools: Vec<(&str, String)> = asked.iter().map(|q| (q.tool.as_str(), q.scope.to_string())).collect();
    assert_eq!(
        tools,
        vec![
            ("browser_upload_file", "SUBMIT".to_owned()),
            ("browser_click", "SUBMIT".to_owned()),
            ("request_user_confirmation", "SUBMIT".to_owned()),
            ("browser_click", "PUBLISH".to_owned()),
        ]
    );
    let fields: Vec<(&str, &str)> = asked[2].fields.iter().map(|f| (f.name.as_str(), f.value.as_str())).collect();
    for want in [
        ("title", "Trình duyệt AI: 5 điều bạn chưa biết"),
        ("channel", "youtube"),
        ("visibility", "public"),
        ("time", "2026-12-15T19:00:00+07:00"),
    ] {
        assert!(fields.contains(&want), "{want:?} not in {fields:?}");
    }
    let rows: Vec<(String, String)> = host
        .core()
        .store()
        .tool_calls()
        .for_run(&run.run_id)
        .await
        .unwrap()
        .into_iter()
        .map(|r| (r.call_id, r.tool))
        .collect();
    let want: Vec<(String, String)> = [
        "browser_navigate",
        "browser_detect_state",
        "human_solve_challenge",
        "browser_type",
        "browser_type",
        "browser_upload_file",
        "browser_click",
        "browser_get_dom",
        "request_user_confirmation",
        "browser_select_option",
        "browser_type",
        "browser_click",
    ]
    .iter()
    .enumerate()
    .map(|(i, t)| (format!("call_1.{}", i + 1), (*t).to_owned()))
    .chain([("call_1".to_owned(), "creator_schedule_post".to_owned())])
    .collect();
    assert_eq!(rows, want);
    host.close().await;
}

#[test]
fn denied_nothing_is_uploaded_or_published_and_without_an_account_the_api_way_says_so() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    h.write_file("video.mp4", b"fixture video");
    let run = h.run(&[
        "--headless",
        "tools",
        "call",
        "creator_schedule_post",
        "--args",
        &post_args(&site).to_string(),
        "--confirm",
        "deny",
    ]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let out = run.result()["data"].clone();
    assert_eq!(
        (&out["draft_links"], &out["publish_ready"], &out["status"], &out["published"]),
        (&json!([]), &json!(false), &json!("needs_confirmation"), &json!(false)),
        "{out}"
    );
    assert!(out["notes"][0].as_str().unwrap().contains("the user said no"), "{out}");
    assert_eq!(site.posts(), vec![], "nothing uploaded, nothing published");
    assert_eq!(asked(&h), vec![("browser_upload_file".to_owned(), "SUBMIT".to_owned(), "deny".to_owned())]);

    let mut api = post_args(&site);
    api.as_object_mut().unwrap().remove("studio_url");
    let run = h.call("creator_schedule_post", &api);
    assert_ne!(run.code, 0);
    assert!(run.stdout.contains("not_available") && run.stdout.contains("no account"), "{}", run.stdout);
}

#[test]
fn a_run_collects_research_with_checked_quotes_and_the_calendar_reads_it() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let (a1, a2) = (site.url("creator/article-1.html"), site.other_url("creator/article-2.html"));
    let notes = json!({
        "key_points": [
            {"claim": "Người dùng muốn trình duyệt tự điền biểu mẫu", "source": 1,
             "quote": "62% muốn trình duyệt \"tự điền biểu mẫu\" thay họ"},
            {"claim": "Agentic browsers ask before paying", "source": 2,
             "quote": "Most agentic browsers now ask before any payment"},
            // Not on that page: dropped by Halley.
            {"claim": "Agents replace search engines", "source": 2,
             "quote": "agents will replace search engines by 2026"}
        ],
        "numbers": [{"claim": "4.2 s per agent step", "source": 2, "quote": "a median of 4.2 seconds per agent step"}],
        "open_questions": ["Người dùng có tin agent đăng bài thay họ không?"]
    });
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new(
            "creator_collect_research",
            json!({"topic": "Xu hướng trình duyệt AI 2025", "max_sources": 3, "sources": [a1, a2]}),
        )]),
        Turn::text(&notes.to_string()),
        Turn::text("Đã ghi chú 3 ý có trích dẫn."),
    ]);
    let run = run_task(&h, &model, "Tìm hiểu xu hướng trình duyệt AI 2025", &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let out = skill_result(&run, "creator_collect_research");
    assert_eq!(
        out["citations_map"],
        json!({
            "Người dùng muốn trình duyệt tự điền biểu mẫu": [a1],
            "Agentic browsers ask before paying": [a2],
            "4.2 s per agent step": [a2],
        })
    );
    assert_eq!(out["citations"][0]["quote"], "62% muốn trình duyệt \"tự điền biểu mẫu\" thay họ");
    assert_eq!(out["sources"], json!([a1, a2]));
    assert_eq!(out["status"], "ok");
    let said = out["notes"].to_string();
    assert!(said.contains("the web search failed"), "{said}");
    assert!(said.contains("dropped \\\"Agents replace search engines\\\""), "{said}");
    let markdown = stored(&h, out["notes_ref"].as_str().unwrap());
    assert!(markdown.starts_with("# Research: Xu hướng trình duyệt AI 2025\n"), "{markdown}");
    assert!(
        markdown
            .contains("- Agentic browsers ask before paying [2]\n  > Most agentic browsers now ask before any payment")
    );
    assert!(!markdown.contains("replace search engines"), "{markdown}");
    assert!(markdown.contains(&format!("2. [Agentic browsers: the 2025 landscape]({a2})")), "{markdown}");
    assert_eq!(
        timeline(&h, &run),
        vec![
            row("call_1.1", "web_search", "error"),
            row("call_1.2", "browser_navigate", "ok"),
            row("call_1.3", "browser_read_text", "ok"),
            row("call_1.4", "browser_navigate", "ok"),
            row("call_1.5", "browser_read_text", "ok"),
            row("call_1.7", "files_store", "ok"),
            row("call_1", "creator_collect_research", "ok"),
        ]
    );
    // The notes are the calendar's research notes from now on.
    let files = h.call("files_get", &json!({"tags": ["creator-research"]}));
    assert_eq!(files.result()["data"]["files"].as_array().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn through_the_api_a_video_is_uploaded_once_approved_with_the_accounts_token() {
    use crate::common::oidc::{Consent, OidcServer, User, visit};
    if !crate::common::in_session() {
        return;
    }
    let server = OidcServer::start(600);
    let h = Halley::new();
    let (who, account) = super::oauth::login();
    let pending = super::oauth::connect(&h, &server.issuer, &[], &[]).await.expect("a sign-in URL");
    let callback = User::new().sign_in(&pending.url, &who, Consent::Grant).await;
    assert_eq!(visit(&callback).await.map(|(s, _)| s), Some(200));
    assert_eq!(pending.finish().await.code, 0);
    let api = crate::common::youtube::YouTubeApi::start(&server.issuer);
    let set = h.call("user_profile_set", &json!({"set": {"creator.youtube_api_base": api.base()}}));
    assert_eq!(set.code, 0, "{}", set.stderr);
    let video = b"\x00\x00\x00\x18ftypmp42 api video";
    h.write_file("video.mp4", video);
    let args = json!({"channel": "youtube", "title": "Tập 12: build in public", "description": "Hậu trường",
        "media_refs": ["file://video.mp4"], "schedule_time": "2026-12-15T19:00:00+07:00", "account": account});
    let call = |consent: &'static str| {
        let args = args.to_string();
        let h = &h;
        move || h.run(&["tools", "call", "creator_schedule_post", "--args", &args, consent])
    };

    // Denied: nothing reaches the platform.
    let denied = tokio::task::block_in_place(|| {
        h.run(&["tools", "call", "creator_schedule_post", "--args", &args.to_string(), "--confirm", "deny"])
    });
    assert_eq!(denied.code, 0, "{}\n{}", denied.stdout, denied.stderr);
    let out = denied.result()["data"].clone();
    assert_eq!(
        (&out["status"], &out["publish_ready"], &out["draft_links"]),
        (&json!("needs_confirmation"), &json!(false), &json!([])),
        "{out}"
    );
    assert_eq!(api.seen(), vec![], "nothing uploaded");

    // Approved: one resumable session, one upload, the bearer valid, scheduled
    // as YouTube schedules (private until publishAt).
    let approved = tokio::task::block_in_place(call("--yes"));
    assert_eq!(approved.code, 0, "{}\n{}", approved.stdout, approved.stderr);
    let out = approved.result()["data"].clone();
    assert_eq!(
        out,
        json!({"draft_links": ["https://studio.youtube.com/video/vid1/edit"], "publish_ready": true, "status": "ok",
               "visibility": "public", "published": true})
    );
    let seen = api.seen();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert!(seen.iter().all(|s| s.authorized), "{seen:?}");
    assert_eq!(
        seen[0].metadata,
        Some(json!({"snippet": {"title": "Tập 12: build in public", "description": "Hậu trường"},
            "status": {"privacyStatus": "private", "publishAt": "2026-12-15T19:00:00+07:00",
                       "selfDeclaredMadeForKids": false}}))
    );
    use sha2::Digest;
    assert_eq!(seen[1].sha256.as_deref(), Some(hex::encode(sha2::Sha256::digest(video)).as_str()));
    // Asked once a call, with the post's details (the sign-in was asked too);
    // no token in the output.
    let q = |tool: &str, scope: &str, answer: &str| (tool.to_owned(), scope.to_owned(), answer.to_owned());
    assert_eq!(
        asked(&h),
        vec![
            q("auth_oauth_connect", "SUBMIT", "allow"),
            q("request_user_confirmation", "READ_ONLY", "deny"),
            q("request_user_confirmation", "READ_ONLY", "allow"),
        ]
    );
    assert!(!approved.stdout.contains("Bearer"));
}
