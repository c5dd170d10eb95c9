//! The shopping skills end to end on real Chromium, against the fixture
//! shops (`tests/fixtures/site/shop/`): GearVN in VND on the main origin,
//! PixelMart in USD on the other, the same laptop in two variants, carts,
//! a checkout with a coupon that ends at a payment page (and a variant of
//! it that asks for a one-time code first). Direct calls (no model) check
//! each result field by field and every confirmation asked; `halley run`
//! with the scripted model checks the steps in the run's timeline, the
//! language step's retry after a malformed answer, and `--confirm deny`.

use std::sync::Arc;

use halley::core::BrowserSettings;
use halley::tools::Registry;
use halley::{CallContext, Core, DataDir, FrontEnd};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::gate_browser::Scripted;

use crate::common::Halley;
use crate::common::browser::have_browser;
use crate::common::fixtures::FixtureServer;
use crate::common::model_server::{ModelServer, ToolCall, Turn};

/// The scope of each question `answers` was asked, in order.
fn scopes(answers: &Scripted) -> Vec<String> {
    answers.asked.lock().unwrap().iter().map(|r| format!("{:?}", r.scope)).collect()
}

/// A headless core whose profile holds the user's delivery address (the
/// phone is sensitive; a key with `address` in it would make every part so) and, with `fx`, a USD→VND rate.
async fn core_on(dir: &std::path::Path, fx: bool) -> Core {
    let settings = BrowserSettings { headless: true, ..BrowserSettings::default() };
    let core = halley::host::open_core_full(DataDir::at(dir.join("data")), Registry::builtin().unwrap(), settings)
        .await
        .unwrap();
    let mut set = vec![
        ("shopping.delivery.full_name".to_owned(), json!("Nguyễn Văn An")),
        ("shopping.delivery.phone".to_owned(), json!("0901234567")),
        ("shopping.delivery.street".to_owned(), json!("12 Lý Thường Kiệt, Hoàn Kiếm")),
        ("shopping.delivery.city".to_owned(), json!("Hà Nội")),
    ];
    if fx {
        set.push(("shopping.fx.USD_VND".to_owned(), json!(25_400)));
    }
    core.store().profile().apply(&set, &[]).await.unwrap();
    core
}

async fn call(core: &Core, cx: &CallContext, name: &str, args: Value) -> Value {
    serde_json::to_value(core.call_tool(cx, name, args).await).unwrap()
}

fn ok(result: &Value) -> &Value {
    assert_eq!(result["status"], "ok", "{result}");
    &result["data"]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn specs_are_read_by_the_category_schema_in_both_languages() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let core = core_on(tmp.path(), false).await;
    let cx = CallContext::new(FrontEnd::Cli);
    let vn = call(
        &core,
        &cx,
        "shopping_extract_specs",
        json!({"product_url": site.url("shop/vn/laptop.html"), "category": "laptop_gaming_v1"}),
    )
    .await;
    let vn = ok(&vn);
    let specs = json!({
        "name": "Laptop Gaming ASUS ROG Strix G16 G614JV",
        "cpu": "Intel Core i7-13650HX",
        "gpu": "NVIDIA GeForce RTX 4060 8GB",
        "ram_gb": 16, "storage_gb": 1000, "screen_inch": 16, "refresh_rate_hz": 165,
        "weight_kg": 2.5, "battery_wh": 90, "os": "Windows 11 Home",
    });
    assert_eq!(vn["spec_json"], specs, "{vn}");
    assert_eq!(vn["status"], "ok");
    assert_eq!(vn["category"], "laptop_gaming_v1");
    assert_eq!(vn["missing_fields"], json!([]));
    assert_eq!(vn["units"]["storage_gb"], "GB");
    assert_eq!(vn["field_confidence"]["ram_gb"], 0.75, "a labelled value: {vn}");
    assert!(vn["confidence"].as_f64().unwrap() > 0.5, "{vn}");

    // The same laptop in English, in pounds and with a `16"` screen.
    let us = call(
        &core,
        &cx,
        "shopping_extract_specs",
        json!({"product_url": site.other_url("shop/us/laptop.html"), "category": "laptop_gaming_v1"}),
    )
    .await;
    let us = ok(&us);
    let mut want = specs.clone();
    want["name"] = json!("ASUS ROG Strix G16 G614JV Gaming Laptop");
    assert_eq!(us["spec_json"], want, "{us}");

    // A category Halley does not ship: the error lists those it does.
    let bad = call(
        &core,
        &cx,
        "shopping_extract_specs",
        json!({"product_url": site.url("shop/vn/laptop.html"), "category": "laptop"}),
    )
    .await;
    assert_eq!(bad["error"]["code"], "invalid_arguments", "{bad}");
    let message = bad["error"]["message"].as_str().unwrap();
    for c in ["laptop_gaming_v1", "phone_v1", "headphones_v1", "tv_v1", "home_appliance_v1"] {
        assert!(message.contains(c), "{message}");
    }
    assert!(site.posts().is_empty());
    core.close().await;
}

