//! The travel skills end to end on real Chromium against the fixture
//! sites (`tests/fixtures/site/travel/`): a flight results page on one
//! origin, a script-rendered hotel list on the other, a visa form with
//! uploads and an arrival card. Direct calls (no model) and a run of the
//! scripted model, whose language step first answers malformed JSON.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::Halley;
use crate::common::browser::{have_browser, step};
use crate::common::fixtures::FixtureServer;
use crate::common::model_server::{ModelServer, ToolCall, Turn};

/// The user's sites: flights on the main origin (a URL template), hotels
/// on the other (an object naming its kind).
fn sites(site: &FixtureServer) -> Value {
    json!({"set": {"travel.preferred_sites": [
        site.url("travel/flights.html?from={from}&to={to}&date={date}&return={return_date}&pax={pax}"),
        {"type": "hotel", "name": "Phòng Đẹp", "url": site.other_url("travel/hotels.html?location={location}&checkin={date}&checkout={return_date}")},
    ]}})
}

fn flight(terms: Value, summary: &str, total: f64, url: String) -> Value {
    json!({"source": "127.0.0.1", "url": url, "summary": summary,
        "total_price": {"amount": total, "currency": "VND"}, "terms": terms})
}

fn flights(site: &FixtureServer) -> Value {
    let t =
        |price: u64, fees: u64, d: &str, a: &str, min: u64, stops: u64, checked: u64, cabin: Option<u64>, r: bool| {
            json!({"price": price, "fees": fees, "currency": "VND", "depart": d, "arrive": a, "duration_minutes": min,
            "stops": stops, "checked_baggage_kg": checked, "cabin_baggage_kg": cabin, "refundable": r})
        };
    let mut out = vec![
        flight(
            t(7_890_000, 1_100_000, "01:45", "09:05", 320, 0, 0, Some(7), false),
            "Vietjet Air VJ934 · 01:45–09:05 · 5h20 · nonstop · non-refundable",
            8_990_000.0,
            site.url("travel/book.html?f=vj934"),
        ),
        flight(
            t(10_200_000, 950_000, "10:20", "22:10", 590, 1, 46, None, true),
            "ANA NH858 + NH9 · 10:20–22:10 · 9h50 · 1 stop · refundable",
            11_150_000.0,
            site.url("travel/book.html?f=nh858"),
        ),
        flight(
            t(12_450_000, 1_230_000, "08:15", "15:50", 335, 0, 23, Some(10), true),
            "Vietnam Airlines VN310 · 08:15–15:50 · 5h35 · nonstop · refundable",
            13_680_000.0,
            site.url("travel/book.html?f=vn310"),
        ),
    ];
    for o in &mut out {
        o["source"] = json!(url::Url::parse(&site.origin()).unwrap().host_str().unwrap());
    }
    json!(out)
}

fn hotels(site: &FixtureServer) -> Value {
    let h = |name: &str, id: &str, price: u64, fees: u64, r: bool, rating: f64| {
        json!({"source": "Phòng Đẹp", "url": site.other_url(&format!("travel/hotel.html?id={id}")),
            "summary": format!("{name} · 4 nights · {}", if r { "refundable" } else { "non-refundable" }),
            "total_price": {"amount": (price + fees) as f64, "currency": "VND"},
            "terms": {"price": price, "fees": fees, "currency": "VND", "nights": 4, "refundable": r, "rating": rating}})
    };
    json!([
        h("APA Hotel Shinjuku Gyoemmae", "apa", 8_400_000, 840_000, true, 7.9),
        h("Shinjuku Granbell Hotel", "granbell", 12_600_000, 1_260_000, false, 8.2),
        h("Hotel Gracery Shinjuku", "gracery", 14_800_000, 1_480_000, true, 8.6),
    ])
}

const WEB_SEARCH_NOTE: &str = "web search left out";

