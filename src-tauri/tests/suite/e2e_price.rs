//! The amount in every payment question (issue 43, item 1), on the real
//! desktop app over WebDriver, in both languages: "Mua ngay" on a product
//! page that shows `21.490.000 ₫` (also in its JSON-LD offer) opens the
//! confirmation with that amount and where it was read, in the window and
//! in the panel's waiting banner; the technical details and the gate's
//! reasons are in the UI's language; a page with no price says so plainly.
//! Run under `scripts/with-session.sh`.

use anyhow::Result;
use serde_json::json;

use crate::common::agent_app::{App, RUN_TIMEOUT, UI_TIMEOUT, desktop_or_skip};
use crate::common::fixtures::FixtureServer;
use crate::common::model_server::{ModelServer, ToolCall, Turn};
use crate::suite::e2e_watch::click;
use crate::suite::screenshots::choose_language;

/// What the panel and the dialog should say, in one language.
struct Words {
    banner: &'static str,
    banner_no_price: &'static str,
    source: &'static str,
    no_price: &'static str,
    /// The technical sentence, `{origin}` for the fixture site's.
    technical: &'static str,
    reason: &'static str,
    technical_title: &'static str,
    /// Words of the other language that must not show.
    foreign: &'static [&'static str],
}

const VI: Words = Words {
    banner: "Đang chờ bạn xác nhận: Thanh toán 21.490.000 ₫ cho 127.0.0.1, bằng cách bấm “Mua ngay”.",
    banner_no_price: "Đang chờ bạn xác nhận: Đặt hàng trên 127.0.0.1, bằng cách bấm “Mua ngay”. Halley không tìm thấy giá trên trang này.",
    source: "giá hiển thị cạnh nút",
    no_price: "Halley không tìm thấy giá trên trang này.",
    technical: "Bấm “Mua ngay” trên {origin} — gửi biểu mẫu tới {origin}/order (POST)",
    reason: "Bấm “Mua ngay” (nút): mã (id) “buy-now” của nó có chữ “buy now”, nên được xếp vào: Thanh toán.",
    technical_title: "Chi tiết kỹ thuật",
    foreign: &["Click button", "sends the form", "means", "PAYMENT", "SUBMIT", "clicking", "its form", "needs your"],
};

const EN: Words = Words {
    banner: "Waiting for your confirmation: Pay 21.490.000 ₫ to 127.0.0.1, by clicking “Mua ngay”.",
    banner_no_price: "Waiting for your confirmation: Place an order on 127.0.0.1, by clicking “Mua ngay”. Halley could not find the price on this page.",
    source: "the price shown beside the button",
    no_price: "Halley could not find the price on this page.",
    technical: "Click “Mua ngay” on {origin} — sends the form to {origin}/order (POST)",
    reason: "Clicking “Mua ngay” (button): its id “buy-now” says “buy now”, so it counts as: Pays.",
    technical_title: "Technical details",
    foreign: &["Thanh toán", "Bấm", "PAYMENT", "SUBMIT"],
};

/// The model's script: open `page`, click "Mua ngay", then say so.
fn buy_now(site: &FixtureServer, page: &str) -> Vec<Turn> {
    vec![
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site.url(page)}))]),
        Turn::tool_calls(vec![ToolCall::new("browser_click", json!({"selector": "#buy-now"}))]),
        Turn::text("Xong: tôi đã làm theo câu trả lời của bạn."),
    ]
}

fn in_language(lang: &str, words: &Words) -> Result<()> {
    let site = FixtureServer::start();
    let model = ModelServer::start(vec![]);
    let app = App::start(&model, &format!("price-{lang}"))?;
    let s = &app.panel;
    choose_language(s, lang)?;
    click(s, "#settings-view [data-testid=back-to-chat]")?;
    let origin = site.url("order").trim_end_matches("/order").to_owned();

    for (i, (page, priced)) in
        [("shop/buy-now.html", true), ("shop/buy-now.html?noprice=1", false)].into_iter().enumerate()
    {
        for turn in buy_now(&site, page) {
            model.push(turn);
        }
        s.send_task("Mua ngay giúp tôi", UI_TIMEOUT)?;
        // The panel's banner says what the dialog says.
        let banner = s.wait_text(".banner-confirm", RUN_TIMEOUT, |t| !t.is_empty())?;
        assert_eq!(banner, if priced { words.banner } else { words.banner_no_price }, "{lang} {page}");

        let dialog = s.wait_new_window(std::slice::from_ref(&app.panel_handle), RUN_TIMEOUT)?;
        s.wait_visible("#headline", UI_TIMEOUT)?;
        assert_eq!(s.execute("return document.documentElement.lang;", &[])?, json!(lang));
        let read = |css: &str| -> Result<String> {
            Ok(s.execute(&format!("return document.querySelector({css:?})?.textContent ?? null;"), &[])?
                .as_str()
                .unwrap_or("(none)")
                .to_owned())
        };
        if priced {
            assert_eq!(read("#amount .amount-value")?, "21.490.000 ₫");
            assert_eq!(read("#amount .amount-source")?, words.source);
        } else {
            assert_eq!(read("#amount.missing .amount-value")?, words.no_price);
        }
        // What will be sent, as before: the product's reference.
        assert_eq!(read(r#".confirm-field[data-field="sku"] output"#)?, "ABC-161");
        // The technical details, in the UI's language too.
        assert_eq!(read("#technical summary")?, words.technical_title);
        assert_eq!(read("#summary")?, words.technical.replace("{origin}", &origin));
        let reasons =
            s.execute(r##"return [...document.querySelectorAll("#risks li")].map((li) => li.textContent);"##, &[])?;
        let reasons: Vec<String> = serde_json::from_value(reasons)?;
        assert!(reasons.iter().any(|r| r == words.reason), "{lang}: {reasons:#?}");
        let body = read(".dialog-body")?;
        for foreign in words.foreign {
            assert!(!body.contains(foreign), "{lang}: “{foreign}” in the dialog: {body}");
            assert!(!banner.contains(foreign), "{lang}: “{foreign}” in the banner: {banner}");
        }
        if priced {
            crate::common::capture_panel(s, &app.artifacts, &format!("confirm-price-{lang}"))?;
        }
        // Deny: the shop receives nothing.
        s.click(&s.find("#deny")?)
            .or_else(|e| if format!("{e:#}").contains("no such window") { Ok(()) } else { Err(e) })?;
        s.wait_for("the dialog to close", UI_TIMEOUT, |s| Ok((!s.window_handles()?.contains(&dialog)).then_some(())))?;
        s.switch_to_window(&app.panel_handle)?;
        s.wait_count(".msg.assistant", i + 1, RUN_TIMEOUT)?;
        s.wait_script(r#"return document.querySelector(".banner-confirm") === null;"#, UI_TIMEOUT)?;
    }
    assert_eq!(site.hits("order"), 0, "a denied purchase reached the shop");
    app.stop()
}

#[test]
fn the_payment_question_names_the_price_in_the_window_and_the_banner_in_vietnamese() -> Result<()> {
    let Some(_desktop) = desktop_or_skip()? else {
        return Ok(());
    };
    in_language("vi", &VI)
}

#[test]
fn the_payment_question_names_the_price_in_the_window_and_the_banner_in_english() -> Result<()> {
    let Some(_desktop) = desktop_or_skip()? else {
        return Ok(());
    };
    in_language("en", &EN)
}
