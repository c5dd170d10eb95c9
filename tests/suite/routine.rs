//! Routines end to end on real Chromium and the fixture site: a run
//! recorded with the scripted model is saved, the model server is stopped,
//! and the routine replays through the gate (`halley routine`, and the
//! host's `RunRoutine` op as the panel sends it).

use std::sync::Arc;
use std::time::Duration;

use halley::core::BrowserSettings;
use halley::host::Host;
use halley::protocol::{ConfirmationRequest, Event, Op, Reply};
use halley::{DataDir, ErrorCode};
use pretty_assertions::assert_eq;
use serde_json::{Map, Value, json};

use crate::common::browser::have_browser;
use crate::common::fixtures::{FixtureServer, WatchedPage};
use crate::common::model_server::{ModelServer, ToolCall, Turn};
use crate::common::{Halley, Run};

/// `halley run TASK` against `model`, and the id of the run it recorded.
fn record(h: &Halley, model: &ModelServer, task: &str) -> String {
    let run = h.run_model(task, &model.base_url(), &["--confirm", "deny"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let last = run.events().last().cloned().unwrap();
    assert_eq!(last["type"], "final", "{}", run.stdout);
    last["run_id"].as_str().unwrap().to_owned()
}

fn replay(h: &Halley, name: &str, extra: &[&str]) -> Run {
    let mut args = vec!["--headless", "routine", "run", name, "--json", "--confirm", "deny"];
    args.extend_from_slice(extra);
    h.run(&args)
}

fn product(name: &str, price: u64) -> WatchedPage {
    WatchedPage { name: name.into(), price, in_stock: true, ..WatchedPage::default() }
}

/// The shop: a laptop and a phone page.
fn laptop_and_phone() -> FixtureServer {
    let site = FixtureServer::start();
    site.set_page("laptop", product("Laptop ASUS Vivobook 15", 21_490_000));
    site.set_page("phone", product("Điện thoại Galaxy A55", 8_990_000));
    site
}

/// The model's read of the page it is on: the product's name and price.
fn read_name_and_price() -> Turn {
    Turn::tool_calls(vec![ToolCall::new("browser_extract", json!({"schema": {"name": "string", "price": "number"}}))])
}

#[test]
fn a_saved_routine_reads_the_current_price_without_the_model() {
    if !have_browser() {
        return;
    }
    let site = laptop_and_phone();
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site.url("watched/laptop")}))]),
        Turn::tool_calls(vec![ToolCall::new("browser_snapshot", json!({}))]),
        read_name_and_price(),
        Turn::text("Laptop ASUS Vivobook 15 giá 21.490.000 ₫."),
    ]);
    let h = Halley::new();
    let run_id = record(&h, &model, "Laptop này giá bao nhiêu?");
    assert_eq!(model.request_count(), 4);
    drop(model); // the model server is stopped: nothing answers there any more

    let saved = h.run(&["routine", "save", &run_id, "--name", "giá laptop", "--json"]);
    assert_eq!(saved.code, 0, "{}", saved.stderr);
    let routine = saved.json();
    let plan = &routine["plan"];
    let tools: Vec<&str> = plan["steps"].as_array().unwrap().iter().map(|s| s["tool"].as_str().unwrap()).collect();
    assert_eq!(tools, vec!["browser_navigate", "browser_extract"], "the snapshot is left out: {plan}");
    assert_eq!(plan["steps"][0]["args"], json!({"url": "{{param.url}}"}));
    assert_eq!(
        plan["params"],
        json!([{"name": "url", "kind": "url", "default": site.url("watched/laptop"),
                "used_in": "step 1 browser_navigate url"}])
    );
    assert_eq!(plan["answer"]["text"], "{{slot.0}} giá {{slot.1}} ₫.");
    assert_eq!(plan["answer"]["slots"][1]["pointer"], "/data/price");

    // The page changed since: the replay reads the price it shows now.
    site.change_page("laptop", |p| p.price = 19_990_000);
    let first = replay(&h, "giá laptop", &[]);
    assert_eq!(first.code, 0, "{}\n{}", first.stdout, first.stderr);
    let report = first.json();
    assert_eq!(report["status"], "completed");
    assert_eq!(report["answer"], "Laptop ASUS Vivobook 15 giá 19.990.000 ₫.");
    assert_eq!(report["steps"].as_array().unwrap().len(), 2);

    // Another product through the parameter.
    let other = replay(&h, "giá laptop", &["--param", &format!("url={}", site.url("watched/phone"))]);
    assert_eq!(other.code, 0, "{}\n{}", other.stdout, other.stderr);
    assert_eq!(other.json()["answer"], "Điện thoại Galaxy A55 giá 8.990.000 ₫.");

    // Each replay is a run of its own, its calls in the timeline.
    let shown = h.run(&["runs", "show", report["run_id"].as_str().unwrap(), "--json"]);
    assert_eq!(shown.code, 0, "{}", shown.stderr);
    let shown = shown.json();
    assert_eq!(shown["status"], "completed");
    let calls: Vec<&str> =
        shown["tool_calls"].as_array().unwrap().iter().map(|c| c["tool"].as_str().unwrap()).collect();
    assert_eq!(calls, vec!["browser_navigate", "browser_extract"]);

    let listed = h.run(&["routine", "list", "--json"]);
    assert_eq!(listed.json().as_array().unwrap().len(), 1);
    let show = h.run(&["routine", "show", "giá laptop", "--json"]);
    assert_eq!(show.json()["replays"].as_array().unwrap().len(), 2, "{}", show.stdout);
}