fn compare_args(site: &FixtureServer) -> Value {
    json!({"items": [
        {"url": site.url("shop/vn/laptop.html"), "variant": "16GB/1TB"},
        {"url": site.other_url("shop/us/laptop.html"), "variant": "16GB/1TB"},
    ]})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offers_in_two_currencies_are_ranked_with_the_users_rate_and_never_an_invented_one() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let core = core_on(tmp.path(), true).await;
    let cx = CallContext::new(FrontEnd::Cli);
    let r = call(&core, &cx, "shopping_compare_options", compare_args(&site)).await;
    let out = ok(&r);
    let table = out["comparison_table"].as_array().unwrap();
    assert_eq!(table.len(), 2, "{out}");
    // 45.990.000 + 30.000 ₫; (1799 + 15) × 25.400 ₫.
    assert_eq!(table[0]["total_cost"], 46_020_000, "{out}");
    assert_eq!(table[0]["price"], 45_990_000);
    assert_eq!(table[0]["shipping"], 30_000);
    assert_eq!(table[0]["warranty_months"], 24);
    assert_eq!(table[0]["return_days"], 15);
    assert_eq!(table[0]["delivery_days"], 3);
    assert_eq!(table[0]["in_stock"], true);
    assert_eq!(table[0]["variant"], "16GB/1TB");
    assert_eq!(table[0]["rank"], 1);
    assert_eq!(table[1]["total_cost"], 46_075_600, "{out}");
    assert_eq!(table[1]["warranty_months"], 12);
    assert_eq!(table[1]["return_days"], 30);
    assert_eq!(table[1]["rank"], 2);
    assert_eq!(out["currency"], "VND");
    assert_eq!(out["status"], "ok");
    assert_eq!(out["recommendation"]["url"], site.url("shop/vn/laptop.html"));
    let reason = out["recommendation"]["reason"].as_str().unwrap();
    assert!(reason.contains("46.020.000 ₫") && reason.contains("total cost"), "{reason}");
    let notes = out["notes"].to_string();
    assert!(notes.contains("USD converted to VND at your rate 25400"), "{notes}");
    assert!(notes.contains("no model to ask"), "a direct call has no model: {notes}");

    // Without a rate the dollars stay dollars, outside the ranking.
    core.store().profile().apply(&[], &["shopping.fx.USD_VND".to_owned()]).await.unwrap();
    let r = call(&core, &cx, "shopping_compare_options", compare_args(&site)).await;
    let out = ok(&r);
    assert_eq!(out["status"], "partial", "{out}");
    assert_eq!(out["comparison_table"][1]["currency"], "USD");
    assert_eq!(out["comparison_table"][1]["total_cost"], 1814);
    assert_eq!(out["comparison_table"][1]["rank"], Value::Null);
    assert!(out["notes"].to_string().contains("never invents one"), "{out}");
    assert!(site.posts().is_empty(), "comparing sends nothing");
    core.close().await;
}