#[test]
fn flight_and_hotel_options_are_read_normalised_and_ranked_without_asking_anything() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let search = |kind: &str| {
        let mut a = json!({"type": kind, "date": "2026-02-10", "return_date": "2026-02-14", "pax": 1});
        if kind == "flight" {
            a["route"] = json!("HAN-NRT");
        } else {
            a["location"] = json!("Shinjuku, Tokyo");
        }
        step("travel_search_options", a)
    };
    // `--confirm deny`: a search never needs the user's consent.
    let s =
        h.browse(&[step("user_profile_set", sites(&site)), search("flight"), search("hotel")], &["--confirm", "deny"]);
    let got = s.ok(1);
    assert_eq!(got["options"], flights(&site));
    assert_eq!(got["normalized_terms"], json!(halley::skills::travel::offers::FLIGHT_TERMS));
    assert_eq!(got["status"], "ok");
    let notes: Vec<&str> = got["notes"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].starts_with(WEB_SEARCH_NOTE) && notes[0].contains("search_failed"), "{notes:?}");
    // The script-rendered hotel list on the other origin.
    let got = s.ok(2);
    assert_eq!(got["options"], hotels(&site));
    assert_eq!(got["normalized_terms"], json!(halley::skills::travel::offers::HOTEL_TERMS));
    assert_eq!(got["status"], "ok");
    // The page was asked with the search filled in; nothing was posted.
    let asked = site.requests().into_iter().find(|r| r.path == "/travel/flights.html").unwrap();
    assert_eq!(
        asked.query_pairs(),
        [("from", "HAN"), ("to", "NRT"), ("date", "2026-02-10"), ("return", "2026-02-14"), ("pax", "1")]
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
    );
    assert_eq!(site.hits("travel/hotels.json"), 1);
    assert!(site.posts().is_empty());

    // The itinerary without a model: the days and bookings, said so.
    let plan = h.call(
        "travel_plan_itinerary",
        &json!({"origin": "HAN", "destination": "NRT", "dates": {"from": "2026-02-10", "to": "2026-02-14"},
            "budget_vnd": 15_000_000}),
    );
    let plan = plan.json()["data"].clone();
    assert_eq!(plan["status"], "partial", "{plan}");
    assert_eq!(plan["itinerary"].as_array().unwrap().len(), 5);
    assert_eq!(plan["itinerary"][1]["items"], json!([]));
    assert_eq!(plan["total_cost_vnd"], 18_230_000);
    assert!(plan["tradeoffs"].to_string().contains("Over budget by 3.230.000 ₫"), "{plan}");
    assert_eq!(plan["score_parts"][1]["score"], 0.0);
    let notes = plan["notes"].to_string();
    assert!(notes.contains("no model to ask") && notes.contains("skeleton"), "{notes}");

    // Bad input is a clear error; no site saved is said.
    let bad = h.call("travel_search_options", &json!({"type": "flight", "date": "2026-02-10"}));
    assert_eq!(bad.json()["error"]["code"], "invalid_arguments", "{}", bad.stdout);
    let other = Halley::new();
    let none = other.call("travel_search_options", &json!({"type": "hotel", "location": "Huế", "date": "2026-03-01"}));
    let none = none.json();
    assert_eq!(none["data"]["status"], "needs_user", "{none}");
    assert!(none["data"]["notes"][0].as_str().unwrap().contains("travel.preferred_sites"), "{none}");
}

/// The model's plan: one day outside the trip, one stay overlapping another.
fn written() -> String {
    json!({
        "days": [
            {"date": "2026-02-10", "location": "Tokyo", "items": ["Nhận phòng, dạo Shinjuku buổi tối"], "est_cost_vnd": 800000},
            {"date": "2026-02-11", "location": "Tokyo", "items": ["Asakusa, chùa Sensō-ji", "Tối: Akihabara"], "est_cost_vnd": 1500000},
            {"date": "2026-02-12", "location": "Hakone", "items": ["Đi Hakone, tắm onsen"], "est_cost_vnd": 2500000},
            {"date": "2026-02-13", "location": "Tokyo", "items": ["Shibuya, Harajuku"], "est_cost_vnd": 1200000},
            {"date": "2026-02-14", "location": "Tokyo", "items": ["Mua sắm, ra sân bay"], "est_cost_vnd": 600000},
            {"date": "2026-02-15", "location": "Tokyo", "items": ["Disneyland"], "est_cost_vnd": 3000000}
        ],
        "tradeoffs": ["Một đêm ở Hakone thay vì ở lại Tokyo: thêm thời gian di chuyển"],
        "stays": [
            {"hotel": 0, "check_in": "2026-02-10", "check_out": "2026-02-14"},
            {"hotel": 1, "check_in": "2026-02-12", "check_out": "2026-02-13"}
        ]
    })
    .to_string()
}