#[test]
fn bad_input_gets_clear_errors() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    site.set_page("laptop", product("Laptop", 10_000_000));
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site.url("watched/laptop")}))]),
        Turn::text("Đã mở trang."),
    ]);
    let h = Halley::new();
    let run_id = record(&h, &model, "Mở trang");
    let saved = h.run(&["routine", "save", &run_id, "--name", "mở"]);
    assert_eq!(saved.code, 0, "{}", saved.stderr);

    let cases: [(&[&str], i32, &str); 8] = [
        (&["routine", "run", "không có"], 2, "[not_found]: no routine `không có`; there are: mở"),
        (&["routine", "run", "mở", "--param", "url"], 2, "is not NAME=VALUE"),
        (&["routine", "run", "mở", "--param", "colour=đỏ"], 2, "no parameter `colour`; it takes: url"),
        (&["routine", "run", "mở", "--param", "url=file:///etc/passwd"], 2, "not an http(s) address"),
        (&["routine", "save", "run-nope", "--name", "x"], 2, "[not_found]: no run `run-nope`"),
        (&["routine", "save", &run_id, "--name", "mở"], 2, "a routine named `mở` exists already"),
        (&["routine", "params", "mở", "--rename", "nope=x"], 2, "no parameter `nope`"),
        (&["routine", "delete", "không có"], 2, "[not_found]"),
    ];
    for (args, code, message) in cases {
        let run = h.run(args);
        assert_eq!(run.code, code, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(message), "{args:?}: {}", run.stderr);
    }
    // A parameter made required must be given.
    let required = h.run(&["routine", "params", "mở", "--require", "url"]);
    assert_eq!(required.code, 0, "{}", required.stderr);
    assert!(required.stdout.contains("param url (url) (required)"), "{}", required.stdout);
    let missing = h.run(&["routine", "run", "mở"]);
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("missing parameter `url`"), "{}", missing.stderr);

    // A run that failed cannot be saved.
    let broken = ModelServer::start(vec![Turn::http_error(500, None); 4]);
    let failed = h.run_model("Hỏng", &broken.base_url(), &[]);
    assert_ne!(failed.code, 0);
    let failed_id = h.run(&["runs", "list", "--json"]).json()[0]["id"].as_str().unwrap().to_owned();
    let refused = h.run(&["routine", "save", &failed_id, "--name", "hỏng"]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(refused.stderr.contains("did not complete (it is failed"), "{}", refused.stderr);

    // A run that used a tool a replay cannot redo: named. (The memory is
    // edited before the page is read: after it, the edit would be asked.)
    let memory = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new(
            "core_memory_append",
            json!({"label": "human", "content": "Thích laptop mỏng"}),
        )]),
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site.url("watched/laptop")}))]),
        Turn::text("Đã ghi nhớ."),
    ]);
    let memory_run = record(&h, &memory, "Nhớ giúp tôi");
    let refused = h.run(&["routine", "save", &memory_run, "--name", "nhớ"]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("it used `core_memory_append`, which cannot be replayed (it edits the model's memory)"),
        "{}",
        refused.stderr
    );
    assert_eq!(h.run(&["routine", "list", "--json"]).json().as_array().unwrap().len(), 1, "nothing more was saved");
}

/// The order form: a quantity and a submit button posting to `/checkout`.
fn order_page(button_id: &str, label: &str) -> String {
    format!(
        r#"<!doctype html><html lang="vi"><head><meta charset="utf-8"><title>Đặt hàng</title></head>
<body><main><h1>Giỏ hàng</h1>
<form id="checkout" action="/checkout" method="post">
<label for="qty">Số lượng</label> <input id="qty" name="qty" value="1">
<button id="{button_id}" type="submit">{label}</button>
</form></main></body></html>"#
    )
}

/// Record "order 2" with a rule that allows the submit, then drop the rule:
/// the routine's submit must ask again at every replay.
pub(crate) fn record_order(h: &Halley, site: &FixtureServer) -> String {
    site.set_html("order", &order_page("buy", "Đặt hàng"));
    // One rule lifts the click (PAYMENT), the other the request it sends (SUBMIT).
    let origin = site.origin();
    for extra in [&["--min-scope", "payment"][..], &[]] {
        let mut args = vec!["rules", "add", "--site", &origin, "--tool", "browser_click"];
        args.extend_from_slice(extra);
        args.push("allow");
        let rule = h.run(&args);
        assert_eq!(rule.code, 0, "{}", rule.stderr);
    }
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site.url("page/order")}))]),
        Turn::tool_calls(vec![ToolCall::new("browser_snapshot", json!({}))]),
        Turn::tool_calls(vec![ToolCall::new(
            "browser_type",
            json!({"selector": "#qty", "text": "2", "clear_first": true}),
        )]),
        Turn::tool_calls(vec![ToolCall::new("browser_click", json!({"selector": "#buy"}))]),
        Turn::text("Đã đặt 2 chiếc."),
    ]);
    let run_id = record(h, &model, "Đặt 2 chiếc");
    let shown = h.run(&["runs", "show", &run_id, "--json"]).json();
    assert_eq!(site.posts().len(), 1, "the recorded run submitted once: {}", shown["messages"]);
    for rule in h.run(&["rules", "list", "--json"]).json().as_array().unwrap() {
        assert_eq!(h.run(&["rules", "remove", rule["id"].as_str().unwrap()]).code, 0);
    }
    let saved = h.run(&["routine", "save", &run_id, "--name", "đặt hàng", "--json"]);
    assert_eq!(saved.code, 0, "{}", saved.stderr);
    let plan = saved.json()["plan"].clone();
    let click = &plan["steps"][2];
    // "Đặt hàng" places an order: the gate grades it PAYMENT.
    assert_eq!(click["recorded_scope"], "PAYMENT", "{plan}");
    assert_eq!(
        (&click["target"]["role"], &click["target"]["name"], &click["target"]["selector"]),
        (&json!("button"), &json!("Đặt hàng"), &json!("#buy")),
        "{plan}"
    );
    assert_eq!(plan["steps"][1]["target"]["label"], "Số lượng", "{plan}");
    assert_eq!(click["target"]["landmark"], "## form #checkout", "{plan}");
    let names: Vec<&str> = plan["params"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, vec!["url", "so_luong"]);
    run_id
}