fn checkout_args(site: &FixtureServer, page: &str, profile_key: &str, place_order: bool) -> Value {
    json!({
        "selected_option": {"url": site.url(page), "variant": "16GB/1TB"},
        "address_ref": profile_key,
        "coupon_code": "GIAM500K",
        "place_order": place_order,
    })
}

/// `shopping_prepare_checkout` on the VND shop with the profile's
/// delivery address, its questions answered by `answers`.
async fn checkout(core: &Core, site: &FixtureServer, answers: &Arc<Scripted>, place_order: bool) -> Value {
    let cx = CallContext::new(FrontEnd::Cli).with_confirmer(answers.clone());
    let args = checkout_args(site, "shop/vn/laptop.html", "shopping.delivery", place_order);
    call(core, &cx, "shopping_prepare_checkout", args).await
}

/// The VND checkout's breakdown for the 16GB/1TB laptop with the coupon.
fn vnd_breakdown() -> Value {
    json!({
        "items": {"amount": 45_990_000.0, "currency": "VND"},
        "shipping": {"amount": 30_000.0, "currency": "VND"},
        "discount": {"amount": 500_000.0, "currency": "VND"},
        "tax": null,
        "total": {"amount": 45_520_000.0, "currency": "VND"},
        "missing": ["tax"],
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_checkout_stops_before_payment_and_orders_only_when_approved() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let core = core_on(tmp.path(), false).await;
    // Stop before payment: the phone and the street (sensitive: a phone
    // number, a postal address) are each typed once approved.
    let answers = Scripted::new(&[true, true]);
    let r = checkout(&core, &site, &answers, false).await;
    let out = ok(&r);
    assert_eq!(out["checkout_ready"], true, "{out}");
    assert_eq!(out["order_placed"], false);
    assert_eq!(out["status"], "ok");
    assert_eq!(out["final_cost_breakdown"], vnd_breakdown(), "{out}");
    assert_eq!(out["address_filled"], json!(["full_name", "phone", "street", "city"]));
    assert_eq!(scopes(&answers), ["Submit", "Submit"], "only filling the phone and the street were asked");
    let asked = answers.asked.lock().unwrap().clone();
    assert!(asked.iter().any(|q| q.risks.iter().any(|r| r.contains("shopping.delivery.phone"))), "{asked:?}");
    assert!(asked.iter().any(|q| q.risks.iter().any(|r| r.contains("shopping.delivery.street"))), "{asked:?}");
    let cart: Vec<_> = site.posts().into_iter().filter(|p| p.path == "/shop/vn/cart").collect();
    assert_eq!(cart.len(), 1, "added to the cart once");
    assert!(cart[0].body.as_deref().unwrap().contains("\"variant\":\"16GB/1TB\""), "{:?}", cart[0].body);
    assert_eq!(site.hits("/shop/vn/order"), 0, "nothing ordered");

    // Placing the order: asked (PAYMENT), approved, posted once.
    site.clear();
    let answers = Scripted::new(&[true, true, true]);
    let r = checkout(&core, &site, &answers, true).await;
    let out = ok(&r);
    assert_eq!((out["checkout_ready"].clone(), out["order_placed"].clone()), (json!(true), json!(true)), "{out}");
    assert_eq!(scopes(&answers), ["Submit", "Submit", "Payment"]);
    let orders: Vec<_> = site.posts().into_iter().filter(|p| p.path == "/shop/vn/order").collect();
    assert_eq!(orders.len(), 1);
    assert_eq!(orders[0].field("phone"), Some("0901234567"));
    assert_eq!(orders[0].field("full_name"), Some("Nguyễn Văn An"));
    assert_eq!(orders[0].field("street"), Some("12 Lý Thường Kiệt, Hoàn Kiếm"));
    assert_eq!(orders[0].field("city"), Some("Hà Nội"));

    // Denied: the phone and the street stay empty, nothing is ordered.
    site.clear();
    let answers = Scripted::new(&[]);
    let r = checkout(&core, &site, &answers, true).await;
    let out = ok(&r);
    assert_eq!(out["status"], "needs_confirmation", "{out}");
    assert_eq!(out["checkout_ready"], false);
    assert_eq!(out["order_placed"], false);
    assert_eq!(out["address_filled"], json!(["full_name", "city"]));
    assert!(out["notes"].to_string().contains("phone: not filled, you declined"), "{out}");
    assert!(out["notes"].to_string().contains("street: not filled, you declined"), "{out}");
    assert_eq!(site.hits("/shop/vn/order"), 0);
    assert!(site.requests().iter().all(|r| !format!("{r:?}").contains("0901234567")), "the phone never left");
    assert!(site.posts().iter().all(|p| p.field("street").is_none_or(str::is_empty)), "the street never left");
    core.close().await;
}

/// No `address_ref` (issue 29): the checkout takes the delivery address the
/// profile holds, the group of keys that names an address (here
/// `shopping.delivery`, beside a lone name at the top and a work city),
/// and says which; a profile without an address is a clear error before
/// anything is put in a cart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_address_ref_the_checkout_takes_the_profile_s_address() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let core = core_on(tmp.path(), false).await;
    let decoys = [
        ("full_name".to_owned(), json!("Trần Thị Bình")),
        ("work.city".to_owned(), json!("Đà Nẵng")),
        ("travel.home_airport".to_owned(), json!("HAN")),
    ];
    core.store().profile().apply(&decoys, &[]).await.unwrap();
    let answers = Scripted::new(&[true, true]);
    let cx = CallContext::new(FrontEnd::Cli).with_confirmer(answers.clone());
    let mut args = checkout_args(&site, "shop/vn/laptop.html", "", false);
    args.as_object_mut().unwrap().remove("address_ref");
    let r = call(&core, &cx, "shopping_prepare_checkout", args.clone()).await;
    let out = ok(&r);
    assert_eq!(out["checkout_ready"], true, "{out}");
    assert_eq!(out["address_filled"], json!(["full_name", "phone", "street", "city"]), "{out}");
    assert_eq!(out["final_cost_breakdown"], vnd_breakdown(), "{out}");
    let notes = out["notes"].to_string();
    assert!(notes.contains("the delivery address from your profile: `shopping.delivery`"), "{notes}");
    assert_eq!(scopes(&answers), ["Submit", "Submit"], "the phone and the street asked, as with the key given");
    assert_eq!(site.hits("/shop/vn/order"), 0, "nothing ordered");

    // A profile with no address (a name and a phone are not one): an
    // error naming what to do, and nothing added to any cart.
    let bare = tempfile::tempdir().unwrap();
    let empty = halley::host::open_core_full(
        DataDir::at(bare.path().join("data")),
        Registry::builtin().unwrap(),
        BrowserSettings { headless: true, ..BrowserSettings::default() },
    )
    .await
    .unwrap();
    let only_contact = [("full_name".to_owned(), json!("An")), ("phone".to_owned(), json!("0901234567"))];
    empty.store().profile().apply(&only_contact, &[]).await.unwrap();
    site.clear();
    let r = call(&empty, &CallContext::new(FrontEnd::Cli), "shopping_prepare_checkout", args).await;
    assert_eq!(r["error"]["code"], "invalid_arguments", "{r}");
    assert!(r["error"]["message"].as_str().unwrap().contains("no delivery address in your profile"), "{r}");
    assert!(site.posts().is_empty(), "nothing put in a cart");
    empty.close().await;
    core.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_address_file_a_dollar_shop_and_a_one_time_code_handed_to_the_user() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let core = core_on(tmp.path(), false).await;
    let file = tmp.path().join("addr.json");
    let address =
        json!({"full_name": "Jane Doe", "phone": "+1 415 555 0100", "street": "1 Market St", "city": "San Francisco"});
    std::fs::write(&file, address.to_string()).unwrap();
    let cx = CallContext::new(FrontEnd::Cli).with_confirmer(Scripted::new(&[]));
    let file_ref = format!("file://{}", file.display());
    // Not stored yet: refused, before any page is opened.
    let args = |r: &str, page: &str| {
        json!({"selected_option": {"url": site.other_url(page), "variant": "16GB/512GB", "quantity": 2},
            "address_ref": r, "coupon_code": "SAVE20", "challenge_timeout_ms": 2500})
    };
    let r = call(&core, &cx, "shopping_prepare_checkout", args(&file_ref, "shop/us/laptop.html")).await;
    assert_eq!(r["error"]["code"], "invalid_arguments", "{r}");
    assert!(r["error"]["message"].as_str().unwrap().contains("files_store"), "{r}");
    assert_eq!(site.requests().len(), 0);
    let stored = call(&core, &cx, "files_store", json!({"file_path": file_ref, "tags": ["address"]})).await;
    let id = ok(&stored)["file"]["id"].as_str().unwrap().to_owned();

    // The shop asks for a one-time code; the (simulated) user enters it
    // 1.5 s later, and the checkout goes on.
    let r =
        call(&core, &cx, "shopping_prepare_checkout", args(&id, "shop/us/laptop.html?otp=1&solve_after=1500")).await;
    let out = ok(&r);
    assert_eq!(out["checkout_ready"], true, "{out}");
    assert_eq!(out["status"], "ok");
    assert_eq!(
        out["final_cost_breakdown"],
        json!({
            "items": {"amount": 3398.0, "currency": "USD"},
            "shipping": {"amount": 15.0, "currency": "USD"},
            "discount": {"amount": 20.0, "currency": "USD"},
            "tax": null,
            "total": {"amount": 3393.0, "currency": "USD"},
            "missing": ["tax"],
        })
    );
    assert!(out["notes"].to_string().contains("handed to you, and solved"), "{out}");
    assert_eq!(site.hits("/shop/us/order"), 0);

    // Nobody enters it: the skill stops before the address.
    let r = call(&core, &cx, "shopping_prepare_checkout", args(&id, "shop/us/laptop.html?otp=1")).await;
    let out = ok(&r);
    assert_eq!(out["status"], "needs_user", "{out}");
    assert_eq!(out["checkout_ready"], false);
    assert_eq!(out["address_filled"], json!([]));
    core.close().await;
}

/// The tool calls of the run's timeline: (id, tool, status).
fn timeline(evs: &[Value]) -> Vec<(String, String, String)> {
    evs.iter()
        .filter(|e| e["type"] == "tool_result")
        .map(|e| {
            (
                e["id"].as_str().unwrap_or_default().to_owned(),
                e["name"].as_str().unwrap_or_default().to_owned(),
                e["result"]["status"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// `halley run` with the scripted model: the model calls the three skills
/// one after the other; the comparison's language step first gets a
/// malformed answer (a small model's quirk), then a valid one. With
/// `--confirm deny` the checkout's PAYMENT step (the order) is refused and
/// the shop receives no order.
#[test]
fn the_skills_in_a_model_run_with_every_step_in_the_timeline_and_confirm_deny() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let reason = "Nên mua ở GearVN: tổng 46.020.000 ₫, bảo hành 24 tháng.";
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new(
            "shopping_extract_specs",
            json!({"product_url": site.url("shop/vn/laptop.html"), "category": "laptop_gaming_v1"}),
        )]),
        Turn::tool_calls(vec![ToolCall::new("shopping_compare_options", compare_args(&site))]),
        Turn::text("{\"reason\": \"Nên mua ở GearVN"),
        Turn::text(&json!({"reason": reason}).to_string()),
        Turn::tool_calls(vec![ToolCall::new(
            "shopping_prepare_checkout",
            checkout_args(&site, "shop/vn/laptop.html", "shopping.home", true),
        )]),
        Turn::text("Đã chuẩn bị đơn hàng; bạn chưa xác nhận nên chưa đặt."),
    ]);
    let h = Halley::new();
    // An address with nothing sensitive in it (no phone, no street: a
    // postal address is sensitive): the only question is the order.
    let profile = json!({"set": {"shopping.home.full_name": "Nguyễn Văn An",
        "shopping.home.city": "Hà Nội", "shopping.fx.USD_VND": 25400}});
    let set = h.call("user_profile_set", &profile);
    assert_eq!(set.code, 0, "{}", set.stderr);
    let base = model.base_url();
    let run = h.run_model("So sánh và chuẩn bị đặt laptop", &base, &["--confirm", "deny"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let evs = run.events();
    let steps = timeline(&evs);
    let tools: Vec<&str> = steps.iter().map(|(_, t, _)| t.as_str()).collect();
    assert_eq!(
        tools,
        [
            // shopping_extract_specs (call 1) and its steps
            "browser_navigate",
            "browser_extract",
            "shopping_extract_specs",
            // shopping_compare_options: two pages, the comparison, the rate, the wording
            "browser_navigate",
            "browser_click",
            "browser_extract",
            "browser_navigate",
            "browser_click",
            "browser_extract",
            "user_profile_get",
            "normalize_compare",
            "model",
            "shopping_compare_options",
            // shopping_prepare_checkout
            "user_profile_get",
            "browser_navigate",
            "browser_click",
            "browser_find",
            "browser_click",
            "browser_find",
            "browser_navigate",
            "browser_detect_state",
            "browser_type",
            "browser_type",
            "browser_type",
            "browser_find",
            "browser_click",
            "browser_extract",
            "browser_find",
            "browser_click",
            "shopping_prepare_checkout",
        ],
        "{steps:#?}"
    );
    // Steps are numbered under their skill's call.
    let skill_ids: Vec<&str> =
        steps.iter().filter(|(_, t, _)| t.starts_with("shopping_")).map(|(id, _, _)| id.as_str()).collect();
    for (id, tool, _) in &steps {
        if !tool.starts_with("shopping_") {
            assert!(skill_ids.iter().any(|s| id.starts_with(&format!("{s}."))), "{id} {tool} is under no skill");
        }
    }
    // The denied step: the order (PAYMENT).
    let denied: Vec<&str> = evs
        .iter()
        .filter(|e| e["type"] == "tool_result" && e["result"]["error"]["code"] == "denied")
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(denied, ["browser_click"], "{steps:#?}");
    let results: Vec<&Value> = evs
        .iter()
        .filter(|e| e["type"] == "tool_result" && e["name"].as_str().unwrap().starts_with("shopping_"))
        .map(|e| &e["result"]["data"])
        .collect();
    assert_eq!(results[0]["spec_json"]["storage_gb"], 1000, "{}", results[0]);
    assert_eq!(results[1]["recommendation"]["reason"], reason, "the second, valid answer: {}", results[1]);
    assert_eq!(results[1]["recommendation"]["url"], site.url("shop/vn/laptop.html"));
    assert_eq!(results[2]["status"], "needs_confirmation", "{}", results[2]);
    assert_eq!(results[2]["order_placed"], false);
    assert_eq!(site.hits("/shop/vn/order"), 0, "the order never reached the shop");
    // The language step was a plain request, asked twice.
    let asks: Vec<Value> = model.requests().into_iter().filter(|r| r.get("tools").is_none()).collect();
    assert_eq!(asks.len(), 2, "{asks:?}");
    assert!(asks[1].to_string().contains("was not usable"), "{}", asks[1]);
}

/// A product page that sells at once ("Mua ngay", no cart, no checkout
/// page) with a shipping fee shown (issue 43, item 7): the breakdown is the
/// page's (price × quantity, shipping, the total added up and named
/// missing), ready with only the payment left; `place_order` presses
/// "Mua ngay", which is asked with the amount, and declined sends nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_buy_now_product_page_is_its_own_checkout() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let core = core_on(tmp.path(), false).await;
    let set = json!({"set": {"shopping.delivery.full_name": "Nguyễn An", "shopping.delivery.city": "Hà Nội"}});
    let r = call(&core, &CallContext::new(FrontEnd::Cli), "user_profile_set", set).await;
    ok(&r);
    for (query, quantity, items, total) in
        [("?ship=1", 1, 21_490_000.0, 21_520_000.0), ("#ship=1&qty=1", 2, 42_980_000.0, 43_010_000.0)]
    {
        site.clear();
        let answers = Scripted::new(&[]);
        let cx = CallContext::new(FrontEnd::Cli).with_confirmer(answers.clone());
        let url = site.url(&format!("shop/buy-now.html{query}"));
        let args = json!({"selected_option": {"url": url, "quantity": quantity}});
        let r = call(&core, &cx, "shopping_prepare_checkout", args.clone()).await;
        let out = ok(&r);
        assert_eq!(out["checkout_ready"], true, "{query}: {out}");
        assert_eq!(out["status"], "ok", "{query}: {out}");
        assert_eq!(
            out["final_cost_breakdown"],
            json!({
                "items": {"amount": items, "currency": "VND"},
                "shipping": {"amount": 30_000.0, "currency": "VND"},
                "discount": null,
                "tax": null,
                "total": {"amount": total, "currency": "VND"},
                "unit_price": {"amount": 21_490_000.0, "currency": "VND"},
                "quantity": quantity,
                "missing": ["discount", "tax", "total"],
            }),
            "{query}"
        );
        assert!(out["notes"].to_string().contains("stopped before that button"), "{query}: {out}");
        assert!(answers.asked.lock().unwrap().is_empty(), "{query}: nothing is asked before the payment");
        // Placing it: "Mua ngay" is asked, PAYMENT, with the amount; declined.
        let mut args = args;
        args["place_order"] = json!(true);
        let r = call(&core, &cx, "shopping_prepare_checkout", args).await;
        let out = ok(&r);
        assert_eq!(out["status"], "needs_confirmation", "{query}: {out}");
        assert_eq!(out["order_placed"], false, "{query}: {out}");
        let asked = answers.asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 1, "{query}: {asked:#?}");
        assert_eq!(asked[0].kind, halley::protocol::ConfirmKind::Pay, "{query}");
        // The question's amount is the same total: the price beside the
        // button times the form's quantity, plus the shipping shown.
        assert_eq!(asked[0].amount.as_ref().map(|a| a.value), Some(total), "{query}: {:#?}", asked[0]);
        assert_eq!(site.hits("/order"), 0, "{query}: declined, nothing was ordered");
    }
    core.close().await;
}

/// A place in the page shown (only the fragment differs, or the same
/// address with a fragment again) is reached within the document, at
/// once: `Page.navigate` waited 30 s for a `load` that never comes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fragment_of_the_page_shown_is_reached_at_once() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let core = core_on(tmp.path(), false).await;
    let cx = CallContext::new(FrontEnd::Cli).with_confirmer(Scripted::new(&[]));
    for path in ["shop/buy-now.html#ship=1", "shop/buy-now.html#ship=1", "shop/buy-now.html#qty=1", "shop/buy-now.html"]
    {
        let began = std::time::Instant::now();
        let r = call(&core, &cx, "browser_navigate", json!({"url": site.url(path)})).await;
        let out = ok(&r);
        assert_eq!(out["url"], site.url(path), "{path}");
        assert!(began.elapsed() < std::time::Duration::from_secs(10), "{path}: {:?}", began.elapsed());
    }
    core.close().await;
}