#[test]
fn an_itinerary_is_planned_by_the_model_and_checked_by_code_after_a_malformed_answer() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    assert_eq!(h.call("user_profile_set", &sites(&site)).code, 0);
    assert_eq!(h.call("user_profile_set", &json!({"set": {"travel.interests": ["onsen", "ẩm thực"]}})).code, 0);
    let args = json!({"origin": "HAN", "destination": "NRT", "dates": {"from": "2026-02-10", "to": "2026-02-14"},
        "budget_vnd": 30_000_000, "notes": "một đêm onsen"});
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("travel_plan_itinerary", args)]),
        // The small-model quirk: prose and a cut object first, then the plan.
        Turn::text("Đây là kế hoạch: {\"days\": [{\"date\": \"2026-02-10\""),
        Turn::text(&written()),
        Turn::text("Kế hoạch 5 ngày ở Tokyo đã sẵn sàng."),
    ]);
    let base = model.base_url();
    let run = h.run_model("Lên lịch trình Tokyo 5 ngày", &base, &["--confirm", "deny"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let evs = run.events();
    let result = evs
        .iter()
        .find(|e| e["type"] == "tool_result" && e["name"] == "travel_plan_itinerary")
        .unwrap_or_else(|| panic!("{evs:?}"));
    let out = &result["result"]["data"];
    assert_eq!(result["result"]["status"], "ok", "{result}");

    let days: Vec<(&str, &str)> = out["itinerary"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["date"].as_str().unwrap(), d["location"].as_str().unwrap()))
        .collect();
    assert_eq!(
        days,
        [
            ("2026-02-10", "Tokyo"),
            ("2026-02-11", "Tokyo"),
            ("2026-02-12", "Hakone"),
            ("2026-02-13", "Tokyo"),
            ("2026-02-14", "HAN")
        ]
    );
    assert_eq!(
        out["itinerary"][0]["items"],
        json!([
            "Flight HAN → NRT: Vietjet Air VJ934 · 01:45–09:05 · 5h20 · nonstop · non-refundable",
            "Check in: APA Hotel Shinjuku Gyoemmae · 4 nights · refundable",
            "Nhận phòng, dạo Shinjuku buổi tối"
        ])
    );
    assert_eq!(
        out["itinerary"][4]["items"],
        json!([
            "Return flight NRT → HAN",
            "Check out: APA Hotel Shinjuku Gyoemmae · 4 nights · refundable",
            "Mua sắm, ra sân bay"
        ])
    );
    let bookings: Vec<(&str, &str, &str, u64)> = out["bookings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["kind"].as_str().unwrap(),
                b["from"].as_str().unwrap(),
                b["to"].as_str().unwrap(),
                b["cost_vnd"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        bookings,
        [("flight", "2026-02-10", "2026-02-14", 8_990_000), ("hotel", "2026-02-10", "2026-02-14", 9_240_000)]
    );
    // 8.990.000 + 9.240.000 + the days' 6.600.000 (the day after the trip left out).
    assert_eq!(out["total_cost_vnd"], 24_830_000);
    let tradeoffs: Vec<&str> = out["tradeoffs"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert_eq!(tradeoffs.len(), 3, "{tradeoffs:?}");
    assert!(
        tradeoffs[0].starts_with("Flight: Vietjet Air VJ934") && tradeoffs[0].contains("2.160.000"),
        "{tradeoffs:?}"
    );
    assert!(tradeoffs[1].starts_with("Overlapping bookings: Shinjuku Granbell Hotel"), "{tradeoffs:?}");
    assert_eq!(tradeoffs[2], "Một đêm ở Hakone thay vì ở lại Tokyo: thêm thời gian di chuyển");
    let parts: Vec<(&str, f64, f64)> = out["score_parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap(), p["score"].as_f64().unwrap(), p["weight"].as_f64().unwrap()))
        .collect();
    assert_eq!(parts, [("budget", 1.0, 0.4), ("days", 1.0, 0.3), ("bookings", 0.75, 0.3)]);
    assert!(out["score_parts"][2]["why"].as_str().unwrap().contains("1 overlapping stay(s) left out"), "{out}");
    assert!((out["plan_score"].as_f64().unwrap() - 0.925).abs() < 0.006, "{out}");
    assert_eq!(out["status"], "ok");
    let notes = out["notes"].to_string();
    assert!(notes.contains("2026-02-15 outside the trip"), "{notes}");
    assert!(notes.contains(WEB_SEARCH_NOTE), "{notes}");

    // The language step: asked twice, the data fenced, the error passed on.
    let reqs = model.requests();
    assert_eq!(reqs.len(), 4);
    let second = reqs[2]["messages"][1]["content"].as_str().unwrap();
    assert!(second.contains("<<<DATA") && second.contains("APA Hotel Shinjuku Gyoemmae"), "{second}");
    assert!(second.contains("not usable"), "{second}");
    assert!(reqs[1].get("tools").is_none());

    // Every step in the timeline, numbered under the skill's call, and stored.
    let steps: Vec<(String, String)> = evs
        .iter()
        .filter(|e| e["type"] == "tool_call")
        .map(|e| (e["id"].as_str().unwrap_or_default().to_owned(), e["name"].as_str().unwrap().to_owned()))
        .collect();
    let names: Vec<&str> = steps.iter().map(|(_, n)| n.as_str()).collect();
    // Each search: the sites from the profile, web search (planned here),
    // the page opened and read, the totals worked out.
    let search = [
        "travel_search_options",
        "user_profile_get",
        "web_search",
        "browser_navigate",
        "browser_get_dom",
        "normalize_compare",
    ];
    let expected = [&["travel_plan_itinerary", "user_profile_get"][..], &search, &search, &["model"]].concat();
    assert_eq!(names, expected, "{steps:?}");
    let parent = &steps[0].0;
    assert_eq!(steps[1].0, format!("{parent}.1"));
    assert_eq!(steps[3].0, format!("{parent}.2.1"));
    let run_id = evs.last().unwrap()["run_id"].as_str().unwrap().to_owned();
    let shown = h.run(&["runs", "show", &run_id, "--json"]).json();
    let stored = shown.to_string();
    for (id, _) in steps.iter().filter(|(_, n)| n != "model") {
        assert!(stored.contains(&format!("\"{id}\"")), "{id} not stored: {stored}");
    }
    assert!(site.posts().is_empty());
}

const PASSPORT: &[u8] = b"\x89PNG\r\n\x1a\nfake passport scan";

/// The gate's questions as audited: (tool, effective scope, decision, answered by).
fn asked(h: &Halley) -> Vec<(String, String, String, String)> {
    let run = h.run(&["audit", "--json"]);
    let s = |e: &Value, k: &str| e[k].as_str().unwrap_or_default().to_owned();
    let mut out: Vec<_> = run
        .json()
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["event"] == "gate_decision" && e["answered_by"] != "policy")
        .map(|e| (s(e, "tool"), s(e, "effective"), s(e, "decision"), s(e, "answered_by")))
        .collect();
    out.reverse();
    out
}

fn passport(h: &Halley) -> String {
    h.write_file("passport.png", PASSPORT).display().to_string()
}

fn visa_profile() -> Value {
    json!({"set": {"name": "NGUYEN VAN AN", "contact.email": "an.nguyen@example.vn", "dob": "1990-05-12",
        "travel.nationality": "Việt Nam", "travel.passport_no": "C1234567", "travel.passport_expiry": "2031-08-01"}})
}

fn visa_args(site: &FixtureServer, submit: bool) -> Value {
    json!({"form_url": site.other_url("travel/visa.html"), "docs": ["$DOC"],
        "extra_fields": {"Ngày nhập cảnh": "2026-02-10", "Purpose": "Du lịch"}, "submit": submit})
}

/// The steps of a visa run: profile, the scan stored, the skill (its doc
/// the stored file's id, filled in by the script's `$DOC`).
fn visa_steps(h: &Halley, site: &FixtureServer, submit: bool) -> Vec<Value> {
    let stored = h.call("files_store", &json!({"file_path": passport(h), "tags": ["travel", "passport"]}));
    let id = stored.json()["data"]["file"]["id"].as_str().unwrap().to_owned();
    let args = visa_args(site, submit).to_string().replace("$DOC", &id);
    vec![step("user_profile_set", visa_profile()), step("travel_fill_forms", serde_json::from_str(&args).unwrap())]
}

const VISA_FIELDS: [&str; 10] = [
    "Họ và tên (Full name)",
    "Email",
    "Ngày sinh (Date of birth)",
    "Quốc tịch (Nationality)",
    "Số hộ chiếu (Passport number)",
    "Ngày hết hạn (Expiry date)",
    "Ảnh trang hộ chiếu (Passport scan)",
    "Ngày nhập cảnh (Arrival date)",
    "Mục đích chuyến đi (Purpose)",
    "Tôi cam đoan thông tin trên là đúng sự thật (I declare the above is true)",
];

#[test]
fn a_visa_form_is_filled_uploaded_previewed_and_submitted_only_after_confirmation() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let s = h.browse(&visa_steps(&h, &site, true), &["--yes"]);
    let out = s.ok(1);
    assert_eq!(out["filled_fields"], json!(VISA_FIELDS), "{out}");
    assert_eq!((&out["submit_ready"], &out["submitted"], &out["status"]), (&json!(true), &json!(true), &json!("ok")));
    assert_eq!(out["missing_fields"], json!([]));
    assert_eq!(out["denied"], json!([]));
    let preview = out["filled_preview_ref"].as_str().unwrap();
    assert!(preview.starts_with("file://"), "{preview}");
    let png = std::fs::read(preview.trim_start_matches("file://")).unwrap();
    assert!(png.starts_with(b"\x89PNG"));
    let posts = site.posts();
    assert_eq!(posts.len(), 1, "{posts:?}");
    let p = &posts[0];
    assert_eq!(p.path, "/submit");
    for (k, v) in [
        ("full_name", "NGUYEN VAN AN"),
        ("email", "an.nguyen@example.vn"),
        ("dob", "1990-05-12"),
        ("nationality", "VNM"),
        ("passport_number", "C1234567"),
        ("passport_expiry", "2031-08-01"),
        ("arrival_date", "2026-02-10"),
        ("purpose", "Du lịch"),
        ("agree", "yes"),
    ] {
        assert_eq!(p.field(k), Some(v), "{k}: {p:?}");
    }
    // The scan, as stored (the optional portrait left empty).
    let sent: Vec<(&str, usize)> = p.files.iter().filter(|f| f.size > 0).map(|f| (f.field.as_str(), f.size)).collect();
    assert_eq!(sent, [("passport_scan", PASSPORT.len())]);
    // Asked at each step that sends data: the sensitive values, the
    // upload, the skill's own question, then the click on the button.
    let tools: Vec<(String, String)> = asked(&h).into_iter().map(|(t, e, _, _)| (t, e)).collect();
    let sub = |t: &str| (t.to_owned(), "SUBMIT".to_owned());
    assert!(tools.contains(&sub("browser_upload_file")), "{tools:?}");
    assert_eq!(tools.iter().filter(|t| **t == sub("browser_type")).count(), 4, "{tools:?}");
    let confirm = tools.iter().position(|(t, _)| t == "request_user_confirmation");
    let click = tools.iter().position(|t| *t == sub("browser_click"));
    assert!(confirm.is_some() && click > confirm, "{tools:?}");
}

#[test]
fn a_refused_upload_and_values_are_reported_and_the_rest_is_filled_and_previewed() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let s = h.browse(&visa_steps(&h, &site, true), &["--confirm", "deny"]);
    let out = s.ok(1);
    let refused = [
        "Email",
        "Ngày sinh (Date of birth)",
        "Số hộ chiếu (Passport number)",
        "Ngày hết hạn (Expiry date)",
        "Ảnh trang hộ chiếu (Passport scan)",
    ];
    assert_eq!(out["denied"], json!(refused), "{out}");
    assert_eq!(out["missing_fields"], json!(refused));
    let filled: Vec<&str> = VISA_FIELDS.iter().copied().filter(|f| !refused.contains(f)).collect();
    assert_eq!(out["filled_fields"], json!(filled));
    assert_eq!(
        (&out["submit_ready"], &out["submitted"], &out["status"]),
        (&json!(false), &json!(false), &json!("partial"))
    );
    assert!(out["filled_preview_ref"].as_str().unwrap().starts_with("file://"));
    assert!(out["notes"].to_string().contains("you refused this step (browser_upload_file)"), "{out}");
    assert!(site.posts().is_empty(), "{:?}", site.posts());

    // A form ready to go: the submit is asked, refused, and nothing is sent.
    let card = json!({"form_url": site.url("travel/arrival.html"), "profile_keys": ["name", "travel.nationality"],
        "extra_fields": {"Flight number": "VJ934", "Date of arrival": "2026-02-10", "Address in Japan": "APA Hotel Shinjuku Gyoemmae"},
        "submit": true});
    let s = h.browse(&[step("travel_fill_forms", card.clone())], &["--confirm", "deny"]);
    let out = s.ok(0);
    assert_eq!(
        out["filled_fields"],
        json!(["Full name (Họ và tên)", "Nationality", "Flight number", "Date of arrival", "Address in Japan"])
    );
    assert_eq!(
        (&out["submit_ready"], &out["submitted"], &out["status"]),
        (&json!(true), &json!(false), &json!("partial"))
    );
    assert_eq!(out["denied"], json!(["submit"]));
    assert!(site.posts().is_empty(), "{:?}", site.posts());
    let questions = asked(&h);
    assert!(questions.iter().any(|(t, ..)| t == "request_user_confirmation"), "{questions:?}");
    assert!(!questions.iter().any(|(t, ..)| t == "browser_click"), "the button was never clicked: {questions:?}");
    // Without `submit` it stops when ready.
    let mut ready = card;
    ready["submit"] = json!(false);
    let out = h.browse(&[step("travel_fill_forms", ready)], &["--confirm", "deny"]).ok(0).clone();
    assert_eq!((&out["submit_ready"], &out["status"]), (&json!(true), &json!("needs_confirmation")));
    assert!(site.posts().is_empty());
}