#[test]
fn a_submit_step_asks_at_every_replay_and_a_refusal_sends_nothing() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    record_order(&h, &site);
    for n in 1..=2 {
        let run = replay(&h, "đặt hàng", &["--param", "so_luong=3"]);
        assert_eq!(run.code, 1, "replay {n}: {}\n{}", run.stdout, run.stderr);
        let report = run.json();
        assert_eq!(report["status"], "stopped");
        assert_eq!((report["stopped"]["step"].as_u64(), &report["stopped"]["code"]), (Some(3), &json!("denied")));
        assert!(report["stopped"]["screenshot"].as_str().is_some_and(|s| s.starts_with("file://")), "{report}");
        assert_eq!(report["steps"][2]["scope"], "PAYMENT");
        assert_eq!(report["steps"][2]["found_by"], "description");
        assert!(run.stderr.contains("[denied]"), "{}", run.stderr);
        assert_eq!(site.posts().len(), 1, "replay {n}: nothing reached the server");
    }
    // Each replay went to the confirmer at the submit (nobody was there to
    // say yes): one refusal per replay, in each replay's own run.
    let audit = h.run(&["audit", "--json"]).json();
    let refused: Vec<&str> = audit
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["tool"] == "browser_click" && e["decision"] == "deny" && e["effective"] == "PAYMENT")
        .filter(|e| e["reason"].as_str().is_some_and(|r| r.contains("no one was there to confirm it")))
        .map(|e| e["run_id"].as_str().unwrap())
        .collect();
    assert_eq!(refused.len(), 2, "{audit}");
    assert_ne!(refused[0], refused[1]);
}

async fn open_host(h: &Halley) -> Arc<Host> {
    let browser = BrowserSettings { headless: true, ..BrowserSettings::default() };
    Host::open(DataDir::at(h.data_dir()), browser).await.unwrap()
}

/// `RunRoutine` as the panel sends it, its questions answered `approve`;
/// the report and the questions asked.
async fn replay_on(
    host: &Arc<Host>,
    params: Vec<(String, String)>,
    approve: bool,
) -> (Value, Vec<ConfirmationRequest>) {
    replay_remembering(host, params, approve, false).await
}

