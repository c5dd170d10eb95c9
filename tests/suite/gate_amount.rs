//! What a payment question says it costs, on real Chromium (issue 43,
//! item 1): "Mua ngay" on a product page names the price the page shows
//! beside it (`21.490.000 ₫`), else the product's own structured data,
//! times the quantity the form sends plus the shipping the page shows; a
//! page with no price says so (no amount); the reasons come by kind.

use std::sync::Arc;

use halley::protocol::{Act, AmountParts, AmountSource, ConfirmAmount, Control, Grading, Means, Place};
use halley::tools::PermissionScope;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::gate_browser::{Scripted, core_with};
use crate::common::browser::have_browser;
use crate::common::fixtures::FixtureServer;

/// The question "Mua ngay" asks on `shop/buy-now.html{query}` (nobody approves).
async fn asked(site: &FixtureServer, query: &str) -> halley::gate::ConfirmationRequest {
    let tmp = tempfile::tempdir().unwrap();
    let confirmer = Scripted::new(&[]);
    let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
    let r =
        core.call_tool(&cx, "browser_navigate", json!({"url": site.url(&format!("shop/buy-now.html{query}"))})).await;
    assert!(r.is_ok(), "{r:?}");
    let r = core.call_tool(&cx, "browser_click", json!({"selector": "#buy-now"})).await;
    assert_eq!(r.error.as_ref().map(|e| e.code.as_str()), Some("denied"), "{r:?}");
    core.close().await;
    let asked = confirmer.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "{asked:#?}");
    asked.into_iter().next().unwrap()
}

fn vnd(value: f64, source: AmountSource, parts: Option<AmountParts>) -> Option<Box<ConfirmAmount>> {
    Some(Box::new(ConfirmAmount { value, currency: Some("VND".into()), source, parts }))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn buy_now_on_a_product_page_names_the_price_beside_the_button() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let req = asked(&site, "").await;
    // Not the free-shipping threshold, the old price, the instalment, the
    // gift or another product: the price shown with the button.
    assert_eq!(req.amount, vnd(21_490_000.0, AmountSource::NearButton, None));
    assert_eq!(req.page_total.as_deref(), Some("21.490.000 ₫"));
    assert_eq!(
        req.fields.iter().map(|f| (f.name.as_str(), f.value.as_str())).collect::<Vec<_>>(),
        [("sku", "ABC-161")]
    );
    assert_eq!(req.method.as_deref(), Some("POST"));
    // The reasons by kind: the dialog writes them in the user's language.
    let control = Control { label: Some("Mua ngay".into()), role: "button".into() };
    assert_eq!(
        req.grading.iter().find(|g| matches!(g, Grading::Says { place: Place::Id, .. })),
        Some(&Grading::Says {
            act: Act::Click,
            control: control.clone(),
            place: Place::Id,
            place_text: Some("buy-now".into()),
            phrase: "buy now".into(),
            means: Means::Scope { meaning: "buy now".into() },
            scope: PermissionScope::Payment,
        }),
        "{:#?}",
        req.grading
    );
    assert!(
        req.grading.contains(&Grading::SubmitsForm { act: Act::Click, control, to: Some(site.url("order")) }),
        "{:#?}",
        req.grading
    );
    // Each reason's English sentence is the same one the audit log keeps.
    assert_eq!(req.risks.len(), req.grading.len(), "{:?}", req.risks);
    assert!(
        req.risks.iter().any(|r| r.contains(r#"its id "buy-now" says "buy now" means buy now: PAYMENT"#)),
        "{:?}",
        req.risks
    );
    assert!(site.posts().is_empty(), "nothing was sent: {:?}", site.posts());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_quantity_the_form_sends_and_the_shipping_shown_add_up_to_the_amount() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let req = asked(&site, "#qty=2&ship=1").await;
    let parts = AmountParts { unit: 21_490_000.0, quantity: 2, shipping: Some(30_000.0) };
    assert_eq!(req.amount, vnd(43_010_000.0, AmountSource::NearButton, Some(parts)));
    assert_eq!(req.page_total.as_deref(), Some("2 × 21.490.000 ₫ + shipping 30.000 ₫"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_no_price_shown_the_product_s_data_names_it_and_with_none_there_is_no_amount() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let req = asked(&site, "?visible=0").await;
    assert_eq!(req.amount, vnd(21_490_000.0, AmountSource::StructuredData, None));
    let req = asked(&site, "?noprice=1").await;
    assert_eq!((req.amount, req.page_total), (None, None));
    assert_eq!(req.kind, halley::protocol::ConfirmKind::Pay);
}

/// "Mua ngay" whose script posts the sku alone (no form is sent): the
/// click's question names the price, and so does the question about the
/// request it sets off, which names no amount of its own; refused, the
/// shop gets nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scripted_buy_whose_request_names_no_amount_is_asked_with_the_pages_price() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    for query in ["?js=1", "#js=1&qty=2&ship=1"] {
        site.clear();
        let tmp = tempfile::tempdir().unwrap();
        // The person approves the click, not the request it then sends.
        let confirmer = Scripted::new(&[true, false]);
        let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
        let r = core
            .call_tool(&cx, "browser_navigate", json!({"url": site.url(&format!("shop/buy-now.html{query}"))}))
            .await;
        assert!(r.is_ok(), "{r:?}");
        let r = core.call_tool(&cx, "browser_click", json!({"selector": "#buy-now"})).await;
        assert_eq!(r.error.as_ref().map(|e| e.code.as_str()), Some("denied"), "{query}: {r:?}");
        core.close().await;
        let asked = confirmer.asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 2, "{query}: the click, then its request: {asked:#?}");
        let request = &asked[1];
        assert!(request.destination.as_deref().is_some_and(|d| d.ends_with("/order")), "{query}: {request:#?}");
        assert_eq!(request.kind, halley::protocol::ConfirmKind::Pay, "{query}");
        let want = if query.contains("qty") {
            // The form's quantity field is not sent by the script, but it is
            // what the page says is bought.
            vnd(
                43_010_000.0,
                AmountSource::NearButton,
                Some(AmountParts { unit: 21_490_000.0, quantity: 2, shipping: Some(30_000.0) }),
            )
        } else {
            vnd(21_490_000.0, AmountSource::NearButton, None)
        };
        assert_eq!(request.amount, want, "{query}: {request:#?}");
        assert_eq!(asked[0].amount, want, "{query}: the click's question says the same: {:#?}", asked[0]);
        assert!(site.posts().iter().all(|p| p.path != "/order"), "{query}: {:?}", site.posts());
    }
}