/// Approves everything; at the skill's own question, the user corrects
/// the flight number.
#[derive(Debug)]
struct EditsFlight;

impl halley::gate::confirm::Confirmer for EditsFlight {
    fn confirm<'a>(
        &'a self,
        request: &'a halley::gate::confirm::ConfirmationRequest,
    ) -> std::pin::Pin<
        Box<dyn std::future::Future<Output = halley::tools::catalogue::safety::ConfirmResultV1> + Send + 'a>,
    > {
        let mut user_edits = serde_json::Map::new();
        if request.tool == "request_user_confirmation" {
            user_edits.insert("Flight number".into(), json!("VN310"));
        }
        Box::pin(async move {
            halley::tools::catalogue::safety::ConfirmResultV1 { approved: true, user_edits, reason: String::new() }
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_users_edits_at_the_confirmation_are_what_is_submitted() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let settings = halley::core::BrowserSettings { headless: true, ..Default::default() };
    let core = halley::host::open_core_full(
        halley::DataDir::at(tmp.path().join("data")),
        halley::tools::Registry::builtin().unwrap(),
        settings,
    )
    .await
    .unwrap();
    core.store().profile().apply(&[("name".to_owned(), json!("NGUYEN VAN AN"))], &[]).await.unwrap();
    let cx = halley::CallContext::new(halley::FrontEnd::Cli).with_confirmer(std::sync::Arc::new(EditsFlight));
    let args = json!({"form_url": site.url("travel/arrival.html"),
        "extra_fields": {"Flight number": "VJ934", "Date of arrival": "2026-02-10", "Nationality": "Việt Nam"},
        "submit": true});
    let out = serde_json::to_value(core.call_tool(&cx, "travel_fill_forms", args).await).unwrap();
    assert_eq!(out["data"]["submitted"], true, "{out}");
    let posts = site.posts();
    assert_eq!(posts.len(), 1);
    assert_eq!((posts[0].field("name"), posts[0].field("flight")), (Some("NGUYEN VAN AN"), Some("VN310")));
    core.close().await;
}

#[test]
fn a_form_filled_in_a_run_shows_every_step_and_a_refused_submit_sends_nothing() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    assert_eq!(h.call("user_profile_set", &json!({"set": {"name": "NGUYEN VAN AN"}})).code, 0);
    let args = json!({"form_url": site.url("travel/arrival.html"), "profile_keys": ["name"],
        "extra_fields": {"Flight number": "VJ934", "Date of arrival": "2026-02-10", "Nationality": "Việt Nam"},
        "submit": true});
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("travel_fill_forms", args)]),
        Turn::text("Bạn chưa đồng ý nộp thẻ nhập cảnh."),
    ]);
    let run = h.run_model("Điền thẻ nhập cảnh Nhật rồi nộp", &model.base_url(), &["--confirm", "deny"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let evs = run.events();
    let names: Vec<&str> = evs.iter().filter(|e| e["type"] == "tool_call").filter_map(|e| e["name"].as_str()).collect();
    assert_eq!(
        names,
        [
            "travel_fill_forms",
            "browser_navigate",
            "browser_get_dom",
            "user_profile_get",
            "browser_type",
            "browser_select_option",
            "browser_type",
            "browser_type",
            "browser_screenshot",
            "files_store",
            "request_user_confirmation"
        ]
    );
    let out = &evs.iter().find(|e| e["type"] == "tool_result" && e["name"] == "travel_fill_forms").unwrap()["result"];
    assert_eq!(out["data"]["denied"], json!(["submit"]), "{out}");
    assert_eq!((&out["data"]["submit_ready"], &out["data"]["submitted"]), (&json!(true), &json!(false)));
    assert!(site.posts().is_empty(), "{:?}", site.posts());
    // The model never needed to confirm the skill as a whole; the question was the submit.
    let questions = asked(&h);
    assert_eq!(questions.len(), 1, "{questions:?}");
    assert_eq!(questions[0].0, "request_user_confirmation");
}