/// [`replay_on`], keeping what is approved as standing approvals when `remember_approval`.
async fn replay_remembering(
    host: &Arc<Host>,
    params: Vec<(String, String)>,
    approve: bool,
    remember_approval: bool,
) -> (Value, Vec<ConfirmationRequest>) {
    let mut rx = host.subscribe();
    let replaying = {
        let host = Arc::clone(host);
        let op = Op::RunRoutine { name: "đặt hàng".into(), params, after_interrupted: false, remember_approval };
        tokio::spawn(async move { host.handle(op).await })
    };
    tokio::pin!(replaying);
    let mut asked = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(90);
    loop {
        tokio::select! {
            done = &mut replaying => {
                let Reply::RoutineReplayed { report } = done.unwrap().unwrap() else { panic!("not a report") };
                return (report, asked);
            }
            ev = rx.recv() => {
                if let Ok(Event::ConfirmationWaiting { request }) = ev {
                    let reason = if approve { String::new() } else { "không".into() };
                    let answer = Op::AnswerConfirmation {
                        id: request.id.clone(), approved: approve, user_edits: Map::new(), reason,
                    };
                    assert_eq!(host.handle(answer).await.unwrap(), Reply::Done);
                    asked.push(request);
                }
            }
            () = tokio::time::sleep_until(deadline) => panic!("the replay did not end in time"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approved_submit_is_asked_again_and_a_changed_page_is_handled_honestly() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    record_order(&h, &site);
    let host = open_host(&h).await;

    // Approved twice: asked twice, two orders with the replay's quantity.
    for n in 1..=2 {
        let (report, asked) = replay_on(&host, vec![("so_luong".into(), format!("{}", n + 3))], true).await;
        assert_eq!(report["status"], "completed", "{report}");
        assert_eq!(report["answer"], "Đã đặt 2 chiếc.", "no value read: the answer is the run's");
        assert_eq!(asked.len(), 1, "replay {n} asks at the submit");
        assert_eq!(asked[0].scope, halley::tools::PermissionScope::Payment);
        let last = site.posts().last().cloned().unwrap();
        assert_eq!((last.path.as_str(), last.field("qty")), ("/checkout", Some(format!("{}", n + 3).as_str())));
    }
    assert_eq!(site.posts().len(), 3);

    // The button got a new id, same role and name: re-found by its description.
    site.set_html("order", &order_page("dat-hang-moi", "Đặt hàng"));
    let (report, asked) = replay_on(&host, vec![], true).await;
    assert_eq!(report["status"], "completed", "{report}");
    assert_eq!(report["steps"][2]["found_by"], "description");
    assert_eq!(asked.len(), 1);
    assert_eq!(site.posts().len(), 4);

    // An adversary relabels the buttons: `#buy` now deletes the account and
    // nothing is called "Đặt hàng". The SUBMIT step is never clicked on a
    // look-alike: the replay stops with its report, nothing asked or sent.
    site.set_html(
        "order",
        &order_page("buy", "Xóa tài khoản").replace("</form>", "</form><button id=\"dat\">Đặt hàng ngay</button>"),
    );
    let (report, asked) = replay_on(&host, vec![], true).await;
    assert_eq!(report["status"], "stopped", "{report}");
    assert_eq!(report["stopped"]["step"], 3);
    assert_eq!(report["stopped"]["code"], "element_not_found");
    assert!(report["stopped"]["why"].as_str().unwrap().contains("no button \"Đặt hàng\""), "{report}");
    assert!(report["stopped"]["screenshot"].as_str().is_some_and(|s| s.starts_with("file://")));
    assert!(asked.is_empty(), "{asked:?}");
    assert_eq!(site.posts().len(), 4, "nothing reached the server");

    // Another "Đặt hàng" in another landmark: the recorded one is told
    // apart by its landmark.
    site.set_html(
        "order",
        &order_page("a", "Đặt hàng").replace(
            "</main>",
            "</main><footer><form action=\"/submit\" method=\"post\"><button>Đặt hàng</button></form></footer>",
        ),
    );
    let (report, asked) = replay_on(&host, vec![], true).await;
    assert_eq!(report["status"], "completed", "{report}");
    assert_eq!(asked.len(), 1);
    assert_eq!(site.posts().last().unwrap().path, "/checkout");
    assert_eq!(site.posts().len(), 5);

    // The landmark moved: the form has another id and sits in an aside now.
    // The one "Đặt hàng" left is found by its role and name, and the submit
    // is still asked, once, and sent where the form says.
    site.set_html(
        "order",
        &order_page("a", "Đặt hàng")
            .replace("<form id=\"checkout\"", "<form id=\"dat-hang-2\"")
            .replace("<main>", "<aside>")
            .replace("</main>", "</aside>"),
    );
    let (report, asked) = replay_on(&host, vec![], true).await;
    assert_eq!(report["status"], "completed", "{report}");
    assert_eq!(report["steps"][2]["found_by"], "description", "{report}");
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(site.posts().last().unwrap().path, "/checkout");
    assert_eq!(site.posts().len(), 6);

    // Two of them in the same form: the SUBMIT step cannot tell which, so
    // it stops rather than pick one.
    site.set_html(
        "order",
        &order_page("a", "Đặt hàng").replace("</form>", "<button name=\"gift\">Đặt hàng</button></form>"),
    );
    let (report, asked) = replay_on(&host, vec![], true).await;
    assert_eq!(report["status"], "stopped", "{report}");
    assert!(report["stopped"]["why"].as_str().unwrap().contains("cannot tell which"), "{report}");
    assert!(asked.is_empty());
    assert_eq!(site.posts().len(), 6);
    host.close().await;

    let err = {
        let host = open_host(&h).await;
        let op =
            Op::RunRoutine { name: "nope".into(), params: vec![], after_interrupted: false, remember_approval: false };
        let e = host.handle(op).await;
        host.close().await;
        e.unwrap_err()
    };
    assert_eq!(err.code(), ErrorCode::NotFound);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_standing_approval_covers_only_the_request_it_approved() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    record_order(&h, &site);
    let host = open_host(&h).await;
    let five = || vec![("so_luong".to_owned(), "5".to_owned())];

    // Approved once, remembered.
    let (report, asked) = replay_remembering(&host, five(), true, true).await;
    assert_eq!((report["status"].as_str(), asked.len()), (Some("completed"), 1), "{report}");
    assert!(report["notes"].to_string().contains("remembered for every replay"), "{report}");
    let Reply::Routine { routine } = host.handle(Op::ShowRoutine { name: "đặt hàng".into() }).await.unwrap() else {
        panic!()
    };
    let standing = &routine["plan"]["standing"][0];
    assert_eq!(standing["destination"], site.url("checkout"), "{routine}");
    assert_eq!(standing["fields"], json!([["qty", "5"]]));
    assert_eq!(site.posts().len(), 2);

    // The same order again: not asked (a question would be refused here).
    let (report, asked) = replay_on(&host, five(), false).await;
    assert_eq!((report["status"].as_str(), asked.len()), (Some("completed"), 0), "{report}");
    assert!(report["notes"].to_string().contains("standing approval"), "{report}");
    assert_eq!((site.posts().len(), site.posts().last().unwrap().field("qty")), (3, Some("5")));

    // Another quantity: another request, asked again (refused: nothing sent).
    let (report, asked) = replay_on(&host, vec![("so_luong".into(), "6".into())], false).await;
    assert_eq!((report["status"].as_str(), asked.len()), (Some("stopped"), 1), "{report}");
    assert_eq!(site.posts().len(), 3);

    // Same button, same quantity, but the form now goes elsewhere: asked.
    site.set_html("order", &order_page("buy", "Đặt hàng").replace("action=\"/checkout\"", "action=\"/submit\""));
    let (report, asked) = replay_on(&host, five(), false).await;
    assert_eq!((report["status"].as_str(), asked.len()), (Some("stopped"), 1), "{report}");
    assert_eq!(site.posts().len(), 3);

    // Forgotten: the original order asks again.
    site.set_html("order", &order_page("buy", "Đặt hàng"));
    host.handle(Op::ForgetRoutineApprovals { name: "đặt hàng".into() }).await.unwrap();
    let (report, asked) = replay_on(&host, five(), false).await;
    assert_eq!((report["status"].as_str(), asked.len()), (Some("stopped"), 1), "{report}");
    assert_eq!(site.posts().len(), 3);
    host.close().await;
}

#[test]
fn profile_values_never_reach_the_plan_in_clear() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    site.set_page("laptop", product("Laptop ASUS Vivobook 15", 21_490_000));
    let h = Halley::new();
    let set = h.call("user_profile_set", &json!({"set": {"contact.phone": "0901234567"}}));
    assert_eq!(set.code, 0, "{}", set.stderr);
    // The user's own words hold the number; the model repeats it.
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site.url("watched/laptop")}))]),
        Turn::tool_calls(vec![ToolCall::new("browser_extract", json!({"schema": {"price": "number"}}))]),
        Turn::text("Giá 21.490.000 ₫; tôi sẽ báo qua số 090 123 4567."),
    ]);
    let run_id = record(&h, &model, "Xem giá rồi báo tôi qua số 0901234567");
    let saved = h.run(&["routine", "save", &run_id, "--name", "báo giá", "--json"]);
    assert_eq!(saved.code, 0, "{}", saved.stderr);
    let plan = saved.json()["plan"].clone();
    let text = plan.to_string();
    assert!(!text.contains("0901234567") && !text.contains("090 123 4567"), "{text}");
    assert_eq!(plan["task"], "Xem giá rồi báo tôi qua số {{profile.contact.phone}}");
    assert_eq!(plan["answer"]["text"], "Giá {{slot.0}} ₫; tôi sẽ báo qua số {{profile.contact.phone}}.");
    drop(model);
    site.change_page("laptop", |p| p.price = 20_990_000);
    let run = replay(&h, "báo giá", &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.json()["answer"], "Giá 20.990.000 ₫; tôi sẽ báo qua số {{profile.contact.phone}}.");
}

/// Record "what does the laptop cost" with the scripted model and save it
/// as routine `giá laptop`; the model server is stopped when it returns.
fn record_price(h: &Halley, site: &FixtureServer) {
    site.set_page("laptop", product("Laptop ASUS Vivobook 15", 21_490_000));
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site.url("watched/laptop")}))]),
        read_name_and_price(),
        Turn::text("Laptop ASUS Vivobook 15 giá 21.490.000 ₫."),
    ]);
    let run_id = record(h, &model, "Laptop này giá bao nhiêu?");
    drop(model);
    let saved = h.run(&["routine", "save", &run_id, "--name", "giá laptop"]);
    assert_eq!(saved.code, 0, "{}", saved.stderr);
}

/// Make routine `name`'s schedule due now (as the watches' scheduler test
/// moves a watch's next check), as time passing would.
async fn make_due(host: &Host, name: &str) {
    sqlx::query(
        "UPDATE routine_schedules SET next_run_at = '2000-01-01T00:00:00.000Z'
         WHERE routine_id = (SELECT id FROM routines WHERE name = ?1)",
    )
    .bind(name)
    .execute(host.core().store().pool())
    .await
    .unwrap();
}

/// The next `Event::Routines` telling a replay of `name` ended: its status.
async fn replay_ended(rx: &mut tokio::sync::broadcast::Receiver<Event>, name: &str) -> String {
    tokio::time::timeout(Duration::from_secs(90), async {
        loop {
            if let Ok(Event::Routines { name: n, status: Some(status) }) = rx.recv().await
                && n == name
            {
                return status;
            }
        }
    })
    .await
    .expect("a scheduled replay ended")
}

/// The inbox's alerts of routine `name`, newest first.
async fn routine_alerts(host: &Arc<Host>, name: &str) -> Vec<Value> {
    let Reply::Routine { routine } = host.handle(Op::ShowRoutine { name: name.into() }).await.unwrap() else {
        panic!("not a routine")
    };
    let Reply::Alerts { alerts, .. } = host.handle(Op::ListAlerts { limit: 50 }).await.unwrap() else {
        panic!("not alerts")
    };
    alerts
        .into_iter()
        .filter(|a| a.routine_id.as_deref() == routine["id"].as_str())
        .map(|a| serde_json::to_value(a).unwrap())
        .collect()
}

#[test]
fn the_schedule_commands_check_their_input() {
    let site = FixtureServer::start();
    let h = Halley::new();
    if !have_browser() {
        return;
    }
    record_price(&h, &site);
    for (args, said) in [
        (&["routine", "schedule", "giá laptop", "--every", "1w"][..], "bad period"),
        (&["routine", "schedule", "giá laptop", "--every", "30s"], "bad period"),
        (&["routine", "schedule", "giá laptop"], "--every"),
        (&["routine", "schedule", "nope", "--every", "1d"], "no routine `nope`"),
        (&["routine", "pause", "giá laptop"], "has no schedule"),
        (&["routine", "schedule", "giá laptop", "--off"], "has no schedule"),
        (&["routine", "schedule", "giá laptop", "--every", "1d", "--at", "25:00"], "24-hour clock"),
        (&["routine", "schedule", "giá laptop", "--every", "1d", "--at", "tám giờ"], "24-hour clock"),
        (&["routine", "schedule", "giá laptop", "--every", "1d", "--at", "8:75"], "24-hour clock"),
    ] {
        let run = h.run(args);
        assert_eq!(run.code, 2, "{args:?}: {}\n{}", run.stdout, run.stderr);
        assert!(run.stderr.contains(said), "{args:?}: {}", run.stderr);
    }
    let set = h.run(&["routine", "schedule", "giá laptop", "--every", "6h"]);
    assert_eq!(set.code, 0, "{}", set.stderr);
    assert!(set.stdout.contains("every 6h, next run"), "{}", set.stdout);
    let paused = h.run(&["routine", "pause", "giá laptop"]);
    assert!(paused.stdout.contains("every 6h, paused"), "{}", paused.stdout);
    let shown = h.run(&["routine", "show", "giá laptop", "--json"]).json();
    assert_eq!((&shown["schedule"]["every"], &shown["schedule"]["paused"]), (&json!("6h"), &json!(true)));
    assert_eq!(shown["schedule"]["next_run_at"], Value::Null, "paused: no next run");
    let resumed = h.run(&["routine", "resume", "giá laptop"]);
    assert!(resumed.stdout.contains("every 6h, next run"), "{}", resumed.stdout);
    let off = h.run(&["routine", "schedule", "giá laptop", "--off"]);
    assert_eq!(off.code, 0, "{}", off.stderr);
    assert!(off.stdout.contains("not scheduled"), "{}", off.stdout);
    assert_eq!(h.run(&["routine", "show", "giá laptop", "--json"]).json()["schedule"], Value::Null);

    // At a time of day, as a person writes it: due then, not at once, and
    // so again once resumed.
    let at = h.run(&["routine", "schedule", "giá laptop", "--every", "1d", "--at", "8 giờ 30"]);
    assert_eq!(at.code, 0, "{}", at.stderr);
    assert!(at.stdout.contains("every 1d at 08:30, next run"), "{}", at.stdout);
    let shown = h.run(&["routine", "show", "giá laptop", "--json"]).json();
    assert_eq!(shown["schedule"]["at"], "08:30");
    let next = chrono::DateTime::parse_from_rfc3339(shown["schedule"]["next_run_at"].as_str().unwrap()).unwrap();
    let local = next.with_timezone(&chrono::Local);
    assert_eq!(local.format("%H:%M").to_string(), "08:30", "{next}");
    assert!(next > chrono::Utc::now(), "not due at once: {next}");
    h.run(&["routine", "pause", "giá laptop"]);
    assert_eq!(h.run(&["routine", "resume", "giá laptop"]).code, 0);
    let resumed = h.run(&["routine", "show", "giá laptop", "--json"]).json();
    assert_eq!(resumed["schedule"]["next_run_at"], shown["schedule"]["next_run_at"], "resumed: at 08:30 again");
}

/// A scheduled routine runs in the long-lived host's scheduler (the one
/// that checks the watches) with the model server stopped; each result
/// lands in the inbox, a changed price is a notification, a paused
/// schedule runs nothing, and `routine show` tells the schedule, the last
/// result, the next run and the history.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scheduled_routine_replays_in_the_host_and_its_results_reach_the_inbox() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    record_price(&h, &site);
    let host = open_host(&h).await;
    let mut rx = host.subscribe();
    let name = "giá laptop";
    let scheduled = host.handle(Op::ScheduleRoutine { name: name.into(), every: "1d".into(), at: None }).await.unwrap();
    let Reply::Routine { routine } = scheduled else { panic!("{scheduled:?}") };
    assert_eq!(routine["schedule"]["every"], "1d");

    // Due at once: the scheduler's first pass replays it.
    site.change_page("laptop", |p| p.price = 20_490_000);
    let scheduler = host.start_watch_scheduler(Duration::from_millis(300));
    assert_eq!(replay_ended(&mut rx, name).await, "completed");
    let alerts = routine_alerts(&host, name).await;
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    assert_eq!((&alerts[0]["title"], &alerts[0]["rule"]), (&json!(name), &json!("routine:result")));
    assert_eq!(alerts[0]["message"], "Laptop ASUS Vivobook 15 giá 20.490.000 ₫.");
    assert_eq!(alerts[0]["read"], false);

    // Not due again for a day: later passes run nothing.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(routine_alerts(&host, name).await.len(), 1);

    // A day later (moved), the price changed: the inbox and a notification.
    site.change_page("laptop", |p| p.price = 18_990_000);
    make_due(&host, name).await;
    assert_eq!(replay_ended(&mut rx, name).await, "completed");
    let alerts = routine_alerts(&host, name).await;
    assert_eq!(alerts.len(), 2, "{alerts:?}");
    assert_eq!((&alerts[0]["title"], &alerts[0]["rule"]), (&json!("giá laptop: changed"), &json!("routine:changed")));
    assert_eq!(
        alerts[0]["message"],
        "Laptop ASUS Vivobook 15 giá 18.990.000 ₫.\nBefore: Laptop ASUS Vivobook 15 giá 20.490.000 ₫."
    );
    assert!(alerts[0]["sent_at"].is_string(), "handed to the notification daemon: {alerts:?}");

    // Paused: due, but nothing runs.
    host.handle(Op::PauseRoutine { name: name.into(), paused: true }).await.unwrap();
    make_due(&host, name).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(routine_alerts(&host, name).await.len(), 2);
    drop(scheduler);

    let Reply::Routine { routine } = host.handle(Op::ShowRoutine { name: name.into() }).await.unwrap() else {
        panic!()
    };
    assert_eq!(routine["schedule"]["paused"], true);
    assert_eq!(routine["schedule"]["last_status"], "completed");
    assert_eq!(routine["last"]["answer"], "Laptop ASUS Vivobook 15 giá 18.990.000 ₫.");
    assert_eq!(routine["last"]["trigger"], "schedule");
    let replays = routine["replays"].as_array().unwrap();
    assert_eq!(replays.len(), 2);
    assert!(replays.iter().all(|r| r["trigger"] == "schedule" && r["status"] == "completed"), "{routine}");
    // Each replay a run in the background, its calls in the timeline.
    let run_id = replays[0]["run_id"].as_str().unwrap();
    let Reply::Timeline { calls } = host.handle(Op::RunTimeline { run_id: run_id.into() }).await.unwrap() else {
        panic!("no timeline")
    };
    let tools: Vec<&str> = calls.iter().map(|c| c.tool.as_str()).collect();
    assert_eq!(tools, vec!["browser_navigate", "browser_extract"]);
    host.close().await;

    // The CLI shows the schedule, the last result, the history.
    let shown = h.run(&["routine", "show", name]);
    assert!(shown.stdout.contains("schedule: every 1d, paused"), "{}", shown.stdout);
    assert!(shown.stdout.contains("last result: completed"), "{}", shown.stdout);
    assert!(shown.stdout.contains("18.990.000"), "{}", shown.stdout);
    assert_eq!(shown.stdout.matches("(schedule)").count(), 2, "{}", shown.stdout);
}

/// A scheduled routine with a submit step asks in the panel (the question
/// is pending, nothing reaches the page's server); denied, nothing is sent
/// and the stop is in the inbox.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scheduled_submit_asks_and_a_refusal_sends_nothing() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    record_order(&h, &site);
    let host = open_host(&h).await;
    let mut rx = host.subscribe();
    host.handle(Op::ScheduleRoutine { name: "đặt hàng".into(), every: "1d".into(), at: None }).await.unwrap();
    let scheduler = host.start_watch_scheduler(Duration::from_millis(300));
    let request = tokio::time::timeout(Duration::from_secs(90), async {
        loop {
            if let Ok(Event::ConfirmationWaiting { request }) = rx.recv().await {
                return request;
            }
        }
    })
    .await
    .expect("the scheduled replay asks");
    assert_eq!(request.scope, halley::tools::PermissionScope::Payment);
    assert_eq!(request.tool, "browser_click");
    // Pending: the question waits, and the order has not been sent.
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(site.posts().len(), 1, "only the recorded run's order");
    let answer = Op::AnswerConfirmation {
        id: request.id.clone(),
        approved: false,
        user_edits: Map::new(),
        reason: "không".into(),
    };
    assert_eq!(host.handle(answer).await.unwrap(), Reply::Done);
    assert_eq!(replay_ended(&mut rx, "đặt hàng").await, "stopped");
    assert_eq!(site.posts().len(), 1, "denied: nothing reached the server");
    let alerts = routine_alerts(&host, "đặt hàng").await;
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    assert_eq!((&alerts[0]["title"], &alerts[0]["rule"]), (&json!("đặt hàng: stopped"), &json!("routine:stopped")));
    assert!(alerts[0]["message"].as_str().unwrap().starts_with("Stopped at step 3 (browser_click)"), "{alerts:?}");
    drop(scheduler);
    host.close().await;
}

/// A catalogue whose product link is `label` (id `id`), beside another.
fn catalogue(id: &str, label: &str) -> String {
    format!(
        r#"<!doctype html><html lang="vi"><head><meta charset="utf-8"><title>Danh mục</title></head>
<body><main><h1>Danh mục</h1><ul>
<li><a id="{id}" href="/watched/rlaptop">{label}</a></li>
<li><a id="p2" href="/watched/rphone">Điện thoại Galaxy A55</a></li>
</ul></main></body></html>"#
    )
}

/// The repairing model: it answers with the ref of the snapshot line that
/// names the new link, as a model reading the page would.
fn repairing_model() -> ModelServer {
    ModelServer::responding(|body| {
        let user =
            body["messages"].as_array().and_then(|m| m.last()).map(|m| m["content"].to_string()).unwrap_or_default();
        let line = user.split("\\n").find(|l| l.contains("ASUS Vivobook 15 – mới")).unwrap_or_default();
        let r = line.split('[').nth(1).and_then(|x| x.split(']').next()).unwrap_or("e999");
        Turn::text(&format!("{{\"ref\": \"{r}\"}}"))
    })
}

/// A step whose element is gone (new words, new id) is repaired by the
/// model only when the routine allows it; the repair is checked, acted on
/// through the gate, kept as a new version (the next replay finds it by
/// its description, without the model); a SUBMIT step is never repaired.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_element_is_repaired_by_the_model_when_allowed_never_at_a_submit() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    site.set_page("rlaptop", product("Laptop ASUS Vivobook 15", 21_490_000));
    site.set_page("rphone", product("Điện thoại Galaxy A55", 8_990_000));
    site.set_html("catalogue", &catalogue("p1", "Laptop ASUS Vivobook 15"));
    let h = Halley::new();
    let recorder = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site.url("page/catalogue")}))]),
        Turn::tool_calls(vec![ToolCall::new("browser_snapshot", json!({}))]),
        Turn::tool_calls(vec![ToolCall::new("browser_click", json!({"selector": "#p1"}))]),
        read_name_and_price(),
        Turn::text("Laptop ASUS Vivobook 15 giá 21.490.000 ₫."),
    ]);
    let run_id = record(&h, &recorder, "Laptop trong danh mục giá bao nhiêu?");
    drop(recorder);
    let name = "giá từ danh mục";
    assert_eq!(h.run(&["routine", "save", &run_id, "--name", name]).code, 0);
    record_order(&h, &site);

    let model = repairing_model();
    let host = open_host(&h).await;
    let Reply::Settings { mut settings, .. } = host.handle(Op::GetSettings).await.unwrap() else { panic!() };
    settings.base_url = Some(model.base_url());
    settings.model = Some("scripted-model".into());
    host.handle(Op::SaveSettings { settings }).await.unwrap();
    let run = |routine: &str| {
        let host = Arc::clone(&host);
        let op =
            Op::RunRoutine { name: routine.into(), params: vec![], after_interrupted: false, remember_approval: false };
        async move {
            let Reply::RoutineReplayed { report } = host.handle(op).await.unwrap() else { panic!("not a report") };
            report
        }
    };

    // The link got new words and a new id.
    site.set_html("catalogue", &catalogue("sp-1", "ASUS Vivobook 15 – mới"));
    // Repair not allowed: the replay stops, the model is not asked.
    let report = run(name).await;
    assert_eq!((&report["status"], &report["stopped"]["step"]), (&json!("stopped"), &json!(2)), "{report}");
    assert_eq!(model.request_count(), 0);

    // Allowed: the model is shown the step and the page (as data), picks the new link.
    host.handle(Op::SetRoutineRepair { name: name.into(), allowed: true }).await.unwrap();
    let report = run(name).await;
    assert_eq!(report["status"], "completed", "{report}");
    assert_eq!(report["steps"][1]["found_by"], "model", "{report}");
    assert_eq!(report["answer"], "Laptop ASUS Vivobook 15 giá 21.490.000 ₫.");
    assert!(report["notes"].to_string().contains("repaired by the model"), "{report}");
    assert_eq!(model.request_count(), 1);
    let asked = &model.requests()[0];
    let system = asked["messages"][0]["content"].as_str().unwrap_or_default();
    let user = asked["messages"][1]["content"].as_str().unwrap_or_default();
    assert!(system.contains("never instructions"), "{system}");
    assert!(user.contains("browser_click on link \"Laptop ASUS Vivobook 15\""), "{user}");
    assert!(user.contains("ASUS Vivobook 15 – mới") && user.contains("Điện thoại Galaxy A55"), "{user}");

    // Kept as version 2; the next replay finds it by its description.
    let Reply::Routine { routine } = host.handle(Op::ShowRoutine { name: name.into() }).await.unwrap() else {
        panic!()
    };
    assert_eq!(routine["plan"]["revision"], 2, "{routine}");
    let target = &routine["plan"]["steps"][1]["target"];
    assert_eq!((&target["role"], &target["name"]), (&json!("link"), &json!("ASUS Vivobook 15 – mới")), "{routine}");
    assert_eq!(routine["versions"].as_array().map(Vec::len), Some(1), "{routine}");
    assert!(routine["versions"][0]["replaced_because"].as_str().unwrap().contains("step 2 repaired"), "{routine}");
    let report = run(name).await;
    assert_eq!((&report["status"], &report["steps"][1]["found_by"]), (&json!("completed"), &json!("description")));
    assert_eq!(model.request_count(), 1, "no model the second time");

    // A model naming something that is not on the page is refused.
    site.set_html("catalogue", &catalogue("p9", "Máy tính xách tay ASUS"));
    let report = run(name).await;
    assert_eq!(report["status"], "stopped", "{report}");
    assert!(report["stopped"]["why"].as_str().unwrap().contains("not on the page"), "{report}");
    assert_eq!(model.request_count(), 2);

    // A SUBMIT step is never repaired, allowed or not: it stops, nothing asked or sent.
    host.handle(Op::SetRoutineRepair { name: "đặt hàng".into(), allowed: true }).await.unwrap();
    site.set_html("order", &order_page("buy", "Xóa tài khoản"));
    let report = run("đặt hàng").await;
    assert_eq!((&report["status"], &report["stopped"]["step"]), (&json!("stopped"), &json!(3)), "{report}");
    assert_eq!(model.request_count(), 2, "the model is not asked at a submit");
    assert_eq!(site.posts().len(), 1, "only the recorded order");
    host.close().await;
}

/// #43 item 3: "Save as routine" is offered only where a save succeeds
/// (`CanSaveRoutine`, each refusal by kind), and a run that switched tabs
/// (as "Ask about this page" does) is savable: the switch is kept as the
/// page the tab showed, opened again, so the replay reads the current price.
#[test]
fn a_run_that_switched_tabs_is_saved_by_what_the_tab_showed_and_refusals_are_named() {
    use halley::protocol::RoutineRefusal;
    if !have_browser() {
        return;
    }
    let site = laptop_and_phone();
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site.url("watched/laptop")}))]),
        Turn::tool_calls(vec![ToolCall::new("browser_new_tab", json!({"url": site.url("watched/phone")}))]),
        Turn::tool_calls(vec![ToolCall::new("browser_switch_tab", json!({"tab_id": "tab-1"}))]),
        read_name_and_price(),
        Turn::text("Laptop ASUS Vivobook 15 giá 21.490.000 ₫."),
    ]);
    let h = Halley::new();
    let switched = record(&h, &model, "Trang này giá bao nhiêu?");
    drop(model);
    let chat = ModelServer::start(vec![Turn::text("Chào bạn.")]);
    let chatted = record(&h, &chat, "Chào");
    let broken = ModelServer::start(vec![Turn::http_error(500, None); 4]);
    assert_ne!(h.run_model("Hỏng", &broken.base_url(), &[]).code, 0);
    let failed = h.run(&["runs", "list", "--json"]).json()[0]["id"].as_str().unwrap().to_owned();
    let memory = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("archival_memory_insert", json!({"content": "Thích laptop mỏng"}))]),
        Turn::text("Đã ghi nhớ."),
    ]);
    let remembered = record(&h, &memory, "Nhớ giúp tôi");

    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let host = open_host(&h).await;
        let savable = |run_id: &str| {
            let host = Arc::clone(&host);
            let op = Op::CanSaveRoutine { run_id: run_id.to_owned() };
            async move {
                let Reply::RoutineSavable { refusal } = host.handle(op).await.unwrap() else { panic!("not savable's reply") };
                refusal
            }
        };
        assert_eq!(savable(&switched).await, None);
        assert_eq!(savable(&chatted).await, Some(RoutineRefusal::NothingToReplay));
        assert!(matches!(savable(&failed).await, Some(RoutineRefusal::NotCompleted { status }) if status.starts_with("failed")));
        assert!(
            matches!(savable(&remembered).await, Some(RoutineRefusal::NotReplayable { tool, .. }) if tool == "archival_memory_insert")
        );
        assert_eq!(savable("run-không-có").await, Some(RoutineRefusal::NotFound));
        // Asking saved nothing.
        let Reply::Routines { routines } = host.handle(Op::ListRoutines).await.unwrap() else { panic!() };
        assert!(routines.is_empty());
        // Saved, the switch is the page it showed.
        let op = Op::SaveRoutine { run_id: switched.clone(), name: "trang này".into() };
        let Reply::Routine { routine } = host.handle(op).await.unwrap() else { panic!() };
        let tools: Vec<&str> = routine["plan"]["steps"].as_array().unwrap().iter().map(|s| s["tool"].as_str().unwrap()).collect();
        assert_eq!(tools, ["browser_navigate", "browser_new_tab", "browser_navigate", "browser_extract"]);
        let params: Vec<(&str, &str)> = routine["plan"]["params"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p["kind"].as_str().unwrap(), p["default"].as_str().unwrap()))
            .collect();
        assert_eq!(params[2], ("url", site.url("watched/laptop").as_str()), "{params:?}");
        host.close().await;
    });

    // Replayed with no model: the page the tab showed, read again.
    site.change_page("laptop", |p| p.price = 19_990_000);
    let replayed = replay(&h, "trang này", &[]);
    assert_eq!(replayed.code, 0, "{}\n{}", replayed.stdout, replayed.stderr);
    let report = replayed.json();
    assert_eq!(report["status"], "completed", "{report}");
    assert!(report["answer"].as_str().unwrap().contains("19.990.000"), "{report}");
}

/// #43 item 3: a recorded answer that quoted no value ("the price was
/// read") still gives the replay's reader the price read now: in `read`
/// and written under the answer.
#[test]
fn a_replay_carries_what_it_read_when_the_answer_quoted_nothing() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    site.set_page("laptop", product("Laptop ASUS Vivobook 15", 21_490_000));
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site.url("watched/laptop")}))]),
        read_name_and_price(),
        Turn::text("Giá hiện tại đã được đọc."),
    ]);
    let h = Halley::new();
    let run_id = record(&h, &model, "Đọc giá laptop");
    drop(model);
    let saved = h.run(&["routine", "save", &run_id, "--name", "đọc giá", "--json"]);
    assert_eq!(saved.code, 0, "{}", saved.stderr);
    assert_eq!(saved.json()["plan"]["answer"]["slots"], json!([]), "the answer quoted nothing");
    site.change_page("laptop", |p| p.price = 19_990_000);
    let replayed = replay(&h, "đọc giá", &[]);
    assert_eq!(replayed.code, 0, "{}\n{}", replayed.stdout, replayed.stderr);
    let report = replayed.json();
    let price = report["read"].as_array().unwrap().iter().find(|f| f["field"] == "price").cloned();
    assert_eq!(price, Some(json!({"step": 2, "field": "price", "value": 19_990_000})), "{report}");
    let answer = report["answer"].as_str().unwrap();
    assert!(answer.starts_with("Giá hiện tại đã được đọc."), "{answer}");
    assert!(answer.contains("- price: 19.990.000"), "{answer}");
    // Without --json too.
    let plain = h.run(&["--headless", "routine", "run", "đọc giá", "--confirm", "deny"]);
    assert_eq!(plain.code, 0, "{}", plain.stderr);
    assert!(plain.stdout.contains("19.990.000"), "{}", plain.stdout);
}
